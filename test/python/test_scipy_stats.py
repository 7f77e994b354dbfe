"""tensorad.scipy.stats against scipy.stats: values (float64 and float32), jit/vmap, and derivatives.

Each table of functions is compiled once; grids cover the support edges and
invalid parameters (where the module returns NaN, as JAX's).
"""

import numpy as np
import pytest
import scipy.stats as st

import tensorad as ta
from tensorad import random
from tensorad.scipy import stats
from tensorad.test_util import check_grads

X = np.concatenate([np.linspace(-4.0, 6.0, 41), [0.0, 1.0, 2.0]])
Q = np.linspace(0.0, 1.0, 41)
K = np.arange(-1.0, 9.0)




def _continuous(m, x, q, skip=()):
    """name -> value for the continuous families; ``m`` is tensorad's stats module or scipy's."""
    out = {}
    for name, args in [("cauchy", (0.5, 2.0)), ("expon", (0.5, 2.0)), ("gumbel_l", (0.5, 2.0)),
                       ("gumbel_r", (0.5, 2.0)), ("laplace", (0.5, 2.0)), ("logistic", (0.5, 2.0)),
                       ("uniform", (0.5, 2.0)), ("beta", (2.5, 1.5, -1.0, 4.0)), ("gamma", (2.5, -1.0, 2.0)),
                       ("chi2", (3.0, -1.0, 2.0)), ("pareto", (2.5, -1.0, 2.0)), ("t", (3.5, 0.5, 2.0)),
                       ("truncnorm", (-1.0, 2.0, 0.5, 1.5)), ("gennorm", (1.5,)), ("vonmises", (2.0,)),
                       ("wrapcauchy", (0.4,))]:
        dist = getattr(m, name)
        for fn in ("logpdf", "pdf", "cdf", "logcdf", "sf", "logsf"):
            if hasattr(getattr(stats, name), fn) and f"{name}.{fn}" not in skip:
                out[f"{name}.{fn}"] = getattr(dist, fn)(x, *args)
        for fn in ("ppf", "isf"):
            if hasattr(getattr(stats, name), fn):
                out[f"{name}.{fn}"] = getattr(dist, fn)(q, *args)
    return out


def _discrete(m, k, skip=()):
    out = {}
    for name, args in [("bernoulli", (0.3,)), ("binom", (6.0, 0.3)), ("betabinom", (6.0, 2.0, 1.5)),
                       ("geom", (0.3,)), ("nbinom", (3.0, 0.4)), ("poisson", (2.5,))]:
        for fn in ("logpmf", "pmf", "cdf"):
            if hasattr(getattr(stats, name), fn) and f"{name}.{fn}" not in skip:
                out[f"{name}.{fn}"] = getattr(getattr(m, name), fn)(k, *args)
    return out


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-12), (np.float32, 2e-5)])
def test_values_match_scipy(dtype, rtol):
    x, q, k = X.astype(dtype), Q.astype(dtype), K.astype(dtype)
    skip = ()
    got = ta.jit(lambda x, q, k: {**_continuous(stats, x, q, skip), **_discrete(stats, k, skip)})(x, q, k)
    want = {**_continuous(st, X, Q, skip), **_discrete(st, K, skip)}
    bad = []
    for name, expected in want.items():
        value = np.asarray(got[name])
        assert value.dtype == dtype, name
        keep = np.abs(expected) < 1e30 if dtype == np.float32 else np.ones(expected.shape, bool)
        if dtype == np.float32:
            keep &= (np.abs(expected) > 1e-30) | (expected == 0)
        if name.endswith(("ppf", "isf")):
            # tan(+-pi/2) is finite in floating point (as JAX's): the Cauchy quantiles at q = 0, 1.
            keep &= (Q > 0) & (Q < 1)
            # Near the edges of [0, 1], float32 quantiles are ill-conditioned in q.
            keep &= (Q > 0.05) & (Q < 0.95) if dtype == np.float32 else True
        try:
            # gumbel_l.logcdf = log(-expm1(-e^z)): scipy's own formula differs by ~1e-11 there.
            np.testing.assert_allclose(value[keep], expected[keep], rtol=max(rtol, 1e-10 * (name == "gumbel_l.logcdf")),
                                       atol=1e-300 if dtype == np.float64 else 1e-6, err_msg=name)
        except AssertionError as err:
            bad.append(str(err)[:1500])
    assert not bad, "\n".join(bad)


def test_invalid_parameters_give_nan():
    got = ta.jit(lambda: [stats.beta.logpdf(0.5, -1.0, 2.0), stats.gumbel_r.logpdf(0.5, 0.0, -1.0),
                          stats.vonmises.logpdf(0.5, -1.0), stats.wrapcauchy.logpdf(0.5, 1.5),
                          stats.truncnorm.logpdf(0.5, 2.0, 1.0), stats.betabinom.logpmf(1.0, 3.0, -1.0, 1.0),
                          stats.bernoulli.cdf(0.5, 1.5), stats.expon.ppf(1.5), stats.uniform.ppf(-0.5)])()
    assert all(np.isnan(v) for v in got)


