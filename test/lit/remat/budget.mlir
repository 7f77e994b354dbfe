// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat=budget=350000 | FileCheck %s
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat=budget=300000 --verify-diagnostics
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=300000 tier=chain" --verify-diagnostics
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat-report=%t.json --tad-remat=budget=350000 -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json

// Four dense+tanh layers on 256x64 activations: storing every activation needs
// 410116 bytes. Under 350000 bytes the cheapest schedule recomputes the first
// layer (its contraction and tanh) just before the backward sweep reaches it.
// 300000 bytes is below what any schedule needs, and the error says so: the
// function is small enough for the exact tier to certify the least budget,
// 311812 bytes (the loss, a result, is kept from its first run: no tier
// recomputes a result). The chain tier proves it too: its floor is the lower
// bound every schedule peaks at or above (tensorad.passes.remat.bound).

// CHECK-LABEL: func.func private @chain_vjp
// CHECK-COUNT-4: math.tanh
// CHECK: "tad.broadcast_in_dim"(%arg5)
// CHECK: %[[Z:.*]] = "tad.dot_general"(%arg4, %arg0)
// CHECK-NEXT: math.tanh %[[Z]]
// CHECK: return

// REPORT: "function": "chain_vjp"
// REPORT: "status": "optimal"
// REPORT: "store_all_peak_bytes": 410116
// REPORT: "predicted_peak_bytes": 278916

// expected-error@+1 {{no schedule of @chain_vjp keeps peak live bytes within the budget of 300000 bytes; the smallest feasible budget is 311812 bytes}}
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
