"""tensorad.scipy.special and tensorad.scipy.stats.norm against scipy, and their derivatives.

Forward values are compared with scipy in float64 (to about 1e-13 relative,
looser only where the function itself is ill-conditioned: next to the zeros
of lgamma and digamma on the negative axis) and float32; derivatives with
float64 central finite differences in both modes (up to second order for the
gamma family, whose derivatives are the polygamma functions). Each group of
functions is compiled once.
"""

import numpy as np
import pytest
import scipy.special as ss
import scipy.stats as st

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax
from tensorad.scipy import special as sp
from tensorad.scipy.stats import norm
from tensorad.test_util import check_grads

GAMMA_X = np.concatenate([np.linspace(-9.7, 30.3, 801), np.logspace(-6, 250, 60), np.linspace(0.8, 2.2, 141)])
UNIT = np.concatenate([np.linspace(-0.999, 0.999, 401), 1 - np.logspace(-15, -2, 20), -1 + np.logspace(-15, -2, 20)])
PROB = np.concatenate([np.linspace(1e-3, 1 - 1e-3, 301), np.logspace(-300, -3, 40), 1 - np.logspace(-15, -3, 20)])
NORMAL_X = np.linspace(-45.0, 40.0, 341)


def _table(special, normal, g, u, p, z):
    """Every function on its domain; ``special``/``normal`` are tensorad's modules or scipy's (same names)."""
    return {
        "gammaln": special.gammaln(g), "digamma": special.digamma(g), "trigamma": special.polygamma(1, g),
        "polygamma3": special.polygamma(3, g), "erfinv": special.erfinv(u), "ndtri": special.ndtri(p),
        "ndtr": special.ndtr(z), "log_ndtr": special.log_ndtr(z), "erf": special.erf(z / 8.0),
        "erfc": special.erfc(z / 8.0), "expit": special.expit(z), "logit": special.logit(p),
        "xlogy": special.xlogy(u, p), "xlog1py": special.xlog1py(u, u),
        "norm.logpdf": normal.logpdf(z, 1.5, 2.0), "norm.pdf": normal.pdf(z, -1.0, 3.0),
        "norm.cdf": normal.cdf(z, 0.5, 2.0), "norm.logcdf": normal.logcdf(z), "norm.sf": normal.sf(z),
        "norm.logsf": normal.logsf(z), "norm.ppf": normal.ppf(p, 1.0, 2.0), "norm.isf": normal.isf(p),
    }


def _well_conditioned(name, g):
    """Points where a function's value is not dominated by cancellation near one of its zeros or poles on x < 0.

    (Within 1e-12 of a pole, ``x - round(x)`` is a few ulps, which scipy reduces less exactly.)
    """
    off_poles = (g > 0) | (np.abs(g - np.round(g)) > 1e-6)
    if name in ("gammaln", "digamma"):
        ref = ss.gammaln(g) if name == "gammaln" else ss.digamma(g)
        return off_poles & ((g > 0) | (np.abs(ref) > 0.1))
    return off_poles if name in ("trigamma", "polygamma3") else np.ones(g.shape, bool)


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 2e-13), (np.float32, 2e-5)])
def test_forward_matches_scipy(dtype, rtol):
    n = 401  # one length for all four inputs: a table of equal columns
    g, u, p, z = (np.resize(a, n).astype(dtype) for a in (GAMMA_X, UNIT, PROB, NORMAL_X))
    if dtype == np.float32:  # keep the reference inside float32's range
        g, p = np.resize(np.linspace(-9.7, 30.3, 401), n).astype(dtype), np.resize(PROB[:341], n).astype(dtype)
        g, p = np.where(np.abs(g) < 1e-30, 0.5, g), np.maximum(p, 1e-30).astype(dtype)
        z = np.clip(z, -12.0, 12.0)
    got = ta.jit(lambda *args: _table(sp, norm, *args))(g, u, p, z)
    want = _table(ss, st.norm, *(a.astype(np.float64) for a in (g, u, p, z)))
    for name, expected in want.items():
        assert got[name].dtype == dtype, name
        keep = _well_conditioned(name, g.astype(np.float64)) & np.isfinite(expected)
        if dtype == np.float32:  # far tails: float32 underflows where float64 does not
            keep &= np.abs(expected) > 1e-30
            if name in ("trigamma", "polygamma3", "digamma"):
                keep &= np.abs(g - np.round(g)) > 1e-2
        # atol: subnormal results, which scipy flushes to 0 in a few tails.
        np.testing.assert_allclose(np.asarray(got[name], np.float64)[keep], expected[keep], rtol=rtol,
                                   atol=1e-300, err_msg=name)


