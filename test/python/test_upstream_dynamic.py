"""Dynamic shapes (issue 14): ``tensor<?x...>`` IR differentiated in both modes and run at several sizes.

Each case of ``test/lit/upstream/dynamic.mlir`` (and a few more) is compiled
once per entry point (``@f``, ``@f_jvp``, ``@f_vjp``) and checked by
:func:`mlir_derivatives.check_ir` at two or three sizes of its ``?`` dims
against float64 finite differences (jvp) and the dot-product test (vjp).
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

import tensorad as ta
from mlir_derivatives import check_ir

CORPUS = Path(__file__).resolve().parents[1] / "lit" / "upstream" / "dynamic.mlir"


def _cases() -> dict:
    """The functions of the lit corpus, each with its declarations, by name."""
    cases = {}
    for chunk in CORPUS.read_text().split("// -----"):
        code = "\n".join(line for line in chunk.splitlines() if not line.lstrip().startswith("//"))
        name = re.search(r"func\.func @(\w+)\(", code).group(1)
        # check_ir's entry points are @f, @f_jvp and @f_vjp.
        cases[name] = code.replace(f"@{name}", "@f")
    return cases


CASES = _cases()
MATVEC = """
func.func @f(%a: tensor<3x?xf64>, %x: tensor<?xf64>) -> tensor<f64> {
  %0 = "tad.dot_general"(%a, %x) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
      lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<3x?xf64>, tensor<?xf64>) -> tensor<3xf64>
  %1 = "tad.logistic"(%0) : (tensor<3xf64>) -> tensor<3xf64>
  %2 = "tad.dot_general"(%x, %x) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
      lhs_contracting_dimensions = array<i64: 0>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<?xf64>, tensor<?xf64>) -> tensor<f64>
  %3 = "tad.reduce_sum"(%1) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  %4 = arith.mulf %2, %3 : tensor<f64>
  return %4 : tensor<f64>
}
func.func private @f_vjp(tensor<3x?xf64>, tensor<?xf64>, tensor<f64>)
    -> (tensor<f64>, tensor<3x?xf64>, tensor<?xf64>) attributes {tad.vjp = {of = @f, wrt = array<i64: 0, 1>}}
func.func private @f_jvp(tensor<3x?xf64>, tensor<?xf64>, tensor<3x?xf64>, tensor<?xf64>)
    -> (tensor<f64>, tensor<f64>) attributes {tad.jvp = {of = @f, wrt = array<i64: 0, 1>}}
"""
ARGMAX = """
func.func @f(%x: tensor<?x4xf64>) -> (tensor<?x1x2x2xf64>, tensor<?xi64>) {
  %0 = "tad.reshape"(%x) : (tensor<?x4xf64>) -> tensor<?x1x2x2xf64>
  %1 = math.exp %0 : tensor<?x1x2x2xf64>
  %2 = "tad.argmax"(%x) {axis = 1} : (tensor<?x4xf64>) -> tensor<?xi64>
  return %1, %2 : tensor<?x1x2x2xf64>, tensor<?xi64>
}
func.func private @f_vjp(tensor<?x4xf64>, tensor<?x1x2x2xf64>, tensor<?xi64>)
    -> (tensor<?x1x2x2xf64>, tensor<?xi64>, tensor<?x4xf64>) attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
func.func private @f_jvp(tensor<?x4xf64>, tensor<?x4xf64>)
    -> (tensor<?x1x2x2xf64>, tensor<?xi64>, tensor<?x1x2x2xf64>, tensor<?xi64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
"""

# A callee of dynamic shapes, differentiated for the call.
CALL = """
func.func private @g(%x: tensor<?x2xf64>, %w: tensor<2x3xf64>) -> tensor<?x3xf64> {
  %0 = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
      lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<?x2xf64>, tensor<2x3xf64>) -> tensor<?x3xf64>
  %1 = math.tanh %0 : tensor<?x3xf64>
  return %1 : tensor<?x3xf64>
}
func.func @f(%x: tensor<?x2xf64>, %w: tensor<2x3xf64>) -> tensor<3xf64> {
  %0 = func.call @g(%x, %w) : (tensor<?x2xf64>, tensor<2x3xf64>) -> tensor<?x3xf64>
  %1 = math.exp %0 : tensor<?x3xf64>
  %2 = "tad.reduce_sum"(%1) {dimensions = array<i64: 0>} : (tensor<?x3xf64>) -> tensor<3xf64>
  return %2 : tensor<3xf64>
}
func.func private @f_vjp(tensor<?x2xf64>, tensor<2x3xf64>, tensor<3xf64>)
    -> (tensor<3xf64>, tensor<?x2xf64>, tensor<2x3xf64>) attributes {tad.vjp = {of = @f, wrt = array<i64: 0, 1>}}
