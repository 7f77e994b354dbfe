"""``tensorad.random`` against ``jax.random`` (Threefry-2x32, partitionable, ``jax_enable_x64``).

JAX runs in the worker process of ``conftest.jax_reference``. Both libraries
draw the same table of samples (:func:`draws`) from the same keys; tensorad's
table is drawn in one jitted function (one compilation), eagerly for a few
functions, and under ``vmap`` over a batch of keys. Keys, bits, integers,
booleans, permutations and uniform floats must be equal bit for bit, as must
the float samples whose only transcendental function is a float64 ``log`` or
``tan`` (libm's and XLA's agree there). The others are compared to a few ulps:
XLA's ``log1p`` and float32 ``log``/``erf`` are its own approximations (so
``normal``, which uses ``erf_inv(u)`` with ``log1p``, differs in the last bits),
XLA fuses uniform's ``floats * (maxval - minval) + minval`` into a fused
multiply-add, and factorizations (Cholesky, QR) round in their own order.

The rejection samplers and the other transformations (:func:`samplers`) are
compared the same way: their counts (Poisson, binomial, multinomial,
geometric) bit for bit, their floats to :data:`SAMPLER_TOLERANCE`. The entries of
:data:`N` samples are also tested against their distributions (scipy's
Kolmogorov-Smirnov and chi-square tests), so that an algorithm's mistake
cannot hide behind agreeing with itself; and the gradients of the samples in
their parameters are compared with JAX's, and for ``gamma`` with finite
differences of its CDF (the implicit reparameterization it implements).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
import scipy.stats

import tensorad as ta
import tensorad.numpy as tnp
import tensorad.random as tr
from tensorad.dialects.families import random_bits
from tensorad.tracing import Tracer

SEEDS = (0, 7, 2 ** 40 + 3)
PROBABILITIES = np.array([0.1, 0.2, 0.3, 0.4])
LOGITS = np.log(np.array([[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]]))
COV = np.array([[2.0, 0.5], [0.5, 1.0]])

# Samples equal to JAX's bit for bit; the others of draws() agree to TOLERANCE (relative).
EXACT = {"split", "split_shape", "fold_in", "fold_in_wide", "bits32", "bits64", "uniform64", "uniform32",
         "uniform16", "uniform_bf16", "uniform_scalar", "uniform_empty", "randint", "randint32_beyond",
         "randint32", "randint_full", "randint_wide", "randint_empty", "bernoulli", "bernoulli_high",
         "rademacher", "gumbel", "cauchy", "categorical", "categorical_axis0", "categorical_unique",
         "permutation", "permutation_axis1", "permutation_independent", "choice", "choice_unique",
         "choice_p", "choice_p_unique", "choice_empty"}
TOLERANCE = {np.dtype("float64"): 1e-13, np.dtype("float32"): 1e-6, np.dtype("complex64"): 1e-6}
# Counts of the rejection samplers and geometric: equal to JAX's bit for bit. The floats of samplers():
# relative, as gamma's tiny samples (1e-300) must agree in their digits; 10**4 normal values reach into the
# tails, where erf_inv magnifies the last bits of log1p (a few hundred ulp of float64). The float32 Gumbel
# values (of order 1) differ in the last bits of log, which relative to a value near 0 is no bound.
EXACT_SAMPLES = {"poisson", "binomial", "geometric", "multinomial", "poisson_edge", "poisson32", "geometric32",
                 "binomial_edge", "binomial32", "empty"}
SAMPLER_TOLERANCE = {np.dtype("float64"): 5e-13, np.dtype("float32"): 2e-6}
SAMPLER_ABSOLUTE = {"gumbel_highest": 1e-6}
N = 10_000  # samples of each distribution check
ALPHAS = np.array([0.05, 0.7, 3.0, 1e3])  # gamma's shapes: boosted tiny, boosted, plain, large
GRAD_ALPHAS = np.array([1e-3, 0.02, 0.3, 1.0, 2.5, 40.0, 1e4])
GRAD_TOLERANCE = {np.dtype("float64"): 1e-12, np.dtype("float32"): 1e-5}


def draws(r, key):
    """A table of samples of ``r`` (``jax.random`` or ``tensorad.random``) from ``key``."""
    k1, k2 = r.split(key)
    return {
        "split": r.split(key, 3), "split_shape": r.split(k1, (2, 3)),
        "fold_in": r.fold_in(key, 7), "fold_in_wide": r.fold_in(k2, 2 ** 31 + 5),
        "bits32": r.bits(key, (7,), np.uint32), "bits64": r.bits(k1, (2, 3), np.uint64),
        "uniform64": r.uniform(key, (3, 5)), "uniform32": r.uniform(k1, (7,), np.float32),
        "uniform16": r.uniform(k2, (7,), np.float16), "uniform_bf16": r.uniform(key, (7,), "bfloat16"),
        "uniform_scalar": r.uniform(k1, ()), "uniform_empty": r.uniform(k1, (0, 3)),
        "uniform_range": r.uniform(k2, (3, 2), np.float32, -2.0, 3.0),
        "randint": r.randint(key, (9,), -5, 17), "randint32_beyond": r.randint(k1, (9,), 0, 2 ** 31 + 100, np.int32),
        "randint32": r.randint(k2, (2, 5), -3, np.array([10, 1000, 7, 2, 1]), np.int32),
        "randint_full": r.randint(key, (9,), -2 ** 63, 2 ** 63 - 1),
        "randint_wide": r.randint(k1, (9,), -2 ** 62, 2 ** 62 + 12345), "randint_empty": r.randint(k2, (4,), 5, 5),
        "normal": r.normal(key, (7,)), "normal32": r.normal(k1, (3, 3), np.float32),
        "normal_complex": r.normal(k2, (3,), np.complex64),
        "bernoulli": r.bernoulli(key, 0.3, (8,)), "bernoulli_high": r.bernoulli(k1, np.array([0.1, 0.9]), (3, 2), "high"),
        "rademacher": r.rademacher(k2, (6,)),
        "exponential": r.exponential(key, (5,)), "laplace": r.laplace(k1, (5,)), "logistic": r.logistic(k2, (5,)),
        "cauchy": r.cauchy(key, (5,)), "gumbel": r.gumbel(k1, (5,)), "gumbel_high": r.gumbel(k2, (5,), mode="high"),
        "categorical": r.categorical(key, LOGITS, shape=(4, 2)), "categorical_axis0": r.categorical(k1, LOGITS, axis=0),
        "categorical_unique": r.categorical(k2, np.log(PROBABILITIES), shape=(3,), replace=False),
        "permutation": r.permutation(key, 10),
        "permutation_axis1": r.permutation(k1, np.arange(12.0).reshape(4, 3), axis=1),
        "permutation_independent": r.permutation(k2, np.arange(12.0).reshape(4, 3), independent=True),
        "choice": r.choice(key, 10, (4,)), "choice_unique": r.choice(k1, np.arange(20) * 3, (5,), replace=False),
        "choice_p": r.choice(k2, 4, (6,), p=PROBABILITIES),
        "choice_p_unique": r.choice(key, 4, (3,), replace=False, p=PROBABILITIES),
        "choice_empty": r.choice(key, 4, (0,)),
        "truncated_normal": r.truncated_normal(k1, -1.0, 2.0, (6,)),
        # Traced with the rest: its LAPACK kernel was once left uncallable from the code around it.
        "multivariate_normal_traced": r.multivariate_normal(k2, np.array([1.0, 2.0]), COV, (3,)),
    }


def factorized(r, key):
    """Samples of ``r`` made with matrix factorizations (drawn eagerly: each compiled on its own)."""
    return {"multivariate_normal": r.multivariate_normal(key, np.array([1.0, 2.0]), COV, (3,)),
            "multivariate_normal_eigh": r.multivariate_normal(key, np.zeros(2), COV, (2,), method="eigh"),
            "orthogonal": r.orthogonal(key, 3)}


def samplers(r, key):
    """A table of the rejection samplers and the other distributions of ``r`` from ``key``.

    The entries of ``N`` samples (per column) face their distributions in
    :func:`test_samples_follow_their_distributions`; the others try dtypes,
    shapes and edge parameters.
    """
    k1, k2 = r.split(key)
    f32 = np.float32
    return {
        "gamma": r.gamma(key, ALPHAS, (N, 4)), "loggamma": r.loggamma(k1, 0.01, (N,)),
        "beta": r.beta(k2, 0.5, 2.0, (N,)), "dirichlet": r.dirichlet(key, np.array([0.3, 1.0, 2.0]), (N,)),
        "chisquare": r.chisquare(k1, 3.0, (N,)), "f": r.f(k2, 3.0, 7.0, (N,)), "t": r.t(key, 2.5, (N,)),
        "generalized_normal": r.generalized_normal(k1, 1.5, (N,)), "ball": r.ball(k2, 3, 2, (N,)),
        # Rates 3 (Knuth's products) and 50 (rejection); n p = 6 (inversion) and n q = 60 (BTRS, p > 1/2).
        "poisson": r.poisson(key, np.array([3.0, 50.0]), (N, 2)),
        "binomial": r.binomial(k1, np.array([20.0, 200.0]), np.array([0.3, 0.7]), (N, 2)),
        "geometric": r.geometric(k2, 0.2, (N,)),
        "multinomial": r.multinomial(key, 20.0, np.array([0.1, 0.2, 0.7]), shape=(N, 3)),
        "pareto": r.pareto(k1, 3.0, (N,)), "weibull_min": r.weibull_min(k2, 2.0, 1.5, (N,)),
        "maxwell": r.maxwell(key, (N,)), "double_sided_maxwell": r.double_sided_maxwell(k1, 1.0, 2.0, (N,)),
        "rayleigh": r.rayleigh(k2, 2.0, (N,)), "wald": r.wald(key, 2.0, (N,)),
        "triangular": r.triangular(k1, 0.0, 0.3, 1.0, (N,)), "lognormal": r.lognormal(k2, 0.5, (N,)),
        "gumbel_highest": r.gumbel(key, (N,), np.float32, mode="highest"),
        "gamma32": r.gamma(k1, ALPHAS.astype(f32), (2, 4), f32), "gamma_tiny": r.gamma(k2, 1e-3, (6,)),
        "gamma_huge32": r.gamma(key, 1e6, (4,), f32), "gamma_scalar": r.gamma(k1, 0.5),
        "loggamma_small": r.loggamma(k2, np.array([1e-4, 0.2, 3.0]), (2, 3)),
        "loggamma32": r.loggamma(key, 0.01, (5,), f32), "beta32": r.beta(k1, 2.0, np.array([0.3, 3.0], f32), None, f32),
        "t32": r.t(k2, 4.0, (3,), f32), "ball_p1": r.ball(key, 2, 1.0, (), f32),
        "poisson_edge": r.poisson(k1, np.array([0.0, 0.5, 9.9, 10.0, 1e4])),
        "poisson32": r.poisson(k2, 4.0, (6,), np.int32),
        "geometric32": r.geometric(key, np.float32(0.2), (4,), np.int32),
        "binomial_edge": r.binomial(k1, np.array([0.0, 10.0, -1.0, np.inf, 7.5, 5.0]),
                                    np.array([0.5, 1.0, 0.5, 0.3, 0.2, np.nan])),
        "binomial32": r.binomial(k2, np.float32(50.0), np.float32(0.4), (3,), f32),
        "weibull_min32": r.weibull_min(key, 1.0, 0.5, (3,), f32),
        "double_sided_maxwell_params": r.double_sided_maxwell(k1, np.zeros(2), np.ones(2)),
        "wald32": r.wald(k2, 2.0, (3,), f32), "lognormal32": r.lognormal(key, shape=(3,), dtype=f32),
        "gumbel_highest64": r.gumbel(k1, (3,), mode="highest"), "empty": r.poisson(k2, 2.0, (0, 3)),
    }


def batched(r, key):
    """Samplers of one key, to be drawn under ``vmap`` over a batch of keys."""
    return {"gamma": r.gamma(key, np.array([0.2, 3.0]), (3, 2)),
            "poisson": r.poisson(key, np.array([2.0, 30.0]), (3, 2)),
            "binomial": r.binomial(key, np.array([4.0, 300.0]), 0.3, (2, 2)), "beta": r.beta(key, 0.5, 2.0, (3,))}


def gradients(r, grad, key):
    """Gradients of sums of samples of ``r`` in their parameters (``grad`` is JAX's or tensorad's)."""
    def total(sampler):
        return lambda *params: sampler(*params).sum()

    return {
        "gamma_samples": r.gamma(key, GRAD_ALPHAS), "gamma": grad(total(lambda a: r.gamma(key, a)))(GRAD_ALPHAS),
        "loggamma_samples": r.loggamma(key, GRAD_ALPHAS),
        "loggamma": grad(total(lambda a: r.loggamma(key, a)))(GRAD_ALPHAS),
        "gamma32": grad(total(lambda a: r.gamma(key, a, (2, len(a)), np.float32)))(GRAD_ALPHAS.astype(np.float32)),
        "beta": grad(total(lambda a, b: r.beta(key, a, b)), argnums=(0, 1))(np.array([0.5, 2.0]),
                                                                             np.array([3.0, 0.2])),
        "dirichlet": grad(lambda a: (r.dirichlet(key, a) * np.arange(3.0)).sum())(np.array([0.1, 1.0, 5.0])),
        "chisquare": grad(total(lambda df: r.chisquare(key, df, (3,))))(4.0),
        "f": grad(total(lambda a, b: r.f(key, a, b, (3,))), argnums=(0, 1))(3.0, 7.0),
        "t": grad(total(lambda df: r.t(key, df, (3,))))(5.0),
        "generalized_normal": grad(total(lambda p: r.generalized_normal(key, p, (4,))))(1.5),
        "pareto": grad(total(lambda b: r.pareto(key, b, (3,))))(2.0),
        "weibull_min": grad(total(lambda s, c: r.weibull_min(key, s, c, (3,))), argnums=(0, 1))(2.0, 1.5),
        "double_sided_maxwell": grad(total(lambda loc, s: r.double_sided_maxwell(key, loc, s, (3,))),
                                     argnums=(0, 1))(1.0, 2.0),
        "rayleigh": grad(total(lambda s: r.rayleigh(key, s, (3,))))(2.0),
        "wald": grad(total(lambda m: r.wald(key, m, (3,))))(2.0),
        "triangular": grad(total(lambda a, b, c: r.triangular(key, a, b, c, (5,))), argnums=(0, 1, 2))(0.0, 0.3, 1.0),
        "lognormal": grad(total(lambda s: r.lognormal(key, s, (3,))))(0.5),
    }


def jax_tables(jax):
    r = jax.random
    keys = [r.PRNGKey(seed) for seed in SEEDS]
    batch = r.split(keys[1], 4)
    vmapped = jax.vmap(lambda k: (r.uniform(k, (3,)), r.randint(k, (2,), 0, 9), r.split(k)))(batch)
    sampler_table = jax.jit(lambda k: samplers(r, k))  # compiled once, for every key
    return {"keys": keys, "tables": [draws(r, k) for k in keys], "factorized": factorized(r, keys[0]),
            "batch": batch, "vmapped": vmapped, "samplers": [sampler_table(k) for k in keys],
            "batched": jax.vmap(lambda k: batched(r, k))(batch),
            # Jitted: one compilation each (JAX compiles every sampler of every shape otherwise).
            "gradients": jax.jit(lambda k: gradients(r, jax.grad, k))(keys[2])}


@pytest.fixture(scope="module")
def jax_results(jax_reference):
    return jax_reference(jax_tables)


@pytest.fixture(scope="module")
def our_samplers():
    """tensorad's :func:`samplers` of each seed, from one jitted function."""
    table = ta.jit(lambda key: samplers(tr, key))
    return [table(tr.PRNGKey(seed)) for seed in SEEDS]


