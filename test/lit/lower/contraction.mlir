// dot_general lowers to one linalg.contract (a generic for booleans or when nothing is
// contracted) reducing into a zero-filled init. Loops: batch, lhs free, contracting, then rhs
// free dims innermost (rows of rhs and of the result are walked contiguously); an rhs whose
// free dims are not last is transposed first. A named op keeps elementwise fusion from
// recomputing operand producers inside its loops.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @matmul
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<3x4xf32>)
// CHECK: %[[ZERO:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x4xf32>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: %[[R:.*]] = linalg.contract indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]] ins(%[[A]], %[[B]] : tensor<2x3xf32>, tensor<3x4xf32>) outs(%[[ZERO]] : tensor<2x4xf32>)
// CHECK: return %[[R]]
func.func @matmul(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-DAG: #[[$LHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$RHS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @batched_matmul
// CHECK: linalg.contract indexing_maps = [#[[$LHS]], #[[$RHS]], #[[$OUT]]] ins(%{{.*}}, %{{.*}} : tensor<5x2x3xf64>, tensor<5x3x4xf64>) outs(%{{.*}} : tensor<5x2x4xf64>)
func.func @batched_matmul(%a: tensor<5x2x3xf64>, %b: tensor<5x3x4xf64>) -> tensor<5x2x4xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>,
                                  lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>}
      : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
  return %0 : tensor<5x2x4xf64>
}

// -----

// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @vector_dot
// CHECK: linalg.contract indexing_maps = [#[[$IN]], #[[$IN]], #[[$OUT]]] ins(%{{.*}}, %{{.*}} : tensor<8xi32>, tensor<8xi32>) outs(%{{.*}} : tensor<i32>)
func.func @vector_dot(%a: tensor<8xi32>, %b: tensor<8xi32>) -> tensor<i32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<8xi32>, tensor<8xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

// CHECK-DAG: #[[$MAT:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$VEC:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @matvec
// CHECK: linalg.contract indexing_maps = [#[[$MAT]], #[[$VEC]], #[[$OUT]]] ins(%{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<3xf32>) outs(%{{.*}} : tensor<2xf32>)
func.func @matvec(%a: tensor<2x3xf32>, %x: tensor<3xf32>) -> tensor<2xf32> {
  %0 = "tad.dot_general"(%a, %x) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A times B transposed: B is laid out (contracting, free) by a transpose first.
// CHECK-LABEL: func.func @matmul_transposed_rhs
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32>, %[[B:.*]]: tensor<4x3xf32>)
// CHECK: %[[BT:.*]] = linalg.transpose ins(%[[B]] : tensor<4x3xf32>) outs(%{{.*}} : tensor<3x4xf32>) permutation = [1, 0]
// CHECK: linalg.contract {{.*}} ins(%[[A]], %[[BT]] : tensor<2x3xf32>, tensor<3x4xf32>)
func.func @matmul_transposed_rhs(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) -> tensor<2x4xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 1>}
      : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Booleans reduce with or/and, which linalg.contract cannot express: a generic.
// CHECK-LABEL: func.func @bool_matmul
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]}
// CHECK: arith.andi
// CHECK: arith.ori
func.func @bool_matmul(%a: tensor<2x3xi1>, %b: tensor<3x4xi1>) -> tensor<2x4xi1> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<2x3xi1>, tensor<3x4xi1>) -> tensor<2x4xi1>
  return %0 : tensor<2x4xi1>
}
