"""``tensorad.nn`` activations, normalization, dropout and PRNG against numpy/scipy and JAX.

Values are compared with independent references (scipy.special, numpy, and
``jax.nn`` where it has the same function), derivatives with finite
differences (``check_grads`` in float64) and with ``jax.vjp``. The PRNG is checked
bit for bit against a plain-numpy splitmix64 on uint64, and statistically.
Each jitted function returns every variant at once: compiling dominates the
run time.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special
import scipy.stats

import tensorad as ta
from tensorad import TracingError, nn
from tensorad.nn import random
from tensorad.test_util import check_grads

TOLERANCE = {np.dtype(np.float32): dict(rtol=3e-6, atol=1e-6),
             np.dtype(np.float64): dict(rtol=1e-12, atol=1e-14)}


@pytest.fixture
def rng():
    return np.random.default_rng(0)


def gelu_tanh(x):
    """The tanh approximation of GELU, in numpy."""
    return 0.5 * x * (1.0 + np.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * x ** 3)))


def gelu_exact(x):
    """GELU with the exact Gaussian CDF, in scipy."""
    return x * scipy.special.ndtr(x)


def gelu_erf(x):
    return nn.gelu(x, approximate=False)


def logsumexp_last(x):
    return nn.logsumexp(x, axis=-1)


# name: (tensorad function, numpy/scipy reference), reducing ones along the last axis.
ACTIVATIONS = {
    "relu": (nn.relu, lambda x: np.maximum(x, 0)),
    "sigmoid": (nn.sigmoid, scipy.special.expit),
    "softplus": (nn.softplus, lambda x: np.logaddexp(x, 0)),
    "gelu": (nn.gelu, gelu_tanh),
    "gelu_exact": (gelu_erf, gelu_exact),
    "softmax": (nn.softmax, lambda x: scipy.special.softmax(x, axis=-1)),
    "log_softmax": (nn.log_softmax, lambda x: scipy.special.log_softmax(x, axis=-1)),
    "logsumexp": (logsumexp_last, lambda x: scipy.special.logsumexp(x, axis=-1)),
}


def run_all(functions: dict, *args):
    """Compile one function returning every ``functions[name](*args)``; return the dict."""
    return ta.jit(lambda *xs: {name: f(*xs) for name, f in functions.items()})(*args)


def assert_all_close(got: dict, want: dict, dtype) -> None:
    for name in want:
        assert got[name].dtype == dtype, name
        np.testing.assert_allclose(got[name], want[name], err_msg=name, **TOLERANCE[np.dtype(dtype)])


# ----------------------------------------------------------------------------
# Activations
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_activations_match_scipy(rng, dtype):
    x = (rng.standard_normal((3, 5)) * 4.0).astype(dtype)
    got = run_all({name: f for name, (f, _) in ACTIVATIONS.items()}, x)
    want = {name: ref(x.astype(np.float64)).astype(dtype) for name, (_, ref) in ACTIVATIONS.items()}
    assert_all_close(got, want, dtype)


def test_reductions_take_axis_and_keepdims(rng):
    x = rng.standard_normal((2, 3, 4))
    got = run_all({
        "softmax0": lambda x: nn.softmax(x, axis=0),
        "log_softmax1": lambda x: nn.log_softmax(x, axis=1),
        "logsumexp_all": nn.logsumexp,
        "logsumexp_02_keep": lambda x: nn.logsumexp(x, axis=(0, 2), keepdims=True),
    }, x)
    assert_all_close(got, {
        "softmax0": scipy.special.softmax(x, axis=0),
        "log_softmax1": scipy.special.log_softmax(x, axis=1),
        "logsumexp_all": scipy.special.logsumexp(x),
        "logsumexp_02_keep": scipy.special.logsumexp(x, axis=(0, 2), keepdims=True),
    }, np.float64)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_extreme_inputs_give_finite_correct_values_and_gradients(dtype):
    x = np.array([[-1e4, 0.0, 1e4], [1e4, 1e4, -1e4]], dtype)
    functions = {name: f for name, (f, _) in ACTIVATIONS.items()}
    got = run_all(functions, x)
    want = {name: ref(x.astype(np.float64)).astype(dtype) for name, (_, ref) in ACTIVATIONS.items()}
    assert_all_close(got, want, dtype)
    # A cotangent with distinct entries, so that no cancellation hides a NaN or an infinity.
    cotangents = {name: np.linspace(-1.0, 2.0, v.size).reshape(v.shape).astype(dtype)
                  for name, v in got.items()}
    grads = run_all({name: ta.grad(lambda x, f=f, c=cotangents[name]: (f(x) * c).sum())
                     for name, f in functions.items()}, x)
    for name, g in grads.items():
        assert np.all(np.isfinite(g)), name


def test_a_row_of_minus_infinity_stays_out_of_nan():
    x = np.array([[-np.inf, -np.inf], [0.0, -np.inf]])
    got = run_all({"logsumexp": logsumexp_last, "log_softmax": nn.log_softmax,
                   "softmax": nn.softmax}, x)
    np.testing.assert_array_equal(got["logsumexp"], [-np.inf, 0.0])
    np.testing.assert_array_equal(got["log_softmax"][1], [0.0, -np.inf])
    np.testing.assert_array_equal(got["softmax"][1], [1.0, 0.0])


def test_relu_derivative_is_zero_at_zero_and_nan_propagates():
    np.testing.assert_array_equal(ta.grad(lambda x: nn.relu(x).sum())(np.array([-1.0, 0.0, 2.0])),
                                  [0.0, 0.0, 1.0])
    assert np.isnan(ta.jit(nn.relu)(np.array([np.nan]))[0])


def test_small_sigmoid_keeps_its_relative_precision():
    np.testing.assert_allclose(ta.jit(nn.sigmoid)(np.array([-40.0, -700.0])),
                               scipy.special.expit([-40.0, -700.0]), rtol=1e-14)


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_derivatives_match_finite_differences(rng, name):
    f, _ = ACTIVATIONS[name]
    x = rng.standard_normal((3, 4)) * 2.0
    if name == "relu":  # keep finite differences away from the kink
        x = np.where(np.abs(x) < 0.1, 0.5, x)
    check_grads(f, (x,), order=2)


# ----------------------------------------------------------------------------
# Normalization
# ----------------------------------------------------------------------------

def standardize(x, axes, eps=1e-5):
    mean = x.mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)


def test_layer_norm_and_batch_norm_match_numpy(rng):
    x2, x4 = rng.standard_normal((6, 5)), rng.standard_normal((4, 3, 5, 2)) * 3.0 + 1.0
    w5, b5, w3, b3 = (rng.standard_normal(n) for n in (5, 5, 3, 3))
    w52 = rng.standard_normal((5, 2))
    got = ta.jit(lambda x2, x4, w5, b5, w3, b3, w52: {
        "layer": nn.layer_norm(x2),
        "layer_affine": nn.layer_norm(x2, w5, b5),
        "layer_two_axes": nn.layer_norm(x4, w52, axis=(-2, -1)),
        "layer_inner_axis": nn.layer_norm(x4, w3, axis=1, eps=1e-3),
        "batch_2d": nn.batch_norm(x2, w5, b5),
        "batch_4d": nn.batch_norm(x4, w3, b3),
        "batch_4d_plain": nn.batch_norm(x4),
    })(x2, x4, w5, b5, w3, b3, w52)
    per_channel = (1, 3, 1, 1)
    assert_all_close(got, {
        "layer": standardize(x2, -1),
        "layer_affine": standardize(x2, -1) * w5 + b5,
        "layer_two_axes": standardize(x4, (2, 3)) * w52,
        "layer_inner_axis": standardize(x4, 1, eps=1e-3) * w3.reshape(per_channel),
        "batch_2d": standardize(x2, 0) * w5 + b5,
        "batch_4d": standardize(x4, (0, 2, 3)) * w3.reshape(per_channel) + b3.reshape(per_channel),
        "batch_4d_plain": standardize(x4, (0, 2, 3)),
    }, np.float64)


def test_normalization_derivatives_match_finite_differences(rng):
    x2, x4 = rng.standard_normal((4, 3)), rng.standard_normal((3, 2, 2, 2))
    w3, b3, w2, b2 = (rng.standard_normal(n) for n in (3, 3, 2, 2))
    check_grads(lambda x, w, b: nn.layer_norm(x, w, b), (x2, w3, b3), order=2)
    check_grads(lambda x, w, b: nn.batch_norm(x, w, b), (x4, w2, b2), order=2)


def test_affine_parameters_of_the_wrong_shape_are_rejected():
    with pytest.raises(TracingError, match=r"affine parameter of shape \(3,\)"):
        ta.jit(lambda x, w: nn.batch_norm(x, w))(np.ones((2, 3)), np.ones(2))
    with pytest.raises(TracingError, match=r"shape \(N, C, ...\)"):
        ta.jit(nn.batch_norm)(np.ones(3))


# ----------------------------------------------------------------------------
# JAX as a second reference: values and gradients
# ----------------------------------------------------------------------------

# name: tensorad function of a dict of parameters; ``jax_cases`` has JAX's under the same names.
TENSORAD_CASES = {
    "relu": lambda p: nn.relu(p["x"]),
    "sigmoid": lambda p: nn.sigmoid(p["x"]),
    "softplus": lambda p: nn.softplus(p["x"]),
    "gelu": lambda p: nn.gelu(p["x"]),
    "gelu_exact": lambda p: nn.gelu(p["x"], approximate=False),
    "softmax": lambda p: nn.softmax(p["x"], axis=1),
    "log_softmax": lambda p: nn.log_softmax(p["x"], axis=1),
    "layer_norm": lambda p: nn.layer_norm(p["x"], p["w_last"], p["b_last"]),
    "batch_norm": lambda p: nn.batch_norm(p["x"], p["w"], p["b"]),
}


def jax_cases(jax) -> dict:
    """name: the JAX function of ``TENSORAD_CASES[name]``."""
    jnn = jax.nn
    per_channel = (-1, 1, 1)  # the affine parameters of batch_norm, against (N, C, H, W)
    return {
        "relu": lambda p: jnn.relu(p["x"]),
        "sigmoid": lambda p: jnn.sigmoid(p["x"]),
        "softplus": lambda p: jnn.softplus(p["x"]),
        "gelu": lambda p: jnn.gelu(p["x"], approximate=True),
        "gelu_exact": lambda p: jnn.gelu(p["x"], approximate=False),
        "softmax": lambda p: jnn.softmax(p["x"], axis=1),
        "log_softmax": lambda p: jnn.log_softmax(p["x"], axis=1),
        "layer_norm": lambda p: jnn.standardize(p["x"], axis=-1) * p["w_last"] + p["b_last"],
        "batch_norm": lambda p: jnn.standardize(p["x"], axis=(0, 2, 3))
        * p["w"].reshape(per_channel) + p["b"].reshape(per_channel),
    }


def jax_values_and_grads(jax, params: dict, cotangent):
    """Every JAX case at ``params``, and its gradients of ``sum(case * cotangent)``.

    For ``jax_reference``: it runs in the JAX worker.
    """
    cases = jax_cases(jax)
    return jax.jit(lambda p: ({name: f(p) for name, f in cases.items()},
                              {name: jax.vjp(f, p)[1](cotangent)[0]
                               for name, f in cases.items()}))(params)


def test_values_and_gradients_match_jax(rng, jax_reference):
    params = {"x": rng.standard_normal((4, 3, 5, 2)) * 3.0, "w": rng.standard_normal(3),
              "b": rng.standard_normal(3), "w_last": rng.standard_normal(2),
              "b_last": rng.standard_normal(2)}
    cotangent = rng.standard_normal(params["x"].shape)
    want_values, want_grads = jax_reference(jax_values_and_grads, params, cotangent)
    got_values = run_all(TENSORAD_CASES, params)
    got_grads = run_all({name: ta.grad(lambda p, f=ours: (f(p) * cotangent).sum())
                         for name, ours in TENSORAD_CASES.items()}, params)
    for name in TENSORAD_CASES:
        np.testing.assert_allclose(got_values[name], want_values[name], rtol=1e-10, atol=1e-12,
                                   err_msg=name)
        for k in params:
            np.testing.assert_allclose(got_grads[name][k], want_grads[name][k], rtol=1e-9,
                                       atol=1e-11, err_msg=f"{name}: gradient of {k}")


# ----------------------------------------------------------------------------
# PRNG
# ----------------------------------------------------------------------------

GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)


def splitmix64(z: np.ndarray) -> np.ndarray:
    """The splitmix64 finalizer on uint64 (the reference for the int64 emulation)."""
    z = z.astype(np.uint64)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def reference_bits(key, counters) -> np.ndarray:
    with np.errstate(over="ignore"):
        return splitmix64(np.uint64(np.int64(key).view(np.uint64))
                          + np.asarray(counters).astype(np.uint64) * GOLDEN_GAMMA)


def test_prng_is_splitmix64_bit_for_bit():
    key = random.key(42)
    assert key.dtype == np.int64 and key.shape == ()
    assert np.int64(key).view(np.uint64) == reference_bits(42, 1)  # splitmix64's first output
    children = random.split(key, 3)
    np.testing.assert_array_equal(children.view(np.uint64),
                                  reference_bits(key, -np.arange(1, 4)))
    u = random.uniform(key, (2, 3))
    want = (reference_bits(key, np.arange(1, 7)) >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    np.testing.assert_array_equal(u, want.reshape(2, 3))
    u32 = random.uniform(key, (6,), np.float32)
    want32 = (reference_bits(key, np.arange(1, 7)) >> np.uint64(40)).astype(np.float32) * 2.0 ** -24
    np.testing.assert_array_equal(u32, want32.astype(np.float32))


def test_prng_is_pure_and_the_same_traced_or_eager():
    key = random.key(7)
    k1, k2 = random.split(key)
    assert k1 != k2 and len({int(random.key(s)) for s in range(100)}) == 100
    traced = ta.jit(lambda k: (random.split(k), random.uniform(k, (5,)), random.normal(k, (5,))))
    splits, u, z = traced(key)
    np.testing.assert_array_equal(splits, random.split(key))
    np.testing.assert_array_equal(u, random.uniform(key, (5,)))
    np.testing.assert_array_equal(z, random.normal(key, [5]))
    constant_key = ta.jit(lambda: random.uniform(random.key(7), 5))  # traced from a Python seed
    np.testing.assert_array_equal(constant_key(), u)
    assert not np.array_equal(random.uniform(k1, (5,)), random.uniform(k2, (5,)))


def test_uniform_and_normal_have_the_right_distribution():
    k1, k2 = random.split(random.key(0))
    u = random.uniform(k1, (200_000,), minval=-2.0, maxval=3.0)
    assert u.min() >= -2.0 and u.max() < 3.0
    assert scipy.stats.kstest(u, scipy.stats.uniform(-2.0, 5.0).cdf).pvalue > 1e-3
    np.testing.assert_allclose([u.mean(), u.var()], [0.5, 25.0 / 12.0], rtol=1e-2)
    z = random.normal(k2, (200_000,), np.float32)
    assert z.dtype == np.float32 and np.all(np.isfinite(z))
    assert scipy.stats.kstest(z, "norm").pvalue > 1e-3
    moments = [z.mean(), z.var(), scipy.stats.skew(z), scipy.stats.kurtosis(z)]
    np.testing.assert_allclose(moments, [0.0, 1.0, 0.0, 0.0], atol=2e-2)


# ----------------------------------------------------------------------------
# Dropout
# ----------------------------------------------------------------------------

def test_dropout_mask_depends_only_on_key_and_position():
    key = random.key(3)
    x = np.arange(1.0, 10_001.0).reshape(100, 100)
    y = nn.dropout(x, 0.25, key)
    kept = y != 0
    np.testing.assert_allclose(y[kept], x[kept] / 0.75)
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_array_equal(nn.dropout(x, 0.25, key), y)
    np.testing.assert_array_equal(nn.dropout(x.astype(np.float32), 0.25, key) != 0, kept)
    assert not np.array_equal(nn.dropout(x, 0.25, random.split(key)[0]) != 0, kept)
    # The gradient's mask is the forward mask, inside one compiled function too.
    grads = ta.grad(lambda x, k: nn.dropout(x, 0.25, k).sum())(x, key)
    np.testing.assert_array_equal(grads, np.where(kept, 1.0 / 0.75, 0.0))
    value, again = ta.jit(lambda x, k: (nn.dropout(x, 0.25, k), nn.dropout(x, 0.25, k)))(x, key)
    np.testing.assert_array_equal(value, y)
    np.testing.assert_array_equal(again, y)


def test_dropout_rates():
    x = np.ones((4, 4))
    np.testing.assert_array_equal(nn.dropout(x, 0.0, random.key(0)), x)
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        nn.dropout(x, 1.0, random.key(0))


def test_dropout_derivatives_match_finite_differences(rng):
    key = random.key(5)
    check_grads(lambda x: nn.dropout(x, 0.5, key) * x, (rng.standard_normal((3, 4)),), order=2)


def test_public_namespace():
    expected = {"relu", "gelu", "sigmoid", "softplus", "softmax", "log_softmax", "logsumexp",
                "conv2d", "max_pool2d", "avg_pool2d", "nll_loss", "cross_entropy", "layer_norm",
                "batch_norm", "embedding", "dropout", "random"}
    assert expected <= set(nn.__all__)
    assert all(callable(getattr(nn, name)) for name in expected - {"random"})
