// Derivatives of the LAPACK ops (JAX's rules): solves with the factors, never an
// unrolled factorization. Each op appears once, the primal's.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// Cholesky, reverse: ct_a = L⁻ᵀ φ(Lᵀ ct) L⁻¹ (two triangular solves), kept on the lower
// triangle the op reads. Forward: dL = L φ(L⁻¹ dA L⁻ᵀ).
// CHECK-LABEL: func.func private @cholesky_vjp
// CHECK: %[[L:.*]] = "tad.cholesky"(%arg0)
// CHECK-NOT: "tad.cholesky"
// CHECK: "tad.dot_general"(%[[L]], %arg1) {{{.*}}lhs_contracting_dimensions = array<i64: 0>
// CHECK: %[[X:.*]] = "tad.triangular_solve"(%[[L]], %{{.*}}) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 1 : i64, unit_diagonal = 0 : i64}
// CHECK: "tad.triangular_solve"(%[[L]], %[[X]]) {left_side = 0 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64}
// CHECK-LABEL: func.func private @cholesky_jvp
// CHECK: %[[L:.*]] = "tad.cholesky"(%arg0)
// CHECK: %[[T:.*]] = "tad.triangular_solve"(%[[L]], %{{.*}}) {left_side = 0 : i64, lower = 1 : i64, transpose_a = 1 : i64, unit_diagonal = 0 : i64}
// CHECK: "tad.triangular_solve"(%[[L]], %[[T]]) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64}
// CHECK: "tad.dot_general"(%[[L]], %{{.*}})
func.func @cholesky(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %0 = "tad.cholesky"(%a) : (tensor<3x3xf64>) -> tensor<3x3xf64>
  return %0 : tensor<3x3xf64>
}
func.func private @cholesky_vjp(tensor<3x3xf64>, tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>)
    attributes {tad.vjp = {of = @cholesky, wrt = array<i64: 0>}}
func.func private @cholesky_jvp(tensor<3x3xf64>, tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>)
    attributes {tad.jvp = {of = @cholesky, wrt = array<i64: 0>}}

// -----

