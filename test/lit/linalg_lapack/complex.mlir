// Complex matrices: each LAPACK op lowers to the c/z routine of its real one (ungqr and heevd
// for orgqr and syevd); eigen and singular values are real. The kernels' layout tricks are the
// real ones: row-major a is column-major aᵀ (a plain transpose), except that eigh conjugates
// its copy (aᵀ = conj(a) for a Hermitian a) and both it and gesdd take a real workspace.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @cholesky
// CHECK: call @"[[KERNEL:__tad_cholesky_2x3x3_complex<f64>]]"(
// CHECK: func.func private @"[[KERNEL]]"(%{{.*}}: memref<18xcomplex<f64>>, %{{.*}}: memref<18xcomplex<f64>>)
// CHECK: call @tad_lapack_zpotrf(
// A failed factorization fills its matrix with complex NaNs.
// CHECK: %[[NAN:.*]] = arith.constant 0x7FF8000000000000 : f64
// CHECK: complex.create %[[NAN]]
func.func @cholesky(%a: tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xcomplex<f64>> {
  %0 = "tad.cholesky"(%a) : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x3xcomplex<f64>>
  return %0 : tensor<2x3x3xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @eigh
// CHECK: memref.alloc() : memref<3xf32>
// CHECK: func.func private @"__tad_eigh_3x3_complex<f32>_1"(%[[A:.*]]: memref<9xcomplex<f32>>, %{{.*}}: memref<9xcomplex<f32>>, %{{.*}}: memref<3xf32>)
// The workspace query: work (complex), rwork (real) and iwork.
// CHECK: call @tad_lapack_cheevd(
// CHECK: memref.load %[[A]]
// CHECK: complex.im
// CHECK: arith.negf
// CHECK: complex.create
// CHECK: call @tad_lapack_cheevd(
// CHECK: func.func private @tad_lapack_cheevd(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @eigh(%a: tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>) {
  %v, %w = "tad.eigh"(%a) {lower = 1 : i64} : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xf32>)
  return %v, %w : tensor<3x3xcomplex<f32>>, tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @svd
// CHECK: memref.alloc() : memref<3xf64>
// CHECK: func.func private @"__tad_svd_4x3_complex<f64>_0"
// rwork: max(5·3·3 + 5·3, 2·4·3 + 2·3·3 + 3) = 60 reals.
// CHECK: memref.alloc() : memref<60xf64>
// CHECK: call @tad_lapack_zgesdd(
// CHECK: func.func private @tad_lapack_zgesdd(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @svd(%a: tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>) {
  %u, %s, %vt = "tad.svd"(%a) {full_matrices = 0 : i64} : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>)
  return %u, %s, %vt : tensor<4x3xcomplex<f64>>, tensor<3xf64>, tensor<3x3xcomplex<f64>>
}

// -----

// The workspace size that a complex query answers is its real part.
// CHECK-LABEL: func.func @qr
// CHECK: call @tad_lapack_zgeqrf(
// CHECK: call @tad_lapack_zungqr(
// CHECK: complex.re
// CHECK: arith.fptosi
func.func @qr(%a: tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>) {
  %q, %r = "tad.qr"(%a) {full_matrices = 0 : i64} : (tensor<4x3xcomplex<f64>>) -> (tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>)
  return %q, %r : tensor<4x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>
}

// -----

// CHECK-LABEL: func.func @solves
// CHECK: func.func private @"__tad_triangular_solve_3x3_complex<f32>_1100_3x2"
// alpha = 1 + 0i
// CHECK: complex.create
// CHECK: call @tad_lapack_ctrsm(
// CHECK: call @tad_lapack_cgetrf(
// CHECK: call @tad_lapack_cgetrs(
// CHECK: call @tad_lapack_cgetrf(
func.func @solves(%a: tensor<3x3xcomplex<f32>>, %b: tensor<3x2xcomplex<f32>>) -> (tensor<3x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<3x3xcomplex<f32>>) {
  %0 = "tad.triangular_solve"(%a, %b) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64} : (tensor<3x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %1 = "tad.solve"(%a, %b) {transpose_a = 0 : i64} : (tensor<3x3xcomplex<f32>>, tensor<3x2xcomplex<f32>>) -> tensor<3x2xcomplex<f32>>
  %lu, %piv, %perm = "tad.lu"(%a) : (tensor<3x3xcomplex<f32>>) -> (tensor<3x3xcomplex<f32>>, tensor<3xi32>, tensor<3xi32>)
  return %0, %1, %lu : tensor<3x2xcomplex<f32>>, tensor<3x2xcomplex<f32>>, tensor<3x3xcomplex<f32>>
}

// -----

// eig of a complex matrix: cgeev writes the eigenvalues straight into the result and takes a
// real workspace of 2n; its eigenvectors are copied out of the column-major matrix.
// CHECK-LABEL: func.func @eig
// CHECK: func.func private @"__tad_eig_3x3_complex<f32>"(%{{.*}}: memref<9xcomplex<f32>>, %{{.*}}: memref<3xcomplex<f32>>, %{{.*}}: memref<9xcomplex<f32>>)
// CHECK: memref.alloc() : memref<6xf32>
// CHECK: call @tad_lapack_cgeev(
// CHECK: scf.for
// CHECK: call @tad_lapack_cgeev(
// CHECK-NOT: arith.cmpf
// CHECK: func.func private @tad_lapack_cgeev(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @eig(%a: tensor<3x3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>) {
  %w, %v = "tad.eig"(%a) : (tensor<3x3xcomplex<f32>>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
  return %w, %v : tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>
}
