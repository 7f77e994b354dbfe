// Forward mode: a tad.jvp declaration gets the primal ops, each followed by its
// tangent rule; only inputs named in wrt carry tangents.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// Product rule: t(sin(x) * y) = (tx * cos x) * y + ty * sin x, interleaved with the primal.
// CHECK-LABEL: func.func private @mul_sin_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TY:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-NEXT: %[[SIN:.*]] = math.sin %[[X]]
// CHECK-NEXT: %[[COS:.*]] = math.cos %[[X]]
// CHECK-NEXT: %[[TSIN:.*]] = arith.mulf %[[TX]], %[[COS]]
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[SIN]], %[[Y]]
// CHECK-NEXT: %[[T1:.*]] = arith.mulf %[[TSIN]], %[[Y]]
// CHECK-NEXT: %[[T2:.*]] = arith.mulf %[[TY]], %[[SIN]]
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[T1]], %[[T2]]
// CHECK-NEXT: return %[[OUT]], %[[T]]

// With wrt = [0], y is a constant: one term, no addition.
// CHECK-LABEL: func.func private @mul_sin_jvp_x
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[Y:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
// CHECK-NOT: arith.addf
// CHECK: %[[TSIN:.*]] = arith.mulf %[[TX]], %{{.*}}
// CHECK-NOT: arith.addf
// CHECK: %[[T:.*]] = arith.mulf %[[TSIN]], %[[Y]]
// CHECK-NEXT: return %{{.*}}, %[[T]]
func.func @mul_sin(%x: tensor<3xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.sin %x : tensor<3xf64>
  %1 = arith.mulf %0, %y : tensor<3xf64>
  return %1 : tensor<3xf64>
}
func.func private @mul_sin_jvp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @mul_sin, wrt = array<i64: 0, 1>}}
func.func private @mul_sin_jvp_x(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @mul_sin, wrt = array<i64: 0>}}

// -----

// Matmul: the tangent is tA . B + A . tB.
// CHECK-LABEL: func.func private @matmul_jvp
// CHECK-SAME: (%[[A:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[B:[a-zA-Z0-9_]+]]: tensor<3x4xf64>, %[[TA:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %[[TB:[a-zA-Z0-9_]+]]: tensor<3x4xf64>)
// CHECK-NOT: "tad.transpose"
// CHECK-NEXT: %[[OUT:.*]] = "tad.dot_general"(%[[A]], %[[B]])
// CHECK-NEXT: %[[T1:.*]] = "tad.dot_general"(%[[TA]], %[[B]]) {{{.*}}} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT: %[[T2:.*]] = "tad.dot_general"(%[[A]], %[[TB]]) {{{.*}}} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
// CHECK-NEXT: %[[T:.*]] = arith.addf %[[T1]], %[[T2]]
// CHECK-NEXT: return %[[OUT]], %[[T]]
func.func @matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>) -> tensor<2x4xf64> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<2x3xf64>, tensor<3x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func private @matmul_jvp(tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x3xf64>, tensor<3x4xf64>) -> (tensor<2x4xf64>, tensor<2x4xf64>)
    attributes {tad.jvp = {of = @matmul, wrt = array<i64: 0, 1>}}

// -----

// Results that no tangent reaches (one depends on y only, one is an argmax) get zero tangents.
// CHECK-LABEL: func.func private @results_jvp
// CHECK-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<2x3xf64>, %{{.*}}: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<2x3xf64>)
// CHECK: %[[T:.*]] = "tad.transpose"(%[[TX]]) {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
// CHECK-DAG: %[[ZERO:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<3xf64>
// CHECK-DAG: %[[IZERO:.*]] = "tad.constant"() {value = 0 : i64} : () -> tensor<2xi64>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[T]], %[[ZERO]], %[[IZERO]]
func.func @results(%x: tensor<2x3xf64>, %y: tensor<3xf64>) -> (tensor<3x2xf64>, tensor<3xf64>, tensor<2xi64>) {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf64>) -> tensor<3x2xf64>
  %1 = math.exp %y : tensor<3xf64>
  %2 = "tad.argmax"(%x) {axis = 1 : i64} : (tensor<2x3xf64>) -> tensor<2xi64>
  return %0, %1, %2 : tensor<3x2xf64>, tensor<3xf64>, tensor<2xi64>
}
func.func private @results_jvp(tensor<2x3xf64>, tensor<3xf64>, tensor<2x3xf64>) -> (tensor<3x2xf64>, tensor<3xf64>, tensor<2xi64>, tensor<3x2xf64>, tensor<3xf64>, tensor<2xi64>)
    attributes {tad.jvp = {of = @results, wrt = array<i64: 0>}}
