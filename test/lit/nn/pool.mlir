// Pooling ops: their lowerings (max_pool2d: an elementwise running maximum over
// the kernel's taps, each a strided slice of the padded data, dealt into phases
// of the column stride so that every tap reads contiguous columns; the others:
// window loop nests over (n, c, kh, kw, oh, ow), one per block of output
// positions: the windows of the inner block read the data in place, the border
// blocks a small copy padded as far as they read; the backward ops gather each
// data element's gradient from the windows that hold it, without a scatter) and
// their derivatives (each op's vjp is one op of its partner).
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s --check-prefix=AD

// The 8 x 8 data padded with -inf to the 9 rows the windows read and 10 columns
// (a multiple of the stride 2), by linalg.copy into the slice that insert_slice
// puts back (it bufferizes in place); its columns dealt into 2 phases (column
// 2q + r to phase r, position q); tap (i, j) is rows i, i + 2, ... of phase
// j mod 2 from column j div 2. One generic takes the running maximum of the
// nine taps in row-major order, with the first-NaN-wins comparison of argmax.
// LOWER-LABEL: func.func @max_pool2d
// LOWER-SAME: (%[[X:.*]]: tensor<1x1x8x8xf32>)
// LOWER: %[[FILLED:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x9x10xf32>)
// LOWER: arith.constant 0xFF800000 : f32
// LOWER: %[[SPOT:.*]] = tensor.extract_slice %[[FILLED]][0, 0, 1, 1] [1, 1, 8, 8] [1, 1, 1, 1]
// LOWER-NEXT: %[[COPY:.*]] = linalg.copy ins(%[[X]] : tensor<1x1x8x8xf32>) outs(%[[SPOT]] : tensor<1x1x8x8xf32>)
// LOWER-NEXT: %[[PADDED:.*]] = tensor.insert_slice %[[COPY]] into %[[FILLED]][0, 0, 1, 1] [1, 1, 8, 8] [1, 1, 1, 1]
// LOWER-NEXT: %[[SPLIT:.*]] = tensor.expand_shape %[[PADDED]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 1, 9, 5, 2]
// LOWER: %[[PHASES:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<1x1x9x5x2xf32>) outs(%{{.*}} : tensor<2x1x1x9x5xf32>) permutation = [4, 0, 1, 2, 3]
// LOWER-NEXT: %[[T0:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 0] [1, 1, 1, 4, 4] [1, 1, 1, 2, 1] : tensor<2x1x1x9x5xf32> to tensor<1x1x4x4xf32>
// LOWER-NEXT: %[[T1:.*]] = tensor.extract_slice %[[PHASES]][1, 0, 0, 0, 0] [1, 1, 1, 4, 4] [1, 1, 1, 2, 1]
// LOWER-NEXT: %[[T2:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 1] [1, 1, 1, 4, 4] [1, 1, 1, 2, 1]
// LOWER-NEXT: %[[T3:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 1, 0] [1, 1, 1, 4, 4] [1, 1, 1, 2, 1]
// LOWER-COUNT-5: tensor.extract_slice %[[PHASES]]
// LOWER: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[T0]], %[[T1]], %[[T2]], %[[T3]], {{.*}} : {{.*}}) outs(%{{.*}} : tensor<1x1x4x4xf32>)
// LOWER-NEXT: ^bb0(%[[A0:[^:]*]]: f32, %[[A1:[^:]*]]: f32,
// LOWER-NEXT: %[[GT:.*]] = arith.cmpf ugt, %[[A1]], %[[A0]] : f32
// LOWER-NEXT: %[[ORD:.*]] = arith.cmpf ord, %[[A0]], %[[A0]] : f32
// LOWER-NEXT: %[[TAKE:.*]] = arith.andi %[[GT]], %[[ORD]] : i1
// LOWER-NEXT: arith.select %[[TAKE]], %[[A1]], %[[A0]] : f32
// LOWER-COUNT-7: arith.select
// LOWER-NEXT: linalg.yield
// LOWER: return %[[R]]
func.func @max_pool2d(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32> {
  %0 = "tad.max_pool2d"(%x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 0} : (tensor<1x1x8x8xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Dilation 2 and column stride 3 without padding: the data is read as it is,
// dealt into 3 phases; tap (i, j) reads rows 2i, 2i + 1, ... (row stride 1) of
// phase 2j mod 3 from column 2j div 3.
// LOWER-LABEL: func.func @max_pool2d_dilated
// LOWER-SAME: (%[[X:.*]]: tensor<1x1x6x9xf64>)
// LOWER-NOT: tensor.insert_slice
// LOWER: %[[SPLIT:.*]] = tensor.expand_shape %[[X]] {{\[}}[0], [1], [2], [3, 4]] output_shape [1, 1, 6, 3, 3]
// LOWER: %[[PHASES:.*]] = linalg.transpose ins(%[[SPLIT]] : tensor<1x1x6x3x3xf64>)
// LOWER-NEXT: tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 0] [1, 1, 1, 4, 3] [1, 1, 1, 1, 1]
// LOWER-NEXT: tensor.extract_slice %[[PHASES]][2, 0, 0, 0, 0] [1, 1, 1, 4, 3] [1, 1, 1, 1, 1]
// LOWER-NEXT: tensor.extract_slice %[[PHASES]][0, 0, 0, 2, 0] [1, 1, 1, 4, 3] [1, 1, 1, 1, 1]
// LOWER-NEXT: tensor.extract_slice %[[PHASES]][2, 0, 0, 2, 0] [1, 1, 1, 4, 3] [1, 1, 1, 1, 1]
func.func @max_pool2d_dilated(%x: tensor<1x1x6x9xf64>) -> tensor<1x1x4x3xf64> {
  %0 = "tad.max_pool2d"(%x) {pool_size = array<i64: 2, 2>, strides = array<i64: 1, 3>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 2, 2>, ceil_mode = 0} : (tensor<1x1x6x9xf64>) -> tensor<1x1x4x3xf64>
  return %0 : tensor<1x1x4x3xf64>
}

// -----

// A sum over the windows (ceil_mode's last window on each axis runs one past
// the data: those blocks read a zero-padded copy), divided by each window's
// count: the padding is not counted, nor the overhang of ceil_mode windows.
// LOWER-DAG: #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// LOWER-DAG: #[[$HW:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// LOWER-LABEL: func.func @avg_pool2d
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<1x1x4x4xf64>, tensor<2x2xf64>) outs(%{{.*}} : tensor<1x1x2x2xf64>)
// LOWER-NEXT: ^bb0
// LOWER-NEXT: arith.addf
// LOWER: linalg.copy {{.*}}ins(%{{.*}} : tensor<1x1x1x1xf64>) outs(%{{.*}} : tensor<1x1x1x1xf64>)
// LOWER: %[[SUM:.*]] = tensor.insert_slice %{{.*}}[0, 0, 2, 2] [1, 1, 1, 1] [1, 1, 1, 1]
// LOWER-NEXT: %[[COUNTS:.*]] = arith.constant dense<{{\[}}[4.000000e+00, 4.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 1.000000e+00]]> : tensor<3x3xf64>
// LOWER: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$HW]], #[[$ID]]], {{.*}} ins(%[[SUM]], %[[COUNTS]] : tensor<1x1x3x3xf64>, tensor<3x3xf64>)
// LOWER-NEXT: ^bb0(%[[S:.*]]: f64, %[[N:.*]]: f64, %{{.*}}: f64):
// LOWER-NEXT: %[[MEAN:.*]] = arith.divf %[[S]], %[[N]] : f64
// LOWER: return %[[R]]
func.func @avg_pool2d(%x: tensor<1x1x5x5xf64>) -> tensor<1x1x3x3xf64> {
  %0 = "tad.avg_pool2d"(%x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 1} : (tensor<1x1x5x5xf64>) -> tensor<1x1x3x3xf64>
  return %0 : tensor<1x1x3x3xf64>
}

// -----

// With count_include_pad the declared padding counts (every window of 3 x 3 taps
// but the ceil_mode ones on the last row, which run past it); without, only the
// data does.
// LOWER-LABEL: func.func @avg_pool2d_counts
// LOWER: arith.constant dense<{{\[}}[9.000000e+00, 9.000000e+00], [9.000000e+00, 9.000000e+00], [6.000000e+00, 6.000000e+00]]> : tensor<3x2xf32>
// LOWER: arith.constant dense<{{\[}}[4.000000e+00, 4.000000e+00], [6.000000e+00, 6.000000e+00], [2.000000e+00, 2.000000e+00]]> : tensor<3x2xf32>
func.func @avg_pool2d_counts(%x: tensor<1x1x4x3xf32>) -> (tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32>) {
  %0 = "tad.avg_pool2d"(%x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 1} : (tensor<1x1x4x3xf32>) -> tensor<1x1x3x2xf32>
  %1 = "tad.avg_pool2d"(%x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 0} : (tensor<1x1x4x3xf32>) -> tensor<1x1x3x2xf32>
  return %0, %1 : tensor<1x1x3x2xf32>, tensor<1x1x3x2xf32>
}

// -----

// Windows that tile the data (stride = kernel): one parallel generic writes the
// data gradient viewed as (n, c, oh, kh, ow, kw), each element its window's
// output_grad / count (no scatter, no accumulation); the 6 x 6 rows and
// columns the ceil_mode windows cover are cut to the data's 5 x 5.
// LOWER-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// LOWER-DAG: #[[$OHW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d4)>
// LOWER-DAG: #[[$ALL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>
// LOWER-LABEL: func.func @avg_pool2d_backward
// LOWER-SAME: (%[[G:.*]]: tensor<1x1x3x3xf64>, %{{.*}}: tensor<1x1x5x5xf64>)
// LOWER: %[[COUNTS:.*]] = arith.constant dense<{{.*}}> : tensor<3x3xf64>
// LOWER: %[[SPREAD:.*]] = linalg.generic {indexing_maps = [#[[$OUT]], #[[$OHW]], #[[$ALL]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[G]], %[[COUNTS]] : tensor<1x1x3x3xf64>, tensor<3x3xf64>) outs(%{{.*}} : tensor<1x1x3x2x3x2xf64>)
// LOWER: %[[SHARE:.*]] = arith.divf
// LOWER-NEXT: linalg.yield %[[SHARE]] : f64
// LOWER: %[[ROWS:.*]] = tensor.collapse_shape %[[SPREAD]] {{\[}}[0], [1], [2, 3], [4, 5]] : tensor<1x1x3x2x3x2xf64> into tensor<1x1x6x6xf64>
// LOWER: %[[R:.*]] = tensor.extract_slice %[[ROWS]][0, 0, 0, 0] [1, 1, 5, 5] [1, 1, 1, 1]
// LOWER: return %[[R]]
func.func @avg_pool2d_backward(%g: tensor<1x1x3x3xf64>, %x: tensor<1x1x5x5xf64>) -> tensor<1x1x5x5xf64> {
  %0 = "tad.avg_pool2d_backward"(%g, %x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 1} : (tensor<1x1x3x3xf64>, tensor<1x1x5x5xf64>) -> tensor<1x1x5x5xf64>
  return %0 : tensor<1x1x5x5xf64>
}

// -----

// First the tap number (kh * 3 + kw) of each window's first maximum: one
// elementwise op over the nine taps of max_pool2d (the data padded to 6
// columns, dealt into 2 phases), with its comparison. Then the gradient gathers, per phase of the stride
// (rows and columns 2q + r): a row of phase 0 lies in windows q (tap row 0) and
// q - 1 (tap row 2), so phase (0, 0) sums four selects of output_grad, read
// shifted from copies padded in front (taps with -1, never a tap number), and
// writes its rows and columns (stride 2) of the gradient once. No scatter, no
// tensor.insert at computed positions.
// LOWER-LABEL: func.func @max_pool2d_backward
// LOWER-SAME: (%[[G:.*]]: tensor<1x2x2x2xf32>, %[[X:.*]]: tensor<1x2x5x5xf32>)
// LOWER: linalg.copy ins(%[[X]] : tensor<1x2x5x5xf32>) outs(%{{.*}} : tensor<1x2x5x5xf32>)
// LOWER: %[[PHASES:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x2x5x3x2xf32>) outs(%{{.*}} : tensor<2x1x2x5x3xf32>)
// LOWER-COUNT-9: tensor.extract_slice %[[PHASES]]
// LOWER: %[[ARGMAX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x2x2x2xi32>)
// LOWER: %[[TAKE:.*]] = arith.andi
// LOWER: arith.select %[[TAKE]], %c1_i32, %c0_i32 : i32
// LOWER-COUNT-7: arith.select {{.*}} : i32
// LOWER: linalg.yield %c-1_i32 : i32
// LOWER: linalg.copy ins(%[[ARGMAX]] : tensor<1x2x2x2xi32>) outs(%{{.*}} : tensor<1x2x2x2xi32>)
// LOWER: %[[PHASE:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x6x6xf32> to tensor<1x2x3x3xf32>
// LOWER: linalg.generic {{.*}} ins({{.*}} : tensor<1x2x3x3xi32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xi32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xi32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xi32>, tensor<1x2x3x3xf32>) outs(%[[PHASE]] : tensor<1x2x3x3xf32>)
// LOWER-COUNT-4: arith.select
// LOWER: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 0] [1, 2, 3, 3] [1, 1, 2, 2] : tensor<1x2x3x3xf32> into tensor<1x2x6x6xf32>
// LOWER: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// LOWER: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 0] [1, 2, 3, 3] [1, 1, 2, 2]
// LOWER: tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 1, 1] [1, 2, 3, 3] [1, 1, 2, 2]
// LOWER: %[[R:.*]] = tensor.extract_slice %{{.*}}[0, 0, 0, 0] [1, 2, 5, 5] [1, 1, 1, 1] : tensor<1x2x6x6xf32> to tensor<1x2x5x5xf32>
// LOWER: return %[[R]]
// LOWER-NOT: tensor.insert %
func.func @max_pool2d_backward(%g: tensor<1x2x2x2xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %0 = "tad.max_pool2d_backward"(%g, %x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 0} : (tensor<1x2x2x2xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

// The vjp of max_pool2d is exactly one max_pool2d_backward of the cotangent and
// the input: no mask, no multiplication.
// AD-LABEL: func.func private @max_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf32>)
// AD-NEXT: %[[Y:.*]] = "tad.max_pool2d"(%[[X]])
// AD-NEXT: %[[D:.*]] = "tad.max_pool2d_backward"(%[[CT]], %[[X]]) {ceil_mode = 0 : i64, dilation = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>, pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
// AD-NEXT: return %[[Y]], %[[D]]
// The jvp reads the tangent at the first maximum of each window: walking the
// taps from the last to the first, each equal to the maximum overwrites.
// AD-LABEL: func.func private @max_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>, %[[T:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>)
// AD-NEXT: %[[Y:.*]] = "tad.max_pool2d"(%[[X]])
// AD-NEXT: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f32} : () -> tensor<1x2x3x3xf32>
// AD-NEXT: %[[NEG_INF:.*]] = "tad.constant"() {value = 0xFF800000 : f32} : () -> tensor<f32>
// AD-NEXT: %[[XP:.*]] = "tad.pad"(%[[X]], %[[NEG_INF]]) {edge_padding_high = array<i64: 0, 0, 1, 1>, edge_padding_low = array<i64: 0, 0, 1, 1>
// AD-NEXT: %[[X_FIRST:.*]] = "tad.slice"(%[[XP]]) {limit_indices = array<i64: 1, 2, 5, 5>, start_indices = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1, 2, 2>}
// AD-COUNT-7: "tad.slice"(%[[XP]])
// AD-NEXT: %[[X_LAST:.*]] = "tad.slice"(%[[XP]]) {limit_indices = array<i64: 1, 2, 7, 7>, start_indices = array<i64: 0, 0, 2, 2>, strides = array<i64: 1, 1, 2, 2>}
// AD: %[[TP:.*]] = "tad.pad"(%[[T]],
// AD-NEXT: %[[T_FIRST:.*]] = "tad.slice"(%[[TP]]) {limit_indices = array<i64: 1, 2, 5, 5>, start_indices = array<i64: 0, 0, 0, 0>
// AD-COUNT-7: "tad.slice"(%[[TP]])
// AD-NEXT: %[[T_LAST:.*]] = "tad.slice"(%[[TP]])
// AD-NEXT: %[[HIT_LAST:.*]] = arith.cmpf oeq, %[[X_LAST]], %[[Y]]
// AD-NEXT: %[[ACC:.*]] = arith.select %[[HIT_LAST]], %[[T_LAST]], %[[ZERO]]
// AD-COUNT-14: arith.
// AD-NEXT: %[[HIT_FIRST:.*]] = arith.cmpf oeq, %[[X_FIRST]], %[[Y]]
// AD-NEXT: %[[DY:.*]] = arith.select %[[HIT_FIRST]], %[[T_FIRST]], %{{.*}}
// AD-NEXT: return %[[Y]], %[[DY]]
func.func @max(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = "tad.max_pool2d"(%x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 0} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
func.func private @max_vjp(tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>)
    attributes {tad.vjp = {of = @max, wrt = array<i64: 0>}}
func.func private @max_jvp(tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>)
    attributes {tad.jvp = {of = @max, wrt = array<i64: 0>}}

// -----

// A batched cotangent (prefix 4) is folded into the batch dim; the input is
// tiled to match, since every folded entry routes against it.
// AD-LABEL: func.func private @max_batched_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<4x1x2x3x3xf32>)
// AD-DAG: %[[CT_F:.*]] = "tad.reshape"(%[[CT]]) : (tensor<4x1x2x3x3xf32>) -> tensor<4x2x3x3xf32>
// AD-DAG: %[[X_B:.*]] = "tad.broadcast_in_dim"(%[[X]]) {broadcast_dimensions = array<i64: 1, 2, 3, 4>} : (tensor<1x2x5x5xf32>) -> tensor<4x1x2x5x5xf32>
// AD-DAG: %[[X_F:.*]] = "tad.reshape"(%[[X_B]]) : (tensor<4x1x2x5x5xf32>) -> tensor<4x2x5x5xf32>
// AD: %[[D:.*]] = "tad.max_pool2d_backward"(%[[CT_F]], %[[X_F]])
// AD-NEXT: %[[D_U:.*]] = "tad.reshape"(%[[D]]) : (tensor<4x2x5x5xf32>) -> tensor<4x1x2x5x5xf32>
// AD-NEXT: return %{{.*}}, %[[D_U]]
func.func @max_batched(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = "tad.max_pool2d"(%x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 0} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}
func.func private @max_batched_vjp(tensor<1x2x5x5xf32>, tensor<4x1x2x3x3xf32>) -> (tensor<1x2x3x3xf32>, tensor<4x1x2x5x5xf32>)
    attributes {tad.vjp = {of = @max_batched, wrt = array<i64: 0>}}

// -----

// avg_pool2d is linear: its jvp pools the tangent, its vjp is avg_pool2d_backward,
// whose data operand is a zero constant of the input's shape (only the shape
// is read, so the input need not be kept for the backward pass).
// AD-LABEL: func.func private @avg_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf64>)
// AD-NEXT: %[[Y:.*]] = "tad.avg_pool2d"(%[[X]])
// AD-NEXT: %[[SHAPE:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<1x2x5x5xf64>
// AD-NEXT: %[[D:.*]] = "tad.avg_pool2d_backward"(%[[CT]], %[[SHAPE]]) {ceil_mode = 1 : i64, count_include_pad = 0 : i64, {{.*}}} : (tensor<1x2x3x3xf64>, tensor<1x2x5x5xf64>) -> tensor<1x2x5x5xf64>
// AD-NEXT: return %[[Y]], %[[D]]
// AD-LABEL: func.func private @avg_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf64>)
// AD-NEXT: %[[Y:.*]] = "tad.avg_pool2d"(%[[X]])
// AD-NEXT: %[[DY:.*]] = "tad.avg_pool2d"(%[[T]]) {ceil_mode = 1 : i64, count_include_pad = 0 : i64,
// AD-NEXT: return %[[Y]], %[[DY]]
func.func @avg(%x: tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64> {
  %0 = "tad.avg_pool2d"(%x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 0} : (tensor<1x2x5x5xf64>) -> tensor<1x2x3x3xf64>
  return %0 : tensor<1x2x3x3xf64>
}
func.func private @avg_vjp(tensor<1x2x5x5xf64>, tensor<1x2x3x3xf64>) -> (tensor<1x2x3x3xf64>, tensor<1x2x5x5xf64>)
    attributes {tad.vjp = {of = @avg, wrt = array<i64: 0>}}
func.func private @avg_jvp(tensor<1x2x5x5xf64>, tensor<1x2x5x5xf64>) -> (tensor<1x2x3x3xf64>, tensor<1x2x3x3xf64>)
    attributes {tad.jvp = {of = @avg, wrt = array<i64: 0>}}

// -----

// max_pool2d_backward is linear in output_grad: its jvp routes the tangent the
// same way; its vjp gathers the cotangent at the first maxima (recomputing the
// maxima); the derivative in data is zero.
// AD-LABEL: func.func private @route_jvp
// AD-SAME: (%[[G:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf32>, %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>, %[[TG:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf32>, %{{.*}}: tensor<1x2x5x5xf32>)
// AD-NEXT: %[[R:.*]] = "tad.max_pool2d_backward"(%[[G]], %[[X]])
// AD-NEXT: %[[DR:.*]] = "tad.max_pool2d_backward"(%[[TG]], %[[X]])
// AD-NEXT: return %[[R]], %[[DR]]
// AD-LABEL: func.func private @route_vjp
// AD-SAME: (%[[G:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf32>, %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>, %[[CT:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf32>)
// AD: %[[M:.*]] = "tad.max_pool2d"(%[[X]])
// AD: "tad.pad"(%[[CT]],
// AD: arith.cmpf oeq, %{{.*}}, %[[M]]
// AD-COUNT-8: arith.select
// AD: %[[DG:.*]] = arith.select
// AD-NEXT: %[[DX:.*]] = "tad.constant"() {value = 0.000000e+00 : f32} : () -> tensor<1x2x5x5xf32>
// AD-NEXT: return %{{.*}}, %[[DG]], %[[DX]]
func.func @route(%g: tensor<1x2x3x3xf32>, %x: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
  %0 = "tad.max_pool2d_backward"(%g, %x) {pool_size = array<i64: 3, 3>, strides = array<i64: 2, 2>, padding = array<i64: 1, 1, 1, 1>, dilation = array<i64: 1, 1>, ceil_mode = 0} : (tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}
func.func private @route_jvp(tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>)
    attributes {tad.jvp = {of = @route, wrt = array<i64: 0, 1>}}
func.func private @route_vjp(tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x3x3xf32>, tensor<1x2x5x5xf32>)
    attributes {tad.vjp = {of = @route, wrt = array<i64: 0, 1>}}

// -----

// avg_pool2d_backward is linear in output_grad; its transpose is avg_pool2d.
// AD-LABEL: func.func private @spread_vjp
// AD-SAME: (%[[G:[a-zA-Z0-9_]+]]: tensor<1x2x3x3xf64>, %[[X:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<1x2x5x5xf64>)
// AD-NEXT: %[[R:.*]] = "tad.avg_pool2d_backward"(%[[G]], %[[X]])
// AD-NEXT: %[[DG:.*]] = "tad.avg_pool2d"(%[[CT]]) {ceil_mode = 1 : i64, count_include_pad = 0 : i64,
// AD-NEXT: return %[[R]], %[[DG]]
func.func @spread(%g: tensor<1x2x3x3xf64>, %x: tensor<1x2x5x5xf64>) -> tensor<1x2x5x5xf64> {
  %0 = "tad.avg_pool2d_backward"(%g, %x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>, padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 1, count_include_pad = 0} : (tensor<1x2x3x3xf64>, tensor<1x2x5x5xf64>) -> tensor<1x2x5x5xf64>
  return %0 : tensor<1x2x5x5xf64>
}
func.func private @spread_vjp(tensor<1x2x3x3xf64>, tensor<1x2x5x5xf64>, tensor<1x2x5x5xf64>) -> (tensor<1x2x5x5xf64>, tensor<1x2x3x3xf64>)
    attributes {tad.vjp = {of = @spread, wrt = array<i64: 0>}}
