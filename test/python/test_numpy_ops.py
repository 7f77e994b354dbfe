"""``tensorad.numpy`` against numpy.

Every public function of ``tensorad.numpy`` and every operator and method of
traced arrays is compiled with :func:`tensorad.jit`, run on random inputs and
compared with numpy: values (to a dtype-dependent tolerance), shapes and dtypes
(numpy's promotion rules with NEP 50 weak Python scalars).

Most checks are written once against an array namespace ``xp`` and run twice:
traced and compiled with ``xp = tensorad.numpy``, and eagerly with
``xp = numpy`` (see :func:`assert_matches_numpy`). Each jitted function returns
several variants (a dict of named results) so that the file compiles few
functions: compiling dominates its run time.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import ConcretizationError, TracingError

FLOATS = (np.float32, np.float64)
INTS = (np.int32, np.int64)
NUMERIC = FLOATS + INTS
INTEGRAL = INTS + (np.bool_,)
ALL_DTYPES = NUMERIC + (np.bool_,)
PYTHON_SCALARS = {"b": True, "i": 3, "f": 1.5}  # one per dtype kind

# (rtol, atol) per result dtype; transcendental functions loosen float64 to TRANSCENDENTAL_RTOL.
TOLERANCES = {np.dtype(np.float32): (1e-5, 1e-6), np.dtype(np.float64): (1e-12, 1e-12)}
TRANSCENDENTAL_RTOL = 1e-10


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def random_array(rng, shape, dtype, low=-3.0, high=3.0) -> np.ndarray:
    """Uniform values in ``[low, high]`` (integers: inclusive; bool: fair coin)."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind == "i":
        return rng.integers(int(np.ceil(low)), int(high), shape, endpoint=True).astype(dtype)
    return rng.uniform(low, high, shape).astype(dtype)


def nonzero(a: np.ndarray) -> np.ndarray:
    """``a`` with its zeros replaced by ones (safe divisors)."""
    return np.where(a == 0, np.ones_like(a), a)