@pytest.fixture(scope="module")
def our_gradients():
    return ta.jit(lambda key: gradients(tr, ta.grad, key))(tr.PRNGKey(SEEDS[2]))


def _as_jax(ours, theirs):
    """tensorad's int32/int64 words viewed as JAX's unsigned dtype."""
    theirs = np.asarray(theirs)
    return np.asarray(ours).view(theirs.dtype) if theirs.dtype.kind == "u" else np.asarray(ours)


def _check_table(ours: dict, theirs: dict, exact=EXACT, tolerance=TOLERANCE, absolute=None) -> None:
    """``ours`` equal to ``theirs`` (``exact`` entries) or within ``tolerance``, relative, or ``absolute``
    (1e-15 where None; per entry where a dict)."""
    assert ours.keys() == theirs.keys()
    for name, expected in theirs.items():
        got = _as_jax(ours[name], expected)
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        if name in exact:
            assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), name
        else:
            atol = 1e-15 if absolute is None else absolute.get(name, 0.0)
            np.testing.assert_allclose(got, expected, rtol=tolerance[expected.dtype], atol=atol, err_msg=name)


# Random123's known answers for Threefry-2x32 with 20 rounds (kat_vectors): key, counter, result words.
THREEFRY_ANSWERS = [((0x00000000, 0x00000000), (0x00000000, 0x00000000), (0x6b200159, 0x99ba4efe)),
                    ((0xffffffff, 0xffffffff), (0xffffffff, 0xffffffff), (0x1cb996fc, 0xbb002be7)),
                    ((0x13198a2e, 0x03707344), (0x243f6a88, 0x85a308d3), (0xc4923a9c, 0x483df7a0))]


