// Derivatives of the less common upstream math and arith ops, in both modes:
// each rule scales the (co)tangent by its partials, as in elementwise.mlir.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// asin has the partial 1 / sqrt((1 - x)(1 + x)) (no cancellation near |x| = 1), the same in both modes.
// CHECK-LABEL: func.func private @asin_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[OUT:.*]] = math.asin %[[X]]
// CHECK-NEXT: %[[ONE:.*]] = "tad.constant"() {value = 1.000000e+00 : f64}
// CHECK-NEXT: %[[LOW:.*]] = arith.subf %[[ONE]], %[[X]]
// CHECK-NEXT: %[[HIGH:.*]] = arith.addf %[[ONE]], %[[X]]
// CHECK-NEXT: %[[PRODUCT:.*]] = arith.mulf %[[LOW]], %[[HIGH]]
// CHECK-NEXT: %[[PARTIAL:.*]] = math.rsqrt %[[PRODUCT]]
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[CT]], %[[PARTIAL]]
// CHECK-NEXT: return %[[OUT]], %[[DX]]
// CHECK-LABEL: func.func private @asin_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[PARTIAL:.*]] = math.rsqrt
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[TX]], %[[PARTIAL]]
// CHECK-NEXT: return %{{.*}}, %[[T]]
func.func @asin(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.asin %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @asin_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @asin, wrt = array<i64: 0>}}
func.func private @asin_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @asin, wrt = array<i64: 0>}}

// -----

// fma(a, b, c) = a * b + c: partials b, a and 1 (the cotangent itself, no multiplication).
// CHECK-LABEL: func.func private @fma_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[C:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[OUT:.*]] = math.fma %[[A]], %[[B]], %[[C]]
// CHECK-NEXT: %[[DA:.*]] = arith.mulf %[[CT]], %[[B]]
// CHECK-NEXT: %[[DB:.*]] = arith.mulf %[[CT]], %[[A]]
// CHECK-NEXT: return %[[OUT]], %[[DA]], %[[DB]], %[[CT]]
// CHECK-LABEL: func.func private @fma_jvp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf64>, %{{.*}}: tensor<3xf64>, %[[TA:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TB:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TC:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[OUT:.*]] = math.fma
// CHECK-NEXT: %[[T1:.*]] = arith.mulf %[[TA]], %[[B]]
// CHECK-NEXT: %[[T2:.*]] = arith.mulf %[[TB]], %[[A]]
// CHECK-NEXT: %[[T12:.*]] = arith.addf %[[T1]], %[[T2]]
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[T12]], %[[TC]]
// CHECK-NEXT: return %[[OUT]], %[[T]]
func.func @fma(%a: tensor<3xf64>, %b: tensor<3xf64>, %c: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.fma %a, %b, %c : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @fma_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @fma, wrt = array<i64: 0, 1, 2>}}
func.func private @fma_jvp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @fma, wrt = array<i64: 0, 1, 2>}}

// -----

// copysign(a, b): the slope of |a| (sign(a)) times the sign of b; b only flips the sign,
// so its gradient is zero and its tangent adds nothing.
// CHECK-LABEL: func.func private @copysign_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f64}
// CHECK: %[[SIGN_A:.*]] = arith.select
// CHECK: %[[ONE:.*]] = "tad.constant"() {value = 1.000000e+00 : f64}
// CHECK-NEXT: %[[SIGN_B:.*]] = math.copysign %[[ONE]], %[[B]]
// CHECK-NEXT: %[[PARTIAL:.*]] = arith.mulf %[[SIGN_A]], %[[SIGN_B]]
// CHECK-NEXT: %[[DA:.*]] = arith.mulf %[[CT]], %[[PARTIAL]]
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[ZERO]]
// CHECK-LABEL: func.func private @copysign_jvp
// CHECK-SAME: (%{{.*}}: tensor<3xf64>, %{{.*}}: tensor<3xf64>, %[[TA:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TB:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NOT: %[[TB]]
// CHECK: %[[T:.*]] = arith.mulf %[[TA]], %{{.*}}
// CHECK-NEXT: return %{{.*}}, %[[T]]
func.func @copysign(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.copysign %a, %b : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @copysign_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @copysign, wrt = array<i64: 0, 1>}}
func.func private @copysign_jvp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @copysign, wrt = array<i64: 0, 1>}}