def assert_close(got, want, rtol=None, atol=None, path="result"):
    """Compare a pytree of arrays with numpy's: same structure, dtypes, shapes and values."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), path
        for key in want:
            assert_close(got[key], want[key], rtol, atol, f"{path}[{key!r}]")
        return
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, rtol, atol, f"{path}[{i}]")
        return
    want = np.asarray(want)
    assert isinstance(got, np.ndarray), f"{path}: got {type(got).__name__}"
    assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != numpy's {want.dtype}"
    assert got.shape == want.shape, f"{path}: shape {got.shape} != numpy's {want.shape}"
    if want.dtype.kind == "f":
        default_rtol, default_atol = TOLERANCES[want.dtype]
        np.testing.assert_allclose(got, want, rtol=default_rtol if rtol is None else rtol,
                                   atol=default_atol if atol is None else atol,
                                   equal_nan=True, err_msg=path)
    else:
        np.testing.assert_array_equal(got, want, err_msg=path)


def assert_matches_numpy(fn, *args, rtol=None, atol=None):
    """Compile ``fn(tensorad.numpy, *args)`` with ``tensorad.jit``, run it on ``args`` and
    compare with ``fn(numpy, *args)``."""
    got = ta.jit(lambda *traced: fn(tnp, *traced))(*args)
    with np.errstate(all="ignore"):
        want = fn(np, *args)
    assert_close(got, want, rtol, atol)


# ----------------------------------------------------------------------------
# Elementwise binary ops
# ----------------------------------------------------------------------------

COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")
BINARY_GROUPS = [
    (("add", "multiply", "maximum", "minimum"), ALL_DTYPES),
    (("subtract",), NUMERIC),
    (("divide",), ALL_DTYPES),
    (("floor_divide", "remainder"), NUMERIC),
    (("power",), NUMERIC),
    (("arctan2", "copysign"), NUMERIC),
    (("fmax", "fmin"), ALL_DTYPES),
    (("bitwise_and", "bitwise_or", "bitwise_xor"), INTEGRAL),
    (("logical_and", "logical_or", "logical_xor"), ALL_DTYPES),
    (COMPARISONS, ALL_DTYPES),
]


def binary_operands(rng, names, dtype):
    """``x`` (3, 4), ``y`` (3, 4), ``row`` (4,) in the domain of ``names``.

    ``x`` is only a left operand, ``y`` only a right one, ``row`` both: divisors
    are nonzero, float bases of ``power`` positive, integer exponents >= 0.
    Where ``x`` is a valid right operand, the first row of ``y`` is the one of
    ``x``, so that comparisons, ``maximum`` and ``minimum`` see ties.
    """
    kind = np.dtype(dtype).kind
    lhs_low = 0.1 if "power" in names and kind == "f" else -3
    rhs_low = 0 if "power" in names and kind == "i" else -3
    x = random_array(rng, (3, 4), dtype, low=lhs_low)
    y = random_array(rng, (3, 4), dtype, low=rhs_low)
    row = random_array(rng, (4,), dtype, low=max(lhs_low, rhs_low))
    if rhs_low <= lhs_low:
        y[0] = x[0]
    if {"divide", "floor_divide", "remainder"} & set(names):
        y, row = nonzero(y), nonzero(row)
    return x, y, row


@pytest.mark.parametrize("names, dtype", [
    pytest.param(names, dtype, id=f"{'+'.join(names)}-{np.dtype(dtype).name}")
    for names, dtypes in BINARY_GROUPS for dtype in dtypes])
def test_binary(names, dtype, rng):
    x, y, row = binary_operands(rng, names, dtype)
    scalar = PYTHON_SCALARS[np.dtype(dtype).kind]

    def variants(xp, x, y, row):
        ops = {name: getattr(xp, name) for name in names}
        return {name: {"same_shape": op(x, y), "broadcast_rhs": op(x, row),
                       "broadcast_lhs": op(row, y), "scalar_rhs": op(x, scalar),
                       "scalar_lhs": op(scalar, y)}
                for name, op in ops.items()}

    rtol = TRANSCENDENTAL_RTOL if {"power", "arctan2"} & set(names) and dtype != np.float32 else None
    assert_matches_numpy(variants, x, y, row, rtol=rtol)


@pytest.mark.parametrize("lhs_shape, rhs_shape", [
    ((3, 4), (1, 4)), ((3, 1), (3, 4)), ((), (2, 3)), ((2, 3), ()), ((3, 1), (1, 4)),
    ((2, 1, 3), (4, 1)), ((1,), (5,)), ((2, 3, 1), (1, 1, 4))])
def test_broadcasting(lhs_shape, rhs_shape, rng):
    x = random_array(rng, lhs_shape, np.float32)
    y = random_array(rng, rhs_shape, np.float32)
    assert_matches_numpy(lambda xp, x, y: {"add": x + y, "subtract": y - x, "max": xp.maximum(x, y),
                                           "where": xp.where(x > y, x, 0.5)}, x, y)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_python_scalar_promotion(dtype, rng):
    """NEP 50: Python scalars are weak (``float32 * 2.0`` is float32, ``int32 * 2.5`` is float64)."""
    x = random_array(rng, (2, 3), dtype)

    def variants(xp, x):
        out = {"x*2.0": x * 2.0, "2.5*x": 2.5 * x, "x+2": x + 2, "2+x": 2 + x,
               "x*True": x * True, "True+x": True + x, "x<2.5": x < 2.5, "max(x,1)": xp.maximum(x, 1)}
        if dtype != np.bool_:  # numpy: bool - x raises, bool ** 2 is int8
            out.update({"x-1": x - 1, "1.5-x": 1.5 - x, "x**2": x ** 2, "x**2.0": x ** 2.0})
        return out

    assert_matches_numpy(variants, x)


@pytest.mark.parametrize("lhs_dtype, rhs_dtype", [
    (np.int32, np.int64), (np.int32, np.float32), (np.int64, np.float32), (np.float32, np.float64),
    (np.bool_, np.int32), (np.bool_, np.float32)])
def test_array_promotion(lhs_dtype, rhs_dtype, rng):
    x = random_array(rng, (2, 3), lhs_dtype)
    y = nonzero(random_array(rng, (3,), rhs_dtype))
    assert_matches_numpy(lambda xp, x, y: {"add": x + y, "mul": y * x, "div": x / y,
                                           "max": xp.maximum(x, y), "less": x < y}, x, y)


def test_numpy_scalars_are_strong(rng):
    x32 = random_array(rng, (3,), np.float32)
    i32 = random_array(rng, (3,), np.int32)
    assert_matches_numpy(
        lambda xp, x32, i32: {"f64*f32": np.float64(2.0) * x32, "f32*f32": np.float32(3) * x32,
                              "f32*i32": np.float32(3) * i32, "i32+i64": i32 + np.int64(2),
                              "i32+i32": np.int32(2) + i32},
        x32, i32)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_where(dtype, rng):
    cond = random_array(rng, (3, 1), np.bool_)
    x = random_array(rng, (1, 4), dtype)
    y = random_array(rng, (3, 4), dtype)
    scalar = PYTHON_SCALARS[np.dtype(dtype).kind]
    numeric_cond = random_array(rng, (4,), np.float64).round()
    assert_matches_numpy(
        lambda xp, cond, x, y, numeric_cond: {
            "arrays": xp.where(cond, x, y), "scalar_x": xp.where(cond, scalar, y),
            "scalar_y": xp.where(cond, x, scalar), "float_scalar": xp.where(cond, x, 2.5),
            "numeric_cond": xp.where(numeric_cond, x, y), "traced_cond": xp.where(x == y, y, x)},
        cond, x, y, numeric_cond)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_clip(dtype, rng):
    x = random_array(rng, (3, 4), dtype)
    low = random_array(rng, (4,), dtype, high=0)
    high = random_array(rng, (3, 1), dtype, low=0)
    assert_matches_numpy(
        lambda xp, x, low, high: {"scalars": xp.clip(x, -1, 2), "min_only": xp.clip(x, -1, None),
                                  "max_only": xp.clip(x, None, 2), "arrays": xp.clip(x, low, high),
                                  "float_bounds": xp.clip(x, -0.5, 1.5), "method": x.clip(0, 1)},
        x, low, high)


# ----------------------------------------------------------------------------
# Elementwise unary ops
# ----------------------------------------------------------------------------

# name -> (low, high) of the inputs, inside the domain of the function
TRANSCENDENTAL = {"exp": (-3, 3), "log": (0.1, 5), "log1p": (-0.9, 5), "expm1": (-3, 3),
                  "tanh": (-3, 3), "sin": (-3, 3), "cos": (-3, 3), "tan": (-1.2, 1.2),
                  "sqrt": (0, 5), "log2": (0.1, 5), "log10": (0.1, 5), "exp2": (-3, 3), "cbrt": (-3, 3),
                  "sinh": (-3, 3), "cosh": (-3, 3), "arcsin": (-0.95, 0.95), "arccos": (-0.95, 0.95),
                  "arctan": (-3, 3), "arcsinh": (-3, 3), "arccosh": (1, 5), "arctanh": (-0.95, 0.95)}
ROUNDING = ("floor", "ceil", "round", "trunc")
SIGNS = ("abs", "absolute", "sign", "negative", "positive", "square")


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("name", TRANSCENDENTAL)
def test_transcendental(name, dtype, rng):
    low, high = TRANSCENDENTAL[name]
    x = random_array(rng, (3, 4), dtype, low, high)
    assert_matches_numpy(lambda xp, x: getattr(xp, name)(x), x,
                         rtol=None if dtype == np.float32 else TRANSCENDENTAL_RTOL)


# The functions numpy users reach for beyond the basics: one input each, inside every domain.
MORE_MATH = {name: TRANSCENDENTAL[name] for name in ("log2", "log10", "exp2", "cbrt", "sinh", "cosh", "arcsin",
                                                     "arccos", "arctan", "arcsinh", "arccosh", "arctanh")}


@pytest.mark.parametrize("name", [*MORE_MATH, "trunc", "copysign", "fmax", "fmin"])
def test_math_functions_eagerly_and_under_vmap(name, rng):
    """Called on numpy arrays outside ``jit`` (eager mode) and mapped by ``vmap``, as numpy computes them."""
    low, high = MORE_MATH.get(name, (-3, 3))
    x = random_array(rng, (3, 4), np.float64, low, high)
    y = random_array(rng, (3, 4), np.float64)
    y[0, 0] = np.nan  # fmax and fmin take the number
    fn, want = getattr(tnp, name), getattr(np, name)
    args = (x,) if name in MORE_MATH or name == "trunc" else (x, y)
    with np.errstate(invalid="ignore"):
        expected = want(*args)
    assert_close(fn(*args), expected, rtol=TRANSCENDENTAL_RTOL)
    assert_close(ta.vmap(fn)(*args), expected, rtol=TRANSCENDENTAL_RTOL)
    assert_close(ta.vmap(fn, in_axes=(1,) * len(args), out_axes=1)(*args), expected, rtol=TRANSCENDENTAL_RTOL)


@pytest.mark.parametrize("dtype", FLOATS)
def test_power_of_negative_base(dtype):
    """Integral exponents of negative bases are real; other exponents give NaN."""
    x = np.array([-2.0, -0.5, 3.0, -1.5], dtype)
    y = np.array([3.0, 2.0, -1.0, 0.5], dtype)
    assert_matches_numpy(lambda xp, x, y: {"arrays": x ** y, "cube": xp.power(x, 3.0),
                                           "inverse": x ** -1, "int_exponent": x ** 3}, x, y)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_rsqrt(dtype, rng):
    x = random_array(rng, (3, 4), dtype, 1, 5)
    got = ta.jit(tnp.rsqrt)(x)
    want = 1 / np.sqrt(x)
    assert_close(got, want, rtol=None if dtype == np.float32 else TRANSCENDENTAL_RTOL)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_rounding(dtype, rng):
    halves = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, -0.0, 0.0])  # round half to even
    x = np.concatenate([halves, random_array(rng, (8,), np.float64)]).astype(dtype)
    assert_matches_numpy(lambda xp, x: {name: getattr(xp, name)(x) for name in ROUNDING}, x)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_sign_and_friends(dtype, rng):
    x = random_array(rng, (3, 4), dtype)
    x[0, 0] = 0  # sign(0) == 0
    assert_matches_numpy(lambda xp, x, divisor: {"reciprocal": xp.reciprocal(divisor),
                                                 **{name: getattr(xp, name)(x) for name in SIGNS}},
                         x, nonzero(x))


@pytest.mark.parametrize("dtype", FLOATS)
def test_nan_propagation(dtype):
    x = np.array([1.0, np.nan, -2.0, 0.0], dtype)
    y = np.array([np.nan, 3.0, -1.0, -0.0], dtype)
    assert_matches_numpy(lambda xp, x, y: {"maximum": xp.maximum(x, y), "minimum": xp.minimum(x, y),
                                           "fmax": xp.fmax(x, y), "fmin": xp.fmin(x, y),
                                           "sign": xp.sign(x), "max": xp.max(x), "min": xp.min(y),
                                           "argmax": xp.argmax(x), "argmin": xp.argmin(y),
                                           "ne": x != x, "eq": x == y, "lt": x < y}, x, y)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_logical_not_and_invert(dtype, rng):
    x = random_array(rng, (3, 4), dtype)
    x[0] = 0

    def variants(xp, x):
        out = {"logical_not": xp.logical_not(x)}
        if dtype in INTEGRAL:
            out.update(invert=xp.invert(x), operator=~x)
        return out

    assert_matches_numpy(variants, x)


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

REDUCTIONS = ("sum", "mean", "max", "min", "any", "all", "var", "std")
AXES = (None, 0, -1, (0, 2), (-1, 1))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction(name, dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype)
    rtol = None if dtype == np.float32 else 1e-10  # numpy sums pairwise

    def variants(xp, x):
        fn = getattr(xp, name)
        return {f"axis={axis}, keepdims={keep}": fn(x, axis=axis, keepdims=keep)
                for axis in AXES for keep in (False, True)}

    assert_matches_numpy(variants, x, rtol=rtol)


def test_reduction_options(rng):
    x = random_array(rng, (3, 4), np.float64)
    i = random_array(rng, (3, 4), np.int32)
    assert_matches_numpy(
        lambda xp, x, i: {"amax": xp.amax(x, axis=1), "amin": xp.amin(x, axis=0, keepdims=True),
                          "var_ddof": xp.var(x, axis=0, ddof=1), "std_ddof": xp.std(x, ddof=1),
                          "sum_dtype": xp.sum(i, dtype=np.float32),
                          "sum_int64": xp.sum(i.astype(np.int64), axis=1),
                          "mean_dtype": xp.mean(x, axis=1, dtype=np.float32),
                          "mean_int": xp.mean(i, axis=0), "empty_sum": xp.sum(x[:0], axis=0)},
        x, i)


def test_int64_keeps_64_bits():
    x = np.array([2**40 + 1, -(2**35) - 3, 7, -9], np.int64)
    assert_matches_numpy(lambda xp, x: {
        "mul": x * 3, "add": x + 2**33, "floor_divide": x // 7, "remainder": x % 1000, "abs": xp.abs(x),
        "sum": xp.sum(x), "max": xp.max(x), "argmin": xp.argmin(x), "float": x.astype(np.float64),
        "compare": x > 2**33}, x)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("name", ("argmax", "argmin"))
def test_argmax_argmin(name, dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype, -1, 1)  # integers and bools have many ties
    assert_matches_numpy(
        lambda xp, x: {f"axis={axis}, keepdims={keep}": getattr(xp, name)(x, axis=axis, keepdims=keep)
                       for axis in (None, 0, 1, -1) for keep in (False, True)},
        x)


def test_argmax_ties_return_first_index():
    x = np.array([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 1.0, 2.0], [-1.0, -1.0, -1.0, -1.0]])
    got = ta.jit(lambda x: (tnp.argmax(x, axis=1), tnp.argmin(x, axis=1), tnp.argmax(x)))(x)
    assert [a.tolist() for a in got] == [[1, 0, 0], [3, 2, 0], 1]


# ----------------------------------------------------------------------------
# Contractions
# ----------------------------------------------------------------------------

def contraction_rtol(dtype):
    return 1e-5 if dtype == np.float32 else 1e-10


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("lhs_shape, rhs_shape", [
    ((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((2, 3), (3, 4)), ((2, 3, 4), (2, 4, 5)),
    ((2, 1, 3, 4), (5, 4, 2)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((2, 3, 4), (4,))])
def test_matmul(lhs_shape, rhs_shape, dtype, rng):
    a = random_array(rng, lhs_shape, dtype)
    b = random_array(rng, rhs_shape, dtype)
    assert_matches_numpy(lambda xp, a, b: {"matmul": xp.matmul(a, b), "operator": a @ b}, a, b,
                         rtol=contraction_rtol(dtype))


def test_matmul_integer_and_mixed(rng):
    a = random_array(rng, (2, 3), np.int32)
    b = random_array(rng, (3, 4), np.int32)
    c = random_array(rng, (3, 4), np.float32)
    assert_matches_numpy(lambda xp, a, b, c: {"int": a @ b, "mixed": a @ c}, a, b, c)


@pytest.mark.parametrize("lhs_shape, rhs_shape", [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)), ((2, 3, 4), (5, 4, 6)),
    ((2, 3, 4), (4,)), ((4,), (2, 4, 5)), ((), (2, 3)), ((2, 3), ())])
def test_dot(lhs_shape, rhs_shape, rng):
    a = random_array(rng, lhs_shape, np.float64)
    b = random_array(rng, rhs_shape, np.float64)
    assert_matches_numpy(lambda xp, a, b: {"dot": xp.dot(a, b), "method": a.dot(b)}, a, b,
                         rtol=contraction_rtol(np.float64))


@pytest.mark.parametrize("lhs_shape, rhs_shape, axes", [
    ((2, 3, 4), (3, 4, 5), 2), ((2, 3, 4), (4, 5), 1), ((2, 3), (4,), 0),
    ((2, 3, 4), (3, 2, 5), ((0, 1), (1, 0))), ((2, 3, 4), (5, 4), ([-1], [1])),
    ((3, 4), (4, 2), (1, 0))])
def test_tensordot(lhs_shape, rhs_shape, axes, rng):
    a = random_array(rng, lhs_shape, np.float32)
    b = random_array(rng, rhs_shape, np.float32)
    assert_matches_numpy(lambda xp, a, b: xp.tensordot(a, b, axes), a, b,
                         rtol=contraction_rtol(np.float32))


@pytest.mark.parametrize("lhs_shape, rhs_shape", [
    ((3,), (3,)), ((2, 3), (4, 3)), ((2, 3, 4), (5, 4)), ((), (2, 3)), ((2, 3), (3,))])
def test_inner_and_outer(lhs_shape, rhs_shape, rng):
    a = random_array(rng, lhs_shape, np.float64)
    b = random_array(rng, rhs_shape, np.float64)
    assert_matches_numpy(lambda xp, a, b: {"inner": xp.inner(a, b), "outer": xp.outer(a, b)},
                         a, b, rtol=contraction_rtol(np.float64))


# ----------------------------------------------------------------------------
# Shapes and structure
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_shape_ops(dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype)
    s = random_array(rng, (1, 3, 1, 4), dtype)
    c = random_array(rng, (3, 1), dtype)
    assert_matches_numpy(
        lambda xp, x, s, c: {
            "reshape": xp.reshape(x, (4, 6)), "reshape_-1": xp.reshape(x, (2, -1)),
            "reshape_int": xp.reshape(x, 24), "method_varargs": x.reshape(4, -1, 2),
            "method_tuple": x.reshape((-1, 4)), "ravel": xp.ravel(x), "flatten": x.flatten(),
            "transpose": xp.transpose(x), "transpose_axes": xp.transpose(x, (1, 0, 2)),
            "transpose_negative": xp.transpose(x, (-1, 0, 1)), "T": x.T,
            "method_transpose": x.transpose(), "method_transpose_varargs": x.transpose(2, 0, 1),
            "method_transpose_tuple": x.transpose((0, 2, 1)),
            "swapaxes": xp.swapaxes(x, 0, 2), "swapaxes_negative": x.swapaxes(-1, 1),
            "expand_dims": xp.expand_dims(x, 0), "expand_dims_-1": xp.expand_dims(x, -1),
            "expand_dims_tuple": xp.expand_dims(x, (0, 2)),
            "expand_dims_negative": xp.expand_dims(x, (-1, 0)), "squeeze": xp.squeeze(s),
            "squeeze_0": xp.squeeze(s, 0), "squeeze_-2": xp.squeeze(s, axis=-2),
            "squeeze_tuple": s.squeeze((0, 2)), "broadcast_to": xp.broadcast_to(c, (2, 3, 4)),
            "broadcast_row": xp.broadcast_to(x[0, 0], (3, 4)),
            "broadcast_scalar": xp.broadcast_to(x[0, 0, 0], (2, 2))},
        x, s, c)


@pytest.mark.parametrize("dtype", FLOATS + (np.bool_,))
def test_concatenate_and_stack(dtype, rng):
    a = random_array(rng, (2, 3), dtype)
    b = random_array(rng, (2, 3), dtype)
    c = random_array(rng, (1, 3), dtype)
    assert_matches_numpy(
        lambda xp, a, b, c: {
            "axis0": xp.concatenate([a, b]), "three": xp.concatenate((a, b, c), axis=0),
            "axis1": xp.concatenate([a, b], axis=1), "axis-1": xp.concatenate([a, b, a], axis=-1),
            "stack": xp.stack([a, b]), "stack1": xp.stack([a, b], axis=1),
            "stack-1": xp.stack((a, b, a), axis=-1)},
        a, b, c)


def test_concatenate_mixed_dtypes(rng):
    f = random_array(rng, (2, 2), np.float32)
    i = random_array(rng, (2, 2), np.int32)
    b = random_array(rng, (1, 2), np.bool_)
    assert_matches_numpy(
        lambda xp, f, i, b: {"int_float": xp.concatenate([i, f]), "bool_int": xp.concatenate([b, i]),
                             "constant": xp.concatenate([f, np.ones((1, 2))]),
                             "stack": xp.stack([f, i], axis=-1)},
        f, i, b)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_astype(dtype):
    """Conversions between all dtypes: float -> int truncates toward zero, -> bool means nonzero."""
    if np.dtype(dtype).kind == "f":
        x = np.array([-2.7, -1.0, -0.5, -0.0, 0.0, 0.3, 1.5, 2.9, 1e3], dtype)
    elif dtype == np.int64:
        x = np.array([-3, -1, 0, 1, 2, 7, 100, 2**33 + 5], dtype)  # int64 -> int32 wraps
    else:
        x = np.array([-3, -1, 0, 1, 2, 7, 100, 0], dtype)
    assert_matches_numpy(
        lambda xp, x: {"function": xp.astype(x, xp.int32), "asarray": xp.asarray(x, dtype=xp.float32),
                       **{np.dtype(target).name: x.astype(target) for target in ALL_DTYPES}},
        x)


def test_astype_nan_to_bool():
    x = np.array([np.nan, 0.0, 1.0])
    assert_matches_numpy(lambda xp, x: x.astype(bool), x)


@pytest.mark.parametrize("dtype", (np.float32, np.int64, np.bool_))
def test_indexing(dtype, rng):
    x = random_array(rng, (4, 5, 6), dtype)
    assert_matches_numpy(
        lambda xp, x: {
            "x[1]": x[1], "x[-1]": x[-1], "x[1:3, ::2]": x[1:3, ::2], "x[:, None]": x[:, None],
            "x[..., 0]": x[..., 0], "x[None, ..., 1:]": x[None, ..., 1:], "x[::3]": x[::3],
            "x[1, 2:4]": x[1, 2:4], "x[-2, :, 3]": x[-2, :, 3], "x[1:, -1, ::4]": x[1:, -1, ::4],
            "x[1, 2, 3]": x[1, 2, 3], "x[:, 1:100]": x[:, 1:100], "x[np.int64(2)]": x[np.int64(2)],
            "x[1, ..., None]": x[1, ..., None], "x[-3:-1, 4, -2:]": x[-3:-1, 4, -2:]},
        x)


def test_empty_slices(rng):
    x = random_array(rng, (4, 5), np.float32)
    assert_matches_numpy(lambda xp, x: {"x[3:1]": x[3:1], "x[2:2, 1]": x[2:2, 1], "x[:0]": x[:0]}, x)


def test_empty_slice_at_the_end(rng):
    x = random_array(rng, (4, 5), np.float32)
    assert_matches_numpy(lambda xp, x: x[:, 5:], x)


# ----------------------------------------------------------------------------
# Creation
# ----------------------------------------------------------------------------

def test_python_lists_as_operands():
    assert_matches_numpy(lambda xp, x: {"add": x + [1.0, 2.0],
                                        "where": xp.where(x > 1.5, x, [0.5, 0.25]),
                                        "concat": xp.concatenate([x[None], [[3.0, 4.0]]])},
                         np.array([1.0, 2.0]))


def test_creation():
    assert_matches_numpy(lambda xp: {
        "zeros": xp.zeros((2, 3)), "zeros_int": xp.zeros(3, np.int32), "ones_bool": xp.ones((2,), bool),
        "ones": xp.ones([2, 2], dtype=np.float32), "full_int": xp.full((2, 2), 7),
        "full_float": xp.full((2,), 2.5), "full_bool": xp.full((2,), True),
        "full_dtype": xp.full((2, 2), 1, np.float32), "full_numpy_scalar": xp.full(2, np.float32(1.5)),
        "full_int32_truncates": xp.full(3, 2.7, np.int32), "eye": xp.eye(3), "eye_rect": xp.eye(3, 4),
        "eye_k": xp.eye(3, k=1), "eye_negative_k": xp.eye(4, 3, k=-2), "eye_int": xp.eye(2, dtype=np.int32)})


def test_like_creation(rng):
    x = random_array(rng, (2, 3), np.float32)
    i = random_array(rng, (3,), np.int32)
    assert_matches_numpy(lambda xp, x, i: {
        "zeros_like": xp.zeros_like(x), "ones_like": xp.ones_like(i),
        "ones_like_dtype": xp.ones_like(x, np.int32),
        "full_like": xp.full_like(x, 3), "full_like_int_truncates": xp.full_like(i, 2.7),
        "full_like_dtype": xp.full_like(i, 2.5, dtype=np.float64),
        "full_traced": xp.full((2, 3), x[0, 0]), "full_traced_row": xp.full((2, 3), x[1]),
        "zeros_like_numpy": xp.zeros_like(np.ones(2, bool))},
        x, i)


def test_arange():
    assert_matches_numpy(lambda xp: {
        "stop": xp.arange(5), "empty": xp.arange(3, 1), "start_stop_step": xp.arange(2, 10, 3),
        "float_stop": xp.arange(5.0),
        "float_step": xp.arange(0, 1, 0.25), "negative_step": xp.arange(5, 0, -1),
        "negative_float_step": xp.arange(1.0, -1.0, -0.5), "dtype": xp.arange(3, dtype=np.float32),
        "int32": xp.arange(-2, 3, dtype=np.int32)})


def test_asarray_and_captured_constants(rng):
    w = random_array(rng, (3, 3), np.float32)
    bias = np.arange(3.0)
    x = random_array(rng, (2, 3), np.float32)
    assert_matches_numpy(lambda xp, x: {
        "int_list": xp.asarray([[1, 2], [3, 4]]), "float_list": xp.array([1.0, 2.0]),
        "bool_list": xp.asarray([True, False]), "scalar": xp.asarray(2.5), "int_scalar": xp.asarray(3),
        "dtype": xp.array([1, 2], dtype=np.float32), "constant": xp.asarray(w),
        "splat": xp.asarray(np.ones(4, np.int32)), "matmul_constant": x @ w, "constant_matmul": w @ x.T,
        "add_constant": x + bias, "constant_sub": bias - x,
        "traced": xp.asarray(x)},
        x)


def test_aliases_and_constants():
    """Names that numpy spells two ways are one function; constants and dtypes are numpy's."""
    aliases = [("true_divide", "divide"), ("mod", "remainder"), ("abs", "absolute"), ("amax", "max"),
               ("amin", "min"), ("array", "asarray"), ("atan2", "arctan2"), ("asin", "arcsin"),
               ("acos", "arccos"), ("atan", "arctan"), ("asinh", "arcsinh"), ("acosh", "arccosh"),
               ("atanh", "arctanh")]
    assert all(getattr(tnp, alias) is getattr(tnp, name) for alias, name in aliases)
    assert (tnp.pi, tnp.e, tnp.inf) == (np.pi, np.e, np.inf) and np.isnan(tnp.nan)
    dtypes = [tnp.float32, tnp.float64, tnp.int32, tnp.int64, tnp.bool_]
    assert dtypes == [np.dtype(d) for d in ALL_DTYPES]
    assert tnp.ndarray is ta.tracing.Tracer


