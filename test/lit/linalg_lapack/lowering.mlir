// tad-lower-to-linalg of the LAPACK ops: the op becomes a call of a kernel on flat
// row-major buffers (the operands read only, the results freshly allocated), and the
// kernel, built once per module and signature, loops over the batch and calls the
// LAPACK/BLAS routine through pointers (scipy's OpenBLAS, resolved by the runtime).
// Workspaces are sized by the routine's own query (lwork = -1) at run time; a failed
// factorization fills its matrix with NaNs.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @cholesky
// CHECK: %[[IN:.*]] = bufferization.to_buffer %{{.*}} read_only : tensor<4x3x3xf64> to memref<4x3x3xf64>
// CHECK: %[[FLAT_IN:.*]] = memref.collapse_shape %[[IN]] {{\[\[}}0, 1, 2]] : memref<4x3x3xf64> into memref<36xf64>
// CHECK: %[[OUT:.*]] = memref.alloc() : memref<4x3x3xf64>
// CHECK: %[[FLAT_OUT:.*]] = memref.collapse_shape %[[OUT]]
// CHECK: call @[[KERNEL:__tad_cholesky_4x3x3_f64]](%[[FLAT_IN]], %[[FLAT_OUT]]) : (memref<36xf64>, memref<36xf64>) -> ()
// CHECK: %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable
// CHECK: return %[[R]]
// CHECK: func.func private @[[KERNEL]](%[[A:.*]]: memref<36xf64>, %[[L:.*]]: memref<36xf64>)
// Row-major lower is column-major upper: uplo = 'U' (85).
// CHECK: arith.constant 85 : i8
// CHECK: memref.copy %[[A]], %[[L]]
// CHECK: scf.for
// CHECK: call @tad_lapack_dpotrf(
// CHECK: arith.cmpi ne
// CHECK: scf.if
// CHECK: arith.constant 0x7FF8000000000000 : f64
// CHECK: func.func private @tad_lapack_dpotrf(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @cholesky(%a: tensor<4x3x3xf64>) -> tensor<4x3x3xf64> {
  %0 = "tad.cholesky"(%a) : (tensor<4x3x3xf64>) -> tensor<4x3x3xf64>
  return %0 : tensor<4x3x3xf64>
}

// -----

// Two ops of one signature share one kernel.
// CHECK-LABEL: func.func @twice
// CHECK: call @[[KERNEL:__tad_cholesky_3x3_f32]](
// CHECK: call @[[KERNEL]](
// CHECK: func.func private @[[KERNEL]](
// CHECK: call @tad_lapack_spotrf(
// CHECK-NOT: func.func private @__tad_cholesky
func.func @twice(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<3x3xf32>) {
  %0 = "tad.cholesky"(%a) : (tensor<3x3xf32>) -> tensor<3x3xf32>
  %1 = "tad.cholesky"(%b) : (tensor<3x3xf32>) -> tensor<3x3xf32>
  return %0, %1 : tensor<3x3xf32>, tensor<3x3xf32>
}

// -----

