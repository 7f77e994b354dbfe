// tad-allocate-on-device makes the buffers of host code CUDA managed memory: memref.alloc
// and memref.dealloc become gpu.alloc host_shared and gpu.dealloc, and the copies marked
// tad.copy_in (by tad-copy-arguments-to-device) become a gpu.memcpy waited for; other
// copies are left to tad-map-to-gpu.
// RUN: autodiff-opt %s --tad-allocate-on-device | FileCheck %s --implicit-check-not=memref.alloc --implicit-check-not=memref.dealloc

// CHECK-LABEL: func.func @f
// CHECK-NEXT: %[[X:.*]] = gpu.alloc  host_shared () : memref<4xf32>
// CHECK-NEXT: %[[T:.*]] = gpu.wait async
// CHECK-NEXT: %[[C:.*]] = gpu.memcpy async [%[[T]]] %[[X]], %arg0 : memref<4xf32>, memref<4xf32>
// CHECK-NEXT: gpu.wait [%[[C]]]
// CHECK-NEXT: %[[Y:.*]] = gpu.alloc  host_shared () : memref<4xf32>
// CHECK-NEXT: memref.copy %[[X]], %[[Y]] : memref<4xf32> to memref<4xf32>
// CHECK: gpu.dealloc {{.*}}%[[X]] : memref<4xf32>
// CHECK: return %[[Y]]
func.func @f(%arg0: memref<4xf32>) -> memref<4xf32> {
  %alloc = memref.alloc() : memref<4xf32>
  memref.copy %arg0, %alloc {tad.copy_in} : memref<4xf32> to memref<4xf32>
  %alloc_1 = memref.alloc() : memref<4xf32>
  memref.copy %alloc, %alloc_1 : memref<4xf32> to memref<4xf32>
  memref.dealloc %alloc : memref<4xf32>
  return %alloc_1 : memref<4xf32>
}
