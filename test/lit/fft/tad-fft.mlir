// tad.fft: its lowering to a call of the ducc0 callback, its derivatives (transposes,
// under JAX's convention for complex cotangents, with JAX's correction factors for
// the real transforms) and its batching.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s --check-prefix=DIFF
// RUN: autodiff-opt %s --split-input-file --tad-batch | FileCheck %s --check-prefix=BATCH

// The kernel writes a header (kind RFFT = 2, double = 1, rank 2, one transformed dim, the
// shapes 3x8 and 3x5) and hands it with both buffers to the callback.
// LOWER-LABEL: func.func @rfft
// LOWER: call @[[KERNEL:__tad_fft_rfft_3x8_f64_8]](%{{.*}}, %{{.*}}) : (memref<24xf64>, memref<15xcomplex<f64>>) -> ()
// LOWER: bufferization.to_tensor %{{.*}} restrict writable : memref<3x5xcomplex<f64>> to tensor<3x5xcomplex<f64>>
// LOWER: func.func private @[[KERNEL]]
// LOWER: %[[HEADER:.*]] = memref.alloca() : memref<8xi64>
// LOWER: arith.constant 2 : i64
// LOWER: call @tad_ducc0_fft(%{{.*}}, %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// LOWER: func.func private @tad_ducc0_fft(!llvm.ptr, !llvm.ptr, !llvm.ptr)

// The transpose of the half spectrum of a real signal: N irfft(conj(ct) / weights), the
// weights 1 at zero and Nyquist, 2 between (a conjugate pair).
// DIFF-LABEL: func.func private @rfft_vjp
// DIFF: "tad.imag"(%arg1)
// DIFF: arith.negf
// DIFF: arith.constant dense<[8.000000e+00, 4.000000e+00, 4.000000e+00, 4.000000e+00, 8.000000e+00]> : tensor<5xf64>
// DIFF: %[[W:.*]] = "tad.complex"
// DIFF: %[[G:.*]] = "tad.fft"(%[[W]]) {fft_lengths = array<i64: 8>, fft_type = "IRFFT"} : (tensor<3x5xcomplex<f64>>) -> tensor<3x8xf64>
// DIFF: return %{{.*}}, %[[G]]
// DIFF-LABEL: func.func private @rfft_jvp
// DIFF: "tad.fft"(%arg1) {fft_lengths = array<i64: 8>, fft_type = "RFFT"}

// BATCH-LABEL: func.func private @rfft_vmap
// BATCH: "tad.fft"(%arg0) {fft_lengths = array<i64: 8>, fft_type = "RFFT"} : (tensor<4x3x8xf64>) -> tensor<4x3x5xcomplex<f64>>
func.func @rfft(%x: tensor<3x8xf64>) -> tensor<3x5xcomplex<f64>> {
  %0 = "tad.fft"(%x) {fft_type = "RFFT", fft_lengths = array<i64: 8>} : (tensor<3x8xf64>) -> tensor<3x5xcomplex<f64>>
  return %0 : tensor<3x5xcomplex<f64>>
}
func.func private @rfft_vjp(tensor<3x8xf64>, tensor<3x5xcomplex<f64>>) -> (tensor<3x5xcomplex<f64>>, tensor<3x8xf64>)
    attributes {tad.vjp = {of = @rfft, wrt = array<i64: 0>}}
func.func private @rfft_jvp(tensor<3x8xf64>, tensor<3x8xf64>) -> (tensor<3x5xcomplex<f64>>, tensor<3x5xcomplex<f64>>)
    attributes {tad.jvp = {of = @rfft, wrt = array<i64: 0>}}
func.func private @rfft_vmap(tensor<4x3x8xf64>) -> tensor<4x3x5xcomplex<f64>>
    attributes {tad.vmap = {of = @rfft, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// The transpose of the inverse real transform (JAX's): conj(weights * rfft(ct) / N).
// LOWER-LABEL: func.func private @__tad_fft_irfft_3x5_f32_8
// LOWER: call @tad_ducc0_fft
// DIFF-LABEL: func.func private @irfft_vjp
// DIFF: %[[S:.*]] = "tad.fft"(%arg1) {fft_lengths = array<i64: 8>, fft_type = "RFFT"} : (tensor<3x8xf32>) -> tensor<3x5xcomplex<f32>>
// DIFF: arith.constant dense<[1.250000e-01, 2.500000e-01, 2.500000e-01, 2.500000e-01, 1.250000e-01]> : tensor<5xf32>
// DIFF: arith.negf
// DIFF: return
func.func @irfft(%x: tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32> {
  %0 = "tad.fft"(%x) {fft_type = "IRFFT", fft_lengths = array<i64: 8>} : (tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>
  return %0 : tensor<3x8xf32>
}
func.func private @irfft_vjp(tensor<3x5xcomplex<f32>>, tensor<3x8xf32>) -> (tensor<3x8xf32>, tensor<3x5xcomplex<f32>>)
    attributes {tad.vjp = {of = @irfft, wrt = array<i64: 0>}}

// -----

// The FFT is a symmetric matrix: its transpose is itself.
// DIFF-LABEL: func.func private @fft2_vjp
// DIFF: %[[G:.*]] = "tad.fft"(%arg1) {fft_lengths = array<i64: 4, 5>, fft_type = "FFT"} : (tensor<4x5xcomplex<f64>>) -> tensor<4x5xcomplex<f64>>
// DIFF: return %{{.*}}, %[[G]]
func.func @fft2(%x: tensor<4x5xcomplex<f64>>) -> tensor<4x5xcomplex<f64>> {
  %0 = "tad.fft"(%x) {fft_type = "FFT", fft_lengths = array<i64: 4, 5>} : (tensor<4x5xcomplex<f64>>) -> tensor<4x5xcomplex<f64>>
  return %0 : tensor<4x5xcomplex<f64>>
}
func.func private @fft2_vjp(tensor<4x5xcomplex<f64>>, tensor<4x5xcomplex<f64>>) -> (tensor<4x5xcomplex<f64>>, tensor<4x5xcomplex<f64>>)
    attributes {tad.vjp = {of = @fft2, wrt = array<i64: 0>}}
