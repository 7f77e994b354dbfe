"""Sorting and what is built on it: sort, argsort, lexsort, searchsorted, quantiles, unique, histogram.

Every sort is one ``tad.argsort`` (a stable merge sort of each row along the
last axis, in compiled loops) followed by a gather of the values at the
permutation (``take_along_axis``): the derivative of a sort is the gather's,
the cotangent scattered back through the permutation, as JAX's.
``searchsorted`` is ``tad.searchsorted``, a branch-free binary search per
value. NaN sorts as the greatest value (last ascending), as in numpy.

Shapes that depend on data are static here, as in JAX: ``unique`` takes a
``size`` (and ``fill_value``) when its input is traced, ``histogram`` a
number of bins or their edges.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.sort(x)[::-1][:2])(np.array([3.0, 1.0, 4.0, 1.5]))
array([4., 3.])
>>> ta.grad(lambda x: tnp.median(x))(np.array([3.0, 1.0, 4.0, 1.5]))
array([0.5, 0. , 0. , 0.5])
"""

from __future__ import annotations

import builtins
from typing import Sequence

import numpy as np

from tensorad.dialects import builder

from .. import dtypes
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (add, any, arange, asarray, astype, bool_, ceil, concatenate, divide, equal, floor, full, getitem,
               imag, int64, isnan, less, logical_and, logical_not, logical_or, minimum, moveaxis, multiply, nan,
               not_equal, ravel, real, reshape, round, stack, subtract, sum, take, take_along_axis, transpose, where,
               zeros)
from .scans import cumsum
from .updates import scatter


