"""The indexing ops (``take``, ``take_backward``) and the loss ops (``nll_loss``, ``nll_loss_backward``).

Checked three ways:

* the frontends (``tnp.take``, ``tnp.take_along_axis``, ``x[int array]``)
  against numpy, including traced indices clamped like JAX's;
* values and gradients against JAX (``jnp.take``, ``jnp.take_along_axis``,
  and PyTorch's ``F.nll_loss``/``F.cross_entropy`` written in JAX,
  differentiated by ``jax.grad``): repeated indices, ``ignore_index``, every
  reduction, class weights, probability targets, label smoothing and logits
  of ``±1e4``; where PyTorch is installed, the JAX losses themselves against
  PyTorch's;
* every derivative rule with :func:`tensorad.test_util.check_grads` in
  float64 up to second order, and batched (co)tangents (``jacrev``,
  ``jacfwd``) against finite-difference Jacobians.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.dialects import builder as tad_ops
from tensorad.nn import cross_entropy, embedding, log_softmax, nll_loss
from tensorad.test_util import check_grads
from tensorad.tracing import Tracer, emits_ops

RNG = np.random.default_rng(0)
REDUCTIONS = ("mean", "sum", "none")


def value_and_grads(jit, grad, fn, r, n_args: int):
    """``jit`` of ``(*arrays) -> (fn(*arrays), gradients of sum(fn * r))``, by ``grad``."""
    argnums = tuple(range(n_args))
    return jit(lambda *a: (fn(*a), grad(lambda *b: (fn(*b) * r).sum(), argnums=argnums)(*a)))


def jax_value_and_grads(jax, function, arrays, options, seed: int = 1):
    """``function(jax, *arrays, **options)``, its gradients and cotangent; for ``jax_reference``.

    The gradients are those of ``sum(value * r)`` in each array, ``r`` random
    of the value's shape and dtype.
    """
    def fn(*a):
        return function(jax, *a, **options)

    out = jax.eval_shape(fn, *arrays)
    r = np.random.default_rng(seed).standard_normal(out.shape).astype(out.dtype)
    return (*value_and_grads(jax.jit, jax.grad, fn, r, len(arrays))(*arrays), r)


def jax_hessian(jax, function, x, options):
    """The Hessian of ``function(jax, x, **options)`` in ``x``; for ``jax_reference``."""
    return jax.hessian(lambda z: function(jax, z, **options))(x)


def jax_take(jax, a, indices, axis):
    return jax.numpy.take(a, indices, axis=axis)


def jax_take_along_axis(jax, a, indices, axis):
    return jax.numpy.take_along_axis(a, indices, axis)


def assert_matches_jax(jax_reference, ours, theirs, arrays, options, rtol=1e-6, atol=1e-8):
    """``ours(*arrays)`` (tensorad) and ``theirs(jax, *arrays, **options)`` agree, and gradients."""
    want, want_grads, r = jax_reference(jax_value_and_grads, theirs, arrays, options)
    got, got_grads = value_and_grads(ta.jit, ta.grad, ours, r, len(arrays))(*arrays)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg="value")
    for i, (g, w) in enumerate(zip(got_grads, want_grads)):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=f"gradient {i}")


def class_axis(ndim: int) -> int:
    """PyTorch's class axis: 1, or 0 for a single sample of shape (C,)."""
    return 1 if ndim > 1 else 0


def kept(jax, target, weight, ignore_index: int):
    """The targets (ignored ones made 0) and their class weights (ignored ones 0)."""
    keep = target != ignore_index
    safe = np.where(keep, target, 0)
    return safe, jax.numpy.where(keep, weight[safe], 0)


def reduce(losses, reduction: str, count):
    """PyTorch's reductions, ``"mean"`` dividing by ``count``."""
    return {"none": losses, "sum": losses.sum(), "mean": losses.sum() / count}[reduction]


