// A chain of elementwise ops (with a broadcast operand) fuses into one loop
// nest: one thread loop (four chunks of rows), then 64-lane vectors along the
// contiguous dim, and tanh on float32 vectors becomes a polynomial (no libm
// call per lane). The lowered function allocates its result and nothing else.
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-lower-to-llvm=threads=2 vector-bits=512' \
// RUN:   --mlir-print-ir-after-all -o /dev/null 2>&1 | FileCheck %s --check-prefix=AFTER
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-lower-to-llvm=threads=2 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=tanhf

// AFTER-LABEL: IR Dump After tad-tile-and-vectorize
// AFTER: scf.forall (%{{.*}}) in (4) shared_outs
// AFTER-NOT: linalg.generic
// AFTER: scf.for
// AFTER: scf.for
// AFTER: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<64xf32>
// AFTER: %[[B:.*]] = vector.transfer_read {{.*}} : tensor<64xf32>, vector<64xf32>
// AFTER: %[[M:.*]] = arith.mulf %[[X]], %{{.*}} : vector<64xf32>
// AFTER: %[[A:.*]] = arith.addf %[[M]], %[[B]] : vector<64xf32>
// AFTER: math.tanh %[[A]] : vector<64xf32>
// AFTER: vector.transfer_write {{.*}} : vector<64xf32>, tensor<1x64xf32>
// AFTER: scf.forall.in_parallel
// AFTER-LABEL: IR Dump After tad-approximate-math
// AFTER-NOT: math.tanh
// AFTER: arith.divf {{.*}} : vector<64xf32>
// AFTER-LABEL: IR Dump After

// LLVM-LABEL: llvm.func @chain
// LLVM: llvm.call @_mlir_memref_to_llvm_alloc
// LLVM-NOT: llvm.call @_mlir_memref_to_llvm_alloc
// LLVM: llvm.func internal @chain_thread_loop0_chunk
// LLVM: llvm.fmul {{.*}} : vector<64xf32>
// LLVM: llvm.fadd {{.*}} : vector<64xf32>
// LLVM: llvm.fdiv {{.*}} : vector<64xf32>
// LLVM: llvm.store {{.*}} : vector<64xf32>, !llvm.ptr
// LLVM: llvm.call @mlirAsyncRuntimeExecute
func.func @chain(%x: tensor<256x1024xf32>, %b: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %two = "tad.constant"() {value = 2.0 : f32} : () -> tensor<256x1024xf32>
  %bb = "tad.broadcast_in_dim"(%b) {broadcast_dimensions = array<i64: 1>} : (tensor<1024xf32>) -> tensor<256x1024xf32>
  %0 = arith.mulf %x, %two : tensor<256x1024xf32>
  %1 = arith.addf %0, %bb : tensor<256x1024xf32>
  %2 = math.tanh %1 : tensor<256x1024xf32>
  return %2 : tensor<256x1024xf32>
}