def _axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise TracingError(f"{user_line()}: {what}: axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def _permutation(x: Tracer, descending: bool = False) -> Tracer:
    """The stable sorting permutation (int64) of ``x`` along its last axis (complex: by parts, as numpy's)."""
    return lexsort_permutation([x], descending)


def _flat_or_axis(a, axis, what: str) -> tuple:
    """(the array, the axis to sort along): flattened when ``axis`` is None, as numpy's."""
    x = asarray(a)
    if axis is None:
        return ravel(x), 0
    if x.ndim == 0:
        raise TracingError(f"{user_line()}: {what} of a 0-d array needs axis=None")
    return x, _axis(axis, x.ndim, what)


@emits_ops
def argsort(a, axis: int | None = -1, kind=None, order=None, *, stable: bool = True,
            descending: bool = False) -> Tracer:
    """The indices (int64) that sort ``a`` along ``axis`` (of the flattened array when None).

    The sort is stable (equal elements keep their order, descending too, as
    JAX's); ``kind`` is accepted and ignored, as in JAX; NaN sorts last
    (first when ``descending``).

    Examples
    --------
    >>> argsort(np.array([3.0, 1.0, 2.0, 1.0]))
    array([1, 3, 2, 0])
    """
    if order is not None:
        raise TracingError(f"{user_line()}: argsort: 'order' (structured arrays) is not supported")
    x, axis = _flat_or_axis(a, axis, "argsort")
    return moveaxis(_permutation(moveaxis(x, axis, -1), descending), -1, axis)


@emits_ops
def sort(a, axis: int | None = -1, kind=None, order=None, *, stable: bool = True,
         descending: bool = False) -> Tracer:
    """``a`` sorted along ``axis`` (the flattened array when None); NaN last, as numpy's.

    The derivative gathers the (co)tangent through the sorting permutation.

    Examples
    --------
    >>> sort(np.array([[3, 1, 2], [0, 5, 4]]), axis=None)
    array([0, 1, 2, 3, 4, 5])
    """
    if order is not None:
        raise TracingError(f"{user_line()}: sort: 'order' (structured arrays) is not supported")
    x, axis = _flat_or_axis(a, axis, "sort")
    last = moveaxis(x, axis, -1)
    return moveaxis(take_along_axis(last, _permutation(last, descending), -1), -1, axis)


def lexsort_permutation(keys: Sequence[Tracer], descending: bool = False) -> Tracer:
    """The stable permutation (int64, along the last axis) that sorts by ``keys[0]``, ties by ``keys[1]``, ...

    Least significant key first: each stable sort (``tad.argsort``) keeps the
    order of the sorts before it among its ties. A complex key is its real
    part, ties broken by its imaginary part (numpy's order).
    """
    keys = [part for key in keys
            for part in ((real(key), imag(key)) if dtypes.is_complex(key.dtype) else (key,))]
    order = Tracer.of(builder.argsort(keys[-1].value, descending))
    for key in reversed(keys[:-1]):
        ordered = take_along_axis(key, order, -1)
        order = take_along_axis(order, Tracer.of(builder.argsort(ordered.value, descending)), -1)
    return order


@emits_ops
def lexsort(keys, axis: int = -1) -> Tracer:
    """numpy's ``lexsort``: the indices that sort by the last key, ties broken by the ones before it.

    Examples
    --------
    >>> lexsort((np.array([1, 0, 2, 0]), np.array([1, 1, 0, 1])))  # by the second, then the first
    array([2, 1, 3, 0])
    """
    keys = [asarray(k) for k in keys]
    if not keys:
        raise TracingError(f"{user_line()}: lexsort needs at least one key")
    shape = keys[0].shape
    if builtins.any(k.shape != shape for k in keys) or not shape:
        raise TracingError(f"{user_line()}: lexsort needs keys of one shape, of rank 1 or more, got "
                           f"{[k.shape for k in keys]}")
    axis = _axis(axis, len(shape), "lexsort")
    order = lexsort_permutation([moveaxis(k, axis, -1) for k in reversed(keys)])
    return moveaxis(order, -1, axis)


@emits_ops
def searchsorted(a, v, side: str = "left", sorter=None, *, method: str | None = None) -> Tracer:
    """Indices (int64) where ``v`` would be inserted into the ascending 1-D ``a`` to keep it sorted.

    ``side="left"`` gives the first suitable position, ``"right"`` the last;
    ``sorter`` (the indices that sort ``a``) is applied first; ``method`` is
    accepted for JAX's signature (every method is one binary search here).

    Examples
    --------
    >>> searchsorted(np.array([1.0, 2.0, 2.0, 3.0]), np.array([2.0, 0.5, 9.0]), side="right")
    array([3, 0, 4])
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right', got {side!r}")
    a, v = asarray(a), asarray(v)
    if a.ndim != 1:
        raise TracingError(f"{user_line()}: searchsorted needs a 1-D sorted array, got shape {a.shape}")
    if sorter is not None:
        a = take(a, sorter)
    dtype = dtypes.result_type(a, v)
    if dtypes.is_complex(dtype):
        raise TypeError("searchsorted of complex numbers is not supported")
    return Tracer.of(builder.searchsorted(astype(a, dtype).value, astype(v, dtype).value, side == "right"))


# ----------------------------------------------------------------------------
# Order statistics
# ----------------------------------------------------------------------------

QUANTILE_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")


def rows_along(a, axis, keepdims: bool, what: str) -> tuple:
    """(``a`` as floats with the reduced axes flattened into its last axis, the shape a reduction keeps).

    For the order statistics here and their NaN-ignoring forms (``nanfunctions``).
    """
    x = asarray(a)
    if dtypes.is_complex(x.dtype):
        raise TypeError(f"{what} of complex numbers is not supported: take it of their parts")
    x = astype(x, dtypes.float_of(x.dtype))
    if axis is None:
        axes = tuple(range(x.ndim))
    else:
        axes = tuple(_axis(d, x.ndim, what) for d in ((axis,) if isinstance(axis, (int, np.integer)) else axis))
        if len(set(axes)) != len(axes):
            raise TracingError(f"{user_line()}: {what}: repeated axis in {axis}")
    kept = [d for d in range(x.ndim) if d not in axes]
    n = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
    if n == 0:
        raise TracingError(f"{user_line()}: {what} of an empty array (or axis)")
    rows = reshape(transpose(x, kept + list(axes)), [x.shape[d] for d in kept] + [n])
    kept_shape = tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)) if keepdims \
        else tuple(x.shape[d] for d in kept)
    return rows, kept_shape


def _sorted_along(a, axis, keepdims: bool, what: str) -> tuple:
    """(``a`` as floats sorted along its last axis, the reduced axes moved there, the kept shape)."""
    rows, kept_shape = rows_along(a, axis, keepdims, what)
    return sort(rows, -1), kept_shape


def _lerp(a: Tracer, b: Tracer, t: Tracer) -> Tracer:
    """numpy's interpolation ``a + (b - a) t``, from ``b`` when ``t >= 0.5`` (exact at both ends)."""
    diff = subtract(b, a)
    return where(t >= 0.5, subtract(b, multiply(diff, subtract(1.0, t))), add(a, multiply(diff, t)))


def _quantile_of_sorted(ordered: Tracer, q: Tracer, method: str) -> Tracer:
    """Quantiles ``q`` (any shape) of each row of ``ordered`` (sorted along its last axis): ``q.shape + rows``."""
    n = ordered.shape[-1]
    position = multiply(q, n - 1)  # numpy's virtual index for these methods
    if method in ("lower", "higher", "nearest"):
        index = {"lower": floor, "higher": ceil, "nearest": round}[method](position)  # nearest: half to even
        out = take(ordered, astype(index, int64), axis=-1)
    else:
        below = floor(position)
        fraction = subtract(position, below)
        if method == "midpoint":
            fraction = where(equal(fraction, 0.0), 0.0, 0.5)
        low = astype(below, int64)
        high = minimum(add(low, 1), n - 1)
        out = _lerp(take(ordered, low, axis=-1), take(ordered, high, axis=-1), fraction)
    # The gathers put q's dims last: they go first.
    return moveaxis(out, list(range(ordered.ndim - 1, out.ndim)), list(range(q.ndim)))


@emits_ops
def quantile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
             keepdims: bool = False, *, interpolation=None) -> Tracer:
    """The ``q``-th quantiles (``0 <= q <= 1``) of ``a`` along ``axis`` (all of it when None).

    numpy's ``method`` ``linear`` (default), ``lower``, ``higher``,
    ``midpoint`` or ``nearest``; ``q`` may be an array (its dims come first)
    and traced. A NaN in a slice makes its quantiles NaN. The derivative
    flows to the one or two order statistics interpolated.

    Examples
    --------
    >>> quantile(np.arange(1.0, 11.0), np.array([0.25, 0.5]))
    array([3.25, 5.5 ])
    """
    if out is not None:
        raise TracingError(f"{user_line()}: quantile: 'out' is not supported (arrays are immutable)")
    method = interpolation if interpolation is not None else method
    if method not in QUANTILE_METHODS:
        raise ValueError(f"method {method!r} is not supported; use one of {', '.join(QUANTILE_METHODS)}")
    ordered, kept_shape = _sorted_along(a, axis, keepdims, "quantile")
    if not isinstance(q, Tracer):
        concrete = np.asarray(q, np.float64)
        if ((concrete < 0) | (concrete > 1)).any():
            raise ValueError("quantiles must be in the range [0, 1]")
    q = astype(asarray(q), ordered.dtype)
    result = _quantile_of_sorted(ordered, q, method)
    # A NaN sorts last: where the last is NaN, the slice has one.
    has_nan = isnan(getitem(ordered, (Ellipsis, -1)))
    result = where(has_nan, nan, result)
    return reshape(result, q.shape + kept_shape)


