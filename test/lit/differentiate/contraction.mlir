// Reverse mode of tad.dot_general: each operand's cotangent is one dot_general
// of the result's cotangent with the other operand, arranged so that no
// transpose is needed whenever the operand's dims allow it.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// Matmul: dA = ct . B^T and dB = A^T . ct, exactly two dot_generals and no transpose.
// CHECK-LABEL: func.func private @matmul_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3x4xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2x4xf64>)
// CHECK-NOT: "tad.transpose"
// CHECK-NEXT: %[[OUT:.*]] = "tad.dot_general"(%[[A]], %[[B]])
// CHECK-NEXT: %[[DA:.*]] = "tad.dot_general"(%[[CT]], %[[B]]) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<2x4xf64>, tensor<3x4xf64>) -> tensor<2x3xf64>
// CHECK-NEXT: %[[DB:.*]] = "tad.dot_general"(%[[A]], %[[CT]]) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf64>, tensor<2x4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: return %[[OUT]], %[[DA]], %[[DB]]
func.func @matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func private @matmul_vjp(tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x4xf64>) -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<3x4xf64>)
    attributes {tad.vjp = {of = @matmul, wrt = array<i64: 0, 1>}}

// -----

// Batched matmul keeps the batch dimension leading on both sides: still no transpose.
// CHECK-LABEL: func.func private @batched_matmul_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<5x2x3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<5x3x4xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5x2x4xf64>)
// CHECK-NOT: "tad.transpose"
// CHECK-NEXT: "tad.dot_general"(%[[A]], %[[B]])
// CHECK-NEXT: %[[DA:.*]] = "tad.dot_general"(%[[CT]], %[[B]]) {lhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batching_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 2>} : (tensor<5x2x4xf64>, tensor<5x3x4xf64>) -> tensor<5x2x3xf64>
// CHECK-NEXT: %[[DB:.*]] = "tad.dot_general"(%[[A]], %[[CT]]) {lhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<5x2x3xf64>, tensor<5x2x4xf64>) -> tensor<5x3x4xf64>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @batched_matmul(%a: tensor<5x2x3xf64>, %b: tensor<5x3x4xf64>) -> tensor<5x2x4xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<5x2x3xf64>, tensor<5x3x4xf64>) -> tensor<5x2x4xf64>
  return %0 : tensor<5x2x4xf64>
}
func.func private @batched_matmul_vjp(tensor<5x2x3xf64>, tensor<5x3x4xf64>, tensor<5x2x4xf64>) -> (tensor<5x2x4xf64>, tensor<5x2x3xf64>, tensor<5x3x4xf64>)
    attributes {tad.vjp = {of = @batched_matmul, wrt = array<i64: 0, 1>}}

// -----

// Matvec: the matrix's cotangent is an outer product, the vector's a vecmat.
// CHECK-LABEL: func.func private @matvec_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3x4xf64>, %[[X:[a-zA-Z0-9_]+]]: tensor<4xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[DA:.*]] = "tad.dot_general"(%[[CT]], %[[X]]) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64>} : (tensor<3xf64>, tensor<4xf64>) -> tensor<3x4xf64>
// CHECK-NEXT: %[[DX:.*]] = "tad.dot_general"(%[[CT]], %[[A]]) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3xf64>, tensor<3x4xf64>) -> tensor<4xf64>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DX]]
func.func @matvec(%a: tensor<3x4xf64>, %x: tensor<4xf64>) -> tensor<3xf64> {
  %0 = "tad.dot_general"(%a, %x) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xf64>, tensor<4xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @matvec_vjp(tensor<3x4xf64>, tensor<4xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3x4xf64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @matvec, wrt = array<i64: 0, 1>}}

// -----

// Outer product: each cotangent contracts ct with the other vector.
// CHECK-LABEL: func.func private @outer_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<2xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3x2xf64>)
// CHECK: %[[DX:.*]] = "tad.dot_general"(%[[CT]], %[[Y]]) {{{.*}}lhs_contracting_dimensions = array<i64: 1>{{.*}}rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x2xf64>, tensor<2xf64>) -> tensor<3xf64>
// CHECK-NEXT: %[[DY:.*]] = "tad.dot_general"(%[[CT]], %[[X]]) {{{.*}}lhs_contracting_dimensions = array<i64: 0>{{.*}}rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x2xf64>, tensor<3xf64>) -> tensor<2xf64>
// CHECK-NEXT: return %{{.*}}, %[[DX]], %[[DY]]
func.func @outer(%x: tensor<3xf64>, %y: tensor<2xf64>) -> tensor<3x2xf64> {
  %0 = "tad.dot_general"(%x, %y) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64>, rhs_contracting_dimensions = array<i64>} : (tensor<3xf64>, tensor<2xf64>) -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
