// --help lists the tool's options and every registered tensorad pass with its summary.
// RUN: autodiff-opt --help | FileCheck %s
// RUN: %exit 0 autodiff-opt --help

// CHECK: usage: autodiff-opt
// CHECK-DAG: --pass-pipeline
// CHECK-DAG: --split-input-file
// CHECK-DAG: --verify-diagnostics
// CHECK-DAG: --mlir-print-ir-after-all
// CHECK-DAG: --mlir-timing
// CHECK: tensorad passes
// CHECK-DAG: --tad-verify {{ *}}Check the shape and attribute rules of every tad op
// CHECK-DAG: --tad-simplify {{ *}}CSE, DCE and folding of tad ops
// CHECK-DAG: --tad-lower-to-linalg {{ *}}Lower tad ops to linalg
// CHECK-DAG: --tad-lower-to-llvm {{ *}}(pipeline)
// CHECK: upstream MLIR pass
