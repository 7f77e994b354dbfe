"""``tensorad.scipy.special``: special functions, as ``jax.scipy.special``.

Integer arguments are computed in float64 (numpy's rule for float
functions); ``float16`` and ``bfloat16`` are computed in float32 inside the
op and rounded once. The gamma-family functions and the inverse error
functions are elementwise ``tad`` ops (``tad.lgamma``, ``tad.polygamma``,
``tad.erf_inv``, ``tad.ndtri``, see :mod:`tensorad.dialects.families.special`),
``erf``/``erfc`` are upstream ``math`` ops, and the rest are compositions
written to stay accurate where the textbook formula is not (``logit`` as
``log(p) - log1p(-p)``, ``log_ndtr``'s asymptotic series in the far tail).
Derivatives are JAX's: ``gammaln' = digamma``, ``digamma' = polygamma(1, .)``
and so on to every order; ``xlogy`` and ``xlog1py`` are 0 where ``x == 0``
and so are their derivatives in ``y`` there.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> ta.jit(logsumexp)(np.array([1000.0, 1000.0]))
array(1000.69314718)
>>> ta.grad(lambda x: gammaln(x))(1.0)  # digamma(1) = -Euler's gamma
array(-0.57721566)
"""

from __future__ import annotations

import math
import operator

import numpy as np

from tensorad.dialects import builder
from tensorad.dialects.families.special import polygamma as polygamma_op

from .. import dtypes
from .. import numpy as tnp
from .. import lax
from ..nn import sigmoid
from ..tracing import Tracer, emits_ops

__all__ = ["digamma", "erf", "erfc", "erfinv", "expit", "gammaln", "log_ndtr", "log_softmax", "logit",
           "logsumexp", "ndtr", "ndtri", "polygamma", "softmax", "xlog1py", "xlogy"]


def promote_args_inexact(*args) -> list:
    """``args`` as traced arrays of one float dtype: their promotion, integers and booleans in float64.

    Python scalars are weak, as everywhere: ``float32`` arrays and ``2.0`` stay ``float32``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(lambda x: promote_args_inexact(x, 2)[1])(np.float32(1.0)).dtype
    dtype('float32')
    """
    dtype = dtypes.float_of(dtypes.result_type(*args))
    if dtypes.is_complex(dtype):
        raise TypeError(f"complex arguments ({dtype.name}) are not supported by this function")
    return [tnp.asarray(a, dtype) for a in args]


def _op(name: str, x) -> Tracer:
    """The one-operand elementwise op ``name`` (``math.erf``, ``tad.ndtri``) of ``x`` promoted to a float."""
    (x,) = promote_args_inexact(x)
    if name.startswith("tad."):
        return Tracer.of(builder.build(name, [x.value], {}))
    return Tracer.of(builder.elementwise(name, [x.value]))


