"""The hypergeometric functions, Bessel functions of integer order, associated Legendre functions and spherical
harmonics of :mod:`tensorad.scipy.special`: functions computed by series and recurrences.

Every loop has a fixed length (``lax.fori_loop`` and ``lax.scan``), every
region of a function is evaluated at arguments moved into it where it is
not the one selected, so all of them run eagerly, under ``jit`` and
``vmap``, and are differentiated through their operations: in every
argument, parameters included.

This module imports :mod:`tensorad.scipy.special`, which exports its names
on first use.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> ta.jit(hyp1f1)(1.0, 2.0, np.array([0.0, 1.0]))  # (e^x - 1)/x
array([1.        , 1.71828183])
"""

from __future__ import annotations

import functools
import math
import operator

import numpy as np

from .. import autodiff, lax
from .. import numpy as tnp
from ..tracing import Tracer, emits_ops
from .special import digamma, evaluate_in_float64, gammaln, gammasgn, promote_args_inexact

__all__ = ["bessel_jn", "hyp1f1", "hyp2f1", "lpmn", "lpmn_values", "sph_harm_y"]

# Terms of the power series, for parameters up to about 20 in size: 2F1's up to z = _GAUSS_SERIES_TO (Cephes'
# bound; 0.9^k falls below 1e-16 after 350 terms, more for large a + b - c), and in 1 - z < 0.1 beyond;
# 1F1's up to x = _KUMMER_ASYMPTOTIC_FROM (its terms peak near k = x; e^600 is still a float64). The
# asymptotic expansion of 1F1 beyond needs x well above the product of its parameters.
_GAUSS_TERMS = 1000
_GAUSS_SERIES_TO = 0.9
_GAUSS_NEAR_ONE_TERMS = 120
_KUMMER_TERMS = 1000
_KUMMER_ASYMPTOTIC_FROM = 600.0
_ASYMPTOTIC_TERMS = 60
# c - a - b this near an integer m takes the logarithmic formula: the other loses eps/|c - a - b - m| (its two
# terms grow as 1/|c - a - b - m| and cancel), this one |c - a - b - m| times the derivative in c.
_INTEGER_TOLERANCE = 1e-8


def _nonpositive_integer(v):
    return tnp.logical_and(tnp.less_equal(v, 0), tnp.equal(v, tnp.floor(v)))


def _any(conditions):
    return functools.reduce(tnp.logical_or, conditions)


def _gamma_ratio(numerators, denominators):
    """``prod Γ(n) / prod Γ(d)`` by ``gammaln`` (no overflow of the factors); 0 where a ``d`` is a pole of Γ.

    A pole is replaced by 1 before ``gammaln`` reads it, so that its NaN sign does not reach the derivative.
    """
    poles = [_nonpositive_integer(d) for d in denominators]
    safe = [tnp.where(pole, 1.0, d) for pole, d in zip(poles, denominators)]
    log = sum(gammaln(n) for n in numerators) - sum(gammaln(d) for d in safe)
    sign = functools.reduce(tnp.multiply, [gammasgn(v) for v in list(numerators) + safe])
    return tnp.where(_any(poles), 0.0, sign * tnp.exp(log))


def _power_series(numerators, denominator, x, terms):
    """``sum_k prod_i (n_i)_k / (denominator)_k x^k / k!`` to ``terms`` terms.

    A term that reached 0 (a numerator a nonpositive integer: a polynomial) stays 0 past a pole of the
    denominator, whose zero factor is replaced by 1.
    """
    def add_term(k, carry):
        term, total = carry
        k = tnp.astype(k, x.dtype)
        for n in numerators:
            term = term * (n + k)
        below = denominator + k
        term = term * x / (tnp.where(tnp.equal(below, 0), 1.0, below) * (k + 1.0))
        return term, total + term

    one = tnp.ones_like(x)
    return lax.fori_loop(0, terms, add_term, (one, one))[1]


# ----------------------------------------------------------------------------
# Confluent hypergeometric function 1F1
# ----------------------------------------------------------------------------

