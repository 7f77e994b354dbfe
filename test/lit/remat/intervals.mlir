// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=480000 tier=intervals" | FileCheck %s
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat-report=%t.json --tad-remat="budget=480000 tier=intervals" -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=300000 tier=intervals copies=2 work-limit=2.5" --verify-diagnostics -o /dev/null
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=360964 tier=intervals copies=2 work-limit=2.5" -o /dev/null
// RUN: not autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat="budget=370000 tier=exact" -o /dev/null 2>&1 | FileCheck %s --check-prefix=EXACT
// RUN: autodiff-opt %s --tad-differentiate --tad-simplify --tad-remat-report=%t.auto.json --tad-remat=budget=370000 -o /dev/null
// RUN: FileCheck %s --check-prefix=AUTO < %t.auto.json

// The intervals tier (MOCCASIN's retention intervals on CP-SAT) on three
// residual dense+tanh layers (256x64 activations; no chain: each layer's
// input is read by the next layer and by the residual sum). Store-all needs
// 541316 bytes as the plan counts them. Under 480000 bytes the cheapest
// schedule recomputes the first residual sum, x + tanh(x @ w0), from the
// tanh it keeps, where the backward sweep reads it: the exact tier's
// schedule, proven optimal here too. 300000 bytes is below the lower bound
// every schedule peaks at or above, 360964 bytes, which the error names as
// proven (the tier reaches it, with at most two runs of a value and 2.5
// deterministic seconds of CP-SAT) and the pass then accepts.
//
// At 370000 bytes every plan of the exact tier overshoots once the function
// is rewritten to run it (rewriting changes what elementwise fusion merges):
// it stops at 426564 bytes. tier=auto then tries the min-cut tier's plans,
// which fit once rewritten.

// CHECK-LABEL: func.func private @residual_vjp
// CHECK: %[[T:.*]] = math.tanh
// CHECK-NEXT: %[[H:.*]] = arith.addf %arg3, %[[T]]
// CHECK: "tad.dot_general"(%[[H]], %arg1)
// CHECK: %[[AGAIN:.*]] = arith.addf %arg3, %[[T]]
// CHECK: "tad.dot_general"(%[[AGAIN]],
// CHECK: return

// REPORT: "function": "residual_vjp"
// REPORT: "tier": "intervals"
// REPORT: "status": "optimal"
// REPORT: "store_all_peak_bytes": 541316

// EXACT: error: no schedule of @residual_vjp keeps peak live bytes within the budget of 370000 bytes; the smallest feasible budget found is 426564 bytes (the exact tier did not prove it minimal)

// AUTO: "function": "residual_vjp"
// AUTO: "tier": "mincut"

// expected-error@+1 {{no schedule of @residual_vjp keeps peak live bytes within the budget of 300000 bytes; the smallest feasible budget is 360964 bytes}}
func.func @residual(%w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>, %w2: tensor<64x64xf32>, %x: tensor<256x64xf32>) -> tensor<f32> {
  %z0 = "tad.dot_general"(%x, %w0) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %t0 = math.tanh %z0 : tensor<256x64xf32>
  %h0 = arith.addf %x, %t0 : tensor<256x64xf32>
  %z1 = "tad.dot_general"(%h0, %w1) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %t1 = math.tanh %z1 : tensor<256x64xf32>
  %h1 = arith.addf %h0, %t1 : tensor<256x64xf32>
  %z2 = "tad.dot_general"(%h1, %w2) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<256x64xf32>, tensor<64x64xf32>) -> tensor<256x64xf32>
  %t2 = math.tanh %z2 : tensor<256x64xf32>
  %h2 = arith.addf %h1, %t2 : tensor<256x64xf32>
  %s = "tad.reduce_sum"(%h2) {dimensions = array<i64: 0, 1>} : (tensor<256x64xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
func.func private @residual_vjp(tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<256x64xf32>, tensor<f32>) -> (tensor<f32>, tensor<64x64xf32>, tensor<64x64xf32>, tensor<64x64xf32>)
    attributes {tad.vjp = {of = @residual, wrt = array<i64: 0, 1, 2>}}
