// linalg on tensors in both modes: tad-differentiate generalizes named ops and
// differentiates each linalg.generic through its scalar body.
// RUN: autodiff-opt %s --split-input-file --tad-differentiate | FileCheck %s

// Reverse mode of a matmul: per operand, a generic writing its adjoint at the
// operand's indexing map, loops it does not read turned into reductions; the
// accumulator (an additive reduction) passes its cotangent through.
// CHECK-LABEL: func.func private @matmul_vjp
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf64>, %[[B:.*]]: tensor<3x4xf64>, %[[C:.*]]: tensor<2x4xf64>, %[[CT:.*]]: tensor<2x4xf64>)
// CHECK: %[[PRIMAL:.*]] = linalg.generic {indexing_maps = [#[[MA:.*]], #[[MB:.*]], #[[MC:.*]]], iterator_types = ["parallel", "parallel", "reduction"]}
// CHECK: %[[DA:.*]] = linalg.generic {indexing_maps = [#[[MB]], #[[MC]], #[[MA]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%[[B]], %[[CT]] : {{.*}})
// CHECK: ^bb0(%[[BB:.*]]: f64, %[[CTB:.*]]: f64, %[[ACC:.*]]: f64):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[CTB]], %[[BB]] : f64
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f64
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[DB:.*]] = linalg.generic {indexing_maps = [#[[MA]], #[[MC]], #[[MB]]], iterator_types = ["reduction", "parallel", "parallel"]} ins(%[[A]], %[[CT]] : {{.*}})
// CHECK: return %[[PRIMAL]], %[[DA]], %[[DB]], %[[CT]]
func.func @matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %c: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func private @matmul_vjp(tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>)
    -> (tensor<2x4xf64>, tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x4xf64>)
    attributes {tad.vjp = {of = @matmul, wrt = array<i64: 0, 1, 2>}}

// -----

// Forward mode of a matmul: one generic over the same loops carrying only the
// tangent of the accumulator (an additive reduction needs no primal value).
// CHECK-LABEL: func.func private @matmul_jvp
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf64>, %[[B:.*]]: tensor<3x4xf64>, %[[C:.*]]: tensor<2x4xf64>, %[[TA:.*]]: tensor<2x3xf64>, %[[TB:.*]]: tensor<3x4xf64>, %[[TC:.*]]: tensor<2x4xf64>)
// CHECK: %[[T:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[A]], %[[B]], %[[TA]], %[[TB]] : {{.*}}) outs(%[[TC]] : tensor<2x4xf64>)
// CHECK: ^bb0(%[[X:.*]]: f64, %[[Y:.*]]: f64, %[[DX:.*]]: f64, %[[DY:.*]]: f64, %[[RUNNING:.*]]: f64):
// CHECK-DAG: arith.mulf %[[DX]], %[[Y]]
// CHECK-DAG: arith.mulf %[[DY]], %[[X]]
// CHECK: %[[SUM:.*]] = arith.addf %[[RUNNING]], %{{.*}} : f64
// CHECK: linalg.yield %[[SUM]]
// CHECK: return %{{.*}}, %[[T]]
func.func @matmul(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %c: tensor<2x4xf64>) -> tensor<2x4xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
  return %0 : tensor<2x4xf64>
}
func.func private @matmul_jvp(tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x4xf64>, tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x4xf64>)
    -> (tensor<2x4xf64>, tensor<2x4xf64>)
    attributes {tad.jvp = {of = @matmul, wrt = array<i64: 0, 1, 2>}}

// -----

// A max reduction sends its cotangent to the elements equal to the result,
// shared equally among them (count generic), and to its init where it wins.
// CHECK-LABEL: func.func private @rowmax_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf64>, %[[INIT:.*]]: tensor<3xf64>, %[[CT:.*]]: tensor<3xf64>)
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: arith.maxnumf
// CHECK: %[[EQ:.*]] = arith.cmpf oeq, %[[INIT]], %[[MAX]] : tensor<3xf64>
// CHECK: %[[COUNT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[MAX]] : {{.*}}) outs(%{{.*}} : tensor<3xf64>)
// CHECK: arith.cmpf oeq
// CHECK: %[[DX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[X]], %[[MAX]], %[[COUNT]], %[[CT]] : {{.*}})
// CHECK: %[[HIT:.*]] = arith.cmpf oeq
// CHECK: %[[SHARE:.*]] = arith.divf
// CHECK: arith.select %[[HIT]], %[[SHARE]]
// CHECK: return %[[MAX]], %[[DX]], %{{.*}}
func.func @rowmax(%x: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  %0 = linalg.reduce ins(%x : tensor<3x4xf64>) outs(%init : tensor<3xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %m = arith.maxnumf %in, %acc : f64
      linalg.yield %m : f64
    }
  return %0 : tensor<3xf64>
}
func.func private @rowmax_vjp(tensor<3x4xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3x4xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @rowmax, wrt = array<i64: 0, 1>}}

