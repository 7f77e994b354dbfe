"""``tensorad.nn``'s ``jax.nn`` functions against ``jax.nn`` itself.

JAX runs on CPU in float64 (``jax_enable_x64``) in the worker process of
``conftest.jax_reference`` (it stays out of this process). Checked:

* values in float32 and float64, special points included (the kinks, 0,
  large ``|x|``, ``±inf`` and NaN), and the reductions' ``axis``/``where``/
  ``b``/``return_sign``/``keepdims``, ``standardize``'s statistics,
  ``one_hot``'s ``axis``/``dtype`` and ``dot_product_attention``'s bias, masks,
  grouped heads, sequence lengths, windows and residual: every case traced in
  one jitted function per dtype (one compilation), and a few called eagerly;
* reverse- and forward-mode derivatives against ``jax.vjp``/``jax.jvp``, at the
  kinks too (JAX's conventions there), and against finite differences
  (:func:`tensorad.test_util.check_grads`, float64, away from the kinks);
* ``vmap`` against a loop over the rows;
* parameter names, kinds and defaults against ``jax.nn``'s signatures;
* errors: a bad axis, an odd ``glu`` axis, a bad ``num_classes``, attention
  shapes and dtypes that do not fit, an unknown algorithm or implementation.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tensorad as ta
from tensorad import nn
from tensorad.test_util import check_grads

RNG = np.random.default_rng(11)

# The kinks of the piecewise functions (-3, -1, 0, 1, 3, 6), points beside them, large |x|, ±inf and NaN.
POINTS = np.array([-np.inf, -1e4, -50.0, -6.0, -3.0, -1.0, -0.5, -0.0, 0.0, 0.5, 1.0, 3.0, 6.0, 7.0, 50.0, 1e4,
                   np.inf, np.nan])
# log1mexp's domain: 0, tiny (where 1 - exp(-x) cancels), log 2 (its switch), large.
NONNEGATIVE = np.array([0.0, 1e-20, 1e-5, 0.3, np.log(2.0), 1.0, 5.0, 50.0, 800.0, np.inf])
X = RNG.standard_normal((3, 6)) * 3.0
MASK = RNG.random((3, 6)) < 0.6
MASK[0] = False  # a row with nothing included
Q, K, V = RNG.standard_normal((2, 4, 4, 8)), RNG.standard_normal((2, 6, 2, 8)), RNG.standard_normal((2, 6, 2, 8))
ATTENTION_MASK = RNG.random((2, 1, 4, 6)) < 0.7
ATTENTION_MASK[1, 0, 2] = False  # a query with every key masked: JAX's finite fill averages the values

ARRAYS = {
    "points": POINTS, "nonnegative": NONNEGATIVE, "x": X, "mask": MASK, "b": RNG.uniform(-0.5, 2.0, (3, 6)),
    # A row of -inf (log 0 of each term), and one with +inf and -inf.
    "rows": np.concatenate([X, np.full((1, 6), -np.inf), [[np.inf, 1.0, 2.0, -np.inf, 0.0, 3.0]]]),
    "ids": np.array([[0, 3, -1], [2, 5, 1]], np.int32),
    # Grouped heads: 4 query heads on 2 key/value heads; T = 4 queries, S = 6 keys, H = 8.
    "q": Q, "k": K, "v": V, "bias": RNG.standard_normal((1, 4, 4, 6)), "attention_mask": ATTENTION_MASK,
    "q_lengths": np.array([3, 4], np.int32), "kv_lengths": np.array([5, 2], np.int32),
}
FLOATS = [name for name, a in ARRAYS.items() if a.dtype == np.float64]


def _of_dtype(arrays: dict, dtype) -> dict:
    return {name: a.astype(dtype) if name in FLOATS else a for name, a in arrays.items()}


# name -> function of (the jax or tensorad module, an array)
ELEMENTWISE = {
    "relu": lambda L, x: L.nn.relu(x), "relu6": lambda L, x: L.nn.relu6(x),
    "leaky_relu": lambda L, x: L.nn.leaky_relu(x), "leaky_relu:slope": lambda L, x: L.nn.leaky_relu(x, 0.3),
    "elu": lambda L, x: L.nn.elu(x), "elu:alpha": lambda L, x: L.nn.elu(x, alpha=0.5),
    "celu": lambda L, x: L.nn.celu(x), "celu:alpha": lambda L, x: L.nn.celu(x, alpha=2.0),
    "selu": lambda L, x: L.nn.selu(x), "gelu": lambda L, x: L.nn.gelu(x),
    "gelu:exact": lambda L, x: L.nn.gelu(x, approximate=False), "silu": lambda L, x: L.nn.silu(x),
    "swish": lambda L, x: L.nn.swish(x), "mish": lambda L, x: L.nn.mish(x), "sigmoid": lambda L, x: L.nn.sigmoid(x),
    "log_sigmoid": lambda L, x: L.nn.log_sigmoid(x), "hard_sigmoid": lambda L, x: L.nn.hard_sigmoid(x),
    "hard_silu": lambda L, x: L.nn.hard_silu(x), "hard_swish": lambda L, x: L.nn.hard_swish(x),
    "hard_tanh": lambda L, x: L.nn.hard_tanh(x), "tanh": lambda L, x: L.nn.tanh(x),
    "soft_sign": lambda L, x: L.nn.soft_sign(x), "softplus": lambda L, x: L.nn.softplus(x),
    "squareplus": lambda L, x: L.nn.squareplus(x), "squareplus:b": lambda L, x: L.nn.squareplus(x, b=1.0),
    "sparse_plus": lambda L, x: L.nn.sparse_plus(x), "sparse_sigmoid": lambda L, x: L.nn.sparse_sigmoid(x),
    "identity": lambda L, x: L.nn.identity(x),
}


def _values(L, a: dict) -> dict:
    """Every value case, by name: ``L`` is ``jax`` or ``tensorad``, ``a`` the arrays (of one float dtype)."""
    x, m, b, rows, ids = a["x"], a["mask"], a["b"], a["rows"], a["ids"]
    q, k, v = a["q"], a["k"], a["v"]
    dpa = L.nn.dot_product_attention
    out = {name: f(L, a["points"]) for name, f in ELEMENTWISE.items()}
    out.update({
        "log1mexp": L.nn.log1mexp(a["nonnegative"]),
        "softmax": [L.nn.softmax(x), L.nn.softmax(x, axis=0), L.nn.softmax(x, axis=(0, 1)),
                    L.nn.softmax(x, where=m), L.nn.softmax(rows[:4])],
        "log_softmax": [L.nn.log_softmax(x), L.nn.log_softmax(x, axis=0), L.nn.log_softmax(x, axis=1, where=m)],
        "logsumexp": [L.nn.logsumexp(x), L.nn.logsumexp(x, axis=1, keepdims=True), L.nn.logsumexp(x, (0, 1)),
                      L.nn.logsumexp(rows, axis=1), L.nn.logsumexp(x, axis=1, where=m)],
        "logsumexp:b": [L.nn.logsumexp(x, 1, b), L.nn.logsumexp(x, 1, b - 1.0),
                        L.nn.logsumexp(x, 1, b - 1.0, return_sign=True),
                        L.nn.logsumexp(x, b=b[0], keepdims=True, return_sign=True)],
        "logmeanexp": [L.nn.logmeanexp(x), L.nn.logmeanexp(x, axis=1, keepdims=True),
                       L.nn.logmeanexp(x, axis=1, where=m)],
        "standardize": [L.nn.standardize(x), L.nn.standardize(x, axis=0, epsilon=0.1),
                        L.nn.standardize(x, axis=(0, 1), algorithm="stable"), L.nn.standardize(x, where=m),
                        L.nn.standardize(x * 0.0 + 2.0), L.nn.standardize(x, mean=x[:, :1], variance=x[:1] ** 2)],
        "glu": [L.nn.glu(x), L.nn.glu(x[:2], axis=0)],
        "one_hot": [L.nn.one_hot(ids, 4), L.nn.one_hot(ids, 6, axis=0), L.nn.one_hot(ids, 3, dtype=np.int32, axis=1),
                    L.nn.one_hot(ids, 0)],
        "attention": [dpa(q, k, v, a["bias"], a["attention_mask"], is_causal=True),
                      dpa(q, k, v, query_seq_lengths=a["q_lengths"], key_value_seq_lengths=a["kv_lengths"],
                          local_window_size=(2, 0), scale=0.3),
                      dpa(q[0], k[0], v[0], local_window_size=1, return_residual=True)],
    })
    return out


DTYPES = ("float32", "float64")


def _values_of_each_dtype(L, arrays_of_dtype: dict) -> dict:
    return {dtype: _values(L, a) for dtype, a in arrays_of_dtype.items()}


def jax_values(jax):
    """The value cases in JAX (in the worker), of each dtype, in one jitted function as ours."""
    return jax.jit(lambda a: _values_of_each_dtype(jax, a))({dtype: _of_dtype(ARRAYS, dtype) for dtype in DTYPES})


def _cotangent(out):
    """A fixed cotangent (or tangent) of ``out``'s shape and dtype, with distinct entries of both signs."""
    return np.cos(np.arange(1, out.size + 1)).reshape(out.shape).astype(out.dtype)


