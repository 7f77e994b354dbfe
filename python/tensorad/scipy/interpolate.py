"""``tensorad.scipy.interpolate``: ``RegularGridInterpolator`` of ``jax.scipy.interpolate``.

Linear and nearest-neighbour interpolation on a rectilinear grid, with
JAX's limits: ``bounds_error`` must be False, and points outside the grid
read ``fill_value`` (NaN by default; ``None`` extrapolates). The
interpolator is a pytree (grid, values and fill value its leaves), so it
can be passed into and returned from traced functions.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy.interpolate import RegularGridInterpolator
>>> f = RegularGridInterpolator((np.array([0.0, 1.0, 2.0]),), np.array([0.0, 10.0, 40.0]))
>>> ta.jit(f)(np.array([[0.5], [1.5], [3.0]]))
array([ 5., 25., nan])
"""

from __future__ import annotations

import itertools

import numpy as np

from .. import dtypes
from .. import numpy as tnp
from ..tree import register_pytree_node

__all__ = ["RegularGridInterpolator"]

_METHODS = ("linear", "nearest")


def _points(xi, ndim: int):
    """The sample points ``xi`` (an array ``(..., ndim)``, or a tuple of ``ndim`` coordinate arrays) as one array."""
    if isinstance(xi, tuple) and len(xi) == 1:
        xi = xi[0]
    if isinstance(xi, tuple):
        return tnp.stack(tnp.broadcast_arrays(*[tnp.asarray(p) for p in xi]), -1)
    xi = tnp.asarray(xi)
    return tnp.reshape(xi, (-1, ndim)) if xi.ndim == 1 else xi


class RegularGridInterpolator:
    """Interpolation of ``values`` on the grid ``points`` (one increasing 1-D array per leading axis).

    Parameters
    ----------
    points : sequence of array_like
    values : array_like
        Of shape ``(len(points[0]), ..., len(points[-1]), *trailing)``;
        integers interpolate in float64.
    method : {"linear", "nearest"}
    bounds_error : bool
        Must be False (JAX's ``NotImplementedError`` otherwise: a traced
        check cannot raise).
    fill_value : scalar or None
        The value outside the grid; ``None`` extrapolates.

    Examples
    --------
    >>> f = RegularGridInterpolator((np.array([0.0, 1.0]), np.array([0.0, 2.0])), np.array([[0.0, 2.0], [1.0, 3.0]]))
    >>> f((np.array([0.5]), np.array([1.0])))
    array([1.5])
    """

    def __init__(self, points, values, method: str = "linear", bounds_error: bool = False, fill_value=np.nan):
        if method not in _METHODS:
            raise ValueError(f"method {method!r} is not defined")
        if bounds_error:
            raise NotImplementedError("`bounds_error` takes no effect under JIT")
        values = tnp.asarray(values)
        if len(points) > values.ndim:
            raise ValueError(f"there are {len(points)} point arrays, but values has {values.ndim} dimensions")
        values = tnp.astype(values, dtypes.float_of(values.dtype))
        if fill_value is not None:
            fill_value = tnp.asarray(fill_value)
            if not np.can_cast(fill_value.dtype, values.dtype, casting="same_kind"):
                raise ValueError("fill_value must be either 'None' or of a type compatible with values")
        self.method = method
        self.bounds_error = bounds_error
        self.fill_value = fill_value
        self.grid = tuple(tnp.asarray(p) for p in points)
        self.values = values

    def __call__(self, xi, method: str | None = None):
        """``values`` interpolated at ``xi``: shape ``xi.shape[:-1] + values.shape[len(points):]``."""
        method = self.method if method is None else method
        if method not in _METHODS:
            raise ValueError(f"method {method!r} is not defined")
        ndim = len(self.grid)
        xi = _points(xi, ndim)
        if xi.shape[-1] != ndim:
            raise ValueError(f"the requested sample points xi have dimension {xi.shape[-1]}, but this "
                             f"RegularGridInterpolator has dimension {ndim}")
        shape = xi.shape
        xi = tnp.reshape(xi, (-1, ndim))
        indices, distances, outside = self._find_indices(xi)
        # Built outside a trace, the grid and values are numpy arrays, which traced indices cannot index.
        values = tnp.asarray(self.values)
        if method == "linear":
            result = self._evaluate_linear(values, indices, distances)
        else:
            result = values[tuple(tnp.where(d <= 0.5, i, i + 1) for i, d in zip(indices, distances))]
        if self.fill_value is not None:
            outside = tnp.reshape(outside, outside.shape + (1,) * (result.ndim - 1))
            result = tnp.where(outside, tnp.astype(self.fill_value, result.dtype), result)
        return tnp.reshape(result, shape[:-1] + self.values.shape[ndim:])

    @staticmethod
    def _evaluate_linear(values, indices, distances):
        trailing = (slice(None),) + (None,) * (values.ndim - len(indices))
        total = None
        # Each corner of the cell: per axis the lower sample (weight 1 - d) or the upper one (weight d).
        for corner in itertools.product((0, 1), repeat=len(indices)):
            weight = None
            for upper, d in zip(corner, distances):
                factor = d if upper else 1 - d
                weight = factor if weight is None else weight * factor
            term = values[tuple(i + upper for i, upper in zip(indices, corner))] * weight[trailing]
            total = term if total is None else total + term
        return total

    def _find_indices(self, xi):
        """Per axis the index of each point's cell, its distance into the cell in cell widths, and whether the
        point is outside the grid."""
        indices, distances, outside = [], [], None
        for axis, g in enumerate(self.grid):
            g = tnp.asarray(g)
            x = tnp.astype(xi[:, axis], self.values.dtype)
            i = tnp.clip(tnp.searchsorted(g, x) - 1, 0, g.shape[0] - 2)
            indices.append(i)
            distances.append((x - g[i]) / (g[i + 1] - g[i]))
            out = (x < g[0]) | (x > g[-1])
            outside = out if outside is None else outside | out
        return indices, distances, outside


register_pytree_node(
    RegularGridInterpolator,
    lambda f: ((f.grid, f.values, f.fill_value), (f.method, f.bounds_error)),
    lambda aux, children: RegularGridInterpolator(*children[:2], *aux, *children[2:]),
)
