// What tad-verify refuses of tad.threefry2x32: words other than i32, words of different shapes.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-verify

func.func @wide_words(%k: tensor<3xi64>, %x: tensor<3xi64>) -> tensor<3xi64> {
  // expected-error @+1 {{key1 must have i32 elements (a 32-bit word), got i64}}
  %0:2 = "tad.threefry2x32"(%k, %k, %x, %x)
      : (tensor<3xi64>, tensor<3xi64>, tensor<3xi64>, tensor<3xi64>) -> (tensor<3xi64>, tensor<3xi64>)
  return %0#0 : tensor<3xi64>
}

// -----

func.func @unbroadcast_key(%k: tensor<i32>, %x: tensor<3xi32>) -> tensor<3xi32> {
  // expected-error @+1 {{the words must have one shape (broadcast them first), got [] and [3]}}
  %0:2 = "tad.threefry2x32"(%k, %k, %x, %x)
      : (tensor<i32>, tensor<i32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<3xi32>)
  return %0#0 : tensor<3xi32>
}
