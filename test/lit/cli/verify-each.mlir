// --verify-each (mlir-opt's default: true) verifies the IR after every pass;
// --verify-each=false turns that off. Like LLVM's boolean flags it takes a value
// only after '=', so a bare --verify-each never swallows the input's name.
// RUN: autodiff-opt --verify-each %s --tad-simplify | FileCheck %s
// RUN: autodiff-opt %s --verify-each=false --tad-simplify | FileCheck %s
// RUN: autodiff-opt %s --verify-each=0 --verify-each=TRUE --tad-simplify | FileCheck %s
// RUN: not autodiff-opt %s --verify-each=maybe --tad-simplify 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK-LABEL: func.func @f
// CHECK-NEXT:  return %arg0
// BAD: autodiff-opt: error: argument --verify-each: 'maybe' is not a boolean: use true or false
func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "tad.stop_gradient"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %x : tensor<4xf32>
}
