"""Structured matrices of ``jax.scipy.linalg``: built from vectors, or of a static order ``n``.

The matrices of vectors (``toeplitz``, ``hankel``, ``circulant``, ``leslie``,
``companion``, ``fiedler``, ``fiedler_companion``, ``convolution_matrix``,
``block_diag``) gather their entries from the vectors through index maps
known at trace time, so they batch over leading dims as JAX's (vectorized)
ones do and are differentiable in the vectors. The matrices of an order
(``hilbert``, ``invhilbert``, ``pascal``, ``invpascal``, ``helmert``,
``hadamard``, ``dft``) depend on the static ``n`` alone: they are computed
exactly at trace time (binomials in integers, where JAX takes ``exp`` of
``lgamma``) and enter the program as constants, in JAX's dtypes.

Examples
--------
>>> import numpy as np
>>> from tensorad.scipy import linalg
>>> linalg.toeplitz(np.array([1.0, 2.0, 3.0]), np.array([1.0, 4.0]))
array([[1., 4.],
       [2., 1.],
       [3., 2.]])
"""

from __future__ import annotations

import math
import operator

import numpy as np

from .. import dtypes as _dt
from .. import numpy as tnp
from ..tracing import Tracer, emits_ops

__all__ = ["block_diag", "circulant", "companion", "convolution_matrix", "dft", "fiedler", "fiedler_companion",
           "hadamard", "hankel", "helmert", "hilbert", "invhilbert", "invpascal", "leslie", "pascal", "toeplitz"]


def _vector(x) -> Tracer:
    """``x`` as an array of at least one dim (a scalar is a vector of one), as JAX's ``atleast_1d``."""
    return tnp.atleast_1d(tnp.asarray(x))


def _gather(values: Tracer, index: np.ndarray, mask: np.ndarray | None = None) -> Tracer:
    """``values[..., index]`` (``index`` a static map of the vector's entries), zero where ``mask`` is False."""
    picked = values[..., np.clip(index, 0, max(values.shape[-1] - 1, 0))]
    return picked if mask is None else tnp.where(mask, picked, tnp.zeros((), values.dtype))


def _broadcast_vectors(*vectors: Tracer) -> list:
    """The vectors with their leading (batch) dims broadcast together, each keeping its own length."""
    batch = tnp.broadcast_shapes(*(v.shape[:-1] for v in vectors))
    return [tnp.broadcast_to(v, batch + v.shape[-1:]) for v in vectors]


def _promoted(*arrays: Tracer) -> list:
    dtype = _dt.result_type(*arrays)
    return [tnp.astype(a, dtype) for a in arrays]


def _matrix_from(values: Tracer, index: np.ndarray, shape: tuple) -> Tracer:
    """``values[..., index]`` of a ``(rows, cols)`` map; an empty matrix of ``shape`` when there are no entries."""
    if 0 in shape:
        return tnp.zeros(values.shape[:-1] + shape, values.dtype)
    return _gather(values, index)


@emits_ops
def toeplitz(c, r=None) -> Tracer:
    """Toeplitz matrix of first column ``c`` and first row ``r`` (``r[0]`` ignored; default ``conj(c)``).

    Leading dims of ``c`` and ``r`` are batch dims, broadcast together.

    Examples
    --------
    >>> toeplitz(np.array([1, 2, 3]))
    array([[1, 2, 3],
           [2, 1, 2],
           [3, 2, 1]])
    """
    c = _vector(c)
    r = tnp.conj(c) if r is None else _vector(r)
    c, r = _broadcast_vectors(*_promoted(c, r))
    m, n = c.shape[-1], r.shape[-1]
    # a[i, j] = c[i - j] below the diagonal, r[j - i] above: entry m-1-i+j of [c reversed, r[1:]].
    elems = tnp.concatenate([tnp.flip(c, axis=-1), r[..., 1:]], axis=-1)
    return _matrix_from(elems, m - 1 - np.arange(m)[:, None] + np.arange(n), (m, n))


@emits_ops
def hankel(c, r=None) -> Tracer:
    """Hankel matrix of first column ``c`` and last row ``r`` (``r[0]`` ignored; default zeros).

    Examples
    --------
    >>> hankel(np.array([1, 2, 3]), np.array([3, 4]))
    array([[1, 2],
           [2, 3],
           [3, 4]])
    """
    c = tnp.asarray(c)
    r = tnp.zeros_like(c) if r is None else tnp.asarray(r)
    if c.ndim == 0 or r.ndim == 0:
        raise ValueError("hankel: c and r must be at least 1-dimensional, got a scalar")
    c, r = _broadcast_vectors(*_promoted(c, r))
    m, n = c.shape[-1], r.shape[-1]
    # a[i, j] = v[i + j] of v = [c, r[1:]].
    elems = tnp.concatenate([c, r[..., 1:]], axis=-1)
    return _matrix_from(elems, np.arange(m)[:, None] + np.arange(n), (m, n))


