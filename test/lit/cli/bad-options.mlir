// Bad pass options and malformed pipelines are usage errors: status 1, a message naming
// the pass, the option, the value and what is accepted; no 0:0 location, no traceback.
// RUN: %exit 1 autodiff-opt %s --tad-remat=policy=bogus
// RUN: not autodiff-opt %s --tad-remat=policy=bogus 2>&1 | FileCheck %s --check-prefix=POLICY
// RUN: not autodiff-opt %s --tad-remat=budget= 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not autodiff-opt %s --tad-remat=budget=abc 2>&1 | FileCheck %s --check-prefix=BUDGET
// RUN: not autodiff-opt %s --tad-remat=budget=-5 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not autodiff-opt %s --tad-remat=budget=nan 2>&1 | FileCheck %s --check-prefix=NAN
// RUN: not autodiff-opt %s --tad-remat=tier=bogus 2>&1 | FileCheck %s --check-prefix=TIER
// RUN: not autodiff-opt %s --tad-remat=no-such=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not autodiff-opt %s '--tad-remat=budget=1 budget=2' 2>&1 | FileCheck %s --check-prefix=TWICE
// RUN: not autodiff-opt %s --tad-verify=x=1 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not autodiff-opt %s --tad-tile-and-vectorize=vector-bits=100 2>&1 | FileCheck %s --check-prefix=BITS
// RUN: not autodiff-opt %s --tad-lower-to-llvm=threads=0 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not autodiff-opt %s --tad-lower-to-nvvm=format=elf 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: %exit 1 autodiff-opt %s --pass-pipeline='builtin.module(tad-remat{budget=10)'
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(tad-remat{budget=10)' 2>&1 | FileCheck %s --check-prefix=BRACE
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(tad-remat{budget=10}' 2>&1 | FileCheck %s --check-prefix=PAREN
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(tad-remat{budget=10}x)' 2>&1 | FileCheck %s --check-prefix=TRAIL
// RUN: not autodiff-opt %s --pass-pipeline='cse,,cse' 2>&1 | FileCheck %s --check-prefix=EMPTYNAME
// Unwritable files are named with the reason:
// RUN: not autodiff-opt %s --tad-remat --tad-remat-report=%t.missing/r.json 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: not autodiff-opt %s -o %t.missing/out.mlir 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not autodiff-opt %s --cse --tad-remat-report=%t.json 2>&1 | FileCheck %s --check-prefix=NOREMAT
// Good options still work:
// RUN: autodiff-opt %s '--tad-remat=budget=64MiB policy=save_only_these_names:a,b tier=greedy node-limit=500' | FileCheck %s --check-prefix=GOOD

// POLICY-NOT: Traceback
// POLICY: autodiff-opt: error: pass 'tad-remat': option 'policy' cannot be 'bogus': expected one of nothing_saveable, everything_saveable, dots_saveable, save_only_these_names:NAME,...
// EMPTY: error: pass 'tad-remat': option 'budget' cannot be empty: expected a number of bytes
// BUDGET: error: pass 'tad-remat': option 'budget' cannot be 'abc': expected a number of bytes, e.g. 1048576 or 64MiB
// NEGATIVE: option 'budget' cannot be '-5'
// NAN: option 'budget' cannot be 'nan'
// NAN-NOT: 0:0
// TIER: option 'tier' cannot be 'bogus': expected one of auto, chain, exact, intervals, mincut, greedy
// UNKNOWN: pass 'tad-remat' has no option 'no-such'; its options are: budget, policy, tier, node-limit
// TWICE: option 'budget' is given twice
// NONE: pass 'tad-verify' takes no options, got 'x=1'
// BITS: option 'vector-bits' cannot be '100': expected 0 or a power of two from 64 to 4096
// THREADS: pass 'tad-lower-to-llvm': option 'threads' cannot be '0': expected an integer from 1 to 1024
// FORMAT: option 'format' cannot be 'elf': expected one of isa, llvm, offloading, bin, fatbin
// BRACE: error: invalid pass pipeline: unbalanced ')' at column 35
// PAREN: error: invalid pass pipeline: '(' at column 15 of 'builtin.module(tad-remat{budget=10}' is never closed
// TRAIL: error: invalid pass pipeline: 'tad-remat{budget=10}x': a tensorad pass takes its options as tad-remat{key=value ...}
// EMPTYNAME: error: invalid pass pipeline: empty pass name
// REPORT: autodiff-opt: error: cannot write '{{.*}}missing/r.json': No such file or directory
// OUTPUT: autodiff-opt: error: cannot write '{{.*}}missing/out.mlir': No such file or directory
// NOREMAT: error: --tad-remat-report needs the tad-remat pass in the pipeline
// GOOD-LABEL: func.func @f
func.func @f() {
  return
}
