// tad-clone-shared-fills gives every linalg op its own copy of a fill it
// shares as an init, so bufferization fills each op's buffer in place instead
// of filling one and copying it.
// RUN: autodiff-opt %s --split-input-file --tad-clone-shared-fills | FileCheck %s

// Two matmuls written into one zero fill: each gets a fill of its own.
// CHECK-LABEL: func.func @shared_by_two_matmuls
// CHECK: %[[F1:.*]] = linalg.fill
// CHECK: %[[F2:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%arg0, %arg1 : {{.*}}) outs(%[[F2]] :
// CHECK: linalg.matmul ins(%arg1, %arg0 : {{.*}}) outs(%[[F1]] :
func.func @shared_by_two_matmuls(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  %1 = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
}

// -----

// A splat (a generic yielding a constant) that is also read: the reduction
// writes into a clone, the returned value stays the original.
// CHECK-LABEL: func.func @splat_also_returned
// CHECK: %[[Z:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK: %[[C:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<f32>)
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<4xf32>) outs(%[[C]] : tensor<f32>)
// CHECK: return %{{.*}}, %[[Z]]
func.func @splat_also_returned(%a: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<f32>
  %z = linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%e : tensor<f32>) {
  ^bb0(%out: f32):
    %cst = arith.constant 0.0 : f32
    linalg.yield %cst : f32
  } -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]}
      ins(%a : tensor<4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %r = arith.addf %x, %acc : f32
    linalg.yield %r : f32
  } -> tensor<f32>
  return %s, %z : tensor<f32>, tensor<f32>
}

// -----

// A fill with one user is left alone.
// CHECK-LABEL: func.func @one_user
// CHECK-COUNT-1: linalg.fill
// CHECK-NOT: linalg.fill
func.func @one_user(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}
