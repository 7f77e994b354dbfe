// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify --tad-remat="budget=380000 tier=chain" | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify --tad-remat-report=%t.json --tad-remat="budget=380000 tier=chain" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// The chain tier on four dense+tanh layers (256x64 activations; store-all
// needs 410116 bytes): under 380000 bytes its dynamic program keeps layers
// 1, 3 and 4 and recomputes layer 2 (contraction and tanh, from layer 1's
// value) just before the backward sweep reads it.

// CHECK-LABEL: func.func private @chain_vjp
// CHECK: %[[H0:.*]] = math.tanh
// CHECK-COUNT-3: math.tanh
// CHECK: "tad.broadcast_in_dim"(%arg5)
// CHECK: %[[Z:.*]] = "tad.dot_general"(%[[H0]], %arg1)
// CHECK-NEXT: %[[H:.*]] = math.tanh %[[Z]]
// CHECK: "tad.dot_general"(%[[H]],
// CHECK: return

// REPORT: "function": "chain_vjp"
// REPORT: "tier": "chain"
// REPORT: "store_all_peak_bytes": 410116
// REPORT: "predicted_peak_bytes": 295364
func.func @chain(%w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>, %w3: tensor<64x64xf32>, %x: tensor<256x64xf32>) -> tensor<f32> {
  %z0 = "tad.dot_general"(%x, %w0) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h0 = math.tanh %z0 : tensor<256x64xf32>
  %z1 = "tad.dot_general"(%h0, %w1) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h1 = math.tanh %z1 : tensor<256x64xf32>
  %z2 = "tad.dot_general"(%h1, %w2) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h2 = math.tanh %z2 : tensor<256x64xf32>
  %z3 = "tad.dot_general"(%h2, %w3) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h3 = math.tanh %z3 : tensor<256x64xf32>
  %s = "tad.reduce_sum"(%h3) {dimensions = array<i64: 0, 1>} : (tensor<256x64xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @chain_vjp(tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<256x64xf32>, tensor<f32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>)
    attributes {tad.vjp = {of = @chain, wrt = array<i64: 0, 1, 2, 3>}}
