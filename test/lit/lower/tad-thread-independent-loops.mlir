// tad-thread-independent-loops turns an scf.for marked tad.independent_iterations
// (each iteration writes its own slice of the one tensor it carries) into an
// scf.forall with that tensor as shared_outs, so that the CPU pipeline runs the
// iterations on threads. A marked loop of another form is left alone.
// RUN: autodiff-opt %s --split-input-file --tad-thread-independent-loops | FileCheck %s

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
