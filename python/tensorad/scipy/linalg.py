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

import numpy as np

from tensorad.dialects.families import linalg_lapack as lapack

from .. import dtypes as _dt
from .. import numpy as tnp
from ..numpy import linalg as _linalg
from ..tracing import Tracer, emits_ops

__all__ = ["cho_factor", "cho_solve", "cholesky", "det", "eig", "eigh", "eigvals", "inv", "lu", "lu_factor",
           "lu_solve", "qr", "solve", "solve_triangular", "svd"]

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
