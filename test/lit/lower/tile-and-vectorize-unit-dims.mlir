// tad-tile-and-vectorize on reductions with unit dims and broadcast operands, and on an op the
// vectorizer declines: every op is vectorized or keeps its scalar loops; nothing aborts or fails.
// RUN: autodiff-opt %s --split-input-file --tad-tile-and-vectorize | FileCheck %s

// A full reduction of a product whose operand is broadcast along the reduced dims: its
// register tiles are 1x1x5 into a 0-d accumulator (reduction_to_contract made an invalid
// vector.contract there, and the next patterns aborted on cast<VectorType>).
// CHECK-LABEL: func.func @full_reduction_of_broadcast_product
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[T:.*]] = math.tanh %{{.*}} : vector<5xf64>
// CHECK: %[[P:.*]] = arith.mulf %[[T]], %{{.*}} : vector<5xf64>
// CHECK: vector.reduction <add>, %[[P]], %{{.*}} : vector<5xf64> into f64
// CHECK-NOT: vector.contract
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>
#scalar3 = affine_map<(d0, d1, d2) -> ()>
func.func @full_reduction_of_broadcast_product(%x: tensor<3x4x5xf64>, %y: tensor<3x4x5xf64>, %z: tensor<5xf64>,
                                               %init: tensor<f64>) -> tensor<f64> {
  %0 = linalg.generic {indexing_maps = [#id3, #id3, #last, #scalar3], iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%x, %y, %z : tensor<3x4x5xf64>, tensor<3x4x5xf64>, tensor<5xf64>) outs(%init : tensor<f64>) {
  ^bb0(%a: f64, %b: f64, %c: f64, %acc: f64):
    %1 = arith.addf %a, %b : f64
    %2 = math.tanh %1 : f64
    %3 = arith.mulf %2, %c : f64
    %4 = arith.addf %acc, %3 : f64
    linalg.yield %4 : f64
  } -> tensor<f64>
  return %0 : tensor<f64>
}

// -----

// One 1x5 value feeding two full reductions, vectorized whole (no loops): each op's vector
// patterns run in a region of its own, never again over the ops vectorized before it.
// CHECK-LABEL: func.func @two_reductions_of_one_value
// CHECK: %[[COS:.*]] = math.cos %{{.*}} : vector<5xf64>
// CHECK: %[[Y:.*]] = vector.transfer_write %[[COS]]
// CHECK: %[[A:.*]] = vector.transfer_read %[[Y]]
// CHECK: vector.reduction <add>, %[[A]], %{{.*}} : vector<5xf64> into f64
// CHECK: %[[B:.*]] = vector.transfer_read %[[Y]]
// CHECK: %[[B2:.*]] = arith.mulf %[[B]], %{{.*}} : vector<5xf64>
// CHECK: vector.reduction <add>, %[[B2]], %{{.*}} : vector<5xf64> into f64
// CHECK-NOT: scf.execute_region
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#scalar2 = affine_map<(d0, d1) -> ()>
func.func @two_reductions_of_one_value(%x: tensor<1x5xf64>, %i0: tensor<f64>, %i1: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %two = arith.constant 2.0 : f64
  %e = tensor.empty() : tensor<1x5xf64>
  %y = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<1x5xf64>) outs(%e : tensor<1x5xf64>) {
  ^bb0(%a: f64, %out: f64):
    %c = math.cos %a : f64
    linalg.yield %c : f64
  } -> tensor<1x5xf64>
  %s0 = linalg.generic {indexing_maps = [#id2, #scalar2], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<1x5xf64>) outs(%i0 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %r = arith.addf %acc, %a : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %s1 = linalg.generic {indexing_maps = [#id2, #scalar2], iterator_types = ["reduction", "reduction"]}
      ins(%y : tensor<1x5xf64>) outs(%i1 : tensor<f64>) {
  ^bb0(%a: f64, %acc: f64):
    %m = arith.mulf %a, %two : f64
    %r = arith.addf %acc, %m : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  return %s0, %s1 : tensor<f64>, tensor<f64>
}

// -----

// An op the vectorizer declines (an output read along fewer loops than it runs) keeps its
// scalar loops; the pass succeeds (it failed with "Attempted to vectorize, but failed").
// CHECK-LABEL: func.func @declined_by_the_vectorizer
// CHECK: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<3xf64>) outs(%{{.*}}, %{{.*}} : tensor<3xf64>, tensor<1x3xf64>)
#row = affine_map<(d0, d1) -> (d1)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
func.func @declined_by_the_vectorizer(%x: tensor<3xf64>, %acc: tensor<3xf64>, %e: tensor<4x3xf64>) -> tensor<4x3xf64> {
  %0:2 = linalg.generic {indexing_maps = [#row, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3xf64>) outs(%acc, %e : tensor<3xf64>, tensor<4x3xf64>) {
  ^bb0(%a: f64, %o: f64, %o2: f64):
    %1 = arith.addf %o, %a : f64
    %2 = arith.addf %1, %1 : f64
    linalg.yield %1, %2 : f64, f64
  } -> (tensor<3xf64>, tensor<4x3xf64>)
  return %0#1 : tensor<4x3xf64>
}
