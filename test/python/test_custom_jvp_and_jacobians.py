"""custom_jvp, linearize, linear_transpose, Jacobians over tuples and pytrees, and custom rules under vmap.

Every derivative is checked against a closed form or float64 finite differences.
"""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax


def finite_difference_jacobian(fun, x, eps=1e-6):
    """d fun / d x by central differences: shape fun(x).shape + x.shape."""
    x = np.asarray(x, float)
    columns = []
    for i in range(x.size):
        step = np.zeros(x.size)
        step[i] = eps
        step = step.reshape(x.shape)
        columns.append((np.asarray(fun(x + step)) - np.asarray(fun(x - step))) / (2 * eps))
    out_shape = np.shape(fun(x))
    return np.moveaxis(np.array(columns).reshape(x.shape + out_shape), list(range(x.ndim)),
                       list(range(-x.ndim, 0)))


@ta.custom_jvp
def log1pexp(x):
    return tnp.log(1.0 + tnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return log1pexp(x), t * (1.0 - 1.0 / (1.0 + tnp.exp(x)))


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# ---------------------------------------------------------------------------
# custom_jvp
# ---------------------------------------------------------------------------

def test_custom_jvp_rule_replaces_the_derivative_where_the_plain_one_is_nan():
    x = np.array([-3.0, 0.0, 2.0, 1000.0])
    plain = ta.grad(lambda v: tnp.log(1.0 + tnp.exp(v)).sum())(x)
    assert np.isnan(plain[-1])  # inf / inf
    np.testing.assert_allclose(ta.grad(lambda v: log1pexp(v).sum())(x), sigmoid(x))


def test_custom_jvp_in_forward_mode_and_as_value():
    x = np.array([0.0, 1.0, 1000.0])
    out, tangent = ta.jvp(log1pexp, (x,), (np.array([1.0, 2.0, 3.0]),))
    np.testing.assert_allclose(out[:2], np.log1p(np.exp(x[:2])))
    np.testing.assert_allclose(tangent, sigmoid(x) * [1.0, 2.0, 3.0])
    np.testing.assert_allclose(log1pexp(np.array([0.5])), np.log1p(np.exp(0.5)))  # called eagerly


@pytest.mark.parametrize("jacobian", [ta.jacrev, ta.jacfwd])
def test_custom_jvp_jacobians_use_the_rule(jacobian):
    x = np.array([0.0, 1.0, 1000.0])
    np.testing.assert_allclose(jacobian(log1pexp)(x), np.diag(sigmoid(x)))


def test_custom_jvp_hessian_differentiates_the_rule():
    x = np.array([-1.0, 0.5])
    hess = ta.hessian(lambda v: log1pexp(v).sum())(x)
    np.testing.assert_allclose(hess, np.diag(sigmoid(x) * (1 - sigmoid(x))), rtol=1e-10)


def test_custom_jvp_with_two_arguments_and_a_pytree():
    @ta.custom_jvp
    def scaled(params, x):
        return params["w"] * tnp.sin(x) + params["b"]

    @scaled.defjvp
    def scaled_jvp(primals, tangents):
        (params, x), (dparams, dx) = primals, tangents
        out = scaled(params, x)
        return out, dparams["w"] * tnp.sin(x) + params["w"] * tnp.cos(x) * dx + dparams["b"]

    params, x = {"w": np.array([2.0, 3.0]), "b": np.array([0.5, 0.5])}, np.array([0.3, -0.7])
    grads = ta.grad(lambda p, v: scaled(p, v).sum(), argnums=(0, 1))(params, x)
    np.testing.assert_allclose(grads[0]["w"], np.sin(x))
    np.testing.assert_allclose(grads[0]["b"], 1.0)
    np.testing.assert_allclose(grads[1], params["w"] * np.cos(x))


def test_defjvps_sums_one_rule_per_argument():
    product = ta.custom_jvp(lambda x, y: tnp.sin(x) * y)
    product.defjvps(lambda tx, out, x, y: tnp.cos(x) * y * tx, None)  # y's derivative declared zero
    gx, gy = ta.grad(product, argnums=(0, 1))(0.5, 2.0)
    np.testing.assert_allclose(gx, np.cos(0.5) * 2.0)
    assert gy == 0.0


def test_custom_jvp_rule_may_differ_from_the_function():
    """The rule is trusted, as in JAX: a straight-through estimator."""
    step = ta.custom_jvp(lambda x: tnp.where(x > 0.0, 1.0, 0.0))
    step.defjvp(lambda primals, tangents: (step(*primals), tangents[0]))
    np.testing.assert_allclose(ta.grad(lambda x: step(x).sum())(np.array([-1.0, 2.0])), [1.0, 1.0])
    np.testing.assert_allclose(ta.jvp(step, (np.array([-1.0, 2.0]),), (np.array([3.0, 4.0]),))[1], [3.0, 4.0])


def test_custom_jvp_misuse_is_reported():
    no_rule = ta.custom_jvp(lambda x: x * 2.0)
    with pytest.raises(ta.TracingError, match="call defjvp"):
        ta.grad(no_rule)(1.0)
    bad_pair = ta.custom_jvp(lambda x: x * 2.0)
    bad_pair.defjvp(lambda primals, tangents: tangents[0])
    with pytest.raises(ta.TracingError, match="pair"):
        ta.grad(bad_pair)(1.0)
    bad_shape = ta.custom_jvp(lambda x: x * 2.0)
    bad_shape.defjvp(lambda primals, tangents: (primals[0] * 2.0, tnp.zeros(3)))
    with pytest.raises(ta.TracingError, match="tangent has shape"):
        ta.grad(lambda x: bad_shape(x).sum())(np.ones(2))


def test_custom_jvp_closing_over_a_differentiated_value_is_refused():
    def outer(w):
        inner = ta.custom_jvp(lambda x: x * w)
        inner.defjvp(lambda primals, tangents: (inner(*primals), tangents[0] * w))
        return inner(np.ones(2)).sum()

    with pytest.raises(ta.TracingError, match="closes over values traced outside it"):
        ta.grad(outer)(3.0)


# ---------------------------------------------------------------------------
# Custom rules under vmap
# ---------------------------------------------------------------------------

def test_vmap_keeps_the_custom_jvp_rule():
    x = np.array([[0.0, 1000.0], [1.0, -2.0]])
    got = ta.grad(lambda v: ta.vmap(log1pexp)(v).sum())(x)
    np.testing.assert_allclose(got, sigmoid(x))
    np.testing.assert_allclose(ta.vmap(ta.grad(lambda v: log1pexp(v).sum()))(x), sigmoid(x))


def test_vmap_keeps_the_custom_vjp_rule_and_sums_the_gradient_of_an_unmapped_input():
    @ta.custom_vjp
    def clip_gradient(x, w):
        return x * w

    clip_gradient.defvjp(lambda x, w: (clip_gradient(x, w), (x, w)),
                         lambda res, g: (tnp.clip(g * res[1], -1.0, 1.0), g * res[0]))
    xs, w = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]), np.array([5.0, 0.1])
    gx, gw = ta.grad(lambda a, b: ta.vmap(clip_gradient, in_axes=(0, None))(a, b).sum(), argnums=(0, 1))(xs, w)
    np.testing.assert_allclose(gx, np.clip(np.ones_like(xs) * w, -1.0, 1.0))
    np.testing.assert_allclose(gw, xs.sum(axis=0))  # the unmapped input's rows summed