def _kummer_asymptotic(a, b, y):
    """``1F1(a; b; y) e^-y`` for large ``y``: ``Γ(b)/Γ(a) y^(a-b) sum_k (b-a)_k (1-a)_k / (k! y^k)`` (DLMF 13.7.1).

    The series diverges: it is summed while its terms decrease. The other term of the expansion is
    ``e^-y`` smaller.
    """
    def add_term(k, carry):
        term, total, live = carry
        k = tnp.astype(k, y.dtype)
        following = term * (b - a + k) * (1.0 - a + k) / ((k + 1.0) * y)
        live = tnp.logical_and(live, tnp.less(tnp.abs(following), tnp.abs(term)))
        return following, total + tnp.where(live, following, 0.0), live

    one = tnp.ones_like(y)
    _, total, _ = lax.fori_loop(0, _ASYMPTOTIC_TERMS, add_term, (one, one, tnp.full(y.shape, True)))
    return gammasgn(a) * gammasgn(b) * tnp.exp((a - b) * tnp.log(y) + gammaln(b) - gammaln(a)) * total


def _hyp1f1(a, b, x):
    b_pole = _nonpositive_integer(b)
    # A polynomial: a a nonpositive integer that ends the series before b's pole (scipy: a < 0 and a >= b there).
    polynomial = tnp.logical_and(_nonpositive_integer(a), tnp.logical_or(
        ~b_pole, tnp.logical_and(tnp.less(a, 0), tnp.greater_equal(a, b))))
    pole = tnp.logical_and(b_pole, ~polynomial)
    direct = _power_series((tnp.where(polynomial, a, 0.0),), tnp.where(polynomial, b, 1.0),
                           tnp.where(polynomial, x, 0.0), _KUMMER_TERMS)
    # Otherwise Kummer's transformation 1F1(a; b; x) = e^x 1F1(b - a; b; -x) for x < 0: an argument y >= 0,
    # whose terms have one sign where b > a and b > 0; then the series or, far out, the asymptotic expansion.
    negative = tnp.less(x, 0)
    top, y = tnp.where(negative, b - a, a), tnp.abs(x)
    general = ~tnp.logical_or(polynomial, pole)
    summed = tnp.logical_and(general, tnp.logical_or(tnp.less_equal(y, _KUMMER_ASYMPTOTIC_FROM),
                                                     _nonpositive_integer(top)))
    series = _power_series((tnp.where(summed, top, 0.0),), tnp.where(summed, b, 1.0), tnp.where(summed, y, 0.0),
                           _KUMMER_TERMS)
    far = tnp.logical_and(general, ~summed)
    y_far = tnp.where(far, y, 2 * _KUMMER_ASYMPTOTIC_FROM)
    asymptotic = _kummer_asymptotic(tnp.where(far, top, 0.5), tnp.where(far, b, 1.5), y_far)
    # e^y back for x > 0; for x < 0 it cancels Kummer's e^x.
    value = tnp.where(summed, series * tnp.exp(tnp.minimum(x, 0.0)),
                      asymptotic * tnp.exp(tnp.where(negative, 0.0, y_far)))
    value = tnp.where(polynomial, direct, tnp.where(pole, np.inf, value))
    undefined = _any([tnp.isnan(a), tnp.isnan(b), tnp.isnan(x), tnp.isinf(x)])
    return tnp.where(undefined, np.nan, value)


@emits_ops
def hyp1f1(a, b, x):
    """Kummer's confluent hypergeometric function ``1F1(a; b; x) = sum_k (a)_k / (b)_k x^k / k!``.

    For ``x < 0`` Kummer's transformation ``e^x 1F1(b - a; b; -x)``; then the
    power series (1000 terms) up to 600 and the asymptotic expansion beyond,
    in float64 (float32 arguments too, rounded at the end, as scipy). A
    polynomial where ``a`` is a nonpositive integer that ends the series
    before a pole of ``b``; ``inf`` where ``b`` is a nonpositive integer
    otherwise (``b = a = 0`` too, as scipy; JAX gives 1 there); NaN for
    infinite ``x``, as scipy. About 1e-13 relative for parameters up to about
    10 in size, except where ``x < 0`` and ``b < a`` (or ``b < 0``), whose series
    alternates: 1e-12 at ``a - b = 12``, 1e-7 at 20 (JAX's is off by 1e19 there).
    Differentiable in all three arguments.

    Parameters
    ----------
    a, b, x : array_like
        Real arguments, broadcast together.

    Returns
    -------
    Tracer
        ``1F1(a; b; x)``.

    Examples
    --------
    >>> import numpy as np
    >>> hyp1f1(np.array([1.0, 0.5, -2.0]), np.array([1.0, 1.5, 3.0]), np.array([2.0, -1.0, 4.0]))
    array([ 7.3890561 ,  0.74682413, -0.33333333])
    """
    return evaluate_in_float64(_hyp1f1, a, b, x)  # the series cancel and outgrow float32's range


