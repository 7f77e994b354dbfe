// tad-native-gpu-math makes the libdevice calls in GPU kernels that NVPTX does exactly into
// LLVM intrinsics: __nv_sqrtf (sqrt.approx.f32 under libdevice's reflection) becomes
// llvm.intr.sqrt (sqrt.rn.f32, correctly rounded like numpy). Other calls stay, and a
// declaration left without calls is dropped.
// RUN: autodiff-opt %s --tad-native-gpu-math | FileCheck %s --implicit-check-not=__nv_sqrtf

// CHECK-LABEL: gpu.module @k
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK-LABEL: llvm.func @k
// CHECK-NEXT: %[[S:.*]] = llvm.intr.sqrt(%arg0) : (f32) -> f32
// CHECK-NEXT: %[[E:.*]] = llvm.call @__nv_expf(%[[S]]) : (f32) -> f32
// CHECK-NEXT: llvm.return %[[E]]
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.func @__nv_sqrtf(f32) -> f32
    llvm.func @__nv_expf(f32) -> f32
    llvm.func @k(%x: f32) -> f32 {
      %0 = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
      %1 = llvm.call @__nv_expf(%0) : (f32) -> f32
      llvm.return %1 : f32
    }
  }
}
