// Parse errors print FILE:LINE:COL: error: MESSAGE with the source line, exit with status 1,
// and never show a Python traceback.
// RUN: %exit 1 autodiff-opt %s
// RUN: not autodiff-opt %s 2>&1 | FileCheck %s
// RUN: not autodiff-opt < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK-NOT: Traceback
// CHECK: parse-error.mlir:[[@LINE+6]]:8: error: custom op 'tad_transpose' is unknown
// CHECK-NEXT: {{^}}  %0 = tad_transpose %x
// CHECK-NEXT: {{^}}       ^
// CHECK-NOT: Traceback
// STDIN: <stdin>:[[@LINE+2]]:8: error: custom op 'tad_transpose' is unknown
func.func @f(%x: tensor<2x3xf32>) {
  %0 = tad_transpose %x
  return
}