def test_threefry_op_gives_the_known_answers_and_batches_over_keys():
    words = lambda *w: np.array(w, np.uint32).view(np.int32)  # noqa: E731
    keys = np.stack([words(*k) for k, _, _ in THREEFRY_ANSWERS])
    counts = np.stack([words(*c) for _, c, _ in THREEFRY_ANSWERS])
    expected = np.stack([words(*r) for _, _, r in THREEFRY_ANSWERS])

    def hash_words(key, count):
        bits = random_bits.threefry2x32(*(tnp.asarray(w).value for w in (key[0], key[1], count[0], count[1])))
        return tnp.stack([Tracer.of(b) for b in bits])

    for key, count, answer in zip(keys, counts, expected):
        assert np.array_equal(ta.jit(hash_words)(key, count), answer)
    assert np.array_equal(ta.jit(ta.vmap(hash_words))(keys, counts), expected)
    # One op per hash, whatever the size of the draw.
    assert ta.jit(lambda k: tr.bits(k, (64, 64))).lower(tr.PRNGKey(0)).as_text("tad").count("tad.threefry2x32") == 1


def test_keys_are_jax_keys(jax_results):
    for seed, expected in zip(SEEDS, jax_results["keys"]):
        assert np.array_equal(_as_jax(tr.PRNGKey(seed), expected), expected)
        assert np.array_equal(tr.key(seed), tr.PRNGKey(seed))
    assert np.array_equal(tr.PRNGKey(np.int32(-1)).view(np.uint32), [0, 2 ** 32 - 1])  # an int32 seed: high word 0


