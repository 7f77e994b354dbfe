// Long float sums lower to blocked stages: the reduced dim splits into [blocks, block, lanes]
// and no accumulator adds more than 32 terms (64 in the lanes' last stage). Short sums stay
// one generic; a length no block divides sums a head that one does and a tail.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @long_sum
// CHECK: %[[LANES:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [15625, 64] : tensor<1000000xf32> into tensor<15625x64xf32>
// CHECK: %[[BLOCKS:.*]] = tensor.expand_shape %[[LANES]] {{\[\[}}0, 1], [2]] output_shape [625, 25, 64]
// CHECK: %[[S1:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[BLOCKS]] : tensor<625x25x64xf32>) outs(%{{.*}} : tensor<625x64xf32>)
// CHECK: %[[S1B:.*]] = tensor.expand_shape %[[S1]] {{\[\[}}0, 1], [2]] output_shape [25, 25, 64]
// CHECK: %[[S2:.*]] = linalg.generic {{.*}} ins(%[[S1B]] : tensor<25x25x64xf32>) outs(%{{.*}} : tensor<25x64xf32>)
// CHECK: %[[S3:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[S2]] : tensor<25x64xf32>) outs(%{{.*}} : tensor<64xf32>)
// CHECK: %[[S4:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[S3]] : tensor<64xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK: return %[[S4]]
func.func @long_sum(%x: tensor<1000000xf32>) -> tensor<f32> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<1000000xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @prime_length
// CHECK: %[[HEAD:.*]] = tensor.extract_slice %{{.*}}[0] [2048] [1] : tensor<2053xf64> to tensor<2048xf64>
// CHECK: tensor.expand_shape %[[HEAD]] {{\[\[}}0, 1]] output_shape [32, 64]
// CHECK: %[[TAIL:.*]] = tensor.extract_slice %{{.*}}[2048] [5] [1] : tensor<2053xf64> to tensor<5xf64>
// CHECK: linalg.generic {{.*}} ins(%[[TAIL]] : tensor<5xf64>)
// CHECK: arith.addf
func.func @prime_length(%x: tensor<2053xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<2053xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// CHECK-LABEL: func.func @short_sums_stay_one_generic
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<1000x3xf32>)
// CHECK-NOT: linalg.generic {{.*}} iterator_types = [{{.*}}"reduction"
func.func @short_sums_stay_one_generic(%x: tensor<1000x3xf32>) -> tensor<3xf32> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<1000x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A long dot product: products, then the blocked sum. A matrix-vector product keeps linalg.contract.
// CHECK-LABEL: func.func @long_dot
// CHECK: %[[P:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}}, %{{.*}} : tensor<8192xf32>, tensor<8192xf32>)
// CHECK: arith.mulf
// CHECK: tensor.expand_shape %[[P]] {{\[\[}}0, 1]] output_shape [128, 64]
// CHECK-NOT: linalg.contract
// CHECK-LABEL: func.func @long_matvec
// CHECK: linalg.contract
func.func @long_dot(%x: tensor<8192xf32>, %y: tensor<8192xf32>) -> tensor<f32> {
  %0 = "tad.dot_general"(%x, %y) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 0>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<8192xf32>, tensor<8192xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}
func.func @long_matvec(%a: tensor<4x8192xf32>, %y: tensor<8192xf32>) -> tensor<4xf32> {
  %0 = "tad.dot_general"(%a, %y) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<4x8192xf32>, tensor<8192xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
