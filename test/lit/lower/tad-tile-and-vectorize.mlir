// tad-tile-and-vectorize tiles each linalg op for threads, caches and vector
// registers (as the schedule chooser, passes/lower/schedule.py, says) and
// vectorizes it through the transform dialect.
// RUN: autodiff-opt %s --split-input-file '--tad-tile-and-vectorize=threads=4 vector-bits=512' | FileCheck %s

// An elementwise op: a row at a time, 64 lanes (one 512-bit register) per step.
// CHECK-LABEL: func.func @elementwise
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step %c1
// CHECK: scf.for %{{.*}} = %{{.*}} to %c256 step %c64
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<1x64xf32>, vector<64xf32>
// CHECK: %[[E:.*]] = math.exp %[[X]] : vector<64xf32>
// CHECK: vector.transfer_write %[[E]], {{.*}} : vector<64xf32>, tensor<1x64xf32>
// CHECK-NOT: linalg.generic
func.func @elementwise(%x: tensor<64x256xf32>, %y: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x256xf32>) outs(%y : tensor<64x256xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<64x256xf32>
  return %0 : tensor<64x256xf32>
}

// -----

// A matmul: an 8x32 accumulator tile, read once and kept in vector registers
// across the contracting loop, updated by one broadcast-FMA per row.
// CHECK-LABEL: func.func @matmul
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16 step %c8
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step %c32
// CHECK: %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: scf.for {{.*}} iter_args({{.*}}, %{{.*}} = %[[ACC]]) -> (tensor<8x32xf32>, vector<8x32xf32>)
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<8x32xf32>
// CHECK-NOT: linalg.contract
func.func @matmul(%a: tensor<16x32xf32>, %b: tensor<32x64xf32>, %c: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
                                        affine_map<(m, k, n) -> (m, n)>]
      ins(%a, %b : tensor<16x32xf32>, tensor<32x64xf32>) outs(%c : tensor<16x64xf32>) -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}

// -----

// Dynamic shapes: the op keeps its scalar loops.
// CHECK-LABEL: func.func @dynamic
// CHECK: linalg.generic
// CHECK: math.exp %{{.*}} : f32
func.func @dynamic(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]} ins(%x : tensor<?xf32>) outs(%y : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = math.exp %a : f32
    linalg.yield %e : f32
  } -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Enough work for threads: 16 chunks (four per thread) of 64 rows.
// CHECK-LABEL: func.func @threads
// CHECK: scf.forall (%{{.*}}) in (16) shared_outs
// CHECK: tensor.extract_slice {{.*}} [64, 1024] [1, 1]
// CHECK: arith.addf {{.*}} : vector<64xf32>
// CHECK: tensor.parallel_insert_slice {{.*}} [64, 1024] [1, 1]
func.func @threads(%x: tensor<1024x1024xf32>, %y: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                       iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1024x1024xf32>) outs(%y : tensor<1024x1024xf32>) {
  ^bb0(%a: f32, %b: f32):
    %e = arith.addf %a, %a : f32
    linalg.yield %e : f32
  } -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// A reduction along the innermost loop: four rows at a time, each accumulating
// 32 partial sums (two 512-bit registers of float32) across the loop in vector
// registers, then reduced across lanes once per row, after the loop.
// CHECK-LABEL: func.func @row_sums_of_squares
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16 step %c4
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<4x32xf32>
// CHECK: %[[SUMS:.*]] = scf.for %{{.*}} = %{{.*}} to %c256 step %c32 iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (vector<4x32xf32>)
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} : tensor<4x32xf32>, vector<4x32xf32>
// CHECK: %[[SQ:.*]] = arith.mulf %[[X]], %[[X]] : vector<4x32xf32>
// CHECK: %[[NEXT:.*]] = arith.addf %[[ACC]], %[[SQ]] : vector<4x32xf32>
// CHECK: scf.yield %[[NEXT]] : vector<4x32xf32>
// CHECK-COUNT-4: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<32xf32> into f32
// CHECK-NOT: linalg.generic
// CHECK-NOT: tensor.empty
func.func @row_sums_of_squares(%x: tensor<16x256xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]} ins(%x : tensor<16x256xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.mulf %a, %a : f32
    %t = arith.addf %acc, %s : f32
    linalg.yield %t : f32
  } -> tensor<16xf32>
  return %0 : tensor<16xf32>
}

// -----

// Partial results with no loop around them (two rows, one register tile): the
// reduction across lanes after the partial-result loop is lowered too.
// CHECK-LABEL: func.func @two_row_sums
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<2x16xf32>)
// CHECK-COUNT-2: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<16xf32> into f32
// CHECK-NOT: vector.multi_reduction
// CHECK: return
func.func @two_row_sums(%x: tensor<2x48xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x48xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %t = arith.addf %acc, %a : f32
    linalg.yield %t : f32
  } -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A row sum whose body reads its loop index (x + arange, fused) is not split
// into partial results: upstream's split left each index that of the lane
// within the tile (a sum of x + arange(24) added 0..7 three times).
// CHECK-LABEL: func.func @row_sums_reading_the_index
// CHECK-NOT: vector<2x16xf32>
// CHECK: vector.step : vector<48xindex>
// CHECK: vector.reduction <add>, %{{.*}}, %{{.*}} : vector<48xf32> into f32
// CHECK: return
func.func @row_sums_reading_the_index(%x: tensor<2x48xf32>, %init: tensor<2xf32>) -> tensor<2xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x48xf32>) outs(%init : tensor<2xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %i = linalg.index 1 : index
    %j = arith.index_cast %i : index to i32
    %f = arith.sitofp %j : i32 to f32
    %s = arith.addf %a, %f : f32
    %t = arith.addf %acc, %s : f32
    linalg.yield %t : f32
  } -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// A column sum (the middle loop reduced, the innermost one vector tile): the reduced
// loop steps inside the parallel one and the tile's accumulator is a vector it
// carries, read before it and written once after it.
// CHECK-LABEL: func.func @middle_sum
// CHECK: scf.for {{.*}} -> (tensor<16x64xf32>)
// CHECK: %[[ACC:.*]] = vector.transfer_read
// CHECK: scf.for {{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<1x64xf32>, vector<1x64xf32>)
// CHECK-NOT: vector.transfer_write
// CHECK: arith.addf %{{.*}}, %{{.*}} : vector<64xf32>
// CHECK: scf.yield
// CHECK: vector.transfer_write
func.func @middle_sum(%x: tensor<16x32x64xf32>, %init: tensor<16x64xf32>) -> tensor<16x64xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(a, r, c) -> (a, r, c)>, affine_map<(a, r, c) -> (a, c)>],
                       iterator_types = ["parallel", "reduction", "parallel"]}
      ins(%x : tensor<16x32x64xf32>) outs(%init : tensor<16x64xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16x64xf32>
  return %0 : tensor<16x64xf32>
}
