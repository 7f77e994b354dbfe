// An optnone function longer than twice `length` ops becomes a chain of chunk functions; values cross
// them through a frame on the caller's stack: a static buffer as its two pointers, a dynamic one as its
// descriptor, an index as i64. A slot is reused once its last reader has loaded it.
// RUN: autodiff-opt %s --split-input-file --tad-split-long-functions="length=2 optimized-length=3" | FileCheck %s

func.func private @kernel(memref<4xf64>, memref<4xf64>) attributes {llvm.bareptr, passthrough = ["noinline"]}

// CHECK-LABEL: func.func @calls(
// CHECK: %[[FRAME:.*]] = llvm.alloca %{{.*}} x !llvm.array<10 x i64>
// CHECK: llvm.extractvalue %{{.*}}[0]
// CHECK-NEXT: %[[ARG_ALLOCATED:.*]] = llvm.getelementptr %[[FRAME]][0]
// CHECK-NEXT: llvm.store %{{.*}}, %[[ARG_ALLOCATED]]
// CHECK: %[[N:.*]] = arith.index_cast %arg1 : index to i64
// CHECK-NEXT: %[[N_SLOT:.*]] = llvm.getelementptr %[[FRAME]][2]
// CHECK-NEXT: llvm.store %[[N]], %[[N_SLOT]] : i64
// CHECK-NEXT: call @calls__chunk_0(%[[FRAME]])
// CHECK-NEXT: call @calls__chunk_1(%[[FRAME]])
// CHECK-NEXT: call @calls__chunk_2(%[[FRAME]])
// CHECK-NEXT: call @calls__chunk_3(%[[FRAME]])
// CHECK-NEXT: %[[D_SLOT:.*]] = llvm.getelementptr %[[FRAME]][5]
// CHECK-NEXT: %[[D:.*]] = llvm.load %[[D_SLOT]] : !llvm.ptr -> !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-NEXT: %[[RESULT:.*]] = builtin.unrealized_conversion_cast %[[D]]{{.*}} to memref<?xf64>
// CHECK-NEXT: return %[[RESULT]]
// CHECK-LABEL: func.func private @calls__chunk_0(
// CHECK-SAME: %[[F:.*]]: !llvm.ptr) attributes {passthrough = ["noinline", "optnone"]}
// CHECK: llvm.insertvalue %{{.*}}[3, 0]
// CHECK: llvm.getelementptr %[[F]][0]
// CHECK: llvm.getelementptr %[[F]][1]
// CHECK: %[[ARG:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<4xf64>
// CHECK-NEXT: %[[A:.*]] = memref.alloc() : memref<4xf64>
// CHECK-NEXT: call @kernel(%[[ARG]], %[[A]])
// CHECK-NEXT: builtin.unrealized_conversion_cast %[[A]]
// CHECK: llvm.getelementptr %[[F]][0]
// CHECK: llvm.getelementptr %[[F]][1]
// CHECK: return
// CHECK-LABEL: func.func private @calls__chunk_1(
// CHECK: memref.alloc() : memref<4xf64>
// CHECK: llvm.getelementptr %{{.*}}[3]
// CHECK: llvm.getelementptr %{{.*}}[4]
// CHECK-LABEL: func.func private @calls__chunk_2(
// CHECK: memref.dealloc
// CHECK-NEXT: %[[DYNAMIC:.*]] = memref.alloc(%{{.*}}) : memref<?xf64>
// CHECK-NEXT: %[[DESCRIPTOR:.*]] = builtin.unrealized_conversion_cast %[[DYNAMIC]]
// CHECK-NEXT: %[[SLOT:.*]] = llvm.getelementptr %{{.*}}[5]
// CHECK-NEXT: llvm.store %[[DESCRIPTOR]], %[[SLOT]] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
// CHECK-LABEL: func.func private @calls__chunk_3(
// CHECK: memref.dealloc
// CHECK-NEXT: return
func.func @calls(%arg0: memref<4xf64>, %n: index) -> memref<?xf64> attributes {passthrough = ["noinline", "optnone"]} {
  %a = memref.alloc() : memref<4xf64>
  call @kernel(%arg0, %a) : (memref<4xf64>, memref<4xf64>) -> ()
  %b = memref.alloc() : memref<4xf64>
  call @kernel(%a, %b) : (memref<4xf64>, memref<4xf64>) -> ()
  memref.dealloc %a : memref<4xf64>
  %d = memref.alloc(%n) : memref<?xf64>
  memref.dealloc %b : memref<4xf64>
  return %d : memref<?xf64>
}

// -----

