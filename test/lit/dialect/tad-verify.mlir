// One bad case per shape rule of dialects/shapes.py, plus what IRDL itself rejects.
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics

// IRDL: kinds of attributes, operands and results

func.func @missing_attribute(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.transpose' op attribute "permutation" is expected but not provided}}
  %0 = "tad.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @attribute_kind(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected base attribute 'builtin.dense_array' but got 'builtin.integer'}}
  %0 = "tad.transpose"(%x) {permutation = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @result_not_a_tensor(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expected base type 'builtin.tensor' but got 'builtin.f32'}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> f32
  return
}

// -----

func.func @operand_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{expects exactly 1 operands, but got 2}}
  %0 = "tad.transpose"(%x, %x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// An op whose sizes come from attributes only works on static shapes.
func.func @dynamic_shape(%x: tensor<?x3xf32>) {
  // expected-error @+1 {{'tad.slice' op takes no dynamic dimensions (?), got tensor<?x3xf32>: it works on static shapes only}}
  %0 = "tad.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 1, 3>, strides = array<i64: 1, 1>} : (tensor<?x3xf32>) -> tensor<1x3xf32>
  return
}

// -----

// transpose

func.func @transpose_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.transpose' op result type tensor<2x3xf32> does not match the inferred type tensor<3x2xf32>}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @transpose_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.transpose' op permutation value 2 is out of range for rank 2}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 2, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @transpose_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.transpose' op permutation [0, 0] repeats a dimension}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

