// tad.custom_vjp = @bwd replaces the derivative of a function by a user-supplied
// rule: its vjp calls the function and then @bwd(inputs..., cotangents...).
// The body is not differentiated, so it may hold ops without rules (math.erf).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @user_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[E:.*]] = call @erf_with_rule(%[[X]])
// CHECK: %[[CT_E:.*]] = arith.mulf %[[CT]], %{{.*}}
// CHECK-NEXT: %[[D:.*]]:2 = call @erf_with_rule_vjp_wrt0(%[[X]], %[[CT_E]])
// CHECK-NEXT: return %{{.*}}, %[[D]]#1

// CHECK-LABEL: func.func private @erf_with_rule_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[Y:.*]] = call @erf_with_rule(%[[X]])
// CHECK-NEXT: %[[D:.*]] = call @erf_bwd(%[[X]], %[[CT]]) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
// CHECK-NEXT: return %[[Y]], %[[D]]
// CHECK-NOT: math.erf
func.func @erf_with_rule(%x: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_vjp = @erf_bwd} {
  %0 = math.erf %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
// d erf(x) = 2 / sqrt(pi) * exp(-x^2)
func.func private @erf_bwd(%x: tensor<3xf64>, %ct: tensor<3xf64>) -> tensor<3xf64> {
  %c = "tad.constant"() {value = 1.1283791670955126 : f64} : () -> tensor<3xf64>
  %0 = arith.mulf %x, %x : tensor<3xf64>
  %1 = arith.negf %0 : tensor<3xf64>
  %2 = math.exp %1 : tensor<3xf64>
  %3 = arith.mulf %c, %2 : tensor<3xf64>
  %4 = arith.mulf %ct, %3 : tensor<3xf64>
  return %4 : tensor<3xf64>
}
func.func @user(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = func.call @erf_with_rule(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %1 = math.sin %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @user_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @user, wrt = array<i64: 0>}}
func.func private @erf_with_rule_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @erf_with_rule, wrt = array<i64: 0>}}

// -----

// @bwd returns one gradient per input; the vjp keeps those named in wrt.
// CHECK-LABEL: func.func private @product_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: %[[P:.*]] = call @product(%[[X]], %[[Y]])
// CHECK-NEXT: %[[G:.*]]:2 = call @product_bwd(%[[X]], %[[Y]], %[[CT]])
// CHECK-NEXT: return %[[P]], %[[G]]#1
func.func @product(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_vjp = @product_bwd} {
  %0 = arith.mulf %x, %y : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @product_bwd(%x: tensor<3xf64>, %y: tensor<3xf64>, %ct: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %0 = arith.mulf %ct, %y : tensor<3xf64>
  %1 = arith.mulf %ct, %x : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
func.func private @product_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @product, wrt = array<i64: 1>}}
