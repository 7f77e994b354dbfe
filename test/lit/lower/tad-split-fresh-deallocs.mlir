// A dealloc of distinct fresh allocations becomes one dealloc per allocation, with the same
// retained values; the ownership it returned is the `or` of theirs. A dealloc that lists
// anything else (an argument, a view) stays whole.
// RUN: autodiff-opt %s --split-input-file --tad-split-fresh-deallocs | FileCheck %s

// CHECK-LABEL: func.func @fresh
// CHECK-SAME: (%[[C:.*]]: i1, %[[D:.*]]: i1, %[[R:.*]]: memref<2xf32>)
// CHECK: %[[A:.*]] = memref.alloc()
// CHECK: %[[B:.*]] = memref.alloc()
// CHECK: %[[OA:.*]] = bufferization.dealloc (%[[A]] : memref<2xf32>) if (%[[C]]) retain (%[[R]] : memref<2xf32>)
// CHECK: %[[OB:.*]] = bufferization.dealloc (%[[B]] : memref<4xf32>) if (%[[D]]) retain (%[[R]] : memref<2xf32>)
// CHECK: %[[O:.*]] = arith.ori %[[OA]], %[[OB]] : i1
// CHECK-NOT: bufferization.dealloc
// CHECK: return %[[O]]
func.func @fresh(%c: i1, %d: i1, %r: memref<2xf32>) -> i1 {
  %a = memref.alloc() : memref<2xf32>
  %b = memref.alloc() : memref<4xf32>
  %0 = bufferization.dealloc (%a, %b : memref<2xf32>, memref<4xf32>) if (%c, %d) retain (%r : memref<2xf32>)
  return %0 : i1
}

// -----

// CHECK-LABEL: func.func @with_an_argument
// CHECK: bufferization.dealloc (%{{.*}}, %{{.*}} : memref<2xf32>, memref<2xf32>)
// CHECK-NOT: arith.ori
func.func @with_an_argument(%c: i1, %x: memref<2xf32>) {
  %a = memref.alloc() : memref<2xf32>
  bufferization.dealloc (%a, %x : memref<2xf32>, memref<2xf32>) if (%c, %c)
  return
}
