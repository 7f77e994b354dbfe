// tad.threefry2x32 lowers to two all-parallel generics, one per word, each the
// 20 rounds on scalar i32 words (adds, rotations made of shli/shrui/ori, xors)
// with the key injections; fusion later moves both into the generic that reads
// the two words, where CSE keeps one hash.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @hash
// CHECK: %[[HI:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: ^bb0(%[[K1:.*]]: i32, %[[K2:.*]]: i32, %[[X1:.*]]: i32, %[[X2:.*]]: i32, %{{.*}}: i32):
// The parity word of the key schedule.
// CHECK: %[[P:.*]] = arith.xori %[[K1]], %[[K2]] : i32
// CHECK: arith.constant 466688986 : i32
// CHECK: %[[A:.*]] = arith.addi %[[X1]], %[[K1]] : i32
// CHECK: %[[B:.*]] = arith.addi %[[X2]], %[[K2]] : i32
// The first round: x1 += x2; x2 = rotl(x2, 13) ^ x1.
// CHECK: %[[S:.*]] = arith.addi %[[A]], %[[B]] : i32
// CHECK: arith.constant 13 : i32
// CHECK: arith.shli %[[B]]
// CHECK: arith.constant 19 : i32
// CHECK: arith.shrui %[[B]]
// CHECK: arith.ori
// CHECK: arith.xori %{{.*}}, %[[S]] : i32
// CHECK-COUNT-19: arith.ori
// CHECK: linalg.yield
// CHECK: %[[LO:.*]] = linalg.generic
// CHECK-COUNT-20: arith.ori
// CHECK: linalg.yield
// CHECK: return %[[HI]], %[[LO]]
// CHECK-NOT: tad.threefry2x32
func.func @hash(%k1: tensor<2x3xi32>, %k2: tensor<2x3xi32>, %x1: tensor<2x3xi32>, %x2: tensor<2x3xi32>)
    -> (tensor<2x3xi32>, tensor<2x3xi32>) {
  %0:2 = "tad.threefry2x32"(%k1, %k2, %x1, %x2)
      : (tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>) -> (tensor<2x3xi32>, tensor<2x3xi32>)
  return %0#0, %0#1 : tensor<2x3xi32>, tensor<2x3xi32>
}

// -----

// A dynamic dim: the words' empty tensors take its size from the first key word.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0
// CHECK: tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK: linalg.generic
// CHECK: tensor.empty(%[[N]]) : tensor<?xi32>
// CHECK: linalg.generic
func.func @dynamic(%k: tensor<?xi32>, %x: tensor<?xi32>) -> tensor<?xi32> {
  %0:2 = "tad.threefry2x32"(%k, %k, %x, %x)
      : (tensor<?xi32>, tensor<?xi32>, tensor<?xi32>, tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi32>)
  return %0#1 : tensor<?xi32>
}
