// Indexing and negative log-likelihood ops: their lowerings (gathers read with
// tensor.extract at clamped indices, the scatter-add is an scf.for over the
// index positions updating slices in place) and their derivatives (each op's
// vjp is one op of its partner).
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg | FileCheck %s --check-prefix=LOWER
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s --check-prefix=AD

// Loops over the result (5, 2, 4): data dim 0, then the index dims; the index is clamped into [0, 2].
// LOWER-DAG: #[[$IDX:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// LOWER-DAG: #[[$OUT:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// LOWER-LABEL: func.func @take
// LOWER-SAME: (%[[X:.*]]: tensor<5x3xf32>, %[[I:.*]]: tensor<2x4xi32>)
// LOWER: linalg.generic {indexing_maps = [#[[$IDX]], #[[$OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[I]] : tensor<2x4xi32>)
// LOWER-NEXT: ^bb0(%[[IN:.*]]: i32, %{{.*}}: f32):
// LOWER-NEXT: %[[ROW:.*]] = linalg.index 0 : index
// LOWER-NEXT: %[[K:.*]] = arith.index_cast %[[IN]] : i32 to index
// LOWER: %[[LO:.*]] = arith.maxsi %[[K]], %{{.*}} : index
// LOWER: %[[C2:.*]] = arith.constant 2 : index
// LOWER-NEXT: %[[CLAMPED:.*]] = arith.minsi %[[LO]], %[[C2]] : index
// LOWER-NEXT: %[[V:.*]] = tensor.extract %[[X]][%[[ROW]], %[[CLAMPED]]] : tensor<5x3xf32>
// LOWER-NEXT: linalg.yield %[[V]] : f32
// LOWER-NOT: tad.
func.func @take(%x: tensor<5x3xf32>, %i: tensor<2x4xi32>) -> tensor<5x2x4xf32> {
  %0 = "tad.take"(%x, %i) {axis = 1} : (tensor<5x3xf32>, tensor<2x4xi32>) -> tensor<5x2x4xf32>
  return %0 : tensor<5x2x4xf32>
}

// -----

// One row of the gradient per index position, added into the clamped row of a
// zero-filled accumulator: extract_slice, add, insert_slice at the same offsets
// (rows of fewer than 32 elements are added element by element: test/lit/lax/scatter.mlir).
// LOWER-LABEL: func.func @take_backward
// LOWER-SAME: (%[[G:.*]]: tensor<4x40xf64>, %[[I:.*]]: tensor<4xi64>)
// LOWER: %[[ZEROS:.*]] = linalg.generic
// LOWER: %[[C4:.*]] = arith.constant 4 : index
// LOWER: %[[R:.*]] = scf.for %[[M:.*]] = %{{.*}} to %[[C4]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[ZEROS]]) -> (tensor<6x40xf64>)
// LOWER-NEXT: %[[IM:.*]] = tensor.extract %[[I]][%[[M]]] : tensor<4xi64>
// LOWER: %[[C5:.*]] = arith.constant 5 : index
// LOWER-NEXT: %[[ROW:.*]] = arith.minsi %{{.*}}, %[[C5]] : index
// LOWER-NEXT: %[[UPDATE:.*]] = tensor.extract_slice %[[G]][%[[M]], 0] [1, 40] [1, 1] : tensor<4x40xf64> to tensor<1x40xf64>
// LOWER-NEXT: %[[CURRENT:.*]] = tensor.extract_slice %[[ACC]][%[[ROW]], 0] [1, 40] [1, 1] : tensor<6x40xf64> to tensor<1x40xf64>
// LOWER-NEXT: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[UPDATE]] : tensor<1x40xf64>) outs(%[[CURRENT]] : tensor<1x40xf64>)
// LOWER: arith.addf
// LOWER: %[[NEW:.*]] = tensor.insert_slice %[[SUM]] into %[[ACC]][%[[ROW]], 0] [1, 40] [1, 1] : tensor<1x40xf64> into tensor<6x40xf64>
// LOWER-NEXT: scf.yield %[[NEW]] : tensor<6x40xf64>
// LOWER: return %[[R]]
func.func @take_backward(%g: tensor<4x40xf64>, %i: tensor<4xi64>) -> tensor<6x40xf64> {
  %0 = "tad.take_backward"(%g, %i) {axis = 0} : (tensor<4x40xf64>, tensor<4xi64>) -> tensor<6x40xf64>
  return %0 : tensor<6x40xf64>
}

// -----

