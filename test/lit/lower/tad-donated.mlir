// Donated arguments (tad.donated, from jit(donate_argnums=...)): the caller
// gives the buffer up. tad-write-into-donated makes the last elementwise
// reader of one write into it; tad-return-donated returns it without the
// clone that ownership-based deallocation hands back for an argument.
// RUN: autodiff-opt %s --split-input-file --tad-write-into-donated | FileCheck %s
// RUN: autodiff-opt %s --split-input-file --tad-return-donated | FileCheck %s --check-prefix=RETURN

#id = affine_map<(d0) -> (d0)>

// The fused update x * 2 + y writes into x: x leaves the inputs, the payload reads the init.
// CHECK-LABEL: func.func @update
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]}
// CHECK-SAME: ins(%arg1 : tensor<8xf64>) outs(%arg0 : tensor<8xf64>)
// CHECK-NEXT: ^bb0(%[[Y:.*]]: f64, %[[X:.*]]: f64):
// CHECK: arith.mulf %[[X]]
func.func @update(%x: tensor<8xf64> {tad.donated}, %y: tensor<8xf64>) -> tensor<8xf64> {
  %e = tensor.empty() : tensor<8xf64>
  %0 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<8xf64>, tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %b: f64, %out: f64):
    %c2 = arith.constant 2.0 : f64
    %1 = arith.mulf %a, %c2 : f64
    %2 = arith.addf %1, %b : f64
    linalg.yield %2 : f64
  } -> tensor<8xf64>
  return %0 : tensor<8xf64>
}

// -----

#id = affine_map<(d0) -> (d0)>

// An argument that is not donated, one read again afterwards, and one
// whose element types differ from the result's are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-COUNT-3: outs(%{{[0-9]+}} :
func.func @left_alone(%x: tensor<8xf64>, %z: tensor<8xf64> {tad.donated}, %w: tensor<8xf32> {tad.donated})
    -> (tensor<8xf64>, tensor<8xf64>, tensor<8xf64>) {
  %e = tensor.empty() : tensor<8xf64>
  %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %out: f64):
    %1 = arith.addf %a, %a : f64
    linalg.yield %1 : f64
  } -> tensor<8xf64>
  %2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<8xf64>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f64, %out: f64):
    %3 = arith.mulf %a, %a : f64
    linalg.yield %3 : f64
  } -> tensor<8xf64>
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%w : tensor<8xf32>) outs(%e : tensor<8xf64>) {
  ^bb0(%a: f32, %out: f64):
    %5 = arith.extf %a : f32 to f64
    linalg.yield %5 : f64
  } -> tensor<8xf64>
  %6 = arith.addf %2, %z : tensor<8xf64>
  return %0, %6, %4 : tensor<8xf64>, tensor<8xf64>, tensor<8xf64>
}

// -----

// A donated argument is returned itself; another argument keeps its clone.
// RETURN-LABEL: func.func @returned
// RETURN: %[[C:.*]] = bufferization.clone %arg1
// RETURN: return %arg0, %[[C]]
func.func @returned(%x: memref<4xf64> {tad.donated}, %y: memref<4xf64>) -> (memref<4xf64>, memref<4xf64>) {
  %0 = bufferization.clone %x : memref<4xf64> to memref<4xf64>
  %1 = bufferization.clone %y : memref<4xf64> to memref<4xf64>
  return %0, %1 : memref<4xf64>, memref<4xf64>
}

// -----

// A clone taken before the buffer is written again keeps the value it had: kept.
// RETURN-LABEL: func.func @written_after
// RETURN: %[[C:.*]] = bufferization.clone %arg0
// RETURN: return %[[C]]
func.func @written_after(%x: memref<4xf64> {tad.donated}) -> memref<4xf64> {
  %0 = bufferization.clone %x : memref<4xf64> to memref<4xf64>
  %c0 = arith.constant 0 : index
  %f = arith.constant 1.0 : f64
  memref.store %f, %x[%c0] : memref<4xf64>
  return %0 : memref<4xf64>
}
