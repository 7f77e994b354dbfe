// Input from a file or stdin, output to stdout or -o FILE.
// RUN: autodiff-opt %s -o %t && FileCheck %s < %t
// RUN: autodiff-opt < %s | FileCheck %s
// RUN: autodiff-opt - < %s | FileCheck %s
// RUN: autodiff-opt -o - %s | FileCheck %s
// A missing input file is a clear error with status 1:
// RUN: %exit 1 autodiff-opt %t.does-not-exist
// RUN: not autodiff-opt %t.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// Diagnostics name the input, or <stdin>:
// RUN: not autodiff-opt --one-shot-bufferize < %s 2>&1 | FileCheck %s --check-prefix=STDIN

// CHECK-LABEL: func.func @id
// CHECK: "tad.stop_gradient"(%arg0)
func.func @id(%x: tensor<4xf32>) -> tensor<4xf32> {
  // STDIN: <stdin>:[[@LINE+1]]:8: error: op was not bufferized
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// MISSING: autodiff-opt: error: cannot read input file '{{.*}}does-not-exist': No such file or directory
// MISSING-NOT: Traceback
