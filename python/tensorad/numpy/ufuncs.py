"""numpy's elementwise functions composed of the ``arith``/``math`` ones: tests for non-finite values,
angle conversions, ``hypot`` and ``select``.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.nan_to_num(x, nan=-1.0, posinf=9.0))(np.array([np.nan, np.inf, 2.0]))
array([-1.,  9.,  2.])
"""

from __future__ import annotations

import math
import operator

import numpy as np

from tensorad.dialects import builder

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (absolute, add, all as reduce_all, asarray, astype, bool_, broadcast_to, ceil, copysign, divide, equal,
               exp, exp2, floor, floor_divide, full, greater, greater_equal, imag, inf, int32, int64, less, less_equal,
               log1p, log2, logical_and, logical_not, logical_or, maximum, minimum, multiply, negative, not_equal,
               power, real, remainder, round as round_half_even, sin, sqrt, square, subtract, where)
from .bessel import scaled_bessel


def _floating(x) -> Tracer:
    """``x`` as a float array (integers in float64, like numpy's float ufunc loops)."""
    x = asarray(x)
    return astype(x, dtypes.float_of(x.dtype))


@emits_ops
def isnan(x) -> Tracer:
    """True where ``x`` is NaN (never for integers and booleans).

    Examples
    --------
    >>> isnan(np.array([1.0, np.nan]))
    array([False,  True])
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        return logical_or(isnan(real(x)), isnan(imag(x)))
    return not_equal(x, x) if dtypes.is_float(x.dtype) else full(x.shape, False, bool_)


@emits_ops
def isinf(x) -> Tracer:
    """True where ``x`` is positive or negative infinity.

    Examples
    --------
    >>> isinf(np.array([-np.inf, 0.0, np.nan]))
    array([ True, False, False])
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        return logical_or(isinf(real(x)), isinf(imag(x)))
    return equal(absolute(x), inf) if dtypes.is_float(x.dtype) else full(x.shape, False, bool_)


@emits_ops
def isfinite(x) -> Tracer:
    """True where ``x`` is neither infinite nor NaN.

    Examples
    --------
    >>> isfinite(np.array([np.inf, 1.0, np.nan]))
    array([False,  True, False])
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        return logical_and(isfinite(real(x)), isfinite(imag(x)))
    return less(absolute(x), inf) if dtypes.is_float(x.dtype) else full(x.shape, True, bool_)


@emits_ops
def nan_to_num(x, copy: bool = True, nan: float = 0.0, posinf=None, neginf=None) -> Tracer:
    """``x`` with NaN replaced by ``nan`` and infinities by ``posinf``/``neginf`` (default: the largest
    and smallest finite values of the dtype); integers are returned unchanged, complex numbers have
    their real and imaginary parts replaced separately.

    Examples
    --------
    >>> nan_to_num(np.array([np.nan, -np.inf], np.float32))
    array([ 0.0000000e+00, -3.4028235e+38], dtype=float32)
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        parts = (nan_to_num(part, copy, nan, posinf, neginf) for part in (real(x), imag(x)))
        return add(next(parts), multiply(next(parts), 1j))
    if not dtypes.is_float(x.dtype):
        return x
    info = np.finfo(x.dtype)
    # Python floats are weak: the replacements take the dtype of x, as numpy's do.
    posinf = float(info.max if posinf is None else posinf)
    neginf = float(info.min if neginf is None else neginf)
    out = where(not_equal(x, x), float(nan), x)
    out = where(equal(x, np.inf), posinf, out)
    return where(equal(x, -np.inf), neginf, out)


@emits_ops
def rad2deg(x) -> Tracer:
    """Radians to degrees: ``x * 180 / pi``.

    Examples
    --------
    >>> rad2deg(np.pi / 2)
    array(90.)
    """
    return multiply(_floating(x), 180.0 / np.pi)


