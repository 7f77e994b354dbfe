// A fused elementwise chain (broadcast add, tanh) becomes one kernel: 64
// threads along the contiguous dim (#gpu.block<x> on the innermost loop), 4
// rows per block; the arguments are copied to managed memory first. tanh is
// libdevice's, linked and inlined (no call left), and the kernel is PTX for sm_90.
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-lower-to-nvvm | FileCheck %s --implicit-check-not=__nv_
// RUN: autodiff-opt %s --tad-lower-to-linalg --tad-lower-to-nvvm=chip=sm_80 | FileCheck %s --check-prefix=SM80

// CHECK-LABEL: llvm.func @f(
// CHECK-COUNT-2: llvm.call @mgpuMemcpy
// CHECK: gpu.launch_func @f_kernel::@f_kernel blocks in (%{{.*}}, %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) : i64 args(
// CHECK: llvm.call @mgpuMemFree
// CHECK: gpu.binary @f_kernel [#gpu.object<#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">
// CHECK-SAME: .version 8.0
// CHECK-SAME: .target sm_90
// CHECK-SAME: .visible .entry f_kernel(
// CHECK-NOT: .extern
// CHECK-SAME: ret;

// SM80: chip = "sm_80", features = "+ptx70"
// SM80-SAME: .version 7.0
// SM80-SAME: .target sm_80

func.func @f(%x: tensor<64x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %0 = "tad.broadcast_in_dim"(%b) {broadcast_dimensions = array<i64: 1>} : (tensor<128xf32>) -> tensor<64x128xf32>
  %1 = arith.addf %x, %0 : tensor<64x128xf32>
  %2 = math.tanh %1 : tensor<64x128xf32>
  return %2 : tensor<64x128xf32>
}