// -----

// remf(a, b) = a - b * trunc(a / b): d/da = 1 (the cotangent itself), d/db = -trunc(a / b).
// CHECK-LABEL: func.func private @remf_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[OUT:.*]] = arith.remf %[[A]], %[[B]]
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[A]], %[[B]]
// CHECK-NEXT: %[[TRUNC:.*]] = math.trunc %[[Q]]
// CHECK-NEXT: %[[NEG:.*]] = arith.negf %[[TRUNC]]
// CHECK-NEXT: %[[DB:.*]] = arith.mulf %[[CT]], %[[NEG]]
// CHECK-NEXT: return %[[OUT]], %[[CT]], %[[DB]]
func.func @remf(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.remf %a, %b : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @remf_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @remf, wrt = array<i64: 0, 1>}}

// -----

// maxnumf as maximumf (1/2 each on ties), except that an operand wins against a NaN.
// CHECK-LABEL: func.func private @maxnum_jvp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TA:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TB:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[GT:.*]] = arith.cmpf ogt, %[[A]], %[[B]]
// CHECK-NEXT: %[[B_NAN:.*]] = arith.cmpf une, %[[B]], %[[B]]
// CHECK-NEXT: %[[WINS:.*]] = arith.ori %[[GT]], %[[B_NAN]]
// CHECK-NEXT: %[[EQ:.*]] = arith.cmpf oeq, %[[A]], %[[B]]
// CHECK-NEXT: %[[EQ_F:.*]] = "tad.convert"(%[[EQ]])
// CHECK-NEXT: %[[HALF:.*]] = "tad.constant"() {value = 5.000000e-01 : f64}
// CHECK-NEXT: %[[TIE:.*]] = arith.mulf %[[EQ_F]], %[[HALF]]
// CHECK: %[[SHARE:.*]] = arith.select %[[WINS]], %{{.*}}, %[[TIE]]
// CHECK-NEXT: %[[T1:.*]] = arith.mulf %[[TA]], %[[SHARE]]
// CHECK-NEXT: %[[REST:.*]] = arith.subf %{{.*}}, %[[SHARE]]
// CHECK-NEXT: %[[T2:.*]] = arith.mulf %[[TB]], %[[REST]]
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[T1]], %[[T2]]
// CHECK-NEXT: return %{{.*}}, %[[T]]
func.func @maxnum(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.maxnumf %a, %b : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @maxnum_jvp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @maxnum, wrt = array<i64: 0, 1>}}

// -----