# ----------------------------------------------------------------------------
# Gauss hypergeometric function 2F1
# ----------------------------------------------------------------------------

def _hyp2f1_one_minus(a, b, c, w):
    """``2F1(a, b; c; 1 - w)`` for ``0 < w < 0.1`` and ``c - a - b`` not an integer (AMS 55 15.3.6)."""
    d = c - a - b
    return (_gamma_ratio((c, d), (c - a, c - b)) * _power_series((a, b), 1.0 - d, w, _GAUSS_NEAR_ONE_TERMS)
            + tnp.power(w, d) * _gamma_ratio((c, -d), (a, b))
            * _power_series((c - a, c - b), 1.0 + d, w, _GAUSS_NEAR_ONE_TERMS))


def _hyp2f1_one_minus_integer(a, b, c, w):
    """``2F1(a, b; c; 1 - w)`` for ``0 < w < 0.1`` and ``m = c - a - b`` an integer (AMS 55 15.3.10-12).

    With ``e = |m|``, ``d1 = max(m, 0)``, ``d2 = min(m, 0)`` (Cephes' ``hyt2f1``):
    ``(-1)^e w^d1 Γ(c)/(e! Γ(a+d2) Γ(b+d2)) sum_t P_t R_t`` with ``P_t = (a+d1)_t (b+d1)_t w^t / (t! (e+1)_t)``
    and ``R_t = ψ(1+t) + ψ(1+t+e) - ψ(a+t+d1) - ψ(b+t+d1) - log w``, plus for ``m != 0``
    ``w^d2 Γ(e) Γ(c)/(Γ(a+d1) Γ(b+d1)) sum_(i<e) (a+d2)_i (b+d2)_i w^i / (i! (1-e)_i)``; the ψ by
    their recurrence ``ψ(v+1) = ψ(v) + 1/v``.
    """
    m = tnp.round(c - a - b)
    e, d1, d2 = tnp.abs(m), tnp.maximum(m, 0.0), tnp.minimum(m, 0.0)
    log_w = tnp.log(w)

    def add_log_term(t, carry):
        p, total, psi_t, psi_te, psi_a, psi_b = carry
        t = tnp.astype(t, w.dtype)
        total = total + p * (psi_t + psi_te - psi_a - psi_b - log_w)
        p = p * w * (a + t + d1) * (b + t + d1) / ((t + 1.0) * (t + 1.0 + e))
        return (p, total, psi_t + 1.0 / (1.0 + t), psi_te + 1.0 / (1.0 + t + e), psi_a + 1.0 / (a + t + d1),
                psi_b + 1.0 / (b + t + d1))

    init = (tnp.ones_like(w), tnp.zeros_like(w), digamma(tnp.ones_like(w)), digamma(1.0 + e), digamma(a + d1),
            digamma(b + d1))
    logarithmic = lax.fori_loop(0, _GAUSS_NEAR_ONE_TERMS, add_log_term, init)[1]
    sign = 1.0 - 2.0 * tnp.fmod(e, 2.0)
    value = sign * tnp.power(w, d1) * _gamma_ratio((c,), (e + 1.0, a + d2, b + d2)) * logarithmic

    def add_finite_term(i, carry):
        q, total = carry
        i = tnp.astype(i, w.dtype)
        below = 1.0 - e + i  # 0 at i = e - 1, past the last term
        q = q * w * (a + i + d2) * (b + i + d2) / (tnp.where(tnp.equal(below, 0), 1.0, below) * (i + 1.0))
        return q, total + tnp.where(tnp.less(i + 1.0, e), q, 0.0)

    finite = lax.fori_loop(0, _GAUSS_NEAR_ONE_TERMS, add_finite_term, (tnp.ones_like(w), tnp.ones_like(w)))[1]
    nonzero = tnp.not_equal(m, 0)
    finite = finite * tnp.power(w, d2) * _gamma_ratio((tnp.where(nonzero, e, 1.0), c), (a + d1, b + d1))
    return value + tnp.where(nonzero, finite, 0.0)


