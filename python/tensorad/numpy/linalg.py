"""``tensorad.numpy.linalg``: ``jax.numpy.linalg`` over traced arrays, computed by LAPACK.

Factorizations and solves are ``tad`` ops (:mod:`tensorad.dialects.families.linalg_lapack`)
that compiled code computes by calling the LAPACK that scipy ships; the rest
(``det``, ``inv``, ``pinv``, ``lstsq``, ``matrix_power``, ``cond``, ``matrix_rank``,
``tensorsolve``...) is built from them
with numpy's semantics (batches of matrices in the trailing two dims,
broadcasting batch dims) and JAX's where they differ: ``cholesky`` and
``eigh`` symmetrize their input, a failed factorization gives NaNs rather
than raising ``LinAlgError``, ``lstsq`` always returns the residuals.
Derivatives are JAX's rules (solves, not unrolled factorizations; ``det``
and ``slogdet`` through ``trace(solve(a, da))``, ``pinv`` Golub and
Pereyra's), in both modes; ``eigh``'s, ``eig``'s and ``svd``'s are infinite
where eigen or singular values repeat, and ``svd``'s exists for reduced
factors (or square matrices). ``eig`` (LAPACK ``geev``) of a general matrix
gives complex eigenvalues and eigenvectors whatever the input (JAX's
choice), with the derivative of its eigenvectors under LAPACK's
normalization, which JAX computes only when asked
(``enable_eigvec_derivs``).
Integer inputs are computed in float64; float32 stays float32, and complex64
and complex128 matrices are computed by LAPACK's ``c`` and ``z`` routines
(``eigh`` of Hermitian ones; eigen and singular values real), with JAX's
conjugate-transpose rules and its conventions for complex derivatives.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> a = np.array([[4.0, 1.0], [1.0, 3.0]])
>>> tnp.linalg.solve(a, np.array([1.0, 2.0]))
array([0.09090909, 0.63636364])
>>> ta.grad(lambda a: tnp.linalg.slogdet(a)[1])(a)  # the inverse transposed
array([[ 0.27272727, -0.09090909],
       [-0.09090909,  0.36363636]])
"""

from __future__ import annotations

from collections import namedtuple
from functools import lru_cache

import numpy as np
from numpy.lib.array_utils import normalize_axis_tuple

from tensorad.dialects.families import linalg_lapack as lapack

from .. import dtypes as _dt
from .. import numpy as tnp
from . import matrices, norms
from .shaping import matrix_transpose
from ..autodiff import custom_jvp
from ..tracing import Tracer, emits_ops

__all__ = ["cholesky", "cond", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv", "lstsq",
           "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "multi_dot", "norm", "outer", "pinv",
           "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "tensorinv", "tensorsolve", "trace", "vecdot",
           "vector_norm"]

EigResult = namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


# ----------------------------------------------------------------------------
# Helpers
# ----------------------------------------------------------------------------

def _tracer(value) -> Tracer:
    return Tracer.of(value)


def float_matrices(a, name: str, square: bool = False, empty: bool = False) -> Tracer:
    """``a`` as a traced float32/float64/complex64/complex128 array of matrices (integers, booleans: float64).

    Raises ``ValueError`` naming ``name`` for fewer than two dims, (with
    ``square``) non-square or (without ``empty``: the caller has no answer
    for them) empty matrices; ``TypeError`` for other dtypes. A caller that
    takes ``empty`` ones answers them without LAPACK (:func:`_is_empty`).
    """
    a = tnp.asarray(a)
    if a.ndim < 2:
        raise ValueError(f"{name}: {a.ndim}-dimensional array given; the array must be at least two-dimensional")
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{name}: last 2 dimensions of the array must be square, got {a.shape}")
    if 0 in a.shape[-2:] and not empty:
        raise ValueError(f"{name}: the matrices are empty ({a.shape}); tensorad's LAPACK ops need nonempty ones")
    dtype = a.dtype
    if _dt.is_bool(dtype) or not (_dt.is_float(dtype) or _dt.is_complex(dtype)):
        return tnp.astype(a, tnp.float64)
    if dtype not in (tnp.float32, tnp.float64, tnp.complex64, tnp.complex128):
        raise TypeError(f"{name}: {dtype.name} matrices are not supported (LAPACK computes float32, float64, "
                        "complex64 and complex128)")
    return a


