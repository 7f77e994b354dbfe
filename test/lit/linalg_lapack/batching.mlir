// tad-batch of the LAPACK ops: the mapped axis joins the batch dims; a solve whose
// right-hand side alone is mapped solves once with the rows side by side (one
// factorization), not once per row.
// RUN: autodiff-opt %s --split-input-file --tad-batch | FileCheck %s

// CHECK-LABEL: func.func private @cholesky_vmap
// CHECK-SAME: (%[[A:.*]]: tensor<5x2x3x3xf64>)
// CHECK: "tad.cholesky"(%[[A]]) : (tensor<5x2x3x3xf64>) -> tensor<5x2x3x3xf64>
func.func @cholesky(%a: tensor<2x3x3xf64>) -> tensor<2x3x3xf64> {
  %0 = "tad.cholesky"(%a) : (tensor<2x3x3xf64>) -> tensor<2x3x3xf64>
  return %0 : tensor<2x3x3xf64>
}
func.func private @cholesky_vmap(tensor<5x2x3x3xf64>) -> tensor<5x2x3x3xf64>
    attributes {tad.vmap = {of = @cholesky, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @svd_vmap
// CHECK: "tad.svd"(%{{.*}}) {full_matrices = 0 : i64} : (tensor<5x4x3xf32>) -> (tensor<5x4x3xf32>, tensor<5x3xf32>, tensor<5x3x3xf32>)
func.func @svd(%a: tensor<4x3xf32>) -> tensor<3xf32> {
  %0:3 = "tad.svd"(%a) {full_matrices = 0 : i64} : (tensor<4x3xf32>) -> (tensor<4x3xf32>, tensor<3xf32>, tensor<3x3xf32>)
  return %0#1 : tensor<3xf32>
}
func.func private @svd_vmap(tensor<5x4x3xf32>) -> tensor<5x3xf32>
    attributes {tad.vmap = {of = @svd, in_axes = array<i64: 0>, out_axes = array<i64: 0>}}

// -----

// An unmapped matrix with mapped right-hand sides: one solve of 5 x 2 columns.
// CHECK-LABEL: func.func private @solve_vmap
// CHECK-SAME: (%[[A:.*]]: tensor<3x3xf64>, %[[B:.*]]: tensor<5x3x2xf64>)
// CHECK: %[[T:.*]] = "tad.transpose"(%[[B]]) {permutation = array<i64: 1, 0, 2>} : (tensor<5x3x2xf64>) -> tensor<3x5x2xf64>
// CHECK: %[[R:.*]] = "tad.reshape"(%[[T]]) : (tensor<3x5x2xf64>) -> tensor<3x10xf64>
// CHECK: %[[X:.*]] = "tad.solve"(%[[A]], %[[R]]) {transpose_a = 0 : i64} : (tensor<3x3xf64>, tensor<3x10xf64>) -> tensor<3x10xf64>
// CHECK: "tad.reshape"(%[[X]]) : (tensor<3x10xf64>) -> tensor<3x5x2xf64>
// CHECK: "tad.transpose"
func.func @solve(%a: tensor<3x3xf64>, %b: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %0 = "tad.solve"(%a, %b) {transpose_a = 0 : i64} : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
func.func private @solve_vmap(tensor<3x3xf64>, tensor<5x3x2xf64>) -> tensor<5x3x2xf64>
    attributes {tad.vmap = {of = @solve, in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>}}

// -----

// A right-side triangular solve takes the mapped rows as more rows of b.
// CHECK-LABEL: func.func private @right_vmap
// CHECK: "tad.triangular_solve"(%{{.*}}, %{{.*}}) {left_side = 0 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64} : (tensor<3x3xf64>, tensor<8x3xf64>) -> tensor<8x3xf64>
func.func @right(%a: tensor<3x3xf64>, %b: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.triangular_solve"(%a, %b) {left_side = 0 : i64, lower = 1 : i64, transpose_a = 0 : i64, unit_diagonal = 0 : i64} : (tensor<3x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}
func.func private @right_vmap(tensor<3x3xf64>, tensor<4x2x3xf64>) -> tensor<4x2x3xf64>
    attributes {tad.vmap = {of = @right, in_axes = array<i64: -1, 0>, out_axes = array<i64: 0>}}

// -----

// Both mapped: the matrices are repeated per row.
// CHECK-LABEL: func.func private @both_vmap
// CHECK: "tad.solve"(%{{.*}}, %{{.*}}) {transpose_a = 1 : i64} : (tensor<4x3x3xf64>, tensor<4x3x1xf64>) -> tensor<4x3x1xf64>
func.func @both(%a: tensor<3x3xf64>, %b: tensor<3x1xf64>) -> tensor<3x1xf64> {
  %0 = "tad.solve"(%a, %b) {transpose_a = 1 : i64} : (tensor<3x3xf64>, tensor<3x1xf64>) -> tensor<3x1xf64>
  return %0 : tensor<3x1xf64>
}
func.func private @both_vmap(tensor<4x3x3xf64>, tensor<4x3x1xf64>) -> tensor<4x3x1xf64>
    attributes {tad.vmap = {of = @both, in_axes = array<i64: 0, 0>, out_axes = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @eig_vmap
// CHECK: "tad.eig"(%{{.*}}) : (tensor<4x3x3xf32>) -> (tensor<4x3xcomplex<f32>>, tensor<4x3x3xcomplex<f32>>)
func.func @eig(%a: tensor<3x3xf32>) -> tensor<3xcomplex<f32>> {
  %w, %v = "tad.eig"(%a) : (tensor<3x3xf32>) -> (tensor<3xcomplex<f32>>, tensor<3x3xcomplex<f32>>)
  return %w : tensor<3xcomplex<f32>>
}
func.func private @eig_vmap(tensor<3x4x3xf32>) -> tensor<4x3xcomplex<f32>>
    attributes {tad.vmap = {of = @eig, in_axes = array<i64: 1>, out_axes = array<i64: 0>}}
