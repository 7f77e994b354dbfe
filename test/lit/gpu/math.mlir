// RUN: autodiff-opt %s --split-input-file --tad-lower-to-nvvm | FileCheck %s --implicit-check-not=__nv_ --implicit-check-not=.extern

// Every math op tensorad's lowerings put in a kernel compiles to PTX with no
// external call, float32 and float64: libdevice's __nv_* functions are linked
// by gpu-module-to-binary from the copy embedded in the MLIR package (no CUDA
// toolkit needed) and inlined; an unresolved one would be a `.extern .func`
// that the driver refuses to load.

// Exponentials and logarithms: libdevice's __nv_exp/log/log1p/expm1/tanh are
// linked and inlined.
// CHECK-LABEL: gpu.binary @exp_f32_kernel
// CHECK-SAME: .visible .entry exp_f32_kernel(
// CHECK-LABEL: gpu.binary @exp_f64_kernel
// CHECK-SAME: .visible .entry exp_f64_kernel(
// CHECK-LABEL: gpu.binary @log_f32_kernel
// CHECK-SAME: .visible .entry log_f32_kernel(
// CHECK-LABEL: gpu.binary @log_f64_kernel
// CHECK-SAME: .visible .entry log_f64_kernel(
// CHECK-LABEL: gpu.binary @log1p_f32_kernel
// CHECK-SAME: .visible .entry log1p_f32_kernel(
// CHECK-LABEL: gpu.binary @log1p_f64_kernel
// CHECK-SAME: .visible .entry log1p_f64_kernel(
// CHECK-LABEL: gpu.binary @expm1_f32_kernel
// CHECK-SAME: .visible .entry expm1_f32_kernel(
// CHECK-LABEL: gpu.binary @expm1_f64_kernel
// CHECK-SAME: .visible .entry expm1_f64_kernel(
// CHECK-LABEL: gpu.binary @tanh_f32_kernel
// CHECK-SAME: .visible .entry tanh_f32_kernel(
// CHECK-LABEL: gpu.binary @tanh_f64_kernel
// CHECK-SAME: .visible .entry tanh_f64_kernel(

func.func @exp_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.exp %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @exp_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.exp %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @log_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.log %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @log_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.log %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @log1p_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.log1p %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @log1p_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.log1p %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @expm1_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.expm1 %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @expm1_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.expm1 %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @tanh_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.tanh %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @tanh_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.tanh %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}

// -----
// Trigonometry: __nv_sin/cos/tan/atan2; float64 sin and cos keep libdevice's
// Payne-Hanek slow path as a PTX function of the module, not an external call.
// CHECK-LABEL: gpu.binary @sin_f32_kernel
// CHECK-SAME: .visible .entry sin_f32_kernel(
// CHECK-LABEL: gpu.binary @sin_f64_kernel
// CHECK-SAME: .visible .entry sin_f64_kernel(
// CHECK-LABEL: gpu.binary @cos_f32_kernel
// CHECK-SAME: .visible .entry cos_f32_kernel(
// CHECK-LABEL: gpu.binary @cos_f64_kernel
// CHECK-SAME: .visible .entry cos_f64_kernel(
// CHECK-LABEL: gpu.binary @tan_f32_kernel
// CHECK-SAME: .visible .entry tan_f32_kernel(
// CHECK-LABEL: gpu.binary @tan_f64_kernel
// CHECK-SAME: .visible .entry tan_f64_kernel(
// CHECK-LABEL: gpu.binary @atan2_f32_kernel
// CHECK-SAME: .visible .entry atan2_f32_kernel(
// CHECK-LABEL: gpu.binary @atan2_f64_kernel
// CHECK-SAME: .visible .entry atan2_f64_kernel(

