"""More of jax.numpy's functions in tensorad.numpy: elementwise math, NaN-ignoring reductions, constructors and
index arrays, and the dtype and shape questions answered in Python.

* forward values, dtypes and shapes against ``jax.numpy`` (in the worker
  process of ``conftest.jax_reference``: JAX in float64 on CPU, out of this
  process) on float32, float64, integer and boolean operands with NaN,
  infinity, signed zero and subnormal edge cases; against numpy where the
  two agree (and where tensorad follows numpy: ``modf`` of infinities, the
  NaN reductions' all-NaN slices). Many functions share one jitted function:
  compiling dominates the run time;
* derivatives in both modes (:func:`tensorad.test_util.check_grads`, float64),
  at the points where a naive composition goes wrong (``logaddexp`` at ties
  and at -inf, ``sinc`` at 0, NaNs in the NaN reductions);
* ``vmap`` against a loop, a few eager calls, and the errors.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import TracingError
from tensorad.test_util import check_grads

RNG = np.random.default_rng(3)
F64 = RNG.uniform(-3.0, 3.0, (3, 4))
SPECIAL = np.array([0.0, -0.0, 0.5, -1.5, 2.5, 1e-300, 2.0 ** -1022, np.inf, -np.inf, np.nan, 3.0, 1.7e308, -7.25])
# JAX on CPU takes subnormals for 0 in places (heaviside, frexp): checked against numpy.
SUBNORMAL = np.array([5e-324, -5e-324, 1e-310, -2.0 ** -1023])
NANS = np.array([[1.0, np.nan, 3.0, -4.0], [np.nan, np.nan, np.nan, np.nan], [2.0, -1.0, np.nan, 0.5]])
INTS = np.array([12, -18, 0, 7, 35, -1, 2 ** 31 - 1, -(2 ** 31)], np.int64)
INTS2 = np.array([8, 12, 5, 0, 21, 64, 3, 2], np.int64)
with np.errstate(over="ignore"):
    SPECIAL32 = SPECIAL.astype(np.float32)  # 1.7e308 becomes inf, 1e-300 and the subnormals 0
ARGS = (F64, F64.astype(np.float32), SPECIAL, SPECIAL32, NANS, INTS, INTS2,
        INTS.astype(np.int32), RNG.random((3, 4)) < 0.5)


def _cases(xp, f64, f32, special, special32, nans, ints, ints2, i32, flags):
    """Every function on its operands, as a dict; ``xp`` is jax.numpy or tensorad.numpy."""
    positive = xp.abs(f64) + 0.5
    return {
        **{f"logaddexp_{k}": xp.logaddexp(x, y) for k, (x, y) in {
            "64": (f64, f64.T[:3, :1]), "32": (f32, 1.5), "special": (special, special[::-1]),
            "ints": (ints, 1)}.items()},
        "logaddexp2": xp.logaddexp2(f64, f64[::-1]), "logaddexp2_special": xp.logaddexp2(special, special[::-1]),
        "sinc": xp.sinc(xp.concatenate([f64.ravel(), special])), "sinc32": xp.sinc(f32),
        "sinc_small": xp.sinc(xp.array([1e-3, -2e-3, 3e-8, 0.0])),
        "i0": xp.i0(f64 * 4.0), "i0_32": xp.i0(f32), "i0_ints": xp.i0(ints % 10),
        "signbit": xp.signbit(special), "signbit32": xp.signbit(special32), "signbit_ints": xp.signbit(ints),
        "signbit_bool": xp.signbit(flags),
        "rint": xp.rint(special), "rint32": xp.rint(f32 * 2), "rint_ints": xp.rint(i32),
        "around": xp.around(f64, 2), "around_neg": xp.around(f64 * 100, -1),
        "around_i32": xp.around(i32, 1), "round_decimals": xp.round(f64, 3), "round_decimals32": xp.round(f32, 2),
        "round_negative": xp.round(f64 * 1e3, -2), "round_complex": xp.round(f64 + 1j * f64[::-1], 1),
        "fabs": xp.fabs(special), "fabs_ints": xp.fabs(ints),
        "isposinf": xp.isposinf(special), "isneginf": xp.isneginf(special32), "isposinf_ints": xp.isposinf(ints),
        "isreal": xp.isreal(f64 + 1j * (f64 > 0)), "iscomplex": xp.iscomplex(f64 + 1j * (f64 > 0)),
        "isreal_float": xp.isreal(f64),
        "pow": xp.pow(positive, f64), "float_power": xp.float_power(positive, f32),
        "float_power_ints": xp.float_power(ints2, -2),
        "heaviside": xp.heaviside(special, 0.5), "heaviside32": xp.heaviside(f32, f32),
        "frexp": xp.frexp(special), "frexp32": xp.frexp(f32 * 1e3), "frexp_ints": xp.frexp(ints2),
        "ldexp": xp.ldexp(f64, i32[:4]), "ldexp_far": xp.ldexp(xp.array([1.5, 0.75, 1e-300, 3.0]),
                                                               xp.array([1024, -1074, 1000, 10 ** 6])),
        "ldexp32": xp.ldexp(f32, xp.array([3, -2, 0, 100], xp.int32)),
        "modf": xp.modf(f64 * 2), "modf32": xp.modf(f32),
        "nextafter": xp.nextafter(special, special[::-1]), "nextafter32": xp.nextafter(f32, 0.0),
        "spacing": xp.spacing(f64), "spacing32": xp.spacing(f32),
        # Not of INT_MIN, whose absolute value is negative (Euclid's loop would not end, in JAX either).
        "gcd": xp.gcd(ints[:6], ints2[:6]), "gcd32": xp.gcd(i32[:6], 6),
        "lcm": xp.lcm(ints2, xp.array([3, 8, 10, 7, 6, 5, 1, 9])),
        "left_shift": xp.left_shift(ints2, xp.array([1, 2, 63, 64, 70, 0, 5, 3])),
        "right_shift": xp.right_shift(ints, xp.array([1, 2, 63, 64, 70, 0, 5, 3])),
        "shifts32": (xp.bitwise_left_shift(i32, 3), xp.bitwise_right_shift(i32, 40)),
        "bitwise_not": (xp.bitwise_not(ints), xp.bitwise_invert(flags)),
        "bitwise_count": xp.bitwise_count(ints).astype(xp.int32),
        "isclose": xp.isclose(special, special + 1e-9), "isclose_nan": xp.isclose(special, special, equal_nan=True),
        "isclose32": xp.isclose(f32, f32 + 1e-4, rtol=1e-3), "isclose_ints": xp.isclose(ints, ints2, atol=5),
        "allclose": (xp.allclose(f64, f64 + 1e-12), xp.allclose(f64, f64 + 1e-3),
                     xp.allclose(special, special, equal_nan=True)),
        "array_equal": (xp.array_equal(f64, f64), xp.array_equal(f64, f64[:2]), xp.array_equal(special, special),
                        xp.array_equal(special, special, equal_nan=True)),
        "array_equiv": (xp.array_equiv(f64, f64[:1]), xp.array_equiv(f64, f64[:1] + 1), xp.array_equiv(ints, 3)),
        "nansum": xp.nansum(nans, axis=1), "nansum_ints": xp.nansum(i32),
        "nanprod": xp.nanprod(nans, axis=0, keepdims=True),
        "nanmean": xp.nanmean(nans, axis=1), "nanmean32": xp.nanmean(f32), "nanmean_ints": xp.nanmean(ints2),
        "nanvar": xp.nanvar(nans, axis=1), "nanvar_ddof": xp.nanvar(nans, axis=(0, 1), ddof=1),
        "nanstd": xp.nanstd(nans, axis=0, keepdims=True), "nanstd_ints": xp.nanstd(ints2),
        "nanmax": xp.nanmax(nans, axis=1), "nanmin": xp.nanmin(nans, axis=0), "nanmax_ints": xp.nanmax(i32),
        "nanargmax": xp.nanargmax(nans, axis=1), "nanargmin": xp.nanargmin(nans, axis=1),
        "nanargmin_ints": xp.nanargmin(ints),
        "nancumsum": xp.nancumsum(nans), "nancumprod": xp.nancumprod(nans, axis=1),
        "nanquantile": xp.nanquantile(nans[::2], xp.array([0.0, 0.3, 0.5, 1.0]), axis=1),
        "nanquantile_methods": tuple(xp.nanquantile(nans[::2], 0.4, axis=1, method=m)
                                     for m in ("lower", "higher", "midpoint")),
        "nanpercentile": xp.nanpercentile(f64, 40.0, axis=0, keepdims=True),
        "nanmedian": xp.nanmedian(nans[::2], axis=1), "nanmedian_all": xp.nanmedian(nans),
        "ptp": xp.ptp(f64, axis=1), "ptp_ints": xp.ptp(ints), "ptp_keep": xp.ptp(f32, 0, keepdims=True),
        "count_nonzero": xp.count_nonzero(xp.array([[0.0, -0.0, np.nan], [1.0, 0.0, 2.0]]), axis=1),
        "count_nonzero_bool": xp.count_nonzero(flags),
        "geomspace": xp.geomspace(1.0, 1000.0, 4), "geomspace_neg": xp.geomspace(-2.0, -32.0, 5, endpoint=False),
        "geomspace_arrays": xp.geomspace(positive[0], positive[1] * 10, 3, axis=1),
        "vander": xp.vander(f64[0]), "vander_inc": xp.vander(f64[1], 6, increasing=True),
        "vander_ints": xp.vander(xp.array([2, -3]), 3), "vander32": xp.vander(f32[0], 2),
        "windows": tuple(w(m) for w in (xp.hanning, xp.hamming, xp.blackman, xp.bartlett) for m in (0, 1, 6, 7)),
        "kaiser": (xp.kaiser(7, 4.0), xp.kaiser(1, 2.0)),
        "identity": xp.identity(3, xp.int32), "empty": xp.empty((2, 3), xp.int32), "empty_like": xp.empty_like(f32),
        "indices": xp.indices((2, 3)), "indices_sparse": xp.indices((2, 3), sparse=True),
        "fromfunction": xp.fromfunction(lambda i, j: i * 10 + j, (2, 3)),
        "copy": xp.copy(f32),
    }


def jax_cases(jax, *args):
    """:func:`_cases` run by JAX (in the worker process), in one compiled function: op by op takes minutes."""
    return jax.jit(lambda *a: _cases(jax.numpy, *a))(*args)


# Where JAX's value differs from numpy's and tensorad follows numpy: checked against numpy instead.
NUMPY_CASES = {
    # numpy: modf(inf) is (0, inf); JAX gives (nan, inf).
    "modf_inf": lambda xp: xp.modf(xp.array([np.inf, -np.inf, np.nan, -3.0, 2.5])),
    # numpy's around of negative integers rounds half to even.
    "around_ints": lambda xp: xp.around(np.array([15, 25, -15, -25, 14, 16]), -1),
    "nanquantile_nearest": lambda xp: xp.nanquantile(NANS[::2], np.array([0.3, 0.5, 0.8]), axis=1, method="nearest"),
    "spacing": lambda xp: xp.spacing(np.array([1.0, 0.0, 5e-324, 1e300, np.inf, 2.0 ** -1022])),
    "subnormals": lambda xp: (xp.heaviside(SUBNORMAL, 0.5), xp.frexp(SUBNORMAL), xp.signbit(SUBNORMAL),
                              xp.modf(SUBNORMAL), xp.ldexp(SUBNORMAL, 1), xp.nextafter(SUBNORMAL, 0.0),
                              xp.isclose(SUBNORMAL, 0.0), xp.sinc(SUBNORMAL), xp.logaddexp(SUBNORMAL, SUBNORMAL)),
    # JAX's jitted array_equiv raises for shapes that do not broadcast.
    "array_equiv": lambda xp: (xp.array_equiv(F64, F64[:2]), xp.array_equiv(np.ones(3), np.ones((2, 3)))),
}


def _assert_matches(name, mine, theirs, rtol):
    mine, theirs = ta.tree_util.tree_leaves(mine), ta.tree_util.tree_leaves(theirs)
    assert len(mine) == len(theirs), name
    for i, (m, t) in enumerate(zip(mine, theirs)):
        m, t = np.asarray(m), np.asarray(t)
        where = f"{name}[{i}]"
        assert m.dtype == t.dtype and m.shape == t.shape, f"{where}: {m.dtype}{m.shape} != {t.dtype}{t.shape}"
        if m.dtype.kind in "fc":
            tolerance = rtol if m.dtype.itemsize >= 8 else 2e-6
            np.testing.assert_allclose(m, t, rtol=tolerance, atol=tolerance * 1e-3, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(m, t, err_msg=where)


def test_values_match_jax(jax_reference):
    theirs = jax_reference(jax_cases, *ARGS)
    mine = ta.jit(lambda *a: _cases(tnp, *a))(*ARGS)
    assert sorted(mine) == sorted(theirs)
    failures = []
    for name in mine:
        try:
            _assert_matches(name, mine[name], theirs[name], 1e-12)
        except AssertionError as failure:
            failures.append(str(failure))
    assert not failures, "\n".join(failures)


def test_values_where_tensorad_follows_numpy():
    mine = ta.jit(lambda: {name: case(tnp) for name, case in NUMPY_CASES.items()})()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = {name: case(np) for name, case in NUMPY_CASES.items()}
    for name in NUMPY_CASES:
        _assert_matches(name, mine[name], theirs[name], 0.0)
    # The signs of the fractional parts too: modf(-3.0) is (-0.0, -3.0).
    assert list(np.signbit(mine["modf_inf"][0])) == [False, True, False, True, False]


def test_round_with_decimals_matches_numpy():
    # Halves (2.5, 0.125, 1250: to even), decimals that are halves only in decimal (2.675, 1.005: numpy's
    # scaled product decides), every magnitude, and the edges; numpy's results bit for bit.
    halves = np.array([0.5, 1.5, 2.5, -2.5, 0.125, 0.375, -0.625, 2.675, 1.005, 1250.0, 1350.0, -150.0, 0.0, -0.0])
    x = np.concatenate([halves, RNG.uniform(-1.0, 1.0, 200) * 10.0 ** RNG.integers(-12, 12, 200), SPECIAL[:-2],
                        [1e300, -3e-300, 2.0 ** 52 + 0.5]])
    # Not ±2**31 in int32, which rounds beyond it (numpy's value is a float's cast then, INT_MIN).
    ints = np.concatenate([INTS[:6], np.array([15, 25, -15, -25, 150, 250, -349, 350, 999_999_995], np.int64)])
    decimals = range(-6, 9)
    with np.errstate(over="ignore"):
        x32 = x.astype(np.float32)  # 1e300 becomes inf
    got = ta.jit(lambda x, x32, i, i32: [(tnp.round(x, d), tnp.round(x32, d), tnp.around(i, d), tnp.round(i32, d))
                                         for d in decimals])(x, x32, ints, ints.astype(np.int32))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's overflow of 1e300 * 10**8 (inf, as here and in JAX)
        for d, (f64, f32, i64, i32) in zip(decimals, got):
            for mine, theirs in ((f64, np.round(x, d)), (f32, np.round(x32, d)),
                                 (i64, np.round(ints, d)), (i32, np.round(ints.astype(np.int32), d))):
                assert mine.dtype == theirs.dtype, (d, mine.dtype)
                np.testing.assert_array_equal(mine, theirs, err_msg=f"decimals={d}")
                np.testing.assert_array_equal(np.signbit(mine), np.signbit(theirs), err_msg=f"decimals={d}")
    # Beyond the dtype's exponents: unchanged (JAX's rule; numpy's 10**400 gives NaN), or 0 for negative decimals.
    np.testing.assert_array_equal(tnp.round(halves, 400), halves)
    np.testing.assert_array_equal(tnp.round(np.array([3.5, -2.0, np.inf, np.nan]), -400), [0.0, -0.0, np.inf, np.nan])
    np.testing.assert_array_equal(tnp.round(np.array([123, -456]), -20), [0, 0])
    np.testing.assert_array_equal(tnp.round(np.array([1.25 + 2.35j]), 1), np.round(np.array([1.25 + 2.35j]), 1))
    np.testing.assert_array_equal(ta.vmap(lambda r: tnp.round(r, 1))(F64), np.round(F64, 1))
    assert tnp.round(2.5) == 2.0 and tnp.round(np.array([True, False]), 2).dtype == np.bool_
    with pytest.raises(TypeError):
        tnp.round(F64, 1.5)


def test_frexp_and_ldexp_are_exact_over_the_float_range():
    exponents = np.arange(-1074, 1024)
    x = np.ldexp(RNG.uniform(0.5, 1.0, exponents.size), exponents) * RNG.choice([-1.0, 1.0], exponents.size)
    (mantissa, exponent), rebuilt = ta.jit(lambda x: (tnp.frexp(x), tnp.ldexp(*tnp.frexp(x))))(x)
    want_mantissa, want_exponent = np.frexp(x)
    np.testing.assert_array_equal(mantissa, want_mantissa)
    np.testing.assert_array_equal(exponent, want_exponent)
    np.testing.assert_array_equal(rebuilt, x)


def test_eager_calls_and_python_answers():
    np.testing.assert_allclose(tnp.logaddexp(1.0, 2.0), np.logaddexp(1.0, 2.0), rtol=1e-15)
    assert tnp.nanmax(NANS[0]) == 3.0 and tnp.gcd(12, 18) == 6
    assert tnp.allclose(1.0, 1.0 + 1e-9).shape == () and bool(tnp.allclose(1.0, 1.0 + 1e-9))
    for got, want in ((tnp.tril_indices(3, -1, 4), np.tril_indices(3, -1, 4)),
                      (tnp.triu_indices(4, 1), np.triu_indices(4, 1)),
                      (tnp.tril_indices_from(F64), np.tril_indices_from(F64)),
                      (tnp.triu_indices_from(F64, 2), np.triu_indices_from(F64, 2)),
                      (tnp.diag_indices(3, 3), np.diag_indices(3, 3)),
                      (tnp.diag_indices_from(np.zeros((2, 2, 2))), np.diag_indices_from(np.zeros((2, 2, 2)))),
                      (tnp.mask_indices(3, np.triu, 1), np.mask_indices(3, np.triu, 1))):
        assert all(g.dtype == np.int64 and np.array_equal(g, w) for g, w in zip(got, want))
    # Inside a trace the index arrays stay concrete: they index with static shapes.
    out = ta.jit(lambda x: x[tnp.triu_indices_from(x)])(np.arange(9.0).reshape(3, 3))
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0, 4.0, 5.0, 8.0])

    assert tnp.isscalar(1.0) and tnp.isscalar(np.array(2)) and not tnp.isscalar([1.0]) and not tnp.isscalar(F64)
    assert tnp.iscomplexobj(1j) and tnp.isrealobj(F64)
    assert tnp.isdtype(tnp.bfloat16, "real floating") and tnp.isdtype(np.int32, ("bool", "signed integer"))
    assert not tnp.isdtype(np.float32, np.float64) and tnp.isdtype(np.float32, ("numeric", np.int32))
    assert tnp.issubdtype(tnp.bfloat16, np.floating) and not tnp.issubdtype(tnp.bfloat16, np.float16)
    assert tnp.issubdtype(np.int32, np.integer) and not tnp.issubdtype(np.float64, np.integer)
    assert tnp.can_cast(np.int32, np.float64) and not tnp.can_cast(np.float64, np.float32)
    assert tnp.can_cast(np.float64, np.float32, "same_kind")
    assert tnp.iterable([1]) and not tnp.iterable(np.array(1.0)) and not tnp.iterable(3)
    assert tnp.broadcast_shapes((2, 1), (1, 3), ()) == (2, 3)
    assert tnp.size(F64) == 12 and tnp.size(F64, -1) == 4 and tnp.size(2.0) == 1

    def traced_answers(x):
        assert tnp.isscalar(x[0, 0]) and not tnp.isscalar(x) and tnp.iterable(x) and not tnp.iterable(x[0, 0])
        assert tnp.isrealobj(x) and tnp.can_cast(x, np.float64) and tnp.size(x, 0) == 3 and tnp.ndim(x) == 2
        assert tnp.issubdtype(x.dtype, np.floating) and tnp.isdtype(x.dtype, "real floating")
        return x

    ta.jit(traced_answers)(F64)


# ----------------------------------------------------------------------------
# Derivatives (float64, both modes), vmap
# ----------------------------------------------------------------------------

def test_derivatives_of_the_elementwise_functions():
    x, y = F64, RNG.uniform(-3.0, 3.0, (3, 4))
    check_grads(lambda x, y: (tnp.logaddexp(x, y), tnp.logaddexp2(x, y * 2), tnp.sinc(x), tnp.i0(x * 3),
                              tnp.float_power(tnp.abs(x) + 0.5, y), tnp.heaviside(x, y), tnp.fabs(x),
                              tnp.ldexp(x, np.array([3, -2, 0, 7])), tnp.frexp(x * 100)[0], tnp.modf(x * 3)[0],
                              tnp.rint(x) + x, tnp.around(x, 1) * x, tnp.round(x, -1) * x), (x, y))
    # At the ties, at -inf and at 0: JAX's derivatives (softmax weights 1/2 each; sinc'(0) = 0, sinc''(0) = -pi**2/3).
    ties = np.array([0.0, 2.0, -1.0])
    np.testing.assert_allclose(ta.grad(lambda a: tnp.sum(tnp.logaddexp(a, ties)))(ties), [0.5, 0.5, 0.5])
    np.testing.assert_allclose(ta.grad(lambda a: tnp.sum(tnp.logaddexp2(a, ties)))(ties), [0.5, 0.5, 0.5])
    grads = ta.jit(lambda a, b: (ta.grad(lambda a: tnp.sum(tnp.logaddexp(a, b)))(a),
                                 ta.grad(lambda b: tnp.sum(tnp.logaddexp(a, b)))(b)))(
        np.array([-np.inf, -np.inf, 1.0]), np.array([-np.inf, 0.0, -np.inf]))
    np.testing.assert_array_equal(grads[0], [1.0, 0.0, 1.0])
    np.testing.assert_array_equal(grads[1], [1.0, 1.0, 0.0])
    check_grads(lambda t: tnp.sinc(t), (np.array([0.0, 1e-3, -2e-3]),), order=2)
    second = ta.grad(ta.grad(lambda t: tnp.sinc(t)))(0.0)
    np.testing.assert_allclose(second, -np.pi ** 2 / 3, rtol=1e-12)
    np.testing.assert_array_equal(ta.grad(lambda t: tnp.sum(tnp.i0(t)))(np.array([0.0])), [0.0])


def test_derivatives_of_the_nan_reductions_and_constructors():
    x = F64.copy()
    x[0, 1] = x[2, 3] = np.nan  # entries a NaN reduction ignores: their derivatives are 0
    numbers = np.where(np.isnan(x), 0.0, x)
    nan_reductions = lambda a: (tnp.nansum(a, 1), tnp.nanprod(a, 0), tnp.nanmean(a, 1),  # noqa: E731
                                tnp.nanvar(a, 0, ddof=1), tnp.nanstd(a), tnp.nanmax(a, 1), tnp.nanmin(a, 0), tnp.nancumsum(a, 1),
                                tnp.nancumprod(a, 0), tnp.nanquantile(a, np.array([0.3, 0.7]), axis=1),
                                tnp.nanmedian(a, 0), tnp.nanpercentile(a, 55.0))
    check_grads(lambda v: nan_reductions(tnp.where(np.isnan(x), np.nan, v)), (numbers,), order=1)
    gradient = ta.grad(lambda a: tnp.sum(tnp.stack([tnp.sum(r) for r in nan_reductions(a)])))(x)
    assert np.isfinite(gradient).all() and gradient[0, 1] == gradient[2, 3] == 0.0
    check_grads(lambda a, v, b: (tnp.ptp(a, 1), tnp.count_nonzero(a) * a, tnp.vander(v),
                                 tnp.vander(v, 4, increasing=True), tnp.geomspace(b, b * 20.0, 4), tnp.kaiser(6, b),
                                 tnp.fromfunction(lambda i, j: i * b + j, (2, 2))),
                (F64, np.array([0.0, 1.5, -2.0]), 1.7))


def test_vmap_matches_a_loop():
    rows = NANS.copy()
    fn = lambda r, s: (tnp.nanmean(r), tnp.nanquantile(r, 0.25), tnp.nanargmin(r), tnp.logaddexp(r, s),  # noqa: E731
                       tnp.frexp(s), tnp.isclose(r, s), tnp.ptp(s), tnp.vander(s, 2))
    other = RNG.uniform(-2.0, 2.0, rows.shape)
    batched = ta.vmap(fn)(rows, other)
    looped = ta.jit(lambda rs, ss: [fn(rs[i], ss[i]) for i in range(rs.shape[0])])(rows, other)
    for i, row in enumerate(looped):
        _assert_matches(f"row {i}", [leaf[i] for leaf in ta.tree_util.tree_leaves(batched)], row, 1e-12)
    gcds = ta.vmap(tnp.gcd)(np.array([[12, 18], [7, 0], [0, 0]]), np.array([[8, 27], [21, 9], [0, 0]]))
    np.testing.assert_array_equal(gcds, [[4, 9], [7, 9], [0, 0]])


def test_errors():
    complex_array = np.array([1 + 1j])
    for fn in (tnp.fabs, tnp.signbit, tnp.spacing, tnp.frexp, tnp.isposinf, tnp.i0):
        with pytest.raises(TypeError, match="complex"):
            fn(complex_array)
    with pytest.raises(TypeError, match="complex"):
        tnp.logaddexp(complex_array, 1.0)
    with pytest.raises(TypeError, match="integer"):
        tnp.gcd(np.array([1.0]), 2)
    with pytest.raises(TypeError, match="integer"):
        tnp.left_shift(np.array([True]), np.array([True]))
    with pytest.raises(TypeError, match="integer exponents"):
        tnp.ldexp(np.array([1.0]), np.array([1.5]))
    with pytest.raises(ValueError, match="zero"):
        tnp.geomspace(0.0, 1.0, 3)
    with pytest.raises(ValueError, match="one-dimensional"):
        tnp.vander(F64)
    with pytest.raises(ValueError, match="2-dimensional"):
        tnp.tril_indices_from(np.zeros(3))
    with pytest.raises(ValueError, match="equal length"):
        tnp.diag_indices_from(F64)
    with pytest.raises(ValueError, match="range"):
        tnp.nanquantile(F64, 1.5)
    with pytest.raises(ValueError, match="method"):
        tnp.nanquantile(F64, 0.5, method="cubic")
    with pytest.raises(TypeError, match="out"):
        tnp.nansum(F64, out=np.zeros(4))
    with pytest.raises(TracingError, match="concrete mask"):
        ta.jit(lambda x: x[tnp.mask_indices(3, tnp.triu)])(np.zeros((3, 3)))
    with pytest.raises(ValueError):
        tnp.broadcast_shapes((2,), (3,))


def test_gcd_and_lcm_end_for_the_least_integer():
    # Euclid ran on |x|, and |INT_MIN| is INT_MIN: the loop never ended. It runs on -|x| now.
    for dtype in (np.int32, np.int64):
        least = np.iinfo(dtype).min
        a = np.array([least, least, 0, least, 7, -12], dtype)
        b = np.array([6, 0, least, -1, least, 18], dtype)
        np.testing.assert_array_equal(ta.jit(tnp.gcd)(a, b), np.gcd(a, b))
        np.testing.assert_array_equal(ta.jit(tnp.lcm)(a[4:], b[4:]), np.lcm(a[4:], b[4:]))


def test_histograms_in_several_dimensions_match_numpy():
    rng = np.random.default_rng(3)
    x, y, w = rng.normal(size=40), rng.normal(size=40), rng.random(40)
    for kwargs in ({}, {"bins": [3, 5]}, {"bins": 3, "range": [[-1, 1], [-2, 2]]}, {"bins": 4, "weights": w,
                                                                                      "density": True},
                   {"bins": np.linspace(-2, 2, 5)}):
        for got, want in zip(tnp.histogram2d(x, y, **kwargs), np.histogram2d(x, y, **kwargs)):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    sample = rng.normal(size=(30, 3))
    hist, edges = ta.jit(lambda s: tnp.histogramdd(s, bins=(2, 3, 4), density=True))(sample)
    want, want_edges = np.histogramdd(sample, bins=(2, 3, 4), density=True)
    np.testing.assert_allclose(hist, want, rtol=1e-12)
    for got, expected in zip(edges, want_edges):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
    np.testing.assert_allclose(tnp.histogram_bin_edges(x, 6), np.histogram_bin_edges(x, 6), rtol=1e-12)
    with pytest.raises(ValueError, match="one entry per dimension"):
        tnp.histogramdd(sample, bins=[2, 3])


def test_array_building_helpers_match_numpy():
    a = np.arange(12.0).reshape(3, 4)
    idx = np.array([[1], [3], [-1]])
    want = a.copy()
    np.put_along_axis(want, idx, -5.0, axis=1)
    np.testing.assert_array_equal(tnp.put_along_axis(a, idx, -5.0, axis=1, inplace=False), want)
    np.testing.assert_array_equal(ta.grad(lambda v: tnp.put_along_axis(a, idx, v, 1, inplace=False).sum())(
        np.ones((3, 1))), np.ones((3, 1)))
    filled = np.zeros((4, 3))
    np.fill_diagonal(filled, [1.0, 2.0])
    np.testing.assert_array_equal(tnp.fill_diagonal(np.zeros((4, 3)), np.array([1.0, 2.0]), inplace=False), filled)
    with pytest.raises(NotImplementedError, match="inplace=False"):
        tnp.fill_diagonal(np.zeros((2, 2)), 1.0)
    np.testing.assert_array_equal(tnp.diagflat(np.array([[1, 2], [3, 4]]), -1), np.diagflat([[1, 2], [3, 4]], -1))
    blocks = [[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.full((1, 1), 5.0)]]
    np.testing.assert_array_equal(tnp.block(blocks), np.block(blocks))
    np.testing.assert_array_equal(tnp.block([1.0, np.array([2.0, 3.0])]), np.block([1.0, np.array([2.0, 3.0])]))
    with pytest.raises(ValueError, match="depths are mismatched"):
        tnp.block([[1.0], 2.0])
    np.testing.assert_array_equal(tnp.mgrid[0:3, 1:5:2], np.mgrid[0:3, 1:5:2])
    np.testing.assert_allclose(tnp.mgrid[0:1:5j], np.mgrid[0:1:5j])
    for got, want in zip(tnp.ogrid[0:2, 0:3], np.ogrid[0:2, 0:3]):
        assert got.shape == want.shape and np.array_equal(got, want)
    np.testing.assert_array_equal(tnp.sort_complex(np.array([1 + 2j, 1 + 1j, 0.5])),
                                  np.sort_complex(np.array([1 + 2j, 1 + 1j, 0.5])))
    signal = np.array([1.0, 2 + 1j, 3.0])
    np.testing.assert_allclose(tnp.fft.hfft(signal, 6, norm="ortho"), np.fft.hfft(signal, 6, norm="ortho"), rtol=1e-13)
    spectrum = np.array([9.0, -4.0, 0.0, -4.0, 1.0])
    np.testing.assert_allclose(tnp.fft.ihfft(spectrum, norm="forward"), np.fft.ihfft(spectrum, norm="forward"),
                               rtol=1e-13)
    for build in (lambda m: m.r_[1:4, 0, np.array([5, 6])], lambda m: m.r_[np.array([1.0, 2.0], np.float32), 3.0],
                  lambda m: m.c_[np.array([1, 2, 3]), np.array([4, 5, 6])],
                  lambda m: m.r_["1,2,0", np.array([1, 2, 3]), np.array([4, 5, 6])],
                  lambda m: m.r_[-1:1:6j, [0] * 3, 5, 6], lambda m: m.r_["0,3,-1", np.arange(3)]):
        got, want = build(tnp), build(np)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(ta.jit(lambda a, b: tnp.c_[a, b])(np.ones(2), np.zeros(2)), np.c_[np.ones(2), np.zeros(2)])
    with pytest.raises(ValueError, match="numpy matrices"):
        tnp.r_["r", np.ones(2)]
    assert tnp.issubdtype(tnp.float32, tnp.floating) and tnp.newaxis is None and tnp.s_[1:2] == slice(1, 2)
    assert tnp.iinfo(tnp.int32).max == 2**31 - 1 and tnp.finfo(tnp.bfloat16).bits == 16
