// tad-map-to-gpu makes every linalg op on buffers a GPU kernel (gpu.launch): a 64x128 copy
// is split into 4x64 tiles, one per block (2x16 blocks), and each of the 64x4 threads of a
// block copies one element of its tile.
// RUN: autodiff-opt %s --tad-map-to-gpu | FileCheck %s --implicit-check-not=#gpu.block

// CHECK-LABEL: func.func @f
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[C2]], {{.*}} = %[[C16]], {{.*}}) threads({{.*}}) in ({{.*}} = %[[C64]], {{.*}} = %[[C4]], {{.*}})
// CHECK: gpu.block_id  x
// CHECK: %[[TILE:.*]] = memref.subview %arg0[{{.*}}] [4, 64] [1, 1]
// CHECK: %[[OUT:.*]] = memref.subview %arg1[{{.*}}] [4, 64] [1, 1]
// CHECK: %[[TX:.*]] = gpu.thread_id  x
// CHECK: %[[TY:.*]] = gpu.thread_id  y
// CHECK: %[[E:.*]] = memref.subview %[[TILE]][%[[TY]], %[[TX]]] [1, 1] [1, 1]
// CHECK: %[[F:.*]] = memref.subview %[[OUT]][%[[TY]], %[[TX]]] [1, 1] [1, 1]
// CHECK: linalg.copy ins(%[[E]] : {{.*}}) outs(%[[F]] : {{.*}})
// CHECK: gpu.terminator
// CHECK: return
func.func @f(%x: memref<64x128xf32>, %y: memref<64x128xf32>) {
  linalg.copy ins(%x : memref<64x128xf32>) outs(%y : memref<64x128xf32>)
  return
}
