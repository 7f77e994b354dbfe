"""A corpus of programs as Enzyme-MLIR's and LAGrad's users write them, differentiated in both modes (issue 14).

Every program is our own, written after reading what those projects test
(``enzyme/test/MLIR/`` and LAGrad's ``test/``): scalar ``f64`` functions over
``arith``/``math`` with ``scf.for``/``scf.while``/``scf.if`` and index
counters and ``func.call`` (Enzyme-MLIR), and ``linalg`` on tensors with
reductions, named contractions, ``tensor.extract``/``insert``/slices in loops,
logsumexp, GMM, MLP, LSTM and hand-tracking kernels (LAGrad). Each ``@f``
gets ``@f_jvp`` and ``@f_vjp`` declarations generated from its signature for
the float arguments in ``wrt``; :func:`mlir_derivatives.check_ir` compiles
them with ``ta.compile_mlir`` and checks the jvp against float64 central
differences and the vjp by the dot-product test, at every point of the case.
The (program, mode) pairs that hit a missing feature are strict xfails in
``XFAIL``, with the diagnostic they get.
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np
import pytest
from mlir_derivatives import check_ir


class Case(NamedTuple):
    source: str
    points: list      # argument lists; each is checked
    wrt: list         # positions of the differentiated (float) arguments
    tol: dict = {}    # check_ir's eps/rtol/atol where the defaults do not fit (f32)


F32_TOL = {"eps": 1e-3, "rtol": 1e-2, "atol": 1e-3}

_rng = np.random.default_rng(1414)


def _u(*shape, low=-1.0, high=1.0, dtype=np.float64):
    return _rng.uniform(low, high, shape).astype(dtype)


def _split_types(text: str) -> list:
    return [t.strip() for t in re.split(r",\s*(?![^<]*>)", text) if t.strip()]


def declarations(source: str, wrt: list, modes=("fwd", "rev")) -> str:
    """``@f_jvp`` (mode ``fwd``) and ``@f_vjp`` (mode ``rev``) of ``@f`` with respect to ``wrt``.

    Built from ``@f``'s signature: the jvp takes a tangent per ``wrt``
    argument and returns the results and a tangent per result; the vjp takes
    a cotangent per result and returns the results and a cotangent per ``wrt``
    argument. Only the requested modes are declared, so that one mode's
    failure does not hide the other's result.

    Examples
    --------
    >>> print(declarations("func.func @f(%x: f64, %n: index) -> f64 {", [0], ("rev",)).strip().splitlines()[0])
    func.func private @f_vjp(f64, index, f64) -> (f64, f64)
    """
    match = re.search(r"func\.func @f\((.*?)\)\s*->\s*(\(.*?\)|[^{\s]+)\s*\{", source, re.S)
    args = [a.split(":", 1)[1].strip() for a in _split_types(match.group(1))]
    results = _split_types(match.group(2).strip("()"))
    spec = f"{{of = @f, wrt = array<i64: {', '.join(map(str, wrt))}>}}"
    chosen = [args[i] for i in wrt]
    text = ""
    if "rev" in modes:
        text += (f"\nfunc.func private @f_vjp({', '.join(args + results)}) -> ({', '.join(results + chosen)})\n"
                 f"    attributes {{tad.vjp = {spec}}}\n")
    if "fwd" in modes:
        text += (f"\nfunc.func private @f_jvp({', '.join(args + chosen)}) -> ({', '.join(results + results)})\n"
                 f"    attributes {{tad.jvp = {spec}}}\n")
    return text


# --------------------------------------------------------------------------
# Enzyme-MLIR style: scalar functions, scf loops with index counters, calls.
# --------------------------------------------------------------------------

ENZYME = {
    # A fixed-trip scf.for carrying one f64 and reading the argument each step.
    "for_affine_recurrence": Case("""
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %start = arith.constant 0.5 : f64
  %r = scf.for %i = %c0 to %c6 step %c1 iter_args(%a = %start) -> (f64) {
    %m = arith.mulf %a, %x : f64
    %n = arith.addf %m, %x : f64
    scf.yield %n : f64
  }
  return %r : f64
}""", [[0.7], [-1.2]], [0]),

    # x ** n by repeated multiplication, the trip count an index argument.
    "for_power_index_bound": Case("""
func.func @f(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%p = %one) -> (f64) {
    %q = arith.mulf %p, %x : f64
    scf.yield %q : f64
  }
  return %r : f64
}""", [[1.1, np.int64(5)], [0.8, np.int64(0)], [-0.9, np.int64(3)]], [0]),

    # Loop bounds and step all from index arguments; the counter read as a float.
    "for_dynamic_bounds_counter_as_float": Case("""
func.func @f(%x: f64, %y: f64, %lb: index, %ub: index, %step: index) -> f64 {
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %lb to %ub step %step iter_args(%acc = %zero) -> (f64) {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %a = arith.mulf %x, %fi : f64
    %s = math.sin %a : f64
    %b = arith.mulf %s, %y : f64
    %c = arith.addf %acc, %b : f64
    %d = arith.mulf %c, %y : f64
    scf.yield %d : f64
  }
  return %r : f64
}""", [[0.4, 0.9, np.int64(1), np.int64(9), np.int64(3)], [0.4, 0.9, np.int64(2), np.int64(2), np.int64(1)]],
        [0, 1]),

    # Two nested loops, the inner bound the outer counter (a triangle).
    "for_nested_triangular": Case("""
func.func @f(%x: f64, %y: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %ip = arith.addi %i, %c1 : index
    %inner = scf.for %j = %c0 to %ip step %c1 iter_args(%s = %acc) -> (f64) {
      %jj = arith.index_cast %j : index to i32
      %fj = arith.sitofp %jj : i32 to f64
      %a = arith.mulf %x, %fj : f64
      %b = arith.addf %a, %y : f64
      %c = math.cos %b : f64
      %d = arith.mulf %c, %s : f64
      %e = arith.addf %d, %x : f64
      scf.yield %e : f64
    }
    scf.yield %inner : f64
  }
  return %r : f64
}""", [[0.3, -0.5]], [0, 1]),

    # scf.while with an index counter compared for equality, carrying x*x.
    "while_index_counter_square": Case("""
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f64) -> (index, f64) {
    %go = arith.cmpi ne, %i, %c3 : index
    scf.condition(%go) %i, %v : index, f64
  } do {
  ^bb0(%j: index, %w: f64):
    %sq = arith.mulf %w, %w : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %sq : index, f64
  }
  return %r#1 : f64
}""", [[0.9], [-1.1]], [0]),

    # scf.while whose condition reads the float carry (trip count fixed near the point).
    "while_float_condition": Case("""
func.func @f(%x: f64, %g: f64) -> (f64, i64) {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %ten = arith.constant 10.0 : f64
  %r:2 = scf.while (%v = %x, %n = %c0) : (f64, i64) -> (f64, i64) {
    %go = arith.cmpf olt, %v, %ten : f64
    scf.condition(%go) %v, %n : f64, i64
  } do {
  ^bb0(%w: f64, %k: i64):
    %a = arith.mulf %w, %g : f64
    %b = arith.addf %a, %x : f64
    %k1 = arith.addi %k, %c1 : i64
    scf.yield %b, %k1 : f64, i64
  }
  return %r#0, %r#1 : f64, i64
}""", [[0.37, 1.63], [2.21, 1.17]], [0, 1]),

    # Nested scf.if on i1 arguments; one branch yields a constant.
    "if_nested_flags": Case("""
func.func @f(%x: f64, %p: i1, %q: i1) -> f64 {
  %four = arith.constant 4.0 : f64
  %r = scf.if %p -> (f64) {
    %sq = arith.mulf %x, %x : f64
    scf.yield %sq : f64
  } else {
    %i = scf.if %q -> (f64) {
      %c = math.cos %x : f64
      scf.yield %c : f64
    } else {
      scf.yield %four : f64
    }
    %s = arith.addf %i, %x : f64
    scf.yield %s : f64
  }
  return %r : f64
}""", [[0.8, np.bool_(b0), np.bool_(b1)] for b0 in (True, False) for b1 in (True, False)], [0]),

    # An scf.if on a float comparison yielding a float and an integer result.
    "if_float_and_integer_results": Case("""
func.func @f(%x: f64, %y: f64) -> (f64, i64) {
  %zero = arith.constant 0.0 : f64
  %p = arith.cmpf ogt, %x, %zero : f64
  %r:2 = scf.if %p -> (f64, i64) {
    %a = arith.mulf %x, %y : f64
    %k = arith.fptosi %a : f64 to i64
    scf.yield %a, %k : f64, i64
  } else {
    %c = math.cos %x : f64
    %d = arith.addf %c, %y : f64
    %k = arith.fptosi %d : f64 to i64
    scf.yield %d, %k : f64, i64
  }
  return %r#0, %r#1 : f64, i64
}""", [[2.3, 1.7], [-0.6, 3.2]], [0, 1]),

    # Unary math ops chained (the argument in (0.2, 0.8) keeps every one smooth).
    "math_unary_chain_a": Case("""
func.func @f(%x: f64) -> f64 {
  %a = math.sqrt %x : f64
  %b = math.atan %a : f64
  %c = math.log1p %b : f64
  %d = math.cbrt %x : f64
  %e = math.erf %d : f64
  %g = math.tanh %e : f64
  %h = math.asinh %g : f64
  %k = math.exp2 %h : f64
  %l = math.log2 %k : f64
  %m = math.absf %c : f64
  %n = arith.negf %m : f64
  %o = math.sinh %n : f64
  %p = math.cosh %o : f64
  %s1 = arith.addf %l, %p : f64
  %s2 = arith.addf %s1, %e : f64
  return %s2 : f64
}""", [[0.35], [0.71]], [0]),

    "math_unary_chain_b": Case("""
func.func @f(%x: f64) -> (f64, f64) {
  %a = math.asin %x : f64
  %b = math.acos %x : f64
  %c = math.atanh %x : f64
  %d = math.tan %x : f64
  %e = math.log10 %d : f64
  %g = math.erfc %x : f64
  %h = math.rsqrt %x : f64
  %k = math.expm1 %x : f64
  %two = arith.constant 2.0 : f64
  %l = arith.addf %x, %two : f64
  %m = math.acosh %l : f64
  %n = math.exp %a : f64
  %o = math.log %g : f64
  %s1 = arith.addf %n, %b : f64
  %s2 = arith.mulf %s1, %c : f64
  %s3 = arith.subf %s2, %e : f64
  %s4 = arith.divf %s3, %h : f64
  %t1 = arith.mulf %k, %m : f64
  %t2 = arith.addf %t1, %o : f64
  return %s4, %t2 : f64, f64
}""", [[0.35], [0.62]], [0]),

    # Binary and ternary ops, plus floor/round/trunc (zero derivative, value still used).
    "math_binary_ops": Case("""
