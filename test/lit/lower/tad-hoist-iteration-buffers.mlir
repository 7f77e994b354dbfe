// tad-hoist-iteration-buffers allocates once, before an scf.for marked
// tad.reused_iteration_buffers, each buffer of a static shape that every
// iteration allocates and frees at the top of its body, and frees it after the
// loop. Buffers of a dynamic shape, buffers an iteration frees only under a
// condition or not at all, and the loops of unmarked scf.for stay as they are.
// RUN: autodiff-opt %s --split-input-file --tad-hoist-iteration-buffers | FileCheck %s

// CHECK-LABEL: func.func @rows
// CHECK: %[[T:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT: %[[U:.*]] = memref.alloc() : memref<8xf32>
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// CHECK: } {tad.reused_iteration_buffers}
// CHECK-DAG: memref.dealloc %[[T]] : memref<8xf32>
// CHECK-DAG: memref.dealloc %[[U]] : memref<8xf32>
// CHECK: return
func.func @rows(%x: memref<4x8xf32>, %out: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<8xf32>
    %row = memref.subview %x[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    memref.copy %row, %t : memref<8xf32, strided<[1], offset: ?>> to memref<8xf32>
    %u = memref.alloc() : memref<8xf32>
    memref.copy %t, %u : memref<8xf32> to memref<8xf32>
    memref.dealloc %t : memref<8xf32>
    %dest = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
    memref.copy %u, %dest : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
    memref.dealloc %u : memref<8xf32>
  } {tad.reused_iteration_buffers}
  return
}

// -----

// CHECK-LABEL: func.func @stays
// CHECK: scf.for
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: scf.if
// CHECK: memref.dealloc
// CHECK: } {tad.reused_iteration_buffers}
// CHECK: scf.for
// CHECK: memref.alloc() : memref<8xf32>
// CHECK: memref.dealloc
// CHECK: return
func.func @stays(%n: index, %c: i1, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %dynamic = memref.alloc(%n) : memref<?xf32>
    memref.dealloc %dynamic : memref<?xf32>
    %maybe = memref.alloc() : memref<8xf32>
    memref.copy %maybe, %out : memref<8xf32> to memref<8xf32>
    scf.if %c {
      memref.dealloc %maybe : memref<8xf32>
    }
  } {tad.reused_iteration_buffers}
  scf.for %i = %c0 to %c4 step %c1 {
    %unmarked = memref.alloc() : memref<8xf32>
    memref.copy %unmarked, %out : memref<8xf32> to memref<8xf32>
    memref.dealloc %unmarked : memref<8xf32>
  }
  return
}
