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


# ----------------------------------------------------------------------------
# sici, fresnel, owens_t, wofz, bernoulli, the hypergeometric functions, bessel_jn, lpmn, sph_harm_y
# ----------------------------------------------------------------------------

# With the bounds of the regions: Fresnel's x² = 2.5625, sici's 4 and 8.
INTEGRAL_X = np.concatenate([np.linspace(-60.0, 60.0, 2401), np.logspace(-300, 2, 120), -np.logspace(-300, 2, 120),
                             [0.0, -0.0, 1.6, 1.6004, np.sqrt(2.5625), np.nextafter(4.0, 0.0), 4.0, 8.0, 8.0001]])
INTEGRAL_FAR = np.concatenate([np.logspace(2, 308, 200), -np.logspace(2, 308, 200), [1e9, -2e9, 36974.0, 36975.0]])
EDGES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan])


def _integrals(special, x):
    si, ci = special.sici(x)
    s, c = special.fresnel(x)
    return {"si": si, "ci": ci, "s": s, "c": c}


def test_sici_and_fresnel_match_scipy():
    got = ta.jit(lambda x, far: (_integrals(sp, x), _integrals(sp, far)))(INTEGRAL_X, INTEGRAL_FAR)
    want = _integrals(ss, INTEGRAL_X), _integrals(ss, INTEGRAL_FAR)
    for name in ("si", "ci", "s", "c"):
        # Ci's zeros (0.62, 3.38, ...): a relative error there is one of the absolute 1e-16.
        _assert_matches(got[0][name], want[0][name], 1e-13, 1e-15 if name == "ci" else 0.0, name)
    # Far out: Si and Ci as scipy's (the same formulas); S and C, whose angle π x²/2 scipy rounds (1e-11 at
    # 1e6, NaN where x² overflows), tend to ±1/2 within 1/(π x).
    for name in ("si", "ci"):
        _assert_matches(got[1][name], want[1][name], 1e-13, 1e-300, name)
    for name in ("s", "c"):
        np.testing.assert_allclose(got[1][name], 0.5 * np.sign(INTEGRAL_FAR), rtol=0, atol=0.32 / 100)
    # mpmath's values (40 digits), where scipy's rounded angle is off by 1e-13 to 1e-11.
    far = np.array([1000.3, 12345.678, 36974.5, 100000.3])
    s, c = sp.fresnel(far)
    np.testing.assert_allclose(s, [0.49968496017986497, 0.5000109663298015, 0.500007953589335, 0.499996848666686],
                               rtol=1e-15)
    np.testing.assert_allclose(c, [0.5000448367037948, 0.500023334695318, 0.49999670551543, 0.5000004485040868],
                               rtol=1e-15)


def test_sici_and_fresnel_special_values_and_float32():
    (si, ci), (s, c) = sp.sici(EDGES), sp.fresnel(EDGES)
    np.testing.assert_array_equal(si, [0.0, 0.0, np.pi / 2, -np.pi / 2, np.nan])
    np.testing.assert_array_equal(ci, [-np.inf, -np.inf, 0.0, np.nan, np.nan])  # Ci(-inf): NaN, as scipy
    np.testing.assert_array_equal(s, [0.0, 0.0, 0.5, -0.5, np.nan])
    np.testing.assert_array_equal(c, [0.0, 0.0, 0.5, -0.5, np.nan])
    np.testing.assert_array_equal(sp.fresnel(np.array([1e300, -1e300]))[0], [0.5, -0.5])  # scipy: NaN
    x = np.concatenate([np.linspace(-60.0, 60.0, 4801), np.logspace(-30, 38, 300)]).astype(np.float32)
    got = ta.jit(lambda x: _integrals(sp, x))(x)
    want = _integrals(ss, x.astype(np.float64))  # scipy's float32 loops are its float64 ones, rounded
    for name in ("si", "ci", "s", "c"):  # evaluated in float64 and rounded: to the nearest float32
        assert got[name].dtype == np.float32, name
        rounded = want[name].astype(np.float32)
        keep = np.isfinite(rounded) & (rounded != 0)
        error = np.abs(got[name][keep] - want[name][keep]) / np.spacing(np.abs(rounded[keep]))
        assert error.max() <= 0.5 + 1e-6, (name, error.max())