// A function LLVM optimizes no longer than twice `optimized-length` ops (nested ones counted), one no
// longer than twice `length`, and one that passes a vector between chunks (no slot holds one) stay whole.
// CHECK-LABEL: func.func @optimized
// CHECK-NOT: call @optimized__chunk
// CHECK-LABEL: func.func @short
// CHECK-NOT: call @short__chunk
// CHECK-LABEL: func.func @vectors
// CHECK-NOT: call @vectors__chunk
// CHECK: return
func.func @optimized(%x: f64) -> f64 {
  %0 = arith.addf %x, %x : f64
  %1 = arith.addf %0, %x : f64
  %2 = arith.addf %1, %x : f64
  %3 = arith.addf %2, %x : f64
  return %3 : f64
}
func.func @short(%x: f64) -> f64 attributes {passthrough = ["noinline", "optnone"]} {
  %0 = arith.addf %x, %x : f64
  %1 = arith.addf %0, %x : f64
  %2 = arith.addf %1, %x : f64
  %3 = arith.addf %2, %x : f64
  return %3 : f64
}
func.func @vectors(%x: vector<4xf64>) -> vector<4xf64> attributes {passthrough = ["noinline", "optnone"]} {
  %0 = arith.addf %x, %x : vector<4xf64>
  %1 = arith.addf %0, %x : vector<4xf64>
  %2 = arith.addf %1, %x : vector<4xf64>
  %3 = arith.addf %2, %x : vector<4xf64>
  %4 = arith.addf %3, %x : vector<4xf64>
  return %4 : vector<4xf64>
}

// -----

// A long function LLVM optimizes becomes chunks of at least `optimized-length` ops, a loop nest counted
// with what it holds and a constant for nothing, that stay optimizable (noinline only). A constant, a
// vector one too, is not passed through the frame: each chunk that reads it makes its own. No chunk ends
// between a loop that carries a vector out (no slot holds one) and the reader of that vector.
// CHECK-LABEL: func.func @loops(
// CHECK: llvm.alloca %{{.*}} x !llvm.array<4 x i64>
// CHECK: call @loops__chunk_0(
// CHECK-NEXT: call @loops__chunk_1(
// CHECK-NEXT: call @loops__chunk_2(
// CHECK-NEXT: call @loops__chunk_3(
// CHECK-NOT: call @loops__chunk
// CHECK: return
// CHECK-LABEL: func.func private @loops__chunk_0(
// CHECK-SAME: attributes {passthrough = ["noinline"]}
// CHECK: arith.constant dense<1.000000e+00> : vector<4xf64>
// CHECK: scf.for
// CHECK: vector.transfer_write
// CHECK-LABEL: func.func private @loops__chunk_1(
// CHECK-SAME: attributes {passthrough = ["noinline"]}
// CHECK: %[[ONES:.*]] = arith.constant dense<1.000000e+00> : vector<4xf64>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ONES]]) -> (vector<4xf64>)
// CHECK: vector.transfer_write %[[SUM]]
// CHECK-LABEL: func.func private @loops__chunk_2(
// CHECK: memref.dealloc
// CHECK: memref.copy
// CHECK-LABEL: func.func private @loops__chunk_3(
// CHECK: memref.dealloc
// CHECK-NEXT: return
func.func @loops(%x: memref<4xf64>) -> memref<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 0.0 : f64
  %ones = arith.constant dense<1.0> : vector<4xf64>
  %a = memref.alloc() : memref<4xf64>
  scf.for %i = %c0 to %c8 step %c1 {
    %v = vector.transfer_read %x[%c0], %pad {in_bounds = [true]} : memref<4xf64>, vector<4xf64>
    %w = arith.addf %v, %ones : vector<4xf64>
    vector.transfer_write %w, %a[%c0] {in_bounds = [true]} : vector<4xf64>, memref<4xf64>
  }
  %sum = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %ones) -> (vector<4xf64>) {
    %v = vector.transfer_read %a[%c0], %pad {in_bounds = [true]} : memref<4xf64>, vector<4xf64>
    %s = arith.addf %acc, %v : vector<4xf64>
    scf.yield %s : vector<4xf64>
  }
  %b = memref.alloc() : memref<4xf64>
  vector.transfer_write %sum, %b[%c0] {in_bounds = [true]} : vector<4xf64>, memref<4xf64>
  memref.dealloc %a : memref<4xf64>
  %c = memref.alloc() : memref<4xf64>
  memref.copy %b, %c : memref<4xf64> to memref<4xf64>
  memref.dealloc %b : memref<4xf64>
  return %c : memref<4xf64>
}
