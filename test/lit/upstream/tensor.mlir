// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s
// Derivatives of hand-written IR over upstream tensor ops, both modes; the
// numeric checks of the same constructs are in test/python/test_upstream_tensor.py.

// tensor.extract at a dynamic position: forward extracts from the tangent,
// reverse scatters the scalar cotangent into zeros.
// CHECK-LABEL: func.func private @extract_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[I:.*]]: index, %[[CT:.*]]: f64) -> (f64, tensor<4x3xf64>)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[D:.*]] = arith.addf
// CHECK: %[[Z:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<4x3xf64>
// CHECK: %[[G:.*]] = tensor.insert %[[D]] into %[[Z]][%[[I]], %[[C1]]] : tensor<4x3xf64>
// CHECK: return %{{.*}}, %[[G]] : f64, tensor<4x3xf64>
// CHECK-LABEL: func.func private @extract_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[I:.*]]: index, %[[T:.*]]: tensor<4x3xf64>) -> (f64, f64)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: tensor.extract %[[T]][%[[I]], %[[C1]]] : tensor<4x3xf64>
func.func @extract(%x: tensor<4x3xf64>, %i: index) -> f64 {
  %c1 = arith.constant 1 : index
  %0 = tensor.extract %x[%i, %c1] : tensor<4x3xf64>
  %1 = arith.mulf %0, %0 : f64
  return %1 : f64
}
func.func private @extract_vjp(tensor<4x3xf64>, index, f64) -> (f64, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @extract, wrt = array<i64: 0>}}
func.func private @extract_jvp(tensor<4x3xf64>, index, tensor<4x3xf64>) -> (f64, f64)
    attributes {tad.jvp = {of = @extract, wrt = array<i64: 0>}}

// -----

// With a batch prefix P = [2] a scalar's (co)tangent is a tensor<2xf64>: the
// position gets the prefix dims prepended, taken whole.
// CHECK-LABEL: func.func private @extract_batched_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[I:.*]]: index, %[[CT:.*]]: tensor<2xf64>) -> (f64, tensor<2x4x3xf64>)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: %[[Z:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<2x4x3xf64>
// CHECK: tensor.insert_slice %[[CT]] into %[[Z]][0, %[[I]], %[[C1]]] [2, 1, 1] [1, 1, 1] : tensor<2xf64> into tensor<2x4x3xf64>
// CHECK-LABEL: func.func private @extract_batched_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[I:.*]]: index, %[[T:.*]]: tensor<2x4x3xf64>) -> (f64, tensor<2xf64>)
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: tensor.extract_slice %[[T]][0, %[[I]], %[[C1]]] [2, 1, 1] [1, 1, 1] : tensor<2x4x3xf64> to tensor<2xf64>
func.func @extract_batched(%x: tensor<4x3xf64>, %i: index) -> f64 {
  %c1 = arith.constant 1 : index
  %0 = tensor.extract %x[%i, %c1] : tensor<4x3xf64>
  return %0 : f64
}
func.func private @extract_batched_vjp(tensor<4x3xf64>, index, tensor<2xf64>) -> (f64, tensor<2x4x3xf64>)
    attributes {tad.vjp = {of = @extract_batched, wrt = array<i64: 0>}}
func.func private @extract_batched_jvp(tensor<4x3xf64>, index, tensor<2x4x3xf64>) -> (f64, tensor<2xf64>)
    attributes {tad.jvp = {of = @extract_batched, wrt = array<i64: 0>}}

// -----

