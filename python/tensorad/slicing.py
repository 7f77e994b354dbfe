"""``lax``'s slicing and indexing primitives: dynamic slices and updates, ``gather`` and ``scatter``.

``dynamic_slice`` and ``dynamic_update_slice`` are ``tensor.extract_slice``
and ``tensor.insert_slice`` at run-time offsets (clamped so the slice fits,
negative starts counting from the end, as in JAX). ``gather`` and the
``scatter`` family take JAX's dimension numbers; each is one ``tad.take``
or ``tad.scatter`` of the operand's flattened elements at flat positions
computed elementwise (start plus window offset along every operand dim),
so every configuration of dimension numbers, windows, batching dims and
out-of-bounds modes lowers the same way, and derivatives and batching come
from those two ops' rules.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import lax
>>> ta.jit(lambda x, i: lax.dynamic_slice(x, (i, 1), (2, 2)))(np.arange(12.0).reshape(3, 4), np.int64(5))
array([[ 5.,  6.],
       [ 9., 10.]])
"""

from __future__ import annotations

import enum
from typing import NamedTuple, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from tensorad.dialects import builder

from . import dtypes
from . import numpy as tnp
from .errors import TracingError
from .numpy.updates import scatter as scatter_into
from .tracing import Tracer, emits_ops, user_line


def _start(start, dim: int, size: int, wrap: bool) -> ir.Value:
    """A start index (an int or a 0-d traced integer) as an ``index`` value clamped into ``[0, dim - size]``."""
    if not isinstance(start, Tracer):
        start = int(start)
        if wrap and start < 0:
            start += dim
        return arith.ConstantOp(ir.IndexType.get(), min(max(start, 0), dim - size)).result
    if start.shape != () or start.dtype.kind not in "iu":
        raise TracingError(f"{user_line()}: a start index must be an integer scalar, got "
                           f"{start.dtype.name}{list(start.shape)}")
    start = tnp.astype(start, tnp.int64)
    if wrap:
        start = tnp.where(start < 0, tnp.add(start, dim), start)
    start = tnp.clip(start, 0, dim - size)
    return arith.IndexCastOp(ir.IndexType.get(), tensor.ExtractOp(start.value, []).result).result


def _starts(operand: Tracer, start_indices, sizes: Sequence[int], allow_negative_indices, what: str) -> list:
    """The clamped ``index`` values of ``start_indices`` (a sequence of scalars or a 1-D array)."""
    if isinstance(start_indices, (Tracer, np.ndarray)):
        start_indices = [start_indices[i] for i in range(np.shape(start_indices)[0])] \
            if np.ndim(start_indices) == 1 else start_indices
    starts = list(start_indices)
    if len(starts) != operand.ndim or len(sizes) != operand.ndim:
        raise TracingError(f"{user_line()}: {what}: {len(starts)} start indices and {len(sizes)} sizes for an "
                           f"array of dimension {operand.ndim}")
    wrap = allow_negative_indices if isinstance(allow_negative_indices, (list, tuple)) \
        else [allow_negative_indices] * operand.ndim
    for d, (n, size) in enumerate(zip(operand.shape, sizes)):
        if not 0 <= size <= n:
            raise TracingError(f"{user_line()}: {what}: size {size} of dim {d} does not fit its length {n}")
    return [_start(s, n, size, w) for s, n, size, w in zip(starts, operand.shape, sizes, wrap)]


@emits_ops
def dynamic_slice(operand, start_indices, slice_sizes, *, allow_negative_indices=True) -> Tracer:
    """The slice of ``slice_sizes`` at run-time ``start_indices`` (moved back so that it fits, as in JAX).

    Examples
    --------
    >>> dynamic_slice(np.arange(5.0), [4], [2])
    array([3., 4.])
    """
    x = tnp.asarray(operand)
    sizes = [int(n) for n in slice_sizes]
    starts = _starts(x, start_indices, sizes, allow_negative_indices, "dynamic_slice")
    t = dtypes.tensor_type(tuple(sizes), x.dtype)
    return Tracer.of(builder.extract_slice(x.value, t, starts, sizes, [1] * x.ndim))


