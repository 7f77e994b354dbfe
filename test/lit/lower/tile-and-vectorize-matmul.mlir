// A matmul's streamed operand is packed (tad-pack-streamed-operands) into
// panels of 32 columns (each panel contiguous, so the kernel's loads do not
// hit the same L1 sets row after row); the matmul is split over threads
// (scf.forall), tiled for L2 (256 x 512 blocks of the packed operand) and for
// registers, and vectorized: an 8x32
// accumulator tile stays in vector registers across the contracting loop,
// updated by one broadcast-FMA per row. In the LLVM
// dialect the chunks run on the async runtime's threads, taking chunk indices
// from an atomic counter.
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-pack-streamed-operands=vector-bits=512 \
// RUN:   '--tad-tile-and-vectorize=threads=2 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=TILED
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-lower-to-llvm=threads=2 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=LLVM
// Without threads there is no thread loop and no runtime call:
// RUN: autodiff-opt %s --tad-lower-to-linalg '--tad-lower-to-llvm=threads=1 vector-bits=512' \
// RUN:   | FileCheck %s --check-prefix=SERIAL --implicit-check-not=mlirAsyncRuntime

// LLVM's unroller and loop vectorizer are kept off the tile loops around the innermost one (each of
// their copies would copy the nest inside):
// TILED: #[[NO_UNROLL:.*]] = #llvm.loop_unroll<disable = true>
// TILED: #[[NO_VECTORIZE:.*]] = #llvm.loop_vectorize<disable = true>
// TILED: #[[OUTER_TILE_LOOP:.*]] = #llvm.loop_annotation<vectorize = #[[NO_VECTORIZE]], unroll = #[[NO_UNROLL]]>
// TILED-LABEL: func.func @matmul
// The zero fill of the result is an elementwise op of its own: threads, then 64-lane stores.
// TILED: scf.forall (%{{.*}}) in (4) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x1024xf32>)
// TILED: vector.transfer_write %{{.*}} : vector<64xf32>, tensor<1x64xf32>
// The packing copy P[j / 32, k, j % 32] = B[k, j], threaded over the panels:
// TILED: tensor.expand_shape %arg1 {{\[}}[0], [1, 2]] output_shape [512, 32, 32] : tensor<512x1024xf32> into tensor<512x32x32xf32>
// TILED: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<32x512x32xf32>)
// A row of a panel at a time (a copy of 32 contiguous elements):
// TILED: tensor.insert_slice %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}, 0] [1, 1, 32] [1, 1, 1] : tensor<1x1x32xf32> into tensor<16x512x32xf32>
// The result is written as C[i, j / 32, j % 32], the same buffer:
// TILED: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2]] output_shape [256, 32, 32] : tensor<256x1024xf32> into tensor<256x32x32xf32>
// TILED: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x32x32xf32>)
// TILED: scf.for %{{.*}} = %{{.*}} to %c32 step %c16
// TILED: scf.for %{{.*}} = %{{.*}} to %c512 step %c256
// TILED: scf.for %{{.*}} = %{{.*}} to %c128 step %c8
// TILED: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1
// TILED: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x1x32xf32>, vector<8x1x32xf32>
// TILED: scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[ACC]]) -> (tensor<8x1x32xf32>, vector<8x1x32xf32>)
// TILED-COUNT-8: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>
// The contracting loop is not marked (unrolling it copies one register tile):
// TILED: scf.yield %{{.*}}, %{{.*}} : tensor<8x1x32xf32>, vector<8x1x32xf32>
// TILED-NEXT: }{{$}}
// TILED-COUNT-4: } {loop_annotation = #[[OUTER_TILE_LOOP]]}
// TILED-NEXT: scf.forall.in_parallel
// TILED: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2]] : tensor<256x32x32xf32> into tensor<256x1024xf32>

// A transposed streamed operand (a backward matmul's δ·Wᵀ) is packed from W in
// one copy, 16x16 blocks transposed in registers:
// TILED-LABEL: func.func @matmul_transposed
// TILED-NOT: tensor<512x1024xf32>
// TILED: tensor.expand_shape %arg1 {{\[}}[0, 1], [2]] output_shape [32, 32, 512] : tensor<1024x512xf32> into tensor<32x32x512xf32>
// TILED: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<32x512x32xf32>)
// TILED: vector.shuffle
// TILED: scf.forall (%{{.*}}) in (2) shared_outs(%{{.*}} = %{{.*}}) -> (tensor<256x32x32xf32>)
// TILED-COUNT-8: vector.fma %{{.*}}, %{{.*}}, %{{.*}} : vector<32xf32>

// The marks are LLVM loop metadata on the back edges:
// LLVM: #[[OUTER:.*]] = #llvm.loop_annotation<vectorize = #{{.*}}, unroll = #{{.*}}>
// LLVM: llvm.func internal @matmul_thread_loop0_chunk
// LLVM: llvm.br ^{{.*}} {loop_annotation = #[[OUTER]]}
// LLVM: llvm.func internal @matmul_thread_loop2_chunk
// LLVM-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
// LLVM: llvm.func internal @__tad_launch
// LLVM: llvm.call @mlirAsyncRuntimeExecute
// LLVM: llvm.call @mlirAsyncRuntimeAwaitToken
// LLVM: llvm.func internal @matmul_thread_loop0_work
// LLVM: llvm.atomicrmw add
// LLVM: llvm.call @matmul_thread_loop0_chunk
// LLVM: llvm.func internal @matmul_thread_loop0_launch
// LLVM: llvm.call @__tad_launch

// SERIAL-LABEL: llvm.func @matmul
// SERIAL-COUNT-8: llvm.intr.fmuladd({{.*}}) : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
func.func @matmul(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>) -> tensor<256x1024xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<256x512xf32>, tensor<512x1024xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}

func.func @matmul_transposed(%a: tensor<256x512xf32>, %w: tensor<1024x512xf32>) -> tensor<256x1024xf32> {
  %0 = "tad.dot_general"(%a, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 1>}
      : (tensor<256x512xf32>, tensor<1024x512xf32>) -> tensor<256x1024xf32>
  return %0 : tensor<256x1024xf32>
}
