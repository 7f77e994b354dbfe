"""Zero-size arrays (empty and past-the-end slices, zero-size loop carries,
zero-length loops) and second derivatives through loops (jvp of grad through
while_loop, whose reverse keeps a tape of dynamic size).

Each case was an internal error found by the differential fuzzer: upstream
verification rejects any static offset into a zero-size dim, and forward mode
had no rule for the dynamic-size inserts of a reversed while loop.
"""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax
from tensorad.errors import CompileError
from tensorad.test_util import check_grads


def _rng(shape):
    return np.random.default_rng(0).normal(size=shape)


def _while(x, steps=2):
    return lax.while_loop(lambda s: s[0] < steps,
                          lambda s: (s[0] + 1, s[1] * 0.9 + tnp.sin(s[1]) * 0.2), (0, x))[1]


def _while_reference(x, steps=2):
    for _ in range(steps):
        x = x * 0.9 + np.sin(x) * 0.2
    return x


def _scan(xs):
    """Carry and stacked outputs of a scan over the rows of ``xs``."""
    return lax.scan(lambda c, r: (c * 0.8 + tnp.sin(r), tnp.cos(c) + r),
                    tnp.zeros(xs.shape[1:]) + 0.1, xs)


FORWARD_CASES = [
    # (name, function, numpy reference, input shape)
    ("rows_past_the_end", lambda x: x[1:4, :], lambda x: x[1:4, :], (1, 0)),
    ("expanded_empty", lambda x: tnp.expand_dims(x, 0)[:, 0:0, :],
     lambda x: np.expand_dims(x, 0)[:, 0:0, :], (1, 0)),
    ("start_past_the_end", lambda x: x[2:3], lambda x: x[2:3], (1,)),
    ("empty_slice_of_nonempty", lambda x: x[3:3] * 2.0, lambda x: x[3:3] * 2.0, (3,)),
    ("strided_zero_width", lambda x: x[::2, 1:], lambda x: x[::2, 1:], (3, 0)),
    ("concatenate_empty", lambda x: tnp.concatenate([x, tnp.sin(x)], axis=-1),
     lambda x: np.concatenate([x, np.sin(x)], axis=-1), (0, 3)),
    ("sum_of_empty", lambda x: tnp.sum(tnp.exp(x), axis=-1), lambda x: np.sum(np.exp(x), axis=-1),
     (3, 0)),
    ("matmul_contracting_zero", lambda x: x @ x.T, lambda x: x @ x.T, (3, 0)),
    ("matmul_free_zero", lambda x: x.T @ x, lambda x: x.T @ x, (3, 0)),
    ("while_zero_size_carry", _while, _while_reference, (0,)),
    ("while_zero_width_rows", _while, _while_reference, (2, 0, 3)),
    ("fori_zero_trips", lambda x: lax.fori_loop(0, 0, lambda i, c: c * tnp.sin(c), x),
     lambda x: x, (0, 2)),
]


