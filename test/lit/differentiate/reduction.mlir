// Derivatives of the reductions: reduce_sum's adjoint broadcasts the cotangent
// back over the reduced dims; reduce_max/reduce_min send it to the positions
// of the extremum, shared evenly among ties (as JAX).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @sum_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<2x3x4xf64>)
// CHECK: %[[D:.*]] = "tad.broadcast_in_dim"(%[[CT]]) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT: return %{{.*}}, %[[D]]
func.func @sum(%x: tensor<2x3x4xf64>) -> tensor<3xf64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @sum_vjp(tensor<2x3x4xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<2x3x4xf64>)
    attributes {tad.vjp = {of = @sum, wrt = array<i64: 0>}}

// -----

// d max = broadcast(ct) * (x == max) / count(x == max), using the forward sweep's maximum.
// CHECK-LABEL: func.func private @max_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2xf64>)
// CHECK-NEXT: %[[MAX:.*]] = "tad.reduce_max"(%[[X]]) {dimensions = array<i64: 1>}
// CHECK-NOT: "tad.reduce_max"
// CHECK-DAG: %[[CT_B:.*]] = "tad.broadcast_in_dim"(%[[CT]]) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf64>) -> tensor<2x3xf64>
// CHECK-DAG: %[[MAX_B:.*]] = "tad.broadcast_in_dim"(%[[MAX]]) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf64>) -> tensor<2x3xf64>
// CHECK: %[[HIT:.*]] = arith.cmpf oeq, %[[X]], %[[MAX_B]]
// CHECK-NEXT: %[[HITS:.*]] = "tad.convert"(%[[HIT]]) : (tensor<2x3xi1>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[COUNT:.*]] = "tad.reduce_sum"(%[[HITS]]) {dimensions = array<i64: 1>} : (tensor<2x3xf64>) -> tensor<2xf64>
// CHECK: %[[WEIGHTS:.*]] = arith.divf %[[HITS]], %{{.*}} : tensor<2x3xf64>
// CHECK-NEXT: %[[D:.*]] = arith.mulf %[[CT_B]], %[[WEIGHTS]]
// CHECK-NEXT: return %[[MAX]], %[[D]]
func.func @max(%x: tensor<2x3xf64>) -> tensor<2xf64> {
  %0 = "tad.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<2x3xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @max_vjp(tensor<2x3xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2x3xf64>)
    attributes {tad.vjp = {of = @max, wrt = array<i64: 0>}}

// -----

// Forward mode of a full reduce_min: the tangent's weighted sum over the minima.
// CHECK-LABEL: func.func private @min_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<2x3xf64>) -> (tensor<f64>, tensor<f64>)
// CHECK-NEXT: %[[MIN:.*]] = "tad.reduce_min"(%[[X]]) {dimensions = array<i64: 0, 1>}
// CHECK: %[[HIT:.*]] = arith.cmpf oeq, %[[X]], %{{.*}}
// CHECK: %[[WEIGHTS:.*]] = arith.divf
// CHECK-NEXT: %[[WT:.*]] = arith.mulf %[[T]], %[[WEIGHTS]] : tensor<2x3xf64>
// CHECK-NEXT: %[[DT:.*]] = "tad.reduce_sum"(%[[WT]]) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
// CHECK-NEXT: return %[[MIN]], %[[DT]]
func.func @min(%x: tensor<2x3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_min"(%x) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @min_jvp(tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @min, wrt = array<i64: 0>}}
