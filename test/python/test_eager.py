"""Eager mode: frontend functions called on concrete arrays run at once, with jit's semantics.

Each call below runs eagerly and under ``jit``; the two must agree in value,
shape and dtype (the eager path compiles the same traced code). Then the
cache, weak typing of Python numbers, errors at the user's line, threads, and
a JAX-style gradient test whose forward value is computed eagerly.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tensorad as ta
import tensorad.lax as lax
import tensorad.nn as nn
import tensorad.numpy as tnp
from tensorad import eager

RNG = np.random.default_rng(0)
X = RNG.normal(size=(3, 4))
Y = RNG.normal(size=(3, 4))
P = np.abs(X) + 0.5
F32 = X.astype(np.float32)
INTS = np.arange(12).reshape(3, 4)
MASK = X > 0

# (function, positional args, keyword args): arrays are the dynamic arguments.
CALLS = [
    (tnp.add, (X, Y), {}), (tnp.subtract, (X, 1.5), {}), (tnp.multiply, (F32, 2.0), {}),
    (tnp.divide, (X, P), {}), (tnp.power, (P, 1.5), {}), (tnp.maximum, (X, Y), {}),
    (tnp.minimum, (X, 0.0), {}), (tnp.arctan2, (X, Y), {}), (tnp.floor_divide, (INTS, 5), {}),
    (tnp.remainder, (INTS, 5), {}), (tnp.equal, (INTS, 3), {}), (tnp.less, (X, Y), {}),
    (tnp.logical_and, (MASK, X < 1), {}), (tnp.where, (MASK, X, Y), {}), (tnp.clip, (X, -0.5, 0.5), {}),
    (tnp.exp, (X,), {}), (tnp.log, (P,), {}), (tnp.log1p, (P,), {}), (tnp.expm1, (X,), {}),
    (tnp.tanh, (X,), {}), (tnp.sin, (F32,), {}), (tnp.cos, (X,), {}), (tnp.tan, (X * 0.3,), {}),
    (tnp.sqrt, (P,), {}), (tnp.rsqrt, (P,), {}), (tnp.floor, (X,), {}), (tnp.round, (X * 3,), {}),
    (tnp.negative, (X,), {}), (tnp.abs, (X,), {}), (tnp.sign, (X,), {}), (tnp.square, (X,), {}),
    (tnp.reciprocal, (P,), {}), (tnp.logical_not, (MASK,), {}), (tnp.astype, (X, np.float32), {}),
    (tnp.reshape, (X, (4, 3)), {}), (tnp.ravel, (X,), {}), (tnp.transpose, (X,), {}),
    (tnp.swapaxes, (X, 0, 1), {}), (tnp.expand_dims, (X, 1), {}), (tnp.squeeze, (X[:1],), {}),
    (tnp.broadcast_to, (X[0], (2, 4)), {}), (tnp.concatenate, ([X, Y],), {"axis": 1}),
    (tnp.stack, ((X, Y),), {}), (tnp.take, (X, np.array([2, 0])), {"axis": 1}),
    (tnp.take_along_axis, (X, np.argsort(X, axis=1)), {"axis": 1}),
    (tnp.getitem, (X, (slice(1, None), 2)), {}),
    (tnp.sum, (X,), {"axis": 0}), (tnp.max, (X,), {"axis": 1, "keepdims": True}),
    (tnp.min, (X,), {}), (tnp.mean, (X,), {"axis": -1}), (tnp.var, (X,), {}), (tnp.std, (X,), {"axis": 0}),
    (tnp.any, (MASK,), {}), (tnp.all, (MASK,), {"axis": 0}), (tnp.argmax, (X,), {"axis": 1}),
    (tnp.argmin, (X,), {}), (tnp.matmul, (X, Y.T), {}), (tnp.dot, (X[0], Y[0]), {}),
    (tnp.tensordot, (X, Y), {"axes": ([1], [1])}), (tnp.inner, (X, Y), {}), (tnp.outer, (X[0], Y[1]), {}),
    (tnp.zeros_like, (X,), {}), (tnp.ones_like, (INTS,), {}), (tnp.full_like, (X, 7.0), {}),
    (nn.relu, (X,), {}), (nn.sigmoid, (X,), {}), (nn.softmax, (X,), {"axis": -1}),
    (nn.log_softmax, (X,), {}), (nn.logsumexp, (X,), {"axis": 1}),
    (lax.fori_loop, (0, 3, lambda i, c: c * 2.0 + i, X), {}),
    (lax.cond, (True, lambda a: a + 1.0, lambda a: a - 1.0, X), {}),
    (ta.stop_gradient, (X,), {}),
]


def _name(call) -> str:
    return getattr(call[0], "__name__", repr(call[0]))


@pytest.mark.parametrize("fn,args,kwargs", CALLS, ids=[_name(c) for c in CALLS])
def test_eager_call_matches_jit(fn, args, kwargs):
    eager_result = fn(*args, **kwargs)
    jitted = ta.jit(lambda *arrays: fn(*_refill(args, arrays), **kwargs))(*_arrays(args))
    assert isinstance(eager_result, np.ndarray) and type(eager_result) is type(jitted), \
        "eager results are numpy arrays, of the type jit returns (tensorad.Array)"
    assert eager_result.dtype == jitted.dtype and eager_result.shape == jitted.shape
    np.testing.assert_array_equal(eager_result, jitted)


def _arrays(args) -> list:
    return [a for a in args if isinstance(a, np.ndarray)]


def _refill(args, arrays) -> list:
    it = iter(arrays)
    return [next(it) if isinstance(a, np.ndarray) else a for a in args]


def test_creation_functions_run_eagerly():
    np.testing.assert_array_equal(tnp.zeros((2, 3)), np.zeros((2, 3)))
    np.testing.assert_array_equal(tnp.arange(5), np.arange(5))
    np.testing.assert_array_equal(tnp.eye(3), np.eye(3))
    assert tnp.full((2,), 3, dtype=np.int32).dtype == np.int32
    np.testing.assert_array_equal(tnp.asarray([[1.0, 2.0]]), [[1.0, 2.0]])
    assert tnp.array(3.0).shape == ()


def test_random_numbers_eagerly_match_jit():
    key = nn.random.key(3)
    eager_draw = nn.random.normal(key, (4,))
    np.testing.assert_array_equal(eager_draw, ta.jit(lambda k: nn.random.normal(k, (4,)))(key))


def test_python_numbers_keep_their_weak_type():
    assert tnp.multiply(F32, 2.0).dtype == np.float32
    assert tnp.add(np.arange(3, dtype=np.int32), 1).dtype == np.int32
    assert tnp.add(np.arange(3, dtype=np.int32), 1.5).dtype == np.float64


def test_a_repeated_call_reuses_the_compiled_op():
    x = RNG.normal(size=7)
    first = tnp.tanh(x)
    cached = len(eager._cache)
    for _ in range(3):
        np.testing.assert_array_equal(tnp.tanh(x), first)
    assert len(eager._cache) == cached
    tnp.tanh(x.astype(np.float32))  # another dtype: the same entry compiles once more, no new entry
    assert len(eager._cache) == cached
    tnp.sum(x, keepdims=True)  # another static parameter: a new entry
    assert len(eager._cache) == cached + 1


def test_static_parameters_key_the_cache():
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(tnp.sum(x, axis=0), [3.0, 5.0, 7.0])
    np.testing.assert_array_equal(tnp.sum(x, axis=1), [3.0, 12.0])
    np.testing.assert_array_equal(tnp.getitem(x, (slice(None), slice(0, 2))), x[:, :2])
    np.testing.assert_array_equal(tnp.getitem(x, (slice(None), slice(1, 3))), x[:, 1:])


def test_an_eager_shape_error_names_the_user_line():
    with pytest.raises(ta.TracingError, match=r"test_eager\.py:\d+"):
        tnp.matmul(np.ones((3, 4)), np.ones((3, 4)))


def test_eager_calls_from_threads_get_their_own_results():
    inputs = [np.full(5, float(i)) for i in range(8)]
    results = [None] * len(inputs)

    def work(i):
        for _ in range(20):
            results[i] = tnp.exp(inputs[i])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(inputs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for x, r in zip(inputs, results):
        np.testing.assert_array_equal(r, np.exp(x))


def test_a_jax_style_gradient_check_computes_its_forward_value_eagerly():
    # The shape of JAX's own gradient tests: the forward value eagerly, then grad.
    def loss(w, x):
        return tnp.sum(tnp.tanh(tnp.matmul(x, w)) ** 2)

    w, x = RNG.normal(size=(4, 2)), RNG.normal(size=(5, 4))
    value = loss(w, x)
    assert isinstance(value, np.ndarray) and value.shape == ()
    np.testing.assert_allclose(value, np.sum(np.tanh(x @ w) ** 2), rtol=1e-12)
    eps, direction = 1e-6, RNG.normal(size=w.shape)
    numeric = (loss(w + eps * direction, x) - loss(w - eps * direction, x)) / (2 * eps)
    np.testing.assert_allclose(np.sum(ta.grad(loss)(w, x) * direction), numeric, rtol=1e-6)


def test_a_traced_array_kept_from_a_finished_trace_is_still_refused():
    kept = []
    ta.jit(lambda x: kept.append(x) or x)(np.ones(2))
    with pytest.raises(ta.UnexpectedTracerError):
        tnp.exp(kept[0])
