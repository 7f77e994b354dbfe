"""numpy's index functions: nonzero and its kin, bincount, digitize, index conversions, choose, compress,
functional place/put/insert/delete, partitions.

Results whose length depends on the data are static, as in JAX: a traced
``nonzero``, ``argwhere``, ``flatnonzero``, ``compress`` or ``extract``
needs ``size=`` (padded with ``fill_value``), ``bincount`` needs
``length=``; concrete inputs, eagerly, may leave them out. The true
entries are packed to the front by a binary search in their running count
(:func:`tensorad.numpy.sorting.first_true_positions`), then gathered.
``insert`` and ``delete`` take static positions and are one gather, and
``place`` and ``put`` return new arrays (JAX's ``inplace=False``). numpy's
``mode="raise"`` checks the indices of concrete arrays and is refused for
traced ones (nothing can raise from compiled code): use ``"clip"`` or
``"wrap"``.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> tnp.nonzero(np.array([[0, 3], [4, 0]]))
(array([0, 1]), array([1, 0]))
>>> ta.jit(lambda x: tnp.flatnonzero(x > 1.0, size=3, fill_value=-1))(np.array([0.0, 2.0, 3.0]))
array([ 1,  2, -1])
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import dtypes
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (arange, argsort, asarray, astype, broadcast_to, clip, concatenate, cumsum, flip, floor_divide, full,
               int64, moveaxis, not_equal, ravel, remainder, reshape, searchsorted, sort, stack, take,
               take_along_axis, where, zeros)
from . import sum as reduce_sum
from .setops import static_size
from .sorting import first_true_positions

__all__ = ["argpartition", "argwhere", "bincount", "choose", "compress", "delete", "digitize", "extract",
           "flatnonzero", "insert", "ix_", "nonzero", "partition", "place", "put", "ravel_multi_index",
           "trim_zeros", "unravel_index"]


def _concrete_mode(name: str, mode, index, check) -> str:
    """numpy's ``mode="raise"``: ``check(index)`` (numpy raising) on a concrete index, then in-bounds ``"clip"``.

    Compiled code cannot raise, so a traced index is refused.
    """
    if mode != "raise":
        return mode
    if isinstance(index, Tracer) or (isinstance(index, (tuple, list)) and any(isinstance(i, Tracer) for i in index)):
        raise TracingError(f"{user_line()}: {name}(mode='raise') needs concrete indices, to check them; under a "
                           "transformation pass mode='clip' or mode='wrap'")
    check(index)
    return "clip"


def _static_positions(obj, name: str):
    """``obj`` (positions or a slice) as numpy data: it decides the result's shape."""
    if isinstance(obj, Tracer):
        raise TracingError(f"{user_line()}: {name}: the positions must be concrete (they decide the result's "
                           f"shape); got a traced {obj.dtype.name}{list(obj.shape)}")
    return obj if isinstance(obj, slice) else np.asarray(obj)


def _unravel(flat: Tracer, shape: tuple) -> tuple:
    """Indices into ``shape`` (C order) of the in-range flat positions ``flat``."""
    strides = np.cumprod((1,) + tuple(shape[:0:-1]))[::-1]
    return tuple(remainder(floor_divide(flat, int(stride)), n) if i else floor_divide(flat, int(stride))
                 for i, (stride, n) in enumerate(zip(strides, shape)))


# ----------------------------------------------------------------------------
# Nonzero entries
# ----------------------------------------------------------------------------

def nonzero(a, *, size: int | None = None, fill_value=None) -> tuple:
    """Indices of the nonzero elements of ``a``, one array per dim (C order).

    ``fill_value`` (a number, or one per dim; default 0) pads past the
    last nonzero element when ``size`` is larger.

    Examples
    --------
    >>> nonzero(np.array([0.0, 2.0, 0.0, 3.0]))
    (array([1, 3]),)
    """
    size = static_size(size, (a,), "nonzero", np.count_nonzero)
    return _nonzero(a, size, fill_value)


@emits_ops
def _nonzero(a, size: int, fill_value) -> tuple:
    x = asarray(a)
    if x.ndim == 0:
        raise ValueError("nonzero of a 0-d array is not defined: use atleast_1d first")
    positions, total = first_true_positions(ravel(not_equal(x, 0)), size)
    present = arange(size) < total
    fills = tuple(fill_value) if isinstance(fill_value, (tuple, list)) else (fill_value,) * x.ndim
    if len(fills) != x.ndim:
        raise ValueError(f"nonzero: fill_value holds {len(fills)} values for an array of dimension {x.ndim}")
    return tuple(where(present, index, 0 if fill is None else fill)
                 for index, fill in zip(_unravel(positions, x.shape), fills))