def _vjp_and_jvp(L, f, *args):
    """``f``'s vjp of :func:`_cotangent` and jvp of :func:`_cotangent` tangents, in the module ``L``."""
    out, pullback = L.vjp(f, *args)
    _, tangent_out = L.jvp(f, args, tuple(_cotangent(a) for a in args))
    return pullback(L.tree_util.tree_map(_cotangent, out)), tangent_out


def _derivatives(L, a: dict) -> dict:
    """Derivatives of every function (at the kinks too), by name, in the module ``L``."""
    points = a["points"][np.isfinite(POINTS) & (np.abs(POINTS) < 1e3)]
    x, m, b, q, k, v = a["x"], a["mask"], a["b"], a["q"], a["k"], a["v"]
    out = {name: _vjp_and_jvp(L, lambda x, f=f: f(L, x), points) for name, f in ELEMENTWISE.items()}
    out.update({
        "log1mexp": _vjp_and_jvp(L, L.nn.log1mexp, a["nonnegative"][1:-1]),
        "softmax": _vjp_and_jvp(L, lambda x: [L.nn.softmax(x), L.nn.softmax(x, axis=0, where=m)], x),
        "log_softmax": _vjp_and_jvp(L, lambda x: [L.nn.log_softmax(x), L.nn.log_softmax(x, 0)], x),
        "log_softmax:where": _vjp_and_jvp(L, lambda x: L.nn.log_softmax(x, where=m)[1:], x),
        "logsumexp": _vjp_and_jvp(L, lambda x, b: [L.nn.logsumexp(x, 1), L.nn.logsumexp(x, 1, b + 0.5),
                                                   L.nn.logsumexp(x, 0, where=m),
                                                   L.nn.logsumexp(x, b=b - 1.0, return_sign=True)[0]], x, b),
        "logmeanexp": _vjp_and_jvp(L, lambda x: [L.nn.logmeanexp(x), L.nn.logmeanexp(x, 1, where=m)[1:]], x),
        "standardize": _vjp_and_jvp(L, lambda x: [L.nn.standardize(x), L.nn.standardize(x, 0, where=m),
                                                  L.nn.standardize(x, algorithm="stable")], x),
        "glu": _vjp_and_jvp(L, lambda x: L.nn.glu(x, axis=1), x),
        "attention": _vjp_and_jvp(L, lambda q, k, v, bias: L.nn.dot_product_attention(
            q, k, v, bias, a["attention_mask"], is_causal=True, key_value_seq_lengths=a["kv_lengths"],
            query_seq_lengths=a["q_lengths"], local_window_size=(1, 2)), q, k, v, a["bias"]),
    })
    return out


