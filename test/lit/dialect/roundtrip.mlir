// Every tad op parses, passes tad-verify and prints back in a form that parses again.
// RUN: autodiff-opt %s --split-input-file | autodiff-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK: "tad.broadcast_in_dim"(%{{.*}}) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
func.func @broadcast_in_dim(%x: tensor<3xf32>) -> tensor<2x3xf32> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_size_one
// CHECK: "tad.broadcast_in_dim"(%{{.*}}) {broadcast_dimensions = array<i64: 0, 2>} : (tensor<1x4xf64>) -> tensor<5x3x4xf64>
func.func @broadcast_size_one(%x: tensor<1x4xf64>) -> tensor<5x3x4xf64> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 2>} : (tensor<1x4xf64>) -> tensor<5x3x4xf64>
  return %0 : tensor<5x3x4xf64>
}

// -----

// CHECK-LABEL: func.func @reshape
// CHECK: "tad.reshape"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<6xf32>
func.func @reshape(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: "tad.transpose"(%{{.*}}) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
func.func @transpose(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK: "tad.slice"(%{{.*}}) {limit_indices = array<i64: 7, 4>, start_indices = array<i64: 1, 0>, strides = array<i64: 2, 2>} : (tensor<8x4xf32>) -> tensor<3x2xf32>
func.func @slice(%x: tensor<8x4xf32>) -> tensor<3x2xf32> {
  %0 = "tad.slice"(%x) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 7, 4>, strides = array<i64: 2, 2>} : (tensor<8x4xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK: "tad.pad"(%{{.*}}, %{{.*}}) {edge_padding_high = array<i64: 1, 2>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x7xf32>
func.func @pad(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<4x7xf32> {
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 1, 2>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x7xf32>
  return %0 : tensor<4x7xf32>
}

// -----

// CHECK-LABEL: func.func @iota
// CHECK: "tad.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x5xi64>
func.func @iota() -> tensor<2x5xi64> {
  %0 = "tad.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// CHECK-LABEL: func.func @constant
// CHECK: "tad.constant"() {value = 1.500000e+00 : f64} : () -> tensor<2x2xf64>
// CHECK: "tad.constant"() {value = -3 : i32} : () -> tensor<4xi32>
func.func @constant() -> (tensor<2x2xf64>, tensor<4xi32>) {
  %0 = "tad.constant"() {value = 1.5 : f64} : () -> tensor<2x2xf64>
  %1 = "tad.constant"() {value = -3 : i32} : () -> tensor<4xi32>
  return %0, %1 : tensor<2x2xf64>, tensor<4xi32>
}

// -----

// CHECK-LABEL: func.func @convert
// CHECK: "tad.convert"(%{{.*}}) : (tensor<2x3xf32>) -> tensor<2x3xi32>
func.func @convert(%x: tensor<2x3xf32>) -> tensor<2x3xi32> {
  %0 = "tad.convert"(%x) : (tensor<2x3xf32>) -> tensor<2x3xi32>
  return %0 : tensor<2x3xi32>
}

// -----

// CHECK-LABEL: func.func @matmul
// CHECK: "tad.dot_general"(%{{.*}}, %{{.*}}) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) -> tensor<2x5xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// CHECK-LABEL: func.func @batched_matmul
// CHECK: "tad.dot_general"(%{{.*}}, %{{.*}}) {lhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batching_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
func.func @batched_matmul(%a: tensor<4x2x3xf32>, %b: tensor<4x3x5xf32>) -> tensor<4x2x5xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<4x2x3xf32>, tensor<4x3x5xf32>) -> tensor<4x2x5xf32>
  return %0 : tensor<4x2x5xf32>
}

// -----

// CHECK-LABEL: func.func @reductions
// CHECK: "tad.reduce_sum"(%{{.*}}) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: "tad.reduce_max"(%{{.*}}) {dimensions = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: "tad.reduce_min"(%{{.*}}) {dimensions = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
func.func @reductions(%x: tensor<2x3x4xf32>) -> (tensor<3xf32>, tensor<2x4xf32>, tensor<f32>) {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %1 = "tad.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %2 = "tad.reduce_min"(%x) {dimensions = array<i64: 0, 1, 2>} : (tensor<2x3x4xf32>) -> tensor<f32>
  return %0, %1, %2 : tensor<3xf32>, tensor<2x4xf32>, tensor<f32>
}

// -----

// CHECK-LABEL: func.func @argmax
// CHECK: "tad.argmax"(%{{.*}}) {axis = 1 : i64} : (tensor<2x7xf32>) -> tensor<2xi64>
func.func @argmax(%x: tensor<2x7xf32>) -> tensor<2xi64> {
  %0 = "tad.argmax"(%x) {axis = 1 : i64} : (tensor<2x7xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @markers
// CHECK: %[[S:.*]] = "tad.stop_gradient"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[C:.*]] = "tad.start_checkpoint"(%[[S]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[E:.*]] = "tad.end_checkpoint"(%[[C]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: return %[[E]]
func.func @markers(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tad.start_checkpoint"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  %2 = "tad.end_checkpoint"(%1) : (tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}