def flatnonzero(a, *, size: int | None = None, fill_value=None) -> Tracer:
    """Positions of the nonzero elements of ``a`` flattened.

    Examples
    --------
    >>> flatnonzero(np.array([[0, 1], [1, 0]]))
    array([1, 2])
    """
    size = static_size(size, (a,), "flatnonzero", np.count_nonzero)
    return _flatnonzero(a, size, fill_value)


@emits_ops
def _flatnonzero(a, size: int, fill_value) -> Tracer:
    return _nonzero(ravel(asarray(a)), size, fill_value)[0]


def argwhere(a, *, size: int | None = None, fill_value=None) -> Tracer:
    """The indices of the nonzero elements of ``a``, one row each: shape ``(count, a.ndim)``.

    Examples
    --------
    >>> argwhere(np.array([[0, 3], [4, 0]]))
    array([[0, 1],
           [1, 0]])
    """
    size = static_size(size, (a,), "argwhere", np.count_nonzero)
    return _argwhere(a, size, fill_value)


@emits_ops
def _argwhere(a, size: int, fill_value) -> Tracer:
    x = asarray(a)
    if x.ndim == 0:  # numpy's: a 1-element array's rows, with no columns
        return zeros((size, 0), int64)
    return stack(_nonzero(x, size, fill_value), axis=1)


# ----------------------------------------------------------------------------
# Counting and binning
# ----------------------------------------------------------------------------

def bincount(x, weights=None, minlength: int = 0, *, length: int | None = None) -> Tracer:
    """How often each value ``0, 1, ..., length - 1`` occurs in the non-negative integers ``x`` (or the sum
    of their ``weights``).

    ``length`` defaults to ``max(x) + 1`` (at least ``minlength``) for
    concrete ``x``; negative values count as 0 and those from ``length``
    on are dropped (JAX's). The counts are int64, sums of ``weights`` of
    its dtype.

    Examples
    --------
    >>> bincount(np.array([0, 1, 1, 3]))
    array([1, 2, 0, 1])
    """
    if length is None:
        if isinstance(x, Tracer):
            raise TracingError(f"{user_line()}: bincount of a traced array needs a static length=...: the largest "
                               "value is known only when the compiled code runs")
        values = np.asarray(x)
        length = max(int(minlength), int(values.max()) + 1 if values.size else 0)
    return _bincount(x, weights, operator.index(length))


@emits_ops
def _bincount(x, weights, length: int) -> Tracer:
    x = asarray(x)
    if x.ndim != 1 or x.dtype.kind not in "iu":
        raise TypeError(f"bincount: x must be a 1-D array of integers, got {x.dtype.name}{list(x.shape)}")
    amounts = full(x.shape, 1, int64) if weights is None else asarray(weights)
    if amounts.shape != x.shape:
        raise ValueError(f"bincount: weights of shape {amounts.shape} do not match x of shape {x.shape}")
    return zeros((length,), amounts.dtype).at[clip(x, 0, None)].add(amounts, mode="drop")


@emits_ops
def digitize(x, bins, right: bool = False, *, method=None) -> Tracer:
    """The bin of each value of ``x`` among the monotonic ``bins`` (int64), numpy's ``digitize``.

    ``right``: bins include their right edge rather than their left;
    decreasing ``bins`` count from the other end. ``method`` is accepted for
    JAX's signature.

    Examples
    --------
    >>> digitize(np.array([0.5, 1.0, 2.5]), np.array([1.0, 2.0, 3.0]))
    array([0, 1, 2])
    """
    x, bins = asarray(x), asarray(bins)
    if bins.ndim != 1:
        raise ValueError(f"digitize: bins must be a 1-D array, got shape {bins.shape}")
    if bins.shape[0] == 0:
        return zeros(x.shape, int64)
    side = "left" if right else "right"
    increasing = searchsorted(bins, x, side=side)
    decreasing = bins.shape[0] - searchsorted(flip(bins), x, side=side)
    return where(bins[-1] >= bins[0], increasing, decreasing)


# ----------------------------------------------------------------------------
# Index conversions
# ----------------------------------------------------------------------------