@emits_ops
def dynamic_update_slice(operand, update, start_indices, *, allow_negative_indices=True) -> Tracer:
    """``operand`` with ``update`` written at run-time ``start_indices`` (moved back so that it fits).

    Examples
    --------
    >>> dynamic_update_slice(np.zeros(4), np.ones(2), [3])
    array([0., 0., 1., 1.])
    """
    x = tnp.asarray(operand)
    update = tnp.astype(tnp.asarray(update), x.dtype)
    if update.ndim != x.ndim:
        raise TracingError(f"{user_line()}: dynamic_update_slice: update of dimension {update.ndim} for an "
                           f"operand of dimension {x.ndim}")
    starts = _starts(x, start_indices, update.shape, allow_negative_indices, "dynamic_update_slice")
    return Tracer.of(builder.insert_slice(update.value, x.value, starts, list(update.shape), [1] * x.ndim))


def _in_dim(operand, index, axis: int) -> tuple:
    x = tnp.asarray(operand)
    if not -x.ndim <= axis < x.ndim:
        raise TracingError(f"{user_line()}: axis {axis} is out of bounds for an array of dimension {x.ndim}")
    axis %= x.ndim
    starts = [0] * x.ndim
    starts[axis] = index
    return x, axis, starts


@emits_ops
def dynamic_slice_in_dim(operand, start_index, slice_size: int, axis: int = 0, *,
                         allow_negative_indices: bool = True) -> Tracer:
    """:func:`dynamic_slice` along one ``axis``, the other dims whole.

    Examples
    --------
    >>> dynamic_slice_in_dim(np.arange(6.0).reshape(2, 3), 1, 2, axis=1)
    array([[1., 2.],
           [4., 5.]])
    """
    x, axis, starts = _in_dim(operand, start_index, axis)
    sizes = list(x.shape)
    sizes[axis] = slice_size
    return dynamic_slice(x, starts, sizes, allow_negative_indices=allow_negative_indices)


@emits_ops
def dynamic_index_in_dim(operand, index, axis: int = 0, keepdims: bool = True, *,
                         allow_negative_indices: bool = True) -> Tracer:
    """Element ``index`` along ``axis`` (a run-time index, clamped; kept as a dim of 1 with ``keepdims``).

    Examples
    --------
    >>> dynamic_index_in_dim(np.arange(6.0).reshape(2, 3), -1, axis=1, keepdims=False)
    array([2., 5.])
    """
    x, axis, _ = _in_dim(operand, index, axis)
    out = dynamic_slice_in_dim(x, index, 1, axis, allow_negative_indices=allow_negative_indices)
    return out if keepdims else tnp.squeeze(out, axis)


@emits_ops
def dynamic_update_slice_in_dim(operand, update, start_index, axis: int, *,
                                allow_negative_indices: bool = True) -> Tracer:
    """:func:`dynamic_update_slice` along one ``axis``.

    Examples
    --------
    >>> dynamic_update_slice_in_dim(np.zeros((2, 3)), np.ones((2, 1)), 2, axis=1)
    array([[0., 0., 1.],
           [0., 0., 1.]])
    """
    x, axis, starts = _in_dim(operand, start_index, axis)
    return dynamic_update_slice(x, update, starts, allow_negative_indices=allow_negative_indices)


@emits_ops
def dynamic_update_index_in_dim(operand, update, index, axis: int, *,
                                allow_negative_indices: bool = True) -> Tracer:
    """``operand`` with element ``index`` along ``axis`` replaced by ``update`` (with or without that dim).

    Examples
    --------
    >>> dynamic_update_index_in_dim(np.zeros((2, 3)), np.ones(3), 1, axis=0)
    array([[0., 0., 0.],
           [1., 1., 1.]])
    """
    x, axis, _ = _in_dim(operand, index, axis)
    update = tnp.asarray(update)
    if update.ndim == x.ndim - 1:
        update = tnp.expand_dims(update, axis)
    return dynamic_update_slice_in_dim(x, update, index, axis, allow_negative_indices=allow_negative_indices)


# ----------------------------------------------------------------------------
# gather and scatter with JAX's dimension numbers
# ----------------------------------------------------------------------------

