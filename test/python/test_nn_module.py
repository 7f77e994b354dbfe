"""tensorad.nn.Module (MindSpore's Cell), its layers, and MindSpore's vjp/grad with weights=.

MindSpore's own examples (``x**3 + y`` with a cotangent, ``has_aux``, the
weights of a two-layer net) are written here in our own words and checked
against float64 finite differences.
"""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import nn, optim, tree_util

RNG = np.random.default_rng(1)


class TwoLayer(nn.Cell):
    def __init__(self, seed=0):
        super().__init__()
        self.fc1 = nn.Dense(3, 4, seed=seed)
        self.fc2 = nn.Dense(4, 2, seed=seed + 1)

    def construct(self, x):
        return self.fc2(tnp.tanh(self.fc1(x)))


def _numeric_gradient(f, parameter: nn.Parameter, eps=1e-6) -> np.ndarray:
    base = parameter.asnumpy()
    grad = np.zeros_like(base)
    for i in range(base.size):
        step = np.zeros(base.size)
        step[i] = eps
        parameter.set_data(base + step.reshape(base.shape))
        plus = float(f())
        parameter.set_data(base - step.reshape(base.shape))
        minus = float(f())
        grad.flat[i] = (plus - minus) / (2 * eps)
    parameter.set_data(base)
    return grad


# ----------------------------------------------------------------------------
# Modules and layers
# ----------------------------------------------------------------------------

def test_parameters_are_attributes_with_qualified_names():
    net = TwoLayer()
    names = [p.name for p in net.trainable_params()]
    assert names == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    net.fc1.bias_frozen = nn.Parameter(np.zeros(4), requires_grad=False)
    assert [p.name for p in net.untrainable_params()] == ["fc1.bias_frozen"]
    assert isinstance(net.fc1.weight, np.ndarray) and net.fc1.weight.shape == (4, 3)
    assert [name for name, _ in net.cells_and_names()] == ["", "fc1", "fc2"]
    with pytest.raises(ValueError, match="set_data"):
        net.trainable_params()[0].set_data(np.zeros((2, 2)))


def test_a_module_is_a_pytree_that_jit_and_grad_take():
    net = TwoLayer()
    leaves, treedef = tree_util.tree_flatten(net)
    assert len(leaves) == 4 and all(isinstance(leaf, np.ndarray) for leaf in leaves)
    rebuilt = tree_util.tree_unflatten(treedef, [leaf * 2 for leaf in leaves])
    np.testing.assert_array_equal(rebuilt.fc2.bias, net.fc2.bias * 2)
    x = RNG.standard_normal((5, 3))
    np.testing.assert_allclose(ta.jit(lambda m, x: m(x))(net, x), net(x), rtol=1e-12)
    grads = ta.grad(lambda m, x: (m(x) ** 2).sum())(net, x)
    assert type(grads) is TwoLayer
    for parameter, grad in zip(net.trainable_params(), grads.trainable_params()):
        numeric = _numeric_gradient(lambda: (net(x) ** 2).sum(), parameter)
        np.testing.assert_allclose(grad.asnumpy(), numeric, rtol=1e-6, atol=1e-8)


def test_layers_match_their_functional_forms():
    x = RNG.standard_normal((2, 3, 5, 5))
    conv = nn.Conv2d(3, 4, 3, pad_mode="same", has_bias=True, seed=0)
    np.testing.assert_allclose(conv(x), ta.jit(lambda x, w, b: nn.conv2d(x, w, b, padding=1))(
        x, conv.weight, conv.bias), rtol=1e-12)
    valid = nn.Conv2d(3, 2, 2, stride=2, pad_mode="valid", seed=1)
    assert valid(x).shape == (2, 2, 2, 2)
    norm = nn.LayerNorm((5, 5))
    ref = (x - x.mean(axis=(2, 3), keepdims=True)) / np.sqrt(x.var(axis=(2, 3), keepdims=True) + 1e-7)
    np.testing.assert_allclose(norm(x), ref, rtol=1e-9)
    table = nn.Embedding(6, 3, seed=2)
    np.testing.assert_array_equal(table(np.array([[5, 0]])), table.embedding_table[[[5, 0]]])
    seq = nn.SequentialCell([nn.Flatten(), nn.Dense(75, 2, seed=3), nn.ReLU()])
    np.testing.assert_allclose(seq(x), np.maximum(x.reshape(2, -1) @ seq[1].weight.T + seq[1].bias, 0),
                               rtol=1e-12)


# ----------------------------------------------------------------------------
# MindSpore's vjp / grad
# ----------------------------------------------------------------------------

class Cube(nn.Cell):
    def construct(self, x, y):
        return x ** 3 + y


def test_vjp_of_a_cell_with_a_cotangent():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    out, vjp_fn = ta.vjp(Cube(), x, x)
    np.testing.assert_array_equal(out, [[2.0, 10.0], [30.0, 68.0]])
    dx, dy = vjp_fn(np.ones((2, 2)))
    np.testing.assert_array_equal(dx, [[3.0, 12.0], [27.0, 48.0]])
    np.testing.assert_array_equal(dy, np.ones((2, 2)))


def test_vjp_with_aux_returns_it_undifferentiated():
    def fn(x, y):
        return x ** 3 + y, y * 2.0

    x = np.array([1.0, 2.0])
    out, vjp_fn, aux = ta.vjp(fn, x, x, has_aux=True)
    np.testing.assert_array_equal(aux, x * 2.0)
    np.testing.assert_array_equal(vjp_fn(np.ones(2))[0], 3 * x ** 2)


