// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-verify --tad-differentiate

// What stays unsupported with dynamic shapes (issue 14) is refused at the op,
// naming it: never an exception text at 0:0.

// An op whose result sizes come from its attributes has no size for a `?`.
func.func @iota() -> tensor<?xf32> {
  // expected-error @+1 {{'tad.iota' op takes no dynamic dimensions (?), got tensor<?xf32>: it works on static shapes only}}
  %0 = "tad.iota"() {iota_dimension = 0} : () -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// A broadcast's dynamic result dim must be a dynamic dim of its operand.
func.func @bcast(%x: tensor<3xf64>) -> tensor<?x3xf64> {
  // expected-error @+1 {{'tad.broadcast_in_dim' op result dimension 0 is dynamic (?) but no dynamic operand dimension gives its size}}
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf64>) -> tensor<?x3xf64>
  return %0 : tensor<?x3xf64>
}

// -----

// Static sizes that disagree are still an error next to a dynamic dim.
func.func @mm(%x: tensor<?x3xf64>, %y: tensor<4x5xf64>) -> tensor<?x5xf64> {
  // expected-error @+1 {{'tad.dot_general' op contracting dimension sizes differ: lhs dim 1 has 3, rhs dim 0 has 4}}
  %0 = "tad.dot_general"(%x, %y) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<?x3xf64>, tensor<4x5xf64>) -> tensor<?x5xf64>
  return %0 : tensor<?x5xf64>
}

// -----

// A reshape may not merge a dynamic dim with others.
func.func @flatten(%x: tensor<?x4xf64>) -> tensor<?xf64> {
  // expected-error @+1 {{'tad.reshape' op cannot reshape [?, 4] into [?]: a reshape of dynamic dimensions (?) may only add or remove size-1 dimensions and regroup the static ones between them}}
  %0 = "tad.reshape"(%x) : (tensor<?x4xf64>) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

// A rule that needs static sizes says so at the op it differentiates.
func.func @cat(%x: tensor<?xf64>, %w: tensor<?xf64>) -> tensor<?xf64> {
  // expected-error @+1 {{the vjp rule of 'tensor.concat' cannot build its derivative for these shapes: 'tad.slice' takes no dynamic dimensions (?), got tensor<?xf64>: it works on static shapes only}}
  %t = tensor.concat dim(0) %x, %w : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
  return %t : tensor<?xf64>
}
func.func private @cat_vjp(tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @cat, wrt = array<i64: 0, 1>}}

// -----

// A loop tape holds rows of the carry's initial length: a body that may
// change the length is refused in reverse mode.
func.func @grow(%x: tensor<?xf64>, %w: tensor<?xf64>) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'scf.for' whose carry 0 of type tensor<?xf64> may change its dynamic size from one iteration to the next}}
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<?xf64>) {
    %s = math.sin %a : tensor<?xf64>
    %t = tensor.concat dim(0) %s, %w : (tensor<?xf64>, tensor<?xf64>) -> tensor<?xf64>
    scf.yield %t : tensor<?xf64>
  }
  return %r : tensor<?xf64>
}
func.func private @grow_vjp(tensor<?xf64>, tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @grow, wrt = array<i64: 0, 1>}}

// -----

// A batch of cotangents needs a static size.
func.func @batch(%x: tensor<?xf64>) -> tensor<?xf64> {
  %0 = math.exp %x : tensor<?xf64>
  return %0 : tensor<?xf64>
}
// expected-error @+1 {{@batch_vjp: the batch prefix [?] of its cotangents has a dynamic size (?); a batch of (co)tangents needs static sizes}}
func.func private @batch_vjp(tensor<?xf64>, tensor<?x?xf64>) -> (tensor<?xf64>, tensor<?x?xf64>)
    attributes {tad.vjp = {of = @batch, wrt = array<i64: 0>}}
