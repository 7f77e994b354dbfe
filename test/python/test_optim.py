"""tensorad.optim against hand-written numpy versions of optax's formulas.

Each optimizer runs a few steps inside ``ta.jit`` on a dict of parameters with
fixed gradients; the reference applies the textbook update with numpy in
float64 (bias correction, momentum, Nesterov, weight decay, clipping and
schedules included).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import optim

STEPS = 4
_rng = np.random.default_rng(0)
PARAMS = {"w": _rng.normal(size=3), "b": _rng.normal(size=(2, 2))}
# Varied sizes, so that clipping both passes and scales gradients.
GRADS = [{k: scale * _rng.normal(size=v.shape) for k, v in PARAMS.items()} for scale in (0.3, 1.0, 4.0, 0.5)]


def each(fn, *trees):
    """``fn`` on the matching entries of dicts."""
    return {k: fn(*(t[k] for t in trees)) for k in trees[0]}


def zeros():
    return each(np.zeros_like, PARAMS)


def run_tensorad(opt, params=PARAMS, grads=GRADS, jit=True):
    """The parameters after each step of ``opt``, the update compiled with ``ta.jit``
    (or run eagerly on numpy arrays)."""
    def step(params, state, g):
        updates, state = opt.update(g, state, params)
        return optim.apply_updates(params, updates), state

    step = ta.jit(step) if jit else step
    state, trajectory = opt.init(params), []
    for g in grads:
        params, state = step(params, state, g)
        trajectory.append(params)
    return trajectory


def run_reference(update, state):
    """The same with ``update(g, state, params, t) -> (updates, state)`` in numpy, ``t`` counting from 1."""
    params, trajectory = PARAMS, []
    for t, g in enumerate(GRADS, 1):
        u, state = update(g, state, params, t)
        params = each(np.add, params, u)
        trajectory.append(params)
    return trajectory


def assert_trajectories_close(got, want, rtol=1e-9):
    for step, (g, w) in enumerate(zip(got, want), 1):
        for k in w:
            np.testing.assert_allclose(g[k], w[k], rtol=rtol, atol=1e-12, err_msg=f"step {step}, {k!r}")


# --------------------------------------------------------------------------
# numpy references
# --------------------------------------------------------------------------

def sgd_ref(lr, momentum=None, nesterov=False):
    def update(g, trace, p, t):
        if momentum is None:
            return each(lambda g: -lr * g, g), trace
        trace = each(lambda g, tr: g + momentum * tr, g, trace)
        direction = each(lambda g, tr: g + momentum * tr, g, trace) if nesterov else trace
        return each(lambda d: -lr * d, direction), trace
    return update, zeros()


def adam_ref(lr, b1=0.9, b2=0.999, eps=1e-8, eps_root=0.0, weight_decay=0.0, nesterov=False):
    """Adam (AdamW with ``weight_decay``); ``lr`` is a function of the step count (from 0)."""
    def update(g, state, p, t):
        m = each(lambda g, m: (1 - b1) * g + b1 * m, g, state[0])
        v = each(lambda g, v: (1 - b2) * g ** 2 + b2 * v, g, state[1])
        if nesterov:
            m_hat = each(lambda m, g: b1 * m / (1 - b1 ** (t + 1)) + (1 - b1) * g / (1 - b1 ** t), m, g)
        else:
            m_hat = each(lambda m: m / (1 - b1 ** t), m)
        u = each(lambda mh, v, p: -lr(t - 1) * (mh / (np.sqrt(v / (1 - b2 ** t) + eps_root) + eps)
                                                + weight_decay * p), m_hat, v, p)
        return u, (m, v)
    return update, (zeros(), zeros())


def rmsprop_ref(lr, decay=0.9, eps=1e-8, initial_scale=0.0, momentum=None, nesterov=False):
    def update(g, state, p, t):
        v = each(lambda g, v: (1 - decay) * g ** 2 + decay * v, g, state[0])
        u = each(lambda g, v: -lr * g / np.sqrt(v + eps), g, v)
        trace = state[1]
        if momentum is not None:
            trace = each(lambda u, tr: u + momentum * tr, u, trace)
            u = each(lambda u, tr: u + momentum * tr, u, trace) if nesterov else trace
        return u, (v, trace)
    return update, (each(lambda p: np.full_like(p, initial_scale), PARAMS), zeros())


def adagrad_ref(lr, initial=0.1, eps=1e-7):
    def update(g, s, p, t):
        s = each(lambda g, s: s + g ** 2, g, s)
        return each(lambda g, s: -lr * g * np.where(s > 0, 1 / np.sqrt(s + eps), 0.0), g, s), s
    return update, each(lambda p: np.full_like(p, initial), PARAMS)


def lion_ref(lr, b1=0.9, b2=0.99, weight_decay=1e-3):
    def update(g, m, p, t):
        u = each(lambda g, m, p: -lr * (np.sign((1 - b1) * g + b1 * m) + weight_decay * p), g, m, p)
        return u, each(lambda g, m: (1 - b2) * g + b2 * m, g, m)
    return update, zeros()


def clipped(max_norm, inner):
    """``inner``'s update on gradients scaled to a global norm of at most ``max_norm``."""
    update, state = inner
    clipped_steps = []

    def clipped_update(g, state, p, t):
        norm = math.sqrt(sum(np.sum(x ** 2) for x in g.values()))
        clipped_steps.append(norm >= max_norm)
        if norm >= max_norm:
            g = each(lambda x: x / norm * max_norm, g)
        return update(g, state, p, t)
    return clipped_update, state, clipped_steps


