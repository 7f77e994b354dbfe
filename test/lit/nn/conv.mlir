// Convolution ops: their lowerings (pad once, then two scf.for over the kernel taps,
// each tap one linalg.contract on strided windows; channels split into groups by
// expand_shape; the operand read along the innermost loop is the contraction's rhs)
// and their derivatives (every derivative is one op of the family).
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s --check-prefix=AD

// Forward, 2 groups, strides (2, 1), padding (top 1, left 0, bottom 2, right 1),
// dilation (1, 2): the data is padded once to 10x7; tap (ky, kx) reads the window
// at (ky, 2 kx) with strides (2, 1). Loops n, g, y, o, c, x: the output width innermost.
// LOWER-DAG: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d2, d5)>
// LOWER-DAG: #[[$TAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d3, d4)>
// LOWER-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d2, d5)>
// LOWER-LABEL: func.func @conv2d
// LOWER-SAME: (%[[X:.*]]: tensor<2x4x7x6xf32>, %[[W:.*]]: tensor<6x2x3x2xf32>)
// LOWER: %[[XG:.*]] = tensor.expand_shape %[[X]] {{.*}} output_shape [2, 2, 2, 7, 6]
// LOWER: %[[ZEROS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x2x10x7xf32>)
// LOWER: %[[XP:.*]] = tensor.insert_slice %[[XG]] into %[[ZEROS]][0, 0, 0, 1, 0] [2, 2, 2, 7, 6] [1, 1, 1, 1, 1]
// LOWER: %[[WG:.*]] = tensor.expand_shape %[[W]] {{.*}} output_shape [2, 3, 2, 3, 2]
// LOWER: %[[WT:.*]] = linalg.transpose ins(%[[WG]] : tensor<2x3x2x3x2xf32>) outs(%{{.*}} : tensor<3x2x2x3x2xf32>) permutation = [3, 4, 0, 1, 2]
// LOWER: %[[INIT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x3x4x5xf32>)
// LOWER: %[[R:.*]] = scf.for %[[KY:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[INIT]])
// LOWER: scf.for %[[KX:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[B:.*]] = %[[A]])
// LOWER: %[[COL:.*]] = arith.muli %[[KX]], %{{.*}} : index
// LOWER-NEXT: %[[WINDOW:.*]] = tensor.extract_slice %[[XP]][0, 0, 0, %[[KY]], %[[COL]]] [2, 2, 2, 4, 5] [1, 1, 1, 2, 1] : tensor<2x2x2x10x7xf32> to tensor<2x2x2x4x5xf32>
// LOWER-NEXT: %[[WTAP:.*]] = tensor.extract_slice %[[WT]][%[[KY]], %[[KX]], 0, 0, 0] [1, 1, 2, 3, 2] [1, 1, 1, 1, 1] : tensor<3x2x2x3x2xf32> to tensor<2x3x2xf32>
// LOWER-NEXT: %[[SUM:.*]] = linalg.contract indexing_maps = [#[[$TAP]], #[[$WIN]], #[[$OUT]]] ins(%[[WTAP]], %[[WINDOW]] : tensor<2x3x2xf32>, tensor<2x2x2x4x5xf32>) outs(%[[B]] : tensor<2x2x3x4x5xf32>)
// LOWER-NEXT: scf.yield %[[SUM]]
// LOWER: tensor.collapse_shape %[[R]] {{.*}} : tensor<2x2x3x4x5xf32> into tensor<2x6x4x5xf32>
// LOWER-NOT: "tad.

// The vjp is exactly one backward_data and one backward_filter of the cotangent.
// AD-LABEL: func.func private @conv2d_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x4x7x6xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x3x2xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2x6x4x5xf32>)
// AD-NEXT: %[[OUT:.*]] = "tad.conv2d"(%[[X]], %[[W]])
// AD-NEXT: %[[DX:.*]] = "tad.conv2d_backward_data"(%[[CT]], %[[W]]) {dilation = array<i64: 1, 2>, groups = 2 : i64, padding = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 1>} : (tensor<2x6x4x5xf32>, tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32>
// AD-NEXT: %[[DW:.*]] = "tad.conv2d_backward_filter"(%[[CT]], %[[X]]) {dilation = array<i64: 1, 2>, groups = 2 : i64, padding = array<i64: 1, 0, 2, 1>, strides = array<i64: 2, 1>} : (tensor<2x6x4x5xf32>, tensor<2x4x7x6xf32>) -> tensor<6x2x3x2xf32>
// AD-NEXT: return %[[OUT]], %[[DX]], %[[DW]]

