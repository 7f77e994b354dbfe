// tad ops mixed with elementwise arith/math go all the way to the LLVM dialect:
// buffers come from the generic allocation functions and are all freed.
// Nothing of tad, linalg, tensor or memref is left anywhere in the output.
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-lower-to-llvm \
// RUN:   | FileCheck %s --implicit-check-not=tad. --implicit-check-not=linalg. \
// RUN:       --implicit-check-not=tensor. --implicit-check-not=memref.

// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_alloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @_mlir_memref_to_llvm_free(!llvm.ptr)
// CHECK-LABEL: llvm.func @softmax_of_matmul
// CHECK: llvm.call @_mlir_memref_to_llvm_alloc
// CHECK: llvm.intr.exp
// CHECK: llvm.call @_mlir_memref_to_llvm_free
func.func @softmax_of_matmul(%x: tensor<4x5xf64>, %w: tensor<5x3xf64>) -> tensor<4x3xf64> {
  %y = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<4x5xf64>, tensor<5x3xf64>) -> tensor<4x3xf64>
  %m = "tad.reduce_max"(%y) {dimensions = array<i64: 1>} : (tensor<4x3xf64>) -> tensor<4xf64>
  %mb = "tad.broadcast_in_dim"(%m) {broadcast_dimensions = array<i64: 0>} : (tensor<4xf64>) -> tensor<4x3xf64>
  %d = arith.subf %y, %mb : tensor<4x3xf64>
  %e = math.exp %d : tensor<4x3xf64>
  %s = "tad.reduce_sum"(%e) {dimensions = array<i64: 1>} : (tensor<4x3xf64>) -> tensor<4xf64>
  %sb = "tad.broadcast_in_dim"(%s) {broadcast_dimensions = array<i64: 0>} : (tensor<4xf64>) -> tensor<4x3xf64>
  %r = arith.divf %e, %sb : tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}