@emits_ops
def deg2rad(x) -> Tracer:
    """Degrees to radians: ``x * pi / 180``.

    Examples
    --------
    >>> deg2rad(np.array([180.0]))
    array([3.14159265])
    """
    return multiply(_floating(x), np.pi / 180.0)


degrees, radians = rad2deg, deg2rad


@emits_ops
def hypot(x1, x2) -> Tracer:
    """``sqrt(x1**2 + x2**2)`` without overflow or underflow in the squares (scaled by the larger).

    As in JAX, the derivative at ``(0, 0)`` is finite, and an infinity wins
    over NaN, as in numpy.

    Examples
    --------
    >>> hypot(np.array([3.0, 1e300]), np.array([4.0, 1e300]))
    array([5.00000000e+000, 1.41421356e+300])
    """
    dtype = dtypes.float_of(dtypes.result_type(x1, x2))
    if dtype.kind == "c":
        raise TypeError("hypot is not defined for complex numbers (numpy's ufunc has no complex loop)")
    x, y = absolute(astype(asarray(x1), dtype)), absolute(astype(asarray(x2), dtype))
    big, small = maximum(x, y), minimum(x, y)
    ratio = divide(small, where(equal(big, 0), 1, big))
    out = multiply(big, sqrt(1 + square(ratio)))
    return where(logical_or(equal(x, inf), equal(y, inf)), inf, out)


