// tad-outline-thread-loops moves the body of each one-dimensional scf.parallel
// from 0 by 1 (a thread loop of tad-tile-and-vectorize) into a chunk function
// and calls the loop's launcher instead; with threads=1 nothing changes.
// RUN: autodiff-opt %s --split-input-file '--tad-outline-thread-loops=threads=2' | FileCheck %s
// RUN: autodiff-opt %s --split-input-file '--tad-outline-thread-loops=threads=1' | FileCheck %s --check-prefix=SERIAL

// The loop body becomes a chunk function of the index and the captured
// memref (the constant is copied in, not passed); the loop, a call of its
// launcher, declared only (tad-define-thread-launchers defines it).
// CHECK-LABEL: func.func @loop
// CHECK-NOT: scf.parallel
// CHECK: call @loop_thread_loop0_launch(%c4, %arg0) : (index, memref<4xf32>) -> ()
// CHECK-LABEL: func.func private @loop_thread_loop0_chunk(%arg0: index, %arg1: memref<4xf32>)
// CHECK: %[[TWO:.*]] = arith.constant 2.0
// CHECK: %[[V:.*]] = memref.load %arg1[%arg0]
// CHECK: arith.mulf %[[V]], %[[TWO]]
// CHECK: func.func private @loop_thread_loop0_launch(index, memref<4xf32>)
// SERIAL-LABEL: func.func @loop
// SERIAL: scf.parallel
func.func @loop(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.mulf %v, %two : f32
    memref.store %w, %x[%i] : memref<4xf32>
    scf.reduce
  }
  return
}

// -----

// Two loops with the same chunk function share it and its launcher.
// CHECK-LABEL: func.func @two_equal_loops
// CHECK: call @two_equal_loops_thread_loop0_launch(%c4, %arg0)
// CHECK: call @two_equal_loops_thread_loop0_launch(%c4, %arg1)
// CHECK-COUNT-1: func.func private @two_equal_loops_thread_loop{{.}}_chunk
// CHECK-NOT: thread_loop1
// SERIAL-LABEL: func.func @two_equal_loops
// SERIAL: scf.parallel
// SERIAL: scf.parallel
func.func @two_equal_loops(%x: memref<4xf32>, %y: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %x[%i] : memref<4xf32>
    memref.store %v, %x[%i] : memref<4xf32>
    scf.reduce
  }
  scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
    %v = memref.load %y[%i] : memref<4xf32>
    memref.store %v, %y[%i] : memref<4xf32>
    scf.reduce
  }
  return
}
