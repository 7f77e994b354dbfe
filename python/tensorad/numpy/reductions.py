"""numpy's products and weighted statistics along axes: ``prod``, ``average``, ``cov``, ``corrcoef``, ``ptp``,
``count_nonzero``.

``prod`` multiplies halves pairwise (``log2 n`` rounds of slices and
products) instead of reducing with a product combiner: its derivative is
then exact where entries are zero, as JAX's is, where ``prod / x`` is not.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.grad(lambda x: tnp.prod(x))(np.array([2.0, 0.0, 3.0]))
array([0., 6., 0.])
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from tensorad.dialects import builder

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (add, asarray, astype, bool_, broadcast_to, clip, concatenate, conjugate, divide, dot, full, imag,
               int32, int64, maximum, mean, multiply, not_equal, ones, real, reshape, sqrt, subtract, transpose)
from . import max as reduce_max, min as reduce_min, sum as reduce_sum, where as select_where
from .matrices import diag
from .shaping import atleast_2d


def _halves_product(x: Tracer) -> Tracer:
    """The product over the last axis of ``x``, multiplying its halves until one entry is left."""
    while x.shape[-1] > 1:
        n = x.shape[-1]
        if n % 2:  # one more factor of 1 makes the halves equal
            one = builder.ones((), x.value.type.element_type)
            x = Tracer.of(builder.pad(x.value, one, [0] * x.ndim, [0] * (x.ndim - 1) + [1], [0] * x.ndim))
            n += 1
        lead = list(x.shape[:-1])
        first = builder.slice_(x.value, [0] * x.ndim, lead + [n // 2], [1] * x.ndim)
        second = builder.slice_(x.value, [0] * (x.ndim - 1) + [n // 2], lead + [n], [1] * x.ndim)
        x = multiply(Tracer.of(first), Tracer.of(second))
    return reshape(x, x.shape[:-1]) if x.shape[-1] == 1 else ones(x.shape[:-1], x.dtype)


@emits_ops
def prod(a, axis=None, dtype=None, keepdims: bool = False, initial=None, where=None) -> Tracer:
    """Product over ``axis``; bool and int32 multiply in int64, like numpy.

    ``initial`` multiplies the result; entries where ``where`` is False count as 1.

    Examples
    --------
    >>> prod(np.arange(1.0, 7.0).reshape(2, 3), axis=1)
    array([  6., 120.])
    """
    a = asarray(a)
    if dtype is None and a.dtype in (bool_, int32):
        dtype = int64
    if dtype is not None:
        a = astype(a, dtype)
    if where is not None:
        a = select_where(where, a, 1)
    axes = normalize_axis_tuple(tuple(range(a.ndim)) if axis is None else axis, a.ndim)
    kept = [d for d in range(a.ndim) if d not in axes]
    moved = transpose(a, kept + list(axes))
    size = int(np.prod([a.shape[d] for d in axes], dtype=np.int64))
    out = _halves_product(reshape(moved, [a.shape[d] for d in kept] + [size]))
    if initial is not None:
        out = multiply(out, initial)
    return reshape(out, [1 if d in axes else n for d, n in enumerate(a.shape)]) if keepdims else out


@emits_ops
def average(a, axis=None, weights=None, returned: bool = False, keepdims: bool = False):
    """Weighted mean over ``axis``: ``sum(a * w) / sum(w)``; with ``returned``, also ``sum(w)``.

    ``weights`` has the shape of ``a``, or of ``a``'s dims in ``axis`` (in that order).

    Examples
    --------
    >>> average(np.array([1.0, 2.0, 4.0]), weights=np.array([1.0, 1.0, 2.0]))
    array(2.75)
    """
    a = asarray(a)
    axes = None if axis is None else normalize_axis_tuple(axis, a.ndim)
    if weights is None:
        avg = mean(a, axes, keepdims=keepdims)
        total = full(avg.shape, int(np.prod([a.shape[d] for d in (range(a.ndim) if axes is None else axes)])),
                     avg.dtype)
    else:
        w = asarray(weights)
        dtype = dtypes.float_of(dtypes.result_type(a, w))
        if w.shape != a.shape:
            if axes is None:
                raise TypeError("Axis must be specified when shapes of a and weights differ.")
            if w.shape != tuple(a.shape[d] for d in axes):
                raise ValueError("Shape of weights must be consistent with shape of a along specified axis.")
            w = transpose(w, np.argsort(axes).tolist())
            w = broadcast_to(reshape(w, [n if d in axes else 1 for d, n in enumerate(a.shape)]), a.shape)
        w = astype(w, dtype)
        total = reduce_sum(w, axes, keepdims=keepdims)
        avg = divide(reduce_sum(multiply(astype(a, dtype), w), axes, keepdims=keepdims), total)
    if not returned:
        return avg
    return avg, broadcast_to(total, avg.shape)


@emits_ops
def cov(m, y=None, rowvar: bool = True, bias: bool = False, ddof=None, fweights=None, aweights=None) -> Tracer:
    """Covariance matrix of the variables in the rows of ``m`` (columns when ``rowvar`` is False).

    numpy's estimator, frequency and analytic weights included. As JAX, a
    float32 input stays float32 (numpy computes in float64).

    Examples
    --------
    >>> cov(np.array([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]))
    array([[ 1., -1.],
           [-1.,  1.]])
    """
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    m = asarray(m)
    if m.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    dtype = dtypes.float_of(m.dtype if y is None else dtypes.result_type(m, y))
    x = astype(atleast_2d(m), dtype)
    if not rowvar and x.shape[0] != 1:
        x = transpose(x)
    if y is not None:
        y = asarray(y)
        if y.ndim > 2:
            raise ValueError("y has more than 2 dimensions")
        y = astype(atleast_2d(y), dtype)
        if not rowvar and y.shape[0] != 1:
            y = transpose(y)
        x = concatenate([x, y], 0)
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is None:
            continue
        weights = asarray(weights)
        if weights.ndim > 1:
            raise RuntimeError(f"cannot handle multidimensional {name}")
        if weights.shape[0] != n:
            raise RuntimeError(f"incompatible numbers of samples and {name}")
        weights = astype(weights, dtype)
        w = weights if w is None else multiply(w, weights)
    avg, w_sum = average(x, axis=1, weights=w, returned=True)
    w_sum = w_sum[0]
    if w is None:
        fact = max(n - ddof, 0)
    elif ddof == 0:
        fact = w_sum
    elif aweights is None:
        fact = maximum(subtract(w_sum, ddof), 0)
    else:
        weighted = reduce_sum(multiply(w, astype(asarray(aweights), dtype)))
        fact = maximum(subtract(w_sum, divide(multiply(ddof, weighted), w_sum)), 0)
    x = subtract(x, reshape(avg, (-1, 1)))
    x_t = conjugate(transpose(x if w is None else multiply(x, w)))
    c = divide(dot(x, x_t), asarray(np.array(fact, dtype)) if not isinstance(fact, Tracer) else fact)
    return reshape(c, [s for s in c.shape if s != 1])


@emits_ops
def corrcoef(x, y=None, rowvar: bool = True) -> Tracer:
    """Pearson correlation coefficients: :func:`cov` scaled by the standard deviations, clipped to [-1, 1].

    Examples
    --------
    >>> corrcoef(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0]))
    array([[1., 1.],
           [1., 1.]])
    """
    c = cov(x, y, rowvar)
    if c.ndim == 0:
        return divide(c, c)
    stddev = sqrt(real(diag(c)))
    c = divide(divide(c, reshape(stddev, (-1, 1))), reshape(stddev, (1, -1)))
    if c.dtype.kind == "c":  # numpy clips the real and imaginary parts
        return add(clip(real(c), -1, 1), multiply(clip(imag(c), -1, 1), 1j))
    return clip(c, -1, 1)


@emits_ops
def ptp(a, axis=None, out=None, keepdims: bool = False) -> Tracer:
    """The range ``max - min`` along ``axis`` ("peak to peak").

    Examples
    --------
    >>> ptp(np.array([[4.0, 9.0, 2.0], [1.0, 1.0, 3.0]]), axis=1)
    array([7., 2.])
    """
    if out is not None:
        raise TypeError("ptp: 'out' is not supported (arrays are immutable)")
    return subtract(reduce_max(a, axis, keepdims), reduce_min(a, axis, keepdims))


@emits_ops
def count_nonzero(a, axis=None, keepdims: bool = False) -> Tracer:
    """The number of entries that are not 0 (or False) along ``axis``, as int64.

    Examples
    --------
    >>> count_nonzero(np.array([[0, 1, 7], [0, 0, 3]]), axis=1)
    array([2, 1])
    """
    return reduce_sum(not_equal(a, 0), axis, dtype=int64, keepdims=keepdims)
