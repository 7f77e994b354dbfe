// Derivatives that JAX does not define are refused at the op, not computed wrongly.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --verify-diagnostics

func.func @wide_qr(%a: tensor<3x4xf64>) -> tensor<3x4xf64> {
  // expected-error @+1 {{the vjp rule of 'tad.qr' cannot build its derivative for these shapes: the derivative of a QR factorization of 3x4 matrices is defined for reduced factors (full_matrices only when square) of matrices with at least as many rows as columns (JAX's)}}
  %0:2 = "tad.qr"(%a) {full_matrices = 0 : i64} : (tensor<3x4xf64>) -> (tensor<3x3xf64>, tensor<3x4xf64>)
  return %0#1 : tensor<3x4xf64>
}
func.func private @wide_qr_vjp(tensor<3x4xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
    attributes {tad.vjp = {of = @wide_qr, wrt = array<i64: 0>}}

// -----

func.func @full_svd(%a: tensor<4x3xf64>) -> tensor<4x4xf64> {
  // expected-error @+1 {{the jvp rule of 'tad.svd' cannot build its derivative for these shapes: the derivative of a full SVD of 4x3 matrices is not defined (JAX's): use full_matrices=False}}
  %0:3 = "tad.svd"(%a) {full_matrices = 1 : i64} : (tensor<4x3xf64>) -> (tensor<4x4xf64>, tensor<3xf64>, tensor<3x3xf64>)
  return %0#0 : tensor<4x4xf64>
}
func.func private @full_svd_jvp(tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x4xf64>, tensor<4x4xf64>)
    attributes {tad.jvp = {of = @full_svd, wrt = array<i64: 0>}}
