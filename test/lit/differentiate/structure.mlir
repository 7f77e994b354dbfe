// Reverse mode of the structural ops: each adjoint is the transposed linear map
// (broadcast -> sum, reshape -> reshape back, transpose -> inverse permutation,
// slice <-> pad, concat -> slices, convert -> convert back, markers -> identity).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @broadcast_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<2x3xf64>)
// CHECK: %[[D:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 0>} : (tensor<2x3xf64>) -> tensor<3xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @broadcast(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @broadcast_vjp(tensor<3xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @broadcast, wrt = array<i64: 0>}}

// -----

// A size-1 operand dim that is expanded is summed too, then restored by a reshape.
// CHECK-LABEL: func.func private @broadcast_size_one_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<2x3x4xf64>)
// CHECK: %[[S:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>
// CHECK-NEXT: %[[D:.*]] = "tad.reshape"(%[[S]]) : (tensor<3xf64>) -> tensor<3x1xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @broadcast_size_one(%x: tensor<3x1xf64>) -> tensor<2x3x4xf64> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<3x1xf64>) -> tensor<2x3x4xf64>
  return %0 : tensor<2x3x4xf64>
}
func.func private @broadcast_size_one_vjp(tensor<3x1xf64>, tensor<2x3x4xf64>) -> (tensor<2x3x4xf64>, tensor<3x1xf64>)
    attributes {tad.vjp = {of = @broadcast_size_one, wrt = array<i64: 0>}}

// -----

// Broadcast dimensions out of order: the summed cotangent is transposed back.
// CHECK-LABEL: func.func private @broadcast_permuted_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<2x4x3xf64>)
// CHECK: %[[S:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 1>} : (tensor<2x4x3xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[D:.*]] = "tad.transpose"(%[[S]]) {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @broadcast_permuted(%x: tensor<3x2xf64>) -> tensor<2x4x3xf64> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 2, 0>} : (tensor<3x2xf64>) -> tensor<2x4x3xf64>
  return %0 : tensor<2x4x3xf64>
}
func.func private @broadcast_permuted_vjp(tensor<3x2xf64>, tensor<2x4x3xf64>) -> (tensor<2x4x3xf64>, tensor<3x2xf64>)
    attributes {tad.vjp = {of = @broadcast_permuted, wrt = array<i64: 0>}}

// -----

// Out of order with an expanded size-1 dim: once the sum drops that dim, no transpose is left.
// CHECK-LABEL: func.func private @broadcast_permuted_size_one_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<4x3xf64>)
// CHECK: %[[S:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 0>} : (tensor<4x3xf64>) -> tensor<3xf64>
// CHECK-NEXT: %[[D:.*]] = "tad.reshape"(%[[S]]) : (tensor<3xf64>) -> tensor<3x1xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @broadcast_permuted_size_one(%x: tensor<3x1xf64>) -> tensor<4x3xf64> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1, 0>} : (tensor<3x1xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
func.func private @broadcast_permuted_size_one_vjp(tensor<3x1xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x1xf64>)
    attributes {tad.vjp = {of = @broadcast_permuted_size_one, wrt = array<i64: 0>}}

// -----

// The ops of the forward sweep are undone in reverse order.
// CHECK-LABEL: func.func private @reshape_transpose_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<4x6xf64>)
// CHECK: %[[R:.*]] = "tad.reshape"(%[[CT]]) : (tensor<4x6xf64>) -> tensor<4x2x3xf64>
// CHECK-NEXT: %[[D:.*]] = "tad.transpose"(%[[R]]) {permutation = array<i64: 1, 2, 0>} : (tensor<4x2x3xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @reshape_transpose(%x: tensor<2x3x4xf64>) -> tensor<4x6xf64> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf64>) -> tensor<4x2x3xf64>
  %1 = "tad.reshape"(%0) : (tensor<4x2x3xf64>) -> tensor<4x6xf64>
  return %1 : tensor<4x6xf64>
}
func.func private @reshape_transpose_vjp(tensor<2x3x4xf64>, tensor<4x6xf64>) -> (tensor<4x6xf64>, tensor<2x3x4xf64>)
    attributes {tad.vjp = {of = @reshape_transpose, wrt = array<i64: 0>}}

// -----

