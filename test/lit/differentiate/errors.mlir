// What tad-differentiate rejects, reported at the op or declaration at fault.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate

// An op without a reverse-mode rule is named at its location, with the way out.
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'math.sincos'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0, %1 = math.sincos %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// ... also inside a callee, which is differentiated for the call.
func.func private @callee(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'math.sincos'}}
  %0, %1 = math.sincos %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = func.call @callee(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// Forward mode names the op too.
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'math.sincos'}}
  %0, %1 = math.sincos %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{@f_vjp is declared as (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf32>), but the vjp of @f with respect to inputs [0] has type (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)}}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf32>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// A batch prefix must be the same on the cotangents and the gradients.
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{but the vjp of @f with respect to inputs [0] has type (tensor<3xf64>, tensor<2x3xf64>) -> (tensor<3xf64>, tensor<2x3xf64>)}}
func.func private @f_vjp(tensor<3xf64>, tensor<2x3xf64>) -> (tensor<3xf64>, tensor<3x3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// A jvp takes one tangent per wrt input.
func.func @f(%x: tensor<3xf64>, %y: tensor<2xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{the jvp of @f with respect to inputs [0, 1] has type (tensor<3xf64>, tensor<2xf64>, tensor<3xf64>, tensor<2xf64>) -> (tensor<3xf64>, tensor<3xf64>)}}
func.func private @f_jvp(tensor<3xf64>, tensor<2xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0, 1>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{wrt index 1 is out of range: @f has 1 inputs}}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 1>}}

// -----

func.func @f(%x: tensor<3xf64>, %n: tensor<3xi64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{cannot differentiate with respect to input 1 of type tensor<3xi64>: only floating-point and complex inputs have derivatives}}
func.func private @f_vjp(tensor<3xf64>, tensor<3xi64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xi64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 1>}}

// -----

// expected-error @+1 {{@g is not defined in this module}}
func.func private @g_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @g, wrt = array<i64: 0>}}

// -----

func.func private @g(tensor<3xf64>) -> tensor<3xf64>
// expected-error @+1 {{@g is only declared; it has no body to differentiate}}
func.func private @g_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @g, wrt = array<i64: 0>}}

// -----

// expected-error @+1 {{@loop depends on its own derivative}}
func.func private @loop(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @loop, wrt = array<i64: 0>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
// expected-error @+1 {{tad.vjp must be {of = @function, wrt = array<i64: ...>}}}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = @f}

// -----

// The rule of tad.custom_vjp must take the inputs and the cotangents.
// expected-error @+1 {{tad.custom_vjp of @f must name a function of type (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>}}
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_vjp = @f_bwd} {
  return %x : tensor<3xf64>
}
func.func private @f_bwd(%x: tensor<3xf64>) -> tensor<3xf64> {
  return %x : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// A dependence through memory is seen too: an op without a rule may write any
// float memref it takes (here memref.copy), so what is read back is active.
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %m = memref.alloc() : memref<3xf64>
  %b = bufferization.to_buffer %x : tensor<3xf64> to memref<3xf64>
  memref.copy %b, %m : memref<3xf64> to memref<3xf64>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'bufferization.to_tensor'}}
  %r = bufferization.to_tensor %m : memref<3xf64> to tensor<3xf64>
  return %r : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// A custom_jvp rule with the wrong type is named at the function.
// expected-error @+1 {{tad.custom_jvp of @wrong must name a function taking its inputs and one tangent per input, and returning its results and one tangent per result}}
func.func @wrong(%x: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_jvp = @wrong_rule} {
  return %x : tensor<3xf64>
}
func.func private @wrong_rule(%x: tensor<3xf64>, %t: tensor<3xf64>) -> tensor<3xf64> {
  return %t : tensor<3xf64>
}
func.func private @wrong_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @wrong, wrt = array<i64: 0>}}

// -----

// The rule takes tangents for the leading inputs only (the others are values
// the function closed over): a derivative with respect to those is refused.
func.func @closure(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> attributes {tad.custom_jvp = @closure_rule} {
  %0 = arith.mulf %x, %w : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @closure_rule(%x: tensor<3xf64>, %w: tensor<3xf64>, %t: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %0 = arith.mulf %x, %w : tensor<3xf64>
  %1 = arith.mulf %t, %w : tensor<3xf64>
  return %0, %1 : tensor<3xf64>, tensor<3xf64>
}
// expected-error @+1 {{the custom_jvp rule of @closure gives no tangent for its input 1 (a value the function closed over); pass it to the function as an argument}}
func.func private @closure_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @closure, wrt = array<i64: 1>}}