@emits_ops
def percentile(a, q, axis=None, out=None, overwrite_input: bool = False, method: str = "linear",
               keepdims: bool = False, *, interpolation=None) -> Tracer:
    """The ``q``-th percentiles (``0 <= q <= 100``) of ``a``: :func:`quantile` of ``q / 100``.

    Examples
    --------
    >>> percentile(np.array([1.0, 2.0, 3.0, 4.0]), 50)
    array(2.5)
    """
    if not isinstance(q, Tracer) and ((np.asarray(q) < 0) | (np.asarray(q) > 100)).any():
        raise ValueError("percentiles must be in the range [0, 100]")
    return quantile(a, divide(q, 100.0) if isinstance(q, Tracer) else np.asarray(q, np.float64) / 100,
                    axis, out, overwrite_input, method, keepdims, interpolation=interpolation)


@emits_ops
def median(a, axis=None, out=None, overwrite_input: bool = False, keepdims: bool = False) -> Tracer:
    """The median along ``axis`` (all of ``a`` when None): the mean of the middle two for an even count.

    Examples
    --------
    >>> median(np.array([[3.0, 1.0, 2.0], [6.0, 4.0, 5.0]]), axis=1)
    array([2., 5.])
    """
    if out is not None:
        raise TracingError(f"{user_line()}: median: 'out' is not supported (arrays are immutable)")
    ordered, kept_shape = _sorted_along(a, axis, keepdims, "median")
    n = ordered.shape[-1]
    middle = take(ordered, np.array(sorted({(n - 1) // 2, n // 2})), axis=-1)
    result = sum(middle, -1) if n % 2 else divide(sum(middle, -1), 2.0)
    result = where(isnan(getitem(ordered, (Ellipsis, -1))), nan, result)
    return reshape(result, kept_shape)


# ----------------------------------------------------------------------------
# unique and histogram
# ----------------------------------------------------------------------------

def first_true_positions(mask: Tracer, size: int) -> tuple:
    """(positions of the first ``size`` true entries of the 1-D ``mask``, 0 past the last; their count).

    ``searchsorted`` in the running count of true entries: the first
    position where it reaches ``j + 1``.
    """
    counts = cumsum(mask)
    positions = searchsorted(counts, arange(1, size + 1, dtype=int64))
    total = getitem(counts, -1) if mask.shape[0] else asarray(np.int64(0))
    return where(positions < mask.shape[0], positions, 0), total


def sorted_unique_rows(x: Tracer, equal_nan: bool) -> tuple:
    """(rows of ``x`` sorted, which begin a new value, the sorting permutation), ``x`` of shape (n, ...)."""
    n = x.shape[0]
    flat = reshape(x, (n, -1))
    columns = [getitem(flat, (slice(None), j)) for j in range(flat.shape[1])]
    order = lexsort_permutation(columns)
    ordered = take(x, order, axis=0)
    flat_ordered = reshape(ordered, (n, -1))
    later, earlier = getitem(flat_ordered, slice(1, None)), getitem(flat_ordered, slice(None, -1))
    differs = not_equal(later, earlier)
    if equal_nan and dtypes.is_float(x.dtype):
        differs = logical_and(differs, logical_not(logical_and(isnan(later), isnan(earlier))))
    new = concatenate([full((1,), True, bool_), any(differs, axis=1)]) if n > 1 else full((n,), True, bool_)
    return ordered, new, order


def _unique_size(ar, axis, equal_nan: bool):
    """The number of unique values of a concrete ``ar`` (what the result's shape needs), or None if traced."""
    if isinstance(ar, Tracer):
        return None
    values = np.asarray(ar)
    if axis is None:
        return int(np.unique(values, equal_nan=equal_nan).size)
    return int(np.unique(values, axis=axis).shape[axis % values.ndim])


def unique(ar, return_index: bool = False, return_inverse: bool = False, return_counts: bool = False,
           axis: int | None = None, *, equal_nan: bool = True, size: int | None = None, fill_value=None):
    """The sorted unique values of ``ar`` (its unique slices along ``axis``), as JAX's ``jnp.unique``.

    A traced ``ar`` needs a static ``size``: the result has that many
    values, padded with ``fill_value`` (default: the smallest value) or
    truncated; ``return_index`` (first occurrences), ``return_inverse``
    (the unique value of each element, shaped like ``ar`` when ``axis`` is
    None) and ``return_counts`` are padded with the first index, and 0
    counts. On concrete arrays ``size`` defaults to the number of unique
    values.

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.jit(lambda x: unique(x, size=4, fill_value=-1.0))(np.array([2.0, 1.0, 2.0]))
    array([ 1.,  2., -1., -1.])
    """
    if size is None:
        size = _unique_size(ar, axis, equal_nan)
        if size is None:
            raise TracingError(f"{user_line()}: unique of a traced array needs a static size=...: the number of "
                               "unique values is known only when the compiled code runs")
    return _unique(ar, return_index, return_inverse, return_counts, axis, equal_nan, int(size), fill_value)


@emits_ops
def _unique(ar, return_index: bool, return_inverse: bool, return_counts: bool, axis, equal_nan: bool,
            size: int, fill_value):
    x = asarray(ar)
    shape = x.shape
    flat = axis is None
    if flat:
        x, axis = ravel(x), 0
    axis = _axis(axis, x.ndim, "unique")
    x = moveaxis(x, axis, 0)
    n = x.shape[0]
    if n == 0 and size and fill_value is None:
        raise ValueError("unique: for an empty input with a nonzero size, fill_value must be given")
    if n == 0:
        values = full((size,) + x.shape[1:], 0 if fill_value is None else fill_value, x.dtype)
        index = counts = zeros((size,), int64)
        inverse = zeros((0,), int64)
    else:
        ordered, new, order = sorted_unique_rows(x, equal_nan)
        positions, total = first_true_positions(new, size)
        values = take(ordered, positions, axis=0)
        present = arange(size) < total
        if fill_value is not None:
            values = where(reshape(present, (size,) + (1,) * (x.ndim - 1)), values,
                           astype(asarray(fill_value), x.dtype))
        index = take(order, positions)
        # Each element's value is the count of new values up to its sorted place, less one.
        inverse = scatter(zeros((n,), int64), order, subtract(cumsum(new), 1), 0, "set")
        # A value's count runs to the next value's position (the end for the last one).
        ends = concatenate([getitem(positions, slice(1, None)), full((1,), n, int64)])
        ends = where(arange(size) + 1 < total, ends, n)
        counts = where(present, subtract(ends, positions), 0)
    results = [moveaxis(values, 0, axis)]
    if return_index:
        results.append(index)
    if return_inverse:
        results.append(reshape(inverse, shape) if flat else inverse)
    if return_counts:
        results.append(counts)
    return results[0] if len(results) == 1 else tuple(results)


def _bin_edges(x: Tracer, bins, range_) -> tuple:
    """(edges as an array, their count - 1, whether they are evenly spaced from a static range)."""
    if isinstance(bins, (int, np.integer)) and not isinstance(bins, bool):
        if bins < 1:
            raise ValueError(f"histogram needs a positive number of bins, got {bins}")
        dtype = dtypes.result_type(x.dtype, np.float64) if not dtypes.is_float(x.dtype) else x.dtype
        if range_ is not None:
            first, last = (float(v) for v in range_)
            if first > last:
                raise ValueError("max must be larger than min in range parameter")
            if first == last:
                first, last = first - 0.5, last + 0.5
            return asarray(np.linspace(first, last, int(bins) + 1, dtype=dtype)), int(bins)
        if x.size == 0:
            first, last = asarray(np.array(0.0, dtype)), asarray(np.array(1.0, dtype))
        else:
            first, last = astype(x.min(), dtype), astype(x.max(), dtype)
            same = equal(first, last)
            first, last = where(same, subtract(first, 0.5), first), where(same, add(last, 0.5), last)
        # numpy's linspace: first + i * step, the last edge exactly `last`.
        step = divide(subtract(last, first), float(bins))
        edges = add(multiply(arange(bins + 1, dtype=dtype), step), first)
        edges = where(equal(arange(bins + 1), bins), last, edges)
        return edges, int(bins)
    if isinstance(bins, str):
        raise TracingError(f"{user_line()}: histogram: bins={bins!r} (an estimator) is not supported; "
                           "give a number of bins or the bin edges")
    edges = asarray(bins)
    if edges.ndim != 1 or edges.shape[0] < 2:
        raise ValueError("bins must be an integer or a 1-D array of at least two edges")
    return edges, edges.shape[0] - 1


@emits_ops
def histogram(a, bins=10, range=None, weights=None, density=None) -> tuple:  # noqa: A002 (numpy's name)
    """numpy's ``histogram``: counts (or summed ``weights``) of ``a`` in ``bins``, and the bin edges.

    ``bins`` is a static number of equal bins (over ``range``, or the
    data's minimum to maximum) or the edges themselves; each bin is
    half-open ``[left, right)`` but the last, which holds its right edge;
    values outside the edges (and NaN) are not counted. ``density``
    divides by the total and the bin widths. Counting is one scatter-add
    (``tad.scatter``) at the bin of each value, found by ``searchsorted``.

    Examples
    --------
    >>> histogram(np.array([0.0, 0.5, 1.0, 3.0]), bins=3)
    (array([2, 1, 1]), array([0., 1., 2., 3.]))
    """
    x = ravel(asarray(a))
    edges, count = _bin_edges(_real_values(x), bins, range)
    index, edges = _bin_index(x, edges, count)
    hist = _counts(index, weights, x.shape, (count,))
    return (_density(hist, [edges]) if density else hist), edges


def _real_values(x: Tracer) -> Tracer:
    if dtypes.is_complex(x.dtype):
        raise TypeError("histogram of complex numbers is not supported")
    return x


def _bin_index(x: Tracer, edges: Tracer, count: int) -> tuple:
    """``(the bin of each value of x (-1 outside the edges, and NaN), the edges)``, both in their common dtype.

    A value's bin is the last edge at or below it; the last bin also holds the last edge.
    """
    dtype = dtypes.result_type(x.dtype, edges.dtype)
    x, edges = astype(x, dtype), astype(edges, dtype)
    index = subtract(searchsorted(edges, x, side="right"), 1)
    index = where(equal(x, getitem(edges, -1)), count - 1, index)
    return where(logical_or(index < 0, index >= count), -1, index), edges


def _counts(index: Tracer, weights, shape: tuple, counts: tuple) -> Tracer:
    """How many values (or how much of their ``weights``) fall in each of the ``counts`` bins, from their flat ``index``."""
    if weights is None:
        amounts, hist_dtype = full(shape, 1, int64), int64
    else:
        amounts = ravel(asarray(weights))
        if amounts.shape != shape:
            raise ValueError("weights should have the same shape as a")
        hist_dtype = amounts.dtype
    total = int(np.prod(counts, dtype=np.int64))
    return reshape(scatter(zeros((total,), hist_dtype), index, astype(amounts, hist_dtype), 0, "add"), counts)


def _density(hist: Tracer, edges: list) -> Tracer:
    """``hist`` divided by its total and by each bin's width along each dimension (its volume)."""
    hist = divide(hist, sum(hist))
    for d, e in enumerate(edges):
        widths = subtract(getitem(e, slice(1, None)), getitem(e, slice(None, -1)))
        hist = divide(hist, reshape(widths, [-1 if k == d else 1 for k in builtins.range(len(edges))]))
    return hist


@emits_ops
def histogram_bin_edges(a, bins=10, range=None, weights=None) -> Tracer:  # noqa: A002 (numpy's name)
    """The bin edges :func:`histogram` would use (``weights`` are not read, as numpy's).

    Examples
    --------
    >>> histogram_bin_edges(np.array([0.0, 1.0, 4.0]), bins=4)
    array([0., 1., 2., 3., 4.])
    """
    x = _real_values(ravel(asarray(a)))
    edges, _ = _bin_edges(x, bins, range)
    return astype(edges, dtypes.result_type(x.dtype, edges.dtype))


@emits_ops
def histogramdd(sample, bins=10, range=None, weights=None, density=None) -> tuple:  # noqa: A002 (numpy's name)
    """numpy's ``histogramdd`` of ``N`` points in ``D`` dimensions (an ``(N, D)`` array): counts and each dim's edges.

    ``bins`` is one bin count (or edges) for every dimension or a sequence of
    ``D``; each dimension is binned as :func:`histogram` bins, and a point
    outside the edges of any dimension is not counted.

    Examples
    --------
    >>> hist, edges = histogramdd(np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]]), bins=2)
    >>> hist
    array([[1, 0],
           [1, 1]])
    """
    sample = asarray(sample)
    if sample.ndim != 2:
        raise ValueError(f"histogramdd needs an (N, D) array of points, got shape {sample.shape}")
    dims = sample.shape[1]
    per_bins = list(bins) if isinstance(bins, (list, tuple)) else [bins] * dims
    per_range = list(range) if range is not None else [None] * dims
    if len(per_bins) != dims or len(per_range) != dims:
        raise ValueError(f"bins and range must have one entry per dimension ({dims})")
    flat, outside, all_edges, counts = None, None, [], []
    for d in builtins.range(dims):
        x = _real_values(getitem(sample, (slice(None), d)))
        edges, count = _bin_edges(x, per_bins[d], per_range[d])
        index, edges = _bin_index(x, edges, count)
        flat = index if flat is None else add(multiply(flat, count), index)
        missing = less(index, 0)
        outside = missing if outside is None else logical_or(outside, missing)
        all_edges.append(edges)
        counts.append(count)
    if flat is None:  # no dimensions: numpy's count of the points in nothing
        raise ValueError("histogramdd needs points of at least one dimension")
    hist = _counts(where(outside, -1, flat), weights, (sample.shape[0],), tuple(counts))
    return (_density(hist, all_edges) if density else hist), all_edges


@emits_ops
def histogram2d(x, y, bins=10, range=None, weights=None, density=None) -> tuple:  # noqa: A002 (numpy's name)
    """numpy's ``histogram2d``: :func:`histogramdd` of the points ``(x, y)``; ``(hist, x edges, y edges)``.

    Examples
    --------
    >>> histogram2d(np.array([0.0, 1.0, 1.0]), np.array([0.0, 1.0, 0.0]), bins=2)[0]
    array([[1, 0],
           [1, 1]])
    """
    try:
        count = len(bins)
    except TypeError:
        count = 1
    if count not in (1, 2):  # one array of edges, for both
        bins = [bins, bins]
    hist, edges = histogramdd(stack([ravel(asarray(x)), ravel(asarray(y))], axis=1), bins, range, weights, density)
    return hist, edges[0], edges[1]


@emits_ops
def sort_complex(a) -> Tracer:
    """``a`` sorted (real parts first, then imaginary ones), as complex numbers, as numpy's.

    Examples
    --------
    >>> sort_complex(np.array([3.0, 1.0, 2.0]))
    array([1.+0.j, 2.+0.j, 3.+0.j])
    """
    a = sort(asarray(a))
    return astype(a, dtypes.complex_of(a.dtype))