def _hyp2f1(a, b, c, x):
    # Symmetric in a and b: a the smaller in size, whose power (1 - x)^-a Pfaff's transformation takes.
    smaller = tnp.less_equal(tnp.abs(a), tnp.abs(b))
    a, b = tnp.where(smaller, a, b), tnp.where(smaller, b, a)
    c_pole = _nonpositive_integer(c)

    def ends(v):  # a nonpositive integer parameter ending the series before c's pole
        return tnp.logical_and(_nonpositive_integer(v), tnp.logical_or(~c_pole, tnp.greater(v, c)))

    polynomial = tnp.logical_or(ends(a), ends(b))
    pole = tnp.logical_and(c_pole, ~polynomial)
    direct = _power_series((tnp.where(polynomial, a, 0.0), tnp.where(polynomial, b, 0.0)),
                           tnp.where(polynomial, c, 1.0), tnp.where(polynomial, x, 0.0), _GAUSS_TERMS)
    # x < 1 otherwise: for x < 0 Pfaff's 2F1(a, b; c; x) = (1 - x)^-a 2F1(a, c - b; c; z), z = x/(x - 1) in (0, 1);
    # then the series for z <= 0.9 (or when it ends), the transformation to 1 - z beyond.
    general = tnp.logical_not(_any([polynomial, pole, tnp.greater_equal(x, 1), tnp.isnan(x), tnp.isinf(x)]))
    x_in = tnp.where(general, x, 0.0)
    negative = tnp.less(x_in, 0)
    z = tnp.where(negative, x_in / (x_in - 1.0), x_in)
    w = tnp.where(negative, 1.0 / (1.0 - x_in), 1.0 - x_in)  # 1 - z, without its rounding
    b_z = tnp.where(negative, c - b, b)
    summed = tnp.logical_and(general, _any([tnp.less_equal(z, _GAUSS_SERIES_TO), _nonpositive_integer(a),
                                            _nonpositive_integer(b_z)]))
    series = _power_series((tnp.where(summed, a, 0.0), tnp.where(summed, b_z, 0.0)), tnp.where(summed, c, 1.0),
                           tnp.where(summed, z, 0.0), _GAUSS_TERMS)
    integer = tnp.less(tnp.abs(c - a - b_z - tnp.round(c - a - b_z)), _INTEGER_TOLERANCE)
    apart = tnp.logical_and(tnp.logical_and(general, ~summed), ~integer)
    one_minus = _hyp2f1_one_minus(tnp.where(apart, a, 0.3), tnp.where(apart, b_z, 0.4), tnp.where(apart, c, 1.9),
                                  tnp.where(apart, w, 0.4))
    logarithmic = tnp.logical_and(tnp.logical_and(general, ~summed), integer)
    one_minus_integer = _hyp2f1_one_minus_integer(tnp.where(logarithmic, a, 0.3), tnp.where(logarithmic, b_z, 0.4),
                                                  tnp.where(logarithmic, c, 1.7), tnp.where(logarithmic, w, 0.4))
    value = tnp.where(summed, series, tnp.where(apart, one_minus, one_minus_integer))
    value = value * tnp.where(negative, tnp.power(1.0 - x_in, -tnp.where(negative, a, 0.0)), 1.0)
    # At x = 1 Gauss's Γ(c) Γ(c-a-b) / (Γ(c-a) Γ(c-b)) where c - a - b > 0, inf otherwise; inf above 1.
    gauss = tnp.logical_and(tnp.equal(x, 1), tnp.greater(c - a - b, 0))
    at_one = _gamma_ratio((tnp.where(gauss, c, 2.0), tnp.where(gauss, c - a - b, 1.0)),
                          (tnp.where(gauss, c - a, 1.0), tnp.where(gauss, c - b, 1.0)))
    value = tnp.where(general, value, tnp.where(gauss, at_one, np.inf))
    value = tnp.where(polynomial, direct, tnp.where(pole, np.inf, value))
    value = tnp.where(tnp.logical_or(tnp.equal(a, 0), tnp.equal(b, 0)), 1.0, value)
    value = tnp.where(tnp.equal(x, 0), 1.0, value)
    undefined = _any([tnp.isnan(a), tnp.isnan(b), tnp.isnan(c), tnp.isnan(x), tnp.equal(x, -np.inf)])
    return tnp.where(undefined, np.nan, value)


