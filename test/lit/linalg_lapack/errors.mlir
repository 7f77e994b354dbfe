// The shape rules of the LAPACK ops (tad-verify, after parsing).
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

func.func @not_square(%a: tensor<2x3xf64>) {
  // expected-error @+1 {{operand must be square matrices, got 2x3}}
  %0 = "tad.cholesky"(%a) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return
}

// -----

func.func @integers(%a: tensor<3x3xi32>) {
  // expected-error @+1 {{operand must be f32, f64 or complex of them (LAPACK's), got i32}}
  %0 = "tad.cholesky"(%a) : (tensor<3x3xi32>) -> tensor<3x3xi32>
  return
}

// -----

func.func @rows_differ(%a: tensor<3x3xf64>, %b: tensor<2x2xf64>) {
  // expected-error @+1 {{b's rows (2) must match a's size (3)}}
  %0 = "tad.solve"(%a, %b) {transpose_a = 0 : i64} : (tensor<3x3xf64>, tensor<2x2xf64>) -> tensor<2x2xf64>
  return
}

// -----

func.func @batches_differ(%a: tensor<2x3x3xf64>, %b: tensor<3x3x1xf64>) {
  // expected-error @+1 {{a and b need the same batch dims, got [2] and [3]}}
  %0 = "tad.triangular_solve"(%a, %b) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64} : (tensor<2x3x3xf64>, tensor<3x3x1xf64>) -> tensor<3x3x1xf64>
  return
}

// -----

func.func @flag(%a: tensor<3x3xf64>) {
  // expected-error @+1 {{full_matrices must be 0 or 1, got 2}}
  %0:2 = "tad.qr"(%a) {full_matrices = 2 : i64} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>)
  return
}

// -----

func.func @svd_result(%a: tensor<4x3xf64>) {
  // expected-error @+1 {{does not match the inferred type}}
  %0:3 = "tad.svd"(%a) {full_matrices = 0 : i64} : (tensor<4x3xf64>) -> (tensor<4x4xf64>, tensor<3xf64>, tensor<3x3xf64>)
  return
}

// -----

func.func @eig_not_square(%a: tensor<2x3xf64>) {
  // expected-error @+1 {{operand must be square matrices, got 2x3}}
  %0:2 = "tad.eig"(%a) : (tensor<2x3xf64>) -> (tensor<2xcomplex<f64>>, tensor<2x3xcomplex<f64>>)
  return
}

// -----

func.func @eig_real_results(%a: tensor<3x3xf64>) {
  // expected-error @+1 {{does not match the inferred type}}
  %0:2 = "tad.eig"(%a) : (tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
  return
}