func.func @f(%x: f64, %y: f64, %z: f64) -> f64 {
  %p = math.powf %x, %y : f64
  %a = math.atan2 %y, %z : f64
  %fm = math.fma %x, %y, %z : f64
  %cs = math.copysign %fm, %z : f64
  %mx = arith.maxnumf %x, %y : f64
  %mn = arith.minimumf %y, %z : f64
  %rm = arith.remf %fm, %y : f64
  %fl = math.floor %y : f64
  %rd = math.round %z : f64
  %tr = math.trunc %x : f64
  %s1 = arith.addf %p, %a : f64
  %s2 = arith.mulf %s1, %cs : f64
  %s3 = arith.subf %s2, %mx : f64
  %s4 = arith.divf %s3, %mn : f64
  %s5 = arith.addf %s4, %rm : f64
  %k1 = arith.mulf %fl, %x : f64
  %k2 = arith.mulf %rd, %y : f64
  %k3 = arith.mulf %tr, %z : f64
  %s6 = arith.addf %s5, %k1 : f64
  %s7 = arith.addf %s6, %k2 : f64
  %s8 = arith.addf %s7, %k3 : f64
  return %s8 : f64
}""", [[1.3, 0.6, -0.8], [2.7, 1.9, 1.4]], [0, 1, 2]),

    # Float casts: an f32 detour and back, plus a select on a comparison (the f32
    # rounding needs a wider finite-difference step than the float64 default).
    "casts_and_select": Case("""
func.func @f(%x: f64, %y: f64) -> f64 {
  %a = arith.truncf %x : f64 to f32
  %b = math.sin %a : f32
  %c = arith.extf %b : f32 to f64
  %p = arith.cmpf olt, %x, %y : f64
  %d = arith.mulf %x, %y : f64
  %e = math.exp %y : f64
  %s = arith.select %p, %d, %e : f64
  %r = arith.addf %s, %c : f64
  return %r : f64
}""", [[0.3, 0.9], [1.4, -0.2]], [0, 1], {"eps": 1e-3, "rtol": 1e-3, "atol": 1e-5}),

    # func.call of a scalar helper, twice and inside a loop; a callee with two results.
    "call_scalar_helpers": Case("""
func.func private @sigmoid(%v: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %n = arith.negf %v : f64
  %e = math.exp %n : f64
  %d = arith.addf %one, %e : f64
  %r = arith.divf %one, %d : f64
  return %r : f64
}
func.func private @polar(%r: f64, %t: f64) -> (f64, f64) {
  %c = math.cos %t : f64
  %s = math.sin %t : f64
  %a = arith.mulf %r, %c : f64
  %b = arith.mulf %r, %s : f64
  return %a, %b : f64, f64
}
func.func @f(%x: f64, %y: f64) -> (f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %s = func.call @sigmoid(%x) : (f64) -> f64
  %u, %v = func.call @polar(%s, %y) : (f64, f64) -> (f64, f64)
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %u) -> (f64) {
    %a = arith.addf %acc, %v : f64
    %b = func.call @sigmoid(%a) : (f64) -> f64
    scf.yield %b : f64
  }
  %w = func.call @sigmoid(%v) : (f64) -> f64
  return %r, %w : f64, f64
}""", [[0.4, 1.2]], [0, 1]),

    # Two active arguments, only one differentiated (the other is a constant for AD).
    "partially_active_arguments": Case("""
func.func @f(%x: f64, %y: f64) -> f64 {
  %a = arith.mulf %x, %y : f64
  %b = math.sin %a : f64
  %c = arith.mulf %b, %y : f64
  return %c : f64
}""", [[0.5, 1.3]], [1]),

    # math.fpowi: a float to an integer power (derivative n x^(n-1)).
    "math_fpowi": Case("""
func.func @f(%x: f64, %n: i32) -> f64 {
  %a = math.fpowi %x, %n : f64, i32
  %b = math.sin %a : f64
  return %b : f64
}""", [[1.3, np.int32(3)]], [0]),

    # Recursion through func.call (Enzyme's recursion test): x**n with a base case in scf.if.
    "recursion_power": Case("""
func.func private @pw(%x: f64, %n: index) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f64
  %done = arith.cmpi eq, %n, %c0 : index
  %r = scf.if %done -> (f64) {
    scf.yield %one : f64
  } else {
    %m = arith.subi %n, %c1 : index
    %p = func.call @pw(%x, %m) : (f64, index) -> f64
    %q = arith.mulf %p, %x : f64
    scf.yield %q : f64
  }
  return %r : f64
}
func.func @f(%x: f64, %n: index) -> f64 {
  %r = func.call @pw(%x, %n) : (f64, index) -> f64
  return %r : f64
}""", [[1.2, np.int64(4)]], [0]),

    # A do-while: the condition region computes the float carry the body receives.
    "while_do_before_computes": Case("""
func.func @f(%x: f64) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f64) -> (index, f64) {
    %s = math.sin %v : f64
    %w = arith.addf %s, %v : f64
    %go = arith.cmpi slt, %i, %c3 : index
    scf.condition(%go) %i, %w : index, f64
  } do {
  ^bb0(%j: index, %u: f64):
    %m = arith.mulf %u, %x : f64
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %m : index, f64
  }
  return %r#1 : f64
}""", [[0.6]], [0]),

    # scf.for over an i32 induction variable (bounds i32 too), the counter read as a float.
    "for_i32_induction": Case("""
func.func @f(%x: f64, %n: i32) -> f64 {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %x) -> (f64) : i32 {
    %fi = arith.sitofp %i : i32 to f64
    %b = arith.mulf %a, %fi : f64
    %s = math.sin %b : f64
    %t = arith.addf %s, %a : f64
    scf.yield %t : f64
  }
  return %r : f64
}""", [[0.4, np.int32(4)]], [0]),

    # Index arithmetic by affine.apply on the counter to pick elements.
    "affine_apply_index": Case("""
func.func @f(%x: tensor<7xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
    %j = affine.apply affine_map<(d0) -> (d0 * 2 + 1)>(%i)
    %v = tensor.extract %x[%j] : tensor<7xf64>
    %s = math.sin %v : f64
    %a = arith.addf %acc, %s : f64
    scf.yield %a : f64
  }
  return %r : f64
}""", [[_u(7)]], [0]),

    # One callee called with the active argument in either position and with none.
    "call_with_mixed_activity": Case("""
func.func private @g(%a: f64, %b: f64) -> f64 {
  %p = arith.mulf %a, %b : f64
  %s = math.sin %p : f64
  %t = arith.addf %s, %a : f64
  return %t : f64
}
func.func @f(%x: f64) -> f64 {
  %c = arith.constant 0.7 : f64
  %u = func.call @g(%x, %c) : (f64, f64) -> f64
  %v = func.call @g(%c, %x) : (f64, f64) -> f64
  %w = func.call @g(%c, %c) : (f64, f64) -> f64
  %r1 = arith.addf %u, %v : f64
  %r = arith.mulf %r1, %w : f64
  return %r : f64
}""", [[0.45]], [0]),

    # A constant float result, an unused argument and one used only through fptosi (zero derivatives).
    "inactive_float_result_and_unused_argument": Case("""
func.func @f(%x: f64, %unused: tensor<2xf64>, %y: f64) -> (f64, f64, tensor<2xf64>) {
  %c = arith.constant 2.5 : f64
  %k = arith.fptosi %y : f64 to i64
  %kf = arith.sitofp %k : i64 to f64
  %a = arith.mulf %x, %kf : f64
  %t = arith.constant dense<[1.0, 2.0]> : tensor<2xf64>
  return %a, %c, %t : f64, f64, tensor<2xf64>
}""", [[0.7, _u(2), 2.4]], [0, 1, 2]),

    # One value returned twice, and an argument returned as is (cotangents add up).
    "same_value_returned_twice_and_argument_returned": Case("""
func.func @f(%x: tensor<3xf64>, %y: f64) -> (tensor<3xf64>, tensor<3xf64>, f64, tensor<3xf64>) {
  %s = math.sin %x : tensor<3xf64>
  %c = arith.constant 2.5 : f64
  return %s, %s, %y, %x : tensor<3xf64>, tensor<3xf64>, f64, tensor<3xf64>
}""", [[_u(3), 0.3]], [0, 1]),

    # Enzyme's scf_while shape in f32: an index counter and a squared carry.
    "while_counter_f32": Case("""
