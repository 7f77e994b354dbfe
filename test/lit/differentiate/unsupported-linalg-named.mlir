// Soundness: every linalg op defined in OpDSL (core_named_ops), with float
// operands, is refused by tad-differentiate in both modes instead of getting a
// zero derivative. Every shape symbol of an op is 1 (a strided window index
// o * s + k * d then spans 2). Integer-only ops (*_unsigned) take no float.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.copy'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.copy'}}
  %0 = linalg.copy {cast = #linalg.type_fn<cast_signed>} ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.exp'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.exp ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.exp'}}
  %0 = linalg.exp ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.log'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.log ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.log'}}
  %0 = linalg.log ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.abs'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.abs ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.abs'}}
  %0 = linalg.abs ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.ceil'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.ceil ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.ceil'}}
  %0 = linalg.ceil ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.floor'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.floor ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.floor'}}
  %0 = linalg.floor ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.negf'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.negf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.negf'}}
  %0 = linalg.negf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.reciprocal'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.reciprocal ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.reciprocal'}}
  %0 = linalg.reciprocal ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.round'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.round ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.round'}}
  %0 = linalg.round ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.sqrt'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.sqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.sqrt'}}
  %0 = linalg.sqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.rsqrt'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.rsqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.rsqrt'}}
  %0 = linalg.rsqrt ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.square'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.square ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.square'}}
  %0 = linalg.square ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.tanh'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.tanh ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.tanh'}}
  %0 = linalg.tanh ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.erf'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.erf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.erf'}}
  %0 = linalg.erf ins(%arg0 : tensor<f64>) outs(%arg1 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.add'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.add ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.add'}}
  %0 = linalg.add ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.sub'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.sub ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.sub'}}
  %0 = linalg.sub ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.mul'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.mul ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.mul'}}
  %0 = linalg.mul ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.div'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.div ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.div'}}
  %0 = linalg.div ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.max'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.max ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.max'}}
  %0 = linalg.max ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.min'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.min ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.min'}}
  %0 = linalg.min ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.powf'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.powf ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.powf'}}
  %0 = linalg.powf ins(%arg0, %arg1 : tensor<f64>, tensor<f64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.quantized_matmul'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.quantized_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1xf64>, tensor<1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.quantized_matmul'}}
  %0 = linalg.quantized_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1xf64>, tensor<1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.mmt4d'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.mmt4d'}}
  %0 = linalg.mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.batch_mmt4d'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.batch_mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.batch_mmt4d'}}
  %0 = linalg.batch_mmt4d ins(%arg0, %arg1 : tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.quantized_batch_matmul'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.quantized_batch_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.quantized_batch_matmul'}}
  %0 = linalg.quantized_batch_matmul ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.matvec'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.matvec ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.matvec'}}
  %0 = linalg.matvec ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1x1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.vecmat'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.vecmat ins(%arg0, %arg1 : tensor<1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<1xf64>, tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.vecmat'}}
  %0 = linalg.vecmat ins(%arg0, %arg1 : tensor<1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<1xf64>, tensor<1x1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.batch_matvec'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<1x1x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.batch_matvec'}}
  %0 = linalg.batch_matvec ins(%arg0, %arg1 : tensor<1x1x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.batch_vecmat'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.batch_vecmat ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.batch_vecmat'}}
  %0 = linalg.batch_vecmat ins(%arg0, %arg1 : tensor<1x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.dot'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.dot ins(%arg0, %arg1 : tensor<1xf64>, tensor<1xf64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<1xf64>, tensor<1xf64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.dot'}}
  %0 = linalg.dot ins(%arg0, %arg1 : tensor<1xf64>, tensor<1xf64>) outs(%arg2 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<1xf64>, tensor<1xf64>, tensor<f64>, tensor<1xf64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_1d'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_1d ins(%arg0, %arg1 : tensor<2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_1d'}}
  %0 = linalg.conv_1d ins(%arg0, %arg1 : tensor<2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<2xf64>, tensor<1xf64>, tensor<1xf64>, tensor<2xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d ins(%arg0, %arg1 : tensor<2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<2x2xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1xf64>) -> tensor<1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d'}}
  %0 = linalg.conv_2d ins(%arg0, %arg1 : tensor<2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<2x2xf64>, tensor<1x1xf64>, tensor<1x1xf64>, tensor<2x2xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<2x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_3d'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<2x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<2x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<2x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<2x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_3d'}}
  %0 = linalg.conv_3d ins(%arg0, %arg1 : tensor<2x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<2x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<2x2x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_1d_nwc_wcf'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_1d_nwc_wcf ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_1d_nwc_wcf'}}
  %0 = linalg.conv_1d_nwc_wcf ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_1d_ncw_fcw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_1d_ncw_fcw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_1d_ncw_fcw'}}
  %0 = linalg.conv_1d_ncw_fcw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nhwc_hwcf'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nhwc_hwcf'}}
  %0 = linalg.conv_2d_nhwc_hwcf ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nhwc_fhwc'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nhwc_fhwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nhwc_fhwc'}}
  %0 = linalg.conv_2d_nhwc_fhwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nhwc_hwcf_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nhwc_hwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nhwc_hwcf_q'}}
  %0 = linalg.conv_2d_nhwc_hwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nhwc_fhwc_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nhwc_fhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nhwc_fhwc_q'}}
  %0 = linalg.conv_2d_nhwc_fhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nchw_fchw_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nchw_fchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nchw_fchw_q'}}
  %0 = linalg.conv_2d_nchw_fchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nchw_fchw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nchw_fchw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nchw_fchw'}}
  %0 = linalg.conv_2d_nchw_fchw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_ngchw_fgchw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_ngchw_fgchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_ngchw_fgchw'}}
  %0 = linalg.conv_2d_ngchw_fgchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_ngchw_gfchw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_ngchw_gfchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_ngchw_gfchw'}}
  %0 = linalg.conv_2d_ngchw_gfchw ins(%arg0, %arg1 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nhwgc_gfhwc'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nhwgc_gfhwc ins(%arg0, %arg1 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nhwgc_gfhwc'}}
  %0 = linalg.conv_2d_nhwgc_gfhwc ins(%arg0, %arg1 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_nhwgc_gfhwc_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_nhwgc_gfhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_nhwgc_gfhwc_q'}}
  %0 = linalg.conv_2d_nhwgc_gfhwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_2d_ngchw_gfchw_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_2d_ngchw_gfchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x1x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_2d_ngchw_gfchw_q'}}
  %0 = linalg.conv_2d_ngchw_gfchw_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x1x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_3d_ndhwc_dhwcf'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_3d_ndhwc_dhwcf ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_3d_ndhwc_dhwcf'}}
  %0 = linalg.conv_3d_ndhwc_dhwcf ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_3d_ndhwc_dhwcf_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_3d_ndhwc_dhwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_3d_ndhwc_dhwcf_q'}}
  %0 = linalg.conv_3d_ndhwc_dhwcf_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.conv_3d_ncdhw_fcdhw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.conv_3d_ncdhw_fcdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.conv_3d_ncdhw_fcdhw'}}
  %0 = linalg.conv_3d_ncdhw_fcdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_1d_nwc_wc'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_1d_nwc_wc'}}
  %0 = linalg.depthwise_conv_1d_nwc_wc ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_1d_ncw_cw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_1d_ncw_cw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_1d_ncw_cw'}}
  %0 = linalg.depthwise_conv_1d_ncw_cw ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1x1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_1d_nwc_wcm'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_1d_nwc_wcm ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_1d_nwc_wcm'}}
  %0 = linalg.depthwise_conv_1d_nwc_wcm ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_2d_nhwc_hwc'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_2d_nhwc_hwc'}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwc ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_2d_nchw_chw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_2d_nchw_chw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_2d_nchw_chw'}}
  %0 = linalg.depthwise_conv_2d_nchw_chw ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_2d_nhwc_hwc_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_2d_nhwc_hwc_q'}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwc_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_2d_nhwc_hwcm'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_2d_nhwc_hwcm'}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_2d_nhwc_hwcm_q'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  %c1_i32 = arith.constant 1 : i32
  %c1_i32_0 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_2d_nhwc_hwcm_q'}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm_q ins(%arg0, %arg1, %c1_i32, %c1_i32_0 : tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, i32, i32) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.depthwise_conv_3d_ncdhw_cdhw'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.depthwise_conv_3d_ncdhw_cdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2x2xf64>, %arg1: tensor<1x1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.depthwise_conv_3d_ncdhw_cdhw'}}
  %0 = linalg.depthwise_conv_3d_ncdhw_cdhw ins(%arg0, %arg1 : tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2x2xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x2x2x2xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nhwc_sum'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nhwc_sum'}}
  %0 = linalg.pooling_nhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nchw_sum'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nchw_sum ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nchw_sum'}}
  %0 = linalg.pooling_nchw_sum ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nhwc_max'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nhwc_max ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nhwc_max'}}
  %0 = linalg.pooling_nhwc_max ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nchw_max'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nchw_max ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2x2xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nchw_max'}}
  %0 = linalg.pooling_nchw_max ins(%arg0, %arg1 : tensor<1x1x2x2xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2x2xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x2x2xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nhwc_min'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nhwc_min ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x1xf64>, %arg1: tensor<1x1xf64>, %arg2: tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nhwc_min'}}
  %0 = linalg.pooling_nhwc_min ins(%arg0, %arg1 : tensor<1x2x2x1xf64>, tensor<1x1xf64>) outs(%arg2 : tensor<1x1x1x1xf64>) -> tensor<1x1x1x1xf64>
  return %0 : tensor<1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x1xf64>, tensor<1x1xf64>, tensor<1x1x1x1xf64>, tensor<1x2x2x1xf64>) -> (tensor<1x1x1x1xf64>, tensor<1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nwc_sum'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nwc_sum ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nwc_sum'}}
  %0 = linalg.pooling_nwc_sum ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_ncw_sum'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_ncw_sum ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_ncw_sum'}}
  %0 = linalg.pooling_ncw_sum ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nwc_max'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nwc_max ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nwc_max'}}
  %0 = linalg.pooling_nwc_max ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_ncw_max'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_ncw_max ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x2xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1x2xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_ncw_max'}}
  %0 = linalg.pooling_ncw_max ins(%arg0, %arg1 : tensor<1x1x2xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x1x2xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x2xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_nwc_min'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_nwc_min ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x1x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x1xf64>, %arg1: tensor<1xf64>, %arg2: tensor<1x1x1xf64>) -> tensor<1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_nwc_min'}}
  %0 = linalg.pooling_nwc_min ins(%arg0, %arg1 : tensor<1x2x1xf64>, tensor<1xf64>) outs(%arg2 : tensor<1x1x1xf64>) -> tensor<1x1x1xf64>
  return %0 : tensor<1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x1xf64>, tensor<1xf64>, tensor<1x1x1xf64>, tensor<1x2x1xf64>) -> (tensor<1x1x1xf64>, tensor<1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_ndhwc_sum'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_ndhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_ndhwc_sum'}}
  %0 = linalg.pooling_ndhwc_sum ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_ndhwc_max'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_ndhwc_max ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_ndhwc_max'}}
  %0 = linalg.pooling_ndhwc_max ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.pooling_ndhwc_min'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.pooling_ndhwc_min ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_vjp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x2x2x2x1xf64>, %arg1: tensor<1x1x1xf64>, %arg2: tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.pooling_ndhwc_min'}}
  %0 = linalg.pooling_ndhwc_min ins(%arg0, %arg1 : tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>) outs(%arg2 : tensor<1x1x1x1x1xf64>) -> tensor<1x1x1x1x1xf64>
  return %0 : tensor<1x1x1x1x1xf64>
}
func.func private @f_jvp(tensor<1x2x2x2x1xf64>, tensor<1x1x1xf64>, tensor<1x1x1x1x1xf64>, tensor<1x2x2x2x1xf64>) -> (tensor<1x1x1x1x1xf64>, tensor<1x1x1x1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>) -> tensor<f64> {
  %cst = arith.constant 1.000000e+00 : f64
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.fill'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.fill ins(%cst : f64) outs(%arg0 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<f64>) -> tensor<f64> {
  %cst = arith.constant 1.000000e+00 : f64
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.fill'}}
  %0 = linalg.fill ins(%cst : f64) outs(%arg0 : tensor<f64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_jvp(tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %cst = arith.constant 1.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+00 : f64
  %c1_i32 = arith.constant 1 : i32
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.fill_rng_2d'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = linalg.fill_rng_2d ins(%cst, %cst_0, %c1_i32 : f64, f64, i32) outs(%arg0 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_vjp(tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%arg0: tensor<1x1xf64>) -> tensor<1x1xf64> {
  %cst = arith.constant 1.000000e+00 : f64
  %cst_0 = arith.constant 1.000000e+00 : f64
  %c1_i32 = arith.constant 1 : i32
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.fill_rng_2d'}}
  %0 = linalg.fill_rng_2d ins(%cst, %cst_0, %c1_i32 : f64, f64, i32) outs(%arg0 : tensor<1x1xf64>) -> tensor<1x1xf64>
  return %0 : tensor<1x1xf64>
}
func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1x1xf64>, tensor<1x1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