def test_accuracy_next_to_the_zeros_of_lgamma_and_digamma():
    # The series about 1, 2 and the zero of digamma keep relative accuracy (scipy loses
    # a few digits at 1 +- 1e-3, hence the check against the series computed here).
    e = np.array([-1e-3, -1e-7, 1e-7, 1e-3, 0.1])
    out = ta.jit(lambda x: (sp.gammaln(1.0 + x), sp.gammaln(2.0 + x), sp.digamma(1.4616321449683622 + x)))(e)
    gamma, zeta2, zeta3 = 0.5772156649015329, np.pi ** 2 / 6, 1.2020569031595942
    # Three terms of the Taylor series (the fourth is below 1e-9 of the sum), at the arguments
    # as rounded: 1 + e is not exact.
    t = (1.0 + e[:4]) - 1.0
    np.testing.assert_allclose(out[0][:4], -gamma * t + zeta2 / 2 * t ** 2 - zeta3 / 3 * t ** 3, rtol=1e-9)
    t = (2.0 + e[:4]) - 2.0
    np.testing.assert_allclose(out[1][:4], (1 - gamma) * t + (zeta2 - 1) / 2 * t ** 2 - (zeta3 - 1) / 3 * t ** 3,
                               rtol=1e-9)
    np.testing.assert_allclose(out[2], ss.digamma(1.4616321449683622 + e), rtol=1e-13, atol=1e-17)
    assert out[0][1] != 0 and np.sign(out[2][1]) == -1


def test_special_values_follow_jax():
    x = np.array([0.0, -1.0, -2.0, np.inf, -np.inf, np.nan, 1.0, 2.0])
    lgamma, psi, psi1 = ta.jit(lambda x: (sp.gammaln(x), sp.digamma(x), sp.polygamma(1, x)))(x)
    np.testing.assert_array_equal(lgamma, [np.inf, np.inf, np.inf, np.inf, np.inf, np.nan, 0.0, 0.0])
    assert np.signbit(lgamma[6]) == np.signbit(lgamma[7]) == False  # noqa: E712 (+0, as JAX)
    assert np.isnan(psi[:3]).all() and np.isnan(psi1[:3]).all()  # poles: NaN, as JAX
    edges = ta.jit(lambda u, p: (sp.erfinv(u), sp.ndtri(p)))(np.array([-1.0, 1.0, 1.5]), np.array([0.0, 1.0, -0.5]))
    np.testing.assert_array_equal(edges[0], [-np.inf, np.inf, np.nan])
    np.testing.assert_array_equal(edges[1], [-np.inf, np.inf, np.nan])


def test_logsumexp_family():
    a = np.array([[0.0, 1e4, -np.inf], [1.0, 2.0, 3.0]])
    b = np.array([[1.0, 0.0, 2.0], [1.0, -3.0, 1.0]])

    def f(a, b):
        return (sp.logsumexp(a, axis=1), sp.logsumexp(a, axis=(0, 1), keepdims=True),
                sp.logsumexp(a[1], b=np.array([1.0, -3.0, 0.5])), sp.logsumexp(a, axis=1, b=b, return_sign=True),
                sp.softmax(a[1]), sp.log_softmax(a, axis=0), sp.logsumexp(np.full(3, -np.inf)))

    out = ta.jit(f)(a, b)
    np.testing.assert_allclose(out[0], ss.logsumexp(a, axis=1), rtol=1e-15)
    np.testing.assert_allclose(out[1], ss.logsumexp(a, axis=(0, 1), keepdims=True), rtol=1e-15)
    assert np.isnan(out[2])  # a negative sum without return_sign
    ref, sign = ss.logsumexp(a, axis=1, b=b, return_sign=True)
    np.testing.assert_allclose(out[3][0], ref, rtol=1e-14)
    np.testing.assert_array_equal(out[3][1], sign)
    np.testing.assert_allclose(out[4], ss.softmax(a[1]), rtol=1e-15)
    np.testing.assert_allclose(out[5], ss.log_softmax(a, axis=0), rtol=1e-15)
    assert out[6] == -np.inf


