// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=400000 tier=chain" | FileCheck %s
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat-report=%t.json --tad-remat="budget=400000 tier=chain" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=360000 tier=chain" --verify-diagnostics -o /dev/null

// Multi-level checkpointing: eight dense+tanh layers on 256x64 activations
// (store-all needs 672516 bytes). Under 400000 bytes the chain tier's
// dynamic program keeps layers 5 and 8 from the forward; before the backward
// sweep reads layer 4 it recomputes layers 1-4 from %x in one sweep and keeps
// layer 3's value on the way, a checkpoint of its own that the sweep serves
// later reads from, so layer 3 is never recomputed again; layers 1 and 2 are
// (from %x) when their turn comes. Under 360000 bytes nothing fits: the
// chain tier's floor, 377604 bytes, is the lower bound every schedule peaks
// at or above (tensorad.passes.remat.bound), so the error names it as proven.

// CHECK-LABEL: func.func private @deep_vjp
// CHECK-COUNT-8: math.tanh
// CHECK: "tad.broadcast_in_dim"(%arg9)
// CHECK: %[[Z0:.*]] = "tad.dot_general"(%arg8, %arg0)
// CHECK-NEXT: %[[H0:.*]] = math.tanh %[[Z0]]
// CHECK-NEXT: %[[Z1:.*]] = "tad.dot_general"(%[[H0]], %arg1)
// CHECK-NEXT: %[[H1:.*]] = math.tanh %[[Z1]]
// CHECK-NEXT: %[[Z2:.*]] = "tad.dot_general"(%[[H1]], %arg2)
// CHECK-NEXT: %[[H2:.*]] = math.tanh %[[Z2]]
// CHECK-NEXT: %[[Z3:.*]] = "tad.dot_general"(%[[H2]], %arg3)
// CHECK-NEXT: %[[H3:.*]] = math.tanh %[[Z3]]
// CHECK: "tad.dot_general"(%[[H3]],
// CHECK: "tad.dot_general"(%[[H2]],
// CHECK-NOT: "tad.dot_general"(%{{.*}}, %arg2) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>}
// CHECK: "tad.dot_general"(%arg8, %arg0)
// CHECK: "tad.dot_general"(%arg8, %arg0)
// CHECK: return

// REPORT: "function": "deep_vjp"
// REPORT: "tier": "chain"
// REPORT: "store_all_peak_bytes": 672516
// REPORT: "predicted_peak_bytes": 393860

// expected-error@+1 {{no schedule of @deep_vjp keeps peak live bytes within the budget of 360000 bytes; the smallest feasible budget is 377604 bytes}}
func.func @deep(%w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>, %w3: tensor<64x64xf32>, %w4: tensor<64x64xf32>, %w5: tensor<64x64xf32>, %w6: tensor<64x64xf32>, %w7: tensor<64x64xf32>, %x: tensor<256x64xf32>) -> tensor<f32> {
  %z0 = "tad.dot_general"(%x, %w0) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h0 = math.tanh %z0 : tensor<256x64xf32>
  %z1 = "tad.dot_general"(%h0, %w1) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h1 = math.tanh %z1 : tensor<256x64xf32>
  %z2 = "tad.dot_general"(%h1, %w2) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h2 = math.tanh %z2 : tensor<256x64xf32>
  %z3 = "tad.dot_general"(%h2, %w3) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h3 = math.tanh %z3 : tensor<256x64xf32>
  %z4 = "tad.dot_general"(%h3, %w4) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h4 = math.tanh %z4 : tensor<256x64xf32>
  %z5 = "tad.dot_general"(%h4, %w5) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h5 = math.tanh %z5 : tensor<256x64xf32>
  %z6 = "tad.dot_general"(%h5, %w6) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h6 = math.tanh %z6 : tensor<256x64xf32>
  %z7 = "tad.dot_general"(%h6, %w7) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %h7 = math.tanh %z7 : tensor<256x64xf32>
  %s = "tad.reduce_sum"(%h7) {dimensions = array<i64: 0, 1>} : (tensor<256x64xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @deep_vjp(tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<256x64xf32>, tensor<f32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>)
    attributes {tad.vjp = {of = @deep, wrt = array<i64: 0, 1, 2, 3, 4, 5, 6, 7>}}
