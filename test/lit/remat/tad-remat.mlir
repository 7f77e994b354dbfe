// RUN: autodiff-opt %s --split-input-file --tad-remat | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-remat=policy=everything_saveable \
// RUN:   | FileCheck %s --check-prefix=KEEP

// The interior of a checkpoint region (sin) is recomputed where the code
// after the region reads it; the region's output (exp) is stored.
// CHECK-LABEL: func.func @region
// CHECK: math.sin
// CHECK: math.exp
// CHECK: "tad.end_checkpoint"
// CHECK: %[[AGAIN:.*]] = math.sin
// CHECK: math.cos %[[AGAIN]]
// KEEP-LABEL: func.func @region
// KEEP-COUNT-1: math.sin
// KEEP-NOT: math.sin
func.func @region(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "tad.start_checkpoint"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = math.sin %0 : tensor<4xf32>
  %2 = math.exp %1 : tensor<4xf32>
  %3 = "tad.end_checkpoint"(%2) : (tensor<4xf32>) -> tensor<4xf32>
  %4 = math.cos %1 : tensor<4xf32>
  return %3, %4 : tensor<4xf32>, tensor<4xf32>
}

// -----

// dots_saveable keeps the contraction inside the region and recomputes the tanh.
// CHECK-LABEL: func.func @dots_saveable
// CHECK-COUNT-1: tad.dot_general
// CHECK: "tad.end_checkpoint"
// CHECK: math.tanh
// CHECK-NOT: tad.dot_general
// CHECK: return
func.func @dots_saveable(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %0 = "tad.start_checkpoint"(%x) {tad.policy = "dots_saveable"} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = "tad.dot_general"(%0, %0) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = math.tanh %1 : tensor<4x4xf32>
  %3 = math.exp %2 : tensor<4x4xf32>
  %4 = "tad.end_checkpoint"(%3) : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %5 = arith.mulf %2, %1 : tensor<4x4xf32>
  return %4, %5 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A collective inside a region is kept, never run again for the later reader
// (every process must run the same collectives): the sin after it is
// recomputed from the psum's stored result.
// CHECK-LABEL: func.func @region_with_a_collective
// CHECK-COUNT-1: tad.psum
// CHECK-NOT: tad.psum
// CHECK: "tad.end_checkpoint"
// CHECK: %[[AGAIN:.*]] = math.sin
// CHECK: math.cos %[[AGAIN]]
// KEEP-LABEL: func.func @region_with_a_collective
func.func @region_with_a_collective(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = "tad.start_checkpoint"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "tad.psum"(%0) {processes = 2} : (tensor<4xf32>) -> tensor<4xf32>
  %2 = math.sin %1 : tensor<4xf32>
  %3 = math.exp %2 : tensor<4xf32>
  %4 = "tad.end_checkpoint"(%3) : (tensor<4xf32>) -> tensor<4xf32>
  %5 = math.cos %2 : tensor<4xf32>
  return %4, %5 : tensor<4xf32>, tensor<4xf32>
}
