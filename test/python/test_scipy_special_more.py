"""The gamma, beta, incomplete, Bessel, exponential-integral and entropy functions of tensorad.scipy.special.

Values are compared with scipy over ranges with their edge cases (0, negative
arguments, poles, inf, nan) in float64, to about 1e-13 relative for the
closed forms and 1e-10 to 1e-11 for the incomplete gamma and beta functions,
whose prefactor ``exp(a log x - ...)`` and the ``1 - P`` of the other tail
amplify rounding; float32 to 1e-5. Derivatives are checked against central
differences in both modes. Each group of functions is traced into one jitted
function, as compiling dominates the time.
"""

import numpy as np
import pytest
import scipy.special as ss

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.scipy import special as sp
from tensorad.test_util import check_grads

X = np.concatenate([np.linspace(-30.0, 30.0, 241), np.logspace(-8, 2.8, 40), [0.0, -0.0, np.inf, -np.inf, np.nan]])
POSITIVE = X[X > 0]
GAMMA_X = np.concatenate([np.linspace(-20.5, 171.0, 400), [-3.5, -2.0, 0.0, -0.0, np.inf, -np.inf, np.nan]])


def _closed_forms(special, x, g, n, gp):
    """One-argument and simple two-argument functions (``gp``: positive ``g``); ``special``: ours or scipy's."""
    return {
        "gamma": special.gamma(g), "gammasgn": special.gammasgn(g), "loggamma": special.loggamma(gp),
        "factorial": special.factorial(n), "i0": special.i0(x / 2), "i0e": special.i0e(x * 10),
        "i1": special.i1(x / 2), "i1e": special.i1e(x * 10), "erfcx": special.erfcx(x), "dawsn": special.dawsn(x),
        "exp1": special.exp1(x), "expi": special.expi(x), "spence": special.spence(x), "entr": special.entr(x),
        "zeta_q": special.zeta(2.5, x), "zeta_x": special.zeta(x, 1.5), "boxcox": special.boxcox(x, 0.3),
        "boxcox_0": special.boxcox(x, 0.0), "boxcox1p": special.boxcox1p(x, -0.7), "kl_div": special.kl_div(x, 2.0),
        "rel_entr": special.rel_entr(x, x / 3 + 1), "multigammaln": special.multigammaln(gp + 1.0, 3),
    }


# Where the relative error is not ~1e-14: gamma is exp of gammaln up to ~700, kl_div cancels
# p log(p/q) against p - q, exp1 and expi lose a few ulps in the continued fraction and series.
RTOL = {"gamma": 1e-12, "factorial": 1e-13, "kl_div": 2e-13, "exp1": 5e-14, "expi": 5e-14, "erfcx": 2e-13}
# Absolute floors: expi next to its zero at 0.3725 (the series' error is absolute there).
ATOL = {"expi": 1e-16}


def _assert_matches(got, want, rtol, atol, name):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
    keep = ~np.isnan(want)
    np.testing.assert_allclose(got[keep], want[keep], rtol=rtol, atol=atol, err_msg=name)


def test_closed_forms_match_scipy_in_float64():
    n = np.arange(-3.0, 60.0)
    gp = GAMMA_X[GAMMA_X > 0]
    got = ta.jit(lambda *args: _closed_forms(sp, *args))(X, GAMMA_X, n, gp)
    with np.errstate(all="ignore"):
        want = _closed_forms(ss, X, GAMMA_X, n, gp)
    for name, expected in want.items():
        assert got[name].dtype == np.float64, name
        _assert_matches(got[name], expected, RTOL.get(name, 2e-14), ATOL.get(name, 0.0), name)


def test_closed_forms_match_scipy_in_float32():
    x = np.linspace(-9.0, 9.0, 181).astype(np.float32)
    g = np.linspace(0.1, 30.0, 181).astype(np.float32)
    n = np.arange(0.0, 25.0).astype(np.float32)
    got = ta.jit(lambda *args: _closed_forms(sp, *args))(x, g, n, g)
    with np.errstate(all="ignore"):
        want = _closed_forms(ss, *(v.astype(np.float64) for v in (x, g, n, g)))
    for name, expected in want.items():
        assert got[name].dtype == np.float32, name
        _assert_matches(got[name], expected, 2e-5, 1e-6 if name in ("expi", "kl_div") else 1e-30, name)


def test_two_argument_gamma_and_beta_families():
    a = np.concatenate([np.logspace(-3, 3, 13), [0.5, 1.0, 7.9, 8.0, 8.1]])
    A, B = (m.ravel() for m in np.meshgrid(a, a))  # noqa: N806
    z, m = (v.ravel() for v in np.meshgrid(np.linspace(0.5, 20.0, 14), np.linspace(-3.0, 10.0, 14)))
    N, K = (v.ravel() for v in np.meshgrid(np.arange(-2.0, 60.0, 3), np.arange(-2.0, 60.0, 3)))  # noqa: N806
    out = ta.jit(lambda A, B, z, m, N, K: (sp.betaln(A, B), sp.beta(A, B), sp.poch(z, m), sp.comb(N, K),
                                           sp.comb(N, K, repetition=True), sp.expn(np.arange(8.0)[:, None], z / 4)))(
        A, B, z, m, N, K)
    # scipy's lbeta is off by up to 1e-12 for (large, small) pairs (checked with mpmath), hence 1e-12.
    np.testing.assert_allclose(out[0], ss.betaln(A, B), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out[1], ss.beta(A, B), rtol=3e-12, atol=1e-300)
    pole = (z + m < 0) & (z + m == np.round(z + m))  # JAX's gamma ratio: NaN there, scipy: inf
    np.testing.assert_allclose(out[2][~pole], ss.poch(z, m)[~pole], rtol=1e-12)
    assert np.isnan(out[2][pole]).all()
    np.testing.assert_allclose(out[3], ss.comb(N, K), rtol=1e-12)
    keep = (K >= 0) & (N >= 0)  # scipy: NaN for negative N or k with repetition; JAX and tensorad: 0
    np.testing.assert_allclose(out[4][keep], ss.comb(N, K, repetition=True)[keep], rtol=1e-12)
    assert (out[4][~keep] == 0).all()
    np.testing.assert_allclose(out[5], ss.expn(np.arange(8)[:, None], z / 4), rtol=1e-13)
    # Beyond scipy's accuracy (its lbeta is off by 2e-12 here): mpmath's values to 17 digits.
    np.testing.assert_allclose(sp.betaln(np.array([1e5, 62355.07341273912]), np.array([20.309176209047347,
                                                                                           0.18047217668271703])),
                               [-193.55925541013291, -0.35982759381248238], rtol=1e-14)


