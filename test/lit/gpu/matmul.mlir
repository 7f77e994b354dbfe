// A matmul kernel tiles its output 32 x 32 per block over 16 x 16 threads;
// each step of 16 along the contracted dim copies both operand tiles into
// workgroup (shared) memory, split over the block's threads, between
// barriers; the kernel text has .shared arrays and bar.sync.
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-lower-to-nvvm --mlir-print-ir-after-all -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MAPPED
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-lower-to-nvvm | FileCheck %s --check-prefix=PTX

// MAPPED-LABEL: IR Dump After tad-map-to-gpu
// The zero fill of the result comes first, then the matmul: 4 x 2 blocks of 16 x 16 threads.
// MAPPED: gpu.launch
// MAPPED: gpu.launch blocks({{.*}}) in (%{{.*}} = %c4{{[_0-9]*}}, %{{.*}} = %c2{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}) threads(
// MAPPED-SAME: workgroup(%{{.*}} : memref<16x32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32x16xf32, #gpu.address_space<workgroup>>)
// MAPPED: scf.for
// MAPPED: gpu.barrier
// MAPPED: linalg.copy {{.*}} outs({{.*}} #gpu.address_space<workgroup>>)
// MAPPED: gpu.barrier
// MAPPED: linalg.copy {{.*}} outs({{.*}} #gpu.address_space<workgroup>>)
// MAPPED: gpu.barrier
// MAPPED: linalg.contract {{.*}} ins({{.*}}#gpu.address_space<workgroup>>, {{.*}}#gpu.address_space<workgroup>>)
// MAPPED-LABEL: IR Dump After

// PTX: gpu.binary @matmul_kernel_0
// PTX-SAME: .target sm_90
// PTX-SAME: .visible .entry matmul_kernel(
// PTX-SAME: .shared .align 4 .b8 __wg_matmul_kernel_0[2048]
// PTX-SAME: bar.sync

func.func @matmul(%a: tensor<64x96xf32>, %b: tensor<96x128xf32>) -> tensor<64x128xf32> {
  %0 = "tad.dot_general"(%a, %b) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}
