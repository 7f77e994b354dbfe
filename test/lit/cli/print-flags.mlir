// Printing options: generic form, locations (named after the input), elided constants.
// RUN: autodiff-opt %s --mlir-print-op-generic | FileCheck %s --check-prefix=GENERIC
// RUN: autodiff-opt %s --mlir-print-debuginfo | FileCheck %s --check-prefix=DEBUG
// RUN: autodiff-opt --mlir-print-debuginfo < %s | FileCheck %s --check-prefix=STDIN
// RUN: autodiff-opt %s --mlir-elide-elementsattrs-if-larger=2 | FileCheck %s --check-prefix=ELIDE

// GENERIC: "builtin.module"() ({
// GENERIC: "func.func"() <{function_type = (tensor<4xf32>) -> tensor<4xf32>, sym_name = "f"}> ({
// GENERIC: "func.return"

// ELIDE: dense_resource<__elided__>
// ELIDE-NOT: 1.000000e+00
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  // DEBUG: "tad.stop_gradient"(%{{.*}}) : (tensor<4xf32>) -> tensor<4xf32> loc(#[[LOC:loc[0-9]*]])
  // DEBUG: #[[LOC]] = loc("{{.*}}print-flags.mlir":[[@LINE+2]]:8)
  // STDIN: loc("<stdin>":[[@LINE+1]]:8)
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = arith.addf %0, %c : tensor<4xf32>
  return %1 : tensor<4xf32>
}
