// Batching rules of tad.take and tad.take_backward (the gathers and scatter-adds
// behind indexing, sorting and their derivatives): rows of the data or of the
// gradient shift the axis; rows of indices index one array and move their dim
// first; rows of both merge into one axis, each row's indices (clamped) shifted
// to its own rows.
// RUN: autodiff-opt %s --tad-batch --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @pick_rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x5x3xf64>, %[[I:.*]]: tensor<2xi64>)
// CHECK-NEXT: %[[T:.*]] = "tad.take"(%[[X]], %[[I]]) {axis = 2 : i64} : (tensor<4x5x3xf64>, tensor<2xi64>) -> tensor<4x5x2xf64>
// CHECK-NEXT: return %[[T]]
// CHECK-LABEL: func.func private @pick_indices
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf64>, %[[I:.*]]: tensor<4x2xi64>)
// CHECK-NEXT: %[[T:.*]] = "tad.take"(%[[X]], %[[I]]) {axis = 1 : i64} : (tensor<5x3xf64>, tensor<4x2xi64>) -> tensor<5x4x2xf64>
// CHECK-NEXT: %[[R:.*]] = "tad.transpose"(%[[T]]) {permutation = array<i64: 1, 0, 2>} : (tensor<5x4x2xf64>) -> tensor<4x5x2xf64>
// CHECK-NEXT: return %[[R]]
// CHECK-LABEL: func.func private @pick_both
// CHECK-SAME: (%[[X:.*]]: tensor<4x5x3xf64>, %[[I:.*]]: tensor<4x2xi64>)
// CHECK-NEXT: %[[MOVED:.*]] = "tad.transpose"(%[[X]]) {permutation = array<i64: 1, 0, 2>} : (tensor<4x5x3xf64>) -> tensor<5x4x3xf64>
// CHECK-NEXT: %[[MERGED:.*]] = "tad.reshape"(%[[MOVED]]) : (tensor<5x4x3xf64>) -> tensor<5x12xf64>
// CHECK: %[[LOW:.*]] = arith.maxsi %[[I]], %{{.*}} : tensor<4x2xi64>
// CHECK: %[[IN:.*]] = arith.minsi %[[LOW]], %{{.*}} : tensor<4x2xi64>
// CHECK-NEXT: %[[ROWS:.*]] = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<4x2xi64>
// CHECK-NEXT: %[[THREE:.*]] = "tad.constant"() {value = 3 : i64} : () -> tensor<4x2xi64>
// CHECK-NEXT: %[[SHIFT:.*]] = arith.muli %[[ROWS]], %[[THREE]] : tensor<4x2xi64>
// CHECK-NEXT: %[[AT:.*]] = arith.addi %[[IN]], %[[SHIFT]] : tensor<4x2xi64>
// CHECK-NEXT: %[[T:.*]] = "tad.take"(%[[MERGED]], %[[AT]]) {axis = 1 : i64} : (tensor<5x12xf64>, tensor<4x2xi64>) -> tensor<5x4x2xf64>
// CHECK-NEXT: "tad.transpose"(%[[T]]) {permutation = array<i64: 1, 0, 2>} : (tensor<5x4x2xf64>) -> tensor<4x5x2xf64>
func.func @pick(%x: tensor<5x3xf64>, %i: tensor<2xi64>) -> tensor<5x2xf64> {
  %0 = "tad.take"(%x, %i) {axis = 1} : (tensor<5x3xf64>, tensor<2xi64>) -> tensor<5x2xf64>
  return %0 : tensor<5x2xf64>
}
func.func private @pick_rows(tensor<4x5x3xf64>, tensor<2xi64>) -> tensor<4x5x2xf64>
    attributes {tad.vmap = {of = @pick, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}
func.func private @pick_indices(tensor<5x3xf64>, tensor<4x2xi64>) -> tensor<4x5x2xf64>
    attributes {tad.vmap = {of = @pick, in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>}}
func.func private @pick_both(tensor<4x5x3xf64>, tensor<4x2xi64>) -> tensor<4x5x2xf64>
    attributes {tad.vmap = {of = @pick, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>}}

// CHECK-LABEL: func.func private @spread_rows
// CHECK-NEXT: "tad.take_backward"(%{{.*}}, %{{.*}}) {axis = 2 : i64} : (tensor<4x5x2xf64>, tensor<2xi64>) -> tensor<4x5x3xf64>
// CHECK-LABEL: func.func private @spread_both
// CHECK-SAME: (%[[G:.*]]: tensor<4x5x2xf64>, %[[I:.*]]: tensor<4x2xi64>)
// CHECK-NEXT: %[[MOVED:.*]] = "tad.transpose"(%[[G]]) {permutation = array<i64: 1, 0, 2>} : (tensor<4x5x2xf64>) -> tensor<5x4x2xf64>
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %{{.*}} : tensor<4x2xi64>
// CHECK-NEXT: %[[S:.*]] = "tad.take_backward"(%[[MOVED]], %[[AT]]) {axis = 1 : i64} : (tensor<5x4x2xf64>, tensor<4x2xi64>) -> tensor<5x12xf64>
// CHECK-NEXT: %[[SPLIT:.*]] = "tad.reshape"(%[[S]]) : (tensor<5x12xf64>) -> tensor<5x4x3xf64>
// CHECK-NEXT: "tad.transpose"(%[[SPLIT]]) {permutation = array<i64: 1, 0, 2>} : (tensor<5x4x3xf64>) -> tensor<4x5x3xf64>
func.func @spread(%g: tensor<5x2xf64>, %i: tensor<2xi64>) -> tensor<5x3xf64> {
  %0 = "tad.take_backward"(%g, %i) {axis = 1} : (tensor<5x2xf64>, tensor<2xi64>) -> tensor<5x3xf64>
  return %0 : tensor<5x3xf64>
}
func.func private @spread_rows(tensor<4x5x2xf64>, tensor<2xi64>) -> tensor<4x5x3xf64>
    attributes {tad.vmap = {of = @spread, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}
func.func private @spread_both(tensor<4x5x2xf64>, tensor<4x2xi64>) -> tensor<4x5x3xf64>
    attributes {tad.vmap = {of = @spread, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>}}
