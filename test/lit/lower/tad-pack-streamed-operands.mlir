// tad-pack-streamed-operands copies the streamed operand of a large matmul
// into contiguous panels of the register tile's width, so the kernel's loads
// do not all fall into the same L1 sets.
// RUN: autodiff-opt %s --split-input-file '--tad-pack-streamed-operands=vector-bits=512' | FileCheck %s

// B (512x1024) is copied into 32 panels P[j / 32, k, j % 32] of 32 columns
// (two 512-bit vectors), and C is written as C[i, j / 32, j % 32].
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[P:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func.func @matmul
// CHECK: %[[E:.*]] = tensor.empty() : tensor<32x512x32xf32>
// CHECK: %[[S:.*]] = tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [512, 32, 32]
// CHECK: %[[B:.*]] = linalg.transpose ins(%[[S]] : tensor<512x32x32xf32>) outs(%[[E]] : tensor<32x512x32xf32>) permutation = [1, 0, 2]
// CHECK: %[[O:.*]] = tensor.expand_shape %arg2 {{\[}}[0], [1, 2]] output_shape [256, 32, 32]
// CHECK: %[[R:.*]] = linalg.contract indexing_maps = [#[[A]], #[[P]], #[[C]]] ins(%arg0, %[[B]] : {{.*}}) outs(%[[O]] : tensor<256x32x32xf32>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[R]] {{\[}}[0], [1, 2]] : tensor<256x32x32xf32> into tensor<256x1024xf32>
// CHECK: return %[[F]]
func.func @matmul(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
                                        affine_map<(m, k, n) -> (m, n)>]
      ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}

// -----

// B = Wᵀ: the panels are copied from W in one transpose, and Wᵀ is gone.
// CHECK-LABEL: func.func @transposed_operand
// CHECK-NOT: tensor<512x1024xf32>
// CHECK: tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [32, 32, 512]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<32x32x512xf32>) outs(%{{.*}} : tensor<32x512x32xf32>) permutation = [0, 2, 1]
// CHECK: linalg.contract
func.func @transposed_operand(%a: tensor<256x512xf32>, %w: tensor<1024x512xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %e = tensor.empty() : tensor<512x1024xf32>
  %b = linalg.transpose ins(%w : tensor<1024x512xf32>) outs(%e : tensor<512x1024xf32>) permutation = [1, 0]
  %0 = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
                                        affine_map<(m, k, n) -> (m, n)>]
      ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}

// -----

// With 128 rows the copy would cost what it saves.
// CHECK-LABEL: func.func @few_rows
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.contract {{.*}} ins(%arg0, %arg1
func.func @few_rows(%a: tensor<128x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
                                        affine_map<(m, k, n) -> (m, n)>]
      ins(%a, %b : tensor<128x512xf32>, tensor<512x1024xf32>) outs(%c : tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %0 : tensor<128x1024xf32>
}
