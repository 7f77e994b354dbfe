"""Functions of scalars (``f64``, ``f32``; ``i1``, ``i64``, ``index`` inactive), as Enzyme-MLIR writes them.

Each module declares its vjp/jvp; ``compile_mlir`` runs it with scalar
arguments and results (0-d arrays), checked against closed forms and
central finite differences.
"""

import numpy as np
import pytest

import tensorad as ta

SQUARE = """
func.func @square(%x: f64) -> f64 {
  %0 = arith.mulf %x, %x : f64
  return %0 : f64
}
func.func private @square_vjp(f64, f64) -> (f64, f64) attributes {tad.vjp = {of = @square, wrt = array<i64: 0>}}
func.func private @square_jvp(f64, f64) -> (f64, f64) attributes {tad.jvp = {of = @square, wrt = array<i64: 0>}}
"""

TRIG = """
func.func @trig(%x: f32, %y: f32) -> f32 {
  %0 = math.sin %x : f32
  %1 = math.exp %y : f32
  %2 = arith.mulf %0, %1 : f32
  %c = arith.constant 2.0 : f32
  %3 = arith.addf %2, %c : f32
  return %3 : f32
}
func.func private @trig_vjp(f32, f32, f32) -> (f32, f32, f32) attributes {tad.vjp = {of = @trig, wrt = array<i64: 0, 1>}}
func.func private @trig_jvp(f32, f32, f32, f32) -> (f32, f32) attributes {tad.jvp = {of = @trig, wrt = array<i64: 0, 1>}}
"""

RELU = """
func.func @gate(%x: f64, %b: i1) -> f64 {
  %z = arith.constant 0.0 : f64
  %s = math.sin %x : f64
  %0 = arith.select %b, %s, %z : f64
  return %0 : f64
}
func.func private @gate_vjp(f64, i1, f64) -> (f64, f64) attributes {tad.vjp = {of = @gate, wrt = array<i64: 0>}}
func.func private @gate_jvp(f64, i1, f64) -> (f64, f64) attributes {tad.jvp = {of = @gate, wrt = array<i64: 0>}}
"""

POWER = """
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
"""

BRANCH = """
func.func @branch(%x: f64, %n: i64) -> (f64, index) {
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
  %i = arith.index_cast %n : i64 to index
  return %r, %i : f64, index
}
func.func private @branch_vjp(f64, i64, f64, index) -> (f64, index, f64) attributes {tad.vjp = {of = @branch, wrt = array<i64: 0>}}
func.func private @branch_jvp(f64, i64, f64) -> (f64, index, f64, index) attributes {tad.jvp = {of = @branch, wrt = array<i64: 0>}}
"""

HALVE = """
func.func @halve(%x: f64) -> f64 {
  %one = arith.constant 1.0 : f64
  %r = scf.while (%v = %x) : (f64) -> f64 {
    %c = arith.cmpf ogt, %v, %one : f64
    scf.condition(%c) %v : f64
  } do {
  ^bb0(%w: f64):
    %h = arith.mulf %w, %w : f64
    %s = math.sqrt %h : f64
    %q = math.sqrt %s : f64
    scf.yield %q : f64
  }
  return %r : f64
}
func.func private @halve_vjp(f64, f64) -> (f64, f64) attributes {tad.vjp = {of = @halve, wrt = array<i64: 0>}}
func.func private @halve_jvp(f64, f64) -> (f64, f64) attributes {tad.jvp = {of = @halve, wrt = array<i64: 0>}}
"""

CUBE = """
func.func @cube(%x: f64) -> f64 {
  %0 = arith.mulf %x, %x : f64
  %1 = arith.mulf %0, %x : f64
  return %1 : f64
}
func.func private @cube_vjp(f64, tensor<3xf64>) -> (f64, tensor<3xf64>) attributes {tad.vjp = {of = @cube, wrt = array<i64: 0>}}
func.func private @cube_jvp(f64, tensor<2xf64>) -> (f64, tensor<2xf64>) attributes {tad.jvp = {of = @cube, wrt = array<i64: 0>}}
"""


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def test_square_both_modes():
    vjp = ta.compile_mlir(SQUARE, "square_vjp")
    jvp = ta.compile_mlir(SQUARE, "square_jvp")
    value, grad = vjp(3.0, 2.0)
    assert value.shape == () and value.dtype == np.float64
    assert value == 9.0 and grad == 12.0
    value, tangent = jvp(-1.5, 0.5)
    assert value == 2.25 and tangent == -1.5
    assert ta.compile_mlir(SQUARE, "square")(np.float64(2.5)) == 6.25


