// RUN: autodiff-opt --split-input-file --tad-differentiate %s | FileCheck %s
// Functions of scalars (f32/f64 differentiated; i1, i64 and index inactive), as Enzyme-MLIR writes them.

// CHECK-LABEL: func.func private @square_vjp(%arg0: f64, %arg1: f64) -> (f64, f64)
// CHECK: arith.mulf %arg1, %arg0 : f64
// CHECK: return {{.*}} : f64, f64
// CHECK-LABEL: func.func private @square_jvp(%arg0: f64, %arg1: f64) -> (f64, f64)
// CHECK: arith.mulf %arg1, %arg0 : f64
// CHECK: return {{.*}} : f64, f64

func.func @square(%x: f64) -> f64 {
  %0 = arith.mulf %x, %x : f64
  return %0 : f64
}
func.func private @square_vjp(f64, f64) -> (f64, f64) attributes {tad.vjp = {of = @square, wrt = array<i64: 0>}}
func.func private @square_jvp(f64, f64) -> (f64, f64) attributes {tad.jvp = {of = @square, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @trig_vjp
// CHECK: math.cos %arg0 : f32
// CHECK: return {{.*}} : f32, f32, f32
// CHECK-LABEL: func.func private @trig_jvp
// CHECK-NOT: tad.constant
// CHECK: return {{.*}} : f32, f32

func.func @trig(%x: f32, %y: f32) -> f32 {
  %0 = math.sin %x : f32
  %1 = math.exp %y : f32
  %2 = arith.mulf %0, %1 : f32
  %c = arith.constant 2.0 : f32
  %3 = arith.addf %2, %c : f32
  return %3 : f32
}
func.func private @trig_vjp(f32, f32, f32) -> (f32, f32, f32) attributes {tad.vjp = {of = @trig, wrt = array<i64: 0, 1>}}
func.func private @trig_jvp(f32, f32, f32) -> (f32, f32) attributes {tad.jvp = {of = @trig, wrt = array<i64: 1>}}

// -----

// CHECK-LABEL: func.func private @relu_vjp
// CHECK: arith.select %arg1, %arg0
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f64
// CHECK: %[[G:.*]] = arith.select %arg1, %arg2, %[[Z]] : f64
// CHECK: return %{{.*}}, %[[G]] : f64, f64
// CHECK-LABEL: func.func private @relu_jvp
// CHECK: arith.select %arg1, %arg2, %{{.*}} : f64

func.func @relu(%x: f64, %b: i1) -> f64 {
  %z = arith.constant 0.0 : f64
  %0 = arith.select %b, %x, %z : f64
  return %0 : f64
}
func.func private @relu_vjp(f64, i1, f64) -> (f64, f64) attributes {tad.vjp = {of = @relu, wrt = array<i64: 0>}}
func.func private @relu_jvp(f64, i1, f64) -> (f64, f64) attributes {tad.jvp = {of = @relu, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @power_vjp(%arg0: f64, %arg1: index, %arg2: f64) -> (f64, f64)
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf64>
// CHECK: tensor.insert %{{.*}} into %{{.*}}[%{{.*}}] : tensor<?xf64>
// CHECK: scf.for {{.*}} -> (f64, f64)
// CHECK: tensor.extract %{{.*}}[%{{.*}}] : tensor<?xf64>
// CHECK-LABEL: func.func private @power_jvp
// CHECK: scf.for {{.*}} iter_args({{.*}}) -> (f64, f64)

func.func @power(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %one) -> (f64) {
    %m = arith.mulf %acc, %x : f64
    scf.yield %m : f64
  }
  return %r : f64
}
func.func private @power_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @power, wrt = array<i64: 0>}}
func.func private @power_jvp(f64, index, f64) -> (f64, f64) attributes {tad.jvp = {of = @power, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @branch_vjp(%arg0: f64, %arg1: i64, %arg2: f64) -> (f64, f64)
// CHECK: scf.if %{{.*}} -> (f64)
// CHECK: scf.if %{{.*}} -> (f64)
// CHECK: arith.mulf %arg2, %{{.*}} : f64
// CHECK-LABEL: func.func private @branch_jvp
// CHECK: scf.if %{{.*}} -> (f64, f64)

func.func @branch(%x: f64, %n: i64) -> f64 {
  %c0 = arith.constant 0 : i64
  %p = arith.cmpi sgt, %n, %c0 : i64
  %nf = arith.sitofp %n : i64 to f64
  %r = scf.if %p -> (f64) {
    %a = arith.mulf %x, %nf : f64
    scf.yield %a : f64
  } else {
    %b = math.exp %x : f64
    scf.yield %b : f64
  }
  return %r : f64
}
func.func private @branch_vjp(f64, i64, f64) -> (f64, f64) attributes {tad.vjp = {of = @branch, wrt = array<i64: 0>}}
func.func private @branch_jvp(f64, i64, f64) -> (f64, f64) attributes {tad.jvp = {of = @branch, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @halve_vjp(%arg0: f64, %arg1: f64) -> (f64, f64)
// CHECK: scf.while {{.*}} : (f64, tensor<?xf64>, index)
// CHECK: tensor.insert
// CHECK: scf.for {{.*}} -> (f64)
// CHECK: tensor.extract
// CHECK-LABEL: func.func private @halve_jvp
// CHECK: scf.while {{.*}} : (f64, f64) -> (f64, f64)

func.func @halve(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %r = scf.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf ogt, %v, %one : f64
    scf.condition(%c) %v : f64
  } do {
  ^bb0(%w: f64):
    %h = arith.mulf %w, %half : f64
    scf.yield %h : f64
  }
  return %r : f64
}
func.func private @halve_vjp(f64, f64) -> (f64, f64) attributes {tad.vjp = {of = @halve, wrt = array<i64: 0>}}
func.func private @halve_jvp(f64, f64) -> (f64, f64) attributes {tad.jvp = {of = @halve, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @cube_vjp_batched(%arg0: f64, %arg1: tensor<3xf64>) -> (f64, tensor<3xf64>)
// CHECK: tensor.splat %arg0 : tensor<3xf64>
// CHECK: arith.mulf %arg1, %{{.*}} : tensor<3xf64>
// CHECK-LABEL: func.func private @cube_jvp_batched(%arg0: f64, %arg1: tensor<2xf64>) -> (f64, tensor<2xf64>)
// CHECK: return {{.*}} : f64, tensor<2xf64>

func.func @cube(%x: f64) -> f64 {
  %0 = arith.mulf %x, %x : f64
  %1 = arith.mulf %0, %x : f64
  return %1 : f64
}
func.func private @cube_vjp_batched(f64, tensor<3xf64>) -> (f64, tensor<3xf64>) attributes {tad.vjp = {of = @cube, wrt = array<i64: 0>}}
func.func private @cube_jvp_batched(f64, tensor<2xf64>) -> (f64, tensor<2xf64>) attributes {tad.jvp = {of = @cube, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @caller_vjp(%arg0: f64, %arg1: index, %arg2: f64) -> (f64, f64)
// CHECK: call @callee_vjp_wrt0(%arg0, %{{.*}}) : (f64, f64) -> (f64, f64)
// CHECK-LABEL: func.func private @caller_jvp
// CHECK: call @callee_jvp_wrt0(%arg0, %arg2) : (f64, f64) -> (f64, f64)

func.func @callee(%x: f64) -> f64 {
  %0 = math.sin %x : f64
  return %0 : f64
}
func.func @caller(%x: f64, %i: index) -> f64 {
  %0 = func.call @callee(%x) : (f64) -> f64
  %1 = arith.mulf %0, %x : f64
  return %1 : f64
}
func.func private @caller_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @caller, wrt = array<i64: 0>}}
func.func private @caller_jvp(f64, index, f64) -> (f64, f64) attributes {tad.jvp = {of = @caller, wrt = array<i64: 0>}}

// -----

// CHECK-LABEL: func.func private @idx_vjp(%arg0: f64, %arg1: index, %arg2: f64, %arg3: index) -> (f64, index, f64)
// CHECK: return %arg0, %arg1, %arg2 : f64, index, f64
// CHECK-LABEL: func.func private @idx_jvp
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: return %arg0, %arg1, %arg2, %[[Z]] : f64, index, f64, index

func.func @idx(%x: f64, %i: index) -> (f64, index) {
  return %x, %i : f64, index
}
func.func private @idx_vjp(f64, index, f64, index) -> (f64, index, f64) attributes {tad.vjp = {of = @idx, wrt = array<i64: 0>}}
func.func private @idx_jvp(f64, index, f64) -> (f64, index, f64, index) attributes {tad.jvp = {of = @idx, wrt = array<i64: 0>}}

// -----

// A batch of tangents for an index result: zeros of index type (a splat; tad.constant holds no index).
// CHECK-LABEL: func.func private @twice_jvp
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[ZEROS:.*]] = tensor.splat %[[ZERO]] : tensor<2xindex>
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[ZEROS]] : f64, index, tensor<2xf64>, tensor<2xindex>
func.func @twice(%x: f64, %n: index) -> (f64, index) {
  %0 = arith.mulf %x, %x : f64
  %1 = arith.addi %n, %n : index
  return %0, %1 : f64, index
}
func.func private @twice_jvp(f64, index, tensor<2xf64>) -> (f64, index, tensor<2xf64>, tensor<2xindex>)
    attributes {tad.jvp = {of = @twice, wrt = array<i64: 0>}}