def constant(lr):
    return lambda count: lr


# --------------------------------------------------------------------------
# Optimizers
# --------------------------------------------------------------------------

@pytest.mark.parametrize("opt, reference", [
    (optim.sgd(0.1), sgd_ref(0.1)),
    (optim.sgd(0.1, momentum=0.9), sgd_ref(0.1, momentum=0.9)),
    (optim.sgd(0.1, momentum=0.8, nesterov=True), sgd_ref(0.1, momentum=0.8, nesterov=True)),
    (optim.adam(0.05), adam_ref(constant(0.05))),
    (optim.adam(0.05, b1=0.5, b2=0.9, eps=1e-3, eps_root=1e-4),
     adam_ref(constant(0.05), 0.5, 0.9, 1e-3, 1e-4)),
    (optim.adam(0.05, nesterov=True), adam_ref(constant(0.05), nesterov=True)),
    (optim.adamw(0.05), adam_ref(constant(0.05), weight_decay=1e-4)),
    (optim.adamw(0.05, weight_decay=0.3), adam_ref(constant(0.05), weight_decay=0.3)),
    (optim.rmsprop(0.01), rmsprop_ref(0.01)),
    (optim.rmsprop(0.01, decay=0.5, eps=1e-4, initial_scale=1.0, momentum=0.9),
     rmsprop_ref(0.01, 0.5, 1e-4, 1.0, momentum=0.9)),
    (optim.rmsprop(0.01, momentum=0.7, nesterov=True), rmsprop_ref(0.01, momentum=0.7, nesterov=True)),
    (optim.adagrad(0.2), adagrad_ref(0.2)),
    (optim.adagrad(0.2, initial_accumulator_value=0.0, eps=0.0), adagrad_ref(0.2, 0.0, 0.0)),
    (optim.lion(0.01), lion_ref(0.01)),
    (optim.lion(0.01, b1=0.5, b2=0.9, weight_decay=0.1), lion_ref(0.01, 0.5, 0.9, 0.1)),
], ids=["sgd", "sgd-momentum", "sgd-nesterov", "adam", "adam-options", "nadam", "adamw",
        "adamw-decay", "rmsprop", "rmsprop-momentum", "rmsprop-nesterov", "adagrad", "adagrad-zero",
        "lion", "lion-options"])
def test_optimizer_matches_numpy_reference(opt, reference):
    assert_trajectories_close(run_tensorad(opt), run_reference(*reference))


