// func.call: the callee's derivative is declared and defined once per
// (kind, wrt, batch prefix) and called; derivatives of generated functions
// (higher order) are asked for by declarations whose `of` names one.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// @square is called twice: both calls of each sweep use one derivative of it.
// CHECK-LABEL: func.func private @twice_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[SQ:.*]] = call @square(%[[X]])
// CHECK-NEXT: %[[SIN:.*]] = math.sin %[[SQ]]
// CHECK-NEXT: %[[OUT:.*]] = call @square(%[[SIN]])
// CHECK-NEXT: %[[OUTER:.*]]:2 = call @square_vjp_wrt0(%[[SIN]], %[[CT]]) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: %[[COS:.*]] = math.cos %[[SQ]]
// CHECK-NEXT: %[[CT_SQ:.*]] = arith.mulf %[[OUTER]]#1, %[[COS]]
// CHECK-NEXT: %[[INNER:.*]]:2 = call @square_vjp_wrt0(%[[X]], %[[CT_SQ]])
// CHECK-NEXT: return %[[OUT]], %[[INNER]]#1

// CHECK-LABEL: func.func private @twice_jvp
// CHECK-COUNT-2: call @square_jvp_wrt0(
// CHECK-NOT: call @square_jvp

// The derivatives of the callee, each defined once, after the functions that need them.
// CHECK-LABEL: func.func private @square_vjp_wrt0(%{{.*}}: tensor<3xf64>, %{{.*}}: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) attributes {tad.vjp = {of = @square, wrt = array<i64: 0>}}
// CHECK-LABEL: func.func private @square_jvp_wrt0(%{{.*}}: tensor<3xf64>, %{{.*}}: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) attributes {tad.jvp = {of = @square, wrt = array<i64: 0>}}
// CHECK-NOT: func.func
// CHECK: {{^}}}
func.func private @square(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = arith.mulf %x, %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func @twice(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = func.call @square(%x) : (tensor<3xf64>) -> tensor<3xf64>
  %1 = math.sin %0 : tensor<3xf64>
  %2 = func.call @square(%1) : (tensor<3xf64>) -> tensor<3xf64>
  return %2 : tensor<3xf64>
}
func.func private @twice_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @twice, wrt = array<i64: 0>}}
func.func private @twice_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @twice, wrt = array<i64: 0>}}

// -----

// An integer operand of the callee is left out of wrt; a batch prefix is part of the derivative's name.
// CHECK-LABEL: func.func private @scaled_jacobian
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[N:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3x3xf64>)
// CHECK: %[[D:.*]]:2 = call @scale_vjp_wrt0_batch3(%[[X]], %[[N]], %[[CT]]) : (tensor<3xf64>, tensor<3xi64>, tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
// CHECK-NEXT: return %{{.*}}, %[[D]]#1
// CHECK-LABEL: func.func private @scale_vjp_wrt0_batch3
// CHECK-SAME: attributes {tad.vjp = {of = @scale, wrt = array<i64: 0>}}
// CHECK: arith.mulf %{{.*}}, %{{.*}} : tensor<3x3xf64>
func.func private @scale(%x: tensor<3xf64>, %n: tensor<3xi64>) -> tensor<3xf64> {
  %0 = "tad.convert"(%n) : (tensor<3xi64>) -> tensor<3xf64>
  %1 = arith.mulf %x, %0 : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func @scaled(%x: tensor<3xf64>, %n: tensor<3xi64>) -> tensor<3xf64> {
  %0 = func.call @scale(%x, %n) : (tensor<3xf64>, tensor<3xi64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @scaled_jacobian(tensor<3xf64>, tensor<3xi64>, tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
    attributes {tad.vjp = {of = @scaled, wrt = array<i64: 0>}}

// -----

// Forward over reverse (a Hessian-vector product): the jvp of a generated vjp.
// d/dx [ct * cos x] along t = ct * (t * -sin x).
// CHECK-LABEL: func.func private @f_vjp_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<f64>, %[[T:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>)
// CHECK-DAG: %[[SIN:.*]] = math.sin %[[X]]
// CHECK-DAG: %[[CT_B:.*]] = "tad.broadcast_in_dim"(%[[CT]])
// CHECK: %[[NEG:.*]] = arith.negf %{{.*}}
// CHECK-NEXT: %[[T_NEG:.*]] = arith.mulf %[[T]], %[[NEG]]
// CHECK: %[[HVP:.*]] = arith.mulf %[[T_NEG]], %[[CT_B]]
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %{{.*}}, %[[HVP]]
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = math.sin %x : tensor<3xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %1 : tensor<f64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
func.func private @f_vjp_jvp(tensor<3xf64>, tensor<f64>, tensor<3xf64>) -> (tensor<f64>, tensor<3xf64>, tensor<f64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f_vjp, wrt = array<i64: 0>}}

// -----

// Reverse over reverse, declared before the vjp it differentiates: that one is defined first.
// vjp of (x, ct) -> (exp x, ct * exp x) with cotangents (a, b): dx = (a + b * ct) * exp x, dct = b * exp x.
// CHECK-LABEL: func.func private @g_vjp_vjp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[A:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK-NEXT: %[[E:.*]] = math.exp %[[X]]
// CHECK-NEXT: %[[G:.*]] = arith.mulf %[[CT]], %[[E]]
// CHECK-NEXT: %[[DCT:.*]] = arith.mulf %[[B]], %[[E]]
// CHECK-NEXT: %[[BCT:.*]] = arith.mulf %[[B]], %[[CT]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[A]], %[[BCT]]
// CHECK-NEXT: %[[DX:.*]] = arith.mulf %[[SUM]], %[[E]]
// CHECK-NEXT: return %[[E]], %[[G]], %[[DX]], %[[DCT]]
// CHECK-LABEL: func.func private @g_vjp
// CHECK-SAME: attributes {tad.vjp = {of = @g, wrt = array<i64: 0>}}
func.func @g(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.exp %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @g_vjp_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @g_vjp, wrt = array<i64: 0, 1>}}
func.func private @g_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @g, wrt = array<i64: 0>}}
