"""Convolution: ``conv2d`` and its backward ops, lowered and differentiated.

Checked four ways:

* the value against a numpy reference (the definition, one output pixel at a
  time) and against JAX's ``lax.conv_general_dilated``, and both gradients
  (the ops ``conv2d_backward_data`` and ``conv2d_backward_filter``) against
  ``jax.vjp`` of it, over stride 1/2, padding 0/1/asymmetric, dilation 1/2, groups
  1/2/depthwise, plus shapes the grid misses (a 1x1 kernel that skips pixels,
  a kernel larger than the input, more outputs than inputs per group, a
  depthwise multiplier, anisotropic attributes), in float32 and float64;
* every derivative rule with :func:`tensorad.test_util.check_grads` in float64:
  conv2d's over the whole grid, the backward ops' own rules on the ops
  themselves, second order (grad of grad);
* batched (co)tangents: ``jacrev``/``jacfwd`` of conv2d against the linear map
  they describe, and a Hessian through all three ops against finite
  differences of the gradient;
* the frontend's conventions (int, pair and 4-tuple arguments, bias, dtype
  promotion) and errors.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.dialects import builder as tad_ops
from tensorad.errors import TracingError
from tensorad.nn.conv import conv2d
from tensorad.test_util import check_grads
from tensorad.tracing import Tracer, emits_ops

RNG = np.random.default_rng(0)
DATA, OUT_CHANNELS, KERNEL = (2, 4, 7, 6), 4, (3, 2)  # odd/even and non-square: no H/W mix-up hides


def grid_case(stride, padding, dilation, groups):
    weight = (OUT_CHANNELS, DATA[1] // groups, *KERNEL)
    name = f"s{stride}-p{''.join(map(str, np.atleast_1d(padding)))}-d{dilation}-g{groups}"
    return pytest.param(DATA, weight, dict(stride=stride, padding=padding, dilation=dilation,
                                           groups=groups), id=name)


GRID = [grid_case(*combination) for combination in itertools.product(
    (1, 2), (0, 1, (1, 0, 2, 1)), (1, 2), (1, 2, DATA[1]))]
SPECIAL = [
    pytest.param((1, 3, 5, 5), (2, 3, 1, 1), dict(stride=2), id="1x1-stride2-skips-pixels"),
    pytest.param((1, 2, 3, 3), (2, 2, 5, 5), dict(padding=2), id="kernel-larger-than-input"),
    pytest.param((2, 4, 5, 5), (6, 2, 3, 3), dict(padding=1, groups=2), id="groups-6-from-4"),
    pytest.param((1, 3, 6, 6), (6, 1, 3, 3), dict(stride=2, padding=1, groups=3),
                 id="depthwise-multiplier-2"),
    pytest.param((1, 2, 9, 8), (3, 2, 2, 3), dict(stride=(1, 3), padding=(0, 2, 1, 0),
                                                  dilation=(2, 1)), id="anisotropic"),
]
CASES = GRID + SPECIAL


def pair(value) -> tuple:
    return (value, value) if isinstance(value, int) else tuple(value)


def sides(padding) -> tuple:
    """(top, left, bottom, right)."""
    padding = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
    return padding * 2 if len(padding) == 2 else padding


def conv2d_reference(x, w, stride=1, padding=0, dilation=1, groups=1):
    """The definition, one output pixel at a time.

    ``out[n, o, i, j] = sum_{c, k, l} x_padded[n, c, i*s + k*d, j*s + l*d] w[o, c, k, l]``,
    ``c`` running over the channels of ``o``'s group.
    """
    (sh, sw), (dh, dw) = pair(stride), pair(dilation)
    top, left, bottom, right = sides(padding)
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    o, cg, kh, kw = w.shape
    oh = (xp.shape[2] - dh * (kh - 1) - 1) // sh + 1
    ow = (xp.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((x.shape[0], o, oh, ow), np.result_type(x, w))
    rows, cols = np.arange(kh) * dh, np.arange(kw) * dw
    for f in range(o):
        group = f // (o // groups)
        channels = xp[:, group * cg:(group + 1) * cg]
        for i, j in itertools.product(range(oh), range(ow)):
            patch = channels[:, :, i * sh + rows][:, :, :, j * sw + cols]
            out[:, f, i, j] = np.einsum("nckl,ckl->n", patch, w[f])
    return out


def jax_conv2d(jax, x, w, stride=1, padding=0, dilation=1, groups=1):
    """JAX's convolution in conv2d's NCHW/OIHW layout, at full precision."""
    top, left, bottom, right = sides(padding)
    return jax.lax.conv_general_dilated(
        x, w, pair(stride), ((top, bottom), (left, right)), rhs_dilation=pair(dilation),
        dimension_numbers=("NCHW", "OIHW", "NCHW"), feature_group_count=groups,
        precision=jax.lax.Precision.HIGHEST)


def value_and_grads(vjp, jit, conv, kwargs):
    """``jit`` of ``(x, w, ct) -> (conv(x, w), (dx, dw))``, the pullback taken by ``vjp``."""
    def run(x, w, ct):
        out, pullback = vjp(lambda x, w: conv(x, w, **kwargs), x, w)
        return out, pullback(ct)

    return jit(run)


@functools.lru_cache(maxsize=None)
def jax_value_and_grads(jax, attributes: tuple):
    """JAX's ``value_and_grads`` for ``dict(attributes)``, jitted once (in the JAX worker)."""
    return value_and_grads(jax.vjp, jax.jit, functools.partial(jax_conv2d, jax), dict(attributes))