func.func private @outer_vjp(tensor<3xf64>, tensor<2xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<3xf64>, tensor<2xf64>)
    attributes {tad.vjp = {of = @outer, wrt = array<i64: 0, 1>}}

// -----

// Two contracting dims paired out of order: the contracted dims come back in
// the other operand's order, so one transpose restores each operand's layout.
// CHECK-LABEL: func.func private @tensordot_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3x2x4xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x5x3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2x5xf64>)
// CHECK: %[[PA:.*]] = "tad.dot_general"(%[[CT]], %[[B]]) {{{.*}}} : (tensor<2x5xf64>, tensor<4x5x3xf64>) -> tensor<2x4x3xf64>
// CHECK-NEXT: %[[DA:.*]] = "tad.transpose"(%[[PA]]) {permutation = array<i64: 2, 0, 1>} : (tensor<2x4x3xf64>) -> tensor<3x2x4xf64>
// CHECK-NEXT: %[[PB:.*]] = "tad.dot_general"(%[[CT]], %[[A]]) {{{.*}}} : (tensor<2x5xf64>, tensor<3x2x4xf64>) -> tensor<5x3x4xf64>
// CHECK-NEXT: %[[DB:.*]] = "tad.transpose"(%[[PB]]) {permutation = array<i64: 2, 0, 1>} : (tensor<5x3x4xf64>) -> tensor<4x5x3xf64>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @tensordot(%a: tensor<3x2x4xf64>, %b: tensor<4x5x3xf64>) -> tensor<2x5xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0, 2>, rhs_contracting_dimensions = array<i64: 2, 0>} : (tensor<3x2x4xf64>, tensor<4x5x3xf64>) -> tensor<2x5xf64>
  return %0 : tensor<2x5xf64>
}
func.func private @tensordot_vjp(tensor<3x2x4xf64>, tensor<4x5x3xf64>, tensor<2x5xf64>) -> (tensor<2x5xf64>, tensor<3x2x4xf64>, tensor<4x5x3xf64>)
    attributes {tad.vjp = {of = @tensordot, wrt = array<i64: 0, 1>}}

// -----

// A batch dimension in the middle of the operands: it leads in the result and
// in the cotangent, so each operand's cotangent is transposed back.
// CHECK-LABEL: func.func private @batch_in_middle_vjp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<3x2x4xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<4x2x5xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2x3x5xf64>)
// CHECK: %[[PA:.*]] = "tad.dot_general"(%[[CT]], %[[B]]) {lhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batching_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 2>} : (tensor<2x3x5xf64>, tensor<4x2x5xf64>) -> tensor<2x3x4xf64>
// CHECK-NEXT: %[[DA:.*]] = "tad.transpose"(%[[PA]]) {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x4xf64>) -> tensor<3x2x4xf64>
// CHECK-NEXT: %[[PB:.*]] = "tad.dot_general"(%[[CT]], %[[A]]) {lhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3x5xf64>, tensor<3x2x4xf64>) -> tensor<2x5x4xf64>
// CHECK-NEXT: %[[DB:.*]] = "tad.transpose"(%[[PB]]) {permutation = array<i64: 2, 0, 1>} : (tensor<2x5x4xf64>) -> tensor<4x2x5xf64>
// CHECK-NEXT: return %{{.*}}, %[[DA]], %[[DB]]
func.func @batch_in_middle(%a: tensor<3x2x4xf64>, %b: tensor<4x2x5xf64>) -> tensor<2x3x5xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64: 1>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x2x4xf64>, tensor<4x2x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}
func.func private @batch_in_middle_vjp(tensor<3x2x4xf64>, tensor<4x2x5xf64>, tensor<2x3x5xf64>) -> (tensor<2x3x5xf64>, tensor<3x2x4xf64>, tensor<4x2x5xf64>)
    attributes {tad.vjp = {of = @batch_in_middle, wrt = array<i64: 0, 1>}}
