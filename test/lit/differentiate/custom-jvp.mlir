// tad.custom_jvp = @rule gives a function both derivatives from a user-supplied
// forward rule @rule(inputs..., tangents...) -> (results..., result tangents...):
// the jvp calls it; the vjp is the rule's own vjp with respect to its tangents,
// taken at zero tangents (the transpose of its linear tangent map). The body is
// not differentiated, so it may hold ops without rules (math.erf).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

func.func @erf_with_rule(%x: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_jvp = @erf_jvp_rule} {
  %0 = math.erf %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
// d erf(x) = 2 / sqrt(pi) * exp(-x^2) dx
func.func private @erf_jvp_rule(%x: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %y = func.call @erf_with_rule(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %c = "tad.constant"() {value = 1.1283791670955126 : f64} : () -> tensor<3xf64>
  %0 = arith.mulf %x, %x : tensor<3xf64>
  %1 = arith.negf %0 : tensor<3xf64>
  %2 = math.exp %1 : tensor<3xf64>
  %3 = arith.mulf %c, %2 : tensor<3xf64>
  %4 = arith.mulf %t, %3 : tensor<3xf64>
  return %y, %4 : tensor<3xf64>, tensor<3xf64>
}
// CHECK-LABEL: func.func private @erf_with_rule_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[R:.*]]:2 = call @erf_jvp_rule(%[[X]], %[[T]])
// CHECK-NEXT: return %[[R]]#0, %[[R]]#1
func.func private @erf_with_rule_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @erf_with_rule, wrt = array<i64: 0>}}
// The vjp of the rule with respect to its tangent: the cotangent times the
// derivative; the rule's call of @erf_with_rule is not differentiated.
// CHECK-LABEL: func.func private @erf_with_rule_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[G:.*]]:3 = call @erf_jvp_rule_vjp_wrt1(%[[X]], %{{.*}}, %{{.*}}, %[[CT]])
// CHECK-NEXT: return %[[G]]#0, %[[G]]#2
// CHECK-LABEL: func.func private @erf_jvp_rule_vjp_wrt1
// CHECK-NOT: math.erf
// CHECK: arith.mulf
// CHECK-NOT: erf_with_rule_vjp
// CHECK: return
func.func private @erf_with_rule_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @erf_with_rule, wrt = array<i64: 0>}}

// -----

// A batched tangent (a Jacobian's identity seeds) calls the rule once per row.
func.func @scaled(%x: tensor<2xf64>) -> tensor<2xf64> attributes {tad.custom_jvp = @scaled_rule} {
  %0 = arith.addf %x, %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @scaled_rule(%x: tensor<2xf64>, %t: tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>) {
  %0 = arith.addf %x, %x : tensor<2xf64>
  %1 = arith.addf %t, %t : tensor<2xf64>
  return %0, %1 : tensor<2xf64>, tensor<2xf64>
}
// CHECK-LABEL: func.func private @scaled_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<2x2xf64>) -> (tensor<2xf64>, tensor<2x2xf64>)
// CHECK: call @scaled(%[[X]])
// CHECK: scf.for
// CHECK: call @scaled_rule(%[[X]], %{{.*}}) : (tensor<2xf64>, tensor<2xf64>) -> (tensor<2xf64>, tensor<2xf64>)
func.func private @scaled_jvp(tensor<2xf64>, tensor<2x2xf64>) -> (tensor<2xf64>, tensor<2x2xf64>)
    attributes {tad.jvp = {of = @scaled, wrt = array<i64: 0>}}

