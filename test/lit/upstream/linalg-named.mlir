// Every linalg op defined in OpDSL (core_named_ops) with float operands is
// generalized and differentiated by tad-differentiate in both modes: its
// derivative is structured (a linalg.generic). Every shape symbol of an op is 1
// (a strided window index o * s + k * d then spans 2); test_upstream_linalg.py
// runs the derivatives of the common ones against finite differences.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate | FileCheck %s
// linalg.copy (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.copy 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.copy (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.copy 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.exp (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.exp 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.exp ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.exp (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.exp 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.exp ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.log (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.log 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.log ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.log (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.log 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.log ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.abs (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.abs 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.abs ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.abs (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.abs 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.abs ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.ceil (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.ceil 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.ceil ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.ceil (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.ceil 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.ceil ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.floor (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.floor 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.floor ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.floor (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.floor 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.floor ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.negf (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.negf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.negf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.negf (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.negf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.negf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.reciprocal (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.reciprocal 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.reciprocal ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.reciprocal (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.reciprocal 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.reciprocal ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.round (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.round 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.round ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.round (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.round 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.round ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.sqrt (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.sqrt 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.sqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.sqrt (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.sqrt 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.sqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.rsqrt (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.rsqrt 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.rsqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.rsqrt (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.rsqrt 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.rsqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.square (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.square 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.square ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.square (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.square 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.square ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.tanh (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.tanh 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.tanh ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.tanh (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.tanh 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.tanh ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.erf (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.erf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.erf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.erf (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.erf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  %0 = linalg.erf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.add (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.add 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.add ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.add (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.add 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.add ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.sub (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.sub 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.sub ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.sub (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.sub 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.sub ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.mul (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.mul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.mul ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.mul (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.mul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.mul ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.div (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.div 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.div ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.div (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.div 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.div ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.max (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.max ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.max (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.max ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.min (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.min ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.min (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.min ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.powf (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.powf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.powf ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.powf (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.powf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.powf ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.quantized_matmul (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.quantized_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.quantized_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1xf64>, tensor<1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.quantized_matmul (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.quantized_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.quantized_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1xf64>, tensor<1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.mmt4d (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.mmt4d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.mmt4d (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.mmt4d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_mmt4d (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.batch_mmt4d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.batch_mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_mmt4d (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.batch_mmt4d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.batch_mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.quantized_batch_matmul (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.quantized_batch_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.quantized_batch_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.quantized_batch_matmul (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.quantized_batch_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.quantized_batch_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.matvec (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.matvec 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  %0 = linalg.matvec ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.matvec (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.matvec 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  %0 = linalg.matvec ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1x1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.vecmat (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.vecmat 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  %0 = linalg.vecmat ins(%arg0, %arg1 : tensor<1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<1xf64>, tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.vecmat (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.vecmat 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  %0 = linalg.vecmat ins(%arg0, %arg1 : tensor<1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<1xf64>, tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_matvec (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.batch_matvec 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<1x1x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_matvec (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.batch_matvec 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<1x1x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_vecmat (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.batch_vecmat 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %0 = linalg.batch_vecmat ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_vecmat (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.batch_vecmat 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %0 = linalg.batch_vecmat ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.dot (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.dot 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.dot ins(%arg0, %arg1 : tensor<1xf64>, tensor<1xf64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<1xf64>, tensor<1xf64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.dot (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.dot 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<f64>) -> tensor<f64> {
  %0 = linalg.dot ins(%arg0, %arg1 : tensor<1xf64>, tensor<1xf64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<1xf64>, tensor<1xf64>, tensor<f64>, tensor<1xf64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_1d (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_1d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  %0 = linalg.conv_1d ins(%arg0, %arg1 : tensor<2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_1d (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_1d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  %0 = linalg.conv_1d ins(%arg0, %arg1 : tensor<2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<2xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %0 = linalg.conv_2d ins(%arg0, %arg1 : tensor<2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<2x2xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %0 = linalg.conv_2d ins(%arg0, %arg1 : tensor<2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<2x2xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<2x2xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_3d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<2x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<2x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<2x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<2x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_3d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<2x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<2x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<2x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<2x2x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_1d_nwc_wcf (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_1d_nwc_wcf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.conv_1d_nwc_wcf ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_1d_nwc_wcf (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_1d_nwc_wcf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.conv_1d_nwc_wcf ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_1d_ncw_fcw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_1d_ncw_fcw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.conv_1d_ncw_fcw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_1d_ncw_fcw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_1d_ncw_fcw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.conv_1d_ncw_fcw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_hwcf (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_hwcf (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_fhwc (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_fhwc (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.conv_2d_nhwc_fhwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_hwcf_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nhwc_hwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_hwcf_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nhwc_hwcf_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nhwc_hwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_fhwc_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nhwc_fhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwc_fhwc_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nhwc_fhwc_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nhwc_fhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nchw_fchw_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nchw_fchw_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nchw_fchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nchw_fchw_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nchw_fchw_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nchw_fchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nchw_fchw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nchw_fchw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.conv_2d_nchw_fchw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nchw_fchw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nchw_fchw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.conv_2d_nchw_fchw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_ngchw_fgchw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_ngchw_fgchw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_2d_ngchw_fgchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_ngchw_fgchw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_ngchw_fgchw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_2d_ngchw_fgchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_ngchw_gfchw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_2d_ngchw_gfchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_ngchw_gfchw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_2d_ngchw_gfchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwgc_gfhwc (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nhwgc_gfhwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_2d_nhwgc_gfhwc ins(%arg0, %arg1 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwgc_gfhwc (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nhwgc_gfhwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_2d_nhwgc_gfhwc ins(%arg0, %arg1 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwgc_gfhwc_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_nhwgc_gfhwc_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nhwgc_gfhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_nhwgc_gfhwc_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_nhwgc_gfhwc_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_nhwgc_gfhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_ngchw_gfchw_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_ngchw_gfchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_2d_ngchw_gfchw_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_2d_ngchw_gfchw_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_2d_ngchw_gfchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d_ndhwc_dhwcf (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_3d_ndhwc_dhwcf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_3d_ndhwc_dhwcf ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d_ndhwc_dhwcf (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_3d_ndhwc_dhwcf 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_3d_ndhwc_dhwcf ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d_ndhwc_dhwcf_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_3d_ndhwc_dhwcf_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_3d_ndhwc_dhwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d_ndhwc_dhwcf_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_3d_ndhwc_dhwcf_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.conv_3d_ndhwc_dhwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d_ncdhw_fcdhw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.conv_3d_ncdhw_fcdhw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_3d_ncdhw_fcdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.conv_3d_ncdhw_fcdhw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.conv_3d_ncdhw_fcdhw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.conv_3d_ncdhw_fcdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_1d_nwc_wc (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_1d_nwc_wc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_1d_nwc_wc (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_1d_nwc_wc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_1d_ncw_cw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_1d_ncw_cw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.depthwise_conv_1d_ncw_cw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_1d_ncw_cw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_1d_ncw_cw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.depthwise_conv_1d_ncw_cw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_1d_nwc_wcm (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_1d_nwc_wcm 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_1d_nwc_wcm ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_1d_nwc_wcm (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_1d_nwc_wcm 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_1d_nwc_wcm ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwc (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwc (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nchw_chw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_2d_nchw_chw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nchw_chw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_2d_nchw_chw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_2d_nchw_chw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwc_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.depthwise_conv_2d_nhwc_hwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwc_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwc_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.depthwise_conv_2d_nhwc_hwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwcm (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwcm 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwcm (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwcm 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwcm_q (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwcm_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_2d_nhwc_hwcm_q (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_2d_nhwc_hwcm_q 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_3d_ncdhw_cdhw (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_3d_ncdhw_cdhw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_3d_ncdhw_cdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_3d_ncdhw_cdhw (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_3d_ncdhw_cdhw 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.depthwise_conv_3d_ncdhw_cdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nhwc_sum (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nhwc_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nhwc_sum (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nhwc_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nchw_sum (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nchw_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nchw_sum ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nchw_sum (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nchw_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nchw_sum ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nhwc_max (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nhwc_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nhwc_max ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nhwc_max (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nhwc_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nhwc_max ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nchw_max (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nchw_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nchw_max ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nchw_max (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nchw_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nchw_max ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nhwc_min (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nhwc_min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nhwc_min ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nhwc_min (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nhwc_min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %0 = linalg.pooling_nhwc_min ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nwc_sum (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nwc_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_nwc_sum ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nwc_sum (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nwc_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_nwc_sum ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ncw_sum (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_ncw_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_ncw_sum ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ncw_sum (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_ncw_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_ncw_sum ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nwc_max (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nwc_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_nwc_max ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nwc_max (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nwc_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_nwc_max ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ncw_max (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_ncw_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_ncw_max ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ncw_max (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_ncw_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_ncw_max ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nwc_min (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_nwc_min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_nwc_min ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_nwc_min (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_nwc_min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %0 = linalg.pooling_nwc_min ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ndhwc_sum (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_ndhwc_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.pooling_ndhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ndhwc_sum (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_ndhwc_sum 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.pooling_ndhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ndhwc_max (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_ndhwc_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.pooling_ndhwc_max ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ndhwc_max (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_ndhwc_max 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.pooling_ndhwc_max ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ndhwc_min (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.pooling_ndhwc_min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.pooling_ndhwc_min ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.pooling_ndhwc_min (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.pooling_ndhwc_min 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %0 = linalg.pooling_ndhwc_min ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.fill (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.fill 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>) -> tensor<f64> {
  %cst = arith.constant 1.000000e+00 : f64
  %0 = linalg.fill ins(%cst : f64) outs(%arg0 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.fill (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.fill 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<f64>) -> tensor<f64> {
  %cst = arith.constant 1.000000e+00 : f64
  %0 = linalg.fill ins(%cst : f64) outs(%arg0 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.fill_rng_2d (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.fill_rng_2d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %cst = arith.constant 1.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+00 : f64
  %c1_i32 = arith.constant 1 : i32
  %0 = linalg.fill_rng_2d ins(%cst, %cst_0, %c1_i32 : f64, f64, i32) outs(%arg0 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.fill_rng_2d (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.fill_rng_2d 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%arg0: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %cst = arith.constant 1.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+00 : f64
  %c1_i32 = arith.constant 1 : i32
  %0 = linalg.fill_rng_2d ins(%cst, %cst_0, %c1_i32 : f64, f64, i32) outs(%arg0 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.matmul (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<2x3xf64>) -> tensor<2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<3x2xf64>
  %e = arith.constant dense<0.0> : tensor<2x2xf64>
  %0 = linalg.matmul ins(%x, %b : tensor<2x3xf64>, tensor<3x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @f_vjp(tensor<2x3xf64>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.matmul (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<2x3xf64>) -> tensor<2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<3x2xf64>
  %e = arith.constant dense<0.0> : tensor<2x2xf64>
  %0 = linalg.matmul ins(%x, %b : tensor<2x3xf64>, tensor<3x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @f_jvp(tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_matmul (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.batch_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x3xf64>) -> tensor<1x2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<1x3x2xf64>
  %e = arith.constant dense<0.0> : tensor<1x2x2xf64>
  %0 = linalg.batch_matmul ins(%x, %b : tensor<1x2x3xf64>, tensor<1x3x2xf64>) outs(%e : tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
  return %0 : tensor<1x2x2xf64>
}
func.func private @f_vjp(tensor<1x2x3xf64>, tensor<1x2x2xf64>) -> (tensor<1x2x2xf64>, tensor<1x2x3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_matmul (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.batch_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x3xf64>) -> tensor<1x2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<1x3x2xf64>
  %e = arith.constant dense<0.0> : tensor<1x2x2xf64>
  %0 = linalg.batch_matmul ins(%x, %b : tensor<1x2x3xf64>, tensor<1x3x2xf64>) outs(%e : tensor<1x2x2xf64>) -> tensor<1x2x2xf64>
  return %0 : tensor<1x2x2xf64>
}
func.func private @f_jvp(tensor<1x2x3xf64>, tensor<1x2x3xf64>) -> (tensor<1x2x2xf64>, tensor<1x2x2xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_reduce_matmul (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.batch_reduce_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x3xf64>) -> tensor<2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<1x3x2xf64>
  %e = arith.constant dense<0.0> : tensor<2x2xf64>
  %0 = linalg.batch_reduce_matmul ins(%x, %b : tensor<1x2x3xf64>, tensor<1x3x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @f_vjp(tensor<1x2x3xf64>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<1x2x3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.batch_reduce_matmul (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.batch_reduce_matmul 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x3xf64>) -> tensor<2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<1x3x2xf64>
  %e = arith.constant dense<0.0> : tensor<2x2xf64>
  %0 = linalg.batch_reduce_matmul ins(%x, %b : tensor<1x2x3xf64>, tensor<1x3x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @f_jvp(tensor<1x2x3xf64>, tensor<1x2x3xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.contract (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.contract 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<2x3xf64>) -> tensor<2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<3x2xf64>
  %e = arith.constant dense<0.0> : tensor<2x2xf64>
  %0 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %b : tensor<2x3xf64>, tensor<3x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @f_vjp(tensor<2x3xf64>, tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2x3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.contract (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.contract 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<2x3xf64>) -> tensor<2x2xf64> {
  %b = arith.constant dense<1.0> : tensor<3x2xf64>
  %e = arith.constant dense<0.0> : tensor<2x2xf64>
  %0 = linalg.contract indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %b : tensor<2x3xf64>, tensor<3x2xf64>) outs(%e : tensor<2x2xf64>) -> tensor<2x2xf64>
  return %0 : tensor<2x2xf64>
}
func.func private @f_jvp(tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<2x2xf64>, tensor<2x2xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.elementwise (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.elementwise 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.elementwise (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.elementwise 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.broadcast (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.broadcast 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %e = tensor.empty() : tensor<2x3xf64>
  %0 = linalg.broadcast ins(%x : tensor<3xf64>) outs(%e : tensor<2x3xf64>) dimensions = [0]
  return %0 : tensor<2x3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.broadcast (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.broadcast 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<2x3xf64> {
  %e = tensor.empty() : tensor<2x3xf64>
  %0 = linalg.broadcast ins(%x : tensor<3xf64>) outs(%e : tensor<2x3xf64>) dimensions = [0]
  return %0 : tensor<2x3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3xf64>, tensor<2x3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.transpose (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.transpose 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %e = tensor.empty() : tensor<3x2xf64>
  %0 = linalg.transpose ins(%x : tensor<2x3xf64>) outs(%e : tensor<3x2xf64>) permutation = [1, 0]
  return %0 : tensor<3x2xf64>
}
func.func private @f_vjp(tensor<2x3xf64>, tensor<3x2xf64>) -> (tensor<3x2xf64>, tensor<2x3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.transpose (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.transpose 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<2x3xf64>) -> tensor<3x2xf64> {
  %e = tensor.empty() : tensor<3x2xf64>
  %0 = linalg.transpose ins(%x : tensor<2x3xf64>) outs(%e : tensor<3x2xf64>) permutation = [1, 0]
  return %0 : tensor<3x2xf64>
}
func.func private @f_jvp(tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<3x2xf64>, tensor<3x2xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.map (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.map 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.map ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>)
    (%a: f64, %out: f64) {
      %m = math.sin %a : f64
      linalg.yield %m : f64
    }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.map (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.map 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.map ins(%x : tensor<3xf64>) outs(%e : tensor<3xf64>)
    (%a: f64, %out: f64) {
      %m = math.sin %a : f64
      linalg.yield %m : f64
    }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.reduce (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.reduce 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %e = arith.constant dense<0.0> : tensor<f64>
  %0 = linalg.reduce ins(%x : tensor<3xf64>) outs(%e : tensor<f64>) dimensions = [0]
    (%a: f64, %acc: f64) {
      %s = arith.addf %a, %acc : f64
      linalg.yield %s : f64
    }
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.reduce (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.reduce 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %e = arith.constant dense<0.0> : tensor<f64>
  %0 = linalg.reduce ins(%x : tensor<3xf64>) outs(%e : tensor<f64>) dimensions = [0]
    (%a: f64, %acc: f64) {
      %s = arith.addf %a, %acc : f64
      linalg.yield %s : f64
    }
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.select (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.select 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = arith.constant dense<true> : tensor<3xi1>
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.select ins(%c, %x, %x : tensor<3xi1>, tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.select (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.select 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = arith.constant dense<true> : tensor<3xi1>
  %e = tensor.empty() : tensor<3xf64>
  %0 = linalg.select ins(%c, %x, %x : tensor<3xi1>, tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_3d_ndhwc_dhwc (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_3d_ndhwc_dhwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x2x2x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %k = arith.constant dense<1.0> : tensor<2x2x2x1xf64>
  %e = arith.constant dense<0.0> : tensor<1x1x1x1x1xf64>
  %0 = linalg.depthwise_conv_3d_ndhwc_dhwc ins(%x, %k : tensor<1x2x2x2x1xf64>, tensor<2x2x2x1xf64>) outs(%e : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_3d_ndhwc_dhwc (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_3d_ndhwc_dhwc 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x2x2x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %k = arith.constant dense<1.0> : tensor<2x2x2x1xf64>
  %e = arith.constant dense<0.0> : tensor<1x1x1x1x1xf64>
  %0 = linalg.depthwise_conv_3d_ndhwc_dhwc ins(%x, %k : tensor<1x2x2x2x1xf64>, tensor<2x2x2x1xf64>) outs(%e : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_3d_ndhwc_dhwcm (vjp)
// CHECK-LABEL: func.func private @f_vjp
// CHECK-NOT: linalg.depthwise_conv_3d_ndhwc_dhwcm 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x2x2x1xf64>) -> tensor<1x1x1x1x1x1xf64> {
  %k = arith.constant dense<1.0> : tensor<2x2x2x1x1xf64>
  %e = arith.constant dense<0.0> : tensor<1x1x1x1x1x1xf64>
  %0 = linalg.depthwise_conv_3d_ndhwc_dhwcm ins(%x, %k : tensor<1x2x2x2x1xf64>, tensor<2x2x2x1x1xf64>) outs(%e : tensor<1x1x1x1x1x1xf64>) -> tensor<1x1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// linalg.depthwise_conv_3d_ndhwc_dhwcm (jvp)
// CHECK-LABEL: func.func private @f_jvp
// CHECK-NOT: linalg.depthwise_conv_3d_ndhwc_dhwcm 
// CHECK: linalg.generic
// CHECK: return
func.func @f(%x: tensor<1x2x2x2x1xf64>) -> tensor<1x1x1x1x1x1xf64> {
  %k = arith.constant dense<1.0> : tensor<2x2x2x1x1xf64>
  %e = arith.constant dense<0.0> : tensor<1x1x1x1x1x1xf64>
  %0 = linalg.depthwise_conv_3d_ndhwc_dhwcm ins(%x, %k : tensor<1x2x2x2x1xf64>, tensor<2x2x2x1x1xf64>) outs(%e : tensor<1x1x1x1x1x1xf64>) -> tensor<1x1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1x1xf64>, tensor<1x1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
