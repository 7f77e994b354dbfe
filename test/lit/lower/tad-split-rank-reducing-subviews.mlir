// RUN: autodiff-opt %s --split-input-file --tad-split-rank-reducing-subviews | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-split-rank-reducing-subviews --expand-strided-metadata \
// RUN:   | FileCheck %s --check-prefix=EXPANDED

// The slice a scan takes of a batched tangent that came out of scf.if (fully
// dynamic layout): upstream alone drops dim 1 and gives result dim 2 the
// stride of source dim 3. The result dims are source dims 0, 1, 2, 3 and 5.
// CHECK-LABEL: func.func @scan_row_of_branch_result
// CHECK: %[[FULL:[a-z_0-9]+]] = memref.subview %{{.*}}[0, 0, 0, %{{.*}}, 0, 0] [2, 1, 2, 1, 1, 2] [1, 1, 1, 1, 1, 1]
// CHECK-SAME: to memref<2x1x2x1x1x2xf64, strided<[?, ?, ?, ?, ?, ?], offset: ?>>
// CHECK: %[[BASE:[a-z_0-9]+]], %[[OFFSET:[a-z_0-9]+]], %{{[a-z_0-9]+}}:6, %[[STRIDES:[a-z_0-9]+]]:6 = memref.extract_strided_metadata %[[FULL]]
// CHECK: %[[VIEW:[a-z_0-9]+]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [2, 1, 2, 1, 2],
// CHECK-SAME: strides: [%[[STRIDES]]#0, %[[STRIDES]]#1, %[[STRIDES]]#2, %[[STRIDES]]#3, %[[STRIDES]]#5]
// CHECK: return %[[VIEW]]
// EXPANDED-LABEL: func.func @scan_row_of_branch_result
// EXPANDED: %[[BASE:[a-z_0-9]+]], %{{[a-z_0-9]+}}, %{{[a-z_0-9]+}}:6, %[[S:[a-z_0-9]+]]:6 = memref.extract_strided_metadata %arg0
// EXPANDED: memref.reinterpret_cast %[[BASE]] to offset: [%{{.*}}], sizes: [2, 1, 2, 1, 2],
// EXPANDED-SAME: strides: [%[[S]]#0, %[[S]]#1, %[[S]]#2, %[[S]]#3, %[[S]]#5]
func.func @scan_row_of_branch_result(%m: memref<2x1x2x2x1x2xf64, strided<[?, ?, ?, ?, ?, ?], offset: ?>>, %i: index)
    -> memref<2x1x2x1x2xf64, strided<[?, ?, ?, ?, ?], offset: ?>> {
  %s = memref.subview %m[0, 0, 0, %i, 0, 0] [2, 1, 2, 1, 1, 2] [1, 1, 1, 1, 1, 1]
      : memref<2x1x2x2x1x2xf64, strided<[?, ?, ?, ?, ?, ?], offset: ?>> to memref<2x1x2x1x2xf64, strided<[?, ?, ?, ?, ?], offset: ?>>
  return %s : memref<2x1x2x1x2xf64, strided<[?, ?, ?, ?, ?], offset: ?>>
}

// -----

// The smallest case upstream gets wrong: it would drop dim 0 and read the
// size-2 result dim with the stride of dim 2.
// EXPANDED-LABEL: func.func @leading_unit_dim_kept
// EXPANDED: %[[BASE:[a-z_0-9]+]], %[[OFFSET:[a-z_0-9]+]], %{{[a-z_0-9]+}}:3, %[[S:[a-z_0-9]+]]:3 = memref.extract_strided_metadata %arg0
// EXPANDED: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [1, 2], strides: [%[[S]]#0, %[[S]]#1]
func.func @leading_unit_dim_kept(%m: memref<1x2x1xf64, strided<[?, ?, ?], offset: ?>>)
    -> memref<1x2xf64, strided<[?, ?], offset: ?>> {
  %s = memref.subview %m[0, 0, 0] [1, 2, 1] [1, 1, 1]
      : memref<1x2x1xf64, strided<[?, ?, ?], offset: ?>> to memref<1x2xf64, strided<[?, ?], offset: ?>>
  return %s : memref<1x2xf64, strided<[?, ?], offset: ?>>
}

// -----

