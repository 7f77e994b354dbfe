"""Check hand-written IR's derivatives numerically: the test corpus of ``test/lit/upstream/``.

:func:`check_ir` compiles a module that declares ``@f``'s ``tad.vjp`` and/or
``tad.jvp`` (``@f_vjp``, ``@f_jvp``, every float argument in ``wrt``) and
checks them at random float64 points against central finite differences
(jvp) and by the dot-product test ``<ct, J t> == <J^T ct, t>`` (vjp), with
the primal results of both compared to ``@f`` itself.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

import tensorad as ta


def _as_tuple(values) -> tuple:
    return values if isinstance(values, tuple) else (values,)


def _dot(xs: Sequence, ys: Sequence) -> float:
    return float(sum(np.vdot(np.asarray(x, np.float64), np.asarray(y, np.float64)) for x, y in zip(xs, ys)))


def check_ir(source: str, args: Sequence, wrt: Sequence[int], *, name: str = "f",
             modes: Sequence[str] = ("fwd", "rev"), eps: float = 1e-6, rtol: float = 1e-6,
             atol: float = 1e-8, seed: int = 0) -> tuple:
    """Check ``@{name}_jvp`` and/or ``@{name}_vjp`` of ``source`` at ``args``; return ``@name``'s results.

    ``args`` are numpy arrays or numbers (float64 for the checked arguments);
    ``wrt`` the positions the declarations differentiate with respect to.
    """
    f = ta.compile_mlir(source, name)
    args = [np.asarray(a) for a in args]
    primal = _as_tuple(f(*args))
    rng = np.random.default_rng(seed)
    tangents = [rng.standard_normal(args[i].shape) for i in wrt]

    def shifted(step):
        moved = list(args)
        for i, t in zip(wrt, tangents):
            moved[i] = args[i] + step * t
        return [np.asarray(r, np.float64) for r in _as_tuple(f(*moved))]

    numeric = [(p - m) / (2 * eps) for p, m in zip(shifted(eps), shifted(-eps))]
    float_results = [k for k, r in enumerate(primal) if np.issubdtype(np.asarray(r).dtype, np.floating)]
    if "fwd" in modes:
        out = _as_tuple(ta.compile_mlir(source, f"{name}_jvp")(*args, *tangents))
        values, tangent_out = out[:len(primal)], out[len(primal):]
        for got, want in zip(values, primal):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg="jvp primal")
        for k in float_results:  # the jvp returns a tangent per result, integer ones included
            np.testing.assert_allclose(tangent_out[k], numeric[k], rtol=rtol, atol=atol,
                                       err_msg=f"jvp tangent of result {k}")
    if "rev" in modes:
        cotangents = [rng.standard_normal(np.shape(primal[k])) for k in float_results]
        seeds = []
        for k, r in enumerate(primal):
            seeds.append(cotangents[float_results.index(k)] if k in float_results else np.zeros_like(r))
        out = _as_tuple(ta.compile_mlir(source, f"{name}_vjp")(*args, *seeds))
        values, grads = out[:len(primal)], out[len(primal):]
        for got, want in zip(values, primal):
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=0, err_msg="vjp primal")
        lhs = _dot(cotangents, [numeric[k] for k in float_results])
        rhs = _dot(grads, tangents)
        np.testing.assert_allclose(rhs, lhs, rtol=rtol, atol=atol, err_msg="dot-product test")
    return primal