def jax_derivatives(jax):
    """The derivative cases in JAX (in the worker), in one jitted function as ours."""
    return jax.jit(lambda a: _derivatives(jax, a))(ARRAYS)


@pytest.fixture(scope="module")
def jax_results(jax_reference):
    return {"values": jax_reference(jax_values), "derivatives": jax_reference(jax_derivatives)}


def _tolerance(name: str, dtype) -> dict:
    if name.startswith("attention"):  # JAX rounds float64 logits to float32 for the softmax
        return dict(rtol=2e-5, atol=2e-6)
    if name.startswith("standardize") and dtype == np.float64:  # the one-pass variance cancels digits
        return dict(rtol=1e-9, atol=1e-12)
    return dict(rtol=1e-11, atol=1e-13) if dtype == np.float64 else dict(rtol=1e-5, atol=2e-6)


def _assert_all_match(got: dict, want: dict) -> None:
    """Every case's leaves: same shapes and dtypes, close values (NaN where JAX has NaN); all failures listed."""
    assert sorted(got) == sorted(want)
    failures = []
    for name in sorted(want):
        mine, theirs = ta.tree_util.tree_leaves(got[name]), ta.tree_util.tree_leaves(want[name])
        try:
            assert len(mine) == len(theirs)
            for a, b in zip(mine, theirs):
                a, b = np.asarray(a), np.asarray(b)
                assert (a.shape, a.dtype) == (b.shape, b.dtype), (a.shape, a.dtype, b.shape, b.dtype)
                np.testing.assert_allclose(a, b, **_tolerance(name, b.dtype))
        except AssertionError as err:
            failures.append(f"{name}: {err}")
    assert not failures, f"{len(failures)} case(s) differ from jax.nn:\n" + "\n".join(failures)


