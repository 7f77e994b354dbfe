// --list-passes, --show-dialects and --version print on stdout and exit 0,
// in mlir-opt's formats. --list-passes lists the upstream passes and tensorad's,
// in name order, each with its options (tensorad's from their typed options).
// RUN: autodiff-opt --list-passes | FileCheck %s --check-prefix=PASSES
// RUN: autodiff-opt --show-dialects | FileCheck %s --check-prefix=DIALECTS
// RUN: autodiff-opt --version | FileCheck %s --check-prefix=VERSION

// PASSES:      Passes:
// PASSES:        --canonicalize {{ *}}-   Canonicalize operations
// PASSES-NEXT:     --disable-patterns=<string>
// PASSES:        --cse {{ *}}-   Eliminate common sub-expressions
// PASSES:        --tad-lower-to-llvm {{ *}}-   (pipeline) Fuse, bufferize
// PASSES:          --threads=<
// PASSES:        --tad-remat {{ *}}-   Choose what the backward sweep stores
// PASSES-NEXT:     --budget=<a number of bytes{{.*}}> {{ *}}- peak live bytes
// PASSES-NEXT:     --policy=<one of nothing_saveable
// PASSES:        --tad-verify {{ *}}-   Check the shape and attribute rules of every tad op
// PASSES-NEXT:   --{{[a-z]}}

// DIALECTS: Available Dialects: {{.*}}arith,{{.*}},linalg,{{.*}},tad,tensor,

// VERSION:      autodiff-opt (tensorad {{[0-9.]+.*}})
// VERSION-NEXT:   MLIR Python bindings: xtc-mlir-python-bindings 22.
