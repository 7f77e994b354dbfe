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
and so are their derivatives in ``y`` there. ``sici``, ``fresnel``,
``owens_t`` and ``wofz`` (in :mod:`.special_integrals`), the hypergeometric
functions, ``bessel_jn``, ``lpmn``, ``lpmn_values`` and ``sph_harm_y`` (in
:mod:`.special_series`) are imported from their modules on first use.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> ta.jit(logsumexp)(np.array([1000.0, 1000.0]))
array(1000.69314718)
>>> ta.grad(lambda x: gammaln(x))(1.0)  # digamma(1) = -Euler's gamma
array(-0.57721566)
"""

from __future__ import annotations

import functools
import importlib
import math
import operator
from fractions import Fraction

import numpy as np

from tensorad.dialects import builder
from tensorad.dialects.families.special import polygamma as polygamma_op

from .. import autodiff, dtypes, tree
from .. import numpy as tnp
from ..numpy.bessel import power_series, scaled_bessel
from .. import lax
# jax.scipy.special.logsumexp is jax.nn's (where= included).
from ..nn import logsumexp, sigmoid
from ..tracing import Tracer, emits_ops

__all__ = ["bernoulli", "beta", "betainc", "betaln", "boxcox", "boxcox1p", "comb", "dawsn", "digamma", "entr", "erf",
           "erfc", "erfcx", "erfinv", "exp1", "expi", "expit", "expn", "factorial", "gamma", "gammainc", "gammaincc",
           "gammaln", "gammasgn", "i0", "i0e", "i1", "i1e", "kl_div", "log_ndtr", "log_softmax", "loggamma", "logit",
           "logsumexp", "multigammaln", "ndtr", "ndtri", "poch", "polygamma", "rel_entr", "softmax", "spence",
           "xlog1py", "xlogy", "zeta"]


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


def evaluate_in_float64(fn, *args):
    """``fn`` of ``args`` (promoted to one float dtype, broadcast) in float64, its outputs rounded to that dtype.

    As scipy's float32 loops, which call its float64 functions: for the
    functions whose terms cancel (Ci next to its zeros) or whose series
    outgrow float32's range, float32 results are then the float64 ones rounded.

    Examples
    --------
    >>> import numpy as np
    >>> evaluate_in_float64(lambda x: x / 3.0, np.float32(1.0))  # float32(1/3), not float32 arithmetic's
    array(0.33333334, dtype=float32)
    """
    args = promote_args_inexact(*args)
    wide = [tnp.astype(a, np.float64) for a in tnp.broadcast_arrays(*args)]
    return tree.tree_map(lambda v: tnp.astype(v, args[0].dtype), fn(*wide))


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


# ----------------------------------------------------------------------------
# Shared building blocks of the functions below
# ----------------------------------------------------------------------------

_EULER_GAMMA = 0.57721566490153286061
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


@functools.lru_cache(maxsize=None)
def _bernoulli_numbers(count: int) -> list:
    """``B_0 .. B_{count-1}`` (``B_1 = -1/2``), exact, by ``sum_k C(m+1, k) B_k = 0`` (cached: 260 take 0.2 s)."""
    numbers = [Fraction(1)]
    for m in range(1, count):
        numbers.append(-sum(math.comb(m + 1, k) * numbers[k] for k in range(m)) / (m + 1))
    return numbers


_BERNOULLI = _bernoulli_numbers(40)


def _series(steps: int, body, init):
    """``init`` carried through ``body(k, carry)`` for ``k = 1 .. steps``: a fixed-length, differentiable loop."""
    return lax.fori_loop(1, steps + 1, lambda i, carry: body(tnp.astype(i, carry[0].dtype), carry), init)


# ----------------------------------------------------------------------------
# Gamma and beta functions
# ----------------------------------------------------------------------------

@emits_ops
def gammasgn(x):
    """The sign of the gamma function: ``±1``; ``±1`` at ``±0``, NaN at the poles, ``-inf`` and NaN.

    Examples
    --------
    >>> import numpy as np
    >>> gammasgn(np.array([0.5, -0.5, -1.5, -2.0]))
    array([ 1., -1.,  1., nan])
    """
    (x,) = promote_args_inexact(x)
    floor = tnp.floor(x)
    negative = tnp.less(x, 0)
    pole = tnp.logical_or(tnp.logical_and(negative, tnp.equal(x, floor)), tnp.isnan(x))
    # Between -2k-1 and -2k gamma is negative; so is it at -0 (the limit from the left).
    minus = tnp.logical_or(tnp.logical_and(negative, tnp.not_equal(tnp.fmod(floor, 2.0), 0)),
                           tnp.logical_and(tnp.equal(x, 0), tnp.less(tnp.copysign(1.0, x), 0)))
    return tnp.where(pole, np.nan, tnp.where(minus, -1.0, 1.0)).astype(x.dtype)


@emits_ops
def gamma(x):
    """The gamma function, ``gammasgn(x) * exp(gammaln(x))`` as in JAX; ``±inf`` at ``±0``, NaN at the poles.

    The relative error is that of ``exp`` of a value of ``gammaln`` up to
    ~700: 3e-13 at most in float64.

    Examples
    --------
    >>> import numpy as np
    >>> gamma(np.array([5.0, 0.5, -1.5]))
    array([24.        ,  1.77245385,  2.3632718 ])
    """
    (x,) = promote_args_inexact(x)
    return gammasgn(x) * tnp.exp(gammaln(x))


@emits_ops
def loggamma(x):
    """The principal branch of ``log Γ(x)`` for real ``x``: :func:`gammaln` for ``x > 0``, NaN elsewhere (JAX's rule).

    Examples
    --------
    >>> import numpy as np
    >>> loggamma(np.array([3.0, -0.5]))
    array([0.69314718,        nan])
    """
    (x,) = promote_args_inexact(x)
    return tnp.where(tnp.greater(x, 0), gammaln(x), np.nan)


@emits_ops
def factorial(n, exact: bool = False):
    """``n!`` as ``Γ(n + 1)``, 0 for ``n < 0``; ``exact=True`` is not supported (as in JAX).

    Examples
    --------
    >>> import numpy as np
    >>> factorial(np.array([0, 5, -1]))
    array([  1., 120.,   0.])
    """
    if exact:
        raise NotImplementedError("factorial with exact=True")
    (n,) = promote_args_inexact(n)
    return tnp.where(tnp.less(n, 0), 0.0, tnp.exp(gammaln(n + 1.0)))


@emits_ops
def comb(N, k, *, repetition: bool = False):  # noqa: N803 (scipy's and JAX's name)
    """``N choose k`` through ``gammaln``, 0 outside ``0 <= k <= N`` (with ``repetition``: ``N+k-1 choose k``).

    Through ``exp`` of a difference of ``gammaln`` values, as in JAX: the
    relative error grows with ``N`` (about 1e-13 at ``N = 60``).

    Examples
    --------
    >>> import numpy as np
    >>> comb(np.array([5.0, 10.0, 3.0]), np.array([2.0, 3.0, 4.0]))
    array([ 10., 120.,   0.])
    >>> comb(3, 2, repetition=True)
    array(6.)
    """
    N, k = promote_args_inexact(N, k)  # noqa: N806
    if repetition:
        return tnp.where(tnp.logical_and(tnp.equal(k, 0), tnp.greater_equal(N, 0)), 1.0, comb(N + k - 1.0, k))
    valid = tnp.logical_and(tnp.logical_and(tnp.less_equal(k, N), tnp.greater_equal(N, 0)), tnp.greater_equal(k, 0))
    safe_n, safe_k = tnp.where(valid, N, 0.0), tnp.where(valid, k, 0.0)
    value = tnp.exp(gammaln(safe_n + 1.0) - gammaln(safe_k + 1.0) - gammaln(safe_n - safe_k + 1.0))
    return tnp.where(valid, value, 0.0)


@emits_ops
def poch(z, m):
    """The Pochhammer symbol ``Γ(z + m) / Γ(z)`` (1 where ``m == 0``), as in JAX.

    Examples
    --------
    >>> import numpy as np
    >>> poch(np.array([3.0, 0.5]), np.array([2.0, 1.0]))
    array([12. ,  0.5])
    """
    z, m = promote_args_inexact(z, m)
    return tnp.where(tnp.equal(m, 0), 1.0, gamma(z + m) / gamma(z))


@emits_ops
def multigammaln(a, d: int):
    """The log of the multivariate gamma function, ``d(d-1)/4 log π + sum_j gammaln(a - j/2)``, ``d`` a Python int.

    Examples
    --------
    >>> import numpy as np
    >>> multigammaln(np.array([2.5, 4.0]), 2)
    array([0.85704781, 3.56509801])
    """
    d = _order(d) if isinstance(d, (int, np.integer)) else operator.index(d)
    (a,) = promote_args_inexact(a)
    total = d * (d - 1) / 4 * math.log(math.pi)
    for j in range(d):  # d terms of one elementwise sum, fixed at trace time
        total = total + gammaln(a - j / 2)
    return total


_STIRLING_FROM = 8.0


def _stirling_remainder(x):
    """``gammaln(x) - ((x - 1/2) log x - x + log(2π)/2)`` for ``x >= 8``, by Stirling's series (to 1e-17 there)."""
    inverse_square = 1.0 / (x * x)
    coefficients = [float(_BERNOULLI[2 * k] / (2 * k * (2 * k - 1))) for k in range(9, 0, -1)]
    return power_series(inverse_square, coefficients) / x


def _betaln_positive(a, b):
    """``log B(a, b)`` for positive ``a``, ``b``, without the cancellation of three large ``gammaln``.

    Where the larger argument is ``>= 8`` its ``gammaln`` and that of ``a + b``
    are written with Stirling's formula and the large parts cancelled
    analytically (as Cephes' ``lbeta`` and TensorFlow's ``lbeta``).
    """
    small, large = tnp.minimum(a, b), tnp.maximum(a, b)
    # Each branch at arguments clamped into its range: finite values, and derivatives, in the others.
    big = tnp.maximum(large, _STIRLING_FROM)
    big_small = tnp.maximum(small, _STIRLING_FROM)
    total = big_small + big
    both_large = (_LOG_SQRT_2PI - 0.5 * tnp.log(big) + (big_small - 0.5) * tnp.log(big_small / total)
                  + big * tnp.log1p(-big_small / total)
                  + _stirling_remainder(big_small) + _stirling_remainder(big) - _stirling_remainder(total))
    little = tnp.minimum(small, _STIRLING_FROM)
    total = little + big
    one_large = (gammaln(little) + (big - 0.5) * tnp.log1p(-little / total) - little * tnp.log(total) + little
                 + _stirling_remainder(big) - _stirling_remainder(total))
    both_small = gammaln(small) + gammaln(tnp.minimum(large, _STIRLING_FROM)) - gammaln(
        small + tnp.minimum(large, _STIRLING_FROM))
    return tnp.where(tnp.less(large, _STIRLING_FROM), both_small,
                     tnp.where(tnp.less(small, _STIRLING_FROM), one_large, both_large))


@emits_ops
def betaln(a, b):
    """``log|B(a, b)|``, accurate for large arguments (no cancellation of ``gammaln`` values there).

    For positive arguments, see the Notes of :func:`beta`; elsewhere
    ``gammaln(a) + gammaln(b) - gammaln(a + b)``.

    Examples
    --------
    >>> import numpy as np
    >>> betaln(np.array([1.0, 1e5]), np.array([2.0, 1e5]))
    array([-6.93147181e-01, -1.38633927e+05])
    """
    a, b = promote_args_inexact(a, b)
    positive = tnp.logical_and(tnp.greater(a, 0), tnp.greater(b, 0))
    finite = tnp.logical_and(tnp.less(a, np.inf), tnp.less(b, np.inf))
    ok = tnp.logical_and(positive, finite)
    general = gammaln(a) + gammaln(b) - gammaln(a + b)
    return tnp.where(ok, _betaln_positive(tnp.where(ok, a, 1.0), tnp.where(ok, b, 1.0)),
                     tnp.where(tnp.logical_and(positive, tnp.logical_not(finite)), -np.inf, general))


@emits_ops
def beta(a, b):
    """The beta function ``Γ(a) Γ(b) / Γ(a + b)``, as ``sign * exp(betaln(a, b))`` (JAX's formula).

    Notes
    -----
    For positive ``a`` and ``b`` with the larger one ``>= 8``, :func:`betaln`
    uses Stirling's series for the large ``gammaln`` values and cancels their
    leading terms analytically, so ``beta(1e5, 1e5)`` keeps its digits.

    Examples
    --------
    >>> import numpy as np
    >>> beta(np.array([2.0, 0.5]), np.array([3.0, 0.5]))
    array([0.08333333, 3.14159265])
    """
    a, b = promote_args_inexact(a, b)
    return gammasgn(a) * gammasgn(b) * gammasgn(a + b) * tnp.exp(betaln(a, b))


# ----------------------------------------------------------------------------
# Incomplete gamma and beta functions
# ----------------------------------------------------------------------------

# Terms of the series and steps of the continued fractions: they converge in
# O(sqrt(a)) steps where they are used, so these cover a (and b) up to ~10^4.
_INCOMPLETE_STEPS = 600


def _log_gamma_density(a, x):
    """``a log x - x - gammaln(a)``: the log of the prefactor ``x^a e^-x / Γ(a)`` of both incomplete gammas."""
    return a * tnp.log(x) - x - gammaln(a)


def _lower_gamma_series(a, x):
    """``P(a, x) = x^a e^-x / Γ(a+1) * sum_k x^k / ((a+1)...(a+k))``, for ``x <= max(a, 1)`` (Cephes' ``igam``)."""
    def add_term(k, carry):
        term, total = carry
        term = term * x / (a + k)
        return term, total + term

    _, total = _series(_INCOMPLETE_STEPS, add_term, (tnp.ones_like(x), tnp.ones_like(x)))
    return total * tnp.exp(_log_gamma_density(a, x)) / a


def _upper_gamma_fraction(a, x):
    """``Q(a, x)`` by Legendre's continued fraction, for ``x > max(a, 1)`` (Cephes' ``igamc``)."""
    big = 2.0 ** 52  # the convergents are rescaled by 1/big before they overflow

    def step(k, carry):
        y, z, p_prev, q_prev, p, q, ratio = carry
        y, z = y + 1.0, z + 2.0
        p_next, q_next = p * z - p_prev * (y * k), q * z - q_prev * (y * k)
        ratio = tnp.where(tnp.not_equal(q_next, 0), p_next / tnp.where(tnp.not_equal(q_next, 0), q_next, 1.0), ratio)
        # In the carry's dtype: two Python floats would make a float64 array, and a float32 carry float64.
        scale = tnp.where(tnp.greater(tnp.abs(p_next), big), tnp.asarray(1.0 / big, p_next.dtype),
                          tnp.asarray(1.0, p_next.dtype))
        return y, z, p * scale, q * scale, p_next * scale, q_next * scale, ratio

    y = 1.0 - a
    z = x + y + 1.0
    init = (y, z, tnp.ones_like(x), x, x + 1.0, z * x, (x + 1.0) / (z * x))
    ratio = _series(_INCOMPLETE_STEPS, step, init)[-1]
    return ratio * tnp.exp(_log_gamma_density(a, x))


def _incomplete_gamma(a, x, upper: bool):
    """``Q(a, x)`` if ``upper`` else ``P(a, x)``: the series or the fraction, whichever converges, at safe arguments."""
    use_fraction = tnp.logical_and(tnp.greater(x, 1.0), tnp.greater(x, a))
    valid = tnp.logical_and(tnp.greater(a, 0), tnp.logical_and(tnp.greater(x, 0), tnp.less(x, np.inf)))
    # Each branch at arguments inside its range, so that the other's value and derivative stay finite.
    series_a, series_x = tnp.where(valid, a, 1.0), tnp.where(tnp.logical_and(valid, ~use_fraction), x, 0.5)
    fraction_a, fraction_x = tnp.where(valid, a, 1.0), tnp.where(tnp.logical_and(valid, use_fraction), x, 2.0)
    lower = _lower_gamma_series(series_a, series_x)
    upper_value = _upper_gamma_fraction(fraction_a, fraction_x)
    if upper:
        value = tnp.where(use_fraction, upper_value, 1.0 - lower)
    else:
        value = tnp.where(use_fraction, 1.0 - upper_value, lower)
    at_zero, at_inf = (1.0, 0.0) if upper else (0.0, 1.0)
    nan = tnp.logical_or(tnp.logical_or(tnp.less(a, 0), tnp.less(x, 0)),
                         tnp.logical_or(tnp.logical_and(tnp.equal(a, 0), tnp.equal(x, 0)),
                                        tnp.logical_or(tnp.isnan(a), tnp.isnan(x))))
    value = tnp.where(tnp.equal(x, 0), at_zero, tnp.where(tnp.equal(x, np.inf), at_inf, value))
    value = tnp.where(tnp.logical_and(tnp.equal(a, 0), tnp.greater(x, 0)), at_inf, value)
    return tnp.where(nan, np.nan, value)


def _gamma_density(a, x):
    """``x^(a-1) e^-x / Γ(a)``: the derivative of ``P(a, x)`` in ``x``."""
    return tnp.exp(_log_gamma_density(a, x)) / x


def _incomplete_gamma_jvp(upper: bool):
    def rule(primals, tangents):
        (a, x), (da, dx) = primals, tangents
        # In a: the derivative of the series and fraction themselves (JAX's igamma_grad_a carries the same
        # recurrences), which converge with them; in x: the density.
        value, by_a = autodiff.jvp(lambda a, x: _incomplete_gamma(a, x, upper), (a, x), (da, tnp.zeros_like(x)))
        by_x = tnp.where(tnp.greater(x, 0), _gamma_density(a, tnp.where(tnp.greater(x, 0), x, 1.0)), 0.0) * dx
        return value, by_a + (-by_x if upper else by_x)
    return rule


@autodiff.custom_jvp
def _gammainc(a, x):
    return _incomplete_gamma(a, x, upper=False)


@autodiff.custom_jvp
def _gammaincc(a, x):
    return _incomplete_gamma(a, x, upper=True)


_gammainc.defjvp(_incomplete_gamma_jvp(upper=False))
_gammaincc.defjvp(_incomplete_gamma_jvp(upper=True))


@emits_ops
def gammainc(a, x):
    """The regularized lower incomplete gamma function ``P(a, x) = γ(a, x) / Γ(a)``.

    Cephes' algorithm (as scipy's and JAX's): the power series where ``x <=
    max(a, 1)``, ``1 - Q`` from Legendre's continued fraction elsewhere, each
    to a fixed 600 steps (they converge in ``O(sqrt(a))``, so ``a`` up to about
    1e4), in float64 for float32 arguments too (as scipy's float32 loop; in
    float32 the fraction's rounding reached 2e-5). NaN for ``a < 0``,
    ``x < 0`` or ``a = x = 0``; 1 for ``a = 0 < x``. Derivatives: the density ``x^(a-1) e^-x / Γ(a)`` in ``x``; in ``a`` the
    derivative of the series or fraction, as JAX's ``igamma_grad_a``.

    Examples
    --------
    >>> import numpy as np
    >>> gammainc(np.array([1.0, 3.0]), np.array([1.0, 2.0]))
    array([0.63212056, 0.32332358])
    """
    return evaluate_in_float64(_gammainc, a, x)


@emits_ops
def gammaincc(a, x):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)``, accurate where it is small.

    See :func:`gammainc` for the algorithm, the special values and the derivatives.

    Examples
    --------
    >>> import numpy as np
    >>> gammaincc(np.array([1.0, 3.0]), np.array([1.0, 40.0]))
    array([3.67879441e-01, 3.57286593e-15])
    """
    return evaluate_in_float64(_gammaincc, a, x)


def _beta_fraction(a, b, x):
    """The continued fraction of ``I_x(a, b)`` (DLMF 8.17.22) by the modified Lentz method.

    It converges fast for ``x < (a+1)/(a+b+2)``.
    """
    tiny = 1e-300 if x.dtype == np.float64 else 1e-30

    def nonzero(v):
        return tnp.where(tnp.less(tnp.abs(v), tiny), tiny, v)

    def two_steps(m, carry):
        c, d, h = carry
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 / nonzero(1.0 + numerator * d)
            c = nonzero(1.0 + numerator / c)
            h = h * c * d
        return c, d, h

    d = 1.0 / nonzero(1.0 - (a + b) * x / (a + 1.0))
    _, _, h = _series(_INCOMPLETE_STEPS // 2, two_steps, (tnp.ones_like(x), d, d))
    return h


def _regularized_beta(a, b, x):
    """``I_x(a, b)``: the fraction at ``x`` or, through ``I_x(a, b) = 1 - I_(1-x)(b, a)``, at ``1 - x``."""
    valid = tnp.logical_and(tnp.logical_and(tnp.greater(a, 0), tnp.greater(b, 0)),
                            tnp.logical_and(tnp.greater(x, 0), tnp.less(x, 1)))
    a, b, x_in = tnp.where(valid, a, 1.0), tnp.where(valid, b, 1.0), x
    x = tnp.where(valid, x, 0.5)
    direct = tnp.less(x, (a + 1.0) / (a + b + 2.0))
    p, q = tnp.where(direct, a, b), tnp.where(direct, b, a)
    y = tnp.where(direct, x, 1.0 - x)
    prefactor = tnp.exp(p * tnp.log(y) + q * tnp.log1p(-y) - betaln(p, q)) / p
    value = prefactor * _beta_fraction(p, q, y)
    value = tnp.where(direct, value, 1.0 - value)
    edges = tnp.where(tnp.equal(x_in, 0), tnp.zeros_like(x), tnp.where(tnp.equal(x_in, 1), tnp.ones_like(x), np.nan))
    return tnp.where(valid, value, edges)


@autodiff.custom_jvp
def _betainc(a, b, x):
    return _regularized_beta(a, b, x)


@_betainc.defjvp
def _betainc_jvp(primals, tangents):
    (a, b, x), (da, db, dx) = primals, tangents
    # In a and b: the derivative of the continued fraction (JAX has none); in x: the beta density.
    value, by_ab = autodiff.jvp(_regularized_beta, (a, b, x), (da, db, tnp.zeros_like(x)))
    inside = tnp.logical_and(tnp.greater(x, 0), tnp.less(x, 1))
    y = tnp.where(inside, x, 0.5)
    density = tnp.exp((a - 1.0) * tnp.log(y) + (b - 1.0) * tnp.log1p(-y) - betaln(a, b))
    return value, by_ab + tnp.where(inside, density, 0.0) * dx


@emits_ops
def betainc(a, b, x):
    """The regularized incomplete beta function ``I_x(a, b) = B(x; a, b) / B(a, b)``.

    The continued fraction of DLMF 8.17.22 (as JAX's and Cephes' ``incbet``)
    by the modified Lentz method, at ``x`` or through the symmetry at ``1 - x``,
    whichever converges fast, to a fixed 600 steps (``a``, ``b`` up to about
    1e4). 0 at ``x = 0``, 1 at ``x = 1``, NaN outside ``[0, 1]`` or for
    non-positive ``a``, ``b``. The derivative in ``x`` is the beta density; in
    ``a`` and ``b`` (which JAX refuses) that of the continued fraction.

    Examples
    --------
    >>> import numpy as np
    >>> betainc(np.array([2.0, 0.5]), np.array([3.0, 0.5]), np.array([0.4, 0.5]))
    array([0.5248, 0.5   ])
    """
    a, b, x = promote_args_inexact(a, b, x)
    a, b, x = tnp.broadcast_arrays(a, b, x)
    return _betainc(a, b, x)


# ----------------------------------------------------------------------------
# Modified Bessel functions of orders 0 and 1 (Cephes' Chebyshev series)
# ----------------------------------------------------------------------------

@emits_ops
def i0e(x):
    """The exponentially scaled modified Bessel function of order 0, ``exp(-|x|) I0(x)`` (Cephes' series).

    Examples
    --------
    >>> import numpy as np
    >>> i0e(np.array([0.0, 1.0, 100.0]))
    array([1.        , 0.46575961, 0.03994438])
    """
    (x,) = promote_args_inexact(x)
    return scaled_bessel(x, 0)


@emits_ops
def i0(x):
    """The modified Bessel function of order 0, ``exp(|x|) * i0e(x)``.

    Examples
    --------
    >>> import numpy as np
    >>> i0(np.array([0.0, 1.0, -2.0]))
    array([1.        , 1.26606588, 2.2795853 ])
    """
    (x,) = promote_args_inexact(x)
    return tnp.exp(tnp.abs(x)) * i0e(x)


@emits_ops
def i1e(x):
    """The exponentially scaled modified Bessel function of order 1, ``exp(-|x|) I1(x)`` (odd; Cephes' series).

    Examples
    --------
    >>> import numpy as np
    >>> i1e(np.array([0.0, 1.0, -100.0]))
    array([ 0.        ,  0.20791042, -0.03974415])
    """
    (x,) = promote_args_inexact(x)
    return tnp.sign(x) * scaled_bessel(x, 1)


@emits_ops
def i1(x):
    """The modified Bessel function of order 1, ``exp(|x|) * i1e(x)``.

    Examples
    --------
    >>> import numpy as np
    >>> i1(np.array([0.0, 1.0, -2.0]))
    array([ 0.        ,  0.5651591 , -1.59063685])
    """
    (x,) = promote_args_inexact(x)
    return tnp.exp(tnp.abs(x)) * i1e(x)


# ----------------------------------------------------------------------------
# erfcx and Dawson's integral
# ----------------------------------------------------------------------------

@emits_ops
def erfcx(x):
    """The scaled complementary error function ``exp(x**2) * erfc(x)``.

    Directly below ``sqrt(log(max float))`` (26.6 in float64), where
    ``exp(x**2)`` would overflow; above it the asymptotic series
    ``1/(x sqrt(π)) * sum_k (-1)^k (2k-1)!! / (2x²)^k`` to 9 terms (5 in
    float32), as JAX. ``inf`` for very negative ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> erfcx(np.array([0.0, 1.0, 100.0]))
    array([1.        , 0.42758358, 0.00564161])
    """
    (x,) = promote_args_inexact(x)
    double = x.dtype == np.float64
    threshold = math.sqrt(math.log(np.finfo(x.dtype).max))
    large = tnp.greater(x, threshold)
    direct_x = tnp.where(large, 1.0, x)
    direct = tnp.exp(direct_x * direct_x) * erfc(direct_x)
    far = tnp.where(large, x, threshold)
    terms = 9 if double else 5
    coefficients = [(-1) ** k * float(math.prod(range(2 * k - 1, 0, -2))) / 2 ** k for k in range(terms - 1, -1, -1)]
    asymptotic = power_series(1.0 / (far * far), coefficients) / (far * math.sqrt(math.pi))
    return tnp.where(large, asymptotic, direct)


# Cody, Paciorek and Thacher (1970): |x| < 3.25: x P(x²)/Q(x²); below 6.25 and above, in t = 1/x²:
# (1 + t P(t)/Q(t)) / (2|x|).
_DAWSN_NEAR = ((1.13681498971755972054e-11, 8.49262267667473811108e-10, 1.94434204175553054283e-8,
                9.53151741254484363489e-7, 3.07828309874913200438e-6, 3.52513368520288738649e-4,
                -8.50149846724410912031e-4, 4.22618223005546594270e-2, -9.17480371773452345351e-2,
                9.99999999999999994612e-1),
               (2.40372073066762605484e-11, 1.48864681368493396752e-9, 5.21265281010541664570e-8,
                1.27258478273186970203e-6, 2.32490249820789513991e-5, 3.25524741826057911661e-4,
                3.48805814657162590916e-3, 2.79448531198828973716e-2, 1.58874241960120565368e-1,
                5.74918629489320327824e-1, 1.00000000000000000539e0))
_DAWSN_MIDDLE = ((5.08955156417900903354e-1, -2.44754418142697847934e-1, 9.41512335303534411857e-2,
                  -2.18711255142039025206e-2, 3.66207612329569181322e-3, -4.23209114460388756528e-4,
                  3.59641304793896631888e-5, -2.14640351719968974225e-6, 9.10010780076391431042e-8,
                  -2.40274520828250956942e-9, 3.59233385440928410398e-11),
                 (1.00000000000000000000e0, -6.31839869873368190192e-1, 2.36706788228248691528e-1,
                  -5.31806367003223277662e-2, 8.48041718586295374409e-3, -9.47996768486665330168e-4,
                  7.81025592944552338085e-5, -4.55875153252442634831e-6, 1.89100358111421846170e-7,
                  -4.91324691331920606875e-9, 7.18466403235734541950e-11))
_DAWSN_FAR = ((-5.90592860534773254987e-1, 6.29235242724368800674e-1, -1.72858975380388136411e-1,
               1.64837047825189632310e-2, -4.86827613020462700845e-4),
              (1.00000000000000000000e0, -2.69820057197544900361e0, 1.73270799045947845857e0,
               -3.93708582281939493482e-1, 3.44278924041233391079e-2, -9.73655226040941223894e-4))


def _dawsn_tail(ax, rational):
    t = 1.0 / (ax * ax)
    numerator, denominator = rational
    return (1.0 + t * power_series(t, numerator) / power_series(t, denominator)) / (2.0 * ax)


@emits_ops
def dawsn(x):
    """Dawson's integral ``exp(-x²) ∫_0^x exp(t²) dt`` (Cody, Paciorek and Thacher's rational functions, as Cephes).

    Examples
    --------
    >>> import numpy as np
    >>> dawsn(np.array([0.0, 1.0, -10.0]))
    array([ 0.        ,  0.53807951, -0.05025385])
    """
    (x,) = promote_args_inexact(x)
    ax = tnp.abs(x)
    # Each region at |x| clamped into it, so that the others stay finite (and so their derivatives).
    near = tnp.minimum(ax, 3.25)
    near_value = near * power_series(near * near, _DAWSN_NEAR[0]) / power_series(near * near, _DAWSN_NEAR[1])
    middle_value = _dawsn_tail(tnp.clip(ax, 3.25, 6.25), _DAWSN_MIDDLE)
    far_value = _dawsn_tail(tnp.maximum(ax, 6.25), _DAWSN_FAR)
    value = tnp.where(tnp.less(ax, 3.25), near_value, tnp.where(tnp.less(ax, 6.25), middle_value, far_value))
    return tnp.sign(x) * value


# ----------------------------------------------------------------------------
# Entropies and Box-Cox transforms
# ----------------------------------------------------------------------------

@emits_ops
def entr(x):
    """The elementwise entropy ``-x log x``: 0 at 0, ``-inf`` for ``x < 0``.

    Examples
    --------
    >>> import numpy as np
    >>> entr(np.array([0.0, 0.5, -1.0]))
    array([0.        , 0.34657359,       -inf])
    """
    (x,) = promote_args_inexact(x)
    # 0.0 - (not a negation): +0 at x = 0, as scipy.
    return tnp.where(tnp.less(x, 0), -np.inf, 0.0 - xlogy(x, x))


@emits_ops
def rel_entr(p, q):
    """The elementwise relative entropy ``p log(p / q)``.

    0 where ``p == 0 <= q``; ``inf`` where either is negative or ``q == 0 < p``.

    Examples
    --------
    >>> import numpy as np
    >>> rel_entr(np.array([0.5, 0.0, 1.0]), np.array([0.25, 1.0, 0.0]))
    array([0.34657359, 0.        ,        inf])
    """
    p, q = promote_args_inexact(p, q)
    both_positive = tnp.logical_and(tnp.greater(p, 0), tnp.greater(q, 0))
    safe_p, safe_q = tnp.where(both_positive, p, 1.0), tnp.where(both_positive, q, 1.0)
    zero = tnp.logical_and(tnp.equal(p, 0), tnp.greater_equal(q, 0))
    value = tnp.where(both_positive, safe_p * (tnp.log(safe_p) - tnp.log(safe_q)),
                      tnp.where(zero, tnp.zeros_like(p), tnp.full_like(p, np.inf)))
    return tnp.where(tnp.logical_or(tnp.isnan(p), tnp.isnan(q)), np.nan, value)


@emits_ops
def kl_div(p, q):
    """The elementwise Kullback-Leibler divergence ``p log(p / q) - p + q`` (:func:`rel_entr` ``- p + q``).

    Examples
    --------
    >>> import numpy as np
    >>> kl_div(np.array([0.5, 0.0]), np.array([0.25, 1.0]))
    array([0.09657359, 1.        ])
    """
    p, q = promote_args_inexact(p, q)
    return rel_entr(p, q) - p + q


def _power_transform(log_x, lmbda):
    """``(exp(λ log_x) - 1) / λ``, ``log_x`` where ``λ == 0``, exact for small ``λ log_x`` (``expm1``)."""
    is_zero = tnp.equal(lmbda, 0)
    safe = tnp.where(is_zero, 1.0, lmbda)
    return tnp.where(is_zero, log_x, tnp.expm1(safe * log_x) / safe)


@emits_ops
def boxcox(x, lmbda):
    """The Box-Cox transform ``(x**λ - 1) / λ``, ``log(x)`` at ``λ = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> boxcox(np.array([2.0, 2.0]), np.array([0.0, 2.0]))
    array([0.69314718, 1.5       ])
    """
    x, lmbda = promote_args_inexact(x, lmbda)
    return _power_transform(tnp.log(x), lmbda)


@emits_ops
def boxcox1p(x, lmbda):
    """The Box-Cox transform of ``1 + x``, ``((1+x)**λ - 1) / λ``, accurate for small ``x`` (``log1p``).

    Examples
    --------
    >>> import numpy as np
    >>> boxcox1p(np.array([1e-10, 1.0]), np.array([0.5, 0.0]))
    array([1.00000000e-10, 6.93147181e-01])
    """
    x, lmbda = promote_args_inexact(x, lmbda)
    return _power_transform(tnp.log1p(x), lmbda)


# ----------------------------------------------------------------------------
# Exponential integrals
# ----------------------------------------------------------------------------

# Terms of the power series (x <= 1 for E_n, x <= 40 for Ei) and steps of the continued fraction (x > 1).
_EXPINT_SERIES_TERMS = 30
_EI_SERIES_TERMS = 140
_EI_ASYMPTOTIC_FROM = 40.0
_EXPINT_FRACTION_STEPS = 120


def _expn_positive(n, x):
    """``E_n(x)`` for integer ``n >= 1`` and ``x > 0`` (Numerical Recipes' ``expint``).

    Above 1 the continued fraction ``e^-x / (x + n - 1·n/(x + n + 2 - ...))``
    by the modified Lentz method; below, the power series whose ``x^(n-1)``
    term carries ``-log x + ψ(n)``.
    """
    tiny = 1e-300 if x.dtype == np.float64 else 1e-30
    far = tnp.maximum(x, 1.0)

    def fraction_step(i, carry):
        b, c, d, h = carry
        numerator = -i * (n - 1.0 + i)
        b = b + 2.0
        d = 1.0 / (numerator * d + b)
        c = b + numerator / c
        return b, c, d, h * c * d

    b = far + n
    _, _, _, h = _series(_EXPINT_FRACTION_STEPS, fraction_step, (b, tnp.full_like(x, 1.0 / tiny), 1.0 / b, 1.0 / b))
    fraction = h * tnp.exp(-far)

    near = tnp.minimum(x, 1.0)
    log_term = -tnp.log(near) + digamma(n)

    def series_step(i, carry):
        factor, total = carry
        factor = factor * -near / i
        at_log_term = tnp.equal(i, n - 1.0)
        term = tnp.where(at_log_term, factor * log_term, -factor / tnp.where(at_log_term, 1.0, i - (n - 1.0)))
        return factor, total + term

    start = tnp.where(tnp.equal(n, 1.0), log_term, 1.0 / tnp.where(tnp.equal(n, 1.0), 1.0, n - 1.0))
    _, series = _series(_EXPINT_SERIES_TERMS, series_step, (tnp.ones_like(x), start))
    return tnp.where(tnp.greater(x, 1.0), fraction, series)


def _expn_value(n, x):
    """``E_n(x)`` with its special values: ``e^-x / x`` for ``n = 0``; at 0 ``1/(n-1)`` or ``inf``; NaN outside."""
    valid_n = tnp.logical_and(tnp.greater_equal(n, 0), tnp.equal(n, tnp.floor(n)))
    inside = tnp.logical_and(tnp.greater(x, 0), tnp.less(x, np.inf))
    safe_x = tnp.where(inside, x, 1.0)
    safe_n = tnp.where(tnp.logical_and(valid_n, tnp.greater_equal(n, 1)), n, 1.0)
    value = tnp.where(tnp.equal(n, 0), tnp.exp(-safe_x) / safe_x, _expn_positive(safe_n, safe_x))
    at_zero = tnp.where(tnp.greater(n, 1), 1.0 / tnp.where(tnp.greater(n, 1), n - 1.0, 1.0), np.inf)
    value = tnp.where(tnp.equal(x, 0), at_zero, tnp.where(tnp.equal(x, np.inf), 0.0, value))
    return tnp.where(tnp.logical_and(valid_n, tnp.greater_equal(x, 0)), value, np.nan)


@autodiff.custom_jvp
def _expn(n, x):
    return _expn_value(n, x)


# d/dx E_n = -E_{n-1}; n is an integer order, not differentiated (JAX's nondiff_argnums).
_expn.defjvps(None, lambda dx, out, n, x: -_expn_value(n - 1.0, x) * dx)


@emits_ops
def expn(n, x):
    """The generalized exponential integral ``E_n(x) = ∫_1^∞ e^(-xt) / t^n dt`` for integer ``n >= 0``.

    The continued fraction above ``x = 1`` and the power series below (see
    :func:`exp1`); NaN for ``x < 0`` or ``n`` negative or not an integer.
    Differentiable in ``x`` (``-E_{n-1}``), not in ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> expn(np.array([0, 1, 2]), np.array([1.0, 1.0, 0.5]))
    array([0.36787944, 0.21938393, 0.32664386])
    """
    n, x = promote_args_inexact(n, x)
    n, x = tnp.broadcast_arrays(n, x)
    return _expn(n, x)


@emits_ops
def exp1(x):
    """The exponential integral ``E_1(x) = ∫_x^∞ e^-t / t dt`` for ``x >= 0`` (``inf`` at 0, NaN below).

    Numerical Recipes' ``expint``: for ``x <= 1`` the series
    ``-γ - log x - sum_k (-x)^k / (k k!)`` (30 terms), above the continued
    fraction of ``e^x E_1(x)`` (120 steps of the modified Lentz method).
    The derivative is ``-e^-x / x``.

    Examples
    --------
    >>> import numpy as np
    >>> exp1(np.array([0.5, 1.0, 10.0]))
    array([5.59773595e-01, 2.19383934e-01, 4.15696893e-06])
    """
    (x,) = promote_args_inexact(x)
    return _expn(tnp.ones_like(x), x)


def _ei_positive(x):
    """``Ei(x)`` for ``x > 0``: ``γ + log x + sum_k x^k / (k k!)`` to 40, then ``e^x/x sum_k k!/x^k`` (error ~e^-x)."""
    near = tnp.minimum(x, _EI_ASYMPTOTIC_FROM)

    def series_step(k, carry):
        power, total = carry  # power = x^k / k!
        power = power * near / k
        return power, total + power / k

    _, series = _series(_EI_SERIES_TERMS, series_step, (tnp.ones_like(x), tnp.zeros_like(x)))
    far = tnp.maximum(x, _EI_ASYMPTOTIC_FROM)

    def asymptotic_step(k, carry):
        term, total = carry
        term = term * k / far
        return term, total + term

    _, asymptotic = _series(int(_EI_ASYMPTOTIC_FROM), asymptotic_step, (tnp.ones_like(x), tnp.ones_like(x)))
    return tnp.where(tnp.less_equal(x, _EI_ASYMPTOTIC_FROM), _EULER_GAMMA + tnp.log(near) + series,
                     tnp.exp(far) / far * asymptotic)


@autodiff.custom_jvp
def _expi(x):
    positive = tnp.greater(x, 0)
    value = tnp.where(positive, _ei_positive(tnp.where(positive, x, 1.0)), -exp1(tnp.where(positive, 1.0, -x)))
    return tnp.where(tnp.equal(x, 0), -np.inf, tnp.where(tnp.equal(x, np.inf), np.inf, value))


_expi.defjvps(lambda dx, out, x: tnp.exp(x) / x * dx)


@emits_ops
def expi(x):
    """The exponential integral ``Ei(x) = -∫_-x^∞ e^-t / t dt`` (principal value): ``-E_1(-x)`` for ``x < 0``.

    For ``0 < x <= 40`` the power series (140 terms; near its zero at
    0.3725 the error is absolute, ~1e-16), above the asymptotic series to
    40 terms; the derivative is ``e^x / x``.

    Examples
    --------
    >>> import numpy as np
    >>> expi(np.array([-1.0, 1.0, 50.0]))
    array([-2.19383934e-01,  1.89511782e+00,  1.05856369e+20])
    """
    (x,) = promote_args_inexact(x)
    return _expi(x)


# ----------------------------------------------------------------------------
# Hurwitz zeta and Spence's function
# ----------------------------------------------------------------------------

_ZETA_DIRECT_TERMS = 16
_ZETA_CORRECTION_TERMS = 16
# B_258 is the last Bernoulli number below float64's overflow; beyond, |B_2k| grows as 2 (2k)! / (2π)^2k.
_LAST_FINITE_BERNOULLI = 258


@emits_ops
def bernoulli(n: int):
    """The Bernoulli numbers ``B_0, B_1, ..., B_n`` (``B_1 = -1/2``), as scipy's and JAX's ``bernoulli``.

    Exact rationals, rounded once to float64 (scipy's and JAX's come from
    truncated sums of ``ζ(2k)``: off by 2e-12 and 3e-6 at ``B_4``); beyond
    ``B_258`` the even ones overflow to ``±inf``, with the signs ``(-1)^(k+1)``
    of ``B_2k``.

    Parameters
    ----------
    n : int
        The last index, a non-negative Python integer.

    Returns
    -------
    Tracer
        ``n + 1`` float64 values.

    Examples
    --------
    >>> bernoulli(6)
    array([ 1.        , -0.5       ,  0.16666667,  0.        , -0.03333333,
            0.        ,  0.02380952])
    """
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"bernoulli's n must be non-negative, got {n}")
    exact = _bernoulli_numbers(min(n, _LAST_FINITE_BERNOULLI) + 1)
    overflowed = [0.0 if m % 2 else (-1.0) ** (m // 2 + 1) * np.inf for m in range(_LAST_FINITE_BERNOULLI + 1, n + 1)]
    return tnp.asarray(np.array([float(b) for b in exact] + overflowed, np.float64))


@emits_ops
def zeta(x, q=None):
    """The Hurwitz zeta function ``ζ(x, q) = sum_k (k + q)^-x``; ``q=None`` (Riemann's) is not supported, as in JAX.

    Euler-Maclaurin summation (as JAX's derivative and Cephes' ``zeta``): 16
    terms directly, the integral of the rest, and 16 Bernoulli corrections.
    ``inf`` at ``x = 1``, NaN for ``x < 1``; for ``q <= 0``, ``inf`` at the
    poles and NaN unless ``x`` is an integer. A composition of elementwise
    ops, it is differentiable in both arguments.

    Examples
    --------
    >>> import numpy as np
    >>> zeta(np.array([2.0, 3.0]), np.array([1.0, 2.0]))  # pi**2/6, zeta(3) - 1
    array([1.64493407, 0.2020569 ])
    """
    if q is None:
        raise NotImplementedError("Riemann zeta function not implemented; pass q != None to compute the "
                                  "Hurwitz zeta function.")
    x, q = promote_args_inexact(x, q)
    x, q = tnp.broadcast_arrays(x, q)
    pole = tnp.logical_and(tnp.less_equal(q, 0), tnp.equal(q, tnp.floor(q)))
    defined = tnp.logical_and(tnp.greater(x, 1), tnp.logical_or(tnp.greater(q, 0), tnp.equal(x, tnp.floor(x))))
    s = tnp.where(defined, x, 2.0)
    a = tnp.where(tnp.logical_and(defined, tnp.logical_not(pole)), q, 1.0)
    direct = sum(tnp.power(tnp.abs(a + k), -s) * tnp.where(tnp.less(a + k, 0), tnp.cos(math.pi * s), 1.0)
                 for k in range(_ZETA_DIRECT_TERMS))
    tail_start = a + _ZETA_DIRECT_TERMS
    tail_power = tnp.power(tail_start, -s)
    corrections = 0.5 * tail_power + tail_start * tail_power / (s - 1.0)
    rising = tail_power / tail_start  # s (s+1) ... (s+2j-2) / tail_start^(s+2j-1), from j = 1
    for j in range(1, _ZETA_CORRECTION_TERMS + 1):
        if j == 1:
            rising = rising * s
        else:
            rising = rising * (s + 2 * j - 3) * (s + 2 * j - 2) / (tail_start * tail_start)
        corrections = corrections + float(_BERNOULLI[2 * j] / math.factorial(2 * j)) * rising
    value = direct + corrections
    value = tnp.where(tnp.equal(q, np.inf), 0.0, value)
    value = tnp.where(tnp.equal(x, 1), np.inf, tnp.where(defined, value, np.nan))
    return tnp.where(tnp.logical_and(pole, tnp.greater(x, 1)), np.inf, value)


# Cephes' rational function for -log(1 - w) ... : spence(1 - w) = -w P(w) / Q(w) on [-1/2, 1/2].
_SPENCE_P = (4.65128586073990045278e-5, 7.31589045238094711071e-3, 1.33847639578309018650e-1,
             8.79691311754530315341e-1, 2.71149851196553469920e0, 4.25697156008121755724e0,
             3.29771340985225106936e0, 1.00000000000000000126e0)
_SPENCE_Q = (6.90990488912553276999e-4, 2.54043763932544379113e-2, 2.82974860602568089943e-1,
             1.41172597751831069617e0, 3.63800533345137075418e0, 5.03278880143316990390e0,
             3.54771340985225096217e0, 9.99999999999999998740e-1)


@emits_ops
def spence(x):
    """Spence's function ``∫_1^x log(t) / (1 - t) dt`` (the dilogarithm ``Li2(1 - x)``) for ``x >= 0``, NaN below.

    Cephes' algorithm: arguments above 2 are mapped to ``1/x``, then into
    ``[1/2, 3/2]`` by the reflection ``x -> 1 - x`` or ``1/x``, where a rational
    function of ``x - 1`` holds.

    Examples
    --------
    >>> import numpy as np
    >>> spence(np.array([0.0, 1.0, 2.0]))  # pi**2/6, 0, -pi**2/12
    array([ 1.64493407,  0.        , -0.82246703])
    """
    (x,) = promote_args_inexact(x)
    positive = tnp.greater(x, 0)
    y = tnp.where(positive, x, 1.0)
    inverted = tnp.greater(y, 2.0)
    y = tnp.where(inverted, 1.0 / y, y)
    above = tnp.greater(y, 1.5)
    below = tnp.less(y, 0.5)
    w = tnp.where(above, 1.0 / y - 1.0, tnp.where(below, -y, y - 1.0))
    value = -w * power_series(w, _SPENCE_P) / power_series(w, _SPENCE_Q)
    reflected = math.pi ** 2 / 6 - tnp.log(y) * tnp.log1p(-tnp.where(below, y, 0.0)) - value
    value = tnp.where(below, reflected, value)
    log_y = tnp.log(y)
    value = tnp.where(tnp.logical_or(inverted, above), -0.5 * log_y * log_y - value, value)
    value = tnp.where(tnp.equal(x, 0), math.pi ** 2 / 6, value)
    return tnp.where(tnp.logical_not(tnp.greater_equal(x, 0)), np.nan, tnp.where(tnp.equal(x, 1), 0.0, value))


# ----------------------------------------------------------------------------
# Functions in modules of their own
# ----------------------------------------------------------------------------

# These modules import this one (promote_args_inexact, erf, gamma, ...), so a name of theirs is imported on
# first use (importlib, as tensorad.numpy does): no import cycle.
_MODULE_NAMES = {
    "special_integrals": ("fresnel", "owens_t", "sici", "wofz"),
    "special_series": ("bessel_jn", "hyp1f1", "hyp2f1", "lpmn", "lpmn_values", "sph_harm_y"),
}
_MODULE_OF = {name: module for module, names in _MODULE_NAMES.items() for name in names}
__all__ += sorted(_MODULE_OF)


def __getattr__(name: str):
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__package__}.{_MODULE_OF[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_MODULE_OF))
