"""float16, bfloat16, complex64 and complex128 end to end: promotion, arithmetic, reductions, derivatives.

Half-precision elementwise results are bit-identical to numpy's (each op
computed in float32 and rounded, as numpy's float16 loops and ml_dtypes'
bfloat16 do); sums and contractions accumulate in float32 and round once (as
XLA's). Complex numbers follow numpy forward and JAX's conventions for
derivatives: ``grad`` of a real function of ``z = x + iy`` is
``df/dx - i df/dy``, and with ``holomorphic=True`` it is ``f'(z)``.
"""

import ml_dtypes
import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import dtypes

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
HALVES = pytest.mark.parametrize("half", [F16, BF16], ids=["float16", "bfloat16"])


def test_names_and_promotion_follow_jax():
    assert tnp.float16 == F16 and tnp.bfloat16 == BF16
    assert (tnp.complex64, tnp.complex128) == (np.complex64, np.complex128)
    f32, f64, i32, c64, c128 = (np.dtype(d) for d in ("float32", "float64", "int32", "complex64", "complex128"))
    cases = {(BF16, F16): f32, (F16, F16): F16, (BF16, f32): f32, (F16, f64): f64, (i32, BF16): BF16,
             (np.dtype(bool), F16): F16, (BF16, c64): c64, (F16, c128): c128, (c64, f64): c128,
             (c64, f32): c64, (i32, c64): c128}
    for (a, b), want in cases.items():
        assert dtypes.result_type(a, b) == dtypes.result_type(b, a) == want, (a, b)
    # Python scalars are weak: the array's dtype wins unless the scalar's kind is higher.
    assert dtypes.result_type(BF16, 2.5) == BF16 and dtypes.result_type(F16, 3) == F16
    assert dtypes.result_type(BF16, 1j) == c64 and dtypes.result_type(f64, 1j) == c128
    assert tnp.multiply(tnp.ones(2, BF16), 2.5).dtype == BF16  # eager, weak scalar


@HALVES
def test_half_elementwise_is_bit_exact(half):
    rng = np.random.default_rng(0)
    x = rng.uniform(-3, 3, 257).astype(half)
    y = rng.uniform(0.5, 4, 257).astype(half)
    got = ta.jit(lambda x, y: (x * y + x, x / y, tnp.exp(x), tnp.sqrt(y), x.astype(np.float32),
                               (x * 100).astype(np.int32), tnp.maximum(x, y)))(x, y)
    wide = x.astype(np.float32), y.astype(np.float32)
    want = ((((wide[0] * wide[1]).astype(half)).astype(np.float32) + wide[0]).astype(half),
            (wide[0] / wide[1]).astype(half), np.exp(wide[0]).astype(half), np.sqrt(wide[1]).astype(half),
            wide[0], (x * half.type(100)).astype(np.int32), np.maximum(x, y))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        np.testing.assert_array_equal(g.view(np.uint16) if g.itemsize == 2 else g,
                                      w.view(np.uint16) if w.itemsize == 2 else w)
    doubles = rng.standard_normal(1000) * 1e3
    np.testing.assert_array_equal(ta.jit(lambda d: d.astype(half))(doubles).view(np.uint16),
                                  doubles.astype(half).view(np.uint16))  # rounding from float64 directly


def test_conversion_to_bfloat16_keeps_subnormals_as_ml_dtypes_does():
    # x86's conversion instruction (vcvtneps2bf16, which LLVM picked on this CPU) flushes subnormals to
    # zero: 1e-39 became 0 where ml_dtypes and JAX give a bf16 subnormal. Rounding is done on the bits.
    rng = np.random.default_rng(0)
    singles = (rng.standard_normal(20000) * 10.0 ** rng.integers(-45, 38, 20000)).astype(np.float32)
    singles[:6] = [1e-39, 2.0 ** -130, -2.0 ** -140, np.inf, -np.inf, 3.4e38]
    for x in (singles, singles.astype(np.float64)):  # from float64 through float32, as ml_dtypes rounds
        got = ta.jit(lambda a: a.astype(BF16))(x)
        np.testing.assert_array_equal(got.view(np.uint16), x.astype(BF16).view(np.uint16))
    assert np.isnan(ta.jit(lambda a: a.astype(BF16))(np.array([np.nan], np.float32))).all()


