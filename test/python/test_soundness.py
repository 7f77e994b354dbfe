"""Never a silently wrong derivative, never a crash: soundness of tad-differentiate and of tracing.

Crash regressions run in a child process, so that a regression fails its test
instead of killing pytest.
"""

import importlib
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
import tensorad.passes.differentiate  # noqa: F401  (registers the rules of the scf ops)
from tensorad.dialects.record import RECORDS
from tensorad.test_util import check_grads

LIT = pathlib.Path(__file__).resolve().parents[1] / "lit"
REFUSAL_FILES = ("differentiate/unsupported-region-ops.mlir",)
# Named structured ops are generalized first; this file differentiates each of them in both modes.
GENERALIZED_FILE = "upstream/linalg-named.mlir"

# Region-holding ops that no function body can hand a tensor or float value of
# its own: symbol tables and function-likes, ops on memory only (no results),
# and ops on scalars, which a function only gets from ops refused before them.
CANNOT_TAKE_AN_ACTIVE_VALUE = {
    "symbol tables and functions": (
        "builtin.module", "func.func", "async.func", "gpu.func", "gpu.module", "llvm.", "ml_program.",
        "shape.func", "shape.function_library", "spirv.", "irdl.", "pdl.", "transform.", "smt.",
        "emitc.func", "emitc.class", "emitc.file", "acc.global_", "acc.firstprivate.recipe",
        "acc.private.recipe", "acc.reduction.recipe", "omp.declare_", "omp.private"),
    "memory only, no results": ("acc.", "omp.", "emitc.do", "emitc.for", "emitc.if", "emitc.switch",
                                "gpu.launch", "gpu.warp_execute_on_lane_0"),
    "scalar operands only": ("sparse_tensor.unary", "sparse_tensor.binary", "sparse_tensor.reduce",
                             "sparse_tensor.select", "gpu.all_reduce", "memref.generic_atomic_rmw",
                             "emitc.expression"),
    "integer only": ("linalg.div_unsigned", "linalg.pooling_"),
    "needs a sparse iteration space, from ops refused first": ("sparse_tensor.iterate",),
    "terminator of scf.forall, refused with it": ("scf.forall.in_parallel",),
}


def _region_holding_ops() -> set:
    """Names of the ops with regions in every dialect the Python bindings install."""
    import mlir.dialects
    names = set()
    for path in pathlib.Path(mlir.dialects.__path__[0]).glob("*.py"):
        if path.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"mlir.dialects.{path.stem}")
        except ImportError:  # a dialect whose native extension is not built
            continue
        for cls in vars(module).values():
            # ODS-generated op classes record (number of regions, variadic) there;
            # the bindings keep no public registry of ops.
            if isinstance(cls, type) and hasattr(cls, "OPERATION_NAME") \
                    and getattr(cls, "_ODS_REGIONS", (0,))[0] > 0:
                names.add(cls.OPERATION_NAME)
    return names


def _excused(name: str) -> bool:
    # "linalg.pooling_" excuses only the integer-only (unsigned) poolings.
    if name.startswith("linalg.pooling_") and "unsigned" not in name:
        return False
    return any(name == p or (p.endswith((".", "_")) and name.startswith(p))
               for prefixes in CANNOT_TAKE_AN_ACTIVE_VALUE.values() for p in prefixes)


def test_every_region_holding_op_is_refused_in_the_lit_tests():
    refused = set()
    for file in REFUSAL_FILES:
        refused |= set(re.findall(r"no (?:reverse|forward)-mode \((?:vjp|jvp)\) rule for '([\w.]+)'",
                                  (LIT / file).read_text()))
    differentiated = {name for name, rec in RECORDS.items()  # scf.for, scf.if, scf.while, linalg.generic
                      if rec.vjp and rec.jvp}
    differentiated |= set(re.findall(r"^// (linalg\.\w+) \((?:vjp|jvp)\)$", (LIT / GENERALIZED_FILE).read_text(), re.M))
    missing = sorted(n for n in _region_holding_ops() - differentiated
                     if n not in refused and not _excused(n))
    assert not missing, f"region-holding ops with no refusal test: {missing}"


def _run(code: str) -> str:
    """Run ``code`` in a child process (a crash fails the test, not pytest); return its stdout."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


_PRELUDE = """
import numpy as np, tensorad as ta, tensorad.numpy as tnp
from tensorad import lax
from tensorad.errors import UnexpectedTracerError
from tensorad.test_util import check_grads
"""


def test_a_tracer_leaked_from_one_trace_is_an_error_wherever_it_is_used():
    out = _run(_PRELUDE + """
