"""JAX's indexed updates: ``x.at[key].set(y)``, ``.add``, ``.subtract``, ``.multiply``, ``.divide``, ``.power``,
``.min``, ``.max``, ``.apply`` and ``.get``, on traced arrays and on eager results.

Arrays are immutable, so ``x.at[key].add(y)`` returns ``x`` with ``y`` added
where ``x[key]`` reads (``x[key] += y`` in numpy, except that repeated
indices all add up, as in JAX). ``key`` is anything ``x[key]`` takes.

Every update is one ``tad.scatter``: when ``key`` is integers (or integer
arrays, broadcast together) followed by whole slices, along the leading dims
merged into one, a row per index updated in place; else at the flat
positions of the selected elements, found by indexing an array of positions
(``arange(x.size)``) with ``key``.

Out-of-range indices follow JAX: an update there is dropped (``mode="drop"``,
the default) or goes to the nearest element (``mode="clip"``); ``get``
clamps them (``mode="clip"``, the default) or reads ``fill_value``
(``mode="fill"``; NaN for floats by default). Negative indices count from
the end, unless ``wrap_negative_indices=False``.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: x.at[np.array([0, 2, 0])].add(1.0))(np.zeros(4))
array([2., 0., 1., 0.])
>>> ta.jit(lambda x: x.at[:, 1].set(tnp.arange(2.0)))(np.ones((2, 3)))
array([[1., 0., 1.],
       [1., 1., 1.]])
"""

from __future__ import annotations

import importlib

import numpy as np

from tensorad.dialects import builder

from .. import dtypes
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (add, arange, asarray, astype, broadcast_to, clip, divide, full, getitem, imag, int64, logical_and,
               logical_or, multiply, negative, ones_like, power, ravel, real, reshape, shape, where)

_MODES = (None, "drop", "clip", "fill", "promise_in_bounds")


def _entries(key, ndim: int) -> list:
    """(entry, number of dims of ``x`` it indexes) for each entry of ``key``, the ellipsis spelled out."""
    key = key if isinstance(key, tuple) else (key,)
    consumed = [0 if k is None or k is Ellipsis else (np.ndim(k) if _is_mask(k) else 1) for k in key]
    if sum(k is Ellipsis for k in key) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out = []
    for k, n in zip(key, consumed):
        if k is Ellipsis:
            out.extend((slice(None), 1) for _ in range(ndim - sum(consumed)))
        else:
            out.append((k, n))
    if sum(n for _, n in out) > ndim:
        raise IndexError(f"too many indices for an array of dimension {ndim}")
    return out + [(slice(None), 1)] * (ndim - sum(n for _, n in out))


def _is_mask(k) -> bool:
    """Whether ``k`` is a boolean mask index (a concrete one; a traced one is refused by ``getitem``)."""
    if isinstance(k, Tracer):
        return k.dtype.kind == "b"
    return isinstance(k, (np.ndarray, list)) and np.asarray(k).dtype.kind == "b"


def _is_position(k) -> bool:
    """Whether ``k`` indexes one dim by integer positions: an int, an integer array or list, a traced integer."""
    if isinstance(k, (bool, np.bool_)) or k is None or isinstance(k, slice) or k is Ellipsis:
        return False
    if isinstance(k, Tracer):
        return k.dtype.kind in "iu"
    if isinstance(k, (int, np.integer)):
        return True
    return isinstance(k, (list, np.ndarray)) and np.asarray(k).dtype.kind in "iu"


def _positions(k, n: int, mode, wrap: bool):
    """Integer index ``k`` into a dim of size ``n``: negatives wrapped; out of range made ``n`` or clipped.

    ``n`` is one past the end: a scatter drops it, and the flat-position
    gathers read it from the extra slot they pad the dim with.
    """
    if isinstance(k, Tracer):
        k = astype(k, int64)
        if wrap:
            k = where(k < 0, add(k, n), k)
        if mode == "clip":
            return clip(k, 0, n - 1)
        return where(logical_or(k < 0, k >= n), n, k)
    k = np.asarray(k, np.int64)
    if wrap:
        k = np.where(k < 0, k + n, k)
    return np.clip(k, 0, n - 1) if mode == "clip" else np.where((k < 0) | (k >= n), n, k)


def _leading_positions(entries: list) -> list:
    """The position entries of a key that is position entries (ints, integer arrays) then whole slices, else []."""
    count = next((i for i, (k, _) in enumerate(entries) if not _is_position(k)), len(entries))
    whole = all(isinstance(k, slice) and k == slice(None) for k, _ in entries[count:])
    return [k for k, _ in entries[:count]] if whole else []


def _merged_positions(positions: list, shape: tuple, mode, wrap: bool) -> Tracer:
    """Row-major positions in ``shape[:len(positions)]`` merged into one dim; -1 where an index is outside.

    The index arrays broadcast together, as numpy's adjacent advanced indices do.
    """
    flat, inside = 0, True
    for k, n in zip(positions, shape):
        p = asarray(_positions(k, n, mode, wrap))
        flat = add(multiply(flat, n), p)
        inside = logical_and(inside, p < n)
    return where(inside, flat, -1)


