// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// A loop of 10 iterations: the tape stores the one carry the body reads, one
// row per iteration; the loop-invariant %w is read, never taped.
func.func @loop(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c10 = arith.constant 10 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c10 step %c1 iter_args(%h = %x) -> (tensor<4xf64>) {
    %0 = arith.mulf %h, %w : tensor<4xf64>
    %1 = math.tanh %0 : tensor<4xf64>
    scf.yield %1 : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
func.func private @loop_vjp(tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @loop, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @loop_vjp
// CHECK: %[[TAPE:.*]] = tensor.empty() : tensor<10x4xf64>
// CHECK: %[[FWD:.*]]:2 = scf.for {{.*}} iter_args({{.*}}, %[[T:.*]] = %[[TAPE]]) -> (tensor<4xf64>, tensor<10x4xf64>)
// CHECK:   tensor.insert_slice {{.*}} into %[[T]]
// CHECK:   math.tanh
// CHECK: scf.for {{.*}} -> (tensor<4xf64>, tensor<4xf64>)
// CHECK:   tensor.extract_slice %[[FWD]]#1
// CHECK:   math.tanh
// CHECK:   arith.mulf
// CHECK: return
// CHECK-NOT: tensor.empty

// -----

// A branch: the backward pass branches on the same condition and replays the
// branch that ran.
func.func @branch(%x: tensor<3xf64>, %p: i1) -> tensor<3xf64> {
  %r = scf.if %p -> (tensor<3xf64>) {
    %0 = math.sin %x : tensor<3xf64>
    scf.yield %0 : tensor<3xf64>
  } else {
    %0 = arith.mulf %x, %x : tensor<3xf64>
    scf.yield %0 : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func private @branch_vjp(tensor<3xf64>, i1, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @branch, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @branch_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[P:.*]]: i1, %[[CT:.*]]: tensor<3xf64>)
// CHECK: scf.if %[[P]] -> (tensor<3xf64>)
// CHECK: %[[G:.*]] = scf.if %[[P]] -> (tensor<3xf64>)
// CHECK:   math.cos %[[X]]
// CHECK: } else {
// CHECK:   arith.mulf
// CHECK: return {{.*}}, %[[G]]

// -----

// A while loop: the tape starts with 16 rows and doubles when full; the
// iteration count sizes the backward loop.
func.func @grow(%x: tensor<2xf64>) -> tensor<2xf64> {
  %limit = arith.constant dense<100.0> : tensor<2xf64>
  %r = scf.while (%v = %x) : (tensor<2xf64>) -> tensor<2xf64> {
    %s = "tad.reduce_sum"(%v) {dimensions = array<i64: 0>} : (tensor<2xf64>) -> tensor<f64>
    %l = "tad.constant"() {value = 100.0 : f64} : () -> tensor<f64>
    %c = arith.cmpf olt, %s, %l : tensor<f64>
    %b = tensor.extract %c[] : tensor<i1>
    scf.condition(%b) %v : tensor<2xf64>
  } do {
  ^bb0(%v: tensor<2xf64>):
    %0 = arith.mulf %v, %v : tensor<2xf64>
    scf.yield %0 : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}
func.func private @grow_vjp(tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
    attributes {tad.vjp = {of = @grow, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @grow_vjp
// CHECK: tensor.empty() : tensor<16x2xf64>
// CHECK: tensor.cast {{.*}} : tensor<16x2xf64> to tensor<?x2xf64>
// CHECK: %[[FWD:.*]]:3 = scf.while {{.*}} : (tensor<2xf64>, tensor<?x2xf64>, index)
// CHECK:   scf.condition
// CHECK:   tensor.dim
// CHECK:   arith.muli {{.*}}, %c2
// CHECK:   tensor.insert_slice {{.*}} : tensor<2xf64> into tensor<?x2xf64>
// CHECK: scf.for {{.*}} to %[[FWD]]#2
// CHECK:   tensor.extract_slice %[[FWD]]#1

// -----

// An RNN step, h' = tanh(h W) (8 FLOPs or more per element to replay): replaying it would redo the contraction, so the
// backward loop reads the tanh from the tape instead. It is the carry the body
// yields, so the carry's tape gets one more row (the final carry, stored after
// the loop) and row i + 1 is iteration i's tanh: one tape, no replay.
func.func @rnn(%h0: tensor<2x8xf64>, %w: tensor<8x8xf64>) -> tensor<2x8xf64> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%h = %h0) -> (tensor<2x8xf64>) {
    %0 = "tad.dot_general"(%h, %w) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x8xf64>, tensor<8x8xf64>) -> tensor<2x8xf64>
    %1 = math.tanh %0 : tensor<2x8xf64>
    scf.yield %1 : tensor<2x8xf64>
  }
  return %r : tensor<2x8xf64>
}
func.func private @rnn_vjp(tensor<2x8xf64>, tensor<8x8xf64>, tensor<2x8xf64>) -> (tensor<2x8xf64>, tensor<2x8xf64>, tensor<8x8xf64>)
    attributes {tad.vjp = {of = @rnn, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @rnn_vjp
// CHECK: %[[TAPE:.*]] = tensor.empty() : tensor<6x2x8xf64>
// CHECK: %[[FWD:.*]]:2 = scf.for {{.*}} iter_args({{.*}}, %[[T:.*]] = %[[TAPE]]) -> (tensor<2x8xf64>, tensor<6x2x8xf64>)
// CHECK:   tensor.insert_slice {{.*}} into %[[T]]
// CHECK:   tad.dot_general
// CHECK:   math.tanh
// CHECK: %[[FULL:.*]] = tensor.insert_slice %[[FWD]]#0 into %[[FWD]]#1[%c5, 0, 0]
// CHECK: scf.for
// CHECK-NOT: math.tanh
// CHECK:   tensor.extract_slice %[[FULL]][%[[ROW:.*]], 0, 0]
// CHECK:   %[[NEXT:.*]] = arith.addi %[[ROW]], %c1
// CHECK:   tensor.extract_slice %[[FULL]][%[[NEXT]], 0, 0]
// CHECK-COUNT-2: tad.dot_general
// CHECK-NOT: tad.dot_general
// CHECK: return

// -----

// A residual the body does not yield (the tanh, scaled by the input row before
// it is carried) gets a tape of its own, one row per iteration.
func.func @scaled(%h0: tensor<2x8xf64>, %w: tensor<8x8xf64>, %xs: tensor<4x2x8xf64>) -> tensor<2x8xf64> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %h0) -> (tensor<2x8xf64>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 2, 8] [1, 1, 1] : tensor<4x2x8xf64> to tensor<2x8xf64>
    %0 = "tad.dot_general"(%h, %w) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x8xf64>, tensor<8x8xf64>) -> tensor<2x8xf64>
    %1 = math.tanh %0 : tensor<2x8xf64>
    %2 = arith.mulf %1, %x : tensor<2x8xf64>
    scf.yield %2 : tensor<2x8xf64>
  }
  return %r : tensor<2x8xf64>
}
func.func private @scaled_vjp(tensor<2x8xf64>, tensor<8x8xf64>, tensor<4x2x8xf64>, tensor<2x8xf64>) -> (tensor<2x8xf64>, tensor<2x8xf64>, tensor<8x8xf64>)
    attributes {tad.vjp = {of = @scaled, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @scaled_vjp
// CHECK-DAG: tensor.empty() : tensor<4x2x8xf64>
// CHECK-DAG: tensor.empty() : tensor<4x2x8xf64>
// CHECK: scf.for {{.*}} -> (tensor<2x8xf64>, tensor<4x2x8xf64>, tensor<4x2x8xf64>)
// CHECK: scf.for
// CHECK-NOT: math.tanh
// CHECK: return
