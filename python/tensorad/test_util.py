"""Testing helpers: check derivatives against central finite differences.

Examples
--------
>>> import numpy as np, tensorad.numpy as tnp
>>> check_grads(lambda x: tnp.sin(x) * x, (np.linspace(0.1, 1.0, 4),), order=2)
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from . import tree
from .autodiff import jvp, vjp
from .compiler import jit

_DEFAULT_EPS = 1e-6


def _flat(values) -> np.ndarray:
    leaves = tree.flatten(values)[0]
    return np.concatenate([np.ravel(np.asarray(v, np.float64)) for v in leaves]) if leaves \
        else np.zeros(0)


def _inner(a, b) -> float:
    return float(_flat(a) @ _flat(b))


def _random_like(values, rng) -> tuple:
    return tree.tree_map(lambda v: rng.standard_normal(np.shape(v)).astype(np.asarray(v).dtype), values)


def _numerical_jvp(f: Callable, args: tuple, tangents: tuple, eps: float):
    plus = jit(f)(*tree.tree_map(lambda a, t: a + eps * t, args, tangents))
    minus = jit(f)(*tree.tree_map(lambda a, t: a - eps * t, args, tangents))
    return tree.tree_map(lambda p, m: (np.asarray(p) - np.asarray(m)) / (2 * eps), plus, minus)


def _assert_close(actual, expected, rtol: float, atol: float, what: str) -> None:
    np.testing.assert_allclose(_flat(actual), _flat(expected), rtol=rtol, atol=atol, err_msg=what)


def check_jvp(f: Callable, args: Sequence, *, eps: float = _DEFAULT_EPS, rtol: float = 1e-5,
              atol: float = 1e-6, seed: int = 0) -> None:
    """Check ``jvp(f)`` along a random direction against central finite differences."""
    args = tuple(args)
    tangents = _random_like(args, np.random.default_rng(seed))
    _, tangent_out = jvp(f, args, tangents)
    _assert_close(tangent_out, _numerical_jvp(f, args, tangents, eps), rtol, atol,
                  "forward mode (jvp) differs from finite differences")


def check_vjp(f: Callable, args: Sequence, *, eps: float = _DEFAULT_EPS, rtol: float = 1e-5,
              atol: float = 1e-6, seed: int = 0) -> None:
    """Check ``vjp(f)`` with the dot-product test against finite differences: <u, J v> = <Jᵀu, v>."""
    args = tuple(args)
    rng = np.random.default_rng(seed)
    tangents = _random_like(args, rng)
    out, pullback = vjp(f, *args)
    cotangent = _random_like(out, rng)
    lhs = _inner(cotangent, _numerical_jvp(f, args, tangents, eps))
    rhs = _inner(pullback(cotangent), tangents)
    np.testing.assert_allclose(rhs, lhs, rtol=rtol, atol=atol,
                               err_msg="reverse mode (vjp) differs from finite differences")


def check_grads(f: Callable, args: Sequence, order: int = 1, modes: Sequence[str] = ("fwd", "rev"),
                *, eps: float = _DEFAULT_EPS, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Check derivatives of ``f`` up to ``order`` in forward and/or reverse mode.

    Works like ``jax.test_util.check_grads``: order 1 compares ``jvp`` and
    ``vjp`` with central finite differences (in the arguments' dtype; use
    float64); order ``k`` also checks the derivative functions themselves up
    to order ``k - 1``.

    Parameters
    ----------
    f : callable
        Takes the arrays (pytrees) ``args``.
    args : sequence
    order : int
    modes : sequence of {"fwd", "rev"}

    Raises
    ------
    AssertionError
        Naming the mode that disagrees.

    Examples
    --------
    >>> import numpy as np, tensorad.numpy as tnp
    >>> check_grads(lambda x, y: tnp.sum(x * tnp.exp(y)), (np.ones(3), np.zeros(3)), order=2)
    """
    args = tuple(args)
    tolerances = dict(eps=eps, rtol=rtol, atol=atol)
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"unknown mode {mode!r}; use 'fwd' or 'rev'")
    if "fwd" in modes:
        check_jvp(f, args, **tolerances)
    if "rev" in modes:
        check_vjp(f, args, **tolerances)
    if order <= 1:
        return
    rng = np.random.default_rng(order)
    if "fwd" in modes:
        tangents = _random_like(args, rng)
        check_grads(lambda *a: jvp(f, a, tangents)[1], args, order - 1, modes, **tolerances)
    if "rev" in modes:
        cotangent = _random_like(jit(f)(*args), rng)
        check_grads(lambda *a: vjp(f, *a)[1](cotangent), args, order - 1, modes, **tolerances)