@emits_ops
def hyp2f1(a, b, c, x):
    """Gauss's hypergeometric function ``2F1(a, b; c; x) = sum_k (a)_k (b)_k / (c)_k x^k / k!`` for real ``x``.

    Cephes' strategy, as scipy's: for ``x < 0`` Pfaff's transformation to
    ``z = x/(x - 1)`` in ``(0, 1)``; the power series (1000 terms) for ``z <=
    0.9``, beyond the transformation to ``1 - z`` (AMS 55 15.3.6, and 15.3.10-12
    with ψ functions where ``c - a - b`` is within 1e-8 of an integer); in
    float64 (float32 arguments too, rounded at the end). A polynomial where
    ``a`` or ``b`` is a nonpositive integer ending the series before a pole of
    ``c``, for any ``x``; otherwise ``inf`` where ``c`` is a nonpositive
    integer and for ``x > 1``; at ``x = 1`` Gauss's sum where ``c - a - b >
    0``, ``inf`` otherwise; NaN at ``x = -inf``, as scipy. About 1e-13
    relative for parameters up to about 5 in size (scipy's own error reaches
    1e-11), 1e-10 at 10, where the series cancel; finite where scipy gives
    NaN or ``inf`` for a ``c - a - b`` that rounds to an integer.
    Differentiable in all four arguments.

    Parameters
    ----------
    a, b, c, x : array_like
        Real arguments, broadcast together.

    Returns
    -------
    Tracer
        ``2F1(a, b; c; x)``.

    Examples
    --------
    >>> import numpy as np
    >>> hyp2f1(1.0, 1.0, 2.0, np.array([-1.0, 0.5]))  # -log(1 - x)/x
    array([0.69314718, 1.38629436])
    """
    return evaluate_in_float64(_hyp2f1, a, b, c, x)


# ----------------------------------------------------------------------------
# Bessel functions of the first kind of integer order
# ----------------------------------------------------------------------------

def _bessel_jn_miller(z, orders: int, n_iter: int):
    """``J_0 .. J_orders`` at ``z`` (``|z|`` not tiny) by Miller's backward recurrence from order ``n_iter``.

    ``f_k = 2(k+1)/z f_(k+1) - f_(k+2)`` from ``f_(n_iter+1) = 1e-16``, normalized by ``J_0 + 2 sum J_2k = 1``
    (Zhang and Jin's ``BJNDD``, as JAX). The values grow as ``(2k/z)^k`` going down: past ``big`` they are
    scaled down by ``big`` and the scalings counted, so that no order overflows; each output order is scaled
    by the scalings that came after it.
    """
    big = float(np.finfo(z.dtype).max) ** 0.25

    def step(carry, k):
        f2, f1, total, scalings = carry
        f = 2.0 * (tnp.astype(k, z.dtype) + 1.0) * f1 / z - f2
        total = total + tnp.where(tnp.equal(k % 2, 0), 2.0 * f, 0.0)
        scale = tnp.where(tnp.greater(tnp.abs(f), big), tnp.full_like(f, 1.0 / big), 1.0)
        scalings = scalings + tnp.astype(tnp.less(scale, 1.0), z.dtype)
        return (f1 * scale, f * scale, total * scale, scalings), (f * scale, scalings)

    init = (tnp.zeros_like(z), tnp.full_like(z, 1e-16), tnp.zeros_like(z), tnp.zeros_like(z))
    (_, f0, total, scalings), (values, counted) = lax.scan(step, init, np.arange(n_iter, -1, -1))
    # values[i] is order n_iter - i: the lowest orders are the last, reversed.
    low, low_scalings = values[n_iter - orders:][::-1], counted[n_iter - orders:][::-1]
    return low * tnp.power(1.0 / big, scalings - low_scalings) / (total - f0)


