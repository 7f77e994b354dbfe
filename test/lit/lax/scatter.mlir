// tad.scatter: its lowering (an scf.for over the index positions; a slab of
// fewer than 32 elements updated element by element, an index outside the
// axis dropping its update), its derivatives for each kind, and its batching
// rule with indices per row.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-batch --tad-simplify | FileCheck %s --check-prefix=AD

// The operand is the carry; each element of the row at the clamped index is
// combined (minimumf) and kept unless the index was outside [0, 5).
// LOWER-LABEL: func.func @low
// LOWER-SAME: (%[[X:.*]]: tensor<5x2xf64>, %[[I:.*]]: tensor<3xi32>, %[[U:.*]]: tensor<3x2xf64>)
// LOWER: %[[C3:.*]] = arith.constant 3 : index
// LOWER: scf.for %[[M:.*]] = %{{.*}} to %[[C3]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[X]]) -> (tensor<5x2xf64>)
// LOWER-NEXT: %[[IM:.*]] = tensor.extract %[[I]][%[[M]]] : tensor<3xi32>
// LOWER-NEXT: %[[K:.*]] = arith.index_cast %[[IM]] : i32 to index
// LOWER: %[[C4:.*]] = arith.constant 4 : index
// LOWER-NEXT: %[[ROW:.*]] = arith.minsi %{{.*}}, %[[C4]] : index
// LOWER-NEXT: %[[INSIDE:.*]] = arith.cmpi eq, %[[K]], %[[ROW]] : index
// LOWER: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[IN:.*]] = %[[ACC]]) -> (tensor<5x2xf64>)
// LOWER-NEXT: %[[OLD:.*]] = tensor.extract %[[IN]][%[[ROW]], %[[J]]] : tensor<5x2xf64>
// LOWER-NEXT: %[[NEW:.*]] = tensor.extract %[[U]][%[[M]], %[[J]]] : tensor<3x2xf64>
// LOWER-NEXT: %[[MIN:.*]] = arith.minimumf %[[OLD]], %[[NEW]] : f64
// LOWER-NEXT: %[[KEPT:.*]] = arith.select %[[INSIDE]], %[[MIN]], %[[OLD]] : f64
// LOWER-NEXT: tensor.insert %[[KEPT]] into %[[IN]][%[[ROW]], %[[J]]] : tensor<5x2xf64>
// LOWER-NOT: tad.
func.func @low(%x: tensor<5x2xf64>, %i: tensor<3xi32>, %u: tensor<3x2xf64>) -> tensor<5x2xf64> {
  %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "min"} : (tensor<5x2xf64>, tensor<3xi32>, tensor<3x2xf64>) -> tensor<5x2xf64>
  return %0 : tensor<5x2xf64>
}

// -----

// A row of 40 elements is one generic per index position, read, combined and
// written back in place at the clamped row.
// LOWER-LABEL: func.func @wide
// LOWER: scf.for %[[M:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}}) -> (tensor<6x40xf32>)
// LOWER: %[[INSIDE:.*]] = arith.cmpi eq
// LOWER-NEXT: %[[UPD:.*]] = tensor.extract_slice %{{.*}}[%[[M]], 0] [1, 40] [1, 1] : tensor<4x40xf32> to tensor<1x40xf32>
// LOWER-NEXT: %[[CUR:.*]] = tensor.extract_slice %[[ACC]][%[[ROW:.*]], 0] [1, 40] [1, 1] : tensor<6x40xf32> to tensor<1x40xf32>
// LOWER-NEXT: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[UPD]] : tensor<1x40xf32>) outs(%[[CUR]] : tensor<1x40xf32>)
// LOWER-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: f32):
// LOWER-NEXT: %[[PROD:.*]] = arith.mulf %[[B]], %[[A]] : f32
// LOWER-NEXT: %[[SEL:.*]] = arith.select %[[INSIDE]], %[[PROD]], %[[B]] : f32
// LOWER-NEXT: linalg.yield %[[SEL]] : f32
// LOWER: tensor.insert_slice %[[OUT]] into %[[ACC]][%[[ROW]], 0] [1, 40] [1, 1] : tensor<1x40xf32> into tensor<6x40xf32>
func.func @wide(%x: tensor<6x40xf32>, %i: tensor<4xi64>, %u: tensor<4x40xf32>) -> tensor<6x40xf32> {
  %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "mul"} : (tensor<6x40xf32>, tensor<4xi64>, tensor<4x40xf32>) -> tensor<6x40xf32>
  return %0 : tensor<6x40xf32>
}

// -----

