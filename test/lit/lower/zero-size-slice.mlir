// Slices with no elements lower without a tensor.extract_slice (upstream
// verification rejects any offset into a zero-size dim, and an empty slice may
// start past the end): the slice is a tensor.empty; padding an empty operand is
// the fill alone.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @past_the_end
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[E:.*]] = tensor.empty() : tensor<0x0xf64>
// CHECK-NEXT: return %[[E]]
func.func @past_the_end(%x: tensor<1x0xf64>) -> tensor<0x0xf64> {
  %0 = "tad.slice"(%x) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 1, 0>, strides = array<i64: 1, 1>} : (tensor<1x0xf64>) -> tensor<0x0xf64>
  return %0 : tensor<0x0xf64>
}

// -----

// CHECK-LABEL: func.func @pad_empty
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic
// CHECK-NOT: tensor.insert_slice
// CHECK: return
func.func @pad_empty(%x: tensor<0xf64>, %v: tensor<f64>) -> tensor<2xf64> {
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 1>, edge_padding_high = array<i64: 1>, interior_padding = array<i64: 0>} : (tensor<0xf64>, tensor<f64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
