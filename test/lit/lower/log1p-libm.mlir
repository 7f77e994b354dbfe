// math.log1p lowers to libm's log1p, not to log(1 + x), which loses every
// digit of a tiny x (log1p(1e-20) would be 0).
// RUN: autodiff-opt %s --tad-lower-to-llvm | FileCheck %s

// CHECK-LABEL: llvm.func @tiny_logs
// CHECK: llvm.call @log1p(%{{.*}}) : (f64) -> f64
// CHECK-NOT: llvm.intr.log(
func.func @tiny_logs(%x: tensor<f64>) -> tensor<f64> {
  %0 = math.log1p %x : tensor<f64>
  return %0 : tensor<f64>
}