def conj_transpose(x) -> Tracer:
    """The conjugate transpose of the matrices in the last two dims (the transpose of real ones).

    Examples
    --------
    >>> conj_transpose(np.array([[1j, 2.0]]))
    array([[0.-1.j],
           [2.-0.j]])
    """
    x = tnp.asarray(x)
    return matrix_transpose(tnp.conj(x) if _dt.is_complex(x.dtype) else x)


def _is_empty(a: Tracer) -> bool:
    """Whether the matrices of ``a`` have no rows or no columns: numpy's answers need no factorization."""
    return 0 in a.shape[-2:]


def _zeros(a: Tracer, shape: tuple, dtype=None) -> Tracer:
    """Zeros of ``shape`` after ``a``'s batch dims (a value with no elements, or an empty sum)."""
    return tnp.zeros(a.shape[:-2] + tuple(shape), dtype or a.dtype)


def _symmetrize(a: Tracer) -> Tracer:
    return (a + conj_transpose(a)) / 2.0


def _eye_like(a: Tracer, n: int) -> Tracer:
    return tnp.broadcast_to(tnp.eye(n, dtype=a.dtype), a.shape[:-2] + (n, n))


def _diagonal(a: Tracer) -> Tracer:
    """``a[..., i, i]`` of square matrices."""
    return tnp.sum(a * tnp.eye(a.shape[-1], dtype=a.dtype), axis=-1)


def _broadcast_batches(a: Tracer, b: Tracer) -> tuple:
    """Matrices ``a`` and ``b`` broadcast to one batch shape (their leading dims)."""
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    return tnp.broadcast_to(a, batch + a.shape[-2:]), tnp.broadcast_to(b, batch + b.shape[-2:])


# ----------------------------------------------------------------------------
# Factorizations
# ----------------------------------------------------------------------------

@emits_ops
def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True) -> Tracer:
    """Cholesky factor of symmetric (Hermitian) positive definite matrices: lower ``l`` with ``a = l @ l.T.conj()``.

    NaNs where a matrix is not positive definite (JAX's behaviour); ``upper``
    gives ``l.T.conj()``. The input is symmetrized first, as in JAX.

    Examples
    --------
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    array([[2., 0.],
           [1., 2.]])
    """
    a = float_matrices(a, "cholesky", square=True, empty=True)
    if _is_empty(a):
        return a
    if symmetrize_input:
        a = _symmetrize(a)
    low = _tracer(lapack.cholesky(a.value))
    return conj_transpose(low) if upper else low


@emits_ops
def qr(a, mode: str = "reduced"):
    """QR factorization: ``QRResult(Q, R)`` (``mode`` ``"reduced"`` or ``"complete"``), or ``R`` (``"r"``).

    The derivative exists for reduced factors of matrices with at least as
    many rows as columns (JAX's).

    Examples
    --------
    >>> q, r = qr(np.array([[3.0, 1.0], [4.0, 2.0]]))
    >>> np.round(q @ r, 12)
    array([[3., 1.],
           [4., 2.]])
    """
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"qr: unsupported mode {mode!r} (use 'reduced', 'complete' or 'r')")
    a = float_matrices(a, "qr", empty=True)
    m, n = a.shape[-2:]
    if _is_empty(a):  # no reflectors: q is the identity's first columns, r zeros
        columns = m if mode == "complete" else 0
        q, r = _eye_like(a, m)[..., :columns], _zeros(a, (columns, n))
    else:
        q, r = (_tracer(v) for v in lapack.qr(a.value, full_matrices=mode == "complete"))
    return r if mode == "r" else QRResult(q, r)


@emits_ops
def eigh(a, UPLO: str | None = None, symmetrize_input: bool = True):  # noqa: N803 (numpy's name)
    """Eigenvalues (ascending, real) and eigenvectors (columns) of symmetric (Hermitian) matrices: ``EighResult(w, v)``.

    The input is symmetrized first, as in JAX; without that, only the
    triangle ``UPLO`` says (``"L"`` by default) is read.

    Examples
    --------
    >>> w, v = eigh(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> w
    array([1., 3.])
    """
    if UPLO not in (None, "L", "U"):
        raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    a = float_matrices(a, "eigh", square=True, empty=True)
    if _is_empty(a):
        return EighResult(_zeros(a, (0,), _dt.real_dtype(a.dtype)), a)
    if symmetrize_input:
        a = _symmetrize(a)
    v, w = lapack.eigh(a.value, lower=UPLO != "U")
    return EighResult(_tracer(w), _tracer(v))


