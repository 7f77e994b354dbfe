"""Activation functions and log-domain reductions, written to stay finite for any input.

Each function is traced with ``tensorad.numpy`` ops, so its derivatives (of
any order, in either mode) come from the differentiation pass. The
formulations avoid overflow in both the values and the derivatives: no branch
of a ``where`` computes an infinity that the other branch would mask, because
the masked branch's derivative (zero times infinity) would still be NaN.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import nn
>>> ta.jit(nn.softmax)(np.array([0.0, 1e4]))
array([0., 1.])
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes, numpy as tnp
from ..dialects import builder
from ..autodiff import stop_gradient
from ..tracing import Tracer, emits_ops


@emits_ops
def relu(x):
    """``max(x, 0)``; its derivative at 0 is 0, as in JAX and PyTorch, and NaN stays NaN.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(relu)(np.array([-1.0, 0.0, 2.0]))
    array([0., 0., 2.])
    """
    x = tnp.asarray(x)
    return tnp.where(x <= 0, tnp.zeros_like(x), x)


@emits_ops
def sigmoid(x):
    """The logistic function ``1 / (1 + exp(-x))``, accurate in the tails (``tad.logistic``).

    Integers are computed in float64 like numpy's ``exp``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(sigmoid)(np.array([-1e4, 0.0, 1e4]))
    array([0. , 0.5, 1. ])
    """
    x = tnp.asarray(x)
    x = x.astype(dtypes.float_of(x.dtype))
    return Tracer.of(builder.build("tad.logistic", [x.value], {}))


@emits_ops
def softplus(x):
    """``log(1 + exp(x))``, as ``max(x, 0) + log1p(exp(-|x|))`` so large ``|x|`` cannot overflow.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(softplus)(np.array([-1e4, 0.0, 1e4]))
    array([0.00000000e+00, 6.93147181e-01, 1.00000000e+04])
    """
    x = tnp.asarray(x)
    return relu(x) + tnp.log1p(tnp.exp(-tnp.abs(x)))


@emits_ops
def gelu(x, approximate: bool = True):
    """Gaussian error linear unit, ``x`` times the Gaussian CDF of ``x``.

    With ``approximate=True`` (the default, as ``jax.nn.gelu`` and PyTorch's
    ``gelu(approximate="tanh")``) the CDF is ``0.5 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))``;
    with ``approximate=False`` it is exact, ``0.5 (1 + erf(x / sqrt(2)))`` (PyTorch's default).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(gelu)(np.array([-10.0, 0.0, 1.0]))
    array([-0.        ,  0.        ,  0.84119199])
    >>> ta.jit(lambda x: gelu(x, approximate=False))(np.array([1.0]))
    array([0.84134475])
    """
    x = tnp.asarray(x)
    x = x.astype(dtypes.float_of(x.dtype))
    if approximate:
        # A Python float (weakly typed): float32 input stays float32.
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1.0 + tnp.tanh(inner))
    cdf_erf = Tracer.of(builder.elementwise("math.erf", [(x * (1.0 / math.sqrt(2.0))).value]))
    return 0.5 * x * (1.0 + cdf_erf)


def _stable_max(x, axis):
    """The maximum over ``axis`` (kept), replaced by 0 where it is infinite or NaN.

    Subtracting it keeps ``exp`` in range; the replacement keeps a row of
    ``-inf`` from becoming ``-inf - -inf = NaN``. Its gradient is not needed
    (the results do not depend on the shift), so it is cut off.
    """
    shift = tnp.max(x, axis=axis, keepdims=True)
    return stop_gradient(tnp.where(tnp.abs(shift) < np.inf, shift, tnp.zeros_like(shift)))


@emits_ops
def logsumexp(x, axis=None, keepdims: bool = False):
    """``log(sum(exp(x), axis))`` without overflow (the maximum is subtracted first).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(logsumexp)(np.array([1e4, 1e4]))
    array(10000.69314718)
    """
    x = tnp.asarray(x)
    shift = _stable_max(x, axis)
    total = tnp.log(tnp.sum(tnp.exp(x - shift), axis=axis, keepdims=True)) + shift
    return total if keepdims else tnp.squeeze(total, axis)


@emits_ops
def log_softmax(x, axis: int = -1):
    """``x - logsumexp(x, axis)``: log-probabilities, finite for any finite ``x``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(log_softmax)(np.array([0.0, 1e4]))
    array([-10000.,      0.])
    """
    x = tnp.asarray(x)
    shifted = x - _stable_max(x, axis)
    return shifted - tnp.log(tnp.sum(tnp.exp(shifted), axis=axis, keepdims=True))


@emits_ops
def softmax(x, axis: int = -1):
    """``exp(x) / sum(exp(x), axis)`` with the maximum subtracted first.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(softmax)(np.log(np.array([1.0, 3.0])))
    array([0.25, 0.75])
    """
    x = tnp.asarray(x)
    unnormalized = tnp.exp(x - _stable_max(x, axis))
    return unnormalized / tnp.sum(unnormalized, axis=axis, keepdims=True)
