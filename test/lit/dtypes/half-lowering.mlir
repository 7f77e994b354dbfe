// f16 and bf16 elementwise code lowers to LLVM: arithmetic and intrinsics on
// 16-bit vectors (LLVM legalizes them), libm functions in f32, rounded back.
// RUN: autodiff-opt %s --tad-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @half
// CHECK: llvm.load {{.*}} -> vector<{{[0-9]+}}xf16>
// CHECK: llvm.intr.exp(%{{.*}}) : (vector<{{[0-9]+}}xf16>) -> vector<{{[0-9]+}}xf16>
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : vector<{{[0-9]+}}xf16>
// CHECK: llvm.fpext %{{.*}} : bf16 to f32
// CHECK-NEXT: llvm.call @log1pf(%{{.*}}) : (f32) -> f32
// CHECK-NEXT: llvm.fptrunc %{{.*}} : f32 to bf16
func.func @half(%x: tensor<8xf16>, %y: tensor<8xbf16>) -> (tensor<8xf16>, tensor<8xbf16>) {
  %0 = math.exp %x : tensor<8xf16>
  %1 = arith.mulf %0, %x : tensor<8xf16>
  %2 = math.log1p %y : tensor<8xbf16>
  return %1, %2 : tensor<8xf16>, tensor<8xbf16>
}