class GatherDimensionNumbers(NamedTuple):
    """How the dims of a ``gather``'s operand, start indices and output relate (JAX's, XLA's).

    ``offset_dims``: output dims of the slice dims that are kept;
    ``collapsed_slice_dims``: operand dims of size-1 slices, dropped;
    ``start_index_map``: the operand dim each entry of an index vector (the
    last dim of ``start_indices``) starts; ``operand_batching_dims`` and
    ``start_indices_batching_dims``: dims of the operand and of the indices
    that are walked together.
    """

    offset_dims: tuple
    collapsed_slice_dims: tuple
    start_index_map: tuple
    operand_batching_dims: tuple = ()
    start_indices_batching_dims: tuple = ()


class ScatterDimensionNumbers(NamedTuple):
    """How the dims of a ``scatter``'s operand, indices and updates relate (JAX's, XLA's).

    ``update_window_dims``: dims of the updates that are window dims;
    ``inserted_window_dims``: operand dims of size-1 windows, absent from the
    updates; ``scatter_dims_to_operand_dims``: the operand dim each entry of
    an index vector starts; ``operand_batching_dims`` and
    ``scatter_indices_batching_dims``: dims walked together.
    """

    update_window_dims: tuple
    inserted_window_dims: tuple
    scatter_dims_to_operand_dims: tuple
    operand_batching_dims: tuple = ()
    scatter_indices_batching_dims: tuple = ()


class GatherScatterMode(enum.Enum):
    """What out-of-bounds indices do: ``CLIP`` (move the window inside), ``FILL_OR_DROP`` (a gathered
    window reads the fill value, a scattered one is dropped; the default of scatters) or
    ``PROMISE_IN_BOUNDS`` (clip for gathers, drop for scatters; the default of gathers)."""

    CLIP = "clip"
    FILL_OR_DROP = "fill"
    PROMISE_IN_BOUNDS = "promise_in_bounds"

    @staticmethod
    def from_any(mode) -> "GatherScatterMode":
        """The mode of ``None`` (FILL_OR_DROP), a string (``clip``, ``fill``, ``drop``, ``promise_in_bounds``) or a mode."""
        if isinstance(mode, GatherScatterMode):
            return mode
        if mode is None or mode in ("fill", "drop"):
            return GatherScatterMode.FILL_OR_DROP
        if mode in ("clip", "promise_in_bounds"):
            return GatherScatterMode(mode)
        if isinstance(mode, enum.Enum) and mode.name in GatherScatterMode.__members__:  # JAX's enum
            return GatherScatterMode[mode.name]
        raise ValueError(f"unknown gather/scatter mode {mode!r}")


def _tuple(values) -> tuple:
    return tuple(int(v) for v in values)


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise TracingError(f"{user_line()}: {message}")


def _flat_positions(operand_shape: tuple, indices: Tracer, out_shape: tuple, batch_positions: list,
                    window_positions: list, window_dims: list, start_map: tuple, window_sizes: dict,
                    batching: tuple, clip: bool) -> tuple:
    """(the flat operand position of every output element, whether its window lies inside the operand).

    ``indices`` is ``batch + (k,)``; output dims ``batch_positions`` walk
    the batch, dims ``window_positions`` the windows of operand dims
    ``window_dims``. Operand dim ``start_map[j]`` starts at entry ``j`` of
    the index vector (clamped with ``clip``); ``batching`` pairs an operand
    dim with a batch dim of the indices that walks it.
    """
    i64 = tnp.int64

    def over_output(value: Tracer, positions: list) -> Tracer:
        """A value over the batch dims placed at ``positions`` of the output."""
        return Tracer.of(builder.broadcast_in_dim(value.value, out_shape, positions))

    strides = np.cumprod((1,) + operand_shape[:0:-1])[::-1]
    flat = tnp.zeros(out_shape, i64)
    inside = tnp.full(indices.shape[:-1], True, tnp.bool_)
    for d, n in enumerate(operand_shape):
        size = window_sizes.get(d, 1)
        position = tnp.zeros(out_shape, i64)
        if d in start_map:
            start = tnp.astype(tnp.getitem(indices, (Ellipsis, start_map.index(d))), i64)
            inside = tnp.logical_and(inside, tnp.logical_and(start >= 0, start <= n - size))
            position = over_output(tnp.clip(start, 0, n - size) if clip else start, batch_positions)
        for operand_dim, indices_dim in batching:
            if operand_dim == d:
                walk = Tracer.of(builder.iota(indices.shape[:-1], indices_dim, dtypes.to_mlir(i64)))
                position = tnp.add(position, over_output(walk, batch_positions))
        if d in window_dims:
            offset = Tracer.of(builder.iota(out_shape, window_positions[window_dims.index(d)], dtypes.to_mlir(i64)))
            position = tnp.add(position, offset)
        flat = tnp.add(flat, tnp.multiply(position, int(strides[d])))
    return flat, over_output(inside, batch_positions)