def test_vjp_with_the_weights_of_a_two_layer_net_matches_finite_differences():
    net = TwoLayer(seed=4)
    x, v = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    weights = net.trainable_params()
    out, vjp_fn = ta.vjp(net, x, weights=weights)
    (dx,), weight_grads = vjp_fn(v)
    assert len(weight_grads) == 4
    for parameter, grad in zip(weights, weight_grads):
        numeric = _numeric_gradient(lambda: np.sum(v * net(x)), parameter)
        np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)
    numeric_x = np.array([(np.sum(v * net(x + e)) - np.sum(v * net(x - e))) / 2e-6
                          for e in np.eye(15).reshape(15, 5, 3) * 1e-6]).reshape(5, 3)
    np.testing.assert_allclose(dx, numeric_x, rtol=1e-6, atol=1e-8)
    # The weights are arguments of the compiled code: a new value is read on the next call.
    weights[3].set_data(weights[3].asnumpy() + 1.0)
    np.testing.assert_allclose(ta.vjp(net, x, weights=weights)[0], net(x), rtol=1e-12)


def test_grad_with_positions_weights_aux_and_ids():
    net = TwoLayer(seed=6)
    x, target = RNG.standard_normal((4, 3)), RNG.standard_normal((4, 2))

    def forward(data, label):
        logits = net(data)
        return ((logits - label) ** 2).mean(), logits

    weights = net.trainable_params()
    (dx, weight_grads), logits = ta.grad(forward, grad_position=0, weights=weights, has_aux=True)(x, target)
    np.testing.assert_allclose(logits, net(x), rtol=1e-12)
    loss = lambda: ((net(x) - target) ** 2).mean()  # noqa: E731
    for parameter, grad in zip(weights, weight_grads):
        np.testing.assert_allclose(grad, _numeric_gradient(loss, parameter), rtol=1e-6, atol=1e-8)
    only_weights = ta.grad(forward, grad_position=None, weights=weights[0], has_aux=True)(x, target)[0]
    np.testing.assert_allclose(only_weights, weight_grads[0], rtol=1e-12)
    with_ids = ta.grad(forward, grad_position=(0, 1), weights=weights, has_aux=True, return_ids=True)(x, target)[0]
    assert [i for i, _ in with_ids[0]] == [0, 1]
    assert [name for name, _ in with_ids[1]] == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    (value, value_logits), (dx2, _) = ta.value_and_grad(forward, grad_position=0, weights=weights,
                                                         has_aux=True)(x, target)
    np.testing.assert_allclose(value, loss(), rtol=1e-12)
    np.testing.assert_allclose(dx2, dx, rtol=1e-12)


def test_a_parameter_outside_weights_that_changes_recompiles():
    net = TwoLayer(seed=8)
    x = RNG.standard_normal((2, 3))
    g = ta.grad(lambda data: net(data).sum(), grad_position=None, weights=[net.fc1.trainable_params()[0]])
    first = g(x)
    net.fc2.trainable_params()[0].set_data(net.fc2.weight * 3.0)  # read as a constant by the first compile
    np.testing.assert_allclose(g(x)[0], first[0] * 3.0, rtol=1e-12)


def test_jit_closing_over_a_module_recompiles_when_a_parameter_changes():
    net = TwoLayer(seed=9)
    x = RNG.standard_normal((2, 3))
    forward = ta.jit(lambda data: net(data))
    np.testing.assert_allclose(forward(x), net(x), rtol=1e-12)
    net.fc2.trainable_params()[1].set_data(np.full(2, 5.0))
    np.testing.assert_allclose(forward(x), net(x), rtol=1e-12)
    assert forward.cache_size == 1


def test_mindspore_argument_errors():
    net = TwoLayer()
    with pytest.raises(ValueError, match="both be None"):
        ta.grad(lambda x: net(x).sum(), return_ids=True)
    with pytest.raises(TypeError, match="nn.Parameter"):
        ta.vjp(net, np.ones((1, 3)), weights=[np.ones(2)])
    with pytest.raises(TypeError, match="two or more outputs"):
        ta.grad(lambda x: net(x).sum(), grad_position=0, has_aux=True)(np.ones((1, 3)))


# ----------------------------------------------------------------------------
# Training a module
# ----------------------------------------------------------------------------

def test_a_module_trains_with_optim_and_with_set_data():
    x = RNG.standard_normal((32, 3))
    y = np.stack([np.sin(x[:, 0]), x[:, 1] * x[:, 2]], axis=1)
    net = TwoLayer(seed=10)
    opt = optim.adam(0.05)
    state = opt.init(net)

    @ta.jit
    def step(net, state):
        loss, grads = ta.value_and_grad(lambda m: ((m(x) - y) ** 2).mean())(net)
        updates, state = opt.update(grads, state, net)
        return optim.apply_updates(net, updates), state, loss

    losses = []
    for _ in range(60):
        net, state, loss = step(net, state)
        losses.append(float(loss))
    assert losses[-1] < 0.3 * losses[0]
    # MindSpore's loop: gradients of the weights, written back with set_data.
    net2 = TwoLayer(seed=10)
    weights = net2.trainable_params()
    grad_fn = ta.value_and_grad(lambda: ((net2(x) - y) ** 2).mean(), grad_position=None, weights=weights)
    first = float(grad_fn()[0])
    for _ in range(60):
        loss, grads = grad_fn()
        for parameter, grad in zip(weights, grads):
            parameter.set_data(parameter.asnumpy() - 0.1 * grad)
    assert float(loss) < 0.5 * first
