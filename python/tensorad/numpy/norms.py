"""``norm``: numpy's vector and matrix norms, as reductions of ``|x|``.

The matrix norms that need singular values (``ord`` 2, -2 and ``'nuc'``)
are not here: they belong with the LAPACK-backed ``svd``.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> ta.grad(lambda x: norm(x))(np.array([3.0, 4.0]))
array([0.6, 0.8])
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import absolute, asarray, astype, float64, multiply, not_equal, power, reshape, sqrt
from . import max as reduce_max, min as reduce_min, sum as reduce_sum


def _squares(x: Tracer) -> Tracer:
    return multiply(x, x) if dtypes.is_float(x.dtype) else multiply(absolute(x), absolute(x))


def _vector_norm(x: Tracer, ord, axis: int, keepdims: bool) -> Tracer:
    if ord is None or ord == 2:
        return sqrt(reduce_sum(_squares(x), axis, keepdims=keepdims))
    if isinstance(ord, str):
        raise ValueError(f"Invalid norm order '{ord}' for vectors")
    if ord == np.inf:
        return reduce_max(absolute(x), axis, keepdims=keepdims)
    if ord == -np.inf:
        return reduce_min(absolute(x), axis, keepdims=keepdims)
    if ord == 0:
        return reduce_sum(astype(not_equal(x, 0), x.dtype), axis, keepdims=keepdims)
    if ord == 1:
        return reduce_sum(absolute(x), axis, keepdims=keepdims)
    return power(reduce_sum(power(absolute(x), float(ord)), axis, keepdims=keepdims), 1.0 / float(ord))


def _matrix_norm(x: Tracer, ord, axes: tuple, keepdims: bool) -> Tracer:
    row, col = axes
    if row == col:
        raise ValueError("Duplicate axes given.")
    if ord in (2, -2, "nuc"):
        raise NotImplementedError(f"norm(ord={ord!r}) of a matrix needs its singular values (an SVD); "
                                  "tensorad.numpy.norms only reduces |x|")
    if ord in (None, "fro", "f"):
        out = sqrt(reduce_sum(_squares(x), axes))
    elif ord in (1, -1, np.inf, -np.inf):
        # 1: the largest column sum (over rows); inf: the largest row sum (over columns).
        summed, other = (row, col) if ord in (1, -1) else (col, row)
        reduce = reduce_max if ord > 0 else reduce_min
        out = reduce(reduce_sum(absolute(x), summed), other - (other > summed))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        out = reshape(out, [1 if d in axes else n for d, n in enumerate(x.shape)])
    return out


@emits_ops
def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tracer:
    """Vector or matrix norm of ``x``, as ``numpy.linalg.norm``.

    ``axis`` an integer (or ``x`` 1-D): the vector norm ``ord`` (``None`` or
    2: Euclidean; ``inf``, ``-inf``, 0: count of nonzeros, 1, or any
    ``p``). ``axis`` a pair (or ``x`` 2-D): the matrix norm ``ord``
    (``None``/``'fro'``: Frobenius; 1, -1, ``inf``, ``-inf``). With neither
    ``ord`` nor ``axis``, the Euclidean norm of all entries. Integers are
    computed in float64. As in JAX, the gradient of a Euclidean norm at 0 is
    NaN.

    Examples
    --------
    >>> norm(np.array([[1.0, -2.0], [3.0, 4.0]]), ord=np.inf)
    array(7.)
    >>> norm(np.array([3.0, -4.0]), ord=1)
    array(7.)
    """
    x = asarray(x)
    if x.dtype.kind in "iub":
        x = astype(x, float64)
    if axis is None:
        if ord is None:
            out = sqrt(reduce_sum(_squares(x)))
            return reshape(out, (1,) * x.ndim) if keepdims else out
        if x.ndim not in (1, 2):
            raise ValueError("Improper number of dimensions to norm.")
        axis = tuple(range(x.ndim))
    axes = normalize_axis_tuple(axis, x.ndim, allow_duplicate=True)
    if len(axes) == 1:
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError("Improper number of dimensions to norm.")