@emits_ops
def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t**2) dt`` (``math.erf``).

    Examples
    --------
    >>> import numpy as np
    >>> erf(np.array([0.0, 1.0]))
    array([0.        , 0.84270079])
    """
    return _op("math.erf", x)


@emits_ops
def erfc(x):
    """The complementary error function ``1 - erf(x)``, accurate where it is small (``math.erfc``).

    Examples
    --------
    >>> import numpy as np
    >>> erfc(np.array([0.0, 10.0]))
    array([1.00000000e+00, 2.08848758e-45])
    """
    return _op("math.erfc", x)


@emits_ops
def erfinv(x):
    """The inverse of :func:`erf` on ``[-1, 1]`` (``tad.erf_inv``; ``±inf`` at ``±1``, NaN outside).

    Examples
    --------
    >>> import numpy as np
    >>> erfinv(np.array([0.0, 0.5]))
    array([0.        , 0.47693628])
    """
    return lax.erf_inv(*promote_args_inexact(x))


@emits_ops
def gammaln(x):
    """``log|Γ(x)|`` (``tad.lgamma``); ``+inf`` at the poles ``0, -1, -2, ...``.

    Examples
    --------
    >>> import numpy as np
    >>> gammaln(np.array([0.5, 10.0, -0.5]))
    array([ 0.57236494, 12.80182748,  1.26551212])
    """
    return lax.lgamma(*promote_args_inexact(x))


def _order(n) -> int:
    try:
        order = operator.index(n)
    except TypeError:
        raise TypeError(f"polygamma's order must be a Python integer (it selects the series at compile time), "
                        f"got {type(n).__name__}") from None
    if order < 0:
        raise ValueError(f"polygamma's order must be non-negative, got {order}")
    return order


@emits_ops
def polygamma(n, x):
    """The ``n``-th derivative of :func:`digamma` (``tad.polygamma``); ``n`` a non-negative Python int.

    Poles (``x = 0, -1, -2, ...``) give NaN, as in JAX.

    Examples
    --------
    >>> import numpy as np
    >>> polygamma(1, np.array([1.0, 0.5]))  # pi**2/6, pi**2/2
    array([1.64493407, 4.9348022 ])
    """
    (x,) = promote_args_inexact(x)
    return Tracer.of(polygamma_op(x.value, _order(n)))


@emits_ops
def digamma(x):
    """The digamma function ``ψ(x) = d/dx log Γ(x)`` (``tad.polygamma`` of order 0); NaN at the poles.

    Examples
    --------
    >>> import numpy as np
    >>> digamma(np.array([1.0, 2.0]))  # -γ, 1 - γ
    array([-0.57721566,  0.42278434])
    """
    return polygamma(0, x)


@emits_ops
def expit(x):
    """The logistic sigmoid ``1 / (1 + exp(-x))``, accurate in both tails (``tad.logistic``).

    Examples
    --------
    >>> import numpy as np
    >>> expit(np.array([-800.0, 0.0]))
    array([0. , 0.5])
    """
    (x,) = promote_args_inexact(x)
    return sigmoid(x)


@emits_ops
def logit(p):
    """The inverse of :func:`expit`, ``log(p / (1 - p))``, as ``log(p) - log1p(-p)`` (accurate near 0 and 1).

    Examples
    --------
    >>> import numpy as np
    >>> logit(np.array([0.5, 1e-20]))
    array([  0.        , -46.05170186])
    """
    (p,) = promote_args_inexact(p)
    return tnp.log(p) - tnp.log1p(-p)


def _times_log(x, y, log, finite_low: float):
    """``x * log(y)`` with 0 where ``x == 0`` (``y`` anything), for :func:`xlogy` and :func:`xlog1py`.

    Where ``x == 0`` and ``log(y)`` is not finite, ``y`` is replaced by a
    value whose log is 0 before the log is taken: the derivative in ``y``
    there is then 0, not ``0 * inf = nan``. Elsewhere the derivative in
    ``x`` is ``log(y)``, at ``x == 0`` too, as JAX's rule gives.
    """
    x, y = promote_args_inexact(x, y)
    log_finite = tnp.logical_and(tnp.greater(y, finite_low), tnp.less(y, np.inf))
    safe = tnp.where(tnp.logical_or(tnp.not_equal(x, 0), log_finite), y, finite_low + 1.0)
    return x * log(safe)


@emits_ops
def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (even where ``y`` is 0).

    Examples
    --------
    >>> import numpy as np
    >>> xlogy(np.array([0.0, 2.0]), np.array([0.0, np.e]))
    array([0., 2.])
    """
    return _times_log(x, y, tnp.log, 0.0)


