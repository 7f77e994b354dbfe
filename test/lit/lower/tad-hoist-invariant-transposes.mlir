// tad-hoist-invariant-transposes moves a transpose of a loop-invariant tensor
// (a weight, in an RNN's loops) out of its loops.
// RUN: autodiff-opt %s --split-input-file --tad-hoist-invariant-transposes | FileCheck %s

// A weight transposed in every step of a loop is transposed once, before it,
// with its init.
// CHECK-LABEL: func.func @invariant_weight
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: %[[T:.*]] = linalg.transpose ins(%arg0 : tensor<4x8xf32>) outs(%[[E]] : tensor<8x4xf32>)
// CHECK: scf.for
// CHECK-NOT: linalg.transpose
// CHECK: arith.addf %{{.*}}, %[[T]]
func.func @invariant_weight(%w: tensor<4x8xf32>, %h: tensor<8x4xf32>, %n: index) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %h) -> (tensor<8x4xf32>) {
    %e = tensor.empty() : tensor<8x4xf32>
    %t = linalg.transpose ins(%w : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
    %s = arith.addf %a, %t : tensor<8x4xf32>
    scf.yield %s : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// Out of every loop its input is invariant in.
// CHECK-LABEL: func.func @two_loops
// CHECK: linalg.transpose ins(%arg0
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @two_loops(%w: tensor<4x8xf32>, %h: tensor<8x4xf32>, %n: index) -> tensor<8x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %h) -> (tensor<8x4xf32>) {
    %q = scf.for %j = %c0 to %n step %c1 iter_args(%b = %a) -> (tensor<8x4xf32>) {
      %e = tensor.empty() : tensor<8x4xf32>
      %t = linalg.transpose ins(%w : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
      %s = arith.addf %b, %t : tensor<8x4xf32>
      scf.yield %s : tensor<8x4xf32>
    }
    scf.yield %q : tensor<8x4xf32>
  }
  return %r : tensor<8x4xf32>
}

// -----

// A transpose of a loop-carried value stays in its loop.
// CHECK-LABEL: func.func @variant_input
// CHECK: scf.for
// CHECK: tensor.empty
// CHECK: linalg.transpose ins(%arg3
// CHECK: scf.yield
func.func @variant_input(%h: tensor<8x8xf32>, %n: index) -> tensor<8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %h) -> (tensor<8x8xf32>) {
    %e = tensor.empty() : tensor<8x8xf32>
    %t = linalg.transpose ins(%a : tensor<8x8xf32>) outs(%e : tensor<8x8xf32>) permutation = [1, 0]
    scf.yield %t : tensor<8x8xf32>
  }
  return %r : tensor<8x8xf32>
}