// solve: ct_b = a⁻ᵀ ct (a solve with the transpose), ct_a = -ct_b xᵀ; dx = a⁻¹ (db - da x).
// CHECK-LABEL: func.func private @solve_vjp
// CHECK: %[[X:.*]] = "tad.solve"(%arg0, %arg1) {transpose_a = 0 : i64}
// CHECK: %[[CTB:.*]] = "tad.solve"(%arg0, %arg2) {transpose_a = 1 : i64}
// CHECK: %[[P:.*]] = "tad.dot_general"(%[[CTB]], %[[X]]) {{{.*}}lhs_contracting_dimensions = array<i64: 1>{{.*}}rhs_contracting_dimensions = array<i64: 1>}
// CHECK: %[[CTA:.*]] = arith.negf %[[P]]
// CHECK: return %[[X]], %[[CTA]], %[[CTB]]
// CHECK-LABEL: func.func private @solve_jvp
// CHECK: %[[X:.*]] = "tad.solve"(%arg0, %arg1) {transpose_a = 0 : i64}
// CHECK: "tad.dot_general"(%arg2, %[[X]])
// CHECK: %[[DX:.*]] = "tad.solve"(%arg0, %{{.*}}) {transpose_a = 0 : i64}
// CHECK: return %[[X]], %[[DX]]
func.func @solve(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %0 = "tad.solve"(%a, %b) {transpose_a = 0 : i64} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
func.func private @solve_vjp(tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x3xf64>, tensor<3x2xf64>)
    attributes {tad.vjp = {of = @solve, wrt = array<i64: 0, 1>}}
func.func private @solve_jvp(tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x3xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>)
    attributes {tad.jvp = {of = @solve, wrt = array<i64: 0, 1>}}

// -----

// Triangular solve: ct_b solves with op(a) transposed; ct_a = -ct_b xᵀ on a's triangle.
// CHECK-LABEL: func.func private @trsm_vjp
// CHECK: %[[X:.*]] = "tad.triangular_solve"(%arg0, %arg1) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64}
// CHECK: %[[CTB:.*]] = "tad.triangular_solve"(%arg0, %arg2) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 1 : i64, unit_diagonal = 0 : i64}
// CHECK: "tad.dot_general"(%[[CTB]], %[[X]])
// CHECK: arith.select
// CHECK: return %[[X]], %{{.*}}, %[[CTB]]
func.func @trsm(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %0 = "tad.triangular_solve"(%a, %b) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
func.func private @trsm_vjp(tensor<3x3xf64>, tensor<3x2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3x3xf64>, tensor<3x2xf64>)
    attributes {tad.vjp = {of = @trsm, wrt = array<i64: 0, 1>}}

// -----

// LU: the transpose of JAX's jvp: a solve with uᵀ from the right, one with the unit lower
// lᵀ from the left, then the rows permuted back (a one-hot matrix, transposed).
// CHECK-LABEL: func.func private @lu_vjp
// CHECK: %[[F:.*]]:3 = "tad.lu"(%arg0)
// CHECK: %[[A:.*]] = "tad.triangular_solve"(%{{.*}}, %{{.*}}) {left_side = 0 : i64, lower = 0 : i64, transpose_a = 1 : i64, unit_diagonal = 0 : i64}
// CHECK: %[[B:.*]] = "tad.triangular_solve"(%{{.*}}, %[[A]]) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 1 : i64, unit_diagonal = 1 : i64}
// CHECK: arith.cmpi eq
// CHECK: %[[G:.*]] = "tad.dot_general"(%{{.*}}, %[[B]]) {{{.*}}lhs_contracting_dimensions = array<i64: 0>{{.*}}rhs_contracting_dimensions = array<i64: 0>}
// CHECK: return %[[F]]#0, %[[G]]
func.func @lu(%a: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %0:3 = "tad.lu"(%a) : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<3xi32>)
  return %0#0 : tensor<3x3xf64>
}
func.func private @lu_vjp(tensor<3x3xf64>, tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3x3xf64>)
    attributes {tad.vjp = {of = @lu, wrt = array<i64: 0>}}

// -----

// QR (reduced, m >= n): the cotangent of r reaches a through one solve with rᵀ from the right.
// CHECK-LABEL: func.func private @qr_vjp
// CHECK: %[[F:.*]]:2 = "tad.qr"(%arg0) {full_matrices = 0 : i64}
// CHECK: "tad.dot_general"(%arg1, %[[F]]#1)
// CHECK: "tad.dot_general"(%[[F]]#0, %{{.*}})
// CHECK: %[[G:.*]] = "tad.triangular_solve"(%[[F]]#1, %{{.*}}) {left_side = 0 : i64, lower = 0 : i64, transpose_a = 1 : i64, unit_diagonal = 0 : i64}
// CHECK: return %[[F]]#1, %[[G]]
func.func @qr(%a: tensor<4x3xf64>) -> tensor<3x3xf64> {
  %0:2 = "tad.qr"(%a) {full_matrices = 0 : i64} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x3xf64>)
  return %0#1 : tensor<3x3xf64>
}
func.func private @qr_vjp(tensor<4x3xf64>, tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @qr, wrt = array<i64: 0>}}

// -----

// eigh, eigenvalues only: ct_a = v diag(ct_w) vᵀ, on the lower triangle the op reads (no
// eigenvalue differences: no division).
// CHECK-LABEL: func.func private @eigh_vjp
// CHECK: %[[F:.*]]:2 = "tad.eigh"(%arg0) {lower = 1 : i64}
// CHECK-NOT: arith.divf
// CHECK: %[[M:.*]] = "tad.dot_general"(%[[F]]#0, %{{.*}})
// CHECK: "tad.dot_general"(%[[M]], %[[F]]#0) {{{.*}}lhs_contracting_dimensions = array<i64: 1>{{.*}}rhs_contracting_dimensions = array<i64: 1>}
// CHECK: arith.select
func.func @eigh(%a: tensor<3x3xf64>) -> tensor<3xf64> {
  %0:2 = "tad.eigh"(%a) {lower = 1 : i64} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>)
  return %0#1 : tensor<3xf64>
}
func.func private @eigh_vjp(tensor<3x3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
    attributes {tad.vjp = {of = @eigh, wrt = array<i64: 0>}}

// -----

// SVD, singular values only: ct_a = u diag(ct_s) vt.
// CHECK-LABEL: func.func private @svd_vjp
// CHECK: %[[F:.*]]:3 = "tad.svd"(%arg0) {full_matrices = 0 : i64}
// CHECK-NOT: "tad.transpose"
// CHECK: %[[M:.*]] = "tad.dot_general"(%[[F]]#0, %{{.*}})
// CHECK: %[[G:.*]] = "tad.dot_general"(%[[M]], %[[F]]#2)
// CHECK: return %[[F]]#1, %[[G]]
func.func @svd(%a: tensor<4x3xf64>) -> tensor<3xf64> {
  %0:3 = "tad.svd"(%a) {full_matrices = 0 : i64} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>, tensor<3x3xf64>)
  return %0#1 : tensor<3xf64>
}
func.func private @svd_vjp(tensor<4x3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @svd, wrt = array<i64: 0>}}

