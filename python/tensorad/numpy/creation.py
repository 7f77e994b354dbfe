"""numpy's evenly spaced sequences: ``linspace`` and ``logspace``, with traced (differentiable) endpoints.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.grad(lambda b: tnp.sum(tnp.linspace(0.0, b, 5)))(2.0)
array(2.5)
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (add, any as reduce_any, arange, asarray, astype, broadcast_to, divide, equal, floor, multiply, power,
               reshape, subtract, transpose, where)


@emits_ops
def linspace(start, stop, num: int = 50, endpoint: bool = True, retstep: bool = False, dtype=None, axis: int = 0):
    """``num`` evenly spaced samples from ``start`` to ``stop`` (excluded when ``endpoint`` is False).

    Array endpoints give a sequence per entry along the new ``axis``; the
    last sample is ``stop`` exactly, as in numpy. With ``retstep``, also
    the spacing.

    Examples
    --------
    >>> linspace(0.0, 1.0, 5)
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    >>> linspace(np.array([0.0, 10.0]), 20.0, 3, axis=1)
    array([[ 0., 10., 20.],
           [10., 15., 20.]])
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    inexact = dtypes.float_of(dtypes.result_type(start, stop))
    start, stop = astype(asarray(start), inexact), astype(asarray(stop), inexact)
    shape = np.broadcast_shapes(start.shape, stop.shape)
    start, stop = broadcast_to(start, shape), broadcast_to(stop, shape)
    steps = num - 1 if endpoint else num
    delta = subtract(stop, start)
    position = reshape(arange(num, dtype=inexact), (num,) + (1,) * delta.ndim)
    if steps > 0:
        step = divide(delta, steps)
        # numpy's order of operations (it scales by delta when a step is 0), so that samples match to the bit.
        y = where(reduce_any(equal(step, 0)), multiply(divide(position, steps), delta), multiply(position, step))
    else:
        step, y = asarray(np.array(np.nan, inexact)), multiply(position, delta)
    y = add(y, start)
    if endpoint and num > 1:
        y = where(equal(position, num - 1), stop, y)
    axis = normalize_axis_index(axis, y.ndim)
    y = transpose(y, list(range(1, axis + 1)) + [0] + list(range(axis + 1, y.ndim)))
    if dtype is not None and np.dtype(dtype).kind in "iu":  # numpy rounds towards minus infinity
        y = floor(y)
    y = y if dtype is None else astype(y, dtype)
    return (y, step) if retstep else y


@emits_ops
def logspace(start, stop, num: int = 50, endpoint: bool = True, base=10.0, dtype=None, axis: int = 0) -> Tracer:
    """``base ** linspace(start, stop, num)``: samples evenly spaced on a log scale.

    Examples
    --------
    >>> logspace(0.0, 2.0, 3)
    array([  1.,  10., 100.])
    """
    ndim = max(np.ndim(v) if not isinstance(v, Tracer) else v.ndim for v in (start, stop, base))
    y = linspace(start, stop, num, endpoint, axis=axis)
    if ndim:
        base = asarray(base)
        base = reshape(base, (1,) * (ndim - base.ndim) + base.shape)
        base = reshape(base, base.shape[:normalize_axis_index(axis, y.ndim)] + (1,)
                       + base.shape[normalize_axis_index(axis, y.ndim):])
    y = power(base, y)
    return y if dtype is None else astype(y, dtype)