@emits_ops
def unravel_index(indices, shape) -> tuple:
    """The indices into an array of ``shape`` of the flat positions ``indices`` (C order).

    As in JAX, negative positions count from the end and positions out of
    range are clamped to the first or last element.

    Examples
    --------
    >>> unravel_index(np.array([1, 5, -1]), (2, 3))
    (array([0, 1, 1]), array([1, 2, 2]))
    """
    flat = asarray(indices)
    if flat.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: the indices must be integers, got {flat.dtype.name}")
    shape = (int(shape),) if np.ndim(shape) == 0 else tuple(int(n) for n in shape)
    total = int(np.prod(shape, dtype=np.int64))
    flat = clip(where(flat < 0, flat + total, flat), 0, max(total - 1, 0))
    return _unravel(flat, shape)


def ravel_multi_index(multi_index, dims, mode: str = "raise", order: str = "C") -> Tracer:
    """The flat positions, in an array of shape ``dims``, of the indices ``multi_index`` (one array per dim).

    ``mode`` ``"clip"`` or ``"wrap"`` treats indices out of range; numpy's
    ``"raise"`` checks concrete ones. ``order`` ``"C"`` or ``"F"``.

    Examples
    --------
    >>> ravel_multi_index((np.array([0, 1]), np.array([2, 0])), (2, 3))
    array([2, 3])
    """
    mode = _concrete_mode("ravel_multi_index", mode, multi_index,
                          lambda index: np.ravel_multi_index(tuple(np.asarray(i) for i in index), dims))
    return _ravel_multi_index(tuple(multi_index), tuple(int(n) for n in dims), mode, order)


@emits_ops
def _ravel_multi_index(multi_index: tuple, dims: tuple, mode: str, order: str) -> Tracer:
    if mode not in ("clip", "wrap"):
        raise ValueError(f"ravel_multi_index: mode must be 'raise', 'clip' or 'wrap', got {mode!r}")
    if order not in ("C", "F"):
        raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
    if len(multi_index) != len(dims):
        raise ValueError(f"ravel_multi_index: {len(multi_index)} index arrays for {len(dims)} dims")
    indices = [astype(asarray(i), int64) for i in multi_index]
    fitted = [clip(i, 0, n - 1) if mode == "clip" else remainder(i, n) for i, n in zip(indices, dims)]
    # The stride of each dim: the product of the dims after it (C) or before it (F).
    order_dims = dims[::-1] if order == "C" else dims
    strides = np.cumprod((1,) + order_dims[:-1])
    strides = strides[::-1] if order == "C" else strides
    shape = tuple(np.broadcast_shapes(*(i.shape for i in fitted)))
    return reduce_sum(stack([broadcast_to(i * int(s), shape) for i, s in zip(fitted, strides)]), 0)


@emits_ops
def ix_(*args) -> tuple:
    """Open mesh index arrays from 1-D integer arrays: the ``i``-th shaped to lie along dim ``i``.

    Examples
    --------
    >>> [i.shape for i in ix_(np.array([0, 1]), np.array([2, 0, 1]))]
    [(2, 1), (1, 3)]
    """
    out = []
    for k, seq in enumerate(args):
        seq = asarray(seq)
        if seq.ndim != 1:
            raise ValueError(f"ix_: the arguments must be 1-D, argument {k} has shape {seq.shape}")
        if dtypes.is_bool(seq.dtype):
            raise TypeError("ix_: boolean arguments have a data-dependent length; pass their nonzero() indices")
        out.append(reshape(seq, (1,) * k + (seq.shape[0],) + (1,) * (len(args) - k - 1)))
    return tuple(out)


# ----------------------------------------------------------------------------
# Picking elements
# ----------------------------------------------------------------------------

def choose(a, choices, out=None, mode: str = "raise") -> Tracer:
    """``choices[a[i]][i]`` for each index of the broadcast ``a`` and ``choices``.

    Examples
    --------
    >>> choose(np.array([0, 1, 0]), [np.array([1, 2, 3]), np.array([10, 20, 30])])
    array([ 1, 20,  3])
    """
    if out is not None:
        raise TracingError(f"{user_line()}: choose: 'out' is not supported (arrays are immutable)")
    count = len(choices)
    mode = _concrete_mode("choose", mode, a, lambda index: np.choose(np.asarray(index), list(range(count))))
    return _choose(a, choices, mode)


