"""``tensorad.scipy.ndimage``: ``map_coordinates`` of ``jax.scipy.ndimage``.

Orders 0 (nearest sample, rounding half away from zero) and 1 (linear),
with JAX's modes ``"constant"``, ``"nearest"``, ``"wrap"``, ``"mirror"`` and
``"reflect"``. Linear interpolation is differentiable in the input and the
coordinates (piecewise, as JAX's).

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy import ndimage
>>> ta.jit(lambda a, c: ndimage.map_coordinates(a, [c], order=1))(np.array([0.0, 10.0]), np.array([0.25]))
array([2.5])
"""

from __future__ import annotations

import functools
import itertools
import operator

import numpy as np

from .. import dtypes, lax
from .. import numpy as tnp
from ..tracing import Tracer, emits_ops

__all__ = ["map_coordinates"]


def _mirror(index: Tracer, size: int) -> Tracer:
    # A triangular wave of half-period size - 1: the edge samples are not repeated.
    s = max(size - 1, 1)
    return tnp.abs((index + s) % (2 * s) - s)


def _reflect(index: Tracer, size: int) -> Tracer:
    # The mirror of the half-sample grid 2 * index + 1 over 2 * size + 1 points: the edge samples repeat.
    return (_mirror(2 * index + 1, 2 * size + 1) - 1) // 2


_INDEX_FIXERS = {
    "constant": lambda index, size: tnp.clip(index, 0, size - 1),
    "nearest": lambda index, size: tnp.clip(index, 0, size - 1),
    "wrap": lambda index, size: index % size,
    "mirror": _mirror,
    "reflect": _reflect,
}


def _nodes(coordinate: Tracer, order: int) -> list:
    """(index, weight) pairs of one coordinate's interpolation along its axis."""
    if order == 0:
        return [(tnp.astype(lax.round(coordinate), np.int32), None)]
    lower = tnp.floor(coordinate)
    upper_weight = coordinate - lower
    index = tnp.astype(lower, np.int32)
    return [(index, 1 - upper_weight), (index + 1, upper_weight)]


@emits_ops
def map_coordinates(input, coordinates, order: int, mode: str = "constant", cval=0.0) -> Tracer:  # noqa: A002
    """``input`` interpolated at ``coordinates`` (one array per axis, all of one shape), as
    ``scipy.ndimage.map_coordinates``.

    Parameters
    ----------
    input : array_like
    coordinates : sequence of array_like
        ``input.ndim`` arrays of positions in index units.
    order : {0, 1}
        Nearest or linear interpolation (higher orders are not supported,
        as in JAX).
    mode : {"constant", "nearest", "wrap", "mirror", "reflect"}
        How positions outside the array are read; ``"constant"`` reads
        ``cval``.
    cval : scalar

    Returns
    -------
    Tracer
        Of ``input``'s dtype (integers rounded half away from zero) and the
        coordinates' shape.

    Examples
    --------
    >>> map_coordinates(np.arange(12.0).reshape(3, 4), [np.array([0.5, 2.0]), np.array([0.5, 2.5])], order=1)
    array([ 2.5, 10.5])
    """
    input = tnp.asarray(input)  # noqa: A001
    coordinates = [tnp.asarray(c) for c in coordinates]
    if len(coordinates) != input.ndim:
        raise ValueError(f"map_coordinates: coordinates must be a sequence of length input.ndim, but "
                         f"{len(coordinates)} != {input.ndim}")
    if mode not in _INDEX_FIXERS:
        raise NotImplementedError(f"map_coordinates does not yet support mode {mode!r}; the supported modes are "
                                  f"{sorted(_INDEX_FIXERS)}")
    if order not in (0, 1):
        raise NotImplementedError("map_coordinates currently requires order<=1")
    # Integers interpolate in float64; the coordinates keep a wider float dtype of their own.
    compute = dtypes.float_of(input.dtype)
    coordinates = [tnp.astype(c, dtypes.float_of(dtypes.result_type(c, compute))) for c in coordinates]
    values = tnp.astype(input, compute)
    cval = tnp.asarray(cval, compute)
    fixer = _INDEX_FIXERS[mode]
    per_axis = [[(fixer(index, size), (index >= 0) & (index < size), weight) for index, weight in _nodes(c, order)]
                for c, size in zip(coordinates, input.shape)]
    total = None
    for corner in itertools.product(*per_axis):
        indices, validities, weights = zip(*corner)
        contribution = values[tuple(indices)]
        if mode == "constant":
            contribution = tnp.where(functools.reduce(operator.and_, validities), contribution, cval)
        if order == 1:
            contribution = functools.reduce(operator.mul, weights) * contribution
        total = contribution if total is None else total + contribution
    if not dtypes.is_inexact(input.dtype):
        # Rounded half away from zero, not truncated, as JAX's.
        total = lax.round(total)
    return tnp.astype(total, input.dtype)