@emits_ops
def circulant(c) -> Tracer:
    """Circulant matrix of first column ``c``: ``a[i, j] = c[(i - j) % n]``.

    Examples
    --------
    >>> circulant(np.array([1.0, 2.0, 3.0]))
    array([[1., 3., 2.],
           [2., 1., 3.],
           [3., 2., 1.]])
    """
    c = _vector(c)
    n = c.shape[-1]
    return _gather(c, (np.arange(n)[:, None] - np.arange(n)) % max(n, 1))


@emits_ops
def leslie(f, s) -> Tracer:
    """Leslie matrix: fecundities ``f`` (length ``n >= 2``) in the first row, survivals ``s`` (``n - 1``) below the diagonal.

    Examples
    --------
    >>> leslie(np.array([0.1, 2.0, 1.0]), np.array([0.2, 0.8]))
    array([[0.1, 2. , 1. ],
           [0.2, 0. , 0. ],
           [0. , 0.8, 0. ]])
    """
    f, s = _vector(f), _vector(s)
    if f.shape[-1] < 2:
        raise ValueError(f"leslie: the length of f along the last axis must be at least 2; got shape {f.shape}")
    if s.shape[-1] != f.shape[-1] - 1:
        raise ValueError(f"leslie: the length of s along the last axis must be one less than the length of f; "
                         f"got f shape {f.shape} and s shape {s.shape}")
    f, s = _broadcast_vectors(*_promoted(f, s))
    n = f.shape[-1]
    i, j = np.arange(n)[:, None], np.arange(n)
    return _gather(f, np.broadcast_to(j, (n, n)), i == 0) + _gather(s, np.broadcast_to(j, (n, n)), i == j + 1)


@emits_ops
def companion(a) -> Tracer:
    """Companion matrix of the polynomial of coefficients ``a`` (highest degree first; ``a[0] != 0``).

    Its first row is ``-a[1:] / a[0]``, its first subdiagonal ones; its
    eigenvalues are the polynomial's roots. Integers become float64.

    Examples
    --------
    >>> companion(np.array([1, -3, 2]))
    array([[ 3., -2.],
           [ 1.,  0.]])
    """
    a = _vector(a)
    if a.shape[-1] < 2:
        raise ValueError(f"companion: the length of a along the last axis must be at least 2; got shape {a.shape}")
    a = tnp.astype(a, _dt.float_of(a.dtype))
    m = a.shape[-1] - 1
    i, j = np.arange(m)[:, None], np.arange(m)
    first_row = _gather(-a[..., 1:] / a[..., :1], np.broadcast_to(j, (m, m)), i == 0)
    return first_row + np.eye(m, k=-1, dtype=a.dtype)


@emits_ops
def fiedler(a) -> Tracer:
    """Symmetric Fiedler matrix ``f[i, j] = |a[i] - a[j]|``.

    Examples
    --------
    >>> fiedler(np.array([1, 4, 12]))
    array([[ 0,  3, 11],
           [ 3,  0,  8],
           [11,  8,  0]])
    """
    a = _vector(a)
    return tnp.abs(a[..., :, None] - a[..., None, :])


def _fiedler_companion_map(n: int) -> tuple:
    """Which coefficient (of ``a / a[0]``, negated) each entry of the ``n x n`` Fiedler companion holds, and its ones.

    JAX's pentadiagonal layout: ``c[0, 0] = -a[1]``, ``c[1, 0] = 1``; for
    even ``i``: ``c[i, i+1] = -a[i+2]``, ``c[i, i+2] = 1``, and (``i >= 2``)
    ``c[i, i-1] = -a[i+1]``; for odd ``i >= 3``: ``c[i, i-2] = 1``.
    """
    i, j = np.arange(n)[:, None], np.arange(n)
    even = i % 2 == 0
    index = np.full((n, n), -1)
    index = np.where((i == 0) & (j == 0), 1, index)
    index = np.where((j == i + 1) & even, i + 2, index)
    index = np.where((j == i - 1) & even & (i >= 2), i + 1, index)
    ones = ((i == 1) & (j == 0)) | ((j == i + 2) & even) | ((j == i - 2) & ~even & (i >= 3))
    return index, ones


@emits_ops
def fiedler_companion(a) -> Tracer:
    """Fiedler companion matrix of the polynomial of coefficients ``a``: pentadiagonal, the polynomial's roots as eigenvalues.

    Examples
    --------
    >>> fiedler_companion(np.array([1.0, -6.0, 11.0, -6.0]))
    array([[  6., -11.,   1.],
           [  1.,   0.,   0.],
           [  0.,   6.,   0.]])
    """
    a = _vector(a)
    if a.shape[-1] == 0:
        raise ValueError(f"fiedler_companion requires the last axis of 'a' to have nonzero length, "
                         f"but got an array of shape {a.shape}")
    a = tnp.astype(a, _dt.float_of(a.dtype))
    n = a.shape[-1] - 1
    if n == 0:
        return tnp.zeros(a.shape[:-1] + (0, 0), a.dtype)
    index, ones = _fiedler_companion_map(n)
    return _gather(-a / a[..., :1], index, index >= 0) + ones.astype(a.dtype)


