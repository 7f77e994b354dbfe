// Stride-1 convolutions lower over flat planes: per image (in groups of images
// a loop marked tad.independent_iterations runs, which the CPU pipeline runs on
// threads; a group's images in a loop marked tad.reused_iteration_buffers), the
// padded input planes are laid out flat with rows `width` long (the zeros
// after a row pad it on the right and the next row on the left), so kernel tap
// (ky, kx) reads one contiguous run of the flat plane shifted by
// ky * width + kx. Each tap is one linalg.contract (loops g, o, k, p: one
// contracting dim, flat positions innermost, for the contraction kernel), and
// a generic crops the output from the flat positions y * width + x.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// 8 channels: the taps are looped over (no copies of the planes). 5 x 5 data
// padded by 1: rows of 6, 8 rows (the padded 7 and one the last shifts read),
// 5 * 6 = 30 flat outputs computed as 32 (whole register tiles). Two images
// this small are one group.
// CHECK-DAG: #[[$W:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$Y:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[$CROP:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2 * 6 + d3)>
// CHECK-LABEL: func.func @conv2d
// CHECK: %[[WT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x3x1x4x8xf32>)
// CHECK: %[[OUT:.*]] = scf.for %[[N:[a-zA-Z0-9_]+]] = {{.*}} iter_args(%[[ALL:.*]] = %{{.*}}) -> (tensor<2x1x4x5x5xf32>)
// CHECK: %[[IMAGE:.*]] = tensor.extract_slice %{{.*}}[%[[N]], 0, 0, 0, 0] [1, 1, 8, 5, 5]
// CHECK: linalg.copy ins(%[[IMAGE]] : tensor<1x8x5x5xf32>) outs(%{{.*}} : tensor<1x8x5x5xf32>)
// CHECK: %[[PADDED:.*]] = tensor.insert_slice %{{.*}}[0, 0, 1, 1] [1, 8, 5, 5] [1, 1, 1, 1] : tensor<1x8x5x5xf32> into tensor<1x8x8x6xf32>
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[PADDED]] {{.*}} : tensor<1x8x8x6xf32> into tensor<1x8x48xf32>
// CHECK: scf.for %[[KY:[a-zA-Z0-9_]+]] = {{.*}} -> (tensor<1x4x32xf32>)
// CHECK: scf.for %[[KX:[a-zA-Z0-9_]+]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<1x4x32xf32>)
// CHECK: %[[ROW:.*]] = arith.muli %[[KY]], %{{.*}} : index
// CHECK-NEXT: %[[SHIFT:.*]] = arith.addi %[[ROW]], %[[KX]] : index
// CHECK-NEXT: %[[SHIFTED:.*]] = tensor.extract_slice %[[FLAT]][0, 0, %[[SHIFT]]] [1, 8, 32] [1, 1, 1]
// CHECK-NEXT: %[[TAP:.*]] = tensor.extract_slice %[[WT]][%[[KY]], %[[KX]], 0, 0, 0] [1, 1, 1, 4, 8]
// CHECK-NEXT: linalg.contract indexing_maps = [#[[$W]], #[[$X]], #[[$Y]]] ins(%[[TAP]], %[[SHIFTED]] : tensor<1x4x8xf32>, tensor<1x8x32xf32>) outs(%[[ACC]] : tensor<1x4x32xf32>)
// CHECK: %[[CROPPED:.*]] = linalg.generic {indexing_maps = [#[[$CROP]], {{.*}}]{{.*}} outs(%{{.*}} : tensor<1x4x5x5xf32>)
// CHECK: tensor.insert_slice %[[CROPPED]] into %[[ALL]][%[[N]], 0, 0, 0, 0] [1, 1, 4, 5, 5]
// CHECK: } {tad.reused_iteration_buffers}
// CHECK: tensor.collapse_shape %[[OUT]] {{.*}} into tensor<2x4x5x5xf32>
func.func @conv2d(%x: tensor<2x8x5x5xf32>, %w: tensor<4x8x3x3xf32>) -> tensor<2x4x5x5xf32> {
  %y = "tad.conv2d"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x5x5xf32>, tensor<4x8x3x3xf32>) -> tensor<2x4x5x5xf32>
  return %y : tensor<2x4x5x5xf32>
}