def _indices(start_indices, k: int, what: str) -> Tracer:
    indices = tnp.asarray(start_indices)
    _check(indices.dtype.kind in "iu", f"{what}: indices must be integers, got {indices.dtype.name}")
    _check(indices.ndim >= 1 and indices.shape[-1] == k,
           f"{what}: the last dim of the indices ({indices.shape}) must hold the {k} start indices")
    return indices


@emits_ops
def gather(operand, start_indices, dimension_numbers: GatherDimensionNumbers, slice_sizes, *,
           unique_indices: bool = False, indices_are_sorted: bool = False, mode=None, fill_value=None) -> Tracer:
    """JAX's (XLA's) gather: slices of ``slice_sizes`` of ``operand`` starting at ``start_indices``.

    The last dim of ``start_indices`` holds the index vectors. ``mode``:
    ``"clip"`` and ``"promise_in_bounds"`` (the default, as JAX's) move an
    out-of-bounds window inside; ``"fill"`` fills it with ``fill_value``
    (NaN for floats, the smallest integer, True). One ``tad.take`` of the
    flattened operand at the flat positions of the output elements.

    Examples
    --------
    >>> dnums = GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    >>> gather(np.arange(6.0).reshape(3, 2), np.array([[2], [0]]), dnums, (1, 2))
    array([[4., 5.],
           [0., 1.]])
    """
    x = tnp.asarray(operand)
    dn = GatherDimensionNumbers(*(_tuple(v) for v in dimension_numbers))
    mode = GatherScatterMode.from_any("promise_in_bounds" if mode is None else mode)  # JAX's default for gathers
    sizes = _tuple(slice_sizes)
    indices = _indices(start_indices, len(dn.start_index_map), "gather")
    _check(len(sizes) == x.ndim and all(0 <= s <= n for s, n in zip(sizes, x.shape)),
           f"gather: slice sizes {sizes} do not fit an operand of shape {x.shape}")
    dropped = set(dn.collapsed_slice_dims) | set(dn.operand_batching_dims)
    _check(all(sizes[d] == 1 for d in dropped), "gather: collapsed and batching dims need slices of size 1")
    window_dims = [d for d in range(x.ndim) if d not in dropped]
    batch_shape = indices.shape[:-1]
    rank = len(batch_shape) + len(window_dims)
    _check(len(dn.offset_dims) == len(window_dims) and list(dn.offset_dims) == sorted(dn.offset_dims)
           and all(0 <= d < rank for d in dn.offset_dims),
           f"gather: offset_dims {dn.offset_dims} must name, in order, the {len(window_dims)} output dims of "
           "the slice dims that are kept")
    _check(len(dn.operand_batching_dims) == len(dn.start_indices_batching_dims),
           "gather: operand_batching_dims and start_indices_batching_dims differ in length")
    batch_positions = [d for d in range(rank) if d not in dn.offset_dims]
    out_shape = [0] * rank
    for p, n in zip(batch_positions, batch_shape):
        out_shape[p] = n
    for p, d in zip(dn.offset_dims, window_dims):
        out_shape[p] = sizes[d]
    out_shape = tuple(out_shape)
    flat, inside = _flat_positions(x.shape, indices, out_shape, batch_positions, list(dn.offset_dims),
                                   window_dims, dn.start_index_map, {d: sizes[d] for d in range(x.ndim)},
                                   tuple(zip(dn.operand_batching_dims, dn.start_indices_batching_dims)),
                                   clip=True)
    out = tnp.take(tnp.ravel(x), flat) if x.size else tnp.zeros(out_shape, x.dtype)
    if mode != GatherScatterMode.FILL_OR_DROP:
        return out
    if fill_value is None:
        fill_value = np.nan if dtypes.is_float(x.dtype) else (True if dtypes.is_bool(x.dtype)
                                                              else np.iinfo(x.dtype).min)
    return tnp.where(inside, out, tnp.astype(tnp.asarray(fill_value), x.dtype))


