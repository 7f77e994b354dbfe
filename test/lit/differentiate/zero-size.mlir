// Slices of zero-size pieces and dynamic sizes. Upstream verification rejects
// any static offset into a zero-size dim, so an empty piece is never inserted
// (the destination is used unchanged) and an empty slice is a tensor.empty.
// Forward mode differentiates inserts with dynamic sizes, as the growing tape
// of a reversed while loop has (jvp of grad through lax.while_loop).
// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// The cotangent of an empty row has nothing to write: the gradient is zeros.
// CHECK-LABEL: func.func private @empty_row_vjp
// CHECK-NOT: tensor.insert_slice
// CHECK: %[[Z:.*]] = "tad.constant"() {value = 0.000000e+00 : f64} : () -> tensor<4x0xf64>
// CHECK-NOT: tensor.insert_slice
// CHECK: return %{{.*}}, %[[Z]]
func.func @empty_row(%x: tensor<4x0xf64>, %i: index) -> tensor<0xf64> {
  %v = tensor.extract_slice %x[%i, %i] [1, 0] [1, 1] : tensor<4x0xf64> to tensor<0xf64>
  return %v : tensor<0xf64>
}
func.func private @empty_row_vjp(tensor<4x0xf64>, index, tensor<0xf64>) -> (tensor<0xf64>, tensor<4x0xf64>)
    attributes {tad.vjp = {of = @empty_row, wrt = array<i64: 0>}}

// -----

// An insert of dynamic size: its tangent is the same insert of the tangents.
// CHECK-LABEL: func.func private @grow_jvp
// CHECK-SAME: %[[X:[a-zA-Z0-9_]+]]: tensor<?x3xf64>, %[[N:[a-zA-Z0-9_]+]]: index, %[[TX:[a-zA-Z0-9_]+]]: tensor<?x3xf64>)
// CHECK: %[[E:.*]] = tensor.empty(%{{.*}}) : tensor<?x3xf64>
// CHECK: tensor.insert_slice %[[X]] into %[[E]][0, 0] [%[[N]], 3] [1, 1]
// CHECK: %[[T:.*]] = tensor.insert_slice %[[TX]] into %{{.*}}[0, 0] [%[[N]], 3] [1, 1] : tensor<?x3xf64> into tensor<?x3xf64>
// CHECK: return %{{.*}}, %[[T]]
func.func @grow(%x: tensor<?x3xf64>, %n: index) -> tensor<?x3xf64> {
  %c2 = arith.constant 2 : index
  %m = arith.muli %n, %c2 : index
  %e = tensor.empty(%m) : tensor<?x3xf64>
  %y = tensor.insert_slice %x into %e[0, 0] [%n, 3] [1, 1] : tensor<?x3xf64> into tensor<?x3xf64>
  return %y : tensor<?x3xf64>
}
func.func private @grow_jvp(tensor<?x3xf64>, index, tensor<?x3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>)
    attributes {tad.jvp = {of = @grow, wrt = array<i64: 0>}}

// -----

// A tangent that starts as zero on a dynamic-size destination is a splat of the
// destination's size.
// CHECK-LABEL: func.func private @into_dynamic_jvp
// CHECK-SAME: %[[D:[a-zA-Z0-9_]+]]: tensor<?x3xf64>, %[[R:[a-zA-Z0-9_]+]]: tensor<3xf64>, %[[I:[a-zA-Z0-9_]+]]: index, %[[TR:[a-zA-Z0-9_]+]]: tensor<3xf64>)
// CHECK: %[[ROWS:.*]] = tensor.dim %[[D]], %{{.*}} : tensor<?x3xf64>
// CHECK: %[[Z:.*]] = tensor.splat %{{.*}}[%[[ROWS]]] : tensor<?x3xf64>
// CHECK: %[[T:.*]] = tensor.insert_slice %[[TR]] into %[[Z]][%[[I]], 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<?x3xf64>
// CHECK: return %{{.*}}, %[[T]]
func.func @into_dynamic(%d: tensor<?x3xf64>, %r: tensor<3xf64>, %i: index) -> tensor<?x3xf64> {
  %y = tensor.insert_slice %r into %d[%i, 0] [1, 3] [1, 1] : tensor<3xf64> into tensor<?x3xf64>
  return %y : tensor<?x3xf64>
}
func.func private @into_dynamic_jvp(tensor<?x3xf64>, tensor<3xf64>, index, tensor<3xf64>) -> (tensor<?x3xf64>, tensor<?x3xf64>)
    attributes {tad.jvp = {of = @into_dynamic, wrt = array<i64: 1>}}