def test_trig_f32_matches_closed_form():
    x, y = np.float32(0.7), np.float32(-0.3)
    value, gx, gy = ta.compile_mlir(TRIG, "trig_vjp")(x, y, np.float32(1.0))
    assert value.dtype == np.float32
    np.testing.assert_allclose(value, np.sin(x) * np.exp(y) + 2, rtol=1e-6)
    np.testing.assert_allclose(gx, np.cos(x) * np.exp(y), rtol=1e-6)
    np.testing.assert_allclose(gy, np.sin(x) * np.exp(y), rtol=1e-6)
    _, tangent = ta.compile_mlir(TRIG, "trig_jvp")(x, y, np.float32(2.0), np.float32(-1.0))
    np.testing.assert_allclose(tangent, 2 * gx - gy, rtol=1e-5)


@pytest.mark.parametrize("flag", [True, False])
def test_select_on_scalar_condition(flag):
    x = 0.4
    value, grad = ta.compile_mlir(RELU, "gate_vjp")(x, np.bool_(flag), 1.0)
    assert value == (np.sin(x) if flag else 0.0)
    assert grad == (np.cos(x) if flag else 0.0)
    _, tangent = ta.compile_mlir(RELU, "gate_jvp")(x, np.bool_(flag), 3.0)
    assert tangent == pytest.approx(3 * np.cos(x) if flag else 0.0)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_for_loop_with_scalar_carry_and_index_argument(n):
    x = 1.3
    value, grad = ta.compile_mlir(POWER, "power_vjp")(x, np.int64(n), 1.0)
    assert value == pytest.approx(x ** n)
    assert grad == pytest.approx(n * x ** (n - 1) if n else 0.0)
    value, tangent = ta.compile_mlir(POWER, "power_jvp")(x, np.int64(n), 0.5)
    assert tangent == pytest.approx(0.5 * n * x ** (n - 1) if n else 0.0)


@pytest.mark.parametrize("n", [-2, 3])
def test_if_with_integer_argument_and_index_result(n):
    x = 0.25
    primal = ta.compile_mlir(BRANCH, "branch")
    value, index, grad = ta.compile_mlir(BRANCH, "branch_vjp")(x, np.int64(n), 1.0, np.int64(0))
    assert int(index) == n
    assert value == pytest.approx(x * n if n > 0 else np.exp(x))
    assert grad == pytest.approx(_fd(lambda v: primal(v, np.int64(n))[0], x))
    value, index, tangent, index_tangent = ta.compile_mlir(BRANCH, "branch_jvp")(x, np.int64(n), 1.0)
    assert tangent == pytest.approx(grad) and int(index_tangent) == 0


def test_while_loop_with_scalar_carry():
    # x -> sqrt(|x|) until x <= 1: the result is x ** (1 / 2**k) for the number k of steps.
    x = 20.0
    primal = ta.compile_mlir(HALVE, "halve")
    value, grad = ta.compile_mlir(HALVE, "halve_vjp")(x, 1.0)
    assert value == pytest.approx(primal(x))
    assert grad == pytest.approx(_fd(primal, x), rel=1e-5)
    _, tangent = ta.compile_mlir(HALVE, "halve_jvp")(x, 1.0)
    assert tangent == pytest.approx(grad)


def test_batched_cotangents_of_a_scalar_result_are_vectors():
    x = 1.5
    value, grads = ta.compile_mlir(CUBE, "cube_vjp")(x, np.array([1.0, 2.0, -1.0]))
    assert value == pytest.approx(x ** 3)
    np.testing.assert_allclose(grads, 3 * x ** 2 * np.array([1.0, 2.0, -1.0]))
    _, tangents = ta.compile_mlir(CUBE, "cube_jvp")(x, np.array([0.5, 4.0]))
    np.testing.assert_allclose(tangents, 3 * x ** 2 * np.array([0.5, 4.0]))


def test_mistyped_scalar_declaration_is_refused():
    bad = SQUARE.replace("@square_vjp(f64, f64) -> (f64, f64)", "@square_vjp(f64, f32) -> (f64, f64)")
    with pytest.raises(ta.CompileError, match="square_vjp is declared as"):
        ta.compile_mlir(bad, "square_vjp")
