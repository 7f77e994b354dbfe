// --no-implicit-module: each input is its one top-level op, not wrapped in a
// builtin.module. A module runs the pipeline as usual; another op is printed as
// it is, and tensorad's pipelines (anchored at builtin.module) refuse it.
// RUN: not autodiff-opt %s --split-input-file --no-implicit-module > %t 2> %t.err
// RUN: FileCheck %s < %t
// RUN: FileCheck %s --check-prefix=TWO < %t.err
// RUN: not autodiff-opt %s --split-input-file --no-implicit-module --tad-simplify 2>&1 > %t | FileCheck %s --check-prefix=ANCHOR
// RUN: FileCheck %s --check-prefix=SIMPLIFIED < %t
// Without the flag, a function is wrapped:
// RUN: autodiff-opt %s --split-input-file | FileCheck %s --check-prefix=WRAPPED

// CHECK:      module attributes {tad.test} {
// CHECK-NEXT:   func.func @f
// CHECK:      {{/}}/ -----
// CHECK-NEXT: func.func @one(
// CHECK-NEXT:   "tad.stop_gradient"
// CHECK:      {{/}}/ -----
// CHECK-NOT:  func.func

// TWO:    no-implicit-module.mlir: error: source must contain a single top-level operation, found: 2

// ANCHOR: no-implicit-module.mlir:{{[0-9]+}}:1: error: can't run 'builtin.module' pass manager on 'func.func' op
// SIMPLIFIED:     module attributes {tad.test} {
// SIMPLIFIED-NOT: tad.stop_gradient
// SIMPLIFIED:     {{/}}/ -----

// WRAPPED:      {{/}}/ -----
// WRAPPED-NEXT: module {
// WRAPPED-NEXT:   func.func @one(
module attributes {tad.test} {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
    return %x : tensor<4xf32>
  }
}

// -----

func.func @one(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @two() {
  return
}
func.func @three() {
  return
}