func.func @transpose_short(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.transpose' op permutation [1] does not fit rank 2}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

// broadcast_in_dim

func.func @broadcast_size(%x: tensor<2xf32>) {
  // expected-error @+1 {{'tad.broadcast_in_dim' op operand dimension 0 (size 2) cannot broadcast to result dimension 1 (size 3)}}
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1>} : (tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_entries(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tad.broadcast_in_dim' op broadcast_dimensions has 2 entries for an operand of rank 1}}
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<3xf32>) -> tensor<3x3xf32>
  return
}

// -----

func.func @broadcast_out_of_range(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tad.broadcast_in_dim' op broadcast_dimensions value 2 is out of range for rank 2}}
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 2>} : (tensor<3xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @broadcast_element_type(%x: tensor<3xf32>) {
  // expected-error @+1 {{'tad.broadcast_in_dim' op element types differ: f32 vs f64}}
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<4x3xf64>
  return
}

// -----

// reshape

func.func @reshape_count(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.reshape' op cannot reshape 6 elements [2, 3] into [7]}}
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<7xf32>
  return
}

// -----

// slice

func.func @slice_out_of_bounds(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tad.slice' op slice [0, 9) is out of bounds for dimension 0 of size 8}}
  %0 = "tad.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 9, 4>, strides = array<i64: 1, 1>} : (tensor<8x4xf32>) -> tensor<9x4xf32>
  return
}

// -----

func.func @slice_stride(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tad.slice' op stride 0 of dimension 1 must be positive}}
  %0 = "tad.slice"(%x) {start_indices = array<i64: 0, 0>, limit_indices = array<i64: 8, 4>, strides = array<i64: 1, 0>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

func.func @slice_rank(%x: tensor<8x4xf32>) {
  // expected-error @+1 {{'tad.slice' op slice needs 2 start, limit and stride values}}
  %0 = "tad.slice"(%x) {start_indices = array<i64: 0>, limit_indices = array<i64: 8>, strides = array<i64: 1>} : (tensor<8x4xf32>) -> tensor<8x4xf32>
  return
}

// -----

// pad

func.func @pad_value_rank(%x: tensor<2x3xf32>, %v: tensor<1xf32>) {
  // expected-error @+1 {{'tad.pad' op padding_value must be a rank-0 tensor}}
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<1xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_negative(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'tad.pad' op padding must be non-negative}}
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: -1, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<1x3xf32>
  return
}

// -----

func.func @pad_value_type(%x: tensor<2x3xf32>, %v: tensor<f64>) {
  // expected-error @+1 {{'tad.pad' op element types differ: f32 vs f64}}
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 0, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 0>} : (tensor<2x3xf32>, tensor<f64>) -> tensor<2x3xf32>
  return
}

// -----

func.func @pad_result_type(%x: tensor<2x3xf32>, %v: tensor<f32>) {
  // expected-error @+1 {{'tad.pad' op result type tensor<2x3xf32> does not match the inferred type tensor<3x5xf32>}}
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 1, 0>, edge_padding_high = array<i64: 0, 0>, interior_padding = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return
}

// -----

// iota

func.func @iota_dimension() {
  // expected-error @+1 {{'tad.iota' op iota_dimension value 2 is out of range for rank 2}}
  %0 = "tad.iota"() {iota_dimension = 2 : i64} : () -> tensor<2x5xi64>
  return
}

// -----

// constant

func.func @constant_value_type() {
  // expected-error @+1 {{'tad.constant' op value of type f32 does not match element type f64}}
  %0 = "tad.constant"() {value = 1.0 : f32} : () -> tensor<2xf64>
  return
}

// -----

func.func @constant_not_scalar() {
  // expected-error @+1 {{'tad.constant' op value must be a scalar integer or float attribute}}
  %0 = "tad.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<2xf32>
  return
}

// -----

// convert

func.func @convert_shape(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.convert' op convert cannot change the shape [2, 3]}}
  %0 = "tad.convert"(%x) : (tensor<2x3xf32>) -> tensor<3x2xi32>
  return
}

// -----

// dot_general

func.func @dot_contracting_size(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'tad.dot_general' op contracting dimension sizes differ: lhs dim 1 has 3, rhs dim 0 has 4}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_batching_size(%a: tensor<4x2x3xf32>, %b: tensor<5x3x2xf32>) {
  // expected-error @+1 {{'tad.dot_general' op batching dimension sizes differ: lhs dim 0 has 4, rhs dim 0 has 5}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<4x2x3xf32>, tensor<5x3x2xf32>) -> tensor<4x2x2xf32>
  return
}

// -----

func.func @dot_contracting_count(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{'tad.dot_general' op lhs and rhs need as many contracting dimensions}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_batching_count(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{'tad.dot_general' op lhs and rhs need as many batching dimensions}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_batching_and_contracting(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'tad.dot_general' op an lhs dimension is both batching and contracting}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @dot_repeated(%a: tensor<3x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+1 {{'tad.dot_general' op lhs_contracting_dimensions [1, 1] repeats a dimension}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1, 1>, rhs_contracting_dimensions = array<i64: 0, 1>} : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3xf32>
  return
}

// -----

func.func @dot_element_type(%a: tensor<2x3xf32>, %b: tensor<3x5xf64>) {
  // expected-error @+1 {{'tad.dot_general' op element types differ: f32 vs f64}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf64>) -> tensor<2x5xf32>
  return
}

// -----

func.func @dot_result_type(%a: tensor<2x3xf32>, %b: tensor<3x5xf32>) {
  // expected-error @+1 {{'tad.dot_general' op result type tensor<5x2xf32> does not match the inferred type tensor<2x5xf32>}}
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<5x2xf32>
  return
}

// -----

// reductions

func.func @reduce_out_of_range(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.reduce_sum' op dimensions value 2 is out of range for rank 2}}
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_repeated(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.reduce_max' op dimensions [1, 1] repeats a dimension}}
  %0 = "tad.reduce_max"(%x) {dimensions = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

func.func @reduce_result_type(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.reduce_min' op result type tensor<3xf32> does not match the inferred type tensor<2xf32>}}
  %0 = "tad.reduce_min"(%x) {dimensions = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return
}

// -----

// argmax

func.func @argmax_axis(%x: tensor<2x7xf32>) {
  // expected-error @+1 {{'tad.argmax' op axis value 2 is out of range for rank 2}}
  %0 = "tad.argmax"(%x) {axis = 2 : i64} : (tensor<2x7xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @argmax_empty_axis(%x: tensor<2x0xf32>) {
  // expected-error @+1 {{'tad.argmax' op argmax of an empty axis}}
  %0 = "tad.argmax"(%x) {axis = 1 : i64} : (tensor<2x0xf32>) -> tensor<2xi64>
  return
}

// -----

// identity ops

func.func @stop_gradient_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tad.stop_gradient' op result type tensor<4xf64> does not match the inferred type tensor<4xf32>}}
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return
}

// -----

func.func @checkpoint_type(%x: tensor<4xf32>) {
  // expected-error @+1 {{'tad.end_checkpoint' op result type tensor<5xf32> does not match the inferred type tensor<4xf32>}}
  %0 = "tad.end_checkpoint"(%x) : (tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

// Every error of a chunk is reported, not only the first.

func.func @two_errors(%x: tensor<2x3xf32>) {
  // expected-error @below {{'tad.transpose' op permutation [0, 0] repeats a dimension}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %1 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<5xf32>
  // expected-error @above {{'tad.reshape' op cannot reshape 6 elements [2, 3] into [5]}}
  return
}

// -----

// Element types the lowering has no arithmetic for (it asserted in LLVM before).

func.func @index_elements(%x: tensor<3x4xindex>, %y: tensor<4x5xindex>) {
  // expected-error @+1 {{'tad.dot_general' op element type index is not supported (f16, bf16, f32, f64, complex<f32>, complex<f64>, i1, i8, i16, i32 or i64)}}
  %0 = "tad.dot_general"(%x, %y) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xindex>, tensor<4x5xindex>) -> tensor<3x5xindex>
  return
}

// -----

func.func @complex_elements(%x: tensor<3x4xcomplex<f32>>, %y: tensor<4x5xcomplex<f32>>) {
  // expected-error @+1 {{'tad.dot_general' op element type complex<f32> is not supported}}
  %0 = "tad.dot_general"(%x, %y) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x4xcomplex<f32>>, tensor<4x5xcomplex<f32>>) -> tensor<3x5xcomplex<f32>>
  return
}

// -----

func.func @f80_elements(%x: tensor<3xf80>) {
  // expected-error @+1 {{'tad.reduce_sum' op element type f80 is not supported}}
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf80>) -> tensor<f80>
  return
}

// -----

// A tensor whose bytes overflow int64 (bufferization asserted computing its layout), on any op.

// expected-error @+1 {{'func.func' op tensor<4611686018427387904x4xf64> takes 147573952589676412928 bytes, more than fits in memory (2**63 - 1)}}
func.func @huge(%x: tensor<4611686018427387904x4xf64>) -> tensor<4611686018427387904x4xf64> {
  // expected-error @+1 {{'math.exp' op tensor<4611686018427387904x4xf64> takes 147573952589676412928 bytes}}
  %0 = math.exp %x : tensor<4611686018427387904x4xf64>
  return %0 : tensor<4611686018427387904x4xf64>
}

// -----

// Averages and log-probabilities are floating point.

func.func @avg_pool_of_integers(%x: tensor<1x1x5x5xi32>) {
  // expected-error @+1 {{'tad.avg_pool2d' op data must have a floating-point element type, got i32}}
  %0 = "tad.avg_pool2d"(%x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 1} : (tensor<1x1x5x5xi32>) -> tensor<1x1x3x3xi32>
  return
}

// -----

func.func @nll_loss_of_integers(%p: tensor<4x3xi32>, %t: tensor<4xi64>, %w: tensor<3xi32>) {
  // expected-error @+1 {{'tad.nll_loss' op predictions must have a floating-point element type, got i32}}
  %0 = "tad.nll_loss"(%p, %t, %w) {reduction = "sum", ignore_index = -100} : (tensor<4x3xi32>, tensor<4xi64>, tensor<3xi32>) -> tensor<i32>
  return
}
