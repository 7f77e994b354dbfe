// Sums and contractions of f16 and bf16 values that derivative rules build
// accumulate in f32 and round once (as XLA's): the cotangent of a broadcast
// is summed, that of a contraction contracted, in f32.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func private @spread_vjp
// CHECK-SAME: (%{{.*}}: tensor<3xf16>, %[[CT:.*]]: tensor<4x3xf16>)
// CHECK: %[[WIDE:.*]] = "tad.convert"(%[[CT]]) : (tensor<4x3xf16>) -> tensor<4x3xf32>
// CHECK: %[[SUM:.*]] = "tad.reduce_sum"(%[[WIDE]]) {dimensions = array<i64: 0>} : (tensor<4x3xf32>) -> tensor<3xf32>
// CHECK: %[[DX:.*]] = "tad.convert"(%[[SUM]]) : (tensor<3xf32>) -> tensor<3xf16>
// CHECK: return %{{.*}}, %[[DX]]
func.func @spread(%x: tensor<3xf16>) -> tensor<4x3xf16> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf16>) -> tensor<4x3xf16>
  return %0 : tensor<4x3xf16>
}
func.func private @spread_vjp(tensor<3xf16>, tensor<4x3xf16>) -> (tensor<4x3xf16>, tensor<3xf16>)
    attributes {tad.vjp = {of = @spread, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @matvec_vjp
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xbf16>, %{{.*}}: tensor<3xbf16>, %[[CT:.*]]: tensor<4xbf16>)
// CHECK-DAG: %[[WIDE_CT:.*]] = "tad.convert"(%[[CT]]) : (tensor<4xbf16>) -> tensor<4xf32>
// CHECK-DAG: %[[WIDE_A:.*]] = "tad.convert"(%[[A]]) : (tensor<4x3xbf16>) -> tensor<4x3xf32>
// CHECK: %[[DOT:.*]] = "tad.dot_general"(%[[WIDE_CT]], %[[WIDE_A]]) {{.*}} -> tensor<3xf32>
// CHECK: %[[DX:.*]] = "tad.convert"(%[[DOT]]) : (tensor<3xf32>) -> tensor<3xbf16>
// CHECK: return %{{.*}}, %[[DX]]
func.func @matvec(%a: tensor<4x3xbf16>, %x: tensor<3xbf16>) -> tensor<4xbf16> {
  %0 = "tad.dot_general"(%a, %x) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x3xbf16>, tensor<3xbf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
func.func private @matvec_vjp(tensor<4x3xbf16>, tensor<3xbf16>, tensor<4xbf16>) -> (tensor<4xbf16>, tensor<3xbf16>)
    attributes {tad.vjp = {of = @matvec, wrt = array<i64: 1>}}
