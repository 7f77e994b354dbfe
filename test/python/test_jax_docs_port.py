"""JAX's documentation examples, written as their users write them, run with ``jax -> tensorad`` renames.

Our own versions of the examples of JAX's autodiff cookbook, its vmap,
custom_jvp/custom_vjp, stop_gradient, jit and pytree tutorials. The only
change from JAX code is the imports below; each result is checked against the
value the JAX documentation prints, or against numpy and finite differences.
Eager calls (``jnp.tanh(2.0)`` at the top level) run too.
"""

import dataclasses

import numpy as np
import pytest

import tensorad as jax
import tensorad.numpy as jnp
from tensorad import grad, jacfwd, jacrev, jit, lax, tree_util, vmap

# ---------------------------------------------------------------------------
# The autodiff cookbook
# ---------------------------------------------------------------------------


def test_grad_of_tanh_and_its_higher_derivatives():
    grad_tanh = grad(jnp.tanh)
    np.testing.assert_allclose(grad_tanh(2.0), 0.07065082, rtol=1e-6)
    np.testing.assert_allclose(grad(grad(jnp.tanh))(2.0), -0.13621868, rtol=1e-6)
    np.testing.assert_allclose(grad(grad(grad(jnp.tanh)))(2.0), 0.25265405, rtol=1e-6)
    np.testing.assert_allclose(jnp.tanh(2.0), np.tanh(2.0))  # eager, outside any transformation


def sigmoid(x):
    return 0.5 * (jnp.tanh(x / 2) + 1)


def predict(W, b, inputs):
    """The logistic regression model of the cookbook."""
    return sigmoid(jnp.dot(inputs, W) + b)


INPUTS = np.array([[0.52, 1.12, 0.77],
                   [0.88, -1.08, 0.15],
                   [0.52, 0.06, -1.30],
                   [0.74, -2.49, 1.39]])
TARGETS = np.array([True, True, False, True])
W0, B0 = np.array([0.3, -0.2, 0.5]), 0.1


def loss(W, b):
    preds = predict(W, b, INPUTS)
    label_probs = preds * TARGETS + (1 - preds) * (1 - TARGETS)
    return -jnp.sum(jnp.log(label_probs))


def numpy_loss(W, b):
    preds = 1.0 / (1.0 + np.exp(-(INPUTS @ W + b)))
    return -np.sum(np.log(preds * TARGETS + (1 - preds) * (1 - TARGETS)))


def central_difference(fun, x, eps=1e-6):
    x = np.asarray(x, float)
    out = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step.flat[i] = eps
        out.append((fun(x + step) - fun(x - step)) / (2 * eps))
    return np.array(out).reshape(x.shape)


def test_logistic_regression_gradients_by_argnums():
    W_grad = grad(loss, argnums=0)(W0, B0)
    b_grad = grad(loss, 1)(W0, B0)
    W_grad2, b_grad2 = grad(loss, (0, 1))(W0, B0)
    np.testing.assert_allclose(W_grad, central_difference(lambda w: numpy_loss(w, B0), W0), rtol=1e-6)
    np.testing.assert_allclose(b_grad, central_difference(lambda b: numpy_loss(W0, b), B0), rtol=1e-6)
    np.testing.assert_allclose(W_grad2, W_grad)
    np.testing.assert_allclose(b_grad2, b_grad)


def test_gradients_of_nested_containers():
    def loss2(params_dict):
        preds = predict(params_dict["W"], params_dict["b"], INPUTS)
        label_probs = preds * TARGETS + (1 - preds) * (1 - TARGETS)
        return -jnp.sum(jnp.log(label_probs))

    grads = grad(loss2)({"W": W0, "b": B0})
    assert sorted(grads) == ["W", "b"]
    np.testing.assert_allclose(grads["W"], grad(loss)(W0, B0))


def test_value_and_grad_and_has_aux():
    value, W_grad = jax.value_and_grad(loss)(W0, B0)
    np.testing.assert_allclose(value, numpy_loss(W0, B0))
    np.testing.assert_allclose(W_grad, grad(loss)(W0, B0))

    def loss_with_preds(W, b):
        preds = predict(W, b, INPUTS)
        return loss(W, b), preds

    W_grad, preds = grad(loss_with_preds, has_aux=True)(W0, B0)
    np.testing.assert_allclose(W_grad, grad(loss)(W0, B0))
    np.testing.assert_allclose(preds, 1.0 / (1.0 + np.exp(-(INPUTS @ W0 + B0))))