# ----------------------------------------------------------------------------
# Values and derivatives against JAX
# ----------------------------------------------------------------------------

def test_jitted_values_match_jax(jax_results):
    got = ta.jit(lambda a: _values_of_each_dtype(ta, a))({dtype: _of_dtype(ARRAYS, dtype) for dtype in DTYPES})
    for dtype in DTYPES:
        _assert_all_match(got[dtype], jax_results["values"][dtype])


def test_eager_values_match_jax(jax_results):
    """A call of each kind of function outside any trace (each compiles on its own)."""
    want = jax_results["values"]["float64"]
    a = ARRAYS
    got = {"log1mexp": nn.log1mexp(a["nonnegative"]), "selu": nn.selu(a["points"]),
           "softplus": nn.softplus(a["points"]),
           "logsumexp:b": [nn.logsumexp(a["x"], 1, a["b"]), nn.logsumexp(a["x"], 1, a["b"] - 1.0),
                           nn.logsumexp(a["x"], 1, a["b"] - 1.0, return_sign=True),
                           nn.logsumexp(a["x"], b=a["b"][0], keepdims=True, return_sign=True)],
           "one_hot": [nn.one_hot(a["ids"], 4), nn.one_hot(a["ids"], 6, axis=0),
                       nn.one_hot(a["ids"], 3, dtype=np.int32, axis=1), nn.one_hot(a["ids"], 0)]}
    _assert_all_match(got, {name: want[name] for name in got})
    attention = nn.dot_product_attention(a["q"], a["k"], a["v"], a["bias"], a["attention_mask"], is_causal=True)
    _assert_all_match({"attention": attention}, {"attention": want["attention"][0]})


def test_derivatives_match_jax_at_kinks_too(jax_results):
    got = ta.jit(lambda a: _derivatives(ta, a))(ARRAYS)
    _assert_all_match(got, jax_results["derivatives"])


# The functions with a curved piece; the piecewise-linear ones, aliases and tanh are only checked against JAX.
CURVED = ["elu", "elu:alpha", "celu", "celu:alpha", "selu", "gelu", "gelu:exact", "silu", "mish", "log_sigmoid",
          "hard_silu", "soft_sign", "softplus", "squareplus", "squareplus:b", "sparse_plus"]


def test_derivatives_match_finite_differences():
    """float64, away from the kinks, forward and reverse mode; one check (each compiles three functions)."""
    smooth = np.array([-7.3, -4.4, -2.6, -1.7, -0.8, -0.35, 0.2, 0.45, 0.8, 1.6, 2.3, 4.1, 5.5, 6.8])
    positive = np.array([0.01, 0.5, 0.7, 3.0])
    mask = MASK[1:]  # with something included in every row

    def everything(x, y, rows, b, q, k, v, bias):
        return ([ELEMENTWISE[name](ta, x) for name in CURVED] + [nn.log1mexp(y)]
                + [nn.softmax(rows), nn.softmax(rows, where=mask), nn.log_softmax(rows, axis=0),
                   nn.logsumexp(rows, 1, b), nn.logmeanexp(rows, 1, where=mask), nn.standardize(rows),
                   nn.standardize(rows, 0, where=mask, algorithm="stable"), nn.glu(rows)]
                + [nn.dot_product_attention(q, k, v, bias, ATTENTION_MASK[:1, :, :3, :5], is_causal=True,
                                            key_value_seq_lengths=np.array([5], np.int32))])

    check_grads(everything, (smooth, positive, X[1:], ARRAYS["b"][1:] + 0.6, Q[:1, :3, :2], K[:1, :5, :1],
                             V[:1, :5, :1], ARRAYS["bias"][:, :2, :3, :5]), eps=1e-6, rtol=1e-6)


