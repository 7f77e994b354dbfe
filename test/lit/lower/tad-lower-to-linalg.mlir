// tad-lower-to-linalg replaces every tad op by linalg, tensor, arith and math ops and leaves
// upstream elementwise ops as they are (the fusion of tad-lower-to-llvm lowers them). Each
// op family has its own file in this folder (structure, contraction, reduction, ...).
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --implicit-check-not=tad.

// CHECK-LABEL: func.func @f
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x4xf32>
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} outs(%[[E]] : tensor<2x4xf32>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: %[[C:.*]] = linalg.contract {{.*}} ins(%arg0, %arg1 : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[Z]] : tensor<2x4xf32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[C]] : tensor<2x4xf32>) outs(%{{.*}} : tensor<4x2xf32>) permutation = [1, 0]
// CHECK-NEXT: %[[X:.*]] = math.exp %[[T]] : tensor<4x2xf32>
// CHECK-NEXT: return %[[X]]
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<4x2xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "tad.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<2x4xf32>) -> tensor<4x2xf32>
  %2 = math.exp %1 : tensor<4x2xf32>
  return %2 : tensor<4x2xf32>
}

// -----

// Markers are identities: they disappear.
// CHECK-LABEL: func.func @markers
// CHECK-NEXT: %[[S:.*]] = math.sin %arg0
// CHECK-NEXT: return %[[S]]
func.func @markers(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.stop_gradient"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %1 = math.sin %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