def test_jacobians_and_hessian_of_the_model():
    f = lambda W: predict(W, B0, INPUTS)  # noqa: E731
    J = jacfwd(f)(W0)
    np.testing.assert_allclose(J, jacrev(f)(W0), rtol=1e-12)
    assert J.shape == (4, 3)
    p = 1.0 / (1.0 + np.exp(-(INPUTS @ W0 + B0)))
    np.testing.assert_allclose(J, (p * (1 - p))[:, None] * INPUTS, rtol=1e-10)

    def hessian(f):
        return jacfwd(jacrev(f))

    H = hessian(lambda W: loss(W, B0))(W0)
    np.testing.assert_allclose(H, INPUTS.T @ np.diag(p * (1 - p)) @ INPUTS, rtol=1e-10)
    np.testing.assert_allclose(jax.hessian(lambda W: loss(W, B0))(W0), H, rtol=1e-12)


def test_hessian_vector_products_three_ways():
    def f(x):
        return jnp.sum(jnp.sin(x) * x ** 2)

    x, v = np.array([0.3, -1.2, 2.0]), np.array([1.0, 0.5, -2.0])
    exact = (2 * np.sin(x) + 4 * x * np.cos(x) - x ** 2 * np.sin(x)) * v

    def hvp_reverse_over_reverse(f, x, v):
        return grad(lambda x: jnp.sum(grad(f)(x) * v))(x)

    def hvp_forward_over_reverse(f, primals, tangents):
        return jax.jvp(grad(f), primals, tangents)[1]

    def hvp_reverse_over_forward(f, primals, tangents):
        g = lambda primals: jax.jvp(f, primals, tangents)[1]  # noqa: E731
        return grad(g)(primals)

    np.testing.assert_allclose(hvp_reverse_over_reverse(f, x, v), exact, rtol=1e-10)
    np.testing.assert_allclose(hvp_forward_over_reverse(f, (x,), (v,)), exact, rtol=1e-10)
    np.testing.assert_allclose(hvp_reverse_over_forward(f, (x,), (v,))[0], exact, rtol=1e-10)


def test_vjp_and_jvp_by_hand():
    def f(x):
        return jnp.sin(x) * 2.0

    x = np.array([0.1, 0.2])
    y, f_vjp = jax.vjp(f, x)
    (ct,) = f_vjp(np.ones(2))
    np.testing.assert_allclose(ct, 2 * np.cos(x))
    y2, tangent = jax.jvp(f, (x,), (np.ones(2),))
    np.testing.assert_allclose(y2, y)
    np.testing.assert_allclose(tangent, 2 * np.cos(x))
    y3, f_jvp = jax.linearize(f, x)
    np.testing.assert_allclose(f_jvp(np.ones(2)), tangent)


# ---------------------------------------------------------------------------
# vmap: automatic vectorization
# ---------------------------------------------------------------------------

def test_vmap_batched_matrix_vector_products():
    mat = np.arange(12.0).reshape(4, 3)
    batched_x = np.arange(15.0).reshape(5, 3)

    def apply_matrix(v):
        return jnp.dot(mat, v)

    expected = np.stack([mat @ v for v in batched_x])
    np.testing.assert_allclose(vmap(apply_matrix)(batched_x), expected)
    np.testing.assert_allclose(jit(vmap(apply_matrix))(batched_x), expected)
    np.testing.assert_allclose(vmap(jnp.dot, in_axes=(None, 0))(mat, batched_x), expected)
    np.testing.assert_allclose(vmap(apply_matrix, in_axes=1, out_axes=1)(batched_x.T), expected.T)


def test_per_example_gradients():
    def loss_single(W, b, x, y):
        pred = sigmoid(jnp.dot(x, W) + b)
        return -(y * jnp.log(pred) + (1 - y) * jnp.log(1 - pred))

    ys = TARGETS.astype(float)
    per_example = jit(vmap(grad(loss_single), in_axes=(None, None, 0, 0)))(W0, B0, INPUTS, ys)
    assert per_example.shape == (4, 3)
    for i in range(4):
        np.testing.assert_allclose(per_example[i], grad(loss_single)(W0, B0, INPUTS[i], ys[i]), rtol=1e-12)
    np.testing.assert_allclose(per_example.sum(axis=0), grad(loss)(W0, B0), rtol=1e-10)


# ---------------------------------------------------------------------------
# Custom derivative rules
# ---------------------------------------------------------------------------

def test_custom_jvp_log1pexp():
    @jax.custom_jvp
    def log1pexp(x):
        return jnp.log(1. + jnp.exp(x))

    @log1pexp.defjvp
    def log1pexp_jvp(primals, tangents):
        x, = primals
        x_dot, = tangents
        ans = log1pexp(x)
        ans_dot = (1 - 1 / (1 + jnp.exp(x))) * x_dot
        return ans, ans_dot

    np.testing.assert_allclose(grad(log1pexp)(100.), 1.0)
    np.testing.assert_allclose(jit(grad(log1pexp))(3.), 0.95257413, rtol=1e-7)
    np.testing.assert_allclose(vmap(jit(grad(log1pexp)))(np.arange(3.)), [0.5, 0.7310586, 0.8807971], rtol=1e-6)
    # The transpose of the rule (reverse mode) and the rule itself (forward mode) agree.
    np.testing.assert_allclose(jax.jacrev(log1pexp)(np.array([1000.0, 0.0])), np.diag([1.0, 0.5]))