// -----

// SVD vectors, forward: the reciprocal differences of squared singular values.
// CHECK-LABEL: func.func private @svd_u_jvp
// CHECK: "tad.svd"(%arg0)
// CHECK: arith.divf
// CHECK-NOT: "tad.svd"
func.func @svd_u(%a: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0:3 = "tad.svd"(%a) {full_matrices = 0 : i64} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xf64>, tensor<3x3xf64>)
  return %0#0 : tensor<4x3xf64>
}
func.func private @svd_u_jvp(tensor<4x3xf64>, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>)
    attributes {tad.jvp = {of = @svd_u, wrt = array<i64: 0>}}

// -----

// eig, eigenvalues of a real matrix (JAX's rule): dw = diag(v⁻¹ da v) with the real tangent made
// complex, one solve and no eigenvalue differences; the vjp is its transpose, v⁻ᵀ diag(ct) vᵀ
// (a solve with the transpose), whose real part reaches the real matrix.
// CHECK-LABEL: func.func private @eigvals_vjp
// CHECK: %[[F:.*]]:2 = "tad.eig"(%arg0) : (tensor<3x3xf64>) -> (tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
// CHECK-NOT: "tad.eig"
// CHECK-NOT: arith.divf
// CHECK: %[[S:.*]] = "tad.solve"(%[[F]]#1, %{{.*}}) {transpose_a = 1 : i64}
// CHECK: %[[G:.*]] = "tad.real"(%[[S]]) : (tensor<3x3xcomplex<f64>>) -> tensor<3x3xf64>
// CHECK: return %[[F]]#0, %[[G]]
// CHECK-LABEL: func.func private @eigvals_jvp
// CHECK: %[[F:.*]]:2 = "tad.eig"(%arg0)
// CHECK: %[[T:.*]] = "tad.complex"(%arg1, %{{.*}}) : (tensor<3x3xf64>, tensor<3x3xf64>) -> tensor<3x3xcomplex<f64>>
// CHECK: "tad.solve"(%[[F]]#1, %[[T]]) {transpose_a = 0 : i64}
// CHECK-NOT: arith.divf
// CHECK: return %[[F]]#0, %{{.*}} : tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>
func.func @eigvals(%a: tensor<3x3xf64>) -> tensor<3xcomplex<f64>> {
  %w, %v = "tad.eig"(%a) : (tensor<3x3xf64>) -> (tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
  return %w : tensor<3xcomplex<f64>>
}
func.func private @eigvals_vjp(tensor<3x3xf64>, tensor<3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3x3xf64>)
    attributes {tad.vjp = {of = @eigvals, wrt = array<i64: 0>}}
func.func private @eigvals_jvp(tensor<3x3xf64>, tensor<3x3xf64>) -> (tensor<3xcomplex<f64>>, tensor<3xcomplex<f64>>)
    attributes {tad.jvp = {of = @eigvals, wrt = array<i64: 0>}}

// -----

// eig, eigenvectors (JAX's enable_eigvec_derivs rule): the reciprocal eigenvalue differences, and
// each column's correction that keeps LAPACK's normalization, through the position of its largest
// component (an argmax down the columns).
// CHECK-LABEL: func.func private @eigvecs_jvp
// CHECK: %[[F:.*]]:2 = "tad.eig"(%arg0)
// CHECK: "tad.solve"(%[[F]]#1, %arg1) {transpose_a = 0 : i64}
// CHECK: arith.divf
// CHECK: "tad.argmax"(%{{.*}}) {axis = 0 : i64} : (tensor<3x3xf64>) -> tensor<3xi64>
// CHECK-NOT: "tad.eig"
// CHECK: return %[[F]]#1, %{{.*}} : tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>
func.func @eigvecs(%a: tensor<3x3xcomplex<f64>>) -> tensor<3x3xcomplex<f64>> {
  %w, %v = "tad.eig"(%a) : (tensor<3x3xcomplex<f64>>) -> (tensor<3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
  return %v : tensor<3x3xcomplex<f64>>
}
func.func private @eigvecs_jvp(tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>) -> (tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
    attributes {tad.jvp = {of = @eigvecs, wrt = array<i64: 0>}}
