"""numpy's matrix structure: triangles, diagonals, traces; Kronecker, cross and vector products.

Diagonals are strided slices of the flattened matrices (``tad.slice``), and
``diag`` of a vector is an interior padding (``tad.pad``): each is the
other's transpose, so reverse mode costs what the forward pass does.
Triangles are a select against an ``iota`` mask.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.grad(lambda a: tnp.trace(tnp.triu(a) @ a))(np.array([[1.0, 2.0], [3.0, 4.0]]))
array([[2., 3.],
       [2., 8.]])
"""

from __future__ import annotations

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from tensorad.dialects import builder

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import (arange, asarray, astype, broadcast_to, conj, float64, greater_equal, matmul, multiply, negative,
               ravel, reshape, stack, subtract, where, zeros)
from . import sum as reduce_sum
from .shaping import moveaxis


@emits_ops
def tri(N: int, M: int | None = None, k: int = 0, dtype=float64) -> Tracer:
    """An ``N x M`` array with ones at and below the ``k``-th diagonal.

    Examples
    --------
    >>> tri(2, 3, 1)
    array([[1., 1., 0.],
           [1., 1., 1.]])
    """
    M = N if M is None else M
    mask = greater_equal(reshape(arange(N), (N, 1)), arange(-k, M - k))
    return astype(mask, dtype)


@emits_ops
def tril(m, k: int = 0) -> Tracer:
    """``m`` with the entries above the ``k``-th diagonal zeroed (of each matrix in the last two axes).

    Examples
    --------
    >>> tril(np.ones((2, 2)))
    array([[1., 0.],
           [1., 1.]])
    """
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k, dtype=bool)
    return where(mask, m, zeros(1, m.dtype))


@emits_ops
def triu(m, k: int = 0) -> Tracer:
    """``m`` with the entries below the ``k``-th diagonal zeroed (of each matrix in the last two axes).

    Examples
    --------
    >>> triu(np.ones((2, 2)))
    array([[1., 1.],
           [0., 1.]])
    """
    m = asarray(m)
    mask = tri(*m.shape[-2:], k=k - 1, dtype=bool)
    return where(mask, zeros(1, m.dtype), m)


