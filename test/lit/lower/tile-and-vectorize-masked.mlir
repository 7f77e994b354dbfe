// A contraction whose register tile is no vector register shape (10 columns
// of float32 on AVX2's 8 lanes) is vectorized at 16 lanes with masks: the
// accumulator tile is read and written with a mask of 10 lanes, the streamed
// operand's row too, and the FMAs run on whole vector<16xf32> (LLVM took a
// vector<10xf32> apart lane by lane, with shuffles and spills in the loop).
// A tile of whole vectors gets no mask.
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg \
// RUN:   '--tad-tile-and-vectorize=threads=1 vector-bits=256' | FileCheck %s --check-prefix=TILED
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-linalg \
// RUN:   '--tad-lower-to-llvm=threads=1 vector-bits=256' | FileCheck %s --check-prefix=LLVM

// TILED-LABEL: func.func @logits
// TILED: scf.for %{{.*}} step %c4
// TILED: vector.transfer_read %{{.*}}, %{{.*}}, %[[TILE_MASK:.*]] {in_bounds = [true, true]} : tensor<4x10xf32>, vector<4x16xf32>
// TILED: scf.for
// TILED: vector.transfer_read %{{.*}}, %{{.*}}, %{{.*}} {in_bounds = [true]} : tensor<1x10xf32>, vector<16xf32>
// TILED-COUNT-4: vector.fma %{{.*}} : vector<16xf32>
// TILED: vector.transfer_write %{{.*}}, %[[TILE_MASK]] {in_bounds = [true, true]} : vector<4x16xf32>, tensor<4x10xf32>
// LLVM-LABEL: llvm.func @logits
// LLVM: llvm.intr.masked.load {{.*}} -> vector<16xf32>
// LLVM-COUNT-4: llvm.intr.fmuladd({{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>) -> vector<16xf32>
// LLVM: llvm.intr.masked.store {{.*}} : vector<16xf32>, vector<16xi1> into !llvm.ptr
func.func @logits(%h: tensor<128x512xf32>, %w: tensor<512x10xf32>) -> tensor<128x10xf32> {
  %0 = "tad.dot_general"(%h, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<128x512xf32>, tensor<512x10xf32>) -> tensor<128x10xf32>
  return %0 : tensor<128x10xf32>
}

// -----

// TILED-LABEL: func.func @whole_vectors
// TILED-NOT: vector<4x16xi1>
// TILED: vector.fma %{{.*}} : vector<16xf32>
// TILED-NOT: vector<4x16xi1>
// TILED: return
// LLVM-LABEL: llvm.func @whole_vectors
// LLVM-NOT: llvm.intr.masked
// LLVM: llvm.return
func.func @whole_vectors(%h: tensor<128x512xf32>, %w: tensor<512x16xf32>) -> tensor<128x16xf32> {
  %0 = "tad.dot_general"(%h, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
                                  lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<128x512xf32>, tensor<512x16xf32>) -> tensor<128x16xf32>
  return %0 : tensor<128x16xf32>
}