func.func @sin_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.sin %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @sin_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.sin %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @cos_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.cos %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @cos_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.cos %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @tan_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.tan %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @tan_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.tan %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @atan2_f32(%x: tensor<256xf32>, %y: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.atan2 %x, %y : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @atan2_f64(%x: tensor<256xf64>, %y: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.atan2 %x, %y : tensor<256xf64>
  return %0 : tensor<256xf64>
}

// -----
// Roots and powers: sqrt is the correctly rounded sqrt.rn (tad-native-gpu-math; libdevice's
// float32 sqrt would be sqrt.approx), rsqrt and powf come from libdevice.
// CHECK-LABEL: gpu.binary @sqrt_f32_kernel
// CHECK-SAME: .visible .entry sqrt_f32_kernel(
// CHECK-SAME: sqrt.rn.f32
// CHECK-LABEL: gpu.binary @sqrt_f64_kernel
// CHECK-SAME: .visible .entry sqrt_f64_kernel(
// CHECK-SAME: sqrt.rn.f64
// CHECK-LABEL: gpu.binary @rsqrt_f32_kernel
// CHECK-SAME: .visible .entry rsqrt_f32_kernel(
// CHECK-LABEL: gpu.binary @rsqrt_f64_kernel
// CHECK-SAME: .visible .entry rsqrt_f64_kernel(
// CHECK-LABEL: gpu.binary @powf_f32_kernel
// CHECK-SAME: .visible .entry powf_f32_kernel(
// CHECK-LABEL: gpu.binary @powf_f64_kernel
// CHECK-SAME: .visible .entry powf_f64_kernel(

func.func @sqrt_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.sqrt %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @sqrt_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.sqrt %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @rsqrt_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.rsqrt %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @rsqrt_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.rsqrt %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @powf_f32(%x: tensor<256xf32>, %y: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.powf %x, %y : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @powf_f64(%x: tensor<256xf64>, %y: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.powf %x, %y : tensor<256xf64>
  return %0 : tensor<256xf64>
}

// -----
// Native instructions: abs.f32/f64 and the cvt rounding modes.
// CHECK-LABEL: gpu.binary @absf_f32_kernel
// CHECK-SAME: .visible .entry absf_f32_kernel(
// CHECK-SAME: abs.f32
// CHECK-LABEL: gpu.binary @absf_f64_kernel
// CHECK-SAME: .visible .entry absf_f64_kernel(
// CHECK-SAME: abs.f64
// CHECK-LABEL: gpu.binary @floor_f32_kernel
// CHECK-SAME: .visible .entry floor_f32_kernel(
// CHECK-SAME: cvt.rmi.f32.f32
// CHECK-LABEL: gpu.binary @floor_f64_kernel
// CHECK-SAME: .visible .entry floor_f64_kernel(
// CHECK-SAME: cvt.rmi.f64.f64
// CHECK-LABEL: gpu.binary @ceil_f32_kernel
// CHECK-SAME: .visible .entry ceil_f32_kernel(
// CHECK-SAME: cvt.rpi.f32.f32
// CHECK-LABEL: gpu.binary @ceil_f64_kernel
// CHECK-SAME: .visible .entry ceil_f64_kernel(
// CHECK-SAME: cvt.rpi.f64.f64
// CHECK-LABEL: gpu.binary @roundeven_f32_kernel
// CHECK-SAME: .visible .entry roundeven_f32_kernel(
// CHECK-SAME: cvt.rni.f32.f32
// CHECK-LABEL: gpu.binary @roundeven_f64_kernel
// CHECK-SAME: .visible .entry roundeven_f64_kernel(
// CHECK-SAME: cvt.rni.f64.f64

func.func @absf_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.absf %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @absf_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.absf %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @floor_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.floor %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @floor_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.floor %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @ceil_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.ceil %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @ceil_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.ceil %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}
func.func @roundeven_f32(%x: tensor<256xf32>) -> tensor<256xf32> {
  %0 = math.roundeven %x : tensor<256xf32>
  return %0 : tensor<256xf32>
}
func.func @roundeven_f64(%x: tensor<256xf64>) -> tensor<256xf64> {
  %0 = math.roundeven %x : tensor<256xf64>
  return %0 : tensor<256xf64>
}

// -----
// Integer power: convert-math-to-funcs runs before kernel outlining, so the
// kernel gets its own copy of the helper function.
// CHECK-LABEL: gpu.binary @ipowi_i32_kernel
// CHECK-SAME: .visible .entry ipowi_i32_kernel(
// CHECK-SAME: mul.lo.s32
// CHECK-LABEL: gpu.binary @absi_i64_kernel
// CHECK-SAME: .visible .entry absi_i64_kernel(
// CHECK-SAME: abs.s64

func.func @ipowi_i32(%x: tensor<256xi32>, %y: tensor<256xi32>) -> tensor<256xi32> {
  %0 = math.ipowi %x, %y : tensor<256xi32>
  return %0 : tensor<256xi32>
}
func.func @absi_i64(%x: tensor<256xi64>) -> tensor<256xi64> {
  %0 = math.absi %x : tensor<256xi64>
  return %0 : tensor<256xi64>
}
