// Soundness: an op with regions that tad-differentiate cannot see through, and
// that takes or captures an active value, is refused at its location in both
// modes, never given a zero derivative. One case per region-holding op of the
// installed upstream dialects that can carry a tensor or float value (the linalg
// OpDSL ops are differentiated in upstream/linalg-named.mlir; test_soundness.py checks
// that the two files cover every such op).
// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate

// linalg.generic: %x is not an operand, only captured by the body
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = arith.constant dense<2.0> : tensor<3xf64>
  %e = tensor.empty() : tensor<3xf64>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'linalg.generic' whose body reads an active tensor it captures; pass the tensor to the generic as an input}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %b: f64):
    %i = linalg.index 0 : index
    %v = tensor.extract %x[%i] : tensor<3xf64>
    %m = arith.mulf %a, %v : f64
    linalg.yield %m : f64
  } -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// linalg.generic: %x is not an operand, only captured by the body
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = arith.constant dense<2.0> : tensor<3xf64>
  %e = tensor.empty() : tensor<3xf64>
  // expected-error @+1 {{no forward-mode (jvp) rule for 'linalg.generic' whose body reads an active tensor it captures; pass the tensor to the generic as an input}}
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%s : tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %b: f64):
    %i = linalg.index 0 : index
    %v = tensor.extract %x[%i] : tensor<3xf64>
    %m = arith.mulf %a, %v : f64
    linalg.yield %m : f64
  } -> tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// affine.for
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'affine.for'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = affine.for %i = 0 to 3 iter_args(%acc = %x) -> (tensor<3xf64>) {
    %y = math.sin %acc : tensor<3xf64>
    affine.yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// affine.for
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'affine.for'}}
  %0 = affine.for %i = 0 to 3 iter_args(%acc = %x) -> (tensor<3xf64>) {
    %y = math.sin %acc : tensor<3xf64>
    affine.yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// affine.if: the branch yields a captured value
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'affine.if'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = affine.if affine_set<(d0) : (d0 >= 0)>(%c0) -> tensor<3xf64> {
    affine.yield %x : tensor<3xf64>
  } else {
    %z = arith.constant dense<0.0> : tensor<3xf64>
    affine.yield %z : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// affine.if: the branch yields a captured value
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{no forward-mode (jvp) rule for 'affine.if'}}
  %0 = affine.if affine_set<(d0) : (d0 >= 0)>(%c0) -> tensor<3xf64> {
    affine.yield %x : tensor<3xf64>
  } else {
    %z = arith.constant dense<0.0> : tensor<3xf64>
    affine.yield %z : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// affine.parallel: a scalar result
func.func @f(%x: tensor<3xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'affine.parallel'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %s = affine.parallel (%i) = (0) to (3) reduce ("addf") -> (f64) {
    %v = tensor.extract %x[%i] : tensor<3xf64>
    affine.yield %v : f64
  }
  %0 = tensor.from_elements %s : tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<1xf64>) -> (tensor<1xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// affine.parallel: a scalar result
func.func @f(%x: tensor<3xf64>) -> tensor<1xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'affine.parallel'}}
  %s = affine.parallel (%i) = (0) to (3) reduce ("addf") -> (f64) {
    %v = tensor.extract %x[%i] : tensor<3xf64>
    affine.yield %v : f64
  }
  %0 = tensor.from_elements %s : tensor<1xf64>
  return %0 : tensor<1xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<1xf64>, tensor<1xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// scf.forall: written through the terminator's parallel_insert_slice
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'scf.forall'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = scf.forall (%i) in (3) shared_outs(%o = %e) -> (tensor<3xf64>) {
    %v = tensor.extract_slice %x[%i] [1] [1] : tensor<3xf64> to tensor<1xf64>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %v into %o[%i] [1] [1] : tensor<1xf64> into tensor<3xf64>
    }
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// scf.forall: written through the terminator's parallel_insert_slice
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %e = tensor.empty() : tensor<3xf64>
  // expected-error @+1 {{no forward-mode (jvp) rule for 'scf.forall'}}
  %0 = scf.forall (%i) in (3) shared_outs(%o = %e) -> (tensor<3xf64>) {
    %v = tensor.extract_slice %x[%i] [1] [1] : tensor<3xf64> to tensor<1xf64>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %v into %o[%i] [1] [1] : tensor<1xf64> into tensor<3xf64>
    }
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// scf.parallel
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant dense<0.0> : tensor<3xf64>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'scf.parallel'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = scf.parallel (%i) = (%c0) to (%c3) step (%c1) init (%z) -> tensor<3xf64> {
    scf.reduce(%x : tensor<3xf64>) {
    ^bb0(%a: tensor<3xf64>, %b: tensor<3xf64>):
      %s = arith.addf %a, %b : tensor<3xf64>
      scf.reduce.return %s : tensor<3xf64>
    }
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// scf.parallel
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %z = arith.constant dense<0.0> : tensor<3xf64>
  // expected-error @+1 {{no forward-mode (jvp) rule for 'scf.parallel'}}
  %0 = scf.parallel (%i) = (%c0) to (%c3) step (%c1) init (%z) -> tensor<3xf64> {
    scf.reduce(%x : tensor<3xf64>) {
    ^bb0(%a: tensor<3xf64>, %b: tensor<3xf64>):
      %s = arith.addf %a, %b : tensor<3xf64>
      scf.reduce.return %s : tensor<3xf64>
    }
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// scf.index_switch
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'scf.index_switch'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = scf.index_switch %c1 -> tensor<3xf64>
  case 1 {
    %y = math.sin %x : tensor<3xf64>
    scf.yield %y : tensor<3xf64>
  }
  default {
    scf.yield %x : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// scf.index_switch
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{no forward-mode (jvp) rule for 'scf.index_switch'}}
  %0 = scf.index_switch %c1 -> tensor<3xf64>
  case 1 {
    %y = math.sin %x : tensor<3xf64>
    scf.yield %y : tensor<3xf64>
  }
  default {
    scf.yield %x : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// shape.assuming
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %w = shape.const_witness true
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'shape.assuming'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = shape.assuming %w -> (tensor<3xf64>) {
    %y = math.sin %x : tensor<3xf64>
    shape.assuming_yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// shape.assuming
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %w = shape.const_witness true
  // expected-error @+1 {{no forward-mode (jvp) rule for 'shape.assuming'}}
  %0 = shape.assuming %w -> (tensor<3xf64>) {
    %y = math.sin %x : tensor<3xf64>
    shape.assuming_yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// shape.reduce
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = shape.const_shape [2, 3] : tensor<2xindex>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'shape.reduce'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = shape.reduce(%s, %x) : tensor<2xindex> -> tensor<3xf64> {
  ^bb0(%i: index, %d: index, %acc: tensor<3xf64>):
    %y = math.sin %acc : tensor<3xf64>
    shape.yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// shape.reduce
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = shape.const_shape [2, 3] : tensor<2xindex>
  // expected-error @+1 {{no forward-mode (jvp) rule for 'shape.reduce'}}
  %0 = shape.reduce(%s, %x) : tensor<2xindex> -> tensor<3xf64> {
  ^bb0(%i: index, %d: index, %acc: tensor<3xf64>):
    %y = math.sin %acc : tensor<3xf64>
    shape.yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// sparse_tensor.foreach
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'sparse_tensor.foreach'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = sparse_tensor.foreach in %x init(%x) : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64> do {
  ^bb0(%i: index, %v: f64, %acc: tensor<3xf64>):
    %y = tensor.insert %v into %acc[%i] : tensor<3xf64>
    sparse_tensor.yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// sparse_tensor.foreach
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'sparse_tensor.foreach'}}
  %0 = sparse_tensor.foreach in %x init(%x) : tensor<3xf64>, tensor<3xf64> -> tensor<3xf64> do {
  ^bb0(%i: index, %v: f64, %acc: tensor<3xf64>):
    %y = tensor.insert %v into %acc[%i] : tensor<3xf64>
    sparse_tensor.yield %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// tosa.cond_if
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'tosa.cond_if'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%a: tensor<3xf64>):
    tosa.yield %a : tensor<3xf64>
  } else {
  ^bb0(%a: tensor<3xf64>):
    tosa.yield %a : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// tosa.cond_if
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c = "tosa.const"() <{values = dense<true> : tensor<i1>}> : () -> tensor<i1>
  // expected-error @+1 {{no forward-mode (jvp) rule for 'tosa.cond_if'}}
  %0 = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<3xf64>) -> tensor<3xf64> {
  ^bb0(%a: tensor<3xf64>):
    tosa.yield %a : tensor<3xf64>
  } else {
  ^bb0(%a: tensor<3xf64>):
    tosa.yield %a : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// memref.alloca_scope
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'memref.alloca_scope'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = memref.alloca_scope -> (tensor<3xf64>) {
    %y = math.sin %x : tensor<3xf64>
    memref.alloca_scope.return %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// memref.alloca_scope
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'memref.alloca_scope'}}
  %0 = memref.alloca_scope -> (tensor<3xf64>) {
    %y = math.sin %x : tensor<3xf64>
    memref.alloca_scope.return %y : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// tosa.while_loop
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'tosa.while_loop'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = tosa.while_loop (%a = %x) : (tensor<3xf64>) -> tensor<3xf64> {
    %c = "tosa.const"() <{values = dense<false> : tensor<i1>}> : () -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<3xf64>):
    tosa.yield %a : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// tosa.while_loop
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'tosa.while_loop'}}
  %0 = tosa.while_loop (%a = %x) : (tensor<3xf64>) -> tensor<3xf64> {
    %c = "tosa.const"() <{values = dense<false> : tensor<i1>}> : () -> tensor<i1>
    tosa.yield %c : tensor<i1>
  } do {
  ^bb0(%a: tensor<3xf64>):
    tosa.yield %a : tensor<3xf64>
  }
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// async.execute: reverse mode meets the unknown async.await first
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %t, %r = async.execute -> !async.value<tensor<3xf64>> {
    %y = math.sin %x : tensor<3xf64>
    async.yield %y : tensor<3xf64>
  }
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'async.await'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = async.await %r : !async.value<tensor<3xf64>>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// async.execute: reverse mode meets the unknown async.await first
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  // expected-error @+1 {{no forward-mode (jvp) rule for 'async.execute'}}
  %t, %r = async.execute -> !async.value<tensor<3xf64>> {
    %y = math.sin %x : tensor<3xf64>
    async.yield %y : tensor<3xf64>
  }
  %0 = async.await %r : !async.value<tensor<3xf64>>
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}


// -----

// vector.mask: reverse mode meets the unknown vector.transfer_write first
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f64
  %m = vector.constant_mask [2] : vector<3xi1>
  %v = vector.mask %m { vector.transfer_read %x[%c0], %p : tensor<3xf64>, vector<3xf64> } : vector<3xi1> -> vector<3xf64>
  %e = tensor.empty() : tensor<3xf64>
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'vector.transfer_write'; give the function that uses it a custom derivative with tad.custom_vjp = @your_bwd}}
  %0 = vector.transfer_write %v, %e[%c0] : vector<3xf64>, tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}


// -----

// vector.mask: reverse mode meets the unknown vector.transfer_write first
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f64
  %m = vector.constant_mask [2] : vector<3xi1>
  // expected-error @+1 {{no forward-mode (jvp) rule for 'vector.mask'}}
  %v = vector.mask %m { vector.transfer_read %x[%c0], %p : tensor<3xf64>, vector<3xf64> } : vector<3xi1> -> vector<3xf64>
  %e = tensor.empty() : tensor<3xf64>
  %0 = vector.transfer_write %v, %e[%c0] : vector<3xf64>, tensor<3xf64>
  return %0 : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
