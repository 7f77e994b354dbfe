// Export errors are diagnostics at the entry function (or at the input), with
// status 1 and no traceback.
// REQUIRES: c-compiler
// RUN: rm -rf %t && mkdir -p %t
// RUN: %exit 1 autodiff-opt %s --export=%t/a --entry=dynamic --tad-lower-to-linalg --tad-lower-to-llvm
// RUN: not autodiff-opt %s --export=%t/a --entry=dynamic --tad-lower-to-linalg --tad-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not autodiff-opt %s --export=%t/a --entry=half --tad-lower-to-linalg --tad-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=HALF
// RUN: not autodiff-opt %s --export=%t/a --entry=missing 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not autodiff-opt %s --export=%t/a 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: not autodiff-opt %s --export=%t/a --export-name=2x --tad-lower-to-linalg --tad-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=NAME
// RUN: echo > %t/file
// RUN: not autodiff-opt %s --export=%t/file/a --tad-lower-to-linalg --tad-lower-to-llvm 2>&1 | FileCheck %s --check-prefix=FOLDER
// RUN: not autodiff-opt %s --export=%t/a --split-input-file 2>&1 | FileCheck %s --check-prefix=SPLIT

// DYNAMIC-NOT: Traceback
// DYNAMIC: errors.mlir:[[# @LINE + 13]]:1: error: @dynamic argument 0 has type tensor<?xf64>; export takes statically shaped tensors of float32, float64, int32, int64, bool
// HALF: errors.mlir:[[# @LINE + 15]]:1: error: @half result 0 has type tensor<2xf16>; export takes
// MISSING: errors.mlir: error: the module has no func.func @missing to export
// UNLOWERED: errors.mlir:[[# @LINE + 6]]:1: error: the module is not lowered to the LLVM dialect (it holds func.func @main); lower it first
// NAME: error: export name '2x' must be a C identifier
// FOLDER: error: cannot create the export folder '{{.*}}file/a': Not a directory
// SPLIT: autodiff-opt: error: --export cannot be combined with --split-input-file
// CHECK-NOT: Traceback

func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = math.exp %x : tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func @dynamic(%x: tensor<?xf64>) -> tensor<?xf64> {
  return %x : tensor<?xf64>
}
func.func @half(%x: tensor<2xf32>) -> tensor<2xf16> {
  %0 = arith.truncf %x : tensor<2xf32> to tensor<2xf16>
  return %0 : tensor<2xf16>
}