def test_clip_by_global_norm_then_sgd():
    update, state, clipped_steps = clipped(2.5, sgd_ref(0.1, momentum=0.9))
    want = run_reference(update, state)
    assert set(clipped_steps) == {False, True}  # both branches are checked
    got = run_tensorad(optim.chain(optim.clip_by_global_norm(2.5), optim.sgd(0.1, momentum=0.9)))
    assert_trajectories_close(got, want)


def test_adam_with_schedule_counts_steps_from_zero():
    schedule = optim.exponential_decay(0.1, transition_steps=1, decay_rate=0.5)
    got = run_tensorad(optim.adam(schedule))
    assert_trajectories_close(got, run_reference(*adam_ref(lambda count: 0.1 * 0.5 ** count)))


def test_float32_parameters_stay_float32():
    params = {k: v.astype(np.float32) for k, v in PARAMS.items()}
    grads = [{k: v.astype(np.float32) for k, v in g.items()} for g in GRADS]
    opt = optim.chain(optim.clip_by_global_norm(2.5), optim.adamw(optim.cosine_decay_schedule(0.05, 10)))
    got = run_tensorad(opt, params, grads)
    update, state, _ = clipped(2.5, adam_ref(lambda n: 0.05 * 0.5 * (1 + math.cos(math.pi * n / 10)),
                                             weight_decay=1e-4))
    want = run_reference(update, state)
    assert all(leaf.dtype == np.float32 for p in got for leaf in p.values())
    assert_trajectories_close(got, want, rtol=1e-5)


def test_state_layout_follows_optax():
    state = optim.adam(0.1).init(PARAMS)
    adam_state, lr_state = state
    assert isinstance(adam_state, optim.ScaleByAdamState) and isinstance(lr_state, optim.EmptyState)
    assert adam_state.count.dtype == np.int32 and adam_state.count.shape == ()
    assert set(adam_state.mu) == {"w", "b"} and not adam_state.nu["b"].any()
    schedule_state = optim.sgd(optim.constant_schedule(0.1)).init(PARAMS)[1]
    assert isinstance(schedule_state, optim.ScaleByScheduleState)


def test_update_runs_on_numpy_arrays_where_no_traced_math_is_needed():
    # sgd, momentum, weight decay and apply_updates use only array operators.
    opt = optim.chain(optim.add_decayed_weights(0.5), optim.sgd(0.1, momentum=0.9))
    updates, state = opt.update(GRADS[0], opt.init(PARAMS), PARAMS)
    new = optim.apply_updates(PARAMS, updates)
    want = each(lambda p, g: p - 0.1 * (g + 0.5 * p), PARAMS, GRADS[0])
    for k in want:
        np.testing.assert_allclose(new[k], want[k], rtol=1e-12)


@pytest.mark.parametrize("opt, reference", [
    (optim.adam(0.05, nesterov=True), adam_ref(constant(0.05), nesterov=True)),
    (optim.lion(0.01), lion_ref(0.01)),
    (optim.adagrad(0.2), adagrad_ref(0.2)),
], ids=["nadam", "lion", "adagrad"])
def test_update_runs_eagerly_on_numpy_arrays(opt, reference):
    assert_trajectories_close(run_tensorad(opt, jit=False), run_reference(*reference))


def test_global_norm_and_safe_increment():
    norm = ta.jit(optim.global_norm)(GRADS[2])
    np.testing.assert_allclose(norm, math.sqrt(sum(np.sum(g ** 2) for g in GRADS[2].values())), rtol=1e-12)
    counts = np.array([0, 41, np.iinfo(np.int32).max], np.int32)
    np.testing.assert_array_equal(ta.jit(optim.safe_increment)(counts), [1, 42, np.iinfo(np.int32).max])


# --------------------------------------------------------------------------
# Schedules, evaluated at chosen steps in one call
# --------------------------------------------------------------------------

COUNTS = np.array([0, 1, 2, 5, 9, 10, 11, 15, 20, 30, 100], np.int32)


def cosine_ref(init, steps, alpha=0.0, exponent=1.0):
    def fn(n):
        n = min(n, steps)
        return init * ((1 - alpha) * (0.5 * (1 + math.cos(math.pi * n / steps))) ** exponent + alpha)
    return fn