def test_conversions_between_float16_and_bfloat16_go_through_float32():
    # Neither type holds the other: a conversion between them was one arith.truncf, which MLIR refuses.
    brains = np.array([1.0, 3e-39, 1e5, 70000.0, 1e-5, -2.5, np.nan], BF16)
    halves = np.array([1.0, 6e-8, 65504.0, 1e-5, -2.5, np.inf], F16)
    as_half, as_brain = ta.jit(lambda b, h: (b.astype(F16), h.astype(BF16)))(brains, halves)
    np.testing.assert_array_equal(as_half.view(np.uint16), brains.astype(F16).view(np.uint16))
    np.testing.assert_array_equal(as_brain.view(np.uint16), halves.astype(BF16).view(np.uint16))


@HALVES
def test_half_arithmetic_keeps_subnormal_results_as_ml_dtypes_does(half):
    # LLVM computes a bf16 op in f32 and rounded it with x86's vcvtneps2bf16, which flushes subnormal
    # results to zero (2**-130 + 2**-131 gave 0); tad-round-bf16-on-bits rounds on the bits instead.
    rng = np.random.default_rng(2)
    tiny = float(ml_dtypes.finfo(half).smallest_normal)
    x, y = ((rng.standard_normal(n) * tiny * 10.0 ** rng.uniform(-2.5, 1, n)).astype(half) for n in (1003, 1003))
    x[:4], y[:4] = [np.nan, np.inf, 0.0, -tiny], [1.0, -np.inf, tiny / 8, tiny / 4]
    ops = (np.add, np.subtract, np.multiply, np.maximum, np.minimum, np.divide,
           lambda a, b: np.negative(np.abs(a)), lambda a, b: np.sqrt(np.abs(a)), lambda a, b: np.where(a > b, a, b))
    tnp_ops = (tnp.add, tnp.subtract, tnp.multiply, tnp.maximum, tnp.minimum, tnp.divide,
               lambda a, b: tnp.negative(tnp.abs(a)), lambda a, b: tnp.sqrt(tnp.abs(a)),
               lambda a, b: tnp.where(a > b, a, b))
    # Scalar code; a vector<17xbf16> maximum, which aborted the process in LLVM; vectors and a remainder.
    for n in (7, 17, x.size):
        got = ta.jit(lambda a, b: tuple(op(a, b) for op in tnp_ops))(x[:n], y[:n])
        for k, (op, result) in enumerate(zip(ops, got)):
            with np.errstate(invalid="ignore"):
                want = op(x[:n], y[:n])
            assert result.dtype == half
            nan = np.isnan(want.astype(np.float32))  # any NaN's bits: inf - inf sets the sign bit in ml_dtypes
            assert np.isnan(result.astype(np.float32)[nan]).all(), f"op {k}, n={n}"
            # Compared as values (exact: a bf16 or f16 is an f32), so that maximum(-0, +0) may be +0 (XLA's).
            np.testing.assert_array_equal(result.astype(np.float32)[~nan], want.astype(np.float32)[~nan],
                                          err_msg=f"op {k}, n={n}")


@HALVES
def test_half_sums_and_matmul_accumulate_in_float32(half):
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 1, 20000).astype(half)
    a, b = rng.uniform(0, 1, (16, 1024)).astype(half), rng.uniform(0, 1, (1024, 8)).astype(half)
    total, avg, product, largest = ta.jit(lambda x, a, b: (tnp.sum(x), tnp.mean(x), a @ b, tnp.max(x)))(x, a, b)
    exact = x.astype(np.float64).sum()
    assert total.dtype == half and abs(float(total) - exact) <= float(ml_dtypes.finfo(half).eps) * exact
    assert abs(float(avg) - exact / x.size) <= float(ml_dtypes.finfo(half).eps)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(product.astype(np.float64), reference, rtol=float(ml_dtypes.finfo(half).eps))
    assert largest == x.max()