def test_sici_and_fresnel_derivatives():
    x = np.array([-7.3, -2.0, -0.3, 1e-3, 0.5, 1.6, 3.9, 4.1, 7.9, 8.1, 30.0])
    check_grads(lambda x: (sp.sici(x), sp.fresnel(x)), (x,), order=1, eps=1e-7, rtol=1e-6)
    # The closed forms, exactly: Si' = sin(x)/x (1 at 0, alone in reverse mode too), Ci' = cos(x)/x,
    # S' = sin(π x²/2), C' = cos(π x²/2) (at large x too, where the angle is reduced exactly).
    x = np.array([0.0, 0.5, -3.0, 20.0, 1000.3])
    dsi = ta.vmap(ta.grad(lambda v: sp.sici(v)[0]))(x)
    np.testing.assert_allclose(dsi, np.sinc(x / np.pi), rtol=1e-14)
    _, (dsi_fwd, dci) = ta.jvp(sp.sici, (x,), (np.ones_like(x),))
    np.testing.assert_allclose(dsi_fwd, np.sinc(x / np.pi), rtol=1e-14)
    np.testing.assert_allclose(dci[1:], np.cos(x[1:]) / x[1:], rtol=1e-14)
    ds = ta.vmap(ta.grad(lambda v: sp.fresnel(v)[0]))(x)
    dc = ta.vmap(ta.grad(lambda v: sp.fresnel(v)[1]))(x)
    # Exact: π x²/2 is 0, π/8, 9π/2, 200π, and for 1000.3 (mpmath) 500300.045 π to 1e-10.
    sin_pi_8, cos_pi_8 = np.sin(np.pi / 8), np.cos(np.pi / 8)
    np.testing.assert_allclose(ds, [0.0, sin_pi_8, 1.0, 0.0, 0.1409012317961024], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(dc, [1.0, cos_pi_8, 0.0, 1.0, 0.9900236577366932], rtol=1e-12, atol=1e-15)


OWENS_H = np.concatenate([np.linspace(-10.0, 10.0, 81), np.logspace(-8, 1.6, 30), [0.02, 0.06, 0.67, 1.6, 4.8, 1e200]])
OWENS_A = np.concatenate([np.linspace(-10.0, 10.0, 81), np.logspace(-8, 4, 40), [1.0, -1.0, 0.99999, 0.025, 1e200]])


def test_owens_t_matches_scipy():
    h, a = (v.ravel() for v in np.meshgrid(OWENS_H, OWENS_A))
    got, got32 = ta.jit(lambda h, a: (sp.owens_t(h, a), sp.owens_t(h.astype(np.float32), a.astype(np.float32))))(h, a)
    # Patefield and Tandy's method 3 (a 31-term series) rounds to 5e-14 at worst, here and in scipy.
    _assert_matches(got, ss.owens_t(h, a), 1e-13, 1e-300, "owens_t")
    with np.errstate(over="ignore"):
        h32, a32 = h.astype(np.float32), a.astype(np.float32)
    np.testing.assert_allclose(got32, ss.owens_t(h32.astype(np.float64), a32.astype(np.float64)).astype(np.float32),
                               rtol=1e-7, atol=1e-45)
    h, a = np.array([0.0, 2.0, np.inf, -1.0, np.nan, 1.0, 3.0]), np.array([1.0, 0.0, 2.0, np.inf, 1.0, np.nan, -np.inf])
    # The exact cases: atan(a)/2π at h = 0, 0 at a = 0 or h = inf, ±Φ(-|h|)/2 at a = ±inf.
    np.testing.assert_allclose(sp.owens_t(h, a), ss.owens_t(h, a), rtol=2e-16, atol=0.0)
    np.testing.assert_equal(sp.owens_t(0.0, 1.0), 0.125)


def test_wofz_matches_scipy():
    x, y = np.meshgrid(np.concatenate([-np.logspace(-3, 3, 30), np.logspace(-3, 3, 30), [0.0]]),
                       np.concatenate([-np.logspace(-3, 1.3, 20), np.logspace(-3, 3, 30), [0.0]]))
    z = (x + 1j * y).ravel()
    got, got32 = ta.jit(lambda z: (sp.wofz(z), sp.wofz(z.astype(np.complex64))))(z)
    want = ss.wofz(z)
    assert got.dtype == np.complex128 and got32.dtype == np.complex64
    finite = np.isfinite(want)
    np.testing.assert_array_equal(np.isfinite(got), finite)
    # Relative to |w|: 6e-15 for Weideman's 40 terms, more below the axis, where 2 exp(-z²) turns through
    # |z|² radians (ill-conditioned: 1e-13 at |z| = 20).
    error = np.abs(got[finite] - want[finite]) / np.abs(want[finite])
    assert error.max() < 1e-13 * np.maximum(1.0, np.abs(z[finite]) ** 2 / 400).max()
    assert (error[z[finite].imag >= 0] < 1e-14).all()
    on_axis = np.linspace(-30.0, 30.0, 121)  # exp(-x²) exactly, where JAX's real part is 1e-16 |w|
    np.testing.assert_allclose(sp.wofz(on_axis), ss.wofz(on_axis), rtol=2e-15)
    np.testing.assert_allclose(sp.wofz(on_axis).real, np.exp(-on_axis ** 2), rtol=1e-15)
    close = finite & (np.abs(want) < 1e30) & (np.abs(z) < 5)
    np.testing.assert_allclose(got32[close], want[close], rtol=1e-6)


def test_bernoulli():
    values = sp.bernoulli(300)
    assert values.dtype == np.float64 and values.shape == (301,)
    np.testing.assert_allclose(values[:259], ss.bernoulli(258), rtol=2e-12)  # scipy's sums are off by 2e-12
    np.testing.assert_array_equal(values[259:], ss.bernoulli(300)[259:])  # 0 and ±inf: B_260 overflows
    exact = [1, -1 / 2, 1 / 6, 0, -1 / 30, 0, 1 / 42, 0, -1 / 30, 0, 5 / 66, 0, -691 / 2730]  # each rounded once
    np.testing.assert_array_equal(sp.bernoulli(12), exact)
    np.testing.assert_array_equal(sp.bernoulli(0), [1.0])
    np.testing.assert_array_equal(ta.jit(lambda x: x * sp.bernoulli(2))(2.0), [2.0, -1.0, 1 / 3])
    with pytest.raises(ValueError, match="non-negative"):
        sp.bernoulli(-1)


# Parameters a quarter and 0.6 off the integers: b - a is never an integer, where 1F1 at x < 0 is a
# polynomial and a parameter's rounding changes its value by e^|x| times its size.
KUMMER_A = np.concatenate([np.arange(-4.75, 5.0, 1.0), [0.5]])
KUMMER_B = np.concatenate([np.arange(-3.4, 5.0, 1.0), [0.6]])
KUMMER_X = np.concatenate([np.linspace(-60.0, 60.0, 25), [-700.0, -650.0, -300.0, 300.0, 620.0, 1e-3, -1e-3, 0.0]])


def test_hyp1f1_matches_scipy():
    a, b, x = (v.ravel() for v in np.meshgrid(KUMMER_A, KUMMER_B, KUMMER_X))
    # Larger parameters, where the terms keep one sign: not b - a < 0 with x < 0 (Kummer's series alternates
    # there: 1e-7 at a = 20.5, b = 0.6, x = -30, where scipy is right and JAX's series is off by 1e19).
    big_a, big_b, big_x = (v.ravel() for v in np.meshgrid([12.25, 20.5], [25.3, 30.6], KUMMER_X))
    got = ta.jit(sp.hyp1f1)(np.concatenate([a, big_a]), np.concatenate([b, big_b]), np.concatenate([x, big_x]))
    with np.errstate(all="ignore"):
        want = ss.hyp1f1(np.concatenate([a, big_a]), np.concatenate([b, big_b]), np.concatenate([x, big_x]))
    _assert_matches(got, want, 5e-13, 1e-300, "hyp1f1")
    # Special values, scipy's: poles of b (unless a nonpositive integer a >= b ends the series first, and
    # b = a = 0 too), 1 at a = 0, e^x at a = b, NaN at infinite x.
    a = np.array([0.0, 0.0, 0.0, 1.0, 1.0, -2.0, -3.0, -2.0, -1.0, 2.0, 2.0, 0.5, np.nan, 1.0, 1.0, 2.5])
    b = np.array([0.0, 1.0, -1.0, 0.0, 0.0, -3.0, -2.0, -2.0, 0.0, 1.0, 1.0, 0.5, 1.0, np.nan, 2.0, 2.5])
    x = np.array([1.0, 1.0, 1.0, 0.0, 1.0, 2.0, 2.0, 2.0, 3.0, np.inf, -np.inf, 3.0, 1.0, 1.0, np.nan, -800.0])
    np.testing.assert_allclose(sp.hyp1f1(a, b, x), ss.hyp1f1(a, b, x), rtol=1e-15)


GAUSS_A = np.array([-3.75, -1.25, 0.5, 1.0, 2.25, 4.5])
GAUSS_B = np.array([-2.6, 0.4, 1.45, 3.4])  # a + b never an integer: c = a + b + m is no pole
GAUSS_C = np.array([-2.33, 0.83, 2.55, 4.43, 7.93])  # c - a - b not an integer (nor within rounding of one)
GAUSS_X = np.concatenate([np.linspace(-30.0, 0.95, 32), [0.99, 0.999, -1e4]])


def test_hyp2f1_matches_scipy():
    a, b, c, x = (v.ravel() for v in np.meshgrid(GAUSS_A, GAUSS_B, GAUSS_C, GAUSS_X))
    # c - a - b an integer: the logarithmic formula near x = 1 (and c - a - b within 1e-8 of one).
    m = np.array([-2.0, 0.0, 1.0, 3.0])
    ia, ib, im, ix = (v.ravel() for v in np.meshgrid(GAUSS_A, GAUSS_B, m, np.array([0.92, 0.99, -20.0, -500.0])))
    got, got_integer = ta.jit(lambda *args: (sp.hyp2f1(*args[:4]), sp.hyp2f1(*args[4:])))(
        a, b, c, x, ia, ib, ia + ib + im, ix)
    with np.errstate(all="ignore"):
        want, want_integer = ss.hyp2f1(a, b, c, x), ss.hyp2f1(ia, ib, ia + ib + im, ix)
    # scipy's own error reaches 1.2e-11 (Cephes' estimate): 1.1e-11 here, at (4.5, 3.4, 7.93, -2.045).
    _assert_matches(got, want, 2e-11, 1e-300, "hyp2f1")
    # mpmath's values where scipy is off: by 1e-11, and where c - a - b rounds to an integer.
    a, b, c, x = np.array([(4.5, 3.4, 7.93, -2.0451612903225787), (-3.75, 1.45, -2.3, 0.999),
                           (1.0, 3.4, 1.0 + 3.4 - 2.0, -20.0), (4.5, 3.4, 7.9, 0.999)]).T
    np.testing.assert_allclose(sp.hyp2f1(a, b, c, x), [0.0901760748477521, -45.18726941111052, 0.028722600151171587,
                                                       400.48150921380824], rtol=1e-13)
    # Where c - a - b is an integer (to rounding: the sums above are not exact) scipy gives NaN or inf at
    # a few points (2F1(1, 3.4; 2.4; -20) = 0.0287226..., mpmath); all of these are finite.
    assert np.isfinite(got_integer).all()
    finite = np.isfinite(want_integer)
    _assert_matches(got_integer[finite], want_integer[finite], 1e-11, 1e-300, "hyp2f1 (integer c - a - b)")
    # Special values, scipy's: 1 at x = 0 and for a or b = 0; polynomials for any x; poles of c (unless a
    # polynomial ends first); Gauss's sum at x = 1 (inf for c - a - b <= 0); inf beyond 1, NaN at -inf.
    cases = np.array([(1, 1, 2, 0.0), (0, 1, 2, 0.5), (1, 0, 0, 0.5), (1, 1, 0, 0.5), (-2, 1, -3, 0.5),
                      (-3, 1, -2, 0.5), (-2, 3, 4, 5.0), (-2, 3, 4, -7.0), (1, 1, 2, 1.0), (1, 1, 3, 1.0),
                      (0.5, 0.5, 2, 1.0), (1, 1, 2, 1.5), (1, 1, 2, -np.inf), (1, 1, 2, np.inf), (1, 2, 3, np.nan),
                      (1, 2, 2, -3.0), (2, 3, 1, 0.95)]).T
    np.testing.assert_allclose(sp.hyp2f1(*cases), ss.hyp2f1(*cases), rtol=5e-15)  # 464000: scipy 4e-15 off


def test_bessel_jn_matches_scipy():
    z = np.concatenate([np.linspace(-15.0, 15.0, 61), np.logspace(-300, 1, 40), [0.0, 1e-160]])
    got, got32 = ta.jit(lambda z: (sp.bessel_jn(z, v=6), sp.bessel_jn(z.astype(np.float32), v=3)))(z)
    want = ss.jv(np.arange(7)[:, None], z)
    assert got.shape == (7, z.size) and got32.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)  # J_0(0) = 1 (JAX: NaN), no overflow at 1e-300
    np.testing.assert_allclose(got32, want[:4], rtol=2e-5, atol=2e-7)
    np.testing.assert_allclose(sp.bessel_jn(np.array([30.0, 60.0]), v=2, n_iter=120), ss.jv([[0], [1], [2]],
                                                                                           [30.0, 60.0]), atol=1e-14)
    with pytest.raises(ValueError, match="n_iter"):
        sp.bessel_jn(1.0, v=60)


