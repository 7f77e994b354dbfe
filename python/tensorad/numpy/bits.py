"""numpy's functions of the bits of numbers, composed from :mod:`tensorad.lax`'s: integer shifts and bit
counts, ``gcd`` and ``lcm`` (Euclid's algorithm in a ``while_loop``), and the float next to a float
(``nextafter``, ``spacing``).

They live apart from ``ufuncs.py`` because ``tensorad.lax`` imports functions of that module while it loads.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda a, b: tnp.gcd(a, b) + tnp.left_shift(a, 1))(np.array([12, 7]), np.array([18, 5]))
array([30, 15])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, lax
from ..tracing import Tracer, emits_ops
from . import (absolute, any as reduce_any, asarray, astype, broadcast_to, copysign, equal, floor_divide, fmod, inf,
               int32, invert, multiply, negative, not_equal, subtract, where)
from .ufuncs import real_floating_operands


# ----------------------------------------------------------------------------
# Neighbouring floats
# ----------------------------------------------------------------------------

@emits_ops
def nextafter(x1, x2) -> Tracer:
    """The next float after ``x1`` in the direction of ``x2`` (subnormals included).

    Examples
    --------
    >>> nextafter(np.array([1.0, 0.0]), np.array([2.0, -1.0])) == np.array([1.0 + np.finfo(float).eps, -5e-324])
    array([ True,  True])
    """
    return lax.nextafter(*real_floating_operands(x1, x2, "nextafter"))


@emits_ops
def spacing(x) -> Tracer:
    """The distance from ``x`` to the next float away from zero (signed like ``x``), as JAX's.

    Examples
    --------
    >>> spacing(np.array([1.0, -1.0, 0.0]))
    array([ 2.22044605e-016, -2.22044605e-016,  4.94065646e-324])
    """
    x = asarray(x)
    x = astype(x, dtypes.float_of(x.dtype))
    if x.dtype.kind == "c":
        raise TypeError("spacing is not supported for complex numbers")
    # numpy's float16 loop steps toward +inf for negative numbers too; JAX follows it.
    toward = inf if x.dtype == np.float16 else copysign(inf, x)
    return subtract(lax.nextafter(x, broadcast_to(astype(asarray(toward), x.dtype), x.shape)), x)


# ----------------------------------------------------------------------------
# Integers: greatest common divisors, shifts, bit counts
# ----------------------------------------------------------------------------

def _integer_pair(x1, x2, name: str) -> tuple:
    """``x1`` and ``x2`` in their common integer dtype, broadcast together."""
    dtype = dtypes.result_type(x1, x2)
    if dtype.kind not in "iu":
        raise TypeError(f"{name} needs integer operands, got {dtype.name}")
    a, b = astype(asarray(x1), dtype), astype(asarray(x2), dtype)
    shape = np.broadcast_shapes(a.shape, b.shape)
    return broadcast_to(a, shape), broadcast_to(b, shape)


def _euclid_step(pair: tuple) -> tuple:
    """One step of Euclid's algorithm on non-positive numbers, where the divisor is not 0 yet.

    ``fmod`` keeps the dividend's sign, so the pair stays non-positive, and
    ``|fmod(a, b)| < |b|``: the divisor shrinks every step (a smaller ``|a|``
    first swaps the two).
    """
    a, b = pair
    going = not_equal(b, 0)
    return where(going, b, a), where(going, fmod(a, where(going, b, -1)), 0)


@emits_ops
def gcd(x1, x2) -> Tracer:
    """The greatest common divisor of ``|x1|`` and ``|x2|`` (``gcd(0, 0)`` is 0).

    Examples
    --------
    >>> gcd(np.array([12, -18, 0]), np.array([8, 12, 5]))
    array([4, 6, 5])
    """
    a, b = _integer_pair(x1, x2, "gcd")
    # On -|x|: every integer has one (|INT_MIN| does not), so the loop ends for every input.
    a, b = negative(absolute(a)), negative(absolute(b))
    # One loop for the whole array: it runs as long as the slowest element needs.
    return negative(lax.while_loop(lambda pair: reduce_any(not_equal(pair[1], 0)), _euclid_step, (a, b))[0])


@emits_ops
def lcm(x1, x2) -> Tracer:
    """The least common multiple of ``|x1|`` and ``|x2|`` (0 if either is 0).

    Examples
    --------
    >>> lcm(np.array([4, -6, 0]), np.array([6, 4, 5]))
    array([12, 12,  0])
    """
    a, b = _integer_pair(x1, x2, "lcm")
    a, b = absolute(a), absolute(b)
    divisor = gcd(a, b)
    return where(equal(divisor, 0), 0, multiply(a, floor_divide(b, where(equal(divisor, 0), 1, divisor))))


@emits_ops
def left_shift(x1, x2) -> Tracer:
    """``x1 << x2`` for integers; shifts by the width or more (or negative ones) give 0, as numpy's.

    Examples
    --------
    >>> left_shift(np.array([1, 3, -1]), np.array([2, 1, 64]))
    array([4, 6, 0])
    """
    return lax.shift_left(*_integer_pair(x1, x2, "left_shift"))


@emits_ops
def right_shift(x1, x2) -> Tracer:
    """``x1 >> x2`` for integers, filling with the sign bit (-1 or 0 for shifts by the width or more).

    Examples
    --------
    >>> right_shift(np.array([16, -16, -1]), np.array([2, 2, 70]))
    array([ 4, -4, -1])
    """
    return lax.shift_right_arithmetic(*_integer_pair(x1, x2, "right_shift"))


bitwise_left_shift, bitwise_right_shift = left_shift, right_shift
bitwise_not = bitwise_invert = invert


@emits_ops
def bitwise_count(x) -> Tracer:
    """The number of 1 bits in ``|x|``, as int32 (numpy and JAX answer uint8, which tensorad does not compile).

    Examples
    --------
    >>> bitwise_count(np.array([7, -8, 0]))
    array([3, 1, 0], dtype=int32)
    """
    x = asarray(x)
    if x.dtype.kind not in "iu":
        raise TypeError(f"bitwise_count needs integers, got {x.dtype.name}")
    return astype(lax.population_count(absolute(x)), int32)