leaked = []
ta.jit(lambda x: leaked.append(x) or x * 2)(np.ones(3))
uses = {"another jit": lambda: ta.jit(lambda y: y + leaked[0])(np.ones(3)),
        "np.asarray": lambda: np.asarray(leaked[0]), "an operator": lambda: leaked[0] + 1.0,
        "a function": lambda: tnp.sin(leaked[0]), "float": lambda: float(leaked[0]),
        "indexing": lambda: leaked[0][0]}
for what, use in uses.items():
    try:
        use()
        print(what, "passed")
    except UnexpectedTracerError as err:
        print(what, "raised", "used after that trace ended" in str(err))
""")
    assert out.split("\n")[:-1] == [f"{what} raised True" for what in (
        "another jit", "np.asarray", "an operator", "a function", "float", "indexing")]


def test_the_error_for_a_leaked_tracer_names_the_line_that_uses_it():
    out = _run(_PRELUDE + """
leaked = []
ta.jit(lambda x: leaked.append(x) or x)(np.ones(2))
try:
    ta.jit(lambda y: y * leaked[0])(np.ones(2))
except UnexpectedTracerError as err:
    print(err)
""")
    assert out.startswith("<string>:10: a traced array float64[2] of the function traced at <string>:8")


def test_a_closure_over_an_outer_tracer_inside_an_inner_transform():
    # d/dx [x * d/dy (x * y)] = d/dx x**2 = 2x, as JAX: the closed-over x is differentiated too.
    out = _run(_PRELUDE + """
def fun(x):
    return x * ta.grad(lambda y: x * y)(2.0)
out, pullback = ta.vjp(fun, np.float64(1.5))
print(float(out), float(pullback(np.float64(1.0))[0]))
print(*map(float, ta.jvp(fun, (np.float64(1.5),), (np.float64(1.0),))))
check_grads(fun, (1.5,), order=2)
""")
    assert out.split() == ["2.25", "3.0", "2.25", "3.0"]


@pytest.mark.parametrize("body, expected", [
    ("lambda c, x: (c + x, c)", "6.0 [0.0, 1.0, 3.0]"),       # the incoming carry as y
    ("lambda c, x: (c, c * x)", "0.0 [0.0, 0.0, 0.0]"),       # ... as the new carry
    ("lambda c, x: (c, x)", "0.0 [1.0, 2.0, 3.0]"),
    ("lambda c, x: (2.0, 3.0)", "2.0 [3.0, 3.0, 3.0]"),       # constants
])
def test_a_scan_body_may_return_its_inputs_unchanged(body, expected):
    out = _run(_PRELUDE + f"""
for reverse in (False, True):
    carry, ys = ta.jit(lambda xs: lax.scan({body}, 0.0, xs, reverse=reverse))(np.arange(1.0, 4.0))
    print(float(carry), [float(y) for y in (ys[::-1] if reverse and ys[0] != ys[-1] else ys)])
""")
    assert out.split("\n")[0] == expected


def test_loop_scan_and_branch_bodies_returning_inputs_or_constants_differentiate():
    out = _run(_PRELUDE + """
fori = lambda x: lax.fori_loop(0, 3, lambda i, c: c, x) + lax.fori_loop(0, 3, lambda i, c: 1.0, x) * x
loop = lambda x: lax.while_loop(lambda v: False, lambda v: v, x) * x
branch = lambda x: (lax.cond(x > 0, lambda v: v, lambda v: 1.0, x) * x
                    + lax.cond(x < 0, lambda v: v, lambda v: 3.0, x))
for f, order in ((fori, 2), (loop, 1), (branch, 2)):
    print(float(ta.jit(f)(2.0)), float(ta.grad(f)(2.0)))
    check_grads(f, (2.0,), order=order)
scans = lambda xs: tnp.sum(lax.scan(lambda c, x: (c * x, c), 1.0, xs)[1]) + lax.scan(
    lambda c, x: (c, c * x), 2.0, xs)[0]
