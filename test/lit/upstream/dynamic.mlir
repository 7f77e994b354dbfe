// RUN: autodiff-opt %s --split-input-file --tad-differentiate | FileCheck %s

// Dynamic shapes (issue 14): tensor<?x...> arguments and values in both
// modes. What the backward sweep builds is sized at run time from the primal
// values (tensor.dim), and reverse mode's loop tapes too.

// Elementwise ops keep the dynamic type; the partials are ordinary values.
// CHECK-LABEL: func.func private @ew_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?xf64>, %[[Y:.*]]: tensor<?xf64>, %[[CT:.*]]: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
// CHECK-DAG: arith.mulf %[[CT]], %[[Y]] : tensor<?xf64>
// CHECK-DAG: math.cos %[[X]] : tensor<?xf64>
// CHECK: return {{.*}} : tensor<?xf64>, tensor<?xf64>, tensor<?xf64>
// CHECK-LABEL: func.func private @ew_jvp
// CHECK: math.cos %{{.*}} : tensor<?xf64>
// CHECK: return {{.*}} : tensor<?xf64>, tensor<?xf64>
func.func @ew(%x: tensor<?xf64>, %y: tensor<?xf64>) -> tensor<?xf64> {
  %0 = math.sin %x : tensor<?xf64>
  %1 = arith.mulf %0, %y : tensor<?xf64>
  return %1 : tensor<?xf64>
}
func.func private @ew_vjp(tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @ew, wrt = array<i64: 0, 1>}}
func.func private @ew_jvp(tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @ew, wrt = array<i64: 0, 1>}}

// -----

// A sum over the dynamic dim: its adjoint spreads the cotangent over a run-time
// number of rows, ones of the primal's length times the cotangent (an outer
// product). The constant 1 of tanh's partial is a splat of that size too.
// CHECK-LABEL: func.func private @rows_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf64>, %[[CT:.*]]: tensor<4xf64>) -> (tensor<4xf64>, tensor<?x4xf64>)
// CHECK: %[[T:.*]] = math.tanh %[[X]] : tensor<?x4xf64>
// CHECK: %[[N:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x4xf64>
// CHECK: %[[ONES:.*]] = tensor.splat %{{.*}}[%[[N]]] : tensor<?xf64>
// CHECK: %[[SPREAD:.*]] = "tad.dot_general"(%[[ONES]], %[[CT]]) {{.*}} : (tensor<?xf64>, tensor<4xf64>) -> tensor<?x4xf64>
// CHECK-NOT: tad.broadcast_in_dim
// CHECK: tensor.splat %{{.*}}[%{{.*}}] : tensor<?x4xf64>
// CHECK: %[[D:.*]] = arith.mulf %[[SPREAD]], %{{.*}} : tensor<?x4xf64>
// CHECK: return %{{.*}}, %[[D]] : tensor<4xf64>, tensor<?x4xf64>
// CHECK-LABEL: func.func private @rows_jvp
// CHECK: "tad.reduce_sum"(%{{.*}}) {dimensions = array<i64: 0>} : (tensor<?x4xf64>) -> tensor<4xf64>
func.func @rows(%x: tensor<?x4xf64>) -> tensor<4xf64> {
  %0 = math.tanh %x : tensor<?x4xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<?x4xf64>) -> tensor<4xf64>
  return %1 : tensor<4xf64>
}
func.func private @rows_vjp(tensor<?x4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<?x4xf64>)
    attributes {tad.vjp = {of = @rows, wrt = array<i64: 0>}}
func.func private @rows_jvp(tensor<?x4xf64>, tensor<?x4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
    attributes {tad.jvp = {of = @rows, wrt = array<i64: 0>}}

// -----

// A batched matmul with a dynamic batch dim: the adjoints are contractions of
// the same dynamic shapes, and the weight's sums over the batch.
// CHECK-LABEL: func.func private @bmm_vjp
// CHECK-DAG: "tad.dot_general"(%{{.*}}, %arg1) {{.*}} : (tensor<?x3x5xf64>, tensor<?x4x5xf64>) -> tensor<?x3x4xf64>
// CHECK-DAG: "tad.dot_general"(%arg0, %{{.*}}) {{.*}} : (tensor<?x3x4xf64>, tensor<?x3x5xf64>) -> tensor<?x4x5xf64>
// CHECK-DAG: "tad.dot_general"(%{{.*}}, %arg3) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0, 1>, {{.*}} : (tensor<?x3x5xf64>, tensor<?x3x2xf64>) -> tensor<5x2xf64>
// CHECK: return {{.*}} : tensor<?x3x2xf64>, tensor<?x3x4xf64>, tensor<?x4x5xf64>, tensor<5x2xf64>
// CHECK-LABEL: func.func private @bmm_jvp
// CHECK: return {{.*}} : tensor<?x3x2xf64>, tensor<?x3x2xf64>
func.func @bmm(%a: tensor<?x3x4xf64>, %b: tensor<?x4x5xf64>, %w: tensor<5x2xf64>) -> tensor<?x3x2xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<?x3x4xf64>, tensor<?x4x5xf64>) -> tensor<?x3x5xf64>
  %1 = math.sin %0 : tensor<?x3x5xf64>
  %2 = "tad.dot_general"(%1, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x3x5xf64>, tensor<5x2xf64>) -> tensor<?x3x2xf64>
  return %2 : tensor<?x3x2xf64>
}
func.func private @bmm_vjp(tensor<?x3x4xf64>, tensor<?x4x5xf64>, tensor<5x2xf64>, tensor<?x3x2xf64>) -> (tensor<?x3x2xf64>, tensor<?x3x4xf64>, tensor<?x4x5xf64>, tensor<5x2xf64>)
    attributes {tad.vjp = {of = @bmm, wrt = array<i64: 0, 1, 2>}}
