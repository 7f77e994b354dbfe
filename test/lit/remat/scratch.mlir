// RUN: autodiff-opt %s --tad-remat-report=%t.json --tad-remat=budget=6272 -o /dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: autodiff-opt %s --tad-remat=budget=6271 --verify-diagnostics

// The lowering of a contraction whose rhs is not laid out (batch, contracting,
// free) copies rhs first: 16x32xf32 = 2048 bytes, and 64 of alignment. While it
// runs, that copy is live with the 64x16xf32 result (4096 + 64 bytes): 6272
// bytes in all, the least budget any schedule meets.

// REPORT: "function": "transposed_rhs"
// REPORT: "store_all_peak_bytes": 6272
// REPORT: "predicted_peak_bytes": 6272

// expected-error@+1 {{no schedule of @transposed_rhs keeps peak live bytes within the budget of 6271 bytes; the smallest feasible budget is 6272 bytes}}
func.func @transposed_rhs(%a: tensor<64x32xf32>, %b: tensor<16x32xf32>) -> tensor<64x16xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<64x32xf32>, tensor<16x32xf32>) -> tensor<64x16xf32>
  return %0 : tensor<64x16xf32>
}
