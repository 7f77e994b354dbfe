"""scf control flow and calls with integer carries and results, run in both modes (issue 14).

Every case of ``test/lit/upstream/scf.mlir`` and ``func.mlir`` (the lit
files check the derivative IR) is compiled here with ``ta.compile_mlir`` and
checked by :func:`mlir_derivatives.check_ir`: its jvp against float64
central differences and its vjp by the dot-product test, at several trip
counts (zero included) and points. The cases put integer results after the
float ones, as ``check_ir`` pairs tangents with float results in order. The
refusals of ``scf-errors.mlir`` reach Python as a ``CompileError`` carrying
the same diagnostic.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from mlir_derivatives import check_ir

import tensorad as ta
from tensorad.errors import CompileError

CORPUS = Path(__file__).resolve().parents[1] / "lit" / "upstream"


def _chunks(file: str) -> list:
    return (CORPUS / file).read_text().split("\n// -----\n")


def _cases(*files: str) -> dict:
    """``name -> (source, wrt)`` for each case (a function with ``@name_vjp``/``@name_jvp``) of ``files``."""
    cases = {}
    for file in files:
        for chunk in _chunks(file):
            name = re.search(r"func\.func private @(\w+)_vjp\(", chunk).group(1)
            wrt = re.search(rf"of = @{name}, wrt = array<i64: ([\d, ]+)>", chunk).group(1)
            cases[name] = (chunk, [int(i) for i in wrt.split(",")])
    return cases


CASES = _cases("scf.mlir", "func.mlir")
_rng = np.random.default_rng(14)


def _u(*shape, low=-1.0, high=1.0):
    return _rng.uniform(low, high, shape)


# Inputs of each case: several trip counts (0 and past a while loop's first
# tape capacity of 16 rows) and both branches.
INPUTS = {
    "for_counter": [[0.3, 0.7, np.int64(7)], [-0.4, 1.1, np.int64(1)], [0.3, 0.7, np.int64(0)]],
    "for_offset_tensor": [[_u(6), _u(2), np.int64(8)], [_u(6), _u(2), np.int64(2)], [_u(6), _u(2), np.int64(1)]],
    "for_extract": [[_u(5), 0.6], [_u(5), -1.2]],
    "for_i64": [[0.3, np.int64(12)], [-0.7, np.int64(3)], [0.3, np.int64(0)]],
    "for_snapshots": [[0.3, 0.7], [-1.1, 0.2]],
    "for_nested": [[0.4, np.int64(4)], [-0.3, np.int64(1)], [0.4, np.int64(0)]],
    "while_counter": [[0.4, np.int64(3)], [0.2, np.int64(40)], [0.4, np.int64(0)]],
    "while_counter_tensor": [[_u(3, low=-0.3, high=0.3), np.int64(3)],
                             [_u(3, low=-0.3, high=0.3), np.int64(20)]],
    "while_counter_read": [[0.4, np.int64(4)], [-0.2, np.int64(7)]],
    "while_do": [[0.3, np.int64(4)], [0.3, np.int64(0)]],
    "while_flag": [[1.3], [0.05], [-2.0]],
    "if_int": [[0.8, 1.3, np.int64(5)], [0.8, 1.3, np.int64(1)]],
    "if_int_tensor": [[_u(3), np.bool_(True)], [_u(3), np.bool_(False)]],
    "execute_region": [[0.8, 0.3], [-1.5, 2.0]],
    "execute_region_tensor": [[_u(4), _u(4)]],
    "call_int": [[0.8, np.int64(2)], [-0.8, np.int64(0)]],
    "call_int_tensor": [[_u(3), _u(3)]],
}


def test_every_case_has_inputs():
    assert sorted(INPUTS) == sorted(CASES)


@pytest.mark.parametrize("name,point", [(name, k) for name in sorted(INPUTS) for k in range(len(INPUTS[name]))])
def test_both_modes_match_finite_differences(name, point):
    source, wrt = CASES[name]
    check_ir(source, INPUTS[name][point], wrt, name=name)


@pytest.mark.parametrize("n", [0, 1, 5, 33])
def test_while_counter_values_and_gradient(n):
    # while (i < n) { v = sin(v) * v + x }, its derivative in closed form.
    source, _ = CASES["while_counter"]
    x = 0.4
    v, dv = x, 1.0
    for _ in range(n):
        v, dv = np.sin(v) * v + x, (np.cos(v) * v + np.sin(v)) * dv + 1.0
    value, grad = ta.compile_mlir(source, "while_counter_vjp")(x, np.int64(n), 1.0)
    np.testing.assert_allclose(value, v, rtol=1e-12)
    np.testing.assert_allclose(grad, dv, rtol=1e-10)
    value, tangent = ta.compile_mlir(source, "while_counter_jvp")(x, np.int64(n), 1.0)
    np.testing.assert_allclose(tangent, dv, rtol=1e-10)


@pytest.mark.parametrize("name", ["while_counter", "for_nested", "while_counter_read"])
def test_batched_cotangents_give_rows_of_the_jacobian(name):
    # A cotangent with a batch prefix (3,) through loops with index and i1 carries.
    source, _ = CASES[name]
    batched = source + (f"func.func private @{name}_rows(f64, index, tensor<3xf64>) -> (f64, tensor<3xf64>) "
                        f"attributes {{tad.vjp = {{of = @{name}, wrt = array<i64: 0>}}}}\n")
    seeds = np.array([1.0, -2.0, 0.5])
    _, rows = ta.compile_mlir(batched, f"{name}_rows")(0.3, np.int64(4), seeds)
    _, one = ta.compile_mlir(source, f"{name}_vjp")(0.3, np.int64(4), 1.0)
    np.testing.assert_allclose(rows, seeds * one, rtol=1e-12)


def test_batched_cotangents_through_a_call_with_an_integer_result():
    # The callee's vjp takes a (batched, integer) zero seed for its i64 result.
    source, _ = CASES["call_int_tensor"]
    batched = source + ("func.func private @rows(tensor<3xf64>, tensor<3xf64>, tensor<2x3xf64>, tensor<2xi64>) "
                        "-> (tensor<3xf64>, i64, tensor<2x3xf64>, tensor<2x3xf64>) "
                        "attributes {tad.vjp = {of = @call_int_tensor, wrt = array<i64: 0, 1>}}\n")
    x, w, seeds = _u(3), _u(3), _u(2, 3)
    _, _, dx, dw = ta.compile_mlir(batched, "rows")(x, w, seeds, np.zeros(2, np.int64))
    for row in range(2):
        _, _, want_dx, want_dw = ta.compile_mlir(source, "call_int_tensor_vjp")(x, w, seeds[row], np.int64(0))
        np.testing.assert_allclose(dx[row], want_dx, rtol=1e-12)
        np.testing.assert_allclose(dw[row], want_dw, rtol=1e-12)


def test_integer_results_are_the_primal_ones():
    source, _ = CASES["for_counter"]
    # k runs 0, 1, 2, 0, ... : after 7 steps it is 7 % 3.
    out = ta.compile_mlir(source, "for_counter_vjp")(0.3, 0.7, np.int64(7), 1.0, 1.0, np.int64(0))
    assert int(out[2]) == 7 % 3
    out = ta.compile_mlir(source, "for_counter_jvp")(0.3, 0.7, np.int64(7), 1.0, 1.0)
    assert int(out[2]) == 7 % 3 and int(out[5]) == 0  # an index result's tangent is 0
    source, _ = CASES["while_do"]
    assert int(ta.compile_mlir(source, "while_do_vjp")(0.3, np.int64(4), 1.0, np.int64(0))[1]) == 5


def _expected_errors() -> list:
    cases = []
    for chunk in _chunks("scf-errors.mlir"):
        message = re.search(r"expected-error @\+1 \{\{(.*)\}\}", chunk).group(1)
        cases.append((chunk, message))
    return cases


ERRORS = _expected_errors()


@pytest.mark.parametrize("source,message", ERRORS, ids=[f"error{i}" for i in range(len(ERRORS))])
def test_refusals_are_diagnostics(source, message):
    with pytest.raises(CompileError, match=re.escape(message)):
        ta.compile_mlir(source, "f")
