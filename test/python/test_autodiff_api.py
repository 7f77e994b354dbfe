"""The differentiation API: grad, value_and_grad, vjp, jvp, Jacobians, custom_vjp, stop_gradient."""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp

RNG = np.random.default_rng(0)


def loss(params, x):
    h = tnp.tanh(x @ params["w"] + params["b"])
    return tnp.mean(h ** 2)


def loss_numpy(params, x):
    h = np.tanh(x @ params["w"] + params["b"])
    return np.mean(h ** 2)


def numeric_grad(f, x, eps=1e-6):
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        g[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return g


PARAMS = {"w": RNG.standard_normal((3, 4)), "b": RNG.standard_normal(4)}
X = RNG.standard_normal((5, 3))


def test_grad_of_a_dict_of_parameters():
    grads = ta.grad(loss)(PARAMS, X)
    assert set(grads) == {"w", "b"}
    for key in grads:
        def f(v, key=key):
            return loss_numpy({**PARAMS, key: v}, X)
        np.testing.assert_allclose(grads[key], numeric_grad(f, PARAMS[key]), rtol=1e-6, atol=1e-9)


def test_value_and_grad_and_argnums_tuple():
    value, (g_params, g_x) = ta.value_and_grad(loss, argnums=(0, 1))(PARAMS, X)
    np.testing.assert_allclose(value, loss_numpy(PARAMS, X))
    np.testing.assert_allclose(g_x, numeric_grad(lambda v: loss_numpy(PARAMS, v), X), rtol=1e-6, atol=1e-9)
    assert g_params["w"].shape == (3, 4)


def test_has_aux_returns_the_auxiliary_output_undifferentiated():
    def f(x):
        y = tnp.sum(x ** 2)
        return y, {"norm": tnp.sqrt(y)}

    g, aux = ta.grad(f, has_aux=True)(np.array([3.0, 4.0]))
    np.testing.assert_allclose(g, [6.0, 8.0])
    np.testing.assert_allclose(aux["norm"], 5.0)
    (value, aux2), g2 = ta.value_and_grad(f, has_aux=True)(np.array([3.0, 4.0]))
    np.testing.assert_allclose(value, 25.0)
    np.testing.assert_allclose(g2, g)


def test_vjp_with_aux_like_mindspore():
    out, pullback, aux = ta.vjp(lambda x, w: (x * w, tnp.sum(w)), np.ones(3), np.arange(3.0),
                                has_aux=True)
    np.testing.assert_allclose(out, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(aux, 3.0)
    gx, gw = pullback(np.array([1.0, 10.0, 100.0]))
    np.testing.assert_allclose(gx, [0.0, 10.0, 200.0])
    np.testing.assert_allclose(gw, [1.0, 10.0, 100.0])


def test_jvp_matches_the_gradient():
    x, v = RNG.standard_normal(4), RNG.standard_normal(4)
    f = lambda x: tnp.sum(tnp.sin(x) * tnp.exp(x))  # noqa: E731
    out, tangent = ta.jvp(f, (x,), (v,))
    np.testing.assert_allclose(out, np.sum(np.sin(x) * np.exp(x)))
    np.testing.assert_allclose(tangent, ta.grad(f)(x) @ v, rtol=1e-12)


def test_jacobians_agree():
    f = lambda x: tnp.tanh(x[:, None] * x[None, :]).sum(axis=0)  # noqa: E731
    x = RNG.standard_normal(3)
    rev, fwd = ta.jacrev(f)(x), ta.jacfwd(f)(x)
    assert rev.shape == (3, 3)
    np.testing.assert_allclose(rev, fwd, rtol=1e-12)
    numeric = np.stack([numeric_grad(lambda v, i=i: np.tanh(np.outer(v, v)).sum(axis=0)[i], x)
                        for i in range(3)])
    np.testing.assert_allclose(rev, numeric, rtol=1e-6, atol=1e-9)


def test_jacobian_shapes_follow_out_then_in():
    x = np.ones((2, 3))
    assert ta.jacrev(lambda x: x.sum(axis=1))(x).shape == (2, 2, 3)
    assert ta.jacfwd(lambda x: x.sum(axis=1))(x).shape == (2, 2, 3)


def test_hessian_and_higher_order():
    f = lambda x: tnp.sum(x ** 3) + x[0] * x[1]  # noqa: E731
    x = np.array([1.0, 2.0])
    np.testing.assert_allclose(ta.hessian(f)(x), [[6.0, 1.0], [1.0, 12.0]])
    np.testing.assert_allclose(ta.grad(ta.grad(lambda x: x ** 4))(2.0), 48.0)
    np.testing.assert_allclose(ta.grad(ta.grad(ta.grad(lambda x: tnp.sin(x))))(0.5), -np.cos(0.5))
    # Hessian-vector product, forward over reverse
    _, hvp = ta.jvp(ta.grad(f), (x,), (np.array([1.0, 0.0]),))
    np.testing.assert_allclose(hvp, [6.0, 1.0])


def test_stop_gradient_blocks_the_derivative():
    g = ta.grad(lambda x: tnp.sum(x * ta.stop_gradient(x ** 2)))(np.array([1.0, 2.0]))
    np.testing.assert_allclose(g, [1.0, 4.0])


def test_custom_vjp_replaces_the_derivative():
    @ta.custom_vjp
    def clip_gradient(x):
        return x

    clip_gradient.defvjp(lambda x: (x, None), lambda res, g: (tnp.clip(g, -1.0, 1.0),))
    g = ta.grad(lambda x: tnp.sum(clip_gradient(x) * np.array([0.5, 3.0, -7.0])))(np.ones(3))
    np.testing.assert_allclose(g, [0.5, 1.0, -1.0])
    np.testing.assert_allclose(clip_gradient(np.arange(2.0)), [0.0, 1.0])


def test_custom_vjp_uses_residuals():
    @ta.custom_vjp
    def safe_log(x):
        return tnp.log(x)

    safe_log.defvjp(lambda x: (tnp.log(x), x), lambda x, g: (g / tnp.maximum(x, 1e-3),))
    np.testing.assert_allclose(ta.grad(lambda x: tnp.sum(safe_log(x)))(np.array([1e-6, 2.0])),
                               [1e3, 0.5])


def test_grad_composes_with_jit_and_lowers_to_clean_ir():
    w = RNG.standard_normal((3, 4))
    step = ta.jit(ta.grad(lambda x: tnp.sum(x @ w)))
    np.testing.assert_allclose(step(np.ones((2, 3))), np.tile(w.sum(axis=1), (2, 1)))
    text = ta.grad(lambda x, w: tnp.sum(tnp.tanh(x @ w)), argnums=1).lower(
        np.ones((2, 3)), w).as_text("differentiated")
    assert text.count('"tad.dot_general"') == 2  # forward matmul and the one adjoint asked for
    assert "tad.transpose" not in text and "call" not in text


def test_integer_argnums_are_rejected():
    with pytest.raises(TypeError, match="argument 0 has dtype int64"):
        ta.grad(lambda n: tnp.sum(n * 2.0))(np.arange(3))


def test_grad_needs_a_scalar_output():
    with pytest.raises(ta.TracingError, match="float scalar"):
        ta.grad(lambda x: x * 2.0)(np.ones(3))


def test_gradients_of_float32_stay_float32():
    g = ta.grad(lambda x: tnp.sum(tnp.exp(x)))(np.zeros(3, np.float32))
    assert g.dtype == np.float32
    np.testing.assert_allclose(g, 1.0)


def test_derivatives_declared_in_hand_written_ir_run_through_compile_mlir():
    source = '''
    func.func @f(%x: tensor<2x3xf64>) -> tensor<6xf64> {
      %0 = tensor.collapse_shape %x [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
      %1 = math.sin %0 : tensor<6xf64>
      %2 = tensor.expand_shape %1 [[0, 1]] output_shape [3, 2] : tensor<6xf64> into tensor<3x2xf64>
      %3 = tensor.collapse_shape %2 [[0, 1]] : tensor<3x2xf64> into tensor<6xf64>
      return %3 : tensor<6xf64>
    }
    func.func private @f_vjp(tensor<2x3xf64>, tensor<6xf64>) -> (tensor<6xf64>, tensor<2x3xf64>)
        attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
    func.func private @f_jvp(tensor<2x3xf64>, tensor<2x3xf64>) -> (tensor<6xf64>, tensor<6xf64>)
        attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}
    '''
    x, ct, t = RNG.standard_normal((2, 3)), RNG.standard_normal(6), RNG.standard_normal((2, 3))
    out, grad = ta.compile_mlir(source, "f_vjp")(x, ct)
    np.testing.assert_allclose(out, np.sin(x.ravel()))
    np.testing.assert_allclose(grad, (ct * np.cos(x.ravel())).reshape(2, 3))
    _, tangent = ta.compile_mlir(source, "f_jvp")(x, t)
    np.testing.assert_allclose(tangent, np.cos(x.ravel()) * t.ravel())