// The jvp: conv2d is bilinear, one convolution per tangent.
// AD-LABEL: func.func private @conv2d_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x4x7x6xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x3x2xf32>, %[[TX:[a-zA-Z0-9_]+]]: tensor<2x4x7x6xf32>, %[[TW:[a-zA-Z0-9_]+]]: tensor<6x2x3x2xf32>)
// AD-NEXT: %[[OUT:.*]] = "tad.conv2d"(%[[X]], %[[W]])
// AD-NEXT: %[[T1:.*]] = "tad.conv2d"(%[[TX]], %[[W]])
// AD-NEXT: %[[T2:.*]] = "tad.conv2d"(%[[X]], %[[TW]])
// AD-NEXT: %[[T:.*]] = arith.addf %[[T1]], %[[T2]]
// AD-NEXT: return %[[OUT]], %[[T]]
func.func @conv2d(%x: tensor<2x4x7x6xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32> {
  %0 = "tad.conv2d"(%x, %w) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 1, 2>, groups = 2}
      : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32>
  return %0 : tensor<2x6x4x5xf32>
}
func.func private @conv2d_vjp(tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<2x6x4x5xf32>) -> (tensor<2x6x4x5xf32>, tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>)
    attributes {tad.vjp = {of = @conv2d, wrt = array<i64: 0, 1>}}
