// The special-function ops lower to one all-parallel generic each, a fixed
// sequence of scalar arith/math ops per element (no loop per element); f16
// and bf16 elements are computed in f32 and rounded once.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s

// Lanczos' series (a division per coefficient), log1p of the shifted argument, and the
// reflection's log(sin(pi * frac)).
// CHECK-LABEL: func.func @lgamma
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: arith.cmpf olt
// CHECK: arith.divf
// CHECK: math.log1p
// CHECK: math.floor
// CHECK: math.sin
// CHECK: math.log
// CHECK-NOT: tad.lgamma
func.func @lgamma(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %0 = "tad.lgamma"(%x) : (tensor<2x3xf64>) -> tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

// Digamma of f16: extended to f32, the recurrence and series, the reflection's cot, rounded back.
// CHECK-LABEL: func.func @digamma_f16
// CHECK: linalg.generic
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: math.log {{.*}} : f32
// CHECK: math.cos
// CHECK: math.sin
// CHECK: %[[OUT:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: linalg.yield %[[OUT]] : f16
// CHECK-NOT: tad.polygamma
func.func @digamma_f16(%x: tensor<4xf16>) -> tensor<4xf16> {
  %0 = "tad.polygamma"(%x) {order = 0 : i64} : (tensor<4xf16>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// erf_inv: w = -log((1 - x)(1 + x)), Giles' polynomial in w or sqrt(w), +-inf at +-1.
// CHECK-LABEL: func.func @erf_inv
// CHECK: linalg.generic
// CHECK: arith.subf
// CHECK: arith.addf
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: arith.select
// CHECK-NOT: tad.erf_inv
func.func @erf_inv(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tad.erf_inv"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// ndtri: Cephes' rational functions of p - 1/2 and of z = sqrt(-2 log p).
// CHECK-LABEL: func.func @ndtri
// CHECK: linalg.generic
// CHECK: math.log
// CHECK: math.sqrt
// CHECK: arith.divf
// CHECK-NOT: tad.ndtri
func.func @ndtri(%p: tensor<4xf64>) -> tensor<4xf64> {
  %0 = "tad.ndtri"(%p) : (tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
