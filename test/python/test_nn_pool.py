"""Pooling: ``max_pool2d``/``avg_pool2d`` and their backward ops, lowered and differentiated.

Checked three ways:

* values and gradients against JAX (PyTorch's pooling written in JAX from
  each window's elements, differentiated by ``jax.grad``) over kernel 2/3,
  stride 1/2, padding 0/1, dilation 1/2 (max), ceil_mode, count_include_pad
  (avg), in float64 and, on half of these cases that still holds every pair
  of options, float32; max pooling runs on small integers, so windows
  hold ties and the routing to the first maximum (PyTorch's) is what is
  compared; the jvp of max pooling against ``jax.jvp`` on the same ties;
  where PyTorch is installed, the JAX reference itself against ``F.max_pool2d``,
  ``F.avg_pool2d``, autograd and forward-mode AD;
* every derivative rule (the four ops) with
  :func:`tensorad.test_util.check_grads` in float64 on distinct values, up to
  second order, and batched (co)tangents (``jacrev``, ``jacfwd``) against
  finite-difference Jacobians;
* the frontends' conventions and errors (default stride, (C, H, W) input,
  PyTorch's limit on padding, the user's line on the op).
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
from tensorad.nn.pool import avg_pool2d, max_pool2d
from tensorad.test_util import check_grads
from tensorad.tracing import Tracer, emits_ops

RNG = np.random.default_rng(0)
SHAPE = (2, 3, 7, 8)  # odd height, even width: ceil_mode keeps a partial last window on one axis
MAX_CASES = [dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=c)
             for k, s, p, d, c in itertools.product((2, 3), (1, 2), (0, 1), (1, 2), (False, True))]
AVG_CASES = [dict(kernel_size=k, stride=s, padding=p, ceil_mode=c, count_include_pad=i)
             for k, s, p, c, i in itertools.product((2, 3), (1, 2), (0, 1), (False, True),
                                                   (False, True))]


def case_id(case: dict) -> str:
    return "-".join(f"{k[0]}{int(v)}" for k, v in case.items())


def in_both_dtypes(cases: list[dict]) -> list:
    """Every case in float64, and the half of them in float32 whose option values sum to even.

    ``cases`` is a product of five two-valued options, in the order of
    ``itertools.product``, so that half is the cases whose index has an even
    number of 1 bits: a 2^(5-1) design, in which every value of every option,
    and every pair of values of two options, is still in float32 (the dtype
    changes the lowering's element type only; half the compilations).
    """
    return [pytest.param(case, dtype, id=f"{case_id(case)}-{dtype.__name__}")
            for index, case in enumerate(cases)
            for dtype in ((np.float32, np.float64) if bin(index).count("1") % 2 == 0
                          else (np.float64,))]


def with_ties(dtype) -> np.ndarray:
    """Small integers: most windows hold their maximum more than once."""
    return RNG.integers(0, 4, SHAPE).astype(dtype)


def distinct(shape=SHAPE) -> np.ndarray:
    """Distinct float64 values, so no window has a tie and finite differences see no kink."""
    return RNG.permutation(int(np.prod(shape))).reshape(shape).astype(np.float64) / 8.0


def pair(value) -> tuple:
    return (value, value) if isinstance(value, int) else tuple(value)


def pooled_size(size: int, kernel: int, stride: int, padding: int, dilation: int,
                ceil_mode: bool) -> int:
    """PyTorch's output size: ``ceil_mode`` drops a last window that starts in the right padding."""
    room = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (-(-room // stride) if ceil_mode else room // stride) + 1
    return out - 1 if ceil_mode and (out - 1) * stride >= size + padding else out


def jax_pool2d(jax, kind: str, x, kernel_size, stride, padding=0, dilation=1, ceil_mode=False,
               count_include_pad=True):
    """PyTorch's ``F.max_pool2d``/``F.avg_pool2d`` of NCHW ``x``, in JAX from its windows' elements.

    The elements of every window are stacked in the window's row-major order
    (``lax.reduce_window`` has no gradient for a dilated max). Max selects
    the first largest of them (``argmax``), so its derivatives route to the
    first maximum of a tie, over ``-inf`` padding; avg divides each window's sum by
    its positions inside the padded input (``count_include_pad``) or inside
    the input. Windows run to PyTorch's output size, ceil_mode's partial last
    window included.
    """
    jnp = jax.numpy
    kernel, strides, pads, dilations = map(pair, (kernel_size, stride, padding, dilation))
    out = [pooled_size(n, k, s, p, d, ceil_mode)
           for n, k, s, p, d in zip(x.shape[2:], kernel, strides, pads, dilations)]

    def windows(a, fill, leading_pads):
        """The (kh * kw, N, C, OH, OW) elements of the windows of ``a`` after ``leading_pads``."""
        spans = [(o - 1) * s + d * (k - 1) + 1
                 for o, s, d, k in zip(out, strides, dilations, kernel)]
        edges = [(p, max(0, m - n - p)) for p, m, n in zip(leading_pads, spans, a.shape[2:])]
        padded = jnp.pad(a, [(0, 0), (0, 0), *edges], constant_values=fill)

        def rows(axis, offset):  # the window elements at ``offset`` along ``axis``, every window
            start = offset * dilations[axis]
            return slice(start, start + (out[axis] - 1) * strides[axis] + 1, strides[axis])

        return jnp.stack([padded[:, :, rows(0, i), rows(1, j)]
                          for i, j in itertools.product(range(kernel[0]), range(kernel[1]))])

    if kind == "max":
        elements = windows(x, -np.inf, pads)
        first = np.arange(len(elements)).reshape(-1, 1, 1, 1, 1) == jnp.argmax(elements, axis=0)
        return jnp.where(first, elements, 0).sum(axis=0)
    if count_include_pad:  # positions of the padded input, which starts at the windows' start
        inside, leading_pads = [n + 2 * p for n, p in zip(x.shape[2:], pads)], (0, 0)
    else:
        inside, leading_pads = x.shape[2:], pads
    count = windows(np.ones((1, 1, *inside), x.dtype), 0, leading_pads).sum(axis=0)
    return windows(x, 0, pads).sum(axis=0) / count


def value_and_grad(jit, grad, pool):
    """``jit`` of ``(x, r) -> (pool(x), gradient of sum(pool(x) * r))``, by ``grad``."""
    return jit(lambda a, r: (pool(a), grad(lambda b: (pool(b) * r).sum())(a)))


@functools.lru_cache(maxsize=None)
def jax_value_and_grad(jax, kind: str, attributes: tuple):
    """JAX's ``value_and_grad`` for the case ``dict(attributes)``, jitted once (in the worker)."""
    return value_and_grad(jax.jit, jax.grad, lambda a: jax_pool2d(jax, kind, a, **dict(attributes)))


def jax_pool2d_and_grad(jax, kind: str, attributes: tuple, x, r):
    """``jax_value_and_grad`` at ``(x, r)``; for ``jax_reference``."""
    return jax_value_and_grad(jax, kind, attributes)(x, r)


def jax_max_pool2d_jvp(jax, attributes: tuple, x, t):
    """The tangent of JAX's max pooling at ``x`` along ``t``; for ``jax_reference``."""
    pool = functools.partial(jax_pool2d, jax, "max", **dict(attributes))
    return jax.jit(lambda a, b: jax.jvp(pool, (a,), (b,))[1])(x, t)


def frozen(case: dict) -> tuple:
    """A case as a hashable (and picklable) tuple of its items."""
    return tuple(sorted(case.items()))


def output_shape(case: dict) -> tuple:
    """The shape of a case's pooling of a ``SHAPE`` input."""
    return SHAPE[:2] + tuple(pooled_size(n, case["kernel_size"], case["stride"], case["padding"],
                                         case.get("dilation", 1), case["ceil_mode"])
                             for n in SHAPE[2:])


def assert_matches_jax(jax_reference, kind: str, case: dict, x: np.ndarray) -> None:
    """The value and the gradient of ``sum(pool(x) * r)`` (r random) agree with JAX's.

    JAX computes in float64 for both dtypes (one compilation per case): a
    float32 result is compared with the exact one of its float32 inputs.
    """
    ours = {"max": max_pool2d, "avg": avg_pool2d}[kind]
    r = RNG.standard_normal(output_shape(case)).astype(x.dtype)
    want, want_grad = jax_reference(jax_pool2d_and_grad, kind, frozen(case), x.astype(np.float64),
                                    r.astype(np.float64))
    got, grad = value_and_grad(ta.jit, ta.grad, lambda a: ours(a, **case))(x, r)
    tol = dict(rtol=1e-6, atol=1e-6) if x.dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(got, want, **tol, err_msg="value")
    np.testing.assert_allclose(grad, want_grad, **tol, err_msg="gradient")


@pytest.mark.parametrize("case, dtype", in_both_dtypes(MAX_CASES))
def test_max_pool2d_matches_jax_on_ties(jax_reference, case, dtype):
    assert_matches_jax(jax_reference, "max", case, with_ties(dtype))


@pytest.mark.parametrize("case, dtype", in_both_dtypes(AVG_CASES))
def test_avg_pool2d_matches_jax(jax_reference, case, dtype):
    assert_matches_jax(jax_reference, "avg", case, RNG.standard_normal(SHAPE).astype(dtype))


@pytest.mark.parametrize("case", MAX_CASES[::3], ids=case_id)
def test_max_pool2d_jvp_takes_the_first_maximum(jax_reference, case):
    x, t = with_ties(np.float64), RNG.standard_normal(SHAPE)
    _, got = ta.jvp(lambda a: max_pool2d(a, **case), (x,), (t,))
    np.testing.assert_array_equal(got, jax_reference(jax_max_pool2d_jvp, frozen(case), x, t))


def test_jax_reference_matches_torch(jax_reference):
    # The JAX reference rebuilds PyTorch's semantics (ceil_mode's output size,
    # avg's divisors, routing on ties); PyTorch checks it where it is installed
    # (it is not in the test extra: its wheels pull in CUDA).
    torch = pytest.importorskip("torch")
    F = torch.nn.functional
    cases = [("max", case, with_ties(np.float64)) for case in MAX_CASES] + \
            [("avg", case, RNG.standard_normal(SHAPE)) for case in AVG_CASES]
    for kind, case, x in cases:
        xt = torch.tensor(x, requires_grad=True)
        want = getattr(F, f"{kind}_pool2d")(xt, **case)
        r = RNG.standard_normal(tuple(want.shape))
        (want * torch.tensor(r)).sum().backward()
        got, grad = jax_reference(jax_pool2d_and_grad, kind, frozen(case), x, r)
        np.testing.assert_allclose(got, want.detach().numpy(), rtol=1e-12, atol=1e-12, err_msg=kind)
        np.testing.assert_allclose(grad, xt.grad.numpy(), rtol=1e-12, atol=1e-12, err_msg=kind)
    fwad = torch.autograd.forward_ad
    for case in MAX_CASES[::3]:
        x, t = with_ties(np.float64), RNG.standard_normal(SHAPE)
        with fwad.dual_level():
            dual = fwad.make_dual(torch.tensor(x), torch.tensor(t))
            want = fwad.unpack_dual(F.max_pool2d(dual, **case)).tangent.numpy()
        got = jax_reference(jax_max_pool2d_jvp, frozen(case), x, t)
        np.testing.assert_array_equal(got, want)


def test_windows_of_equal_values_route_to_their_first_element():
    x = np.zeros((1, 1, 4, 4), np.float32)
    grad = ta.grad(lambda a: tnp.sum(max_pool2d(a, 3, stride=1)))(x)
    np.testing.assert_array_equal(grad[0, 0], [[1, 1, 0, 0], [1, 1, 0, 0]] + [[0] * 4] * 2)


# --- the derivative rules, with check_grads -------------------------------------

GEOMETRIES = [dict(pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1), dilation=(1, 1),
                   ceil_mode=True),
              dict(pool_size=(2, 3), strides=(1, 2), padding=(1, 0, 1, 1), dilation=(2, 1),
                   ceil_mode=False)]
SMALL = (2, 2, 5, 6)


def pool_op(kind: str, geometry: dict, **extra):
    """``tad.<kind>_pool2d`` of a traced array, straight from the op builder."""
    return emits_ops(lambda x: Tracer.of(tad_ops.pool2d(kind, x.value, **geometry, **extra)))


def pool_backward_op(kind: str, geometry: dict, data: np.ndarray, **extra):
    """``tad.<kind>_pool2d_backward`` of a traced output gradient, against fixed ``data``."""
    return emits_ops(lambda g: Tracer.of(tad_ops.pool2d_backward(
        kind, g.value, tnp.asarray(data).value, **geometry, **extra)))


def pooled_shape(kind: str, geometry: dict, **extra) -> tuple:
    return ta.jit(pool_op(kind, geometry, **extra))(np.zeros(SMALL)).shape


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_max_pool2d_rules(geometry):
    check_grads(pool_op("max", geometry), (distinct(SMALL),), order=2)


@pytest.mark.parametrize("include_pad", [True, False])
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_avg_pool2d_rules(geometry, include_pad):
    check_grads(pool_op("avg", geometry, count_include_pad=include_pad), (distinct(SMALL),),
                order=2)


@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_max_pool2d_backward_rules(geometry):
    g = RNG.standard_normal(pooled_shape("max", geometry))
    check_grads(pool_backward_op("max", geometry, distinct(SMALL)), (g,), order=2)


@pytest.mark.parametrize("include_pad", [True, False])
@pytest.mark.parametrize("geometry", GEOMETRIES)
def test_avg_pool2d_backward_rules(geometry, include_pad):
    g = RNG.standard_normal(pooled_shape("avg", geometry, count_include_pad=include_pad))
    check_grads(pool_backward_op("avg", geometry, distinct(SMALL), count_include_pad=include_pad),
                (g,), order=2)


def test_backward_ops_have_no_derivative_in_data():
    # The routing (max) and the counts (avg) are piecewise constant in data.
    geometry = GEOMETRIES[0]
    g = RNG.standard_normal(pooled_shape("max", geometry))
    for kind in ("max", "avg"):
        f = emits_ops(lambda d, kind=kind: Tracer.of(tad_ops.pool2d_backward(
            kind, tnp.asarray(g).value, d.value, **geometry)))
        np.testing.assert_array_equal(ta.grad(lambda d: tnp.sum(f(d) ** 2))(distinct(SMALL)), 0)


def numerical_jacobian(f, x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    value = ta.jit(f)
    columns = [(np.asarray(value(x + step)) - np.asarray(value(x - step))) / (2 * eps)
               for step in eps * np.eye(x.size).reshape((x.size,) + x.shape)]
    return np.stack(columns, axis=-1).reshape(np.shape(value(x)) + x.shape)


@pytest.mark.parametrize("kind", ["max", "avg"])
def test_batched_cotangents_and_tangents(kind):
    f = pool_op(kind, GEOMETRIES[0])
    x = distinct((1, 2, 4, 5))
    want = numerical_jacobian(f, x)
    rev, fwd = ta.jit(lambda a: (ta.jacrev(f)(a), ta.jacfwd(f)(a)))(x)
    np.testing.assert_allclose(rev, want, atol=1e-7, err_msg="jacrev")
    np.testing.assert_allclose(fwd, want, atol=1e-7, err_msg="jacfwd")


def test_hessian_vector_product_through_pooling():
    # Second order through max_pool2d_backward and avg_pool2d_backward: the
    # Hessian of sum(pool(x)^2) is constant between kinks, so it equals its
    # finite difference exactly up to rounding.
    def f(x):
        return tnp.sum(max_pool2d(x, 3, 2, 1) ** 2) + tnp.sum(avg_pool2d(x, 2, 1, 1) ** 2)

    x, v = distinct(SMALL), RNG.standard_normal(SMALL)
    hvp = ta.jvp(ta.grad(f), (x,), (v,))[1]
    grad = ta.jit(ta.grad(f))
    np.testing.assert_allclose(hvp, (grad(x + 1e-4 * v) - grad(x - 1e-4 * v)) / 2e-4, atol=1e-8)


# --- frontends -------------------------------------------------------------------

def test_stride_defaults_to_the_kernel_and_chw_input_pools_as_one_batch():
    x = distinct((3, 6, 6))
    got = ta.jit(lambda a: avg_pool2d(a, (2, 3)))(x)
    np.testing.assert_allclose(got, x.reshape(3, 3, 2, 2, 3).mean(axis=(2, 4)))


@pytest.mark.parametrize("call, message", [
    (lambda x: max_pool2d(x, 3, padding=2), "at most half of kernel_size"),
    (lambda x: avg_pool2d(x, (2, 2, 2)), "kernel_size must be an int or a pair"),
    (lambda x: max_pool2d(x[0, 0], 2), r"needs \(N, C, H, W\) or \(C, H, W\) input"),
    (lambda x: max_pool2d(x, 9), "larger than the padded input"),
])
def test_errors_name_the_users_line(call, message):
    with pytest.raises(TracingError, match=message) as err:
        ta.jit(call)(np.zeros((1, 1, 4, 4)))
    assert "test_nn_pool.py" in str(err.value)


def test_ops_carry_the_users_line():
    def f(x):
        return max_pool2d(x, 2)  # the location of this line is checked below

    line = f.__code__.co_firstlineno + 1
    text = ta.jit(f).lower(np.zeros((1, 1, 4, 4))).as_text("tad", debug_info=True)
    assert f'test_nn_pool.py":{line}' in text


@pytest.mark.parametrize("kernel, dilation", [((1, 3), 1), ((1, 2), 2)])
def test_a_last_window_of_one_tap_per_phase(kernel, dilation):
    # The fuzzer's finding: with ceil_mode the taps were 1x1x1x1x1 slices stepping along a
    # unit dim, which upstream's expand-strided-metadata aborted on (tad-split-rank-reducing-subviews).
    x = np.array([[[[0.3, -0.2, 0.9]]]])
    f = functools.partial(max_pool2d, kernel_size=kernel, stride=2, dilation=dilation, ceil_mode=True)
    np.testing.assert_array_equal(ta.jit(f)(x), [[[[0.9]]]])
    np.testing.assert_array_equal(ta.grad(lambda x: f(x).sum())(x), [[[[0.0, 0.0, 1.0]]]])


@pytest.mark.parametrize("pool", [max_pool2d, avg_pool2d])
def test_pooling_of_no_images_or_channels_is_empty_and_of_no_rows_is_refused(pool):
    # Fuzzer findings: slices of the empty data were out of bounds (a failed verification).
    f = functools.partial(pool, kernel_size=(2, 3), stride=1, padding=1)
    for shape, pooled in (((0, 2, 4, 4), (0, 2, 5, 4)), ((2, 0, 4, 4), (2, 0, 5, 4))):
        x = np.ones(shape)
        assert ta.jit(f)(x).shape == pooled
        assert ta.grad(lambda x: (f(x) ** 2).sum())(x).shape == shape
    with pytest.raises(TracingError, match="at least one row and one column"):
        f(tnp.ones((1, 1, 0, 5)))
