// The shape rules of the collectives (tad-verify runs after parsing).
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

func.func @scatter_needs_a_row_per_process(%x: tensor<3x3xf64>) {
  // expected-error @+1 {{'tad.reduce_scatter' op the leading dim of the operand must be the 2 processes, got [3, 3]}}
  %0 = "tad.reduce_scatter"(%x) {processes = 2} : (tensor<3x3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @element_types_of_mpi(%x: tensor<3xf16>) {
  // expected-error @+1 {{'tad.psum' op collectives take f32, f64, i32, i64 elements, got f16}}
  %0 = "tad.psum"(%x) {processes = 2} : (tensor<3xf16>) -> tensor<3xf16>
  return
}

// -----

func.func @gather_stacks_processes(%x: tensor<3xf64>) {
  // expected-error @+1 {{'tad.all_gather' op result type tensor<3x3xf64> does not match the inferred type tensor<2x3xf64>}}
  %0 = "tad.all_gather"(%x) {processes = 2} : (tensor<3xf64>) -> tensor<3x3xf64>
  return
}

// -----

func.func @at_least_one_process(%x: tensor<3xf64>) {
  // expected-error @+1 {{'tad.psum' op processes must be at least 1, got 0}}
  %0 = "tad.psum"(%x) {processes = 0} : (tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @static_shapes_only(%x: tensor<?xf64>) {
  // expected-error @+1 {{'tad.psum' op takes no dynamic dimensions (?), got tensor<?xf64>: it works on static shapes only}}
  %0 = "tad.psum"(%x) {processes = 2} : (tensor<?xf64>) -> tensor<?xf64>
  return
}

// -----

func.func @processes_attribute(%x: tensor<3xf64>) {
  // expected-error @+1 {{'tad.psum' op attribute "processes" is expected but not provided}}
  %0 = "tad.psum"(%x) : (tensor<3xf64>) -> tensor<3xf64>
  return
}

// -----

func.func @mpi_counts_are_c_ints(%x: tensor<2x2147483648xi32>) {
  // expected-error @+1 {{'tad.reduce_scatter' op 2147483648 elements are more than one MPI call moves (2147483647)}}
  %0 = "tad.reduce_scatter"(%x) {processes = 2} : (tensor<2x2147483648xi32>) -> tensor<2147483648xi32>
  return
}

// -----

func.func @shard_splits_evenly(%x: tensor<3x4xf64>) {
  // expected-error @+1 {{'tad.shard' op dim 0 of size 3 does not split evenly over 2 processes}}
  %0 = "tad.shard"(%x) {dim = 0, process = 0, processes = 2} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return
}

// -----

func.func @shard_of_a_process_of_the_job(%x: tensor<4xf64>) {
  // expected-error @+1 {{'tad.shard' op process 2 is not one of the 2 processes}}
  %0 = "tad.shard"(%x) {dim = 0, process = 2, processes = 2} : (tensor<4xf64>) -> tensor<4xf64>
  return
}

// -----

func.func @pmax_element_types(%x: tensor<3xi1>) {
  // expected-error @+1 {{'tad.pmax' op collectives take f32, f64, i32, i64 elements, got i1}}
  %0 = "tad.pmax"(%x) {processes = 2} : (tensor<3xi1>) -> tensor<3xi1>
  return
}
