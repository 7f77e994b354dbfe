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
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
import tensorad.random as tr

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


def jax_tables(jax):
    r = jax.random
    keys = [r.PRNGKey(seed) for seed in SEEDS]
    batch = r.split(keys[1], 4)
    vmapped = jax.vmap(lambda k: (r.uniform(k, (3,)), r.randint(k, (2,), 0, 9), r.split(k)))(batch)
    return {"keys": keys, "tables": [draws(r, k) for k in keys], "factorized": factorized(r, keys[0]),
            "batch": batch, "vmapped": vmapped}


@pytest.fixture(scope="module")
def jax_results(jax_reference):
    return jax_reference(jax_tables)


def _as_jax(ours, theirs):
    """tensorad's int32/int64 words viewed as JAX's unsigned dtype."""
    theirs = np.asarray(theirs)
    return np.asarray(ours).view(theirs.dtype) if theirs.dtype.kind == "u" else np.asarray(ours)


def _check_table(ours: dict, theirs: dict) -> None:
    assert ours.keys() == theirs.keys()
    for name, expected in theirs.items():
        got = _as_jax(ours[name], expected)
        assert got.dtype == expected.dtype and got.shape == expected.shape, name
        if name in EXACT:
            assert np.array_equal(got, expected), name
        else:
            np.testing.assert_allclose(got, expected, rtol=TOLERANCE[expected.dtype], atol=1e-15, err_msg=name)


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
    (lambda: tr.gumbel(tr.PRNGKey(0), (2,), mode="highest"), ValueError, "mode"),
    (lambda: tr.multivariate_normal(tr.PRNGKey(0), np.zeros(2), COV, method="qr"), ValueError, "method"),
    (lambda: tr.multivariate_normal(tr.PRNGKey(0), np.zeros(3), COV), ValueError, "cov.shape"),
    (lambda: tr.wrap_key_data(np.zeros(2, np.uint32), impl="rbg"), ValueError, "threefry2x32"),
])
def test_errors(call, error, message):
    with pytest.raises(error, match=message):
        call()