@emits_ops
def eig(a) -> EigResult:
    """Eigenvalues and right eigenvectors (columns) of general square matrices: ``EigResult(w, v)``.

    Both complex, of complex64 for float32 and complex64 input, complex128
    otherwise (JAX's: numpy gives real ones when every eigenvalue is real),
    in LAPACK ``geev``'s order and normalization: each eigenvector has unit
    2-norm and its largest component real. The derivative of the
    eigenvalues is ``diag(v⁻¹ da v)``; that of the eigenvectors keeps this
    normalization, which holds for distinct eigenvalues and vectors whose
    largest component is not tied (JAX's ``enable_eigvec_derivs``).

    Examples
    --------
    >>> w, v = eig(np.array([[0.0, -1.0], [1.0, 0.0]]))  # a rotation by 90 degrees
    >>> w
    array([0.+1.j, 0.-1.j])
    >>> np.allclose(np.array([[0.0, -1.0], [1.0, 0.0]]) @ v, v * w)
    True
    """
    a = float_matrices(a, "eig", square=True, empty=True)
    complex_dtype = tnp.complex64 if a.dtype in (tnp.float32, tnp.complex64) else tnp.complex128
    if _is_empty(a):
        return EigResult(_zeros(a, (0,), complex_dtype), tnp.astype(a, complex_dtype))
    w, v = lapack.eig(a.value)
    return EigResult(_tracer(w), _tracer(v))


@emits_ops
def eigvals(a) -> Tracer:
    """Eigenvalues (complex, unsorted) of general square matrices: :func:`eig`'s.

    Examples
    --------
    >>> eigvals(np.array([[2.0, 1.0], [0.0, 3.0]]))
    array([2.+0.j, 3.+0.j])
    """
    return eig(a).eigenvalues


@emits_ops
def eigvalsh(a, UPLO: str | None = None) -> Tracer:  # noqa: N803 (numpy's name)
    """Eigenvalues (ascending) of symmetric matrices.

    Examples
    --------
    >>> eigvalsh(np.array([[2.0, 0.0], [0.0, -1.0]]))
    array([-1.,  2.])
    """
    return eigh(a, UPLO).eigenvalues


@emits_ops
def svd(a, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False):
    """Singular value decomposition ``SVDResult(U, S, Vh)`` (``a = U @ diag(S) @ Vh``), or ``S`` alone.

    ``S`` alone without ``compute_uv``; singular values come in descending
    order. ``hermitian`` is accepted and ignored (the general decomposition
    is computed). The derivative exists for reduced factors, which square
    matrices have whatever ``full_matrices`` says.

    Examples
    --------
    >>> svd(np.array([[3.0, 0.0], [0.0, -4.0]]), compute_uv=False)
    array([4., 3.])
    """
    a = float_matrices(a, "svd", empty=True)
    full = bool(full_matrices) and compute_uv and a.shape[-1] != a.shape[-2]
    m, n = a.shape[-2:]
    if _is_empty(a):  # no singular values; full factors are identities
        u = _eye_like(a, m) if full else _zeros(a, (m, 0))
        vt = _eye_like(a, n) if full else _zeros(a, (0, n))
        s = _zeros(a, (0,), _dt.real_dtype(a.dtype))
    else:
        u, s, vt = (_tracer(v) for v in lapack.svd(a.value, full_matrices=full))
    return SVDResult(u, s, vt) if compute_uv else s


# ----------------------------------------------------------------------------
# Solves and what is built on them
# ----------------------------------------------------------------------------

@emits_ops
def solve(a, b) -> Tracer:
    """Solve ``a @ x = b`` for square ``a``; ``b`` is a vector when 1-D, else matrices (numpy 2's rule).

    Batch dims broadcast. A singular matrix gives NaNs (LU with partial
    pivoting, LAPACK ``getrf``/``getrs``).

    Examples
    --------
    >>> solve(np.array([[2.0, 0.0], [0.0, 4.0]]), np.array([[2.0], [2.0]]))
    array([[1. ],
           [0.5]])
    """
    a = float_matrices(a, "solve", square=True, empty=True)
    b = tnp.asarray(b)
    dtype = _dt.result_type(a, b) if _dt.is_float(b.dtype) or _dt.is_complex(b.dtype) else a.dtype
    a, b = tnp.astype(a, dtype), tnp.astype(b, dtype)
    vector = b.ndim == 1
    if vector:
        b = tnp.reshape(b, b.shape + (1,))
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"solve: b of shape {b.shape} does not fit a of shape {a.shape}")
    a, b = _broadcast_batches(a, b)
    x = b if _is_empty(a) else _tracer(lapack.solve(a.value, b.value))
    return tnp.reshape(x, x.shape[:-1]) if vector else x


