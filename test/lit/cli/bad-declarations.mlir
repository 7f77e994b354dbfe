// Malformed derivative declarations and primals tad-differentiate cannot handle are
// diagnostics at the declaration (or the primal op), never internal errors.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate
// RUN: not autodiff-opt %s --split-input-file --tad-differentiate 2>&1 | FileCheck %s --implicit-check-not=Traceback --implicit-check-not="internal error"
// CHECK: error:

func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
// expected-error @+1 {{@f_d declares both tad.vjp and tad.jvp: a function is one transformation}}
func.func private @f_d(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}, tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
// expected-error @+1 {{'wrt' must list input indices as array<i64: ...>, got 0 : i64}}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = 0 : i64}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
// expected-error @+1 {{'of' must name a function (@f), got "f"}}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = "f", wrt = array<i64: 0>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
// expected-error @+1 {{'wrt' must name one or more distinct inputs, got [0, 0]}}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0, 0>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
// expected-error @+1 {{wrt index 3 is out of range: @f has 1 inputs}}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 3>}}

// -----

func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
// Wrong arity: the gradient is missing.
// expected-error @+1 {{@f_vjp is declared as (tensor<3xf64>, tensor<f64>) -> tensor<f64>, but the vjp of @f}}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// expected-error @+1 {{cannot differentiate @f: input 0 has type memref<3xf64>}}
func.func @f(%x: memref<3xf64>) -> tensor<f64> {
  %c = arith.constant 0 : index
  %0 = memref.load %x[%c] : memref<3xf64>
  %1 = tensor.from_elements %0 : tensor<f64>
  return %1 : tensor<f64>
}
func.func private @f_vjp(memref<3xf64>, tensor<f64>) -> (tensor<f64>, memref<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%x: tensor<f64>, %c: tensor<i1>) -> tensor<f64> {
  %b = tensor.extract %c[] : tensor<i1>
  // expected-error @+1 {{cannot differentiate @f: unstructured control flow ('cf.cond_br') is not supported; use scf.if, scf.for or scf.while}}
  cf.cond_br %b, ^a, ^b
^a:
  %0 = math.sin %x : tensor<f64>
  return %0 : tensor<f64>
^b:
  return %x : tensor<f64>
}
func.func private @f_vjp(tensor<f64>, tensor<i1>, tensor<f64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = math.sin %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
// A request on a function that already has a body is checked, not ignored.
// expected-error @+1 {{@g is declared as (tensor<2xf64>, tensor<3xf64>) -> (tensor<2xf64>, tensor<2xf64>), but the vjp of @f}}
func.func @g(%x: tensor<2xf64>, %c: tensor<3xf64>) -> (tensor<2xf64>, tensor<2xf64>) attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}} {
  return %x, %x : tensor<2xf64>, tensor<2xf64>
}
