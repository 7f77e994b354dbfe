"""numpy's elementwise functions composed of the ``arith``/``math`` ones: tests for non-finite values,
angle conversions, ``hypot`` and ``select``.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.nan_to_num(x, nan=-1.0, posinf=9.0))(np.array([np.nan, np.inf, 2.0]))
array([-1.,  9.,  2.])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (absolute, add, asarray, astype, bool_, divide, equal, full, imag, inf, less, logical_and, logical_or,
               maximum, minimum, multiply, not_equal, real, sqrt, square, where)


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
