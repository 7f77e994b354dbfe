// Upstream mlir-opt loads the tad dialect from its IRDL file alone and round-trips its ops.
// RUN: mlir-opt --irdl-file=%irdl %s | mlir-opt --irdl-file=%irdl | FileCheck %s

// CHECK-LABEL: func.func @structure
// CHECK: "tad.transpose"(%{{.*}}) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK: "tad.broadcast_in_dim"(%{{.*}}) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK: "tad.reshape"(%{{.*}}) : (tensor<3x2xf32>) -> tensor<6xf32>
func.func @structure(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "tad.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %2 = "tad.reshape"(%1) : (tensor<3x2xf32>) -> tensor<6xf32>
  return %2 : tensor<6xf32>
}

// CHECK-LABEL: func.func @contraction
// CHECK: "tad.dot_general"(%{{.*}}, %{{.*}}) {{{.*}}lhs_contracting_dimensions = array<i64: 1>{{.*}}} : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
// CHECK: "tad.reduce_sum"(%{{.*}}) {dimensions = array<i64: 0, 1>} : (tensor<2x5xf64>) -> tensor<f64>
// CHECK: "tad.stop_gradient"(%{{.*}}) : (tensor<f64>) -> tensor<f64>
func.func @contraction(%a: tensor<2x3xf64>, %b: tensor<3x5xf64>) -> tensor<f64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf64>, tensor<3x5xf64>) -> tensor<2x5xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0, 1>} : (tensor<2x5xf64>) -> tensor<f64>
  %2 = "tad.stop_gradient"(%1) : (tensor<f64>) -> tensor<f64>
  return %2 : tensor<f64>
}
