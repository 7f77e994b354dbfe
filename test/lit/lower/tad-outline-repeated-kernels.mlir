// Repeated linalg ops become one private kernel each, called where they were; the caller,
// left with calls only, is optnone. A kernel takes bare pointers (llvm.bareptr): a call
// passes one pointer per buffer, not the buffer's exploded descriptor. Constants a body reads are copied into its kernel.
// Without enough repeats nothing changes. The whole pipeline then compiles each kernel once.
// RUN: autodiff-opt %s --split-input-file --tad-outline-repeated-kernels | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// CHECK-LABEL: func.func @chain
// CHECK-SAME: passthrough = ["noinline", "optnone"]
// CHECK: %[[A:.*]] = call @__tad_kernel_0(%{{.*}}, %{{.*}}) : (tensor<8x16xf64>, tensor<8x16xf64>) -> tensor<8x16xf64>
// CHECK: %[[B:.*]] = call @__tad_kernel_0(%[[A]], %{{.*}})
// CHECK: %[[C:.*]] = call @__tad_kernel_0(%[[B]], %{{.*}})
// CHECK: return %[[C]]
// CHECK: func.func private @__tad_kernel_0(%[[X:.*]]: tensor<8x16xf64>, %[[INIT:.*]]: tensor<8x16xf64>) -> tensor<8x16xf64>
// CHECK-SAME: attributes {llvm.bareptr, passthrough = ["noinline"]}
// CHECK: %[[HALF:.*]] = arith.constant 5.000000e-01 : f64
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<8x16xf64>) outs(%[[INIT]] : tensor<8x16xf64>)
// CHECK: arith.mulf %{{.*}}, %[[HALF]]
// CHECK: return %[[R]]
// CHECK-NOT: func.func private @__tad_kernel_1
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @chain(%x: tensor<8x16xf64>) -> tensor<8x16xf64> {
  %half = arith.constant 0.5 : f64
  %e = tensor.empty() : tensor<8x16xf64>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf64>) outs(%e : tensor<8x16xf64>) {
  ^bb0(%in: f64, %out: f64):
    %m = arith.mulf %in, %half : f64
    %t = math.tanh %m : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<8x16xf64>) outs(%e : tensor<8x16xf64>) {
  ^bb0(%in: f64, %out: f64):
    %m = arith.mulf %in, %half : f64
    %t = math.tanh %m : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<8x16xf64>) outs(%e : tensor<8x16xf64>) {
  ^bb0(%in: f64, %out: f64):
    %m = arith.mulf %in, %half : f64
    %t = math.tanh %m : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  return %2 : tensor<8x16xf64>
}

// -----

// Two different ops: nothing repeats, nothing moves.
// CHECK-LABEL: func.func @distinct
// CHECK-NOT: passthrough
// CHECK: linalg.exp
// CHECK: linalg.negf
// CHECK-NOT: call
func.func @distinct(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %0 = linalg.exp ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.negf ins(%0 : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// Same op, different attributes (the constant it reads): two kernels.
// CHECK-LABEL: func.func @two_kernels
// CHECK: call @__tad_kernel_0
// CHECK: call @__tad_kernel_0
// CHECK: call @__tad_kernel_1
// CHECK: call @__tad_kernel_1
// CHECK-DAG: func.func private @__tad_kernel_0(
// CHECK-DAG: func.func private @__tad_kernel_1(
// Elementwise fusion runs first in tad-lower-to-llvm (the chain above becomes one generic); these stay apart.
// LLVM-LABEL: llvm.func @two_kernels
// LLVM-SAME: passthrough = ["noinline", "optnone"]
// LLVM-COUNT-2: llvm.call @__tad_kernel_0(
// LLVM-COUNT-2: llvm.call @__tad_kernel_1(%{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr) -> ()
// LLVM-DAG: llvm.func @__tad_kernel_0({{.*}}passthrough = ["noinline"]
// LLVM-DAG: llvm.func @__tad_kernel_1(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {llvm.bareptr, passthrough = ["noinline"]
func.func @two_kernels(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  %c1 = arith.constant 1.0 : f32
  %c2 = arith.constant 2.0 : f32
  %a = linalg.fill ins(%c1 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %b = linalg.fill ins(%c1 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %0 = linalg.add ins(%x, %a : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %1 = linalg.add ins(%0, %b : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

// A kernel with an empty buffer keeps the descriptors (upstream lowers no bare pointer to one).
// CHECK-LABEL: func.func @empty_sums
// CHECK: func.func private @__tad_kernel_0(%{{.*}}: tensor<3x0xf64>, %{{.*}}: tensor<f64>) -> tensor<f64>
// CHECK-NOT: llvm.bareptr
// CHECK-SAME: passthrough = ["noinline"]
// LLVM-LABEL: llvm.func @empty_sums
// LLVM-COUNT-2: llvm.call @__tad_kernel_0(
// LLVM: llvm.func @__tad_kernel_0(
func.func @empty_sums(%x: tensor<3x0xf64>, %init: tensor<f64>) -> (tensor<f64>, tensor<f64>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]} ins(%x : tensor<3x0xf64>) outs(%init : tensor<f64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %out, %in : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> ()>],
                       iterator_types = ["reduction", "reduction"]} ins(%x : tensor<3x0xf64>) outs(%0 : tensor<f64>) {
  ^bb0(%in: f64, %out: f64):
    %s = arith.addf %out, %in : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  return %0, %1 : tensor<f64>, tensor<f64>
}

// -----

// A function that another one calls (a library's kernel, left with calls
// only) is not optnone: optnone functions become host code, which the
// kernels' code (here @caller's chunk that still computes) cannot call.
// CHECK-LABEL: func.func private @library_kernel
// CHECK-NOT: optnone
// CHECK-LABEL: func.func @caller
// CHECK-SAME: passthrough = ["noinline", "optnone"]
// CHECK: call @library_kernel
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func private @tad_lapack_dpotrf(%a: memref<4xf64>)
func.func private @library_kernel(%a: memref<4xf64>) {
  call @tad_lapack_dpotrf(%a) : (memref<4xf64>) -> ()
  return
}
func.func @caller(%x: tensor<8x16xf64>, %a: memref<4xf64>) -> tensor<8x16xf64> {
  %e = tensor.empty() : tensor<8x16xf64>
  call @library_kernel(%a) : (memref<4xf64>) -> ()
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<8x16xf64>) outs(%e : tensor<8x16xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = math.tanh %in : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<8x16xf64>) outs(%e : tensor<8x16xf64>) {
  ^bb0(%in: f64, %out: f64):
    %t = math.tanh %in : f64
    linalg.yield %t : f64
  } -> tensor<8x16xf64>
  return %1 : tensor<8x16xf64>
}
