// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// Forward mode carries the tangent through the loop as one more iter_arg.
func.func @loop(%x: tensor<4xf64>) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c5 = arith.constant 5 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%h = %x) -> (tensor<4xf64>) {
    %0 = math.sin %h : tensor<4xf64>
    scf.yield %0 : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
func.func private @loop_jvp(tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
    attributes {tad.jvp = {of = @loop, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @loop_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<4xf64>, %[[T:.*]]: tensor<4xf64>)
// CHECK: %[[R:.*]]:2 = scf.for {{.*}} iter_args(%[[H:.*]] = %[[X]], %[[DH:.*]] = %[[T]]) -> (tensor<4xf64>, tensor<4xf64>)
// CHECK:   %[[S:.*]] = math.sin %[[H]]
// CHECK:   %[[C:.*]] = math.cos %[[H]]
// CHECK:   %[[D:.*]] = arith.mulf %[[DH]], %[[C]]
// CHECK:   scf.yield %[[S]], %[[D]]
// CHECK: return %[[R]]#0, %[[R]]#1

// -----

// A branch gets one more result per active value.
func.func @branch(%x: tensor<3xf64>, %p: i1) -> tensor<3xf64> {
  %r = scf.if %p -> (tensor<3xf64>) {
    %0 = math.exp %x : tensor<3xf64>
    scf.yield %0 : tensor<3xf64>
  } else {
    scf.yield %x : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func private @branch_jvp(tensor<3xf64>, i1, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @branch, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @branch_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[P:.*]]: i1, %[[T:.*]]: tensor<3xf64>)
// CHECK: %[[R:.*]]:2 = scf.if %[[P]] -> (tensor<3xf64>, tensor<3xf64>)
// CHECK:   %[[E:.*]] = math.exp %[[X]]
// CHECK:   %[[D:.*]] = arith.mulf %[[T]], %[[E]]
// CHECK:   scf.yield %[[E]], %[[D]]
// CHECK: } else {
// CHECK:   scf.yield %[[X]], %[[T]]
// CHECK: return %[[R]]#0, %[[R]]#1
