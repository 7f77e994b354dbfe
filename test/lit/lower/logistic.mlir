// tad.logistic: lowered to one all-parallel generic computing both tails from
// exp(-|x|); its derivative reuses the result, y * (1 - y).
// RUN: autodiff-opt %s --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify | FileCheck %s --check-prefix=GRAD

// LOWER-LABEL: func.func @sigmoid
// LOWER: linalg.generic
// LOWER-SAME: iterator_types = ["parallel", "parallel"]
// LOWER: math.absf
// LOWER: math.exp
// LOWER: arith.cmpf oge
// LOWER: arith.select
// LOWER-NOT: tad.logistic
// GRAD-LABEL: func.func private @sigmoid_vjp
// GRAD-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[CT:.*]]: tensor<2x3xf32>)
// GRAD: %[[Y:.*]] = "tad.logistic"(%[[X]])
// GRAD: %[[ONE:.*]] = "tad.constant"() {value = 1.000000e+00 : f32}
// GRAD: %[[REST:.*]] = arith.subf %[[ONE]], %[[Y]]
// GRAD: %[[PARTIAL:.*]] = arith.mulf %[[Y]], %[[REST]]
// GRAD: arith.mulf %[[CT]], %[[PARTIAL]]
func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tad.logistic"(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func private @sigmoid_vjp(tensor<2x3xf32>, tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
    attributes {tad.vjp = {of = @sigmoid, wrt = array<i64: 0>}}

