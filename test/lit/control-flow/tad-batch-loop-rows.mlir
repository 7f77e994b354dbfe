// Contractions of a loop's rows done for all rows at once: hoisted before the loop (an input projection)
// or summed after it (accumulated weight gradients).
// RUN: autodiff-opt %s --split-input-file --tad-batch-loop-rows | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-batch-loop-rows="hoist=false sink=false" | FileCheck %s --check-prefix=OFF

// Row %i of %xs times %u, in every iteration: one contraction of all five rows before the loop.
// CHECK-LABEL: func.func @input_projection
// CHECK-SAME: (%[[XS:.*]]: tensor<5x2x3xf32>, %[[U:.*]]: tensor<3x4xf32>
// CHECK: %[[ALL:.*]] = "tad.dot_general"(%[[XS]], %[[U]]) {{.*}} -> tensor<5x2x4xf32>
// CHECK: scf.for %[[I:[a-z0-9]+]] =
// CHECK-NOT: tad.dot_general
// CHECK:   tensor.extract_slice %[[ALL]][%[[I]], 0, 0] [1, 2, 4]
// CHECK: return
// OFF-LABEL: func.func @input_projection
// OFF: scf.for
// OFF:   tad.dot_general
func.func @input_projection(%xs: tensor<5x2x3xf32>, %u: tensor<3x4xf32>, %h: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %h) -> (tensor<2x4xf32>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<5x2x3xf32> to tensor<2x3xf32>
    %p = "tad.dot_general"(%x, %u) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %t = math.tanh %a : tensor<2x4xf32>
    %s = arith.addf %t, %p : tensor<2x4xf32>
    scf.yield %s : tensor<2x4xf32>
  }
  return %r : tensor<2x4xf32>
}

// -----