@emits_ops
def convolution_matrix(a, n: int, mode: str = "full") -> Tracer:
    """Toeplitz matrix ``A`` of ``n`` columns with ``A @ v == numpy.convolve(a, v, mode)``.

    ``mode`` ``"full"`` (``len(a) + n - 1`` rows), ``"same"``
    (``max(len(a), n)``) or ``"valid"`` (``max - min + 1``).

    Examples
    --------
    >>> convolution_matrix(np.array([1.0, 2.0]), 3)
    array([[1., 0., 0.],
           [2., 1., 0.],
           [0., 2., 1.],
           [0., 0., 2.]])
    """
    n = operator.index(n)
    if n <= 0:
        raise ValueError(f"convolution_matrix: n must be a positive integer; got {n}")
    a = tnp.asarray(a)
    if a.ndim == 0:
        raise ValueError("convolution_matrix: a must be at least 1-dimensional, got a scalar")
    m = a.shape[-1]
    if m < 1:
        raise ValueError(f"convolution_matrix: len(a) must be at least 1; got shape {a.shape}")
    if mode not in ("full", "valid", "same"):
        raise ValueError(f"convolution_matrix: mode must be one of 'full', 'valid', 'same'; got {mode!r}")
    # The rows 'same' and 'valid' keep of the full matrix: trim_begin from the top, trim_end from the bottom.
    trim = {"full": 0, "same": min(n, m) - 1, "valid": 2 * (min(n, m) - 1)}[mode]
    trim_begin = trim // 2
    trim_end = trim - trim_begin
    length = m + n - 1
    pad = [(0, 0)] * (a.ndim - 1) + [(0, n - 1)]
    column = tnp.pad(a, pad)[..., trim_begin:length - trim_end]
    row = tnp.pad(tnp.flip(a, axis=-1), pad)[..., length - n - trim_begin:length - trim_begin]
    return toeplitz(column, row)


@emits_ops
def block_diag(*arrs) -> Tracer:
    """Block diagonal matrix of arrays of at most two dims (scalars and vectors are one-row blocks).

    Examples
    --------
    >>> block_diag(np.array([[1, 2]]), np.array(3))
    array([[1, 2, 0],
           [0, 0, 3]])
    """
    arrays = [tnp.asarray(a) for a in arrs] or [tnp.zeros((1, 0))]
    bad = [k for k, a in enumerate(arrays) if a.ndim > 2]
    if bad:
        raise ValueError(f"block_diag: arguments must have at most 2 dimensions, got shape {arrays[bad[0]].shape} "
                         f"at argument {bad[0]}")
    blocks = [tnp.atleast_2d(a) for a in _promoted(*arrays)]
    total = sum(b.shape[1] for b in blocks)
    offsets = np.cumsum([0] + [b.shape[1] for b in blocks])
    return tnp.concatenate([tnp.pad(b, ((0, 0), (int(start), total - int(start) - b.shape[1])))
                            for b, start in zip(blocks, offsets)], axis=0)


# ----------------------------------------------------------------------------
# Matrices of a static order: exact constants
# ----------------------------------------------------------------------------

def _order(n, name: str, least: int = 0) -> int:
    n = operator.index(n)
    if n < least:
        raise ValueError(f"{name}: n must be at least {least}; got {n}")
    return n


def _binomials(n: int) -> np.ndarray:
    """``C(i, j)`` for ``0 <= i, j < n``, as exact Python integers (an object array)."""
    return np.array([[math.comb(i, j) for j in range(n)] for i in range(n)], dtype=object)


def _kind(kind) -> str:
    kind = "symmetric" if kind is None else kind
    if kind not in ("symmetric", "lower", "upper"):
        raise ValueError(f"Expected kind to be one of: ['symmetric', 'lower', 'upper']; got {kind}")
    return kind


def _by_kind(lower: np.ndarray, kind: str, symmetric) -> np.ndarray:
    return {"lower": lambda: lower, "upper": lambda: lower.T, "symmetric": symmetric}[kind]()


def hilbert(n: int):
    """Hilbert matrix of order ``n``: ``h[i, j] = 1 / (i + j + 1)`` (float64).

    Examples
    --------
    >>> hilbert(2)
    array([[1.        , 0.5       ],
           [0.5       , 0.33333333]])
    """
    a = np.arange(_order(n, "hilbert"), dtype=np.float64)
    return tnp.asarray(1.0 / (a[:, None] + a + 1.0))