@emits_ops
def select(condlist, choicelist, default=0) -> Tracer:
    """The entry of the first choice whose condition holds, else ``default`` (all broadcast together).

    Examples
    --------
    >>> x = np.arange(5.0)
    >>> select([x < 1, x > 3], [-x, x * 10], default=7.0)
    array([-0.,  7.,  7.,  7., 40.])
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if not condlist:
        raise ValueError("select with an empty condition list is not possible")
    conditions = [asarray(c) for c in condlist]
    for i, c in enumerate(conditions):
        if c.dtype != bool_:
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    dtype = dtypes.result_type(*choicelist, default)
    out = astype(asarray(default), dtype)
    for condition, choice in reversed(list(zip(conditions, choicelist))):
        out = where(condition, astype(asarray(choice), dtype), out)
    return out


# ----------------------------------------------------------------------------
# Logarithms of sums, sinc, Bessel's I0
# ----------------------------------------------------------------------------

def real_floating_operands(x1, x2, name: str) -> tuple:
    """``x1`` and ``x2`` in their common float dtype (integers in float64), broadcast together; ``name``
    (the caller's) refuses complex numbers."""
    dtype = dtypes.float_of(dtypes.result_type(x1, x2))
    if dtype.kind == "c":
        raise TypeError(f"{name} is not supported for complex numbers")
    a, b = astype(asarray(x1), dtype), astype(asarray(x2), dtype)
    shape = np.broadcast_shapes(a.shape, b.shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


def _log_of_sum(x1, x2, name: str, log_one_plus) -> Tracer:
    """``larger + log_one_plus(smaller - larger)``: ``log(b**x1 + b**x2)`` without overflow.

    The larger operand is chosen by one comparison, so at ``x1 == x2`` the
    derivatives are ``1/2`` each, as JAX's. Equal infinities (and NaNs) make
    ``x1 - x2`` NaN: the result is then ``x1 + x2``, and the other branch
    sees a difference of 0, so that its derivatives stay finite.
    """
    a, b = real_floating_operands(x1, x2, name)
    delta = subtract(a, b)
    undefined = not_equal(delta, delta)
    delta = where(undefined, 0.0, delta)
    a_larger = greater_equal(delta, 0)
    spread = where(a_larger, negative(delta), delta)  # -|x1 - x2|, a function of both operands
    out = add(where(a_larger, a, b), log_one_plus(spread))
    return where(undefined, add(a, b), out)


@emits_ops
def logaddexp(x1, x2) -> Tracer:
    """``log(exp(x1) + exp(x2))`` without overflow; the derivatives are the softmax weights of ``x1`` and ``x2``.

    Examples
    --------
    >>> logaddexp(np.array([1000.0, -np.inf]), np.array([1000.0, -np.inf]))
    array([1000.69314718,         -inf])
    """
    return _log_of_sum(x1, x2, "logaddexp", lambda spread: log1p(exp(spread)))


@emits_ops
def logaddexp2(x1, x2) -> Tracer:
    """``log2(2**x1 + 2**x2)`` without overflow.

    Examples
    --------
    >>> logaddexp2(np.array([3.0, 1000.0]), np.array([3.0, 0.0]))
    array([   4., 1000.])
    """
    return _log_of_sum(x1, x2, "logaddexp2", lambda spread: divide(log1p(exp2(spread)), float(np.log(2))))


# Below it, sin(t) / t is its Taylor polynomial 1 - t**2/6 + t**4/120 to double precision (the next term,
# t**6/5040, is under 2e-16 relative).
_SINC_TAYLOR_BELOW = 1e-2


@emits_ops
def sinc(x) -> Tracer:
    """The normalized sinc function ``sin(pi x) / (pi x)``, 1 at 0.

    Near 0 it is a Taylor polynomial, so that its derivatives there (0, then
    ``-pi**2 / 3``, ...) are exact, as JAX's.

    Examples
    --------
    >>> sinc(np.array([0.0, 0.5, 1.0]))
    array([1.00000000e+00, 6.36619772e-01, 3.89817183e-17])
    """
    t = multiply(_floating(x), np.pi)
    near_zero = less(absolute(t), _SINC_TAYLOR_BELOW)
    t2 = square(t)
    taylor = subtract(1.0, multiply(t2, subtract(1.0 / 6.0, divide(t2, 120.0))))
    safe = where(near_zero, 1.0, t)  # no 0 / 0 in the branch not taken, nor in its derivative
    return where(near_zero, taylor, divide(sin(safe), safe))


@emits_ops
def i0(x) -> Tracer:
    """The modified Bessel function of the first kind of order 0 (numpy's Chebyshev expansions).

    Examples
    --------
    >>> i0(np.array([0.0, 1.0, -10.0]))
    array([1.00000000e+00, 1.26606588e+00, 2.81571663e+03])
    """
    x = _floating(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 is not supported for complex numbers")
    return multiply(exp(absolute(x)), scaled_bessel(x, 0))


# ----------------------------------------------------------------------------
# Signs, rounding, infinities, real and complex
# ----------------------------------------------------------------------------

@emits_ops
def signbit(x) -> Tracer:
    """True where the sign bit of ``x`` is set: ``-0.0``, negative NaN and negative numbers.

    Examples
    --------
    >>> signbit(np.array([-0.0, 0.0, -np.nan, -2.0]))
    array([ True, False,  True,  True])
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("signbit is not supported for complex numbers")
    if dtypes.is_float(x.dtype):
        return less(copysign(1.0, x), 0)  # copysign reads the sign bit, of zeros and NaNs too
    return less(x, 0) if x.dtype.kind in "iu" else full(x.shape, False, bool_)


@emits_ops
def rint(x) -> Tracer:
    """Round to the nearest integer, half to even; integers and booleans become float64, as in numpy.

    Examples
    --------
    >>> rint(np.array([0.5, 1.5, -2.5, 2.7]))
    array([ 0.,  2., -2.,  3.])
    """
    x = asarray(x)
    if x.dtype.kind == "c":
        return Tracer.of(builder.make_complex(rint(real(x)).value, rint(imag(x)).value))
    return round_half_even(_floating(x))


@emits_ops
def around(a, decimals: int = 0) -> Tracer:
    """Round to ``decimals`` decimal places, half to even, as ``numpy.round`` (which :func:`round` calls).

    Floats are scaled by ``10**decimals``, rounded to an integer and scaled
    back, as numpy and JAX do (so ``2.675``, stored as ``2.67499...``, gives
    ``2.68``: its product with 100 rounds to 267.5; Python's ``round`` gives
    2.67); negative ``decimals`` divide by ``10**-decimals`` first and round
    to tens, hundreds, ... Integers stay integers: unchanged for
    ``decimals >= 0``, rounded half to even to a multiple of ``10**-decimals``
    otherwise (as numpy; JAX refuses them). ``decimals`` beyond the dtype's
    range of exponents returns floats unchanged (JAX's rule; numpy gives NaN),
    and integers 0 when ``10**-decimals`` is beyond theirs. Complex numbers
    round their two parts.

    Examples
    --------
    >>> around(np.array([1.234, 2.5]), 1), around(np.array([15, 25, -15]), -1)
    (array([1.2, 2.5]), array([ 20,  20, -20]))
    >>> around(np.array([1250.0, 1350.0, -0.5]), -2)
    array([1200., 1400.,   -0.])
    """
    decimals = operator.index(decimals)  # a Python integer, as numpy and JAX require
    x = asarray(a)
    if x.dtype.kind == "c":
        return Tracer.of(builder.make_complex(around(real(x), decimals).value, around(imag(x), decimals).value))
    if decimals == 0 or x.dtype == bool_ or (decimals > 0 and not dtypes.is_float(x.dtype)):
        return round_half_even(x)  # to an integer; integers and booleans unchanged
    if not dtypes.is_float(x.dtype):
        factor = 10 ** -decimals
        if factor > np.iinfo(x.dtype).max:  # every value is nearer 0 than factor (or would overflow)
            return multiply(x, 0)
        quotient = floor_divide(x, factor)
        twice_rest = multiply(subtract(x, multiply(quotient, factor)), 2)
        odd = not_equal(remainder(quotient, 2), 0)
        up = logical_or(greater(twice_rest, factor), logical_and(equal(twice_rest, factor), odd))
        return multiply(add(quotient, astype(up, x.dtype)), factor)
    if abs(decimals) > math.log10(np.finfo(x.dtype).max):
        # 10**|decimals| overflows the dtype: rounding that fine leaves every value as it is (JAX's rule),
        # and that coarse makes every finite value 0.
        return x if decimals > 0 else where(isfinite(x), multiply(x, 0.0), x)
    if decimals > 0:  # numpy scales up by a (nearly) exact power of ten, or down for negative decimals
        return divide(round_half_even(multiply(x, 10.0 ** decimals)), 10.0 ** decimals)
    return multiply(round_half_even(divide(x, 10.0 ** -decimals)), 10.0 ** -decimals)


@emits_ops
def fabs(x) -> Tracer:
    """Absolute value as a float (integers in float64); complex numbers are refused, as in numpy.

    Examples
    --------
    >>> fabs(np.array([-2, 3]))
    array([2., 3.])
    """
    x = _floating(x)
    if x.dtype.kind == "c":
        raise TypeError("fabs is not supported for complex numbers (use absolute)")
    return absolute(x)


def _infinity_test(x, infinity: float, name: str) -> Tracer:
    x = asarray(x)
    if x.dtype.kind == "c":
        raise TypeError(f"{name} is not supported for complex numbers")
    return equal(x, infinity) if dtypes.is_float(x.dtype) else full(x.shape, False, bool_)


@emits_ops
def isposinf(x) -> Tracer:
    """True where ``x`` is positive infinity.

    Examples
    --------
    >>> isposinf(np.array([np.inf, -np.inf, np.nan]))
    array([ True, False, False])
    """
    return _infinity_test(x, inf, "isposinf")


@emits_ops
def isneginf(x) -> Tracer:
    """True where ``x`` is negative infinity.

    Examples
    --------
    >>> isneginf(np.array([np.inf, -np.inf, np.nan]))
    array([False,  True, False])
    """
    return _infinity_test(x, -inf, "isneginf")


@emits_ops
def isreal(x) -> Tracer:
    """True where the imaginary part of ``x`` is 0 (everywhere for a real array).

    Examples
    --------
    >>> isreal(np.array([1 + 0j, 1j]))
    array([ True, False])
    """
    return equal(imag(x), 0)


@emits_ops
def iscomplex(x) -> Tracer:
    """True where the imaginary part of ``x`` is not 0 (nowhere for a real array).

    Examples
    --------
    >>> iscomplex(np.array([1 + 0j, 1j]))
    array([False,  True])
    """
    return not_equal(imag(x), 0)


# ----------------------------------------------------------------------------
# Powers, mantissas and exponents, neighbouring floats
# ----------------------------------------------------------------------------

pow = power  # noqa: A001 (numpy 2's name)


@emits_ops
def float_power(x1, x2) -> Tracer:
    """``x1 ** x2`` in a float dtype: integers in float64, float32 kept (as JAX; numpy computes in float64).

    Examples
    --------
    >>> float_power(np.array([2, 4]), -1)
    array([0.5 , 0.25])
    """
    dtype = dtypes.float_of(dtypes.result_type(x1, x2))
    return power(astype(asarray(x1), dtype), astype(asarray(x2), dtype))


@emits_ops
def heaviside(x1, x2) -> Tracer:
    """The Heaviside step: 0 where ``x1 < 0``, ``x2`` where ``x1 == 0``, 1 where ``x1 > 0`` (NaN stays NaN).

    Examples
    --------
    >>> heaviside(np.array([-1.0, 0.0, 2.0, np.nan]), 0.5)
    array([0. , 0.5, 1. , nan])
    """
    a, b = real_floating_operands(x1, x2, "heaviside")
    return where(less(a, 0), 0.0, where(greater(a, 0), 1.0, where(not_equal(a, a), a, b)))


def _power_of_two(exponent: Tracer, dtype) -> Tracer:
    """``2.0 ** exponent`` (an integer array in the float range of ``dtype``), exactly."""
    return exp2(astype(exponent, dtype))


@emits_ops
def frexp(x) -> tuple:
    """The mantissa in ``[0.5, 1)`` (signed) and the int32 exponent of ``x``: ``x == m * 2**e``.

    Zeros, infinities and NaNs are their own mantissa, with exponent 0. The
    mantissa's derivative is ``2**-e``.

    Examples
    --------
    >>> frexp(np.array([8.0, -0.75, 0.0]))
    (array([ 0.5 , -0.75,  0.  ]), array([4, 0, 0], dtype=int32))
    """
    x = _floating(x)
    if x.dtype.kind == "c":
        raise TypeError("frexp is not supported for complex numbers")
    special = logical_or(equal(x, 0), logical_not(less(absolute(x), inf)))
    safe = where(special, 1.0, x)
    guess = add(astype(floor(log2(absolute(safe))), int64), 1)  # may be one off next to powers of two
    # Two halves of the scaling, each a power of two inside the float range even for the largest and the
    # subnormal numbers; dividing by them is exact.
    half = floor_divide(guess, 2)
    mantissa = divide(divide(safe, _power_of_two(half, x.dtype)), _power_of_two(subtract(guess, half), x.dtype))
    too_big, too_small = greater_equal(absolute(mantissa), 1.0), less(absolute(mantissa), 0.5)
    mantissa = where(too_big, multiply(mantissa, 0.5), where(too_small, multiply(mantissa, 2.0), mantissa))
    exponent = add(guess, subtract(astype(too_big, int64), astype(too_small, int64)))
    return where(special, x, mantissa), astype(where(special, 0, exponent), int32)


# Beyond this many binary orders of magnitude any float result has overflowed or underflowed.
_LDEXP_EXPONENT_LIMIT = 2200


@emits_ops
def ldexp(x1, x2) -> Tracer:
    """``x1 * 2**x2`` for integer ``x2``, rounded once (no overflow or underflow on the way).

    Examples
    --------
    >>> ldexp(np.array([1.0, 3.0, 0.5]), np.array([3, -1, 1024]))
    array([8.00000000e+000, 1.50000000e+000, 8.98846567e+307])
    """
    x2 = asarray(x2)
    if x2.dtype.kind not in "iu":
        raise TypeError(f"ldexp needs integer exponents, got {x2.dtype.name}")
    x1 = _floating(x1)
    if x1.dtype.kind == "c":
        raise TypeError("ldexp is not supported for complex numbers")
    mantissa, exponent = frexp(x1)
    total = add(astype(exponent, int64), minimum(maximum(astype(x2, int64), -_LDEXP_EXPONENT_LIMIT),
                                                 _LDEXP_EXPONENT_LIMIT))
    half = floor_divide(total, 2)
    out = multiply(multiply(mantissa, _power_of_two(half, x1.dtype)),
                   _power_of_two(subtract(total, half), x1.dtype))
    return where(logical_or(equal(x1, 0), logical_not(less(absolute(x1), inf))), x1, out)


@emits_ops
def modf(x) -> tuple:
    """The fractional and the integral parts of ``x``, both with the sign of ``x`` (``modf(inf)`` is ``(0, inf)``,
    as numpy's).

    Examples
    --------
    >>> modf(np.array([2.5, -3.0, -np.inf]))
    (array([ 0.5, -0. , -0. ]), array([ 2., -3., -inf]))
    """
    x = _floating(x)
    whole = where(greater_equal(x, 0), floor(x), ceil(x))
    fraction = where(equal(absolute(x), inf), 0.0, subtract(x, whole))
    return copysign(fraction, x), whole


# ----------------------------------------------------------------------------
# Comparisons within tolerances
# ----------------------------------------------------------------------------

@emits_ops
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False) -> Tracer:
    """True where ``|a - b| <= atol + rtol * |b|`` (equal infinities match; NaNs only with ``equal_nan``).

    Examples
    --------
    >>> isclose(np.array([1.0, np.inf, np.nan]), np.array([1.0 + 1e-9, np.inf, np.nan]))
    array([ True,  True, False])
    """
    dtype = dtypes.float_of(dtypes.result_type(a, b))
    a, b = astype(asarray(a), dtype), astype(asarray(b), dtype)
    tolerance_dtype = dtypes.real_dtype(dtype)
    rtol, atol = astype(asarray(rtol), tolerance_dtype), astype(asarray(atol), tolerance_dtype)
    within = less_equal(absolute(subtract(a, b)), add(atol, multiply(rtol, absolute(b))))
    out = logical_or(equal(a, b), logical_and(isfinite(b), within))
    if equal_nan:
        out = logical_or(out, logical_and(isnan(a), isnan(b)))
    return out


@emits_ops
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan: bool = False) -> Tracer:
    """Whether :func:`isclose` holds everywhere: a 0-d bool array, as JAX's.

    Examples
    --------
    >>> allclose(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-7]))
    array(True)
    """
    return reduce_all(isclose(a, b, rtol, atol, equal_nan))


@emits_ops
def array_equal(a1, a2, equal_nan: bool = False) -> Tracer:
    """Whether ``a1`` and ``a2`` have the same shape and elements (a 0-d bool array).

    Examples
    --------
    >>> array_equal(np.array([1.0, np.nan]), np.array([1.0, np.nan]), equal_nan=True)
    array(True)
    """
    a1, a2 = asarray(a1), asarray(a2)
    if a1.shape != a2.shape:
        return asarray(False)
    same = equal(a1, a2)
    if equal_nan:
        same = logical_or(same, logical_and(isnan(a1), isnan(a2)))
    return reduce_all(same)


@emits_ops
def array_equiv(a1, a2) -> Tracer:
    """Whether ``a1`` and ``a2`` broadcast together and are equal everywhere (a 0-d bool array).

    Examples
    --------
    >>> array_equiv(np.array([1, 2]), np.array([[1, 2], [1, 2]]))
    array(True)
    """
    a1, a2 = asarray(a1), asarray(a2)
    try:
        np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return asarray(False)
    return reduce_all(equal(a1, a2))