// -----

// A convolution reads its input through a window (d0 + d1): the input's
// adjoint is accumulated point by point in an scf.for nest; the filter's
// (a projected permutation) is a generic.
// CHECK-LABEL: func.func private @conv_vjp
// CHECK: %[[DW:.*]] = linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]}
// CHECK: %[[DX:.*]] = scf.for
// CHECK: scf.for
// CHECK: affine.apply
// CHECK: tensor.extract
// CHECK: tensor.insert
// CHECK: return %{{.*}}, %[[DX]], %[[DW]]
func.func @conv(%x: tensor<6xf64>, %w: tensor<3xf64>, %o: tensor<4xf64>) -> tensor<4xf64> {
  %0 = linalg.conv_1d ins(%x, %w : tensor<6xf64>, tensor<3xf64>) outs(%o : tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func private @conv_vjp(tensor<6xf64>, tensor<3xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<6xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @conv, wrt = array<i64: 0, 1>}}

// -----

// A scalar the body captures gets the sum of its adjoint over every point: a
// generic reducing all loops into a 0-d tensor; linalg.index keeps its loop.
// CHECK-LABEL: func.func private @scaled_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<5xf64>, %[[S:.*]]: f64, %[[CT:.*]]: tensor<5xf64>)
// CHECK: %[[DS:.*]] = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[X]], %[[CT]] : {{.*}}) outs(%{{.*}} : tensor<f64>)
// CHECK: linalg.index 0
// CHECK: %[[G:.*]] = tensor.extract %[[DS]][] : tensor<f64>
// CHECK: return %{{.*}}, %[[G]]
#id = affine_map<(d0) -> (d0)>
func.func @scaled(%x: tensor<5xf64>, %s: f64) -> tensor<5xf64> {
  %e = tensor.empty() : tensor<5xf64>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<5xf64>) outs(%e : tensor<5xf64>) {
  ^bb0(%in: f64, %out: f64):
    %i = linalg.index 0 : index
    %j = arith.index_cast %i : index to i64
    %f = arith.sitofp %j : i64 to f64
    %a = arith.mulf %in, %s : f64
    %b = arith.mulf %a, %f : f64
    linalg.yield %b : f64
  } -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @scaled_vjp(tensor<5xf64>, f64, tensor<5xf64>) -> (tensor<5xf64>, f64)
    attributes {tad.vjp = {of = @scaled, wrt = array<i64: 1>}}

// -----

// A batch of tangents (a Jacobian's prefix of 2): one more parallel loop in
// front, read by the tangents only; linalg.index moves to its shifted loop.
// CHECK-LABEL: func.func private @scaled_jvp
// CHECK: linalg.generic {indexing_maps = [#[[TANGENT:.*]], #[[TANGENT]]], iterator_types = ["parallel", "parallel"]} ins(%arg2 : tensor<2x5xf64>)
// CHECK: linalg.index 1
// CHECK: -> tensor<2x5xf64>
#id = affine_map<(d0) -> (d0)>
func.func @scaled(%x: tensor<5xf64>, %s: f64) -> tensor<5xf64> {
  %e = tensor.empty() : tensor<5xf64>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%x : tensor<5xf64>) outs(%e : tensor<5xf64>) {
  ^bb0(%in: f64, %out: f64):
    %i = linalg.index 0 : index
    %j = arith.index_cast %i : index to i64
    %f = arith.sitofp %j : i64 to f64
    %a = arith.mulf %in, %s : f64
    %b = arith.mulf %a, %f : f64
    linalg.yield %b : f64
  } -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @scaled_jvp(tensor<5xf64>, f64, tensor<2x5xf64>) -> (tensor<5xf64>, tensor<2x5xf64>)
    attributes {tad.jvp = {of = @scaled, wrt = array<i64: 0>}}
