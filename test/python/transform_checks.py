"""Values and derivatives of a function checked in every mode, with two compilations.

:func:`check` compares a function's value with a numpy/scipy reference and
its derivatives with float64 central differences: the jvp along a random
direction, the vjp by the dot-product test, ``jacfwd``/``jacrev`` (rules on
(co)tangents with a batch prefix) against both, and ``vmap`` against the
rows. All derivatives come from one jitted function.
"""

from __future__ import annotations

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp

EPS = 1e-6


def check(f, args, reference=None, *, rtol=1e-5, atol=1e-6, jacobians=True, vmap=True):
    """Check ``f``'s value against ``reference`` and its derivatives in every mode (see the module docstring)."""
    args = tuple(np.asarray(a, np.float64) for a in args)
    n = len(args)
    value = ta.jit(f)
    out = np.asarray(value(*args))
    if reference is not None:
        np.testing.assert_allclose(out, reference(*args), rtol=1e-9, atol=1e-10, err_msg="value")
    rng = np.random.default_rng(1)
    v = tuple(rng.normal(size=a.shape) for a in args)
    u = rng.normal(size=out.shape)
    every = tuple(range(n))

    def suite(*inputs):
        xs, vs, cotangent = inputs[:n], inputs[n:2 * n], inputs[2 * n]
        results = {"jvp": ta.jvp(f, xs, vs)[1], "vjp": ta.vjp(f, *xs)[1](cotangent)}
        if jacobians:
            results["jacfwd"] = ta.jacfwd(f, argnums=every)(*xs)
            results["jacrev"] = ta.jacrev(f, argnums=every)(*xs)
        if vmap:
            results["vmap"] = ta.vmap(f)(*(tnp.stack([x, x * 1.01]) for x in xs))
        return results

    got = ta.jit(suite)(*args, *v, u)
    plus = value(*(a + EPS * t for a, t in zip(args, v)))
    minus = value(*(a - EPS * t for a, t in zip(args, v)))
    numerical = (np.asarray(plus) - np.asarray(minus)) / (2 * EPS)
    np.testing.assert_allclose(got["jvp"], numerical, rtol=rtol, atol=atol, err_msg="jvp against differences")
    pulled = sum(np.vdot(g, t) for g, t in zip(got["vjp"], v))
    np.testing.assert_allclose(pulled, np.vdot(u, numerical), rtol=rtol, atol=atol, err_msg="vjp (dot-product test)")
    np.testing.assert_allclose(pulled, np.vdot(u, got["jvp"]), rtol=1e-9, atol=1e-9, err_msg="vjp against jvp")
    if jacobians:
        k = out.ndim
        forward = sum(np.tensordot(j, t, axes=t.ndim) for j, t in zip(got["jacfwd"], v))
        np.testing.assert_allclose(forward, got["jvp"], rtol=1e-9, atol=1e-9, err_msg="jacfwd")
        for j, g in zip(got["jacrev"], got["vjp"]):
            np.testing.assert_allclose(np.tensordot(u, j, axes=k), g, rtol=1e-9, atol=1e-9, err_msg="jacrev")
    if vmap:
        rows = [np.asarray(value(*a)) for a in (args, tuple(a * 1.01 for a in args))]
        np.testing.assert_allclose(got["vmap"], np.stack(rows), rtol=1e-10, atol=1e-12, err_msg="vmap")