@emits_ops
def bessel_jn(z, *, v: int, n_iter: int = 50):
    """The Bessel functions of the first kind ``J_0(z), ..., J_v(z)``, as ``jax.scipy.special.bessel_jn``.

    Miller's backward recurrence from order ``n_iter`` (Zhang and Jin's
    ``BJNDD``, as JAX), normalized by ``J_0 + 2 sum_k J_2k = 1``; values are
    rescaled as they grow, so small ``|z|`` does not overflow (JAX's do below
    1e-5 in float64, 0.5 in float32), and ``|z|`` below ``sqrt(eps)`` takes
    the series' first term ``(z/2)^k / k!`` (``J_0(0) = 1``; JAX gives NaN).
    Accurate while ``n_iter`` is well above ``|z|`` (JAX's rule of thumb:
    ``0.5 log10(6.28 + n) - n log10(1.36 + |z|/n) > 20``; 50 covers ``|z| < 20``).
    Differentiable in ``z`` through the recurrence.

    Parameters
    ----------
    z : array_like
        Real arguments.
    v : int
        The highest order, a non-negative Python integer.
    n_iter : int
        The order the recurrence starts from.

    Returns
    -------
    Tracer
        Shape ``(v + 1,) + z.shape``: ``J_k(z)`` for ``k = 0 .. v``.

    Examples
    --------
    >>> import numpy as np
    >>> bessel_jn(np.array([0.0, 1.0, 10.0]), v=2)
    array([[ 1.        ,  0.76519769, -0.24593576],
           [ 0.        ,  0.44005059,  0.04347275],
           [ 0.        ,  0.11490348,  0.25463031]])
    """
    v, n_iter = operator.index(v), operator.index(n_iter)
    if not 0 <= v <= n_iter:
        raise ValueError(f"bessel_jn needs 0 <= v <= n_iter, got v={v}, n_iter={n_iter}")
    (z,) = promote_args_inexact(z)
    # Below sqrt(eps) the series' first term is exact to rounding (the next is (z/2)²/(k+1) times it), and
    # the recurrence's growth per step, 2(k+1)/|z|, would outrun its rescaling.
    tiny = tnp.less(tnp.abs(z), math.sqrt(float(np.finfo(z.dtype).eps)))
    recurred = _bessel_jn_miller(tnp.where(tiny, 1.0, z), v, n_iter)
    orders = np.arange(v + 1).reshape((v + 1,) + (1,) * z.ndim)
    factorials = np.cumprod(np.maximum(orders, 1), axis=0).astype(np.float64)
    return tnp.where(tiny, tnp.astype(tnp.power(z / 2.0, orders) / factorials, z.dtype), recurred)


# ----------------------------------------------------------------------------
# Associated Legendre functions and spherical harmonics
# ----------------------------------------------------------------------------

def _legendre_table(orders: int, degrees: int, z, normalized: bool):
    """``P_l^m(z)`` for ``m <= orders``, ``l <= degrees``: shape ``(orders + 1, degrees + 1) + z.shape``.

    With the Condon-Shortley phase ``(-1)^m``, as scipy's and JAX's; ``normalized`` multiplies by
    ``sqrt((2l+1) (l-m)! / (4π (l+m)!))``. The diagonal ``P_m^m`` is ``c_m (1 - z²)^(m/2)`` (``c_m =
    (-1)^m (2m-1)!!``, or its normalized value); each degree follows from the two before it,
    ``P_l^m = d0 z P_(l-1)^m - d1 P_(l-2)^m`` (one ``lax.scan`` over the degrees, all orders at once), whose
    coefficients are 0 where ``m >= l``. ``1 - z²`` is written ``(1 - z)(1 + z)`` and the power taken of it,
    not of its square root, so that the derivatives in ``z`` stay finite at ``±1`` from order 2.
    """
    m = np.arange(orders + 1, dtype=np.float64)
    if normalized:
        diagonal_factor = np.concatenate([[0.5 / math.sqrt(math.pi)], np.cumprod(-np.sqrt(1.0 + 0.5 / m[1:]))
                                          * 0.5 / math.sqrt(math.pi)])
    else:
        diagonal_factor = np.concatenate([[1.0], np.cumprod(1.0 - 2.0 * m[1:])])
    shape = (orders + 1,) + (1,) * z.ndim
    power = tnp.power((1.0 - z) * (1.0 + z), np.reshape(m / 2.0, shape))
    # Order 0 has no factor in z (its power's derivative would be 0 * inf at ±1).
    diagonal = np.reshape(diagonal_factor, shape) * tnp.where(np.reshape(m == 0, shape), 1.0, power)
    l_mat, m_mat = np.meshgrid(np.arange(degrees + 1, dtype=np.float64), m, indexing="ij")
    below = m_mat < l_mat
    with np.errstate(divide="ignore", invalid="ignore"):
        if normalized:
            d0 = np.sqrt((4.0 * l_mat ** 2 - 1.0) / (l_mat ** 2 - m_mat ** 2))
            d1 = np.sqrt((2.0 * l_mat + 1.0) * ((l_mat - 1.0) ** 2 - m_mat ** 2)
                         / ((2.0 * l_mat - 3.0) * (l_mat ** 2 - m_mat ** 2)))
        else:
            d0 = (2.0 * l_mat - 1.0) / (l_mat - m_mat)
            d1 = (l_mat + m_mat - 1.0) / (l_mat - m_mat)
    # Row l: the coefficients of degree l for every order (0 at and above the diagonal; d1 also 0 at m = l - 1,
    # where P_(l-2)^m is 0), and where degree l is the diagonal.
    d0 = np.where(below, d0, 0.0).reshape((degrees + 1,) + shape)
    d1 = np.where(below & (m_mat < l_mat - 1), d1, 0.0).reshape((degrees + 1,) + shape)
    on_diagonal = (m_mat == l_mat).reshape((degrees + 1,) + shape)

    def degree(carry, row):
        previous, before = carry
        c0, c1, at_diagonal = row
        current = tnp.where(at_diagonal, diagonal, c0 * z * previous - c1 * before)
        return (current, previous), current

    zeros = tnp.zeros((orders + 1,) + z.shape, z.dtype)
    _, table = lax.scan(degree, (zeros, zeros), (d0.astype(z.dtype), d1.astype(z.dtype), on_diagonal))
    return tnp.moveaxis(table, 0, 1)