@HALVES
def test_half_derivatives_constants_and_large_results(half):
    x = np.linspace(-1, 1, 8).astype(half)
    g = ta.grad(lambda x: tnp.sum(tnp.sin(x) * x))(x)
    assert g.dtype == half
    xf = x.astype(np.float64)
    np.testing.assert_allclose(g.astype(np.float64), np.cos(xf) * xf + np.sin(xf),
                               atol=4 * float(ml_dtypes.finfo(half).eps))
    tangent = ta.jvp(lambda x: x * x, (x,), (np.ones_like(x),))[1]
    np.testing.assert_array_equal(tangent, (x.astype(np.float32) * 2).astype(half))
    np.testing.assert_array_equal(ta.vmap(lambda r: tnp.sum(r))(x.reshape(2, 4)), x.reshape(2, 4).sum(axis=1))
    table = np.arange(5).astype(half)  # a constant that is not a splat
    np.testing.assert_array_equal(ta.jit(lambda x: x[:5] + table)(x), x[:5] + table)
    big = ta.jit(lambda x: x * 2.0)(np.ones(1 << 16, half))  # >= 64 KiB: a buffer of the pool
    assert big.dtype == half and big[0] == 2


def _complex_ops(z, w):
    return (z + w, z - w, z * w, z / w, -z, tnp.exp(z), tnp.log(z), tnp.sqrt(z), tnp.abs(z), tnp.real(z),
            tnp.imag(z), tnp.conj(z), tnp.angle(z), z ** w, tnp.sin(z), tnp.cos(z), tnp.tanh(z), tnp.sinh(z),
            tnp.cosh(z), tnp.sum(z), tnp.mean(z), tnp.var(z), z @ w, z * 2.0, z + 1j, z == w, z != z,
            tnp.where(z.real > 0, z, w), z.T, z[::2], tnp.log1p(z * 1e-9), z.astype(np.complex64), z.imag)


def _numpy_ops(z, w):
    return (z + w, z - w, z * w, z / w, -z, np.exp(z), np.log(z), np.sqrt(z), np.abs(z), np.real(z),
            np.imag(z), np.conj(z), np.angle(z), z ** w, np.sin(z), np.cos(z), np.tanh(z), np.sinh(z),
            np.cosh(z), np.sum(z), np.mean(z), np.var(z), z @ w, z * 2.0, z + 1j, z == w, z != z,
            np.where(z.real > 0, z, w), z.T, z[::2], None, z.astype(np.complex64), z.imag)


@pytest.mark.parametrize("dtype, rtol", [(np.complex128, 1e-14), (np.complex64, 2e-6)])
def test_complex_forward_matches_numpy(dtype, rtol):
    rng = np.random.default_rng(2)
    z = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(dtype)
    w = (rng.standard_normal(9) + 1j * rng.standard_normal(9)).astype(dtype)
    for k, (got, want) in enumerate(zip(ta.jit(_complex_ops)(z, w), _numpy_ops(z, w))):
        if want is None:  # log1p of a tiny z: exact here, numpy's log(1 + z) loses digits
            t = z * dtype(1e-9)
            np.testing.assert_allclose(got, t - t * t / 2, rtol=rtol)
            continue
        assert got.dtype == np.asarray(want).dtype, k
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol * 1e-3, err_msg=str(k))
    assert tnp.exp(z).dtype == dtype  # eager
    assert ta.jit(lambda z: z * np.array(2.0))(z.astype(np.complex64)).dtype == np.complex128


def _finite_difference_gradient(f, z, eps=1e-6):
    """``df/dx - i df/dy`` of a real ``f`` at each element of ``z``, by central differences."""
    out = np.zeros_like(z)
    for i in range(z.size):
        step = np.zeros_like(z)
        step[i] = eps
        dx = (f(z + step) - f(z - step)) / (2 * eps)
        dy = (f(z + 1j * step) - f(z - 1j * step)) / (2 * eps)
        out[i] = dx - 1j * dy
    return out