// set: the tangent is the same scatter of the tangents. The operand's
// cotangent is zero where it was overwritten; of the updates, only the last at
// each index (each position scatters its number; the one that stays won) gets
// the gathered cotangent.
// AD-LABEL: func.func private @put_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[U:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5xf64>)
// AD: %[[Z:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<3xf64>
// AD-NEXT: %[[DX:.*]] = "tad.scatter"(%[[CT]], %[[I]], %[[Z]]) {axis = 0 : i64, kind = "set"}
// AD-NEXT: %[[N:.*]] = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<3xi64>
// AD-NEXT: %[[NONE:.*]] = "tad.constant"() {value = -1 : i64} : () -> tensor<5xi64>
// AD-NEXT: %[[KEPT:.*]] = "tad.scatter"(%[[NONE]], %[[I]], %[[N]]) {axis = 0 : i64, kind = "set"}
// AD-NEXT: %[[AT:.*]] = "tad.take"(%[[KEPT]], %[[I]]) {axis = 0 : i64}
// AD-NEXT: %[[WON:.*]] = arith.cmpi eq, %[[AT]], %[[N]] : tensor<3xi64>
// AD-NEXT: %[[G:.*]] = "tad.take"(%[[CT]], %[[I]]) {axis = 0 : i64}
// AD-NEXT: %[[DU:.*]] = arith.select %[[WON]], %[[G]], %[[Z]]
// AD-NEXT: return %{{.*}}, %[[DX]], %[[DU]]
// AD-LABEL: func.func private @put_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[U:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[TU:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// AD: "tad.scatter"(%[[TX]], %[[I]], %[[TU]]) {axis = 0 : i64, kind = "set"}
func.func @put(%x: tensor<5xf64>, %i: tensor<3xi64>, %u: tensor<3xf64>) -> tensor<5xf64> {
  %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "set"} : (tensor<5xf64>, tensor<3xi64>, tensor<3xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @put_vjp(tensor<5xf64>, tensor<3xi64>, tensor<3xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @put, wrt = array<i64: 0, 2>}}
func.func private @put_jvp(tensor<5xf64>, tensor<3xi64>, tensor<3xf64>, tensor<5xf64>, tensor<3xf64>) -> (tensor<5xf64>, tensor<5xf64>)
    attributes {tad.jvp = {of = @put, wrt = array<i64: 0, 2>}}

// -----

// add: the operand's cotangent passes through; the updates' is the gather of
// it where the index is inside [0, 5). With indices per row, the rows merge
// into one axis of 4 * 5 and each row's indices shift by row * 5 (outside ones
// become -1, still dropped).
// AD-LABEL: func.func private @add_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5x2xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[U:[a-zA-Z0-9_]+]]: tensor<3x2xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5x2xf64>)
// AD: %[[GE:.*]] = arith.cmpi sge, %[[I]], %{{.*}} : tensor<3xi64>
// AD: %[[LT:.*]] = arith.cmpi slt, %[[I]], %{{.*}} : tensor<3xi64>
// AD-NEXT: %[[IN:.*]] = arith.andi %[[GE]], %[[LT]] : tensor<3xi1>
// AD-NEXT: %[[MASK:.*]] = "tad.broadcast_in_dim"(%[[IN]]) {broadcast_dimensions = array<i64: 0>} : (tensor<3xi1>) -> tensor<3x2xi1>
// AD-NEXT: %[[G:.*]] = "tad.take"(%[[CT]], %[[I]]) {axis = 0 : i64}
// AD: %[[DU:.*]] = arith.select %[[MASK]], %[[G]], %{{.*}} : tensor<3x2xi1>, tensor<3x2xf64>
// AD-NEXT: return %{{.*}}, %[[CT]], %[[DU]]
// AD-LABEL: func.func private @add_vmap
// AD-SAME: (%[[X:.*]]: tensor<4x5x2xf64>, %[[I:.*]]: tensor<4x3xi64>, %[[U:.*]]: tensor<3x2xf64>)
// AD: %[[ROWS:.*]] = "tad.iota"() {iota_dimension = 0 : i64} : () -> tensor<4x3xi64>
// AD: %[[SHIFTED:.*]] = arith.addi %[[I]], %{{.*}} : tensor<4x3xi64>
// AD: %[[AT:.*]] = arith.select %{{.*}}, %[[SHIFTED]], %{{.*}} : tensor<4x3xi1>, tensor<4x3xi64>
// AD: %[[MERGED:.*]] = "tad.reshape"(%[[X]]) : (tensor<4x5x2xf64>) -> tensor<20x2xf64>
// AD: %[[UB:.*]] = "tad.broadcast_in_dim"(%[[U]]) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<3x2xf64>) -> tensor<4x3x2xf64>
// AD-NEXT: %[[S:.*]] = "tad.scatter"(%[[MERGED]], %[[AT]], %[[UB]]) {axis = 0 : i64, kind = "add"} : (tensor<20x2xf64>, tensor<4x3xi64>, tensor<4x3x2xf64>) -> tensor<20x2xf64>
// AD-NEXT: "tad.reshape"(%[[S]]) : (tensor<20x2xf64>) -> tensor<4x5x2xf64>
func.func @add(%x: tensor<5x2xf64>, %i: tensor<3xi64>, %u: tensor<3x2xf64>) -> tensor<5x2xf64> {
  %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "add"} : (tensor<5x2xf64>, tensor<3xi64>, tensor<3x2xf64>) -> tensor<5x2xf64>
  return %0 : tensor<5x2xf64>
}
func.func private @add_vjp(tensor<5x2xf64>, tensor<3xi64>, tensor<3x2xf64>, tensor<5x2xf64>) -> (tensor<5x2xf64>, tensor<5x2xf64>, tensor<3x2xf64>)
    attributes {tad.vjp = {of = @add, wrt = array<i64: 0, 2>}}