// -----

// One input channel: all nine taps are expanded into the contracting dim (nine
// shifted copies of the image's plane, row t * C + c), and one contraction over
// k = 9 does the image; the weight rows are read by a generic with floordiv/mod.
// CHECK-DAG: #[[$ROWS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, 0, d2 floordiv 3, d2 mod 3)>
// CHECK-LABEL: func.func @one_channel
// CHECK: linalg.generic {indexing_maps = [#[[$ROWS]], {{.*}}outs(%{{.*}} : tensor<1x4x9xf32>)
// CHECK: scf.for
// CHECK: %[[COLS:.*]] = scf.for
// CHECK: scf.for
// CHECK: linalg.copy ins(%{{.*}} : tensor<1x1x32xf32>) outs(%{{.*}} : tensor<1x1x32xf32>)
// CHECK: linalg.contract {{.*}} : tensor<1x4x9xf32>, tensor<1x9x32xf32>) outs(%{{.*}} : tensor<1x4x32xf32>)
// CHECK-NOT: linalg.contract
// CHECK: } {tad.reused_iteration_buffers}
func.func @one_channel(%x: tensor<2x1x5x5xf32>, %w: tensor<4x1x3x3xf32>) -> tensor<2x4x5x5xf32> {
  %y = "tad.conv2d"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x1x5x5xf32>, tensor<4x1x3x3xf32>) -> tensor<2x4x5x5xf32>
  return %y : tensor<2x4x5x5xf32>
}

// -----

// The data gradient is the convolution of dy (padded by dilation * (kernel - 1)
// - padding = 1) with the flipped kernel: tap (ky, kx) reads the shift of tap
// (2 - ky, 2 - kx), and the weight is read with in/out channels exchanged.
// CHECK-LABEL: func.func @conv2d_backward_data
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<3x3x1x4x8xf32>)
// CHECK: scf.for %[[KY:[a-zA-Z0-9_]+]] = {{.*}} -> (tensor<1x4x32xf32>)
// CHECK: scf.for %[[KX:[a-zA-Z0-9_]+]] = {{.*}} -> (tensor<1x4x32xf32>)
// CHECK: arith.subi %{{.*}}, %[[KY]] : index
// CHECK: arith.subi %{{.*}}, %[[KX]] : index
// CHECK: linalg.contract {{.*}} : tensor<1x4x8xf32>, tensor<1x8x32xf32>) outs(%{{.*}} : tensor<1x4x32xf32>)
// CHECK: } {tad.reused_iteration_buffers}
func.func @conv2d_backward_data(%dy: tensor<2x8x5x5xf32>, %w: tensor<8x4x3x3xf32>) -> tensor<2x4x5x5xf32> {
  %dx = "tad.conv2d_backward_data"(%dy, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x8x5x5xf32>, tensor<8x4x3x3xf32>) -> tensor<2x4x5x5xf32>
  return %dx : tensor<2x4x5x5xf32>
}

// -----

