// Ops of unknown dialects are rejected unless --allow-unregistered-dialect is given.
// RUN: autodiff-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: not autodiff-opt %s 2>&1 | FileCheck %s --check-prefix=REJECT

// CHECK: "mydialect.op"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
// REJECT: unregistered.mlir:[[@LINE+2]]:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "mydialect.op"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
