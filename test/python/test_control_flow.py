"""tensorad.lax control flow: tracing, both modes of differentiation, tapes and their memory."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax
from tensorad.test_util import check_grads

RNG = np.random.default_rng(0)


def test_forward_values_match_python_loops():
    x = RNG.standard_normal(3)
    np.testing.assert_allclose(ta.jit(lambda x: lax.fori_loop(1, 4, lambda i, c: c * i + 1.0, x))(x),
                               ((x * 1 + 1) * 2 + 1) * 3 + 1)
    carry, ys = ta.jit(lambda xs: lax.scan(lambda c, x: (c + x, c * x), tnp.zeros(()), xs))(
        np.arange(4.0))
    np.testing.assert_allclose(carry, 6.0)
    np.testing.assert_allclose(ys, [0.0, 0.0, 2.0, 9.0])  # y uses the carry before the update
    np.testing.assert_allclose(
        ta.jit(lambda n: lax.while_loop(lambda v: v < 100, lambda v: v * 3, n))(np.int64(2)), 162)
    branches = [lambda v: v + 1.0, lambda v: v * 10.0, lambda v: -v]
    switched = ta.jit(lambda k, x: lax.switch(k, branches, x))
    assert [float(switched(np.int64(k), 2.0)) for k in (-5, 0, 1, 2, 9)] == [3.0, 3.0, 20.0, -2.0,
                                                                            -2.0]


def test_pytree_carries():
    def f(x):
        state = {"sum": tnp.zeros(()), "prod": tnp.ones(())}
        out = lax.fori_loop(0, 3, lambda i, s: {"sum": s["sum"] + x[i], "prod": s["prod"] * x[i]},
                            state)
        return out["sum"], out["prod"]

    np.testing.assert_allclose(ta.jit(f)(np.array([1.0, 2.0, 3.0])), (6.0, 6.0))


def test_mismatched_carries_are_reported_at_the_users_line():
    def f(x):
        return lax.fori_loop(0, 2, lambda i, c: c.astype(np.float32), x)  # this line is reported

    with pytest.raises(ta.TracingError, match=r"test_control_flow.py:\d+.*float32\[3\]"):
        ta.jit(f)(np.ones(3))
    with pytest.raises(ta.TracingError, match="cond branches return different types"):
        ta.jit(lambda x: lax.cond(x.sum() > 0, lambda v: v, lambda v: v[:2], x))(np.ones(3))


def rnn_loss(w, u, xs):
    """A tanh RNN written with scan; the loss reads every hidden state."""
    def step(h, x):
        h = tnp.tanh(h @ w + x @ u)
        return h, tnp.sum(h * h)

    h, per_step = lax.scan(step, tnp.zeros((xs.shape[1], w.shape[0])), xs)
    return tnp.sum(h) + tnp.mean(per_step)


def test_rnn_of_50_steps_gradients():
    w = RNG.standard_normal((6, 6)) * 0.3
    u = RNG.standard_normal((4, 6)) * 0.3
    xs = RNG.standard_normal((50, 3, 4))
    check_grads(lambda w, u: rnn_loss(w, u, xs), (w, u), order=1)


def test_power_iteration_with_fori_loop():
    a = RNG.standard_normal((4, 4))
    a = a @ a.T

    def top_eigenvalue(m):
        v = lax.fori_loop(0, 30, lambda i, v: (m @ v) / tnp.sqrt(tnp.sum((m @ v) ** 2)),
                          tnp.ones(4) / 2.0)
        return v @ m @ v

    value = ta.jit(top_eigenvalue)(a)
    np.testing.assert_allclose(value, np.linalg.eigvalsh(a)[-1], rtol=1e-6)
    check_grads(top_eigenvalue, (a,), order=1, rtol=1e-4)


def test_newton_sqrt_with_while_loop():
    def newton_sqrt(a):
        return lax.while_loop(lambda y: tnp.abs(y * y - a) > 1e-12, lambda y: 0.5 * (y + a / y), a)

    for a in (0.5, 2.0, 9.0):
        np.testing.assert_allclose(ta.jit(newton_sqrt)(a), np.sqrt(a))
        np.testing.assert_allclose(ta.grad(newton_sqrt)(a), 0.5 / np.sqrt(a), rtol=1e-10)


def test_nested_loops_and_cond_inside_a_loop():
    def f(x):
        def outer(i, c):
            inner = lax.fori_loop(0, 3, lambda j, d: tnp.sin(d) * x + d * 0.5, c)
            return lax.cond(tnp.sum(inner) > 0, lambda v: v * 1.5, lambda v: tnp.cos(v), inner)
        return lax.fori_loop(0, 2, outer, x)

    check_grads(f, (np.array([0.3, -0.2, 0.8]),), order=2)


def test_switch_and_while_in_both_modes():
    branches = [lambda v: v * v, lambda v: tnp.sin(v), lambda v: tnp.exp(-v)]
    for k in range(3):
        check_grads(lambda x, k=k: lax.switch(np.int64(k), branches, x), (np.array([0.4, 1.1]),))
    check_grads(lambda x: lax.while_loop(lambda v: v.sum() < 50.0, lambda v: v * 1.3 + tnp.sin(v), x),
                (np.array([0.3, 0.7]),), order=1)


def test_dynamic_trip_count():
    f = lambda x, n: tnp.sum(lax.fori_loop(0, n, lambda i, c: tnp.tanh(c) * x + 0.1, x))  # noqa: E731
    x = np.array([0.2, -0.5])
    for n in (0, 1, 7):
        eps = 1e-6
        numeric = [(ta.jit(f)(x + eps * e, np.int64(n)) - ta.jit(f)(x - eps * e, np.int64(n)))
                   / (2 * eps) for e in np.eye(2)]
        np.testing.assert_allclose(ta.grad(f)(x, np.int64(n)), numeric, rtol=1e-6, atol=1e-9)


STEPS = [lambda c, x: tnp.tanh(c * 1.1 + x),
         lambda c, x: c * tnp.cos(x) + 0.2,
         lambda c, x: lax.cond(tnp.sum(c) > 0.0, lambda v: v * 0.9, lambda v: v + 0.5, c),
         lambda c, x: c / (1.5 + c * c),
         lambda c, x: tnp.maximum(c, x * 0.5)]


@settings(max_examples=8, deadline=None)
@given(kinds=st.lists(st.integers(0, len(STEPS) - 1), min_size=1, max_size=3),
       length=st.integers(1, 6), seed=st.integers(0, 1000))
def test_forward_and_reverse_agree_on_random_loop_programs(kinds, length, seed):
    def program(c0, xs):
        def body(c, x):
            for k in kinds:
                c = STEPS[k](c, x)
            return c, c * x
        c, ys = lax.scan(body, c0, xs)
        return tnp.sum(c) + tnp.sum(ys)

    rng = np.random.default_rng(seed)
    check_grads(program, (rng.uniform(-1, 1, 3), rng.uniform(-1, 1, (length, 3))), order=1,
                rtol=1e-5, atol=1e-7)


def test_tape_of_a_1000_step_scan_is_what_the_backward_pass_needs():
    batch, hidden, steps = 8, 64, 1000
    w = RNG.standard_normal((hidden, hidden)) * 0.1
    xs = RNG.standard_normal((steps, batch, hidden))

    def loss(w):
        h, _ = lax.scan(lambda h, x: (tnp.tanh(h @ w + x), None), tnp.zeros((batch, hidden)), xs)
        return tnp.sum(h)

    grad = ta.grad(loss)
    text = grad.lower(w).as_text("differentiated")
    # Only the hidden states are taped, the final one too: the backward pass reads each step's
    # tanh from the next row instead of replaying the step's matmul, and stores nothing more.
    tape = f"tensor.empty() : tensor<{steps + 1}x{batch}x{hidden}xf64>"
    assert text.count("tensor.empty()") == 1 and tape in text
    backward = text[text.rindex("scf.for"):]
    assert backward.count("tad.dot_general") == 2 and "math.tanh" not in backward  # dW and dh; no replay
    grad(w)
    # The tape, and the deltas of every step stacked for dW's one contraction after the loop.
    predicted = 2 * (steps + 1) * batch * hidden * 8
    peak = ta.last_call_stats().peak_live_bytes
    assert predicted <= peak <= 1.1 * predicted, (peak, predicted)


def test_loop_inside_a_branch_and_branch_inside_a_while():
    def f(x):
        looped = lambda v: lax.fori_loop(0, 3, lambda i, c: tnp.sin(c) + v, v)  # noqa: E731
        y = lax.cond(tnp.sum(x) > 0, looped, lambda v: v * v, x)
        return lax.while_loop(lambda v: tnp.sum(v) < 20.0,
                              lambda v: lax.cond(v[0] > 1.0, lambda u: u * 1.5, lambda u: u + 1.0, v), y)

    check_grads(f, (np.array([0.4, 0.9]),), order=1)
    check_grads(f, (np.array([-0.4, -0.9]),), order=1)


# --- recurrent networks: residual tapes and tad-batch-loop-rows ----------------------------

def _lstm_loss(params, xs, reverse=False):
    """An LSTM over ``xs`` (steps, batch, inputs), four gates from two contractions per step."""
    w, u, b = params["w"], params["u"], params["b"]
    hidden = w.shape[0]

    def cell(carry, x):
        h, c = carry
        gates = h @ w + x @ u + b
        i, f, g, o = (gates[:, k * hidden:(k + 1) * hidden] for k in range(4))
        c = ta.nn.sigmoid(f) * c + ta.nn.sigmoid(i) * tnp.tanh(g)
        h = ta.nn.sigmoid(o) * tnp.tanh(c)
        return (h, c), tnp.sum(h * h)

    zeros = tnp.zeros((xs.shape[1], hidden))
    (h, _), per_step = lax.scan(cell, (zeros, zeros), xs, reverse=reverse)
    return tnp.sum(h) + tnp.sum(per_step)


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_gradient_with_rows_batched_out_of_its_loops(reverse):
    hidden, inputs, batch, steps = 3, 2, 2, 5
    params = {"w": RNG.standard_normal((hidden, 4 * hidden)) * 0.5,
              "u": RNG.standard_normal((inputs, 4 * hidden)) * 0.5, "b": RNG.standard_normal(4 * hidden) * 0.1}
    xs = RNG.standard_normal((steps, batch, inputs))
    loss = lambda p, xs: _lstm_loss(p, xs, reverse)  # noqa: E731
    value_and_grad = ta.value_and_grad(loss)
    text = value_and_grad.lower(params, xs).as_text("differentiated")
    backward = text[text.rindex("scf.for"):]
    # Per backward step only the contraction that carries the state back (dh @ w.T); the weight gradients
    # are one contraction each after the loop, the input projection one before the forward loop.
    assert backward[:backward.index("scf.yield")].count("tad.dot_general") == 1
    assert text[:text.index("scf.for")].count("tad.dot_general") == 1
    check_grads(loss, (params, xs), order=1, modes=("rev",))
    value, _ = value_and_grad(params, xs)
    np.testing.assert_allclose(value, ta.jit(loss)(params, xs), rtol=1e-12)


def test_batched_rows_under_vmap_and_jacobian():
    w = RNG.standard_normal((3, 3)) * 0.5
    u = RNG.standard_normal((2, 3))
    xs = RNG.standard_normal((4, 5, 2))  # per example: 4 steps of batch 5

    def loss(w, u, xs):
        h, _ = lax.scan(lambda h, x: (tnp.tanh(h @ w + x @ u), None), tnp.zeros((xs.shape[1], 3)), xs)
        return tnp.sum(h, axis=0)

    jac = ta.jit(ta.jacrev(loss, argnums=(0, 1)))(w, u, xs)
    steps = 1e-6
    for which, (arg, got) in enumerate(zip((w, u), jac)):
        for idx in np.ndindex(arg.shape):
            bumped = [w.copy(), u.copy()]
            bumped[which][idx] += steps
            lowered = [w.copy(), u.copy()]
            lowered[which][idx] -= steps
            numeric = (np.asarray(ta.jit(loss)(*bumped, xs)) - np.asarray(ta.jit(loss)(*lowered, xs))) / (2 * steps)
            np.testing.assert_allclose(got[(...,) + idx], numeric, rtol=1e-6, atol=1e-8)
    per_example = ta.jit(ta.vmap(ta.grad(lambda w, u, xs: tnp.sum(loss(w, u, xs))), in_axes=(None, None, 0)))
    batch = np.stack([xs, xs * 0.5])
    got = per_example(w, u, batch)
    for k in range(2):
        np.testing.assert_allclose(got[k], ta.grad(lambda w: tnp.sum(loss(w, u, batch[k])))(w), rtol=1e-10)
