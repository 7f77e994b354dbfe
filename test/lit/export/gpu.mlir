// A GPU export (tad-lower-to-nvvm; no GPU needed to build it) is one library:
// the kernels' PTX and the mgpu* functions are inside, the CUDA driver is
// loaded at run time, and no MLIR, LLVM or CUDA library is linked or shipped.
// REQUIRES: c-compiler
// RUN: rm -rf %t && mkdir -p %t
// RUN: autodiff-opt %s --export=%t/gpu_mm --tad-lower-to-linalg --tad-lower-to-nvvm
// RUN: ls %t/gpu_mm | FileCheck %s --check-prefix=FILES
// RUN: llvm-nm -D %t/gpu_mm/libgpu_mm.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-readelf -d %t/gpu_mm/libgpu_mm.so | FileCheck %s --check-prefix=DYNAMIC
// RUN: FileCheck %s --check-prefix=HEADER < %t/gpu_mm/gpu_mm.h

// FILES: gpu_mm.h
// FILES-NEXT: gpu_mm.py
// FILES-NEXT: libgpu_mm.so
// FILES-NOT: lib

// SYMBOLS-NOT: mgpu
// SYMBOLS: U dlopen
// SYMBOLS-NOT: mgpu
// SYMBOLS: T gpu_mm{{$}}
// SYMBOLS-NEXT: T gpu_mm_gpu_error
// SYMBOLS-NEXT: T gpu_mm_peak_bytes
// SYMBOLS-NOT: mgpu

// DYNAMIC-NOT: libmlir
// DYNAMIC-NOT: libLLVM
// DYNAMIC-NOT: libcuda
// DYNAMIC: RUNPATH{{.*}}[$ORIGIN]

// HEADER: void gpu_mm(const float *in0 /* 64x32 */,
// HEADER: const char *gpu_mm_gpu_error(void);

func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %0 = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
      lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %1 = math.tanh %0 : tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}
