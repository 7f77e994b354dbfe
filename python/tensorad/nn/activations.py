"""Activation functions and log-domain reductions, as ``jax.nn``'s, written to stay finite for any input.

Each function is traced with ``tensorad.numpy`` ops, so its derivatives (of
any order, in either mode) come from the differentiation pass. The
formulations avoid overflow in both the values and the derivatives: no branch
of a ``where`` computes an infinity that the other branch would mask, because
the masked branch's derivative (zero times infinity) would still be NaN.

At a kink the derivative is JAX's: the one of the ``where`` branch that owns
the kink (``relu'(0) = 0``, ``leaky_relu'(0) = 1``, ``hard_tanh'(±1) = 1``,
``relu6'(0) = relu6'(6) = 0``), or the average of the two sides where JAX
clips (``sparse_sigmoid'(±1) = 1/4``). Integer inputs are computed in float64
(numpy's rule for ``exp``), except by ``identity``, ``relu`` and ``hard_tanh``,
which keep them.

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
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from .. import dtypes, numpy as tnp
from ..autodiff import custom_jvp, stop_gradient
from ..dialects import builder
from ..numpy import tanh  # noqa: F401 (jax.nn.tanh is jax.numpy.tanh; nn exports it)
from ..tracing import Tracer, emits_ops


def _floating(x) -> Tracer:
    """``x`` as an array of floats (integers and booleans become float64)."""
    x = tnp.asarray(x)
    return x.astype(dtypes.float_of(x.dtype))


@emits_ops
def identity(x):
    """``x`` itself, as an array.

    Examples
    --------
    >>> import numpy as np
    >>> identity(np.array([-1.0, 2.0]))
    array([-1.,  2.])
    """
    return tnp.asarray(x)


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
def relu6(x):
    """``min(max(x, 0), 6)``; its derivative is 0 at both kinks (0 and 6), as JAX's.

    Examples
    --------
    >>> import numpy as np
    >>> relu6(np.array([-1.0, 3.0, 7.0]))
    array([0., 3., 6.])
    """
    x = _floating(x)
    return tnp.where(x >= 6.0, 6.0, relu(x))


@emits_ops
def leaky_relu(x, negative_slope=1e-2):
    """``x`` where ``x >= 0``, else ``negative_slope * x``; the derivative at 0 is 1.

    Examples
    --------
    >>> import numpy as np
    >>> leaky_relu(np.array([-2.0, 3.0]), negative_slope=0.5)
    array([-1.,  3.])
    """
    x = _floating(x)
    return tnp.where(x >= 0, x, negative_slope * x)


@emits_ops
def hard_tanh(x):
    """``x`` clipped to ``[-1, 1]``; the derivative at ``±1`` is 1, as JAX's.

    Examples
    --------
    >>> import numpy as np
    >>> hard_tanh(np.array([-3.0, 0.5, 3.0]))
    array([-1. ,  0.5,  1. ])
    """
    x = tnp.asarray(x)
    return tnp.where(x > 1, 1, tnp.where(x < -1, -1, x))


def _exponential_below_zero(x, alpha, width):
    """``x`` where ``x > 0``, else ``alpha * expm1(x / width)``: ELU and CELU."""
    # expm1 sees no positive input: the masked branch cannot overflow (and make its derivative NaN).
    return tnp.where(x > 0, x, alpha * tnp.expm1(tnp.where(x > 0, 0.0, x) / width))


@emits_ops
def elu(x, alpha=1.0):
    """Exponential linear unit: ``x`` where ``x > 0``, else ``alpha * (exp(x) - 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> elu(np.array([-np.inf, 0.0, 2.0]), alpha=2.0)
    array([-2.,  0.,  2.])
    """
    return _exponential_below_zero(_floating(x), alpha, 1.0)


@emits_ops
def celu(x, alpha=1.0):
    """Continuously differentiable ELU: ``x`` where ``x > 0``, else ``alpha * (exp(x / alpha) - 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> celu(np.array([-np.inf, 0.0, 2.0]), alpha=2.0)
    array([-2.,  0.,  2.])
    """
    return _exponential_below_zero(_floating(x), alpha, alpha)


# The fixed point of self-normalizing networks (Klambauer et al. 2017), JAX's digits.
_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@emits_ops
def selu(x):
    """Scaled ELU: ``scale * elu(x, alpha)`` with ``alpha ≈ 1.6733`` and ``scale ≈ 1.0507``.

    Examples
    --------
    >>> import numpy as np
    >>> selu(np.array([-np.inf, 1.0]))
    array([-1.75809934,  1.05070099])
    """
    return _SELU_SCALE * elu(x, _SELU_ALPHA)


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
    return Tracer.of(builder.build("tad.logistic", [_floating(x).value], {}))


@emits_ops
def hard_sigmoid(x):
    """``relu6(x + 3) / 6``: a piecewise-linear sigmoid.

    Examples
    --------
    >>> import numpy as np
    >>> hard_sigmoid(np.array([-4.0, 0.0, 4.0]))
    array([0. , 0.5, 1. ])
    """
    return relu6(_floating(x) + 3.0) / 6.0


@emits_ops
def sparse_sigmoid(x):
    """``clip(x + 1, 0, 2) / 2`` (sparsemax's sigmoid); its derivative at ``±1`` is 1/4, as JAX's.

    Examples
    --------
    >>> import numpy as np
    >>> sparse_sigmoid(np.array([-2.0, 0.0, 0.5]))
    array([0.  , 0.5 , 0.75])
    """
    return 0.5 * tnp.clip(_floating(x) + 1.0, 0.0, 2.0)


@emits_ops
def silu(x):
    """Sigmoid linear unit (swish): ``x * sigmoid(x)``.

    Examples
    --------
    >>> import numpy as np
    >>> silu(np.array([-1e4, 0.0, 1.0]))
    array([-0.        ,  0.        ,  0.73105858])
    """
    x = _floating(x)
    return x * sigmoid(x)


swish = silu


@emits_ops
def hard_silu(x):
    """Hard swish: ``x * hard_sigmoid(x)``.

    Examples
    --------
    >>> import numpy as np
    >>> hard_silu(np.array([-4.0, 0.0, 1.0]))
    array([-0.        ,  0.        ,  0.66666667])
    """
    x = _floating(x)
    return x * hard_sigmoid(x)


hard_swish = hard_silu


@emits_ops
def softplus(x):
    """``log(1 + exp(x))``, as ``max(x, 0) + log1p(exp(-|x|))`` so large ``|x|`` cannot overflow.

    Its derivative at 0 is 1/2, the sigmoid's value.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(softplus)(np.array([-1e4, 0.0, 1e4]))
    array([0.00000000e+00, 6.93147181e-01, 1.00000000e+04])
    """
    x = _floating(x)
    # -|x| as a select, not abs: abs'(0) = 0 would cancel the 1/2 that log1p(exp(.)) gives at 0.
    minus_magnitude = tnp.where(x > 0, -x, x)
    return relu(x) + tnp.log1p(tnp.exp(minus_magnitude))


@emits_ops
def log_sigmoid(x):
    """``log(sigmoid(x)) = -softplus(-x)``, finite for any finite ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> log_sigmoid(np.array([-1e4, 0.0]))
    array([-1.00000000e+04, -6.93147181e-01])
    """
    return -softplus(-_floating(x))


@emits_ops
def sparse_plus(x):
    """0 below -1, ``x`` above 1, and ``(x + 1)**2 / 4`` between (sparsemax's softplus).

    Examples
    --------
    >>> import numpy as np
    >>> sparse_plus(np.array([-2.0, 0.0, 2.0]))
    array([0.  , 0.25, 2.  ])
    """
    x = _floating(x)
    # The quadratic sees x clipped to its own piece: it cannot overflow where it is masked.
    quadratic = (tnp.clip(x, -1.0, 1.0) + 1.0) ** 2 / 4.0
    return tnp.where(x <= -1.0, 0.0, tnp.where(x >= 1.0, x, quadratic))


@emits_ops
def soft_sign(x):
    """``x / (|x| + 1)``.

    Examples
    --------
    >>> import numpy as np
    >>> soft_sign(np.array([-3.0, 1.0]))
    array([-0.75,  0.5 ])
    """
    x = _floating(x)
    return x / (tnp.abs(x) + 1.0)


@emits_ops
def mish(x):
    """``x * tanh(softplus(x))`` (Misra 2019).

    Examples
    --------
    >>> import numpy as np
    >>> mish(np.array([-1e4, 0.0, 1.0]))
    array([-0.        ,  0.        ,  0.86509839])
    """
    x = _floating(x)
    return x * tnp.tanh(softplus(x))


@emits_ops
def squareplus(x, b=4):
    """``(x + sqrt(x**2 + b)) / 2``: a smooth ReLU (So 2021); ``b = 0`` gives ReLU.

    Examples
    --------
    >>> import numpy as np
    >>> squareplus(np.array([-3.0, 0.0, 3.0]), b=16)
    array([1., 2., 4.])
    """
    x = _floating(x)
    return (x + tnp.sqrt(x * x + b)) / 2.0


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
    x = _floating(x)
    if approximate:
        # A Python float (weakly typed): float32 input stays float32.
        inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * (x * x * x))
        return 0.5 * x * (1.0 + tnp.tanh(inner))
    cdf_erf = Tracer.of(builder.elementwise("math.erf", [(x * (1.0 / math.sqrt(2.0))).value]))
    return 0.5 * x * (1.0 + cdf_erf)


@custom_jvp
def _log1mexp(x):
    # Mächler's split: -expm1(-x) is exact near 0, where 1 - exp(-x) cancels; log1p is exact for large x.
    return tnp.where(x < math.log(2.0), tnp.log(-tnp.expm1(-x)), tnp.log1p(-tnp.exp(-x)))


# The plain derivative would pass through the masked branch, whose log1p(-1) at x = 0 makes it NaN.
_log1mexp.defjvps(lambda tangent, out, x: tangent / tnp.expm1(x))


@emits_ops
def log1mexp(x):
    """``log(1 - exp(-x))``, accurate for small and large ``x`` (NaN for ``x < 0``).

    Its derivative is ``1 / expm1(x)``, as JAX's custom rule.

    Examples
    --------
    >>> import numpy as np
    >>> log1mexp(np.array([1e-20, np.log(2.0), 50.0]))
    array([-4.60517019e+01, -6.93147181e-01, -1.92874985e-22])
    """
    return _log1mexp(_floating(x))


@emits_ops
def glu(x, axis: int = -1):
    """Gated linear unit: ``x1 * sigmoid(x2)`` for the two halves of ``x`` along ``axis``.

    Raises
    ------
    ValueError
        ``axis`` is out of range, or its size is odd.

    Examples
    --------
    >>> import numpy as np
    >>> glu(np.array([2.0, 4.0, 0.0, 1e4]))
    array([1., 4.])
    """
    x = _floating(x)
    size = x.shape[normalize_axis_index(axis, x.ndim)]
    if size % 2:
        raise ValueError(f"glu: the size of axis {axis} must be even (the two halves), got {size}")
    gated, gate = tnp.split(x, 2, axis)
    return gated * sigmoid(gate)


# ----------------------------------------------------------------------------
# Log-domain reductions, with JAX's where= (the elements to include)
# ----------------------------------------------------------------------------

def _stable_max(x, axis):
    """The maximum over ``axis`` (kept), replaced by 0 where it is infinite or NaN.

    Subtracting it keeps ``exp`` in range; the replacement keeps a row of
    ``-inf`` from becoming ``-inf - -inf = NaN``. Its gradient is not needed
    (the results do not depend on the shift), so it is cut off.
    """
    shift = tnp.max(x, axis=axis, keepdims=True)
    return stop_gradient(tnp.where(tnp.abs(shift) < np.inf, shift, tnp.zeros_like(shift)))


def _included(x, where):
    """``x`` with the elements that ``where`` leaves out set to ``-inf`` (``exp`` of them adds nothing)."""
    return x if where is None else tnp.where(where, x, -np.inf)


def included_count(x, axis, where, keepdims: bool):
    """How many elements of ``x`` a reduction over ``axis`` takes in (those where ``where`` is true), in its dtype.

    Without ``where``, a constant: no reduction at run time.
    """
    if where is None:
        axes = range(x.ndim) if axis is None else normalize_axis_tuple(axis, x.ndim)
        return tnp.asarray(float(math.prod(x.shape[a] for a in axes))).astype(x.dtype)
    included = tnp.broadcast_to(tnp.asarray(where), x.shape)
    return tnp.sum(included.astype(x.dtype), axis=axis, keepdims=keepdims)


@emits_ops
def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False, where=None):
    """``log(sum(b * exp(a), axis))`` without overflow (the maximum is subtracted first), as ``jax.nn``'s.

    Parameters
    ----------
    a : array
    axis : int or tuple of int, optional
        The reduced axes (all when None).
    b : array, optional
        Weights of the exponentials, broadcast against ``a``; a term with
        ``b == 0`` is left out, even where ``a`` is infinite.
    keepdims : bool
    return_sign : bool
        Return ``(log|sum|, sign(sum))`` instead of the log of the sum
        (which is NaN where the sum is negative).
    where : array of bool, optional
        The elements to include.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(logsumexp)(np.array([1e4, 1e4]))
    array(10000.69314718)
    >>> logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, -2.0]), return_sign=True)
    (array(0.), array(-1.))
    """
    a = _included(_floating(a), where)
    if b is not None:
        b = tnp.asarray(b)
        a = tnp.where(b != 0, a, -np.inf)
    shift = _stable_max(a, axis)
    terms = tnp.exp(a - shift)
    if b is not None:
        terms = terms * b
    total = tnp.sum(terms, axis=axis, keepdims=True)
    sign = tnp.sign(total)
    out = tnp.log(tnp.abs(total)) + shift
    if not keepdims:
        out, sign = tnp.squeeze(out, axis), tnp.squeeze(sign, axis)
    if return_sign:
        return out, sign
    return out if b is None else tnp.where(sign < 0, np.nan, out)


@emits_ops
def logmeanexp(x, axis=None, where=None, keepdims: bool = False):
    """``log(mean(exp(x), axis))``: :func:`logsumexp` less the log of the count (NaN for none).

    Examples
    --------
    >>> import numpy as np
    >>> logmeanexp(np.array([1e4, 1e4, 0.0]), where=np.array([True, True, False]))
    array(10000.)
    """
    x = _floating(x)
    total = logsumexp(x, axis=axis, keepdims=keepdims, where=where)
    return total - tnp.log(included_count(x, axis, where, keepdims))


@emits_ops
def log_softmax(x, axis=-1, where=None):
    """``x - logsumexp(x, axis)``: log-probabilities, finite for any finite ``x``.

    With ``where``, the elements left out get ``-inf`` and do not count in the sum.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(log_softmax)(np.array([0.0, 1e4]))
    array([-10000.,      0.])
    >>> log_softmax(np.array([0.0, 5.0, 0.0]), where=np.array([True, False, True]))
    array([-0.69314718,        -inf, -0.69314718])
    """
    x = _included(_floating(x), where)
    shifted = x - _stable_max(x, axis)
    result = shifted - tnp.log(tnp.sum(tnp.exp(shifted), axis=axis, keepdims=True))
    # Where every element is left out, -inf - -inf is NaN: the left-out elements are -inf.
    return result if where is None else tnp.where(where, result, -np.inf)


@emits_ops
def softmax(x, axis=-1, where=None):
    """``exp(x) / sum(exp(x), axis)`` with the maximum subtracted first.

    With ``where``, the elements left out get 0 and do not count in the sum.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(softmax)(np.log(np.array([1.0, 3.0])))
    array([0.25, 0.75])
    >>> softmax(np.array([0.0, 5.0, 0.0]), where=np.array([True, False, True]))
    array([0.5, 0. , 0.5])
    """
    x = _included(_floating(x), where)
    unnormalized = tnp.exp(x - _stable_max(x, axis))
    result = unnormalized / tnp.sum(unnormalized, axis=axis, keepdims=True)
    # Where every element is left out, 0 / 0 is NaN: the left-out elements are 0.
    return result if where is None else tnp.where(where, result, 0.0)
