// RUN: autodiff-opt %s --split-input-file --tad-differentiate --tad-simplify | FileCheck %s

// scf control flow with integer carries and results (issue 14), as
// Enzyme-MLIR's users write it: index/i64 counters and i1 flags carried or
// returned next to float values, in both modes. Integer values are inactive;
// reverse mode tapes the integer carries the backward sweep reads (as
// integers) and no others. test/python/test_upstream_scf.py runs every case.

// scf.for: an index bound from an argument; an index counter and an i1 flag
// carried next to the float carries, read back as a float and as a condition.
func.func @for_counter(%x: f64, %s: f64, %n: index) -> (f64, f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant 0.0 : f64
  %false = arith.constant false
  %true = arith.constant true
  %r:4 = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s, %k = %c0, %flag = %false, %m = %z) -> (f64, index, i1, f64) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %e = arith.mulf %x, %kf : f64
    %p = arith.addf %acc, %e : f64
    %q = math.sin %p : f64
    %a = arith.select %flag, %q, %p : f64
    %k1 = arith.addi %k, %c1 : index
    %k2 = arith.remui %k1, %c3 : index
    %nf = arith.xori %flag, %true : i1
    %m2 = arith.addf %m, %a : f64
    scf.yield %a, %k2, %nf, %m2 : f64, index, i1, f64
  }
  return %r#0, %r#3, %r#1 : f64, f64, index
}
func.func private @for_counter_vjp(f64, f64, index, f64, f64, index) -> (f64, f64, index, f64, f64)
    attributes {tad.vjp = {of = @for_counter, wrt = array<i64: 0, 1>}}
