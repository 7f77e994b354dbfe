// --mlir-pass-statistics reports the statistics of the passes on stderr: per pass
// in the pipeline's nesting (the default display), or summed per pass with
// --mlir-pass-statistics-display=list. tensorad passes have none to report.
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(func.func(cse),tad-simplify,cse)' --mlir-pass-statistics -o %t 2>&1 \
// RUN:   | FileCheck %s --check-prefix=PIPELINE
// RUN: autodiff-opt %s --pass-pipeline='builtin.module(func.func(cse),tad-simplify,cse)' --mlir-pass-statistics \
// RUN:   --mlir-pass-statistics-display=list -o %t 2>&1 | FileCheck %s --check-prefix=LIST
// RUN: not autodiff-opt %s --cse --mlir-pass-statistics-display=table 2>&1 | FileCheck %s --check-prefix=BAD

// PIPELINE:      Pass statistics report
// PIPELINE:      'func.func' Pipeline
// PIPELINE-NEXT:   CSE
// PIPELINE-NEXT:     (S) {{[1-9][0-9]*}} num-cse'd
// PIPELINE:      tad-simplify
// PIPELINE-NEXT: CSE
// PIPELINE-NEXT:   (S) 0 num-cse'd

// LIST:     Pass statistics report
// LIST-NOT: Pipeline
// LIST:     CSE
// LIST-NEXT: (S) {{[1-9][0-9]*}} num-cse'd
// LIST-NOT: tad-simplify

// BAD: autodiff-opt: error: argument --mlir-pass-statistics-display: invalid choice: 'table'
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %x, %x : tensor<4xf32>
  %1 = arith.addf %x, %x : tensor<4xf32>
  %2 = arith.mulf %0, %1 : tensor<4xf32>
  return %2 : tensor<4xf32>
}