func.func private @f_jvp(tensor<?x2xf64>, tensor<2x3xf64>, tensor<?x2xf64>, tensor<2x3xf64>)
    -> (tensor<3xf64>, tensor<3xf64>) attributes {tad.jvp = {of = @f, wrt = array<i64: 0, 1>}}
"""

# A custom_jvp rule of dynamic shapes: the jvp calls it, the vjp transposes it.
CUSTOM_JVP = """
func.func @rule(%x: tensor<?xf64>, %t: tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>) {
  %0 = math.sin %x : tensor<?xf64>
  %1 = math.cos %x : tensor<?xf64>
  %2 = arith.mulf %t, %1 : tensor<?xf64>
  return %0, %2 : tensor<?xf64>, tensor<?xf64>
}
func.func @f(%x: tensor<?xf64>) -> tensor<?xf64> attributes {tad.custom_jvp = @rule} {
  %0 = math.sin %x : tensor<?xf64>
  return %0 : tensor<?xf64>
}
func.func private @f_vjp(tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
func.func private @f_jvp(tensor<?xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
"""

# A while loop and a branch over a dynamic carry: reverse mode tapes rows of its run-time length.
WHILE_IF = """
func.func @f(%x: tensor<?xf64>, %p: i1) -> tensor<?xf64> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.while (%a = %x, %i = %c0) : (tensor<?xf64>, index) -> (tensor<?xf64>, index) {
    %go = arith.cmpi slt, %i, %c3 : index
    scf.condition(%go) %a, %i : tensor<?xf64>, index
  } do {
  ^bb0(%a: tensor<?xf64>, %i: index):
    %s = math.sin %a : tensor<?xf64>
    %j = arith.addi %i, %c1 : index
    scf.yield %s, %j : tensor<?xf64>, index
  }
  %y = scf.if %p -> tensor<?xf64> {
    %e = math.exp %r#0 : tensor<?xf64>
    scf.yield %e : tensor<?xf64>
  } else {
    scf.yield %r#0 : tensor<?xf64>
  }
  return %y : tensor<?xf64>
}
func.func private @f_jvp(tensor<?xf64>, i1, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
func.func private @f_vjp(tensor<?xf64>, i1, tensor<?xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
"""

# (source, the argument shapes at each size, wrt): every case runs at 2 or 3 sizes.
SIZED = {
    "ew": (CASES["ew"], [[(1,), (1,)], [(3,), (3,)], [(7,), (7,)]], [0, 1]),
    # 3000 rows: the sum over the dynamic dim in blocks and a tail.
    "rows": (CASES["rows"], [[(1, 4)], [(5, 4)], [(3000, 4)]], [0]),
    "bmm": (CASES["bmm"], [[(1, 3, 4), (1, 4, 5), (5, 2)], [(4, 3, 4), (4, 4, 5), (5, 2)]], [0, 1, 2]),
    "spread": (CASES["spread"], [[(2,), (2, 4)], [(9,), (9, 4)]], [0, 1]),
    "colmax": (CASES["colmax"], [[(1, 3)], [(6, 3)]], [0]),
    "unit": (CASES["unit"], [[(2, 4)], [(5, 4)]], [0]),
    "loop": (CASES["loop"], [[(3,), (3,)], [(8,), (8,)]], [0, 1]),
    "wloop": (CASES["wloop"], [[(2,)], [(5,)]], [0]),
    "matvec": (MATVEC, [[(3, 2), (2,)], [(3, 1500), (1500,)]], [0, 1]),
    "reshape_argmax": (ARGMAX, [[(3, 4)], [(6, 4)]], [0]),
    "call": (CALL, [[(3, 2), (2, 3)], [(7, 2), (2, 3)]], [0, 1]),
    "custom_jvp": (CUSTOM_JVP, [[(3,)], [(5,)]], [0]),
}


@pytest.fixture
def compiled_once(monkeypatch):
    """``ta.compile_mlir`` remembering what it compiled: a case compiles each entry point once for every size."""
    compiled = {}
    compile_mlir = ta.compile_mlir

    def once(source, entry="main"):
        if (source, entry) not in compiled:
            compiled[source, entry] = compile_mlir(source, entry)
        return compiled[source, entry]

    monkeypatch.setattr(ta, "compile_mlir", once)
    return compiled


@pytest.mark.parametrize("name", sorted(SIZED))
def test_derivatives_at_several_sizes(name, compiled_once):
    source, sizes, wrt = SIZED[name]
    rng = np.random.default_rng(len(name))
    for shapes in sizes:
        args = [rng.standard_normal(s) for s in shapes]
        check_ir(source, args, wrt)
    assert sorted(entry for _, entry in compiled_once) == ["f", "f_jvp", "f_vjp"]


@pytest.mark.parametrize("taken", [True, False])
def test_while_and_if_over_a_dynamic_carry(taken, compiled_once):
    rng = np.random.default_rng(7)
    for n in (1, 3, 6):
        check_ir(WHILE_IF, [rng.standard_normal(n), np.array(taken)], [0])


def test_the_corpus_is_covered():
    assert set(CASES) <= set(SIZED)


def test_one_compilation_takes_any_size():
    f = ta.compile_mlir(CASES["rows"], "f_vjp")
    for n in (0, 1, 4, 33, 1025):
        x, ct = np.linspace(-1.0, 1.0, 4 * n).reshape(n, 4), np.arange(4.0)
        value, grad = f(x, ct)
        np.testing.assert_allclose(value, np.tanh(x).sum(axis=0), rtol=1e-12, atol=1e-12)
        assert grad.shape == (n, 4)
        np.testing.assert_allclose(grad, ct * (1 - np.tanh(x) ** 2), rtol=1e-13, atol=0)


def test_results_take_their_run_time_shape():
    f = ta.compile_mlir(CASES["spread"], "f")
    for n in (1, 5):
        x, y = np.arange(float(n)), np.ones((n, 4))
        transposed, maximum = f(x, y)
        assert transposed.shape == (4, n) and maximum.shape == (n,)
        np.testing.assert_allclose(transposed, np.exp(x[:, None] * y).T)
        np.testing.assert_allclose(maximum, x)


def test_sizes_the_ir_ties_together_must_agree():
    f = ta.compile_mlir(CASES["ew"], "f_vjp")
    with pytest.raises(ValueError, match=r"must agree: argument 0 dim 0 has 3, argument 1 dim 0 has 4"):
        f(np.ones(3), np.ones(4), np.ones(3))
    with pytest.raises(ValueError, match="argument 2 dim 0 has 2"):  # the cotangent has the result's size
        f(np.ones(3), np.ones(3), np.ones(2))
    g = ta.compile_mlir(CASES["bmm"], "f_jvp")
    batch = [np.ones((2, 3, 4)), np.ones((3, 4, 5)), np.ones((5, 2)), np.ones((2, 3, 4)), np.ones((2, 4, 5)),
             np.ones((5, 2))]
    with pytest.raises(ValueError, match="argument 1 dim 0 has 3"):
        g(*batch)
    matvec = ta.compile_mlir(MATVEC, "f")
    with pytest.raises(ValueError, match="argument 0 dim 1 has 4, argument 1 dim 0 has 5"):
        matvec(np.ones((3, 4)), np.ones(5))


def test_static_dims_and_ranks_are_still_checked():
    f = ta.compile_mlir(CASES["rows"], "f")
    with pytest.raises(ValueError, match=r"must have shape \(\?, 4\), got \(3, 5\)"):
        f(np.ones((3, 5)))
    with pytest.raises(ValueError, match=r"must have shape \(\?, 4\), got \(4,\)"):
        f(np.ones(4))


def test_a_long_dynamic_sum_is_accurate():
    f = ta.compile_mlir("""
    func.func @main(%x: tensor<?xf32>) -> tensor<f32> {
      %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<?xf32>) -> tensor<f32>
      return %0 : tensor<f32>
    }""")
    for n in (10 ** 6 + 37, 3 * 1024):
        x = np.full(n, 0.1, np.float32)
        exact = math.fsum(x.astype(np.float64))
        assert abs(float(f(x)) - exact) <= 1e-5 * exact  # one accumulator would be 1e-2 off


def test_refusals_name_the_op():
    with pytest.raises(ta.CompileError, match=r"'tad.iota' op takes no dynamic dimensions"):
        ta.compile_mlir("""
        func.func @main() -> tensor<?xf32> {
          %0 = "tad.iota"() {iota_dimension = 0} : () -> tensor<?xf32>
          return %0 : tensor<?xf32>
        }""")


SLICE_OF_RUNTIME_LENGTH = """
func.func @f(%x: tensor<8xf64>, %n: index) -> tensor<?xf64> {
  %0 = tensor.extract_slice %x[1] [%n] [1] : tensor<8xf64> to tensor<?xf64>
  %1 = math.sin %0 : tensor<?xf64>
  return %1 : tensor<?xf64>
}
func.func private @f_vjp(tensor<8xf64>, index, tensor<?xf64>) -> (tensor<?xf64>, tensor<8xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
func.func private @f_jvp(tensor<8xf64>, index, tensor<8xf64>) -> (tensor<?xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
"""


@pytest.mark.parametrize("length", [0, 3, 7])
def test_extract_slice_of_a_runtime_length(length):
    value = check_ir(SLICE_OF_RUNTIME_LENGTH, [np.linspace(0.0, 1.0, 8), np.int64(length)], [0])[0]
    assert value.shape == (length,)