@emits_ops
def _choose(a, choices, mode: str) -> Tracer:
    if mode not in ("clip", "wrap"):
        raise ValueError(f"choose: mode must be 'raise', 'clip' or 'wrap', got {mode!r}")
    index = asarray(a)
    choices = [asarray(c) for c in choices]
    count = len(choices)
    dtype = dtypes.result_type(*choices)
    shape = tuple(np.broadcast_shapes(index.shape, *(c.shape for c in choices)))
    stacked = stack([broadcast_to(astype(c, dtype), shape) for c in choices])
    index = clip(index, 0, count - 1) if mode == "clip" else remainder(index, count)
    return take_along_axis(stacked, broadcast_to(index, shape)[None], 0)[0]


def compress(condition, a, axis: int | None = None, *, size: int | None = None, fill_value=0, out=None) -> Tracer:
    """The slices of ``a`` along ``axis`` (of ``a`` flattened when None) where the 1-D ``condition`` is true.

    A ``condition`` shorter than the axis counts as false past its end.

    Examples
    --------
    >>> compress(np.array([True, False, True]), np.arange(6).reshape(3, 2), axis=0)
    array([[0, 1],
           [4, 5]])
    """
    if out is not None:
        raise TracingError(f"{user_line()}: compress: 'out' is not supported (arrays are immutable)")
    size = static_size(size, (condition,), "compress", np.count_nonzero)
    return _compress(condition, a, axis, size, fill_value)


@emits_ops
def _compress(condition, a, axis, size: int, fill_value) -> Tracer:
    keep, x = asarray(condition), asarray(a)
    if keep.ndim != 1:
        raise ValueError(f"compress: condition must be 1-D, got shape {keep.shape}")
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis]
    keep = not_equal(keep[:n], 0)
    if keep.shape[0] < n:
        keep = concatenate([keep, zeros((n - keep.shape[0],), bool)])
    positions, total = first_true_positions(keep, size)
    present = reshape(arange(size) < total, (size,) + (1,) * (x.ndim - axis - 1))
    return where(present, take(x, positions, axis), fill_value)


def extract(condition, arr, *, size: int | None = None, fill_value=0) -> Tracer:
    """The elements of ``arr`` where ``condition`` is nonzero, flattened.

    Examples
    --------
    >>> extract(np.array([[1, 0], [0, 1]]), np.array([[5, 6], [7, 8]]))
    array([5, 8])
    """
    size = static_size(size, (condition,), "extract", np.count_nonzero)
    return _extract(condition, arr, size, fill_value)


@emits_ops
def _extract(condition, arr, size: int, fill_value) -> Tracer:
    return _compress(ravel(asarray(condition)), ravel(asarray(arr)), None, size, fill_value)


def _immutable(name: str, inplace: bool) -> None:
    if inplace:
        raise TracingError(f"{user_line()}: {name} cannot change an array in place (arrays are immutable): pass "
                           "inplace=False to get the changed array back")


@emits_ops
def place(arr, mask, vals, *, inplace: bool = True) -> Tracer:
    """``arr`` with the elements where ``mask`` is true replaced by ``vals`` in turn (repeated as needed).

    Needs ``inplace=False``, as JAX's: the new array is returned.

    Examples
    --------
    >>> place(np.zeros(5), np.array([1, 0, 1, 1, 0]), np.array([7.0, 8.0]), inplace=False)
    array([7., 0., 8., 7., 0.])
    """
    _immutable("place", inplace)
    x, chosen, values = asarray(arr), ravel(not_equal(asarray(mask), 0)), ravel(asarray(vals))
    if chosen.shape[0] != int(np.prod(x.shape)):
        raise ValueError(f"place: mask of {chosen.shape[0]} elements does not fit an array of shape {x.shape}")
    if values.shape[0] == 0:
        return x
    # The k-th chosen element (from 0) takes vals[k % len(vals)].
    turn = remainder(cumsum(chosen) - 1, values.shape[0])
    return reshape(where(chosen, astype(take(values, turn), x.dtype), ravel(x)), x.shape)


