// tad-approximate-math writes math.expm1 (every float type) as Kahan's
// (u - 1) x / log(u), u = exp(x): upstream's exp(x) - 1 loses every digit of
// a small x. x itself where u rounds to 1, -1 where u is 0, inf where u is.
// RUN: autodiff-opt %s --split-input-file --tad-approximate-math | FileCheck %s --implicit-check-not=math.expm1

// CHECK-LABEL: func.func @scalar
// CHECK-SAME: (%[[X:.*]]: f64)
// CHECK: %[[U:.*]] = math.exp %[[X]] : f64
// CHECK: %[[SHIFTED:.*]] = arith.subf %[[U]], %{{.*}} : f64
// CHECK: %[[PRODUCT:.*]] = arith.mulf %[[SHIFTED]], %[[X]] : f64
// CHECK: %[[LOG:.*]] = math.log %[[U]] : f64
// CHECK: %[[KAHAN:.*]] = arith.divf %[[PRODUCT]], %[[LOG]] : f64
// CHECK: arith.cmpf oeq, %[[U]]
// CHECK: arith.cmpf oeq, %[[SHIFTED]]
// CHECK: %[[ONE:.*]] = arith.cmpf oeq, %[[U]]
// CHECK: %[[OUT:.*]] = arith.select %[[ONE]], %[[X]], %{{.*}} : f64
// CHECK: return %[[OUT]]
func.func @scalar(%x: f64) -> f64 {
  %0 = math.expm1 %x : f64
  return %0 : f64
}

// -----

// On a float32 vector the exp it needs is itself expanded (no math.exp is left).
// CHECK-LABEL: func.func @vector
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: math.log %{{.*}} : vector<8xf32>
// CHECK: arith.divf %{{.*}}, %{{.*}} : vector<8xf32>
func.func @vector(%x: vector<8xf32>) -> vector<8xf32> {
  %0 = math.expm1 %x : vector<8xf32>
  return %0 : vector<8xf32>
}
