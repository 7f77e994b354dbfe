"""``tensorad.scipy.linalg``: ``jax.scipy.linalg`` over traced arrays, computed by LAPACK.

scipy's names, defaults and results (``cholesky`` is upper by default, ``qr``
complete, ``lu`` returns ``(p, l, u)`` with ``a = p @ l @ u``), built on the
ops behind :mod:`tensorad.numpy.linalg`, with JAX's differences: batches of
matrices in the trailing two dims, NaNs instead of ``LinAlgError``, and the
``overwrite_*``/``check_finite`` arguments accepted and ignored. Complex
matrices take conjugate transposes where scipy's do (``cholesky``'s
``a = u.conj().T @ u``, ``trans="C"``). Derivatives in both modes come from
the rules of the factorizations and solves.

Examples
--------
>>> import numpy as np
>>> from tensorad.scipy import linalg
>>> c = linalg.cho_factor(np.array([[4.0, 2.0], [2.0, 5.0]]))
>>> linalg.cho_solve(c, np.array([2.0, 1.0]))
array([0.5, 0. ])
"""

from __future__ import annotations

import operator

import numpy as np

from tensorad.dialects.families import linalg_lapack as lapack

from .. import autodiff, lax
from .. import dtypes as _dt
from .. import numpy as tnp
from ..numpy import linalg as _linalg
from ..tracing import Tracer, emits_ops
from .linalg_structured import (block_diag, circulant, companion, convolution_matrix, dft, fiedler,
                                fiedler_companion, hadamard, hankel, helmert, hilbert, invhilbert, invpascal, leslie,
                                pascal, toeplitz)

__all__ = ["block_diag", "cho_factor", "cho_solve", "cholesky", "circulant", "companion", "convolution_matrix", "det",
           "dft", "eig", "eigh", "eigh_tridiagonal", "eigvals", "expm", "expm_frechet", "fiedler",
           "fiedler_companion", "hadamard", "hankel", "helmert", "hilbert", "inv", "invhilbert", "invpascal",
           "leslie", "lu", "lu_factor", "lu_solve", "pascal", "polar", "qr", "qr_multiply", "solve",
           "solve_triangular", "svd", "toeplitz"]

_TRANS = {0: "N", "N": "N", 1: "T", "T": "T", 2: "C", "C": "C"}


def _trans(trans) -> str:
    """``"N"``, ``"T"`` or ``"C"`` (no transpose, transpose, conjugate transpose) of scipy's ``trans``."""
    if trans not in _TRANS:
        raise ValueError(f"trans must be 0, 1, 2, 'N', 'T' or 'C', got {trans!r}")
    return _TRANS[trans]


def _right_hand_side(a: Tracer, b) -> tuple:
    """``b`` as matrices of ``a``'s dtype (a vector when it has one dim fewer than ``a``), and whether it was one."""
    b = tnp.astype(tnp.asarray(b), a.dtype)
    vector = b.ndim == a.ndim - 1
    if vector:
        b = tnp.reshape(b, b.shape + (1,))
    if b.ndim < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"b of shape {b.shape} does not fit the matrices of shape {a.shape}")
    return b, vector


def _result(x: Tracer, vector: bool) -> Tracer:
    return tnp.reshape(x, x.shape[:-1]) if vector else x


def _triangular(a: Tracer, b: Tracer, *, lower: bool, transpose: str = "N", unit_diagonal: bool = False):
    """``op(a)⁻¹ b``, ``op`` as ``transpose`` says (``"C"``: ``a⁻ᴴ b = conj(a⁻ᵀ conj(b))``)."""
    conjugate = transpose == "C" and _dt.is_complex(a.dtype)
    b = tnp.conj(b) if conjugate else b
    x = Tracer.of(lapack.triangular_solve(a.value, b.value, left_side=True, lower=lower,
                                          transpose_a=transpose != "N", unit_diagonal=unit_diagonal))
    return tnp.conj(x) if conjugate else x


@emits_ops
def solve_triangular(a, b, trans=0, lower: bool = False, unit_diagonal: bool = False, overwrite_b: bool = False,
                     debug=None, check_finite: bool = True) -> Tracer:
    """Solve ``op(a) x = b`` for triangular ``a`` (the triangle ``lower`` says; ``op`` as ``trans``: N, T or C).

    Examples
    --------
    >>> solve_triangular(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([2.0, 3.0]), lower=True)
    array([1., 2.])
    """
    a = _linalg.float_matrices(a, "solve_triangular", square=True)
    b, vector = _right_hand_side(a, b)
    return _result(_triangular(a, b, lower=lower, transpose=_trans(trans), unit_diagonal=unit_diagonal), vector)


