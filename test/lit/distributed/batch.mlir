// tad-batch of the collectives: the mapped axis stays first; all_gather and
// reduce_scatter move the process dim behind it; pvary, a marker, maps row by row.
// RUN: autodiff-opt %s --split-input-file --tad-batch | FileCheck %s

// CHECK-LABEL: func.func private @sum_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf32>) -> tensor<5x3xf32>
// CHECK: %[[S:.*]] = "tad.psum"(%[[X]]) {processes = 2 : i64} : (tensor<5x3xf32>) -> tensor<5x3xf32>
// CHECK-NEXT: return %[[S]]
func.func @sum(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tad.psum"(%x) {processes = 2} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @sum_vmap(tensor<5x3xf32>) -> tensor<5x3xf32>
    attributes {tad.vmap = {of = @sum, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @gather_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf64>) -> tensor<5x2x3xf64>
// CHECK: %[[G:.*]] = "tad.all_gather"(%[[X]]) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<2x5x3xf64>
// CHECK-NEXT: %[[T:.*]] = "tad.transpose"(%[[G]]) {permutation = array<i64: 1, 0, 2>} : (tensor<2x5x3xf64>) -> tensor<5x2x3xf64>
// CHECK-NEXT: return %[[T]]
func.func @gather(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.all_gather"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @gather_vmap(tensor<5x3xf64>) -> tensor<5x2x3xf64>
    attributes {tad.vmap = {of = @gather, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @scatter_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x2x3xi64>) -> tensor<5x3xi64>
// CHECK: %[[T:.*]] = "tad.transpose"(%[[X]]) {permutation = array<i64: 1, 0, 2>} : (tensor<5x2x3xi64>) -> tensor<2x5x3xi64>
// CHECK-NEXT: %[[S:.*]] = "tad.reduce_scatter"(%[[T]]) {processes = 2 : i64} : (tensor<2x5x3xi64>) -> tensor<5x3xi64>
// CHECK-NEXT: return %[[S]]
func.func @scatter(%x: tensor<2x3xi64>) -> tensor<3xi64> {
  %0 = "tad.reduce_scatter"(%x) {processes = 2} : (tensor<2x3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
func.func private @scatter_vmap(tensor<5x2x3xi64>) -> tensor<5x3xi64>
    attributes {tad.vmap = {of = @scatter, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @replicated_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf64>) -> tensor<5x3xf64>
// CHECK: %[[V:.*]] = "tad.pvary"(%[[X]]) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<5x3xf64>
// CHECK-NEXT: return %[[V]]
func.func @replicated(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.pvary"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @replicated_vmap(tensor<5x3xf64>) -> tensor<5x3xf64>
    attributes {tad.vmap = {of = @replicated, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// pmax and pmin are elementwise over processes: the batched op on the batched operand.
// CHECK-LABEL: func.func private @extrema_vmap
// CHECK-SAME: (%[[X:.*]]: tensor<5x3xf64>) -> tensor<5x3xf64>
// CHECK: %[[M:.*]] = "tad.pmax"(%[[X]]) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<5x3xf64>
// CHECK-NEXT: %[[N:.*]] = "tad.pmin"(%[[M]]) {processes = 2 : i64} : (tensor<5x3xf64>) -> tensor<5x3xf64>
// CHECK-NEXT: return %[[N]]
func.func @extrema(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.pmax"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  %1 = "tad.pmin"(%0) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @extrema_vmap(tensor<5x3xf64>) -> tensor<5x3xf64>
    attributes {tad.vmap = {of = @extrema, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}
