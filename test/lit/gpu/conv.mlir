// Convolutions lower to one linalg.contract per kernel tap, so their kernels
// get the contractions' shared-memory tiles. The filter gradient contracts
// over three dims (batch, output rows, output columns): each gets its own
// loop around the tile steps.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg --tad-lower-to-nvvm | FileCheck %s --implicit-check-not=__nv_

// CHECK-LABEL: llvm.func @conv2d(
// CHECK: gpu.launch_func
// CHECK: gpu.binary @conv2d_kernel{{.*}}.target sm_90{{.*}}.shared .align{{.*}}bar.sync
func.func @conv2d(%x: tensor<2x8x16x16xf32>, %w: tensor<16x8x3x3xf32>) -> tensor<2x16x16x16xf32> {
  %y = "tad.conv2d"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x16x16xf32>, tensor<16x8x3x3xf32>) -> tensor<2x16x16x16xf32>
  return %y : tensor<2x16x16x16xf32>
}

// -----

// CHECK-LABEL: llvm.func @conv2d_backward_filter(
// CHECK: gpu.launch_func
// CHECK: gpu.binary @conv2d_backward_filter_kernel{{.*}}.target sm_90{{.*}}.shared .align{{.*}}bar.sync
func.func @conv2d_backward_filter(%dy: tensor<2x16x16x16xf32>, %x: tensor<2x8x16x16xf32>) -> tensor<16x8x3x3xf32> {
  %dw = "tad.conv2d_backward_filter"(%dy, %x) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x16x16x16xf32>, tensor<2x8x16x16xf32>) -> tensor<16x8x3x3xf32>
  return %dw : tensor<16x8x3x3xf32>
}