// The filter gradient sums over the batch and the positions as one dim q: the
// data's planes of a channel one after the other (2 x 48), dy channels-last in
// the same layout (zero past each output row), a slice of the 2 * 48 - 48 + 30
// positions that hold dy; per tap one contraction over q, output channels
// innermost, into that tap's (C, O) block; a generic reads OIHW out of them.
// CHECK-DAG: #[[$X:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[$DY:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[$DW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @conv2d_backward_filter
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x1x8x5x5xf32>) outs(%{{.*}} : tensor<1x8x2x5x5xf32>) permutation = [1, 2, 0, 3, 4]
// CHECK: %[[PLANES:.*]] = tensor.collapse_shape %{{.*}} : tensor<1x8x2x8x6xf32> into tensor<1x8x96xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x1x4x5x5xf32>) outs(%{{.*}} : tensor<1x2x5x5x4xf32>) permutation = [1, 0, 3, 4, 2]
// CHECK: %[[DYQ:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0] [1, 78, 4] [1, 1, 1] : tensor<1x96x4xf32> to tensor<1x78x4xf32>
// CHECK: scf.for %[[KY:[a-zA-Z0-9_]+]] = {{.*}} -> (tensor<3x3x1x8x4xf32>)
// CHECK: scf.for %[[KX:[a-zA-Z0-9_]+]] =
// CHECK: %[[SHIFTED:.*]] = tensor.extract_slice %[[PLANES]][0, 0, %{{.*}}] [1, 8, 78] [1, 1, 1]
// CHECK: linalg.contract indexing_maps = [#[[$X]], #[[$DY]], #[[$DW]]] ins(%[[SHIFTED]], %[[DYQ]] : tensor<1x8x78xf32>, tensor<1x78x4xf32>) outs(%{{.*}} : tensor<1x8x4xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x8x3x3xf32>)
func.func @conv2d_backward_filter(%dy: tensor<2x4x5x5xf32>, %x: tensor<2x8x5x5xf32>) -> tensor<4x8x3x3xf32> {
  %dw = "tad.conv2d_backward_filter"(%dy, %x) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<2x4x5x5xf32>, tensor<2x8x5x5xf32>) -> tensor<4x8x3x3xf32>
  return %dw : tensor<4x8x3x3xf32>
}

// -----

// Images of 2.6M multiply-adds: groups of two reach tad-thread-independent-loops'
// minimum work (4M), so the loop over the two groups is marked for threads, and
// each group fills its slice of the result with a loop over its images.
// CHECK-LABEL: func.func @groups
// CHECK: %[[OUT:.*]] = scf.for %[[G:[a-zA-Z0-9_]+]] = %{{.*}} to %[[TWO:.*]] step %{{.*}} iter_args(%[[ALL:.*]] = %{{.*}}) -> (tensor<4x1x32x16x16xf32>)
// CHECK: %[[FIRST:.*]] = arith.muli %[[G]], %{{.*}} : index
// CHECK: %[[SLICE:.*]] = tensor.extract_slice %[[ALL]][%[[FIRST]], 0, 0, 0, 0] [2, 1, 32, 16, 16]
// CHECK: %[[FILLED:.*]] = scf.for %[[J:[a-zA-Z0-9_]+]] = {{.*}} iter_args(%[[PART:.*]] = %[[SLICE]]) -> (tensor<2x1x32x16x16xf32>)
// CHECK: %[[IMAGE:.*]] = arith.addi %[[FIRST]], %[[J]] : index
// CHECK: tensor.extract_slice %{{.*}}[%[[IMAGE]], 0, 0, 0, 0] [1, 1, 32, 16, 16]
// CHECK: tensor.insert_slice %{{.*}} into %[[PART]][%[[J]], 0, 0, 0, 0] [1, 1, 32, 16, 16]
// CHECK: } {tad.reused_iteration_buffers}
// CHECK: tensor.insert_slice %[[FILLED]] into %[[ALL]][%[[FIRST]], 0, 0, 0, 0] [2, 1, 32, 16, 16]
// CHECK: } {tad.independent_iterations}
func.func @groups(%x: tensor<4x32x16x16xf32>, %w: tensor<32x32x3x3xf32>) -> tensor<4x32x16x16xf32> {
  %y = "tad.conv2d"(%x, %w) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : (tensor<4x32x16x16xf32>, tensor<32x32x3x3xf32>) -> tensor<4x32x16x16xf32>
  return %y : tensor<4x32x16x16xf32>
}