// tensor.insert: the destination's cotangent is the cotangent with the
// position zeroed, the scalar's is the element there.
// CHECK-LABEL: func.func private @insert_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[S:.*]]: f64, %[[I:.*]]: index, %[[CT:.*]]: tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>, f64)
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[DS:.*]] = tensor.extract %[[CT]][%[[I]], %[[C2]]] : tensor<4x3xf64>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[DX:.*]] = tensor.insert %[[ZERO]] into %[[CT]][%[[I]], %[[C2]]] : tensor<4x3xf64>
// CHECK: return %{{.*}}, %[[DX]], %[[DS]] : tensor<4x3xf64>, tensor<4x3xf64>, f64
// CHECK-LABEL: func.func private @insert_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<4x3xf64>, %[[S:.*]]: f64, %[[I:.*]]: index, %[[TX:.*]]: tensor<4x3xf64>, %[[TS:.*]]: f64)
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: tensor.insert %[[TS]] into %[[TX]][%[[I]], %[[C2]]] : tensor<4x3xf64>
func.func @insert(%x: tensor<4x3xf64>, %s: f64, %i: index) -> tensor<4x3xf64> {
  %c2 = arith.constant 2 : index
  %0 = tensor.insert %s into %x[%i, %c2] : tensor<4x3xf64>
  return %0 : tensor<4x3xf64>
}
func.func private @insert_vjp(tensor<4x3xf64>, f64, index, tensor<4x3xf64>) -> (tensor<4x3xf64>, tensor<4x3xf64>, f64)
    attributes {tad.vjp = {of = @insert, wrt = array<i64: 0, 1>}}
func.func private @insert_jvp(tensor<4x3xf64>, f64, index, tensor<4x3xf64>, f64) -> (tensor<4x3xf64>, tensor<4x3xf64>)
    attributes {tad.jvp = {of = @insert, wrt = array<i64: 0, 1>}}

// -----

