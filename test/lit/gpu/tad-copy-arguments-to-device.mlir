// tad-copy-arguments-to-device gives every memref argument of a public function, and every
// constant (memref.get_global), a fresh buffer filled by a memref.copy marked tad.copy_in:
// host memory that a kernel cannot read is copied in once, at the top.
// RUN: autodiff-opt %s --tad-copy-arguments-to-device | FileCheck %s

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%arg0: memref<4xf32>) -> memref<4xf32>
// CHECK-NEXT: %[[X:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %arg0, %[[X]] {tad.copy_in} : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: %[[G:.*]] = memref.get_global @k : memref<4xf32>
// CHECK-NEXT: %[[K:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[G]], %[[K]] {tad.copy_in} : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: %[[Y:.*]] = memref.alloc() : memref<4xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[Y]] : memref<4xf32> to memref<4xf32>
// CHECK-NEXT: return %[[Y]]
memref.global "private" constant @k : memref<4xf32> = dense<1.0>
func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
  %k = memref.get_global @k : memref<4xf32>
  %y = memref.alloc() : memref<4xf32>
  memref.copy %x, %y : memref<4xf32> to memref<4xf32>
  return %y : memref<4xf32>
}
