"""``tensorad.scipy.linalg``'s structured matrices and matrix functions against scipy.linalg (and JAX's derivatives).

Values are compared with scipy in float64 and float32, batches with scipy's
matrix-by-matrix answers; ``expm``'s derivatives with float64 central
differences (:func:`transform_checks.check`) and with JAX's gradient (the
``jax_reference`` worker), and ``expm_frechet`` with the jvp of ``expm``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sl

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.scipy import linalg as tsl
from transform_checks import check

rng = np.random.default_rng(0)
V3, V4 = rng.normal(size=3), rng.normal(size=4)

VECTOR_CASES = {  # name: (tensorad function, scipy function, arguments)
    "toeplitz": (tsl.toeplitz, sl.toeplitz, (V3, V4)),
    "toeplitz-symmetric": (tsl.toeplitz, sl.toeplitz, (V4,)),
    "hankel": (tsl.hankel, sl.hankel, (V3, V4)),
    "hankel-zeros": (tsl.hankel, sl.hankel, (V4,)),
    "circulant": (tsl.circulant, sl.circulant, (V4,)),
    "leslie": (tsl.leslie, sl.leslie, (V4, V3)),
    "companion": (tsl.companion, sl.companion, (V4,)),
    "fiedler": (tsl.fiedler, sl.fiedler, (V4,)),
    "fiedler-companion": (tsl.fiedler_companion, sl.fiedler_companion, (rng.normal(size=6),)),
    "fiedler-companion-2": (tsl.fiedler_companion, sl.fiedler_companion, (V3[:2],)),
    "convolution-full": (lambda a: tsl.convolution_matrix(a, 5), lambda a: sl.convolution_matrix(a, 5), (V3,)),
    "convolution-same": (lambda a: tsl.convolution_matrix(a, 5, "same"),
                         lambda a: sl.convolution_matrix(a, 5, "same"), (V4,)),
    "convolution-same-short": (lambda a: tsl.convolution_matrix(a, 2, "same"),
                               lambda a: sl.convolution_matrix(a, 2, "same"), (V4,)),
    "convolution-valid": (lambda a: tsl.convolution_matrix(a, 2, "valid"),
                          lambda a: sl.convolution_matrix(a, 2, "valid"), (V4,)),
    "block-diag": (tsl.block_diag, sl.block_diag, (rng.normal(size=(2, 3)), V3[0], V3)),
}


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", VECTOR_CASES)
def test_matrices_of_vectors_match_scipy(name, dtype):
    ours, theirs, args = VECTOR_CASES[name]
    args = tuple(np.asarray(x, dtype) for x in args)
    got = ours(*args)
    assert got.dtype == dtype
    np.testing.assert_allclose(got, theirs(*args), rtol=1e-6 if dtype == np.float32 else 1e-14, atol=1e-7)


@pytest.mark.parametrize("name", ["toeplitz", "hankel", "circulant", "leslie", "companion", "fiedler",
                                  "fiedler-companion", "convolution-same"])
def test_batched_vectors_give_matrix_by_matrix_answers(name):
    ours, theirs, args = VECTOR_CASES[name]
    batches = tuple(np.stack([x, 2.0 * x + 1.0]) for x in args)
    want = np.stack([theirs(*(b[k] for b in batches)) for k in range(2)])
    np.testing.assert_allclose(ours(*batches), want, rtol=1e-14, atol=1e-14)


def test_toeplitz_broadcasts_batches_and_differentiates_under_jit():
    c, r = rng.normal(size=(2, 1, 3)), rng.normal(size=(4, 2))
    got = tsl.toeplitz(c, r)
    assert got.shape == (2, 4, 3, 2)
    np.testing.assert_allclose(got[1, 3], sl.toeplitz(c[1, 0], r[3]))
    check(lambda c, r: tsl.toeplitz(c, r) ** 2, (V3, V4), lambda c, r: sl.toeplitz(c, r) ** 2, jacobians=False)
    grad = ta.jit(ta.grad(lambda a: tnp.sum(tsl.companion(a) * tsl.circulant(a[1:]))))(V4)
    eps = 1e-6
    f = lambda a: np.sum(sl.companion(a) * sl.circulant(a[1:]))  # noqa: E731
    numerical = [(f(V4 + eps * d) - f(V4 - eps * d)) / (2 * eps) for d in np.eye(4)]
    np.testing.assert_allclose(grad, numerical, rtol=1e-6)


def test_integer_inputs_keep_scipys_dtypes():
    assert tsl.toeplitz(np.array([1, 2])).dtype == np.int64
    assert tsl.fiedler(np.array([1, 4])).dtype == np.int64
    assert tsl.companion(np.array([1, 2, 3])).dtype == np.float64
    np.testing.assert_array_equal(tsl.block_diag(np.array([[1, 2]]), np.array([[3.5]])), [[1, 2, 0], [0, 0, 3.5]])
    assert tsl.block_diag().shape == (1, 0)


ORDER_CASES = {  # name: (tensorad matrix, scipy's, dtype JAX gives)
    "hilbert": (lambda: tsl.hilbert(5), lambda: sl.hilbert(5), np.float64),
    "invhilbert": (lambda: tsl.invhilbert(12), lambda: sl.invhilbert(12, exact=True).astype(float), np.float64),
    "pascal": (lambda: tsl.pascal(6), lambda: sl.pascal(6), np.float32),
    "pascal-lower": (lambda: tsl.pascal(5, "lower"), lambda: sl.pascal(5, "lower"), np.float32),
    "invpascal": (lambda: tsl.invpascal(6), lambda: sl.invpascal(6), np.float64),
    "invpascal-upper": (lambda: tsl.invpascal(5, "upper"), lambda: sl.invpascal(5, "upper"), np.float64),
    "helmert": (lambda: tsl.helmert(5), lambda: sl.helmert(5), np.float64),
    "helmert-full": (lambda: tsl.helmert(4, full=True), lambda: sl.helmert(4, full=True), np.float64),
    "hadamard": (lambda: tsl.hadamard(8), lambda: sl.hadamard(8), np.int64),
    "hadamard-float32": (lambda: tsl.hadamard(4, np.float32), lambda: sl.hadamard(4, np.float32), np.float32),
    "dft": (lambda: tsl.dft(6), lambda: sl.dft(6), np.complex128),
    "dft-sqrtn": (lambda: tsl.dft(5, "sqrtn", dtype=np.complex64), lambda: sl.dft(5, "sqrtn"), np.complex64),
}


@pytest.mark.parametrize("name", ORDER_CASES)
def test_matrices_of_an_order_match_scipy_exactly(name):
    ours, theirs, dtype = ORDER_CASES[name]
    got = np.asarray(ours())
    assert got.dtype == dtype
    np.testing.assert_allclose(got, theirs(), rtol=1e-6 if dtype in (np.float32, np.complex64) else 1e-15,
                               atol=1e-6 if dtype == np.complex64 else 1e-14)  # scipy's dft rounds larger angles


def test_matrices_of_an_order_are_constants_under_jit():
    out = ta.jit(lambda x: tsl.hilbert(3) @ x + tsl.invpascal(3) @ x)(np.ones(3))
    np.testing.assert_allclose(out, sl.hilbert(3) @ np.ones(3) + sl.invpascal(3) @ np.ones(3), rtol=1e-14)


# ----------------------------------------------------------------------------
# expm and expm_frechet
# ----------------------------------------------------------------------------

def matrix_of_norm(n, norm, batch=()):
    a = rng.normal(size=batch + (n, n))
    return a * (norm / np.abs(a).sum(axis=-2).max(axis=-1))[..., None, None]


# One norm in the range of each Padé order of float64, then ones that need squarings.
NORMS = [0.01, 0.2, 0.9, 2.0, 5.0, 40.0, 700.0]


def test_expm_matches_scipy_in_float64_for_every_pade_order_and_batched():
    a = np.stack([matrix_of_norm(4, s) for s in NORMS])
    got = tsl.expm(a)
    for g, x in zip(got, a):
        want = sl.expm(x)
        np.testing.assert_allclose(g, want, rtol=1e-11 * max(1.0, np.abs(x).sum()), atol=1e-13 * np.abs(want).max())
    upper = np.triu(matrix_of_norm(4, 30.0))
    np.testing.assert_allclose(tsl.expm(upper, upper_triangular=True), sl.expm(upper), rtol=1e-11)


def test_expm_in_float32_and_under_jit_and_overflowing_squarings():
    a = np.stack([matrix_of_norm(3, s) for s in (0.1, 1.0, 3.0, 30.0)]).astype(np.float32)
    got = ta.jit(tsl.expm)(a)
    assert got.dtype == np.float32
    for g, x in zip(got, a):  # float32's error grows with the norm: relative to the largest entry
        want = sl.expm(x.astype(np.float64))
        np.testing.assert_allclose(g, want, rtol=1e-4, atol=1e-5 * np.abs(want).max())
    big = matrix_of_norm(3, 1e3)
    assert np.isnan(tsl.expm(big, max_squarings=4)).all()
    np.testing.assert_allclose(tsl.expm(big / 100.0, max_squarings=6), sl.expm(big / 100.0), rtol=1e-12)


@pytest.mark.parametrize("norm", [0.5, 8.0])
def test_expm_derivatives_match_differences(norm):
    check(tsl.expm, (matrix_of_norm(3, norm),), sl.expm, jacobians=False, vmap=False)


def _jax_expm_grad(jax, a, weights):
    return jax.grad(lambda x: (jax.scipy.linalg.expm(x) * weights).sum())(a)


def test_expm_gradient_matches_jax(jax_reference):
    a, weights = matrix_of_norm(3, 6.0), rng.normal(size=(3, 3))
    got = ta.jit(ta.grad(lambda x: tnp.sum(tsl.expm(x) * weights)))(a)
    np.testing.assert_allclose(got, jax_reference(_jax_expm_grad, a, weights), rtol=1e-10)


def test_expm_frechet_is_the_jvp_of_expm_and_matches_scipy():
    a, e = matrix_of_norm(3, 9.0), rng.normal(size=(3, 3))
    value, frechet = tsl.expm_frechet(a, e)
    want_value, want = sl.expm_frechet(a, e)
    np.testing.assert_allclose(value, want_value, rtol=1e-11)
    np.testing.assert_allclose(frechet, want, rtol=1e-10)
    tangent = ta.jit(lambda a, e: ta.jvp(tsl.expm, (a,), (e,))[1])(a, e)
    np.testing.assert_allclose(tsl.expm_frechet(a, e, compute_expm=False), tangent, rtol=1e-13)
    a32, e32 = a.astype(np.float32) / 3, e.astype(np.float32)
    np.testing.assert_allclose(tsl.expm_frechet(a32, e32)[1], sl.expm_frechet(a32 / 1.0, e32)[1], rtol=1e-4)


# ----------------------------------------------------------------------------
# polar, eigh_tridiagonal, qr_multiply
# ----------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 3, 3)])
@pytest.mark.parametrize("side", ["right", "left"])
def test_polar_matches_scipy(shape, side):
    a = rng.normal(size=shape)
    u, p = tsl.polar(a, side)
    for k in np.ndindex(shape[:-2]):
        want_u, want_p = sl.polar(a[k], side)
        np.testing.assert_allclose(u[k], want_u, atol=1e-12)
        np.testing.assert_allclose(p[k], want_p, atol=1e-12)
    u32, p32 = tsl.polar(a.astype(np.float32), side, method="svd")
    assert u32.dtype == np.float32
    np.testing.assert_allclose((u32 @ p32) if side == "right" else (p32 @ u32), a, atol=1e-5)


def test_eigh_tridiagonal_matches_scipy():
    d, e = rng.normal(size=5), rng.normal(size=4)
    np.testing.assert_allclose(tsl.eigh_tridiagonal(d, e, eigvals_only=True),
                               sl.eigh_tridiagonal(d, e, eigvals_only=True), rtol=1e-13)
    w, v = tsl.eigh_tridiagonal(d, e, select="i", select_range=(1, 3))
    want_w, want_v = sl.eigh_tridiagonal(d, e, select="i", select_range=(1, 3))
    np.testing.assert_allclose(w, want_w, rtol=1e-13)
    np.testing.assert_allclose(np.abs(v), np.abs(want_v), atol=1e-12)
    w32 = ta.jit(lambda d, e: tsl.eigh_tridiagonal(d, e, eigvals_only=True))(d.astype(np.float32),
                                                                             e.astype(np.float32))
    assert w32.dtype == np.float32
    np.testing.assert_allclose(w32, sl.eigh_tridiagonal(d, e, eigvals_only=True), atol=1e-5)


@pytest.mark.parametrize("mode", ["left", "right"])
@pytest.mark.parametrize("shape", [(5, 3), (3, 5)])
def test_qr_multiply_matches_scipy(mode, shape):
    a = rng.normal(size=shape)
    k = min(shape)
    for c in (rng.normal(size=(k, 2) if mode == "left" else (2, shape[0])), rng.normal(size=k if mode == "left"
                                                                                     else shape[0])):
        got, r = tsl.qr_multiply(a, c, mode)
        want, want_r = sl.qr_multiply(a, c, mode)
        np.testing.assert_allclose(got, want, atol=1e-12)
        np.testing.assert_allclose(r, want_r, atol=1e-12)
    batch = rng.normal(size=(2,) + shape).astype(np.float32)
    got, _ = tsl.qr_multiply(batch, c.astype(np.float32), mode)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got[1], sl.qr_multiply(batch[1], c, mode)[0], atol=1e-5)


def test_bad_arguments_raise_at_the_users_line():
    cases = [
        (lambda: tsl.expm(np.ones((2, 3))), "must be square"),
        (lambda: tsl.expm_frechet(np.eye(2), np.eye(3)), "same shape"),
        (lambda: tsl.leslie(np.ones(3), np.ones(3)), "one less"),
        (lambda: tsl.companion(np.ones(1)), "at least 2"),
        (lambda: tsl.convolution_matrix(np.ones(3), 0), "positive"),
        (lambda: tsl.convolution_matrix(np.ones(3), 2, "wide"), "mode"),
        (lambda: tsl.block_diag(np.ones((1, 1, 1))), "at most 2"),
        (lambda: tsl.polar(np.eye(2), "up"), "side"),
        (lambda: tsl.eigh_tridiagonal(np.ones(3), np.ones(3)), "length"),
        (lambda: tsl.qr_multiply(np.ones((3, 2)), np.ones((2, 2))), "columns"),
    ]
    for call, match in cases:
        with pytest.raises(ValueError, match=match) as info:
            call()
        assert "test_scipy_linalg.py" in str(info.value)
    # The matrices of an order are built in numpy at once: their errors are raised in the user's call.
    for call, match in [(lambda: tsl.hadamard(6), "power of 2"), (lambda: tsl.dft(3, dtype=np.float64), "complex"),
                        (lambda: tsl.pascal(3, "middle"), "kind")]:
        with pytest.raises(ValueError, match=match):
            call()
