// tad.argsort and tad.searchsorted: their lowerings (a merge sort of each
// row in scf loops over a 2 x n scratch tensor; a branch-free binary search
// per value), the derivative of a sort (a gather at the permutation, whose
// adjoint is a scatter-add at it; the permutation itself has none) and their
// batching rules.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-batch --tad-simplify | FileCheck %s --check-prefix=AD

// Rows, then passes (width 1 << p, reading half p % 2, writing the other), runs
// of 2 * width, merge steps. A step takes the right head when the right run is
// open and the left one done or the right head sorts strictly before (a < b,
// or b NaN and a a number): stable, NaN last. Both scratch tensors are carried.
// LOWER-LABEL: func.func @order
// LOWER-SAME: (%[[X:.*]]: tensor<2x5xf32>)
// LOWER: %[[KEYS:.*]] = tensor.empty() : tensor<2x5xf32>
// LOWER: %[[POS:.*]] = tensor.empty() : tensor<2x5xi64>
// LOWER: %[[RES:.*]] = tensor.empty() : tensor<2x5xi64>
// LOWER: %[[C2:.*]] = arith.constant 2 : index
// LOWER: scf.for %[[R:.*]] = %{{.*}} to %[[C2]] step %{{.*}} iter_args(%{{.*}} = %[[KEYS]], %{{.*}} = %[[POS]], %{{.*}} = %[[RES]]) -> (tensor<2x5xf32>, tensor<2x5xi64>, tensor<2x5xi64>)
// LOWER: tensor.extract_slice %{{.*}}[%[[R]], 0] [1, 5] [1, 1] : tensor<2x5xf32> to tensor<1x5xf32>
// LOWER: %[[C3:.*]] = arith.constant 3 : index
// LOWER: scf.for %[[P:.*]] = %{{.*}} to %[[C3]] step %{{.*}} iter_args(
// LOWER: %[[W:.*]] = arith.shli %{{.*}}, %[[P]] : index
// LOWER: %[[SRC:.*]] = arith.remui %[[P]], %{{.*}} : index
// LOWER: %[[DST:.*]] = arith.subi %{{.*}}, %[[SRC]] : index
// LOWER: %[[RUNS:.*]] = arith.addi %[[W]], %[[W]] : index
// LOWER: scf.for %[[S:.*]] = %{{.*}} to %{{.*}} step %[[RUNS]] iter_args(
// LOWER: scf.for %[[K:.*]] = %[[S]] to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[S]], %{{.*}}, %[[KS:.*]] = %{{.*}}, %[[PS:.*]] = %{{.*}}) -> (index, index, tensor<2x5xf32>, tensor<2x5xi64>)
// LOWER: %[[LEFT:.*]] = tensor.extract %[[KS]][%[[SRC]], %{{.*}}] : tensor<2x5xf32>
// LOWER-NEXT: %[[RIGHT:.*]] = tensor.extract %[[KS]][%[[SRC]], %{{.*}}] : tensor<2x5xf32>
// LOWER: %[[LT:.*]] = arith.cmpf olt, %[[RIGHT]], %[[LEFT]] : f32
// LOWER-NEXT: %[[NAN:.*]] = arith.cmpf uno, %[[LEFT]], %[[LEFT]] : f32
// LOWER-NEXT: %[[NUM:.*]] = arith.cmpf ord, %[[RIGHT]], %[[RIGHT]] : f32
// LOWER: %[[NANB:.*]] = arith.andi %[[NAN]], %[[NUM]] : i1
// LOWER-NEXT: %[[BEFORE:.*]] = arith.ori %[[LT]], %[[NANB]] : i1
// LOWER-NEXT: %[[EITHER:.*]] = arith.ori %{{.*}}, %[[BEFORE]] : i1
// LOWER-NEXT: %[[TAKE:.*]] = arith.andi %{{.*}}, %[[EITHER]] : i1
// LOWER-NEXT: %[[KEY:.*]] = arith.select %[[TAKE]], %[[RIGHT]], %[[LEFT]] : f32
// LOWER: %[[AT:.*]] = arith.select %[[TAKE]], %{{.*}}, %{{.*}} : i64
// LOWER: tensor.insert %[[KEY]] into %[[KS]][%[[DST]], %[[K]]] : tensor<2x5xf32>
// LOWER-NEXT: tensor.insert %[[AT]] into %[[PS]][%[[DST]], %[[K]]] : tensor<2x5xi64>
// After 3 passes the sorted positions are in half 1.
// LOWER: tensor.extract_slice %{{.*}}[1, 0] [1, 5] [1, 1] : tensor<2x5xi64> to tensor<1x5xi64>
// LOWER-NEXT: tensor.insert_slice %{{.*}} into %{{.*}}[%[[R]], 0] [1, 5] [1, 1] : tensor<1x5xi64> into tensor<2x5xi64>
// LOWER-NOT: tad.
func.func @order(%x: tensor<2x5xf32>) -> tensor<2x5xi64> {
  %0 = "tad.argsort"(%x) {descending = 0} : (tensor<2x5xf32>) -> tensor<2x5xi64>
  return %0 : tensor<2x5xi64>
}

