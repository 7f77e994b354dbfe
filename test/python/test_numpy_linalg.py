"""``tensorad.numpy.linalg`` and ``tensorad.scipy.linalg``: LAPACK called from compiled code.

Each function is checked against numpy/scipy (forward) and in every mode of
differentiation against float64 central differences (:func:`transform_checks.check`,
two compilations per case). Eigen- and singular vectors are checked through
their squares, which do not depend on the sign LAPACK picks. The general
eigendecomposition (``eig``, and ``roots`` and ``poly`` of a matrix built on it)
is also checked against JAX's derivatives (the ``jax_reference`` fixture).
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.numpy import polynomial as tpoly
from tensorad.scipy import linalg as tsl
from transform_checks import check

rng = np.random.default_rng(0)


def spd(n, batch=()):
    m = rng.normal(size=batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


def well_conditioned(*shape):
    a = rng.normal(size=shape)
    if shape[-1] == shape[-2]:
        a = a + 3.0 * np.eye(shape[-1])
    return a


A, B = well_conditioned(3, 3), rng.normal(size=(3, 2))
TALL, WIDE = rng.normal(size=(4, 3)), rng.normal(size=(3, 4))
SPD = spd(3)
UPPER = np.triu(well_conditioned(3, 3))

CASES = {  # name: (function, arguments, numpy/scipy reference)
    "cholesky": (tnp.linalg.cholesky, (spd(3, (2,)),), np.linalg.cholesky),
    "cholesky-upper": (lambda a: tnp.linalg.cholesky(a, upper=True), (SPD,), lambda a: np.linalg.cholesky(a).T),
    "solve": (tnp.linalg.solve, (well_conditioned(2, 3, 3), B), np.linalg.solve),
    "solve-vector": (tnp.linalg.solve, (A, B[:, 0]), np.linalg.solve),
    "inv": (tnp.linalg.inv, (A,), np.linalg.inv),
    "det": (tnp.linalg.det, (A,), np.linalg.det),
    "slogdet": (lambda a: tnp.linalg.slogdet(a)[1], (-A,), lambda a: np.linalg.slogdet(a)[1]),
    "slogdet-sign": (lambda a: tnp.linalg.slogdet(a)[0] * a, (-A,), lambda a: np.linalg.slogdet(a)[0] * a),
    "qr-q": (lambda a: tnp.linalg.qr(a)[0], (TALL,), lambda a: np.linalg.qr(a)[0]),
    "qr-r": (lambda a: tnp.linalg.qr(a, mode="r"), (TALL,), lambda a: np.linalg.qr(a, mode="r")),
    "qr-complete-square": (lambda a: tnp.linalg.qr(a, mode="complete")[0], (A,), lambda a: np.linalg.qr(a)[0]),
    "eigh-values": (tnp.linalg.eigvalsh, (SPD,), np.linalg.eigvalsh),
    "eigh-vectors": (lambda a: tnp.linalg.eigh(a)[1] ** 2, (spd(3, (2,)),), lambda a: np.linalg.eigh(a)[1] ** 2),
    "eigh-upper": (lambda a: tnp.linalg.eigh(a, UPLO="U")[0], (SPD,), lambda a: np.linalg.eigh(a, UPLO="U")[0]),
    "svd-values": (lambda a: tnp.linalg.svd(a, compute_uv=False), (TALL,),
                   lambda a: np.linalg.svd(a, compute_uv=False)),
    "svd-u-tall": (lambda a: tnp.linalg.svd(a, full_matrices=False)[0] ** 2, (TALL,),
                   lambda a: np.linalg.svd(a, full_matrices=False)[0] ** 2),
    "svd-vh-wide": (lambda a: tnp.linalg.svd(a, full_matrices=False)[2] ** 2, (WIDE,),
                    lambda a: np.linalg.svd(a, full_matrices=False)[2] ** 2),
    "svd-u-wide": (lambda a: tnp.linalg.svd(a, full_matrices=False).U ** 2, (WIDE,),
                   lambda a: np.linalg.svd(a, full_matrices=False)[0] ** 2),
    "svd-vh-tall": (lambda a: tnp.linalg.svd(a, full_matrices=False)[2] ** 2, (TALL,),
                    lambda a: np.linalg.svd(a, full_matrices=False)[2] ** 2),
    "pinv-tall": (tnp.linalg.pinv, (TALL,), np.linalg.pinv),
    "pinv-wide": (tnp.linalg.pinv, (WIDE,), np.linalg.pinv),
    "lstsq": (lambda a, b: tnp.linalg.lstsq(a, b)[0], (TALL, rng.normal(size=(4, 2))),
              lambda a, b: np.linalg.lstsq(a, b)[0]),
    "matrix-power": (lambda a: tnp.linalg.matrix_power(a, 3), (A,), lambda a: np.linalg.matrix_power(a, 3)),
    "matrix-power-negative": (lambda a: tnp.linalg.matrix_power(a, -2), (A,),
                              lambda a: np.linalg.matrix_power(a, -2)),
    "norm-2": (lambda a: tnp.linalg.norm(a, 2), (TALL,), lambda a: np.linalg.norm(a, 2)),
    "norm-nuc": (lambda a: tnp.linalg.norm(a, "nuc", axis=(0, 1)), (TALL,), lambda a: np.linalg.norm(a, "nuc")),
    "norm--2-keepdims": (lambda a: tnp.linalg.norm(a, -2, axis=(-1, -2), keepdims=True), (TALL,),
                         lambda a: np.linalg.norm(a, -2, axis=(-1, -2), keepdims=True)),
    # scipy.linalg
    "solve-triangular": (lambda a, b: tsl.solve_triangular(a, b), (UPPER, B), sl.solve_triangular),
    "solve-triangular-lower-trans": (lambda a, b: tsl.solve_triangular(a, b, trans=1, lower=True),
                                     (UPPER.T, B[:, 0]), lambda a, b: sl.solve_triangular(a, b, trans=1, lower=True)),
    "solve-triangular-unit": (lambda a, b: tsl.solve_triangular(a, b, unit_diagonal=True), (UPPER, B),
                              lambda a, b: sl.solve_triangular(a, b, unit_diagonal=True)),
    "cho-solve": (lambda a, b: tsl.cho_solve(tsl.cho_factor(a), b), (SPD, B),
                  lambda a, b: sl.cho_solve(sl.cho_factor(a), b)),
    "cho-solve-lower": (lambda a, b: tsl.cho_solve(tsl.cho_factor(a, lower=True), b), (SPD, B[:, 0]),
                        lambda a, b: sl.cho_solve(sl.cho_factor(a, lower=True), b)),
    "scipy-cholesky": (tsl.cholesky, (SPD,), sl.cholesky),
    "lu-l": (lambda a: tsl.lu(a)[1], (TALL,), lambda a: sl.lu(a)[1]),
    "lu-u": (lambda a: tsl.lu(a)[2], (WIDE,), lambda a: sl.lu(a)[2]),
    "lu-permute-l": (lambda a: tsl.lu(a, permute_l=True)[0], (A,), lambda a: sl.lu(a, permute_l=True)[0]),
    "lu-factor": (lambda a: tsl.lu_factor(a)[0], (A,), lambda a: sl.lu_factor(a)[0]),
    "lu-solve": (lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b), (A, B),
                 lambda a, b: sl.lu_solve(sl.lu_factor(a), b)),
    "lu-solve-trans": (lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b, trans=1), (A, B[:, 0]),
                       lambda a, b: sl.lu_solve(sl.lu_factor(a), b, trans=1)),
    "scipy-solve-pos": (lambda a, b: tsl.solve(a, b, assume_a="pos"), (SPD, B),
                        lambda a, b: sl.solve(a, b, assume_a="pos")),
    "scipy-solve-transposed": (lambda a, b: tsl.solve(a, b, transposed=True), (A, B[:, 0]),
                               lambda a, b: sl.solve(a, b, transposed=True)),
    "scipy-qr-economic": (lambda a: tsl.qr(a, mode="economic")[1], (TALL,), lambda a: sl.qr(a, mode="economic")[1]),
    "scipy-eigh": (lambda a: tsl.eigh(a)[0], (SPD,), lambda a: sl.eigh(a)[0]),
    "scipy-svd": (lambda a: tsl.svd(a, compute_uv=False), (WIDE,), lambda a: sl.svd(a, compute_uv=False)),
    "scipy-det-inv": (lambda a: tsl.det(a) * tsl.inv(a), (A,), lambda a: sl.det(a) * sl.inv(a)),
}


# Cases whose Jacobians are checked too: one or two per op, for its rules on batch-prefixed (co)tangents
# (the Jacobians cost two thirds of a case's compile time).
JACOBIANS = {"cholesky", "solve", "solve-triangular", "lu-l", "lu-u", "qr-q", "qr-r", "eigh-vectors",
             "svd-u-tall", "svd-vh-wide", "svd-values"}


@pytest.mark.parametrize("name", CASES)
def test_values_and_derivatives(name):
    f, args, reference = CASES[name]
    check(f, args, reference, jacobians=name in JACOBIANS)


def test_eager_calls_match_numpy_and_scipy():
    a = well_conditioned(2, 4, 4)
    np.testing.assert_allclose(tnp.linalg.solve(a, a[..., :1]), np.linalg.solve(a, a[..., :1]), atol=1e-12)
    np.testing.assert_allclose(tnp.linalg.det(a), np.linalg.det(a), rtol=1e-12)
    w, v = tnp.linalg.eigh(spd(4))
    assert isinstance(w, np.ndarray) and w.shape == (4,) and v.shape == (4, 4)
    p, l, u = tsl.lu(a[0])
    for got, want in zip((p, l, u), sl.lu(a[0])):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    packed, pivots = tsl.lu_factor(a[0])
    assert pivots.dtype == np.int32 and np.array_equal(pivots, sl.lu_factor(a[0])[1])


def test_larger_batched_matrices_match_numpy():
    a = rng.normal(size=(3, 40, 30))
    b = spd(40, (2,))
    f = ta.jit(lambda a, b: (tnp.linalg.svd(a, full_matrices=False), tnp.linalg.qr(a), tnp.linalg.cholesky(b),
                             tnp.linalg.eigh(b), tnp.linalg.solve(b, a[:2]), tsl.lu(a)))
    (u, s, vh), (q, r), chol, (w, v), x, (p, l, up) = f(a, b)
    np.testing.assert_allclose((u * s[..., None, :]) @ vh, a, atol=1e-12)
    np.testing.assert_allclose(s, np.linalg.svd(a, compute_uv=False), rtol=1e-12)
    np.testing.assert_allclose(q @ r, a, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(30), (3, 30, 30)), atol=1e-12)
    np.testing.assert_allclose(chol, np.linalg.cholesky(b), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(b), rtol=1e-10)
    np.testing.assert_allclose(b @ v, v * w[..., None, :], atol=1e-9)
    np.testing.assert_allclose(x, np.linalg.solve(b, a[:2]), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(p @ l @ up, a, atol=1e-12)


def test_float32_stays_float32_and_integers_become_float64():
    a32 = spd(3).astype(np.float32)
    f = ta.jit(lambda a, i: (tnp.linalg.cholesky(a), tnp.linalg.inv(i), tnp.linalg.svd(a, compute_uv=False)))
    chol, inverse, s = f(a32, np.array([[2, 0], [0, 4]]))
    assert chol.dtype == np.float32 and s.dtype == np.float32 and inverse.dtype == np.float64
    np.testing.assert_allclose(chol, np.linalg.cholesky(a32), rtol=1e-5)
    np.testing.assert_allclose(inverse, [[0.5, 0.0], [0.0, 0.25]])


def test_a_failed_factorization_gives_nans_for_its_matrix_only():
    good, bad = spd(3), -spd(3)
    singular = np.ones((3, 3))
    chol, x = ta.jit(lambda a, s: (tnp.linalg.cholesky(a), tnp.linalg.solve(s, np.ones((2, 3, 1)))))(
        np.stack([good, bad]), np.stack([np.eye(3), singular]))
    np.testing.assert_allclose(chol[0], np.linalg.cholesky(good), rtol=1e-12)
    assert np.isnan(chol[1]).all() and np.isnan(x[1]).all() and np.allclose(x[0], 1.0)


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(ValueError, match="at least two-dimensional"):
        tnp.linalg.cholesky(np.ones(3))
    with pytest.raises(ValueError, match="must be square"):
        tnp.linalg.inv(np.ones((2, 3)))
    with pytest.raises(ValueError, match="does not fit"):
        tnp.linalg.solve(np.eye(3), np.ones(2))
    with pytest.raises(ValueError, match="unsupported mode"):
        tnp.linalg.qr(np.eye(2), mode="raw")
    with pytest.raises(NotImplementedError, match="standard problem"):
        tsl.eigh(np.eye(2), np.eye(2))


def test_derivatives_jax_does_not_define_are_refused_at_the_op():
    from tensorad.errors import CompileError

    with pytest.raises(CompileError, match="tad.qr.*at least as many rows as columns"):
        ta.grad(lambda a: tnp.sum(tnp.linalg.qr(a)[1]))(WIDE)
    with pytest.raises(CompileError, match="tad.svd.*full_matrices=False"):
        ta.grad(lambda a: tnp.sum(tnp.linalg.svd(a)[0]))(TALL)


def test_second_order_derivatives():
    from tensorad.test_util import check_grads

    check_grads(lambda a: tnp.linalg.slogdet(a)[1] + tnp.sum(tnp.linalg.cholesky(a)), (SPD,), order=2,
                modes=("rev",))


# ----------------------------------------------------------------------------
# Complex matrices
# ----------------------------------------------------------------------------

def complex_normal(*shape):
    return rng.normal(size=shape) + 1j * rng.normal(size=shape)


def hermitian_pd(n, batch=()):
    m = complex_normal(*batch, n, n)
    return m @ np.conj(np.swapaxes(m, -1, -2)) + n * np.eye(n)


def of_parts(g, xp):
    """``g`` of complex arrays as a function of their real and imaginary parts, its result's parts stacked.

    Checked by :func:`check` in float64, that tests each complex rule under JAX's conventions: the
    tangents that reach it are complex, and its vjp must be the transpose of its jvp under
    ``Re(sum(ct * t))`` for the dot-product test to pass through ``tad.complex``/``tad.real``/``tad.imag``.
    """
    def f(*parts):
        out = xp.asarray(g(*(parts[i] + 1j * parts[i + 1] for i in range(0, len(parts), 2))))
        return xp.stack([xp.real(out), xp.imag(out)])

    return f


def parts(*arrays):
    return tuple(p for z in arrays for p in (z.real, z.imag))


CA, CB = complex_normal(3, 3) + 3.0 * np.eye(3), complex_normal(3, 2)
CTALL, CWIDE, CHPD = complex_normal(4, 3), complex_normal(3, 4), hermitian_pd(3)
CUPPER = np.triu(CA)

COMPLEX_CASES = {  # name: (function of complex arrays, complex arguments, numpy/scipy reference)
    "cholesky": (tnp.linalg.cholesky, (CHPD,), np.linalg.cholesky),
    "solve": (tnp.linalg.solve, (CA, CB), np.linalg.solve),
    "inv": (tnp.linalg.inv, (CA,), np.linalg.inv),
    "det": (tnp.linalg.det, (CA,), np.linalg.det),
    "slogdet": (lambda a: tnp.linalg.slogdet(a)[0] * tnp.linalg.slogdet(a)[1], (CA,),
                lambda a: np.linalg.slogdet(a)[0] * np.linalg.slogdet(a)[1]),
    "qr-q": (lambda a: tnp.linalg.qr(a)[0], (CTALL,), lambda a: np.linalg.qr(a)[0]),
    "qr-r": (lambda a: tnp.linalg.qr(a)[1], (CTALL,), lambda a: np.linalg.qr(a)[1]),
    "eigvalsh": (tnp.linalg.eigvalsh, (CHPD,), np.linalg.eigvalsh),
    "eigh-vectors": (lambda a: tnp.abs(tnp.linalg.eigh(a)[1]) ** 2, (CHPD,),
                     lambda a: np.abs(np.linalg.eigh(a)[1]) ** 2),
    "svd-values": (lambda a: tnp.linalg.svd(a, compute_uv=False), (CTALL,),
                   lambda a: np.linalg.svd(a, compute_uv=False)),
    "svd-u-tall": (lambda a: tnp.abs(tnp.linalg.svd(a, full_matrices=False)[0]) ** 2, (CTALL,),
                   lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[0]) ** 2),
    "svd-vh-wide": (lambda a: tnp.abs(tnp.linalg.svd(a, full_matrices=False)[2]) ** 2, (CWIDE,),
                    lambda a: np.abs(np.linalg.svd(a, full_matrices=False)[2]) ** 2),
    "svd-u-wide-vh-tall": (lambda a, b: tnp.abs(tnp.linalg.svd(a, full_matrices=False)[0]) ** 2
                           + tnp.sum(tnp.abs(tnp.linalg.svd(b, full_matrices=False)[2]) ** 2, axis=0, keepdims=True),
                           (CWIDE, CTALL),
                           lambda a, b: np.abs(np.linalg.svd(a, full_matrices=False)[0]) ** 2
                           + np.sum(np.abs(np.linalg.svd(b, full_matrices=False)[2]) ** 2, axis=0, keepdims=True)),
    "pinv": (tnp.linalg.pinv, (CWIDE,), np.linalg.pinv),
    "norm-2-fro": (lambda a: tnp.linalg.norm(a, 2) + tnp.linalg.norm(a), (CTALL,),
                   lambda a: np.linalg.norm(a, 2) + np.linalg.norm(a)),
    "solve-triangular-conj": (lambda a, b: tsl.solve_triangular(a, b, trans="C"), (CUPPER, CB),
                              lambda a, b: sl.solve_triangular(a, b, trans="C")),
    "cho-solve": (lambda a, b: tsl.cho_solve(tsl.cho_factor(a), b), (CHPD, CB),
                  lambda a, b: sl.cho_solve(sl.cho_factor(a), b)),
    "lu-l-u": (lambda a: tsl.lu(a)[1][:3] @ tsl.lu(a)[2], (CTALL,), lambda a: sl.lu(a)[1][:3] @ sl.lu(a)[2]),
    "lu-solve-conj": (lambda a, b: tsl.lu_solve(tsl.lu_factor(a), b, trans=2), (CA, CB),
                      lambda a, b: sl.lu_solve(sl.lu_factor(a), b, trans=2)),
}
# Jacobians of complex parts cost much more to compile: checked for one rule with conjugates.
COMPLEX_JACOBIANS = {"solve-triangular-conj"}


@pytest.mark.parametrize("name", COMPLEX_CASES)
def test_complex_values_and_derivatives(name):
    f, args, reference = COMPLEX_CASES[name]
    check(of_parts(f, tnp), parts(*args), of_parts(reference, np), jacobians=name in COMPLEX_JACOBIANS)


def test_complex64_and_eager_complex_calls():
    a = (CHPD + 0.5j * np.eye(3)).astype(np.complex64)
    x = ta.jit(lambda a, b: tnp.linalg.solve(a, b))(a, CB.astype(np.complex64))
    assert x.dtype == np.complex64
    np.testing.assert_allclose(x, np.linalg.solve(a, CB.astype(np.complex64)), rtol=1e-4)
    h = CHPD.astype(np.complex64)
    w, v = tnp.linalg.eigh(h)
    assert w.dtype == np.float32 and v.dtype == np.complex64
    np.testing.assert_allclose(h @ v, v * w, atol=1e-4)
    u, s, vh = tnp.linalg.svd(CTALL.astype(np.complex64), full_matrices=True)
    assert s.dtype == np.float32 and u.shape == (4, 4)
    np.testing.assert_allclose((u[:, :3] * s) @ vh, CTALL, atol=1e-4)
    np.testing.assert_allclose(tnp.linalg.cholesky(h), np.linalg.cholesky(h), rtol=1e-4, atol=1e-5)
    q, r = tsl.qr(CWIDE.astype(np.complex64))
    np.testing.assert_allclose(q @ r, CWIDE, atol=1e-4)
    np.testing.assert_allclose(tnp.linalg.det(CA), np.linalg.det(CA), rtol=1e-12)  # eager complex128


def test_complex_gradient_of_a_real_loss_follows_jax():
    # grad of a real function of z = x + iy is df/dx - i df/dy.
    loss = ta.jit(lambda a: tnp.linalg.slogdet(a)[1] + tnp.sum(tnp.abs(tnp.linalg.inv(a)) ** 2))
    g = ta.grad(lambda a: tnp.linalg.slogdet(a)[1] + tnp.sum(tnp.abs(tnp.linalg.inv(a)) ** 2))(CA)
    e = np.zeros((3, 3))
    e[1, 2] = 1e-6
    dx = (loss(CA + e) - loss(CA - e)) / 2e-6
    dy = (loss(CA + 1j * e) - loss(CA - 1j * e)) / 2e-6
    np.testing.assert_allclose(g[1, 2], dx - 1j * dy, rtol=1e-6)


@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0), (3, 0), (0, 3)])
def test_empty_matrices_get_numpys_answers(shape):
    # Refused before ("tensorad's LAPACK ops need nonempty ones"), where numpy and JAX answer: the empty
    # product (det 1), empty factors, identities for the full factors of QR and the SVD.
    a = np.zeros(shape)
    square = shape[-1] == shape[-2]
    cases = [("qr", lambda x: tuple(tnp.linalg.qr(x, "complete")), lambda x: tuple(np.linalg.qr(x, "complete"))),
             ("qr reduced", lambda x: tuple(tnp.linalg.qr(x)), lambda x: tuple(np.linalg.qr(x))),
             ("svd", lambda x: tuple(tnp.linalg.svd(x)), lambda x: tuple(np.linalg.svd(x))),
             ("svd reduced", lambda x: tuple(tnp.linalg.svd(x, False)), lambda x: tuple(np.linalg.svd(x, False)))]
    if square:
        b = np.zeros(shape[:-1] + (2,))
        cases += [(name, getattr(tnp.linalg, name), getattr(np.linalg, name)) for name in ("cholesky", "det", "inv")]
        cases += [("slogdet", lambda x: tuple(tnp.linalg.slogdet(x)), lambda x: tuple(np.linalg.slogdet(x))),
                  ("eigh", lambda x: tuple(tnp.linalg.eigh(x)), lambda x: tuple(np.linalg.eigh(x))),
                  ("solve", lambda x: tnp.linalg.solve(x, b), lambda x: np.linalg.solve(x, b))]
    for name, ours, theirs in cases:
        want = theirs(a)
        for got in (ta.jit(ours)(a), ours(a)):  # compiled and eager
            for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
                assert g.shape == w.shape and g.dtype == w.dtype, (name, g.shape, w.shape)
                np.testing.assert_array_equal(g, w, err_msg=name)
    if square:
        grad = ta.grad(lambda x: (tnp.linalg.det(x) + tnp.linalg.slogdet(x)[1]).sum() + tnp.linalg.inv(x).sum())(a)
        assert grad.shape == shape


# ----------------------------------------------------------------------------
# General eigendecomposition (LAPACK geev) and what is built on it
# ----------------------------------------------------------------------------

GENERAL = np.random.default_rng(7).normal(size=(4, 4))  # two real eigenvalues and a complex pair


def stacked_parts(z, xp):
    """A complex result as its real and imaginary parts stacked (:func:`check` compares real arrays)."""
    return xp.stack([xp.real(z), xp.imag(z)])


# The eigenvectors through their elementwise squares: LAPACK makes each one's largest component real but
# of either sign, which may flip from one matrix to the next; the derivative keeps the sign it has.
EIG_CASES = {
    "eigvals": (lambda a: stacked_parts(tnp.linalg.eigvals(a), tnp), (GENERAL,),
                lambda a: stacked_parts(np.linalg.eigvals(a), np)),
    "eig-vectors-squared": (lambda a: stacked_parts(tnp.linalg.eig(a)[1] ** 2, tnp), (GENERAL,),
                            lambda a: stacked_parts(np.linalg.eig(a)[1] ** 2, np)),
    "scipy-eig": (lambda a: stacked_parts(tsl.eig(a)[0] + tsl.eigvals(a.T), tnp), (GENERAL,),
                  lambda a: stacked_parts(sl.eig(a)[0] + sl.eigvals(a.T), np)),
}


@pytest.mark.parametrize("name", EIG_CASES)
def test_eig_values_and_derivatives(name):
    f, args, reference = EIG_CASES[name]
    check(f, args, reference, jacobians=name == "eig-vectors-squared")


def test_complex_eig_values_and_derivatives():
    check(of_parts(lambda a: tnp.linalg.eig(a)[1] ** 2 + tnp.linalg.eigvals(a), tnp), parts(CA),
          of_parts(lambda a: np.linalg.eig(a)[1] ** 2 + np.linalg.eigvals(a), np), jacobians=False)


def _eig_agrees_with_numpy(a, w, v, tol):
    """``a v = v diag(w)``, LAPACK's normalization, and numpy's eigenvalues and vectors (up to each one's sign)."""
    wn, vn = np.linalg.eig(a)
    scale = np.abs(a).max()
    np.testing.assert_allclose(a @ v, v * w[..., None, :], atol=tol * scale)
    np.testing.assert_allclose(np.linalg.norm(v, axis=-2), 1.0, atol=tol)
    largest = np.take_along_axis(v, np.argmax(np.abs(v), axis=-2)[..., None, :], axis=-2)
    np.testing.assert_allclose(largest.imag, 0.0, atol=tol)
    np.testing.assert_allclose(w, wn, atol=tol * scale)  # LAPACK's order: numpy's
    overlap = np.abs(np.sum(np.conj(vn) * v, axis=-2))
    np.testing.assert_allclose(overlap, 1.0, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64, np.complex128])