// CHECK-LABEL: func.func private @from_elements_vjp
// CHECK-SAME: (%[[A:.*]]: f64, %[[B:.*]]: f64, %[[CT:.*]]: tensor<2xf64>) -> (tensor<2xf64>, f64, f64)
// CHECK: %[[DA:.*]] = tensor.extract %[[CT]][%{{.*}}] : tensor<2xf64>
// CHECK: %[[DB:.*]] = tensor.extract %[[CT]][%{{.*}}] : tensor<2xf64>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]] : tensor<2xf64>, f64, f64
// CHECK-LABEL: func.func private @from_elements_jvp
// CHECK-SAME: (%[[A:.*]]: f64, %[[B:.*]]: f64, %[[TA:.*]]: f64, %[[TB:.*]]: f64)
// CHECK: tensor.from_elements %[[TA]], %[[TB]] : tensor<2xf64>
func.func @from_elements(%a: f64, %b: f64) -> tensor<2xf64> {
  %0 = tensor.from_elements %a, %b : tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @from_elements_vjp(f64, f64, tensor<2xf64>) -> (tensor<2xf64>, f64, f64)
    attributes {tad.vjp = {of = @from_elements, wrt = array<i64: 0, 1>}}
func.func private @from_elements_jvp(f64, f64, f64, f64) -> (tensor<2xf64>, tensor<2xf64>)
    attributes {tad.jvp = {of = @from_elements, wrt = array<i64: 0, 1>}}

// -----

// CHECK-LABEL: func.func private @splat_vjp
// CHECK-SAME: (%[[S:.*]]: f64, %[[CT:.*]]: tensor<3x2xf64>) -> (tensor<3x2xf64>, f64)
// CHECK: %[[SUM:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 0, 1>} : (tensor<3x2xf64>) -> tensor<f64>
// CHECK: %[[DS:.*]] = tensor.extract %[[SUM]][] : tensor<f64>
// CHECK: return %{{.*}}, %[[DS]] : tensor<3x2xf64>, f64
// CHECK-LABEL: func.func private @splat_jvp
// CHECK-SAME: (%[[S:.*]]: f64, %[[T:.*]]: f64)
// CHECK: tensor.splat %[[T]] : tensor<3x2xf64>
func.func @splat(%s: f64) -> tensor<3x2xf64> {
  %0 = tensor.splat %s : tensor<3x2xf64>
  return %0 : tensor<3x2xf64>
}
func.func private @splat_vjp(f64, tensor<3x2xf64>) -> (tensor<3x2xf64>, f64)
    attributes {tad.vjp = {of = @splat, wrt = array<i64: 0>}}
func.func private @splat_jvp(f64, f64) -> (tensor<3x2xf64>, tensor<3x2xf64>)
    attributes {tad.jvp = {of = @splat, wrt = array<i64: 0>}}

// -----

// tensor.generate: forward mode generates the tangent from the body's forward
// sweep; reverse mode loops over the elements, sweeping the body backwards, and
// adds the gathered element's adjoint in place into the carried adjoint of %x.
// CHECK-LABEL: func.func private @generate_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<5xf64>, %[[S:.*]]: f64, %[[CT:.*]]: tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, f64)
// CHECK: tensor.generate
// CHECK: %[[R:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[DX:.*]] = %{{.*}}, %[[DS:.*]] = %{{.*}}) -> (tensor<5xf64>, f64)
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[J]]] : tensor<5xf64>
// CHECK: %[[CTJ:.*]] = tensor.extract %[[CT]][%[[J]]] : tensor<5xf64>
// CHECK: %[[DE:.*]] = arith.mulf %[[CTJ]], %[[S]] : f64
// CHECK: %[[DSJ:.*]] = arith.mulf %[[CTJ]], %[[E]] : f64
// CHECK: %[[OLD:.*]] = tensor.extract %[[DX]][%[[J]]] : tensor<5xf64>
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[DE]] : f64
// CHECK: %[[DX2:.*]] = tensor.insert %[[NEW]] into %[[DX]][%[[J]]] : tensor<5xf64>
// CHECK: %[[DS2:.*]] = arith.addf %[[DS]], %[[DSJ]] : f64
// CHECK: scf.yield %[[DX2]], %[[DS2]] : tensor<5xf64>, f64
// CHECK: return %{{.*}}, %[[R]]#0, %[[R]]#1 : tensor<5xf64>, tensor<5xf64>, f64
// CHECK-LABEL: func.func private @generate_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<5xf64>, %[[S:.*]]: f64, %[[TX:.*]]: tensor<5xf64>, %[[TS:.*]]: f64)
// CHECK: tensor.generate
// CHECK: %[[T:.*]] = tensor.generate
// CHECK-NEXT: ^bb0(%[[J:.*]]: index):
// CHECK: %[[E:.*]] = tensor.extract %[[X]][%[[J]]] : tensor<5xf64>
// CHECK: %[[TE:.*]] = tensor.extract %[[TX]][%[[J]]] : tensor<5xf64>
// CHECK: %[[A:.*]] = arith.mulf %[[TE]], %[[S]] : f64
// CHECK: %[[B:.*]] = arith.mulf %[[TS]], %[[E]] : f64
// CHECK: %[[SUM:.*]] = arith.addf %[[A]], %[[B]] : f64
// CHECK: tensor.yield %[[SUM]] : f64
// CHECK: return %{{.*}}, %[[T]] : tensor<5xf64>, tensor<5xf64>
func.func @generate(%x: tensor<5xf64>, %s: f64) -> tensor<5xf64> {
  %0 = tensor.generate {
  ^bb0(%j: index):
    %e = tensor.extract %x[%j] : tensor<5xf64>
    %p = arith.mulf %e, %s : f64
    tensor.yield %p : f64
  } : tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @generate_vjp(tensor<5xf64>, f64, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, f64)
    attributes {tad.vjp = {of = @generate, wrt = array<i64: 0, 1>}}
func.func private @generate_jvp(tensor<5xf64>, f64, tensor<5xf64>, f64) -> (tensor<5xf64>, tensor<5xf64>)
    attributes {tad.jvp = {of = @generate, wrt = array<i64: 0, 1>}}

// -----

// tensor.pad with a dynamic low padding: the source's cotangent is the slice
// at the low padding, the padding value's the sum over the padded positions.
// CHECK-LABEL: func.func private @pad_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf64>, %[[V:.*]]: f64, %[[L:.*]]: index, %[[CT:.*]]: tensor<5x6xf64>) -> (tensor<5x6xf64>, tensor<2x3xf64>, f64)
// CHECK: %[[DX:.*]] = tensor.extract_slice %[[CT]][1, %[[L]]] [2, 3] [1, 1] : tensor<5x6xf64> to tensor<2x3xf64>
// CHECK: %[[ALL:.*]] = "tad.reduce_sum"(%[[CT]]) {dimensions = array<i64: 0, 1>} : (tensor<5x6xf64>) -> tensor<f64>
// CHECK: %[[IN:.*]] = "tad.reduce_sum"(%[[DX]]) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf64>) -> tensor<f64>
// CHECK: %[[OUT:.*]] = arith.subf %[[ALL]], %[[IN]] : tensor<f64>
// CHECK: %[[DV:.*]] = tensor.extract %[[OUT]][] : tensor<f64>
// CHECK: return %{{.*}}, %[[DX]], %[[DV]] : tensor<5x6xf64>, tensor<2x3xf64>, f64
// CHECK-LABEL: func.func private @pad_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf64>, %[[V:.*]]: f64, %[[L:.*]]: index, %[[TX:.*]]: tensor<2x3xf64>, %[[TV:.*]]: f64)
// CHECK: tensor.pad %[[X]]
// CHECK: %[[T:.*]] = tensor.pad %[[TX]] low[1, %[[L]]] high[2, 1] {
// CHECK: tensor.yield %[[TV]] : f64
// CHECK: return %{{.*}}, %[[T]] : tensor<5x6xf64>, tensor<5x6xf64>
func.func @pad(%x: tensor<2x3xf64>, %v: f64, %l: index) -> tensor<5x6xf64> {
  %0 = tensor.pad %x low[1, %l] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v : f64
  } : tensor<2x3xf64> to tensor<5x6xf64>
  return %0 : tensor<5x6xf64>
}
func.func private @pad_vjp(tensor<2x3xf64>, f64, index, tensor<5x6xf64>) -> (tensor<5x6xf64>, tensor<2x3xf64>, f64)
    attributes {tad.vjp = {of = @pad, wrt = array<i64: 0, 1>}}
