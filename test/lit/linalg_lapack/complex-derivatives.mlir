// Derivatives of LAPACK ops on complex matrices: JAX's rules with conjugate transposes, and
// each vjp the transpose of its jvp under JAX's pairing Re(sum(ct * t)). A conjugate is
// tad.complex(tad.real(x), -tad.imag(x)).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// Hermitian eigenvalues are real: the jvp takes the real part of diag(vᴴ da v) (the products'
// real parts, once tad.real folds into the complex contraction); the vjp turns
// the real cotangent into a complex one and returns conj(v) diag(ct) vᵀ, read on a triangle.
// CHECK-LABEL: func.func private @eigh_jvp
// CHECK: "tad.eigh"(%arg0) {lower = 1 : i64} : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>)
// CHECK: arith.negf
// CHECK: "tad.dot_general"
// CHECK: %[[DW:.*]] = "tad.reduce_sum"(%{{.*}}) {dimensions = array<i64: 1>} : (tensor<3x3xf64>) -> tensor<3xf64>
// CHECK: return %{{.*}}, %[[DW]] : tensor<3xf64>, tensor<3xf64>
// CHECK-LABEL: func.func private @eigh_vjp
// CHECK: "tad.eigh"
// CHECK: "tad.complex"(%arg1, %{{.*}}) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xcomplex<f64>>
// CHECK: arith.negf
// CHECK: "tad.dot_general"
// CHECK: return %{{.*}} : tensor<3xf64>, tensor<3x3xcomplex<f64>>
func.func @eigh(%a: tensor<3x3xcomplex<f64>>) -> tensor<3xf64> {
  %v, %w = "tad.eigh"(%a) {lower = 1 : i64} : (tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3xf64>)
  return %w : tensor<3xf64>
}
func.func private @eigh_jvp(tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @eigh, wrt = array<i64: 0>}}
func.func private @eigh_vjp(tensor<3x3xcomplex<f64>>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3x3xcomplex<f64>>)
    attributes {tad.vjp = {of = @eigh, wrt = array<i64: 0>}}

// -----

// Cholesky: sigma l⁻ᴴ is conj(conj(sigma) l⁻ᵀ), a conjugate on each side of the right solve.
// CHECK-LABEL: func.func private @cholesky_jvp
// CHECK: %[[L:.*]] = "tad.cholesky"(%arg0)
// CHECK: %[[T:.*]] = "tad.triangular_solve"(%[[L]], %{{.*}}) {left_side = 0 : i64, lower = 1 : i64, transpose_a = 1 : i64, unit_diagonal = 0 : i64}
// CHECK: "tad.imag"(%[[T]])
// CHECK: arith.negf
// CHECK: "tad.triangular_solve"(%[[L]], %{{.*}}) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64}
func.func @cholesky(%a: tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>> {
  %0 = "tad.cholesky"(%a) : (tensor<3x3xcomplex<f32>>) -> tensor<3x3xcomplex<f32>>
  return %0 : tensor<3x3xcomplex<f32>>
}
func.func private @cholesky_jvp(tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
    attributes {tad.jvp = {of = @cholesky, wrt = array<i64: 0>}}
