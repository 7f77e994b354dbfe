"""Binomial checkpointing (Revolve) of a tanh RNN: peak memory and forward steps against store-all.

1000 steps, batch 32, input 64, hidden 256, float32, written with
``tensorad.lax.scan(..., snapshots=s)``. For store-all (the default tape) and
for s = 10, 20, 40 snapshots it prints the measured peak live bytes of the
gradient, the forward steps of the schedule against Griewank's formula
r·l − β(s+1, r−1), the body evaluations of the whole gradient (forward steps
+ l reversals + the forward sweep's last step; 2 l for store-all), and the
gradient's step time.

Run ``python benchmarks/rnn_revolve.py``.
"""

import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax
from tensorad.passes.remat import revolve

STEPS, BATCH, INPUT, HIDDEN = 1000, 32, 64, 256
SNAPSHOTS = (None, 10, 20, 40)  # None: store every step (the default tape)


def make_loss(snapshots):
    """Mean of the last hidden state's squares after running the RNN over ``xs``."""
    def loss(params, xs):
        def step(h, x):
            return tnp.tanh(h @ params["w"] + x @ params["u"] + params["b"]), None

        h, _ = lax.scan(step, tnp.zeros((BATCH, HIDDEN), np.float32), xs, snapshots=snapshots)
        return tnp.mean(h * h)
    return loss


def best_time(fn, repeat=5):
    fn()
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    rng = np.random.default_rng(0)
    params = {"w": (rng.standard_normal((HIDDEN, HIDDEN)) / np.sqrt(HIDDEN)).astype(np.float32),
              "u": (rng.standard_normal((INPUT, HIDDEN)) / np.sqrt(INPUT)).astype(np.float32),
              "b": np.zeros(HIDDEN, np.float32)}
    xs = rng.standard_normal((STEPS, BATCH, INPUT)).astype(np.float32)
    state = BATCH * HIDDEN * 4
    print(f"RNN {STEPS} steps, batch {BATCH}, input {INPUT}, hidden {HIDDEN} (float32); "
          f"one hidden state = {state} bytes, inputs xs = {xs.nbytes} bytes")
    print(f"{'snapshots':>10} {'peak bytes':>12} {'vs store-all':>12} {'fwd steps':>10} "
          f"{'formula':>8} {'body evals':>10} {'compile s':>9} {'step ms':>8} {'vs store-all':>12}")
    reference, base = None, None
    for snapshots in SNAPSHOTS:
        gradient = ta.jit(ta.grad(make_loss(snapshots)))
        start = time.perf_counter()
        grads = gradient(params, xs)
        compile_s = time.perf_counter() - start
        peak = ta.last_call_stats().peak_live_bytes
        step_s = best_time(lambda: gradient(params, xs))
        s = STEPS if snapshots is None else snapshots
        steps, formula = revolve.forward_steps(STEPS, s), revolve.griewank_forward_steps(STEPS, s)
        evaluations = steps + STEPS + 1 if snapshots is not None else 2 * STEPS
        if reference is None:
            reference, base = grads, (peak, step_s)
        else:
            for name in grads:
                np.testing.assert_allclose(grads[name], reference[name], rtol=1e-4, atol=1e-6)
        print(f"{'store-all' if snapshots is None else snapshots:>10} {peak:>12} "
              f"{peak / base[0]:>12.3f} {steps:>10} {formula:>8} {evaluations:>10} "
              f"{compile_s:>9.2f} {step_s * 1e3:>8.1f} {step_s / base[1]:>12.2f}")


if __name__ == "__main__":
    main()
