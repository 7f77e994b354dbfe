"""numpy's sampled calculus: interp, gradient, trapezoid, ediff1d, unwrap.

Each is slices, differences, a ``searchsorted`` (``interp``) or a
``cumsum`` (``unwrap``), so derivatives and batching are those ops'.
Integers are computed in float64.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> tnp.trapezoid(np.array([0.0, 1.0, 4.0]), dx=0.5)
array(1.5)
>>> ta.grad(lambda y: tnp.interp(0.25, np.array([0.0, 1.0]), y))(np.array([2.0, 4.0]))
array([0.75, 0.25])
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (abs as absolute, argsort, asarray, astype, clip, concatenate, cumsum, diff, float64, pi, ravel,
               remainder, reshape, searchsorted, take, where, zeros)
from . import sum as reduce_sum

__all__ = ["ediff1d", "gradient", "interp", "trapezoid", "unwrap"]


def _floats(x) -> Tracer:
    x = asarray(x)
    return x if dtypes.is_inexact(x.dtype) else astype(x, float64)


def _along(x: Tracer, axis: int, start, stop) -> Tracer:
    return x[(slice(None),) * axis + (slice(start, stop),)]


@emits_ops
def interp(x, xp, fp, left=None, right=None, period=None) -> Tracer:
    """Piecewise-linear interpolation of the points ``(xp, fp)`` (``xp`` increasing) at ``x``.

    Outside ``xp``: ``left`` and ``right`` (default the end values of
    ``fp``); ``period`` makes ``xp`` periodic. Equal neighbouring ``xp``
    take the left value, as JAX's.

    Examples
    --------
    >>> interp(np.array([0.5, 3.0]), np.array([0.0, 1.0, 2.0]), np.array([0.0, 10.0, 0.0]))
    array([5., 0.])
    """
    x, xp, fp = _floats(x), _floats(xp), _floats(fp)
    if xp.ndim != 1 or fp.ndim != 1 or xp.shape != fp.shape or xp.shape[0] == 0:
        raise ValueError(f"interp: xp and fp must be nonempty 1-D arrays of one length, got {xp.shape} and "
                         f"{fp.shape}")
    dtype = dtypes.result_type(x, xp)
    x, xp = astype(x, dtype), astype(xp, dtype)
    if period is not None:
        if period == 0:
            raise ValueError("interp: period must be a non-zero value")
        period = abs(period)
        x, xp = remainder(x, period), remainder(xp, period)
        order = argsort(xp)
        xp, fp = take(xp, order), take(fp, order)
        # One point on each side from the next period keeps every x inside.
        xp = concatenate([xp[-1:] - period, xp, xp[:1] + period])
        fp = concatenate([fp[-1:], fp, fp[:1]])
    upper = clip(searchsorted(xp, x, side="right"), 1, max(xp.shape[0] - 1, 1))
    lower = upper - 1
    x_low, f_low = take(xp, lower), take(fp, lower)
    dx, df = take(xp, upper) - x_low, take(fp, upper) - f_low
    flat = absolute(dx) <= np.spacing(np.finfo(dtype).eps)
    f = where(flat, f_low, f_low + (x - x_low) / where(flat, 1.0, dx) * df)
    if period is None:
        f = where(x < xp[0], fp[0] if left is None else left, f)
        f = where(x > xp[-1], fp[-1] if right is None else right, f)
    return f


@emits_ops
def gradient(f, *varargs, axis=None, edge_order: int = 1):
    """The derivative of the samples ``f`` along each of ``axis`` (all by default): central differences
    inside, one-sided at the ends (numpy's, ``edge_order=1``).

    ``varargs``: one spacing for every axis, or per axis a spacing or the
    coordinates of the samples. A tuple of arrays for several axes, one
    array for one.

    Examples
    --------
    >>> gradient(np.array([1.0, 2.0, 4.0, 7.0]))
    array([1. , 1.5, 2.5, 3. ])
    """
    f = _floats(f)
    axes = tuple(range(f.ndim)) if axis is None else normalize_axis_tuple(axis, f.ndim)
    if edge_order != 1:
        raise NotImplementedError("gradient: only edge_order=1 is supported (as in JAX)")
    if len(varargs) == 0:
        spacings = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacings = list(varargs) * len(axes)
    elif len(varargs) == len(axes):
        spacings = list(varargs)
    else:
        raise TypeError(f"gradient: {len(varargs)} spacings given for {len(axes)} axes")
    out = [_gradient_along(f, d, spacing) for d, spacing in zip(axes, spacings)]
    return out[0] if len(axes) == 1 else tuple(out)


def _gradient_along(f: Tracer, axis: int, spacing) -> Tracer:
    n = f.shape[axis]
    if n < 2:
        raise ValueError("gradient: each differentiated axis needs at least 2 samples (edge_order + 1)")
    before, after = _along(f, axis, None, -2), _along(f, axis, 2, None)
    middle = _along(f, axis, 1, -1)
    first = (_along(f, axis, 1, 2) - _along(f, axis, 0, 1))
    last = (_along(f, axis, -1, None) - _along(f, axis, -2, -1))
    if np.ndim(spacing) == 0:
        interior = (after - before) / (2.0 * spacing)
        first, last = first / spacing, last / spacing
    else:
        coordinates = _floats(spacing)
        if coordinates.shape != (n,):
            raise ValueError(f"gradient: coordinates of shape {coordinates.shape} do not match an axis of {n}")
        steps = diff(coordinates)
        shape = [1] * f.ndim
        shape[axis] = -1
        dx1, dx2 = reshape(steps[:-1], shape), reshape(steps[1:], shape)
        # The second-order one for uneven steps (numpy's): weights of f[i - 1], f[i], f[i + 1].
        interior = (-dx2 / (dx1 * (dx1 + dx2)) * before + (dx2 - dx1) / (dx1 * dx2) * middle
                    + dx1 / (dx2 * (dx1 + dx2)) * after)
        first, last = first / steps[0], last / steps[-1]
    return concatenate([first, interior, last], axis)


@emits_ops
def trapezoid(y, x=None, dx=1.0, axis: int = -1) -> Tracer:
    """The integral of the samples ``y`` along ``axis`` by the trapezoidal rule (at ``x``, else ``dx`` apart).

    Examples
    --------
    >>> trapezoid(np.array([1.0, 2.0, 3.0]), x=np.array([0.0, 1.0, 3.0]))
    array(6.5)
    """
    y = _floats(y)
    axis = normalize_axis_index(axis, y.ndim)
    if x is None:
        widths = dx
    else:
        x = _floats(x)
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[axis] = -1
            widths = reshape(diff(x), shape)
        else:
            widths = diff(x, axis=axis)
    return reduce_sum(widths * (_along(y, axis, 1, None) + _along(y, axis, None, -1)) / 2.0, axis)


@emits_ops
def ediff1d(ary, to_end=None, to_begin=None) -> Tracer:
    """The differences of consecutive elements of ``ary`` flattened, with ``to_begin`` and ``to_end`` around.

    Examples
    --------
    >>> ediff1d(np.array([1, 4, 9]), to_begin=0)
    array([0, 3, 5])
    """
    flat = ravel(asarray(ary))
    parts = [flat[1:] - flat[:-1]]
    if to_begin is not None:
        parts.insert(0, astype(ravel(asarray(to_begin)), flat.dtype))
    if to_end is not None:
        parts.append(astype(ravel(asarray(to_end)), flat.dtype))
    return concatenate(parts)


@emits_ops
def unwrap(p, discont=None, axis: int = -1, *, period=2 * pi) -> Tracer:
    """``p`` with jumps of more than ``discont`` (default ``period / 2``) between neighbours along ``axis``
    taken modulo ``period`` (numpy's phase unwrapping).

    Examples
    --------
    >>> np.round(unwrap(np.array([0.0, 3.0, 6.5])), 6)
    array([0.      , 3.      , 0.216815])
    """
    p = _floats(p)
    axis = normalize_axis_index(axis, p.ndim)
    if p.shape[axis] == 0:
        return p
    steps = diff(p, axis=axis)
    discont = period / 2 if discont is None else discont
    half = period / 2
    wrapped = remainder(steps + half, period) - half
    # A step of exactly half a period forward stays forward (numpy's).
    wrapped = where((wrapped == -half) & (steps > 0), half, wrapped)
    correction = where(absolute(steps) < discont, 0.0, wrapped - steps)
    zero = zeros(p.shape[:axis] + (1,) + p.shape[axis + 1:], p.dtype)
    return p + concatenate([zero, cumsum(correction, axis=axis)], axis)
