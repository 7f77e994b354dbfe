// tad-thread-independent-loops turns an scf.for marked tad.independent_iterations
// (each iteration writes its own slice of the one tensor it carries) into an
// scf.forall with that tensor as shared_outs, so that the CPU pipeline runs the
// iterations on threads. An iteration may read the slice it writes first (a
// group of images fills its slice in steps). A marked loop of another form is
// left alone, and so, by default, is one whose iterations each run too little
// work (min-work loop iterations of linalg ops, 2^22 by default) to pay for a
// thread.
// RUN: autodiff-opt %s --split-input-file --tad-thread-independent-loops=min-work=0 | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-thread-independent-loops | FileCheck %s --check-prefix=DEFAULT

// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32>)
// CHECK: %[[E:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (4) shared_outs(%[[OUT:.*]] = %[[E]]) -> (tensor<4x8xf32>) {
// CHECK-NEXT: %[[ROW:.*]] = tensor.extract_slice %[[X]][%[[I]], 0] [1, 8] [1, 1]
// CHECK-NEXT: %[[TWICE:.*]] = arith.addf %[[ROW]], %[[ROW]] : tensor<8xf32>
// CHECK-NEXT: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice %[[TWICE]] into %[[OUT]][%[[I]], 0] [1, 8] [1, 1]
// CHECK: return %[[R]]
// CHECK-NOT: scf.for
func.func @rows(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4x8xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%out = %e) -> (tensor<4x8xf32>) {
    %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %twice = arith.addf %row, %row : tensor<8xf32>
    %put = tensor.insert_slice %twice into %out[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    scf.yield %put : tensor<4x8xf32>
  } {tad.independent_iterations}
  return %r : tensor<4x8xf32>
}

// -----

// The carried tensor is also read inside the loop: iterations depend on each
// other, the loop stays.
// CHECK-LABEL: func.func @reads_carried
// CHECK: scf.for
// CHECK-NOT: scf.forall
func.func @reads_carried(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%out = %x) -> (tensor<4x8xf32>) {
    %row = tensor.extract_slice %out[0, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %put = tensor.insert_slice %row into %out[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
    scf.yield %put : tensor<4x8xf32>
  } {tad.independent_iterations}
  return %r : tensor<4x8xf32>
}

// -----

// Each iteration reads the rows it writes, and writes them row by row: the
// forall reads them from its shared output.
// CHECK-LABEL: func.func @fills_its_slice
// CHECK: %[[R:.*]] = scf.forall (%[[I:.*]]) in (2) shared_outs(%[[OUT:.*]] = %{{.*}}) -> (tensor<4x8xf32>) {
// CHECK-NEXT: %[[FIRST:.*]] = arith.muli %[[I]], %{{.*}} : index
// CHECK-NEXT: %[[MINE:.*]] = tensor.extract_slice %[[OUT]][%[[FIRST]], 0] [2, 8] [1, 1]
// CHECK-NEXT: %[[FILLED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[MINE]])
// CHECK: scf.forall.in_parallel {
// CHECK-NEXT: tensor.parallel_insert_slice %[[FILLED]] into %[[OUT]][%[[FIRST]], 0] [2, 8] [1, 1]
func.func @fills_its_slice(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%out = %x) -> (tensor<4x8xf32>) {
    %first = arith.muli %i, %c2 : index
    %mine = tensor.extract_slice %out[%first, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
    %filled = scf.for %j = %c0 to %c2 step %c1 iter_args(%part = %mine) -> (tensor<2x8xf32>) {
      %row = tensor.extract_slice %part[%j, 0] [1, 8] [1, 1] : tensor<2x8xf32> to tensor<8xf32>
      %twice = arith.addf %row, %row : tensor<8xf32>
      %put = tensor.insert_slice %twice into %part[%j, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<2x8xf32>
      scf.yield %put : tensor<2x8xf32>
    }
    %done = tensor.insert_slice %filled into %out[%first, 0] [2, 8] [1, 1] : tensor<2x8xf32> into tensor<4x8xf32>
    scf.yield %done : tensor<4x8xf32>
  } {tad.independent_iterations}
  return %r : tensor<4x8xf32>
}

// -----

// Each iteration runs one 8x8x8 contraction: on threads only when any work is enough.
// CHECK-LABEL: func.func @small_iterations
// CHECK: scf.forall
// DEFAULT-LABEL: func.func @small_iterations
// DEFAULT: scf.for
// DEFAULT: linalg.contract
// DEFAULT: } {tad.independent_iterations}
// DEFAULT-NOT: scf.forall
func.func @small_iterations(%a: tensor<4x8x8xf32>, %b: tensor<8x8xf32>, %z: tensor<8x8xf32>) -> tensor<4x8x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<4x8x8xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%out = %e) -> (tensor<4x8x8xf32>) {
    %ai = tensor.extract_slice %a[%i, 0, 0] [1, 8, 8] [1, 1, 1] : tensor<4x8x8xf32> to tensor<8x8xf32>
    %p = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
                                          affine_map<(m, k, n) -> (m, n)>]
         ins(%ai, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
    %put = tensor.insert_slice %p into %out[%i, 0, 0] [1, 8, 8] [1, 1, 1] : tensor<8x8xf32> into tensor<4x8x8xf32>
    scf.yield %put : tensor<4x8x8xf32>
  } {tad.independent_iterations}
  return %r : tensor<4x8x8xf32>
}

// -----

// Each iteration runs 4 chunks of a 256x256x128 contraction (2^25 multiply-adds in all,
// counted through the inner loop): on threads by default too.
// CHECK-LABEL: func.func @large_iterations
// CHECK: scf.forall
// DEFAULT-LABEL: func.func @large_iterations
// DEFAULT: scf.forall
// DEFAULT: scf.for
// DEFAULT: linalg.contract
func.func @large_iterations(%a: tensor<2x256x128xf32>, %b: tensor<128x256xf32>, %z: tensor<256x256xf32>)
    -> tensor<2x256x256xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<2x256x256xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%out = %e) -> (tensor<2x256x256xf32>) {
    %ai = tensor.extract_slice %a[%i, 0, 0] [1, 256, 128] [1, 1, 1] : tensor<2x256x128xf32> to tensor<256x128xf32>
    %acc = scf.for %j = %c0 to %c4 step %c1 iter_args(%s = %z) -> (tensor<256x256xf32>) {
      %p = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
                                            affine_map<(m, k, n) -> (m, n)>]
           ins(%ai, %b : tensor<256x128xf32>, tensor<128x256xf32>) outs(%s : tensor<256x256xf32>) -> tensor<256x256xf32>
      scf.yield %p : tensor<256x256xf32>
    }
    %put = tensor.insert_slice %acc into %out[%i, 0, 0] [1, 256, 256] [1, 1, 1] : tensor<256x256xf32> into tensor<2x256x256xf32>
    scf.yield %put : tensor<2x256x256xf32>
  } {tad.independent_iterations}
  return %r : tensor<2x256x256xf32>
}
