// Structure ops lower to linalg.generic (fusable by linalg-fuse-elementwise-ops), linalg.transpose and tensor ops.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// A size-1 operand dim that broadcasts is read at index 0.
// CHECK-DAG: #[[$IN:.*]] = affine_map<(d0, d1, d2) -> (d1, 0)>
// CHECK-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @broadcast_in_dim
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[$IN]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[X]] : tensor<3x1xf32>) outs(%[[E]] : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[A]] : f32
// CHECK: return %[[R]]
// CHECK-NOT: tad.
func.func @broadcast_in_dim(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @broadcast_scalar
// CHECK: linalg.generic {indexing_maps = [#[[$SCALAR]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<f64>) outs(%{{.*}} : tensor<2x5xf64>)
func.func @broadcast_scalar(%x: tensor<f64>) -> tensor<2x5xf64> {
  %0 = "tad.broadcast_in_dim"(%x) {broadcast_dimensions = array<i64>} : (tensor<f64>) -> tensor<2x5xf64>
  return %0 : tensor<2x5xf64>
}

// -----

// Row-major: collapse to 1-D, then expand.
// CHECK-LABEL: func.func @reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[}}[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [3, 2] : tensor<6xf32> into tensor<3x2xf32>
// CHECK: return %[[R]]
func.func @reshape(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_from_scalar
// CHECK: tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK-LABEL: func.func @reshape_to_scalar
// CHECK: tensor.collapse_shape %{{.*}} [] : tensor<1xf32> into tensor<f32>
func.func @reshape_from_scalar(%x: tensor<f32>) -> tensor<1xf32> {
  %0 = "tad.reshape"(%x) : (tensor<f32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
func.func @reshape_to_scalar(%x: tensor<1xf32>) -> tensor<f32> {
  %0 = "tad.reshape"(%x) : (tensor<1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x2x3xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[E]] : tensor<4x2x3xf32>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 2, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}

// -----

// CHECK-LABEL: func.func @slice
// CHECK-SAME: (%[[X:.*]]: tensor<7x6xf32>)
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][2, 1] [2, 2] [3, 4] : tensor<7x6xf32> to tensor<2x2xf32>
// CHECK: return %[[S]]
func.func @slice(%x: tensor<7x6xf32>) -> tensor<2x2xf32> {
  %0 = "tad.slice"(%x) {start_indices = array<i64: 2, 1>, limit_indices = array<i64: 7, 6>, strides = array<i64: 3, 4>} : (tensor<7x6xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Fill with the padding value, then a strided insert: offsets = low, strides = interior + 1.
// CHECK-DAG: #[[$SCALAR:.*]] = affine_map<(d0, d1) -> ()>
// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<f32>)
// CHECK: %[[FILL:.*]] = linalg.generic {indexing_maps = [#[[$SCALAR]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%[[V]] : tensor<f32>) outs(%{{.*}} : tensor<4x9xf32>)
// CHECK: %[[R:.*]] = tensor.insert_slice %[[X]] into %[[FILL]][1, 2] [2, 3] [1, 3] : tensor<2x3xf32> into tensor<4x9xf32>
// CHECK: return %[[R]]
func.func @pad(%x: tensor<2x3xf32>, %v: tensor<f32>) -> tensor<4x9xf32> {
  %0 = "tad.pad"(%x, %v) {edge_padding_low = array<i64: 1, 2>, edge_padding_high = array<i64: 1, 0>, interior_padding = array<i64: 0, 2>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<4x9xf32>
  return %0 : tensor<4x9xf32>
}

// -----

// CHECK-LABEL: func.func @iota_float
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} outs(%{{.*}} : tensor<2x3xf32>)
// CHECK: %[[I:.*]] = linalg.index 1 : index
// CHECK: %[[N:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[F:.*]] = arith.sitofp %[[N]] : i64 to f32
// CHECK: linalg.yield %[[F]] : f32
// CHECK-LABEL: func.func @iota_int
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[N:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: %[[T:.*]] = arith.trunci %[[N]] : i64 to i32
// CHECK: linalg.yield %[[T]] : i32
func.func @iota_float() -> tensor<2x3xf32> {
  %0 = "tad.iota"() {iota_dimension = 1 : i64} : () -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}
func.func @iota_int() -> tensor<4xi32> {
  %0 = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// A fill generic without inputs (fusion folds it into consumers), never a dense global.
// CHECK-LABEL: func.func @constant
// CHECK: %[[E:.*]] = tensor.empty() : tensor<2x3xf64>
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} outs(%[[E]] : tensor<2x3xf64>)
// CHECK-NEXT: ^bb0(%{{.*}}: f64):
// CHECK-NEXT: %[[C:.*]] = arith.constant 2.500000e+00 : f64
// CHECK-NEXT: linalg.yield %[[C]] : f64
// CHECK-NOT: memref.global
func.func @constant() -> tensor<2x3xf64> {
  %0 = "tad.constant"() {value = 2.5 : f64} : () -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// numpy astype semantics, one elementwise generic per convert. A float out of
// an integer's range, or NaN, becomes its least value (numpy's on x86), not
// the poison of LLVM's fptosi.
// CHECK-LABEL: func.func @convert
// CHECK: %[[LOW:.*]] = arith.constant -2.14748365E+9 : f32
// CHECK: %[[HIGH:.*]] = arith.constant 2.14748365E+9 : f32
// CHECK: %[[GE:.*]] = arith.cmpf oge, %[[IN:.*]], %[[LOW]] : f32
// CHECK: %[[LT:.*]] = arith.cmpf olt, %[[IN]], %[[HIGH]] : f32
// CHECK: %[[OK:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK: %[[INT:.*]] = arith.fptosi %[[IN]] : f32 to i32
// CHECK: %[[LEAST:.*]] = arith.constant -2147483648 : i32
// CHECK: arith.select %[[OK]], %[[INT]], %[[LEAST]] : i32
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: arith.cmpf une, %{{.*}}, %[[Z]] : f32
// CHECK: %[[ZI:.*]] = arith.constant 0 : i32
// CHECK: arith.cmpi ne, %{{.*}}, %[[ZI]] : i32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
func.func @convert(%f: tensor<4xf32>, %i: tensor<4xi32>, %b: tensor<4xi1>, %d: tensor<4xf64>, %l: tensor<4xi64>)
    -> (tensor<4xi32>, tensor<4xf64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xf64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi32>, tensor<4xf32>) {
  %0 = "tad.convert"(%f) : (tensor<4xf32>) -> tensor<4xi32>
  %1 = "tad.convert"(%i) : (tensor<4xi32>) -> tensor<4xf64>
  %2 = "tad.convert"(%b) : (tensor<4xi1>) -> tensor<4xf32>
  %3 = "tad.convert"(%b) : (tensor<4xi1>) -> tensor<4xi64>
  %4 = "tad.convert"(%f) : (tensor<4xf32>) -> tensor<4xi1>
  %5 = "tad.convert"(%i) : (tensor<4xi32>) -> tensor<4xi1>
  %6 = "tad.convert"(%f) : (tensor<4xf32>) -> tensor<4xf64>
  %7 = "tad.convert"(%d) : (tensor<4xf64>) -> tensor<4xf32>
  %8 = "tad.convert"(%i) : (tensor<4xi32>) -> tensor<4xi64>
  %9 = "tad.convert"(%l) : (tensor<4xi64>) -> tensor<4xi32>
  %10 = "tad.convert"(%f) : (tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : tensor<4xi32>, tensor<4xf64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi1>, tensor<4xi1>, tensor<4xf64>, tensor<4xf32>, tensor<4xi64>, tensor<4xi32>, tensor<4xf32>
}

// -----

// Converting to the same type is the operand itself.
// CHECK-LABEL: func.func @convert_same_type
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]] : tensor<4xf32>
func.func @convert_same_type(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tad.convert"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Differentiation markers are identities once lowered.
// CHECK-LABEL: func.func @markers
// CHECK-SAME: (%[[X:.*]]: tensor<3xf32>)
// CHECK-NEXT: return %[[X]] : tensor<3xf32>
func.func @markers(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "tad.start_checkpoint"(%x) : (tensor<3xf32>) -> tensor<3xf32>
  %1 = "tad.stop_gradient"(%0) : (tensor<3xf32>) -> tensor<3xf32>
  %2 = "tad.end_checkpoint"(%1) : (tensor<3xf32>) -> tensor<3xf32>
  return %2 : tensor<3xf32>
}

// -----

// To bf16 from f64 through f32, as ml_dtypes converts (on the CPU,
// tad-round-bf16-on-bits then rounds the f32 on its bits).
// CHECK-LABEL: func.func @convert_to_bf16
// CHECK: %[[F32:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.truncf %[[F32]] : f32 to bf16
func.func @convert_to_bf16(%x: tensor<4xf64>) -> tensor<4xbf16> {
  %0 = "tad.convert"(%x) : (tensor<4xf64>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Between bf16 and f16, which neither holds the other, through f32.
// CHECK-LABEL: func.func @convert_bf16_to_f16
// CHECK: %[[WIDE:.*]] = arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %[[WIDE]] : f32 to f16
// CHECK: %[[WIDE2:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %[[WIDE2]] : f32 to bf16
func.func @convert_bf16_to_f16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = "tad.convert"(%x) : (tensor<4xbf16>) -> tensor<4xf16>
  %1 = "tad.convert"(%0) : (tensor<4xf16>) -> tensor<4xbf16>
  return %1 : tensor<4xbf16>
}
