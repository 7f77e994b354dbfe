// tad-outline-thread-loops moves the body of each scf.parallel into a chunk function taking
// the chunk index and the loop's captures, and replaces the loop by a call of a launcher,
// declared only (tad-define-thread-launchers defines it on the LLVM dialect). With
// threads=1 nothing is outlined.
// RUN: autodiff-opt %s --split-input-file --tad-outline-thread-loops=threads=2 | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-outline-thread-loops=threads=1 | FileCheck %s --check-prefix=ONE

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%arg0: memref<4xf32>, %arg1: f32)
// CHECK: %[[N:.*]] = arith.constant 4 : index
// CHECK-NOT: scf.parallel
// CHECK: call @f_thread_loop0_launch(%[[N]], %arg0, %arg1) : (index, memref<4xf32>, f32) -> ()
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @f_thread_loop0_chunk
// CHECK-SAME: (%[[I:.*]]: index, %[[X:.*]]: memref<4xf32>, %[[S:.*]]: f32)
// CHECK-NEXT: %[[V:.*]] = memref.load %[[X]][%[[I]]]
// CHECK-NEXT: %[[W:.*]] = arith.addf %[[V]], %[[S]]
// CHECK-NEXT: memref.store %[[W]], %[[X]][%[[I]]]
// CHECK-NEXT: return
// CHECK: func.func private @f_thread_loop0_launch(index, memref<4xf32>, f32){{$}}
// ONE-LABEL: func.func @f
// ONE: scf.parallel
// ONE-NOT: thread_loop
func.func @f(%x: memref<4xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %s : f32
    memref.store %w, %x[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// Each loop of a function gets its own number.
// CHECK-LABEL: func.func @two
// CHECK: call @two_thread_loop0_launch
// CHECK: call @two_thread_loop1_launch
// CHECK-DAG: func.func private @two_thread_loop0_chunk
// CHECK-DAG: func.func private @two_thread_loop1_chunk
// ONE-LABEL: func.func @two
// ONE-COUNT-2: scf.parallel
func.func @two(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %x[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.mulf %v, %v : f32
    memref.store %w, %x[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
