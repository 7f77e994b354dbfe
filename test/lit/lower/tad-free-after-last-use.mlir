// RUN: autodiff-opt %s --split-input-file --tad-free-after-last-use | FileCheck %s

// A buffer is freed right after its last reader, not at the end of the block.
// CHECK-LABEL: func.func @straight_line
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: memref.copy %{{.*}}, %[[A]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: memref.copy %{{.*}}, %[[B]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK: return
func.func @straight_line(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %x, %b : memref<4xf32> to memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  memref.dealloc %b : memref<4xf32>
  return
}

// -----

// A read through a view keeps the buffer alive; so does a loop that reads it.
// CHECK-LABEL: func.func @through_views
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: %[[V:.*]] = memref.collapse_shape %[[A]]
// CHECK: scf.for
// CHECK: memref.load %[[V]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[A]]
func.func @through_views(%x: memref<2x2xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %a = memref.alloc() : memref<2x2xf32>
  memref.copy %x, %a : memref<2x2xf32> to memref<2x2xf32>
  %v = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %e = memref.load %v[%i] : memref<4xf32>
    memref.store %e, %out[] : memref<f32>
  }
  %b = memref.alloc() : memref<2x2xf32>
  memref.copy %x, %b : memref<2x2xf32> to memref<2x2xf32>
  memref.dealloc %a : memref<2x2xf32>
  memref.dealloc %b : memref<2x2xf32>
  return
}