def test_custom_jvp_defjvps_and_a_singularity():
    @jax.custom_jvp
    def f(x):
        return x / (1 + jnp.sqrt(x))

    f.defjvps(lambda t, ans, x: ((jnp.sqrt(x) + 2) / (2 * (jnp.sqrt(x) + 1) ** 2)) * t)
    np.testing.assert_allclose(grad(f)(0.), 1.0)
    np.testing.assert_allclose(grad(f)(4.), (2 + 2) / (2 * 9))


def test_custom_vjp_clip_gradient():
    @jax.custom_vjp
    def clip_gradient(lo, hi, x):
        return x  # identity function

    def clip_gradient_fwd(lo, hi, x):
        return x, (lo, hi)  # save bounds as residuals

    def clip_gradient_bwd(res, g):
        lo, hi = res
        return (None, None, jnp.clip(g, lo, hi))  # use None to indicate zero cotangents for lo and hi

    clip_gradient.defvjp(clip_gradient_fwd, clip_gradient_bwd)

    def clipped_sin(x):
        return jnp.sin(clip_gradient(-0.75, 0.75, x))

    xs = np.linspace(-1.5, 1.5, 7)
    np.testing.assert_allclose(vmap(grad(clipped_sin))(xs), np.clip(np.cos(xs), -0.75, 0.75))


def test_stop_gradient_td_update():
    value_fn = lambda theta, state: jnp.dot(theta, state)  # noqa: E731
    theta = jnp.array([0.1, -0.1, 0.])
    s_tm1, r_t, s_t = jnp.array([1., 2., -1.]), jnp.array(1.), jnp.array([2., 1., 0.])

    def td_loss(theta, s_tm1, r_t, s_t):
        v_tm1 = value_fn(theta, s_tm1)
        target = r_t + value_fn(theta, s_t)
        return -0.5 * ((lax.stop_gradient(target) - v_tm1) ** 2)

    td_update = jax.grad(td_loss)
    np.testing.assert_allclose(td_update(theta, s_tm1, r_t, s_t), [1.2, 2.4, -1.2], rtol=1e-6)


# ---------------------------------------------------------------------------
# jit
# ---------------------------------------------------------------------------

def test_jit_with_static_arguments_and_block_until_ready():
    def f(x, neg):
        return -x if neg else x

    f_jit = jit(f, static_argnames="neg")
    np.testing.assert_allclose(f_jit(np.ones(2), neg=True), -np.ones(2))
    np.testing.assert_allclose(f_jit(np.ones(2), neg=False), np.ones(2))
    g_jit = jit(f, static_argnums=1)
    np.testing.assert_allclose(g_jit(np.ones(2), True), -np.ones(2))

    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * jnp.where(x > 0, x, alpha * jnp.exp(x) - alpha)

    x = np.linspace(-2.0, 2.0, 1000)
    out = jit(selu)(x).block_until_ready()
    np.testing.assert_allclose(out, 1.05 * np.where(x > 0, x, 1.67 * np.exp(x) - 1.67), rtol=1e-12)
    assert jax.block_until_ready({"y": out})["y"] is out


def test_fori_loop_and_cond():
    def body(i, carry):
        return carry + i

    np.testing.assert_allclose(jit(lambda x: lax.fori_loop(0, 10, body, x))(np.array(0.0)), 45.0)
    np.testing.assert_allclose(jit(lambda x: lax.cond(x > 0, jnp.sin, jnp.cos, x))(np.array(1.0)), np.sin(1.0))


# ---------------------------------------------------------------------------
# Pytrees
# ---------------------------------------------------------------------------

def test_tree_map_and_leaves():
    example_trees = [
        [1, "a", object()],
        (1, (2, 3), ()),
        [1, {"k1": 2, "k2": (3, 4)}, 5],
        {"a": 2, "b": (2, 3)},
        np.array([1, 2, 3]),
    ]
    counts = [len(tree_util.tree_leaves(t)) for t in example_trees]
    assert counts == [3, 3, 5, 3, 1]
    list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
    assert tree_util.tree_map(lambda x: x * 2, list_of_lists) == [[2, 4, 6], [2, 4], [2, 4, 6, 8]]
    assert tree_util.tree_map(lambda x, y: x + y, list_of_lists, list_of_lists) == \
        [[2, 4, 6], [2, 4], [2, 4, 6, 8]]