@emits_ops
def put(a, ind, v, mode=None, *, inplace: bool = True) -> Tracer:
    """``a`` with its flat positions ``ind`` set to ``v`` (repeated as needed); needs ``inplace=False``, as JAX's.

    ``mode`` None (JAX's): negative positions count from the end, and
    positions out of range go to the nearest end; ``"clip"`` clamps
    negative ones to 0; ``"wrap"`` takes them modulo the size.

    Examples
    --------
    >>> put(np.zeros(4), np.array([0, 2]), np.array([5.0, 6.0]), inplace=False)
    array([5., 0., 6., 0.])
    """
    _immutable("put", inplace)
    if mode not in (None, "clip", "wrap"):
        raise ValueError(f"put: mode must be None, 'clip' or 'wrap' (no 'raise' in compiled code), got {mode!r}")
    x, positions, values = asarray(a), ravel(asarray(ind)), ravel(asarray(v))
    flat = ravel(x)
    if positions.shape[0] == 0 or values.shape[0] == 0:
        return x
    values = take(values, remainder(arange(positions.shape[0]), values.shape[0]))
    last = flat.shape[0] - 1
    if mode is None:  # JAX's: negative positions count from the end, the rest are clamped
        positions = clip(where(positions < 0, positions + flat.shape[0], positions), 0, last)
    elif mode == "clip":
        positions = clip(positions, 0, last)
    else:
        positions = remainder(positions, flat.shape[0])
    return reshape(flat.at[positions].set(astype(values, x.dtype)), x.shape)


# ----------------------------------------------------------------------------
# Inserting and deleting (static positions)
# ----------------------------------------------------------------------------

@emits_ops
def insert(arr, obj, values, axis: int | None = None) -> Tracer:
    """``arr`` with ``values`` inserted before the positions ``obj`` along ``axis`` (flattened when None).

    ``obj`` is an integer (``values`` go in as a block there), a slice or
    a sequence of positions (one value or slice each), static.

    Examples
    --------
    >>> insert(np.array([1, 2, 3]), [1, 3], np.array([8, 9]))
    array([1, 8, 2, 3, 9])
    """
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis]
    obj = _static_positions(obj, "insert")
    values = astype(asarray(values), x.dtype)
    values = reshape(values, (1,) * (x.ndim - values.ndim) + values.shape)
    if isinstance(obj, slice) or obj.ndim:
        positions = np.arange(n)[obj] if isinstance(obj, slice) else obj.astype(np.int64)
        positions = np.where(positions < 0, positions + n, positions)
        if ((positions < 0) | (positions > n)).any():
            raise IndexError(f"insert: positions {obj} are out of bounds for an axis of size {n}")
        count = positions.shape[0]
        # Inserted values keep their order among equal positions, after one another.
        new_places = np.empty(count, np.int64)
        new_places[np.argsort(positions, kind="stable")] = np.sort(positions, kind="stable") + np.arange(count)
    else:
        position = int(obj) + n if obj < 0 else int(obj)
        if not 0 <= position <= n:
            raise IndexError(f"insert: position {int(obj)} is out of bounds for an axis of size {n}")
        # A scalar position takes the values as a block: their first dim goes to the axis.
        values = moveaxis(values, 0, axis)
        count = values.shape[axis]
        new_places = position + np.arange(count)
    values = broadcast_to(values, x.shape[:axis] + (count,) + x.shape[axis + 1:])
    # Each result position reads from [arr, values] joined along the axis.
    source = np.empty(n + count, np.int64)
    source[new_places] = n + np.arange(count)
    source[np.setdiff1d(np.arange(n + count), new_places)] = np.arange(n)
    return take(concatenate([x, values], axis), source, axis)


@emits_ops
def delete(arr, obj, axis: int | None = None, *, assume_unique_indices: bool = False) -> Tracer:
    """``arr`` without the entries at the static positions ``obj`` (an integer, a slice or a sequence) along
    ``axis`` (flattened when None).

    Examples
    --------
    >>> delete(np.arange(5), [0, 3])
    array([1, 2, 4])
    """
    x = asarray(arr)
    if axis is None:
        x, axis = ravel(x), 0
    axis = normalize_axis_index(axis, x.ndim)
    obj = _static_positions(obj, "delete")
    keep = np.ones(x.shape[axis], bool)
    keep[obj if isinstance(obj, slice) else obj.astype(np.int64)] = False
    return take(x, np.flatnonzero(keep), axis)


# ----------------------------------------------------------------------------
# Partitions, trimming
# ----------------------------------------------------------------------------

def _kth(kth, a, axis: int, name: str) -> tuple:
    x = asarray(a)
    axis = normalize_axis_index(axis, x.ndim)
    n = x.shape[axis]
    kth = operator.index(kth)
    if not -n <= kth < n:
        raise ValueError(f"{name}: kth {kth} is out of bounds for an axis of size {n}")
    return moveaxis(x, axis, -1), axis, kth % n


