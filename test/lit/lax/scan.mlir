// tad.cumsum: its lowering (element loops over (rows, axis, columns), each
// element adding the result's element one step before along the axis), its
// derivatives (the tangent's cumsum; the cotangent's cumsum the other way,
// the axis shifted past a batch prefix) and its batching rule.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-batch --tad-simplify | FileCheck %s --check-prefix=AD

// (4, 3) along axis 0 is viewed as (1, 4, 3); the first step along the axis reads 0.
// LOWER-LABEL: func.func @running
// LOWER-SAME: (%[[X:.*]]: tensor<4x3xf64>)
// LOWER: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// LOWER: %[[XV:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [1, 4, 3] : tensor<12xf64> into tensor<1x4x3xf64>
// LOWER: %[[EMPTY:.*]] = tensor.empty() : tensor<1x4x3xf64>
// LOWER: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %[[EMPTY]]) -> (tensor<1x4x3xf64>)
// LOWER: %[[C4:.*]] = arith.constant 4 : index
// LOWER: scf.for %[[K:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%{{.*}}) -> (tensor<1x4x3xf64>)
// LOWER: %[[PREV:.*]] = arith.maxsi %{{.*}}, %{{.*}} : index
// LOWER: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %{{.*}} : index
// LOWER: %[[C3:.*]] = arith.constant 3 : index
// LOWER: scf.for %[[C:.*]] = %{{.*}} to %[[C3]] step %{{.*}} iter_args(%[[OUT:.*]] = %{{.*}}) -> (tensor<1x4x3xf64>)
// LOWER-NEXT: %[[BEFORE:.*]] = tensor.extract %[[OUT]][%[[R]], %[[PREV]], %[[C]]] : tensor<1x4x3xf64>
// LOWER-NEXT: %[[B:.*]] = arith.select %[[FIRST]], %[[ZERO]], %[[BEFORE]] : f64
// LOWER-NEXT: %[[E:.*]] = tensor.extract %[[XV]][%[[R]], %[[K]], %[[C]]] : tensor<1x4x3xf64>
// LOWER-NEXT: %[[S:.*]] = arith.addf %[[B]], %[[E]] : f64
// LOWER-NEXT: %[[NEW:.*]] = tensor.insert %[[S]] into %[[OUT]][%[[R]], %[[K]], %[[C]]] : tensor<1x4x3xf64>
// LOWER-NEXT: scf.yield %[[NEW]] : tensor<1x4x3xf64>
// LOWER-NOT: tad.
func.func @running(%x: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0 = "tad.cumsum"(%x) {axis = 0, reverse = 0} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}

// -----

// From the end: step j works on k = n - 1 - j and reads k + 1; integers add with addi.
// LOWER-LABEL: func.func @running_back
// LOWER: %[[C4:.*]] = arith.constant 4 : index
// LOWER: scf.for %[[J:.*]] = %{{.*}} to %[[C4]] step
// LOWER: %[[LAST:.*]] = arith.constant 3 : index
// LOWER-NEXT: %[[K:.*]] = arith.subi %[[LAST]], %[[J]] : index
// LOWER: arith.addi %[[K]], %{{.*}} : index
// LOWER: arith.minsi
// LOWER: arith.addi %{{.*}}, %{{.*}} : i32
func.func @running_back(%x: tensor<2x4xi32>) -> tensor<2x4xi32> {
  %0 = "tad.cumsum"(%x) {axis = 1, reverse = 1} : (tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

// Derivatives: the jvp is the tangent's cumsum; the vjp the cotangent's, from
// the other end; a batch prefix (the Jacobian's rows) shifts the axis.
// AD-LABEL: func.func private @sums_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<4x3xf64>)
// AD: %[[D:.*]] = "tad.cumsum"(%[[CT]]) {axis = 0 : i64, reverse = 1 : i64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
// AD-NEXT: return %{{.*}}, %[[D]]
// AD-LABEL: func.func private @sums_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<4x3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<4x3xf64>)
// AD: %[[D:.*]] = "tad.cumsum"(%[[T]]) {axis = 0 : i64, reverse = 0 : i64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
// AD-NEXT: return %{{.*}}, %[[D]]
// AD-LABEL: func.func private @sums_jac
// AD: "tad.cumsum"(%{{.*}}) {axis = 1 : i64, reverse = 1 : i64} : (tensor<2x4x3xf64>) -> tensor<2x4x3xf64>
// AD-LABEL: func.func private @sums_vmap
// AD-SAME: (%[[X:.*]]: tensor<5x4x3xf64>)
// AD-NEXT: %[[B:.*]] = "tad.cumsum"(%[[X]]) {axis = 1 : i64, reverse = 0 : i64} : (tensor<5x4x3xf64>) -> tensor<5x4x3xf64>
// AD-NEXT: return %[[B]]
func.func @sums(%x: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0 = "tad.cumsum"(%x) {axis = 0, reverse = 0} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
func.func private @sums_vjp(tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @sums, wrt = array<i64: 0>}}
func.func private @sums_jvp(tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>)
    attributes {tad.jvp = {of = @sums, wrt = array<i64: 0>}}
func.func private @sums_jac(tensor<4x3xf64>, tensor<2x4x3xf64>) -> (tensor<4x3xf64>, tensor<2x4x3xf64>)
    attributes {tad.vjp = {of = @sums, wrt = array<i64: 0>}}
func.func private @sums_vmap(tensor<5x4x3xf64>) -> tensor<5x4x3xf64>
    attributes {tad.vmap = {of = @sums, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// A sum over one element is the operand itself (tad-simplify's fold).
// AD-LABEL: func.func @single
// AD-NEXT: return %arg0
func.func @single(%x: tensor<1x3xf64>) -> tensor<1x3xf64> {
  %0 = "tad.cumsum"(%x) {axis = 0, reverse = 0} : (tensor<1x3xf64>) -> tensor<1x3xf64>
  return %0 : tensor<1x3xf64>
}
