// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// func.call of callees with integer (index, i64, i1) results next to float
// ones (issue 14): the callee's derivative is generated once and called; an
// integer result has no tangent, and its cotangent seed is an integer zero
// the callee's vjp ignores. test/python/test_upstream_scf.py runs every case.

// func.call of a callee with index and i1 results next to a float one; the
// index result feeds the second call, the flag a select.
func.func @step(%x: f64, %n: index) -> (index, f64, i1) {
  %c1 = arith.constant 1 : index
  %k = arith.addi %n, %c1 : index
  %ki = arith.index_cast %k : index to i64
  %kf = arith.sitofp %ki : i64 to f64
  %s = math.sin %x : f64
  %y = arith.mulf %s, %kf : f64
  %z = arith.constant 0.0 : f64
  %p = arith.cmpf ogt, %x, %z : f64
  return %k, %y, %p : index, f64, i1
}
func.func @call_int(%x: f64, %n: index) -> (f64, index) {
  %k, %y, %p = func.call @step(%x, %n) : (f64, index) -> (index, f64, i1)
  %k2, %y2, %p2 = func.call @step(%y, %k) : (f64, index) -> (index, f64, i1)
  %e = math.exp %y2 : f64
  %r = arith.select %p2, %e, %y : f64
  return %r, %k2 : f64, index
}
func.func private @call_int_vjp(f64, index, f64, index) -> (f64, index, f64)
    attributes {tad.vjp = {of = @call_int, wrt = array<i64: 0>}}
func.func private @call_int_jvp(f64, index, f64) -> (f64, index, f64, index)
    attributes {tad.jvp = {of = @call_int, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @call_int_vjp
// CHECK:         %[[A:.*]]:3 = call @step(%arg0, %arg1) : (f64, index) -> (index, f64, i1)
// CHECK:         %[[B:.*]]:3 = call @step(%[[A]]#1, %[[A]]#0)
// CHECK-DAG:     %[[ZI:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[ZB:.*]] = arith.constant false
// CHECK:         call @step_vjp_wrt0(%[[A]]#1, %[[A]]#0, %[[ZI]], %{{.*}}, %[[ZB]]) : (f64, index, index, f64, i1) -> (index, f64, i1, f64)
// CHECK:         call @step_vjp_wrt0(%arg0, %arg1, %[[ZI]], %{{.*}}, %[[ZB]])
// CHECK:         return %{{.*}}, %[[B]]#0, %{{.*}} : f64, index, f64
// CHECK-LABEL: func.func private @call_int_jvp
// CHECK:         %[[T:.*]]:6 = call @step_jvp_wrt0(%arg0, %arg1, %arg2) : (f64, index, f64) -> (index, f64, i1, index, f64, i1)
// CHECK:         call @step_jvp_wrt0(%{{.*}}, %{{.*}}, %[[T]]#4)
// CHECK-LABEL: func.func private @step_vjp_wrt0
// CHECK-SAME:    (%arg0: f64, %arg1: index, %arg2: index, %arg3: f64, %arg4: i1) -> (index, f64, i1, f64)
// CHECK:         math.cos
// CHECK-LABEL: func.func private @step_jvp_wrt0
// CHECK:         return {{.*}} : index, f64, i1, index, f64, i1

// -----

// A callee over tensors returning its state and the i64 trip count of its
// while loop; the caller scales by the count.
func.func @relax(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %c4 = arith.constant 4 : i64
  %r:2 = scf.while (%i = %c0, %v = %x) : (i64, tensor<3xf64>) -> (i64, tensor<3xf64>) {
    %c = arith.cmpi slt, %i, %c4 : i64
    scf.condition(%c) %i, %v : i64, tensor<3xf64>
  } do {
  ^bb0(%j: i64, %u: tensor<3xf64>):
    %m = arith.mulf %u, %w : tensor<3xf64>
    %t = math.tanh %m : tensor<3xf64>
    %j1 = arith.addi %j, %c1 : i64
    scf.yield %j1, %t : i64, tensor<3xf64>
  }
  return %r#1, %r#0 : tensor<3xf64>, i64
}
func.func @call_int_tensor(%x: tensor<3xf64>, %w: tensor<3xf64>) -> (tensor<3xf64>, i64) {
  %y, %n = func.call @relax(%x, %w) : (tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, i64)
  %f = arith.sitofp %n : i64 to f64
  %s = tensor.splat %f : tensor<3xf64>
  %z = arith.mulf %y, %s : tensor<3xf64>
  return %z, %n : tensor<3xf64>, i64
}
func.func private @call_int_tensor_vjp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, i64) -> (tensor<3xf64>, i64, tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @call_int_tensor, wrt = array<i64: 0, 1>}}
func.func private @call_int_tensor_jvp(tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, i64, tensor<3xf64>, i64)
    attributes {tad.jvp = {of = @call_int_tensor, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @call_int_tensor_vjp
// CHECK:         %[[Z:.*]] = arith.constant 0 : i64
// CHECK:         call @relax_vjp_wrt0_1(%arg0, %arg1, %{{.*}}, %[[Z]]) : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, i64) -> (tensor<3xf64>, i64, tensor<3xf64>, tensor<3xf64>)
// CHECK-LABEL: func.func private @call_int_tensor_jvp
// CHECK:         call @relax_jvp_wrt0_1(%arg0, %arg1, %arg2, %arg3) : {{.*}} -> (tensor<3xf64>, i64, tensor<3xf64>, i64)
// CHECK-LABEL: func.func private @relax_vjp_wrt0_1
// CHECK-NOT:     tensor<{{.*}}xi64>
// CHECK:         scf.while ({{.*}}) : (i64, tensor<3xf64>, tensor<?x3xf64>, index)
// CHECK-LABEL: func.func private @relax_jvp_wrt0_1
// CHECK:         scf.while ({{.*}}) : (i64, tensor<3xf64>, tensor<3xf64>)