def test_vmap_matches_a_loop():
    positive = np.abs(X) + 0.1
    cases = {name: (lambda x, f=f: f(ta, x), (X,)) for name, f in ELEMENTWISE.items()}
    cases.update({
        "log1mexp": (nn.log1mexp, (positive,)),
        "softmax:where": (lambda x, m: nn.softmax(x, where=m), (X, MASK)),
        "log_softmax": (nn.log_softmax, (X,)),
        "logsumexp:b": (lambda x, b: nn.logsumexp(x, b=b - 1.0, return_sign=True), (X, ARRAYS["b"])),
        "logmeanexp:where": (lambda x, m: nn.logmeanexp(x, where=m), (X, MASK)),
        "standardize:where": (lambda x, m: nn.standardize(x, where=m), (X, MASK)),
        "glu": (nn.glu, (X,)),
        "one_hot": (lambda i: nn.one_hot(i, 4, axis=0), (ARRAYS["ids"],)),
        # Each row: one batch in the unbatched (T, N, H) layout.
        "attention": (lambda q, k, v: nn.dot_product_attention(q, k, v, is_causal=True, local_window_size=2),
                      (Q, K, V)),
    })

    def both(cases):
        return {name: (ta.vmap(f)(*args), [f(*(a[i] for a in args)) for i in range(len(args[0]))])
                for name, (f, args) in cases.items()}

    for name, (batched, rows) in ta.jit(lambda: both(cases))().items():
        for got, want in zip(ta.tree_util.tree_leaves(batched), zip(*map(ta.tree_util.tree_leaves, rows))):
            np.testing.assert_allclose(got, np.stack(want), rtol=1e-13, atol=1e-15, err_msg=name)


# ----------------------------------------------------------------------------
# Signatures and errors
# ----------------------------------------------------------------------------

def _signature(fn) -> list:
    return [(p.name, p.kind.name, repr(p.default)) for p in inspect.signature(fn).parameters.values()]


# Every jax.nn function tensorad.nn has but tanh (jax.numpy's ufunc, with numpy's signature).
SIGNATURES = ["celu", "dot_product_attention", "elu", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish",
              "hard_tanh", "identity", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp",
              "logsumexp", "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax",
              "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize", "swish"]


def jax_signatures(jax):
    return {name: _signature(getattr(jax.nn, name)) for name in SIGNATURES}


def test_signatures_match_jax(jax_reference):
    want = jax_reference(jax_signatures)
    different = {name: (_signature(getattr(nn, name)), want[name]) for name in SIGNATURES
                 if _signature(getattr(nn, name)) != want[name]}
    assert not different
    assert nn.tanh is ta.numpy.tanh and nn.swish is nn.silu and nn.hard_swish is nn.hard_silu


def test_errors_name_the_problem():
    x = np.ones((2, 3))
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        nn.glu(x, axis=2)
    with pytest.raises(ValueError, match="glu: the size of axis -1 must be even"):
        nn.glu(x)
    with pytest.raises(ValueError, match="out of bounds"):
        ta.jit(lambda x: nn.softmax(x, axis=3))(x)
    with pytest.raises(ValueError, match="out of bounds"):
        ta.jit(lambda x: nn.logsumexp(x, axis=-3))(x)
    with pytest.raises(ValueError, match="out of bounds"):
        nn.standardize(x, axis=5)
    with pytest.raises(ValueError, match="unknown algorithm 'exact'"):
        nn.standardize(x, algorithm="exact")
    ids = np.array([0, 1])
    with pytest.raises(TypeError):
        nn.one_hot(ids, 2.5)
    with pytest.raises(ValueError, match="num_classes must be non-negative"):
        nn.one_hot(ids, -1)
    with pytest.raises(ValueError, match="axis 2 is out of bounds"):
        nn.one_hot(ids, 3, axis=2)
    with pytest.raises(TypeError):  # a traced number of classes: the output's shape would depend on it
        ta.jit(lambda n: nn.one_hot(ids, n))(3)

    q, k = np.ones((1, 2, 3, 4)), np.ones((1, 5, 2, 4))
    with pytest.raises(ValueError, match=r"number of query heads \(3\) must be a multiple"):
        nn.dot_product_attention(q, k, k)
    q = np.ones((1, 2, 4, 4))
    with pytest.raises(ValueError, match="value's shape"):
        nn.dot_product_attention(q, k, k[:, :4])
    with pytest.raises(ValueError, match="query's dtype should be float64"):
        nn.dot_product_attention(q.astype(np.float32), k, k)
    with pytest.raises(ValueError, match="mask's dtype should be bool"):
        nn.dot_product_attention(q, k, k, mask=np.ones((1, 1, 2, 5)))
    with pytest.raises(ValueError, match="key_value_seq_lengths's dtype should be int32"):
        nn.dot_product_attention(q, k, k, key_value_seq_lengths=np.array([3]))
    with pytest.raises(NotImplementedError, match="cudnn"):
        nn.dot_product_attention(q, k, k, implementation="cudnn")
    with pytest.raises(ValueError, match="unknown implementation 'flash'"):
        nn.dot_product_attention(q, k, k, implementation="flash")
