// RUN: autodiff-opt %s --split-input-file --tad-read-parallel-inits-as-inputs | FileCheck %s

// An all-parallel generic that reads its init reads it as an input and writes a fresh tensor.
// CHECK-LABEL: func.func @reads_init
// CHECK: %[[FRESH:.*]] = tensor.empty() : tensor<3xf64>
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<3xf64>, tensor<3xf64>) outs(%[[FRESH]] : tensor<3xf64>)
// CHECK: ^bb0(%[[IN:.*]]: f64, %[[INIT:.*]]: f64, %{{.*}}: f64):
// CHECK: arith.addf %[[INIT]], %[[IN]] : f64
#id = affine_map<(d0) -> (d0)>
func.func @reads_init(%a: tensor<3xf64>, %c: tensor<3xf64>) -> tensor<3xf64> {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<3xf64>) outs(%c : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %out, %in : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %0 : tensor<3xf64>
}

// -----

// A dynamic init: the fresh tensor takes its size.
// CHECK-LABEL: func.func @dynamic
// CHECK: %[[N:.*]] = tensor.dim %arg1, %c0 : tensor<?xf64>
// CHECK: tensor.empty(%[[N]]) : tensor<?xf64>
#id = affine_map<(d0) -> (d0)>
func.func @dynamic(%a: tensor<?xf64>, %c: tensor<?xf64>) -> tensor<?xf64> {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf64>) outs(%c : tensor<?xf64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.mulf %out, %in : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  return %0 : tensor<?xf64>
}

// -----

// A generic that does not read its init, and a reduction (which must read it), are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tensor.empty
// CHECK: outs(%arg1 : tensor<3xf64>)
// CHECK: outs(%arg2 : tensor<f64>)
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @left_alone(%a: tensor<3xf64>, %c: tensor<3xf64>, %s: tensor<f64>) -> (tensor<3xf64>, tensor<f64>) {
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<3xf64>) outs(%c : tensor<3xf64>) {
  ^bb0(%in: f64, %out: f64):
    %e = math.exp %in : f64
    linalg.yield %e : f64
  } -> tensor<3xf64>
  %1 = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]}
      ins(%a : tensor<3xf64>) outs(%s : tensor<f64>) {
  ^bb0(%in: f64, %out: f64):
    %t = arith.addf %out, %in : f64
    linalg.yield %t : f64
  } -> tensor<f64>
  return %0, %1 : tensor<3xf64>, tensor<f64>
}