// Static strides on the kept dims stay static in the view.
// CHECK-LABEL: func.func @mixed_static_strides
// CHECK: memref.subview %{{.*}} to memref<2x1x1xf64, strided<[?, 5, 3], offset: 7>>
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [7], sizes: [2, 1], strides: [%{{.*}}#0, 5]
func.func @mixed_static_strides(%m: memref<2x1x1xf64, strided<[?, 5, 3], offset: 7>>)
    -> memref<2x1xf64, strided<[?, 5], offset: 7>> {
  %s = memref.subview %m[0, 0, 0] [2, 1, 1] [1, 1, 1]
      : memref<2x1x1xf64, strided<[?, 5, 3], offset: 7>> to memref<2x1xf64, strided<[?, 5], offset: 7>>
  return %s : memref<2x1xf64, strided<[?, 5], offset: 7>>
}

// -----

// A dynamic size of a kept dim comes from the full subview.
// CHECK-LABEL: func.func @dynamic_size
// CHECK: %[[FULL:[a-z_0-9]+]] = memref.subview %{{.*}} to memref<1x?x1xf64, strided<[?, ?, ?], offset: ?>>
// CHECK: %[[BASE:[a-z_0-9]+]], %[[OFFSET:[a-z_0-9]+]], %[[SIZES:[a-z_0-9]+]]:3, %[[S:[a-z_0-9]+]]:3 = memref.extract_strided_metadata %[[FULL]]
// CHECK: memref.reinterpret_cast %[[BASE]] to offset: [%[[OFFSET]]], sizes: [1, %[[SIZES]]#1], strides: [%[[S]]#0, %[[S]]#1]
func.func @dynamic_size(%m: memref<1x?x1xf64, strided<[?, ?, ?], offset: ?>>, %n: index)
    -> memref<1x?xf64, strided<[?, ?], offset: ?>> {
  %s = memref.subview %m[0, 0, 0] [1, %n, 1] [1, 1, 1]
      : memref<1x?x1xf64, strided<[?, ?, ?], offset: ?>> to memref<1x?xf64, strided<[?, ?], offset: ?>>
  return %s : memref<1x?xf64, strided<[?, ?], offset: ?>>
}

// -----

// Left alone: a subview that drops every unit dim leaves nothing to choose.
// CHECK-LABEL: func.func @every_unit_dim_dropped
// CHECK-NOT: memref.reinterpret_cast
// CHECK: memref.subview %{{.*}} to memref<2x2xf64, strided<[?, ?], offset: ?>>
// CHECK-NOT: memref.reinterpret_cast
// CHECK: return
func.func @every_unit_dim_dropped(%d: memref<2x1x2xf64, strided<[?, ?, ?], offset: ?>>)
    -> memref<2x2xf64, strided<[?, ?], offset: ?>> {
  %b = memref.subview %d[0, 0, 0] [2, 1, 2] [1, 1, 1]
      : memref<2x1x2xf64, strided<[?, ?, ?], offset: ?>> to memref<2x2xf64, strided<[?, ?], offset: ?>>
  return %b : memref<2x2xf64, strided<[?, ?], offset: ?>>
}

// -----

// Static strides: the full subview has the layout the verifier infers, the
// view the declared one (which names source dim 2's stride for the kept unit
// dim: unit dims' strides address nothing).
// CHECK-LABEL: func.func @static_unit_dims
// CHECK: memref.subview %{{.*}}[0, 0, %{{.*}}, 0] [2, 1, 1, 2] [1, 1, 1, 1] : memref<2x1x2x2xf64> to memref<2x1x1x2xf64, strided<[4, 4, 2, 1], offset: ?>>
// CHECK: memref.reinterpret_cast %{{.*}} sizes: [2, 1, 2], strides: [4, 2, 1]
func.func @static_unit_dims(%m: memref<2x1x2x2xf64>, %i: index) -> memref<2x1x2xf64, strided<[4, 2, 1], offset: ?>> {
  %a = memref.subview %m[0, 0, %i, 0] [2, 1, 1, 2] [1, 1, 1, 1]
      : memref<2x1x2x2xf64> to memref<2x1x2xf64, strided<[4, 2, 1], offset: ?>>
  return %a : memref<2x1x2xf64, strided<[4, 2, 1], offset: ?>>
}

// -----

// A max-pooling tap: every size 1, a step of 2 along a unit dim. Upstream
// finds no dims to drop from these static strides and aborts; split, the
// view keeps the declared strides and the tap's offset.
// EXPANDED-LABEL: func.func @unit_tap_with_a_step
// EXPANDED: memref.reinterpret_cast %{{.*}} to offset: [1], sizes: [1, 1, 1, 1], strides: [2, 2, 2, 4]
func.func @unit_tap_with_a_step(%m: memref<2x1x1x1x2xf64>) -> memref<1x1x1x1xf64, strided<[2, 2, 2, 4], offset: 1>> {
  %s = memref.subview %m[0, 0, 0, 0, 1] [1, 1, 1, 1, 1] [1, 1, 1, 2, 1]
      : memref<2x1x1x1x2xf64> to memref<1x1x1x1xf64, strided<[2, 2, 2, 4], offset: 1>>
  return %s : memref<1x1x1x1xf64, strided<[2, 2, 2, 4], offset: 1>>
}