@emits_ops
def partition(a, kth: int, axis: int = -1) -> Tracer:
    """``a`` reordered along ``axis`` so that its ``kth`` element is in sorted place, smaller ones before and
    larger after.

    As JAX's: the first ``kth + 1`` come ascending, the rest descending.

    Examples
    --------
    >>> partition(np.array([3.0, 1.0, 4.0, 1.5, 9.0]), 1)
    array([1. , 1.5, 9. , 4. , 3. ])
    """
    x, axis, kth = _kth(kth, a, axis, "partition")
    ordered = sort(x, axis=-1)
    return moveaxis(concatenate([ordered[..., :kth + 1], flip(ordered[..., kth + 1:], -1)], -1), -1, axis)


@emits_ops
def argpartition(a, kth: int, axis: int = -1) -> Tracer:
    """Indices that :func:`partition` ``a``: the ``kth + 1`` smallest in order, then the others' in increasing
    index order (JAX's).

    Examples
    --------
    >>> argpartition(np.array([3.0, 1.0, 4.0, 1.5, 9.0]), 1)
    array([1, 3, 0, 2, 4])
    """
    x, axis, kth = _kth(kth, a, axis, "argpartition")
    order = argsort(x, axis=-1)
    return moveaxis(concatenate([order[..., :kth + 1], sort(order[..., kth + 1:], axis=-1)], -1), -1, axis)


def trim_zeros(filt, trim: str = "fb"):
    """The 1-D ``filt`` without its leading (``"f"`` in ``trim``) and trailing (``"b"``) zeros; concrete only.

    Its length depends on the values, so a traced ``filt`` is refused.

    Examples
    --------
    >>> trim_zeros(np.array([0, 0, 1, 2, 0]))
    array([1, 2])
    """
    if isinstance(filt, Tracer):
        raise TracingError(f"{user_line()}: trim_zeros needs a concrete array: its result's length depends on "
                           "the values")
    values = np.asarray(filt)
    if values.ndim != 1:
        raise ValueError(f"trim_zeros: needs a 1-D array, got shape {values.shape}")
    nonzero_at = np.flatnonzero(values)
    if nonzero_at.size == 0:
        return values[:0]
    first = nonzero_at[0] if "f" in trim.lower() else 0
    last = nonzero_at[-1] + 1 if "b" in trim.lower() else values.shape[0]
    return values[first:last]


@emits_ops
def put_along_axis(arr, indices, values, axis: int | None, inplace: bool = True, *, mode=None) -> Tracer:
    """``arr`` with ``values`` put where :func:`take_along_axis` would read, as JAX's: a new array (``inplace=False``).

    numpy writes into ``arr``; arrays here are values, so, as in JAX, the
    default ``inplace=True`` is refused. ``values`` broadcast to the shape
    of ``indices`` (broadcast against ``arr`` off ``axis``); ``mode`` is
    :meth:`at`'s for out-of-bounds indices.

    Examples
    --------
    >>> put_along_axis(np.zeros((2, 3)), np.array([[2], [0]]), 9.0, axis=1, inplace=False)
    array([[0., 0., 9.],
           [9., 0., 0.]])
    """
    if inplace:
        raise NotImplementedError("arrays are immutable here: use put_along_axis(..., inplace=False), which returns "
                                  "the new array")
    arr, indices = asarray(arr), asarray(indices)
    if axis is None:
        if indices.ndim != 1:
            raise ValueError(f"when axis=None, `indices` must have a single dimension, got {indices.ndim}")
        return reshape(put_along_axis(ravel(arr), indices, ravel(asarray(values)), 0, False, mode=mode), arr.shape)
    if indices.ndim != arr.ndim:
        raise ValueError(f"`indices` and `arr` must have the same number of dimensions, got {indices.ndim} and "
                         f"{arr.ndim}")
    if dtypes.is_inexact(indices.dtype) or dtypes.is_bool(indices.dtype):
        raise TypeError(f"`indices` must be an integer array, got {indices.dtype}")
    axis = normalize_axis_index(operator.index(axis), arr.ndim)
    shape = np.broadcast_shapes(tuple(1 if d == axis else n for d, n in enumerate(arr.shape)), indices.shape)
    where_ = tuple(broadcast_to(indices, shape) if d == axis else
                   broadcast_to(reshape(arange(n), [n if e == d else 1 for e in range(arr.ndim)]), shape)
                   for d, n in enumerate(arr.shape))
    return arr.at[where_].set(broadcast_to(astype(asarray(values), arr.dtype), shape), mode=mode)