// A left solve with a row-major lower matrix is a right solve with a column-major
// upper one: side = 'R' (82), uplo = 'U' (85), BLAS trsm, no copy of a.
// CHECK-LABEL: func.func private @__tad_triangular_solve_3x3_f64_1100_3x2
// CHECK-DAG: arith.constant 82 : i8
// CHECK-DAG: arith.constant 85 : i8
// CHECK: memref.copy
// CHECK: call @tad_lapack_dtrsm(
func.func @triangular_solve(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %0 = "tad.triangular_solve"(%a, %b) {left_side = 1 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}

// -----

// General solve: LU of the row-major a (column-major aᵀ), then getrs with trans = 'T' (84).
// CHECK-LABEL: func.func private @__tad_solve_2x3x3_f32_0_2x3x1
// CHECK: arith.constant 84 : i8
// CHECK: scf.for
// CHECK: call @tad_lapack_sgetrf(
// CHECK: call @tad_lapack_sgetrs(
// CHECK: scf.if
func.func @solve(%a: tensor<2x3x3xf32>, %b: tensor<2x3x1xf32>) -> tensor<2x3x1xf32> {
  %0 = "tad.solve"(%a, %b) {transpose_a = 0 : i64} : (tensor<2x3x3xf32>, tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// LU: a transposing copy in and out, getrf, 0-based pivots and the permutation they make.
// CHECK-LABEL: func.func @lu
// CHECK: call @__tad_lu_4x3_f64(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) : (memref<12xf64>, memref<12xf64>, memref<3xi32>, memref<4xi32>) -> ()
// CHECK: func.func private @__tad_lu_4x3_f64
// CHECK: call @tad_lapack_dgetrf(
// CHECK: arith.subi
func.func @lu(%a: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>) {
  %0:3 = "tad.lu"(%a) : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>)
  return %0#0, %0#1, %0#2 : tensor<4x3xf64>, tensor<3xi32>, tensor<4xi32>
}

// -----

// QR: both routines asked for their workspace first (lwork = -1), one workspace of the larger.
// CHECK-LABEL: func.func private @__tad_qr_4x3_f64_0
// CHECK: arith.constant -1 : i32
// CHECK: call @tad_lapack_dgeqrf(
// CHECK: call @tad_lapack_dorgqr(
// CHECK: arith.maxsi
// CHECK: memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: scf.for
// CHECK: call @tad_lapack_dgeqrf(
// CHECK: call @tad_lapack_dorgqr(
func.func @qr(%a: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x3xf64>) {
  %0:2 = "tad.qr"(%a) {full_matrices = 0 : i64} : (tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<3x3xf64>)
  return %0#0, %0#1 : tensor<4x3xf64>, tensor<3x3xf64>
}

// -----

// eigh: divide and conquer (syevd), whose query sizes a float and an integer workspace.
// CHECK-LABEL: func.func private @__tad_eigh_3x3_f64_1
// CHECK: call @tad_lapack_dsyevd(
// CHECK: memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: memref.alloc(%{{.*}}) : memref<?xi32>
// CHECK: scf.for
// CHECK: call @tad_lapack_dsyevd(
func.func @eigh(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>) {
  %0:2 = "tad.eigh"(%a) {lower = 1 : i64} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>)
  return %0#0, %0#1 : tensor<3x3xf64>, tensor<3xf64>
}

// -----

// SVD: gesdd on the row-major matrix as it lies (its transpose, column-major): jobz = 'S' (83).
// CHECK-LABEL: func.func private @__tad_svd_2x3_f32_0
// CHECK: arith.constant 83 : i8
// CHECK: call @tad_lapack_sgesdd(
// CHECK: scf.for
// CHECK: call @tad_lapack_sgesdd(
func.func @svd(%a: tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2x3xf32>) {
  %0:3 = "tad.svd"(%a) {full_matrices = 0 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<2x3xf32>)
  return %0#0, %0#1, %0#2 : tensor<2x2xf32>, tensor<2xf32>, tensor<2x3xf32>
}

// -----

// The permutation of LAPACK pivots needs no library: a loop of swaps.
// CHECK-LABEL: func.func private @__tad_lu_pivots_to_permutation_2x3_i32_4
// CHECK-NOT: call @
// CHECK: memref.store
// CHECK: return
func.func @pivots(%p: tensor<2x3xi32>) -> tensor<2x4xi32> {
  %0 = "tad.lu_pivots_to_permutation"(%p) {permutation_size = 4 : i64} : (tensor<2x3xi32>) -> tensor<2x4xi32>
  return %0 : tensor<2x4xi32>
}

// -----

// eig: geev of the row-major matrix copied transposed (geev of the matrix as it lies would
// give the left eigenvectors), jobvl = 'N' (78), jobvr = 'V' (86). The real routine's
// eigenvalues come in two parts and a conjugate pair's vectors in two real columns: each
// column reads its real part from itself (the second of a pair: its neighbour before) and
// its imaginary part from its neighbour after (the second of a pair: itself, negated). A matrix
// holding an inf or NaN (x - x is not 0) is not decomposed: it fails, and gets NaNs.
// CHECK-LABEL: func.func @eig
// CHECK: call @__tad_eig_2x3x3_f64(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<18xf64>, memref<6xcomplex<f64>>, memref<18xcomplex<f64>>) -> ()
// CHECK: func.func private @__tad_eig_2x3x3_f64
// CHECK-DAG: arith.constant 78 : i8
// CHECK-DAG: arith.constant 86 : i8
// CHECK: call @tad_lapack_dgeev(
// CHECK: memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %{{.*}} : memref<9xf64>
// CHECK: arith.subf
// CHECK: %[[FINITE:.*]] = arith.cmpf oeq
// CHECK: scf.if %[[FINITE]]
// CHECK: call @tad_lapack_dgeev(
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf olt
// CHECK: complex.create
// CHECK: arith.negf
// CHECK: complex.create
// CHECK: arith.cmpi ne
// CHECK: scf.if
// CHECK: func.func private @tad_lapack_dgeev(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr)
func.func @eig(%a: tensor<2x3x3xf64>) -> (tensor<2x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>) {
  %w, %v = "tad.eig"(%a) : (tensor<2x3x3xf64>) -> (tensor<2x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>)
  return %w, %v : tensor<2x3xcomplex<f64>>, tensor<2x3x3xcomplex<f64>>
}