@pytest.mark.parametrize("name,fn,reference,shape", FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_forward_matches_numpy(name, fn, reference, shape):
    x = _rng(shape)
    got, want = ta.jit(fn)(x), reference(x)
    assert np.shape(got) == np.shape(want)
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize("name,fn,reference,shape", FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_derivatives(name, fn, reference, shape):
    objective = lambda x: tnp.sum(tnp.sin(fn(x))) + tnp.sum(x * x)
    # grad of grad through while_loop is refused (test_grad_of_grad_through_while_is_refused).
    order = 1 if "while" in name else 2
    check_grads(objective, (_rng(shape),), order=2, modes=("fwd",))
    check_grads(objective, (_rng(shape),), order=order, modes=("rev",))


def test_empty_slice_gradient_is_zero_there():
    # ADBench's GMM objective builds zero-length slices (issue 13, item 15).
    g = ta.grad(lambda v: tnp.sum(v[3:3]) + tnp.sum(v))(np.ones(3))
    np.testing.assert_array_equal(g, np.ones(3))


def test_repeated_ops_on_empty_arrays_compile_into_kernels_with_descriptors():
    # The forward derivative repeats the sum of an empty (3, 0) slice: the repeat is
    # outlined into a kernel, which upstream cannot lower with bare pointers to empty
    # buffers (found by the fuzzer, seed 11509).
    def f(v):
        return tnp.sum(tnp.broadcast_to(v, (3, 1))[:, 1:2:2], axis=(0, -1))
    value, tangent = ta.jvp(f, (np.ones(1),), (np.ones(1),))
    assert float(value) == 0.0 and float(tangent) == 0.0


def test_scan_over_zero_width_rows():
    # The rows of a (1, 0) array: a row read used to put the dynamic-offset
    # sentinel into a static offset and fail to parse.
    xs = _rng((1, 0))
    carry, ys = ta.jit(_scan)(xs)
    assert carry.shape == (0,) and ys.shape == (1, 0)
    check_grads(lambda xs: tnp.sum(_scan(xs)[0]) + tnp.sum(_scan(xs)[1]), (xs,), order=2)


def test_zero_length_scan():
    xs = np.zeros((0, 3))
    carry, ys = ta.jit(_scan)(xs)
    np.testing.assert_allclose(carry, np.full(3, 0.1))
    assert ys.shape == (0, 3)
    check_grads(lambda xs: tnp.sum(_scan(xs)[0] ** 2) + tnp.sum(_scan(xs)[1]), (xs,), order=2)


def test_grad_of_grad_zero_size_scan_carry():
    xs = np.zeros((2, 0))
    inner = ta.grad(lambda y: tnp.sum(_scan(y)[1] ** 2))
    assert ta.grad(lambda x: tnp.sum(inner(x)))(xs).shape == (2, 0)


def _hessian_by_differences(f, x, eps=1e-6):
    g = ta.grad(f)
    return np.stack([(g(x + eps * e) - g(x - eps * e)) / (2 * eps) for e in np.eye(x.size)])


LOOPS = {
    "while_loop": lambda x: _while(x, 3),
    "fori_loop": lambda x: lax.fori_loop(0, 3, lambda i, c: c * 0.9 + tnp.sin(c) * 0.2, x),
    "scan": lambda x: _scan(tnp.stack([x, 2.0 * x]))[1],
}


@pytest.mark.parametrize("loop", sorted(LOOPS))
def test_jvp_of_grad_through_loop(loop):
    f = lambda x: tnp.sum(LOOPS[loop](x) ** 2)
    x, v = np.array([0.3, -0.7, 1.1]), np.array([1.0, 0.5, -2.0])
    _, hvp = ta.jvp(ta.grad(f), (x,), (v,))
    np.testing.assert_allclose(hvp, _hessian_by_differences(f, x) @ v, rtol=1e-6, atol=1e-8)


def test_hessian_through_while_loop():
    f = lambda x: tnp.sum(LOOPS["while_loop"](x) ** 2)
    x = np.array([0.3, -0.7, 1.1])
    np.testing.assert_allclose(ta.hessian(f)(x), _hessian_by_differences(f, x), rtol=1e-6, atol=1e-8)


def test_jvp_of_grad_through_zero_size_while_carry():
    f = ta.grad(lambda y: tnp.sum(_while(y) ** 2))
    z = np.zeros((0,))
    primal, tangent = ta.jvp(f, (z,), (z,))
    assert primal.shape == tangent.shape == (0,)


@pytest.mark.parametrize("loop", ["fori_loop", "scan"])
def test_grad_of_grad_through_loop(loop):
    check_grads(lambda x: tnp.sum(LOOPS[loop](x) ** 2), (np.array([0.3, -0.7, 1.1]),), order=2,
                modes=("rev",))


def test_grad_of_grad_through_while_is_refused():
    # Its reverse carries an index (the tape's row count) and a tape of dynamic
    # size; reverse mode over that is refused with a way out, never wrong.
    f = ta.grad(lambda y: tnp.sum(_while(y) ** 2))
    with pytest.raises(CompileError, match="jvp of grad or hessian"):
        ta.grad(lambda x: tnp.sum(f(x)))(np.array([0.3, -0.7]))


@pytest.mark.parametrize("name", ["any", "all"])
@pytest.mark.parametrize("shape, kwargs", [((0,), {}), ((0, 3), {"axis": 0}), ((2, 0), {"axis": 1, "keepdims": True}),
                                           ((2, 0), {"axis": 0}), ((0, 2), {"axis": (0, 1)})])
def test_any_and_all_over_no_elements_are_their_identities(name, shape, kwargs):
    x = np.zeros(shape)
    want = getattr(np, name)(x, **kwargs)
    for got in (getattr(tnp, name)(x, **kwargs), ta.jit(lambda x: getattr(tnp, name)(x, **kwargs))(x)):
        assert got.dtype == np.bool_ and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