def _real_loss(z):
    return tnp.sum(tnp.abs(z * z - 1j) ** 2) + tnp.real(tnp.sum(tnp.exp(z) / (z + 2.0)))


def test_grad_of_a_real_function_of_complex_inputs_follows_jax():
    z = np.array([0.3 + 0.8j, -1.1 + 0.2j, 0.5 - 0.7j])
    np.testing.assert_allclose(ta.grad(lambda z: tnp.sum(tnp.abs(z) ** 2))(z), 2 * np.conj(z), rtol=1e-15)
    loss = ta.jit(_real_loss)
    np.testing.assert_allclose(ta.grad(_real_loss)(z), _finite_difference_gradient(loss, z), rtol=1e-7)
    # Real inputs through complex intermediates: an ordinary real gradient.
    x = np.array([0.3, 1.0])
    np.testing.assert_allclose(ta.grad(lambda x: tnp.sum(tnp.real(tnp.exp(1j * x))))(x), -np.sin(x), rtol=1e-15)


def test_jvp_and_vjp_are_transposes_under_the_bilinear_pairing():
    # JAX pairs a cotangent w with a tangent t as Re(sum(w * t)), without a conjugate.
    rng = np.random.default_rng(3)
    z, t, w = (rng.standard_normal(4) + 1j * rng.standard_normal(4) for _ in range(3))

    def f(z):
        return tnp.exp(z) * tnp.conj(z) + tnp.abs(z)

    _, tangent = ta.jvp(f, (z,), (t,))
    eps = 1e-6
    np.testing.assert_allclose(tangent, (ta.jit(f)(z + eps * t) - ta.jit(f)(z - eps * t)) / (2 * eps), rtol=1e-7)
    _, pullback = ta.vjp(f, z)
    (cotangent,) = pullback(w)
    np.testing.assert_allclose(np.real(np.sum(w * tangent)), np.real(np.sum(cotangent * t)), rtol=1e-12)


def test_holomorphic_derivatives():
    z = np.array([0.3 + 0.8j, -1.1 + 0.2j])
    np.testing.assert_allclose(ta.grad(lambda z: z ** 3 + tnp.sin(z), holomorphic=True)(1 + 2j),
                               3 * (1 + 2j) ** 2 + np.cos(1 + 2j), rtol=1e-14)
    expected = np.diag(np.exp(z) * z + np.exp(z))
    np.testing.assert_allclose(ta.jacfwd(lambda z: tnp.exp(z) * z, holomorphic=True)(z), expected, rtol=1e-14)
    np.testing.assert_allclose(ta.jacrev(lambda z: tnp.exp(z) * z, holomorphic=True)(z), expected, rtol=1e-14)
    np.testing.assert_allclose(ta.vmap(lambda v: tnp.sum(v * v))(np.stack([z, 2 * z])),
                               [np.sum(z * z), 4 * np.sum(z * z)])
    with pytest.raises(TypeError, match="real-valued outputs"):
        ta.grad(lambda z: z * z)(1 + 2j)
    with pytest.raises(TypeError, match="holomorphic=True requires inputs with complex dtype"):
        ta.grad(lambda x: x * x, holomorphic=True)(2.0)
    with pytest.raises(TypeError, match="holomorphic=True requires outputs with complex dtype"):
        ta.grad(lambda z: tnp.abs(z), holomorphic=True)(1 + 2j)
    with pytest.raises(TypeError, match="requires real-valued inputs"):
        ta.jacfwd(lambda z: z * z)(z)


