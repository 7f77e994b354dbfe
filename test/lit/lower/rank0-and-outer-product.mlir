// tad-lower-to-linalg on a rank-0 transpose (it asserted in getPermutationMap) and on a
// dot_general without contracting dims (an outer product).
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @rank0_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<f64>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[X]] : tensor<f64>
func.func @rank0_transpose(%x: tensor<f64>) -> tensor<f64> {
  %0 = "tad.transpose"(%x) {permutation = array<i64>} : (tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// The outer product writes each element once into an empty init: an all-parallel generic
// that read a zero init was fused into its broadcasting consumer with that init as a second
// output, written once per broadcast row (which the vectorizer then failed on).
// CHECK-LABEL: func.func @outer_product
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3x4xf64>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<4xf64>) outs(%[[E]] : tensor<3x4xf64>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f64, %[[B:.*]]: f64, %{{.*}}: f64):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[A]], %[[B]] : f64
// CHECK-NEXT: linalg.yield %[[P]] : f64
func.func @outer_product(%x: tensor<3xf64>, %y: tensor<4xf64>) -> tensor<3x4xf64> {
  %0 = "tad.dot_general"(%x, %y) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64>} : (tensor<3xf64>, tensor<4xf64>) -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}
