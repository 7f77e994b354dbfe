// What the tensor rules refuse, reported at the op.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate

// A padding value computed inside tensor.pad's region from a value with a
// derivative (it could differ at every position) has no rule in reverse mode...
func.func @f(%x: tensor<2xf64>, %v: f64) -> tensor<4xf64> {
  // expected-error @+1 {{no derivative rule for 'tensor.pad' whose padding value is computed inside its region from values with derivatives: compute it before the pad and yield it unchanged}}
  %0 = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    %w = arith.mulf %v, %v : f64
    tensor.yield %w : f64
  } : tensor<2xf64> to tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func private @f_vjp(tensor<2xf64>, f64, tensor<4xf64>) -> (tensor<4xf64>, f64)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 1>}}

// -----

// ... nor in forward mode.
func.func @f(%x: tensor<2xf64>, %v: f64) -> tensor<4xf64> {
  // expected-error @+1 {{no derivative rule for 'tensor.pad' whose padding value is computed inside its region}}
  %0 = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    %w = arith.mulf %v, %v : f64
    tensor.yield %w : f64
  } : tensor<2xf64> to tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func private @f_jvp(tensor<2xf64>, f64, tensor<2xf64>, f64) -> (tensor<4xf64>, tensor<4xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0, 1>}}
