// tad-mlir-opt runs the mlir-opt of the installed mlir package (not on PATH
// after pip install) with the same arguments: upstream mlir-opt loads the tad
// dialect from its IRDL file.
// RUN: tad-mlir-opt --irdl-file=%irdl %s | FileCheck %s
// RUN: tad-mlir-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: %exit 1 tad-mlir-opt --no-such-flag %s

// CHECK-LABEL: func.func @f
// CHECK:       "tad.transpose"(%arg0) {permutation = array<i64: 1, 0>}
// VERSION: LLVM version
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
