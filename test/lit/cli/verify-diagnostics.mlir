// --verify-diagnostics follows MLIR: expected-{error,warning,note,remark}, @+N, @-N, @above,
// @below, -re; every expected diagnostic must be produced, and nothing else.
// RUN: not autodiff-opt %s --split-input-file --verify-diagnostics 2> %t.err
// RUN: FileCheck %s < %t.err
// RUN: %exit 1 autodiff-opt %s --split-input-file --verify-diagnostics

// A chunk whose diagnostics all match reports nothing.
// CHECK-NOT: error:
func.func @matched(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{repeats a dimension}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  %1 = "tad.transpose"(%x) {permutation = array<i64: 1, 1>} : (tensor<2x3xf32>) -> tensor<3x3xf32>
  // expected-error @-1 {{'tad.transpose' op permutation [1, 1]}}
  // expected-error @below {{cannot reshape 6 elements [2, 3] into [5]}}
  %2 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<5xf32>
  // expected-error-re @below {{cannot reshape {{[0-9]+}} elements [2, 3] into [{{7|9}}]}}
  %3 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<7xf32>
  %4 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<8xf32>
  // expected-error @above {{into [8]}}
  return
}

// -----

// An expected diagnostic that does not come is reported at its comment.
func.func @missing() {
  // CHECK: verify-diagnostics.mlir:[[@LINE+1]]:6: error: expected error "no such error" was not produced
  // expected-error @+1 {{no such error}}
  return
}

// -----

// A diagnostic nobody expected is reported at its location, without the op dump note.
func.func @unexpected(%x: tensor<2x3xf32>) {
  // CHECK: verify-diagnostics.mlir:[[@LINE+2]]:8: error: unexpected error: 'tad.reshape' op cannot reshape 6 elements [2, 3] into [5]
  // CHECK-NOT: see current operation
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<5xf32>
  return
}

// -----

// A diagnostic must have the expected severity.
func.func @wrong_severity(%x: tensor<2x3xf32>) {
  // CHECK: verify-diagnostics.mlir:[[@LINE+3]]:8: error: unexpected error: 'tad.transpose' op permutation
  // CHECK: verify-diagnostics.mlir:[[@LINE+1]]:6: error: expected warning "permutation" was not produced
  // expected-warning @+1 {{permutation}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// ... and the expected line.
func.func @wrong_line(%x: tensor<2x3xf32>) {
  // CHECK: verify-diagnostics.mlir:[[@LINE+3]]:8: error: unexpected error: 'tad.transpose' op permutation
  // CHECK: verify-diagnostics.mlir:[[@LINE+1]]:6: error: expected error "permutation" was not produced
  // expected-error @+2 {{permutation}}
  %0 = "tad.transpose"(%x) {permutation = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<2x2xf32>
  return
}

// -----

// An upstream verifier error matches too; its "see current operation" note is not produced.
func.func @upstream(%x: i32) -> i64 {
  // expected-error @+1 {{type of return operand 0 ('i32') doesn't match function result type ('i64')}}
  return %x : i32
}
// CHECK-NOT: error:
