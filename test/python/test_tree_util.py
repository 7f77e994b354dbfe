"""tensorad.tree_util: the pytree functions, user-registered nodes, and those nodes through every transformation.

Registered classes (a ``register_pytree_node`` class with and without aux data,
dataclasses registered by decorator and explicitly, with a static field) go in
and come out of jit, grad, value_and_grad, vjp, jvp, vmap, jacrev, checkpoint,
custom_vjp, eager calls and an optimizer step; numbers are checked against numpy.
"""

from __future__ import annotations

import collections
import dataclasses
import math

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax, optim
from tensorad import tree_util as tu


class Params:
    """A plain class registered with register_pytree_node, no aux data."""

    def __init__(self, w, b):
        self.w, self.b = w, b


tu.register_pytree_node(Params, lambda p: ((p.w, p.b), None), lambda _, children: Params(*children))


class Affine:
    """A registered class whose activation is aux data: static, part of the structure."""

    def __init__(self, w, b, activation: str):
        self.w, self.b, self.activation = w, b, activation

    def __call__(self, x):
        y = x @ self.w + self.b
        return tnp.tanh(y) if self.activation == "tanh" else tnp.maximum(y, 0.0)


tu.register_pytree_node(Affine, lambda a: ([a.w, a.b], a.activation),
                        lambda activation, children: Affine(*children, activation))


@tu.register_dataclass
@dataclasses.dataclass
class Layer:
    w: np.ndarray
    b: np.ndarray
    power: int = dataclasses.field(default=2, metadata=dict(static=True))


@dataclasses.dataclass(frozen=True)
class Scaled:
    value: np.ndarray
    scale: np.ndarray
    axis: int


tu.register_dataclass(Scaled, data_fields=["value", "scale"], meta_fields=["axis"])


@tu.register_dataclass
@dataclasses.dataclass
class Model:
    layers: list
    head: Params


RNG = np.random.default_rng(0)


def params(shape=(3, 2)):
    return Params(RNG.standard_normal(shape), RNG.standard_normal(shape[-1:]))


def assert_tree_close(got, want, **kw):
    """Same structure (aux data included) and close leaves."""
    got_leaves, got_def = tu.tree_flatten(got)
    want_leaves, want_def = tu.tree_flatten(want)
    assert got_def == want_def, f"{got_def} != {want_def}"
    for g, w in zip(got_leaves, want_leaves):
        np.testing.assert_allclose(g, w, **kw)


# ---------------------------------------------------------------- the functions


def test_leaves_structure_and_round_trip_of_nested_registered_nodes():
    tree = {"model": Model([Layer(1.0, 2.0), Layer(3.0, 4.0, power=3)], Params(5.0, 6.0)),
            "aff": Affine(7.0, 8.0, "relu"), "scaled": Scaled(9.0, 10.0, axis=1), "none": None}
    leaves, treedef = tu.tree_flatten(tree)
    # dict keys sorted: aff, model, none, scaled
    assert leaves == [7.0, 8.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 9.0, 10.0]
    assert tu.tree_leaves(tree) == leaves
    assert tu.tree_structure(tree) == treedef and treedef.num_leaves == 10
    rebuilt = tu.tree_unflatten(treedef, [x * 10 for x in leaves])
    assert isinstance(rebuilt["model"], Model) and isinstance(rebuilt["model"].head, Params)
    assert rebuilt["model"].layers[1] == Layer(30.0, 40.0, power=3)
    assert rebuilt["aff"].activation == "relu" and rebuilt["aff"].b == 80.0
    assert rebuilt["scaled"] == Scaled(90.0, 100.0, axis=1) and rebuilt["none"] is None
    assert treedef.unflatten(leaves)["model"].layers[0] == Layer(1.0, 2.0)
    assert tu.tree_flatten(rebuilt)[1] == treedef


def test_repr_shows_the_structure():
    assert repr(tu.tree_structure((1, {"a": 2}))) == "PyTreeDef((*, {'a': *}))"
    assert repr(tu.tree_structure([None, (1,), ()])) == "PyTreeDef([None, (*,), ()])"
    Point = collections.namedtuple("Point", "x y")
    assert repr(tu.tree_structure(Point(1, [2]))) == "PyTreeDef(Point(x=*, y=[*]))"
    assert repr(tu.tree_structure(Affine(1, 2, "tanh"))) == "PyTreeDef(CustomNode(Affine['tanh'], [*, *]))"
    assert repr(tu.tree_structure(Layer(1, 2))) == "PyTreeDef(CustomNode(Layer[(2,)], [*, *]))"
    assert repr(tu.tree_structure(5)) == "PyTreeDef(*)"


def test_dict_keys_in_sorted_order_and_insertion_order_for_ordered_dict():
    assert tu.tree_leaves({"b": 1, "a": 2, "c": 3}) == [2, 1, 3]
    # Same keys in another insertion order: the same structure.
    assert tu.tree_structure({"b": 1, "a": 2}) == tu.tree_structure({"a": 0, "b": 0})
    ordered = collections.OrderedDict([("b", 1), ("a", 2)])
    leaves, treedef = tu.tree_flatten(ordered)
    assert leaves == [1, 2]
    rebuilt = tu.tree_unflatten(treedef, [10, 20])
    assert type(rebuilt) is collections.OrderedDict and list(rebuilt.items()) == [("b", 10), ("a", 20)]
    counts = collections.defaultdict(list, {"y": 1, "x": 2})
    leaves, treedef = tu.tree_flatten(counts)
    rebuilt = tu.tree_unflatten(treedef, [3, 4])
    assert leaves == [2, 1] and rebuilt == {"x": 3, "y": 4} and rebuilt.default_factory is list
    with pytest.raises(TypeError, match="sortable"):
        tu.tree_flatten({1: "a", "b": 2})


def test_none_is_a_node_without_leaves_unless_is_leaf_says_so():
    assert tu.tree_leaves([1, None, (None, 2)]) == [1, 2]
    assert tu.tree_structure(None).num_leaves == 0 and repr(tu.tree_structure(None)) == "PyTreeDef(None)"
    assert tu.tree_leaves([1, None], is_leaf=lambda x: x is None) == [1, None]
    assert tu.tree_map(lambda x: x * 2, {"a": None, "b": 3}) == {"a": None, "b": 6}
    assert tu.tree_map(lambda x: x is None, [1, None], is_leaf=lambda x: x is None) == [False, True]


def test_is_leaf_stops_the_descent():
    tree = [Params(1, 2), (3, 4)]
    assert tu.tree_leaves(tree, is_leaf=lambda x: isinstance(x, Params))[0].w == 1
    leaves, treedef = tu.tree_flatten(tree, is_leaf=lambda x: isinstance(x, tuple))
    assert leaves == [1, 2, (3, 4)] and treedef.num_leaves == 3
    doubled = tu.tree_map(lambda p: Params(p.w * 2, p.b) if isinstance(p, Params) else -p, tree,
                          is_leaf=lambda x: isinstance(x, Params))
    assert doubled[0].w == 2 and doubled[1] == (-3, -4)


def test_tree_map_with_several_trees():
    a = Model([Layer(1.0, 2.0)], Params(3.0, 4.0))
    b = Model([Layer(10.0, 20.0)], Params(30.0, 40.0))
    total = tu.tree_map(lambda x, y: x + y, a, b)
    assert total.layers[0] == Layer(11.0, 22.0) and (total.head.w, total.head.b) == (33.0, 44.0)
    # The other trees may hold subtrees where the first has leaves.
    assert tu.tree_map(lambda x, y: (x, y), [1, 2], [(3, 4), {"k": 5}]) == [(1, (3, 4)), (2, {"k": 5})]


@pytest.mark.parametrize("other", [
    [1, 2, 3],  # tuple wanted
    (1,),  # arity
    (1, {"b": 2}),  # dict keys
    (1, Layer(2, 3)),  # a registered node where a dict is
])
def test_tree_map_refuses_a_different_structure(other):
    with pytest.raises(ValueError, match="structure mismatch"):
        tu.tree_map(lambda x, y: x, (1, {"a": 2}), other)


def test_tree_map_refuses_different_aux_data():
    with pytest.raises(ValueError, match="structure mismatch"):
        tu.tree_map(lambda x, y: x, Affine(1, 2, "tanh"), Affine(1, 2, "relu"))
    with pytest.raises(ValueError, match="structure mismatch"):
        tu.tree_map(lambda x, y: x, Layer(1, 2, power=2), Layer(1, 2, power=3))


def test_treedef_equality_hash_and_accessors():
    one = tu.tree_structure(Model([Layer(1, 2)], Params(3, 4)))
    two = tu.tree_structure(Model([Layer(np.ones(2), 0)], Params("x", None)))
    assert one != two  # None is a node, not a leaf
    two = tu.tree_structure(Model([Layer(np.ones(2), 0)], Params("x", [])))
    assert one != two
    three = tu.tree_structure(Model([Layer(5, 6)], Params(7, 8)))
    assert one == three and hash(one) == hash(three) and len({one, three}) == 1
    assert one != tu.tree_structure(Model([Layer(5, 6, power=3)], Params(7, 8)))
    # 1, 1.0 and True compare equal but trace differently: different structures.
    assert tu.tree_structure(Layer(0, 0, power=1)) != tu.tree_structure(Layer(0, 0, power=1.0))
    assert tu.tree_structure(Layer(0, 0, power=1)) != tu.tree_structure(Layer(0, 0, power=True))
    assert one.num_nodes == 1 + (1 + 3) + 3  # Model, list of one Layer with 2 leaves, Params with 2
    assert [c.num_leaves for c in one.children()] == [2, 2]
    assert isinstance(one, tu.PyTreeDef) and one != "PyTreeDef"


def test_unflatten_checks_the_leaf_count():
    treedef = tu.tree_structure((1, Params(2, 3)))
    with pytest.raises(ValueError, match="takes 3 leaves, got 2"):
        tu.tree_unflatten(treedef, [1, 2])
    with pytest.raises(TypeError, match="TreeDef"):
        tu.tree_unflatten((1, 2), [1, 2])
    assert tu.tree_unflatten(treedef, iter([4, 5, 6]))[1].b == 6


def test_registering_a_class_twice_is_refused():
    with pytest.raises(ValueError, match="duplicate"):
        tu.register_pytree_node(Params, lambda p: ((), None), lambda _, c: Params(0, 0))
    with pytest.raises(ValueError, match="duplicate"):
        tu.register_dataclass(Layer)
    with pytest.raises(ValueError, match="duplicate"):
        tu.register_pytree_node(tuple, lambda t: (t, None), lambda _, c: tuple(c))
    with pytest.raises(TypeError, match="class"):
        tu.register_pytree_node(Params(1, 2), lambda p: ((), None), lambda _, c: None)


def test_unhashable_aux_data_is_refused_naming_the_class():
    class Holder:
        def __init__(self, x, options):
            self.x, self.options = x, options

    tu.register_pytree_node(Holder, lambda h: ((h.x,), h.options), lambda options, c: Holder(c[0], options))
    assert tu.tree_leaves(Holder(1.0, ("a",))) == [1.0]
    with pytest.raises(TypeError, match="Holder.*hashable"):
        tu.tree_flatten(Holder(1.0, ["a"]))
    with pytest.raises(TypeError, match="Holder.*hashable"):
        ta.jit(lambda h: h.x * 2)(Holder(np.ones(2), {"lr": 1}))


def test_a_flatten_function_must_return_a_pair():
    class Bad:
        pass

    tu.register_pytree_node(Bad, lambda b: [1, 2, 3], lambda aux, c: Bad())
    with pytest.raises(TypeError, match="Bad must return a pair"):
        tu.tree_leaves(Bad())


def test_subclasses_of_registered_classes_are_leaves():
    class SubParams(Params):
        pass

    assert tu.tree_structure(SubParams(1, 2)).num_leaves == 1


def test_register_dataclass_explicit_form_and_its_checks():
    class Plain:  # not a dataclass: rebuilt from keyword arguments
        def __init__(self, a, n):
            self.a, self.n = a, n

    tu.register_dataclass(Plain, data_fields=["a"], meta_fields=["n"])
    leaves, treedef = tu.tree_flatten(Plain(np.ones(2), 3))
    assert len(leaves) == 1 and tu.tree_unflatten(treedef, [5]).n == 3

    @dataclasses.dataclass
    class D:
        a: int
        b: int
        c: int = dataclasses.field(init=False, default=0)

    with pytest.raises(TypeError, match="both"):
        tu.register_dataclass(D, data_fields=["a", "b"])
    with pytest.raises(ValueError, match="every dataclass field with init=True"):
        tu.register_dataclass(D, data_fields=["a"], meta_fields=[])
    with pytest.raises(ValueError, match="twice"):
        tu.register_dataclass(D, data_fields=["a", "b"], meta_fields=["a"])
    with pytest.raises(TypeError, match="list of field names"):
        tu.register_dataclass(D, data_fields="ab", meta_fields=[])
    with pytest.raises(TypeError, match="not a dataclass"):
        tu.register_dataclass(type("Other", (), {}))
    assert tu.register_dataclass(D) is D  # init=False fields are left out
    assert tu.tree_leaves(D(1, 2)) == [1, 2]


def test_register_pytree_node_class():
    @tu.register_pytree_node_class
    class Box:
        def __init__(self, items, label):
            self.items, self.label = items, label

        def tree_flatten(self):
            return self.items, self.label

        @classmethod
        def tree_unflatten(cls, label, children):
            return cls(list(children), label)

    out = tu.tree_map(lambda x: x + 1, Box([1, 2], "l"))
    assert out.items == [2, 3] and out.label == "l"


def test_reachable_as_ta_tree_util():
    assert ta.tree_util.tree_map is tu.tree_map


# ---------------------------------------------------------------- through the transformations


def numpy_affine_loss(w, b, x):
    return np.sum(np.tanh(x @ w + b) ** 2)


def numpy_affine_grad(w, b, x):
    h = np.tanh(x @ w + b)
    dy = 2 * h * (1 - h ** 2)
    return x.T @ dy, dy.sum(axis=0)


def affine_loss(p, x):
    return tnp.sum(tnp.tanh(x @ p.w + p.b) ** 2)


X = RNG.standard_normal((4, 3))


def test_jit_takes_and_returns_registered_nodes():
    traces = []

    @ta.jit
    def f(model, scaled):
        traces.append(1)
        h = X
        for layer in model.layers:
            h = tnp.tanh(h @ layer.w + layer.b) ** layer.power
        out = h @ model.head.w + model.head.b
        return {"out": Scaled(out * scaled.scale, scaled.scale + 1, axis=scaled.axis),
                "head": Params(model.head.w * 2, None)}

    w1, b1, w2, b2 = RNG.standard_normal((3, 3)), RNG.standard_normal(3), RNG.standard_normal((3, 1)), np.ones(1)
    model = Model([Layer(w1, b1)], Params(w2, b2))
    got = f(model, Scaled(np.float64(2.0), np.float64(3.0), axis=0))
    want = (np.tanh(X @ w1 + b1) ** 2 @ w2 + b2) * 3.0
    assert isinstance(got["out"], Scaled) and got["out"].axis == 0
    np.testing.assert_allclose(got["out"].value, want)
    np.testing.assert_allclose(got["out"].scale, 4.0)
    assert isinstance(got["head"], Params) and got["head"].b is None
    np.testing.assert_allclose(got["head"].w, 2 * w2)
    # New leaves, same structure: no retrace.
    f(Model([Layer(w1 * 0, b1)], Params(w2, b2)), Scaled(np.float64(1.0), np.float64(3.0), axis=0))
    assert len(traces) == 1 and f.cache_size == 1
    # A static field is part of the signature: another value compiles anew, and means what it says.
    got = f(Model([Layer(w1, b1, power=3)], Params(w2, b2)), Scaled(np.float64(2.0), np.float64(3.0), axis=0))
    np.testing.assert_allclose(got["out"].value, (np.tanh(X @ w1 + b1) ** 3 @ w2 + b2) * 3.0)
    assert len(traces) == 2 and f.cache_size == 2
    got = f(model, Scaled(np.float64(2.0), np.float64(3.0), axis=1))
    assert got["out"].axis == 1 and f.cache_size == 3


def test_jit_signature_depends_on_aux_data():
    f = ta.jit(lambda a, x: a(x))
    w, b = RNG.standard_normal((3, 2)), RNG.standard_normal(2)
    np.testing.assert_allclose(f(Affine(w, b, "tanh"), X), np.tanh(X @ w + b))
    np.testing.assert_allclose(f(Affine(w, b, "relu"), X), np.maximum(X @ w + b, 0.0))
    assert f.cache_size == 2
    text = {act: f.lower(Affine(w, b, act), X).as_text("tad") for act in ("tanh", "relu")}
    assert "tanh" in text["tanh"] and "tanh" not in text["relu"]


def test_grad_comes_back_as_the_same_class():
    p = params()
    want_w, want_b = numpy_affine_grad(p.w, p.b, X)
    g = ta.grad(affine_loss)(p, X)
    assert isinstance(g, Params)
    np.testing.assert_allclose(g.w, want_w)
    np.testing.assert_allclose(g.b, want_b)
    layer = Layer(p.w, p.b, power=3)
    g = ta.jit(ta.grad(lambda l: tnp.sum(tnp.tanh(X @ l.w + l.b) ** l.power)))(layer)
    h = np.tanh(X @ p.w + p.b)
    dy = 3 * h ** 2 * (1 - h ** 2)
    assert isinstance(g, Layer) and g.power == 3
    np.testing.assert_allclose(g.w, X.T @ dy)
    np.testing.assert_allclose(g.b, dy.sum(axis=0))
    a = Affine(p.w, p.b, "tanh")
    g = ta.grad(lambda a: tnp.sum(a(X) ** 2))(a)
    assert isinstance(g, Affine) and g.activation == "tanh"
    np.testing.assert_allclose(g.w, want_w)


def test_value_and_grad_with_aux_returns_registered_nodes():
    p = params()

    def loss_and_stats(layer, x):
        h = tnp.tanh(x @ layer.w + layer.b)
        return tnp.sum(h ** layer.power), Scaled(tnp.mean(h), tnp.max(h), axis=-1)

    (value, stats), g = ta.value_and_grad(loss_and_stats, has_aux=True)(Layer(p.w, p.b), X)
    h = np.tanh(X @ p.w + p.b)
    np.testing.assert_allclose(value, numpy_affine_loss(p.w, p.b, X))
    assert isinstance(stats, Scaled) and stats.axis == -1
    np.testing.assert_allclose([stats.value, stats.scale], [h.mean(), h.max()])
    assert isinstance(g, Layer) and g.power == 2
    assert_tree_close(g, Layer(*numpy_affine_grad(p.w, p.b, X)))


def test_vjp_with_registered_primals_outputs_and_cotangents():
    p = params()
    out, vjp_fn = ta.vjp(lambda p: Layer(tnp.sin(p.w), p.b * p.b, power=5), p)
    assert_tree_close(out, Layer(np.sin(p.w), p.b ** 2, power=5))
    ct = Layer(RNG.standard_normal(p.w.shape), RNG.standard_normal(p.b.shape), power=5)
    (g,) = vjp_fn(ct)
    assert isinstance(g, Params)
    np.testing.assert_allclose(g.w, ct.w * np.cos(p.w))
    np.testing.assert_allclose(g.b, ct.b * 2 * p.b)


def test_jvp_with_registered_primals_and_tangents():
    p, t = params(), params()
    out, tangent = ta.jvp(lambda p: Affine(p.w * p.w, tnp.exp(p.b), "relu"), (p,), (t,))
    assert isinstance(out, Affine) and isinstance(tangent, Affine) and tangent.activation == "relu"
    np.testing.assert_allclose(out.w, p.w ** 2)
    np.testing.assert_allclose(tangent.w, 2 * p.w * t.w)
    np.testing.assert_allclose(tangent.b, np.exp(p.b) * t.b)
    # Against a central difference of the loss.
    eps = 1e-6
    _, dloss = ta.jvp(affine_loss, (p, X), (t, np.zeros_like(X)))
    fd = (numpy_affine_loss(p.w + eps * t.w, p.b + eps * t.b, X)
          - numpy_affine_loss(p.w - eps * t.w, p.b - eps * t.b, X)) / (2 * eps)
    np.testing.assert_allclose(dloss, fd, rtol=1e-6)


def test_vmap_over_registered_nodes():
    batch = Layer(RNG.standard_normal((5, 3, 2)), RNG.standard_normal((5, 2)), power=3)
    out = ta.vmap(lambda l, x: Params(tnp.sum(x @ l.w + l.b), l.b ** l.power), in_axes=(0, None))(batch, X)
    assert isinstance(out, Params)
    np.testing.assert_allclose(out.w, [np.sum(X @ batch.w[i] + batch.b[i]) for i in range(5)])
    np.testing.assert_allclose(out.b, batch.b ** 3)
    # in_axes as a pytree of the argument's structure: w batched, b shared.
    shared = Params(RNG.standard_normal((5, 3, 2)), RNG.standard_normal(2))
    out = ta.vmap(lambda p: p.w + p.b, in_axes=(Params(0, None),))(shared)
    np.testing.assert_allclose(out, shared.w + shared.b)


def test_jacrev_of_a_function_of_a_registered_node():
    p = Params(RNG.standard_normal((2, 3)), RNG.standard_normal(3))
    jac = ta.jacrev(lambda p: tnp.tanh(p.b @ p.w.T))(p)  # (2,) output
    assert isinstance(jac, Params) and jac.w.shape == (2, 2, 3) and jac.b.shape == (2, 3)
    dy = 1 - np.tanh(p.b @ p.w.T) ** 2
    want_w = np.zeros((2, 2, 3))
    for i in range(2):
        want_w[i, i] = dy[i] * p.b
    np.testing.assert_allclose(jac.w, want_w)
    np.testing.assert_allclose(jac.b, dy[:, None] * p.w)


def test_checkpoint_takes_and_returns_registered_nodes():
    p = params()

    @ta.checkpoint
    def block(layer, x):
        h = tnp.tanh(x @ layer.w + layer.b)
        return Scaled(h, tnp.sum(h ** layer.power), axis=0)

    g = ta.grad(lambda layer: block(layer, X).scale)(Layer(p.w, p.b))
    assert isinstance(g, Layer)
    assert_tree_close(g, Layer(*numpy_affine_grad(p.w, p.b, X)))


def test_custom_vjp_with_registered_arguments_and_results():
    @ta.custom_vjp
    def scale_layer(p, s):
        return Layer(p.w * s.scale, p.b, power=s.axis)

    def fwd(p, s):
        return Layer(p.w * s.scale, p.b, power=s.axis), s.scale

    def bwd(scale, ct):
        assert isinstance(ct, Layer) and ct.power == 4
        # Ten times the true cotangent of w: shows bwd is the one used.
        return Params(10 * ct.w * scale, ct.b), Scaled(tnp.zeros_like(scale), tnp.sum(ct.w), axis=4)

    scale_layer.defvjp(fwd, bwd)
    p, s = params(), Scaled(np.float64(1.0), np.float64(3.0), axis=4)
    out = scale_layer(p, s)
    assert isinstance(out, Layer) and out.power == 4
    np.testing.assert_allclose(out.w, 3 * p.w)
    def loss(p, s):
        out = scale_layer(p, s)
        return tnp.sum(out.w) + tnp.sum(out.b)

    gp, gs = ta.grad(loss, argnums=(0, 1))(p, s)
    assert isinstance(gp, Params) and isinstance(gs, Scaled) and gs.axis == 4
    np.testing.assert_allclose(gp.w, np.full(p.w.shape, 30.0))
    np.testing.assert_allclose(gp.b, np.ones(p.b.shape))
    np.testing.assert_allclose([gs.value, gs.scale], [0.0, p.w.size])


def test_eager_calls_on_registered_nodes():
    p = params()
    # tensorad.numpy on concrete arrays runs at once and gives numpy arrays.
    out = tu.tree_map(tnp.tanh, Layer(p.w, p.b))
    assert isinstance(out, Layer) and isinstance(out.w, np.ndarray)
    np.testing.assert_allclose(out.w, np.tanh(p.w))
    # Control flow with a registered carry, outside any jit.
    carry = lax.fori_loop(0, 3, lambda i, c: Layer(c.w * 2.0, c.b + c.w.sum(), power=c.power),
                          Layer(p.w, p.b, power=7))
    assert isinstance(carry, Layer) and carry.power == 7
    np.testing.assert_allclose(carry.w, 8 * p.w)
    np.testing.assert_allclose(carry.b, p.b + 7 * p.w.sum())
    # And the same loop compiled.
    jitted = ta.jit(lambda layer: lax.fori_loop(0, 3, lambda i, c: Layer(c.w * 2.0, c.b + c.w.sum(), c.power),
                                                layer))(Layer(p.w, p.b, power=7))
    assert_tree_close(jitted, carry)


def test_optimizer_step_over_a_dataclass_of_params():
    opt = optim.adam(0.1)
    layer = Layer(RNG.standard_normal((3, 2)), RNG.standard_normal(2))
    state = opt.init(layer)

    @ta.jit
    def step(layer, state):
        loss, grads = ta.value_and_grad(lambda l: tnp.sum(tnp.tanh(X @ l.w + l.b) ** 2))(layer)
        updates, state = opt.update(grads, state, layer)
        return optim.apply_updates(layer, updates), state, loss

    w, b = layer.w.copy(), layer.b.copy()
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(1, 4):
        layer, state, loss = step(layer, state)
        np.testing.assert_allclose(loss, numpy_affine_loss(w, b, X))
        grads = numpy_affine_grad(w, b, X)
        new = []
        for i, (x, g) in enumerate(zip((w, b), grads)):
            m[i] = 0.9 * m[i] + 0.1 * g
            v[i] = 0.999 * v[i] + 0.001 * g * g
            m_hat, v_hat = m[i] / (1 - 0.9 ** t), v[i] / (1 - 0.999 ** t)
            new.append(x - 0.1 * m_hat / (np.sqrt(v_hat) + 1e-8))
        w, b = new
        assert isinstance(layer, Layer) and layer.power == 2
        np.testing.assert_allclose(layer.w, w, rtol=1e-10)
        np.testing.assert_allclose(layer.b, b, rtol=1e-10)
    assert step.cache_size == 1
    # The same update run eagerly, on numpy arrays.
    eager_state = opt.init(Layer(w, b))
    updates, _ = opt.update(Layer(*numpy_affine_grad(w, b, X)), eager_state, Layer(w, b))
    assert isinstance(updates, Layer)
    np.testing.assert_allclose(updates.w, -0.1 * np.sign(numpy_affine_grad(w, b, X)[0]), rtol=1e-6)
    assert math.isclose(float(optim.global_norm(Layer(np.array([3.0]), np.array([4.0])))), 5.0)
