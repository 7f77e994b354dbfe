// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate --tad-simplify | FileCheck %s

// Binomial checkpointing of a 5-step loop with 2 snapshots. The schedule
//   takeshot x0 (slot 0), advance 0->3, takeshot x3 (slot 1), advance 3->4, first_reverse 4,
//   restore x3, reverse 3, restore x0, advance 0->1, takeshot x1 (slot 1), advance 1->2,
//   reverse 2, restore x1, reverse 1, restore x0, reverse 0
// runs as two loops over constant tables, one row [restore slot, start, stop, snapshot
// slot, reversed step] per action (or per advance and the snapshot after it; -1: none). The
// forward sweep also stores x4, where the reversal starts, in a third row, and runs
// step 4 for the loop's result. Snapshots: 3 rows of the carry, not the 5 of a full tape.
func.func @rnn(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%h = %x) -> (tensor<4xf64>) {
    %0 = arith.mulf %h, %w : tensor<4xf64>
    %1 = math.tanh %0 : tensor<4xf64>
    scf.yield %1 : tensor<4xf64>
  } {tad.snapshots = 2 : i64}
  return %r : tensor<4xf64>
}
func.func private @rnn_vjp(tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @rnn, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @rnn_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>, %[[W:.*]]: tensor<4xf64>, %[[CT:.*]]: tensor<4xf64>)
// CHECK-NOT: tensor<5x4xf64>
// CHECK: %[[STORE:.*]] = tensor.empty() : tensor<3x4xf64>
// CHECK: %[[FTABLE:.*]] = arith.constant dense<{{\[}}[-1, 0, 0, 0, -1], [-1, 0, 3, 1, -1], [-1, 3, 4, 2, -1], [-1, 4, 5, -1, -1]]> : tensor<4x5xindex>
// CHECK: %[[FWD:.*]]:2 = scf.for %[[A:.*]] = %c0 to %c4 step %c1 iter_args(%[[H:.*]] = %[[X]], %[[S:.*]] = %[[STORE]])
// CHECK:   %[[START:.*]] = tensor.extract %[[FTABLE]][%[[A]], %c1]
// CHECK:   %[[STOP:.*]] = tensor.extract %[[FTABLE]][%[[A]], %c2
// CHECK:   %[[SLOT:.*]] = tensor.extract %[[FTABLE]][%[[A]], %c3
// Advances run the body without recording.
// CHECK:   %[[ADV:.*]] = scf.for %{{.*}} = %[[START]] to %[[STOP]] step %c1 iter_args(%[[V:.*]] = %[[H]])
// CHECK:     arith.mulf %[[V]], %[[W]]
// CHECK:     math.tanh
// CHECK:   %[[TAKE:.*]] = arith.cmpi sge, %[[SLOT]], %c0
// CHECK:   scf.if %[[TAKE]]
// CHECK:     tensor.insert_slice %[[ADV]] into %[[S]][%[[SLOT]], 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<3x4xf64>
// CHECK:   } else {
// CHECK:     scf.yield %[[S]]
// CHECK: arith.constant dense<{{\[}}[2, 4, 4, -1, -1], [-1, 4, 4, -1, 4], [1, 3, 3, -1, -1], [-1, 3, 3, -1, 3], [0, 0, 0, -1, -1], [-1, 0, 1, 1, -1], [-1, 1, 2, -1, -1], [-1, 2, 2, -1, 2], [1, 1, 1, -1, -1], [-1, 1, 1, -1, 1], [0, 0, 0, -1, -1], [-1, 0, 0, -1, 0]]> : tensor<12x5xindex>
// CHECK: %[[BWD:.*]]:4 = scf.for {{.*}} iter_args(%{{.*}} = %[[FWD]]#0, %[[S2:.*]] = %[[FWD]]#1, %{{.*}} = %[[CT]], %{{.*}} = %{{.*}})
// Restore: a row of the snapshots becomes the current state.
// CHECK:   scf.if
// CHECK:     tensor.extract_slice %[[S2]][%{{.*}}, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
// CHECK:   %[[CUR:.*]] = scf.for
// CHECK:     math.tanh
// CHECK:   scf.if
// CHECK:     tensor.insert_slice %[[CUR]] into %[[S2]]
// Reverse: the step is replayed from the current state and swept backwards.
// CHECK:   scf.if {{.*}} -> (tensor<4xf64>, tensor<4xf64>)
// CHECK:     arith.mulf %[[CUR]], %[[W]]
// CHECK:     math.tanh
// CHECK:     arith.subf
// CHECK: return {{.*}}%[[FWD]]#0, %[[BWD]]#2, %[[BWD]]#3

// -----

// With at least as many snapshots as steps nothing is recomputed: the loop
// keeps the full tape, one row per step.
func.func @short(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<4xf64>) {
    %1 = math.sin %h : tensor<4xf64>
    scf.yield %1 : tensor<4xf64>
  } {tad.snapshots = 3 : i64}
  return %r : tensor<4xf64>
}
func.func private @short_vjp(tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @short, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @short_vjp
// CHECK: tensor.empty() : tensor<3x4xf64>
// CHECK-NOT: xindex>
// CHECK: return

// -----

// The schedule is static: a trip count known only at run time is an error.
func.func @dynamic(%x: tensor<4xf64>, %n: index) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{binomial checkpointing (tad.snapshots) needs a loop with a static trip count (constant bounds and step)}}
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x) -> (tensor<4xf64>) {
    %1 = math.tanh %h : tensor<4xf64>
    scf.yield %1 : tensor<4xf64>
  } {tad.snapshots = 2 : i64}
  return %r : tensor<4xf64>
}
func.func private @dynamic_vjp(tensor<4xf64>, index, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @dynamic, wrt = array<i64: 0>}}