def linear_ref(init, end, steps, begin=0, power=1.0):
    return lambda n: (init - end) * (1 - min(max(n - begin, 0), steps) / steps) ** power + end


def exponential_ref(init, steps, rate, begin=0, staircase=False, end=None):
    def fn(n):
        if n <= begin:
            return init
        exponent = (n - begin) / steps
        value = init * rate ** (math.floor(exponent) if staircase else exponent)
        if end is not None:
            value = max(value, end) if rate < 1 else min(value, end)
        return value
    return fn


def warmup_cosine_ref(init, peak, warmup, steps, end=0.0):
    decay = cosine_ref(peak, steps - warmup, end / peak)
    return lambda n: init + (peak - init) * n / warmup if n < warmup else decay(n - warmup)


@pytest.mark.parametrize("schedule, reference", [
    (optim.exponential_decay(0.1, 10, 0.5), exponential_ref(0.1, 10, 0.5)),
    (optim.exponential_decay(0.1, 10, 0.5, staircase=True), exponential_ref(0.1, 10, 0.5, staircase=True)),
    (optim.exponential_decay(0.1, 4, 0.5, transition_begin=5, end_value=0.01),
     exponential_ref(0.1, 4, 0.5, begin=5, end=0.01)),
    (optim.exponential_decay(0.1, 4, 2.0, end_value=1.0), exponential_ref(0.1, 4, 2.0, end=1.0)),
    (optim.cosine_decay_schedule(0.1, 20), cosine_ref(0.1, 20)),
    (optim.cosine_decay_schedule(0.1, 20, alpha=0.1, exponent=2.0), cosine_ref(0.1, 20, 0.1, 2.0)),
    (optim.linear_schedule(0.1, 0.02, 10), linear_ref(0.1, 0.02, 10)),
    (optim.linear_schedule(0.0, 1.0, 10, transition_begin=5), linear_ref(0.0, 1.0, 10, 5)),
    (optim.polynomial_schedule(1.0, 0.1, 3, 20), linear_ref(1.0, 0.1, 20, power=3.0)),
    (optim.warmup_cosine_decay_schedule(0.0, 0.1, 10, 30, end_value=0.01),
     warmup_cosine_ref(0.0, 0.1, 10, 30, 0.01)),
    (optim.warmup_cosine_decay_schedule(0.02, 0.1, 0, 20), cosine_ref(0.1, 20)),
    (optim.join_schedules([optim.constant_schedule(1.0), optim.linear_schedule(1.0, 0.0, 10)], [5]),
     lambda n: 1.0 if n < 5 else linear_ref(1.0, 0.0, 10)(n - 5)),
], ids=["exponential", "staircase", "begin-end", "growing", "cosine", "cosine-alpha", "linear",
        "linear-begin", "polynomial", "warmup-cosine", "no-warmup", "join"])
def test_schedule_values(schedule, reference):
    got = ta.jit(schedule)(COUNTS)
    np.testing.assert_allclose(got, [reference(int(n)) for n in COUNTS], rtol=1e-12, atol=1e-15)


def test_constant_schedule():
    assert optim.constant_schedule(0.3)(np.int32(7)) == 0.3


# --------------------------------------------------------------------------
# A training step: gradient, update and apply_updates in one compiled function
# --------------------------------------------------------------------------

def test_jitted_training_step_decreases_the_loss():
    rng = np.random.default_rng(1)
    x = rng.normal(size=(64, 5)).astype(np.float32)
    y = np.tanh(x @ rng.normal(size=(5, 1))).astype(np.float32)
    params = {"hidden": {"w": (0.5 * rng.normal(size=(5, 16))).astype(np.float32),
                         "b": np.zeros(16, np.float32)},
              "out": {"w": (0.5 * rng.normal(size=(16, 1))).astype(np.float32), "b": np.zeros(1, np.float32)}}

    def loss(params, x, y):
        h = tnp.tanh(x @ params["hidden"]["w"] + params["hidden"]["b"])
        return tnp.mean((h @ params["out"]["w"] + params["out"]["b"] - y) ** 2)

    opt = optim.chain(optim.clip_by_global_norm(1.0),
                      optim.adam(optim.warmup_cosine_decay_schedule(0.0, 0.05, 5, 60)))
    traces = []

    @ta.jit
    def step(params, state, x, y):
        traces.append(1)
        value, grads = ta.value_and_grad(loss)(params, x, y)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    state, losses = opt.init(params), []
    for _ in range(60):
        params, state, value = step(params, state, x, y)
        losses.append(float(value))
    assert len(traces) == 1  # the step counts are arrays: one compilation
    assert int(state[1][0].count) == 60 and params["out"]["w"].dtype == np.float32
    assert losses[-1] < 0.2 * losses[0], losses


