// --mlir-timing reports the time of every pass of the pipeline on stderr.
// RUN: autodiff-opt %s --cse --tad-verify --mlir-timing -o %t 2>&1 | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --cse --mlir-timing -o %t 2>&1 | FileCheck %s --check-prefix=ONCE

// CHECK: Execution time report
// CHECK: Total Execution Time
// CHECK-DAG: CSE
// CHECK-DAG: tad-verify
// CHECK: Total

// The report covers all chunks and is printed once.
// ONCE-COUNT-1: Execution time report
// ONCE-NOT: Execution time report
func.func @f() {
  return
}

// -----

func.func @g() {
  return
}
