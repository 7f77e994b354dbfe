"""numpy's shape manipulation, composed of the structure ops: flips, rolls, repeats, tiles, splits, stacks, pads.

Every function here is a handful of ``tad`` structure ops (``reverse``,
``slice``, ``pad``, ``broadcast_in_dim``, ``reshape``, ``transpose``,
``tensor.concat``), so derivatives and batching come from those ops' rules.
Reorderings known while tracing (``pad``'s modes, ``roll`` by a constant)
are concatenations of slices, reversed slices and broadcast edges rather
than gathers: their reverse mode is again slices and pads, not a
scatter-add. Sizes, axes, repeats, pad widths and split points are static,
as in JAX; a traced ``roll`` shift is a gather.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.pad(tnp.flip(x), 2, mode="reflect"))(np.arange(3.0))
array([0., 1., 2., 1., 0., 1., 2.])
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from tensorad.dialects import builder

from .. import dtypes
from ..errors import TracingError
from ..tracing import Tracer, emits_ops
from . import (asarray, astype, broadcast_to, concatenate, getitem, ravel, remainder, reshape, stack, subtract,
               not_equal, swapaxes, take, transpose, zeros)
from . import max as reduce_max, min as reduce_min, round as round_half_even
from .creation import linspace


def _along(x: Tracer, axis: int, start, stop) -> Tracer:
    """``x[start:stop]`` along ``axis`` (Python slice semantics)."""
    return getitem(x, (slice(None),) * axis + (slice(start, stop),))


def _static(value, what: str):
    """A static parameter as numpy data: traced values are refused, numpy arrays become lists.

    Eagerly, numpy arrays reach a frontend function traced; parameters that
    decide shapes go through this first, so ``np.array`` arguments work.
    """
    if isinstance(value, Tracer):
        raise TracingError(f"{what} must be concrete (it decides the result's shape); got a traced "
                           f"{value.dtype.name}{list(value.shape)}")
    return value.tolist() if isinstance(value, np.ndarray) else value


def _pieces(x: Tracer, indices: np.ndarray, axis: int) -> Tracer:
    """``take(x, indices, axis)`` for concrete ``indices``, as slices when they run in few steps of -1, 0 or 1.

    Runs of consecutive (step 1), reversed (step -1) and repeated (step 0)
    positions become slices, reversed slices and broadcast slices; many runs
    fall back to one gather.
    """
    runs, i = [], 0
    while i < len(indices):
        step = int(indices[i + 1] - indices[i]) if i + 1 < len(indices) else 1
        step = step if step in (-1, 0, 1) else 1
        j = i + 1
        while j < len(indices) and indices[j] - indices[j - 1] == step:
            j += 1
        runs.append((int(indices[i]), j - i, step))
        i = j
    if not runs or len(runs) > 8:
        return take(x, indices, axis)
    parts = []
    for first, count, step in runs:
        if step == 1:
            parts.append(_along(x, axis, first, first + count))
        elif step == -1:
            parts.append(flip(_along(x, axis, first - count + 1, first + 1), axis))
        else:
            edge = _along(x, axis, first, first + 1)
            parts.append(broadcast_to(edge, edge.shape[:axis] + (count,) + edge.shape[axis + 1:]))
    return concatenate(parts, axis) if len(parts) > 1 else parts[0]


# ----------------------------------------------------------------------------
# Axes
# ----------------------------------------------------------------------------

@emits_ops
def moveaxis(a, source, destination) -> Tracer:
    """Move axes ``source`` of ``a`` to positions ``destination``; the others keep their order.

    Examples
    --------
    >>> moveaxis(np.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    """
    a = asarray(a)
    source = normalize_axis_tuple(source, a.ndim, "source")
    destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    order = [d for d in range(a.ndim) if d not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(a, order)


@emits_ops
def permute_dims(a, /, axes) -> Tracer:
    """The array API's :func:`tensorad.numpy.transpose`: dim ``i`` of the result is ``axes[i]`` of ``a``.

    Examples
    --------
    >>> permute_dims(np.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return transpose(a, axes)


@emits_ops
def matrix_transpose(x, /) -> Tracer:
    """Transpose of the matrices in the last two dims (numpy 2's ``matrix_transpose``).

    Examples
    --------
    >>> matrix_transpose(np.arange(6.0).reshape(2, 3)).shape
    (3, 2)
    """
    x = asarray(x)
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: needs at least two dimensions, got shape {x.shape}")
    return swapaxes(x, -1, -2)


@emits_ops
def rollaxis(a, axis: int, start: int = 0) -> Tracer:
    """Move ``axis`` to before position ``start`` (numpy's older :func:`moveaxis`).

    Examples
    --------
    >>> rollaxis(np.zeros((2, 3, 4)), 2).shape, rollaxis(np.zeros((2, 3, 4)), 0, 3).shape
    ((4, 2, 3), (3, 4, 2))
    """
    a = asarray(a)
    axis = normalize_axis_index(axis, a.ndim)
    start = start + a.ndim if start < 0 else start
    if not 0 <= start <= a.ndim:
        raise ValueError(f"rollaxis: start {start} is out of bounds for an array of dimension {a.ndim}")
    # Before ``start`` counts positions of the array with ``axis`` still in it.
    destination = start - 1 if axis < start else start
    return moveaxis(a, axis, destination)


@emits_ops
def unstack(x, /, *, axis: int = 0) -> tuple:
    """The slices of ``x`` along ``axis``, as a tuple (the inverse of :func:`tensorad.numpy.stack`).

    Examples
    --------
    >>> [u.tolist() for u in unstack(np.arange(4.0).reshape(2, 2), axis=1)]
    [[0.0, 2.0], [1.0, 3.0]]
    """
    x = asarray(x)
    if x.ndim == 0:
        raise ValueError("unstack: needs an array of at least one dimension")
    axis = normalize_axis_index(axis, x.ndim)
    return tuple(getitem(x, (slice(None),) * axis + (i,)) for i in range(x.shape[axis]))


def _at_least(arys: tuple, shape_of) -> Tracer | tuple:
    out = tuple(reshape(a, shape_of(a.shape)) for a in map(asarray, arys))
    return out[0] if len(out) == 1 else out


@emits_ops
def atleast_1d(*arys):
    """Views of the inputs with at least one dimension (a tuple for several inputs, as numpy 2).

    Examples
    --------
    >>> atleast_1d(np.float64(2.0))
    array([2.])
    """
    return _at_least(arys, lambda s: s if len(s) >= 1 else (1,))


@emits_ops
def atleast_2d(*arys):
    """Inputs with at least two dimensions: a 1-D array of ``n`` becomes ``(1, n)``.

    Examples
    --------
    >>> atleast_2d(np.arange(3.0)).shape
    (1, 3)
    """
    return _at_least(arys, lambda s: s if len(s) >= 2 else (1,) * (2 - len(s)) + s)


@emits_ops
def atleast_3d(*arys):
    """Inputs with at least three dimensions: ``(n,)`` becomes ``(1, n, 1)``, ``(m, n)`` becomes ``(m, n, 1)``.

    Examples
    --------
    >>> atleast_3d(np.ones((2, 3))).shape
    (2, 3, 1)
    """
    return _at_least(arys, lambda s: s if len(s) >= 3 else {0: (1, 1, 1), 1: (1,) + s + (1,), 2: s + (1,)}[len(s)])


@emits_ops
def broadcast_arrays(*args) -> tuple:
    """The inputs broadcast against each other (a tuple, as numpy 2).

    Examples
    --------
    >>> [a.shape for a in broadcast_arrays(np.ones((2, 1)), np.ones(3))]
    [(2, 3), (2, 3)]
    """
    arrays = [asarray(a) for a in args]
    shape = np.broadcast_shapes(*(a.shape for a in arrays))
    return tuple(broadcast_to(a, shape) for a in arrays)


# ----------------------------------------------------------------------------
# Reversals and rotations
# ----------------------------------------------------------------------------

@emits_ops
def flip(m, axis=None) -> Tracer:
    """Reverse the order of the elements along ``axis`` (all axes when None); ``tad.reverse``.

    Examples
    --------
    >>> flip(np.arange(6.0).reshape(2, 3), 1)
    array([[2., 1., 0.],
           [5., 4., 3.]])
    """
    m = asarray(m)
    axes = range(m.ndim) if axis is None else normalize_axis_tuple(axis, m.ndim)
    axes = [d for d in axes if m.shape[d] > 1]
    return Tracer.of(builder.reverse(m.value, axes)) if axes else m


@emits_ops
def fliplr(m) -> Tracer:
    """Reverse the order of the columns (axis 1) of an array of at least two dimensions.

    Examples
    --------
    >>> fliplr(np.eye(2))
    array([[0., 1.],
           [1., 0.]])
    """
    m = asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


@emits_ops
def flipud(m) -> Tracer:
    """Reverse the order of the rows (axis 0) of an array of at least one dimension.

    Examples
    --------
    >>> flipud(np.arange(3.0))
    array([2., 1., 0.])
    """
    m = asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return flip(m, 0)


@emits_ops
def rot90(m, k: int = 1, axes=(0, 1)) -> Tracer:
    """Rotate by 90 degrees ``k`` times in the plane of ``axes``, from the first axis towards the second.

    Examples
    --------
    >>> rot90(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([[2., 4.],
           [1., 3.]])
    """
    m = asarray(m)
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if not all(-m.ndim <= a < m.ndim for a in axes):
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    k = int(k) % 4
    if k == 0:
        return m
    if k == 2:
        return flip(m, axes)
    perm = list(range(m.ndim))
    perm[axes[0]], perm[axes[1]] = perm[axes[1]], perm[axes[0]]
    return transpose(flip(m, axes[1]), perm) if k == 1 else flip(transpose(m, perm), axes[1])


@emits_ops
def roll(a, shift, axis=None) -> Tracer:
    """Shift elements along ``axis`` cyclically (of the flattened array when None).

    A constant shift concatenates two slices; a traced one (an integer
    scalar, or one per axis) gathers at the shifted positions.

    Examples
    --------
    >>> roll(np.arange(5.0), 2)
    array([3., 4., 0., 1., 2.])
    """
    a = asarray(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True) if not isinstance(axis, int) else \
        (normalize_axis_index(axis, a.ndim),)
    if isinstance(shift, Tracer):
        if shift.dtype.kind not in "iu" or shift.ndim > 1:
            raise TracingError(f"roll needs an integer shift (or one per axis), got {shift.dtype.name}"
                               f"{list(shift.shape)}")
        shifts = [shift] * len(axes) if shift.ndim == 0 else [getitem(shift, i) for i in range(shift.shape[0])]
        if len(shifts) != len(axes):
            raise ValueError(f"roll got {len(shifts)} shifts for {len(axes)} axes")
        for s, d in zip(shifts, axes):
            n = a.shape[d]
            if n:
                a = take(a, remainder(subtract(np.arange(n), s), n), d)
        return a
    shifts, axes = np.broadcast_arrays(np.asarray(shift), np.asarray(axes))
    if shifts.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    totals = {}
    for s, d in zip(shifts.ravel().tolist(), axes.ravel().tolist()):
        totals[d] = totals.get(d, 0) + s
    for d, s in totals.items():
        n = a.shape[d]
        if n and s % n:
            s %= n
            a = concatenate([_along(a, d, n - s, n), _along(a, d, 0, n - s)], d)
    return a


# ----------------------------------------------------------------------------
# Repeats and tiles
# ----------------------------------------------------------------------------

def repeat(a, repeats, axis=None) -> Tracer:
    """Repeat each element of ``a`` along ``axis`` (of the flattened ``a`` when None).

    ``repeats`` is an integer, or one per element along ``axis``; it must be
    concrete (it decides the result's shape). A single count is a broadcast
    and a reshape; several counts gather.

    Examples
    --------
    >>> repeat(np.array([[1.0, 2.0]]), [1, 3], axis=1)
    array([[1., 2., 2., 2.]])
    """
    return _repeat(a, _static(repeats, "repeats"), axis)


@emits_ops
def _repeat(a, repeats, axis) -> Tracer:
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = normalize_axis_index(axis, a.ndim)
    counts = np.asarray(repeats)
    if counts.dtype.kind not in "iu" or (counts < 0).any():
        raise ValueError(f"repeats must be non-negative integers, got {repeats!r}")
    n = a.shape[axis]
    if counts.size == 1:
        r = int(counts.reshape(()))
        wide = broadcast_to(reshape(a, a.shape[:axis + 1] + (1,) + a.shape[axis + 1:]),
                            a.shape[:axis + 1] + (r,) + a.shape[axis + 1:])
        return reshape(wide, a.shape[:axis] + (n * r,) + a.shape[axis + 1:])
    if counts.shape != (n,):
        raise ValueError(f"operands could not be broadcast together with shape ({n},) ({counts.size},)")
    return _pieces(a, np.repeat(np.arange(n), counts), axis)


def tile(A, reps) -> Tracer:
    """``A`` repeated ``reps`` times along each axis (one broadcast and one reshape).

    Examples
    --------
    >>> tile(np.array([1.0, 2.0]), (2, 2))
    array([[1., 2., 1., 2.],
           [1., 2., 1., 2.]])
    """
    reps = _static(reps, "reps")
    return _tile(A, tuple(reps) if isinstance(reps, (list, tuple)) else (reps,))


@emits_ops
def _tile(A, reps: tuple) -> Tracer:
    A = asarray(A)
    reps = tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"negative dimensions are not allowed: reps {reps}")
    reps = (1,) * (A.ndim - len(reps)) + reps
    A = reshape(A, (1,) * (len(reps) - A.ndim) + A.shape)
    interleaved = [size for r, n in zip(reps, A.shape) for size in (r, n)]
    wide = Tracer.of(builder.broadcast_in_dim(A.value, interleaved, range(1, len(interleaved), 2)))
    return reshape(wide, [r * n for r, n in zip(reps, A.shape)])


# ----------------------------------------------------------------------------
# Splits and stacks
# ----------------------------------------------------------------------------

def array_split(ary, indices_or_sections, axis: int = 0) -> list:
    """Split ``ary`` along ``axis`` into sections (an integer: sizes differ by at most one) or at indices.

    Examples
    --------
    >>> [p.tolist() for p in array_split(np.arange(5.0), 3)]
    [[0.0, 1.0], [2.0, 3.0], [4.0]]
    """
    return _split(ary, _static(indices_or_sections, "indices_or_sections"), axis, False)


def split(ary, indices_or_sections, axis: int = 0) -> list:
    """Split ``ary`` along ``axis`` into equal sections (an integer that must divide the axis) or at indices.

    Examples
    --------
    >>> [p.tolist() for p in split(np.arange(4.0), [1])]
    [[0.0], [1.0, 2.0, 3.0]]
    """
    return _split(ary, _static(indices_or_sections, "indices_or_sections"), axis, True)


@emits_ops
def _split(ary, sections, axis: int, equal: bool) -> list:
    ary = asarray(ary)
    axis = normalize_axis_index(axis, ary.ndim)
    n = ary.shape[axis]
    if isinstance(sections, (list, tuple)):
        bounds = [0] + [int(i) for i in sections] + [n]
    else:
        count = int(sections)
        if count <= 0:
            raise ValueError("number sections must be larger than 0.")
        if equal and n % count:
            raise ValueError("array split does not result in an equal division")
        size, extra = divmod(n, count)
        bounds = np.cumsum([0] + [size + 1] * extra + [size] * (count - extra)).tolist()
    return [_along(ary, axis, lo, hi) for lo, hi in zip(bounds[:-1], bounds[1:])]


def _split_along(ary, indices_or_sections, axis: int, least_ndim: int, name: str) -> list:
    """numpy's ``split`` along ``axis``, for arrays of at least ``least_ndim`` dims."""
    ndim = ary.ndim if isinstance(ary, Tracer) else np.ndim(ary)
    if ndim < least_ndim:
        raise ValueError(f"{name} only works on arrays of {least_ndim} or more dimensions")
    return split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections) -> list:
    """Split ``ary`` column-wise: along axis 1 (axis 0 of a vector), as :func:`split`.

    Examples
    --------
    >>> [p.shape for p in hsplit(np.zeros((2, 4)), 2)]
    [(2, 2), (2, 2)]
    """
    ndim = ary.ndim if isinstance(ary, Tracer) else np.ndim(ary)
    return _split_along(ary, indices_or_sections, 1 if ndim > 1 else 0, 1, "hsplit")