def test_eig_matches_numpy_compiled_and_eager(dtype):
    gen = np.random.default_rng(3)
    a = gen.normal(size=(3, 5, 5))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * gen.normal(size=a.shape)
    a = a.astype(dtype)
    single = np.dtype(dtype) in (np.float32, np.complex64)
    want = np.complex64 if single else np.complex128
    tol = 1e-4 if single else 1e-10
    for w, v in (ta.jit(tnp.linalg.eig)(a), tnp.linalg.eig(a)):
        assert w.dtype == want and v.dtype == want and w.shape == (3, 5) and v.shape == (3, 5, 5)
        _eig_agrees_with_numpy(a, w, v, tol)
    np.testing.assert_allclose(tnp.linalg.eigvals(a[0]), w[0], atol=tol)


def test_eig_of_a_larger_matrix_and_under_vmap():
    a = np.random.default_rng(4).normal(size=(40, 40))
    w, v = tnp.linalg.eig(a)
    _eig_agrees_with_numpy(a, w, v, 1e-9)
    stack = np.stack([GENERAL, GENERAL.T, 2.0 * GENERAL])
    w, v = ta.vmap(tnp.linalg.eig, in_axes=1, out_axes=1)(np.swapaxes(stack, 0, 1))
    for k in range(3):
        _eig_agrees_with_numpy(stack[k], w[:, k], v[:, k], 1e-10)


