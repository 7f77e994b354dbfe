"""A tanh RNN written with ``tensorad.lax.scan``: gradient time against forward time, and memory.

50 steps, batch 32, input 64, hidden 256, float32. The gradient's tape holds the
hidden state of every step; its size is printed next to the measured peak
live bytes. With JAX installed, JAX's times are printed too.

Run ``python benchmarks/rnn_grad.py``.
"""

import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax

STEPS, BATCH, INPUT, HIDDEN = 50, 32, 64, 256


def loss(params, xs):
    """Mean of the last hidden state's squares after running the RNN over ``xs``."""
    def step(h, x):
        return tnp.tanh(h @ params["w"] + x @ params["u"] + params["b"]), None

    h, _ = lax.scan(step, tnp.zeros((BATCH, HIDDEN), np.float32), xs)
    return tnp.mean(h * h)


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

    forward, gradient = ta.jit(loss), ta.jit(ta.grad(loss))
    start = time.perf_counter()
    gradient(params, xs)
    compile_s = time.perf_counter() - start
    peak = ta.last_call_stats().peak_live_bytes
    forward(params, xs)
    forward_peak = ta.last_call_stats().peak_live_bytes
    t_fwd = best_time(lambda: forward(params, xs))
    t_grad = best_time(lambda: gradient(params, xs))
    tape = STEPS * BATCH * HIDDEN * 4
    print(f"RNN {STEPS} steps, batch {BATCH}, input {INPUT}, hidden {HIDDEN} (float32)")
    print(f"gradient compile {compile_s:.2f} s")
    print(f"forward {t_fwd * 1e3:.1f} ms, gradient {t_grad * 1e3:.1f} ms, "
          f"ratio gradient/forward {t_grad / t_fwd:.2f}")
    print(f"peak live bytes: forward {forward_peak}, gradient {peak} "
          f"(tape of hidden states {tape} = {tape / peak:.0%} of the peak)")
    try:
        import jax
        import jax.numpy as jnp

        def jax_loss(p, xs):
            def step(h, x):
                return jnp.tanh(h @ p["w"] + x @ p["u"] + p["b"]), None
            h, _ = jax.lax.scan(step, jnp.zeros((BATCH, HIDDEN), jnp.float32), xs)
            return jnp.mean(h * h)

        jf, jg = jax.jit(jax_loss), jax.jit(jax.grad(jax_loss))
        t_jf = best_time(lambda: jax.block_until_ready(jf(params, xs)))
        t_jg = best_time(lambda: jax.block_until_ready(jg(params, xs)))
        print(f"JAX forward {t_jf * 1e3:.1f} ms, gradient {t_jg * 1e3:.1f} ms "
              f"(tensorad/JAX gradient ratio {t_grad / t_jg:.2f})")
    except ImportError:
        print("JAX not installed: no JAX comparison")


if __name__ == "__main__":
    main()
