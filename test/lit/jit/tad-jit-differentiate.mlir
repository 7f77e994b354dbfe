// tad-jit-differentiate is tensorad.jit's "differentiated" stage: tad-differentiate,
// tad-inline and symbol-dce (the derivative inlined into its caller), tad-simplify (the
// unused primal result is dropped), tad-remat with tad-remat's options. inline=false keeps
// the derivative a function of its own (what print_saved_residuals reads).
// RUN: autodiff-opt %s --tad-jit-differentiate | FileCheck %s
// RUN: autodiff-opt %s --tad-jit-differentiate=inline=false | FileCheck %s --check-prefix=APART
// RUN: not autodiff-opt %s --tad-jit-differentiate=budget=1 2>&1 | FileCheck %s --check-prefix=BUDGET

// CHECK-NOT: @loss
// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[CT:.*]] = "tad.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64>} : (tensor<f64>) -> tensor<3xf64>
// CHECK-NEXT: %[[COS:.*]] = math.cos %arg0
// CHECK-NEXT: %[[G:.*]] = arith.mulf %[[CT]], %[[COS]]
// CHECK-NEXT: return %[[G]]
// CHECK-NOT: func.func

// APART-LABEL: func.func private @loss(
// APART-LABEL: func.func private @loss_vjp(
// APART: math.cos
// APART-LABEL: func.func @main
// APART-NEXT: call @loss_vjp(%arg0, %arg1)

// BUDGET: error: no schedule of @main keeps peak live bytes within the budget of 1 bytes; the smallest feasible budget is 88 bytes
func.func private @loss(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = math.sin %x : tensor<3xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %1 : tensor<f64>
}
func.func private @loss_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @loss, wrt = array<i64: 0>}}
func.func @main(%x: tensor<3xf64>, %ct: tensor<f64>) -> tensor<3xf64> {
  %v, %g = call @loss_vjp(%x, %ct) : (tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
  return %g : tensor<3xf64>
}