def vsplit(ary, indices_or_sections) -> list:
    """Split ``ary`` row-wise: along axis 0, as :func:`split` (at least 2-D).

    Examples
    --------
    >>> [p.shape for p in vsplit(np.zeros((4, 2)), [1])]
    [(1, 2), (3, 2)]
    """
    return _split_along(ary, indices_or_sections, 0, 2, "vsplit")


def dsplit(ary, indices_or_sections) -> list:
    """Split ``ary`` depth-wise: along axis 2, as :func:`split` (at least 3-D).

    Examples
    --------
    >>> [p.shape for p in dsplit(np.zeros((1, 2, 4)), 2)]
    [(1, 2, 2), (1, 2, 2)]
    """
    return _split_along(ary, indices_or_sections, 2, 3, "dsplit")


def _joined(tup, axis: int, dtype) -> Tracer:
    return concatenate(list(tup) if dtype is None else [astype(t, dtype) for t in tup], axis)


@emits_ops
def vstack(tup, dtype=None) -> Tracer:
    """Stack arrays row-wise: concatenate along axis 0 after :func:`atleast_2d`.

    Examples
    --------
    >>> vstack([np.zeros(2), np.ones(2)])
    array([[0., 0.],
           [1., 1.]])
    """
    return _joined([atleast_2d(t) for t in tup], 0, dtype)


