// Complex tensors lower through linalg: tad.complex, tad.real and tad.imag
// become generics over complex.create/re/im, data movement (transpose) keeps
// the complex elements, and convert-complex-to-llvm makes them struct fields.
// RUN: autodiff-opt %s --tad-lower-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// LINALG-LABEL: func.func @conjugate_transpose
// LINALG: linalg.transpose ins(%{{.*}} : tensor<2x3xcomplex<f64>>)
// LINALG: linalg.generic
// LINALG: complex.re %{{.*}} : complex<f64>
// LINALG: linalg.generic
// LINALG: complex.im %{{.*}} : complex<f64>
// LINALG: linalg.generic
// LINALG: complex.create %{{.*}}, %{{.*}} : complex<f64>
// LINALG-NOT: tad.
// LLVM-LABEL: llvm.func @conjugate_transpose
// LLVM: llvm.extractvalue %{{.*}}[1] : !llvm.struct<(f64, f64)>
// LLVM: llvm.fneg
// LLVM: llvm.insertvalue %{{.*}}[1] : !llvm.struct<(f64, f64)>
// LLVM-NOT: complex.
func.func @conjugate_transpose(%z: tensor<2x3xcomplex<f64>>) -> tensor<3x2xcomplex<f64>> {
  %0 = "tad.transpose"(%z) {permutation = array<i64: 1, 0>} : (tensor<2x3xcomplex<f64>>) -> tensor<3x2xcomplex<f64>>
  %1 = "tad.real"(%0) : (tensor<3x2xcomplex<f64>>) -> tensor<3x2xf64>
  %2 = "tad.imag"(%0) : (tensor<3x2xcomplex<f64>>) -> tensor<3x2xf64>
  %3 = arith.negf %2 : tensor<3x2xf64>
  %4 = "tad.complex"(%1, %3) : (tensor<3x2xf64>, tensor<3x2xf64>) -> tensor<3x2xcomplex<f64>>
  return %4 : tensor<3x2xcomplex<f64>>
}