@emits_ops
def inv(a) -> Tracer:
    """Inverse of square matrices (NaNs for a singular one).

    Examples
    --------
    >>> inv(np.array([[2.0, 0.0], [0.0, 4.0]]))
    array([[0.5 , 0.  ],
           [0.  , 0.25]])
    """
    a = float_matrices(a, "inv", square=True, empty=True)
    return solve(a, _eye_like(a, a.shape[-1]))


def _lu_diagonal_and_sign(a: Tracer) -> tuple:
    """The diagonal of ``u`` in ``p a = l u`` and the sign of ``p`` (±1, of ``a``'s dtype)."""
    lu_, pivots, _ = (_tracer(v) for v in lapack.lu(a.value))
    n = a.shape[-1]
    swaps = tnp.sum(tnp.astype(pivots != tnp.arange(n, dtype=tnp.int32), tnp.int32), axis=-1)
    parity = tnp.astype(swaps % 2, a.dtype)
    return _diagonal(lu_), 1.0 - 2.0 * parity


@custom_jvp
def _slogdet(a):
    """(sign, log |det|) from an LU factorization, with JAX's rule: d log|det a| = trace(a⁻¹ da), a solve."""
    diagonal, sign = _lu_diagonal_and_sign(a)
    if _dt.is_complex(a.dtype):  # the sign is the product of the diagonal's phases
        magnitude = tnp.abs(diagonal)
        phases = diagonal / tnp.where(magnitude == 0.0, 1.0, magnitude)
        sign = sign * tnp.prod(phases, axis=-1)
        sign = tnp.where(tnp.any(magnitude == 0.0, axis=-1), 0.0, sign)
        return sign, tnp.sum(tnp.log(magnitude), axis=-1)
    negatives = tnp.sum(tnp.astype(diagonal < 0.0, tnp.int32), axis=-1)
    sign = sign * (1.0 - 2.0 * tnp.astype(negatives % 2, a.dtype))
    sign = tnp.where(tnp.any(diagonal == 0.0, axis=-1), 0.0, sign)
    return sign, tnp.sum(tnp.log(tnp.abs(diagonal)), axis=-1)


@_slogdet.defjvp
def _slogdet_jvp(primals, tangents):
    (a,), (a_dot,) = primals, tangents
    sign, logabsdet = _slogdet(a)
    trace = _diagonal(solve(a, a_dot)).sum(axis=-1)
    if _dt.is_complex(a.dtype):  # JAX's: the imaginary part of the trace turns the sign
        return (sign, logabsdet), ((trace - tnp.real(trace)) * sign, tnp.real(trace))
    return (sign, logabsdet), (tnp.zeros_like(sign), trace)


@emits_ops
def slogdet(a) -> SlogdetResult:
    """Sign and natural log of the absolute value of the determinant: ``SlogdetResult(sign, logabsdet)``.

    Computed from an LU factorization; a singular matrix has sign 0 and
    logabsdet ``-inf``; the sign of a complex matrix is ``det / |det|``. The
    derivative is JAX's, ``trace(solve(a, da))``.

    Examples
    --------
    >>> slogdet(np.array([[0.0, 2.0], [3.0, 0.0]]))
    SlogdetResult(sign=array(-1.), logabsdet=array(1.79175947))
    """
    a = float_matrices(a, "slogdet", square=True, empty=True)
    if _is_empty(a):  # the empty product: 1
        return SlogdetResult(_zeros(a, ()) + 1.0, _zeros(a, (), _dt.real_dtype(a.dtype)))
    return SlogdetResult(*_slogdet(a))


@emits_ops
def det(a) -> Tracer:
    """Determinant of square matrices: ``sign * exp(logabsdet)`` of :func:`slogdet` (and its derivative).

    Examples
    --------
    >>> det(np.array([[1.0, 2.0], [3.0, 4.0]]))
    array(-2.)
    """
    sign, logabsdet = slogdet(a)
    return sign * tnp.exp(logabsdet)


