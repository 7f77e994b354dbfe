// --mlir-print-ir-after-all prints the IR after every pass of the pipeline on stderr,
// tensorad passes included; the implicit tad-verify after parsing is not printed.
// RUN: autodiff-opt %s --cse --tad-verify --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s
// RUN: autodiff-opt %s --cse --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s --check-prefix=IMPLICIT

// CHECK: // -----// IR Dump After CSE (cse) //----- //
// CHECK-NEXT: module {
// CHECK: "tad.reshape"
// CHECK: // -----// IR Dump After tad-verify (tad-verify) //----- //
// CHECK-NEXT: module {
// CHECK: "tad.reshape"

// IMPLICIT-NOT: IR Dump After tad-verify
// IMPLICIT: IR Dump After CSE
// IMPLICIT-NOT: IR Dump After tad-verify
func.func @f(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}
