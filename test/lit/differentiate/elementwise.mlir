// Reverse mode of elementwise arith and math ops: each rule multiplies the
// cotangent by its partial derivatives, reusing the forward sweep's values.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// d(sin(x) * y) = (ct * y) * cos(x), ct * sin(x); the forward sweep is kept for the primal result.
// CHECK-LABEL: func.func private @mul_sin_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[SIN:.*]] = math.sin %[[X]]
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[SIN]], %[[Y]]
// CHECK-DAG: %[[CT_SIN:.*]] = arith.mulf %[[CT]], %[[Y]]
// CHECK-DAG: %[[DY:.*]] = arith.mulf %[[CT]], %[[SIN]]
// CHECK-DAG: %[[COS:.*]] = math.cos %[[X]]
// CHECK: %[[DX:.*]] = arith.mulf %[[CT_SIN]], %[[COS]]
// CHECK-NEXT: return %[[OUT]], %[[DX]], %[[DY]]
func.func @mul_sin(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.sin %x : tensor<3xf64>
  %1 = arith.mulf %0, %y : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @mul_sin_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @mul_sin, wrt = array<i64: 0, 1>}}

// -----

// d(x / y) = ct * (1 / y), ct * -(out / y): the quotient of the forward sweep is reused.
// CHECK-LABEL: func.func private @div_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[X]], %[[Y]]
// CHECK-NEXT: %[[ONE:.*]] = "tad.constant"() {value = 1.000000e+00 : f64} : () -> tensor<3xf64>
// CHECK-NEXT: %[[RECIP:.*]] = arith.divf %[[ONE]], %[[Y]]
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[CT]], %[[RECIP]]
// CHECK-NEXT: %[[QY:.*]] = arith.divf %[[Q]], %[[Y]]
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[QY]]
// CHECK-NEXT: %[[DY:.*]] = arith.mulf %[[CT]], %[[NEG]]
// CHECK-NEXT: return %[[Q]], %[[DX]], %[[DY]]
func.func @div(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.divf %x, %y : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @div_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @div, wrt = array<i64: 0, 1>}}

// -----

// Partials of 1 and -1 add no multiplication: only negations.
// CHECK-LABEL: func.func private @sub_neg_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NOT: arith.mulf
// CHECK: %[[DX:.*]] = arith.negf %[[CT]]
// CHECK-NEXT: %[[DY:.*]] = arith.negf %[[DX]]
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]]
func.func @sub_neg(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.subf %x, %y : tensor<3xf64>
  %1 = arith.negf %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @sub_neg_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @sub_neg, wrt = array<i64: 0, 1>}}

// -----

// exp and tanh differentiate through their own results: nothing is recomputed.
// CHECK-LABEL: func.func private @exp_tanh_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT: %[[T:.*]] = math.tanh %[[E]]
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK: %[[T2:.*]] = arith.mulf %[[T]], %[[T]]
// CHECK: %[[D:.*]] = arith.subf %{{.*}}, %[[T2]]
// CHECK: %[[CT_E:.*]] = arith.mulf %[[CT]], %[[D]]
// CHECK: %[[DX:.*]] = arith.mulf %[[CT_E]], %[[E]]
// CHECK: return %[[T]], %[[DX]]
func.func @exp_tanh(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.exp %x : tensor<3xf64>
  %1 = math.tanh %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @exp_tanh_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @exp_tanh, wrt = array<i64: 0>}}

// -----

// maximumf: 1 where x wins, 1/2 on ties (as JAX), 0 where it loses; y gets the rest.
// CHECK-LABEL: func.func private @maximum_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[X]], %[[Y]]
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[X]], %[[Y]]
// CHECK: %[[EQ_F:.*]] = "tad.convert"(%[[EQ]])
// CHECK: %[[HALF:.*]] = "tad.constant"() {value = 5.000000e-01 : f64}
// CHECK: %[[TIE:.*]] = arith.mulf %[[EQ_F]], %[[HALF]]
// CHECK: %[[SHARE:.*]] = arith.select %[[GT]], %{{.*}}, %[[TIE]]
// CHECK: %[[DX:.*]] = arith.mulf %[[CT]], %[[SHARE]]
// CHECK: %[[REST:.*]] = arith.subf
// CHECK: %[[DY:.*]] = arith.mulf %[[CT]], %[[REST]]
// CHECK: return %{{.*}}, %[[DX]], %[[DY]]
func.func @maximum(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.maximumf %x, %y : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @maximum_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @maximum, wrt = array<i64: 0, 1>}}

// -----

// select: the condition has no derivative; each branch gets the cotangent where it was
// chosen, selected (not multiplied by a mask: an inf in the other branch stays out).
// CHECK-LABEL: func.func private @select_vjp
// CHECK-SAME: (%[[C:[a-zA-Z0-9_]+]]: tensor<3xi1>, %{{.*}}: tensor<3xf64>, %{{.*}}: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f64}
// CHECK: %[[DX:.*]] = arith.select %[[C]], %[[CT]], %[[ZERO]]
// CHECK: %[[DY:.*]] = arith.select %[[C]], %[[ZERO]], %[[CT]]
// CHECK: return %{{.*}}, %[[DX]], %[[DY]]
func.func @select(%c: tensor<3xi1>, %x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.select %c, %x, %y : tensor<3xi1>, tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @select_vjp(tensor<3xi1>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @select, wrt = array<i64: 1, 2>}}

