// The gradient of an MLP layer's loss (matmul, bias, tanh, sum) w.r.t. its
// weights: every elementwise op, the bias add and both matmuls of the
// backward sweep are kernels (the two contractions through shared memory);
// the scalar loss is summed by the host code between launches, in managed
// memory. The module translates to LLVM IR (mlir-translate), where the
// kernels are loaded and launched through libmlir_cuda_runtime.so.
// RUN: autodiff-opt %s --tad-differentiate --tad-lower-to-linalg --tad-lower-to-nvvm | FileCheck %s
// RUN: autodiff-opt %s --tad-differentiate --tad-lower-to-linalg --tad-lower-to-nvvm \
// RUN:   | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR

// CHECK-LABEL: llvm.func {{.*}}@loss_vjp(
// CHECK-COUNT-5: gpu.launch_func
// CHECK: llvm.return
// CHECK-COUNT-2: .shared .align 4 .b8
// CHECK-NOT: __nv_

// LLVMIR-DAG: call ptr @mgpuModuleLoadJIT(
// LLVMIR-DAG: call ptr @mgpuModuleGetFunction(
// LLVMIR-DAG: call void @mgpuLaunchKernel(

func.func @loss(%x: tensor<64x32xf32>, %w: tensor<32x48xf32>, %b: tensor<48xf32>) -> tensor<f32> {
  %0 = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, rhs_batching_dimensions = array<i64>, rhs_contracting_dimensions = array<i64: 0>} : (tensor<64x32xf32>, tensor<32x48xf32>) -> tensor<64x48xf32>
  %1 = "tad.broadcast_in_dim"(%b) {broadcast_dimensions = array<i64: 1>} : (tensor<48xf32>) -> tensor<64x48xf32>
  %2 = arith.addf %0, %1 : tensor<64x48xf32>
  %3 = math.tanh %2 : tensor<64x48xf32>
  %4 = "tad.reduce_sum"(%3) {dimensions = array<i64: 0, 1>} : (tensor<64x48xf32>) -> tensor<f32>
  return %4 : tensor<f32>
}
func.func private @loss_vjp(tensor<64x32xf32>, tensor<32x48xf32>, tensor<48xf32>, tensor<f32>) -> (tensor<f32>, tensor<32x48xf32>)
    attributes {tad.vjp = {of = @loss, wrt = array<i64: 1>}}
