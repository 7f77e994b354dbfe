// Derivatives of the special-function ops: lgamma' = digamma, polygamma of
// order n has polygamma of order n + 1 as its slope (so every order exists),
// and the inverse error functions reuse their result: erf_inv' = sqrt(pi)/2 exp(y^2),
// ndtri' = sqrt(2 pi) exp(y^2 / 2).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @lgamma_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<3xf64>)
// CHECK: %[[Y:.*]] = "tad.lgamma"(%[[X]])
// CHECK: %[[PSI:.*]] = "tad.polygamma"(%[[X]]) {order = 0 : i64}
// CHECK: %[[DX:.*]] = arith.mulf %[[CT]], %[[PSI]]
// CHECK: return %[[Y]], %[[DX]]
func.func @lgamma(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.lgamma"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @lgamma_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @lgamma, wrt = array<i64: 0>}}

// -----

// Forward mode of the trigamma function: the tangent times the order-2 polygamma.
// CHECK-LABEL: func.func private @trigamma_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>, %[[T:.*]]: tensor<3xf32>)
// CHECK: "tad.polygamma"(%[[X]]) {order = 1 : i64}
// CHECK: %[[SLOPE:.*]] = "tad.polygamma"(%[[X]]) {order = 2 : i64}
// CHECK: arith.mulf %[[T]], %[[SLOPE]]
func.func @trigamma(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tad.polygamma"(%x) {order = 1 : i64} : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func private @trigamma_jvp(tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>)
    attributes {tad.jvp = {of = @trigamma, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @erf_inv_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<3xf64>)
// CHECK: %[[Y:.*]] = "tad.erf_inv"(%[[X]])
// CHECK: %[[Y2:.*]] = arith.mulf %[[Y]], %[[Y]]
// CHECK: %[[E:.*]] = math.exp %[[Y2]]
// CHECK: %[[SLOPE:.*]] = arith.mulf %{{.*}}, %[[E]]
// CHECK: arith.mulf %[[CT]], %[[SLOPE]]
func.func @erf_inv(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.erf_inv"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @erf_inv_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @erf_inv, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @ndtri_vjp
// CHECK-SAME: (%[[P:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<3xf64>)
// CHECK: %[[Y:.*]] = "tad.ndtri"(%[[P]])
// CHECK: %[[Y2:.*]] = arith.mulf %[[Y]], %[[Y]]
// CHECK: math.exp
// CHECK: arith.mulf %[[CT]]
func.func @ndtri(%p: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.ndtri"(%p) : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @ndtri_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @ndtri, wrt = array<i64: 0>}}