func.func private @pad_jvp(tensor<2x3xf64>, f64, index, tensor<2x3xf64>, f64) -> (tensor<5x6xf64>, tensor<5x6xf64>)
    attributes {tad.jvp = {of = @pad, wrt = array<i64: 0, 1>}}

// -----

// CHECK-LABEL: func.func private @reshape_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf64>, %[[CT:.*]]: tensor<3x4xf64>)
// CHECK: "tad.reshape"(%[[CT]]) : (tensor<3x4xf64>) -> tensor<2x6xf64>
// CHECK-LABEL: func.func private @reshape_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf64>, %[[T:.*]]: tensor<2x6xf64>)
// CHECK: "tad.reshape"(%[[T]]) : (tensor<2x6xf64>) -> tensor<3x4xf64>
func.func @reshape(%x: tensor<2x6xf64>) -> tensor<3x4xf64> {
  %shape = arith.constant dense<[3, 4]> : tensor<2xindex>
  %0 = tensor.reshape %x(%shape) : (tensor<2x6xf64>, tensor<2xindex>) -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}
func.func private @reshape_vjp(tensor<2x6xf64>, tensor<3x4xf64>) -> (tensor<3x4xf64>, tensor<2x6xf64>)
    attributes {tad.vjp = {of = @reshape, wrt = array<i64: 0>}}
func.func private @reshape_jvp(tensor<2x6xf64>, tensor<2x6xf64>) -> (tensor<3x4xf64>, tensor<3x4xf64>)
    attributes {tad.jvp = {of = @reshape, wrt = array<i64: 0>}}