@emits_ops
def hstack(tup, dtype=None) -> Tracer:
    """Stack arrays column-wise: along axis 1, or axis 0 for 1-D arrays.

    Examples
    --------
    >>> hstack([np.zeros(2), np.ones(1)])
    array([0., 0., 1.])
    """
    arrays = [atleast_1d(t) for t in tup]
    return _joined(arrays, 0 if arrays and arrays[0].ndim == 1 else 1, dtype)


@emits_ops
def dstack(tup) -> Tracer:
    """Stack arrays depth-wise: concatenate along axis 2 after :func:`atleast_3d`.

    Examples
    --------
    >>> dstack([np.zeros(2), np.ones(2)]).shape
    (1, 2, 2)
    """
    return _joined([atleast_3d(t) for t in tup], 2, None)


@emits_ops
def column_stack(tup) -> Tracer:
    """Stack 1-D arrays as the columns of a 2-D array (2-D arrays are stacked as they are).

    Examples
    --------
    >>> column_stack([np.zeros(2), np.ones(2)])
    array([[0., 1.],
           [0., 1.]])
    """
    columns = []
    for t in tup:
        t = asarray(t)
        columns.append(reshape(t, (t.shape[0], 1)) if t.ndim == 1 else atleast_2d(t))
    return _joined(columns, 1, None)


