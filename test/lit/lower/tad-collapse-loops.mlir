// RUN: autodiff-opt %s --split-input-file --tad-collapse-loops | FileCheck %s
// Merged loops of a linalg op: contractions (which become linalg.contract) and any other
// generic (which keeps its body), when every operand reads the loops together.

// A weight gradient contracting over (batch, seq): one contracting loop of 8 * 128.
// CHECK-LABEL: func.func @two_contracting_dims
// CHECK-DAG: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<8x128x16xf32> into tensor<1024x16xf32>
// CHECK-DAG: %[[C:.*]] = tensor.collapse_shape %arg1 {{\[}}[0, 1], [2]] : tensor<8x128x24xf32> into tensor<1024x24xf32>
// CHECK: %[[R:.*]] = linalg.contract indexing_maps = [#{{.*}}, #{{.*}}, #{{.*}}] ins(%[[X]], %[[C]] : tensor<1024x16xf32>, tensor<1024x24xf32>) outs(%arg2 : tensor<16x24xf32>)
// CHECK: return %[[R]]
func.func @two_contracting_dims(%x: tensor<8x128x16xf32>, %c: tensor<8x128x24xf32>, %o: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(b, s, i, j) -> (b, s, i)>,
                                        affine_map<(b, s, i, j) -> (b, s, j)>,
                                        affine_map<(b, s, i, j) -> (i, j)>]
       ins(%x, %c : tensor<8x128x16xf32>, tensor<8x128x24xf32>) outs(%o : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %0 : tensor<16x24xf32>
}

// -----

// x @ w for a 3-d x: the rows (batch, seq) become one loop; the result is expanded back.
// CHECK-LABEL: func.func @two_row_dims
// CHECK-DAG: tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<4x6x16xf64> into tensor<24x16xf64>
// CHECK-DAG: tensor.collapse_shape %arg2 {{\[}}[0, 1], [2]] : tensor<4x6x8xf64> into tensor<24x8xf64>
// CHECK: %[[R:.*]] = linalg.contract {{.*}} -> tensor<24x8xf64>
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [4, 6, 8] : tensor<24x8xf64> into tensor<4x6x8xf64>
func.func @two_row_dims(%x: tensor<4x6x16xf64>, %w: tensor<16x8xf64>, %o: tensor<4x6x8xf64>) -> tensor<4x6x8xf64> {
  %0 = linalg.contract indexing_maps = [affine_map<(b, s, k, j) -> (b, s, k)>,
                                        affine_map<(b, s, k, j) -> (k, j)>,
                                        affine_map<(b, s, k, j) -> (b, s, j)>]
       ins(%x, %w : tensor<4x6x16xf64>, tensor<16x8xf64>) outs(%o : tensor<4x6x8xf64>) -> tensor<4x6x8xf64>
  return %0 : tensor<4x6x8xf64>
}

// -----

// What elementwise fusion leaves when it folds a reshape into a contraction: a generic
// computing out + a * b over split loops becomes the linalg.contract it stands for.
// CHECK-LABEL: func.func @fused_reshape
// CHECK-NOT: linalg.generic
// CHECK: linalg.contract {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1024x16xf32>, tensor<1024x24xf32>) outs(%arg2 : tensor<16x24xf32>)
func.func @fused_reshape(%x: tensor<8x128x16xf32>, %c: tensor<8x128x24xf32>, %o: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, b, s, j) -> (b, s, i)>,
                                        affine_map<(i, b, s, j) -> (b, s, j)>,
                                        affine_map<(i, b, s, j) -> (i, j)>],
                       iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
       ins(%x, %c : tensor<8x128x16xf32>, tensor<8x128x24xf32>) outs(%o : tensor<16x24xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x24xf32>
  return %0 : tensor<16x24xf32>
}

// -----