@emits_ops
def cholesky(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> Tracer:
    """Cholesky factor: upper ``u`` with ``a = u.conj().T @ u`` (scipy's default), or lower ``l`` with ``lower``.

    Examples
    --------
    >>> cholesky(np.array([[4.0, 2.0], [2.0, 5.0]]))
    array([[2., 1.],
           [0., 2.]])
    """
    return _linalg.cholesky(a, upper=not lower)


def cho_factor(a, lower: bool = False, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """``(c, lower)`` for :func:`cho_solve`: the Cholesky factor (zeros in its other triangle, as JAX's).

    Examples
    --------
    >>> c, lower = cho_factor(np.array([[1.0, 0.0], [0.0, 9.0]]))
    >>> c, lower
    (array([[1., 0.],
           [0., 3.]]), False)
    """
    return cholesky(a, lower=lower), lower


def cho_solve(c_and_lower, b, overwrite_b: bool = False, check_finite: bool = True) -> Tracer:
    """Solve ``a x = b`` given ``cho_factor(a)``: two triangular solves.

    Examples
    --------
    >>> cho_solve((np.array([[2.0, 0.0], [0.0, 1.0]]), True), np.array([4.0, 1.0]))
    array([1., 1.])
    """
    c, lower = c_and_lower
    return _cho_solve(c, b, lower=bool(lower))  # a Python bool: a static parameter, not an array


@emits_ops
def _cho_solve(c, b, *, lower: bool) -> Tracer:
    c = _linalg.float_matrices(c, "cho_solve", square=True)
    b, vector = _right_hand_side(c, b)
    # lower: l lᴴ x = b; upper: uᴴ u x = b.
    y = _triangular(c, b, lower=lower, transpose="N" if lower else "C")
    return _result(_triangular(c, y, lower=lower, transpose="C" if lower else "N"), vector)


def _factors(a: Tracer) -> tuple:
    """``l``, ``u``, the LAPACK pivots and the row permutation of ``a``'s LU factorization."""
    packed, pivots, permutation = (Tracer.of(v) for v in lapack.lu(a.value))
    m, n = a.shape[-2:]
    k = min(m, n)
    l = tnp.where(np.tri(m, k, -1, dtype=bool), packed[..., :, :k], 0.0) + np.eye(m, k, dtype=a.dtype)
    u = tnp.where(np.tri(k, n, -1, dtype=bool), 0.0, packed[..., :k, :])
    return l, u, packed, pivots, permutation


def _permutation_matrix(permutation: Tracer, dtype) -> Tracer:
    """``p`` with ``(p @ a)[i] = a[permutation[i]]`` (one-hot rows)."""
    m = permutation.shape[-1]
    return tnp.astype(permutation[..., :, None] == tnp.arange(m, dtype=permutation.dtype), dtype)


@emits_ops
def lu(a, permute_l: bool = False, overwrite_a: bool = False, check_finite: bool = True, p_indices: bool = False):
    """LU factorization with partial pivoting: ``(p, l, u)`` with ``a = p @ l @ u``.

    ``permute_l`` returns ``(p @ l, u)``; ``p_indices`` gives ``p`` as row
    indices (``a = l[indices] @ u``).

    Examples
    --------
    >>> p, l, u = lu(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> p @ l @ u
    array([[1., 2.],
           [3., 4.]])
    """
    a = _linalg.float_matrices(a, "lu")
    l, u, _, _, permutation = _factors(a)
    # The factors are of the rows permutation picks: p is the inverse (the transpose) of that pick.
    p = _linalg.matrix_transpose(_permutation_matrix(permutation, a.dtype))
    if permute_l:
        return tnp.matmul(p, l), u
    if p_indices:  # a = l[indices] @ u: the inverse of the permutation
        rows = tnp.arange(a.shape[-2], dtype=permutation.dtype)[:, None]
        return tnp.sum(_permutation_matrix(permutation, permutation.dtype) * rows, axis=-2), l, u
    return p, l, u


@emits_ops
def lu_factor(a, overwrite_a: bool = False, check_finite: bool = True) -> tuple:
    """``(lu, piv)`` as LAPACK's ``getrf`` gives them: both factors packed, and the 0-based row interchanges.

    Examples
    --------
    >>> packed, piv = lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv
    array([1, 1], dtype=int32)
    """
    a = _linalg.float_matrices(a, "lu_factor")
    _, _, packed, pivots, _ = _factors(a)
    return packed, pivots


@emits_ops
def lu_solve(lu_and_piv, b, trans=0, overwrite_b: bool = False, check_finite: bool = True) -> Tracer:
    """Solve ``op(a) x = b`` given ``lu_factor(a)``.

    Examples
    --------
    >>> lu_solve(lu_factor(np.array([[1.0, 2.0], [3.0, 4.0]])), np.array([5.0, 11.0]))
    array([1., 2.])
    """
    packed, pivots = lu_and_piv
    packed = _linalg.float_matrices(packed, "lu_solve", square=True)
    b, vector = _right_hand_side(packed, b)
    pivots = tnp.astype(tnp.asarray(pivots), tnp.int32)
    m = packed.shape[-1]
    p = _permutation_matrix(Tracer.of(lapack.lu_pivots_to_permutation(pivots.value, m)), packed.dtype)
    trans = _trans(trans)
    if trans != "N":  # aᵀ = uᵀ lᵀ p: x = pᵀ l⁻ᵀ u⁻ᵀ b (conjugate transposes for "C")
        y = _triangular(packed, b, lower=False, transpose=trans)
        x = _triangular(packed, y, lower=True, transpose=trans, unit_diagonal=True)
        x = tnp.matmul(_linalg.matrix_transpose(p), x)
    else:  # p a = l u: x = u⁻¹ l⁻¹ p b
        y = _triangular(packed, tnp.matmul(p, b), lower=True, unit_diagonal=True)
        x = _triangular(packed, y, lower=False)
    return _result(x, vector)


@emits_ops
def solve(a, b, lower: bool = False, overwrite_a: bool = False, overwrite_b: bool = False,
          check_finite: bool = True, assume_a: str = "gen", transposed: bool = False) -> Tracer:
    """Solve ``a x = b``; ``assume_a="pos"`` solves through a Cholesky factorization of the triangle ``lower`` says.

    Examples
    --------
    >>> solve(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0]))
    array([2., 3.])
    """
    if assume_a not in ("gen", "general", "sym", "symmetric", "her", "hermitian", "pos", "positive definite"):
        raise ValueError(f"solve: unknown assume_a {assume_a!r}")
    a = _linalg.float_matrices(a, "solve", square=True)
    if transposed:
        a = _linalg.matrix_transpose(a)
    if assume_a in ("pos", "positive definite"):
        triangle = tnp.where(np.tri(a.shape[-1], dtype=bool), a, 0.0) if lower else \
            tnp.where(np.tri(a.shape[-1], k=-1, dtype=bool), 0.0, a)
        full = triangle + _linalg.conj_transpose(triangle) - a * np.eye(a.shape[-1], dtype=a.dtype)
        return cho_solve((cholesky(full, lower=True), True), b)
    b = tnp.asarray(b)
    if b.ndim == a.ndim - 1:
        return _linalg.solve(a, tnp.reshape(b, b.shape + (1,)))[..., 0]
    return _linalg.solve(a, b)


@emits_ops
def inv(a, overwrite_a: bool = False, check_finite: bool = True) -> Tracer:
    """Inverse of square matrices.

    Examples
    --------
    >>> inv(np.array([[2.0, 0.0], [0.0, 0.5]]))
    array([[0.5, 0. ],
           [0. , 2. ]])
    """
    return _linalg.inv(a)


@emits_ops
def det(a, overwrite_a: bool = False, check_finite: bool = True) -> Tracer:
    """Determinant of square matrices.

    Examples
    --------
    >>> det(np.array([[2.0, 1.0], [1.0, 3.0]]))
    array(5.)
    """
    return _linalg.det(a)


@emits_ops
def qr(a, overwrite_a: bool = False, lwork=None, mode: str = "full", pivoting: bool = False,
       check_finite: bool = True):
    """QR factorization: ``(q, r)`` (``mode`` ``"full"`` or ``"economic"``), or ``(r,)`` (``"r"``).

    Examples
    --------
    >>> q, r = qr(np.array([[0.0, 2.0], [1.0, 0.0]]))
    >>> np.round(q @ r, 12)
    array([[0., 2.],
           [1., 0.]])
    """
    if pivoting:
        raise NotImplementedError("qr: pivoting is not supported")
    if mode not in ("full", "economic", "r"):
        raise ValueError(f"qr: unsupported mode {mode!r} (use 'full', 'economic' or 'r')")
    a = _linalg.float_matrices(a, "qr")
    q, r = (Tracer.of(v) for v in lapack.qr(a.value, full_matrices=mode != "economic"))
    return (r,) if mode == "r" else (q, r)


@emits_ops
def svd(a, full_matrices: bool = True, compute_uv: bool = True, overwrite_a: bool = False,
        check_finite: bool = True, lapack_driver: str = "gesdd"):
    """Singular value decomposition ``(u, s, vh)``, or ``s`` without ``compute_uv``.

    Examples
    --------
    >>> svd(np.array([[0.0, 2.0], [1.0, 0.0]]), compute_uv=False)
    array([2., 1.])
    """
    out = _linalg.svd(a, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(out) if compute_uv else out


def _standard_eigenvalues(name: str, a, b, homogeneous_eigvals: bool):
    """``numpy.linalg.eig`` of ``a`` (scipy's standard problem, ``b=None``), the eigenvalues homogeneous if asked."""
    if b is not None:
        raise NotImplementedError(f"{name}: only the standard problem (b=None) is supported")
    w, v = _linalg.eig(a)
    # Homogeneous coordinates: (w, 1) in the second-to-last dim, scipy's (2, M).
    return (tnp.stack([w, tnp.ones_like(w)], axis=-2) if homogeneous_eigvals else w), v


@emits_ops
def eig(a, b=None, left: bool = False, right: bool = True, overwrite_a: bool = False, overwrite_b: bool = False,
        check_finite: bool = True, homogeneous_eigvals: bool = False):
    """Eigenvalues and right eigenvectors of a general square matrix: ``(w, vr)``, or ``w`` without ``right``.

    :func:`tensorad.numpy.linalg.eig`'s (complex, LAPACK ``geev``'s
    normalization); the standard problem only (``b=None``), without left
    eigenvectors.

    Examples
    --------
    >>> w, vr = eig(np.array([[2.0, 1.0], [0.0, 3.0]]))
    >>> w
    array([2.+0.j, 3.+0.j])
    """
    if left:
        raise NotImplementedError("eig: left eigenvectors are not computed (left=True)")
    w, v = _standard_eigenvalues("eig", a, b, homogeneous_eigvals)
    return (w, v) if right else w


@emits_ops
def eigvals(a, b=None, overwrite_a: bool = False, check_finite: bool = True, homogeneous_eigvals: bool = False):
    """Eigenvalues (complex) of a general square matrix, the standard problem only (``b=None``).

    Examples
    --------
    >>> eigvals(np.array([[0.0, 1.0], [-1.0, 0.0]]))
    array([0.+1.j, 0.-1.j])
    """
    return _standard_eigenvalues("eigvals", a, b, homogeneous_eigvals)[0]


@emits_ops
def eigh(a, b=None, lower: bool = True, eigvals_only: bool = False, overwrite_a: bool = False,
         overwrite_b: bool = False, type: int = 1, check_finite: bool = True, subset_by_index=None,  # noqa: A002
         subset_by_value=None, driver=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix: ``(w, v)``, or ``w`` with ``eigvals_only``.

    Only the standard problem (``b=None``), as JAX's.

    Examples
    --------
    >>> eigh(np.array([[2.0, 0.0], [0.0, 1.0]]), eigvals_only=True)
    array([1., 2.])
    """
    if b is not None or subset_by_index is not None or subset_by_value is not None:
        raise NotImplementedError("eigh: only the standard problem of all eigenvalues (b=None) is supported")
    w, v = _linalg.eigh(a, UPLO="L" if lower else "U", symmetrize_input=False)
    return w if eigvals_only else (w, v)


@emits_ops
def qr_multiply(a, c, mode: str = "right", pivoting: bool = False, conjugate: bool = False,
                overwrite_a: bool = False, overwrite_c: bool = False) -> tuple:
    """``(q @ c, r)`` (``mode="left"``) or ``(c @ q, r)`` (``"right"``) of the economic QR factorization of ``a``.

    ``q`` is ``(M, K)`` and ``r`` ``(K, N)`` for ``K = min(M, N)``; ``c`` is
    ``(K, P)`` (left) or ``(P, M)`` (right), or a vector (a column, a row),
    and ``conjugate`` takes ``conj(q)``. Batch dims broadcast, as JAX's.

    Examples
    --------
    >>> a = np.array([[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [1.0, 4.0]])
    >>> qtb, r = qr_multiply(a, np.array([2.0, 4.0, 5.0, 4.0]))
    >>> np.round(solve_triangular(r, qtb), 12)  # least squares: intercept and slope
    array([2. , 0.7])
    """
    if pivoting:
        raise NotImplementedError("qr_multiply: pivoting is not supported")
    if mode not in ("right", "left"):
        raise ValueError(f"qr_multiply: mode must be 'right' or 'left', got {mode!r}")
    a = _linalg.float_matrices(a, "qr_multiply")
    c = tnp.asarray(c)
    dtype = _dt.float_of(_dt.result_type(a, c))
    a, c = tnp.astype(a, dtype), tnp.astype(c, dtype)
    vector = c.ndim == 1
    if vector:
        c = c[:, None] if mode == "left" else c[None, :]
    m, n = a.shape[-2:]
    k = min(m, n)
    if mode == "left" and c.shape[-2] != k:
        raise ValueError(f"qr_multiply: a has shape {a.shape} so q has {k} columns, but c has {c.shape[-2]} rows")
    if mode == "right" and c.shape[-1] != m:
        raise ValueError(f"qr_multiply: a has shape {a.shape} so q has {m} rows, but c has {c.shape[-1]} columns")
    q, r = (Tracer.of(v) for v in lapack.qr(a.value, full_matrices=False))
    q = tnp.conj(q) if conjugate and _dt.is_complex(dtype) else q
    product = tnp.matmul(q, c) if mode == "left" else tnp.matmul(c, q)
    return (tnp.reshape(product, product.shape[:-2] + (-1,)) if vector else product), r


@emits_ops
def polar(a, side: str = "right", *, method: str = "qdwh", eps=None, max_iterations=None) -> tuple:
    """Polar decomposition ``(u, p)``: ``a = u @ p`` (``side="right"``) or ``a = p @ u`` (``"left"``).

    ``u`` (the shape of ``a``) has orthonormal columns (rows when wider than
    tall) and ``p`` is Hermitian positive semidefinite. Both come from the
    SVD ``a = w s vh``: ``u = w vh``, ``p = vh^H s vh`` (right) or
    ``w s w^H`` (left), whichever ``method`` (``"qdwh"``, JAX's default, or
    ``"svd"``) is asked for; ``eps`` and ``max_iterations`` are QDWH's and
    ignored.

    Examples
    --------
    >>> u, p = polar(np.array([[0.0, -2.0], [1.0, 0.0]]))
    >>> u
    array([[ 0., -1.],
           [ 1.,  0.]])
    >>> p
    array([[1., 0.],
           [0., 2.]])
    """
    if side not in ("right", "left"):
        raise ValueError(f"polar: side must be either 'right' or 'left', got {side!r}")
    if method not in ("qdwh", "svd"):
        raise ValueError(f"polar: unknown polar decomposition method {method!r}")
    a = _linalg.float_matrices(a, "polar")
    w, s, vh = _linalg.svd(a, full_matrices=False)
    s = tnp.astype(s, a.dtype)[..., None, :]
    if side == "right":
        return tnp.matmul(w, vh), tnp.matmul(_linalg.conj_transpose(vh) * s, vh)
    return tnp.matmul(w, vh), tnp.matmul(w * s, _linalg.conj_transpose(w))


@emits_ops
def eigh_tridiagonal(d, e, *, eigvals_only: bool = False, select: str = "a", select_range=None, tol=None,
                     key=None):
    """Eigenvalues (ascending), and eigenvectors as columns, of the Hermitian tridiagonal matrix of diagonal ``d``.

    ``e`` is the subdiagonal (its conjugate the superdiagonal); ``select="i"``
    keeps the eigenvalues of indices ``select_range[0] <= i <=
    select_range[1]``. The dense matrix is decomposed by ``eigh`` (LAPACK),
    so ``tol`` (bisection's tolerance) and ``key`` (inverse iteration's
    start) are accepted and not needed.

    Examples
    --------
    >>> eigh_tridiagonal(np.array([2.0, 2.0]), np.array([1.0]), eigvals_only=True)
    array([1., 3.])
    """
    d, e = tnp.asarray(d), tnp.asarray(e)
    if d.dtype != e.dtype:
        raise TypeError(f"eigh_tridiagonal: diagonal and off-diagonal values must have same dtype, "
                        f"got {d.dtype} and {e.dtype}")
    if d.dtype not in (tnp.float32, tnp.float64, tnp.complex64, tnp.complex128):
        raise TypeError(f"eigh_tridiagonal: only float32, float64, complex64 and complex128 inputs are supported, "
                        f"got {d.dtype}")
    if d.ndim != 1 or e.ndim != 1 or e.shape[0] != max(d.shape[0] - 1, 0):
        raise ValueError(f"eigh_tridiagonal: d must be a vector of length n and e one of n - 1, got shapes "
                         f"{d.shape} and {e.shape}")
    n = d.shape[0]
    if select == "a":
        first, last = 0, n - 1
    elif select == "i":
        if select_range is None:
            raise ValueError("eigh_tridiagonal: for select='i', select_range must be specified")
        first, last = (operator.index(k) for k in select_range)
        if first > last:
            raise ValueError("eigh_tridiagonal: got an empty index range in select_range")
    elif select == "v":
        raise NotImplementedError("eigh_tridiagonal(..., select='v') is not implemented")
    else:
        raise ValueError("eigh_tridiagonal: select must have a value in {'a', 'i', 'v'}")
    if n <= 1:  # no off-diagonal: d itself (JAX's answer, without a selection)
        return tnp.real(d) if eigvals_only else (tnp.real(d), tnp.eye(n, dtype=d.dtype))
    w, v = _linalg.eigh(tnp.diag(d) + tnp.diag(e, -1) + tnp.diag(tnp.conj(e), 1), UPLO="L", symmetrize_input=False)
    w, v = w[first:last + 1], v[:, first:last + 1]
    return w if eigvals_only else (w, v)


# ----------------------------------------------------------------------------
# The matrix exponential: Padé approximants with scaling and squaring (JAX's)
# ----------------------------------------------------------------------------

# Padé orders by precision, with the L1 norms up to which each is accurate (Higham 2005, JAX's table), and
# theta: the norm the scaling brings the matrix under, so the highest order fits.
_PADE = {
    "double": ((3, 5, 7, 9, 13), (1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
                                  2.097847961257068e0), 5.371920351148152),
    "single": ((3, 5, 7), (4.258730016922831e-1, 1.880152677804762e0), 3.925724783138660),
}

# Coefficients b_0 .. b_m of the [m/m] Padé approximant of exp: p(A) = U + V, q(A) = V - U with
# U = A (b_1 + b_3 A² + ...) and V = b_0 + b_2 A² + ... .
_PADE_COEFFICIENTS = {
    3: (120., 60., 12., 1.),
    5: (30240., 15120., 3360., 420., 30., 1.),
    7: (17297280., 8648640., 1995840., 277200., 25200., 1512., 56., 1.),
    9: (17643225600., 8821612800., 2075673600., 302702400., 30270240., 2162160., 110880., 3960., 90., 1.),
    13: (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800., 129060195264000.,
         10559470521600., 670442572800., 33522128640., 1323241920., 40840800., 960960., 16380., 182., 1.),
}


def _pade(a: Tracer, m: int, powers: dict) -> tuple:
    """``(U, V)`` of the order-``m`` approximant, from the even powers of ``a`` in ``powers`` (2: A², 4: A⁴, ...).

    Order 13 evaluates its high terms as ``A⁶ (b₁₃A⁶ + b₁₁A⁴ + b₉A²)`` (JAX's
    and Higham's scheme): the powers up to ``A⁶`` suffice.
    """
    b = _PADE_COEFFICIENTS[m]
    eye = tnp.eye(a.shape[-1], dtype=a.dtype)

    def terms(start: int, top: int):  # sum of b[k] A^(k - start) for k = start, start + 2, ... <= top
        return sum(b[k] * powers[k - start] for k in range(start + 2, top + 1, 2)) + b[start] * eye

    if m == 13:
        odd = tnp.matmul(powers[6], b[13] * powers[6] + b[11] * powers[4] + b[9] * powers[2]) + terms(1, 7)
        even = tnp.matmul(powers[6], b[12] * powers[6] + b[10] * powers[4] + b[8] * powers[2]) + terms(0, 6)
        return tnp.matmul(a, odd), even
    return tnp.matmul(a, terms(1, m)), terms(0, m - 1)


def _pade_choice(a: Tracer, norm: Tracer, orders: tuple, bounds: tuple) -> tuple:
    """``(U, V)`` of the lowest order accurate for each matrix's ``norm``, as JAX's ``lax.switch``.

    The branch is picked per matrix of a batch, so every order is formed
    (sharing the powers of ``a``) and ``select`` keeps one: no control flow
    on batched predicates.
    """
    powers = {2: tnp.matmul(a, a)}
    for k in range(4, min(max(orders), 9) + 1, 2):
        powers[k] = tnp.matmul(powers[k - 2], powers[2])
    approximants = [_pade(a, m, powers) for m in orders]
    if len(approximants) == 1:
        return approximants[0]
    index = tnp.digitize(norm, np.asarray(bounds, norm.dtype))[..., None, None]
    return tuple(tnp.select([index == k for k in range(len(orders))], [uv[part] for uv in approximants])
                 for part in (0, 1))


@emits_ops
def expm(A, *, upper_triangular: bool = False, max_squarings: int = 16) -> Tracer:  # noqa: N803 (scipy's name)
    """Matrix exponential of square matrices (batches in the leading dims), by scaling and squaring.

    JAX's algorithm: the matrix is scaled by ``2^-s`` so its L1 norm is
    under the bound of the highest Padé order (13 in double precision, 7 in
    single), the lowest order accurate for the norm is solved for, and the
    result squared ``s`` times. ``s`` depends on the values, so the squarings
    run in a loop of a traced trip count (under ``jit`` too); matrices that
    need more than ``max_squarings`` give NaNs. ``upper_triangular`` solves
    the Padé system by back substitution. Derivatives are those of the
    computation (JAX's too).

    Examples
    --------
    >>> expm(np.array([[0.0, 1.0], [0.0, 0.0]]))
    array([[1., 1.],
           [0., 1.]])
    """
    a = _linalg.float_matrices(A, "expm", square=True)
    orders, bounds, theta = _PADE["single" if a.dtype in (tnp.float32, tnp.complex64) else "double"]
    # The norm only picks the order and the number of squarings: piecewise constant, no derivative.
    norm = lax.stop_gradient(tnp.max(tnp.sum(tnp.abs(a), axis=-2), axis=-1))
    squarings = tnp.maximum(0.0, tnp.floor(tnp.log2(norm / theta)))
    scaled = a / tnp.astype(2.0 ** squarings, a.dtype)[..., None, None]
    u, v = _pade_choice(scaled, norm, orders, bounds)
    p, q = u + v, v - u
    r = _triangular(q, p, lower=False) if upper_triangular else _linalg.solve(q, p)
    # Each matrix squares while the step is under its own count; the loop runs to the batch's largest.
    count = tnp.astype(squarings, tnp.int64)[..., None, None]
    steps = tnp.astype(tnp.minimum(tnp.max(squarings), float(max_squarings)), tnp.int64)
    r = lax.fori_loop(0, steps, lambda i, x: tnp.where(i < count, tnp.matmul(x, x), x), r)
    return tnp.where(count > max_squarings, tnp.full((), np.nan, a.dtype), r)


@emits_ops
def expm_frechet(A, E, *, method=None, compute_expm: bool = True):  # noqa: N803 (scipy's names)
    """Fréchet derivative of :func:`expm` at ``A`` in the direction ``E``: ``(expm(A), L)``, or ``L`` alone.

    ``L`` is the forward-mode derivative (``jvp``) of :func:`expm`, as in
    JAX; ``method`` is scipy's and ignored.

    Examples
    --------
    >>> expm_frechet(np.zeros((2, 2)), np.array([[1.0, 2.0], [3.0, 4.0]]), compute_expm=False)
    array([[1., 2.],
           [3., 4.]])
    """
    a = _linalg.float_matrices(A, "expm_frechet", square=True)
    e = _linalg.float_matrices(E, "expm_frechet", square=True)
    if a.shape != e.shape:
        raise ValueError(f"expm_frechet: expected A and E to be the same shape, got {a.shape} and {e.shape}")
    dtype = _dt.result_type(a, e)
    value, derivative = autodiff.jvp(expm, (tnp.astype(a, dtype),), (tnp.astype(e, dtype),))
    return (value, derivative) if compute_expm else derivative
