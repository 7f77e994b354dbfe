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

// -----

// A buffer an scf.if yields (cast to a strided layout) is freed through its
// base buffer, which deallocation extracts at the end of the block: the
// extraction moves up with the free. Left at the end, a fuzzed gradient with
// two conds held every branch's result to its return (1,008 bytes measured
// against a plan of 864; 576 once they are freed).
// CHECK-LABEL: func.func @branch_result
// CHECK: %[[R:.*]] = scf.if
// CHECK: memref.copy %[[R]]
// CHECK-NEXT: %[[BASE:.*]], %{{.*}}, %{{.*}}, %{{.*}} = memref.extract_strided_metadata %[[R]]
// CHECK-NEXT: memref.dealloc %[[BASE]]
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: memref.copy %{{.*}}, %[[B]]
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: return
func.func @branch_result(%c: i1, %x: memref<4xf32>, %out: memref<4xf32>) {
  %r = scf.if %c -> (memref<4xf32, strided<[?], offset: ?>>) {
    %a = memref.alloc() : memref<4xf32>
    memref.copy %x, %a : memref<4xf32> to memref<4xf32>
    %cast = memref.cast %a : memref<4xf32> to memref<4xf32, strided<[?], offset: ?>>
    scf.yield %cast : memref<4xf32, strided<[?], offset: ?>>
  } else {
    %a = memref.alloc() : memref<4xf32>
    memref.copy %x, %a : memref<4xf32> to memref<4xf32>
    %cast = memref.cast %a : memref<4xf32> to memref<4xf32, strided<[?], offset: ?>>
    scf.yield %cast : memref<4xf32, strided<[?], offset: ?>>
  }
  memref.copy %r, %out : memref<4xf32, strided<[?], offset: ?>> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %x, %b : memref<4xf32> to memref<4xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %r : memref<4xf32, strided<[?], offset: ?>> -> memref<f32>, index, index, index
  memref.dealloc %base : memref<f32>
  memref.dealloc %b : memref<4xf32>
  return
}
