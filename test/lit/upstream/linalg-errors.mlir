// What the linalg rules do not cover is refused at the op, naming the rule.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate

// A product reduction has no adjoint without its partial products.
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @product(%x: tensor<4xf64>, %init: tensor<f64>) -> tensor<f64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for linalg.generic: output 0 is a reduction whose body is neither 'out + g' nor a max/min of 'out' and 'g'}}
  %0 = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]} ins(%x : tensor<4xf64>) outs(%init : tensor<f64>) {
  ^bb0(%in: f64, %acc: f64):
    %p = arith.mulf %acc, %in : f64
    linalg.yield %p : f64
  } -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @product_vjp(tensor<4xf64>, tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @product, wrt = array<i64: 0>}}

// -----

// Forward mode recomputes a max reduction's running value, which a batch of tangents cannot share.
func.func @rowmax(%x: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no batched forward-mode (jvp) rule for linalg.generic with a reduction other than 'out + g'}}
  %0 = linalg.reduce ins(%x : tensor<3x4xf64>) outs(%init : tensor<3xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %m = arith.maxnumf %in, %acc : f64
      linalg.yield %m : f64
    }
  return %0 : tensor<3xf64>
}
func.func private @rowmax_jvp(tensor<3x4xf64>, tensor<3xf64>, tensor<2x3x4xf64>) -> (tensor<3xf64>, tensor<2x3xf64>)
    attributes {tad.jvp = {of = @rowmax, wrt = array<i64: 0>}}

// -----

// A windowed operand's adjoint is accumulated in loops, which take one cotangent at a time.
func.func @conv(%x: tensor<6xf64>, %w: tensor<3xf64>, %o: tensor<4xf64>) -> tensor<4xf64> {
  // expected-error @+1 {{no batched reverse-mode (vjp) rule for linalg.generic reading an operand through a window (an indexing map that is not a projected permutation)}}
  %0 = linalg.conv_1d ins(%x, %w : tensor<6xf64>, tensor<3xf64>) outs(%o : tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func private @conv_vjp(tensor<6xf64>, tensor<3xf64>, tensor<4xf64>, tensor<2x4xf64>) -> (tensor<4xf64>, tensor<2x6xf64>)
    attributes {tad.vjp = {of = @conv, wrt = array<i64: 0>}}
