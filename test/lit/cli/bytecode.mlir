// --emit-bytecode writes MLIR bytecode; bytecode input (a file that starts with
// the magic ML\xefR, from a file or stdin) is read as such. Upstream mlir-opt
// reads tensorad's bytecode, and tensorad reads mlir-opt's.
// RUN: autodiff-opt %s --tad-simplify --emit-bytecode -o %t.mlirbc
// RUN: %python -c "import sys; sys.exit(open(sys.argv[1], 'rb').read(4) != bytes([77, 76, 239, 82]))" %t.mlirbc
// RUN: autodiff-opt %t.mlirbc --cse | FileCheck %s
// RUN: autodiff-opt < %t.mlirbc | FileCheck %s
// RUN: tad-mlir-opt --irdl-file=%irdl %t.mlirbc | FileCheck %s
// RUN: tad-mlir-opt --irdl-file=%irdl %s --emit-bytecode -o %t.upstream.mlirbc
// RUN: autodiff-opt %t.upstream.mlirbc --tad-simplify | FileCheck %s
// Bytecode has no chunk marker:
// RUN: not autodiff-opt %s --emit-bytecode --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT

// CHECK-LABEL: func.func @f
// CHECK:       "tad.transpose"(%arg0) {permutation = array<i64: 1, 0>}
// CHECK-NOT:   arith.constant
// SPLIT: autodiff-opt: error: --emit-bytecode cannot be combined with --split-input-file
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