@emits_ops
def matrix_power(a, n: int) -> Tracer:
    """``a`` raised to the integer power ``n`` by repeated squaring (``inv(a)`` first when ``n < 0``).

    Examples
    --------
    >>> matrix_power(np.array([[1.0, 1.0], [0.0, 1.0]]), 3)
    array([[1., 3.],
           [0., 1.]])
    """
    if not isinstance(n, (int, np.integer)):
        raise TypeError(f"matrix_power: the exponent must be an integer, got {n!r}")
    a = tnp.asarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"matrix_power: needs square matrices, got shape {a.shape}")
    if n < 0:
        a, n = inv(a), -int(n)
    if n == 0:
        return _eye_like(a, a.shape[-1])
    result, power = None, a
    while n:
        if n & 1:
            result = power if result is None else tnp.matmul(result, power)
        n >>= 1
        if n:
            power = tnp.matmul(power, power)
    return result


def _default_rtol(a: Tracer) -> float:
    return 10.0 * max(a.shape[-2:]) * float(np.finfo(a.dtype).eps)


@lru_cache(maxsize=None)
def _pinv_with(rtol: float | None):
    """``pinv`` of one ``rtol``, with JAX's rule (Golub and Pereyra's), not the SVD's."""

    @custom_jvp
    def pinv_(a):
        u, s, vh = svd(a, full_matrices=False)
        cutoff = (_default_rtol(a) if rtol is None else rtol) * s[..., :1]
        s = tnp.where(s > cutoff, s, np.inf)
        return tnp.matmul(conj_transpose(vh), conj_transpose(u) / s[..., :, None])

    @pinv_.defjvp
    def _jvp(primals, tangents):
        (a,), (a_dot,) = primals, tangents
        p = pinv_(a)
        mm, h = tnp.matmul, conj_transpose
        if a.shape[-2] >= a.shape[-1]:
            s = mm(mm(p, h(p)), h(a_dot))
            t = mm(mm(h(a_dot), h(p)), p)
            p_dot = -mm(mm(p, a_dot), p) + s - mm(mm(s, a), p) + t - mm(mm(p, a), t)
        else:
            s = mm(p, mm(h(p), h(a_dot)))
            t = mm(h(a_dot), mm(h(p), p))
            p_dot = -mm(p, mm(a_dot, p)) + s - mm(s, mm(a, p)) + t - mm(p, mm(a, t))
        return p, p_dot

    return pinv_


@emits_ops
def pinv(a, rtol=None, hermitian: bool = False, *, rcond=None) -> Tracer:
    """Moore-Penrose pseudo-inverse through the SVD; singular values at most ``rtol`` times the largest are dropped.

    ``rtol`` (or numpy's older ``rcond``) defaults to ``10 * max(m, n) * eps``
    (JAX's). ``hermitian`` is accepted and ignored.

    Examples
    --------
    >>> pinv(np.array([[1.0, 0.0], [0.0, 0.0]]))
    array([[1., 0.],
           [0., 0.]])
    """
    a = float_matrices(a, "pinv")
    rtol = rcond if rtol is None else rtol
    if rtol is not None and not isinstance(rtol, (int, float, np.number)):
        raise TypeError("pinv: rtol must be a number (tensorad takes no per-matrix rtol)")
    return _pinv_with(None if rtol is None else float(rtol))(a)