// Float casts convert the (co)tangent: sinh runs in f32 between truncf and extf, and so
// does its derivative cosh; the cotangent goes down to f32 and its gradient back to f64.
// CHECK-LABEL: func.func private @casts_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[X32:.*]] = arith.truncf %[[X]] : tensor<3xf64> to tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = math.sinh %[[X32]] : tensor<3xf32>
// CHECK-NEXT: %[[OUT:.*]] = arith.extf %[[S]] : tensor<3xf32> to tensor<3xf64>
// CHECK-NEXT: %[[CT32:.*]] = "tad.convert"(%[[CT]]) : (tensor<3xf64>) -> tensor<3xf32>
// CHECK-NEXT: %[[C:.*]] = math.cosh %[[X32]] : tensor<3xf32>
// CHECK-NEXT: %[[D32:.*]] = arith.mulf %[[CT32]], %[[C]] : tensor<3xf32>
// CHECK-NEXT: %[[DX:.*]] = "tad.convert"(%[[D32]]) : (tensor<3xf32>) -> tensor<3xf64>
// CHECK-NEXT: return %[[OUT]], %[[DX]]
// CHECK-LABEL: func.func private @casts_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[X32:.*]] = arith.truncf %[[X]]
// CHECK-NEXT: %[[T32:.*]] = "tad.convert"(%[[TX]]) : (tensor<3xf64>) -> tensor<3xf32>
// CHECK-NEXT: %[[S:.*]] = math.sinh %[[X32]]
// CHECK-NEXT: %[[C:.*]] = math.cosh %[[X32]]
// CHECK-NEXT: %[[TS:.*]] = arith.mulf %[[T32]], %[[C]] : tensor<3xf32>
// CHECK-NEXT: %[[OUT:.*]] = arith.extf %[[S]]
// CHECK-NEXT: %[[T:.*]] = "tad.convert"(%[[TS]]) : (tensor<3xf32>) -> tensor<3xf64>
// CHECK-NEXT: return %[[OUT]], %[[T]]
func.func @casts(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.truncf %x : tensor<3xf64> to tensor<3xf32>
  %1 = math.sinh %0 : tensor<3xf32>
  %2 = arith.extf %1 : tensor<3xf32> to tensor<3xf64>
  return %2 : tensor<3xf64>
}
func.func private @casts_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @casts, wrt = array<i64: 0>}}
func.func private @casts_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @casts, wrt = array<i64: 0>}}

// -----

// trunc and round are piecewise constant: d(x * (trunc(x) + round(x))) = trunc(x) + round(x).
// CHECK-LABEL: func.func private @rounding_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[X]], %[[SUM]]
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[CT]], %[[SUM]]
// CHECK-NEXT: return %[[OUT]], %[[DX]]
// CHECK-LABEL: func.func private @rounding_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[SUM:.*]] = arith.addf
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[X]], %[[SUM]]
// CHECK-NEXT: %[[T:.*]] = arith.mulf %[[TX]], %[[SUM]]
// CHECK-NEXT: return %[[OUT]], %[[T]]
func.func @rounding(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.trunc %x : tensor<3xf64>
  %1 = math.round %x : tensor<3xf64>
  %2 = arith.addf %0, %1 : tensor<3xf64>
  %3 = arith.mulf %x, %2 : tensor<3xf64>
  return %3 : tensor<3xf64>
}
func.func private @rounding_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @rounding, wrt = array<i64: 0>}}
func.func private @rounding_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @rounding, wrt = array<i64: 0>}}

// -----

// fpowi: n * x ** (n - 1), with the exponent 1 where n == 0 (no 0 * 0 ** -1); n is an integer, inactive.
// CHECK-LABEL: func.func private @ipow_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: f64, %[[N:[a-zA-Z0-9_]+]]: i32, %[[T:[a-zA-Z0-9_]+]]: f64)
// CHECK: %[[IS_ZERO:.*]] = arith.cmpi eq, %[[N]]
// CHECK: %[[LESS:.*]] = arith.subi %[[N]]
// CHECK: %[[EXPONENT:.*]] = arith.select %[[IS_ZERO]], %{{.*}}, %[[LESS]] : i32
// CHECK: %[[POWER:.*]] = math.fpowi %[[X]], %[[EXPONENT]] : f64, i32
// CHECK: %[[NF:.*]] = arith.sitofp %[[N]] : i32 to f64
// CHECK: %[[PARTIAL:.*]] = arith.mulf %[[NF]], %[[POWER]]
// CHECK: arith.mulf %[[T]], %[[PARTIAL]]
func.func @ipow(%x: f64, %n: i32) -> f64 {
  %0 = math.fpowi %x, %n : f64, i32
  return %0 : f64
}
func.func private @ipow_jvp(f64, i32, f64) -> (f64, f64) attributes {tad.jvp = {of = @ipow, wrt = array<i64: 0>}}
