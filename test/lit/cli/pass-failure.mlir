// A failing pass gives FILE:LINE:COL: error: (and its notes), status 1, and no output.
// RUN: %exit 1 autodiff-opt %s --one-shot-bufferize
// RUN: not autodiff-opt %s --one-shot-bufferize 2>&1 | FileCheck %s
// RUN: not autodiff-opt %s --one-shot-bufferize 2>/dev/null | FileCheck %s --check-prefix=NOOUT --allow-empty

// CHECK-NOT: Traceback
// CHECK: pass-failure.mlir:[[@LINE+5]]:8: error: op was not bufferized
// CHECK: pass-failure.mlir:[[@LINE+4]]:8: note: see current operation
// CHECK-NOT: Traceback
// NOOUT-NOT: {{.}}
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