def test_complex_maximum_and_minimum_order_by_real_then_imaginary_part():
    # Refused before ("arith.maximumf is not supported for complex operands"); numpy and JAX order complex
    # numbers lexicographically, maximum/minimum pick a NaN, fmax/fmin the other operand.
    nan = np.nan
    a = np.array([1 + 2j, 1 + 2j, 3 + 0j, complex(nan, 0), 2 + 1j, complex(0, nan), 1 + 1j, -1 - 1j])
    b = np.array([1 + 1j, 1 + 3j, 2 + 9j, 1 + 1j, complex(nan, 1), 5 + 5j, 1 + 1j, -1 + 0j])
    for name in ("maximum", "minimum", "fmax", "fmin"):
        want = getattr(np, name)(a, b)
        np.testing.assert_array_equal(ta.jit(getattr(tnp, name))(a, b), want, err_msg=name)
        np.testing.assert_array_equal(getattr(tnp, name)(a, b), want, err_msg=name)  # eager
    # The derivative goes to the operand picked.
    np.testing.assert_array_equal(ta.grad(lambda z: tnp.real(tnp.maximum(z, 1 + 1j) * 2).sum())(
        np.array([2 + 0j, 0 + 5j])), [2, 0])


def test_complex_refusals():
    z = np.array([1 + 1j, 2 - 1j])
    with pytest.raises(TypeError, match="no order"):
        ta.jit(lambda z: z < z)(z)
    with pytest.raises(TypeError, match="complex arrays is not defined"):
        ta.jit(lambda z: z // z)(z)
    with pytest.raises(TypeError, match="max of complex"):
        ta.jit(lambda z: tnp.max(z))(z)


INVERSES = {"arcsin": lambda z: 1 / np.sqrt(1 - z * z), "arccos": lambda z: -1 / np.sqrt(1 - z * z),
            "arctan": lambda z: 1 / (1 + z * z), "arcsinh": lambda z: 1 / np.sqrt(z * z + 1),
            "arccosh": lambda z: 1 / (np.sqrt(z - 1) * np.sqrt(z + 1)), "arctanh": lambda z: 1 / (1 - z * z)}


def test_complex_inverse_functions_and_sign():
    # Principal branches as numpy's (points in every quadrant, tiny and large ones); holomorphic
    # derivatives f'(z) in both modes and under vmap; sign is z/|z| with JAX's zero derivative.
    rng = np.random.default_rng(4)
    z = np.concatenate([rng.normal(size=8) * 2 + 1j * rng.normal(size=8) * 2,
                        [1e-9 + 1e-9j, -1e-8 + 2e-9j, -3 - 1e-3j, 1e5 + 1e5j, -1e5 + 3j]])
    names = list(INVERSES) + ["sign"]

    def all_of(z):
        return tuple(getattr(tnp, name)(z) for name in names)

    def derivatives(z):
        ones = tnp.ones_like(z)
        return tuple((ta.jvp(getattr(tnp, name), (z,), (ones,))[1],
                      ta.vjp(getattr(tnp, name), z)[1](ones)[0],
                      ta.vmap(getattr(tnp, name))(z)) for name in names)

    for name, got in zip(names, ta.jit(all_of)(z)):
        np.testing.assert_allclose(got, getattr(np, name)(z), rtol=1e-14, err_msg=name)
    z64 = z.astype(np.complex64)
    for name, got in zip(names, ta.jit(all_of)(z64)):
        assert got.dtype == np.complex64
        np.testing.assert_allclose(got, getattr(np, name)(z64.astype(np.complex128)), rtol=1e-5, err_msg=name)
    for name, (forward, reverse, mapped) in zip(names, ta.jit(derivatives)(z)):
        want = INVERSES[name](z) if name != "sign" else np.zeros_like(z)
        np.testing.assert_allclose(forward, want, rtol=1e-9, atol=1e-300, err_msg=name)
        np.testing.assert_allclose(reverse, want, rtol=1e-9, atol=1e-300, err_msg=name)
        np.testing.assert_allclose(mapped, getattr(np, name)(z), rtol=1e-14, err_msg=name)
    w = 0.3 - 0.7j  # against complex central differences
    for name in INVERSES:
        f = getattr(np, name)
        difference = (f(w + 1e-6) - f(w - 1e-6)) / 2e-6
        np.testing.assert_allclose(ta.grad(getattr(tnp, name), holomorphic=True)(w), difference, rtol=1e-8)
    assert tnp.arcsinh(np.array([1 + 1j])).dtype == np.complex128  # eager