def _flat_positions(x: Tracer, entries: list, mode, wrap: bool, fill=None) -> tuple:
    """(the flat position of each element ``x[key]`` selects, ``x`` ready to gather them from).

    Positions come from indexing ``arange(x.size)`` with the key. A dim
    indexed by positions gets one more slot at its end, holding position
    ``-1`` (an update there is dropped) and, in ``x`` widened alike, ``fill``:
    the slot an out-of-range index reads. The returned ``x`` is only widened
    when ``fill`` is given.
    """
    widened = [d for d, (k, _) in enumerate(_dims(entries)) if k is not None and _is_position(k)]
    high = [1 if d in widened else 0 for d in range(x.ndim)]

    def widen(array: Tracer, value) -> Tracer:
        if not widened:
            return array
        return Tracer.of(builder.pad(array.value, astype(asarray(value), array.dtype).value, [0] * x.ndim, high,
                                     [0] * x.ndim))

    ids = widen(reshape(arange(x.size, dtype=int64), x.shape), -1)
    key = []
    dims = iter(range(x.ndim))
    for k, n in entries:
        if _is_position(k):
            d = next(dims)
            key.append(_positions(k, x.shape[d], mode, wrap))
        else:
            for _ in range(n):
                next(dims)
            key.append(k)
    key = tuple(key)
    return getitem(ids, key), (None if fill is None else getitem(widen(x, fill), key))


def _dims(entries: list) -> list:
    """(the entry indexing each dim of ``x``, or None for a mask's dims) in the order of the dims."""
    out = []
    for k, n in entries:
        out.extend([(k, 1)] if n == 1 and not _is_mask(k) else [(None, 1)] * n)
    return out


def scatter(operand: Tracer, indices: Tracer, updates: Tracer, axis: int, kind: str) -> Tracer:
    """``tad.scatter`` of ``updates`` into ``operand`` at ``indices`` along ``axis``; complex ``add`` adds the parts.

    Indices outside the axis drop their update. Of complex numbers, ``set``
    and ``add`` are supported (``mul``, ``min`` and ``max`` raise).
    """
    if dtypes.is_complex(operand.dtype) and kind != "set":
        if kind != "add":
            raise TypeError(f"a {kind} update of complex numbers is not supported (only set and add)")
        return Tracer.of(builder.make_complex(scatter(real(operand), indices, real(updates), axis, kind).value,
                                              scatter(imag(operand), indices, imag(updates), axis, kind).value))
    return Tracer.of(builder.scatter(operand.value, indices.value, updates.value, axis, kind))


def _update(x, key, values, kind: str, mode, wrap: bool) -> Tracer:
    """``x`` with ``values`` combined (``kind`` of ``tad.scatter``) into the elements ``x[key]``."""
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(repr(m) for m in _MODES[1:])}, got {mode!r}")
    if mode == "fill":
        mode = "drop"  # JAX: for updates, fill is drop
    x = asarray(x)
    if x.ndim == 0:
        entries = _entries(key, 0)
        if entries:
            raise IndexError("too many indices for an array of dimension 0")
        return reshape(_update(reshape(x, (1,)), 0, values, kind, mode, wrap), ())
    values = astype(asarray(values), x.dtype)
    entries = _entries(key, x.ndim)
    leading = _leading_positions(entries)
    if leading:
        # Rows of the leading dims merged: one update per index (vector), of the rest whole, in place.
        k = len(leading)
        index = _merged_positions(leading, x.shape, mode, wrap)
        rows = reshape(x, (int(np.prod(x.shape[:k], dtype=np.int64)),) + x.shape[k:])
        return reshape(scatter(rows, index, _broadcast(values, index.shape + x.shape[k:]), 0, kind), x.shape)
    positions, _ = _flat_positions(x, entries, mode, wrap)
    return reshape(scatter(ravel(x), positions, _broadcast(values, positions.shape), 0, kind), x.shape)


def _broadcast(values: Tracer, target: tuple) -> Tracer:
    try:
        return broadcast_to(values, target)
    except TracingError:
        raise ValueError(f"cannot update elements of shape {target} with values of shape {values.shape}") from None


@emits_ops
def _get(x, key, mode, fill_value, wrap: bool) -> Tracer:
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {', '.join(repr(m) for m in _MODES[1:])}, got {mode!r}")
    x = asarray(x)
    if mode != "fill":
        if not wrap:
            raise TracingError(f"{user_line()}: get with wrap_negative_indices=False needs mode='fill'")
        return getitem(x, key)
    if fill_value is None:  # JAX's defaults: NaN, the smallest integer, True
        fill_value = np.nan if dtypes.is_float(x.dtype) else (True if dtypes.is_bool(x.dtype)
                                                              else np.iinfo(x.dtype).min)
    _, values = _flat_positions(x, _entries(key, x.ndim), "fill", wrap, fill_value)
    return values


