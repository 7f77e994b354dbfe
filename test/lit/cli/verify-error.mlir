// A tad op that breaks its shape rule fails tad-verify, which runs right after parsing:
// status 1, the error at the op, no output and no traceback.
// RUN: %exit 1 autodiff-opt %s
// RUN: not autodiff-opt %s 2>&1 | FileCheck %s
// RUN: not autodiff-opt %s --cse 2>&1 | FileCheck %s

// CHECK-NOT: Traceback
// CHECK: verify-error.mlir:[[@LINE+4]]:8: error: 'tad.transpose' op permutation [0, 0] repeats a dimension
// CHECK-NOT: module
// CHECK-NOT: Traceback
func.func @f(%x: tensor<2x3xf32>) {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}