def test_incomplete_gamma_and_beta_match_scipy():
    a = np.concatenate([np.logspace(-3, 3, 13), [0.0, 1.0, 2.5]])
    x = np.concatenate([np.logspace(-4, 3.2, 16), [0.0, 1.0, np.inf, -1.0, np.nan]])
    A, X_ = np.meshgrid(a, x)  # noqa: N806
    ab = np.concatenate([np.logspace(-2, 3, 7), [1.0]])
    u = np.concatenate([np.linspace(0.0, 1.0, 11), [1e-8, 1 - 1e-8, -0.5, 1.5]])
    P, Q, I = ta.jit(lambda a, x, p, q, u: (sp.gammainc(a, x), sp.gammaincc(a, x), sp.betainc(p, q, u)))(  # noqa: N806
        A, X_, *np.meshgrid(ab, ab, u))
    _assert_matches(P, ss.gammainc(A, X_), 1e-11, 1e-300, "gammainc")
    _assert_matches(Q, ss.gammaincc(A, X_), 1e-10, 1e-300, "gammaincc")
    _assert_matches(I, ss.betainc(*np.meshgrid(ab, ab, u)), 1e-11, 1e-300, "betainc")


def test_special_values_follow_jax():
    x = np.array([0.0, -0.0, -2.0, np.inf, -np.inf, np.nan])
    out = ta.jit(lambda x: (sp.gamma(x), sp.gammasgn(x), sp.loggamma(x), sp.factorial(x)))(x)
    np.testing.assert_array_equal(out[0], [np.inf, -np.inf, np.nan, np.inf, np.nan, np.nan])
    np.testing.assert_array_equal(out[1], [1.0, -1.0, np.nan, 1.0, np.nan, np.nan])
    np.testing.assert_array_equal(out[2], [np.nan, np.nan, np.nan, np.inf, np.nan, np.nan])  # JAX: NaN for x <= 0
    np.testing.assert_array_equal(out[3], [1.0, 1.0, 0.0, np.inf, 0.0, np.nan])
    with pytest.raises(NotImplementedError, match="Riemann"):
        sp.zeta(2.0)
    with pytest.raises(NotImplementedError, match="exact"):
        sp.factorial(3, exact=True)


def test_derivatives_in_both_modes():
    # A few representatives (each differentiated function costs seconds of compiling): a composition,
    # a Chebyshev series, a rational function, a custom rule over a loop, and the incomplete gamma
    # function in both arguments (the loop's own derivative in a).
    x = np.array([0.3, 1.7, 4.2, 9.5])
    check_grads(lambda x: (sp.gamma(x), sp.i1e(x), sp.dawsn(x), sp.expn(3.0, x)), (x,), order=1, eps=1e-6, rtol=1e-6)
    a, y = np.array([0.7, 2.0, 5.0, 30.0]), np.array([0.4, 3.0, 2.5, 35.0])
    check_grads(sp.gammainc, (a, y), order=1, eps=1e-6, rtol=1e-5)


def test_exact_derivatives_in_x():
    a, x = np.array([0.5, 3.0, 40.0]), np.array([0.2, 2.0, 45.0])
    grad_p = ta.grad(lambda x: tnp.sum(sp.gammainc(a, x)))(x)
    np.testing.assert_allclose(grad_p, np.exp((a - 1) * np.log(x) - x - ss.gammaln(a)), rtol=1e-12)
    grad_i = ta.grad(lambda x: tnp.sum(sp.betainc(a, 2.0, x / 50)))(x * 1.0)
    np.testing.assert_allclose(grad_i, ss.beta(a, 2.0) ** -1 * (x / 50) ** (a - 1) * (1 - x / 50) / 50, rtol=1e-12)
    np.testing.assert_allclose(ta.grad(lambda x: tnp.sum(sp.expn(2.0, x)))(x), -ss.expn(1, x), rtol=1e-13)


def test_vmap_eager_and_dtypes():
    a, x = np.array([0.5, 3.0, 12.0]), np.array([1.0, 0.5, 20.0])
    np.testing.assert_allclose(ta.vmap(sp.gammaincc)(a, x), ss.gammaincc(a, x), rtol=1e-12)
    np.testing.assert_allclose(ta.vmap(lambda x: sp.i1(x) + sp.zeta(3.0, x))(x), ss.i1(x) + ss.zeta(3.0, x),
                               rtol=1e-14)
    np.testing.assert_allclose(sp.expi(x), ss.expi(x), rtol=1e-14)  # eager, on numpy arrays
    assert sp.i0e(np.array([1, 2])).dtype == np.float64  # integers compute in float64
    assert sp.betainc(np.float32(2.0), 3, np.float32(0.5)).dtype == np.float32  # Python numbers are weak