def jax_nll_loss(jax, log_probs, target, weight=None, reduction="mean", ignore_index=-100):
    """PyTorch's ``F.nll_loss`` in JAX: ``-weight[t] * log_probs[t]`` for each sample's target t.

    Ignored samples count for nothing; the mean divides by the summed weights
    of the others (0/0 = nan when every sample is ignored).
    """
    jnp, axis = jax.numpy, class_axis(log_probs.ndim)
    weight = jnp.ones(log_probs.shape[axis], log_probs.dtype) if weight is None else weight
    safe, weights = kept(jax, target, weight, ignore_index)
    picked = jnp.take_along_axis(log_probs, np.expand_dims(safe, axis), axis).squeeze(axis)
    return reduce(-weights * picked, reduction, weights.sum())


def jax_cross_entropy(jax, logits, target, weight=None, reduction="mean", label_smoothing=0.0,
                      ignore_index=-100):
    """PyTorch's ``F.cross_entropy`` in JAX, with class-index or probability (float) targets.

    Label smoothing mixes in, with weight ``label_smoothing / C``, the
    (class-weighted) loss of every class: to the probability targets, and as a
    second loss next to the class targets' nll, reduced like it. The mean over
    probability targets divides by the number of samples.
    """
    jnp, axis = jax.numpy, class_axis(logits.ndim)
    n_classes = logits.shape[axis]
    log_probs = jax.nn.log_softmax(logits, axis=axis)
    weight = jnp.ones(n_classes, logits.dtype) if weight is None else weight
    per_class = (-log_probs * weight.reshape([-1] + [1] * (logits.ndim - axis - 1)))
    if np.issubdtype(target.dtype, np.floating):
        probs = target * (1 - label_smoothing) + label_smoothing / n_classes
        losses = (per_class * probs).sum(axis)
        return reduce(losses, reduction, losses.size)
    nll = jax_nll_loss(jax, log_probs, target, weight, reduction, ignore_index)
    _, weights = kept(jax, target, weight, ignore_index)
    smooth = jnp.where(target != ignore_index, per_class.sum(axis), 0)
    return (1 - label_smoothing) * nll + \
        label_smoothing / n_classes * reduce(smooth, reduction, weights.sum())


