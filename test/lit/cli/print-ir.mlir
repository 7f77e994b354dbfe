// The --mlir-print-ir-* flags print the IR around passes on stderr, with mlir-opt's
// headers and meaning, for tensorad and upstream passes alike.
//
// Before / after the named passes only (a list, or the flag repeated):
// RUN: autodiff-opt %s --tad-simplify --canonicalize --cse --mlir-print-ir-before=cse,tad-simplify -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BEFORE --implicit-check-not='IR Dump'
// RUN: autodiff-opt %s --tad-simplify --canonicalize --cse --mlir-print-ir-after=canonicalize \
// RUN:   --mlir-print-ir-after tad-simplify -o %t 2>&1 | FileCheck %s --check-prefix=AFTER --implicit-check-not='IR Dump'
// Before every pass:
// RUN: autodiff-opt %s --tad-simplify --cse --mlir-print-ir-before-all -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=ALL --implicit-check-not='IR Dump'
// After a pass only when it changed the IR (tad-simplify drops the dead constant; cse then finds nothing):
// RUN: autodiff-opt %s --tad-simplify --cse --mlir-print-ir-after-all --mlir-print-ir-after-change -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=CHANGE --implicit-check-not='IR Dump'
// --mlir-print-ir-after-change alone selects no pass, so it prints nothing (as in mlir-opt):
// RUN: autodiff-opt %s --tad-simplify --mlir-print-ir-after-change -o %t 2>&1 | FileCheck %s --check-prefix=NONE --allow-empty
// The whole module for a pass nested on functions:
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(func.func(canonicalize))' --mlir-print-ir-before=canonicalize \
// RUN:   --mlir-print-ir-module-scope -o %t 2>&1 | FileCheck %s --check-prefix=SCOPE --implicit-check-not='IR Dump'
// After a pass only when it failed (the second chunk's declaration asks for an input that @h lacks):
// RUN: not autodiff-opt %s --split-input-file --tad-differentiate --mlir-print-ir-after-failure -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=FAILURE --implicit-check-not='IR Dump'

// BEFORE:      // -----// IR Dump Before tad-simplify (tad-simplify) //----- //
// BEFORE-NEXT: module {
// BEFORE:      arith.constant
// BEFORE:      // -----// IR Dump Before CSE (cse) //----- //
// BEFORE-NEXT: module {
// BEFORE-NOT:  arith.constant
// BEFORE:      "tad.reshape"

// AFTER: // -----// IR Dump After tad-simplify (tad-simplify) //----- //
// AFTER: // -----// IR Dump After Canonicalizer (canonicalize) //----- //

// ALL: // -----// IR Dump Before tad-simplify (tad-simplify) //----- //
// ALL: // -----// IR Dump Before CSE (cse) //----- //

// CHANGE: // -----// IR Dump After tad-simplify (tad-simplify) //----- //

// NONE-NOT: IR Dump

// SCOPE:      // -----// IR Dump Before Canonicalizer (canonicalize) ('func.func' operation: @f) //----- //
// SCOPE-NEXT: module {
// SCOPE:      // -----// IR Dump Before Canonicalizer (canonicalize) ('func.func' operation: @g) //----- //
// SCOPE-NEXT: module {
// SCOPE:      // -----// IR Dump Before Canonicalizer (canonicalize) ('func.func' operation: @h) //----- //
// SCOPE:      // -----// IR Dump Before Canonicalizer (canonicalize) ('func.func' operation: @h_vjp) //----- //

// FAILURE:      error: wrt index 2 is out of range
// FAILURE:      // -----// IR Dump After tad-differentiate Failed (tad-differentiate) //----- //
// FAILURE-NEXT: module {
// FAILURE:      func.func private @h_vjp
func.func @f(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %c = arith.constant 0 : i32
  %0 = "tad.reshape"(%x) : (tensor<2x3xf32>) -> tensor<6xf32>
  return %0 : tensor<6xf32>
}

func.func @g() {
  return
}

// -----

func.func @h(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @h_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @h, wrt = array<i64: 2>}}
