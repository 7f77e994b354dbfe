// Lowerings that build constants for 16-bit floats (numpy has no bfloat16 buffer for them).
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// The window counts of a ceil_mode average pool: 4 for whole windows, fewer at the edge.
// CHECK-LABEL: func.func @avg_pool_bf16
// CHECK: arith.constant dense<{{\[\[}}4.000000e+00, 4.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<3x3xbf16>
// CHECK: arith.divf %{{.*}}, %{{.*}} : bf16
func.func @avg_pool_bf16(%x: tensor<1x1x5x5xbf16>) -> tensor<1x1x3x3xbf16> {
  %0 = "tad.avg_pool2d"(%x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 1} : (tensor<1x1x5x5xbf16>) -> tensor<1x1x3x3xbf16>
  return %0 : tensor<1x1x3x3xbf16>
}