def jax_conv2d_and_grads(jax, attributes: tuple, x, w, ct):
    """``jax_value_and_grads`` at ``(x, w, ct)``; for ``jax_reference``."""
    return jax_value_and_grads(jax, attributes)(x, w, ct)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("data_shape, weight_shape, kwargs", CASES)
def test_conv2d_and_backward_ops_match_numpy_and_jax(jax_reference, data_shape, weight_shape,
                                                     kwargs, dtype):
    x = RNG.standard_normal(data_shape).astype(dtype)
    w = RNG.standard_normal(weight_shape).astype(dtype)
    want = conv2d_reference(x, w, **kwargs)
    ct = RNG.standard_normal(want.shape).astype(dtype)
    out, (dx, dw) = value_and_grads(ta.vjp, ta.jit, conv2d, kwargs)(x, w, ct)
    # JAX computes in float64 for both dtypes (one compilation per case): a
    # float32 result is compared with the exact one of its float32 inputs.
    theirs, (dx_want, dw_want) = jax_reference(jax_conv2d_and_grads, tuple(sorted(kwargs.items())),
                                               *(a.astype(np.float64) for a in (x, w, ct)))
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    assert out.dtype == dtype and out.shape == want.shape
    np.testing.assert_allclose(out, want, **tol, err_msg="value vs numpy")
    np.testing.assert_allclose(out, theirs, **tol, err_msg="value vs JAX")
    np.testing.assert_allclose(dx, dx_want, **tol, err_msg="backward_data vs JAX")
    np.testing.assert_allclose(dw, dw_want, **tol, err_msg="backward_filter vs JAX")


@pytest.mark.parametrize("data_shape, weight_shape, kwargs", CASES)
def test_conv2d_derivatives_match_finite_differences(data_shape, weight_shape, kwargs):
    x, w = RNG.standard_normal(data_shape), RNG.standard_normal(weight_shape)
    check_grads(lambda x, w: conv2d(x, w, **kwargs), (x, w))


# The backward ops called directly, with their attributes in the ops' own form.
ATTRS = [
    pytest.param(dict(strides=(1, 1), padding=(1, 1, 1, 1), dilation=(1, 1), groups=1), id="plain"),
    pytest.param(dict(strides=(2, 1), padding=(1, 0, 2, 1), dilation=(1, 2), groups=2),
                 id="strided-grouped"),
    pytest.param(dict(strides=(2, 2), padding=(0, 1, 0, 1), dilation=(1, 1), groups=4),
                 id="depthwise"),
]


@emits_ops
def backward_data(output_grad, weight, data_shape, attrs):
    return Tracer.of(tad_ops.conv2d_backward_data(output_grad.value, weight.value, data_shape,
                                                  **attrs))


@emits_ops
def backward_filter(output_grad, data, weight_shape, attrs):
    return Tracer.of(tad_ops.conv2d_backward_filter(output_grad.value, data.value, weight_shape,
                                                    **attrs))