def test_jitted_draws_are_jax_draws(jax_results):
    table = ta.jit(lambda key: draws(tr, key))
    for key, expected in zip(jax_results["keys"], jax_results["tables"]):
        _check_table(table(tr.wrap_key_data(key)), expected)


def test_eager_draws_are_jax_draws(jax_results):
    key, expected = jax_results["keys"][1], jax_results["tables"][1]
    k1, _ = tr.split(key)  # a JAX uint32 key is taken as it is
    assert np.array_equal(tr.uniform(k1, (7,), np.float32), expected["uniform32"])
    assert np.array_equal(tr.randint(key, (9,), -5, 17), expected["randint"])
    assert np.array_equal(tr.permutation(key, 10), expected["permutation"])
    assert np.array_equal(tr.key_data(tr.split(key, 3)).view(np.uint32), expected["split"])


def test_factorized_draws_are_jax_draws(jax_results):
    _check_table(factorized(tr, jax_results["keys"][0]), jax_results["factorized"])


def test_vmap_over_keys(jax_results):
    uniform, integers, keys = ta.vmap(lambda k: (tr.uniform(k, (3,)), tr.randint(k, (2,), 0, 9), tr.split(k)))(
        tr.wrap_key_data(jax_results["batch"]))
    expected = jax_results["vmapped"]
    assert np.array_equal(uniform, expected[0]) and np.array_equal(integers, expected[1])
    assert np.array_equal(keys.view(np.uint32), expected[2])