def numerical_jacobian(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    value = ta.jit(f)
    columns = [(np.asarray(value(x + step)) - np.asarray(value(x - step))) / (2 * eps)
               for step in eps * np.eye(x.size).reshape((x.size,) + x.shape)]
    out_shape = np.shape(value(x))
    return np.stack(columns, axis=-1).reshape(out_shape + x.shape)


def assert_jacobians(f, x: np.ndarray) -> None:
    """``jacrev`` and ``jacfwd`` (batched cotangents and tangents) match finite differences."""
    want = numerical_jacobian(f, x)
    rev, fwd = ta.jit(lambda a: (ta.jacrev(f)(a), ta.jacfwd(f)(a)))(x)
    np.testing.assert_allclose(rev, want, atol=1e-7, err_msg="jacrev")
    np.testing.assert_allclose(fwd, want, atol=1e-7, err_msg="jacfwd")


def log_softmax_np(x: np.ndarray, axis: int) -> np.ndarray:
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@emits_ops
def take_backward(output_grad, indices, axis: int, shape) -> Tracer:
    return Tracer.of(tad_ops.take_backward(output_grad.value, tnp.asarray(indices).value, axis,
                                           shape))


@emits_ops
def nll_loss_backward(output_grad, predictions, target, weights, reduction: str) -> Tracer:
    return Tracer.of(tad_ops.nll_loss_backward(
        output_grad.value, tnp.asarray(predictions).value, tnp.asarray(target).value,
        tnp.asarray(weights).value, reduction))


# ----------------------------------------------------------------------------
# Frontends against numpy
# ----------------------------------------------------------------------------

TAKES = [  # (array shape, indices, axis)
    ((5,), [3, 0, -1, 3], None),
    ((3, 4), [[2, 0], [1, 1]], 1),
    ((3, 4), [[2, 0], [1, 1]], None),
    ((3, 4), 2, 0),
    ((2, 3, 4), [[0], [3]], -1),
    ((3, 4), np.array([], np.int64), 0),
]


@pytest.mark.parametrize("shape, indices, axis", TAKES)
def test_take_matches_numpy(shape, indices, axis):
    x = RNG.standard_normal(shape)
    got = ta.jit(lambda a: tnp.take(a, np.asarray(indices), axis=axis))(x)
    np.testing.assert_array_equal(got, np.take(x, indices, axis=axis))


@pytest.mark.parametrize("shape, index_shape, axis", [
    ((3, 4), (3, 2), 1), ((3, 4), (2, 4), 0), ((3, 4), (1, 5), 1), ((1, 4), (3, 2), 1),
    ((2, 3, 4), (2, 3, 1), -1), ((3, 4), (6,), None)])
def test_take_along_axis_matches_numpy(shape, index_shape, axis):
    x = RNG.standard_normal(shape)
    n = x.size if axis is None else shape[axis]
    indices = RNG.integers(-n, n, index_shape)
    want = np.take_along_axis(x, indices, axis)
    np.testing.assert_array_equal(ta.jit(lambda a: tnp.take_along_axis(a, indices, axis))(x), want)
    np.testing.assert_array_equal(ta.jit(lambda a, i: tnp.take_along_axis(a, i, axis))(x, indices),
                                  want)


@pytest.mark.parametrize("key", [
    lambda i: i, lambda i: (i, slice(1, 3)), lambda i: (i, None), lambda i: (i, Ellipsis, 0)])
def test_integer_array_indexing_matches_numpy(key):
    x = RNG.standard_normal((4, 3, 2))
    indices = np.array([[3, 0], [-1, 3]])
    np.testing.assert_array_equal(ta.jit(lambda a: a[key(indices)])(x), x[key(indices)])
    np.testing.assert_array_equal(ta.jit(lambda a, i: a[key(i)])(x, indices), x[key(indices)])
    np.testing.assert_array_equal(ta.jit(lambda a: a[key([3, 0])])(x), x[key([3, 0])])


def test_traced_indices_out_of_range_are_clamped():
    # numpy raises; a traced index cannot be checked, so it is clamped, as in JAX.
    x = np.arange(5.0)
    indices = np.array([7, -1, -9, 2])
    np.testing.assert_array_equal(ta.jit(lambda a, i: a[i])(x, indices), [4.0, 4.0, 0.0, 2.0])
    np.testing.assert_array_equal(ta.jit(lambda a, i: tnp.take(a, i))(x, indices.astype(np.int32)),
                                  [4.0, 4.0, 0.0, 2.0])


def test_bad_indices_are_rejected():
    x = np.arange(5.0)
    with pytest.raises(IndexError, match="index 5 is out of bounds"):
        ta.jit(lambda a: tnp.take(a, np.array([0, 5])))(x)
    with pytest.raises(ta.TracingError, match="traced boolean mask"):
        ta.jit(lambda a: a[a > 2])(x)
    with pytest.raises(ta.TracingError, match="indices must be integers"):
        ta.jit(lambda a, i: a[i])(x, np.ones(2))


def test_bad_loss_arguments_are_rejected():
    logits = np.zeros((2, 3))
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        ta.jit(lambda z: nll_loss(z, np.array([0, 1]), reduction="avg"))(logits)
    with pytest.raises(ta.TracingError, match=r"targets must be integers of shape \(2,\)"):
        ta.jit(lambda z: cross_entropy(z, np.array([0, 1, 2])))(logits)
    with pytest.raises(ta.TracingError, match="probability targets must have the logits' shape"):
        ta.jit(lambda z: cross_entropy(z, np.ones(3)))(logits)
    with pytest.raises(ta.TracingError, match="weight must have shape"):
        ta.jit(lambda z: nll_loss(z, np.array([0, 1]), np.ones(2)))(logits)


def test_op_clamps_indices_out_of_range():
    # The op itself clamps (IR written by hand has no wrapping of negative indices).
    f = ta.compile_mlir("""
    func.func @main(%x: tensor<3x2xf64>, %i: tensor<3xi32>) -> (tensor<3x2xf64>, tensor<3x2xf64>) {
      %0 = "tad.take"(%x, %i) {axis = 0} : (tensor<3x2xf64>, tensor<3xi32>) -> tensor<3x2xf64>
      %1 = "tad.take_backward"(%x, %i) {axis = 0} : (tensor<3x2xf64>, tensor<3xi32>) -> tensor<3x2xf64>
      return %0, %1 : tensor<3x2xf64>, tensor<3x2xf64>
    }""")
    x = np.arange(6.0).reshape(3, 2)
    gathered, scattered = f(x, np.array([-4, 9, 1], np.int32))
    np.testing.assert_array_equal(gathered, x[[0, 2, 1]])
    np.testing.assert_array_equal(scattered, [x[0], x[2], x[1]])


# ----------------------------------------------------------------------------
# Values and gradients against JAX
# ----------------------------------------------------------------------------

def test_take_with_repeated_indices_matches_jax(jax_reference):
    x = RNG.standard_normal((3, 5))
    indices = np.array([4, 0, 4, 4, 2])
    assert_matches_jax(jax_reference, lambda a: tnp.take(a, indices, axis=1), jax_take, [x],
                       dict(indices=indices, axis=1))


def test_take_along_axis_matches_jax(jax_reference):
    x = RNG.standard_normal((4, 3))
    indices = np.array([[0, 0], [2, 1], [1, 1], [2, 2]])
    assert_matches_jax(jax_reference, lambda a: tnp.take_along_axis(a, indices, 1),
                       jax_take_along_axis, [x], dict(indices=indices, axis=1))


def test_embedding_matches_jax(jax_reference):
    table = RNG.standard_normal((6, 4))
    indices = np.array([[1, 5, 1], [0, 1, 1]])
    assert_matches_jax(jax_reference, lambda t: embedding(indices, t), jax_take, [table],
                       dict(indices=indices, axis=0))


NLL_SHAPES = [  # (log-probabilities shape, targets, with an ignored sample)
    ((5, 4), np.array([1, 3, 1, 0, 2])),
    ((5, 4), np.array([1, -100, 1, 0, -100])),
    ((4,), np.array(2)),
    ((2, 4, 3), np.array([[0, 3, -100], [2, 2, 1]])),
]
CLASS_TARGETS = np.array([1, 3, -100, 0, 1])
CLASS_SMOOTHING = (0.0, 0.2)
PROBABILITY_SHAPES = [(3, 4), (4,), (2, 4, 3)]
PROBABILITY_SMOOTHING = (0.0, 0.1)
HUGE_LOGITS = np.array([[1e4, -1e4, 0.0], [-1e4, -1e4, 1e4], [1e4, 1e4, -1e4]])
HUGE_LOGITS_TARGETS = np.array([1, 2, 0])
HESSIAN_TARGETS = np.array([2, -100, 0])


def class_weight(shape, weighted: bool = True):
    """Random weights for the classes of inputs of ``shape``, or None."""
    return RNG.uniform(0.5, 2.0, shape[class_axis(len(shape))]) if weighted else None


def probability_targets(shape) -> np.ndarray:
    """Random probabilities over the class axis of ``shape``."""
    return np.exp(log_softmax_np(RNG.standard_normal(shape), class_axis(len(shape))))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape, targets", NLL_SHAPES)
def test_nll_loss_matches_jax(jax_reference, shape, targets, weighted, reduction):
    log_probs, weight = RNG.standard_normal(shape), class_weight(shape, weighted)
    assert_matches_jax(jax_reference, lambda p: nll_loss(p, targets, weight, reduction),
                       jax_nll_loss, [log_probs],
                       dict(target=targets, weight=weight, reduction=reduction))


def test_nll_loss_mean_of_only_ignored_samples_is_nan(jax_reference):
    targets = np.array([-1, -1])
    log_probs = RNG.standard_normal((2, 3))
    got = ta.jit(lambda p: nll_loss(p, targets, ignore_index=-1))(log_probs)
    assert np.isnan(got)
    assert np.isnan(jax_reference(jax_nll_loss, log_probs, targets, ignore_index=-1))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", CLASS_SMOOTHING)
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_with_class_targets_matches_jax(jax_reference, weighted, label_smoothing,
                                                       reduction):
    logits = RNG.standard_normal((5, 4)) * 3
    options = dict(weight=class_weight(logits.shape, weighted), reduction=reduction,
                   label_smoothing=label_smoothing)
    assert_matches_jax(jax_reference, lambda z: cross_entropy(z, CLASS_TARGETS, **options),
                       jax_cross_entropy, [logits], dict(target=CLASS_TARGETS, **options))


@pytest.mark.parametrize("reduction", REDUCTIONS)
@pytest.mark.parametrize("label_smoothing", PROBABILITY_SMOOTHING)
@pytest.mark.parametrize("shape", PROBABILITY_SHAPES)
def test_cross_entropy_with_probability_targets_matches_jax(jax_reference, shape, label_smoothing,
                                                             reduction):
    logits, probs = RNG.standard_normal(shape), probability_targets(shape)
    options = dict(weight=class_weight(shape), reduction=reduction,
                   label_smoothing=label_smoothing)
    assert_matches_jax(jax_reference, lambda z: cross_entropy(z, probs, **options),
                       jax_cross_entropy, [logits], dict(target=probs, **options))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_of_huge_logits_is_finite_and_matches_jax(jax_reference, dtype):
    logits = HUGE_LOGITS.astype(dtype)
    rtol = 1e-6 if dtype == np.float64 else 1e-5
    assert_matches_jax(jax_reference,
                       lambda z: cross_entropy(z, HUGE_LOGITS_TARGETS, reduction="none"),
                       jax_cross_entropy, [logits],
                       dict(target=HUGE_LOGITS_TARGETS, reduction="none"), rtol=rtol)
    assert np.all(np.isfinite(ta.jit(lambda z: log_softmax(z))(logits)))


def test_cross_entropy_hessian_matches_jax(jax_reference):
    # Second order: the jvp rule of nll_loss_backward under a batched tangent.
    logits = RNG.standard_normal((3, 4))
    got = ta.jit(ta.hessian(lambda z: cross_entropy(z, HESSIAN_TARGETS)))(logits)
    want = jax_reference(jax_hessian, jax_cross_entropy, logits, dict(target=HESSIAN_TARGETS))
    np.testing.assert_allclose(got, want, atol=1e-10)


def test_jax_losses_match_torch(jax_reference):
    # The JAX losses above rebuild PyTorch's definitions (weights, ignored
    # samples, label smoothing, the means' divisors); PyTorch checks them
    # where it is installed (it is not in the test extra: its wheels pull in CUDA).
    torch = pytest.importorskip("torch")
    F = torch.nn.functional

    def tensors(options):
        return {k: v if isinstance(v, (str, float)) or v is None else torch.tensor(v)
                for k, v in options.items()}

    def check(jax_loss, torch_loss, x, options, rtol=1e-12):
        want, (grad,), r = jax_reference(jax_value_and_grads, jax_loss, [x], options)
        xt = torch.tensor(x, requires_grad=True)
        out = torch_loss(xt, **tensors(options))
        (out * torch.tensor(r)).sum().backward()
        np.testing.assert_allclose(want, out.detach().numpy(), rtol=rtol, atol=1e-12)
        np.testing.assert_allclose(grad, xt.grad.numpy(), rtol=rtol, atol=1e-12)

    for (shape, targets), weighted, reduction in itertools.product(NLL_SHAPES, (False, True),
                                                                   REDUCTIONS):
        check(jax_nll_loss, F.nll_loss, RNG.standard_normal(shape),
              dict(target=targets, weight=class_weight(shape, weighted), reduction=reduction))
    for weighted, label_smoothing, reduction in itertools.product((False, True), CLASS_SMOOTHING,
                                                                  REDUCTIONS):
        check(jax_cross_entropy, F.cross_entropy, RNG.standard_normal((5, 4)) * 3,
              dict(target=CLASS_TARGETS, weight=class_weight((5, 4), weighted),
                   reduction=reduction, label_smoothing=label_smoothing))
    for shape, label_smoothing, reduction in itertools.product(PROBABILITY_SHAPES,
                                                               PROBABILITY_SMOOTHING, REDUCTIONS):
        check(jax_cross_entropy, F.cross_entropy, RNG.standard_normal(shape),
              dict(target=probability_targets(shape), weight=class_weight(shape),
                   reduction=reduction, label_smoothing=label_smoothing))
    for dtype, rtol in ((np.float32, 1e-5), (np.float64, 1e-12)):
        check(jax_cross_entropy, F.cross_entropy, HUGE_LOGITS.astype(dtype),
              dict(target=HUGE_LOGITS_TARGETS, reduction="none"), rtol)
    assert torch.isnan(F.nll_loss(torch.ones(2, 3), torch.tensor([-1, -1]), ignore_index=-1))
    logits = RNG.standard_normal((3, 4))
    np.testing.assert_allclose(
        jax_reference(jax_hessian, jax_cross_entropy, logits, dict(target=HESSIAN_TARGETS)),
        torch.autograd.functional.hessian(
            lambda z: F.cross_entropy(z, torch.tensor(HESSIAN_TARGETS)),
            torch.tensor(logits)).numpy(),
        atol=1e-12)


# ----------------------------------------------------------------------------
# Derivative rules against finite differences (float64, both modes, second order)
# ----------------------------------------------------------------------------

REPEATED = np.array([[2, 0, 2], [2, 1, 0]])


def test_take_rules():
    x = RNG.standard_normal((4, 3))
    check_grads(lambda a: tnp.take(a, REPEATED, axis=0) ** 2, (x,), order=2)
    check_grads(lambda a: tnp.sin(tnp.take_along_axis(a, np.array([[1], [0], [2], [2]]), 1)), (x,),
                order=2)


def test_take_backward_rules():
    g = RNG.standard_normal((4, 2, 3))
    check_grads(lambda a: take_backward(a, REPEATED, 1, (4, 5)) ** 2, (g,), order=2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_rules(reduction):
    log_probs = RNG.standard_normal((4, 3))
    targets, weight = np.array([2, -100, 0, 2]), RNG.uniform(0.5, 2.0, 3)
    check_grads(lambda p: nll_loss(tnp.sin(p), targets, weight, reduction), (log_probs,), order=2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_nll_loss_backward_rules(reduction):
    log_probs = RNG.standard_normal((4, 3))
    targets, weight = np.array([2, -100, 0, 2]), RNG.uniform(0.5, 2.0, 3)
    g = RNG.standard_normal((4,) if reduction == "none" else ())
    check_grads(lambda a: nll_loss_backward(a ** 2, log_probs, targets, weight, reduction), (g,),
                order=2)


def test_cross_entropy_and_embedding_rules():
    logits, table = RNG.standard_normal((4, 3)), RNG.standard_normal((5, 2))
    targets = np.array([2, -100, 0, 2])
    check_grads(lambda z: cross_entropy(z, targets, label_smoothing=0.1), (logits,), order=2)
    check_grads(lambda z: cross_entropy(z, np.full((4, 3), 1 / 3)), (logits,), order=2)
    check_grads(lambda t: tnp.tanh(embedding(np.array([[4, 1], [4, 4]]), t)), (table,), order=2)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_batched_cotangents_and_tangents(reduction):
    # jacrev/jacfwd seed a batch prefix: every rule's nb > 0 path, for losses
    # that are scalars too (scaled into a vector).
    log_probs = RNG.standard_normal((3, 2))
    targets = np.array([1, -100, 0])
    scale = np.array([1.0, -2.0])
    assert_jacobians(lambda p: nll_loss(p, targets, reduction=reduction)[..., None] * scale,
                     log_probs)
    assert_jacobians(lambda p: take_backward(tnp.take(p, np.array([1, 1, 0]), 1) ** 2,
                                             np.array([0, 0, 1]), 1, (3, 2)), log_probs)
    g = RNG.standard_normal((3,) if reduction == "none" else ())
    assert_jacobians(lambda a: nll_loss_backward(a, log_probs, targets, np.ones(2), reduction), g)