# ----------------------------------------------------------------------------
# The traced-array protocol: attributes, methods, operators
# ----------------------------------------------------------------------------

def test_tracer_attributes(rng):
    x = random_array(rng, (2, 3, 4), np.float32)
    seen = {}

    def f(x):
        first, second = x
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size, len=len(x),
                    tnp_shape=tnp.shape(x), tnp_ndim=tnp.ndim(x), T=x.T.shape, row=first.shape)
        return x.T, second

    got = ta.jit(f)(x)
    assert_close(got, (x.T, x[1]))
    assert seen == dict(shape=(2, 3, 4), dtype=np.float32, ndim=3, size=24, len=2, tnp_shape=(2, 3, 4),
                        tnp_ndim=3, T=(4, 3, 2), row=(3, 4))
    assert tnp.shape(x) == (2, 3, 4) and tnp.ndim(x) == 3


@pytest.mark.parametrize("dtype", (np.float32, np.int64))
def test_methods(dtype, rng):
    x = random_array(rng, (2, 3, 4), dtype)
    w = random_array(rng, (4, 2), dtype)
    assert_matches_numpy(lambda xp, x, w: {
        "sum": x.sum(), "sum_axis": x.sum(axis=0), "mean": x.mean(axis=(0, 2), keepdims=True),
        "max": x.max(), "min": x.min(axis=-1), "argmax": x.argmax(), "argmin": x.argmin(axis=1),
        "var": x.var(axis=1), "std": x.std(), "any": (x > 1).any(axis=0), "all": x.all(),
        "reshape": x.reshape(6, 4), "astype": x.astype(np.float64), "transpose": x.transpose(1, 2, 0),
        "squeeze": x[:1].squeeze(), "ravel": x.ravel(), "flatten": x.flatten(), "clip": x.clip(-1, 1),
        "dot": x.dot(w), "T": x.T},
        x, w, rtol=1e-5 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_arithmetic_operators(dtype, rng):
    x = random_array(rng, (3, 4), dtype)
    y = nonzero(random_array(rng, (3, 4), dtype))
    c = nonzero(random_array(rng, (4,), dtype))  # a numpy array captured in the function
    w = random_array(rng, (4, 2), dtype)
    e = random_array(rng, (3, 4), dtype, low=0, high=2)
    base = nonzero(np.abs(x)) if np.dtype(dtype).kind == "i" else np.abs(x) + 0.1
    assert_matches_numpy(lambda xp, x, y, base, e: {
        "x+y": x + y, "x-y": x - y, "x*y": x * y, "x/y": x / y, "x//y": x // y, "x%y": x % y,
        "base**e": base ** e, "|c|**e": np.abs(c) ** e, "x**2": x ** 2, "3**e": 3 ** e, "x@w": x @ w,
        "w.T@x.T": w.T @ x.T,
        "-x": -x, "+x": +x, "abs(x)": abs(x), "2.0-x": 2.0 - x, "2-x": 2 - x, "x/2": x / 2,
        "7//y": 7 // y, "7%y": 7 % y, "x%3": x % 3, "c+x": c + x, "x-c": x - c, "c*x": c * x,
        "c/y": c / y, "x//c": x // c, "c%y": c % y, "c@x.T": c @ x.T, "x@c": x @ c,
        "np.float32(3)*x": np.float32(3) * x, "x*np.int64(2)": x * np.int64(2),
        "==": x == y, "!=": x != c, "<": x < 1, "<=": 1 <= x, ">": c > x, ">=": x >= y},
        x, y, base, e, rtol=1e-5 if dtype == np.float32 else 1e-10)


@pytest.mark.parametrize("dtype", INTEGRAL)
def test_bitwise_operators(dtype, rng):
    x = random_array(rng, (3, 4), dtype)
    y = random_array(rng, (3, 4), dtype)
    c = random_array(rng, (4,), dtype)
    scalar = PYTHON_SCALARS[np.dtype(dtype).kind]
    assert_matches_numpy(lambda xp, x, y: {
        "x&y": x & y, "x|y": x | y, "x^y": x ^ y, "~x": ~x, "x&s": x & scalar, "s|x": scalar | x,
        "s^x": scalar ^ x, "c&x": c & x, "x|c": x | c, "x^c": x ^ c, "==": x == c, "!=": scalar != x},
        x, y)


# ----------------------------------------------------------------------------
# Errors
# ----------------------------------------------------------------------------

def branches_on_a_traced_value(x):
    if x.sum() > 0:  # the line the error must point at
        return x
    return -x


def test_python_branch_on_traced_value_names_the_line():
    line = branches_on_a_traced_value.__code__.co_firstlineno + 1
    with pytest.raises(ConcretizationError, match=r"tensorad\.lax\.cond") as info:
        ta.jit(branches_on_a_traced_value)(np.ones(3))
    message = str(info.value)
    assert f"{os.path.basename(__file__)}:{line}" in message
    assert "where" in message


ERROR_CASES = {
    "broadcast": (lambda x: x + tnp.ones(4), TracingError, r"could not be broadcast.*\(2, 3\) \(4,\)"),
    "broadcast_to": (lambda x: tnp.broadcast_to(x, (3, 3)), TracingError, r"broadcast.*\(2, 3\)"),
    "float": (lambda x: float(x[0, 0]), ConcretizationError, r"float\(\)"),
    "int": (lambda x: int(x[0, 0]), ConcretizationError, r"int\(\)"),
    "numpy_conversion": (lambda x: np.asarray(x), ConcretizationError, "numpy array"),
    "too_many_indices": (lambda x: x[0, 1, 2], TracingError, "too many indices"),
    "traced_boolean_mask": (lambda x: x[x > 0], TracingError, "traced boolean mask"),
    "two_ellipses": (lambda x: x[..., 0, ...], TracingError, "single ellipsis"),
    "float_index": (lambda x: x[:, 1.5], TracingError, "unsupported index"),
    "index_out_of_range": (lambda x: x[2], IndexError, "index 2 is out of bounds for axis 0"),
    "unsupported_astype": (lambda x: x.astype(np.int8), TypeError, "int8 is not supported"),
    "unsupported_constant": (lambda x: x + np.ones(3, np.uint8), TypeError, "uint8 is not supported"),
    "reshape": (lambda x: x.reshape(4, 2), TracingError, r"cannot reshape .* size 6 into shape \(4, 2\)"),
    "reshape_two_unknowns": (lambda x: x.reshape(-1, -1), TracingError, "one unknown dimension"),
    "squeeze": (lambda x: tnp.squeeze(x, 1), TracingError, "cannot squeeze axis 1 of size 3"),
    "sum_axis": (lambda x: x.sum(axis=2), TracingError, "axis 2 is out of bounds"),
    "negative_axis": (lambda x: tnp.max(x, axis=-3), TracingError, "axis -3 is out of bounds"),
    "repeated_axis": (lambda x: x.sum(axis=(0, -2)), TracingError, "repeated axis"),
    "expand_dims_axis": (lambda x: tnp.expand_dims(x, 3), TracingError, "out of bounds"),
    "transpose_axes": (lambda x: x.transpose(1, 0, 2), TracingError, "out of bounds"),
    "argmax_axis": (lambda x: x.argmax(axis=5), TracingError, "out of bounds"),
    "concatenate_shapes": (lambda x: tnp.concatenate([x, x.T]), TracingError, "must match"),
    "concatenate_scalars": (lambda x: tnp.concatenate([x[0, 0], x[0, 1]]), TracingError,
                            "zero-dimensional"),
    "matmul_shapes": (lambda x: x @ x, TracingError, "contracting dimensions differ"),
    "matmul_scalar": (lambda x: tnp.matmul(x[0, 0], x), TracingError, "not have enough dimensions"),
    "dot_shapes": (lambda x: tnp.dot(x, x), TracingError, "not aligned"),
    "tensordot_shapes": (lambda x: tnp.tensordot(x, x, ((0,), (1,))), TracingError, "shape mismatch"),
    "empty_max": (lambda x: x[:0].max(axis=0), TracingError, "zero-size array"),
    "bool_subtract": (lambda x: (x > 0) - (x > 1), TypeError, "subtract is not supported for bool"),
    "bool_negative": (lambda x: -(x > 0), TypeError, "negative of a bool"),
    "float_bitwise": (lambda x: x & x, TypeError, "bitwise_and is not supported for float64"),
    "bool_of_array": (lambda x: tnp.where(x > 0, x, 0) if x.any() else x, ConcretizationError, "bool"),
}


@pytest.mark.parametrize("fn, error, match", ERROR_CASES.values(), ids=ERROR_CASES.keys())
def test_errors(fn, error, match):
    with pytest.raises(error, match=match):
        ta.jit(fn)(np.ones((2, 3)))


@pytest.mark.parametrize("dtype", (np.uint8, np.int16, np.longdouble))
def test_unsupported_input_dtype(dtype):
    with pytest.raises(TypeError, match=f"{np.dtype(dtype).name} is not supported"):
        ta.jit(lambda x: x + 1)(np.ones(3, dtype))


def test_reductions_of_a_0d_array_over_axis_0_are_the_array_as_in_numpy():
    # Found by the fuzzer: log_softmax(x, axis=0) on a 0-d array raised IndexError.
    x = np.array(0.3)
    for name in ("sum", "max", "min"):
        np.testing.assert_allclose(ta.jit(lambda v: getattr(tnp, name)(v, axis=0, keepdims=True))(x),
                                   getattr(np, name)(x, axis=0, keepdims=True))
    np.testing.assert_allclose(ta.jit(lambda v: ta.nn.log_softmax(v, axis=0))(x), 0.0)
    np.testing.assert_allclose(ta.grad(lambda v: ta.nn.log_softmax(v, axis=0))(x), 0.0)
    np.testing.assert_allclose(ta.jit(lambda v: ta.nn.logsumexp(v, axis=0))(x), 0.3)
    np.testing.assert_array_equal(ta.jit(lambda v: tnp.squeeze(v, axis=-1))(x), np.squeeze(x, axis=-1))


def test_empty_slices_that_start_past_the_end():
    # Found by the fuzzer: x[1:4, :] of a (1, 0) array failed verification (offset 1 on a dim of size 1).
    x = np.ones((3, 2))
    f = lambda v: tnp.sum(v[5:9]) + tnp.sum(v[3:1, :] * 2.0) + tnp.sum(v)
    np.testing.assert_allclose(ta.jit(f)(x), 6.0)
    np.testing.assert_allclose(ta.grad(f)(x), np.ones((3, 2)))
    assert ta.jit(lambda v: v[5:9] * 2.0)(x).shape == (0, 2)