func.func private @bmm_jvp(tensor<?x3x4xf64>, tensor<?x4x5xf64>, tensor<5x2xf64>, tensor<?x3x4xf64>, tensor<?x4x5xf64>, tensor<5x2xf64>) -> (tensor<?x3x2xf64>, tensor<?x3x2xf64>)
    attributes {tad.jvp = {of = @bmm, wrt = array<i64: 0, 1, 2>}}

// -----

// Broadcast, transpose and a maximum over a static dim of dynamic rows: the
// count of ties is reshaped to ?x1 and broadcast back along the dynamic rows.
// CHECK-LABEL: func.func private @spread_vjp
// CHECK-DAG: "tad.transpose"(%arg2) {permutation = array<i64: 1, 0>} : (tensor<4x?xf64>) -> tensor<?x4xf64>
// CHECK-DAG: %[[COUNT:.*]] = "tad.reshape"(%{{.*}}) : (tensor<?xf64>) -> tensor<?x1xf64>
// CHECK-DAG: "tad.broadcast_in_dim"(%[[COUNT]]) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<?x1xf64>) -> tensor<?x4xf64>
// CHECK: %[[DX:.*]] = "tad.reduce_sum"(%{{.*}}) {dimensions = array<i64: 1>} : (tensor<?x4xf64>) -> tensor<?xf64>
// CHECK: return {{.*}}, %[[DX]], %{{.*}} : tensor<4x?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?x4xf64>
// CHECK-LABEL: func.func private @spread_jvp
// CHECK: "tad.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64: 0>} : (tensor<?xf64>) -> tensor<?x4xf64>
func.func @spread(%x: tensor<?xf64>, %y: tensor<?x4xf64>) -> (tensor<4x?xf64>, tensor<?xf64>) {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0>} : (tensor<?xf64>) -> tensor<?x4xf64>
  %1 = arith.mulf %0, %y : tensor<?x4xf64>
  %2 = math.exp %1 : tensor<?x4xf64>
  %3 = "tad.transpose"(%2) {permutation = array<i64: 1, 0>} : (tensor<?x4xf64>) -> tensor<4x?xf64>
  %4 = "tad.reduce_max"(%1) {dimensions = array<i64: 1>} : (tensor<?x4xf64>) -> tensor<?xf64>
  return %3, %4 : tensor<4x?xf64>, tensor<?xf64>
}
func.func private @spread_vjp(tensor<?xf64>, tensor<?x4xf64>, tensor<4x?xf64>, tensor<?xf64>) -> (tensor<4x?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?x4xf64>)
    attributes {tad.vjp = {of = @spread, wrt = array<i64: 0, 1>}}
func.func private @spread_jvp(tensor<?xf64>, tensor<?x4xf64>, tensor<?xf64>, tensor<?x4xf64>) -> (tensor<4x?xf64>, tensor<?xf64>, tensor<4x?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @spread, wrt = array<i64: 0, 1>}}

// -----

