// RUN: autodiff-opt %s --tad-remat-report=%t.json --tad-remat=budget=384 -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: autodiff-opt %s --tad-remat=budget=383 --verify-diagnostics

// A loop holds more than its results: each iteration allocates what its body
// makes (sin and the product live at once: 2 x (32 + 64) bytes), and a carried
// value may be copied while the body still reads it (a second 32 + 64). With
// the loop's result (32 + 64): 384 bytes, the least budget any schedule meets.
// Counted as its results alone, a fuzzed scan's gradient measured 2,736 bytes
// against a budget of 1,910.

// REPORT: "function": "loop_body"
// REPORT: "store_all_peak_bytes": 384
// REPORT: "predicted_peak_bytes": 384

// expected-error@+1 {{no schedule of @loop_body keeps peak live bytes within the budget of 383 bytes; the smallest feasible budget is 384 bytes}}
func.func @loop_body(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<4xf64> {
    %s = math.sin %a : tensor<4xf64>
    %t = arith.mulf %s, %a : tensor<4xf64>
    scf.yield %t : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