def test_reparameterized_gradients():
    key = tr.PRNGKey(3)
    z, u = tr.normal(key, (5,)), tr.uniform(key, (5,))
    assert np.allclose(ta.grad(lambda sigma: tnp.sum(1.0 + sigma * tr.normal(key, (5,))))(2.0), z.sum())
    d_min, d_max = ta.grad(lambda lo, hi: tnp.sum(tr.uniform(key, (5,), minval=lo, maxval=hi)), argnums=(0, 1))(
        np.float64(0.0), np.float64(1.0))
    assert np.allclose(d_min, np.sum(1.0 - u)) and np.allclose(d_max, np.sum(u))


def test_jitted_samplers_are_jax_samplers(jax_results, our_samplers):
    for ours, expected in zip(our_samplers, jax_results["samplers"]):
        _check_table(ours, expected, EXACT_SAMPLES, SAMPLER_TOLERANCE, SAMPLER_ABSOLUTE)


def test_eager_samplers_are_jax_samplers(jax_results):
    key, expected = jax_results["keys"][0], jax_results["samplers"][0]
    k1, k2 = tr.split(key)
    np.testing.assert_allclose(tr.gamma(k1, ALPHAS.astype(np.float32), (2, 4), np.float32), expected["gamma32"],
                               rtol=TOLERANCE[np.dtype("float32")])
    assert np.array_equal(tr.poisson(k1, np.array([0.0, 0.5, 9.9, 10.0, 1e4])), expected["poisson_edge"])