# ---------------------------------------------------------------------------
# linearize and linear_transpose
# ---------------------------------------------------------------------------

def test_linearize_gives_the_jvp_at_the_point():
    def f(x, y):
        return tnp.sin(x) * y

    x, y = np.array([0.0, 1.0]), np.array([2.0, 3.0])
    out, f_jvp = ta.linearize(f, x, y)
    np.testing.assert_allclose(out, np.sin(x) * y)
    tx, ty = np.array([1.0, -1.0]), np.array([0.5, 0.25])
    np.testing.assert_allclose(f_jvp(tx, ty), np.cos(x) * y * tx + np.sin(x) * ty)
    np.testing.assert_allclose(f_jvp(2 * tx, 2 * ty), 2 * (np.cos(x) * y * tx + np.sin(x) * ty))


def test_linearize_inside_jit():
    np.testing.assert_allclose(ta.jit(lambda x: ta.linearize(tnp.exp, x)[1](x))(np.ones(2)), np.e * np.ones(2))


def test_linear_transpose_is_the_adjoint():
    a = np.arange(6.0).reshape(2, 3)

    def linear(x, y):
        return a @ x + y, 3.0 * y

    f_t = ta.linear_transpose(linear, np.zeros(3), np.zeros(2))
    ct = (np.array([1.0, 2.0]), np.array([-1.0, 4.0]))
    gx, gy = f_t(ct)
    np.testing.assert_allclose(gx, a.T @ ct[0])
    np.testing.assert_allclose(gy, ct[0] + 3.0 * ct[1])
    # The dot-product test: <ct, f(v)> == <f_t(ct), v>.
    rng = np.random.default_rng(1)
    vx, vy = rng.standard_normal(3), rng.standard_normal(2)
    fx = linear(vx, vy)
    np.testing.assert_allclose(ct[0] @ fx[0] + ct[1] @ fx[1], gx @ vx + gy @ vy)


