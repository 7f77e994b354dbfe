"""``vmap``: checked against a Python loop over the rows, for every op family, and composed.

Each case maps a function over the leading axis of some arguments (others
broadcast) and compares with stacking ``jit(f)`` applied row by row. Then
in_axes/out_axes placements, nested vmap, vmap of grad (per-example
gradients), grad of vmap, jit of both, control flow with batched and
unbatched predicates, and errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorad as ta
import tensorad.lax as lax
import tensorad.nn as nn
import tensorad.numpy as tnp

RNG = np.random.default_rng(1)
B = 3


def _loop(f, args, in_axes):
    """The reference: ``f`` row by row, results stacked along axis 0."""
    jitted = ta.jit(f)
    rows = []
    for i in range(B):
        rows.append(jitted(*[a if ax is None else np.take(a, i, axis=ax) for a, ax in zip(args, in_axes)]))
    if isinstance(rows[0], tuple):
        return tuple(np.stack(parts) for parts in zip(*rows))
    return np.stack(rows)


def _normal(*shape):
    return RNG.normal(size=shape)


# (name, function, args (batched along in_axes), in_axes)
CASES = [
    ("elementwise", lambda x, y: tnp.tanh(x) * y + tnp.exp(-x) / (1.0 + y * y), (_normal(B, 4), _normal(B, 4)), (0, 0)),
    ("elementwise_broadcast", lambda x, y: tnp.maximum(x, y) - 2.0 * x, (_normal(B, 4), _normal(4)), (0, None)),
    ("compare_where", lambda x, y: tnp.where(x > y, x, y * 0.5), (_normal(B, 4), _normal(B, 4)), (0, 0)),
    ("integer", lambda x: (x * 3) % 5 + x // 2, (RNG.integers(0, 9, (B, 4)),), (0,)),
    ("reshape_transpose", lambda x: tnp.transpose(tnp.reshape(x, (2, 6)), (1, 0)) * 1.0, (_normal(B, 3, 4),), (0,)),
    ("slice_concat", lambda x, y: tnp.concatenate([x[1:3], y[::2]], axis=0), (_normal(B, 4, 2), _normal(4, 2)), (0, None)),
    ("broadcast_expand", lambda x: tnp.broadcast_to(tnp.expand_dims(x, 0), (2, 4)) + 1.0, (_normal(B, 4),), (0,)),
    ("reductions", lambda x: (tnp.sum(x, axis=1), tnp.max(x, axis=0), tnp.mean(x)), (_normal(B, 3, 4),), (0,)),
    ("argmax", lambda x: tnp.argmax(x, axis=1), (_normal(B, 3, 4),), (0,)),
    ("matmul_both", lambda x, w: x @ w, (_normal(B, 2, 3), _normal(B, 3, 4)), (0, 0)),
    ("matmul_lhs", lambda x, w: x @ w, (_normal(B, 2, 3), _normal(3, 4)), (0, None)),
    ("matmul_rhs", lambda x, w: x @ w, (_normal(2, 3), _normal(B, 3, 4)), (None, 0)),
    ("matvec_dot", lambda a, v: tnp.dot(a, v) + tnp.dot(v, v), (_normal(4, 4), _normal(B, 4)), (None, 0)),
    ("softmax_layer_norm", lambda x: nn.softmax(x) + nn.layer_norm(x), (_normal(B, 2, 5),), (0,)),
    ("conv_pool", lambda x, w: nn.max_pool2d(nn.conv2d(x, w, padding=1), 2), (_normal(B, 1, 2, 6, 6), _normal(3, 2, 3, 3)),
     (0, None)),
    ("take_embedding", lambda t, i: nn.embedding(i, t), (_normal(B, 5, 3), RNG.integers(0, 5, (4,))), (0, None)),
    ("cross_entropy", lambda z, y: nn.cross_entropy(z, y), (_normal(B, 4, 5), RNG.integers(0, 5, (B, 4))), (0, 0)),
    ("stop_gradient_checkpoint", lambda x: ta.checkpoint(lambda h: tnp.sin(ta.stop_gradient(h) * h))(x),
     (_normal(B, 4),), (0,)),
    ("fori_loop_batched_carry", lambda x, w: lax.fori_loop(0, 3, lambda i, h: tnp.tanh(h @ w), x),
     (_normal(B, 4), _normal(4, 4)), (0, None)),
    ("fori_loop_carry_becomes_batched", lambda x: lax.fori_loop(0, 3, lambda i, h: h * 0.5 + x, tnp.zeros(4)),
     (_normal(B, 4),), (0,)),
    ("cond_unbatched_predicate", lambda x, p: lax.cond(p, lambda v: v * 2.0, lambda v: v - 1.0, x),
     (_normal(B, 4), np.array(True)), (0, None)),
    ("cond_batched_predicate", lambda x: lax.cond(tnp.sum(x) > 0, lambda v: tnp.sqrt(v * v + 1.0), lambda v: -v, x),
     (_normal(B, 4),), (0,)),
    ("while_loop_batched", lambda x: lax.while_loop(lambda c: c[0] < 10.0, lambda c: (c[0] * 2.0 + 1.0, c[1] + 1),
                                                    (x, np.int32(0))),
     (np.abs(_normal(B)) + 0.1,), (0,)),
    ("while_loop_unbatched_predicate", lambda x, n: lax.while_loop(lambda c: c[1] < n, lambda c: (c[0] * 1.5, c[1] + 1),
                                                                   (x, 0))[0],
     (_normal(B, 2), np.int32(3)), (0, None)),
    ("while_loop_trip_count_per_row", lambda x, n: lax.while_loop(lambda c: c[1] < n, lambda c: (c[0] * 1.5, c[1] + 1),
                                                                  (x, 0))[0],
     (_normal(2), np.array([0, 1, 4], np.int32)), (None, 0)),
    ("scalar_element", lambda x: x[1, 2] * x, (_normal(B, 3, 4),), (0,)),
    ("nested_jit_call", lambda x: ta.jit(lambda y: tnp.cos(y) * y)(x) + 1.0, (_normal(B, 4),), (0,)),
]


@pytest.mark.parametrize("name,f,args,in_axes", CASES, ids=[c[0] for c in CASES])
def test_vmap_matches_a_loop_over_rows(name, f, args, in_axes):
    got = ta.vmap(f, in_axes=in_axes)(*args)
    want = _loop(f, args, in_axes)
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


def test_in_axes_and_out_axes_move_the_mapped_axis():
    x, w = _normal(4, B), _normal(4, 2)
    got = ta.vmap(lambda col, w: col @ w, in_axes=(1, None), out_axes=1)(x, w)
    np.testing.assert_allclose(got, np.stack([x[:, i] @ w for i in range(B)], axis=1), rtol=1e-12)
    pair = ta.vmap(lambda a: (a * 2.0, tnp.sum(a)), out_axes=(1, 0))(_normal(B, 2))
    assert pair[0].shape == (2, B) and pair[1].shape == (B,)


def test_in_axes_may_be_a_pytree():
    params = {"w": _normal(3, 2), "b": _normal(2)}
    xs = _normal(B, 3)
    got = ta.vmap(lambda p, x: x @ p["w"] + p["b"], in_axes=({"w": None, "b": None}, 0))(params, xs)
    np.testing.assert_allclose(got, xs @ params["w"] + params["b"], rtol=1e-12)


def test_nested_vmap_is_an_outer_product_of_maps():
    x, y = _normal(2, 4), _normal(3, 4)
    pairwise = ta.vmap(ta.vmap(lambda a, b: tnp.sum(a * b), in_axes=(None, 0)), in_axes=(0, None))
    np.testing.assert_allclose(pairwise(x, y), x @ y.T, rtol=1e-12)


def _loss(w, x, y):
    return tnp.sum((tnp.tanh(x @ w) - y) ** 2)


def test_per_example_gradients_jit_vmap_grad():
    w, xs, ys = _normal(3, 2), _normal(5, 3), _normal(5, 2)
    per_example = ta.jit(ta.vmap(ta.grad(_loss), in_axes=(None, 0, 0)))
    got = per_example(w, xs, ys)
    want = np.stack([ta.grad(_loss)(w, x, y) for x, y in zip(xs, ys)])
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_grad_of_vmap_sums_the_rows_gradients():
    w, xs, ys = _normal(3, 2), _normal(5, 3), _normal(5, 2)
    total = ta.grad(lambda w: tnp.sum(ta.vmap(_loss, in_axes=(None, 0, 0))(w, xs, ys)))
    want = sum(ta.grad(_loss)(w, x, y) for x, y in zip(xs, ys))
    np.testing.assert_allclose(total(w), want, rtol=1e-10)


def test_jacobian_rows_by_vmap_of_vjp_match_jacrev():
    f = lambda x: tnp.sin(x) * tnp.sum(x)  # noqa: E731
    x = _normal(4)
    rows = ta.vmap(lambda e: ta.vjp(f, x)[1](e)[0])(np.eye(4))
    np.testing.assert_allclose(rows, ta.jacrev(f)(x), rtol=1e-12)


def test_axis_size_without_mapped_arguments_repeats_the_result():
    got = ta.vmap(lambda x: x * 2.0, in_axes=None, axis_size=3)(np.ones(2))
    np.testing.assert_array_equal(got, np.full((3, 2), 2.0))


def test_mismatched_sizes_and_bad_axes_are_errors():
    with pytest.raises(ValueError, match="differ in size"):
        ta.vmap(lambda a, b: a + b)(np.ones((2, 3)), np.ones((3, 3)))
    with pytest.raises(ValueError, match="out of range"):
        ta.vmap(lambda a: a, in_axes=3)(np.ones((2, 3)))
    with pytest.raises(ValueError, match="one entry per argument"):
        ta.vmap(lambda a, b: a, in_axes=(0,))(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="needs a function"):
        ta.vmap(3)


def test_an_unmapped_output_that_depends_on_a_mapped_input_is_refused():
    with pytest.raises(ta.CompileError, match="out_axes entry is -1"):
        ta.vmap(lambda a: a * 2.0, out_axes=None)(np.ones((2, 3)))


def _doubling_while(x):
    return lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x)


def test_while_loop_with_a_batched_predicate_is_a_masked_loop():
    """One loop runs until every row is done; rows done early keep their value (no loop over rows)."""
    lowered = ta.jit(ta.vmap(_doubling_while)).lower(np.ones(4)).as_text("differentiated")
    assert lowered.count("scf.while") == 1 and "scf.for" not in lowered
    xs = np.array([1.0, 3.0, 20.0, 0.7])
    np.testing.assert_array_equal(ta.vmap(_doubling_while)(xs), [16.0, 12.0, 20.0, 11.2])


def test_derivatives_of_a_batched_while_loop():
    xs = np.array([1.0, 3.0, 20.0, 0.7])
    per_row = [float(ta.grad(_doubling_while)(x)) for x in xs]
    np.testing.assert_array_equal(per_row, [16.0, 4.0, 1.0, 16.0])
    np.testing.assert_array_equal(ta.grad(lambda x: ta.vmap(_doubling_while)(x).sum())(xs), per_row)
    np.testing.assert_array_equal(ta.vmap(ta.grad(_doubling_while))(xs), per_row)
    np.testing.assert_array_equal(ta.jacfwd(ta.vmap(_doubling_while))(xs), np.diag(per_row))


def _cnn_loss(w, x, y):
    h = nn.avg_pool2d(tnp.tanh(nn.conv2d(x, w, padding=1)), 2)
    return tnp.sum((nn.max_pool2d(h, 1) - y) ** 2)


def test_convolution_and_pooling_fold_the_rows_into_the_image_batch():
    """No loop over rows: the mapped rows become more images of the batch dimension."""
    w, xs = _normal(3, 2, 3, 3), _normal(B, 2, 2, 6, 6)
    lowered = ta.jit(ta.vmap(lambda x: nn.max_pool2d(nn.conv2d(x, w, padding=1), 2))).lower(xs).as_text(
        "differentiated")
    assert "scf.for" not in lowered and lowered.count('"tad.conv2d"') == 1
    np.testing.assert_allclose(ta.vmap(lambda x: nn.max_pool2d(nn.conv2d(x, w, padding=1), 2))(xs),
                               _loop(lambda x: nn.max_pool2d(nn.conv2d(x, w, padding=1), 2), (xs,), (0,)),
                               rtol=1e-12)


def test_per_example_gradients_of_a_small_cnn():
    w, xs, ys = _normal(3, 2, 3, 3), _normal(B, 1, 2, 6, 6), _normal(B, 1, 3, 3, 3)
    per_example = ta.jit(ta.vmap(ta.grad(_cnn_loss), in_axes=(None, 0, 0)))(w, xs, ys)
    want = np.stack([ta.grad(_cnn_loss)(w, x, y) for x, y in zip(xs, ys)])
    np.testing.assert_allclose(per_example, want, rtol=1e-10)


def _rows_while(x):
    """A while loop whose trip count depends on the row: 1.3 ** k * x crosses 2 after its own k steps."""
    return lax.while_loop(lambda s: tnp.sum(tnp.abs(s[1])) < 2.0,
                          lambda s: (s[0] + 1, s[1] * 1.3 + tnp.sin(s[1]) * 0.1), (0, x))[1]


@pytest.mark.parametrize("in_axes,out_axes", [(0, 0), (1, -1)])
def test_vmap_of_grad_through_a_while_loop_maps_the_derivative_row_by_row(in_axes, out_axes):
    # Fuzzer finding: the derivative of a while loop keeps a tape of dynamic length (each row may
    # take its own number of steps), which cannot be stacked; the batched derivative loops over rows.
    grad = ta.grad(lambda x: tnp.sum(_rows_while(x) ** 2))
    xs = np.stack([np.full(2, 0.1), np.full(2, 0.4), np.full(2, 0.8)], axis=in_axes)
    got = ta.vmap(grad, in_axes=in_axes, out_axes=out_axes)(xs)
    want = np.stack([grad(np.take(xs, i, axis=in_axes)) for i in range(B)], axis=out_axes)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    scalar = ta.grad(lambda x: lax.while_loop(lambda s: s[0] < 2, lambda s: (s[0] + 1, s[1] * 0.9 + tnp.sin(s[1])),
                                              (0, x))[1])
    np.testing.assert_allclose(ta.vmap(scalar)(xs[0]), [scalar(x) for x in xs[0]], rtol=1e-12)


def _batch_ir(out_axes: str, unmapped_type: str) -> str:
    from mlir import ir
    from tensorad.dialects import make_context
    from tensorad.passes.registry import run_pipeline

    module = ir.Module.parse(f'''
        func.func @f(%x: tensor<3xf64>) -> (tensor<3xf64>, tensor<f64>) {{
          %d = tensor.cast %x : tensor<3xf64> to tensor<?xf64>
          %y = tensor.cast %d : tensor<?xf64> to tensor<3xf64>
          %c = "tad.constant"() {{value = 1.0 : f64}} : () -> tensor<f64>
          return %y, %c : tensor<3xf64>, tensor<f64>
        }}
        func.func private @f_vmap(tensor<3x2xf64>) -> (tensor<2x3xf64>, {unmapped_type})
            attributes {{tad.vmap = {{of = @f, in_axes = array<i64: 1>, out_axes = array<i64: 0, {out_axes}>}}}}''',
        make_context())
    run_pipeline(module, "tad-batch")
    return str(module)


def test_a_value_of_dynamic_shape_batches_the_function_row_by_row():
    text = _batch_ir("0", "tensor<2xf64>")
    assert "func.call @f(%extracted_slice)" in text and "scf.for" in text
    # Row by row, an unmapped result cannot be checked to be unmapped: refused, not guessed.
    with pytest.raises(Exception, match="cannot stack results of type tensor<\\?xf64> of 'tensor.cast'.*out_axes -1"):
        _batch_ir("-1", "tensor<f64>")