// -----

// Slices at dynamic offsets (SSA index operands) and static sizes and strides.
// CHECK-LABEL: func.func private @slices_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<6x5xf64>, %[[P:.*]]: tensor<2x3xf64>, %[[I:.*]]: index, %[[J:.*]]: index, %[[CT0:.*]]: tensor<2x3xf64>, %[[CT1:.*]]: tensor<6x5xf64>)
// CHECK: %[[DP:.*]] = tensor.extract_slice %[[CT1]][%[[J]], %[[I]]] [2, 3] [1, 1] : tensor<6x5xf64> to tensor<2x3xf64>
// CHECK: %[[HOLE:.*]] = tensor.insert_slice %{{.*}} into %[[CT1]][%[[J]], %[[I]]] [2, 3] [1, 1] : tensor<2x3xf64> into tensor<6x5xf64>
// CHECK: %[[SCATTER:.*]] = tensor.insert_slice %[[CT0]] into %{{.*}}[%[[I]], %[[J]]] [2, 3] [2, 1] : tensor<2x3xf64> into tensor<6x5xf64>
// CHECK: %[[DX:.*]] = arith.addf %[[HOLE]], %[[SCATTER]] : tensor<6x5xf64>
// CHECK: return %{{.*}}, %{{.*}}, %[[DX]], %[[DP]]
// CHECK-LABEL: func.func private @slices_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<6x5xf64>, %[[P:.*]]: tensor<2x3xf64>, %[[I:.*]]: index, %[[J:.*]]: index, %[[TX:.*]]: tensor<6x5xf64>, %[[TP:.*]]: tensor<2x3xf64>)
// CHECK: tensor.extract_slice %[[TX]][%[[I]], %[[J]]] [2, 3] [2, 1] : tensor<6x5xf64> to tensor<2x3xf64>
// CHECK: tensor.insert_slice %[[TP]] into %[[TX]][%[[J]], %[[I]]] [2, 3] [1, 1] : tensor<2x3xf64> into tensor<6x5xf64>
func.func @slices(%x: tensor<6x5xf64>, %p: tensor<2x3xf64>, %i: index, %j: index) -> (tensor<2x3xf64>, tensor<6x5xf64>) {
  %0 = tensor.extract_slice %x[%i, %j] [2, 3] [2, 1] : tensor<6x5xf64> to tensor<2x3xf64>
  %1 = tensor.insert_slice %p into %x[%j, %i] [2, 3] [1, 1] : tensor<2x3xf64> into tensor<6x5xf64>
  return %0, %1 : tensor<2x3xf64>, tensor<6x5xf64>
}
func.func private @slices_vjp(tensor<6x5xf64>, tensor<2x3xf64>, index, index, tensor<2x3xf64>, tensor<6x5xf64>) -> (tensor<2x3xf64>, tensor<6x5xf64>, tensor<6x5xf64>, tensor<2x3xf64>)
    attributes {tad.vjp = {of = @slices, wrt = array<i64: 0, 1>}}
func.func private @slices_jvp(tensor<6x5xf64>, tensor<2x3xf64>, index, index, tensor<6x5xf64>, tensor<2x3xf64>) -> (tensor<2x3xf64>, tensor<6x5xf64>, tensor<2x3xf64>, tensor<6x5xf64>)
    attributes {tad.jvp = {of = @slices, wrt = array<i64: 0, 1>}}

// -----