def test_linear_transpose_refuses_a_nonlinear_function():
    with pytest.raises(ValueError, match="not linear"):
        ta.linear_transpose(lambda x: x * x, np.zeros(3))(np.ones(3))
    with pytest.raises(TypeError, match="floating-point"):
        ta.linear_transpose(lambda x: x, np.zeros(3, np.int32))


def test_linear_transpose_inside_jit():
    f_t = ta.linear_transpose(lambda x: x.sum(), np.zeros(3))
    np.testing.assert_allclose(ta.jit(lambda c: f_t(c)[0])(np.array(2.0)), [2.0, 2.0, 2.0])


# ---------------------------------------------------------------------------
# Jacobians with tuple argnums, pytrees, aux
# ---------------------------------------------------------------------------

def product(x, y):
    return tnp.sin(x)[:, None] * y[None, :]


@pytest.mark.parametrize("jacobian", [ta.jacrev, ta.jacfwd])
def test_jacobians_with_tuple_argnums(jacobian):
    x, y = np.array([0.1, 0.2]), np.array([1.0, 2.0, 3.0])
    jx, jy = jacobian(product, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(jx, finite_difference_jacobian(lambda v: np.sin(v)[:, None] * y, x), atol=1e-8)
    np.testing.assert_allclose(jy, finite_difference_jacobian(lambda v: np.sin(x)[:, None] * v, y), atol=1e-8)
    (only_y,) = jacobian(product, argnums=(1,))(x, y)
    np.testing.assert_allclose(only_y, jy)


@pytest.mark.parametrize("jacobian", [ta.jacrev, ta.jacfwd])
def test_jacobians_of_pytrees_nest_output_outside_input_inside(jacobian):
    def f(params):
        return {"out": params["w"] * params["b"][0], "sum": tnp.sum(params["w"])}

    params = {"w": np.array([1.0, 2.0]), "b": np.array([3.0])}
    jac = jacobian(f)(params)
    np.testing.assert_allclose(jac["out"]["w"], np.diag([3.0, 3.0]))
    np.testing.assert_allclose(jac["out"]["b"], [[1.0], [2.0]])
    np.testing.assert_allclose(jac["sum"]["w"], [1.0, 1.0])
    np.testing.assert_allclose(jac["sum"]["b"], [0.0])


@pytest.mark.parametrize("jacobian", [ta.jacrev, ta.jacfwd])
def test_jacobians_with_aux(jacobian):
    jac, aux = jacobian(lambda x: (x * 2.0, {"norm": tnp.sum(x * x)}), has_aux=True)(np.ones(2))
    np.testing.assert_allclose(jac, 2.0 * np.eye(2))
    np.testing.assert_allclose(aux["norm"], 2.0)


def test_hessian_with_tuple_argnums_nests_as_jax():
    def f(x, y):
        return tnp.sum(x * x * y) + tnp.sum(y ** 3)

    x, y = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    (hxx, hxy), (hyx, hyy) = ta.hessian(f, argnums=(0, 1))(x, y)
    np.testing.assert_allclose(hxx, np.diag(2 * y))
    np.testing.assert_allclose(hxy, np.diag(2 * x))
    np.testing.assert_allclose(hyx, np.diag(2 * x))
    np.testing.assert_allclose(hyy, np.diag(6 * y))


def test_jacobians_compose_with_vmap():
    x = np.array([[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]])
    per_row = ta.vmap(ta.jacrev(tnp.sin))(x)
    np.testing.assert_allclose(per_row, np.stack([np.diag(np.cos(r)) for r in x]))
    whole = ta.jacfwd(ta.vmap(tnp.sin))(x)
    np.testing.assert_allclose(whole, np.diag(np.cos(x).ravel()).reshape(3, 2, 3, 2))


def test_lax_stop_gradient():
    np.testing.assert_allclose(ta.grad(lambda x: x * lax.stop_gradient(x))(3.0), 3.0)
    assert ta.stop_gradient is lax.stop_gradient