// A backward loop running from the last row down: the weight gradient (row of %hs by the step's delta,
// contracting the batch) and the bias gradient (the delta's column sums) are accumulated. The delta is
// stacked once, at the same rows, zeros elsewhere, and both sums are taken after the loop, over the rows too.
// CHECK-LABEL: func.func @weight_gradient
// CHECK-SAME: (%[[HS:.*]]: tensor<4x2x3xf32>, %[[W:.*]]: tensor<3x3xf32>, %[[D0:.*]]: tensor<2x3xf32>, %[[G0:.*]]: tensor<3x3xf32>, %[[B0:.*]]: tensor<3xf32>)
// CHECK: %[[ZEROS:.*]] = "tad.constant"() {value = 0.000000e+00 : f32} : () -> tensor<4x2x3xf32>
// CHECK: %[[LOOP:.*]]:2 = scf.for {{.*}} iter_args(%[[D:.*]] = %[[D0]], %[[STACK:.*]] = %[[ZEROS]]) -> (tensor<2x3xf32>, tensor<4x2x3xf32>)
// CHECK:   %[[ROW:.*]] = arith.subi %c3, %{{.*}} : index
// CHECK:   %[[DELTA:.*]] = math.tanh %[[D]]
// CHECK:   tad.dot_general
// CHECK:   %[[STACKED:.*]] = tensor.insert_slice %[[DELTA]] into %[[STACK]][%[[ROW]], 0, 0]
// CHECK-NOT: tad.dot_general
// CHECK:   scf.yield {{.*}}, %[[STACKED]]
// CHECK: %[[DW:.*]] = "tad.dot_general"(%[[HS]], %[[LOOP]]#1) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0, 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0, 1>} : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<3x3xf32>
// CHECK: %[[G:.*]] = arith.addf %[[G0]], %[[DW]]
// CHECK: %[[DB:.*]] = "tad.reduce_sum"(%[[LOOP]]#1) {dimensions = array<i64: 0, 1>}
// CHECK: %[[B:.*]] = arith.addf %[[B0]], %[[DB]]
// CHECK: return %[[LOOP]]#0, %[[G]], %[[B]]
func.func @weight_gradient(%hs: tensor<4x2x3xf32>, %w: tensor<3x3xf32>, %d0: tensor<2x3xf32>, %g0: tensor<3x3xf32>, %b0: tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>, tensor<3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%d = %d0, %g = %g0, %b = %b0) -> (tensor<2x3xf32>, tensor<3x3xf32>, tensor<3xf32>) {
    %row = arith.subi %c3, %i : index
    %h = tensor.extract_slice %hs[%row, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<4x2x3xf32> to tensor<2x3xf32>
    %delta = math.tanh %d : tensor<2x3xf32>
    %next = "tad.dot_general"(%delta, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %dw = "tad.dot_general"(%h, %delta) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
    %g1 = arith.addf %g, %dw : tensor<3x3xf32>
    %db = "tad.reduce_sum"(%delta) {dimensions = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
    %b1 = arith.addf %b, %db : tensor<3xf32>
    scf.yield %next, %g1, %b1 : tensor<2x3xf32>, tensor<3x3xf32>, tensor<3xf32>
  }
  return %r#0, %r#1, %r#2 : tensor<2x3xf32>, tensor<3x3xf32>, tensor<3xf32>
}

// -----

// What the pass leaves alone: a loop whose trip count is not static, and an accumulator that is also
// read by the body (its sum is needed in every iteration).
// CHECK-LABEL: func.func @left_alone
// CHECK: scf.for
// CHECK:   tad.dot_general
// CHECK:   tad.dot_general
// CHECK: scf.for
// CHECK:   tad.dot_general
func.func @left_alone(%xs: tensor<5x2x3xf32>, %u: tensor<3x3xf32>, %h: tensor<2x3xf32>, %n: index, %g0: tensor<3x3xf32>) -> (tensor<2x3xf32>, tensor<3x3xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %h) -> (tensor<2x3xf32>) {
    %x = tensor.extract_slice %xs[%i, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<5x2x3xf32> to tensor<2x3xf32>
    %p = "tad.dot_general"(%x, %u) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %q = "tad.dot_general"(%a, %u) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
    %s = arith.addf %q, %p : tensor<2x3xf32>
    scf.yield %s : tensor<2x3xf32>
  }
  %g = scf.for %i = %c0 to %c5 step %c1 iter_args(%acc = %g0) -> (tensor<3x3xf32>) {
    %d = "tad.dot_general"(%acc, %acc) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
    %s = arith.addf %acc, %d : tensor<3x3xf32>
    scf.yield %s : tensor<3x3xf32>
  }
  return %r, %g : tensor<2x3xf32>, tensor<3x3xf32>
}

// -----

// The adjoint of a row read in the loop: a whole tensor of zeros but one row, added to the accumulator
// every iteration. It becomes the row's own sum, written in place: no whole-tensor add per iteration.
// CHECK-LABEL: func.func @row_adjoint
// CHECK-SAME: (%[[G0:.*]]: tensor<4x3xf32>, %[[V:.*]]: tensor<3xf32>)
// CHECK: scf.for %[[I:[a-z0-9]+]] = {{.*}} iter_args(%[[G:.*]] = %[[G0]])
// CHECK:   %[[OLD:.*]] = tensor.extract_slice %[[G]][%[[I]], 0] [1, 3] [1, 1] : tensor<4x3xf32> to tensor<3xf32>
// CHECK:   %[[SUM:.*]] = arith.addf %[[OLD]], %[[V]] : tensor<3xf32>
// CHECK:   %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[G]][%[[I]], 0] [1, 3] [1, 1]
// CHECK:   scf.yield %[[NEW]]
func.func @row_adjoint(%g0: tensor<4x3xf32>, %v: tensor<3xf32>) -> tensor<4x3xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zeros = "tad.constant"() {value = 0.0 : f32} : () -> tensor<4x3xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%g = %g0) -> (tensor<4x3xf32>) {
    %d = tensor.insert_slice %v into %zeros[%i, 0] [1, 3] [1, 1] : tensor<3xf32> into tensor<4x3xf32>
    %s = arith.addf %g, %d : tensor<4x3xf32>
    scf.yield %s : tensor<4x3xf32>
  }
  return %r : tensor<4x3xf32>
}