// A maximum over the dynamic dim: the counts of ties (1x3) are spread over the
// run-time rows by an outer product with ones of the primal's length.
// CHECK-LABEL: func.func private @colmax_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?x3xf64>, %[[CT:.*]]: tensor<3xf64>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x3xf64>
// CHECK: tensor.splat %{{.*}}[%[[N]]] : tensor<?xf64>
// CHECK: "tad.reshape"(%{{.*}}) : (tensor<3xf64>) -> tensor<1x3xf64>
// CHECK: "tad.reshape"(%{{.*}}) : (tensor<1x3xf64>) -> tensor<3xf64>
// CHECK: "tad.dot_general"({{.*}}) {{.*}} : (tensor<?xf64>, tensor<3xf64>) -> tensor<?x3xf64>
// CHECK: return {{.*}} : tensor<3xf64>, tensor<?x3xf64>
// CHECK-LABEL: func.func private @colmax_jvp
// CHECK: return {{.*}} : tensor<3xf64>, tensor<3xf64>
func.func @colmax(%x: tensor<?x3xf64>) -> tensor<3xf64> {
  %0 = "tad.reduce_max"(%x) {dimensions = array<i64: 0>} : (tensor<?x3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @colmax_vjp(tensor<?x3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<?x3xf64>)
    attributes {tad.vjp = {of = @colmax, wrt = array<i64: 0>}}
func.func private @colmax_jvp(tensor<?x3xf64>, tensor<?x3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @colmax, wrt = array<i64: 0>}}

// -----

// A reshape that adds unit dims to dynamic rows, and its transpose.
// CHECK-LABEL: func.func private @unit_vjp
// CHECK: "tad.reshape"(%arg1) : (tensor<?x1x2x2xf64>) -> tensor<?x4xf64>
// CHECK-LABEL: func.func private @unit_jvp
// CHECK: "tad.reshape"(%arg1) : (tensor<?x4xf64>) -> tensor<?x1x2x2xf64>
func.func @unit(%x: tensor<?x4xf64>) -> tensor<?x1x2x2xf64> {
  %0 = "tad.reshape"(%x) : (tensor<?x4xf64>) -> tensor<?x1x2x2xf64>
  return %0 : tensor<?x1x2x2xf64>
}
func.func private @unit_vjp(tensor<?x4xf64>, tensor<?x1x2x2xf64>) -> (tensor<?x1x2x2xf64>, tensor<?x4xf64>)
    attributes {tad.vjp = {of = @unit, wrt = array<i64: 0>}}
func.func private @unit_jvp(tensor<?x4xf64>, tensor<?x4xf64>) -> (tensor<?x1x2x2xf64>, tensor<?x1x2x2xf64>)
    attributes {tad.jvp = {of = @unit, wrt = array<i64: 0>}}

// -----

// Reverse mode of a loop over a dynamic carry: the tape has a row per
// iteration, each of the carry's run-time length, and the backward loop reads
// rows of that length back.
// CHECK-LABEL: func.func private @loop_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?xf64>, %[[W:.*]]: tensor<?xf64>, %[[CT:.*]]: tensor<?xf64>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf64>
// CHECK: %[[TAPE:.*]] = tensor.empty(%[[N]]) : tensor<3x?xf64>
// CHECK: %[[FWD:.*]]:2 = scf.for {{.*}} iter_args(%[[A:.*]] = %[[X]], %[[T:.*]] = %[[TAPE]]) -> (tensor<?xf64>, tensor<3x?xf64>)
// CHECK: %[[LEN:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?xf64>
// CHECK: tensor.insert_slice %[[A]] into %[[T]][%{{.*}}, 0] [1, %[[LEN]]] [1, 1] : tensor<?xf64> into tensor<3x?xf64>
// CHECK: scf.for {{.*}} -> (tensor<?xf64>, tensor<?xf64>)
// CHECK: %[[ROW:.*]] = tensor.dim %[[FWD]]#1, %{{.*}} : tensor<3x?xf64>
// CHECK: tensor.extract_slice %[[FWD]]#1[%{{.*}}, 0] [1, %[[ROW]]] [1, 1] : tensor<3x?xf64> to tensor<?xf64>
// CHECK-LABEL: func.func private @loop_jvp
// CHECK: scf.for {{.*}} -> (tensor<?xf64>, tensor<?xf64>)
func.func @loop(%x: tensor<?xf64>, %w: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %s = math.sin %a : tensor<?xf64>
    %m = arith.mulf %s, %w : tensor<?xf64>
    scf.yield %m : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}
func.func private @loop_vjp(tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @loop, wrt = array<i64: 0, 1>}}
func.func private @loop_jvp(tensor<?xf64>, tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @loop, wrt = array<i64: 0, 1>}}

// -----

// Reverse mode of a while loop over a dynamic carry: the tape starts with 16
// rows of the carry's run-time length and doubles, its rows keeping that length.
// CHECK-LABEL: func.func private @wloop_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<?xf64>, %{{.*}}: tensor<?xf64>)
// CHECK: %[[N:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?xf64>
// CHECK: %[[TAPE:.*]] = tensor.empty(%[[N]]) : tensor<16x?xf64>
// CHECK: tensor.cast %[[TAPE]] : tensor<16x?xf64> to tensor<?x?xf64>
// CHECK: scf.while
// CHECK: %[[LEN:.*]] = tensor.dim %{{.*}}, %c1{{.*}} : tensor<?x?xf64>
// CHECK: %[[ROWS:.*]] = arith.muli
// CHECK: tensor.empty(%[[ROWS]], %[[LEN]]) : tensor<?x?xf64>
// CHECK-LABEL: func.func private @wloop_jvp
// CHECK: scf.while {{.*}} -> (tensor<?xf64>, index, tensor<?xf64>)
func.func @wloop(%x: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<?xf64>, index) -> (tensor<?xf64>, index) {
    %go = arith.cmpi slt, %i, %c3 : index
    scf.condition(%go) %a, %i : tensor<?xf64>, index
  } do {
  ^bb0(%a: tensor<?xf64>, %i: index):
    %s = math.sin %a : tensor<?xf64>
    %j = arith.addi %i, %c1 : index
    scf.yield %s, %j : tensor<?xf64>, index
  }
  return %r#0 : tensor<?xf64>
}
func.func private @wloop_vjp(tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @wloop, wrt = array<i64: 0>}}
func.func private @wloop_jvp(tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @wloop, wrt = array<i64: 0>}}