def test_legendre_functions_and_spherical_harmonics_match_scipy():
    z = np.concatenate([np.linspace(-0.999, 0.999, 41), [0.0, 0.5]])
    values, derivatives = ta.jit(lambda z: sp.lpmn(8, 12, z))(z)
    reference = ss.assoc_legendre_p_all(12, 8, z, diff_n=1)  # (derivative, degree, order -m..m, point)
    np.testing.assert_allclose(values, np.moveaxis(reference[0][:, :9], 1, 0), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(derivatives, np.moveaxis(reference[1][:, :9], 1, 0), rtol=1e-12, atol=1e-12)
    # Normalized: scipy's norm=True is sqrt((2l+1)/2 (l-m)!/(l+m)!), JAX's sqrt((2l+1)/4π (l-m)!/(l+m)!).
    normalized = sp.lpmn_values(12, 12, z, True)
    reference = ss.assoc_legendre_p_all(12, 12, z, norm=True)[0][:, :13] / np.sqrt(2 * np.pi)
    np.testing.assert_allclose(normalized, np.moveaxis(reference, 1, 0), rtol=1e-12, atol=1e-14)
    # At z = 1: P_l' = l(l+1)/2, and order 2's finite slopes (order 1's are infinite).
    edge = sp.lpmn(2, 3, np.array([1.0, -1.0]))[1]
    np.testing.assert_array_equal(edge[0, :, 0], [0.0, 1.0, 3.0, 6.0])
    np.testing.assert_array_equal(edge[2, :, 0], [0.0, 0.0, -6.0, -30.0])
    n = np.array([0, 1, 1, 2, 5, 7, 7, 10, 3, 2, 4])
    m = np.array([0, 0, -1, 2, -3, 7, -6, 4, 5, -2, 4])  # |m| > n: 0
    theta, phi = np.linspace(0.0, np.pi, 11), np.linspace(0.0, 2 * np.pi, 11) + 0.3
    got = sp.sph_harm_y(n, m, theta, phi)  # eagerly: n_max from n
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, ss.sph_harm_y(n, m, theta, phi), rtol=1e-13, atol=1e-15)
    jitted = ta.jit(lambda n, m, t, p: sp.sph_harm_y(n, m, t, p, n_max=10))(n, m, theta, phi)
    np.testing.assert_allclose(jitted, got, rtol=1e-15, atol=1e-16)
    with pytest.raises(ValueError, match="n_max"):
        ta.jit(lambda n: sp.sph_harm_y(n, m, theta, phi))(n)
    with pytest.raises(NotImplementedError, match="diff_n"):
        sp.sph_harm_y(n, m, theta, phi, diff_n=1)
    with pytest.raises(ValueError, match="non-negative"):
        sp.lpmn_values(-1, 2, z, False)