@emits_ops
def lstsq(a, b, rcond=None):
    """Least-squares solution of ``a @ x = b``: ``(x, residuals, rank, s)``, through the SVD as JAX does.

    Singular values below ``rcond`` times the largest (default ``eps *
    max(m, n)``) count as zero. ``residuals`` is always the squared norm of
    ``b - a @ x`` per column (JAX's ``numpy_resid=False``).

    Examples
    --------
    >>> x, resid, rank, s = lstsq(np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]), np.array([1.0, 1.0, 3.0]))
    >>> x, rank
    (array([1.33333333, 1.33333333]), array(2))
    """
    a = float_matrices(a, "lstsq")
    b = tnp.astype(tnp.asarray(b), a.dtype)
    if a.ndim != 2 or b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise ValueError(f"lstsq: a must be 2-D and b 1-D or 2-D with as many rows, got {a.shape} and {b.shape}")
    vector = b.ndim == 1
    if vector:
        b = tnp.reshape(b, b.shape + (1,))
    rcond = float(np.finfo(a.dtype).eps) * max(a.shape) if rcond is None or rcond < 0 else float(rcond)
    u, s, vt = svd(a, full_matrices=False)
    mask = s >= rcond * s[:1]
    rank = tnp.sum(tnp.astype(mask, tnp.int64))
    s_inv = tnp.where(mask, 1.0 / tnp.where(mask, s, 1.0), 0.0)
    x = tnp.matmul(conj_transpose(vt), s_inv[:, None] * tnp.matmul(conj_transpose(u), b))
    error = b - tnp.matmul(a, x)
    residuals = tnp.sum(tnp.real(error * tnp.conj(error)) if _dt.is_complex(error.dtype) else error ** 2, axis=0)
    if vector:
        x, residuals = tnp.reshape(x, x.shape[:1]), tnp.reshape(residuals, ())
    return x, residuals, rank, s


# ----------------------------------------------------------------------------
# Norms
# ----------------------------------------------------------------------------

@emits_ops
def norm(x, ord=None, axis=None, keepdims: bool = False) -> Tracer:  # noqa: A002 (numpy's name)
    """Vector and matrix norms, as ``numpy.linalg.norm``: the matrix norms 2, -2 and ``'nuc'`` from the SVD.

    The others are :func:`tensorad.numpy.norms.norm`'s.

    Examples
    --------
    >>> norm(np.array([[3.0, 0.0], [0.0, 4.0]]), 2), norm(np.array([3.0, 4.0]))
    (array(4.), array(5.))
    """
    x = tnp.asarray(x)
    axis = tuple(axis) if isinstance(axis, list) else axis
    if x.ndim == 2 and axis is None and ord in (2, -2, "nuc"):
        axis = (0, 1)
    if ord in (2, -2, "nuc") and isinstance(axis, tuple) and len(axis) == 2:
        return _svd_norm(x, ord, axis, keepdims)
    return norms.norm(x, ord=ord, axis=axis, keepdims=keepdims)


def _svd_norm(x: Tracer, ord, axis: tuple, keepdims: bool) -> Tracer:  # noqa: A002
    """The matrix norms of the singular values: the largest (2), the smallest (-2), their sum ('nuc')."""
    rows, cols = (d % x.ndim for d in axis)
    if rows == cols:
        raise ValueError(f"norm: duplicate axes given: {axis}")
    rest = [d for d in range(x.ndim) if d not in (rows, cols)]
    s = svd(tnp.transpose(x, rest + [rows, cols]), compute_uv=False)
    out = {2: tnp.max, -2: tnp.min, "nuc": tnp.sum}[ord](s, axis=-1)
    if keepdims:
        for d in sorted((rows, cols)):
            out = tnp.expand_dims(out, d)
    return out


@emits_ops
def vector_norm(x, /, *, axis=None, keepdims: bool = False, ord=2) -> Tracer:  # noqa: A002 (numpy's name)
    """The vector norm ``ord`` over ``axis`` (all axes when None; a tuple: their elements as one vector).

    Examples
    --------
    >>> vector_norm(np.array([[3.0, 0.0], [0.0, -4.0]]))
    array(5.)
    """
    x = tnp.asarray(x)
    axes = tuple(range(x.ndim)) if axis is None else normalize_axis_tuple(axis, x.ndim)
    kept = [d for d in range(x.ndim) if d not in axes]
    length = int(np.prod([x.shape[d] for d in axes], dtype=np.int64))
    vectors = tnp.reshape(tnp.transpose(x, kept + list(axes)), [x.shape[d] for d in kept] + [length])
    out = norms.norm(vectors, ord=ord, axis=-1)
    return tnp.reshape(out, [1 if d in axes else n for d, n in enumerate(x.shape)]) if keepdims else out


@emits_ops
def matrix_norm(x, /, *, keepdims: bool = False, ord="fro") -> Tracer:  # noqa: A002 (numpy's name)
    """The matrix norm ``ord`` of the matrices in the last two dims (:func:`norm`'s orders).

    Examples
    --------
    >>> matrix_norm(np.array([[3.0, 0.0], [0.0, -4.0]]), ord=2)
    array(4.)
    """
    return norm(float_matrices(x, "matrix_norm", empty=True), ord=ord, axis=(-2, -1), keepdims=keepdims)


