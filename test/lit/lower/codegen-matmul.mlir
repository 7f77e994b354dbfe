// A matmul is split over threads (scf.forall), tiled for L2 (256 x 512 blocks
// of the streamed operand) and for registers, and vectorized: an 8x32 accumulator tile stays in vector registers across
// the contracting loop, updated by one broadcast-FMA per row. In the LLVM
// dialect the chunks run on the async runtime's threads, taking chunk indices
// from an atomic counter.
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-tile-and-vectorize=threads=2 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=TILED
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-lower-to-llvm=threads=2 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=LLVM
// Without threads there is no thread loop and no runtime call:
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-lower-to-llvm=threads=1 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=SERIAL --implicit-check-not=mlirAsyncRuntime

// TILED-LABEL: func.func @matmul
// The zero fill of the result is an elementwise op of its own: threads, then 64-lane stores.
// TILED: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x1024xf32>)
// TILED: vector.transfer_write %{{.*}} : vector<64xf32>, tensor<1x64xf32>
// TILED: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x1024xf32>)
// TILED: scf.for %{{.*}} = %{{.*}} to %c512 step %c256
// TILED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c512
// TILED: scf.for %{{.*}} = %{{.*}} to %c128 step %c8
// TILED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32
// TILED: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// TILED: scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[ACC]]) -> (tensor<8x32xf32>, vector<8x32xf32>)
// TILED-COUNT-8: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>
// TILED: scf.forall.in_parallel

// LLVM: llvm.func internal @matmul_thread_loop0_chunk
// LLVM-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// LLVM: llvm.func internal @matmul_thread_loop0_work
// LLVM: llvm.atomicrmw add
// LLVM: llvm.call @matmul_thread_loop0_chunk
// LLVM: llvm.func internal @matmul_thread_loop0_launch
// LLVM: llvm.call @mlirAsyncRuntimeExecute
// LLVM: llvm.call @mlirAsyncRuntimeAwaitToken

// SERIAL-LABEL: llvm.func @matmul
// SERIAL-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
func.func @matmul(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