def test_multivariate_match_scipy():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(3, 3))
    cov = a @ a.T + 3 * np.eye(3)
    x, mean = rng.normal(size=(5, 3)), rng.normal(size=3)
    alpha, simplex = np.array([1.5, 2.0, 3.0]), rng.dirichlet([1.0, 1.0, 1.0], size=4).T
    counts, p = np.array([[1, 2, 3], [0, 0, 6], [2, 2, 1]]), np.array([0.2, 0.3, 0.5])
    got = ta.jit(lambda x, mean, cov, simplex: (
        stats.multivariate_normal.logpdf(x, mean, cov), stats.multivariate_normal.pdf(x, mean, 2.0),
        stats.dirichlet.logpdf(simplex, alpha), stats.dirichlet.pdf(simplex[:2], alpha),
        stats.multinomial.logpmf(counts, 6, p)))(x, mean, cov, simplex)
    want = (st.multivariate_normal.logpdf(x, mean, cov), st.multivariate_normal.pdf(x, mean, 2.0),
            st.dirichlet.logpdf(simplex, alpha), st.dirichlet.pdf(simplex, alpha),
            [st.multinomial.logpmf(c, 6, p) if c.sum() == 6 else -np.inf for c in counts])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)
    np.testing.assert_allclose(stats.poisson.entropy(np.array([0.5, 3.0, 50.0, 500.0])),
                               st.poisson.entropy([0.5, 3.0, 50.0, 500.0]), rtol=1e-6)


def test_vmap_over_parameters():
    a = np.array([0.5, 1.5, 4.0])
    got = ta.vmap(lambda a: stats.gamma.logpdf(1.5, a) + stats.t.logpdf(0.3, a) + stats.poisson.logpmf(2.0, a))(a)
    want = st.gamma.logpdf(1.5, a) + st.t.logpdf(0.3, a) + st.poisson.logpmf(2, a)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_gradients_match_finite_differences():
    def logdensities(x, a, s):
        return (stats.gamma.logpdf(x, a, 0.0, s) + stats.beta.logpdf(x / 4, a, 1.5) + stats.t.logpdf(x, a, 0.2, s)
                + stats.cauchy.logpdf(x, 0.3, s) + stats.gumbel_r.logpdf(x, 0.1, s) + stats.logistic.logpdf(x, 0.0, s)
                + stats.truncnorm.logpdf(x, -1.0, 3.0, 0.0, s) + stats.vonmises.logpdf(x, a)
                + stats.chi2.logpdf(x, a, 0.0, s) + stats.pareto.logpdf(x + 2, a) + stats.gennorm.logpdf(x, a)
                + stats.nbinom.logpmf(3.0, a, 0.4) + stats.binom.logpmf(2.0, 5.0, x / 4)
                + stats.gamma.cdf(x, a) + stats.beta.cdf(x / 4, a, 2.0))
    for point in [(1.3, 2.5, 1.5), (0.7, 1.2, 0.8)]:
        check_grads(logdensities, point, order=1, modes=("rev",))


def test_statistics_match_scipy():
    data = np.array([[3.0, 1.0, 2.0], [1.0, 1.0, 2.0], [3.0, 5.0, 2.0], [0.0, 5.0, 7.0]])
    for method in ("average", "min", "max", "dense", "ordinal"):
        np.testing.assert_array_equal(stats.rankdata(data, method), st.rankdata(data, method))
    np.testing.assert_array_equal(stats.rankdata(data, axis=0), st.rankdata(data, axis=0))
    result = stats.mode(data)
    want = st.mode(data)
    np.testing.assert_array_equal(result.mode, want.mode)
    np.testing.assert_array_equal(result.count, want.count)
    np.testing.assert_allclose(stats.sem(data), st.sem(data), rtol=1e-13)
    np.testing.assert_allclose(stats.sem(data, axis=None), st.sem(data, axis=None), rtol=1e-13)


def test_gaussian_kde_matches_scipy():
    rng = np.random.default_rng(1)
    data, weights, points = rng.normal(size=(2, 20)), rng.uniform(size=20), rng.normal(size=(2, 7))
    for bw in (None, "silverman", 0.4):
        ours, theirs = stats.gaussian_kde(data, bw, weights), st.gaussian_kde(data, bw, weights)
        np.testing.assert_allclose(ours.evaluate(points), theirs.evaluate(points), rtol=1e-12)
        np.testing.assert_allclose(ours.logpdf(points), theirs.logpdf(points), rtol=1e-12)
    np.testing.assert_allclose(ours.integrate_gaussian(np.zeros(2), np.eye(2)),
                               theirs.integrate_gaussian(np.zeros(2), np.eye(2)), rtol=1e-12)
    np.testing.assert_allclose(ours.integrate_kde(ours), theirs.integrate_kde(theirs), rtol=1e-12)
    one = stats.gaussian_kde(data[0])
    np.testing.assert_allclose(one.integrate_box_1d(-0.5, 1.0), st.gaussian_kde(data[0]).integrate_box_1d(-0.5, 1.0),
                               rtol=1e-12)
    draws = one.resample(random.PRNGKey(0), (4000,))
    assert draws.shape == (1, 4000) and abs(np.mean(draws) - np.mean(data[0])) < 0.1
