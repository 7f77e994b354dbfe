// RUN: autodiff-opt %s --split-input-file --verify-diagnostics --tad-differentiate

// What tad-differentiate refuses in scf control flow with integer carries,
// reported at the op and naming it (issue 14).

// An scf.execute_region of several blocks is unstructured control flow.
func.func @f(%x: f64, %p: i1) -> f64 {
  // expected-error @+1 {{cannot differentiate @f: 'scf.execute_region' has a region of several blocks joined by 'cf.cond_br' (unstructured control flow); only single-block regions are supported}}
  %r = scf.execute_region -> f64 {
    cf.cond_br %p, ^bb1, ^bb2
  ^bb1:
    %a = math.sin %x : f64
    scf.yield %a : f64
  ^bb2:
    %b = math.cos %x : f64
    scf.yield %b : f64
  }
  return %r : f64
}
func.func private @f_vjp(f64, i1, f64) -> (f64, f64) attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// The same in forward mode.
func.func @f(%x: f64, %p: i1) -> f64 {
  // expected-error @+1 {{'scf.execute_region' has a region of several blocks joined by 'cf.br'}}
  %r = scf.execute_region -> f64 {
    %a = math.sin %x : f64
    cf.br ^bb1(%a : f64)
  ^bb1(%b: f64):
    scf.yield %b : f64
  }
  return %r : f64
}
func.func private @f_jvp(f64, i1, f64) -> (f64, f64) attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// Reverse mode replays the body region only: the condition region may
// advance an integer counter, not change a float carry.
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'scf.while' whose condition region changes its float carry 1: reverse mode needs the condition region to forward its float arguments unchanged (as lax.while_loop does)}}
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f64) -> (index, f64) {
    %c = arith.cmpi slt, %i, %n : index
    %s = math.sin %v : f64
    scf.condition(%c) %i, %s : index, f64
  } do {
  ^bb0(%j: index, %w: f64):
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %w : index, f64
  }
  return %r#1 : f64
}
func.func private @f_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}

// -----

// A while loop whose results are not its carries (here it drops the counter).
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{cannot differentiate an 'scf.while' whose results differ in number or type from its carries: the condition region must forward one value of each carry's type}}
  %r = scf.while (%i = %c0, %v = %x) : (index, f64) -> f64 {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %v : f64
  } do {
  ^bb0(%w: f64):
    %s = math.sin %w : f64
    scf.yield %c1, %s : index, f64
  }
  return %r : f64
}
func.func private @f_jvp(f64, index, f64) -> (f64, f64) attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}

// -----

// A while loop's vjp carries its tape, of dynamic size: reverse mode over it
// again is refused with the way out (forward over reverse).
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{no reverse-mode (vjp) rule for 'scf.while' with carry 2 of type tensor<?xf64>, whose dynamic size may change from one iteration to the next: reverse mode tapes rows of one size (a while loop's own derivative cannot be differentiated in reverse mode again: take forward over reverse, e.g. jvp of grad or hessian, or use fori_loop or scan)}}
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f64) -> (index, f64) {
    %c = arith.cmpi slt, %i, %n : index
    scf.condition(%c) %i, %v : index, f64
  } do {
  ^bb0(%j: index, %w: f64):
    %s = math.sin %w : f64
    %t = arith.mulf %s, %w : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %t : index, f64
  }
  return %r#1 : f64
}
func.func private @f_vjp(f64, index, f64) -> (f64, f64) attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
func.func private @f_vjp_vjp(f64, index, f64, f64, f64) -> (f64, f64, f64, f64)
    attributes {tad.vjp = {of = @f_vjp, wrt = array<i64: 0, 2>}}
