// RUN: autodiff-opt %s --split-input-file --tad-raise-contractions | FileCheck %s

// A matmul into a fill of zeros is a dot_general alone.
// CHECK-LABEL: func.func @matmul_into_zeros
// CHECK: %[[DOT:.*]] = "tad.dot_general"(%arg0, %arg1) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>}
// CHECK-NOT: linalg.matmul
// CHECK: return %[[DOT]]
func.func @matmul_into_zeros(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x4xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<2x4xf32>) -> tensor<2x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x4xf32>) outs(%c : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Accumulating into an init adds it; a batch matmul keeps its batch dimension.
// CHECK-LABEL: func.func @batch_matmul_accumulates
// CHECK: %[[DOT:.*]] = "tad.dot_general"(%arg0, %arg1) {lhs_batching_dimensions = array<i64: 0>, lhs_contracting_dimensions = array<i64: 2>, rhs_batching_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 1>}
// CHECK: %[[SUM:.*]] = arith.addf %arg2, %[[DOT]]
// CHECK: return %[[SUM]]
func.func @batch_matmul_accumulates(%a: tensor<5x2x3xf64>, %b: tensor<5x3x4xf64>, %c: tensor<5x2x4xf64>) -> tensor<5x2x4xf64> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<5x2x3xf64>, tensor<5x3x4xf64>) outs(%c : tensor<5x2x4xf64>) -> tensor<5x2x4xf64>
  return %0 : tensor<5x2x4xf64>
}

// -----

// The adjoint of a matmul's lhs (ct @ b^T, written transposed): a dot_general and a transpose of its result.
// CHECK-LABEL: func.func @transposed_output
// CHECK: %[[DOT:.*]] = "tad.dot_general"(%arg0, %arg1) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 1>}
// CHECK: %[[T:.*]] = "tad.transpose"(%[[DOT]]) {permutation = array<i64: 1, 0>}
// CHECK: return %[[T]]
#ct = affine_map<(d0, d1, d2) -> (d0, d1)>
#b = affine_map<(d0, d1, d2) -> (d2, d1)>
#out = affine_map<(d0, d1, d2) -> (d2, d0)>
func.func @transposed_output(%ct: tensor<2x4xf64>, %b: tensor<3x4xf64>) -> tensor<3x2xf64> {
  %z = arith.constant dense<0.0> : tensor<3x2xf64>
  %0 = linalg.generic {indexing_maps = [#ct, #b, #out], iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%ct, %b : tensor<2x4xf64>, tensor<3x4xf64>) outs(%z : tensor<3x2xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}

// -----

// Not contractions: a body with more than out + a * b, a loop that only one input reads, integers.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tad.dot_general
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK: linalg.matmul
#a = affine_map<(d0, d1) -> (d0, d1)>
#r = affine_map<(d0, d1) -> (d0)>
func.func @left_alone(%a: tensor<2x3xf64>, %v: tensor<2xf64>, %i: tensor<2x3xi32>, %j: tensor<3x4xi32>, %k: tensor<2x4xi32>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2x4xi32>) {
  %0 = linalg.generic {indexing_maps = [#a, #a, #r], iterator_types = ["parallel", "reduction"]}
      ins(%a, %a : tensor<2x3xf64>, tensor<2x3xf64>) outs(%v : tensor<2xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %e = math.exp %m : f64
    %s = arith.addf %acc, %e : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %1 = linalg.generic {indexing_maps = [#a, #r, #r], iterator_types = ["parallel", "reduction"]}
      ins(%a, %v : tensor<2x3xf64>, tensor<2xf64>) outs(%v : tensor<2xf64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %m = arith.mulf %x, %y : f64
    %s = arith.addf %acc, %m : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %2 = linalg.matmul ins(%i, %j : tensor<2x3xi32>, tensor<3x4xi32>) outs(%k : tensor<2x4xi32>) -> tensor<2x4xi32>
  return %0, %1, %2 : tensor<2xf64>, tensor<2xf64>, tensor<2x4xi32>
}

// -----

// A named NCHW x FCHW convolution (strides 2, dilation 1) into zeros is one tad.conv2d.
// CHECK-LABEL: func.func @named_convolution
// CHECK: %[[CONV:.*]] = "tad.conv2d"(%arg0, %arg1) {dilation = array<i64: 1, 1>, groups = 1 : i64, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>}
// CHECK-NOT: linalg.conv_2d_nchw_fchw
// CHECK: return %[[CONV]]
func.func @named_convolution(%x: tensor<1x3x9x9xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %c = linalg.fill ins(%z : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x3x9x9xf32>, tensor<4x3x3x3xf32>) outs(%c : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// A generic reading the data at (n, c, y + 2 ky, x + 2 kx) (dilation 2), the weight second in its
// operands and accumulating into an init: a dilated conv2d plus the init.
// CHECK-LABEL: func.func @generic_dilated_convolution
// CHECK: %[[CONV:.*]] = "tad.conv2d"(%arg0, %arg1) {dilation = array<i64: 2, 2>, groups = 1 : i64, padding = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>}
// CHECK: %[[SUM:.*]] = arith.addf %arg2, %[[CONV]]
// CHECK: return %[[SUM]]
#data = affine_map<(n, f, y, x, c, ky, kx) -> (n, c, y + ky * 2, x + kx * 2)>
#weight = affine_map<(n, f, y, x, c, ky, kx) -> (f, c, ky, kx)>
#out = affine_map<(n, f, y, x, c, ky, kx) -> (n, f, y, x)>
func.func @generic_dilated_convolution(%x: tensor<2x2x6x6xf64>, %w: tensor<3x2x2x2xf64>, %init: tensor<2x3x4x4xf64>) -> tensor<2x3x4x4xf64> {
  %0 = linalg.generic {indexing_maps = [#weight, #data, #out],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
         ins(%w, %x : tensor<3x2x2x2xf64>, tensor<2x2x6x6xf64>) outs(%init : tensor<2x3x4x4xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %b, %a : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<2x3x4x4xf64>
  return %0 : tensor<2x3x4x4xf64>
}

// -----

// A window read that is not a convolution's (the output covers less than the data allows) stays a generic.
// CHECK-LABEL: func.func @partial_window_stays
// CHECK-NOT: tad.conv2d
// CHECK: linalg.generic
#data2 = affine_map<(n, f, y, x, c, ky, kx) -> (n, c, y + ky, x + kx)>
#weight2 = affine_map<(n, f, y, x, c, ky, kx) -> (f, c, ky, kx)>
#out2 = affine_map<(n, f, y, x, c, ky, kx) -> (n, f, y, x)>
func.func @partial_window_stays(%x: tensor<1x1x6x6xf64>, %w: tensor<1x1x2x2xf64>, %init: tensor<1x1x3x3xf64>) -> tensor<1x1x3x3xf64> {
  %0 = linalg.generic {indexing_maps = [#data2, #weight2, #out2],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]}
         ins(%x, %w : tensor<1x1x6x6xf64>, tensor<1x1x2x2xf64>) outs(%init : tensor<1x1x3x3xf64>) {
  ^bb0(%a: f64, %b: f64, %acc: f64):
    %p = arith.mulf %a, %b : f64
    %s = arith.addf %acc, %p : f64
    linalg.yield %s : f64
  } -> tensor<1x1x3x3xf64>
  return %0 : tensor<1x1x3x3xf64>
}
