// CSE and DCE of tad-simplify (upstream cse/canonicalize do not touch trait-less tad ops).
// RUN: autodiff-opt %s --split-input-file --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func @cse
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[T:.*]] = "tad.transpose"(%[[X]])
// CHECK-NEXT: %[[C:.*]] = "tad.constant"() {value = 2.000000e+00 : f32}
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[T]], %[[T]]
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[S]], %[[C]]
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[M]], %[[C]]
// CHECK-NEXT: return %[[P]]
func.func @cse(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c0 = "tad.constant"() {value = 2.0 : f32} : () -> tensor<3x2xf32>
  %1 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %c1 = "tad.constant"() {value = 2.0 : f32} : () -> tensor<3x2xf32>
  %2 = arith.addf %0, %1 : tensor<3x2xf32>
  %3 = arith.mulf %2, %c0 : tensor<3x2xf32>
  %4 = arith.mulf %3, %c1 : tensor<3x2xf32>
  return %4 : tensor<3x2xf32>
}

// -----

// Different attributes or result types are different values.
// CHECK-LABEL: func.func @no_cse
// CHECK-COUNT-2: "tad.constant"
// CHECK-COUNT-2: "tad.reduce_sum"
func.func @no_cse(%x: tensor<2x3xf32>) -> (tensor<3xf32>, tensor<3xf64>, tensor<2xf32>, tensor<3xf32>) {
  %c0 = "tad.constant"() {value = 1.0 : f32} : () -> tensor<3xf32>
  %c1 = "tad.constant"() {value = 1.0 : f64} : () -> tensor<3xf64>
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %c0, %c1, %0, %1 : tensor<3xf32>, tensor<3xf64>, tensor<2xf32>, tensor<3xf32>
}

// -----

// An op in a loop body is replaced by an equal op before the loop, not the other way.
// CHECK-LABEL: func.func @cse_into_region
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>
// CHECK: %[[C:.*]] = "tad.constant"() {value = 3.000000e+00 : f32}
// CHECK: scf.for
// CHECK-NOT: tad.constant
// CHECK: arith.mulf %{{.*}}, %[[C]]
// CHECK: scf.yield
func.func @cse_into_region(%x: tensor<4xf32>, %n: index) -> (tensor<4xf32>, tensor<4xf32>) {
  %c = "tad.constant"() {value = 3.0 : f32} : () -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> (tensor<4xf32>) {
    %d = "tad.constant"() {value = 3.0 : f32} : () -> tensor<4xf32>
    %m = arith.mulf %acc, %d : tensor<4xf32>
    scf.yield %m : tensor<4xf32>
  }
  return %r, %c : tensor<4xf32>, tensor<4xf32>
}

// -----

// Sibling regions do not dominate each other: each branch keeps its op.
// CHECK-LABEL: func.func @no_cse_across_branches
// CHECK: scf.if
// CHECK: "tad.iota"
// CHECK: else
// CHECK: "tad.iota"
func.func @no_cse_across_branches(%p: i1) -> tensor<3xf32> {
  %r = scf.if %p -> (tensor<3xf32>) {
    %a = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  } else {
    %b = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xf32>
    %e = math.exp %b : tensor<3xf32>
    scf.yield %e : tensor<3xf32>
  }
  return %r : tensor<3xf32>
}

// -----

// Each function is its own scope.
// CHECK-LABEL: func.func @first
// CHECK: "tad.iota"
// CHECK-LABEL: func.func @second
// CHECK: "tad.iota"
func.func @first() -> tensor<3xf32> {
  %a = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xf32>
  return %a : tensor<3xf32>
}
func.func @second() -> tensor<3xf32> {
  %a = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xf32>
  return %a : tensor<3xf32>
}

// -----

// Markers are never merged: each one delimits its own region.
// CHECK-LABEL: func.func @markers_not_merged
// CHECK-COUNT-2: "tad.start_checkpoint"
// CHECK-COUNT-2: "tad.stop_gradient"
func.func @markers_not_merged(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) {
  %0 = "tad.start_checkpoint"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tad.start_checkpoint"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tad.stop_gradient"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %3 = "tad.stop_gradient"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2, %3 : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>
}

// -----

// A dead chain of pure ops goes, markers included; calls and used values stay.
// CHECK-LABEL: func.func @dce
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: %[[K:.*]] = call @keep(%[[X]])
// CHECK-NEXT: return %[[X]]
func.func private @keep(tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @dce(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = math.exp %0 : tensor<3x2xf32>
  %2 = "tad.stop_gradient"(%1) : (tensor<3x2xf32>) -> tensor<3x2xf32>
  %3 = "tad.reduce_sum"(%2) {dimensions = array<i64: 0>} : (tensor<3x2xf32>) -> tensor<2xf32>
  %4 = tensor.empty() : tensor<7xf32>
  %5 = tensor.extract_slice %x[0, 0] [1, 3] [1, 1] : tensor<2x3xf32> to tensor<3xf32>
  %6 = arith.negf %5 : tensor<3xf32>
  %k = call @keep(%x) : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %x : tensor<2x3xf32>
}