@emits_ops
def svdvals(x, /) -> Tracer:
    """The singular values of the matrices in the last two dims, descending.

    Examples
    --------
    >>> svdvals(np.array([[0.0, 2.0], [1.0, 0.0]]))
    array([2., 1.])
    """
    return svd(x, compute_uv=False)


@emits_ops
def cond(x, p=None) -> Tracer:
    """The condition number of square matrices in the norm ``p`` (None and ±2: from the singular values).

    Other orders are ``norm(x, p) * norm(inv(x), p)``; as JAX's, a singular
    matrix gives ``inf``, not NaN.

    Examples
    --------
    >>> cond(np.array([[1.0, 0.0], [0.0, 4.0]]))
    array(4.)
    """
    x = float_matrices(x, "cond")
    if p in (None, 2, -2):
        s = svd(x, compute_uv=False)
        largest, smallest = s[..., 0], s[..., -1]
        return smallest / largest if p == -2 else largest / smallest
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"cond: the norm {p!r} needs square matrices, got shape {x.shape}")
    result = norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))
    # inv of a singular matrix is NaNs: its condition number is infinite.
    singular = tnp.isnan(result) & ~tnp.any(tnp.isnan(x), axis=(-2, -1))
    return tnp.where(singular, np.inf, result)


@emits_ops
def matrix_rank(A, tol=None, hermitian: bool = False, *, rtol=None) -> Tracer:  # noqa: N803 (numpy's name)
    """The number of singular values above ``tol`` (absolute) or ``rtol`` times the largest (int64).

    By default ``rtol`` is ``max(m, n) * eps``, numpy's; ``hermitian`` is
    accepted and ignored. A vector's rank is 1 unless it is all zeros.

    Examples
    --------
    >>> matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]]))
    array(1)
    """
    a = tnp.asarray(A)
    if a.ndim < 2:
        return tnp.astype(tnp.any(a != 0), tnp.int64)
    s = svd(float_matrices(a, "matrix_rank"), compute_uv=False)
    largest = s[..., :1]
    if tol is not None:
        threshold = tnp.asarray(tol)[..., None]
    elif rtol is not None:
        threshold = tnp.asarray(rtol)[..., None] * largest
    else:
        threshold = largest * (max(a.shape[-2:]) * float(np.finfo(s.dtype).eps))
    return tnp.sum(tnp.astype(s > threshold, tnp.int64), axis=-1)


@emits_ops
def multi_dot(arrays, *, precision=None) -> Tracer:
    """The product of a chain of matrices, in the order of fewest multiplications (numpy's).

    The first and last may be vectors (a row and a column); ``precision``
    is accepted for JAX's signature.

    Examples
    --------
    >>> multi_dot([np.ones(2), np.eye(2), np.array([[1.0], [2.0]])])
    array([3.])
    """
    arrays = [tnp.asarray(a) for a in arrays]
    if len(arrays) < 2:
        raise ValueError("multi_dot: expecting at least two arrays")
    row, column = arrays[0].ndim == 1, arrays[-1].ndim == 1
    if row:
        arrays[0] = arrays[0][None, :]
    if column:
        arrays[-1] = arrays[-1][:, None]
    if any(a.ndim != 2 for a in arrays):
        raise ValueError("multi_dot: every array but the first and last must be 2-D")
    split = _chain_order([a.shape[0] for a in arrays] + [arrays[-1].shape[1]])

    def product(i: int, j: int) -> Tracer:
        if i == j:
            return arrays[i]
        k = split[i][j]
        return tnp.matmul(product(i, k), product(k + 1, j))

    out = product(0, len(arrays) - 1)
    if row:
        out = out[0]
    return out[..., 0] if column else out


def _chain_order(dims: list) -> list:
    """``split[i][j]``: where the cheapest product of matrices ``i..j`` (shapes ``dims[k], dims[k + 1]``) splits.

    The textbook dynamic program (Cormen et al. 15.2), on static shapes.
    """
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j], split[i][j] = min((cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1], k)
                                          for k in range(i, j))
    return split