def test_eig_of_a_matrix_with_an_inf_or_nan_is_nans_for_it_only():
    good = GENERAL
    w, v = ta.jit(tnp.linalg.eig)(np.stack([good, np.where(np.eye(4) > 0, np.inf, good), good * np.nan]))
    assert np.isnan(w[1:]).all() and np.isnan(v[1:]).all()
    _eig_agrees_with_numpy(good, w[0], v[0], 1e-10)


def _jax_eig_jvp(jax, a, da):
    return jax.jvp(lambda a: tuple(jax.lax.linalg.eig(a, compute_left_eigenvectors=False,
                                                      enable_eigvec_derivs=True)), (a,), (da,))


def _symmetric_loss(xp, w):
    """A real function of the eigenvalues that does not depend on their order."""
    return xp.sum(xp.real(w ** 3) + xp.abs(w) ** 2)


def _jax_eigvals_grad(jax, a):
    return jax.grad(lambda a: _symmetric_loss(jax.numpy, jax.numpy.linalg.eigvals(a)))(a)


@pytest.mark.parametrize("complex_input", [False, True])
def test_eig_derivatives_match_jax(jax_reference, complex_input):
    a, da = GENERAL, np.random.default_rng(5).normal(size=(4, 4))
    if complex_input:
        a, da = a + 0.5j * a.T, da - 0.25j * da.T
    (w, v), (dw, dv) = ta.jvp(lambda a: tuple(tnp.linalg.eig(a)), (a,), (da,))
    (jw, jv), (jdw, jdv) = jax_reference(_jax_eig_jvp, a, da)
    np.testing.assert_allclose(w, jw, atol=1e-12)
    np.testing.assert_allclose(dw, jdw, atol=1e-10)
    sign = np.sign(np.real(np.sum(np.conj(jv) * v, axis=0)))  # LAPACK's vectors up to their sign
    np.testing.assert_allclose(v, jv * sign, atol=1e-12)
    np.testing.assert_allclose(dv, jdv * sign, atol=1e-10)
    grad = ta.grad(lambda a: _symmetric_loss(tnp, tnp.linalg.eigvals(a)))(a)
    np.testing.assert_allclose(grad, jax_reference(_jax_eigvals_grad, a), atol=1e-10)