func.func private @add_vmap(tensor<4x5x2xf64>, tensor<4x3xi64>, tensor<3x2xf64>) -> tensor<4x5x2xf64>
    attributes {tad.vmap = {of = @add, in_axes = array<i64: 0, 0, -1>, out_axes = array<i64: 0>}}

// -----

// max: the cotangent of each result element is shared equally by the operand
// (if it is the result) and the valid updates that reach the result there.
// AD-LABEL: func.func private @top_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[U:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5xf64>)
// AD: %[[Y:.*]] = "tad.scatter"(%[[X]], %[[I]], %[[U]]) {axis = 0 : i64, kind = "max"}
// AD-NEXT: %[[KEPT:.*]] = arith.cmpf oeq, %[[X]], %[[Y]] : tensor<5xf64>
// AD-NEXT: %[[YU:.*]] = "tad.take"(%[[Y]], %[[I]]) {axis = 0 : i64}
// AD-NEXT: %[[HIT:.*]] = arith.cmpf oeq, %[[U]], %[[YU]] : tensor<3xf64>
// AD: %[[REACHED:.*]] = arith.andi %[[HIT]], %{{.*}} : tensor<3xi1>
// AD: %[[COUNT:.*]] = "tad.scatter"(%{{.*}}, %[[I]], %{{.*}}) {axis = 0 : i64, kind = "add"}
// AD: %[[SHARE:.*]] = arith.divf
// AD-NEXT: %[[G:.*]] = arith.mulf %[[CT]], %[[SHARE]] : tensor<5xf64>
// AD-NEXT: %[[DX:.*]] = arith.select %[[KEPT]], %[[G]], %{{.*}}
// AD-NEXT: %[[GU:.*]] = "tad.take"(%[[G]], %[[I]]) {axis = 0 : i64}
// AD: %[[DU:.*]] = arith.select %[[REACHED]], %[[GU]], %{{.*}}
// AD-NEXT: return %[[Y]], %[[DX]], %[[DU]]
func.func @top(%x: tensor<5xf64>, %i: tensor<3xi64>, %u: tensor<3xf64>) -> tensor<5xf64> {
  %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "max"} : (tensor<5xf64>, tensor<3xi64>, tensor<3xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @top_vjp(tensor<5xf64>, tensor<3xi64>, tensor<3xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @top, wrt = array<i64: 0, 2>}}

// -----

// mul: the operand's cotangent is the cotangent times the updates multiplied
// in; an update's is the gathered cotangent times the operand times the other
// updates at its index (the product of the nonzero ones, divided by it unless
// it is zero; none when two or more are zero).
// AD-LABEL: func.func private @scale_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<3xi64>, %[[U:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5xf64>)
// AD: %[[DX:.*]] = "tad.scatter"(%[[CT]], %[[I]], %[[U]]) {axis = 0 : i64, kind = "mul"}
// AD: %[[ZERO:.*]] = arith.cmpf oeq, %[[U]], %{{.*}} : tensor<3xf64>
// AD: %[[NZ:.*]] = arith.select %[[ZERO]], %{{.*}}, %[[U]]
// AD: %[[PROD:.*]] = "tad.scatter"(%{{.*}}, %[[I]], %[[NZ]]) {axis = 0 : i64, kind = "mul"}
// AD: %[[ZEROS:.*]] = "tad.scatter"(%{{.*}}, %[[I]], %{{.*}}) {axis = 0 : i64, kind = "add"}
// AD: arith.divf %{{.*}}, %[[NZ]] : tensor<3xf64>
// AD: %[[XI:.*]] = "tad.take"(%[[X]], %[[I]]) {axis = 0 : i64}
// AD: return %{{.*}}, %[[DX]], %{{.*}}
func.func @scale(%x: tensor<5xf64>, %i: tensor<3xi64>, %u: tensor<3xf64>) -> tensor<5xf64> {
  %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "mul"} : (tensor<5xf64>, tensor<3xi64>, tensor<3xf64>) -> tensor<5xf64>
  return %0 : tensor<5xf64>
}
func.func private @scale_vjp(tensor<5xf64>, tensor<3xi64>, tensor<3xf64>, tensor<5xf64>) -> (tensor<5xf64>, tensor<5xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @scale, wrt = array<i64: 0, 2>}}