// Batch dims (batch, heads) of an attention product merge; its own loops stay.
// CHECK-LABEL: func.func @batch_dims
// CHECK-DAG: tensor.collapse_shape %arg0 {{\[}}[0, 1], [2], [3]] : tensor<2x4x8x16xf32> into tensor<8x8x16xf32>
// CHECK-DAG: tensor.collapse_shape %arg1 {{\[}}[0, 1], [2], [3]] : tensor<2x4x16x8xf32> into tensor<8x16x8xf32>
// CHECK: linalg.contract {{.*}} -> tensor<8x8x8xf32>
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 4, 8, 8]
func.func @batch_dims(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x16x8xf32>, %o: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(b, h, i, d, j) -> (b, h, i, d)>,
                                        affine_map<(b, h, i, d, j) -> (b, h, d, j)>,
                                        affine_map<(b, h, i, d, j) -> (b, h, i, j)>]
       ins(%q, %k : tensor<2x4x8x16xf32>, tensor<2x4x16x8xf32>) outs(%o : tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Left alone: the contracting dims come in another order in one operand (not one
// contiguous block), a body that is not out + a * b, and a contraction with one loop per role.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: collapse_shape
// CHECK: linalg.contract {{.*}} ins(%arg0, %arg1 : tensor<8x4x16xf32>, tensor<4x8x24xf32>)
// CHECK: linalg.generic
// CHECK: math.tanh
// CHECK: linalg.contract {{.*}} ins(%arg4, %arg5 : tensor<32x16xf32>, tensor<32x24xf32>)
func.func @left_alone(%x: tensor<8x4x16xf32>, %c: tensor<4x8x24xf32>, %o: tensor<16x24xf32>,
                      %y: tensor<4x8x16xf32>, %a: tensor<32x16xf32>, %b: tensor<32x24xf32>)
    -> (tensor<16x24xf32>, tensor<16x24xf32>, tensor<16x24xf32>) {
  %0 = linalg.contract indexing_maps = [affine_map<(i, b, s, j) -> (s, b, i)>,
                                        affine_map<(i, b, s, j) -> (b, s, j)>,
                                        affine_map<(i, b, s, j) -> (i, j)>]
       ins(%x, %c : tensor<8x4x16xf32>, tensor<4x8x24xf32>) outs(%o : tensor<16x24xf32>) -> tensor<16x24xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, b, s, j) -> (b, s, i)>,
                                        affine_map<(i, b, s, j) -> (b, s, j)>,
                                        affine_map<(i, b, s, j) -> (i, j)>],
                       iterator_types = ["parallel", "reduction", "reduction", "parallel"]}
       ins(%y, %c : tensor<4x8x16xf32>, tensor<4x8x24xf32>) outs(%o : tensor<16x24xf32>) {
  ^bb0(%p: f32, %q: f32, %out: f32):
    %t = math.tanh %p : f32
    %m = arith.mulf %t, %q : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x24xf32>
  %2 = linalg.contract indexing_maps = [affine_map<(i, k, j) -> (k, i)>,
                                        affine_map<(i, k, j) -> (k, j)>,
                                        affine_map<(i, k, j) -> (i, j)>]
       ins(%a, %b : tensor<32x16xf32>, tensor<32x24xf32>) outs(%o : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %0, %1, %2 : tensor<16x24xf32>, tensor<16x24xf32>, tensor<16x24xf32>
}

// -----

// An activation over (batch, seq, width) with a bias broadcast along (batch, seq):
// one row loop of 8 * 128; the body is kept; the result is expanded back.
// CHECK-LABEL: func.func @bias_tanh
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<8x128x64xf32> into tensor<1024x64xf32>
// CHECK: %[[R:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %arg1 : tensor<1024x64xf32>, tensor<64xf32>)
// CHECK: arith.addf
// CHECK: math.tanh
// CHECK: tensor.expand_shape %[[R]] {{\[}}[0, 1], [2]] output_shape [8, 128, 64] : tensor<1024x64xf32> into tensor<8x128x64xf32>
func.func @bias_tanh(%x: tensor<8x128x64xf32>, %b: tensor<64xf32>) -> tensor<8x128x64xf32> {
  %e = tensor.empty() : tensor<8x128x64xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(a, s, c) -> (a, s, c)>, affine_map<(a, s, c) -> (c)>,
                                        affine_map<(a, s, c) -> (a, s, c)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<8x128x64xf32>, tensor<64xf32>) outs(%e : tensor<8x128x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<8x128x64xf32>
  return %0 : tensor<8x128x64xf32>
}

// -----

// A bias gradient summing (batch, seq) away: one reduced loop of 8 * 128, same order.
// CHECK-LABEL: func.func @bias_gradient
// CHECK: %[[G:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<8x128x64xf32> into tensor<1024x64xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]} ins(%[[G]] : tensor<1024x64xf32>) outs(%arg1 : tensor<64xf32>)
// CHECK-NOT: tensor.expand_shape
func.func @bias_gradient(%g: tensor<8x128x64xf32>, %init: tensor<64xf32>) -> tensor<64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(a, s, c) -> (a, s, c)>, affine_map<(a, s, c) -> (c)>],
                       iterator_types = ["reduction", "reduction", "parallel"]}
      ins(%g : tensor<8x128x64xf32>) outs(%init : tensor<64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<64xf32>
  return %0 : tensor<64xf32>
}

// -----

// Left as they are: a transposed read (the loops are not consecutive in the input), and a
// body reading linalg.index (a merged loop would change the index it reads).
// CHECK-LABEL: func.func @transposed
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.generic
// CHECK-LABEL: func.func @indexed
// CHECK-NOT: tensor.collapse_shape
// CHECK: linalg.index
func.func @transposed(%x: tensor<4x8x16xf32>) -> tensor<4x16x8xf32> {
  %e = tensor.empty() : tensor<4x16x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(a, i, j) -> (a, j, i)>, affine_map<(a, i, j) -> (a, i, j)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x : tensor<4x8x16xf32>) outs(%e : tensor<4x16x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4x16x8xf32>
  return %0 : tensor<4x16x8xf32>
}
func.func @indexed(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %c = arith.index_cast %i : index to i32
    %f = arith.sitofp %c : i32 to f32
    %s = arith.addf %in, %f : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
