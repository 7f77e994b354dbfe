// tad.threefry2x32 batches as an elementwise op: a key per row, hashing the same counters.
// RUN: autodiff-opt %s --split-input-file --tad-batch | FileCheck %s

// CHECK-LABEL: func.func private @hash_vmap
// CHECK-SAME: (%[[K:.*]]: tensor<4x3xi32>, %[[X:.*]]: tensor<3xi32>) -> tensor<4x3xi32>
// CHECK: %[[X1:.*]] = "tad.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 1>} : (tensor<3xi32>) -> tensor<4x3xi32>
// CHECK: %[[X2:.*]] = "tad.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 1>} : (tensor<3xi32>) -> tensor<4x3xi32>
// CHECK: %[[H:.*]]:2 = "tad.threefry2x32"(%[[K]], %[[K]], %[[X1]], %[[X2]]) : (tensor<4x3xi32>, tensor<4x3xi32>, tensor<4x3xi32>, tensor<4x3xi32>) -> (tensor<4x3xi32>, tensor<4x3xi32>)
// CHECK: return %[[H]]#1
func.func @hash(%k: tensor<3xi32>, %x: tensor<3xi32>) -> tensor<3xi32> {
  %0:2 = "tad.threefry2x32"(%k, %k, %x, %x)
      : (tensor<3xi32>, tensor<3xi32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
  return %0#1 : tensor<3xi32>
}
func.func private @hash_vmap(tensor<4x3xi32>, tensor<3xi32>) -> tensor<4x3xi32>
    attributes {tad.vmap = {of = @hash, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}
