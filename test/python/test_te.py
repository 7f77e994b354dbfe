"""tensorad.te: TVM-style tensor expressions, their IR, and te.differentiate (TVM's semantics).

The TVM tutorial's examples (a dense layer, a convolution, a max pool, a
custom ``fdiff`` and an ``override``) are written here in our own words,
each checked against float64 finite differences or tensorad.numpy.
"""

import re
import subprocess
import sys

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import nn, te
from tensorad.te import topi

RNG = np.random.default_rng(0)


def _random(*shape):
    return RNG.standard_normal(shape)


def _finite_difference_vjp(forward, args: list, wrt: int, head: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """``head . d forward / d args[wrt]`` by central differences (float64)."""
    x = args[wrt]
    grad = np.zeros_like(x)
    for flat in range(x.size):
        step = np.zeros(x.size)
        step[flat] = eps
        plus = [a if i != wrt else x + step.reshape(x.shape) for i, a in enumerate(args)]
        minus = [a if i != wrt else x - step.reshape(x.shape) for i, a in enumerate(args)]
        grad.flat[flat] = np.sum(head * (np.asarray(forward(*plus)) - np.asarray(forward(*minus)))) / (2 * eps)
    return grad


# ----------------------------------------------------------------------------
# Forward: computes against numpy
# ----------------------------------------------------------------------------

def test_elementwise_matmul_and_scalar_reduction_match_numpy():
    A = te.placeholder((3, 4), "float64", name="A")
    B = te.placeholder((4, 2), "float64", name="B")
    k = te.reduce_axis((0, 4), name="k")
    C = te.compute((3, 2), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    E = te.compute((3, 4), lambda i, j: te.tanh(A[i, j]) * 2.0 + j, name="E")
    r, s = te.reduce_axis((0, 3), "r"), te.reduce_axis((0, 4), "s")
    S = te.compute((), lambda: te.sum(A[r, s] * A[r, s], axis=[r, s]), name="S")
    a, b = _random(3, 4), _random(4, 2)
    c, e, total = te.build([A, B, C, E, S])(a, b)
    np.testing.assert_allclose(c, a @ b, rtol=1e-12)
    np.testing.assert_allclose(e, np.tanh(a) * 2.0 + np.arange(4), rtol=1e-12)
    np.testing.assert_allclose(total, np.sum(a * a), rtol=1e-12)


def test_strided_windows_floordiv_mod_and_where():
    A = te.placeholder((6,), "float64", name="A")
    r = te.reduce_axis((0, 2), "r")
    M = te.compute((3,), lambda i: te.max(A[i * 2 + r], axis=r), name="M")
    N = te.compute((3,), lambda i: te.min(A[i * 2 + r], axis=r), name="N")
    U = te.compute((12,), lambda i: A[i // 2] * (i % 2).astype("float64"), name="U")
    k = te.reduce_axis((0, 6), "k")
    P = te.compute((), lambda: te.sum(A[k], axis=k, where=A[k] > 0.0), name="P")
    a = np.array([3.0, -1.0, -2.0, 5.0, 0.5, 0.25])
    m, n, u, p = te.build([A, M, N, U, P])(a)
    np.testing.assert_array_equal(m, [3.0, 5.0, 0.5])
    np.testing.assert_array_equal(n, [-1.0, -2.0, 0.25])
    np.testing.assert_array_equal(u, np.repeat(a, 2) * np.tile([0.0, 1.0], 6))
    assert p == a[a > 0].sum()


def test_guarded_reads_pad_with_zeros_and_outputs_fill_in_place():
    A = te.placeholder((3,), "float64", name="A")
    P = te.compute((5,), lambda i: te.if_then_else(te.all(i >= 1, i < 4), A[i - 1], -7.0), name="P")
    out = np.empty(5)
    returned = te.build(te.create_schedule(P.op), [A, P])(np.array([1.0, 2.0, 3.0]), out)
    np.testing.assert_array_equal(out, [-7.0, 1.0, 2.0, 3.0, -7.0])
    np.testing.assert_array_equal(returned, out)


def test_topi_conv2d_and_pool_match_tensorad_nn():
    X = te.placeholder((2, 3, 7, 7), "float64", name="X")
    K = te.placeholder((4, 3, 3, 3), "float64", name="K")
    C = topi.nn.conv2d(X, K, strides=2, padding=1)
    Pm = topi.nn.pool(X, [3, 3], [2, 2], [1, 1, 1, 1], "max")
    Pa = topi.nn.pool(X, [2, 2], [2, 2], [0, 0, 0, 0], "avg")
    x, k = _random(2, 3, 7, 7), _random(4, 3, 3, 3)
    c, pm, pa = te.build([X, K, C, Pm, Pa])(x, k)
    np.testing.assert_allclose(c, ta.jit(lambda x, k: nn.conv2d(x, k, stride=2, padding=1))(x, k), rtol=1e-12)
    np.testing.assert_allclose(pm, ta.jit(lambda x: nn.max_pool2d(x, 3, 2, padding=1))(x), rtol=1e-12)
    np.testing.assert_allclose(pa, ta.jit(lambda x: nn.avg_pool2d(x, 2, 2))(x), rtol=1e-12)


def test_a_te_graph_is_a_function_jit_and_grad_can_call():
    A = te.placeholder((4,), "float64", name="A")
    B = te.compute((4,), lambda i: te.exp(A[i]) * A[i], name="B")
    built = te.build([A, B])
    x = _random(4)
    g = ta.grad(lambda x: tnp.sum(built.jitted(x)))(x)
    np.testing.assert_allclose(g, np.exp(x) * (1 + x), rtol=1e-12)


# ----------------------------------------------------------------------------
# te.differentiate: the TVM tutorial, in our words
# ----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dense():
    """L = sum(X @ W.T + B) built from computes, as the tutorial's dense layer."""
    X = te.placeholder((5, 6), "float64", name="X")
    W = te.placeholder((3, 6), "float64", name="W")
    B = te.placeholder((3,), "float64", name="B")
    k = te.reduce_axis((0, 6), name="k")
    T = te.compute((5, 3), lambda i, j: te.sum(X[i, k] * W[j, k], axis=k), name="T")
    Y = topi.add(T, B)
    L = topi.sum(Y)
    return X, W, B, T, Y, L


def test_dense_layer_gradients(dense):
    X, W, B, T, Y, L = dense
    x, w, b = _random(5, 6), _random(3, 6), _random(3)
    dW, dB = te.differentiate(L, [W, B])
    gw, gb = te.build([X, W, B, dW, dB])(x, w, b)
    np.testing.assert_allclose(gw, np.ones((5, 3)).T @ x, rtol=1e-12)
    np.testing.assert_allclose(gb, np.full(3, 5.0), rtol=1e-12)
    # Without inputs, every adjoint is there: X, the product T and the sum Y.
    res = te.differentiate(L)
    with pytest.raises(ValueError, match="read .adjoints"):
        list(res)
    gx, gt, gy = te.build([X, W, B, res.adjoints[X], res.adjoints[T], res.adjoints[Y]])(x, w, b)
    np.testing.assert_allclose(gx, np.ones((5, 3)) @ w, rtol=1e-12)
    np.testing.assert_array_equal(gt, np.ones((5, 3)))
    np.testing.assert_array_equal(gy, np.ones((5, 3)))


def test_full_jacobian_by_default_and_a_head_multiplies_it(dense):
    X, W, B, T, Y, L = dense
    x, w, b = _random(5, 6), _random(3, 6), _random(3)
    [J] = te.differentiate(Y, [W])
    assert J.shape == (5, 3, 3, 6)
    [dW] = te.differentiate(Y, [W], topi.full_like(Y, 1.0))
    jac, gw = te.build([X, W, B, J, dW])(x, w, b)
    expected = np.einsum("jl,ik->ijlk", np.eye(3), x)  # dY[i, j] / dW[l, k]
    np.testing.assert_allclose(jac, expected, rtol=1e-12)
    np.testing.assert_allclose(gw, jac.sum(axis=(0, 1)), rtol=1e-12)


def test_matmul_gradient_with_a_head_matches_finite_differences():
    X = te.placeholder((4, 5), "float64", name="X")
    W = te.placeholder((3, 5), "float64", name="W")
    k = te.reduce_axis((0, 5), name="k")
    T1 = te.compute((4, 3), lambda i, j: te.sum(X[i, k] * W[j, k], axis=k), name="matmul")
    H = te.placeholder(T1.shape, "float64", name="H")
    dX, dW = te.differentiate(T1, [X, W], H)
    x, w, h = _random(4, 5), _random(3, 5), _random(4, 3)
    gx, gw = te.build([X, W, H, dX, dW])(x, w, h)
    forward = te.build([X, W, T1])
    np.testing.assert_allclose(gx, _finite_difference_vjp(forward, [x, w], 0, h), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gw, _finite_difference_vjp(forward, [x, w], 1, h), rtol=1e-7, atol=1e-9)


def test_convolution_gradients_match_finite_differences():
    X = te.placeholder((1, 2, 5, 5), "float64", name="X")
    K = te.placeholder((3, 2, 3, 3), "float64", name="K")
    Z = topi.nn.conv2d(X, K, strides=1, padding=1)
    H = te.placeholder(Z.shape, "float64", name="H")
    dX, dK = te.differentiate(Z, [X, K], H)
    x, k, h = _random(1, 2, 5, 5), _random(3, 2, 3, 3), _random(*Z.shape)
    gx, gk = te.build([X, K, H, dX, dK])(x, k, h)
    forward = te.build([X, K, Z])
    np.testing.assert_allclose(gx, _finite_difference_vjp(forward, [x, k], 0, h), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(gk, _finite_difference_vjp(forward, [x, k], 1, h), rtol=1e-7, atol=1e-9)
    # The convolution's generic is raised to tad.conv2d, so its pullback is the tuned backward ops.
    differentiated = te.build([X, K, H, dX, dK]).as_text("differentiated")
    assert "tad.conv2d_backward_data" in differentiated and "tad.conv2d_backward_filter" in differentiated


def test_max_pool_gradient_goes_to_the_maximum_without_a_mask():
    X = te.placeholder((2, 3, 6, 6), "float64", name="X")
    Y = topi.nn.pool(X, [2, 2], [2, 2], [0, 0, 0, 0], "max")
    H = te.placeholder(Y.shape, "float64", name="H")
    [dX] = te.differentiate(Y, [X], H)
    built = te.build([X, H, dX])
    x, h = _random(2, 3, 6, 6), _random(*Y.shape)
    expected = ta.vjp(lambda x: nn.max_pool2d(x, 2, 2), x)[1](h)[0]
    np.testing.assert_allclose(built(x, h), expected, rtol=1e-12)
    # The pullback selects; it never multiplies the head by a 0/1 mask (TVM's tutorial does).
    pullback = built.as_text("differentiated").split("_vjp(")[-1]
    assert "arith.select" in pullback and "arith.mulf" not in pullback


def test_custom_fdiff_through_the_full_jacobian_agrees(dense):
    X, W, B, T, Y, L = dense

    def naive_fdiff(out, inp, head):
        return topi.tensordot(head, te.autodiff.Jacobian(out, inp, False), len(out.shape))

    x, w, b = _random(5, 6), _random(3, 6), _random(3)
    custom = te.differentiate(L, [W, B], fdiff=naive_fdiff)
    default = te.differentiate(L, [W, B])
    results = te.build([X, W, B, *custom, *default])(x, w, b)
    np.testing.assert_allclose(results[0], results[2], rtol=1e-12)
    np.testing.assert_allclose(results[1], results[3], rtol=1e-12)


def test_override_blocks_the_gradient_to_x(dense):
    X, W, B, T, Y, L = dense

    def naive_fdiff(out, inp, head):
        return topi.tensordot(head, te.autodiff.Jacobian(out, inp, False), len(out.shape))

    def through_y(out, inputs, head):
        assert out is Y and inputs == [X, W, B]
        blocked = topi.full(head.shape[:-len(out.shape)] + list(X.shape), head.dtype, 0)
        return [blocked] + list(te.differentiate(out, [W, B], head, fdiff=naive_fdiff))

    res = te.differentiate(L, override={Y: ([X, W, B], through_y)})
    x, w, b = _random(5, 6), _random(3, 6), _random(3)
    gx, gw, gb = te.build([X, W, B, res.adjoints[X], res.adjoints[W], res.adjoints[B]])(x, w, b)
    np.testing.assert_array_equal(gx, np.zeros((5, 6)))
    np.testing.assert_allclose(gw, np.ones((5, 3)).T @ x, rtol=1e-12)
    np.testing.assert_allclose(gb, np.full(3, 5.0), rtol=1e-12)
    assert set(res.adjoint_summands[W]) == {Y}


def test_an_input_the_output_does_not_read_gets_zeros_and_gradients_sum_over_users():
    A = te.placeholder((3,), "float64", name="A")
    Z = te.placeholder((2,), "float64", name="Z")
    S = te.compute((3,), lambda i: te.sin(A[i]), name="S")
    Q = te.compute((3,), lambda i: S[i] * A[i] + S[i], name="Q")
    H = te.placeholder((3,), "float64", name="H")
    dA, dZ = te.differentiate(Q, [A, Z], H)
    a, z, h = _random(3), _random(2), _random(3)
    ga, gz = te.build([A, Z, H, dA, dZ])(a, z, h)
    np.testing.assert_allclose(ga, h * (np.cos(a) * a + np.sin(a) + np.cos(a)), rtol=1e-12)
    np.testing.assert_array_equal(gz, np.zeros(2))


def test_dense_gradient_is_contractions_not_jacobians(dense):
    X, W, B, T, Y, L = dense
    dW, dB = te.differentiate(L, [W, B])
    linalg = te.build([X, W, B, dW, dB]).as_text("linalg")
    # The largest tensor anywhere is an argument or a (5, 3) / (3, 6) value: nothing of Jacobian size.
    sizes = [int(np.prod([int(n) for n in m.split("x")])) for m in re.findall(r"tensor<((?:\d+x)+)f64>", linalg)
             for m in [m.rstrip("x")]]
    assert max(sizes) <= 30


def test_second_order_an_adjoint_is_differentiated_again():
    X = te.placeholder((3,), "float64", name="X")
    Y = te.compute((3,), lambda i: te.sin(X[i]) * X[i], name="Y")
    k = te.reduce_axis((0, 3), "k")
    L = te.compute((), lambda: te.sum(Y[k], axis=k), name="L")
    [dX] = te.differentiate(L, [X])
    V = te.placeholder((3,), "float64", name="V")
    [hessian_v] = te.differentiate(dX, [X], V)
    x, v = np.array([0.3, 1.0, -2.0]), np.array([1.0, 2.0, 3.0])
    g, hv = te.build([X, V, dX, hessian_v])(x, v)
    np.testing.assert_allclose(g, np.cos(x) * x + np.sin(x), rtol=1e-12)
    np.testing.assert_allclose(hv, v * (2 * np.cos(x) - np.sin(x) * x), rtol=1e-12)


def test_the_cli_differentiates_what_te_lowers():
    X = te.placeholder((2, 3), "float64", name="X")
    Y = topi.sum(topi.exp(X))
    [dX] = te.differentiate(Y, [X])
    text = te.lower([X, dX])
    assert "tad.vjp" in text and "linalg.generic" in text
    done = subprocess.run([sys.executable, "-m", "tensorad.tools.autodiff_opt", "--tad-jit-differentiate"],
                          input=text, capture_output=True, text=True, check=True)
    assert "tad.vjp" not in done.stdout and "math.exp" in done.stdout


# ----------------------------------------------------------------------------
# Errors at the user's line
# ----------------------------------------------------------------------------

def test_errors_are_reported_at_the_users_line():
    A = te.placeholder((4,), "float64", name="A")
    with pytest.raises(IndexError, match=r"test_te.py:\d+: .*reads A at indices 1..4"):
        te.compute((4,), lambda i: A[i + 1])
    with pytest.raises(TypeError, match="affine"):
        te.compute((4, 4), lambda i, j: A[i * j])
    k = te.reduce_axis((0, 4), "k")
    with pytest.raises(TypeError, match="must be the whole body"):
        te.compute((1,), lambda i: te.sum(A[k], axis=k) + 1.0)
    with pytest.raises(TypeError, match="no truth value"):
        te.compute((4,), lambda i: A[i] if i > 1 else 0.0)
    with pytest.raises(TypeError, match="3 indices for a 1-d shape"):
        te.compute((4,), lambda i, j, l: A[i])
    B = te.compute((4,), lambda i: A[i] * 2.0)
    with pytest.raises(ValueError, match="prefix"):
        te.differentiate(B, [A], te.placeholder((3,), "float64"))
    with pytest.raises(ValueError, match="not an argument"):
        te.build([B])
    with pytest.raises(ValueError, match="shape"):
        te.build([A, B])(np.zeros(3))
