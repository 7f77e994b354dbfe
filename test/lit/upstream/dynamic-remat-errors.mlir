// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate "--tad-remat=budget=4096"

// A memory budget needs the bytes of every value: dynamic shapes (issue 14)
// are refused at the function or op that holds one.

// expected-error @+1 {{a memory budget needs static shapes: @f takes a value of type tensor<?x4xf64>, whose bytes are known at run time only}}
func.func @f(%x: tensor<?x4xf64>) -> tensor<4xf64> {
  %0 = math.tanh %x : tensor<?x4xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<?x4xf64>) -> tensor<4xf64>
  return %1 : tensor<4xf64>
}

// -----

func.func @g(%x: tensor<4xf64>, %n: index) -> tensor<f64> {
  %c0 = arith.constant 0.0 : f64
  // expected-error @+1 {{a memory budget needs static shapes: 'tensor.splat' makes a value of type tensor<?x4xf64>, whose bytes are known at run time only}}
  %0 = tensor.splat %c0[%n] : tensor<?x4xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0, 1>} : (tensor<?x4xf64>) -> tensor<f64>
  return %1 : tensor<f64>
}
