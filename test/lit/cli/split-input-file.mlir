// --split-input-file processes each chunk separately and joins the outputs with the split marker.
// RUN: autodiff-opt %s --split-input-file | FileCheck %s
// A failing chunk does not stop the others; diagnostics keep the line numbers of the whole file.
// RUN: not autodiff-opt %s --split-input-file --pass-pipeline='builtin.module(one-shot-bufferize)' 2> %t.err | FileCheck %s --check-prefix=PARTIAL
// RUN: FileCheck %s --check-prefix=ERR < %t.err

// CHECK-LABEL: func.func @first
// CHECK-NEXT: return
// CHECK: }
// CHECK: // -----
// CHECK-LABEL: func.func @second
// CHECK: "tad.stop_gradient"
// CHECK: // -----
// CHECK-LABEL: func.func @third
// CHECK-NOT: // -----

// PARTIAL-LABEL: func.func @first
// PARTIAL: // -----
// PARTIAL-NEXT: // -----
// PARTIAL-NEXT: module
// PARTIAL-NEXT: func.func @third
func.func @first() {
  return
}

// -----

func.func @second(%x: tensor<4xf32>) -> tensor<4xf32> {
  // ERR: split-input-file.mlir:[[@LINE+1]]:8: error: op was not bufferized
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @third() {
  return
}