check_grads(scans, (np.arange(1.0, 4.0),), order=2)
""")
    assert out.split("\n")[:-1] == ["4.0 2.0", "4.0 4.0", "7.0 4.0"]


@pytest.mark.parametrize("exponent, derivatives", [
    (0.0, [0.0, 0.0, 0.0]), (1.0, [1.0, 0.0, 0.0]), (2.0, [0.0, 2.0, 0.0]), (3.0, [0.0, 0.0, 6.0]),
])
def test_derivatives_of_a_power_at_zero_are_finite_as_in_jax(exponent, derivatives):
    f = lambda x: tnp.power(x, exponent)  # noqa: E731
    got = []
    for _ in derivatives:
        f = ta.grad(f)
        got.append(float(f(0.0)))
    assert got == derivatives
    assert float(ta.jvp(ta.grad(lambda x: tnp.power(x, exponent)), (0.0,), (1.0,))[1]) == derivatives[1]


def test_power_and_where_derivatives_match_finite_differences():
    check_grads(lambda x, y: tnp.sum(tnp.power(x, y)),
                (np.array([0.5, 1.5, 2.0]), np.array([0.0, 1.0, 2.5])), order=2)
    check_grads(lambda x: tnp.sum(tnp.where(x > 1.0, tnp.sqrt(x), x * x)),
                (np.array([0.5, 1.5, 2.0]),), order=2)


EMPTY_PIECES = {
    "an empty slice at the end": lambda v: tnp.sum(v[3:3]) + tnp.sum(v * v),
    "an empty slice inside": lambda v: tnp.sum(v[1:1] * 2.0) + tnp.sum(tnp.sin(v)),
    "an empty reversed range": lambda v: tnp.sum(v[2:0]) + tnp.sum(v[::2] ** 2),
    "empty pieces concatenated (ADBench GMM)": lambda v: tnp.sum(
        tnp.concatenate([v[i:i] for i in range(3)] + [v[1:]]) ** 2),
    "a zero-size dimension": lambda v: tnp.sum(tnp.reshape(v, (3, 1))[:, :0] * 3.0)
    + tnp.sum(tnp.outer(v, v)[:0, :]) + tnp.sum(v),
    "an empty contraction": lambda v: tnp.sum(tnp.zeros((2, 0)) @ tnp.reshape(v, (3, 1))[:0])
    + tnp.sum(tnp.exp(v)),
}


@pytest.mark.parametrize("name", EMPTY_PIECES)
def test_empty_slices_and_zero_size_dims_differentiate_in_both_modes(name):
    check_grads(EMPTY_PIECES[name], (np.arange(1.0, 4.0),), order=2)


def test_functions_of_empty_arrays_have_empty_derivatives():
    empty = np.ones((0, 3))
    assert ta.grad(lambda x: tnp.sum(tnp.sin(x)))(empty).shape == (0, 3)
    assert ta.jvp(lambda x: tnp.sin(x) * 2.0, (empty,), (empty,))[1].shape == (0, 3)
    assert np.array_equal(ta.vjp(lambda x: tnp.sum(x, axis=0), empty)[1](np.ones(3))[0], empty)


def test_jvp_through_a_scan_of_length_one():
    out = _run(_PRELUDE + """
def f(x):
    body = lambda c, r: (c * 0.8 + tnp.sin(r), tnp.cos(c) + r)
    return lax.scan(body, tnp.full(2, .1), tnp.exp(x))[1]
x = np.full((1, 2), .5)
print(*np.round(ta.jvp(f, (x,), (np.ones_like(x),))[1].ravel(), 6))
check_grads(f, (x,), order=1)
""")
    assert out.split() == ["1.648721", "1.648721"]  # d/dx (cos(0.1) + e**x) = e**0.5


def test_forward_mode_needs_no_rule_for_a_value_that_only_feeds_a_predicate():
    # Found by the IR fuzzer: a tensor.extract (then without a rule) whose scalar only
    # decides an scf.if was refused ("no forward-mode (jvp) rule"), although no tangent
    # of it is read; math.sincos has no rule.
    branch = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %s = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  %s0 = tensor.extract %s[] : tensor<f64>
  %e, %unused = math.sincos %s0 : f64
  %zero = arith.constant 0.0 : f64
  %p = arith.cmpf ogt, %e, %zero : f64
  %r = scf.if %p -> (tensor<3xf64>) {
    %a = math.sin %x : tensor<3xf64>
    scf.yield %a : tensor<3xf64>
  } else {
    %b = math.cos %x : tensor<3xf64>
    scf.yield %b : tensor<3xf64>
  }
  return %r : tensor<3xf64>
}
func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
"""
    f_jvp = ta.compile_mlir(branch, "f_jvp")
    x, t = np.array([0.5, -0.2, 0.4]), np.array([1.0, 2.0, 3.0])
    value, tangent = f_jvp(x, t)
    np.testing.assert_allclose(value, np.sin(x))
    np.testing.assert_allclose(tangent, np.cos(x) * t)
    value, tangent = f_jvp(-x, t)
    np.testing.assert_allclose(tangent, -np.sin(-x) * t)  # the cos branch
    # When the scalar's tangent is read (here: rebuilt into a tensor), the missing rule is still an error.
    rebuilt = branch.replace("  return %r : tensor<3xf64>", """  %t = tensor.from_elements %e, %e, %e : tensor<3xf64>
  %o = arith.addf %r, %t : tensor<3xf64>
  return %o : tensor<3xf64>""")
    with pytest.raises(ta.CompileError, match=r"no forward-mode \(jvp\) rule for 'math.sincos'"):
        ta.compile_mlir(rebuilt, "f_jvp")
