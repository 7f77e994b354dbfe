// tad-batch: every tad.vmap declaration gets a body, op by op from the
// function it maps; mapped values keep their mapped axis first.
// RUN: autodiff-opt %s --split-input-file --tad-batch | FileCheck %s

// Elementwise ops: an unmapped operand is broadcast to the rows.
// CHECK-LABEL: func.func private @scale_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf64>, %[[W:.*]]: tensor<3xf64>) -> tensor<5x3xf64>
// CHECK: %[[WB:.*]] = "tad.broadcast_in_dim"(%[[W]]) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf64>) -> tensor<5x3xf64>
// CHECK: %[[M:.*]] = arith.mulf %[[X]], %[[WB]] : tensor<5x3xf64>
// CHECK: return %[[M]]
func.func @scale(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.mulf %x, %w : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @scale_vmap(tensor<5x3xf64>, tensor<3xf64>) -> tensor<5x3xf64>
    attributes {tad.vmap = {of = @scale, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}

// -----

// A mapped axis other than the first is moved first on entry and back on exit;
// a reduction's dimensions shift past it.
// CHECK-LABEL: func.func private @total_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf64>) -> tensor<4xf64>
// CHECK: %[[T:.*]] = "tad.transpose"(%[[X]]) {permutation = array<i64: 1, 0>} : (tensor<3x4xf64>) -> tensor<4x3xf64>
// CHECK: "tad.reduce_sum"(%[[T]]) {dimensions = array<i64: 1>} : (tensor<4x3xf64>) -> tensor<4xf64>
func.func @total(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @total_vmap(tensor<3x4xf64>) -> tensor<4xf64>
    attributes {tad.vmap = {of = @total, in_axes = array<i64: 1>, out_axes = array<i64: 0>}}

// -----

// A contraction with one mapped operand maps a free dimension (no loop).
// CHECK-LABEL: func.func private @dense_vmap
// CHECK: "tad.dot_general"(%{{.*}}, %{{.*}}) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<6x2x3xf64>, tensor<3x4xf64>) -> tensor<6x2x4xf64>
// CHECK-NEXT: return
func.func @dense(%x: tensor<2x3xf64>, %w: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %0 = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func private @dense_vmap(tensor<6x2x3xf64>, tensor<3x4xf64>) -> tensor<6x2x4xf64>
    attributes {tad.vmap = {of = @dense, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}

// -----

// scf.for: the carry becomes mapped because the body adds a mapped value to it.
// CHECK-LABEL: func.func private @accumulate_vmap
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<2x3xf64>)
// CHECK: arith.addf %[[ACC]], %{{.*}} : tensor<2x3xf64>
func.func @accumulate(%x: tensor<3xf64>, %zero: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (tensor<3xf64>) {
    %s = arith.addf %acc, %x : tensor<3xf64>
    scf.yield %s : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func private @accumulate_vmap(tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>
    attributes {tad.vmap = {of = @accumulate, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}

// -----

// An op without a batching rule runs once per row (scf.for over the rows).
// CHECK-LABEL: func.func private @loss_vmap
// CHECK: scf.for
// CHECK: tensor.extract_slice
// CHECK: "tad.nll_loss"
// CHECK: tensor.insert_slice
func.func @loss(%p: tensor<4x3xf64>, %t: tensor<4xi64>, %w: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.nll_loss"(%p, %t, %w) {reduction = "mean", ignore_index = -100} : (tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @loss_vmap(tensor<2x4x3xf64>, tensor<4xi64>, tensor<3xf64>) -> tensor<2xf64>
    attributes {tad.vmap = {of = @loss, in_axes = array<i64: 0, -1, -1>, out_axes = array<i64: 0>}}

// -----

// A call maps the callee once (declared and defined as a vmap of its own).
// CHECK-LABEL: func.func private @outer_vmap
// CHECK: call @inner_vmap_0_x4
// CHECK-LABEL: func.func private @inner_vmap_0_x4
// CHECK: math.sin %{{.*}} : tensor<4x2xf64>
func.func private @inner(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = math.sin %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func @outer(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = call @inner(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @outer_vmap(tensor<4x2xf64>) -> tensor<4x2xf64>
    attributes {tad.vmap = {of = @outer, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// A custom derivative rule stays with the batched function: a custom_vjp's
// backward function is batched with the cotangents mapped, and the gradient of
// an unmapped input is summed over the rows.
// CHECK-LABEL: func.func private @product_vmap_bwd
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[W:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>)
// CHECK: %[[G:.*]]:2 = call @product_bwd_vmap_0_n_0_x4(%[[X]], %[[W]], %[[CT]])
// CHECK: %[[S:.*]] = "tad.reduce_sum"(%[[G]]#1) {dimensions = array<i64: 0>}
// CHECK: return %[[G]]#0, %[[S]]
// CHECK-LABEL: func.func private @product_vmap
// CHECK-SAME: tad.custom_vjp = @product_vmap_bwd
func.func @product(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_vjp = @product_bwd} {
  %0 = arith.mulf %x, %w : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @product_bwd(%x: tensor<3xf64>, %w: tensor<3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %0 = arith.mulf %ct, %w : tensor<3xf64>
  %1 = arith.mulf %ct, %x : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
func.func private @product_vmap(tensor<4x3xf64>, tensor<3xf64>) -> tensor<4x3xf64>
    attributes {tad.vmap = {of = @product, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}

// -----

// A custom_jvp rule is batched like the function, its tangents mapped as their inputs.
// CHECK-LABEL: func.func private @double_vmap
// CHECK-SAME: tad.custom_jvp = @double_rule_vmap_1_1_x4
func.func @double(%x: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_jvp = @double_rule} {
  %0 = arith.addf %x, %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @double_rule(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %0 = func.call @double(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %1 = arith.addf %t, %t : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
func.func private @double_vmap(tensor<3x4xf64>) -> tensor<4x3xf64>
    attributes {tad.vmap = {of = @double, in_axes = array<i64: 1>, out_axes = array<i64: 0>}}

// -----

// scf.while with a mapped condition: one masked loop. A carry holds each row's
// condition (evaluated before the loop and after each step), the loop runs while
// any row's holds, and rows that are done keep their carry.
// CHECK-LABEL: func.func private @doubling_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>) -> tensor<4xf64>
// CHECK: %[[M0:.*]] = arith.cmpf olt, %[[X]]
// CHECK: %[[W:.*]]:2 = scf.while (%[[V:.*]] = %[[X]], %[[M:.*]] = %[[M0]]) : (tensor<4xf64>, tensor<4xi1>)
// CHECK: "tad.reduce_max"
// CHECK: scf.condition(%{{.*}}) %[[V]], %[[M]]
// CHECK: ^bb0(%[[V2:.*]]: tensor<4xf64>, %[[M2:.*]]: tensor<4xi1>):
// CHECK: %[[NEW:.*]] = arith.mulf %[[V2]]
// CHECK: %[[KEPT:.*]] = arith.select %[[M2]], %[[NEW]], %[[V2]]
// CHECK: %[[STILL:.*]] = arith.cmpf olt, %[[KEPT]]
// CHECK: %[[M3:.*]] = arith.select %[[M2]], %[[STILL]], %[[M2]]
// CHECK: scf.yield %[[KEPT]], %[[M3]]
// CHECK: return %[[W]]#0
func.func @doubling(%x: tensor<f64>) -> tensor<f64> {
  %r = scf.while (%v = %x) : (tensor<f64>) -> tensor<f64> {
    %ten = "tad.constant"() {value = 1.000000e+01 : f64} : () -> tensor<f64>
    %lt = arith.cmpf olt, %v, %ten : tensor<f64>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %v : tensor<f64>
  } do {
  ^bb0(%v: tensor<f64>):
    %two = "tad.constant"() {value = 2.000000e+00 : f64} : () -> tensor<f64>
    %d = arith.mulf %v, %two : tensor<f64>
    scf.yield %d : tensor<f64>
  }
  return %r : tensor<f64>
}
func.func private @doubling_vmap(tensor<4xf64>) -> tensor<4xf64>
    attributes {tad.vmap = {of = @doubling, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}