// Views and joins: collapse_shape, cast, expand_shape, tensor.empty filled by
// insert_slice (no derivative of its own), concat.
// CHECK-LABEL: func.func private @views_vjp
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf64>, %[[Y:.*]]: tensor<1x12xf64>, %[[CT:.*]]: tensor<3x12xf64>)
// CHECK-DAG: %[[C0:.*]] = "tad.slice"(%[[CT]]) {limit_indices = array<i64: 1, 12>, start_indices = array<i64: 0, 0>, strides = array<i64: 1, 1>}
// CHECK-DAG: %[[C1:.*]] = "tad.slice"(%[[CT]]) {limit_indices = array<i64: 2, 12>, start_indices = array<i64: 1, 0>, strides = array<i64: 1, 1>}
// CHECK-DAG: %[[C2:.*]] = "tad.slice"(%[[CT]]) {limit_indices = array<i64: 3, 12>, start_indices = array<i64: 2, 0>, strides = array<i64: 1, 1>}
// CHECK: %[[SUM:.*]] = arith.addf %[[C0]], %[[C2]] : tensor<1x12xf64>
// CHECK: %[[DY:.*]] = tensor.extract_slice %[[C1]][0, 0] [1, 12] [1, 1]
// CHECK: %[[FLAT:.*]] = "tad.reshape"(%[[SUM]]) : (tensor<1x12xf64>) -> tensor<12xf64>
// CHECK: %[[DYN:.*]] = tensor.cast %[[FLAT]] : tensor<12xf64> to tensor<?xf64>
// CHECK: %[[STATIC:.*]] = tensor.cast %[[DYN]] : tensor<?xf64> to tensor<12xf64>
// CHECK: %[[DX:.*]] = "tad.reshape"(%[[STATIC]]) : (tensor<12xf64>) -> tensor<2x6xf64>
// CHECK: return %{{.*}}, %[[DX]], %[[DY]]
// CHECK-LABEL: func.func private @views_jvp
// CHECK-SAME: (%[[X:.*]]: tensor<2x6xf64>, %[[Y:.*]]: tensor<1x12xf64>, %[[TX:.*]]: tensor<2x6xf64>, %[[TY:.*]]: tensor<1x12xf64>)
// CHECK: "tad.reshape"(%[[TX]]) : (tensor<2x6xf64>) -> tensor<12xf64>
// CHECK: %[[ROW:.*]] = "tad.reshape"(%{{.*}}) : (tensor<12xf64>) -> tensor<1x12xf64>
// CHECK: %[[TE:.*]] = tensor.insert_slice %[[TY]] into %{{.*}}[0, 0] [1, 12] [1, 1]
// CHECK: %[[T:.*]] = tensor.concat dim(0) %[[ROW]], %[[TE]], %[[ROW]]
// CHECK: return %{{.*}}, %[[T]]
func.func @views(%x: tensor<2x6xf64>, %y: tensor<1x12xf64>) -> tensor<3x12xf64> {
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<2x6xf64> into tensor<12xf64>
  %1 = tensor.cast %0 : tensor<12xf64> to tensor<?xf64>
  %2 = tensor.cast %1 : tensor<?xf64> to tensor<12xf64>
  %3 = tensor.expand_shape %2 [[0, 1]] output_shape [1, 12] : tensor<12xf64> into tensor<1x12xf64>
  %e = tensor.empty() : tensor<1x12xf64>
  %4 = tensor.insert_slice %y into %e[0, 0] [1, 12] [1, 1] : tensor<1x12xf64> into tensor<1x12xf64>
  %5 = tensor.concat dim(0) %3, %4, %3 : (tensor<1x12xf64>, tensor<1x12xf64>, tensor<1x12xf64>) -> tensor<3x12xf64>
  return %5 : tensor<3x12xf64>
}
func.func private @views_vjp(tensor<2x6xf64>, tensor<1x12xf64>, tensor<3x12xf64>) -> (tensor<3x12xf64>, tensor<2x6xf64>, tensor<1x12xf64>)
    attributes {tad.vjp = {of = @views, wrt = array<i64: 0, 1>}}
func.func private @views_jvp(tensor<2x6xf64>, tensor<1x12xf64>, tensor<2x6xf64>, tensor<1x12xf64>) -> (tensor<3x12xf64>, tensor<3x12xf64>)
    attributes {tad.jvp = {of = @views, wrt = array<i64: 0, 1>}}
