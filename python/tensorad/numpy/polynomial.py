"""numpy's polynomials (coefficients highest power first) and the 1-D convolutions they multiply with.

A convolution is the anti-diagonal sums of an outer product: the product's
rows, padded and read back with one more column per row, are each shifted
one place further right than the row before, and a sum over rows adds up
the anti-diagonals. So ``convolve`` and ``polymul`` are a product, a pad, two
reshapes and a sum, whose derivatives and batching are those ops'.
``poly`` multiplies its linear factors pairwise in a balanced tree (a
batch of products per level); ``polyval`` is Horner's rule in one
``lax.scan``; ``polydiv`` solves the triangular Toeplitz system of the
quotient; ``polyfit`` is a scaled least-squares fit (``linalg.lstsq``), as
JAX's. Integers are computed in floats, as in JAX.

``roots`` are the eigenvalues of the companion matrix
(``linalg.eigvals``, LAPACK ``geev``), complex whatever the input, as
JAX's; ``poly`` of a square matrix multiplies out its eigenvalues.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> tnp.polymul(np.array([1.0, 1.0]), np.array([1.0, -1.0]))  # (x + 1)(x - 1)
array([ 1.,  0., -1.])
>>> ta.grad(lambda x: tnp.polyval(np.array([1.0, 0.0, 0.0]), x))(3.0)  # d/dx x**2
array(6.)
"""

from __future__ import annotations

import numpy as np

from .. import dtypes, lax
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (arange, argmin, argsort, asarray, astype, concatenate, conj, eye, flip, float64, int32, linalg, matmul,
               ones, reshape, roll, sqrt, stack, take, vander, where, zeros)
from . import sum as reduce_sum

__all__ = ["convolve", "correlate", "poly", "polyadd", "polyder", "polydiv", "polyfit", "polyint", "polymul",
           "polysub", "polyval", "roots"]


def _inexact(*arrays) -> list:
    """``arrays`` as traced arrays of their common dtype, floats at least (integers: float64)."""
    arrays = [asarray(a) for a in arrays]
    dtype = dtypes.result_type(*arrays)
    if not (dtypes.is_float(dtype) or dtypes.is_complex(dtype)):
        dtype = float64
    return [astype(a, dtype) for a in arrays]


def _full_convolution(a: Tracer, b: Tracer) -> Tracer:
    """The full convolutions of the rows (last axis) of ``a`` and ``b``: length ``n + m - 1``.

    Row ``i`` of the outer product, padded to ``n + m`` columns and read
    with ``n + m - 1`` per row, starts ``i`` places to the right: summing the
    rows sums the anti-diagonals, ``sum(a[i] * b[k - i])``.
    """
    n, m = a.shape[-1], b.shape[-1]
    batch = a.shape[:-1]
    length = n + m - 1
    outer = a[..., :, None] * b[..., None, :]
    padded = concatenate([outer, zeros(batch + (n, n), outer.dtype)], -1)
    skewed = reshape(reshape(padded, batch + (n * (length + 1),))[..., :n * length], batch + (n, length))
    return reduce_sum(skewed, -2)


