// autodiff-opt --export differentiates and lowers (jit's stages) and writes the artefact: the
// library exports only the entry and its peak-bytes query, links no MLIR
// library, and its ctypes loader runs without site-packages (no MLIR, no numpy).
// REQUIRES: c-compiler
// RUN: rm -rf %t && mkdir -p %t
// RUN: autodiff-opt %s --export=%t/grad_loss --pass-pipeline='builtin.module(tad-jit-differentiate, tad-lower-to-linalg, tad-lower-to-llvm)'
// RUN: ls %t/grad_loss | FileCheck %s --check-prefix=FILES
// RUN: llvm-nm -D --defined-only %t/grad_loss/libgrad_loss.so | FileCheck %s --check-prefix=SYMBOLS
// RUN: llvm-readelf -d %t/grad_loss/libgrad_loss.so | FileCheck %s --check-prefix=DYNAMIC
// RUN: %python -I -S -c "import sys, array; sys.path.insert(0, sys.argv[1]); import grad_loss; v, g = grad_loss.grad_loss(array.array('d', [0.5, -1.0, 2.0, 0.0]), array.array('d', [1.0, 2.0, 3.0, 4.0])); print(grad_loss.numpy, v[0], list(g))" %t/grad_loss | FileCheck %s --check-prefix=OUT
// -o still prints the lowered module:
// RUN: autodiff-opt %s --export=%t/again --export-name=loss_grad -o %t/lowered.mlir --tad-differentiate --tad-inline --symbol-dce --tad-lower-to-linalg --tad-lower-to-llvm
// RUN: FileCheck %s --check-prefix=IR < %t/lowered.mlir
// RUN: FileCheck %s --check-prefix=HEADER < %t/again/loss_grad.h

// FILES: grad_loss.h
// FILES-NEXT: grad_loss.py
// FILES-NEXT: libgrad_loss.so
// FILES-NOT: libmlir

// SYMBOLS: T grad_loss{{$}}
// SYMBOLS-NEXT: T grad_loss_peak_bytes
// SYMBOLS-NOT: main

// DYNAMIC-NOT: libMLIR
// DYNAMIC: RUNPATH{{.*}}[$ORIGIN]

// loss = sum(x * w) * 2, at w: value 2 * (0.5 - 2 + 6) = 9, gradient 2 * x.
// OUT: None 9.0 [1.0, -2.0, 4.0, 0.0]

// IR: llvm.func @_mlir_ciface_main

// HEADER: void loss_grad(const double *in0 /* 4 */,
// HEADER-NEXT: const double *in1 /* 4 */,
// HEADER-NEXT: double *out0 /* scalar */,
// HEADER-NEXT: double *out1 /* 4 */);
// HEADER: uint64_t loss_grad_peak_bytes(void);

func.func @loss(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<f64> {
  %0 = arith.mulf %x, %w : tensor<4xf64>
  %1 = "tad.reduce_sum"(%0) {dimensions = array<i64: 0>} : (tensor<4xf64>) -> tensor<f64>
  %2 = arith.addf %1, %1 : tensor<f64>
  return %2 : tensor<f64>
}
func.func private @loss_vjp(tensor<4xf64>, tensor<4xf64>, tensor<f64>) -> (tensor<f64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @loss, wrt = array<i64: 1>}}
func.func @main(%x: tensor<4xf64>, %w: tensor<4xf64>) -> (tensor<f64>, tensor<4xf64>) {
  %one = arith.constant dense<1.0> : tensor<f64>
  %0:2 = call @loss_vjp(%x, %w, %one) : (tensor<4xf64>, tensor<4xf64>, tensor<f64>) -> (tensor<f64>, tensor<4xf64>)
  return %0#0, %0#1 : tensor<f64>, tensor<4xf64>
}