@emits_ops
def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (even where ``y`` is -1).

    Examples
    --------
    >>> import numpy as np
    >>> xlog1py(np.array([0.0, 2.0]), np.array([-1.0, 0.0]))
    array([0., 0.])
    """
    return _times_log(x, y, tnp.log1p, -1.0)


def _axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    return tuple(sorted(a % max(ndim, 1) for a in axes))


@emits_ops
def logsumexp(a, axis=None, b=None, keepdims: bool = False, return_sign: bool = False):
    """``log(sum(b * exp(a), axis))`` without overflow, as ``jax.scipy.special.logsumexp``.

    The maximum over ``axis`` is subtracted before ``exp`` (and added back);
    it does not take part in the derivative, which is the softmax. With
    ``b`` (broadcast against ``a``), a negative sum gives NaN, or with
    ``return_sign`` the pair ``(log|sum|, sign(sum))``.

    Examples
    --------
    >>> import numpy as np
    >>> logsumexp(np.array([[0.0, 1e4], [1.0, 1.0]]), axis=1)
    array([1.00000000e+04, 1.69314718e+00])
    >>> logsumexp(np.array([0.0, 0.0]), b=np.array([1.0, -2.0]), return_sign=True)
    (array(0.), array(-1.))
    """
    if b is None:
        (a,) = promote_args_inexact(a)
    else:
        a, b = promote_args_inexact(a, b)
        shape = np.broadcast_shapes(a.shape, b.shape)
        a, b = tnp.broadcast_to(a, shape), tnp.broadcast_to(b, shape)
        a = tnp.where(tnp.not_equal(b, 0), a, -np.inf)  # terms with b == 0 are left out, even a = inf
    axes = _axes(axis, a.ndim)
    shift = tnp.max(a, axis=axes, keepdims=True)
    # An infinite maximum (all -inf, or an inf) would give inf - inf: shift by 0 there.
    shift = lax.stop_gradient(tnp.where(tnp.less(tnp.abs(shift), np.inf), shift, 0.0))
    terms = tnp.exp(a - shift)
    if b is not None:
        terms = terms * b
    total = tnp.sum(terms, axis=axes, keepdims=True)
    sign = tnp.sign(total)
    out = tnp.log(tnp.abs(total)) + shift
    if not keepdims:
        out, sign = tnp.squeeze(out, axes), tnp.squeeze(sign, axes)
    if return_sign:
        return out, sign
    if b is not None:
        out = tnp.where(tnp.less(sign, 0), np.nan, out)
    return out


@emits_ops
def log_softmax(x, axis=None):
    """``x - logsumexp(x, axis)`` (over all elements when ``axis`` is None, as scipy).

    Examples
    --------
    >>> import numpy as np
    >>> log_softmax(np.array([0.0, 0.0]))
    array([-0.69314718, -0.69314718])
    """
    (x,) = promote_args_inexact(x)
    return x - logsumexp(x, axis=axis, keepdims=True)


@emits_ops
def softmax(x, axis=None):
    """``exp(x) / sum(exp(x), axis)`` without overflow (over all elements when ``axis`` is None, as scipy).

    Examples
    --------
    >>> import numpy as np
    >>> softmax(np.array([[1e4, 1e4], [0.0, np.log(3.0)]]), axis=1)
    array([[0.5 , 0.5 ],
           [0.25, 0.75]])
    """
    return tnp.exp(log_softmax(x, axis))


_SQRT_HALF = math.sqrt(0.5)


@emits_ops
def ndtr(x):
    """The standard normal CDF ``(1 + erf(x / sqrt(2))) / 2``, as ``erfc(-x / sqrt(2)) / 2`` (accurate for ``x < 0``).

    Examples
    --------
    >>> import numpy as np
    >>> ndtr(np.array([0.0, -10.0]))
    array([5.00000000e-01, 7.61985302e-24])
    """
    (x,) = promote_args_inexact(x)
    return 0.5 * erfc(x * -_SQRT_HALF)


@emits_ops
def ndtri(p):
    """The inverse of :func:`ndtr` (``tad.ndtri``): ``-inf`` at 0, ``inf`` at 1, NaN outside ``[0, 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> ndtri(np.array([0.5, 0.975]))
    array([0.       , 1.95996398])
    """
    return _op("tad.ndtri", p)


def _log_ndtr_lower_tail(x, terms: int):
    """``log(ndtr(x))`` for very negative ``x``, by its asymptotic series.

    ``-x²/2 - log(-x) - log(2π)/2 + log(1 + Σ_n (-1)^n (2n-1)!! / x^2n)``.
    """
    x2 = x * x
    series, power = 1.0, x2
    for n in range(1, terms + 1):
        term = float(math.prod(range(2 * n - 1, 0, -2))) / power
        series = series + (term if n % 2 == 0 else -term)
        power = power * x2
    return -0.5 * x2 - tnp.log(-x) - 0.5 * math.log(2 * math.pi) + tnp.log(series)


@emits_ops
def log_ndtr(x):
    """``log(ndtr(x))``, accurate in both tails, as ``jax.scipy.special.log_ndtr``.

    For ``x > 0`` it is ``log1p(-ndtr(-x))``, exact where ``ndtr(x)`` rounds
    to 1; far below (``x < -20`` for float64, ``-10`` otherwise, JAX's
    thresholds) an asymptotic series (to more terms than JAX's 3, which
    leave a relative error of 2e-11 at -20), where ``ndtr`` itself would underflow;
    in between ``log(ndtr(x))``. Each branch is evaluated at an argument
    clamped into its range, so that the branches not taken have finite
    derivatives.

    Examples
    --------
    >>> import numpy as np
    >>> log_ndtr(np.array([0.0, -40.0, 10.0]))
    array([-6.93147181e-01, -8.04608442e+02, -7.61985302e-24])
    """
    (x,) = promote_args_inexact(x)
    lower = -20.0 if x.dtype == np.float64 else -10.0
    upper_tail = tnp.log1p(-ndtr(-tnp.maximum(x, 0.0)))
    middle = tnp.log(ndtr(tnp.clip(x, lower, 0.0)))
    # Terms of the asymptotic series: its error at the threshold is below the precision.
    lower_tail = _log_ndtr_lower_tail(tnp.minimum(x, lower), 8 if x.dtype == np.float64 else 5)
    return tnp.where(tnp.greater(x, 0.0), upper_tail, tnp.where(tnp.greater(x, lower), middle, lower_tail))
