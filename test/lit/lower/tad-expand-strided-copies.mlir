// tad-expand-strided-copies makes each memref.copy that finalize-memref-to-llvm
// would lower to the runtime's memrefCopy (a buffer that is not contiguous: a
// strided subview, or inner dims whose strides are not row-major) a linalg.copy,
// which becomes a loop nest. A copy between contiguous buffers (an identity
// layout, or a slice of whole rows, or unit dims with any stride) stays: it is
// a memcpy.
// RUN: autodiff-opt %s --split-input-file --tad-expand-strided-copies | FileCheck %s

// CHECK-LABEL: func.func @into_every_other_column
// CHECK: %[[COLUMNS:.*]] = memref.subview
// CHECK-NEXT: linalg.copy ins(%{{.*}} : memref<4x8xf32>) outs(%[[COLUMNS]] : memref<4x8xf32, strided<[16, 2]>>)
// CHECK-NOT: memref.copy
func.func @into_every_other_column(%x: memref<4x8xf32>, %y: memref<4x16xf32>) {
  %columns = memref.subview %y[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
  memref.copy %x, %columns : memref<4x8xf32> to memref<4x8xf32, strided<[16, 2]>>
  return
}

// -----

// CHECK-LABEL: func.func @out_of_a_transposed_view
// CHECK: linalg.copy ins(%{{.*}} : memref<8x4xf32, strided<[1, 8]>>) outs(%{{.*}} : memref<8x4xf32>)
func.func @out_of_a_transposed_view(%x: memref<4x8xf32>, %y: memref<8x4xf32>) {
  %t = memref.transpose %x (i, j) -> (j, i) : memref<4x8xf32> to memref<8x4xf32, strided<[1, 8]>>
  memref.copy %t, %y : memref<8x4xf32, strided<[1, 8]>> to memref<8x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @contiguous
// CHECK-COUNT-3: memref.copy
// CHECK-NOT: linalg.copy
func.func @contiguous(%x: memref<2x8xf32>, %y: memref<4x8xf32>, %n: index, %d: memref<?xf32>, %e: memref<?xf32>,
                      %u: memref<1x8xf32, strided<[99, 1], offset: ?>>, %v: memref<1x8xf32>) {
  %rows = memref.subview %y[%n, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
  memref.copy %x, %rows : memref<2x8xf32> to memref<2x8xf32, strided<[8, 1], offset: ?>>
  memref.copy %d, %e : memref<?xf32> to memref<?xf32>
  memref.copy %u, %v : memref<1x8xf32, strided<[99, 1], offset: ?>> to memref<1x8xf32>
  return
}
