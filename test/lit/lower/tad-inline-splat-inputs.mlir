// A linalg.generic reads an input filled with a constant as the constant, inside its body;
// the fill goes once nothing reads it. A fill of a value that is not a constant stays.
// RUN: autodiff-opt %s --split-input-file --tad-inline-splat-inputs | FileCheck %s

// One fill of 0.5 shared by two readers (as simplification leaves the fills of an unrolled loop).
// CHECK-LABEL: func.func @shared_half
// CHECK-NOT: linalg.fill
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<8x4xf32>)
// CHECK: %[[H0:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.mulf %{{.*}}, %[[H0]] : f32
// CHECK: linalg.generic {{.*}} ins(%arg1 : tensor<8x4xf32>)
// CHECK: %[[H1:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: arith.addf %[[H1]], %{{.*}} : f32
#id = affine_map<(i, j) -> (i, j)>
func.func @shared_half(%x: tensor<8x4xf32>, %y: tensor<8x4xf32>) -> (tensor<8x4xf32>, tensor<8x4xf32>) {
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8x4xf32>
  %h = linalg.fill ins(%half : f32) outs(%e : tensor<8x4xf32>) -> tensor<8x4xf32>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %h : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %p = arith.mulf %a, %b : f32
    linalg.yield %p : f32
  } -> tensor<8x4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%h, %y : tensor<8x4xf32>, tensor<8x4xf32>) outs(%e : tensor<8x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<8x4xf32>
  return %0, %1 : tensor<8x4xf32>, tensor<8x4xf32>
}

// -----

// A splat written as a generic without inputs, read through a broadcasting map (a 0-d tensor).
// CHECK-LABEL: func.func @scalar_one
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<6xf64>)
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f64
// CHECK: arith.subf %[[ONE]], %{{.*}} : f64
func.func @scalar_one(%x: tensor<6xf64>) -> tensor<6xf64> {
  %e0 = tensor.empty() : tensor<f64>
  %one = linalg.generic {indexing_maps = [affine_map<() -> ()>], iterator_types = []} outs(%e0 : tensor<f64>) {
  ^bb0(%o: f64):
    %c = arith.constant 1.0 : f64
    linalg.yield %c : f64
  } -> tensor<f64>
  %e = tensor.empty() : tensor<6xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> ()>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%one, %x : tensor<f64>, tensor<6xf64>) outs(%e : tensor<6xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %d = arith.subf %a, %b : f64
    linalg.yield %d : f64
  } -> tensor<6xf64>
  return %0 : tensor<6xf64>
}

// -----

// A fill of an argument is not a constant: it stays an input.
// CHECK-LABEL: func.func @filled_with_an_argument
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[F]] : tensor<4xf32>, tensor<4xf32>)
func.func @filled_with_an_argument(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%s : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %0 = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                       iterator_types = ["parallel"]}
      ins(%x, %f : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A sum of a constant over a loop no other operand reads: the splat keeps the loop's trip
// count, so it stays an input.
// CHECK-LABEL: func.func @sum_of_a_constant
// CHECK: %[[F:.*]] = linalg.fill
// CHECK: linalg.generic {{.*}} ins(%[[F]] : tensor<5x3xf64>) outs(%arg0 : tensor<3xf64>)
func.func @sum_of_a_constant(%init: tensor<3xf64>) -> tensor<3xf64> {
  %one = arith.constant 1.0 : f64
  %e = tensor.empty() : tensor<5x3xf64>
  %f = linalg.fill ins(%one : f64) outs(%e : tensor<5x3xf64>) -> tensor<5x3xf64>
  %0 = linalg.generic {indexing_maps = [affine_map<(r, c) -> (r, c)>, affine_map<(r, c) -> (c)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%f : tensor<5x3xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %s = arith.addf %a, %acc : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