# --------------------------------------------------------------------------
# Errors
# --------------------------------------------------------------------------

@pytest.mark.parametrize("make, error, match", [
    (lambda: optim.adam(0.1, beta1=0.9), TypeError, "beta1"),
    (lambda: optim.adamw(0.1, 0.9, 0.999, 1e-8, 0.0, 1e-2), TypeError, "positional"),
    (lambda: optim.adam("0.1"), TypeError, "learning_rate must be a number or a schedule"),
    (lambda: optim.sgd(True), TypeError, "learning_rate"),
    (lambda: optim.adam(0.1, b1="0.9"), TypeError, "scale_by_adam: b1 must be a real number"),
    (lambda: optim.sgd(0.1, nesterov=True), ValueError, "nesterov=True needs a momentum"),
    (lambda: optim.rmsprop(0.1, nesterov=True), ValueError, "nesterov=True needs a momentum"),
    (lambda: optim.clip_by_global_norm(0.0), ValueError, "max_norm must be positive"),
    (lambda: optim.chain(optim.sgd(0.1), "adam"), TypeError, "argument 1 is a str"),
    (lambda: optim.scale_by_schedule(0.1), TypeError, "function of the step count"),
    (lambda: optim.cosine_decay_schedule(0.1, 0), ValueError, "decay_steps must be a whole number"),
    (lambda: optim.exponential_decay(0.1, 10, -0.5), ValueError, "decay_rate must be positive"),
    (lambda: optim.exponential_decay(0.1, 2.5, 0.5), ValueError, "transition_steps"),
    (lambda: optim.linear_schedule(0.1, 0.0, 10, transition_begin=-1), ValueError, "transition_begin"),
    (lambda: optim.warmup_cosine_decay_schedule(0.0, 0.1, 10, 10), ValueError, "decay_steps"),
    (lambda: optim.join_schedules([optim.constant_schedule(1.0)], [5]), ValueError, "boundaries"),
], ids=["unknown-keyword", "too-many-positional", "string-rate", "bool-rate", "string-b1",
        "sgd-nesterov", "rmsprop-nesterov", "clip-norm", "chain-arg", "schedule-not-callable",
        "cosine-steps", "decay-rate", "fractional-steps", "negative-begin", "warmup-too-long", "join"])
def test_bad_arguments(make, error, match):
    with pytest.raises(error, match=match):
        make()


def test_adamw_update_needs_params():
    opt = optim.adamw(0.1)
    with pytest.raises(ValueError, match="add_decayed_weights needs the current parameters"):
        ta.jit(lambda g, s: opt.update(g, s))(GRADS[0], opt.init(PARAMS))


def test_state_of_another_optimizer_is_refused():
    with pytest.raises(TypeError, match="trace.update: expected the TraceState"):
        optim.sgd(0.1, momentum=0.9).update(GRADS[0], optim.adam(0.1).init(PARAMS))
    with pytest.raises(ValueError, match="chain of 3 transformations"):
        optim.rmsprop(0.1).update(GRADS[0], optim.adam(0.1).init(PARAMS))


def test_mismatched_pytrees_are_refused():
    opt = optim.sgd(0.1, momentum=0.9)
    with pytest.raises(ValueError, match="different pytree structures"):
        opt.update({"w": GRADS[0]["w"]}, opt.init(PARAMS))
    with pytest.raises(ValueError, match="different pytree structures"):
        optim.apply_updates(PARAMS, [GRADS[0]["w"], GRADS[0]["b"]])