// A strided slice scatters its cotangent back with a zero pad: stride - 1 interior
// padding, the start as low padding, what is left after the last element as high padding.
// CHECK-LABEL: func.func private @slice_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<2x2xf64>)
// CHECK: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<f64>
// CHECK-NEXT: %[[D:.*]] = "tad.pad"(%[[CT]], %[[ZERO]]) {edge_padding_high = array<i64: 0, 1>, edge_padding_low = array<i64: 1, 0>, interior_padding = array<i64: 2, 1>} : (tensor<2x2xf64>, tensor<f64>) -> tensor<5x4xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @slice(%x: tensor<5x4xf64>) -> tensor<2x2xf64> {
  %0 = "tad.slice"(%x) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 5, 4>, strides = array<i64: 3, 2>} : (tensor<5x4xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @slice_vjp(tensor<5x4xf64>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<5x4xf64>)
    attributes {tad.vjp = {of = @slice, wrt = array<i64: 0>}}

// -----

// pad: the operand's cotangent is a strided slice; the padding value gets everything else.
// CHECK-LABEL: func.func private @pad_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<4x7xf64>)
// CHECK: %[[DX:.*]] = "tad.slice"(%[[CT]]) {limit_indices = array<i64: 4, 5>, start_indices = array<i64: 1, 0>, strides = array<i64: 2, 2>} : (tensor<4x7xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[ALL:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 0, 1>} : (tensor<4x7xf64>) -> tensor<f64>
// CHECK-NEXT: %[[PLACED:.*]] = "tad.reduce_sum"(%[[DX]]) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT: %[[DV:.*]] = arith.subf %[[ALL]], %[[PLACED]] : tensor<f64>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DV]]
func.func @pad(%x: tensor<2x3xf64>, %v: tensor<f64>) -> tensor<4x7xf64> {
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 0, 2>, interior_padding = array<i64: 1, 1>} : (tensor<2x3xf64>, tensor<f64>) -> tensor<4x7xf64>
  return %0 : tensor<4x7xf64>
}
func.func private @pad_vjp(tensor<2x3xf64>, tensor<f64>, tensor<4x7xf64>) -> (tensor<4x7xf64>, tensor<2x3xf64>, tensor<f64>)
    attributes {tad.vjp = {of = @pad, wrt = array<i64: 0, 1>}}

// -----

// The cotangent of a widening convert is narrowed back to the operand's type.
// CHECK-LABEL: func.func private @convert_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf32>)
// CHECK: %[[D:.*]] = "tad.convert"(%[[CT]]) : (tensor<3xf64>) -> tensor<3xf32>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @convert(%x: tensor<3xf32>) -> tensor<3xf64> {
  %0 = "tad.convert"(%x) : (tensor<3xf32>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @convert_vjp(tensor<3xf32>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf32>)
    attributes {tad.vjp = {of = @convert, wrt = array<i64: 0>}}

// -----

// Each operand of tensor.concat gets its slice of the cotangent.
// CHECK-LABEL: func.func private @concat_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<2x4xf64>)
// CHECK: %[[DX:.*]] = "tad.slice"(%[[CT]]) {limit_indices = array<i64: 2, 3>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>} : (tensor<2x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[DY:.*]] = "tad.slice"(%[[CT]]) {limit_indices = array<i64: 2, 4>, start_indices = array<i64: 0, 3>, strides = array<i64: 1, 1>} : (tensor<2x4xf64>) -> tensor<2x1xf64>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]]
func.func @concat(%x: tensor<2x3xf64>, %y: tensor<2x1xf64>) -> tensor<2x4xf64> {
  %0 = tensor.concat dim(1) %x, %y : (tensor<2x3xf64>, tensor<2x1xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func private @concat_vjp(tensor<2x3xf64>, tensor<2x1xf64>, tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<2x1xf64>)
    attributes {tad.vjp = {of = @concat, wrt = array<i64: 0, 1>}}

// -----

// Checkpoint markers stay in the forward sweep (for tad-remat) and pass cotangents through.
// CHECK-LABEL: func.func private @markers_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[IN:.*]] = "tad.start_checkpoint"(%[[X]])
// CHECK-NEXT: %[[SIN:.*]] = math.sin %[[IN]]
// CHECK-NEXT: %[[OUT:.*]] = "tad.end_checkpoint"(%[[SIN]])
// CHECK-NEXT: %[[COS:.*]] = math.cos %[[IN]]
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[CT]], %[[COS]]
// CHECK-NEXT: return %[[OUT]], %[[D]]
func.func @markers(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.start_checkpoint"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %1 = math.sin %0 : tensor<3xf64>
  %2 = "tad.end_checkpoint"(%1) : (tensor<3xf64>) -> tensor<3xf64>
  return %2 : tensor<3xf64>
}
func.func private @markers_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @markers, wrt = array<i64: 0>}}
