"""numpy's array constructors composed of the basic ones: evenly spaced sequences (``linspace``, ``logspace``,
``geomspace``, with traced, differentiable endpoints), grids of indices, Vandermonde matrices, window functions,
and the index arrays of triangles and diagonals (concrete numpy arrays: they depend on shapes only).

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
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (add, any as reduce_any, arange, asarray, astype, broadcast_to, concatenate, cos, divide, equal, eye,
               float64, floor, getitem, int64, less_equal, log10, multiply, ones, power, reshape, sign, sqrt,
               stack, subtract, transpose, where, zeros, zeros_like)
from .scans import cumprod
from .ufuncs import i0


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


@emits_ops
def geomspace(start, stop, num: int = 50, endpoint: bool = True, dtype=None, axis: int = 0) -> Tracer:
    """``num`` samples from ``start`` to ``stop`` evenly spaced on a log scale (a geometric progression).

    Both ends may be negative (of one sign); the first and last samples are
    ``start`` and ``stop`` exactly, as in numpy.

    Examples
    --------
    >>> geomspace(1.0, 1000.0, 4)
    array([   1.,   10.,  100., 1000.])
    >>> geomspace(-1.0, -16.0, 5)
    array([ -1.,  -2.,  -4.,  -8., -16.])
    """
    for end in (start, stop):
        if not isinstance(end, Tracer) and (np.asarray(end) == 0).any():
            raise ValueError("Geometric sequence cannot include zero")
    inexact = dtypes.float_of(dtypes.result_type(start, stop))
    start, stop = astype(asarray(start), inexact), astype(asarray(stop), inexact)
    shape = np.broadcast_shapes(start.shape, stop.shape)
    start, stop = broadcast_to(start, shape), broadcast_to(stop, shape)
    signs = sign(start)  # numpy's: the sequence of |start| to |stop|, times the sign of start
    y = logspace(log10(divide(start, signs)), log10(divide(stop, signs)), num, endpoint)
    position = reshape(arange(num), (num,) + (1,) * len(shape))
    y = where(equal(position, 0), divide(start, signs), y)
    if endpoint and num > 1:
        y = where(equal(position, num - 1), divide(stop, signs), y)
    y = multiply(y, signs)
    axis = normalize_axis_index(axis, y.ndim)
    y = transpose(y, list(range(1, axis + 1)) + [0] + list(range(axis + 1, y.ndim)))
    return y if dtype is None else astype(y, dtype)


def _grids(dimensions, dtype) -> list:
    """For each axis of an array of shape ``dimensions``, the index along it of every entry (dense grids)."""
    shape = tuple(operator.index(n) for n in dimensions)
    return [broadcast_to(reshape(arange(n, dtype=dtype), [n if d == axis else 1 for d in range(len(shape))]), shape)
            for axis, n in enumerate(shape)]


@emits_ops
def indices(dimensions, dtype=int64, sparse: bool = False):
    """The index grids of an array of shape ``dimensions``: stacked (``len(dimensions), *dimensions``), or with
    ``sparse`` a tuple of arrays with one dimension not 1.

    Examples
    --------
    >>> indices((2, 3))
    array([[[0, 0, 0],
            [1, 1, 1]],
    <BLANKLINE>
           [[0, 1, 2],
            [0, 1, 2]]])
    """
    dimensions = tuple(dimensions)
    if sparse:
        return tuple(reshape(arange(n, dtype=dtype), [n if d == axis else 1 for d in range(len(dimensions))])
                     for axis, n in enumerate(dimensions))
    if not dimensions:
        return zeros((0,), dtype)
    return stack(_grids(dimensions, dtype))


@emits_ops
def fromfunction(function, shape, *, dtype=float64, **kwargs):
    """``function(*grids, **kwargs)``: ``function`` called once with the index grids of ``shape`` (numpy's way).

    Examples
    --------
    >>> fromfunction(lambda i, j: i * 10 + j, (2, 3), dtype=int64)
    array([[ 0,  1,  2],
           [10, 11, 12]])
    """
    return function(*_grids(shape, dtype), **kwargs)


@emits_ops
def empty(shape, dtype=float64) -> Tracer:
    """An array of ``shape``: zeros, as JAX's (arrays are never uninitialized).

    Examples
    --------
    >>> empty((2,), int64)
    array([0, 0])
    """
    return zeros(shape, dtype)


@emits_ops
def empty_like(prototype, dtype=None, shape=None) -> Tracer:
    """Zeros shaped like ``prototype`` (or ``shape``), as JAX's ``empty_like``.

    Examples
    --------
    >>> empty_like(np.ones((2, 2), np.float32), shape=3)
    array([0., 0., 0.], dtype=float32)
    """
    if shape is None:
        return zeros_like(prototype, dtype)
    return zeros(shape, asarray(prototype).dtype if dtype is None else dtype)


@emits_ops
def copy(a) -> Tracer:
    """A copy of ``a`` (arrays are immutable: the same values).

    Examples
    --------
    >>> copy([1.0, 2.0])
    array([1., 2.])
    """
    return asarray(a)


@emits_ops
def identity(n: int, dtype=float64) -> Tracer:
    """The ``n x n`` identity matrix.

    Examples
    --------
    >>> identity(2, int64)
    array([[1, 0],
           [0, 1]])
    """
    return eye(n, dtype=dtype)


@emits_ops
def vander(x, N: int | None = None, increasing: bool = False) -> Tracer:
    """The Vandermonde matrix of the 1-D ``x``: columns ``x**(N-1), ..., x, 1`` (reversed with ``increasing``).

    The powers are running products, so that they are exact for integers and
    their derivatives are right at ``x == 0``. Floats keep their dtype (as
    JAX); booleans and integers become int64 (as numpy).

    Examples
    --------
    >>> vander(np.array([1.0, 2.0, 3.0]), 3)
    array([[1., 1., 1.],
           [4., 2., 1.],
           [9., 3., 1.]])
    """
    x = asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array")
    N = x.shape[0] if N is None else operator.index(N)
    if N < 0:
        raise ValueError("N must be nonnegative")
    if not dtypes.is_inexact(x.dtype):
        x = astype(x, int64)
    column = reshape(x, (-1, 1))
    factors = concatenate([ones((x.shape[0], 1), x.dtype), broadcast_to(column, (x.shape[0], max(N - 1, 0)))], 1)
    powers = getitem(cumprod(factors, axis=1), (slice(None), slice(0, N)))
    return powers if increasing else getitem(powers, (slice(None), slice(None, None, -1)))


def _window(M: int, formula) -> Tracer:
    """``formula(n / (M - 1))`` at ``n = 1 - M, 3 - M, ..., M - 1`` (numpy's points), a float64 array; ``M < 2``
    gives numpy's ``ones(M)``."""
    M = operator.index(M)
    if M < 2:
        return ones((max(M, 0),), float64)
    return formula(divide(arange(1 - M, M, 2, dtype=float64), M - 1))


@emits_ops
def hanning(M: int) -> Tracer:
    """The Hann window of ``M`` points: ``0.5 + 0.5 cos(pi t)``, ``t`` from -1 to 1.

    Examples
    --------
    >>> hanning(5)
    array([0. , 0.5, 1. , 0.5, 0. ])
    """
    return _window(M, lambda t: add(0.5, multiply(0.5, cos(multiply(np.pi, t)))))


@emits_ops
def hamming(M: int) -> Tracer:
    """The Hamming window of ``M`` points: ``0.54 + 0.46 cos(pi t)``, ``t`` from -1 to 1.

    Examples
    --------
    >>> hamming(3)
    array([0.08, 1.  , 0.08])
    """
    return _window(M, lambda t: add(0.54, multiply(0.46, cos(multiply(np.pi, t)))))


@emits_ops
def blackman(M: int) -> Tracer:
    """The Blackman window of ``M`` points: ``0.42 + 0.5 cos(pi t) + 0.08 cos(2 pi t)``, ``t`` from -1 to 1.

    Examples
    --------
    >>> blackman(3)
    array([-1.38777878e-17,  1.00000000e+00, -1.38777878e-17])
    """
    return _window(M, lambda t: add(add(0.42, multiply(0.5, cos(multiply(np.pi, t)))),
                                    multiply(0.08, cos(multiply(2.0 * np.pi, t)))))


@emits_ops
def bartlett(M: int) -> Tracer:
    """The Bartlett (triangular) window of ``M`` points: ``1 - |t|``, ``t`` from -1 to 1.

    Examples
    --------
    >>> bartlett(5)
    array([0. , 0.5, 1. , 0.5, 0. ])
    """
    return _window(M, lambda t: where(less_equal(t, 0), add(1.0, t), subtract(1.0, t)))


@emits_ops
def kaiser(M: int, beta) -> Tracer:
    """The Kaiser window of ``M`` points: ``i0(beta sqrt(1 - t**2)) / i0(beta)``, ``t`` from -1 to 1.

    ``beta`` may be traced (the window is differentiable in it).

    Examples
    --------
    >>> kaiser(3, 5.0)
    array([0.03671089, 1.        , 0.03671089])
    """
    beta = astype(asarray(beta), float64)
    return _window(M, lambda t: divide(i0(multiply(beta, sqrt(subtract(1.0, multiply(t, t))))), i0(beta)))


# ----------------------------------------------------------------------------
# Index arrays of triangles and diagonals: concrete, as they depend on shapes only
# ----------------------------------------------------------------------------

def _int64_arrays(arrays) -> tuple:
    return tuple(np.asarray(a, np.int64) for a in arrays)


def tril_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """The row and column indices of the lower triangle of an ``n x m`` array (at and below the ``k``-th
    diagonal), as int64 numpy arrays.

    Examples
    --------
    >>> tril_indices(3)
    (array([0, 1, 1, 2, 2, 2]), array([0, 0, 1, 0, 1, 2]))
    """
    return _int64_arrays(np.tril_indices(n, k, m))


def triu_indices(n: int, k: int = 0, m: int | None = None) -> tuple:
    """The row and column indices of the upper triangle of an ``n x m`` array (at and above the ``k``-th
    diagonal), as int64 numpy arrays.

    Examples
    --------
    >>> triu_indices(3, 1)
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    return _int64_arrays(np.triu_indices(n, k, m))


def _matrix_shape(arr, name: str) -> tuple:
    shape = arr.shape if isinstance(arr, Tracer) else np.shape(arr)
    if len(shape) != 2:
        raise ValueError(f"{name} requires a 2-dimensional array, got shape {shape}")
    return shape


def tril_indices_from(arr, k: int = 0) -> tuple:
    """:func:`tril_indices` of the shape of the 2-D ``arr`` (traced or not).

    Examples
    --------
    >>> tril_indices_from(np.zeros((2, 3)), 1)
    (array([0, 0, 1, 1, 1]), array([0, 1, 0, 1, 2]))
    """
    n, m = _matrix_shape(arr, "tril_indices_from")
    return tril_indices(n, k, m)


def triu_indices_from(arr, k: int = 0) -> tuple:
    """:func:`triu_indices` of the shape of the 2-D ``arr`` (traced or not).

    Examples
    --------
    >>> triu_indices_from(np.zeros((2, 3)))
    (array([0, 0, 0, 1, 1]), array([0, 1, 2, 1, 2]))
    """
    n, m = _matrix_shape(arr, "triu_indices_from")
    return triu_indices(n, k, m)


def diag_indices(n: int, ndim: int = 2) -> tuple:
    """The indices of the main diagonal of an ``n x ... x n`` array of ``ndim`` dimensions: ``ndim`` copies of
    ``arange(n)``.

    Examples
    --------
    >>> diag_indices(2, 3)
    (array([0, 1]), array([0, 1]), array([0, 1]))
    """
    return _int64_arrays(np.diag_indices(n, ndim))


def diag_indices_from(arr) -> tuple:
    """:func:`diag_indices` of ``arr``, whose dimensions (2 or more) must be equal.

    Examples
    --------
    >>> diag_indices_from(np.zeros((2, 2)))
    (array([0, 1]), array([0, 1]))
    """
    shape = arr.shape if isinstance(arr, Tracer) else np.shape(arr)
    if len(shape) < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(shape[0], len(shape))


def mask_indices(n: int, mask_func, k: int = 0) -> tuple:
    """The indices where ``mask_func(ones((n, n)), k)`` is not 0 (``np.triu``, ``np.tril``, ...).

    ``mask_func`` gets a numpy array, and must give back a concrete one: the
    number of indices is the result's length. Inside a trace, pass numpy's
    functions (tensorad's give a traced array there).

    Examples
    --------
    >>> mask_indices(3, np.triu, 1)
    (array([0, 0, 1]), array([1, 2, 2]))
    """
    mask = mask_func(np.ones((n, n), np.int64), k)
    if isinstance(mask, Tracer):
        raise TracingError(f"{user_line()}: mask_indices needs a concrete mask, and mask_func gave a traced array: "
                           "pass numpy's function (np.triu rather than tensorad.numpy.triu)")
    return _int64_arrays(np.nonzero(np.asarray(mask)))