def conv_operands(attrs):
    """Data, weight and an output gradient of matching shapes for ``attrs``, in float64."""
    x = RNG.standard_normal((2, 4, 6, 5))
    w = RNG.standard_normal((4, 4 // attrs["groups"], 3, 2))
    out_shape = conv2d_reference(x, w, attrs["strides"], attrs["padding"], attrs["dilation"],
                                 attrs["groups"]).shape
    return x, w, RNG.standard_normal(out_shape)


@pytest.mark.parametrize("attrs", ATTRS)
def test_backward_data_rules(attrs):
    x, w, dy = conv_operands(attrs)
    check_grads(lambda dy, w: backward_data(dy, w, x.shape, attrs), (dy, w))


@pytest.mark.parametrize("attrs", ATTRS)
def test_backward_filter_rules(attrs):
    x, w, dy = conv_operands(attrs)
    check_grads(lambda dy, x: backward_filter(dy, x, w.shape, attrs), (dy, x))


def test_second_order():
    # Grad of grad runs the rules of both backward ops, in both modes.
    x, w = RNG.standard_normal((1, 2, 5, 4)), RNG.standard_normal((4, 1, 2, 2))
    check_grads(lambda x, w: tnp.sin(conv2d(x, w, stride=2, padding=(1, 0, 0, 1), groups=2)),
                (x, w), order=2)


@pytest.mark.parametrize("argnum", [0, 1])
def test_jacobians_are_the_linear_maps(argnum):
    # conv2d is linear in each operand, so contracting its Jacobian with that
    # operand gives the value back; jacrev folds an identity cotangent's batch
    # prefix into the batch dim (data) or the grouped output channels (weight).
    x, w = RNG.standard_normal((2, 4, 5, 4)), RNG.standard_normal((6, 2, 3, 2))

    def f(x, w):
        return conv2d(x, w, stride=(2, 1), padding=1, groups=2)

    out = ta.jit(f)(x, w)
    reverse, forward = ta.jacrev(f, argnums=argnum)(x, w), ta.jacfwd(f, argnums=argnum)(x, w)
    operand = (x, w)[argnum]
    np.testing.assert_allclose(reverse, forward, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.tensordot(reverse, operand, axes=operand.ndim), out,
                               rtol=1e-12, atol=1e-12)


def test_hessian_through_all_three_ops():
    # One parameter vector holds data and weight, so the Hessian's batched
    # (co)tangents reach every operand of every op; both modes must agree with
    # finite differences of the (checked) gradient.
    x_shape, w_shape = (1, 2, 4, 4), (2, 1, 2, 2)
    n_x = int(np.prod(x_shape))

    def f(p):
        x, w = tnp.reshape(p[:n_x], x_shape), tnp.reshape(p[n_x:], w_shape)
        return tnp.sum(tnp.sin(conv2d(x, w, stride=2, padding=(1, 0, 0, 1), groups=2)))

    p = RNG.standard_normal(n_x + int(np.prod(w_shape)))
    grad = ta.jit(ta.grad(f))
    eps = 1e-6
    numeric = np.stack([(grad(p + eps * e) - grad(p - eps * e)) / (2 * eps)
                        for e in np.eye(p.size)])
    for hessian in (ta.jacfwd(ta.grad(f)), ta.jacrev(ta.grad(f))):
        np.testing.assert_allclose(hessian(p), numeric, rtol=1e-6, atol=1e-7)


def test_argument_conventions(jax_reference):
    x, w, bias = RNG.standard_normal((2, 4, 6, 6)), RNG.standard_normal((6, 4, 3, 3)), \
        RNG.standard_normal(6)
    run = ta.jit(lambda x, w, b: (conv2d(x, w, b, stride=2, padding=1, dilation=1),
                                  conv2d(x, w, b, stride=(2, 2), padding=(1, 1), dilation=(1, 1)),
                                  conv2d(x, w, b, stride=2, padding=(1, 1, 1, 1))))
    want = jax_reference(jax_conv2d, x, w, stride=2, padding=1) + bias[:, None, None]
    for got in run(x, w, bias):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_dtypes_promote_like_numpy():
    x, w = RNG.integers(-3, 4, (1, 2, 4, 4)), RNG.integers(-3, 4, (3, 2, 2, 2))
    as_ints = ta.jit(conv2d)(x, w)
    assert as_ints.dtype == np.int64
    np.testing.assert_array_equal(as_ints, conv2d_reference(x, w))
    mixed = ta.jit(conv2d)(x.astype(np.float32), w.astype(np.float64))
    assert mixed.dtype == np.float64


@pytest.mark.parametrize("call, message", [
    (lambda x: conv2d(x, np.ones((4, 2, 3, 3)), groups=3), "groups 3 must divide"),
    (lambda x: conv2d(x, np.ones((4, 2, 3, 3))), "weight has 2 input channels per group"),
    (lambda x: conv2d(x, np.ones((4, 4, 3, 3)), padding=(1, 2, 3)), "padding must be"),
    (lambda x: conv2d(x, np.ones((4, 4, 3, 3)), stride=(1, 2, 3)), "stride must be"),
    (lambda x: conv2d(x, np.ones((4, 4, 9, 9))), "larger than the padded input"),
    (lambda x: conv2d(x > 0, np.ones((4, 4, 3, 3), bool)), "booleans"),
])
def test_errors_name_the_users_line(call, message):
    with pytest.raises(TracingError, match=message) as err:
        ta.jit(call)(np.zeros((1, 4, 5, 5)))
    assert "test_nn_conv.py" in str(err.value)


def test_op_carries_the_users_line():
    def f(x, w):
        return conv2d(x, w)  # the location of this line is checked below

    line = f.__code__.co_firstlineno + 1
    text = ta.jit(f).lower(np.zeros((1, 1, 3, 3)), np.zeros((1, 1, 2, 2))).as_text(
        "tad", debug_info=True)
    assert f'test_nn_conv.py":{line}' in text


TIGHT = dict(rtol=1e-12, atol=1e-12)


def _windows(x, kernel):
    """``(N, C, OH, OW, KH, KW)``: the stride-1 windows of ``x``."""
    return np.lib.stride_tricks.sliding_window_view(x, kernel, axis=(2, 3))


@pytest.mark.parametrize("batch, channels, structure", [
    (6, 20, "tad.reused_iteration_buffers"),  # images of 2.2M multiply-adds: three groups of two
    (5, 40, "tad.independent_iterations"),  # 8.6M: an image a thread
])
@pytest.mark.parametrize("threads", ["1", "2"])
def test_images_in_groups_and_on_threads_match_numpy(monkeypatch, batch, channels, structure, threads):
    from tensorad.passes.lower.host import THREADS_VARIABLE
    monkeypatch.setenv(THREADS_VARIABLE, threads)
    x, w = RNG.standard_normal((batch, channels, 24, 24)), RNG.standard_normal((channels, channels, 3, 3))
    ct = RNG.standard_normal((batch, channels, 24, 24))
    step = value_and_grads(ta.vjp, ta.jit, conv2d, dict(padding=1))
    assert structure in step.lower(x, w, ct).as_text("linalg")
    out, (dx, dw) = step(x, w, ct)
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    np.testing.assert_allclose(out, np.einsum("ncijkl,ockl->noij", _windows(padded, (3, 3)), w), **TIGHT)
    flipped = w[:, :, ::-1, ::-1]
    np.testing.assert_allclose(dx, np.einsum("noijkl,ockl->ncij", _windows(np.pad(ct, ((0, 0), (0, 0), (1, 1), (1, 1))),
                                                                          (3, 3)), flipped), **TIGHT)
    np.testing.assert_allclose(dw, np.einsum("ncijkl,noij->ockl", _windows(padded, (3, 3)), ct), **TIGHT)


@pytest.mark.parametrize("data_shape, weight_shape", [((0, 2, 4, 4), (3, 2, 2, 2)), ((2, 0, 4, 4), (3, 0, 2, 2)),
                                                      ((2, 2, 4, 4), (0, 2, 2, 2))])
def test_convolutions_with_no_elements_are_empty_sums(data_shape, weight_shape):
    # The fuzzer's finding: no images, channels or filters aborted the compiler (a verifier assertion).
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal(data_shape), rng.standard_normal(weight_shape)
    out_shape = (data_shape[0], weight_shape[0], data_shape[2] - 1, data_shape[3] - 1)
    np.testing.assert_array_equal(ta.jit(conv2d)(x, w), np.zeros(out_shape))
    dx, dw = ta.grad(lambda x, w: (conv2d(x, w) ** 2).sum() + (x * x).sum() + (w * w).sum(), argnums=(0, 1))(x, w)
    np.testing.assert_allclose(dx, 2 * x)
    np.testing.assert_allclose(dw, 2 * w)


def test_jacobians_of_an_empty_result_are_empty():
    # The fuzzer's finding: the rules folded a batch of no elements into a dim (a division by zero).
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((3, 2, 2, 2))
    f = lambda x, w: conv2d(x, w)[:, :0]  # noqa: E731
    for argnum, operand in enumerate((x, w)):
        jacobian = ta.jacrev(f, argnums=argnum)(x, w)
        assert jacobian.shape == (1, 0, 3, 3) + operand.shape
        assert ta.jacfwd(f, argnums=argnum)(x, w).shape == jacobian.shape