// -----

// Activity: with wrt = [0], log(y) is a constant factor and gets no rule applied.
// CHECK-LABEL: func.func private @inactive_vjp
// CHECK-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK: %[[LOG:.*]] = math.log
// CHECK: %[[DX:.*]] = arith.mulf %[[CT]], %[[LOG]]
// CHECK-NOT: arith.divf
// CHECK-NEXT: return %{{.*}}, %[[DX]]
func.func @inactive(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.log %y : tensor<3xf64>
  %1 = arith.mulf %x, %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @inactive_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @inactive, wrt = array<i64: 0>}}

// -----

// An input that does not reach the result has a zero gradient; sqrt reuses its result (0.5 / sqrt x).
// CHECK-LABEL: func.func private @unused_vjp
// CHECK: %[[S:.*]] = math.sqrt
// CHECK: %[[HALF:.*]] = "tad.constant"() {value = 5.000000e-01 : f64}
// CHECK: %[[D:.*]] = arith.divf %[[HALF]], %[[S]]
// CHECK: %[[DX:.*]] = arith.mulf %{{.*}}, %[[D]]
// CHECK: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<3xf64>
// CHECK: return %[[S]], %[[DX]], %[[ZERO]]
func.func @unused(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.sqrt %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @unused_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @unused, wrt = array<i64: 0, 1>}}

// -----

// powf guards its partials: d/dx = y * x ** (y - 1) takes exponent 1 where x == y == 0 (so
// it is 0 there, with finite derivatives), d/dy takes log of 1 where x == 0.
// atan2(p, y) has partials y / (p^2 + y^2) and -p / (p^2 + y^2).
// CHECK-LABEL: func.func private @pow_atan2_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[P:.*]] = math.powf %[[X]], %[[Y]]
// CHECK: math.atan2 %[[P]], %[[Y]]
// CHECK: %[[CT_P:.*]] = arith.mulf %[[CT]], %{{.*}}
// CHECK: %[[X_ZERO:.*]] = arith.cmpf oeq, %[[X]], %[[ZERO:.*]] :
// CHECK: %[[Y_ZERO:.*]] = arith.cmpf oeq, %[[Y]], %[[ZERO]] :
// CHECK: %[[ORIGIN:.*]] = arith.andi %[[X_ZERO]], %[[Y_ZERO]]
// CHECK: %[[YM1:.*]] = arith.subf %[[Y]], %[[ONE:.*]] :
// CHECK: %[[EXPONENT:.*]] = arith.select %[[ORIGIN]], %[[ONE]], %[[YM1]]
// CHECK: %[[POW:.*]] = math.powf %[[X]], %[[EXPONENT]]
// CHECK: %[[DPDX:.*]] = arith.mulf %[[Y]], %[[POW]]
// CHECK: %[[DX:.*]] = arith.mulf %[[CT_P]], %[[DPDX]]
// CHECK: %[[SAFE:.*]] = arith.select %[[X_ZERO]], %[[ONE]], %[[X]]
// CHECK: %[[LOG:.*]] = math.log %[[SAFE]]
// CHECK: %[[DPDY:.*]] = arith.mulf %[[LOG]], %[[P]]
// CHECK: return %{{.*}}, %[[DX]], %{{.*}}
func.func @pow_atan2(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.powf %x, %y : tensor<3xf64>
  %1 = math.atan2 %0, %y : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @pow_atan2_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @pow_atan2, wrt = array<i64: 0, 1>}}

// -----

// stop_gradient and floor have zero derivatives: d(x * sg(x) + floor(x)) = ct * sg(x).
// CHECK-LABEL: func.func private @zero_derivative_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[SG:.*]] = "tad.stop_gradient"(%[[X]])
// CHECK: %[[OUT:.*]] = arith.addf
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[CT]], %[[SG]]
// CHECK-NEXT: return %[[OUT]], %[[DX]]
func.func @zero_derivative(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.stop_gradient"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %1 = arith.mulf %x, %0 : tensor<3xf64>
  %2 = math.floor %x : tensor<3xf64>
  %3 = arith.addf %1, %2 : tensor<3xf64>
  return %3 : tensor<3xf64>
}
func.func private @zero_derivative_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @zero_derivative, wrt = array<i64: 0>}}

// -----

// erf has the partial 2 / sqrt(pi) * exp(-x^2).
// CHECK-LABEL: func.func private @erf_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<3xf64>)
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK: %[[NEG:.*]] = arith.negf %[[SQ]]
// CHECK: %[[EXP:.*]] = math.exp %[[NEG]]
// CHECK: %[[TWO_OVER_SQRT_PI:.*]] = "tad.constant"() {value = 1.1283791670955126 : f64}
// CHECK: %[[PARTIAL:.*]] = arith.mulf %[[TWO_OVER_SQRT_PI]], %[[EXP]]
// CHECK: arith.mulf %[[CT]], %[[PARTIAL]]
func.func @erf(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.erf %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @erf_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @erf, wrt = array<i64: 0>}}
