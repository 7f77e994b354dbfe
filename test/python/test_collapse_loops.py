"""Ops whose loops tad-collapse-loops merges (contractions and others) compute what numpy computes, forward and back."""

from __future__ import annotations

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp

RNG = np.random.default_rng(7)


def _array(*shape, dtype=np.float64):
    return RNG.standard_normal(shape).astype(dtype)


CASES = {
    # (function of tnp, the same with numpy, operand shapes)
    "3-d @ 2-d": (lambda x, w: x @ w, lambda x, w: x @ w, [(3, 5, 7), (7, 4)]),
    "two contracting dims": (lambda x, c: tnp.tensordot(x, c, axes=([0, 1], [0, 1])),
                             lambda x, c: np.tensordot(x, c, axes=([0, 1], [0, 1])), [(3, 5, 7), (3, 5, 4)]),
    "reshape into the product": (lambda x, c: x.reshape(15, 7).T @ c.reshape(15, 4),
                                 lambda x, c: x.reshape(15, 7).T @ c.reshape(15, 4), [(3, 5, 7), (3, 5, 4)]),
    "two batch dims": (lambda q, k: q @ tnp.transpose(k, (0, 1, 3, 2)),
                       lambda q, k: q @ np.transpose(k, (0, 1, 3, 2)), [(2, 3, 5, 6), (2, 3, 4, 6)]),
    "einsum over three dims": (lambda a, b: tnp.einsum("abcij,abcjk->ik", a, b),
                               lambda a, b: np.einsum("abcij,abcjk->ik", a, b), [(2, 2, 3, 4, 5), (2, 2, 3, 5, 6)]),
    "out-of-order dims (left alone)": (lambda x, c: tnp.tensordot(x, c, axes=([1, 0], [0, 1])),
                                       lambda x, c: np.tensordot(x, c, axes=([1, 0], [0, 1])), [(3, 5, 7), (5, 3, 4)]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_values_and_gradients_match_numpy(name):
    f, reference, shapes = CASES[name]
    args = [_array(*s) for s in shapes]
    np.testing.assert_allclose(ta.jit(f)(*args), reference(*args), rtol=1e-12, atol=1e-12)
    # The gradient of <f(args), cotangent> with respect to each argument, against numpy's
    # product rule through forward differences of the (linear) function.
    cotangent = _array(*np.shape(reference(*args)))
    grads = ta.jit(ta.grad(lambda *a: (f(*a) * cotangent).sum(), argnums=tuple(range(len(args)))))(*args)
    for k, (arg, grad) in enumerate(zip(args, grads)):
        expected = np.zeros_like(arg)
        for index in np.ndindex(arg.shape):
            basis = [a.copy() if i != k else np.zeros_like(a) for i, a in enumerate(args)]
            basis[k][index] = 1.0
            expected[index] = (reference(*basis) * cotangent).sum()
        np.testing.assert_allclose(grad, expected, rtol=1e-12, atol=1e-12)


def test_float32_weight_gradient_of_a_3d_product_matches_the_2d_one():
    x, c = _array(8, 128, 64, dtype=np.float32), _array(8, 128, 96, dtype=np.float32)
    three = ta.jit(lambda x, c: tnp.tensordot(x, c, axes=([0, 1], [0, 1])))(x, c)
    two = ta.jit(lambda x, c: x.T @ c)(x.reshape(-1, 64), c.reshape(-1, 96))
    np.testing.assert_allclose(three, two, rtol=1e-6, atol=1e-4)
    np.testing.assert_allclose(three, np.tensordot(x.astype(np.float64), c, axes=([0, 1], [0, 1])),
                               rtol=1e-4, atol=1e-3)


def _random_einsum(rng):
    """A two-operand einsum spec over 3-6 letters, some dims out of order, and its operand sizes."""
    while True:
        letters = "abcdef"[:int(rng.integers(3, 7))]
        sizes = {letter: int(rng.integers(1, 6)) for letter in letters}
        lhs, rhs = [], []
        for letter in letters:
            side = rng.integers(0, 3)
            if side in (0, 2):
                lhs.append(letter)
            if side in (1, 2):
                rhs.append(letter)
        if lhs and rhs:
            break
    for operand in (lhs, rhs):
        if rng.random() < 0.3:
            rng.shuffle(operand)
    shared = [c for c in letters if c in lhs and c in rhs]
    out = [c for c in letters if (c in lhs) != (c in rhs)] + [c for c in shared if rng.random() < 0.4]
    return f"{''.join(lhs)},{''.join(rhs)}->{''.join(out)}", sizes


@pytest.mark.parametrize("seed", range(12))
def test_random_einsums_and_their_gradients_match_numpy(seed):
    rng = np.random.default_rng(seed)
    spec, sizes = _random_einsum(rng)
    (lhs, rhs), out = spec.split("->")[0].split(","), spec.split("->")[1]
    a = rng.standard_normal([sizes[c] for c in lhs])
    b = rng.standard_normal([sizes[c] for c in rhs])
    expected = np.einsum(spec, a, b)
    np.testing.assert_allclose(ta.jit(lambda a, b: tnp.einsum(spec, a, b))(a, b), expected, rtol=1e-10, atol=1e-10)
    cotangent = rng.standard_normal(expected.shape)
    ga, gb = ta.jit(ta.grad(lambda a, b: (tnp.einsum(spec, a, b) * cotangent).sum(), argnums=(0, 1)))(a, b)
    # Each gradient is the einsum of the other operand with the cotangent (a letter of one
    # operand alone is always in the output, so every letter of the gradient is there).
    np.testing.assert_allclose(ga, np.einsum(f"{rhs},{out}->{lhs}", b, cotangent), rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(gb, np.einsum(f"{lhs},{out}->{rhs}", a, cotangent), rtol=1e-10, atol=1e-10)


def _softmax(xp, x):
    e = xp.exp(x - xp.max(x, axis=-1, keepdims=True))
    return e / xp.sum(e, axis=-1, keepdims=True)


OTHER_CASES = {
    # (function of an array namespace, operand shapes): loops (batch, seq) read together.
    "bias and tanh": (lambda xp, x, b: xp.tanh(x + b), [(4, 6, 8), (8,)]),
    "bias gradient sum": (lambda xp, x: xp.sum(x * x, axis=(0, 1)), [(4, 6, 8)]),
    "middle-axis mean": (lambda xp, x: xp.mean(xp.sin(x), axis=1), [(4, 3, 8)]),
    "softmax over heads": (lambda xp, x: _softmax(xp, x), [(2, 3, 5, 7)]),
    "row broadcast": (lambda xp, x, r: x * r[:, :, None], [(3, 5, 4), (3, 5)]),
}


@pytest.mark.parametrize("name", list(OTHER_CASES))
def test_other_ops_with_merged_loops_match_numpy(name):
    f, shapes = OTHER_CASES[name]
    args = [_array(*s) for s in shapes]
    np.testing.assert_allclose(ta.jit(lambda *a: f(tnp, *a))(*args), f(np, *args), rtol=1e-12, atol=1e-12)
    # Gradients against central differences of the numpy function (smooth, float64).
    cotangent = _array(*np.shape(f(np, *args)))
    grads = ta.jit(ta.grad(lambda *a: (f(tnp, *a) * cotangent).sum(), argnums=tuple(range(len(args)))))(*args)
    step = 1e-6
    for k, (arg, grad) in enumerate(zip(args, grads)):
        expected = np.zeros_like(arg)
        for index in np.ndindex(arg.shape):
            up, down = [a.copy() for a in args], [a.copy() for a in args]
            up[k][index] += step
            down[k][index] -= step
            expected[index] = ((f(np, *up) - f(np, *down)) * cotangent).sum() / (2 * step)
        np.testing.assert_allclose(grad, expected, rtol=1e-6, atol=1e-7)
