// The shape rule of tad.fft.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

func.func @real_operand(%x: tensor<3x4xf64>) {
  // expected-error @+1 {{the operand of a FFT must be complex<f32> or complex<f64>, got f64}}
  %0 = "tad.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 4>} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return
}

// -----

func.func @lengths(%x: tensor<3x8xf64>) {
  // expected-error @+1 {{operand [3, 8] does not fit the RFFT of fft_lengths [6]}}
  %0 = "tad.fft"(%x) {fft_type = "RFFT", fft_lengths = array<i64: 6>} : (tensor<3x8xf64>) -> tensor<3x4xcomplex<f64>>
  return
}

// -----

func.func @kind(%x: tensor<3x8xcomplex<f64>>) {
  // expected-error @+1 {{fft_type must be one of FFT, IFFT, RFFT, IRFFT}}
  %0 = "tad.fft"(%x) {fft_type = "DCT", fft_lengths = array<i64: 8>} : (tensor<3x8xcomplex<f64>>) -> tensor<3x8xcomplex<f64>>
  return
}

// -----

func.func @half_spectrum(%x: tensor<3x4xcomplex<f64>>) {
  // expected-error @+1 {{operand [3, 4] does not fit the IRFFT of fft_lengths [8]}}
  %0 = "tad.fft"(%x) {fft_type = "IRFFT", fft_lengths = array<i64: 8>} : (tensor<3x4xcomplex<f64>>) -> tensor<3x8xf64>
  return
}