def test_derivatives_of_owens_t_wofz_and_the_series():
    # Owen's T and the Faddeeva function: their closed forms (JAX's); the others through their loops, in
    # every argument (JAX's hyp2f1 gives 1e74 for the ones at x < 0 here).
    h, a = np.array([0.0, 0.5, 1.0, 3.0, -2.0, 7.0]), np.array([0.3, -2.0, 1.0, 0.5, 5.0, 0.99])
    check_grads(sp.owens_t, (h, a), order=1, eps=1e-6, rtol=1e-6)
    dh, da = ta.vmap(ta.grad(sp.owens_t, argnums=(0, 1)))(h, a)
    np.testing.assert_allclose(dh, -np.exp(-h * h / 2) / np.sqrt(2 * np.pi) * ss.erf(a * h / np.sqrt(2)) / 2,
                               rtol=1e-14, atol=1e-300)
    np.testing.assert_allclose(da, np.exp(-(1 + a * a) * h * h / 2) / (2 * np.pi * (1 + a * a)), rtol=1e-14)
    z = np.array([0.5 + 0.3j, -1.0 + 2.0j, 3.0 + 0.0j, 1.0 - 0.5j])
    _, tangent = ta.jvp(sp.wofz, (z,), (np.ones_like(z),))
    np.testing.assert_allclose(tangent, -2 * z * ss.wofz(z) + 2j / np.sqrt(np.pi), rtol=1e-13)
    real_part = ta.vmap(ta.grad(lambda t: tnp.real(sp.wofz(t + 0.5j))))(z.real)  # reverse mode, in Re z
    np.testing.assert_allclose(real_part, (-2 * (z.real + 0.5j) * ss.wofz(z.real + 0.5j) + 2j / np.sqrt(np.pi)).real,
                               rtol=1e-13)
    x = np.array([0.7, -3.0, 5.0, 40.0])
    a, b = np.array([0.5, 1.3, -0.7, 2.5]), np.array([1.5, 2.2, 3.1, 0.6])
    check_grads(sp.hyp1f1, (a, b, x), order=1, eps=1e-6, rtol=1e-5)
    c, x = np.array([2.5, 3.7, 1.9, 4.4]), np.array([0.3, -2.0, 0.95, 0.6])
    check_grads(sp.hyp2f1, (a, b, c, x), order=1, modes=("rev",), eps=1e-6, rtol=1e-5)
    check_grads(lambda z: sp.bessel_jn(z, v=3), (np.array([0.3, 2.0, 7.5]),), order=1, eps=1e-6, rtol=1e-6)
    theta, phi = np.array([0.4, 1.1, 2.9]), np.array([0.2, 3.0, 5.5])
    check_grads(lambda t, p: tnp.real(sp.sph_harm_y(np.array([2, 5, 3]), np.array([1, -3, 0]), t, p, n_max=5)),
                (theta, phi), order=1, eps=1e-6, rtol=1e-6)