func.func private @for_counter_jvp(f64, f64, index, f64, f64) -> (f64, f64, index, f64, f64, index)
    attributes {tad.jvp = {of = @for_counter, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @for_counter_vjp
// CHECK-DAG:     tensor.empty(%{{.*}}) : tensor<?xindex>
// CHECK-DAG:     tensor.empty(%{{.*}}) : tensor<?xi1>
// CHECK:         scf.for %{{.*}} = %{{.*}} to %arg2 step {{.*}} -> (f64, index, i1, f64, tensor<?xf64>, tensor<?xindex>, tensor<?xi1>, tensor<?xf64>)
// CHECK:           tensor.insert %{{.*}} : tensor<?xindex>
// CHECK:           tensor.insert %{{.*}} : tensor<?xi1>
// CHECK:         scf.for {{.*}} -> (f64, f64, f64)
// CHECK:           tensor.extract %{{.*}} : tensor<?xindex>
// CHECK:           tensor.extract %{{.*}} : tensor<?xi1>
// CHECK:           arith.sitofp
// CHECK:           arith.select
// CHECK:           math.cos
// CHECK:         return
// CHECK-LABEL: func.func private @for_counter_jvp
// CHECK-NOT:     tensor.empty
// CHECK:         scf.for {{.*}} -> (f64, index, i1, f64, f64, f64)
// CHECK:           math.cos
// CHECK:           arith.select
// CHECK:         return

// -----

// scf.for over a tensor state: the loop starts at 1 and steps by 2 up to an
// index argument; an index carry picks the slice of %x each iteration reads.
func.func @for_offset_tensor(%x: tensor<6xf64>, %h0: tensor<2xf64>, %n: index) -> (tensor<2xf64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %r:2 = scf.for %i = %c1 to %n step %c2 iter_args(%h = %h0, %k = %c0) -> (tensor<2xf64>, index) {
    %piece = tensor.extract_slice %x[%k] [2] [1] : tensor<6xf64> to tensor<2xf64>
    %m = arith.mulf %h, %piece : tensor<2xf64>
    %t = math.tanh %m : tensor<2xf64>
    %u = arith.addf %t, %piece : tensor<2xf64>
    %k1 = arith.addi %k, %c2 : index
    %k2 = arith.remui %k1, %c4 : index
    scf.yield %u, %k2 : tensor<2xf64>, index
  }
  return %r#0, %r#1 : tensor<2xf64>, index
}
func.func private @for_offset_tensor_vjp(tensor<6xf64>, tensor<2xf64>, index, tensor<2xf64>, index) -> (tensor<2xf64>, index, tensor<6xf64>, tensor<2xf64>)
    attributes {tad.vjp = {of = @for_offset_tensor, wrt = array<i64: 0, 1>}}
func.func private @for_offset_tensor_jvp(tensor<6xf64>, tensor<2xf64>, index, tensor<6xf64>, tensor<2xf64>) -> (tensor<2xf64>, index, tensor<2xf64>, index)
    attributes {tad.jvp = {of = @for_offset_tensor, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @for_offset_tensor_vjp
// CHECK:         scf.for %{{.*}} = %c1 to %arg2 step %c2 {{.*}} -> (tensor<2xf64>, index, tensor<?x2xf64>, tensor<?xindex>)
// CHECK:         scf.for {{.*}} -> (tensor<2xf64>, tensor<6xf64>)
// CHECK:           %[[K:.*]] = tensor.extract %{{.*}} : tensor<?xindex>
// CHECK:           tensor.extract_slice %arg0[%[[K]]] [2] [1]
// CHECK:           tensor.insert_slice {{.*}}[%[[K]]] [2] [1] {{.*}} into tensor<6xf64>
// CHECK-LABEL: func.func private @for_offset_tensor_jvp
// CHECK:         scf.for %{{.*}} = %c1 to %arg2 step %c2 {{.*}} -> (tensor<2xf64>, index, tensor<2xf64>)

// -----

// An index computed in the loop reads an element of a tensor (tensor.extract).
func.func @for_extract(%x: tensor<5xf64>, %s: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %r:2 = scf.for %i = %c0 to %c7 step %c1 iter_args(%acc = %s, %k = %c1) -> (f64, index) {
    %e = tensor.extract %x[%k] : tensor<5xf64>
    %p = arith.mulf %acc, %e : f64
    %q = math.sin %p : f64
    %a = arith.addf %q, %e : f64
    %k3 = arith.muli %k, %c3 : index
    %k4 = arith.addi %k3, %c1 : index
    %k5 = arith.remui %k4, %c5 : index
    scf.yield %a, %k5 : f64, index
  }
  return %r#0 : f64
}
func.func private @for_extract_vjp(tensor<5xf64>, f64, f64) -> (f64, tensor<5xf64>, f64)
    attributes {tad.vjp = {of = @for_extract, wrt = array<i64: 0, 1>}}
func.func private @for_extract_jvp(tensor<5xf64>, f64, tensor<5xf64>, f64) -> (f64, f64)
    attributes {tad.jvp = {of = @for_extract, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @for_extract_vjp
// CHECK:         tensor.empty() : tensor<7xindex>
// CHECK:         scf.for {{.*}} -> (f64, index, tensor<7xf64>, tensor<7xindex>)
// CHECK:         scf.for {{.*}} -> (f64, tensor<5xf64>)
// CHECK:           %[[K:.*]] = tensor.extract %{{.*}} : tensor<7xindex>
// CHECK:           tensor.extract %arg0[%[[K]]] : tensor<5xf64>
// CHECK-LABEL: func.func private @for_extract_jvp
// CHECK:         scf.for {{.*}} -> (f64, index, f64)
// CHECK:           tensor.extract %arg2[%{{.*}}] : tensor<5xf64>

// -----

// i64 loop bounds (scf.for ... : i64), the induction variable read as a float.
func.func @for_i64(%x: f64, %n: i64) -> f64 {
  %c2 = arith.constant 2 : i64
  %c3 = arith.constant 3 : i64
  %r = scf.for %i = %c2 to %n step %c3 iter_args(%h = %x) -> (f64) : i64 {
    %fi = arith.sitofp %i : i64 to f64
    %a = arith.mulf %h, %fi : f64
    %s = math.sin %a : f64
    %b = arith.addf %s, %h : f64
    scf.yield %b : f64
  }
  return %r : f64
}
func.func private @for_i64_vjp(f64, i64, f64) -> (f64, f64) attributes {tad.vjp = {of = @for_i64, wrt = array<i64: 0>}}
func.func private @for_i64_jvp(f64, i64, f64) -> (f64, f64) attributes {tad.jvp = {of = @for_i64, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @for_i64_vjp
// CHECK:         arith.index_cast %arg1 : i64 to index
// CHECK:         scf.for %{{.*}} = %{{.*}} to %arg1 step %{{.*}} -> (f64, tensor<?xf64>) : i64
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1 {{.*}} -> (f64) {
// CHECK:           arith.index_cast %{{.*}} : index to i64
// CHECK:           arith.sitofp
// CHECK-LABEL: func.func private @for_i64_jvp
// CHECK:         scf.for {{.*}} -> (f64, f64) : i64

// -----

// Binomial checkpointing (3 snapshots of 10 steps): the index carry the body
// reads is kept in the snapshots; the running count it only adds up is not.
func.func @for_snapshots(%x: f64, %y: f64) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %r:3 = scf.for %i = %c0 to %c10 step %c1 iter_args(%h = %x, %k = %c0, %count = %c0) -> (f64, index, index) {
    %ki = arith.index_cast %k : index to i64
    %kf = arith.sitofp %ki : i64 to f64
    %a = arith.mulf %kf, %y : f64
    %b = arith.addf %h, %a : f64
    %t = math.sin %b : f64
    %k1 = arith.addi %k, %c1 : index
    %k2 = arith.remui %k1, %c3 : index
    %count1 = arith.addi %count, %k2 : index
    scf.yield %t, %k2, %count1 : f64, index, index
  } {tad.snapshots = 3}
  return %r#0, %r#2 : f64, index
}
func.func private @for_snapshots_vjp(f64, f64, f64, index) -> (f64, index, f64, f64)
    attributes {tad.vjp = {of = @for_snapshots, wrt = array<i64: 0, 1>}}
func.func private @for_snapshots_jvp(f64, f64, f64, f64) -> (f64, index, f64, index)
    attributes {tad.jvp = {of = @for_snapshots, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @for_snapshots_vjp
// CHECK-DAG:     tensor.empty() : tensor<4xf64>
// CHECK-DAG:     tensor.empty() : tensor<4xindex>
// CHECK:         scf.for {{.*}} -> (f64, index, index, tensor<4xf64>, tensor<4xindex>)
// CHECK:         scf.for {{.*}} -> (f64, index, tensor<4xf64>, tensor<4xindex>, f64, f64)
// CHECK-LABEL: func.func private @for_snapshots_jvp
// CHECK:         scf.for {{.*}} -> (f64, index, index, f64)

// -----

// Nested loops: an index carry of the outer loop is the inner loop's bound,
// an i1 carry picks the branch of an scf.if.
func.func @for_nested(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %false = arith.constant false
  %true = arith.constant true
  %r:3 = scf.for %i = %c0 to %n step %c1 iter_args(%h = %x, %m = %c1, %flag = %false) -> (f64, index, i1) {
    %inner = scf.for %j = %c0 to %m step %c1 iter_args(%g = %h) -> (f64) {
      %s = math.sin %g : f64
      %t = arith.addf %s, %g : f64
      scf.yield %t : f64
    }
    %u = scf.if %flag -> (f64) {
      %e = arith.mulf %inner, %x : f64
      scf.yield %e : f64
    } else {
      %c = math.cos %inner : f64
      scf.yield %c : f64
    }
    %m1 = arith.addi %m, %c1 : index
    %nf = arith.xori %flag, %true : i1
    scf.yield %u, %m1, %nf : f64, index, i1
  }
  return %r#0 : f64
}
func.func private @for_nested_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @for_nested, wrt = array<i64: 0>}}
func.func private @for_nested_jvp(f64, index, f64) -> (f64, f64) attributes {tad.jvp = {of = @for_nested, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @for_nested_vjp
// CHECK:         scf.for {{.*}} -> (f64, index, i1, tensor<?xf64>, tensor<?xindex>, tensor<?xi1>)
// CHECK:         scf.for
// CHECK:           %[[M:.*]] = tensor.extract %{{.*}} : tensor<?xindex>
// CHECK:           %[[FLAG:.*]] = tensor.extract %{{.*}} : tensor<?xi1>
// CHECK:           scf.for %{{.*}} = %c0 to %[[M]]
// CHECK:           scf.if %[[FLAG]] -> (f64, f64)
// CHECK-LABEL: func.func private @for_nested_jvp
// CHECK:         scf.for {{.*}} -> (f64, index, i1, f64)
// CHECK:           scf.for {{.*}} -> (f64, f64)
// CHECK:           scf.if %{{.*}} -> (f64, f64)

// -----

// scf.while as Enzyme-MLIR's users write it: while (i < n) { x = f(x); i = i + 1 }.
// Reverse mode tapes the float state only: the counter decides when to stop
// and the backward loop runs as many times as the forward one did.
func.func @while_counter(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f64) -> (index, f64) {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i, %v : index, f64
  } do {
  ^bb0(%j: index, %w: f64):
    %s = math.sin %w : f64
    %t = arith.mulf %s, %w : f64
    %u = arith.addf %t, %x : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %u : index, f64
  }
  return %r#1 : f64
}
func.func private @while_counter_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @while_counter, wrt = array<i64: 0>}}
func.func private @while_counter_jvp(f64, index, f64) -> (f64, f64) attributes {tad.jvp = {of = @while_counter, wrt = array<i64: 0>}}

// The counter is not taped: one tape (the float state) and its row count.
// CHECK-LABEL: func.func private @while_counter_vjp
// CHECK-NOT:     tensor<{{.*}}xindex>
// CHECK:         scf.while ({{.*}}) : (index, f64, tensor<?xf64>, index) -> (index, f64, tensor<?xf64>, index)
// CHECK:           arith.cmpi slt
// CHECK:           scf.condition
// CHECK:           tensor.insert %{{.*}} : tensor<?xf64>
// CHECK:           math.sin
// CHECK:         %[[B:.*]]:2 = scf.for %{{.*}} = %c0 to %[[COUNT:.*]] step %c1 iter_args({{.*}}) -> (f64, f64)
// CHECK:           tensor.extract %{{.*}} : tensor<?xf64>
// CHECK:           math.cos
// CHECK:         return
// CHECK-LABEL: func.func private @while_counter_jvp
// CHECK:         scf.while ({{.*}}) : (index, f64, f64) -> (index, f64, f64)
// CHECK:           math.cos

// -----

// The same loop over a tensor state, returning the trip count as well.
func.func @while_counter_tensor(%x: tensor<3xf64>, %n: index) -> (tensor<3xf64>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, tensor<3xf64>) -> (index, tensor<3xf64>) {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i, %v : index, tensor<3xf64>
  } do {
  ^bb0(%j: index, %w: tensor<3xf64>):
    %s = math.sin %w : tensor<3xf64>
    %t = arith.mulf %s, %w : tensor<3xf64>
    %u = arith.addf %t, %x : tensor<3xf64>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %u : index, tensor<3xf64>
  }
  return %r#1, %r#0 : tensor<3xf64>, index
}
func.func private @while_counter_tensor_vjp(tensor<3xf64>, index, tensor<3xf64>, index) -> (tensor<3xf64>, index, tensor<3xf64>)
    attributes {tad.vjp = {of = @while_counter_tensor, wrt = array<i64: 0>}}
func.func private @while_counter_tensor_jvp(tensor<3xf64>, index, tensor<3xf64>) -> (tensor<3xf64>, index, tensor<3xf64>, index)
    attributes {tad.jvp = {of = @while_counter_tensor, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @while_counter_tensor_vjp
// CHECK-NOT:     tensor<{{.*}}xindex>
// CHECK:         scf.while ({{.*}}) : (index, tensor<3xf64>, tensor<?x3xf64>, index)
// CHECK:         scf.for {{.*}} -> (tensor<3xf64>, tensor<3xf64>)
// CHECK:           tensor.extract_slice %{{.*}} : tensor<?x3xf64> to tensor<3xf64>
// CHECK-LABEL: func.func private @while_counter_tensor_jvp
// CHECK:         scf.while ({{.*}}) : (index, tensor<3xf64>, tensor<3xf64>) -> (index, tensor<3xf64>, tensor<3xf64>)

// -----

// A counter the body reads (as a float weight) is taped, as an index.
func.func @while_counter_read(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f64) -> (index, f64) {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i, %v : index, f64
  } do {
  ^bb0(%j: index, %w: f64):
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f64
    %s = math.sin %w : f64
    %t = arith.mulf %s, %jf : f64
    %u = arith.addf %t, %w : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %u : index, f64
  }
  return %r#1 : f64
}
func.func private @while_counter_read_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @while_counter_read, wrt = array<i64: 0>}}
func.func private @while_counter_read_jvp(f64, index, f64) -> (f64, f64) attributes {tad.jvp = {of = @while_counter_read, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @while_counter_read_vjp
// CHECK:         scf.while ({{.*}}) : (index, f64, tensor<?xindex>, tensor<?xf64>, index)
// CHECK:           tensor.insert %{{.*}} : tensor<?xindex>
// CHECK:         scf.for
// CHECK:           %[[J:.*]] = tensor.extract %{{.*}} : tensor<?xindex>
// CHECK:           arith.index_cast %[[J]] : index to i64
// CHECK-LABEL: func.func private @while_counter_read_jvp
// CHECK:         scf.while ({{.*}}) : (index, f64, f64)

// -----

// A do-while: the condition region advances an i64 counter (and forwards
// the float state unchanged); the body reads the counter.
func.func @while_do(%x: f64, %n: i64) -> (f64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%i = %c0, %v = %x) : (i64, f64) -> (i64, f64) {
    %i1 = arith.addi %i, %c1 : i64
    %c = arith.cmpi sle, %i1, %n : i64
    scf.condition(%c) %i1, %v : i64, f64
  } do {
  ^bb0(%j: i64, %w: f64):
    %jf = arith.sitofp %j : i64 to f64
    %s = math.sin %w : f64
    %t = arith.mulf %s, %jf : f64
    %u = arith.addf %t, %w : f64
    scf.yield %j, %u : i64, f64
  }
  return %r#1, %r#0 : f64, i64
}
func.func private @while_do_vjp(f64, i64, f64, i64) -> (f64, i64, f64) attributes {tad.vjp = {of = @while_do, wrt = array<i64: 0>}}
func.func private @while_do_jvp(f64, i64, f64) -> (f64, i64, f64, i64) attributes {tad.jvp = {of = @while_do, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @while_do_vjp
// CHECK:         scf.while ({{.*}}) : (i64, f64, tensor<?xi64>, tensor<?xf64>, index)
// CHECK:           %[[NEXT:.*]] = arith.addi
// CHECK:           scf.condition(%{{.*}}) %[[NEXT]], {{.*}} : i64, f64, tensor<?xi64>, tensor<?xf64>, index
// CHECK:         scf.for
// CHECK:           tensor.extract %{{.*}} : tensor<?xi64>
// CHECK-LABEL: func.func private @while_do_jvp
// CHECK:         scf.while ({{.*}}) : (i64, f64, f64)

// -----

// An i1 carry the body computes from the float state stops the loop.
func.func @while_flag(%x: f64) -> (f64, i1) {
  %false = arith.constant false
  %true = arith.constant true
  %half = arith.constant 0.5 : f64
  %tol = arith.constant 0.1 : f64
  %r:2 = scf.while (%done = %false, %v = %x) : (i1, f64) -> (i1, f64) {
    %go = arith.xori %done, %true : i1
    scf.condition(%go) %done, %v : i1, f64
  } do {
  ^bb0(%d: i1, %w: f64):
    %s = math.sin %w : f64
    %h = arith.mulf %s, %half : f64
    %a = math.absf %h : f64
    %d1 = arith.cmpf olt, %a, %tol : f64
    scf.yield %d1, %h : i1, f64
  }
  return %r#1, %r#0 : f64, i1
}
func.func private @while_flag_vjp(f64, f64, i1) -> (f64, i1, f64) attributes {tad.vjp = {of = @while_flag, wrt = array<i64: 0>}}
func.func private @while_flag_jvp(f64, f64) -> (f64, i1, f64, i1) attributes {tad.jvp = {of = @while_flag, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @while_flag_vjp
// CHECK-NOT:     tensor<{{.*}}xi1>
// CHECK:         scf.while ({{.*}}) : (i1, f64, tensor<?xf64>, index)
// CHECK:         scf.for {{.*}} -> (f64)
// CHECK-LABEL: func.func private @while_flag_jvp
// CHECK:         scf.while ({{.*}}) : (i1, f64, f64)

// -----

// scf.if with index and i1 results next to a float one; both are read after it.
func.func @if_int(%x: f64, %y: f64, %n: index) -> (f64, f64, index) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %p = arith.cmpi sgt, %n, %c2 : index
  %r:3 = scf.if %p -> (index, f64, i1) {
    %a = arith.mulf %x, %y : f64
    %k = arith.addi %n, %c2 : index
    %t = arith.constant true
    scf.yield %k, %a, %t : index, f64, i1
  } else {
    %b = math.exp %x : f64
    %f = arith.constant false
    scf.yield %c0, %b, %f : index, f64, i1
  }
  %ki = arith.index_cast %r#0 : index to i64
  %kf = arith.sitofp %ki : i64 to f64
  %s = arith.mulf %r#1, %kf : f64
  %u = arith.select %r#2, %s, %y : f64
  return %u, %r#1, %r#0 : f64, f64, index
}
func.func private @if_int_vjp(f64, f64, index, f64, f64, index) -> (f64, f64, index, f64, f64)
    attributes {tad.vjp = {of = @if_int, wrt = array<i64: 0, 1>}}
func.func private @if_int_jvp(f64, f64, index, f64, f64) -> (f64, f64, index, f64, f64, index)
    attributes {tad.jvp = {of = @if_int, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @if_int_vjp
// CHECK:         %[[IF:.*]]:3 = scf.if %{{.*}} -> (index, f64, i1)
// CHECK:         arith.select %[[IF]]#2
// CHECK:         scf.if %{{.*}} -> (f64, f64)
// CHECK:         return {{.*}}, %[[IF]]#1, %[[IF]]#0,
// CHECK-LABEL: func.func private @if_int_jvp
// CHECK:         scf.if %{{.*}} -> (index, f64, i1, f64)
// CHECK:         return {{.*}} : f64, f64, index, f64, f64, index

// -----

// The same over tensors: the branch returns a tensor and an i64 count.
func.func @if_int_tensor(%x: tensor<3xf64>, %flag: i1) -> (tensor<3xf64>, i64) {
  %r:2 = scf.if %flag -> (tensor<3xf64>, i64) {
    %a = math.sin %x : tensor<3xf64>
    %c3 = arith.constant 3 : i64
    scf.yield %a, %c3 : tensor<3xf64>, i64
  } else {
    %b = arith.mulf %x, %x : tensor<3xf64>
    %c2 = arith.constant 2 : i64
    scf.yield %b, %c2 : tensor<3xf64>, i64
  }
  %f = arith.sitofp %r#1 : i64 to f64
  %s = tensor.splat %f : tensor<3xf64>
  %u = arith.mulf %r#0, %s : tensor<3xf64>
  return %u, %r#1 : tensor<3xf64>, i64
}
func.func private @if_int_tensor_vjp(tensor<3xf64>, i1, tensor<3xf64>, i64) -> (tensor<3xf64>, i64, tensor<3xf64>)
    attributes {tad.vjp = {of = @if_int_tensor, wrt = array<i64: 0>}}
func.func private @if_int_tensor_jvp(tensor<3xf64>, i1, tensor<3xf64>) -> (tensor<3xf64>, i64, tensor<3xf64>, i64)
    attributes {tad.jvp = {of = @if_int_tensor, wrt = array<i64: 0>}}

// CHECK-LABEL: func.func private @if_int_tensor_vjp
// CHECK:         scf.if %arg1 -> (tensor<3xf64>, i64)
// CHECK:         scf.if %arg1 -> (tensor<3xf64>)
// CHECK:           math.cos
// CHECK-LABEL: func.func private @if_int_tensor_jvp
// CHECK:         scf.if %arg1 -> (tensor<3xf64>, i64, tensor<3xf64>)

// -----

// scf.execute_region (one block) yielding a float and an index.
func.func @execute_region(%x: f64, %y: f64) -> (f64, index) {
  %r:2 = scf.execute_region -> (f64, index) {
    %a = arith.mulf %x, %y : f64
    %b = math.sin %a : f64
    %c3 = arith.constant 3 : index
    scf.yield %b, %c3 : f64, index
  }
  %s = arith.addf %r#0, %x : f64
  return %s, %r#1 : f64, index
}
func.func private @execute_region_vjp(f64, f64, f64, index) -> (f64, index, f64, f64)
    attributes {tad.vjp = {of = @execute_region, wrt = array<i64: 0, 1>}}
func.func private @execute_region_jvp(f64, f64, f64, f64) -> (f64, index, f64, index)
    attributes {tad.jvp = {of = @execute_region, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @execute_region_vjp
// CHECK:         scf.execute_region -> (f64, index)
// CHECK:         scf.execute_region -> (f64, f64)
// CHECK:           math.cos
// CHECK:           scf.yield %{{.*}}, %{{.*}} : f64, f64
// CHECK-LABEL: func.func private @execute_region_jvp
// CHECK:         scf.execute_region -> (f64, index, f64)
// CHECK:           math.cos

// -----

// scf.execute_region over tensors, with a loop inside.
func.func @execute_region_tensor(%x: tensor<4xf64>, %w: tensor<4xf64>) -> tensor<4xf64> {
  %r = scf.execute_region -> tensor<4xf64> {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c3 = arith.constant 3 : index
    %l = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<4xf64>) {
      %m = arith.mulf %h, %w : tensor<4xf64>
      %t = math.tanh %m : tensor<4xf64>
      scf.yield %t : tensor<4xf64>
    }
    scf.yield %l : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}
func.func private @execute_region_tensor_vjp(tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>, tensor<4xf64>)
    attributes {tad.vjp = {of = @execute_region_tensor, wrt = array<i64: 0, 1>}}
func.func private @execute_region_tensor_jvp(tensor<4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<4xf64>, tensor<4xf64>)
    attributes {tad.jvp = {of = @execute_region_tensor, wrt = array<i64: 0, 1>}}

// CHECK-LABEL: func.func private @execute_region_tensor_vjp
// CHECK:         scf.execute_region -> tensor<4xf64>
// CHECK:         scf.execute_region -> (tensor<4xf64>, tensor<4xf64>)
// CHECK:           tensor.empty() : tensor<3x4xf64>
// CHECK-LABEL: func.func private @execute_region_tensor_jvp
// CHECK:         scf.execute_region -> (tensor<4xf64>, tensor<4xf64>)
// CHECK:           scf.for {{.*}} -> (tensor<4xf64>, tensor<4xf64>)
