// Collectives have side effects: every process must run the same ones in
// the same order, so tad-simplify neither merges two equal ones nor drops an
// unused one; pvary (no communication) is dropped when unused. Over one
// process each folds away (a reshape at most).
// RUN: autodiff-opt %s --split-input-file --tad-simplify | FileCheck %s

// CHECK-LABEL: func.func @kept
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>)
// CHECK-NEXT: %[[A:.*]] = "tad.psum"(%[[X]]) {processes = 2 : i64}
// CHECK-NEXT: %[[B:.*]] = "tad.psum"(%[[X]]) {processes = 2 : i64}
// CHECK-NEXT: "tad.all_gather"(%[[X]]) {processes = 2 : i64}
// CHECK-NOT: "tad.pvary"
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK-NEXT: return %[[S]]
func.func @kept(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = "tad.psum"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  %1 = "tad.psum"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  %2 = "tad.all_gather"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<2x3xf64>
  %u = "tad.pvary"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3xf64>
  %3 = arith.addf %0, %1 : tensor<3xf64>
  return %3 : tensor<3xf64>
}

// -----

// CHECK-LABEL: func.func @one_process
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>)
// CHECK-NEXT: %[[G:.*]] = "tad.reshape"(%[[X]]) : (tensor<3xf64>) -> tensor<1x3xf64>
// CHECK-NEXT: return %[[X]], %[[G]], %[[X]]
func.func @one_process(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<1x3xf64>, tensor<3xf64>) {
  %v = "tad.pvary"(%x) {processes = 1} : (tensor<3xf64>) -> tensor<3xf64>
  %0 = "tad.psum"(%v) {processes = 1} : (tensor<3xf64>) -> tensor<3xf64>
  %1 = "tad.all_gather"(%x) {processes = 1} : (tensor<3xf64>) -> tensor<1x3xf64>
  %2 = "tad.reduce_scatter"(%1) {processes = 1} : (tensor<1x3xf64>) -> tensor<3xf64>
  return %0, %1, %2 : tensor<3xf64>, tensor<1x3xf64>, tensor<3xf64>
}