// "none": one parallel loop over the samples; an ignored sample gives 0.
// LOWER-LABEL: func.func @nll_loss_none
// LOWER-SAME: (%[[P:.*]]: tensor<4x3xf32>, %[[T:.*]]: tensor<4xi64>, %[[W:.*]]: tensor<3xf32>)
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%[[T]] : tensor<4xi64>)
// LOWER: %[[IGNORED:.*]] = arith.cmpi eq, %{{.*}}, %c-100 : index
// LOWER: %[[CLS:.*]] = arith.minsi
// LOWER-NEXT: %[[WT:.*]] = tensor.extract %[[W]][%[[CLS]]] : tensor<3xf32>
// LOWER-NEXT: %[[N:.*]] = linalg.index 0 : index
// LOWER-NEXT: %[[PT:.*]] = tensor.extract %[[P]][%[[N]], %[[CLS]]] : tensor<4x3xf32>
// LOWER-NEXT: %[[PROD:.*]] = arith.mulf %[[WT]], %[[PT]] : f32
// LOWER-NEXT: %[[NEG:.*]] = arith.negf %[[PROD]] : f32
// LOWER: %[[LOSS:.*]] = arith.select %[[IGNORED]], %{{.*}}, %[[NEG]] : f32
// LOWER-NEXT: linalg.yield %[[LOSS]] : f32
func.func @nll_loss_none(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<4xf32> {
  %0 = "tad.nll_loss"(%p, %t, %w) {reduction = "none", ignore_index = -100} : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// "mean": one reduction sums the losses and the weights of the samples, then one division.
// LOWER-LABEL: func.func @nll_loss_mean
// LOWER: %[[SUMS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%{{.*}} : tensor<4xi64>) outs(%{{.*}}, %{{.*}} : tensor<f32>, tensor<f32>)
// LOWER: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// LOWER: linalg.generic {{.*}} ins(%[[SUMS]]#0, %[[SUMS]]#1 : tensor<f32>, tensor<f32>)
// LOWER-NEXT: ^bb0(%[[L:.*]]: f32, %[[D:.*]]: f32, %{{.*}}: f32):
// LOWER-NEXT: arith.divf %[[L]], %[[D]] : f32
func.func @nll_loss_mean(%p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<f32> {
  %0 = "tad.nll_loss"(%p, %t, %w) {reduction = "mean", ignore_index = -100} : (tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// -w[t] * output_grad where the column is the sample's target, 0 elsewhere.
// LOWER-LABEL: func.func @nll_loss_backward
// LOWER-SAME: (%[[G:.*]]: tensor<f32>, %{{.*}}: tensor<4x3xf32>, %[[T:.*]]: tensor<4xi64>, %[[W:.*]]: tensor<3xf32>)
// LOWER: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[T]], %[[G]] : tensor<4xi64>, tensor<f32>)
// LOWER-NEXT: ^bb0(%{{.*}}: i64, %[[GV:.*]]: f32, %{{.*}}: f32):
// LOWER: %[[IGNORED:.*]] = arith.cmpi eq, %{{.*}}, %c-1 : index
// LOWER: %[[CLS:.*]] = arith.minsi
// LOWER-NEXT: %[[WT:.*]] = tensor.extract %[[W]][%[[CLS]]] : tensor<3xf32>
// LOWER-NEXT: %[[C:.*]] = linalg.index 1 : index
// LOWER-NEXT: %[[HIT:.*]] = arith.cmpi eq, %[[CLS]], %[[C]] : index
// LOWER-NEXT: %[[PROD:.*]] = arith.mulf %[[WT]], %[[GV]] : f32
// LOWER-NEXT: %[[NEG:.*]] = arith.negf %[[PROD]] : f32
// LOWER: %[[KEPT:.*]] = arith.select %[[IGNORED]], %{{.*}}, %[[NEG]] : f32
// LOWER: %[[OUT:.*]] = arith.select %[[HIT]], %[[KEPT]], %{{.*}} : f32
// LOWER-NEXT: linalg.yield %[[OUT]] : f32
func.func @nll_loss_backward(%g: tensor<f32>, %p: tensor<4x3xf32>, %t: tensor<4xi64>, %w: tensor<3xf32>) -> tensor<4x3xf32> {
  %0 = "tad.nll_loss_backward"(%g, %p, %t, %w) {reduction = "sum", ignore_index = -1} : (tensor<f32>, tensor<4x3xf32>, tensor<4xi64>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// The vjp of take is one take_backward at the same indices, its jvp one take
// of the tangent; a batch prefix of the cotangent shifts the axis.
// AD-LABEL: func.func private @gather_vjp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5x3xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<2xi64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<5x2xf64>)
// AD-NEXT: %[[Y:.*]] = "tad.take"(%[[X]], %[[I]]) {axis = 1 : i64}
// AD-NEXT: %[[DX:.*]] = "tad.take_backward"(%[[CT]], %[[I]]) {axis = 1 : i64} : (tensor<5x2xf64>, tensor<2xi64>) -> tensor<5x3xf64>
// AD-NEXT: return %[[Y]], %[[DX]]
// AD-LABEL: func.func private @gather_jvp
// AD-SAME: (%[[X:[a-zA-Z0-9_]+]]: tensor<5x3xf64>, %[[I:[a-zA-Z0-9_]+]]: tensor<2xi64>, %[[TX:[a-zA-Z0-9_]+]]: tensor<5x3xf64>)
// AD-NEXT: %[[Y:.*]] = "tad.take"(%[[X]], %[[I]])
// AD-NEXT: %[[TY:.*]] = "tad.take"(%[[TX]], %[[I]]) {axis = 1 : i64} : (tensor<5x3xf64>, tensor<2xi64>) -> tensor<5x2xf64>
// AD-NEXT: return %[[Y]], %[[TY]]
// AD-LABEL: func.func private @gather_jac
// AD-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<7x5x2xf64>)
// AD-NEXT: "tad.take"
// AD-NEXT: "tad.take_backward"(%[[CT]], %{{.*}}) {axis = 2 : i64} : (tensor<7x5x2xf64>, tensor<2xi64>) -> tensor<7x5x3xf64>
// AD-NEXT: return
func.func @gather(%x: tensor<5x3xf64>, %i: tensor<2xi64>) -> tensor<5x2xf64> {
  %0 = "tad.take"(%x, %i) {axis = 1} : (tensor<5x3xf64>, tensor<2xi64>) -> tensor<5x2xf64>
  return %0 : tensor<5x2xf64>
}
func.func private @gather_vjp(tensor<5x3xf64>, tensor<2xi64>, tensor<5x2xf64>) -> (tensor<5x2xf64>, tensor<5x3xf64>)
    attributes {tad.vjp = {of = @gather, wrt = array<i64: 0>}}
func.func private @gather_jvp(tensor<5x3xf64>, tensor<2xi64>, tensor<5x3xf64>) -> (tensor<5x2xf64>, tensor<5x2xf64>)
    attributes {tad.jvp = {of = @gather, wrt = array<i64: 0>}}
func.func private @gather_jac(tensor<5x3xf64>, tensor<2xi64>, tensor<7x5x2xf64>) -> (tensor<5x2xf64>, tensor<7x5x3xf64>)
    attributes {tad.vjp = {of = @gather, wrt = array<i64: 0>}}

// -----

// The vjp of nll_loss is one nll_loss_backward; its jvp is nll_loss of the
// tangent (the loss is linear in the predictions). The weights are constants.
// AD-LABEL: func.func private @loss_vjp
// AD-SAME: (%[[P:[a-zA-Z0-9_]+]]: tensor<4x3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<4xi64>, %[[W:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[CT:[a-zA-Z0-9_]+]]: tensor<f64>)
// AD-NEXT: %[[L:.*]] = "tad.nll_loss"(%[[P]], %[[T]], %[[W]])
// AD-NEXT: %[[DP:.*]] = "tad.nll_loss_backward"(%[[CT]], %[[P]], %[[T]], %[[W]]) {ignore_index = -100 : i64, reduction = "mean"} : (tensor<f64>, tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>) -> tensor<4x3xf64>
// AD-NEXT: return %[[L]], %[[DP]]
// AD-LABEL: func.func private @loss_jvp
// AD-SAME: (%[[P:[a-zA-Z0-9_]+]]: tensor<4x3xf64>, %[[T:[a-zA-Z0-9_]+]]: tensor<4xi64>, %[[W:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[TP:[a-zA-Z0-9_]+]]: tensor<4x3xf64>)
// AD-NEXT: %[[L:.*]] = "tad.nll_loss"(%[[P]], %[[T]], %[[W]])
// AD-NEXT: %[[TL:.*]] = "tad.nll_loss"(%[[TP]], %[[T]], %[[W]]) {ignore_index = -100 : i64, reduction = "mean"}
// AD-NEXT: return %[[L]], %[[TL]]
func.func @loss(%p: tensor<4x3xf64>, %t: tensor<4xi64>, %w: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.nll_loss"(%p, %t, %w) {reduction = "mean", ignore_index = -100} : (tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @loss_vjp(tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<4x3xf64>)
    attributes {tad.vjp = {of = @loss, wrt = array<i64: 0>}}
func.func private @loss_jvp(tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>, tensor<4x3xf64>) -> (tensor<f64>, tensor<f64>)
    attributes {tad.jvp = {of = @loss, wrt = array<i64: 0>}}

// -----

// A batched cotangent (2, 4) of the per-sample loss: the coefficients (one
// nll_loss_backward of ones) times the cotangent broadcast over the classes.
// AD-LABEL: func.func private @loss_jac
// AD-SAME: %[[CT:[a-zA-Z0-9_]+]]: tensor<2x4xf64>)
// AD: %[[ONES:.*]] = "tad.constant"() {value = 1.000000e+00 : f64} : () -> tensor<4xf64>
// AD-NEXT: %[[G:.*]] = "tad.nll_loss_backward"(%[[ONES]],
// AD: arith.mulf {{.*}} : tensor<2x4x3xf64>
func.func @loss_none(%p: tensor<4x3xf64>, %t: tensor<4xi64>, %w: tensor<3xf64>) -> tensor<4xf64> {
  %0 = "tad.nll_loss"(%p, %t, %w) {reduction = "none", ignore_index = -100} : (tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}
func.func private @loss_jac(tensor<4x3xf64>, tensor<4xi64>, tensor<3xf64>, tensor<2x4xf64>) -> (tensor<4xf64>, tensor<2x4x3xf64>)
    attributes {tad.vjp = {of = @loss_none, wrt = array<i64: 0>}}
