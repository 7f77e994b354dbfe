"""numpy's reductions that ignore NaNs: ``nansum``, ``nanmean``, ``nanmax``, ``nanquantile``, ...

Each replaces the NaNs by the reduction's identity (0 for sums, 1 for
products, -inf for maxima) with ``where``, so that their derivatives are 0,
and reduces the rest; integer and boolean arrays, which hold no NaN, are
reduced as they are. As in JAX, a slice of NaNs only gives NaN (0 for
sums, 1 for products, -1 for ``nanargmax``/``nanargmin``) where numpy warns
or raises. The order statistics sort each slice (NaNs last) and interpolate
between the entries at ``q * (count - 1)``, ``count`` its number of numbers.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.grad(lambda x: tnp.nanmean(x))(np.array([1.0, np.nan, 3.0]))
array([0.5, 0. , 0.5])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (add, all as reduce_all, argmax, argmin, asarray, astype, ceil, divide, equal, floor, full, greater, inf,
               int64, logical_not, max as reduce_max, maximum, mean, min as reduce_min, minimum, multiply, nan, real,
               reshape, round as round_half_even, sqrt, subtract, sum as reduce_sum, take_along_axis, where)
from .reductions import prod
from .scans import cumprod, cumsum
from .sorting import QUANTILE_METHODS, rows_along, sort
from .ufuncs import isnan


def _numbers_only(a, fill) -> tuple:
    """(``a`` with its NaNs replaced by ``fill``, where ``a`` is not NaN; None for a dtype without NaNs)."""
    a = asarray(a)
    if not dtypes.is_inexact(a.dtype):
        return a, None
    number = logical_not(isnan(a))
    return where(number, a, fill), number


def _no_out(out, name: str) -> None:
    if out is not None:
        raise TypeError(f"{name}: 'out' is not supported (arrays are immutable)")


@emits_ops
def nansum(a, axis=None, dtype=None, out=None, keepdims: bool = False) -> Tracer:
    """Sum over ``axis`` treating NaNs as 0.

    Examples
    --------
    >>> nansum(np.array([[1.0, np.nan], [np.nan, np.nan]]), axis=1)
    array([1., 0.])
    """
    _no_out(out, "nansum")
    return reduce_sum(_numbers_only(a, 0)[0], axis, dtype, keepdims)


@emits_ops
def nanprod(a, axis=None, dtype=None, out=None, keepdims: bool = False) -> Tracer:
    """Product over ``axis`` treating NaNs as 1.

    Examples
    --------
    >>> nanprod(np.array([2.0, np.nan, 3.0]))
    array(6.)
    """
    _no_out(out, "nanprod")
    return prod(_numbers_only(a, 1)[0], axis, dtype, keepdims)


def _count(number: Tracer, axis, keepdims: bool, dtype) -> Tracer:
    """The number of non-NaN entries along ``axis``, in the real dtype of ``dtype``."""
    return reduce_sum(number, axis, dtype=dtypes.real_dtype(dtype), keepdims=keepdims)


@emits_ops
def nanmean(a, axis=None, dtype=None, out=None, keepdims: bool = False) -> Tracer:
    """Mean over ``axis`` of the entries that are not NaN (NaN for a slice of NaNs).

    Examples
    --------
    >>> nanmean(np.array([[1.0, np.nan, 3.0], [np.nan, np.nan, np.nan]]), axis=1)
    array([ 2., nan])
    """
    _no_out(out, "nanmean")
    filled, number = _numbers_only(a, 0)
    if number is None:
        return mean(filled, axis, dtype, keepdims)
    dtype = filled.dtype if dtype is None else np.dtype(dtype)
    return divide(reduce_sum(filled, axis, dtype, keepdims), _count(number, axis, keepdims, dtype))


@emits_ops
def nanvar(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False) -> Tracer:
    """Variance over ``axis`` of the entries that are not NaN, divided by ``count - ddof`` (NaN where that is not
    positive).

    Examples
    --------
    >>> nanvar(np.array([1.0, np.nan, 3.0]))
    array(1.)
    """
    _no_out(out, "nanvar")
    filled, number = _numbers_only(a, 0)
    if number is None:
        number = full(filled.shape, True, np.bool_)
        filled = astype(filled, dtypes.float_of(filled.dtype))
    dtype = filled.dtype if dtype is None else np.dtype(dtype)
    filled = astype(filled, dtype)
    average = divide(reduce_sum(filled, axis, keepdims=True), _count(number, axis, True, dtype))
    centered = where(number, subtract(filled, average), 0)
    # |x - mean|**2: a real result for complex arrays, as numpy's.
    squares = reduce_sum(real(multiply(centered, centered.conj())), axis, keepdims=keepdims)
    divisor = subtract(_count(number, axis, keepdims, squares.dtype), ddof)
    return where(greater(divisor, 0), divide(squares, maximum(divisor, 1)), nan)


@emits_ops
def nanstd(a, axis=None, dtype=None, out=None, ddof: int = 0, keepdims: bool = False) -> Tracer:
    """Standard deviation over ``axis`` of the entries that are not NaN: the square root of :func:`nanvar`.

    Examples
    --------
    >>> nanstd(np.array([1.0, np.nan, 3.0]))
    array(1.)
    """
    return sqrt(nanvar(a, axis, dtype, out, ddof, keepdims))


def _nan_extreme(reduce, identity: float, a, axis, out, keepdims: bool, name: str) -> Tracer:
    _no_out(out, name)
    filled, number = _numbers_only(a, identity)
    result = reduce(filled, axis, keepdims)
    if number is None:
        return result
    return where(reduce_all(logical_not(number), axis, keepdims), nan, result)


@emits_ops
def nanmax(a, axis=None, out=None, keepdims: bool = False) -> Tracer:
    """Maximum over ``axis`` ignoring NaNs (NaN for a slice of NaNs).

    Examples
    --------
    >>> nanmax(np.array([[1.0, np.nan], [np.nan, np.nan]]), axis=1)
    array([ 1., nan])
    """
    return _nan_extreme(reduce_max, -inf, a, axis, out, keepdims, "nanmax")


@emits_ops
def nanmin(a, axis=None, out=None, keepdims: bool = False) -> Tracer:
    """Minimum over ``axis`` ignoring NaNs (NaN for a slice of NaNs).

    Examples
    --------
    >>> nanmin(np.array([2.0, np.nan, -1.0]))
    array(-1.)
    """
    return _nan_extreme(reduce_min, inf, a, axis, out, keepdims, "nanmin")


def _nan_arg_extreme(arg_reduce, identity: float, a, axis, out, keepdims: bool, name: str) -> Tracer:
    _no_out(out, name)
    filled, number = _numbers_only(a, identity)
    index = arg_reduce(filled, axis, keepdims)
    if number is None:
        return index
    return where(reduce_all(logical_not(number), axis, keepdims), -1, index)


@emits_ops
def nanargmax(a, axis=None, out=None, *, keepdims: bool = False) -> Tracer:
    """Index of the first maximum along ``axis`` ignoring NaNs (-1 for a slice of NaNs, as JAX's).

    Examples
    --------
    >>> nanargmax(np.array([np.nan, 2.0, 5.0, np.nan]))
    array(2)
    """
    return _nan_arg_extreme(argmax, -inf, a, axis, out, keepdims, "nanargmax")


@emits_ops
def nanargmin(a, axis=None, out=None, *, keepdims: bool = False) -> Tracer:
    """Index of the first minimum along ``axis`` ignoring NaNs (-1 for a slice of NaNs, as JAX's).

    Examples
    --------
    >>> nanargmin(np.array([np.nan, 2.0, -5.0]))
    array(2)
    """
    return _nan_arg_extreme(argmin, inf, a, axis, out, keepdims, "nanargmin")


@emits_ops
def nancumsum(a, axis=None, dtype=None, out=None) -> Tracer:
    """Running sums along ``axis`` (of the flattened array when None) treating NaNs as 0.

    Examples
    --------
    >>> nancumsum(np.array([1.0, np.nan, 2.0]))
    array([1., 1., 3.])
    """
    _no_out(out, "nancumsum")
    return cumsum(_numbers_only(a, 0)[0], axis, dtype)


@emits_ops
def nancumprod(a, axis=None, dtype=None, out=None) -> Tracer:
    """Running products along ``axis`` (of the flattened array when None) treating NaNs as 1.

    Examples
    --------
    >>> nancumprod(np.array([2.0, np.nan, 3.0]))
    array([2., 2., 6.])
    """
    _no_out(out, "nancumprod")
    return cumprod(_numbers_only(a, 1)[0], axis, dtype)


@emits_ops
def nanquantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                keepdims: bool = False) -> Tracer:
    """The ``q``-th quantiles (``0 <= q <= 1``) of the entries of ``a`` that are not NaN, along ``axis``.

    numpy's ``method`` ``linear`` (default), ``lower``, ``higher``,
    ``midpoint`` or ``nearest`` (half to even, as numpy's); ``q`` may be an
    array (its dims come first) and traced. A slice of NaNs gives NaN. The
    derivative flows to the one or two entries interpolated.

    Examples
    --------
    >>> nanquantile(np.array([[1.0, np.nan, 3.0, 4.0]]), 0.5, axis=1)
    array([3.])
    """
    _no_out(out, "nanquantile")
    if method not in QUANTILE_METHODS:
        raise ValueError(f"method {method!r} is not supported; use one of {', '.join(QUANTILE_METHODS)}")
    if not isinstance(q, Tracer) and ((np.asarray(q) < 0) | (np.asarray(q) > 1)).any():
        raise ValueError("quantiles must be in the range [0, 1]")
    rows, kept_shape = rows_along(a, axis, keepdims, "nanquantile")
    ordered = sort(rows, -1)  # NaNs last
    q = astype(asarray(q), rows.dtype)
    counts = reduce_sum(logical_not(isnan(rows)), -1, dtype=rows.dtype)
    # The virtual index q * (count - 1) of each quantile in each row: shape q.shape + rows' leading shape.
    position = multiply(reshape(q, q.shape + (1,) * counts.ndim), subtract(counts, 1))
    last = subtract(counts, 1)
    ordered = reshape(ordered, (1,) * q.ndim + ordered.shape)  # a row per quantile, by broadcasting

    def entry(index: Tracer) -> Tracer:
        """``ordered`` at ``index`` (clipped into the row's numbers; a row of NaNs has only NaNs to give)."""
        index = astype(maximum(minimum(index, last), 0), int64)
        return reshape(take_along_axis(ordered, reshape(index, index.shape + (1,)), -1), index.shape)

    if method in ("lower", "higher", "nearest"):
        result = entry({"lower": floor, "higher": ceil, "nearest": round_half_even}[method](position))
    else:
        below = floor(position)
        low, high = entry(below), entry(add(below, 1))
        fraction = subtract(position, below)
        if method == "midpoint":
            fraction = where(equal(fraction, 0), 0.0, 0.5)
        result = add(multiply(low, subtract(1.0, fraction)), multiply(high, fraction))
    return reshape(result, q.shape + kept_shape)


@emits_ops
def nanpercentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
                  keepdims: bool = False) -> Tracer:
    """The ``q``-th percentiles (``0 <= q <= 100``) ignoring NaNs: :func:`nanquantile` of ``q / 100``.

    Examples
    --------
    >>> nanpercentile(np.array([1.0, np.nan, 2.0, 3.0, 4.0]), 50)
    array(2.5)
    """
    if not isinstance(q, Tracer) and ((np.asarray(q) < 0) | (np.asarray(q) > 100)).any():
        raise ValueError("percentiles must be in the range [0, 100]")
    return nanquantile(a, divide(q, 100.0) if isinstance(q, Tracer) else np.asarray(q, np.float64) / 100,
                       axis, out, overwrite_input, method, keepdims)


@emits_ops
def nanmedian(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False) -> Tracer:
    """The median along ``axis`` of the entries that are not NaN (the mean of the middle two for an even count).

    Examples
    --------
    >>> nanmedian(np.array([[3.0, np.nan, 1.0, 2.0]]), axis=1)
    array([2.])
    """
    return nanquantile(a, 0.5, axis, out, overwrite_input, "midpoint", keepdims)
