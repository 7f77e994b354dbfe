// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// tad ops on dynamic shapes (issue 14) lower to linalg on tensors whose
// tensor.empty takes its dynamic sizes from the operands (tensor.dim).

// CHECK-LABEL: func.func @t
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf32>
// CHECK: linalg.transpose ins(%arg0 : tensor<?x3xf32>) outs(%[[E]] : tensor<3x?xf32>)
func.func @t(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}

// -----

// CHECK-LABEL: func.func @mm
// CHECK: %[[M:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.empty(%[[M]]) : tensor<?x5xf32>
// CHECK: linalg.contract {{.*}} ins(%arg0, %arg1 : tensor<?x4xf32>, tensor<4x5xf32>) outs(%{{.*}} : tensor<?x5xf32>)
func.func @mm(%a: tensor<?x4xf32>, %b: tensor<4x5xf32>) -> tensor<?x5xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x4xf32>, tensor<4x5xf32>) -> tensor<?x5xf32>
  return %0 : tensor<?x5xf32>
}

// -----

// A sum over a dynamic dim: whole blocks of 16 rows of 64 lanes, then the tail.
// CHECK-LABEL: func.func @sum
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x3xf32>
// CHECK: %[[BLOCKS:.*]] = arith.divui %[[N]], %{{.*}} : index
// CHECK: %[[WHOLE:.*]] = arith.muli %[[BLOCKS]], %{{.*}} : index
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [%[[BLOCKS]], 1024, 3] : tensor<?x3xf32> into tensor<?x1024x3xf32>
// CHECK: tensor<?x16x64x3xf32>
// CHECK: %[[REST:.*]] = arith.subi %[[N]], %[[WHOLE]] : index
// CHECK: tensor.extract_slice %arg0[%[[WHOLE]], 0] [%[[REST]], 3] [1, 1] : tensor<?x3xf32> to tensor<?x3xf32>
func.func @sum(%x: tensor<?x3xf32>) -> tensor<3xf32> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<?x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @rs
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?x4xf32>
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [%[[N]], 2, 2] : tensor<?x4xf32> into tensor<?x2x2xf32>
func.func @rs(%x: tensor<?x4xf32>) -> tensor<?x2x2xf32> {
  %0 = "tad.reshape"(%x) : (tensor<?x4xf32>) -> tensor<?x2x2xf32>
  return %0 : tensor<?x2x2xf32>
}

// -----

// CHECK-LABEL: func.func @bc
// CHECK: %[[N:.*]] = tensor.dim %arg0, %{{.*}} : tensor<?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?x3xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<?xf32>) outs(%[[E]] : tensor<?x3xf32>)
func.func @bc(%x: tensor<?xf32>) -> tensor<?x3xf32> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0>} : (tensor<?xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
