// tad.reverse (numpy's flip, negative slice steps): its lowering reads each
// element's mirror image, it is its own transpose in both derivative modes (a
// batch prefix is not reversed), it batches by shifting its dimensions, and
// tad-simplify folds reversals of size-1 dims and reversals of reversals.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-batch --tad-simplify | FileCheck %s

// LOWER-LABEL: func.func @flip
// LOWER-SAME: (%[[X:.*]]: tensor<4x3xf64>)
// LOWER: linalg.generic
// LOWER: %[[I:.*]] = linalg.index 0 : index
// LOWER: %[[C3:.*]] = arith.constant 3 : index
// LOWER: %[[M:.*]] = arith.subi %[[C3]], %[[I]] : index
// LOWER: %[[J:.*]] = linalg.index 1 : index
// LOWER: tensor.extract %[[X]][%[[M]], %[[J]]] : tensor<4x3xf64>
// LOWER-NOT: "tad.

// CHECK-LABEL: func.func private @flip_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<4x3xf64>)
// CHECK: %[[G:.*]] = "tad.reverse"(%[[CT]]) {dimensions = array<i64: 0>} : (tensor<4x3xf64>) -> tensor<4x3xf64>
// CHECK: return %{{.*}}, %[[G]]
// CHECK-LABEL: func.func private @flip_jvp
// CHECK-SAME: %[[T:[a-zA-Z0-9_]+]]: tensor<4x3xf64>)
// CHECK: %[[D:.*]] = "tad.reverse"(%[[T]]) {dimensions = array<i64: 0>} : (tensor<4x3xf64>) -> tensor<4x3xf64>
// CHECK: return %{{.*}}, %[[D]]
// CHECK-LABEL: func.func private @flip_vmap
// CHECK: "tad.reverse"(%{{.*}}) {dimensions = array<i64: 1>} : (tensor<5x4x3xf64>) -> tensor<5x4x3xf64>
func.func @flip(%x: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0 = "tad.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
func.func private @flip_vjp(tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @flip, wrt = array<i64: 0>}}
func.func private @flip_jvp(tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>)
    attributes {tad.jvp = {of = @flip, wrt = array<i64: 0>}}
func.func private @flip_vmap(tensor<5x4x3xf64>) -> tensor<5x4x3xf64>
    attributes {tad.vmap = {of = @flip, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// A cotangent with a batch prefix (a Jacobian): the prefix dim 0 is not reversed.
// CHECK-LABEL: func.func private @flip_cols_jac
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<6x2x3xf64>)
// CHECK: %[[G:.*]] = "tad.reverse"(%[[CT]]) {dimensions = array<i64: 2>} : (tensor<6x2x3xf64>) -> tensor<6x2x3xf64>
// CHECK: return %{{.*}}, %[[G]]
func.func @flip_cols(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.reverse"(%x) {dimensions = array<i64: 1>} : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @flip_cols_jac(tensor<2x3xf64>, tensor<6x2x3xf64>) -> (tensor<2x3xf64>, tensor<6x2x3xf64>)
    attributes {tad.vjp = {of = @flip_cols, wrt = array<i64: 0>}}

// -----

// Folds: reversing twice undoes it (only the dims reversed once stay), and a size-1 dim needs no reversal.
// CHECK-LABEL: func.func @twice
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x1xf64>)
// CHECK-NEXT: %[[R:.*]] = "tad.reverse"(%[[X]]) {dimensions = array<i64: 1>}
// CHECK-NEXT: return %[[R]]
func.func @twice(%x: tensor<4x3x1xf64>) -> tensor<4x3x1xf64> {
  %0 = "tad.reverse"(%x) {dimensions = array<i64: 0, 2>} : (tensor<4x3x1xf64>) -> tensor<4x3x1xf64>
  %1 = "tad.reverse"(%0) {dimensions = array<i64: 0, 1>} : (tensor<4x3x1xf64>) -> tensor<4x3x1xf64>
  return %1 : tensor<4x3x1xf64>
}

// -----

// CHECK-LABEL: func.func @size_one
// CHECK-SAME: (%[[X:.*]]: tensor<1x3xf64>)
// CHECK-NEXT: return %[[X]]
func.func @size_one(%x: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %0 = "tad.reverse"(%x) {dimensions = array<i64: 0>} : (tensor<1x3xf64>) -> tensor<1x3xf64>
  return %0 : tensor<1x3xf64>
}