def test_eig_bad_arguments_raise_at_the_callers_line():
    with pytest.raises(ValueError, match=r"test_numpy_linalg\.py:\d+: eig: last 2 dimensions .* must be square"):
        tnp.linalg.eig(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"test_numpy_linalg\.py:\d+: eig: .*at least two-dimensional"):
        ta.jit(tnp.linalg.eigvals)(np.ones(3))
    with pytest.raises(NotImplementedError, match="left eigenvectors"):
        tsl.eig(np.eye(2), left=True)
    w, v = tnp.linalg.eig(np.zeros((2, 0, 0)))  # empty matrices: numpy's shapes, JAX's complex dtype
    assert w.shape == (2, 0) and v.shape == (2, 0, 0) and w.dtype == np.complex128


# ----------------------------------------------------------------------------
# Polynomial roots: the companion matrix's eigenvalues
# ----------------------------------------------------------------------------

def _sorted_roots(r):
    return np.sort_complex(np.asarray(r, complex))


@pytest.mark.parametrize("p", [[1.0, -6.0, 11.0, -6.0], [0.0, 0.0, 2.0, 0.0, 1.0, 3.0], [1.0, 0.0, 0.0, 2.0, 0.0, 0.0],
                               [3.0, 1.0], [2.5], [0.0, 0.0], [1j, 2.0, 1.0 - 1j], [1, 2, 3]])