def _legendre_arguments(m, n, z):
    m, n = operator.index(m), operator.index(n)
    if m < 0 or n < 0:
        raise ValueError(f"the highest order and degree must be non-negative, got m={m}, n={n}")
    (z,) = promote_args_inexact(z)
    return m, n, z


@emits_ops
def lpmn_values(m: int, n: int, z, is_normalized: bool):
    """The associated Legendre functions ``P_l^k(z)`` for orders ``k <= m`` and degrees ``l <= n``, as JAX.

    With the Condon-Shortley phase ``(-1)^k``; ``is_normalized`` multiplies by
    ``sqrt((2l+1) (l-k)! / (4π (l+k)!))``, the normalization of spherical
    harmonics. ``P_l^k = 0`` for ``k > l``. By the three-term recurrence in the
    degree from the diagonal ``P_k^k`` (JAX's; see ``_legendre_table``). JAX
    (which deprecates it) needs ``m == n`` and a 1-D ``z``; any ``m``, ``n`` and
    shape of ``z`` here.

    Parameters
    ----------
    m, n : int
        The highest order and degree, Python integers.
    z : array_like
        Points in ``[-1, 1]``.
    is_normalized : bool
        Whether to normalize.

    Returns
    -------
    Tracer
        Shape ``(m + 1, n + 1) + z.shape``.

    Examples
    --------
    >>> import numpy as np
    >>> lpmn_values(1, 2, np.array([0.5]), False)[:, :, 0]  # [[1, z, (3z²-1)/2], [0, -sqrt(1-z²), -3z sqrt(1-z²)]]
    array([[ 1.        ,  0.5       , -0.125     ],
           [ 0.        , -0.8660254 , -1.29903811]])
    """
    m, n, z = _legendre_arguments(m, n, z)
    return _legendre_table(m, n, z, bool(is_normalized))


@emits_ops
def lpmn(m: int, n: int, z):
    """The associated Legendre functions ``P_l^k(z)`` (unnormalized) and their derivatives in ``z``, as JAX.

    The values are :func:`lpmn_values`'; the derivatives are their forward-mode
    derivative (``jvp``) through the recurrence: finite at ``z = ±1`` except
    for order 1, whose slope is infinite there (``inf``, NaN from degree 3).

    Parameters
    ----------
    m, n : int
        The highest order and degree, Python integers.
    z : array_like
        Points in ``[-1, 1]``.

    Returns
    -------
    values, derivatives : Tracer
        Each of shape ``(m + 1, n + 1) + z.shape``.

    Examples
    --------
    >>> import numpy as np
    >>> p, dp = lpmn(0, 2, np.array([0.5]))
    >>> p[0, :, 0], dp[0, :, 0]  # P_2 = (3z²-1)/2, P_2' = 3z
    (array([ 1.   ,  0.5  , -0.125]), array([0. , 1. , 1.5]))
    """
    m, n, z = _legendre_arguments(m, n, z)
    return autodiff.jvp(lambda z: _legendre_table(m, n, z, False), (z,), (tnp.ones_like(z),))


