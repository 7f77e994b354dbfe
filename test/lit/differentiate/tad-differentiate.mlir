// tad-differentiate gives every declaration carrying tad.vjp or tad.jvp its body: the primal
// results, then one gradient per `wrt` input (vjp) or one tangent per result (jvp). The
// per-family rules are tested in the other files of this folder; errors in errors.mlir.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate | FileCheck %s

// CHECK-LABEL: func.func @f(
// CHECK-LABEL: func.func private @f_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[W:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-SAME: attributes {tad.vjp = {of = @f, wrt = array<i64: 1>}}
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[W]]
// CHECK: %[[GW:.*]] = arith.mulf %[[CT]], %[[X]]
// CHECK-NEXT: return %[[Y]], %[[GW]]
// CHECK-LABEL: func.func private @f_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<3xf64>, %[[W:.*]]: tensor<3xf64>, %[[T:.*]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-SAME: attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[W]]
// CHECK-NEXT: %[[DY:.*]] = arith.mulf %[[T]], %[[W]]
// CHECK-NEXT: return %[[Y]], %[[DY]]
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.mulf %x, %w : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 1>}}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// A module without declarations is left as it is.
// CHECK-LABEL: func.func @plain
// CHECK-NEXT: math.sin %arg0
// CHECK-NEXT: return
// CHECK-NOT: func.func
func.func @plain(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.sin %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