def test_roots_match_numpy(p):
    p = np.asarray(p)
    got = tpoly.roots(p)
    assert got.dtype.kind == "c"
    np.testing.assert_allclose(_sorted_roots(got), _sorted_roots(np.roots(p)), atol=1e-12)


def _jax_roots(jax, p):
    return jax.numpy.roots(p), jax.numpy.roots(p, strip_zeros=False)


def test_roots_with_leading_zeros_under_jit_are_nan_as_jaxs(jax_reference):
    from tensorad.errors import TracingError

    roots = tpoly.roots
    p = np.array([0.0, 0.0, 1.0, -3.0, 2.0])
    want_stripped, want_nan = jax_reference(_jax_roots, p)
    np.testing.assert_allclose(roots(p), want_stripped, atol=1e-12)
    got = ta.jit(lambda p: roots(p, strip_zeros=False))(p)
    np.testing.assert_allclose(got, want_nan, atol=1e-12)  # NaN where JAX's are
    assert np.isnan(got[2:]).all() and np.isnan(ta.jit(lambda p: roots(p, strip_zeros=False))(0.0 * p)).all()
    with pytest.raises(TracingError, match=r"test_numpy_linalg\.py:\d+: roots needs concrete coefficients"):
        ta.jit(roots)(p)
    # d root / d p of a simple root r of p: -(dp)(r) / p'(r)
    grad = ta.grad(lambda p: tnp.sum(tnp.real(roots(p, strip_zeros=False) ** 2)))(p[2:])
    r = np.roots(p[2:])
    want = sum(-2 * r_k * r_k ** np.arange(2, -1, -1) / np.polyval(np.polyder(p[2:]), r_k) for r_k in r)
    np.testing.assert_allclose(grad, want.real, atol=1e-10)


def test_poly_of_a_matrix_is_its_characteristic_polynomial():
    poly = tpoly.poly
    got = poly(GENERAL)
    assert got.dtype == np.complex128  # JAX's: the eigenvalues are complex
    np.testing.assert_allclose(got, np.poly(GENERAL), atol=1e-12)
    np.testing.assert_allclose(ta.jit(poly)(GENERAL), np.poly(GENERAL), atol=1e-12)