def test_samplers_vmap_over_keys(jax_results):
    ours = ta.vmap(lambda key: batched(tr, key))(tr.wrap_key_data(jax_results["batch"]))
    _check_table(ours, jax_results["batched"], {"poisson", "binomial"}, SAMPLER_TOLERANCE, {})


def _distribution_checks(table: dict):
    """(name, samples, scipy distribution) of the table's entries of N samples."""
    st = scipy.stats
    for column, a in enumerate(ALPHAS):
        yield f"gamma({a})", table["gamma"][:, column], st.gamma(a)
    yield "loggamma", table["loggamma"], st.loggamma(0.01)
    yield "beta", table["beta"], st.beta(0.5, 2.0)
    yield "dirichlet", table["dirichlet"][:, 0], st.beta(0.3, 3.0)
    yield "chisquare", table["chisquare"], st.chi2(3.0)
    yield "f", table["f"], st.f(3.0, 7.0)
    yield "t", table["t"], st.t(2.5)
    yield "generalized_normal", table["generalized_normal"], st.gennorm(1.5)
    yield "ball", np.linalg.norm(table["ball"], axis=-1) ** 3, st.uniform()  # P(|x| <= r) = r^3
    yield "poisson(3)", table["poisson"][:, 0], st.poisson(3.0)
    yield "poisson(50)", table["poisson"][:, 1], st.poisson(50.0)
    yield "binomial(20, 0.3)", table["binomial"][:, 0], st.binom(20, 0.3)
    yield "binomial(200, 0.7)", table["binomial"][:, 1], st.binom(200, 0.7)
    yield "geometric", table["geometric"], st.geom(0.2)
    yield "multinomial", table["multinomial"][:, 0], st.binom(20, 0.1)
    yield "pareto", table["pareto"], st.pareto(3.0)
    yield "weibull_min", table["weibull_min"], st.weibull_min(1.5, scale=2.0)
    yield "maxwell", table["maxwell"], st.maxwell()
    # Standardized, the double-sided Maxwell is a Maxwell with a random sign: CDF 1/2 + sign(y) F(|y|) / 2.
    two_sided = st.rv_continuous()
    two_sided.cdf = lambda y: 0.5 + np.sign(y) * st.maxwell.cdf(np.abs(y)) / 2
    yield "double_sided_maxwell", (table["double_sided_maxwell"] - 1.0) / 2.0, two_sided
    yield "rayleigh", table["rayleigh"], st.rayleigh(scale=2.0)
    yield "wald", table["wald"], st.invgauss(2.0)
    yield "triangular", table["triangular"], st.triang(0.3)
    yield "lognormal", table["lognormal"], st.lognorm(0.5)
    yield "gumbel_highest", table["gumbel_highest"], st.gumbel_r()


def _count_test(samples, dist) -> float:
    """The chi-square test's p-value of integer samples: one bin per value of ``dist``'s bulk, tails lumped."""
    low, high = dist.ppf(1e-3), dist.ppf(1 - 1e-3)
    values = np.arange(low, high + 1)
    observed = np.array([np.sum(np.clip(samples, low, high) == v) for v in values])
    expected = dist.pmf(values)
    expected[0], expected[-1] = dist.cdf(low), dist.sf(high - 1)
    return scipy.stats.chisquare(observed, expected * samples.size).pvalue


