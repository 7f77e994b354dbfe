// Pass flags and --pass-pipeline mix tensorad and upstream passes.
// RUN: autodiff-opt %s --cse --tad-verify --canonicalize | FileCheck %s
// RUN: autodiff-opt %s -cse -canonicalize | FileCheck %s
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(cse, tad-verify, canonicalize)' | FileCheck %s
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(func.func(cse), tad-verify, canonicalize)' | FileCheck %s
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(func.func(cse,canonicalize))' | FileCheck %s
// Pass options, with spaces as in mlir-opt:
// RUN: autodiff-opt %s --cse --canonicalize='max-iterations=3 region-simplify=disabled' | FileCheck %s
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(cse, canonicalize{max-iterations=3 region-simplify=disabled})' | FileCheck %s
// Without passes the IR comes back unchanged:
// RUN: autodiff-opt %s | FileCheck %s --check-prefix=NONE
// Flags run in command-line order:
// RUN: autodiff-opt %s --canonicalize --cse --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s --check-prefix=ORDER
// The two ways to name passes do not mix, as in mlir-opt:
// RUN: %exit 1 autodiff-opt %s --cse --pass-pipeline='builtin.module(cse)'
// RUN: not autodiff-opt %s --cse --pass-pipeline='builtin.module(cse)' 2>&1 | FileCheck %s --check-prefix=MIX

// CHECK-LABEL: func.func @f
// CSE merges the two identical additions, canonicalize removes the dead constant;
// upstream passes leave tad ops alone.
// CHECK-NEXT: %[[T:.*]] = "tad.transpose"(%arg0) {permutation = array<i64: 1, 0>}
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[T]], %[[T]] : tensor<3x2xf32>
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[S]], %[[S]] : tensor<3x2xf32>
// CHECK-NEXT: return %[[M]]

// NONE-LABEL: func.func @f
// NONE: arith.constant
// NONE: arith.addf
// NONE: arith.addf
// NONE: arith.mulf

// ORDER: IR Dump After Canonicalizer (canonicalize)
// ORDER: IR Dump After CSE (cse)

// MIX: error: --pass-pipeline cannot be combined with pass flags
func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %c = arith.constant dense<1.0> : tensor<3x2xf32>
  %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %1 = arith.addf %0, %0 : tensor<3x2xf32>
  %2 = arith.addf %0, %0 : tensor<3x2xf32>
  %3 = arith.mulf %1, %2 : tensor<3x2xf32>
  return %3 : tensor<3x2xf32>
}