@emits_ops
def _sph_harm_y(n, m, theta, phi, n_max: int):
    """``Y_n^m(θ, φ)`` elementwise: the normalized ``P_n^|m|(cos θ)`` by the recurrence in the degree from
    ``P_|m|^|m|``, ``n_max`` steps each applied where the degree has not reached ``n``."""
    n, m, theta, phi = tnp.broadcast_arrays(*promote_args_inexact(n, m, theta, phi))
    order = tnp.abs(m)
    z, s = tnp.cos(theta), tnp.sin(theta)
    # P_k^k = (-1)^k sqrt((2k+1)/(4π) Γ(k+1/2) / (√π k!)) sin(θ)^k.
    log_factor = 0.5 * (tnp.log((2.0 * order + 1.0) / (4 * math.pi)) + gammaln(order + 0.5) - gammaln(order + 1.0)
                        - 0.5 * math.log(math.pi))
    diagonal = (1.0 - 2.0 * tnp.fmod(order, 2.0)) * tnp.exp(log_factor) * tnp.power(s, order)

    def raise_degree(j, carry):
        previous, before = carry
        degree = order + tnp.astype(j, z.dtype)
        active = tnp.less_equal(degree, n)
        d0 = tnp.sqrt((4.0 * degree ** 2 - 1.0) / (degree ** 2 - order ** 2))
        d1 = tnp.sqrt(((degree - 1.0) ** 2 - order ** 2) / (4.0 * (degree - 1.0) ** 2 - 1.0))
        current = d0 * (z * previous - d1 * before)
        return tnp.where(active, current, previous), tnp.where(active, previous, before)

    legendre, _ = lax.fori_loop(1, n_max + 1, raise_degree, (diagonal, tnp.zeros_like(diagonal)))
    legendre = tnp.where(tnp.greater(order, n), 0.0, legendre)
    # Y_n^-k = (-1)^k conj(Y_n^k): the same magnitude times e^(-ikφ) and that sign.
    sign = tnp.where(tnp.less(m, 0), 1.0 - 2.0 * tnp.fmod(order, 2.0), 1.0)
    real, imaginary = sign * legendre * tnp.cos(m * phi), sign * legendre * tnp.sin(m * phi)
    return lax.complex(real, imaginary)


def sph_harm_y(n, m, theta, phi, diff_n=None, n_max=None):
    """The spherical harmonics ``Y_n^m(θ, φ) = N P_n^m(cos θ) e^(imφ)``, as scipy's and JAX's ``sph_harm_y``.

    ``θ`` is the polar angle, ``φ`` the azimuth; normalized to 1 on the sphere,
    with the Condon-Shortley phase; ``Y_n^-m = (-1)^m conj(Y_n^m)``; 0 for
    ``|m| > n``. Elementwise (arguments broadcast, as scipy; JAX needs 1-D),
    by the recurrence in the degree from ``P_|m|^|m|``: ``n_max`` steps, ``n_max``
    the largest ``n`` (computed from ``n`` when it is not traced, else to be
    given, as JAX). ``diff_n``, scipy's derivative order, must be None or 0 (JAX
    refuses it too). Differentiable in ``θ`` and ``φ``.

    Parameters
    ----------
    n, m : array_like
        Integer degrees ``n >= 0`` and orders.
    theta, phi : array_like
        The polar and azimuthal angles.
    diff_n : None or 0
        Derivatives are not supported.
    n_max : int, optional
        The largest degree in ``n``.

    Returns
    -------
    Tracer
        Complex values (complex128 for float64 angles).

    Examples
    --------
    >>> import numpy as np
    >>> sph_harm_y(np.array([0, 1]), np.array([0, -1]), np.pi / 2, np.pi / 4)  # 1/sqrt(4π), sqrt(3/8π) e^(-iπ/4)
    array([0.28209479+0.j        , 0.24430126-0.24430126j])
    """
    if diff_n not in (None, 0):
        raise NotImplementedError("sph_harm_y's derivatives (diff_n) are not supported, as in JAX")
    if n_max is None:
        if isinstance(n, Tracer):
            raise ValueError("sph_harm_y needs n_max (the largest degree) when n is traced, as in JAX")
        n_max = int(np.max(np.asarray(n))) if np.size(n) else 0
    return _sph_harm_y(n, m, theta, phi, operator.index(n_max))