def test_samples_follow_their_distributions(our_samplers):
    table = our_samplers[0]
    assert np.array_equal(table["multinomial"].sum(-1), np.full(N, 20.0))
    assert np.allclose(table["dirichlet"].sum(-1), 1.0)
    for name, samples, dist in _distribution_checks(table):
        assert samples.shape == (N,), name
        discrete = hasattr(dist, "pmf")
        p_value = _count_test(samples, dist) if discrete else scipy.stats.kstest(samples, dist.cdf).pvalue
        assert p_value > 1e-3, (name, p_value)


def test_sampler_gradients_are_jax_gradients(jax_results, our_gradients):
    expected = jax_results["gradients"]
    assert our_gradients.keys() == expected.keys()
    for name in expected:
        for got, want in zip(np.broadcast_arrays(*np.atleast_1d(our_gradients[name])), np.atleast_1d(expected[name])):
            assert got.dtype == want.dtype, name
            np.testing.assert_allclose(got, want, rtol=GRAD_TOLERANCE[want.dtype], atol=0.0, err_msg=name)


def _gamma_sample_derivative(a, x):
    """dx/da of the Gamma(a) quantile at the sample x: -(dP/da) / density, dP/da by central differences."""
    h = 1e-6 * a
    dp_da = (scipy.special.gammainc(a + h, x) - scipy.special.gammainc(a - h, x)) / (2 * h)
    density = np.exp((a - 1) * np.log(x) - x - scipy.special.gammaln(a))
    return -dp_da / density


def test_gamma_gradient_keeps_the_cdf(our_gradients):
    """Implicit reparameterization: the sample moves with ``a`` so that its CDF value stays the same."""
    # d log(x) / da = (dx/da) / x for the log-space sampler, at its own samples. The samples of a = 1e-3
    # may underflow as floats (JAX's rules then give dx/da = 0, and use the smallest normal float for x
    # in d log(x) / da): the others are checked.
    for name, x, of_log in (("gamma", our_gradients["gamma_samples"], False),
                            ("loggamma", np.exp(our_gradients["loggamma_samples"]), True)):
        kept = x > 0
        assert kept.sum() >= len(GRAD_ALPHAS) - 1, name
        expected = _gamma_sample_derivative(GRAD_ALPHAS[kept], x[kept])
        np.testing.assert_allclose(our_gradients[name][kept], expected / x[kept] if of_log else expected,
                                   rtol=1e-5, err_msg=name)


