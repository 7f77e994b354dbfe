// f16 and bf16 elementwise code lowers to LLVM: f16 arithmetic and intrinsics on
// 16-bit vectors (LLVM legalizes them); bf16 ops in f32 (tad-round-bf16-on-bits):
// the bf16 bits widened by a shift, libm functions in f32, rounded back on the bits.
// RUN: autodiff-opt %s --tad-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @half
// CHECK: llvm.load {{.*}} -> vector<{{[0-9]+}}xf16>
// CHECK: llvm.intr.exp(%{{.*}}) : (vector<{{[0-9]+}}xf16>) -> vector<{{[0-9]+}}xf16>
// CHECK: llvm.fmul %{{.*}}, %{{.*}} : vector<{{[0-9]+}}xf16>
// CHECK: %[[BITS:.*]] = llvm.bitcast %{{.*}} : vector<8xbf16> to vector<8xi16>
// CHECK: %[[WIDE:.*]] = llvm.zext %[[BITS]] : vector<8xi16> to vector<8xi32>
// CHECK: llvm.shl %[[WIDE]], %{{.*}} : vector<8xi32>
// CHECK-COUNT-8: llvm.call @log1pf(%{{.*}}) : (f32) -> f32
// CHECK: llvm.trunc %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK: llvm.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK-NOT: llvm.fptrunc %{{.*}} to bf16
func.func @half(%x: tensor<8xf16>, %y: tensor<8xbf16>) -> (tensor<8xf16>, tensor<8xbf16>) {
  %0 = math.exp %x : tensor<8xf16>
  %1 = arith.mulf %0, %x : tensor<8xf16>
  %2 = math.log1p %y : tensor<8xbf16>
  return %1, %2 : tensor<8xf16>, tensor<8xbf16>
}