def init_mlp_params(layer_widths):
    rng = np.random.default_rng(0)
    return [dict(weights=rng.normal(size=(n_in, n_out)) * np.sqrt(2 / n_in), biases=np.ones(shape=(n_out,)))
            for n_in, n_out in zip(layer_widths[:-1], layer_widths[1:])]


def forward(params, x):
    *hidden, last = params
    for layer in hidden:
        x = jax.nn.relu(x @ layer["weights"] + layer["biases"])
    return x @ last["weights"] + last["biases"]


def mlp_loss(params, x, y):
    return jnp.mean((forward(params, x) - y) ** 2)


def test_mlp_training_loop_over_a_list_of_dicts():
    params = init_mlp_params([1, 32, 32, 1])
    assert tree_util.tree_map(lambda x: x.shape, params)[0] == {"biases": (32,), "weights": (1, 32)}
    LEARNING_RATE = 0.0001

    @jit
    def update(params, x, y):
        grads = grad(mlp_loss)(params, x, y)
        return tree_util.tree_map(lambda p, g: p - LEARNING_RATE * g, params, grads)

    xs = np.random.default_rng(1).normal(size=(128, 1))
    ys = xs ** 2
    first = float(mlp_loss(params, xs, ys))
    for _ in range(200):
        params = update(params, xs, ys)
    assert float(mlp_loss(params, xs, ys)) < first


class MyContainer:
    """A container class that is not a pytree until it is registered (the tutorial's example)."""

    def __init__(self, name: str, a, b, c):
        self.name, self.a, self.b, self.c = name, a, b, c


def flatten_MyContainer(container):
    flat_contents = [container.a, container.b, container.c]
    aux_data = container.name
    return flat_contents, aux_data


def unflatten_MyContainer(aux_data, flat_contents):
    return MyContainer(aux_data, *flat_contents)


tree_util.register_pytree_node(MyContainer, flatten_MyContainer, unflatten_MyContainer)


def test_registered_container_class():
    trees = [MyContainer("Alice", 1, 2, 3), MyContainer("Bob", 4, 5, 6)]
    assert tree_util.tree_leaves(trees) == [1, 2, 3, 4, 5, 6]
    doubled = tree_util.tree_map(lambda x: x * 2, trees)
    assert [(c.name, c.a, c.c) for c in doubled] == [("Alice", 2, 6), ("Bob", 8, 12)]

    def energy(box):
        return jnp.sum(box.a * box.b) + box.c

    box = MyContainer("box", np.array([1.0, 2.0]), np.array([3.0, 4.0]), np.array(0.5))
    g = grad(energy)(box)
    assert isinstance(g, MyContainer) and g.name == "box"
    np.testing.assert_allclose(g.a, box.b)
    np.testing.assert_allclose(g.b, box.a)
    np.testing.assert_allclose(g.c, 1.0)


@tree_util.register_dataclass
@dataclasses.dataclass
class Linear:
    weights: np.ndarray
    bias: np.ndarray
    activation: str = dataclasses.field(default="tanh", metadata=dict(static=True))


def test_registered_dataclass_through_jit_grad_and_vmap():
    layer = Linear(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([0.1, 0.2]))

    def apply(layer, x):
        y = x @ layer.weights + layer.bias
        return jnp.tanh(y) if layer.activation == "tanh" else y

    x = np.array([0.5, -0.5])
    np.testing.assert_allclose(jit(apply)(layer, x), np.tanh(x @ layer.weights + layer.bias))
    g = grad(lambda l, v: jnp.sum(apply(l, v)))(layer, x)
    assert isinstance(g, Linear) and g.activation == "tanh"
    d = 1 - np.tanh(x @ layer.weights + layer.bias) ** 2
    np.testing.assert_allclose(g.weights, np.outer(x, d))
    np.testing.assert_allclose(g.bias, d)
    batch = np.stack([x, 2 * x, 3 * x])
    np.testing.assert_allclose(vmap(apply, in_axes=(None, 0))(layer, batch),
                               np.tanh(batch @ layer.weights + layer.bias))


@pytest.mark.parametrize("transform", ["jit", "grad", "vmap"])
def test_tree_flatten_round_trip_of_results(transform):
    params = {"w": np.array([1.0, 2.0]), "layers": [(np.array(3.0), None)]}
    leaves, treedef = tree_util.tree_flatten(params)
    assert tree_util.tree_unflatten(treedef, leaves)["layers"][0][1] is None
    assert treedef == tree_util.tree_structure(params)
    fun = {"jit": jit(lambda p: p), "grad": grad(lambda p: jnp.sum(p["w"]) * p["layers"][0][0]),
           "vmap": vmap(lambda p: p, in_axes=None, axis_size=2)}[transform]
    assert tree_util.tree_structure(fun(params)) == treedef