@pytest.mark.parametrize("call, error, message", [
    (lambda: tr.uniform(np.zeros(2), (3,)), TypeError, "32-bit words"),
    (lambda: tr.uniform(np.zeros(3, np.int32), (3,)), TypeError, "shape \\(2,\\)"),
    (lambda: tr.uniform(np.zeros((4, 2), np.int32), (3,)), ValueError, "single key"),
    (lambda: tr.uniform(tr.PRNGKey(0), 3), TypeError, "sequence of integers"),
    (lambda: tr.uniform(tr.PRNGKey(0), (2, -1)), ValueError, "nonnegative"),
    (lambda: tr.uniform(tr.PRNGKey(0), (3,), np.int32), ValueError, "must be a float dtype"),
    (lambda: tr.uniform(tr.PRNGKey(0), (3,), minval=np.zeros(2)), ValueError, "broadcast-compatible"),
    (lambda: tr.randint(tr.PRNGKey(0), (3,), 0, 5, np.float64), TypeError, "integer dtypes"),
    (lambda: tr.bits(tr.PRNGKey(0), (3,), np.int32), ValueError, "unsigned"),
    (lambda: tr.bits(tr.PRNGKey(0), (3,), np.uint8), TypeError, "uint32 or uint64"),
    (lambda: tr.PRNGKey(np.arange(2)), TypeError, "scalar seed"),
    (lambda: tr.PRNGKey(1.5), TypeError, "must be an integer"),
    (lambda: tr.fold_in(tr.PRNGKey(0), np.arange(2)), TypeError, "accepts a scalar"),
    (lambda: tr.choice(tr.PRNGKey(0), 3, (5,), replace=False), ValueError, "larger sample"),
    (lambda: tr.choice(tr.PRNGKey(0), 4, (2,), p=np.ones(3) / 3), ValueError, "p must be None"),
    (lambda: tr.bernoulli(tr.PRNGKey(0), 0.5, (2,), "medium"), ValueError, "'high' or 'low'"),
    (lambda: tr.gumbel(tr.PRNGKey(0), (2,), mode="medium"), ValueError, "mode"),
    (lambda: tr.multivariate_normal(tr.PRNGKey(0), np.zeros(2), COV, method="qr"), ValueError, "method"),
    (lambda: tr.multivariate_normal(tr.PRNGKey(0), np.zeros(3), COV), ValueError, "cov.shape"),
    (lambda: tr.wrap_key_data(np.zeros(2, np.uint32), impl="rbg"), ValueError, "threefry2x32"),
    (lambda: tr.gamma(tr.PRNGKey(0), np.ones(3), (2,)), ValueError, "broadcast-compatible"),
    (lambda: tr.gamma(tr.PRNGKey(0), 1.0, (2,), np.int32), ValueError, "must be a float dtype"),
    (lambda: tr.gamma(tr.split(tr.PRNGKey(0), 3), 1.0), ValueError, "single key"),
    (lambda: tr.loggamma(tr.PRNGKey(0), 1.0, 3), TypeError, "sequence of integers"),
    (lambda: tr.beta(tr.PRNGKey(0), np.float64(1.0), 2.0, (2,), np.float32), ValueError, "cannot safely cast"),
    (lambda: tr.dirichlet(tr.PRNGKey(0), 1.0), ValueError, "alpha.ndim >= 1"),
    (lambda: tr.dirichlet(tr.PRNGKey(0), np.ones((2, 3)), (3,)), ValueError, "broadcast-compatible"),
    (lambda: tr.poisson(tr.PRNGKey(0), 1.0, (2,), np.float32), ValueError, "must be an int dtype"),
    (lambda: tr.poisson(tr.PRNGKey(0), np.ones(3), (2,)), ValueError, "broadcast-compatible"),
    (lambda: tr.geometric(tr.PRNGKey(0), 0.5, (2,), np.float64), ValueError, "must be an int dtype"),
    (lambda: tr.binomial(tr.PRNGKey(0), np.ones(2), np.ones(3) / 2), ValueError, "do not broadcast"),
    (lambda: tr.multinomial(tr.PRNGKey(0), 3.0, np.ones(3) / 3, shape=(2,)), ValueError, "broadcast-compatible"),
    (lambda: tr.double_sided_maxwell(tr.PRNGKey(0), np.zeros(2), np.ones(3)), ValueError, "do not broadcast"),
    (lambda: tr.ball(tr.PRNGKey(0), -1), TypeError, "nonnegative integer"),
    (lambda: ta.jit(lambda key: tr.t(key, np.ones(3), (4,)))(tr.PRNGKey(0)), ValueError, "test_random.py"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()


def test_a_memory_budget_recomputes_the_same_bits():
    # Dropout masks are hashes (tad.threefry2x32) that rematerialization may recompute rather than keep:
    # under a budget the gradient is the same to the bit, and the measured peak stays within it.
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((32, 32)) / 6 for _ in range(4)]
    x = rng.standard_normal((64, 32))

    def loss(ws, x, key):
        h = x
        for w in ws:
            key, sub = tr.split(key)
            h = tnp.where(tr.bernoulli(sub, 0.8, h.shape), tnp.tanh(h @ w) / 0.8, 0.0)
        return (h * h).sum()

    step = ta.grad(loss)
    store_all = ta.memory_report(step, ws, x, tr.PRNGKey(1)).functions[0].predicted_peak_bytes
    budget = int(0.9 * store_all)
    budgeted = ta.jit(step, memory_budget=budget)
    report = ta.memory_report(budgeted, ws, x, tr.PRNGKey(1))
    assert report.measured_peak_bytes <= report.functions[0].predicted_peak_bytes <= budget
    assert report.functions[0].extra_flops > 0
    for got, want in zip(budgeted(ws, x, tr.PRNGKey(1)), step(ws, x, tr.PRNGKey(1))):
        assert np.array_equal(got, want)