func.func @f(%x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f32
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, f32) -> (index, f32) {
    %go = arith.cmpi ne, %i, %c4 : index
    scf.condition(%go) %i, %v : index, f32
  } do {
  ^bb0(%j: index, %w: f32):
    %sq = arith.mulf %w, %w : f32
    %h = arith.mulf %sq, %half : f32
    %t = math.tanh %h : f32
    %n = arith.addf %t, %x : f32
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %n : index, f32
  }
  return %r#1 : f32
}""", [[np.float32(0.6)]], [0], F32_TOL),
}


# --------------------------------------------------------------------------
# LAGrad style: linalg on tensors, tensor element/slice ops in scf loops.
# --------------------------------------------------------------------------

MAPS = """
#id1 = affine_map<(d0) -> (d0)>
#to0 = affine_map<(d0) -> ()>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#all2 = affine_map<(d0, d1) -> ()>
"""

CELL = """
func.func private @sigmoid(%v: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %n = arith.negf %v : f64
  %e = math.exp %n : f64
  %d = arith.addf %one, %e : f64
  %r = arith.divf %one, %d : f64
  return %r : f64
}
// One LSTM cell: the four gate rows of w (applied to the input) and u
// (applied to the hidden state) plus b; sigmoid through a call in the body.
func.func private @cell(%w: tensor<4x3xf64>, %u: tensor<4x3xf64>, %b: tensor<4x3xf64>, %h: tensor<3xf64>,
                        %c: tensor<3xf64>, %x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %e43 = tensor.empty() : tensor<4x3xf64>
  %pre = linalg.generic {indexing_maps = [#id2, #id2, #id2, #col, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%w, %u, %b, %x, %h : tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>, tensor<3xf64>, tensor<3xf64>)
      outs(%e43 : tensor<4x3xf64>) {
  ^bb0(%wi: f64, %ui: f64, %bi: f64, %xi: f64, %hi: f64, %o: f64):
    %a = arith.mulf %wi, %xi : f64
    %bb = arith.mulf %ui, %hi : f64
    %s = arith.addf %a, %bb : f64
    %t = arith.addf %s, %bi : f64
    linalg.yield %t : f64
  } -> tensor<4x3xf64>
  %e3 = tensor.empty() : tensor<3xf64>
  %fpre = tensor.extract_slice %pre[0, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
  %ipre = tensor.extract_slice %pre[1, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
  %opre = tensor.extract_slice %pre[2, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
  %gpre = tensor.extract_slice %pre[3, 0] [1, 3] [1, 1] : tensor<4x3xf64> to tensor<3xf64>
  %gates:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%fpre, %ipre, %opre : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
      outs(%e3, %e3, %e3 : tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) {
  ^bb0(%fv: f64, %iv: f64, %ov: f64, %o1: f64, %o2: f64, %o3: f64):
    %fs = func.call @sigmoid(%fv) : (f64) -> f64
    %is = func.call @sigmoid(%iv) : (f64) -> f64
    %os = func.call @sigmoid(%ov) : (f64) -> f64
    linalg.yield %fs, %is, %os : f64, f64, f64
  } -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
  %g = math.tanh %gpre : tensor<3xf64>
  %keep = arith.mulf %c, %gates#0 : tensor<3xf64>
  %add = arith.mulf %gates#1, %g : tensor<3xf64>
  %c2 = arith.addf %keep, %add : tensor<3xf64>
  %tc = math.tanh %c2 : tensor<3xf64>
  %h2 = arith.mulf %gates#2, %tc : tensor<3xf64>
  return %h2, %c2 : tensor<3xf64>, tensor<3xf64>
}
"""

MLP = MAPS + """
// Two dense layers (matmul, broadcast bias, ReLU by select) and a batched
// cross entropy: column max by linalg.reduce, exp, column sums, then a loop
// reading each label as an index into the probabilities.
func.func @f(%w0: tensor<5x4xf64>, %b0: tensor<5xf64>, %w1: tensor<3x5xf64>, %b1: tensor<3xf64>,
             %xt: tensor<4x2xf64>, %labels: tensor<2xi32>) -> f64 {
  %zero = arith.constant 0.0 : f64
  %z52 = arith.constant dense<0.0> : tensor<5x2xf64>
  %h0 = linalg.matmul ins(%w0, %xt : tensor<5x4xf64>, tensor<4x2xf64>) outs(%z52 : tensor<5x2xf64>) -> tensor<5x2xf64>
  %h1 = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%h0, %b0 : tensor<5x2xf64>, tensor<5xf64>) outs(%z52 : tensor<5x2xf64>) {
  ^bb0(%v: f64, %bias: f64, %o: f64):
    %s = arith.addf %v, %bias : f64
    %p = arith.cmpf ogt, %s, %zero : f64
    %r = arith.select %p, %s, %zero : f64
    linalg.yield %r : f64
  } -> tensor<5x2xf64>
  %z32 = arith.constant dense<0.0> : tensor<3x2xf64>
  %a0 = linalg.matmul ins(%w1, %h1 : tensor<3x5xf64>, tensor<5x2xf64>) outs(%z32 : tensor<3x2xf64>) -> tensor<3x2xf64>
  %a = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a0, %b1 : tensor<3x2xf64>, tensor<3xf64>) outs(%z32 : tensor<3x2xf64>) {
  ^bb0(%v: f64, %bias: f64, %o: f64):
    %s = arith.addf %v, %bias : f64
    linalg.yield %s : f64
  } -> tensor<3x2xf64>
  %lowest = arith.constant -1.0e30 : f64
  %e2 = tensor.empty() : tensor<2xf64>
  %m0 = linalg.fill ins(%lowest : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %m = linalg.reduce ins(%a : tensor<3x2xf64>) outs(%m0 : tensor<2xf64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %r = arith.maximumf %in, %acc : f64
      linalg.yield %r : f64
    }
  %ex = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%a, %m : tensor<3x2xf64>, tensor<2xf64>) outs(%z32 : tensor<3x2xf64>) {
  ^bb0(%v: f64, %mx: f64, %o: f64):
    %d = arith.subf %v, %mx : f64
    %e = math.exp %d : f64
    linalg.yield %e : f64
  } -> tensor<3x2xf64>
  %t0 = linalg.fill ins(%zero : f64) outs(%e2 : tensor<2xf64>) -> tensor<2xf64>
  %tot = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%ex : tensor<3x2xf64>) outs(%t0 : tensor<2xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %s = arith.addf %v, %acc : f64
    linalg.yield %s : f64
  } -> tensor<2xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %nll = scf.for %j = %c0 to %c2 step %c1 iter_args(%acc = %zero) -> (f64) {
    %l32 = tensor.extract %labels[%j] : tensor<2xi32>
    %l = arith.index_cast %l32 : i32 to index
    %p = tensor.extract %ex[%l, %j] : tensor<3x2xf64>
    %t = tensor.extract %tot[%j] : tensor<2xf64>
    %q = arith.divf %p, %t : f64
    %lq = math.log %q : f64
    %n = arith.subf %acc, %lq : f64
    scf.yield %n : f64
  }
  %two = arith.constant 2.0 : f64
  %mean = arith.divf %nll, %two : f64
  return %mean : f64
}"""

_MLP_POINT = [_u(5, 4), _u(5, low=0.2, high=0.6), _u(3, 5), _u(3), _u(4, 2), np.array([2, 0], np.int32)]

LAGRAD = {
    # A dot product as a generic reduction into a 0-d tensor, extracted.
    "generic_dot_to_scalar": Case(MAPS + """
func.func @f(%a: tensor<5xf64>, %b: tensor<5xf64>) -> f64 {
  %z = arith.constant dense<0.0> : tensor<f64>
  %d = linalg.generic {indexing_maps = [#id1, #id1, #to0], iterator_types = ["reduction"]}
      ins(%a, %b : tensor<5xf64>, tensor<5xf64>) outs(%z : tensor<f64>) {
  ^bb0(%x: f64, %y: f64, %acc: f64):
    %p = arith.mulf %x, %y : f64
    %s = arith.addf %p, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %v = tensor.extract %d[] : tensor<f64>
  %r = math.sin %v : f64
  return %r : f64
}""", [[_u(5), _u(5)]], [0, 1]),

    # matvec into a zero constant, a bias and tanh applied with tensor-level arith/math.
    "matvec_bias_tanh": Case("""
func.func @f(%m: tensor<3x4xf64>, %x: tensor<4xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %y = linalg.matvec ins(%m, %x : tensor<3x4xf64>, tensor<4xf64>) outs(%z : tensor<3xf64>) -> tensor<3xf64>
  %s = arith.addf %y, %b : tensor<3xf64>
  %t = math.tanh %s : tensor<3xf64>
  return %t : tensor<3xf64>
}""", [[_u(3, 4), _u(4), _u(3)]], [0, 1, 2]),

    # Two chained matmuls, then a sum of squares over both dims to a scalar.
    "matmul_chain_sum_of_squares": Case(MAPS + """
func.func @f(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %c: tensor<4x2xf64>) -> f64 {
  %z24 = arith.constant dense<0.0> : tensor<2x4xf64>
  %z22 = arith.constant dense<0.0> : tensor<2x2xf64>
  %ab = linalg.matmul ins(%a, %b : tensor<2x3xf64>, tensor<3x4xf64>) outs(%z24 : tensor<2x4xf64>) -> tensor<2x4xf64>
  %abc = linalg.matmul ins(%ab, %c : tensor<2x4xf64>, tensor<4x2xf64>) outs(%z22 : tensor<2x2xf64>) -> tensor<2x2xf64>
  %z = arith.constant dense<0.0> : tensor<f64>
  %ss = linalg.generic {indexing_maps = [#id2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%abc : tensor<2x2xf64>) outs(%z : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %q = arith.mulf %v, %v : f64
    %s = arith.addf %q, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %r = tensor.extract %ss[] : tensor<f64>
  return %r : f64
}""", [[_u(2, 3), _u(3, 4), _u(4, 2)]], [0, 1, 2]),

    # logsumexp: max by cmpf/select seeded with x[0] (a 0-d tensor.insert), and the
    # exp-sum generic reading the max as a captured scalar.
    "logsumexp_select_max_closure": Case(MAPS + """
func.func @f(%x: tensor<6xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %x0 = tensor.extract %x[%c0] : tensor<6xf64>
  %e = tensor.empty() : tensor<f64>
  %m0 = tensor.insert %x0 into %e[] : tensor<f64>
  %m = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<6xf64>) outs(%m0 : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %p = arith.cmpf ogt, %v, %acc : f64
    %r = arith.select %p, %v, %acc : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %mv = tensor.extract %m[] : tensor<f64>
  %z = arith.constant dense<0.0> : tensor<f64>
  %se = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%x : tensor<6xf64>) outs(%z : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %d = arith.subf %v, %mv : f64
    %ex = math.exp %d : f64
    %s = arith.addf %ex, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %sv = tensor.extract %se[] : tensor<f64>
  %l = math.log %sv : f64
  %r = arith.addf %l, %mv : f64
  return %r : f64
}""", [[_u(6, low=-2, high=2)]], [0]),

    # Column sums (reduction first) and row sums of a product (reduction second).
    "colsum_and_weighted_rowsum": Case(MAPS + """
func.func @f(%x: tensor<3x4xf64>, %w: tensor<4xf64>) -> (tensor<4xf64>, tensor<3xf64>) {
  %z4 = arith.constant dense<0.0> : tensor<4xf64>
  %z3 = arith.constant dense<0.0> : tensor<3xf64>
  %cs = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<3x4xf64>) outs(%z4 : tensor<4xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %e = math.exp %v : f64
    %s = arith.addf %e, %acc : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %rs = linalg.generic {indexing_maps = [#id2, #col, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %w : tensor<3x4xf64>, tensor<4xf64>) outs(%z3 : tensor<3xf64>) {
  ^bb0(%v: f64, %k: f64, %acc: f64):
    %p = arith.mulf %v, %k : f64
    %q = arith.mulf %p, %v : f64
    %s = arith.addf %q, %acc : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  return %cs, %rs : tensor<4xf64>, tensor<3xf64>
}""", [[_u(3, 4), _u(4)]], [0, 1]),

    # GMM-style centering: points x means broadcast to 3-D, squared, reduced over d.
    "broadcast_center_3d": Case("""
func.func @f(%x: tensor<4x2xf64>, %mu: tensor<3x2xf64>) -> tensor<4x3xf64> {
  %e = tensor.empty() : tensor<4x3x2xf64>
  %d = linalg.generic {indexing_maps = [affine_map<(n, k, d) -> (n, d)>, affine_map<(n, k, d) -> (k, d)>,
                                        affine_map<(n, k, d) -> (n, k, d)>],
                       iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mu : tensor<4x2xf64>, tensor<3x2xf64>) outs(%e : tensor<4x3x2xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %s = arith.subf %a, %b : f64
    linalg.yield %s : f64
  } -> tensor<4x3x2xf64>
  %z = arith.constant dense<0.0> : tensor<4x3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(n, k, d) -> (n, k, d)>, affine_map<(n, k, d) -> (n, k)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%d : tensor<4x3x2xf64>) outs(%z : tensor<4x3xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %q = arith.mulf %v, %v : f64
    %s = arith.addf %q, %acc : f64
    linalg.yield %s : f64
  } -> tensor<4x3xf64>
  return %r : tensor<4x3xf64>
}""", [[_u(4, 2), _u(3, 2)]], [0, 1]),

    # The GMM main term: for each point and each component, Q x (diagonal exp(Q)
    # plus a lower matrix by matvec) on slices, a norm by linalg.dot, inserted
    # element by element, then a logsumexp with linalg.reduce, summed over points.
    "gmm_main_term": Case(MAPS + """
func.func @f(%alphas: tensor<3xf64>, %means: tensor<3x2xf64>, %qs: tensor<3x2xf64>, %ls: tensor<3x2x2xf64>,
             %x: tensor<4x2xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f64
  %half = arith.constant 0.5 : f64
  %lowest = arith.constant -1.0e30 : f64
  %qdiag = math.exp %qs : tensor<3x2xf64>
  %sq0 = arith.constant dense<0.0> : tensor<3xf64>
  %sumq = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%qs : tensor<3x2xf64>) outs(%sq0 : tensor<3xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %s = arith.addf %v, %acc : f64
    linalg.yield %s : f64
  } -> tensor<3xf64>
  %zv = arith.constant dense<0.0> : tensor<2xf64>
  %z0 = arith.constant dense<0.0> : tensor<f64>
  %mt0 = tensor.empty() : tensor<3xf64>
  %e0 = tensor.empty() : tensor<f64>
  %total = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> (f64) {
    %xi = tensor.extract_slice %x[%i, 0] [1, 2] [1, 1] : tensor<4x2xf64> to tensor<2xf64>
    %mt = scf.for %k = %c0 to %c3 step %c1 iter_args(%m = %mt0) -> (tensor<3xf64>) {
      %mu = tensor.extract_slice %means[%k, 0] [1, 2] [1, 1] : tensor<3x2xf64> to tensor<2xf64>
      %d = arith.subf %xi, %mu : tensor<2xf64>
      %q = tensor.extract_slice %qdiag[%k, 0] [1, 2] [1, 1] : tensor<3x2xf64> to tensor<2xf64>
      %l = tensor.extract_slice %ls[%k, 0, 0] [1, 2, 2] [1, 1, 1] : tensor<3x2x2xf64> to tensor<2x2xf64>
      %qd = arith.mulf %q, %d : tensor<2xf64>
      %ld = linalg.matvec ins(%l, %d : tensor<2x2xf64>, tensor<2xf64>) outs(%zv : tensor<2xf64>) -> tensor<2xf64>
      %y = arith.addf %qd, %ld : tensor<2xf64>
      %sq = linalg.dot ins(%y, %y : tensor<2xf64>, tensor<2xf64>) outs(%z0 : tensor<f64>) -> tensor<f64>
      %sqv = tensor.extract %sq[] : tensor<f64>
      %h = arith.mulf %sqv, %half : f64
      %a = tensor.extract %alphas[%k] : tensor<3xf64>
      %s = tensor.extract %sumq[%k] : tensor<3xf64>
      %as = arith.addf %a, %s : f64
      %v = arith.subf %as, %h : f64
      %m2 = tensor.insert %v into %m[%k] : tensor<3xf64>
      scf.yield %m2 : tensor<3xf64>
    }
    %mx0 = linalg.fill ins(%lowest : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
    %mx = linalg.reduce ins(%mt : tensor<3xf64>) outs(%mx0 : tensor<f64>) dimensions = [0]
      (%in: f64, %r: f64) {
        %t = arith.maximumf %in, %r : f64
        linalg.yield %t : f64
      }
    %mxv = tensor.extract %mx[] : tensor<f64>
    %se = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
        ins(%mt : tensor<3xf64>) outs(%z0 : tensor<f64>) {
    ^bb0(%v: f64, %r: f64):
      %dd = arith.subf %v, %mxv : f64
      %ee = math.exp %dd : f64
      %ss = arith.addf %ee, %r : f64
      linalg.yield %ss : f64
    } -> tensor<f64>
    %sev = tensor.extract %se[] : tensor<f64>
    %lg = math.log %sev : f64
    %lse = arith.addf %lg, %mxv : f64
    %next = arith.addf %acc, %lse : f64
    scf.yield %next : f64
  }
  return %total : f64
}""", [[_u(3), _u(3, 2), _u(3, 2, low=-0.5, high=0.5), _u(3, 2, 2, low=-0.5, high=0.5), _u(4, 2)]],
        [0, 1, 2, 3]),

    # The rest of a GMM objective, vectorized: logsumexp of the weights, a
    # Wishart-like prior over exp(Q) and L (2-D and 3-D full reductions), a
    # scalar gamma and an integer degree of freedom.
    "gmm_prior_and_weights": Case(MAPS + """
func.func @f(%alphas: tensor<3xf64>, %qs: tensor<3x2xf64>, %ls: tensor<3x2x2xf64>, %gamma: f64, %dof: i64) -> f64 {
  %z = arith.constant dense<0.0> : tensor<f64>
  %lowest = arith.constant -1.0e30 : f64
  %e0 = tensor.empty() : tensor<f64>
  %m0 = linalg.fill ins(%lowest : f64) outs(%e0 : tensor<f64>) -> tensor<f64>
  %m = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%alphas : tensor<3xf64>) outs(%m0 : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = arith.maxnumf %v, %acc : f64
    linalg.yield %r : f64
  } -> tensor<f64>
  %se = linalg.generic {indexing_maps = [#id1, #to0, #to0], iterator_types = ["reduction"]}
      ins(%alphas, %m : tensor<3xf64>, tensor<f64>) outs(%z : tensor<f64>) {
  ^bb0(%v: f64, %mx: f64, %acc: f64):
    %d = arith.subf %v, %mx : f64
    %e = math.exp %d : f64
    %s = arith.addf %e, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %fq:2 = linalg.generic {indexing_maps = [#id2, #all2, #all2], iterator_types = ["reduction", "reduction"]}
      ins(%qs : tensor<3x2xf64>) outs(%z, %z : tensor<f64>, tensor<f64>) {
  ^bb0(%v: f64, %acc: f64, %acc2: f64):
    %e = math.exp %v : f64
    %q = arith.mulf %e, %e : f64
    %s = arith.addf %q, %acc : f64
    %t = arith.addf %v, %acc2 : f64
    linalg.yield %s, %t : f64, f64
  } -> (tensor<f64>, tensor<f64>)
  %fl = linalg.generic {indexing_maps = [affine_map<(a, b, c) -> (a, b, c)>, affine_map<(a, b, c) -> ()>],
                        iterator_types = ["reduction", "reduction", "reduction"]}
      ins(%ls : tensor<3x2x2xf64>) outs(%z : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %q = arith.mulf %v, %v : f64
    %s = arith.addf %q, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %mv = tensor.extract %m[] : tensor<f64>
  %sev = tensor.extract %se[] : tensor<f64>
  %lse0 = math.log %sev : f64
  %lse = arith.addf %lse0, %mv : f64
  %frob_q = tensor.extract %fq#0[] : tensor<f64>
  %sumq = tensor.extract %fq#1[] : tensor<f64>
  %frob_l = tensor.extract %fl[] : tensor<f64>
  %frob = arith.addf %frob_q, %frob_l : f64
  %half = arith.constant 0.5 : f64
  %g2 = arith.mulf %gamma, %gamma : f64
  %hg2 = arith.mulf %half, %g2 : f64
  %t1 = arith.mulf %hg2, %frob : f64
  %df = arith.sitofp %dof : i64 to f64
  %t2 = arith.mulf %df, %sumq : f64
  %prior = arith.subf %t1, %t2 : f64
  %n = arith.constant 4.0 : f64
  %nl = arith.mulf %n, %lse : f64
  %r = arith.addf %nl, %prior : f64
  return %r : f64
}""", [[_u(3), _u(3, 2), _u(3, 2, 2), 1.3, np.int64(2)]], [0, 1, 2, 3]),

    # Two-layer MLP with a cross-entropy loss over integer labels (weights differentiated).
    "mlp_cross_entropy": Case(MLP, [_MLP_POINT], [0, 1, 2, 3]),

    # The same network in f32.
    "mlp_cross_entropy_f32": Case(MLP.replace("f64", "f32"),
                                  [[a.astype(np.float32) if a.dtype == np.float64 else a for a in _MLP_POINT]],
                                  [0, 1, 2, 3], F32_TOL),

    # One LSTM cell: generic pre-activations, row slices, sigmoid by func.call inside a generic.
    "lstm_cell": Case(MAPS + CELL + """
func.func @f(%w: tensor<4x3xf64>, %u: tensor<4x3xf64>, %b: tensor<4x3xf64>, %h: tensor<3xf64>, %c: tensor<3xf64>,
             %x: tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %h2, %c2 = func.call @cell(%w, %u, %b, %h, %c, %x)
      : (tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
      -> (tensor<3xf64>, tensor<3xf64>)
  return %h2, %c2 : tensor<3xf64>, tensor<3xf64>
}""", [[_u(4, 3), _u(4, 3), _u(4, 3), _u(3), _u(3), _u(3)]], [0, 1, 2, 3, 4, 5]),

    # A two-layer LSTM step: the loop over layers slices each layer's weights and
    # state at the counter, calls the cell and writes the state back with insert_slice.
    "lstm_layers_loop": Case(MAPS + CELL + """
func.func @f(%w: tensor<2x4x3xf64>, %u: tensor<2x4x3xf64>, %b: tensor<2x4x3xf64>, %state: tensor<2x2x3xf64>,
             %x: tensor<3xf64>) -> (tensor<3xf64>, tensor<2x2x3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %r:2 = scf.for %l = %c0 to %c2 step %c1 iter_args(%inp = %x, %st = %state) -> (tensor<3xf64>, tensor<2x2x3xf64>) {
    %wl = tensor.extract_slice %w[%l, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<2x4x3xf64> to tensor<4x3xf64>
    %ul = tensor.extract_slice %u[%l, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<2x4x3xf64> to tensor<4x3xf64>
    %bl = tensor.extract_slice %b[%l, 0, 0] [1, 4, 3] [1, 1, 1] : tensor<2x4x3xf64> to tensor<4x3xf64>
    %hl = tensor.extract_slice %st[%l, 0, 0] [1, 1, 3] [1, 1, 1] : tensor<2x2x3xf64> to tensor<3xf64>
    %cl = tensor.extract_slice %st[%l, 1, 0] [1, 1, 3] [1, 1, 1] : tensor<2x2x3xf64> to tensor<3xf64>
    %h2, %cc2 = func.call @cell(%wl, %ul, %bl, %hl, %cl, %inp)
        : (tensor<4x3xf64>, tensor<4x3xf64>, tensor<4x3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>)
        -> (tensor<3xf64>, tensor<3xf64>)
    %st1 = tensor.insert_slice %h2 into %st[%l, 0, 0] [1, 1, 3] [1, 1, 1] : tensor<3xf64> into tensor<2x2x3xf64>
    %st2 = tensor.insert_slice %cc2 into %st1[%l, 1, 0] [1, 1, 3] [1, 1, 1] : tensor<3xf64> into tensor<2x2x3xf64>
    scf.yield %h2, %st2 : tensor<3xf64>, tensor<2x2x3xf64>
  }
  return %r#0, %r#1 : tensor<3xf64>, tensor<2x2x3xf64>
}""", [[_u(2, 4, 3), _u(2, 4, 3), _u(2, 4, 3), _u(2, 2, 3), _u(3)]], [0, 1, 2, 3, 4]),

    # Hand tracking: Rodrigues' rotation from an angle-axis vector: the norm by a
    # generic reduction, an scf.if yielding the identity below a tolerance, the
    # skew matrix by from_elements and its square by matmul.
    "angle_axis_to_rotation": Case(MAPS + """
func.func @f(%aa: tensor<3xf64>) -> tensor<3x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f64
  %zero = arith.constant 0.0 : f64
  %z = arith.constant dense<0.0> : tensor<f64>
  %ss = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
      ins(%aa : tensor<3xf64>) outs(%z : tensor<f64>) {
  ^bb0(%v: f64, %acc: f64):
    %q = arith.mulf %v, %v : f64
    %s = arith.addf %q, %acc : f64
    linalg.yield %s : f64
  } -> tensor<f64>
  %ssv = tensor.extract %ss[] : tensor<f64>
  %theta = math.sqrt %ssv : f64
  %tol = arith.constant 1.0e-4 : f64
  %small = arith.cmpf olt, %theta, %tol : f64
  %eye = arith.constant dense<[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]> : tensor<3x3xf64>
  %rot = scf.if %small -> (tensor<3x3xf64>) {
    scf.yield %eye : tensor<3x3xf64>
  } else {
    %ax = tensor.extract %aa[%c0] : tensor<3xf64>
    %ay = tensor.extract %aa[%c1] : tensor<3xf64>
    %az = tensor.extract %aa[%c2] : tensor<3xf64>
    %x = arith.divf %ax, %theta : f64
    %y = arith.divf %ay, %theta : f64
    %zz = arith.divf %az, %theta : f64
    %nx = arith.negf %x : f64
    %ny = arith.negf %y : f64
    %nz = arith.negf %zz : f64
    %k = tensor.from_elements %zero, %nz, %y, %zz, %zero, %nx, %ny, %x, %zero : tensor<3x3xf64>
    %z33 = arith.constant dense<0.0> : tensor<3x3xf64>
    %k2 = linalg.matmul ins(%k, %k : tensor<3x3xf64>, tensor<3x3xf64>) outs(%z33 : tensor<3x3xf64>) -> tensor<3x3xf64>
    %s = math.sin %theta : f64
    %c = math.cos %theta : f64
    %omc = arith.subf %one, %c : f64
    %e = tensor.empty() : tensor<3x3xf64>
    %r = linalg.generic {indexing_maps = [#id2, #id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
        ins(%eye, %k, %k2 : tensor<3x3xf64>, tensor<3x3xf64>, tensor<3x3xf64>) outs(%e : tensor<3x3xf64>) {
    ^bb0(%i: f64, %kv: f64, %k2v: f64, %o: f64):
      %a = arith.mulf %s, %kv : f64
      %b = arith.mulf %omc, %k2v : f64
      %t = arith.addf %i, %a : f64
      %u = arith.addf %t, %b : f64
      linalg.yield %u : f64
    } -> tensor<3x3xf64>
    scf.yield %r : tensor<3x3xf64>
  }
  return %rot : tensor<3x3xf64>
}""", [[np.array([0.3, -0.8, 0.5])], [np.array([1.2, 0.4, -0.1])]], [0]),

    # Hand tracking: relative bone transforms to absolute ones; the parent index
    # read from an i32 constant, an scf.if for the root, matmul of slices read
    # back from the loop-carried result at a dynamic offset.
    "relatives_to_absolutes": Case("""
func.func @f(%rel: tensor<3x3x3xf64>) -> tensor<3x3x3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %root = arith.constant -1 : i32
  %parents = arith.constant dense<[-1, 0, 1]> : tensor<3xi32>
  %init = arith.constant dense<0.0> : tensor<3x3x3xf64>
  %z33 = arith.constant dense<0.0> : tensor<3x3xf64>
  %res = scf.for %i = %c0 to %c3 step %c1 iter_args(%abs = %init) -> (tensor<3x3x3xf64>) {
    %p32 = tensor.extract %parents[%i] : tensor<3xi32>
    %rel_i = tensor.extract_slice %rel[%i, 0, 0] [1, 3, 3] [1, 1, 1] : tensor<3x3x3xf64> to tensor<3x3xf64>
    %is_root = arith.cmpi eq, %p32, %root : i32
    %new = scf.if %is_root -> (tensor<3x3xf64>) {
      scf.yield %rel_i : tensor<3x3xf64>
    } else {
      %p = arith.index_cast %p32 : i32 to index
      %abs_p = tensor.extract_slice %abs[%p, 0, 0] [1, 3, 3] [1, 1, 1] : tensor<3x3x3xf64> to tensor<3x3xf64>
      %m = linalg.matmul ins(%abs_p, %rel_i : tensor<3x3xf64>, tensor<3x3xf64>) outs(%z33 : tensor<3x3xf64>) -> tensor<3x3xf64>
      scf.yield %m : tensor<3x3xf64>
    }
    %abs2 = tensor.insert_slice %new into %abs[%i, 0, 0] [1, 3, 3] [1, 1, 1] : tensor<3x3xf64> into tensor<3x3x3xf64>
    scf.yield %abs2 : tensor<3x3x3xf64>
  }
  return %res : tensor<3x3x3xf64>
}""", [[_u(3, 3, 3)]], [0]),

    # Skinning: vertices transformed by each bone and blended by weights, one
    # four-loop generic with two reduction dims.
    "skinning_generic": Case("""
func.func @f(%t: tensor<2x3x3xf64>, %v: tensor<5x3xf64>, %w: tensor<5x2xf64>) -> tensor<5x3xf64> {
  %z = arith.constant dense<0.0> : tensor<5x3xf64>
  %r = linalg.generic {indexing_maps = [affine_map<(p, b, i, k) -> (b, i, k)>, affine_map<(p, b, i, k) -> (p, k)>,
                                        affine_map<(p, b, i, k) -> (p, b)>, affine_map<(p, b, i, k) -> (p, i)>],
                       iterator_types = ["parallel", "reduction", "parallel", "reduction"]}
      ins(%t, %v, %w : tensor<2x3x3xf64>, tensor<5x3xf64>, tensor<5x2xf64>) outs(%z : tensor<5x3xf64>) {
  ^bb0(%tv: f64, %vv: f64, %wv: f64, %acc: f64):
    %a = arith.mulf %tv, %vv : f64
    %b = arith.mulf %a, %wv : f64
    %s = arith.addf %b, %acc : f64
    linalg.yield %s : f64
  } -> tensor<5x3xf64>
  return %r : tensor<5x3xf64>
}""", [[_u(2, 3, 3), _u(5, 3), _u(5, 2)]], [0, 1, 2]),

    # Cross product by element extraction and from_elements.
    "cross_product": Case("""
func.func @f(%a: tensor<3xf64>, %b: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a0 = tensor.extract %a[%c0] : tensor<3xf64>
  %a1 = tensor.extract %a[%c1] : tensor<3xf64>
  %a2 = tensor.extract %a[%c2] : tensor<3xf64>
  %b0 = tensor.extract %b[%c0] : tensor<3xf64>
  %b1 = tensor.extract %b[%c1] : tensor<3xf64>
  %b2 = tensor.extract %b[%c2] : tensor<3xf64>
  %p0 = arith.mulf %a1, %b2 : f64
  %q0 = arith.mulf %a2, %b1 : f64
  %r0 = arith.subf %p0, %q0 : f64
  %p1 = arith.mulf %a2, %b0 : f64
  %q1 = arith.mulf %a0, %b2 : f64
  %r1 = arith.subf %p1, %q1 : f64
  %p2 = arith.mulf %a0, %b1 : f64
  %q2 = arith.mulf %a1, %b0 : f64
  %r2 = arith.subf %p2, %q2 : f64
  %r = tensor.from_elements %r0, %r1, %r2 : tensor<3xf64>
  return %r : tensor<3xf64>
}""", [[_u(3), _u(3)]], [0, 1]),

    # tensor.insert in a loop overwriting the same element (only the last write
    # survives) and writing the counter's element.
    "insert_overwrite_loop": Case("""
func.func @f(%x: tensor<4xf64>, %s: f64) -> tensor<4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c1 to %c4 step %c1 iter_args(%t = %x) -> (tensor<4xf64>) {
    %v = tensor.extract %t[%i] : tensor<4xf64>
    %w = tensor.extract %t[%c0] : tensor<4xf64>
    %a = arith.mulf %v, %s : f64
    %b = math.sin %w : f64
    %c = arith.addf %a, %b : f64
    %t1 = tensor.insert %c into %t[%c0] : tensor<4xf64>
    %d = arith.mulf %v, %v : f64
    %t2 = tensor.insert %d into %t1[%i] : tensor<4xf64>
    scf.yield %t2 : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}""", [[_u(4), 0.7]], [0, 1]),

    # LAGrad's nested-loop kernel shape: dot products of row slices inserted
    # element-wise, then a logsumexp per outer step, accumulated.
    "nested_slices_dot_logsumexp": Case(MAPS + """
func.func @f(%a: tensor<3x4xf64>, %b: tensor<2x4xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %zero = arith.constant 0.0 : f64
  %z0 = arith.constant dense<0.0> : tensor<f64>
  %space = tensor.empty() : tensor<2xf64>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %zero) -> (f64) {
    %row = tensor.extract_slice %a[%i, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
    %dots = scf.for %j = %c0 to %c2 step %c1 iter_args(%d = %space) -> (tensor<2xf64>) {
      %bj = tensor.extract_slice %b[%j, 0] [1, 4] [1, 1] : tensor<2x4xf64> to tensor<4xf64>
      %p = linalg.dot ins(%row, %bj : tensor<4xf64>, tensor<4xf64>) outs(%z0 : tensor<f64>) -> tensor<f64>
      %pv = tensor.extract %p[] : tensor<f64>
      %d2 = tensor.insert %pv into %d[%j] : tensor<2xf64>
      scf.yield %d2 : tensor<2xf64>
    }
    %se = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
        ins(%dots : tensor<2xf64>) outs(%z0 : tensor<f64>) {
    ^bb0(%v: f64, %s: f64):
      %e = math.exp %v : f64
      %t = arith.addf %e, %s : f64
      linalg.yield %t : f64
    } -> tensor<f64>
    %sev = tensor.extract %se[] : tensor<f64>
    %l = math.log %sev : f64
    %n = arith.addf %acc, %l : f64
    scf.yield %n : f64
  }
  return %r : f64
}""", [[_u(3, 4), _u(2, 4)]], [0, 1]),

    # Max of a tensor by a loop over elements with cmpf/select (a scalar carry).
    "loop_argmax_value": Case("""
func.func @f(%x: tensor<5xf64>, %y: tensor<5xf64>) -> (f64, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %x0 = tensor.extract %x[%c0] : tensor<5xf64>
  %r:2 = scf.for %i = %c1 to %c5 step %c1 iter_args(%m = %x0, %k = %c0) -> (f64, index) {
    %v = tensor.extract %x[%i] : tensor<5xf64>
    %p = arith.cmpf ogt, %v, %m : f64
    %m2 = arith.select %p, %v, %m : f64
    %k2 = arith.select %p, %i, %k : index
    scf.yield %m2, %k2 : f64, index
  }
  %yk = tensor.extract %y[%r#1] : tensor<5xf64>
  %out = arith.mulf %r#0, %yk : f64
  return %out, %r#1 : f64, index
}""", [[np.array([0.1, 0.9, -0.4, 0.5, 0.3]), _u(5)]], [0, 1]),

    # Rows rewritten one by one with extract_slice / insert_slice in a loop.
    "insert_slice_rows_loop": Case("""
func.func @f(%x: tensor<3x4xf64>, %w: tensor<4xf64>) -> tensor<3x4xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%t = %x) -> (tensor<3x4xf64>) {
    %row = tensor.extract_slice %t[%i, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
    %s = math.sin %row : tensor<4xf64>
    %m = arith.mulf %s, %w : tensor<4xf64>
    %t2 = tensor.insert_slice %m into %t[%i, 0] [1, 4] [1, 1] : tensor<4xf64> into tensor<3x4xf64>
    scf.yield %t2 : tensor<3x4xf64>
  }
  return %r : tensor<3x4xf64>
}""", [[_u(3, 4), _u(4)]], [0, 1]),

    # A generic body calling a function and capturing an outer scalar argument,
    # with linalg.index read as a float.
    "generic_call_and_closure": Case(MAPS + """
func.func private @softplus(%v: f64, %k: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %a = arith.mulf %v, %k : f64
  %e = math.exp %a : f64
  %s = arith.addf %one, %e : f64
  %l = math.log %s : f64
  return %l : f64
}
func.func @f(%x: tensor<2x3xf64>, %k: f64) -> tensor<2x3xf64> {
  %e = tensor.empty() : tensor<2x3xf64>
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf64>) outs(%e : tensor<2x3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %s = arith.addi %i, %j : index
    %si = arith.index_cast %s : index to i64
    %sf = arith.uitofp %si : i64 to f64
    %a = func.call @softplus(%v, %k) : (f64, f64) -> f64
    %b = arith.mulf %a, %sf : f64
    %c = arith.addf %b, %v : f64
    linalg.yield %c : f64
  } -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}""", [[_u(2, 3), 0.8]], [0, 1]),

    # Batched matmul followed by a softmax-normalized output along the last dim.
    "batch_matmul_softmax": Case("""
#i3 = affine_map<(b, m, n) -> (b, m, n)>
#r3 = affine_map<(b, m, n) -> (b, m)>
func.func @f(%a: tensor<2x3x4xf64>, %b: tensor<2x4x2xf64>) -> tensor<2x3x2xf64> {
  %z = arith.constant dense<0.0> : tensor<2x3x2xf64>
  %p = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf64>, tensor<2x4x2xf64>) outs(%z : tensor<2x3x2xf64>) -> tensor<2x3x2xf64>
  %e = math.exp %p : tensor<2x3x2xf64>
  %z2 = arith.constant dense<0.0> : tensor<2x3xf64>
  %s = linalg.generic {indexing_maps = [#i3, #r3], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%e : tensor<2x3x2xf64>) outs(%z2 : tensor<2x3xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %t = arith.addf %v, %acc : f64
    linalg.yield %t : f64
  } -> tensor<2x3xf64>
  %o = tensor.empty() : tensor<2x3x2xf64>
  %r = linalg.generic {indexing_maps = [#i3, #r3, #i3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%e, %s : tensor<2x3x2xf64>, tensor<2x3xf64>) outs(%o : tensor<2x3x2xf64>) {
  ^bb0(%v: f64, %t: f64, %u: f64):
    %d = arith.divf %v, %t : f64
    linalg.yield %d : f64
  } -> tensor<2x3x2xf64>
  return %r : tensor<2x3x2xf64>
}""", [[_u(2, 3, 4), _u(2, 4, 2)]], [0, 1]),

    # A parallel generic whose init is an argument the body reads (a non-constant out).
    "generic_reads_its_init": Case(MAPS + """
func.func @f(%x: tensor<2x3xf64>, %y: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %r = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x3xf64>) outs(%y : tensor<2x3xf64>) {
  ^bb0(%v: f64, %o: f64):
    %a = arith.mulf %v, %o : f64
    %s = math.sin %o : f64
    %b = arith.addf %a, %s : f64
    linalg.yield %b : f64
  } -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}""", [[_u(2, 3), _u(2, 3)]], [0, 1]),

    # collapse_shape / expand_shape around elementwise math and a matmul.
    "collapse_expand_matmul": Case("""
func.func @f(%x: tensor<2x3xf64>, %w: tensor<2x2xf64>) -> tensor<3x2xf64> {
  %flat = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %e = math.exp %flat : tensor<6xf64>
  %m = tensor.expand_shape %e [[0, 1]] output_shape [3, 2] : tensor<6xf64> into tensor<3x2xf64>
  %z = arith.constant dense<0.0> : tensor<3x2xf64>
  %r = linalg.matmul ins(%m, %w : tensor<3x2xf64>, tensor<2x2xf64>) outs(%z : tensor<3x2xf64>) -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}""", [[_u(2, 3), _u(2, 2)]], [0, 1]),

    # tensor.generate reading the argument transposed, with math in the body.
    "tensor_generate_transpose": Case("""
func.func @f(%x: tensor<2x3xf64>, %s: f64) -> tensor<3x2xf64> {
  %g = tensor.generate {
  ^bb0(%i: index, %j: index):
    %v = tensor.extract %x[%j, %i] : tensor<2x3xf64>
    %a = arith.mulf %v, %s : f64
    %t = math.tanh %a : f64
    tensor.yield %t : f64
  } : tensor<3x2xf64>
  return %g : tensor<3x2xf64>
}""", [[_u(2, 3), 1.3]], [0, 1]),

    # An i1 argument selects between two whole tensors, inside and outside an scf.if.
    "select_tensors_on_flag": Case("""
func.func @f(%x: tensor<4xf64>, %y: tensor<4xf64>, %p: i1) -> tensor<4xf64> {
  %a = math.sin %x : tensor<4xf64>
  %b = arith.mulf %x, %y : tensor<4xf64>
  %s = arith.select %p, %a, %b : tensor<4xf64>
  %r = scf.if %p -> (tensor<4xf64>) {
    %c = arith.addf %s, %y : tensor<4xf64>
    scf.yield %c : tensor<4xf64>
  } else {
    %c = math.exp %s : tensor<4xf64>
    scf.yield %c : tensor<4xf64>
  }
  return %r : tensor<4xf64>
}""", [[_u(4), _u(4), np.bool_(True)], [_u(4), _u(4), np.bool_(False)]], [0, 1]),

    # A loop whose second carry never depends on the differentiated argument
    # (Enzyme's partially inactive loop), and an argument used as the loop init.
    "for_partially_inactive_carry": Case("""
func.func @f(%x: f64, %c: f64) -> (f64, f64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %k = arith.constant 0.5 : f64
  %r:2 = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %x, %b = %c) -> (f64, f64) {
    %b2 = arith.mulf %b, %k : f64
    %s = math.sin %a : f64
    %t = arith.mulf %s, %b2 : f64
    %a2 = arith.addf %a, %t : f64
    scf.yield %a2, %b2 : f64, f64
  }
  return %r#0, %r#1 : f64, f64
}""", [[0.4, 1.7]], [0]),

    # Bundle-adjustment-like projection: points rotated by a matrix, translated,
    # divided by depth, with a radial distortion (tensor-level arith on slices).
    "project_points": Case(MAPS + """
func.func @f(%r: tensor<3x3xf64>, %t: tensor<3xf64>, %pts: tensor<4x3xf64>, %k: f64) -> tensor<4x2xf64> {
  %z = arith.constant dense<0.0> : tensor<4x3xf64>
  %e = tensor.empty() : tensor<3x4xf64>
  %pt = linalg.transpose ins(%pts : tensor<4x3xf64>) outs(%e : tensor<3x4xf64>) permutation = [1, 0]
  %z34 = arith.constant dense<0.0> : tensor<3x4xf64>
  %rp = linalg.matmul ins(%r, %pt : tensor<3x3xf64>, tensor<3x4xf64>) outs(%z34 : tensor<3x4xf64>) -> tensor<3x4xf64>
  %cam = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%rp, %t : tensor<3x4xf64>, tensor<3xf64>) outs(%z34 : tensor<3x4xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %s = arith.addf %a, %b : f64
    linalg.yield %s : f64
  } -> tensor<3x4xf64>
  %xy = tensor.extract_slice %cam[0, 0] [2, 4] [1, 1] : tensor<3x4xf64> to tensor<2x4xf64>
  %depth = tensor.extract_slice %cam[2, 0] [1, 4] [1, 1] : tensor<3x4xf64> to tensor<4xf64>
  %e24 = tensor.empty() : tensor<2x4xf64>
  %proj = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%xy, %depth : tensor<2x4xf64>, tensor<4xf64>) outs(%e24 : tensor<2x4xf64>) {
  ^bb0(%a: f64, %d: f64, %o: f64):
    %q = arith.divf %a, %d : f64
    linalg.yield %q : f64
  } -> tensor<2x4xf64>
  %z4 = arith.constant dense<0.0> : tensor<4xf64>
  %r2 = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]}
      ins(%proj : tensor<2x4xf64>) outs(%z4 : tensor<4xf64>) {
  ^bb0(%a: f64, %acc: f64):
    %q = arith.mulf %a, %a : f64
    %s = arith.addf %q, %acc : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  %e42 = tensor.empty() : tensor<4x2xf64>
  %out = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, #row, #id2],
                         iterator_types = ["parallel", "parallel"]}
      ins(%proj, %r2 : tensor<2x4xf64>, tensor<4xf64>) outs(%e42 : tensor<4x2xf64>) {
  ^bb0(%a: f64, %rr: f64, %o: f64):
    %one = arith.constant 1.0 : f64
    %kr = arith.mulf %k, %rr : f64
    %dist = arith.addf %one, %kr : f64
    %q = arith.mulf %a, %dist : f64
    linalg.yield %q : f64
  } -> tensor<4x2xf64>
  return %out : tensor<4x2xf64>
}""", [[np.eye(3) + 0.1 * _u(3, 3), np.array([0.1, -0.2, 4.0]), _u(4, 3), 0.05]], [0, 1, 2, 3]),

    # A sparse constant (LAGrad writes identities this way) added to the argument.
    "sparse_const_eye": Case("""
func.func @f(%x: tensor<3x3xf64>) -> tensor<3x3xf64> {
  %eye = arith.constant sparse<[[0, 0], [1, 1], [2, 2]], 1.0> : tensor<3x3xf64>
  %r = arith.addf %x, %eye : tensor<3x3xf64>
  %s = arith.mulf %r, %r : tensor<3x3xf64>
  return %s : tensor<3x3xf64>
}""", [[_u(3, 3)]], [0]),

    # A generic body gathering from a captured active tensor with tensor.extract at linalg.index + 1.
    "generic_gathers_captured_tensor": Case(MAPS + """
func.func @f(%x: tensor<4xf64>, %tbl: tensor<5xf64>) -> tensor<4xf64> {
  %e = tensor.empty() : tensor<4xf64>
  %r = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%x : tensor<4xf64>) outs(%e : tensor<4xf64>) {
  ^bb0(%v: f64, %o: f64):
    %i = linalg.index 0 : index
    %c1 = arith.constant 1 : index
    %j = arith.addi %i, %c1 : index
    %t = tensor.extract %tbl[%j] : tensor<5xf64>
    %a = arith.mulf %v, %t : f64
    %s = math.sin %a : f64
    linalg.yield %s : f64
  } -> tensor<4xf64>
  return %r : tensor<4xf64>
}""", [[_u(4), _u(5)]], [0, 1]),

    # One generic with two reduction outputs: a running max and an exp-sum.
    "generic_max_and_sum_outputs": Case(MAPS + """
func.func @f(%x: tensor<3x4xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %lo = arith.constant -1.0e30 : f64
  %zero = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %m0 = linalg.fill ins(%lo : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %s0 = linalg.fill ins(%zero : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r:2 = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%m0, %s0 : tensor<3xf64>, tensor<3xf64>) {
  ^bb0(%v: f64, %m: f64, %s: f64):
    %a = arith.maxnumf %v, %m : f64
    %q = math.exp %v : f64
    %b = arith.addf %s, %q : f64
    linalg.yield %a, %b : f64, f64
  } -> (tensor<3xf64>, tensor<3xf64>)
  return %r#0, %r#1 : tensor<3xf64>, tensor<3xf64>
}""", [[_u(3, 4)]], [0]),

    # linalg.reduce over two dims feeding the init of a linalg.vecmat.
    "reduce_two_dims_and_vecmat": Case("""
func.func @f(%x: tensor<2x3x4xf64>, %v: tensor<2xf64>, %m: tensor<2x3xf64>) -> (tensor<3xf64>, tensor<3xf64>) {
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %s = linalg.reduce ins(%x : tensor<2x3x4xf64>) outs(%z : tensor<3xf64>) dimensions = [0, 2]
    (%in: f64, %acc: f64) {
      %q = arith.mulf %in, %in : f64
      %t = arith.addf %q, %acc : f64
      linalg.yield %t : f64
    }
  %y = linalg.vecmat ins(%v, %m : tensor<2xf64>, tensor<2x3xf64>) outs(%s : tensor<3xf64>) -> tensor<3xf64>
  return %s, %y : tensor<3xf64>, tensor<3xf64>
}""", [[_u(2, 3, 4), _u(2), _u(2, 3)]], [0, 1, 2]),

    # linalg.fill of an active scalar as a matvec init; linalg.dot into an active 0-d init.
    "fill_active_scalar_dot_active_init": Case("""
func.func @f(%s: f64, %a: tensor<3x2xf64>, %x: tensor<2xf64>, %y: tensor<2xf64>, %init: tensor<f64>) -> (tensor<3xf64>, tensor<f64>) {
  %e = tensor.empty() : tensor<3xf64>
  %fl = linalg.fill ins(%s : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %r = linalg.matvec ins(%a, %x : tensor<3x2xf64>, tensor<2xf64>) outs(%fl : tensor<3xf64>) -> tensor<3xf64>
  %d = linalg.dot ins(%x, %y : tensor<2xf64>, tensor<2xf64>) outs(%init : tensor<f64>) -> tensor<f64>
  return %r, %d : tensor<3xf64>, tensor<f64>
}""", [[0.7, _u(3, 2), _u(2), _u(2), np.array(0.4)]], [0, 1, 2, 3, 4]),

    # scf.while over a tensor whose condition is a generic reduction (a norm) of the carry.
    "while_tensor_float_condition": Case(MAPS + """
func.func @f(%x: tensor<3xf64>, %g: f64) -> tensor<3xf64> {
  %lim = arith.constant 8.0 : f64
  %z = arith.constant dense<0.0> : tensor<f64>
  %r = scf.while (%v = %x) : (tensor<3xf64>) -> tensor<3xf64> {
    %s = linalg.generic {indexing_maps = [#id1, #to0], iterator_types = ["reduction"]}
        ins(%v : tensor<3xf64>) outs(%z : tensor<f64>) {
    ^bb0(%a: f64, %acc: f64):
      %q = arith.mulf %a, %a : f64
      %t = arith.addf %q, %acc : f64
      linalg.yield %t : f64
    } -> tensor<f64>
    %sv = tensor.extract %s[] : tensor<f64>
    %go = arith.cmpf olt, %sv, %lim : f64
    scf.condition(%go) %v : tensor<3xf64>
  } do {
  ^bb0(%w: tensor<3xf64>):
    %gs = tensor.splat %g : tensor<3xf64>
    %m = arith.mulf %w, %gs : tensor<3xf64>
    %a = arith.addf %m, %x : tensor<3xf64>
    scf.yield %a : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}""", [[np.array([0.3, -0.5, 0.4]), 1.37]], [0, 1]),

    # A reduction generic accumulating into the loop-carried tensor as its init.
    "for_generic_outs_is_carry": Case(MAPS + """
func.func @f(%x: tensor<3x4xf64>, %h0: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %h0) -> (tensor<3xf64>) {
    %t = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<3x4xf64>) outs(%h : tensor<3xf64>) {
    ^bb0(%v: f64, %acc: f64):
      %p = math.sin %v : f64
      %s = arith.addf %p, %acc : f64
      linalg.yield %s : f64
    } -> tensor<3xf64>
    %u = math.tanh %t : tensor<3xf64>
    scf.yield %u : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}""", [[_u(3, 4), _u(3)]], [0, 1]),

    # 2x2 blocks read and rewritten at offsets from two nested counters (step 2).
    "blocks_insert_slice_two_counters": Case("""
func.func @f(%x: tensor<4x4xf64>, %w: tensor<2x2xf64>) -> tensor<4x4xf64> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant dense<0.0> : tensor<2x2xf64>
  %r = scf.for %i = %c0 to %c4 step %c2 iter_args(%t = %x) -> (tensor<4x4xf64>) {
    %r2 = scf.for %j = %c0 to %c4 step %c2 iter_args(%u = %t) -> (tensor<4x4xf64>) {
      %blk = tensor.extract_slice %u[%i, %j] [2, 2] [1, 1] : tensor<4x4xf64> to tensor<2x2xf64>
      %m = linalg.matmul ins(%blk, %w : tensor<2x2xf64>, tensor<2x2xf64>) outs(%z : tensor<2x2xf64>) -> tensor<2x2xf64>
      %s = math.sin %m : tensor<2x2xf64>
      %u2 = tensor.insert_slice %s into %u[%i, %j] [2, 2] [1, 1] : tensor<2x2xf64> into tensor<4x4xf64>
      scf.yield %u2 : tensor<4x4xf64>
    }
    scf.yield %r2 : tensor<4x4xf64>
  }
  return %r : tensor<4x4xf64>
}""", [[_u(4, 4), _u(2, 2)]], [0, 1]),

    # tensor.concat then tensor.pad with a constant.
    "concat_and_pad": Case("""
func.func @f(%a: tensor<2xf64>, %b: tensor<3xf64>) -> tensor<7xf64> {
  %c = tensor.concat dim(0) %a, %b : (tensor<2xf64>, tensor<3xf64>) -> tensor<5xf64>
  %e = math.exp %c : tensor<5xf64>
  %zero = arith.constant 0.0 : f64
  %p = tensor.pad %e low[1] high[1] {
  ^bb0(%i: index):
    tensor.yield %zero : f64
  } : tensor<5xf64> to tensor<7xf64>
  %s = arith.mulf %p, %p : tensor<7xf64>
  return %s : tensor<7xf64>
}""", [[_u(2), _u(3)]], [0, 1]),

    # extract_slice and insert_slice with strides 2 and 3.
    "strided_slices": Case("""
func.func @f(%x: tensor<7xf64>, %y: tensor<3xf64>) -> (tensor<3xf64>, tensor<7xf64>) {
  %s = tensor.extract_slice %x[1] [3] [2] : tensor<7xf64> to tensor<3xf64>
  %e = math.exp %s : tensor<3xf64>
  %m = arith.mulf %e, %y : tensor<3xf64>
  %ins = tensor.insert_slice %m into %x[0] [3] [3] : tensor<3xf64> into tensor<7xf64>
  %q = arith.mulf %ins, %ins : tensor<7xf64>
  return %m, %q : tensor<3xf64>, tensor<7xf64>
}""", [[_u(7), _u(3)]], [0, 1]),

    # A generic whose output map is a transpose, with a broadcast input.
    "generic_transposed_output_map": Case(MAPS + """
func.func @f(%x: tensor<2x3xf64>, %b: tensor<3xf64>) -> tensor<3x2xf64> {
  %e = tensor.empty() : tensor<3x2xf64>
  %r = linalg.generic {indexing_maps = [#id2, #col, affine_map<(d0, d1) -> (d1, d0)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : tensor<2x3xf64>, tensor<3xf64>) outs(%e : tensor<3x2xf64>) {
  ^bb0(%v: f64, %w: f64, %o: f64):
    %a = arith.mulf %v, %w : f64
    %c = math.cos %a : f64
    linalg.yield %c : f64
  } -> tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}""", [[_u(2, 3), _u(3)]], [0, 1]),

    # A generic reading the first column through a constant-index map (d0, 0).
    "generic_constant_index_map": Case(MAPS + """
func.func @f(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %r = linalg.generic {indexing_maps = [#id2, affine_map<(d0, d1) -> (d0, 0)>, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x, %x : tensor<3x4xf64>, tensor<3x4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%v: f64, %first: f64, %o: f64):
    %a = arith.subf %v, %first : f64
    %c = math.sin %a : f64
    %d = arith.addf %c, %first : f64
    linalg.yield %d : f64
  } -> tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}""", [[_u(3, 4)]], [0]),

    # Nested func.calls over tensors (a callee calling another twice) in an scf.while body.
    "nested_calls_tensors_in_while": Case("""
func.func private @inner(%v: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %m = arith.mulf %v, %w : tensor<3xf64>
  %t = math.tanh %m : tensor<3xf64>
  return %t : tensor<3xf64>
}
func.func private @outer(%v: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %a = func.call @inner(%v, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %b = func.call @inner(%a, %v) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
  %c = arith.addf %a, %b : tensor<3xf64>
  return %c : tensor<3xf64>
}
func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r:2 = scf.while (%i = %c0, %v = %x) : (index, tensor<3xf64>) -> (index, tensor<3xf64>) {
    %go = arith.cmpi ult, %i, %c3 : index
    scf.condition(%go) %i, %v : index, tensor<3xf64>
  } do {
  ^bb0(%j: index, %u: tensor<3xf64>):
    %n = func.call @outer(%u, %w) : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xf64>
    %j1 = arith.addi %j, %c1 : index
    scf.yield %j1, %n : index, tensor<3xf64>
  }
  return %r#1 : tensor<3xf64>
}""", [[_u(3), _u(3)]], [0, 1]),

    # Hand skinning as LAGrad writes it: a loop over bones, a column-major generic matmul of
    # each bone's slice, a weight column sliced at the counter, accumulated into the carry as init.
    "skinning_loop_over_bones": Case("""
func.func @f(%t: tensor<3x4x4xf64>, %base: tensor<5x4xf64>, %w: tensor<5x3xf64>) -> tensor<5x3xf64> {
  %init = arith.constant dense<0.0> : tensor<5x3xf64>
  %z54 = arith.constant dense<0.0> : tensor<5x4xf64>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %b = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<5x3xf64>) {
    %tb = tensor.extract_slice %t[%b, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<3x4x4xf64> to tensor<4x4xf64>
    %cur = linalg.generic {indexing_maps = [affine_map<(i, v, k) -> (k, i)>, affine_map<(i, v, k) -> (v, k)>,
                                            affine_map<(i, v, k) -> (v, i)>],
                           iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%tb, %base : tensor<4x4xf64>, tensor<5x4xf64>) outs(%z54 : tensor<5x4xf64>) {
    ^bb0(%a: f64, %p: f64, %o: f64):
      %m = arith.mulf %a, %p : f64
      %s = arith.addf %m, %o : f64
      linalg.yield %s : f64
    } -> tensor<5x4xf64>
    %xyz = tensor.extract_slice %cur[0, 0] [5, 3] [1, 1] : tensor<5x4xf64> to tensor<5x3xf64>
    %wb = tensor.extract_slice %w[0, %b] [5, 1] [1, 1] : tensor<5x3xf64> to tensor<5xf64>
    %next = linalg.generic {indexing_maps = [affine_map<(v, i) -> (v, i)>, affine_map<(v, i) -> (v)>, affine_map<(v, i) -> (v, i)>],
                            iterator_types = ["parallel", "parallel"]}
        ins(%xyz, %wb : tensor<5x3xf64>, tensor<5xf64>) outs(%acc : tensor<5x3xf64>) {
    ^bb0(%a: f64, %ww: f64, %o: f64):
      %m = arith.mulf %a, %ww : f64
      %s = arith.addf %m, %o : f64
      linalg.yield %s : f64
    } -> tensor<5x3xf64>
    scf.yield %next : tensor<5x3xf64>
  }
  return %r : tensor<5x3xf64>
}""", [[_u(3, 4, 4), _u(5, 4), _u(5, 3)]], [0, 1, 2]),

    # tensor.reshape by a shape constant, and named linalg.broadcast of both operands.
    "reshape_broadcast_named": Case("""
func.func @f(%x: tensor<6xf64>, %v: tensor<2xf64>) -> tensor<2x3x2xf64> {
  %shape = arith.constant dense<[3, 2]> : tensor<2xi64>
  %m = tensor.reshape %x(%shape) : (tensor<6xf64>, tensor<2xi64>) -> tensor<3x2xf64>
  %e = tensor.empty() : tensor<2x3x2xf64>
  %b = linalg.broadcast ins(%m : tensor<3x2xf64>) outs(%e : tensor<2x3x2xf64>) dimensions = [0]
  %bv = linalg.broadcast ins(%v : tensor<2xf64>) outs(%e : tensor<2x3x2xf64>) dimensions = [1, 2]
  %p = arith.mulf %b, %bv : tensor<2x3x2xf64>
  %s = math.sin %p : tensor<2x3x2xf64>
  return %s : tensor<2x3x2xf64>
}""", [[_u(6), _u(2)]], [0, 1]),

    # A product of elements by a scalar loop (LAGrad's scf product).
    "for_product_reduction_scalar_loop": Case("""
func.func @f(%x: tensor<5xf64>) -> f64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %one = arith.constant 1.0 : f64
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%p = %one) -> (f64) {
    %v = tensor.extract %x[%i] : tensor<5xf64>
    %q = arith.mulf %p, %v : f64
    scf.yield %q : f64
  }
  return %r : f64
}""", [[_u(5, low=0.5, high=1.5)]], [0]),

    # A small f32 kernel: matvec, logsumexp by linalg.reduce, scalar result.
    "matvec_logsumexp_f32": Case("""
func.func @f(%m: tensor<4x3xf32>, %x: tensor<3xf32>) -> f32 {
  %z = arith.constant dense<0.0> : tensor<4xf32>
  %y = linalg.matvec ins(%m, %x : tensor<4x3xf32>, tensor<3xf32>) outs(%z : tensor<4xf32>) -> tensor<4xf32>
  %e = math.exp %y : tensor<4xf32>
  %z0 = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.reduce ins(%e : tensor<4xf32>) outs(%z0 : tensor<f32>) dimensions = [0]
    (%in: f32, %acc: f32) {
      %t = arith.addf %in, %acc : f32
      linalg.yield %t : f32
    }
  %sv = tensor.extract %s[] : tensor<f32>
  %l = math.log %sv : f32
  return %l : f32
}""", [[_u(4, 3, dtype=np.float32), _u(3, dtype=np.float32)]], [0, 1], F32_TOL),
}

CORPUS = {**ENZYME, **LAGRAD}

# (name, mode) -> reason, for the pairs that fail on a missing feature (strict: a fix must update this table).
XFAIL = {
    ("recursion_power", "fwd"): "recursive func.call: @pw_jvp_wrt0 depends on its own derivative",
    ("recursion_power", "rev"): "recursive func.call: @pw_vjp_wrt0 depends on its own derivative",
    ("while_do_before_computes", "rev"):
        "no vjp rule for scf.while whose condition region changes its float carry",
    ("generic_gathers_captured_tensor", "fwd"):
        "no jvp rule for linalg.generic whose body reads (tensor.extract) an active tensor it captures",
    ("generic_gathers_captured_tensor", "rev"):
        "no vjp rule for linalg.generic whose body reads (tensor.extract) an active tensor it captures",
}


def _params():
    for name in sorted(CORPUS):
        for mode in ("fwd", "rev"):
            marks = ()
            if (name, mode) in XFAIL:
                marks = pytest.mark.xfail(strict=True, reason=XFAIL[name, mode])
            yield pytest.param(name, mode, marks=marks, id=f"{name}-{'jvp' if mode == 'fwd' else 'vjp'}")


def test_corpus_is_large_and_every_case_has_points():
    assert len(CORPUS) >= 30
    for name, case in CORPUS.items():
        assert case.points and case.wrt, name
        assert all(len(p) == len(case.points[0]) for p in case.points), name


@pytest.mark.parametrize("name,mode", list(_params()))
def test_corpus_program_matches_finite_differences(name, mode):
    case = CORPUS[name]
    source = case.source + declarations(case.source, case.wrt, (mode,))
    for point in case.points:
        check_ir(source, point, case.wrt, modes=(mode,), **case.tol)
