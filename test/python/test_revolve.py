"""Binomial checkpointing (Revolve) of scf.for: the schedule, the gradients, the memory saved."""

from functools import lru_cache

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax
from tensorad.passes.remat import revolve
from tensorad.passes.remat.revolve import Kind
from tensorad.test_util import check_grads

RNG = np.random.default_rng(0)


def simulate(actions, steps: int, snapshots: int) -> None:
    """Run a schedule on step numbers: every step reversed once, in order, from its own state."""
    current, slots, reversed_steps = 0, {}, []
    for action in actions:
        if action.kind == Kind.ADVANCE:
            assert current == action.start < action.stop <= steps - 1, action
            current = action.stop
        elif action.kind == Kind.TAKESHOT:
            assert current == action.start and 0 <= action.slot < snapshots, action
            slots[action.slot] = current
        elif action.kind == Kind.RESTORE:
            assert slots.get(action.slot) == action.start, action
            current = action.start
        else:
            assert current == action.start and action.stop == action.start + 1, action
            assert (action.kind == Kind.FIRST_REVERSE) == (not reversed_steps), action
            reversed_steps.append(action.start)
            current = None  # a reversal consumes the state: the next action must restore
    assert reversed_steps == list(range(steps - 1, -1, -1))


def test_schedules_are_valid_and_take_griewanks_number_of_forward_steps():
    for steps in range(0, 201):
        for snapshots in range(1, 11):
            actions = revolve.schedule(steps, snapshots)
            simulate(actions, steps, snapshots)
            advanced = sum(a.stop - a.start for a in actions if a.kind == Kind.ADVANCE)
            assert advanced == revolve.forward_steps(steps, snapshots) \
                == revolve.griewank_forward_steps(steps, snapshots), (steps, snapshots)
    for steps, snapshots in ((1000, 10), (5000, 3), (3000, 2)):
        simulate(revolve.schedule(steps, snapshots), steps, snapshots)
        assert revolve.forward_steps(steps, snapshots) == \
            revolve.griewank_forward_steps(steps, snapshots)
    assert revolve.forward_steps(50, 50) == revolve.forward_steps(50, 80) == 49  # no recomputation


def test_griewanks_formula_is_the_optimum_of_every_split():
    @lru_cache(maxsize=None)
    def fewest(steps, snapshots):  # advance k, snapshot, reverse the rest; then the first k
        if steps <= 1:
            return 0
        if snapshots == 1:
            return steps * (steps - 1) // 2
        return min(k + fewest(steps - k, snapshots - 1) + fewest(k, snapshots)
                   for k in range(1, steps))

    for steps in range(1, 61):
        for snapshots in range(1, 6):
            assert revolve.forward_steps(steps, snapshots) == fewest(steps, snapshots)


def tanh_loop(steps, snapshots):
    def f(x, w):  # the body reads the induction variable, which starts at 2
        h = lax.fori_loop(2, steps + 2, lambda i, h: tnp.tanh(h * w + 0.1 * i), x,
                          snapshots=snapshots)
        return tnp.sum(h * h)
    return f


def two_carry_scan(snapshots):
    """Two carries read by the body, inputs xs, stacked outputs ys, loop-invariant weights."""
    def f(c0, w, xs):
        def step(carry, x):
            h, c = carry
            c = c * tnp.sin(w[0]) + x @ w
            h = tnp.tanh(h + c)
            return (h, c), h * c

        (h, c), ys = lax.scan(step, (c0, c0 * 0.5), xs, snapshots=snapshots)
        return tnp.sum(h) + tnp.sum(c * c) + tnp.sum(tnp.cos(ys))
    return f


def assert_same_gradients(make, args, argnums, snapshot_counts):
    expected = ta.grad(make(None), argnums=argnums)(*args)
    for snapshots in snapshot_counts:
        got = ta.grad(make(snapshots), argnums=argnums)(*args)
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g, e, rtol=1e-12, atol=1e-12, err_msg=f"{snapshots=}")


def test_fori_loop_gradients_equal_those_of_the_full_tape():
    x, w = RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3)
    # one snapshot; a few; l - 1 (nothing recomputed); s >= l (the full tape itself)
    assert_same_gradients(lambda s: tanh_loop(13, s), (x, w), (0, 1), (1, 3, 12, 40))
    assert_same_gradients(lambda s: tanh_loop(1, s), (x, w), (0, 1), (1,))


def test_scan_gradients_with_several_carries_equal_those_of_the_full_tape():
    c0, w = RNG.uniform(-1, 1, (2, 3)), RNG.uniform(-1, 1, (3, 3))
    xs = RNG.uniform(-1, 1, (11, 2, 3))
    assert_same_gradients(two_carry_scan, (c0, w, xs), (0, 1, 2), (2, 4))


def test_finite_differences_and_higher_order():
    x, w = RNG.uniform(-1, 1, 3), RNG.uniform(-1, 1, 3)
    check_grads(tanh_loop(9, 2), (x, w), order=2)  # also jvp and vjp of the Revolve derivative


def test_snapshots_cut_the_peak_memory_of_a_200_step_rnn():
    steps, batch, hidden, snapshots = 200, 8, 64, 5
    w = RNG.standard_normal((hidden, hidden)) * 0.1
    xs = RNG.standard_normal((steps, batch, hidden))

    def rnn(snapshots):
        def loss(w):
            h, _ = lax.scan(lambda h, x: (tnp.tanh(h @ w + x), None), tnp.zeros((batch, hidden)),
                            xs, snapshots=snapshots)
            return tnp.sum(h)
        return ta.jit(ta.grad(loss))

    grads, peaks = {}, {}
    for s in (None, snapshots):
        grads[s] = rnn(s)(w)
        peaks[s] = ta.last_call_stats().peak_live_bytes
    np.testing.assert_allclose(grads[snapshots], grads[None], rtol=1e-12)
    state = batch * hidden * 8
    assert peaks[snapshots] < 0.25 * peaks[None], peaks
    # The tape's 200 states give way to the 5 snapshots, the state the reversal starts from and
    # the state being recomputed (and a few bytes of bookkeeping).
    assert peaks[snapshots] <= peaks[None] - (steps - snapshots - 2) * state + state // 2, peaks


def test_generated_code_does_not_grow_with_the_steps():
    w, x = np.ones(4) * 0.5, np.ones(4)
    texts = [ta.grad(tanh_loop(steps, 10)).lower(x, w).as_text("differentiated")
             for steps in (100, 1000)]
    # Only the constant tables of the schedule differ.
    assert len(texts[0].splitlines()) == len(texts[1].splitlines())
    assert texts[0].count("math.tanh") == texts[1].count("math.tanh") == 3


def test_snapshots_need_a_static_trip_count():
    def f(x, n):
        return tnp.sum(lax.fori_loop(0, n, lambda i, c: tnp.tanh(c), x, snapshots=2))

    with pytest.raises(ta.CompileError, match=r"test_revolve.py\":\d+.*needs a loop with a "
                                              r"static trip count"):
        ta.grad(f)(np.ones(2), np.int64(3))
    with pytest.raises(ta.TracingError, match="snapshots must be at least 1"):
        ta.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c, x, snapshots=0))(np.ones(2))
