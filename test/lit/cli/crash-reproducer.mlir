// --mlir-pass-pipeline-crash-reproducer=FILE: when the pipeline fails (or
// crashes), FILE gets the IR it was given and the pipeline, in mlir-opt's
// reproducer format; --run-reproducer replays it, with its verify_each.
// RUN: rm -f %t.repro.mlir %t.none.mlir
// RUN: not autodiff-opt %s --tad-differentiate --verify-each=false \
// RUN:   --mlir-pass-pipeline-crash-reproducer=%t.repro.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: FileCheck %s --check-prefix=REPRO < %t.repro.mlir
// RUN: not autodiff-opt %t.repro.mlir --run-reproducer 2>&1 | FileCheck %s --check-prefix=REPLAY
// A pipeline that succeeds writes no reproducer:
// RUN: autodiff-opt %s --cse --mlir-pass-pipeline-crash-reproducer=%t.none.mlir -o %t
// RUN: %python -c "import os, sys; sys.exit(os.path.exists(sys.argv[1]))" %t.none.mlir
// Upstream mlir-opt reads the reproducer of an upstream pipeline, and fails the same way:
// RUN: not autodiff-opt %s --pass-pipeline='builtin.module(func.func(canonicalize{max-iterations=1 test-convergence=true}))' \
// RUN:   --mlir-pass-pipeline-crash-reproducer=%t.upstream.mlir 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// RUN: not tad-mlir-opt --irdl-file=%irdl %t.upstream.mlir --run-reproducer 2>&1 | FileCheck %s --allow-empty --check-prefix=MLIR-OPT
// A reproducer path that cannot be written is an error before anything runs:
// RUN: not autodiff-opt %s --cse --mlir-pass-pipeline-crash-reproducer=%t.missing/r.mlir 2>&1 | FileCheck %s --check-prefix=UNWRITABLE

// ERR:      crash-reproducer.mlir:[[# @LINE + 25]]:1: error: wrt index 2 is out of range
// ERR:      crash-reproducer.mlir: error: Failures have been detected while processing an MLIR pass pipeline
// ERR-NEXT: crash-reproducer.mlir: note: Pipeline failed: reproducer generated at `{{.*}}repro.mlir`
// ERR-NOT:  error

// REPRO:      func.func @f(
// REPRO:      "tad.reduce_sum"
// REPRO:      func.func private @f_vjp
// REPRO:      {-#
// REPRO-NEXT:   external_resources: {
// REPRO-NEXT:     mlir_reproducer: {
// REPRO-NEXT:       pipeline: "builtin.module(tad-differentiate)",
// REPRO-NEXT:       disable_threading: true,
// REPRO-NEXT:       verify_each: false

// REPLAY: error: wrt index 2 is out of range

// UPSTREAM: note: Pipeline failed: reproducer generated at
// MLIR-OPT-NOT: error
// UNWRITABLE: autodiff-opt: error: cannot write '{{.*}}missing/r.mlir': No such file or directory
func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %c = arith.constant 0 : i32
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 2>}}
