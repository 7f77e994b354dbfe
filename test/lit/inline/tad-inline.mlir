// tad-inline inlines every call of a private function with one block that does not call
// itself, tad ops included (upstream `inline` refuses them: IRDL ops have no inliner
// interface), to a fixed point; the callees stay for symbol-dce to drop.
// RUN: autodiff-opt %s --split-input-file --tad-inline | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-inline --symbol-dce | FileCheck %s --check-prefix=DCE

// CHECK-LABEL: func.func @main
// CHECK-NEXT: %[[T:.*]] = "tad.transpose"(%arg0) {permutation = array<i64: 0>}
// CHECK-NEXT: %[[E:.*]] = math.exp %[[T]]
// CHECK-NEXT: return %[[E]]
// CHECK-LABEL: func.func private @g
// DCE-LABEL: func.func @main
// DCE-NOT: call
// DCE-NOT: @g
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = call @g(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @g(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0>} : (tensor<2xf64>) -> tensor<2xf64>
  %1 = math.exp %0 : tensor<2xf64>
  return %1 : tensor<2xf64>
}

// -----

// Calls of public functions and of declarations stay.
// CHECK-LABEL: func.func @pub
// DCE-LABEL: func.func @calls_public
// DCE-NEXT: call @pub(%arg0)
// CHECK-LABEL: func.func @calls_public
// CHECK-NEXT: call @pub(%arg0)
// CHECK-LABEL: func.func @calls_declaration
// CHECK-NEXT: call @ext(%arg0)
func.func @pub(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = math.sin %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func @calls_public(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = call @pub(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @ext(tensor<2xf64>) -> tensor<2xf64>
func.func @calls_declaration(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = call @ext(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// Calls inside inlined bodies are inlined too, once per call.
// CHECK-LABEL: func.func @nested
// CHECK-NEXT: %[[A:.*]] = math.cos %arg0
// CHECK-NEXT: %[[B:.*]] = math.cos %[[A]]
// CHECK-NEXT: return %[[B]]
// DCE-LABEL: func.func @nested
// DCE-NOT: @leaf
// DCE-NOT: @mid
func.func private @leaf(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = math.cos %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
func.func private @mid(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = call @leaf(%x) : (tensor<2xf64>) -> tensor<2xf64>
  %1 = call @leaf(%0) : (tensor<2xf64>) -> tensor<2xf64>
  return %1 : tensor<2xf64>
}
func.func @nested(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = call @mid(%x) : (tensor<2xf64>) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}

// -----

// A recursive private function is not inlined into itself or its callers.
// CHECK-LABEL: func.func private @countdown
// CHECK: call @countdown
// CHECK-LABEL: func.func @recursive
// DCE-LABEL: func.func @recursive
// CHECK-NEXT: call @countdown(%arg0, %arg1)
func.func private @countdown(%x: tensor<2xf64>, %n: index) -> tensor<2xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %done = arith.cmpi eq, %n, %c0 : index
  %r = scf.if %done -> tensor<2xf64> {
    scf.yield %x : tensor<2xf64>
  } else {
    %m = arith.subi %n, %c1 : index
    %y = math.sin %x : tensor<2xf64>
    %z = func.call @countdown(%y, %m) : (tensor<2xf64>, index) -> tensor<2xf64>
    scf.yield %z : tensor<2xf64>
  }
  return %r : tensor<2xf64>
}
func.func @recursive(%x: tensor<2xf64>, %n: index) -> tensor<2xf64> {
  %0 = call @countdown(%x, %n) : (tensor<2xf64>, index) -> tensor<2xf64>
  return %0 : tensor<2xf64>
}