def test_new_functions_under_vmap_jit_and_eagerly():
    x = np.array([[0.3, 2.0, -5.0], [7.5, 0.0, 1e3]])
    batched = ta.vmap(lambda r: (sp.sici(r), sp.fresnel(r), sp.owens_t(r, 0.7), sp.wofz(r), sp.hyp1f1(0.5, 1.5, r),
                                 sp.hyp2f1(0.5, 1.0, 2.5, -r), sp.bessel_jn(r, v=1)))(x)
    eager = (ss.sici(x), ss.fresnel(x), ss.owens_t(x, 0.7), ss.wofz(x), ss.hyp1f1(0.5, 1.5, x),
             ss.hyp2f1(0.5, 1.0, 2.5, -x))
    for got, want in zip(ta.tree_util.tree_leaves(batched[:6]), ta.tree_util.tree_leaves(eager)):
        np.testing.assert_allclose(got, want, rtol=1e-13, atol=1e-300)
    near = np.abs(x) < 20  # where 50 steps of Miller's recurrence converge
    np.testing.assert_allclose(np.moveaxis(batched[6], 1, 0)[:, near], ss.jv([[0], [1]], x[near]), rtol=1e-12,
                               atol=1e-15)
    # Eagerly on numpy arrays and Python numbers; float32 stays float32; integers compute in float64.
    assert sp.sici(np.float32(2.0))[1].dtype == np.float32 and sp.hyp1f1(1, 2, 3).dtype == np.float64
    np.testing.assert_allclose(sp.hyp2f1(1, 1, 2, 0.5), 2 * np.log(2), rtol=1e-15)
    np.testing.assert_allclose(ta.vmap(lambda m: sp.lpmn_values(2, 2, m, False))(np.array([[0.5], [0.1]]))[:, 1, 2, 0],
                               [-1.299038105676658, -0.2984962311319859], rtol=1e-14)
    theta = np.array([[0.3, 1.2], [2.0, 2.9]])
    np.testing.assert_allclose(ta.vmap(lambda t: sp.sph_harm_y(np.array([3, 4]), np.array([-2, 1]), t, 0.7, n_max=4))(
        theta), ss.sph_harm_y(np.array([3, 4]), np.array([-2, 1]), theta, 0.7), rtol=1e-13)