@emits_ops
def _scatter_update(x, key, values, kind: str, mode, wrap: bool) -> Tracer:
    return _update(x, key, values, kind, mode, wrap)


@emits_ops
def _scaled(x, key, values, how: str, mode, wrap: bool) -> Tracer:
    """``x / m`` or ``x ** m`` for ``m`` the product of the ``values`` at each element (1 elsewhere), as JAX's."""
    x = asarray(x)
    factors = _update(ones_like(x), key, values, "mul", mode, wrap)
    return divide(x, factors) if how == "divide" else power(x, factors)


@emits_ops
def _apply(x, key, func, mode, wrap: bool) -> Tracer:
    """``func`` applied at the selected elements, once per time an index names them (as JAX's ``apply``)."""
    # tensorad.lax builds on this package (its scatters are these): its loop is looked up on use.
    fori_loop = importlib.import_module("tensorad.lax").fori_loop
    x = asarray(x)
    times = _update(full(x.shape, 0, int64), key, full(shape(getitem(x, key)), 1, int64), "add", mode, wrap)
    return fori_loop(0, times.max() if x.size else 0,
                         lambda i, y: where(times > i, astype(asarray(func(y)), x.dtype), y), x)


def _without_masks(key):
    """``key`` with each concrete boolean mask replaced by the integer arrays of its true positions (numpy's rule).

    Done before the call, so that an eager call (whose arrays are traced) still sees the mask's values.
    """
    entries = key if isinstance(key, tuple) else (key,)
    out = []
    for k in entries:
        if isinstance(k, (np.ndarray, list)) and np.asarray(k).dtype.kind == "b":
            out.extend(np.nonzero(np.asarray(k)))
        else:
            out.append(k)
    return tuple(out) if isinstance(key, tuple) or len(out) != 1 else out[0]


class IndexUpdateRef:
    """``x.at[key]``: the element selection that an update or a ``get`` applies to."""

    __slots__ = ("array", "index")

    def __init__(self, array, index):
        self.array, self.index = array, _without_masks(index)

    def __repr__(self) -> str:
        return f"IndexUpdateRef({self.array!r}, {self.index!r})"

    def get(self, *, indices_are_sorted=False, unique_indices=False, mode=None, fill_value=None,
            wrap_negative_indices: bool = True):
        """``x[key]``; out-of-range indices clamp, or read ``fill_value`` with ``mode="fill"``."""
        return _get(self.array, self.index, mode, fill_value, wrap_negative_indices)

    def set(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            wrap_negative_indices: bool = True):
        """``x[key] = values``; of repeated indices, the last update stays."""
        return _scatter_update(self.array, self.index, values, "set", mode, wrap_negative_indices)

    def add(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            wrap_negative_indices: bool = True):
        """``x[key] += values``, every repeated index adding."""
        return _scatter_update(self.array, self.index, values, "add", mode, wrap_negative_indices)

    def subtract(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 wrap_negative_indices: bool = True):
        """``x[key] -= values``."""
        return _scatter_update(self.array, self.index, negative(values), "add", mode, wrap_negative_indices)

    def multiply(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
                 wrap_negative_indices: bool = True):
        """``x[key] *= values``, every repeated index multiplying."""
        return _scatter_update(self.array, self.index, values, "mul", mode, wrap_negative_indices)

    mul = multiply

    def divide(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
               wrap_negative_indices: bool = True):
        """``x[key] /= values``."""
        return _scaled(self.array, self.index, values, "divide", mode, wrap_negative_indices)

    def power(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices: bool = True):
        """``x[key] **= values`` (repeated indices multiply their exponents, as JAX's)."""
        return _scaled(self.array, self.index, values, "power", mode, wrap_negative_indices)

    def min(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            wrap_negative_indices: bool = True):
        """``x[key] = minimum(x[key], values)``."""
        return _scatter_update(self.array, self.index, values, "min", mode, wrap_negative_indices)

    def max(self, values, *, indices_are_sorted=False, unique_indices=False, mode=None,
            wrap_negative_indices: bool = True):
        """``x[key] = maximum(x[key], values)``."""
        return _scatter_update(self.array, self.index, values, "max", mode, wrap_negative_indices)

    def apply(self, func, *, indices_are_sorted=False, unique_indices=False, mode=None,
              wrap_negative_indices: bool = True):
        """``x[key] = func(x[key])``, applied as many times as an index repeats (``func`` is elementwise)."""
        return _apply(self.array, self.index, func, mode, wrap_negative_indices)


class IndexUpdateHelper:
    """The ``x.at`` property: ``x.at[key]`` is an :class:`IndexUpdateRef`.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> y = ta.jit(lambda x: x * 1.0)(np.arange(3.0))  # an eager result has .at too
    >>> y.at[1].max(5.0)
    array([0., 5., 2.])
    """

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, index) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, index)

    def __repr__(self) -> str:
        return f"IndexUpdateHelper({self.array!r})"