def _scatter(kind: str, operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers,
             mode) -> Tracer:
    x = tnp.asarray(operand)
    dn = ScatterDimensionNumbers(*(_tuple(v) for v in dimension_numbers))
    mode = GatherScatterMode.from_any(mode)
    indices = _indices(scatter_indices, len(dn.scatter_dims_to_operand_dims), f"scatter_{kind}")
    u = tnp.astype(tnp.asarray(updates), x.dtype)
    dropped = set(dn.inserted_window_dims) | set(dn.operand_batching_dims)
    window_dims = [d for d in range(x.ndim) if d not in dropped]
    scatter_positions = [d for d in range(u.ndim) if d not in dn.update_window_dims]
    _check(len(dn.update_window_dims) == len(window_dims) and list(dn.update_window_dims) == sorted(dn.update_window_dims)
           and len(scatter_positions) == indices.ndim - 1
           and all(u.shape[p] == n for p, n in zip(scatter_positions, indices.shape[:-1])),
           f"scatter: updates of shape {u.shape} do not match indices {indices.shape} and dimension numbers {dn}")
    _check(len(dn.operand_batching_dims) == len(dn.scatter_indices_batching_dims),
           "scatter: operand_batching_dims and scatter_indices_batching_dims differ in length")
    sizes = {d: u.shape[p] for d, p in zip(window_dims, dn.update_window_dims)}
    _check(all(sizes[d] <= x.shape[d] for d in window_dims),
           f"scatter: update windows {[sizes[d] for d in window_dims]} larger than the operand {x.shape}")
    flat, inside = _flat_positions(x.shape, indices, u.shape, scatter_positions, list(dn.update_window_dims),
                                   window_dims, dn.scatter_dims_to_operand_dims, sizes,
                                   tuple(zip(dn.operand_batching_dims, dn.scatter_indices_batching_dims)),
                                   clip=mode == GatherScatterMode.CLIP)
    if mode != GatherScatterMode.CLIP:  # a window partly outside is dropped whole
        flat = tnp.where(inside, flat, -1)
    return tnp.reshape(scatter_into(tnp.ravel(x), flat, u, 0, kind), x.shape)


def _scatter_function(kind: str, name: str, summary: str):
    def fn(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
           indices_are_sorted: bool = False, unique_indices: bool = False, mode=None) -> Tracer:
        return _scatter(kind, operand, scatter_indices, updates, dimension_numbers, mode)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"JAX's (XLA's) ``{name}``: {summary}\n\n"
                  "    Windows of ``updates`` go to the operand at ``scatter_indices`` (index vectors in their\n"
                  "    last dim) as ``dimension_numbers`` say; a window partly outside the operand is dropped\n"
                  "    (``mode=\"clip\"`` moves it inside). One ``tad.scatter`` of the flattened operand.\n")
    return emits_ops(fn)


scatter = _scatter_function("set", "scatter", "the operand with the windows of ``updates`` written in (the last "
                                               "of repeated ones stays).")
scatter_add = _scatter_function("add", "scatter_add", "the operand with the windows of ``updates`` added in.")
scatter_mul = _scatter_function("mul", "scatter_mul", "the operand with the windows of ``updates`` multiplied in.")
scatter_min = _scatter_function("min", "scatter_min", "the elementwise minimum of the operand and the windows.")
scatter_max = _scatter_function("max", "scatter_max", "the elementwise maximum of the operand and the windows.")


@emits_ops
def scatter_sub(operand, scatter_indices, updates, dimension_numbers: ScatterDimensionNumbers, *,
                indices_are_sorted: bool = False, unique_indices: bool = False, mode=None) -> Tracer:
    """JAX's ``scatter_sub``: :func:`scatter_add` of the negated ``updates``.

    Examples
    --------
    >>> dnums = ScatterDimensionNumbers((), (0,), (0,))
    >>> scatter_sub(np.zeros(3), np.array([[1], [1]]), np.array([1.0, 2.0]), dnums)
    array([ 0., -3.,  0.])
    """
    return _scatter("add", operand, scatter_indices, tnp.negative(updates), dimension_numbers, mode)
