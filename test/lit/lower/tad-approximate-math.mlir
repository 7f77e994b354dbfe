// tad-approximate-math expands math.tanh and math.exp on float32 vectors into FMAs (and a
// division for tanh): LLVM has no vector tanh and calls expf once per lane. Scalars and
// float64 keep libm's functions.
// RUN: autodiff-opt %s --split-input-file --tad-approximate-math | FileCheck %s --implicit-check-not=math.tanh --implicit-check-not=math.exp

// tanh(x) = x p(x^2) / q(x^2) on x clamped to +-7.9988, and x itself where |x| < 4e-4.
// CHECK-LABEL: func.func @tanh
// CHECK: %[[LO:.*]] = arith.maximumf %arg0, %{{.*}} : vector<16xf32>
// CHECK: %[[X:.*]] = arith.minimumf %[[LO]], %{{.*}} : vector<16xf32>
// CHECK: %[[X2:.*]] = arith.mulf %[[X]], %[[X]]
// CHECK-COUNT-6: math.fma
// CHECK: %[[P:.*]] = arith.mulf %[[X]], %{{.*}}
// CHECK-COUNT-3: math.fma
// CHECK: %[[R:.*]] = arith.divf %[[P]], %{{.*}} : vector<16xf32>
// CHECK: %[[A:.*]] = math.absf %arg0
// CHECK: %[[SMALL:.*]] = arith.cmpf olt, %[[A]], %{{.*}}
// CHECK: %[[S:.*]] = arith.select %[[SMALL]], %arg0, %[[R]] : vector<16xi1>, vector<16xf32>
// CHECK: return %[[S]]
func.func @tanh(%x: vector<16xf32>) -> vector<16xf32> {
  %0 = math.tanh %x : vector<16xf32>
  return %0 : vector<16xf32>
}

// -----

// exp(x) = 2^n p(r), n = round(x / ln 2); 2^n is built from exponent bits as two factors;
// NaN stays NaN.
// CHECK-LABEL: func.func @exp
// CHECK: arith.maximumf %arg0
// CHECK: arith.minimumf
// CHECK: %[[N:.*]] = math.floor
// CHECK: arith.fptosi %[[N]] : vector<8xf32> to vector<8xi32>
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: arith.shli
// CHECK: arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[Y:.*]] = arith.mulf
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %arg0, %arg0
// CHECK: %[[S:.*]] = arith.select %[[NAN]], %arg0, %[[Y]] : vector<8xi1>, vector<8xf32>
// CHECK: return %[[S]]
func.func @exp(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %x : vector<8xf32>
  return %0 : vector<8xf32>
}

// -----

// CHECK-LABEL: func.func @kept
// CHECK-NEXT: math.exp %arg0 : vector<8xf64>
// CHECK-NEXT: math.tanh %arg1 : f32
// CHECK-NEXT: math.exp %arg2 : tensor<8xf32>
func.func @kept(%x: vector<8xf64>, %s: f32, %t: tensor<8xf32>) -> (vector<8xf64>, f32, tensor<8xf32>) {
  %0 = math.exp %x : vector<8xf64>
  %1 = math.tanh %s : f32
  %2 = math.exp %t : tensor<8xf32>
  return %0, %1, %2 : vector<8xf64>, f32, tensor<8xf32>
}