@emits_ops
def append(arr, values, axis=None) -> Tracer:
    """``values`` appended to ``arr`` along ``axis`` (both flattened when None).

    Examples
    --------
    >>> append(np.zeros(2), [[1.0, 2.0]])
    array([0., 0., 1., 2.])
    """
    if axis is None:
        return concatenate([ravel(arr), ravel(values)], 0)
    return concatenate([arr, values], axis)


# ----------------------------------------------------------------------------
# Grids and differences
# ----------------------------------------------------------------------------

@emits_ops
def meshgrid(*xi, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    """Coordinate arrays from 1-D coordinate vectors (Cartesian ``'xy'`` or matrix ``'ij'`` indexing).

    Examples
    --------
    >>> [g.tolist() for g in meshgrid(np.arange(2.0), np.arange(3.0) * 10.0)][1]
    [[0.0, 0.0], [10.0, 10.0], [20.0, 20.0]]
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    ones = (1,) * ndim
    out = [reshape(asarray(x), ones[:i] + (-1,) + ones[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        out[0] = reshape(out[0], (1, -1) + ones[2:])
        out[1] = reshape(out[1], (-1, 1) + ones[2:])
    return tuple(out) if sparse else broadcast_arrays(*out)


@emits_ops
def diff(a, n: int = 1, axis: int = -1, prepend=None, append=None) -> Tracer:
    """The ``n``-th discrete difference along ``axis`` (``a[1:] - a[:-1]``, ``!=`` for booleans).

    Examples
    --------
    >>> diff(np.array([1.0, 4.0, 9.0, 16.0]), n=2)
    array([2., 2.])
    """
    a = asarray(a)
    if n < 0:
        raise ValueError(f"order must be non-negative but got {n!r}")
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis_index(axis, a.ndim)
    if n == 0:
        return a
    edge = a.shape[:axis] + (1,) + a.shape[axis + 1:]
    parts = [broadcast_to(asarray(v), edge) if np.ndim(v) == 0 else asarray(v)
             for v in (prepend, a, append) if v is not None]
    a = concatenate(parts, axis) if len(parts) > 1 else a
    for _ in range(n):
        m = a.shape[axis]
        later, earlier = _along(a, axis, 1, m), _along(a, axis, 0, max(m - 1, 0))
        a = not_equal(later, earlier) if dtypes.is_bool(a.dtype) else subtract(later, earlier)
    return a


# ----------------------------------------------------------------------------
# Padding
# ----------------------------------------------------------------------------

_SELECTING = ("edge", "reflect", "symmetric", "wrap")  # each padded entry copies one entry of the array


def pad(array, pad_width, mode: str = "constant", **kwargs) -> Tracer:
    """Pad ``array`` with numpy's modes: ``constant`` (also ``empty``, padded with 0 as in JAX), ``edge``,
    ``reflect``/``symmetric`` (``reflect_type`` even or odd), ``wrap``, ``linear_ramp``, ``maximum``,
    ``minimum`` and ``mean`` (``stat_length``).

    ``pad_width`` is static; ``constant_values`` may be traced. Each axis is
    padded in turn, as numpy does, so corners follow numpy's. The modes that
    copy entries are slices, reversed slices and broadcast edges; the affine
    ones (``mean``, ``linear_ramp``, odd reflections) a small contraction.

    Examples
    --------
    >>> pad(np.array([1.0, 2.0]), (1, 2), constant_values=9.0)
    array([9., 1., 2., 9., 9.])
    >>> pad(np.array([1.0, 2.0, 3.0]), 2, mode="symmetric")
    array([2., 1., 1., 2., 3., 3., 2.])
    """
    pad_width = _static(pad_width, "pad_width")
    kwargs = {k: v if k == "constant_values" else _static(v, k) for k, v in kwargs.items()}
    return _pad(array, pad_width, mode, **kwargs)


def _pairs(value, ndim: int, what: str) -> list:
    """numpy's ``(before, after)`` pair per axis from a scalar, a pair or one pair per axis."""
    try:
        return np.broadcast_to(np.asarray(value), (ndim, 2)).tolist()
    except ValueError:
        raise ValueError(f"{what} {value!r} cannot be broadcast to {ndim} (before, after) pairs") from None


@emits_ops
def _pad(array, pad_width, mode: str, **kwargs) -> Tracer:
    x = asarray(array)
    widths = np.asarray(_pairs(pad_width, x.ndim, "pad_width"))
    if widths.dtype.kind not in "iu":
        raise TypeError("`pad_width` must be of integral type.")
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    allowed = {"constant": {"constant_values"}, "empty": set(), "edge": set(), "wrap": set(),
               "reflect": {"reflect_type"}, "symmetric": {"reflect_type"}, "linear_ramp": {"end_values"},
               "maximum": {"stat_length"}, "minimum": {"stat_length"}, "mean": {"stat_length"}}
    if mode not in allowed:
        raise NotImplementedError(f"pad mode {mode!r} is not supported; tensorad supports {sorted(allowed)}")
    if set(kwargs) - allowed[mode]:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {set(kwargs) - allowed[mode]}")
    if mode in ("constant", "empty"):
        return _pad_constant(x, widths, kwargs.get("constant_values", 0))
    for axis, (before, after) in enumerate(widths.tolist()):
        if before == after == 0:
            continue
        n = x.shape[axis]
        if n == 0:
            raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
        if mode in ("maximum", "minimum"):
            x = _pad_extreme(x, axis, before, after, mode, kwargs.get("stat_length"))
            continue
        if mode == "linear_ramp":
            x = _pad_ramp(x, axis, before, after, _pairs(kwargs.get("end_values", 0), x.ndim, "end_values")[axis])
            continue
        options = {k: np.asarray(_pairs(v, x.ndim, k))[axis].tolist() if k != "reflect_type" else v
                   for k, v in kwargs.items() if v is not None}
        if mode in _SELECTING and options.get("reflect_type", "even") == "even":
            source = np.pad(np.arange(n), (before, after), mode)
            x = _pieces(x, source, axis)
            continue
        x = _pad_affine(x, axis, before, after, mode, options)
    return x


def _pad_constant(x: Tracer, widths: np.ndarray, values) -> Tracer:
    """``tad.pad`` with a constant per side of each axis (one op for a single value)."""
    if isinstance(values, Tracer) and values.ndim > 0:
        values = [[getitem(v, j) for j in range(2)] for v in
                  (getitem(broadcast_to(values, (x.ndim, 2)), i) for i in range(x.ndim))]
    elif not isinstance(values, Tracer) and np.ndim(values) > 0:
        values = _pairs(values, x.ndim, "constant_values")
    else:
        value = astype(asarray(values), x.dtype)
        return Tracer.of(builder.pad(x.value, value.value, widths[:, 0].tolist(), widths[:, 1].tolist(),
                                     [0] * x.ndim))
    for axis, ((before, after), sides) in enumerate(zip(widths.tolist(), values)):
        for side, (width, value) in enumerate(zip((before, after), sides)):
            if width:
                low, high = [0] * x.ndim, [0] * x.ndim
                (high if side else low)[axis] = width
                x = Tracer.of(builder.pad(x.value, astype(asarray(value), x.dtype).value, low, high,
                                          [0] * x.ndim))
    return x


def _pad_extreme(x: Tracer, axis: int, before: int, after: int, mode: str, stat_length) -> Tracer:
    """``maximum``/``minimum`` padding: the extreme of the first/last ``stat_length`` entries, broadcast."""
    n = x.shape[axis]
    lengths = [n, n] if stat_length is None else \
        [int(v) for v in np.asarray(_pairs(stat_length, x.ndim, "stat_length"))[axis]]
    if min(lengths) < 0:
        raise ValueError("index can't contain negative values")
    if min(lengths) == 0:
        raise ValueError("stat_length of 0 yields no value for padding")
    first, last = (min(v, n) for v in lengths)
    reduce = reduce_max if mode == "maximum" else reduce_min

    def edge(window: Tracer, width: int) -> Tracer:
        value = reduce(window, axis, keepdims=True)
        return broadcast_to(value, value.shape[:axis] + (width,) + value.shape[axis + 1:])

    return concatenate([edge(_along(x, axis, 0, first), before), x, edge(_along(x, axis, n - last, n), after)],
                       axis)


def _pad_ramp(x: Tracer, axis: int, before: int, after: int, end_values) -> Tracer:
    """``linear_ramp`` padding: numpy's ``linspace`` from each end value to the edge (floored for integers)."""
    def ramp(end, edge_index: int, width: int) -> Tracer:
        edge = getitem(x, (slice(None),) * axis + (edge_index,))
        return linspace(end, edge, width, endpoint=False, dtype=x.dtype, axis=axis)

    parts = [ramp(end_values[0], 0, before)] if before else []
    parts.append(x)
    if after:
        parts.append(flip(ramp(end_values[1], x.shape[axis] - 1, after), axis))
    return concatenate(parts, axis)


def _pad_affine(x: Tracer, axis: int, before: int, after: int, mode: str, options: dict) -> Tracer:
    """Padding linear in the entries along ``axis`` (``mean``, odd reflections): ``M @ x``, ``M`` from numpy.

    numpy pads the identity matrix the same way: its column ``j`` is what
    entry ``j`` contributes to each padded entry.
    """
    matrix = np.pad(np.eye(x.shape[axis]), ((before, after), (0, 0)), mode, **options)
    float_dtype = dtypes.float_of(x.dtype)
    out = moveaxis(moveaxis(astype(x, float_dtype), axis, -1) @ asarray(matrix.T.astype(float_dtype)), -1, axis)
    if x.dtype.kind in "iub":  # numpy rounds the means of an integer array
        out = round_half_even(out)
    return astype(out, x.dtype)


@emits_ops
def concat(arrays, /, *, axis: int | None = 0) -> Tracer:
    """The array API's :func:`tensorad.numpy.concatenate`; ``axis=None`` joins the arrays flattened.

    Examples
    --------
    >>> concat([np.ones((1, 2)), np.zeros((1, 1))], axis=None)
    array([1., 1., 0.])
    """
    if axis is None:
        return concatenate([ravel(asarray(a)) for a in arrays], 0)
    return concatenate(list(arrays), axis)


@emits_ops
def resize(a, new_shape) -> Tracer:
    """``a`` flattened, repeated as often as needed and cut to fill ``new_shape`` (numpy's ``resize``).

    Examples
    --------
    >>> resize(np.array([1.0, 2.0, 3.0]), (2, 2))
    array([[1., 2.],
           [3., 1.]])
    """
    flat = ravel(asarray(a))
    new_shape = (int(new_shape),) if np.ndim(new_shape) == 0 else tuple(int(n) for n in new_shape)
    if any(n < 0 for n in new_shape):
        raise ValueError("resize: all elements of new_shape must be non-negative")
    size = int(np.prod(new_shape, dtype=np.int64))
    if flat.shape[0] == 0 or size == 0:
        return zeros(new_shape, flat.dtype)
    copies = -(-size // flat.shape[0])
    return reshape(getitem(tile(flat, copies), slice(0, size)), new_shape)


@emits_ops
def block(arrays) -> Tracer:
    """An array assembled from nested lists of blocks, as numpy's ``block``.

    The innermost lists are joined along the last axis, the lists around
    them along the one before, and so on; each block first gains leading
    axes of size 1 up to the result's rank (the larger of the nesting depth
    and the blocks' ranks).

    Examples
    --------
    >>> block([[np.eye(2), np.zeros((2, 1))], [np.ones((1, 2)), np.full((1, 1), 5.0)]])
    array([[1., 0., 0.],
           [0., 1., 0.],
           [1., 1., 5.]])
    """
    def depths(x, depth: int = 0):
        if isinstance(x, tuple):
            raise TypeError("block: arrays is a tuple; only lists can be used to arrange the blocks")
        if not isinstance(x, list):
            yield depth, asarray(x).ndim
            return
        if not x:
            raise ValueError("block: lists cannot be empty")
        for element in x:
            yield from depths(element, depth + 1)

    found = list(depths(arrays))
    if len({depth for depth, _ in found}) > 1:
        raise ValueError("block: list depths are mismatched")
    levels = found[0][0]
    rank = max(levels, *(ndim for _, ndim in found))

    def assemble(x, level: int):
        if level == levels:
            x = asarray(x)
            return reshape(x, (1,) * (rank - x.ndim) + x.shape)
        return concatenate([assemble(element, level + 1) for element in x], axis=level - levels)

    return assemble(arrays, 0)


class _Grid:
    """``mgrid[...]`` and ``ogrid[...]``: coordinate arrays from slices, as numpy's (and JAX's) index tricks.

    Each slice ``start:stop:step`` is ``arange(start, stop, step)``, or with
    a complex step ``n * 1j`` ``linspace(start, stop, n)`` (stop included).
    ``mgrid`` gives the dense grids stacked on a first axis; ``ogrid`` the
    open ones, each shaped to broadcast against the others.
    """

    def __init__(self, sparse: bool):
        self.sparse = sparse

    def __getitem__(self, key):
        single = isinstance(key, slice)
        axes = [_grid_axis(k) for k in ((key,) if single else key)]
        if single:
            return axes[0]
        grids = meshgrid(*axes, indexing="ij", sparse=self.sparse)
        return list(grids) if self.sparse else stack(grids)


def _grid_axis(k) -> Tracer:
    if not isinstance(k, slice):
        raise TypeError(f"mgrid and ogrid take slices (start:stop:step), got {type(k).__name__}")
    start = 0 if k.start is None else k.start
    step = 1 if k.step is None else k.step
    if isinstance(step, complex):
        return linspace(start, k.stop, int(abs(step)))
    values = np.arange(start, k.stop, step)  # static bounds: numpy's count and dtype
    return asarray(values.astype(np.float64) if values.dtype.kind == "f" else values.astype(np.int64))


#: ``mgrid[0:2, 0:3]``: dense coordinate grids, as ``numpy.mgrid``.
mgrid = _Grid(sparse=False)
#: ``ogrid[0:2, 0:3]``: open (broadcastable) coordinate grids, as ``numpy.ogrid``.
ogrid = _Grid(sparse=True)


class _AxisConcatenator:
    """``r_[...]`` and ``c_[...]``: arrays, scalars and slices joined along an axis, as numpy's index tricks.

    A slice is :data:`mgrid`'s 1-D grid; each piece gains leading axes up to
    ``ndmin`` (numpy's ``trans1d`` says where its own axes go); a first
    string ``"axis[,ndmin[,trans1d]]"`` sets them for one expression. numpy's
    matrix directives (``"r"``, ``"c"``) are refused, as in JAX.

    Examples
    --------
    >>> r_[1:4, 0, np.array([5, 6])], c_[np.array([1, 2]), np.array([3, 4])]
    (array([1, 2, 3, 0, 5, 6]), array([[1, 3],
           [2, 4]]))
    """

    def __init__(self, axis: int, ndmin: int, trans1d: int):
        self.axis, self.ndmin, self.trans1d = axis, ndmin, trans1d

    def __getitem__(self, key):
        items = list(key) if isinstance(key, tuple) else [key]
        axis, ndmin, trans1d = self.axis, self.ndmin, self.trans1d
        if items and isinstance(items[0], str):
            directive = items.pop(0)
            if directive in ("r", "c"):
                raise ValueError("r_/c_ with 'r' or 'c' make numpy matrices, which have no counterpart here")
            try:
                numbers = [int(part) for part in directive.split(",")]
            except ValueError:
                raise ValueError(f"unknown r_/c_ directive {directive!r}: expected 'axis[,ndmin[,trans1d]]'") from None
            if not 1 <= len(numbers) <= 3:
                raise ValueError(f"unknown r_/c_ directive {directive!r}: expected 'axis[,ndmin[,trans1d]]'")
            axis, ndmin, trans1d = (numbers + [ndmin, trans1d][len(numbers) - 1:])[:3]
        if not items:
            raise ValueError("r_/c_ need at least one array, scalar or slice")
        pieces = [self._piece(item, ndmin, trans1d) for item in items]
        scalars = [k for k, item in enumerate(items) if isinstance(item, (bool, int, float, complex))]
        if scalars and len(scalars) < len(items):  # as numpy's: Python scalars take the arrays' dtype
            dtype = np.result_type(*(pieces[k].dtype for k in range(len(items)) if k not in scalars),
                                   *(items[k] for k in scalars))
            pieces = [astype(piece, dtype) if k in scalars else piece for k, piece in enumerate(pieces)]
        return concatenate(pieces, axis=axis)

    @staticmethod
    def _piece(item, ndmin: int, trans1d: int) -> Tracer:
        piece = _grid_axis(item) if isinstance(item, slice) else asarray(item)
        ndim = piece.ndim
        if ndim >= ndmin:
            return piece
        piece = reshape(piece, (1,) * (ndmin - ndim) + piece.shape)
        if trans1d == -1:
            return piece
        # numpy's rule: the piece's own axes move to position trans1d among the new ones.
        k1, k2 = trans1d if trans1d >= 0 else trans1d + ndmin - ndim + 1, ndmin - ndim
        axes = list(range(ndmin))
        return transpose(piece, axes[:k1] + axes[k2:] + axes[k1:k2])


#: ``r_[1:4, 0, array]``: pieces joined along the first axis, as ``numpy.r_``.
r_ = _AxisConcatenator(0, 1, -1)
#: ``c_[a, b]``: 1-D pieces as columns, joined along the last axis, as ``numpy.c_``.
c_ = _AxisConcatenator(-1, 2, 0)
