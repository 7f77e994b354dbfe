// A crash reproducer (mlir-opt's format, as tensorad.passes.isolation writes it)
// replays its recorded pipeline; its resource block is not warned about.
// RUN: autodiff-opt %s --run-reproducer 2>&1 | FileCheck %s --implicit-check-not=warning
// RUN: not autodiff-opt %s --run-reproducer --cse 2>&1 | FileCheck %s --check-prefix=BOTH

// CHECK-LABEL: func.func @f
// CHECK: linalg.generic
// CHECK-NOT: arith.addf %arg0
// BOTH: error:
func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = arith.addf %x, %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}

{-#
  external_resources: {
    mlir_reproducer: {
      pipeline: "builtin.module(func.func(convert-elementwise-to-linalg))",
      disable_threading: true,
      verify_each: true
    }
  }
#-}