def test_xlogy_derivatives_at_zero_follow_jax():
    # d/dx x log y = log y, also at x = 0; d/dy = x / y = 0 there; at y = 0 the value and
    # the y-derivative stay 0 (no 0 * inf).
    dx, dy = ta.jit(ta.grad(lambda x, y: tnp.sum(sp.xlogy(x, y)), argnums=(0, 1)))(
        np.array([0.0, 0.0, 2.0]), np.array([3.0, 0.0, 4.0]))
    np.testing.assert_allclose(dx[[0, 2]], np.log([3.0, 4.0]), rtol=1e-15)
    np.testing.assert_array_equal(dy, [0.0, 0.0, 0.5])
    value, (gx, gy) = ta.value_and_grad(lambda x, y: sp.xlog1py(x, y), argnums=(0, 1))(0.0, -1.0)
    assert value == 0 and gy == 0


def test_gamma_family_derivatives_to_second_order():
    x = np.array([-2.3, 0.4, 1.3, 3.7, 12.0])
    check_grads(lambda x: (sp.gammaln(x), sp.digamma(x), sp.polygamma(2, x)), (x,), order=2, rtol=1e-6)
    # lgamma' = digamma, digamma' = trigamma exactly (not a derivative of the approximation).
    np.testing.assert_allclose(ta.grad(lambda x: tnp.sum(sp.gammaln(x)))(x), ss.digamma(x), rtol=1e-13)
    np.testing.assert_allclose(ta.jvp(sp.digamma, (x,), (np.ones_like(x),))[1], ss.polygamma(1, x), rtol=1e-13)


def test_erf_family_derivatives():
    p = np.array([0.01, 0.3, 0.6, 0.97])
    check_grads(lambda p: (sp.erfinv(2 * p - 1), sp.ndtri(p), sp.ndtr(p * 8 - 4), sp.log_ndtr(p * 50 - 40),
                           sp.erf(p), sp.erfc(p * 3)), (p,), order=1, eps=1e-7, rtol=1e-6)


def test_logistic_and_logsumexp_derivatives():
    x = np.array([[0.2, 0.7, 0.4], [0.9, 0.05, 0.5]])
    y = np.array([[1.5, 0.3, 2.0], [0.1, 4.0, 0.6]])
    check_grads(lambda x, y: (sp.expit(x * 10 - 5), sp.logit(x), sp.xlogy(x, y), sp.xlog1py(x, y),
                              sp.logsumexp(x * 5, axis=1, b=y), sp.softmax(y, axis=0), sp.log_softmax(x)),
                (x, y), order=1, rtol=1e-6)


def test_norm_derivatives_in_every_argument():
    x, loc, scale = np.array([-3.0, 0.2, 1.7]), np.array([0.5, -1.0, 0.0]), np.array([1.5, 0.7, 2.0])
    q = np.array([0.02, 0.5, 0.9])
    check_grads(lambda x, loc, scale: (norm.logpdf(x, loc, scale), norm.pdf(x, loc, scale),
                                       norm.cdf(x, loc, scale), norm.logcdf(x, loc, scale),
                                       norm.ppf(q, loc, scale)), (x, loc, scale), order=1, rtol=1e-6)
    # The far tail of logcdf: the slope is pdf / cdf ~ -x, where cdf itself underflows.
    np.testing.assert_allclose(ta.grad(norm.logcdf)(-40.0), 40.02496, rtol=1e-6)


def test_eager_vmap_lax_and_dtypes():
    x = np.array([0.5, 3.0])
    np.testing.assert_allclose(sp.gammaln(x), ss.gammaln(x), rtol=1e-14)  # eager, on numpy arrays
    np.testing.assert_allclose(ta.vmap(sp.digamma)(x), ss.digamma(x), rtol=1e-14)
    np.testing.assert_allclose(lax.lgamma(x) + lax.digamma(x) + lax.erf_inv(x / 4),
                               ss.gammaln(x) + ss.digamma(x) + ss.erfinv(x / 4), rtol=1e-14)
    assert sp.gammaln(np.array([3, 4])).dtype == np.float64  # integers compute in float64
    assert sp.logit(np.float32(0.25)).dtype == np.float32
    assert norm.logpdf(np.ones(2, np.float32), 1, 2).dtype == np.float32  # Python numbers are weak
    for half in (tnp.float16, tnp.bfloat16):
        out = sp.gammaln(np.array([0.5, 3.0, 10.0]).astype(half))  # computed in float32, rounded once
        assert out.dtype == half
        np.testing.assert_allclose(out.astype(np.float64), ss.gammaln([0.5, 3.0, 10.0]), rtol=1e-2)
    with pytest.raises(TypeError, match="floating-point"):
        lax.lgamma(np.array([1, 2]))
    with pytest.raises(TypeError, match="Python integer"):
        sp.polygamma(1.5, x)
    with pytest.raises(ValueError, match="non-negative"):
        sp.polygamma(-1, x)
