// tad-verify checks the dimensions of tad.reverse: in range, none repeated.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

func.func @repeated_dim(%x: tensor<4x3xf64>) {
  // expected-error @+1 {{'tad.reverse' op dimensions [1, 1] repeats a dimension}}
  %0 = "tad.reverse"(%x) {dimensions = array<i64: 1, 1>} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return
}

// -----

func.func @dim_out_of_range(%x: tensor<4x3xf64>) {
  // expected-error @+1 {{'tad.reverse' op dimensions value 2 is out of range for rank 2}}
  %0 = "tad.reverse"(%x) {dimensions = array<i64: 2>} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return
}
