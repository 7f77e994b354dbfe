// Derivative declarations whose (co)tangents carry a leading batch prefix P:
// a cotangent of shape P + result shape gives gradients of shape P + input
// shape (an identity cotangent gives the Jacobian, as jacrev does).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// P = [4]: the elementwise partial is broadcast over P, the contraction keeps P leading.
// CHECK-LABEL: func.func private @f_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[W:[a-zA-Z0-9_]+]]: tensor<3x2xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<4x2xf64>) -> (tensor<2xf64>, tensor<4x3xf64>, tensor<4x3x2xf64>)
// CHECK: %[[SIN:.*]] = math.sin %[[X]]
// CHECK: %[[CT_SIN:.*]] = "tad.dot_general"(%[[CT]], %[[W]]) {{{.*}}} : (tensor<4x2xf64>, tensor<3x2xf64>) -> tensor<4x3xf64>
// CHECK-NEXT: %[[OUTER:.*]] = "tad.dot_general"(%[[CT]], %[[SIN]]) {{{.*}}} : (tensor<4x2xf64>, tensor<3xf64>) -> tensor<4x2x3xf64>
// CHECK-NEXT: %[[DW:.*]] = "tad.transpose"(%[[OUTER]]) {permutation = array<i64: 0, 2, 1>} : (tensor<4x2x3xf64>) -> tensor<4x3x2xf64>
// CHECK-NEXT: %[[COS:.*]] = math.cos %[[X]]
// CHECK-NEXT: %[[COS_P:.*]] = "tad.broadcast_in_dim"(%[[COS]]) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf64>) -> tensor<4x3xf64>
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[CT_SIN]], %[[COS_P]] : tensor<4x3xf64>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DW]] : tensor<2xf64>, tensor<4x3xf64>, tensor<4x3x2xf64>
func.func @f(%x: tensor<3xf64>, %w: tensor<3x2xf64>) -> tensor<2xf64> {
  %0 = math.sin %x : tensor<3xf64>
  %1 = "tad.dot_general"(%0, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3xf64>, tensor<3x2xf64>) -> tensor<2xf64>
  return %1 : tensor<2xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3x2xf64>, tensor<4x2xf64>) -> (tensor<2xf64>, tensor<4x3xf64>, tensor<4x3x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0, 1>}}

// -----

// A rank-2 prefix on a scalar result: reduce_sum's adjoint broadcasts P over the input dims.
// CHECK-LABEL: func.func private @sum_squares_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2x5xf64>) -> (tensor<f64>, tensor<2x5x3xf64>)
// CHECK: %[[CT_B:.*]] = "tad.broadcast_in_dim"(%[[CT]]) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<2x5xf64>) -> tensor<2x5x3xf64>
// CHECK-NEXT: %[[X_B:.*]] = "tad.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 2>} : (tensor<3xf64>) -> tensor<2x5x3xf64>
// CHECK-NEXT: arith.mulf %[[CT_B]], %[[X_B]] : tensor<2x5x3xf64>
// CHECK: %[[D:.*]] = arith.addf %{{.*}}, %{{.*}} : tensor<2x5x3xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]] : tensor<f64>, tensor<2x5x3xf64>
func.func @sum_squares(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = arith.mulf %x, %x : tensor<3xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %1 : tensor<f64>
}
func.func private @sum_squares_vjp(tensor<3xf64>, tensor<2x5xf64>) -> (tensor<f64>, tensor<2x5x3xf64>)
    attributes {tad.vjp = {of = @sum_squares, wrt = array<i64: 0>}}

// -----

// Forward mode with P = [3] (the tangents of jacfwd): the partial is broadcast over P.
// CHECK-LABEL: func.func private @exp_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT: %[[E_P:.*]] = "tad.broadcast_in_dim"(%[[E]]) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf64>) -> tensor<3x3xf64>
// CHECK-NEXT: %[[DT:.*]] = arith.mulf %[[T]], %[[E_P]] : tensor<3x3xf64>
// CHECK-NEXT: return %[[E]], %[[DT]]
func.func @exp(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.exp %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @exp_jvp(tensor<3xf64>, tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
    attributes {tad.jvp = {of = @exp, wrt = array<i64: 0>}}