@emits_ops
def diagonal(a, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tracer:
    """The ``offset``-th diagonal of the matrices in ``axis1`` and ``axis2``, as the last axis.

    One strided slice of the matrices, flattened: the diagonal steps by one
    row and one column at a time.

    Examples
    --------
    >>> diagonal(np.arange(9.0).reshape(3, 3), 1)
    array([1., 5.])
    """
    a = asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    axis1, axis2 = normalize_axis_index(axis1, a.ndim), normalize_axis_index(axis2, a.ndim)
    if axis1 == axis2:
        raise ValueError("axis1 and axis2 cannot be the same")
    x = moveaxis(a, (axis1, axis2), (-2, -1))
    batch, (n, m) = x.shape[:-2], x.shape[-2:]
    offset = int(offset)
    count = max(0, min(n, m - offset) if offset >= 0 else min(n + offset, m))
    if count == 0:
        return zeros(batch + (0,), a.dtype)
    first = offset if offset >= 0 else -offset * m
    flat = reshape(x, batch + (n * m,))
    start, limit, strides = [0] * len(batch), list(batch), [1] * len(batch)
    return Tracer.of(builder.slice_(flat.value, start + [first], limit + [first + (count - 1) * (m + 1) + 1],
                                    strides + [m + 1]))


@emits_ops
def diag(v, k: int = 0) -> Tracer:
    """The ``k``-th diagonal of a matrix, or a square matrix with the vector ``v`` on its ``k``-th diagonal.

    A vector's matrix is one ``tad.pad`` of it (interior padding leaves a row
    and a column between entries), reshaped.

    Examples
    --------
    >>> diag(np.array([1.0, 2.0]), -1)
    array([[0., 0., 0.],
           [1., 0., 0.],
           [0., 2., 0.]])
    """
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise ValueError("Input must be 1- or 2-d.")
    k = int(k)
    n = v.shape[0] + abs(k)
    if v.shape[0] == 0:
        return zeros((n, n), v.dtype)
    first = k if k >= 0 else -k * n  # the flat position of v[0]
    last = first + (v.shape[0] - 1) * (n + 1)
    zero = builder.zeros((), v.value.type.element_type)
    flat = Tracer.of(builder.pad(v.value, zero, [first], [n * n - last - 1], [n]))
    return reshape(flat, (n, n))


@emits_ops
def diagflat(v, k: int = 0) -> Tracer:
    """A square matrix with the flattened ``v`` on its ``k``-th diagonal, as numpy's.

    Examples
    --------
    >>> diagflat(np.array([[1, 2], [3, 4]]))[2:, 2:]
    array([[3, 0],
           [0, 4]])
    """
    return diag(ravel(asarray(v)), k)


@emits_ops
def fill_diagonal(a, val, wrap: bool = False, *, inplace: bool = True) -> Tracer:
    """``a`` with ``val`` (repeated as needed) on its main diagonal, as JAX's: a new array, ``inplace=False``.

    numpy writes into ``a``; arrays here are values, so, as in JAX, the
    default ``inplace=True`` is refused, and so is ``wrap=True``.

    Examples
    --------
    >>> fill_diagonal(np.zeros((3, 3)), np.array([1.0, 2.0]), inplace=False)
    array([[1., 0., 0.],
           [0., 2., 0.],
           [0., 0., 1.]])
    """
    if inplace:
        raise NotImplementedError("arrays are immutable here: use fill_diagonal(..., inplace=False), which returns "
                                  "the filled array")
    if wrap:
        raise NotImplementedError("fill_diagonal(wrap=True) is not implemented; use wrap=False")
    a, val = asarray(a), asarray(val)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim > 2 and any(n != a.shape[0] for n in a.shape[1:]):
        raise ValueError("All dimensions of input must be of equal length")
    n = min(a.shape)
    if val.ndim:  # numpy repeats the values along the diagonal
        flat = ravel(val)
        val = flat[np.arange(n) % flat.shape[0]] if flat.shape[0] else zeros((n,), a.dtype)
    return a.at[(np.arange(n),) * a.ndim].set(val)


@emits_ops
def trace(a, offset: int = 0, axis1: int = 0, axis2: int = 1, dtype=None) -> Tracer:
    """Sum of the ``offset``-th diagonal (integers sum in int64 like :func:`tensorad.numpy.sum`).

    Examples
    --------
    >>> trace(np.arange(9.0).reshape(3, 3))
    array(12.)
    """
    return reduce_sum(diagonal(a, offset, axis1, axis2), -1, dtype=dtype)


@emits_ops
def kron(a, b) -> Tracer:
    """Kronecker product: blocks ``a[i, j] * b``, as one broadcast product and a reshape.

    Examples
    --------
    >>> kron(np.eye(2), np.array([[1.0, 2.0]]))
    array([[1., 2., 0., 0.],
           [0., 0., 1., 2.]])
    """
    a, b = asarray(a), asarray(b)
    ndim = max(a.ndim, b.ndim)
    a = reshape(a, (1,) * (ndim - a.ndim) + a.shape)
    b = reshape(b, (1,) * (ndim - b.ndim) + b.shape)
    product = multiply(reshape(a, [s for n in a.shape for s in (n, 1)]),
                       reshape(b, [s for n in b.shape for s in (1, n)]))
    return reshape(product, [n * m for n, m in zip(a.shape, b.shape)])


@emits_ops
def cross(a, b, axisa: int = -1, axisb: int = -1, axisc: int = -1, axis=None) -> Tracer:
    """Cross product of 3-vectors (or 2-vectors, whose z component is taken as 0) along the given axes.

    As numpy: two 2-vectors give the z component only; ``axis`` sets all three axes.

    Examples
    --------
    >>> cross(np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0]))
    array([0., 0., 1.])
    """
    if axis is not None:
        axisa = axisb = axisc = axis
    a, b = asarray(a), asarray(b)
    a = moveaxis(a, normalize_axis_index(axisa, a.ndim), -1)
    b = moveaxis(b, normalize_axis_index(axisb, b.ndim), -1)
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n(dimension must be 2 or 3)")
    dtype = dtypes.result_type(a, b)
    a, b = astype(a, dtype), astype(b, dtype)
    ax = [a[..., i] for i in range(a.shape[-1])]
    bx = [b[..., i] for i in range(b.shape[-1])]
    z = subtract(multiply(ax[0], bx[1]), multiply(ax[1], bx[0]))
    if len(ax) == len(bx) == 2:
        return z
    if len(ax) == 2:
        x, y = multiply(ax[1], bx[2]), negative(multiply(ax[0], bx[2]))
    elif len(bx) == 2:
        x, y = negative(multiply(ax[2], bx[1])), multiply(ax[2], bx[0])
    else:
        x = subtract(multiply(ax[1], bx[2]), multiply(ax[2], bx[1]))
        y = subtract(multiply(ax[2], bx[0]), multiply(ax[0], bx[2]))
    shape = np.broadcast_shapes(x.shape, y.shape, z.shape)
    out = stack([broadcast_to(c, shape) for c in (x, y, z)], -1)
    return moveaxis(out, -1, normalize_axis_index(axisc, out.ndim))


# ----------------------------------------------------------------------------
# Vector products (numpy 2's vecdot, matvec, vecmat; vdot)
# ----------------------------------------------------------------------------

def _conjugated(x: Tracer) -> Tracer:
    return conj(x) if dtypes.is_complex(x.dtype) else x


@emits_ops
def vdot(a, b) -> Tracer:
    """Dot product of the flattened ``a`` and ``b``, the first conjugated.

    Examples
    --------
    >>> vdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.ones((2, 2)))
    array(10.)
    """
    a, b = ravel(asarray(a)), ravel(asarray(b))
    if a.shape != b.shape:
        raise ValueError(f"vdot: the arrays have {a.shape[0]} and {b.shape[0]} elements; they need as many")
    return reduce_sum(multiply(_conjugated(a), b))


@emits_ops
def vecdot(x1, x2, /, *, axis: int = -1) -> Tracer:
    """Dot products of the vectors along ``axis`` (``x1``'s conjugated); the other dims broadcast.

    Examples
    --------
    >>> vecdot(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, -1.0]))
    array([-1., -1.])
    """
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError("vecdot: the arguments need at least one dimension")
    x1 = moveaxis(x1, normalize_axis_index(axis, x1.ndim), -1)
    x2 = moveaxis(x2, normalize_axis_index(axis, x2.ndim), -1)
    if x1.shape[-1] != x2.shape[-1]:
        raise ValueError(f"vecdot: the vectors have {x1.shape[-1]} and {x2.shape[-1]} elements")
    return reduce_sum(multiply(_conjugated(x1), x2), -1)


@emits_ops
def matvec(x1, x2, /) -> Tracer:
    """Products of the matrices ``x1`` (last two dims) and vectors ``x2`` (last dim); batch dims broadcast.

    Examples
    --------
    >>> matvec(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([1.0, 1.0]))
    array([3., 7.])
    """
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim < 2 or x2.ndim < 1:
        raise ValueError(f"matvec: needs matrices and vectors, got shapes {x1.shape} and {x2.shape}")
    return matmul(x1, x2[..., None])[..., 0]


@emits_ops
def vecmat(x1, x2, /) -> Tracer:
    """Products of the vectors ``x1`` (conjugated) and matrices ``x2``; batch dims broadcast.

    Examples
    --------
    >>> vecmat(np.array([1.0, 1.0]), np.array([[1.0, 2.0], [3.0, 4.0]]))
    array([4., 6.])
    """
    x1, x2 = asarray(x1), asarray(x2)
    if x1.ndim < 1 or x2.ndim < 2:
        raise ValueError(f"vecmat: needs vectors and matrices, got shapes {x1.shape} and {x2.shape}")
    return matmul(_conjugated(x1)[..., None, :], x2)[..., 0, :]
