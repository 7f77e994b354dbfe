// What tad-verify refuses of the special-function ops: integer elements, a negative order.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-verify

func.func @lgamma_of_integers(%x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{operand must have a floating-point element type, got i64}}
  %0 = "tad.lgamma"(%x) : (tensor<3xi64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

func.func @negative_order(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{order must be non-negative, got -1}}
  %0 = "tad.polygamma"(%x) {order = -1 : i64} : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
