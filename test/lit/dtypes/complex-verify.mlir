// What tad-verify refuses of complex tensors: parts of different types, the part of a real
// tensor, and ops whose lowering adds or multiplies elements (complex sums and products are
// built on the parts).
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

func.func @mixed_parts(%x: tensor<3xf32>, %y: tensor<3xf64>) {
  // expected-error @+1 {{real and imag must have one shape and element type}}
  %0 = "tad.complex"(%x, %y) : (tensor<3xf32>, tensor<3xf64>) -> tensor<3xcomplex<f32>>
  return
}

// -----

func.func @real_of_real(%x: tensor<3xf64>) {
  // expected-error @+1 {{operand must be a complex tensor}}
  %0 = "tad.real"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @complex_sum(%z: tensor<3xcomplex<f64>>) {
  // expected-error @+1 {{element type complex<f64> is not supported by tad.reduce_sum}}
  %0 = "tad.reduce_sum"(%z) {dimensions = array<i64: 0>} : (tensor<3xcomplex<f64>>) -> tensor<complex<f64>>
  return
}
