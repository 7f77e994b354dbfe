"""Compile time of an unrolled recurrent gradient as it grows: tensorad next to JAX.

A Python loop of ``N`` LSTM-like cells (input and hidden 32, batch 8,
float64), the gradient of the mean square of the last hidden state with
respect to the weights, jitted. For N = 16, 32, 64, 128 it prints the
first-call time (trace, compile and one run) in tensorad and in JAX, their
ratio, and the growth exponent ``log(t(N) / t(N_prev)) / log(N / N_prev)``
(1 is linear). Each measurement runs in a fresh Python process of its own, as
``python -m benchmarks`` does, so that neither framework's caches nor thread
pools carry over; tensorad's persistent compile cache is off there
(``TENSORAD_COMPILE_CACHE=0``), so every compilation is paid in full.

Run ``python benchmarks/compile_scaling.py`` (``--quick``: N = 16, 32;
``--sizes 8,16``: any sizes; ``--peers ''``: tensorad alone; ``--cpu``: CPU
seconds of all threads and child processes rather than wall seconds, which
a busy machine inflates).

Examples
--------
>>> growth_exponent(16, 1.0, 32, 2.0)
1.0
>>> round(growth_exponent(64, 1.0, 128, 4.0), 2)
2.0
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

SIZES, QUICK_SIZES = (16, 32, 64, 128), (16, 32)
BATCH, HIDDEN = 8, 32  # the input width is the hidden width
FRAMEWORKS = ("tensorad", "jax")


def make_loss(steps: int, xp):
    """The loss of ``steps`` unrolled LSTM-like cells written with array namespace ``xp`` (tnp or jnp)."""
    def sigmoid(z):
        return 0.5 * (xp.tanh(0.5 * z) + 1.0)

    def loss(params, xs):
        h = c = xp.zeros((BATCH, HIDDEN))
        for t in range(steps):  # a Python loop: the traced program grows with steps
            gates = xs[t] @ params["wx"] + h @ params["wh"] + params["b"]
            i, f = sigmoid(gates[:, :HIDDEN]), sigmoid(gates[:, HIDDEN:2 * HIDDEN])
            o, g = sigmoid(gates[:, 2 * HIDDEN:3 * HIDDEN]), xp.tanh(gates[:, 3 * HIDDEN:])
            c = f * c + i * g
            h = o * xp.tanh(c)
        return xp.mean(h * h)
    return loss


def inputs(steps: int) -> tuple:
    """Weights and the input sequence, float64, the same in every framework."""
    rng = np.random.default_rng(0)
    scale = 1 / math.sqrt(HIDDEN)
    params = {"wx": rng.standard_normal((HIDDEN, 4 * HIDDEN)) * scale,
              "wh": rng.standard_normal((HIDDEN, 4 * HIDDEN)) * scale,
              "b": np.zeros(4 * HIDDEN)}
    return params, rng.standard_normal((steps, BATCH, HIDDEN))


def _cpu_seconds() -> float:
    """CPU seconds of this process, its threads and its finished children (tensorad lowers in a forked child)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def first_call_seconds(framework: str, steps: int) -> tuple:
    """Wall and CPU seconds of the first call of the jitted gradient in ``framework`` (in this process)."""
    params, xs = inputs(steps)
    if framework == "tensorad":
        import tensorad as ta
        import tensorad.numpy as tnp
        gradient = ta.jit(ta.grad(make_loss(steps, tnp)))
        run = lambda: gradient(params, xs)  # noqa: E731
    else:
        import jax
        jax.config.update("jax_platforms", "cpu")
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        jitted = jax.jit(jax.grad(make_loss(steps, jnp)))
        params, xs = jax.tree_util.tree_map(jnp.asarray, (params, xs))
        run = lambda: jax.block_until_ready(jitted(params, xs))  # noqa: E731
    start, cpu = time.perf_counter(), _cpu_seconds()
    run()
    return time.perf_counter() - start, _cpu_seconds() - cpu


def growth_exponent(n0: int, t0: float, n1: int, t1: float) -> float:
    """The exponent k of ``t ~ N**k`` between two measurements."""
    return math.log(t1 / t0) / math.log(n1 / n0)


def measure(framework: str, steps: int, cpu: bool = False) -> float | None:
    """First-call seconds (wall, or CPU with ``cpu``) of ``framework`` at ``steps`` in a fresh process.

    None if it failed there.
    """
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, TENSORAD_COMPILE_CACHE="0",
               PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", framework, "--sizes", str(steps)],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"{framework} N={steps} failed:\n{done.stderr[-2000:]}", file=sys.stderr)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])["cpu" if cpu else "seconds"]


def table(rows: list, frameworks: list) -> str:
    """The printed table: one row per N with each framework's seconds, the ratio and tensorad's exponent."""
    head = f"{'N':>5} " + " ".join(f"{name + ' s':>11}" for name in frameworks)
    head += f" {'ratio':>7} {'exponent':>9}" if "jax" in frameworks else f" {'exponent':>9}"
    lines = [head, "-" * len(head)]
    previous = None
    for steps, seconds in rows:
        cells = [f"{steps:>5}"] + [f"{seconds[name]:>11.2f}" if seconds[name] is not None else f"{'failed':>11}"
                                   for name in frameworks]
        ours, theirs = seconds["tensorad"], seconds.get("jax")
        if "jax" in frameworks:
            cells.append(f"{ours / theirs:>6.2f}x" if ours and theirs else f"{'-':>7}")
        cells.append(f"{growth_exponent(previous[0], previous[1], steps, ours):>9.2f}"
                     if previous and ours else f"{'-':>9}")
        previous = (steps, ours) if ours else None
        lines.append(" ".join(cells))
    return "\n".join(lines)


def main(argv=None) -> list:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"N = {', '.join(map(str, QUICK_SIZES))} only")
    parser.add_argument("--sizes", help="comma-separated N (default: 16,32,64,128)")
    parser.add_argument("--peers", default="jax", help="'jax' (default) or '' for tensorad alone")
    parser.add_argument("--cpu", action="store_true",
                        help="CPU seconds (all threads and child processes) instead of wall seconds: "
                             "steadier on a busy machine")
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)  # one measurement, JSON out
    args = parser.parse_args(argv)
    sizes = [int(n) for n in args.sizes.split(",")] if args.sizes else list(QUICK_SIZES if args.quick else SIZES)
    if args.worker:
        wall, cpu = first_call_seconds(args.worker, sizes[0])
        print(json.dumps({"seconds": wall, "cpu": cpu}))
        return []
    frameworks = ["tensorad"] + [p for p in args.peers.split(",") if p == "jax"]
    clock = "CPU" if args.cpu else "wall"
    print(f"unrolled LSTM-like gradient, hidden {HIDDEN}, batch {BATCH}, float64: first-call {clock} seconds "
          "(trace + compile + one run), each in a fresh process")
    rows = []
    for steps in sizes:
        rows.append((steps, {name: measure(name, steps, args.cpu) for name in frameworks}))
        print(table(rows, frameworks).splitlines()[-1] if len(rows) > 1 else table(rows, frameworks), flush=True)
    return rows


if __name__ == "__main__":
    main()
