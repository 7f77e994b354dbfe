// Reductions lower to a linalg.generic with reduction iterators over the removed dims,
// accumulating into an init filled with the identity of the combiner.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @reduce_sum
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[INIT:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<3xf32>)
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["reduction", "parallel", "reduction"]} ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[A]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @reduce_sum(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// CHECK-LABEL: func.func @reduce_sum_int_to_scalar
// CHECK: arith.constant 0 : i64
// CHECK: linalg.generic {{.*}}iterator_types = ["reduction", "reduction"]} ins(%{{.*}} : tensor<2x3xi64>) outs(%{{.*}} : tensor<i64>)
// CHECK: arith.addi
func.func @reduce_sum_int_to_scalar(%x: tensor<2x3xi64>) -> tensor<i64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0, 1>} : (tensor<2x3xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// Float max/min start at -inf/+inf and propagate NaN like numpy (maximumf/minimumf).
// CHECK-LABEL: func.func @reduce_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: arith.maximumf
// CHECK-LABEL: func.func @reduce_min
// CHECK: arith.constant 0x7FF0000000000000 : f64
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.minimumf
func.func @reduce_max(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  %0 = "tad.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
func.func @reduce_min(%x: tensor<4x5xf64>) -> tensor<5xf64> {
  %0 = "tad.reduce_min"(%x) {dimensions = array<i64: 0>} : (tensor<4x5xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}

// -----

// Integers start at the smallest/largest signed value; booleans use or/and.
// CHECK-LABEL: func.func @reduce_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: arith.maxsi
// CHECK: arith.constant 2147483647 : i32
// CHECK: arith.minsi
// CHECK-LABEL: func.func @reduce_bool
// CHECK: arith.constant false
// CHECK: arith.ori
// CHECK: arith.constant true
// CHECK: arith.andi
func.func @reduce_int(%x: tensor<4x5xi32>) -> (tensor<4xi32>, tensor<4xi32>) {
  %0 = "tad.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<4x5xi32>) -> tensor<4xi32>
  %1 = "tad.reduce_min"(%x) {dimensions = array<i64: 1>} : (tensor<4x5xi32>) -> tensor<4xi32>
  return %0, %1 : tensor<4xi32>, tensor<4xi32>
}
func.func @reduce_bool(%x: tensor<4x5xi1>) -> (tensor<4xi1>, tensor<4xi1>) {
  %0 = "tad.reduce_max"(%x) {dimensions = array<i64: 1>} : (tensor<4x5xi1>) -> tensor<4xi1>
  %1 = "tad.reduce_min"(%x) {dimensions = array<i64: 1>} : (tensor<4x5xi1>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi1>, tensor<4xi1>
}

// -----

// Two accumulators (running maximum, its index); only a strictly greater value
// or the first NaN replaces the maximum, so the first maximum wins like numpy.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @argmax
// CHECK-SAME: (%[[X:.*]]: tensor<4x5xf32>)
// CHECK: %[[BEST:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.constant 0xFF800000 : f32
// CHECK: %[[INDEX:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4xi64>)
// CHECK: arith.constant 0 : i64
// CHECK: %[[R:.*]]:2 = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]], #[[$OUT]]], iterator_types = ["parallel", "reduction"]} ins(%[[X]] : tensor<4x5xf32>) outs(%[[BEST]], %[[INDEX]] : tensor<4xf32>, tensor<4xi64>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[M:.*]]: f32, %[[I:.*]]: i64):
// CHECK-NEXT: %[[GT:.*]] = arith.cmpf ugt, %[[A]], %[[M]] : f32
// CHECK-NEXT: %[[ORD:.*]] = arith.cmpf ord, %[[M]], %[[M]] : f32
// CHECK-NEXT: %[[TAKE:.*]] = arith.andi %[[GT]], %[[ORD]] : i1
// CHECK-NEXT: %[[K:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[K64:.*]] = arith.index_cast %[[K]] : index to i64
// CHECK-NEXT: %[[NM:.*]] = arith.select %[[TAKE]], %[[A]], %[[M]] : f32
// CHECK-NEXT: %[[NI:.*]] = arith.select %[[TAKE]], %[[K64]], %[[I]] : i64
// CHECK-NEXT: linalg.yield %[[NM]], %[[NI]] : f32, i64
// CHECK: return %[[R]]#1 : tensor<4xi64>
func.func @argmax(%x: tensor<4x5xf32>) -> tensor<4xi64> {
  %0 = "tad.argmax"(%x) {axis = 1 : i64} : (tensor<4x5xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @argmax_int
// CHECK: arith.constant -2147483648 : i32
// CHECK: iterator_types = ["reduction", "parallel"]
// CHECK: arith.cmpi sgt
func.func @argmax_int(%x: tensor<4x5xi32>) -> tensor<5xi64> {
  %0 = "tad.argmax"(%x) {axis = 0 : i64} : (tensor<4x5xi32>) -> tensor<5xi64>
  return %0 : tensor<5xi64>
}