// -----

// Descending: the operands of the comparison swap; integers compare signed.
// LOWER-LABEL: func.func @order_down
// LOWER: %[[LEFT:.*]] = tensor.extract %{{.*}} : tensor<2x4xi32>
// LOWER-NEXT: %[[RIGHT:.*]] = tensor.extract %{{.*}} : tensor<2x4xi32>
// LOWER: arith.cmpi slt, %[[LEFT]], %[[RIGHT]] : i32
func.func @order_down(%x: tensor<2x4xi32>) -> tensor<2x4xi64> {
  %0 = "tad.argsort"(%x) {descending = 1} : (tensor<2x4xi32>) -> tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

// One generic over the values; a sorted length of 5 unrolls 3 probes at
// base + 2, + 1, + 1 (side right: a probe counts unless the value sorts before it).
// LOWER-LABEL: func.func @find
// LOWER-SAME: (%[[A:.*]]: tensor<5xf64>, %[[V:.*]]: tensor<3xf64>)
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[V]] : tensor<3xf64>) outs(%{{.*}} : tensor<3xi64>)
// LOWER-NEXT: ^bb0(%[[IN:.*]]: f64, %{{.*}}: i64):
// LOWER: %[[C2:.*]] = arith.constant 2 : index
// LOWER-NEXT: %[[P0:.*]] = arith.addi %{{.*}}, %[[C2]] : index
// LOWER-NEXT: %[[E0:.*]] = tensor.extract %[[A]][%[[P0]]] : tensor<5xf64>
// LOWER-NEXT: arith.cmpf olt, %[[IN]], %[[E0]] : f64
// LOWER: %[[B0:.*]] = arith.select %{{.*}}, %[[P0]], %{{.*}} : index
// LOWER: %[[P1:.*]] = arith.addi %[[B0]], %{{.*}} : index
// LOWER-NEXT: tensor.extract %[[A]][%[[P1]]] : tensor<5xf64>
// LOWER: %[[B1:.*]] = arith.select %{{.*}}, %[[P1]], %[[B0]] : index
// LOWER: %[[P2:.*]] = arith.addi %[[B1]], %{{.*}} : index
// LOWER-NEXT: tensor.extract %[[A]][%[[P2]]] : tensor<5xf64>
// LOWER: %[[B2:.*]] = arith.select %{{.*}}, %[[P2]], %[[B1]] : index
// LOWER-NEXT: tensor.extract %[[A]][%[[B2]]] : tensor<5xf64>
// LOWER: %[[LAST:.*]] = arith.extui %{{.*}} : i1 to i64
// LOWER-NEXT: %[[BASE:.*]] = arith.index_cast %[[B2]] : index to i64
// LOWER-NEXT: %[[OUT:.*]] = arith.addi %[[BASE]], %[[LAST]] : i64
// LOWER-NEXT: linalg.yield %[[OUT]] : i64
func.func @find(%a: tensor<5xf64>, %v: tensor<3xf64>) -> tensor<3xi64> {
  %0 = "tad.searchsorted"(%a, %v) {right = 1} : (tensor<5xf64>, tensor<3xf64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// A sort is a gather at the permutation: its vjp scatters the cotangent back
// there, its jvp gathers the tangent; argsort (integer) needs no rule. Rows of
// a batch sort as rows, gathered from the rows merged at shifted positions.
// AD-LABEL: func.func private @sorted_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5xf64>)
// AD-NEXT: %[[I:.*]] = "tad.argsort"(%[[X]]) {descending = 0 : i64}
// AD-NEXT: %[[Y:.*]] = "tad.take"(%[[X]], %[[I]])
// AD-NEXT: %[[D:.*]] = "tad.take_backward"(%[[CT]], %[[I]]) {axis = 0 : i64} : (tensor<5xf64>, tensor<5xi64>) -> tensor<5xf64>
// AD-NEXT: return %[[Y]], %[[D]]
// AD-LABEL: func.func private @sorted_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<5xf64>)
// AD: %[[I:.*]] = "tad.argsort"(%[[X]])
// AD: "tad.take"(%[[T]], %[[I]]) {axis = 0 : i64} : (tensor<5xf64>, tensor<5xi64>) -> tensor<5xf64>
// AD-LABEL: func.func private @sorted_vmap
// AD-SAME: (%[[X:.*]]: tensor<3x5xf64>)
// AD-NEXT: %[[I:.*]] = "tad.argsort"(%[[X]]) {descending = 0 : i64} : (tensor<3x5xf64>) -> tensor<3x5xi64>
// AD-NEXT: %[[FLAT:.*]] = "tad.reshape"(%[[X]]) : (tensor<3x5xf64>) -> tensor<15xf64>
// AD: %[[ROWS:.*]] = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<3x5xi64>
// AD: %[[SHIFT:.*]] = arith.muli %[[ROWS]], %{{.*}} : tensor<3x5xi64>
// AD: %[[AT:.*]] = arith.addi %{{.*}}, %[[SHIFT]] : tensor<3x5xi64>
// AD-NEXT: "tad.take"(%[[FLAT]], %[[AT]]) {axis = 0 : i64} : (tensor<15xf64>, tensor<3x5xi64>) -> tensor<3x5xf64>
func.func @sorted(%x: tensor<5xf64>) -> tensor<5xf64> {
  %i = "tad.argsort"(%x) {descending = 0} : (tensor<5xf64>) -> tensor<5xi64>
  %0 = "tad.take"(%x, %i) {axis = 0} : (tensor<5xf64>, tensor<5xi64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @sorted_vjp(tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>)
    attributes {tad.vjp = {of = @sorted, wrt = array<i64: 0>}}
func.func private @sorted_jvp(tensor<5xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>)
    attributes {tad.jvp = {of = @sorted, wrt = array<i64: 0>}}
func.func private @sorted_vmap(tensor<3x5xf64>) -> tensor<3x5xf64>
    attributes {tad.vmap = {of = @sorted, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// Rows of values search one sorted array at once; a sorted array per row is
// searched row by row (the pass's loop).
// AD-LABEL: func.func private @find_vmap_values
// AD-SAME: (%[[A:.*]]: tensor<5xf64>, %[[V:.*]]: tensor<4x3xf64>)
// AD-NEXT: "tad.searchsorted"(%[[A]], %[[V]]) {right = 0 : i64} : (tensor<5xf64>, tensor<4x3xf64>) -> tensor<4x3xi64>
// AD-LABEL: func.func private @find_vmap_sorted
// AD: scf.for
// AD: "tad.searchsorted"(%{{.*}}, %{{.*}}) {right = 0 : i64} : (tensor<5xf64>, tensor<3xf64>) -> tensor<3xi64>
func.func @find(%a: tensor<5xf64>, %v: tensor<3xf64>) -> tensor<3xi64> {
  %0 = "tad.searchsorted"(%a, %v) {right = 0} : (tensor<5xf64>, tensor<3xf64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}
func.func private @find_vmap_values(tensor<5xf64>, tensor<4x3xf64>) -> tensor<4x3xi64>
    attributes {tad.vmap = {of = @find, in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>}}
func.func private @find_vmap_sorted(tensor<4x5xf64>, tensor<3xf64>) -> tensor<4x3xi64>
    attributes {tad.vmap = {of = @find, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}
