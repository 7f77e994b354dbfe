// --dump-pass-pipeline prints the pipeline that will run on stderr, as mlir-opt
// does, then runs it: named tensorad pipelines are expanded, upstream passes
// show all their options and tensorad passes the ones that differ from their
// defaults (in the form the pass reads them).
// RUN: autodiff-opt %s --dump-pass-pipeline --tad-simplify --tad-remat=budget=1KiB \
// RUN:   '--canonicalize=max-iterations=3' -o %t 2>&1 | FileCheck %s
// RUN: FileCheck %s --check-prefix=RAN < %t
// RUN: autodiff-opt %s --dump-pass-pipeline \
// RUN:   --pass-pipeline='builtin.module(func.func(cse, canonicalize), tad-jit-differentiate)' -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED
// RUN: autodiff-opt %s --dump-pass-pipeline -o %t 2>&1 | FileCheck %s --check-prefix=EMPTY

// CHECK:      Pass Manager with 3 passes:
// CHECK-NEXT: builtin.module(
// CHECK-NEXT:   tad-simplify,
// CHECK-NEXT:   tad-remat{budget=1024},
// CHECK-NEXT:   canonicalize{ {{ *}}max-iterations=3 {{.*}}top-down=true}
// CHECK-NEXT: )
// RAN: func.func @f

// NESTED:      Pass Manager with {{[0-9]+}} passes:
// NESTED-NEXT: builtin.module(
// NESTED-NEXT:   func.func(
// NESTED-NEXT:     cse,
// NESTED-NEXT:     canonicalize{{{.*}}}
// NESTED-NEXT:   ),
// NESTED:        tad-differentiate,
// NESTED:        tad-remat
// NESTED:      )

// EMPTY:      Pass Manager with 0 passes:
// EMPTY-NEXT: builtin.module(
// EMPTY-EMPTY:
// EMPTY-NEXT: )
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}