def invhilbert(n: int):
    """Inverse of the Hilbert matrix of order ``n``, from its closed form in exact integers (float64).

    Examples
    --------
    >>> invhilbert(2)
    array([[ 4., -6.],
           [-6., 12.]])
    """
    n = _order(n, "invhilbert")
    entries = [[(-1) ** (i + j) * (i + j + 1) * math.comb(n + i, n - j - 1) * math.comb(n + j, n - i - 1)
                * math.comb(i + j, i) ** 2 for j in range(n)] for i in range(n)]
    return tnp.asarray(np.array(entries, dtype=np.float64).reshape(n, n))


def pascal(n: int, kind: str | None = None):
    """Pascal matrix of order ``n`` (``kind``: ``"symmetric"`` (default), ``"lower"`` or ``"upper"``), float32 as JAX's.

    The binomials are exact integers before the cast (JAX approximates them).

    Examples
    --------
    >>> pascal(3)
    array([[1., 1., 1.],
           [1., 2., 3.],
           [1., 3., 6.]], dtype=float32)
    """
    n = _order(n, "pascal")
    lower = _binomials(n)
    return tnp.asarray(_by_kind(lower, _kind(kind), lambda: lower.dot(lower.T)).astype(np.float32).reshape(n, n))


def invpascal(n: int, kind: str | None = None):
    """Inverse of :func:`pascal` (``(-1)^(i-j) C(i, j)`` for the lower one), float64.

    Examples
    --------
    >>> invpascal(3)
    array([[ 3., -3.,  1.],
           [-3.,  5., -2.],
           [ 1., -2.,  1.]])
    """
    n = _order(n, "invpascal")
    signs = np.array([[(-1) ** (i + j) for j in range(n)] for i in range(n)], dtype=object).reshape(n, n)
    lower = signs * _binomials(n)
    return tnp.asarray(_by_kind(lower, _kind(kind), lambda: lower.T.dot(lower)).astype(np.float64).reshape(n, n))


def helmert(n: int, full: bool = False):
    """Helmert matrix of order ``n``: the ``(n - 1, n)`` orthonormal contrasts, after a row of ``1/sqrt(n)`` if ``full``.

    Examples
    --------
    >>> helmert(2, full=True)
    array([[ 0.70710678,  0.70710678],
           [ 0.70710678, -0.70710678]])
    """
    n = _order(n, "helmert", least=1)
    i, j = np.arange(n - 1)[:, None], np.arange(n)
    k = i + 1.0
    h = np.where(j <= i, 1.0, np.where(j == i + 1, -k, 0.0)) / np.sqrt(k * (k + 1.0))
    if full:
        h = np.concatenate([np.full((1, n), 1.0 / np.sqrt(n)), h])
    return tnp.asarray(h)


def hadamard(n: int, dtype=int):
    """Hadamard matrix of order ``n`` (a power of 2), Sylvester's construction; int64 by default.

    Examples
    --------
    >>> hadamard(2)
    array([[ 1,  1],
           [ 1, -1]])
    """
    n = operator.index(n)
    if n < 1 or not math.log2(n).is_integer():
        raise ValueError(f"hadamard: n must be a positive power of 2; got {n}")
    h = np.ones((1, 1), dtype=np.int64)
    for _ in range(int(math.log2(n))):
        h = np.block([[h, h], [h, -h]])
    return tnp.asarray(h.astype(_dt.check_supported(np.dtype(dtype))))


def dft(n: int, scale: str | None = None, *, dtype=None):
    """Discrete Fourier transform matrix ``w[i, j] = exp(-2πi·ij/n)``, scaled by ``1/sqrt(n)`` (``"sqrtn"``) or ``1/n`` (``"n"``).

    complex128 by default; ``dtype`` must be complex.

    Examples
    --------
    >>> np.round(dft(2), 12)
    array([[ 1.+0.j,  1.+0.j],
           [ 1.+0.j, -1.-0.j]])
    """
    if scale not in (None, "sqrtn", "n"):
        raise ValueError(f"dft: scale must be None, 'sqrtn', or 'n'; got {scale!r}")
    dtype = np.dtype(np.complex128 if dtype is None else dtype)
    if not _dt.is_complex(dtype):
        raise ValueError(f"dft: dtype must be a complex floating-point type; got {dtype}")
    n = _order(n, "dft")
    # The exponent ij mod n keeps the angles small, so large orders stay accurate.
    k = np.outer(np.arange(n), np.arange(n)) % max(n, 1)
    w = np.exp(-2j * np.pi * k / max(n, 1))
    w = w / {None: 1.0, "sqrtn": np.sqrt(n), "n": float(n)}[scale]
    return tnp.asarray(w.astype(dtype))
