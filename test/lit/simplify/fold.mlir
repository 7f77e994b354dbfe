// Fold rules of tad-simplify: identity structure ops vanish, chains collapse,
// structure ops of a splat constant become a constant, adding zero is dropped.
// RUN: autodiff-opt %s --split-input-file --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func @identity_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @identity_transpose(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @transpose_of_transpose_cancels
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_of_transpose_cancels(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = "tad.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Result dim i of the pair is x's dim inner[outer[i]] = [1, 0, 2][[2, 0, 1][i]] = [2, 1, 0].
// CHECK-LABEL: func.func @transpose_of_transpose_composes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = "tad.transpose"(%[[X]]) {permutation = array<i64: 2, 1, 0>} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose_composes(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  %1 = "tad.transpose"(%0) {permutation = array<i64: 2, 0, 1>} : (tensor<3x2x4xf32>) -> tensor<4x3x2xf32>
  return %1 : tensor<4x3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<6xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_same_type(%x: tensor<6xf32>) -> tensor<6xf32> {
  %0 = "tad.reshape"(%x) : (tensor<6xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[R:.*]] = "tad.reshape"(%[[X]]) : (tensor<2x3xf32>) -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = "tad.reshape"(%0) : (tensor<6xf32>) -> tensor<3x2xf32>
  return %1 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @reshape_round_trip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  %1 = "tad.reshape"(%0) : (tensor<6xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// -----

// Same type but swapped dims is a transpose: it stays.
// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[S:.*]]: tensor<2x2xf32>)
// CHECK-NEXT: %[[T:.*]] = "tad.broadcast_in_dim"(%[[S]]) {broadcast_dimensions = array<i64: 1, 0>}
// CHECK-NEXT: return %[[X]], %[[T]]
func.func @broadcast_in_dim(%x: tensor<2x3xf32>, %s: tensor<2x2xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>) {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tad.broadcast_in_dim"(%s) {broadcast_dimensions = array<i64: 1, 0>} : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x2xf32>
}

// -----

// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<f32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<2x3xf32>, %v: tensor<f32>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = "tad.convert"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = "tad.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  %3 = "tad.reduce_sum"(%x) {dimensions = array<i64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @not_identities
// CHECK: "tad.convert"
// CHECK: "tad.slice"
// CHECK: "tad.pad"
func.func @not_identities(%x: tensor<2x3xf32>, %v: tensor<f32>) -> (tensor<2x3xf64>, tensor<1x3xf32>, tensor<3x3xf32>) {
  %0 = "tad.convert"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf64>
  %1 = "tad.slice"(%x) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 2, 3>, strides = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %2 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 1, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<3x3xf32>
  return %0, %1, %2 : tensor<2x3xf64>, tensor<1x3xf32>, tensor<3x3xf32>
}

// -----

// CHECK-LABEL: func.func @structure_of_splat
// CHECK-NEXT: %[[C:.*]] = "tad.constant"() {value = 1.500000e+00 : f32} : () -> tensor<4x2xf32>
// CHECK-NEXT: return %[[C]]
func.func @structure_of_splat() -> tensor<4x2xf32> {
  %0 = "tad.constant"() {value = 1.5 : f32} : () -> tensor<3xf32>
  %1 = "tad.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x8xf32>
  %2 = "tad.transpose"(%1) {permutation = array<i64: 1, 0>} : (tensor<3x8xf32>) -> tensor<8x3xf32>
  %3 = "tad.reduce_max"(%2) {dimensions = array<i64: 1>} : (tensor<8x3xf32>) -> tensor<8xf32>
  %4 = "tad.reshape"(%3) : (tensor<8xf32>) -> tensor<4x2xf32>
  return %4 : tensor<4x2xf32>
}

// -----

// Zero adjoints: adding a zero splat is the other operand.
// CHECK-LABEL: func.func @add_zero
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[I:.*]]: tensor<3xi32>)
// CHECK-NEXT: return %[[X]], %[[X]], %[[I]]
func.func @add_zero(%x: tensor<3xf32>, %i: tensor<3xi32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xi32>) {
  %z = "tad.constant"() {value = 0.0 : f32} : () -> tensor<3xf32>
  %zi = "tad.constant"() {value = 0 : i32} : () -> tensor<3xi32>
  %0 = arith.addf %z, %x : tensor<3xf32>
  %1 = arith.subf %x, %z : tensor<3xf32>
  %2 = arith.addi %i, %zi : tensor<3xi32>
  return %0, %1, %2 : tensor<3xf32>, tensor<3xf32>, tensor<3xi32>
}

// -----

// Subtracting from zero is a negation, not a fold.
// CHECK-LABEL: func.func @zero_minus_x
// CHECK: arith.subf
func.func @zero_minus_x(%x: tensor<3xf32>) -> tensor<3xf32> {
  %z = "tad.constant"() {value = 0.0 : f32} : () -> tensor<3xf32>
  %0 = arith.subf %z, %x : tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Markers are never folded while used.
// CHECK-LABEL: func.func @markers_stay
// CHECK: "tad.start_checkpoint"
// CHECK: "tad.stop_gradient"
// CHECK: "tad.end_checkpoint"
func.func @markers_stay(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tad.start_checkpoint"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tad.stop_gradient"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tad.end_checkpoint"(%1) : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}