@emits_ops
def tensorinv(a, ind: int = 2) -> Tracer:
    """The inverse of ``a`` for :func:`tensordot` over ``ind`` axes: of shape ``a.shape[ind:] + a.shape[:ind]``.

    Examples
    --------
    >>> tensorinv(np.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    a = tnp.asarray(a)
    if ind <= 0:
        raise ValueError(f"tensorinv: ind must be positive, got {ind}")
    rows, columns = int(np.prod(a.shape[:ind])), int(np.prod(a.shape[ind:]))
    if rows != columns:
        raise ValueError(f"tensorinv: the first {ind} dims of {a.shape} must hold as many elements as the rest")
    return tnp.reshape(inv(tnp.reshape(a, (rows, columns))), a.shape[ind:] + a.shape[:ind])


@emits_ops
def tensorsolve(a, b, axes=None) -> Tracer:
    """Solve ``tensordot(a, x, x.ndim) = b`` for ``x``, of shape ``a.shape[b.ndim:]``.

    ``axes`` of ``a`` are moved to the end first.

    Examples
    --------
    >>> tensorsolve(2.0 * np.eye(4).reshape(2, 2, 4), np.ones((2, 2)))
    array([0.5, 0.5, 0.5, 0.5])
    """
    a, b = tnp.asarray(a), tnp.asarray(b)
    if axes is not None:
        moved = normalize_axis_tuple(axes, a.ndim)
        a = tnp.transpose(a, [d for d in range(a.ndim) if d not in moved] + list(moved))
    solution_shape = a.shape[b.ndim:]
    size = int(np.prod(solution_shape))
    if a.shape[:b.ndim] != b.shape or int(np.prod(b.shape)) != size:
        raise ValueError(f"tensorsolve: a of shape {a.shape} does not fit b of shape {b.shape}")
    return tnp.reshape(solve(tnp.reshape(a, (size, size)), tnp.ravel(b)), solution_shape)


# The array API's spellings of the matrix functions, over the last two dims.

@emits_ops
def matmul(x1, x2, /) -> Tracer:
    """The matrix product, :func:`tensorad.numpy.matmul`.

    Examples
    --------
    >>> matmul(np.eye(2), np.array([1.0, 2.0]))
    array([1., 2.])
    """
    return tnp.matmul(x1, x2)


@emits_ops
def outer(x1, x2, /) -> Tracer:
    """The outer product of two vectors.

    Examples
    --------
    >>> outer(np.array([1.0, 2.0]), np.array([1.0, 10.0]))
    array([[ 1., 10.],
           [ 2., 20.]])
    """
    x1, x2 = tnp.asarray(x1), tnp.asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        raise ValueError(f"outer: needs vectors, got shapes {x1.shape} and {x2.shape}")
    return tnp.outer(x1, x2)


@emits_ops
def tensordot(x1, x2, /, *, axes=2) -> Tracer:
    """Sums of products over ``axes``, :func:`tensorad.numpy.tensordot`.

    Examples
    --------
    >>> tensordot(np.ones((2, 3)), np.ones((3, 2)), axes=1)
    array([[3., 3.],
           [3., 3.]])
    """
    return tnp.tensordot(x1, x2, axes)


@emits_ops
def trace(x, /, *, offset: int = 0, dtype=None) -> Tracer:
    """The sums of the ``offset``-th diagonals of the matrices in the last two dims.

    Examples
    --------
    >>> trace(np.arange(8.0).reshape(2, 2, 2))
    array([ 3., 11.])
    """
    return matrices.trace(x, offset, -2, -1, dtype)


@emits_ops
def diagonal(x, /, *, offset: int = 0) -> Tracer:
    """The ``offset``-th diagonals of the matrices in the last two dims.

    Examples
    --------
    >>> diagonal(np.arange(8.0).reshape(2, 2, 2))
    array([[0., 3.],
           [4., 7.]])
    """
    return matrices.diagonal(x, offset, -2, -1)


@emits_ops
def cross(x1, x2, /, *, axis: int = -1) -> Tracer:
    """Cross products of the 3-vectors along ``axis``.

    Examples
    --------
    >>> cross(np.array([0.0, 1.0, 0.0]), np.array([0.0, 0.0, 1.0]))
    array([1., 0., 0.])
    """
    x1, x2 = tnp.asarray(x1), tnp.asarray(x2)
    if x1.ndim == 0 or x2.ndim == 0 or x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(f"cross: needs 3-vectors along axis {axis}, got shapes {x1.shape} and {x2.shape}")
    return matrices.cross(x1, x2, axis=axis)


vecdot = matrices.vecdot