def _convolution(name: str, a, v, mode: str) -> Tracer:
    """numpy's ``convolve`` (``correlate``: of ``v`` conjugated and reversed), as JAX computes them."""
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"{name}: mode must be one of 'full', 'same', 'valid', got {mode!r}")
    a, v = _inexact(a, v)
    if a.ndim != 1 or v.ndim != 1:
        raise ValueError(f"{name}: needs 1-D arrays, got shapes {a.shape} and {v.shape}")
    if a.shape[0] == 0 or v.shape[0] == 0:
        raise ValueError(f"{name}: the arrays cannot be empty, got shapes {a.shape} and {v.shape}")
    reverse_output = False
    if name == "correlate":
        v = flip(conj(v) if dtypes.is_complex(v.dtype) else v)
        # The longer array goes first; a correlation swapped runs backwards.
        if a.shape[0] < v.shape[0]:
            a, v, reverse_output = flip(v), flip(a), True
    elif a.shape[0] < v.shape[0]:
        a, v = v, a
    n, m = a.shape[0], v.shape[0]
    full = _full_convolution(a, v)
    start, length = {"full": (0, n + m - 1), "same": ((m - 1) // 2, n), "valid": (m - 1, n - m + 1)}[mode]
    out = full[start:start + length]
    return flip(out) if reverse_output else out


@emits_ops
def convolve(a, v, mode: str = "full", *, precision=None, preferred_element_type=None) -> Tracer:
    """The discrete convolution of two 1-D arrays: ``mode`` ``"full"``, ``"same"`` (centred, the longer's
    length) or ``"valid"`` (where they overlap fully).

    ``precision`` and ``preferred_element_type`` are accepted for JAX's
    signature; integers convolve in float64, as in JAX.

    Examples
    --------
    >>> convolve(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]))
    array([0. , 1. , 2.5, 4. , 1.5])
    """
    return _convolution("convolve", a, v, mode)


@emits_ops
def correlate(a, v, mode: str = "valid", *, precision=None, preferred_element_type=None) -> Tracer:
    """The cross-correlation ``c[k] = sum(a[n + k] * conj(v[n]))`` of two 1-D arrays (modes as :func:`convolve`).

    Examples
    --------
    >>> correlate(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.5]), "full")
    array([0.5, 2. , 3.5, 3. , 0. ])
    """
    return _convolution("correlate", a, v, mode)


def _polynomial(p, name: str) -> Tracer:
    (p,) = _inexact(p)
    if p.ndim != 1:
        raise ValueError(f"{name}: the coefficients must be a 1-D array, got shape {p.shape}")
    return p


@emits_ops
def poly(seq_of_zeros) -> Tracer:
    """The coefficients of the monic polynomial with roots ``seq_of_zeros`` (1-D).

    A nonempty square matrix stands for its eigenvalues (its characteristic
    polynomial): the coefficients are complex then, as JAX's.

    Examples
    --------
    >>> poly(np.array([1.0, 2.0]))  # (x - 1)(x - 2)
    array([ 1., -3.,  2.])
    >>> np.round(poly(np.array([[0.0, 1.0], [-2.0, 3.0]])).real, 12)  # x**2 - 3x + 2
    array([ 1., -3.,  2.])
    """
    (roots,) = _inexact(seq_of_zeros)
    if roots.ndim == 2 and roots.shape[0] == roots.shape[1] and roots.shape[0]:
        roots = linalg.eigvals(roots)
    if roots.ndim != 1:
        raise ValueError(f"poly: the roots must be a 1-D array, got shape {roots.shape}")
    n = roots.shape[0]
    if n == 0:
        return ones((), roots.dtype)
    # Factors (x - r) as rows [1, -r], and rows [0, 1] (the constant 1) up to a power of two.
    count = 1 << (n - 1).bit_length()
    factors = concatenate([stack([ones((n,), roots.dtype), -roots], 1),
                           astype(asarray(np.tile([0.0, 1.0], (count - n, 1))), roots.dtype)])
    while factors.shape[0] > 1:
        factors = _full_convolution(factors[0::2], factors[1::2])
    # The padding's leading zeros go.
    return factors[0, -(n + 1):]


@emits_ops
def polyadd(a1, a2) -> Tracer:
    """The sum of two polynomials (the shorter padded with leading zeros).

    Examples
    --------
    >>> polyadd(np.array([1.0, 2.0]), np.array([1.0, 1.0, 1.0]))
    array([1., 2., 3.])
    """
    a1, a2 = asarray(a1), asarray(a2)
    dtype = dtypes.result_type(a1, a2)
    a1, a2 = astype(a1, dtype), astype(a2, dtype)
    length = max(a1.shape[0], a2.shape[0])
    a1, a2 = (concatenate([zeros((length - a.shape[0],), dtype), a]) for a in (a1, a2))
    return a1 + a2


@emits_ops
def polysub(a1, a2) -> Tracer:
    """The difference of two polynomials.

    Examples
    --------
    >>> polysub(np.array([1.0, 2.0]), np.array([1.0, 1.0, 1.0]))
    array([-1.,  0.,  1.])
    """
    return polyadd(a1, -asarray(a2))


@emits_ops
def polymul(a1, a2) -> Tracer:
    """The product of two polynomials: their full :func:`convolve` (an empty one counts as 0).

    Examples
    --------
    >>> polymul(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
    array([1., 5., 6.])
    """
    a1, a2 = _inexact(a1, a2)
    a1 = zeros((1,), a1.dtype) if a1.shape[0] == 0 else a1
    a2 = zeros((1,), a2.dtype) if a2.shape[0] == 0 else a2
    return _full_convolution(a1, a2)


@emits_ops
def polydiv(u, v) -> tuple:
    """Quotient and remainder of ``u / v``, the remainder as long as ``u`` (JAX's: its leading zeros kept).

    The quotient solves the lower-triangular Toeplitz system that long
    division works through, so its derivative is a solve's.

    Examples
    --------
    >>> q, r = polydiv(np.array([1.0, 0.0, -1.0]), np.array([1.0, 1.0]))
    >>> q, np.round(r, 12)
    (array([ 1., -1.]), array([0., 0., 0.]))
    """
    u, v = _inexact(u, v)
    m, n = u.shape[0] - 1, v.shape[0] - 1
    if m < n:
        return zeros((1,), u.dtype), u
    rows = m - n + 1
    # Row k of the system: sum over j of q[k - j] * v[j] = u[k], for j <= n.
    lag = np.subtract.outer(np.arange(rows), np.arange(rows))
    toeplitz = where(asarray((lag >= 0) & (lag <= n)), take(v, np.clip(lag, 0, n)), 0.0)
    quotient = linalg.solve(toeplitz, u[:rows])
    return quotient, u - _full_convolution(quotient, v)


@emits_ops
def polyder(p, m: int = 1) -> Tracer:
    """The ``m``-th derivative of a polynomial.

    Examples
    --------
    >>> polyder(np.array([1.0, 1.0, 1.0, 1.0]), 2)  # x**3 + ... -> 6x + 2
    array([6., 2.])
    """
    p = _polynomial(p, "polyder")
    if m < 0:
        raise ValueError("polyder: the order of the derivative must be positive")
    if m == 0:
        return p
    powers = np.arange(p.shape[0] - 1, m - 1, -1)
    falling = np.prod(np.subtract.outer(powers, np.arange(m)), axis=1)  # k (k - 1) ... (k - m + 1)
    return p[:-m] * astype(asarray(falling), p.dtype)


@emits_ops
def polyint(p, m: int = 1, k=None) -> Tracer:
    """The ``m``-th antiderivative of a polynomial; ``k`` the constants of integration (first one first).

    Examples
    --------
    >>> polyint(np.array([3.0, 2.0]), k=5.0)  # 3x + 2 -> 1.5x**2 + 2x + 5
    array([1.5, 2. , 5. ])
    """
    p = _polynomial(p, "polyint")
    if m < 0:
        raise ValueError("polyint: the order of the antiderivative must be positive")
    if m == 0:
        return p
    constants = astype(asarray(0.0 if k is None else k), p.dtype)
    if constants.ndim == 0:
        constants = reshape(constants, (1,)) * ones((m,), p.dtype)
    if constants.shape != (m,):
        raise ValueError(f"polyint: k must be a scalar or hold m = {m} constants, got shape {constants.shape}")
    # Coefficient of power j after m integrations: divided by (j)(j - 1)...(j - m + 1), factors below 1 as 1.
    powers = np.arange(p.shape[0] + m - 1, -1, -1)
    divisors = np.prod(np.maximum(1, np.subtract.outer(powers, np.arange(m))), axis=1)
    return concatenate([p, constants]) / astype(asarray(divisors), p.dtype)


@emits_ops
def polyval(p, x, *, unroll: int = 16) -> Tracer:
    """The polynomial ``p`` at ``x``, by Horner's rule (one ``lax.scan`` over the coefficients).

    ``p`` may be 2-D: a polynomial per column, broadcast against ``x``;
    ``unroll`` is accepted for JAX's signature.

    Examples
    --------
    >>> polyval(np.array([1.0, 0.0, -1.0]), np.array([0.0, 2.0]))
    array([-1.,  3.])
    """
    p, x = asarray(p), asarray(x)
    dtype = dtypes.result_type(p, x)
    p, x = astype(p, dtype), astype(x, dtype)
    shape = tuple(np.broadcast_shapes(p.shape[1:], x.shape))
    if p.shape[0] == 0:
        return zeros(shape, dtype)
    value, _ = lax.scan(lambda y, c: (y * x + c, None), zeros(shape, dtype), p)
    return value


@emits_ops
def polyfit(x, y, deg: int, rcond=None, full: bool = False, w=None, cov=False):
    """The least-squares polynomial of degree ``deg`` through the points ``(x, y)`` (``y`` 2-D: one per column).

    JAX's: the Vandermonde matrix's columns are scaled to unit norm and the
    fit is :func:`tensorad.numpy.linalg.lstsq`'s; ``w`` weights the points;
    ``full`` also returns ``(residuals, rank, singular values, rcond)``;
    ``cov`` the coefficients' covariance (``"unscaled"``: not scaled by the
    residuals).

    Examples
    --------
    >>> np.round(polyfit(np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 5.0]), 1), 12)
    array([2., 1.])
    """
    x, y = _inexact(x, y)
    order = int(deg) + 1
    if deg < 0:
        raise ValueError("polyfit: expected deg >= 0")
    if x.ndim != 1 or y.ndim not in (1, 2) or y.shape[0] != x.shape[0]:
        raise ValueError(f"polyfit: x must be 1-D and y 1-D or 2-D with as many rows, got {x.shape} and {y.shape}")
    rcond = x.shape[0] * float(np.finfo(x.dtype).eps) if rcond is None else float(rcond)
    lhs, rhs = vander(x, order), y
    if w is not None:
        (w,) = _inexact(w)
        if w.shape != x.shape:
            raise ValueError(f"polyfit: w must be 1-D like x, got shape {w.shape}")
        lhs = lhs * w[:, None]
        rhs = rhs * (w if y.ndim == 1 else w[:, None])
    scale = sqrt(reduce_sum(lhs * lhs, axis=0))
    lhs = lhs / scale
    coefficients, residuals, rank, singular_values = linalg.lstsq(lhs, rhs, rcond)
    coefficients = coefficients / (scale if y.ndim == 1 else scale[:, None])
    if full:
        return coefficients, residuals, rank, singular_values, rcond
    if not cov:
        return coefficients
    unscaled = linalg.inv(matmul(lhs.T, lhs)) / (scale[:, None] * scale[None, :])
    if cov == "unscaled":
        factor = 1.0
    else:
        if x.shape[0] <= order:
            raise ValueError("polyfit: the data are too few for a covariance scaled by the residuals")
        factor = residuals / (x.shape[0] - order)
    return coefficients, unscaled * factor if y.ndim == 1 else unscaled[:, :, None] * factor


def _companion_eigenvalues(p: Tracer) -> Tracer:
    """The roots of ``p`` (1-D, two coefficients or more, the first nonzero): its companion matrix's eigenvalues."""
    n = p.shape[0] - 1
    # The first row -p[1:] / p[0] over the shifted identity.
    first_row = reshape(-p[1:] / p[0], (1, n))
    return linalg.eigvals(concatenate([first_row, eye(n - 1, n, dtype=p.dtype)]))


@emits_ops
def _roots(p, nan_for_leading_zeros: bool) -> Tracer:
    """:func:`roots` of ``p`` whose leading zeros are stripped, or (``nan_for_leading_zeros``) stand for NaN roots."""
    (p,) = _inexact(p)
    if p.ndim == 0:
        p = reshape(p, (1,))
    if p.ndim != 1:
        raise ValueError(f"roots: the coefficients must be a 1-D array, got shape {p.shape}")
    count = p.shape[0] - 1
    if count < 1:
        return zeros((0,), dtypes.complex_of(p.dtype))
    if not nan_for_leading_zeros:
        return _companion_eigenvalues(p)
    # JAX's: the leading zeros (all of them: a sentinel that is not zero ends the search) rolled to the
    # end, which adds as many zero roots; those are sorted last and become NaN.
    leading = argmin(concatenate([astype(p == 0, int32), zeros((1,), int32)]))
    p = where(leading == count + 1, 1.0, p)  # no polynomial: any one, all its roots NaN
    found = _companion_eigenvalues(roll(p, -leading))
    found = take(found, argsort(astype(found == 0, int32)))
    return where(arange(count) < count - leading, found, complex(np.nan, np.nan))


def roots(p, *, strip_zeros: bool = True) -> Tracer:
    """The roots (complex) of the polynomial with coefficients ``p`` (highest power first).

    The eigenvalues of its companion matrix, in LAPACK's order (unsorted),
    complex whatever ``p`` is, as JAX's. The leading zeros of ``p`` are
    stripped first (numpy's), which needs concrete coefficients: under a
    transformation pass ``strip_zeros=False``, which gives NaN for the
    roots that leading zeros take away (JAX's).

    Examples
    --------
    >>> np.sort_complex(roots(np.array([0.0, 1.0, -3.0, 2.0])))  # x**2 - 3x + 2
    array([1.+0.j, 2.+0.j])
    >>> roots(np.array([0.0, 1.0, 2.0]), strip_zeros=False)
    array([-2. +0.j, nan+nanj])
    """
    if strip_zeros:
        if isinstance(p, Tracer):
            raise TracingError(f"{user_line()}: roots needs concrete coefficients to strip their leading zeros "
                               "(the number of roots depends on them): pass strip_zeros=False, which gives NaN "
                               "for the roots that leading zeros take away")
        p = np.asarray(p)
        if p.ndim == 1:
            nonzero = np.flatnonzero(p)
            p = p[nonzero[0]:] if nonzero.size else p[:0]
    return _roots(p, not strip_zeros)