func.func private @conv2d_jvp(tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> (tensor<2x6x4x5xf32>, tensor<2x6x4x5xf32>)
    attributes {tad.jvp = {of = @conv2d, wrt = array<i64: 0, 1>}}

// -----

// Backward data, the same attributes: a scatter. Tap (ky, kx) adds output_grad times the
// tap's weights into its window of a zero, padded, grouped data gradient (extract_slice,
// contract, insert_slice at the same strided offsets), so a stride wastes no work; the
// padding is cropped at the end. Loops n, g, y, c, o, x.
// LOWER-DAG: #[[$DY:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d2, d5)>
// LOWER-DAG: #[[$TAP:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d4, d3)>
// LOWER-DAG: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d2, d5)>
// LOWER-LABEL: func.func @conv2d_backward_data
// LOWER-SAME: (%[[DY:.*]]: tensor<2x6x4x5xf32>, %[[W:.*]]: tensor<6x2x3x2xf32>)
// LOWER: %[[DYG:.*]] = tensor.expand_shape %[[DY]] {{.*}} output_shape [2, 2, 3, 4, 5]
// LOWER: %[[WT:.*]] = linalg.transpose {{.*}} permutation = [3, 4, 0, 1, 2]
// LOWER: %[[ZEROS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<2x2x2x10x7xf32>)
// LOWER: %[[R:.*]] = scf.for %[[KY:.*]] = %{{.*}} iter_args(%{{.*}} = %[[ZEROS]])
// LOWER: scf.for %[[KX:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// LOWER: %[[COL:.*]] = arith.muli %[[KX]], %{{.*}} : index
// LOWER-NEXT: %[[WTAP:.*]] = tensor.extract_slice %[[WT]][%[[KY]], %[[KX]], 0, 0, 0] [1, 1, 2, 3, 2]
// LOWER-NEXT: %[[WINDOW:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0, %[[KY]], %[[COL]]] [2, 2, 2, 4, 5] [1, 1, 1, 2, 1] : tensor<2x2x2x10x7xf32> to tensor<2x2x2x4x5xf32>
// LOWER-NEXT: %[[SUM:.*]] = linalg.contract indexing_maps = [#[[$TAP]], #[[$DY]], #[[$WIN]]] ins(%[[WTAP]], %[[DYG]] : tensor<2x3x2xf32>, tensor<2x2x3x4x5xf32>) outs(%[[WINDOW]] : tensor<2x2x2x4x5xf32>)
// LOWER-NEXT: %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][0, 0, 0, %[[KY]], %[[COL]]] [2, 2, 2, 4, 5] [1, 1, 1, 2, 1]
// LOWER-NEXT: scf.yield %[[NEW]]
// LOWER: %[[DX:.*]] = tensor.extract_slice %[[R]][0, 0, 0, 1, 0] [2, 2, 2, 7, 6] [1, 1, 1, 1, 1] : tensor<2x2x2x10x7xf32> to tensor<2x2x2x7x6xf32>
// LOWER-NEXT: tensor.collapse_shape %[[DX]] {{.*}} into tensor<2x4x7x6xf32>
// LOWER-NOT: "tad.

// Its transposes: a convolution of the cotangent (for output_grad) and a backward_filter
// (for the weight).
// AD-LABEL: func.func private @conv2d_backward_data_vjp
// AD-SAME: (%[[DY:[a-zA-Z0-9_]+]]: tensor<2x6x4x5xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x3x2xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<2x4x7x6xf32>)
// AD-NEXT: %[[OUT:.*]] = "tad.conv2d_backward_data"(%[[DY]], %[[W]])
// AD-NEXT: %[[DDY:.*]] = "tad.conv2d"(%[[CT]], %[[W]]) {{.*}} : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32>
// AD-NEXT: %[[DW:.*]] = "tad.conv2d_backward_filter"(%[[DY]], %[[CT]]) {{.*}} -> tensor<6x2x3x2xf32>
// AD-NEXT: return %[[OUT]], %[[DDY]], %[[DW]]
func.func @conv2d_backward_data(%dy: tensor<2x6x4x5xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32> {
  %0 = "tad.conv2d_backward_data"(%dy, %w) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 1, 2>, groups = 2}
      : (tensor<2x6x4x5xf32>, tensor<6x2x3x2xf32>) -> tensor<2x4x7x6xf32>
  return %0 : tensor<2x4x7x6xf32>
}
func.func private @conv2d_backward_data_vjp(tensor<2x6x4x5xf32>, tensor<6x2x3x2xf32>, tensor<2x4x7x6xf32>) -> (tensor<2x4x7x6xf32>, tensor<2x6x4x5xf32>, tensor<6x2x3x2xf32>)
    attributes {tad.vjp = {of = @conv2d_backward_data, wrt = array<i64: 0, 1>}}

// -----

// Backward filter: output_grad channels-last (N, OH, OW, G, O/G), so the innermost loop
// (o) is contiguous in it and in the tap's (G, C/G, O/G) accumulator, a slice of a
// taps-first (KH, KW, G, C/G, O/G) result that is transposed to OIHW at the end.
// Loops g, n, y, c, x, o.
// LOWER-DAG: #[[$DYT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d4, d0, d5)>
// LOWER-DAG: #[[$WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d0, d3, d2, d4)>
// LOWER-DAG: #[[$ACC:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d5)>
// LOWER-LABEL: func.func @conv2d_backward_filter
// LOWER-SAME: (%[[DY:.*]]: tensor<2x6x4x5xf32>, %[[X:.*]]: tensor<2x4x7x6xf32>)
// LOWER: %[[XP:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 1, 0] [2, 2, 2, 7, 6] [1, 1, 1, 1, 1] : tensor<2x2x2x7x6xf32> into tensor<2x2x2x10x7xf32>
// LOWER: %[[DYT:.*]] = linalg.transpose ins(%{{.*}} : tensor<2x2x3x4x5xf32>) outs(%{{.*}} : tensor<2x4x5x2x3xf32>) permutation = [0, 3, 4, 1, 2]
// LOWER: %[[ZEROS:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3x2x2x2x3xf32>)
// LOWER: %[[R:.*]] = scf.for %[[KY:.*]] = %{{.*}} iter_args(%{{.*}} = %[[ZEROS]])
// LOWER: scf.for %[[KX:.*]] = %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// LOWER: %[[WINDOW:.*]] = tensor.extract_slice %[[XP]][0, 0, 0, %[[KY]], %{{.*}}] [2, 2, 2, 4, 5] [1, 1, 1, 2, 1]
// LOWER-NEXT: %[[SLOT:.*]] = tensor.extract_slice %[[ACC]][%[[KY]], %[[KX]], 0, 0, 0] [1, 1, 2, 2, 3] [1, 1, 1, 1, 1] : tensor<3x2x2x2x3xf32> to tensor<2x2x3xf32>
// LOWER-NEXT: %[[SUM:.*]] = linalg.contract indexing_maps = [#[[$WIN]], #[[$DYT]], #[[$ACC]]] ins(%[[WINDOW]], %[[DYT]] : tensor<2x2x2x4x5xf32>, tensor<2x4x5x2x3xf32>) outs(%[[SLOT]] : tensor<2x2x3xf32>)
// LOWER-NEXT: tensor.insert_slice %[[SUM]] into %[[ACC]][%[[KY]], %[[KX]], 0, 0, 0] [1, 1, 2, 2, 3] [1, 1, 1, 1, 1]
// LOWER: %[[OIHW:.*]] = linalg.transpose ins(%[[R]] : tensor<3x2x2x2x3xf32>) outs(%{{.*}} : tensor<2x3x2x3x2xf32>) permutation = [2, 4, 3, 0, 1]
// LOWER-NEXT: tensor.collapse_shape %[[OIHW]] {{.*}} into tensor<6x2x3x2xf32>
// LOWER-NOT: "tad.

// Its transposes: a convolution with the cotangent as weight (for output_grad) and a
// backward_data (for the data).
// AD-LABEL: func.func private @conv2d_backward_filter_vjp
// AD-SAME: (%[[DY:[a-zA-Z0-9_]+]]: tensor<2x6x4x5xf32>, %[[X:[a-zA-Z0-9_]+]]: tensor<2x4x7x6xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<6x2x3x2xf32>)
// AD-NEXT: %[[OUT:.*]] = "tad.conv2d_backward_filter"(%[[DY]], %[[X]])
// AD-NEXT: %[[DDY:.*]] = "tad.conv2d"(%[[X]], %[[CT]]) {{.*}} -> tensor<2x6x4x5xf32>
// AD-NEXT: %[[DX:.*]] = "tad.conv2d_backward_data"(%[[DY]], %[[CT]]) {{.*}} -> tensor<2x4x7x6xf32>
// AD-NEXT: return %[[OUT]], %[[DDY]], %[[DX]]
func.func @conv2d_backward_filter(%dy: tensor<2x6x4x5xf32>, %x: tensor<2x4x7x6xf32>) -> tensor<6x2x3x2xf32> {
  %0 = "tad.conv2d_backward_filter"(%dy, %x) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 1, 2>, groups = 2}
      : (tensor<2x6x4x5xf32>, tensor<2x4x7x6xf32>) -> tensor<6x2x3x2xf32>
  return %0 : tensor<6x2x3x2xf32>
}
func.func private @conv2d_backward_filter_vjp(tensor<2x6x4x5xf32>, tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> (tensor<6x2x3x2xf32>, tensor<2x6x4x5xf32>, tensor<2x4x7x6xf32>)
    attributes {tad.vjp = {of = @conv2d_backward_filter, wrt = array<i64: 0, 1>}}

// -----

// A batched cotangent (P = [5]) still gives one op per gradient: P is folded into the
// batch dim for the data gradient, and into the output channels within each group
// (O = 2 groups x 3 -> 2 groups x 5 x 3) for the weight gradient, then unfolded.
// AD-LABEL: func.func private @conv2d_vjp_batched
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x4x7x6xf32>, %[[W:[a-zA-Z0-9_]+]]: tensor<6x2x3x2xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5x2x6x4x5xf32>)
// AD: %[[CT_N:.*]] = "tad.reshape"(%[[CT]]) : (tensor<5x2x6x4x5xf32>) -> tensor<10x6x4x5xf32>
// AD-NEXT: %[[DX:.*]] = "tad.conv2d_backward_data"(%[[CT_N]], %[[W]]) {{.*}} -> tensor<10x4x7x6xf32>
// AD-NEXT: %[[DX_P:.*]] = "tad.reshape"(%[[DX]]) : (tensor<10x4x7x6xf32>) -> tensor<5x2x4x7x6xf32>
// AD-NEXT: %[[SPLIT:.*]] = "tad.reshape"(%[[CT]]) : (tensor<5x2x6x4x5xf32>) -> tensor<5x2x2x3x4x5xf32>
// AD-NEXT: %[[MOVED:.*]] = "tad.transpose"(%[[SPLIT]]) {permutation = array<i64: 1, 2, 0, 3, 4, 5>}
// AD-NEXT: %[[CT_O:.*]] = "tad.reshape"(%[[MOVED]]) : (tensor<2x2x5x3x4x5xf32>) -> tensor<2x30x4x5xf32>
// AD-NEXT: %[[DW:.*]] = "tad.conv2d_backward_filter"(%[[CT_O]], %[[X]]) {{.*}} -> tensor<30x2x3x2xf32>
// AD-NEXT: %[[DW_SPLIT:.*]] = "tad.reshape"(%[[DW]]) : (tensor<30x2x3x2xf32>) -> tensor<2x5x3x2x3x2xf32>
// AD-NEXT: %[[DW_MOVED:.*]] = "tad.transpose"(%[[DW_SPLIT]]) {permutation = array<i64: 1, 0, 2, 3, 4, 5>}
// AD-NEXT: %[[DW_P:.*]] = "tad.reshape"(%[[DW_MOVED]]) : (tensor<5x2x3x2x3x2xf32>) -> tensor<5x6x2x3x2xf32>
// AD-NEXT: return %{{.*}}, %[[DX_P]], %[[DW_P]]
func.func @conv2d(%x: tensor<2x4x7x6xf32>, %w: tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32> {
  %0 = "tad.conv2d"(%x, %w) {strides = array<i64: 2, 1>, padding = array<i64: 1, 0, 2, 1>, dilation = array<i64: 1, 2>, groups = 2}
      : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>) -> tensor<2x6x4x5xf32>
  return %0 : tensor<2x6x4x5xf32>
}
func.func private @conv2d_vjp_batched(tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<5x2x6x4x5xf32>) -> (tensor<2x6x4x5xf32>, tensor<5x2x4x7x6xf32>, tensor<5x6x2x3x2xf32>)
    attributes {tad.vjp = {of = @conv2d, wrt = array<i64: 0, 1>}}
