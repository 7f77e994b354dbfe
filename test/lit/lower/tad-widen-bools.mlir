// tad-widen-bools stores booleans as bytes: every tensor<...xi1> and memref<...xi1> value
// (arguments, results, op results, block arguments) becomes i8, while scalar code keeps
// i1: linalg bodies truncate what they read and widen what they yield, tensor.extract
// truncates its result and memref.store widens the stored value.
// RUN: autodiff-opt %s --split-input-file --tad-widen-bools | FileCheck %s

#map = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @compare
// CHECK-SAME: (%arg0: tensor<3xf32>) -> tensor<3xi8>
// CHECK: %[[E:.*]] = tensor.empty() : tensor<3xi8>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[E]] : tensor<3xi8>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %[[OUT:.*]]: i8):
// CHECK-NEXT: arith.trunci %[[OUT]] : i8 to i1
// CHECK-NEXT: %[[C:.*]] = arith.cmpf ogt
// CHECK-NEXT: %[[W:.*]] = arith.extui %[[C]] : i1 to i8
// CHECK-NEXT: linalg.yield %[[W]] : i8
// CHECK-NEXT: } -> tensor<3xi8>
// CHECK: return %{{.*}} : tensor<3xi8>
func.func @compare(%arg0: tensor<3xf32>) -> tensor<3xi1> {
  %0 = tensor.empty() : tensor<3xi1>
  %1 = linalg.generic {indexing_maps = [#map, #map, #map], iterator_types = ["parallel"]} ins(%arg0, %arg0 : tensor<3xf32>, tensor<3xf32>) outs(%0 : tensor<3xi1>) {
  ^bb0(%in: f32, %in_0: f32, %out: i1):
    %2 = arith.cmpf ogt, %in, %in_0 : f32
    linalg.yield %2 : i1
  } -> tensor<3xi1>
  return %1 : tensor<3xi1>
}

// -----

// CHECK-LABEL: func.func @extract
// CHECK-SAME: (%arg0: tensor<3xi8>) -> i1
// CHECK: %[[X:.*]] = tensor.extract %arg0[%{{.*}}] : tensor<3xi8>
// CHECK-NEXT: %[[B:.*]] = arith.trunci %[[X]] : i8 to i1
// CHECK-NEXT: return %[[B]] : i1
func.func @extract(%c: tensor<3xi1>) -> i1 {
  %i = arith.constant 1 : index
  %0 = tensor.extract %c[%i] : tensor<3xi1>
  return %0 : i1
}

// -----

// CHECK-LABEL: func.func @store
// CHECK-SAME: (%arg0: memref<3xi8>, %arg1: i1)
// CHECK: %[[W:.*]] = arith.extui %arg1 : i1 to i8
// CHECK-NEXT: memref.store %[[W]], %arg0[%{{.*}}] : memref<3xi8>
func.func @store(%m: memref<3xi1>, %v: i1) {
  %i = arith.constant 0 : index
  memref.store %v, %m[%i] : memref<3xi1>
  return
}

// -----

// Values of other element types are left alone.
// CHECK-LABEL: func.func @no_bools
// CHECK-SAME: (%arg0: tensor<3xi32>) -> tensor<3xi32>
// CHECK-NOT: i8
func.func @no_bools(%x: tensor<3xi32>) -> tensor<3xi32> {
  return %x : tensor<3xi32>
}
