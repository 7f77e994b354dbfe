"""MLP loss and gradient: tensorad against numpy (hand-written backward) and, when installed, JAX and PyTorch.

x[128, 784] -> 512 -> 512 -> 10, tanh activations, softmax cross-entropy, float32.
Prints compile time, run times and the ratios measured in this run.

Run ``python benchmarks/mlp_grad.py``.
"""

import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp

SIZES = (784, 512, 512, 10)
BATCH = 128


def init(rng):
    params = {}
    for i, (n_in, n_out) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        params[f"w{i}"] = (rng.standard_normal((n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
        params[f"b{i}"] = np.zeros(n_out, np.float32)
    return params


def loss(params, x, onehot):
    """Softmax cross-entropy of a tanh MLP, written with tensorad.numpy."""
    h = x
    for i in range(len(SIZES) - 1):
        h = h @ params[f"w{i}"] + params[f"b{i}"]
        if i < len(SIZES) - 2:
            h = tnp.tanh(h)
    shifted = h - h.max(axis=1, keepdims=True)
    log_probs = shifted - tnp.log(tnp.sum(tnp.exp(shifted), axis=1, keepdims=True))
    return -tnp.mean(tnp.sum(log_probs * onehot, axis=1))


def numpy_loss_and_grad(params, x, onehot):
    """The same loss with its gradient written by hand in numpy (the reference)."""
    acts, h = [x], x
    n = len(SIZES) - 1
    for i in range(n):
        h = h @ params[f"w{i}"] + params[f"b{i}"]
        if i < n - 1:
            h = np.tanh(h)
        acts.append(h)
    shifted = h - h.max(axis=1, keepdims=True)
    probs = np.exp(shifted)
    probs /= probs.sum(axis=1, keepdims=True)
    value = -np.mean(np.sum(np.log(probs) * onehot, axis=1))
    delta = (probs - onehot) / len(x)
    grads = {}
    for i in reversed(range(n)):
        grads[f"w{i}"] = acts[i].T @ delta
        grads[f"b{i}"] = delta.sum(axis=0)
        if i:
            delta = (delta @ params[f"w{i}"].T) * (1 - acts[i] ** 2)
    return value, grads


def best_time(fn, repeat=5):
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main():
    rng = np.random.default_rng(0)
    params = init(rng)
    x = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    onehot = np.eye(SIZES[-1], dtype=np.float32)[rng.integers(0, SIZES[-1], BATCH)]

    forward = ta.jit(loss)
    gradient = ta.jit(ta.value_and_grad(loss))
    start = time.perf_counter()
    forward(params, x, onehot)
    compile_forward = time.perf_counter() - start
    start = time.perf_counter()
    value, grads = gradient(params, x, onehot)
    compile_gradient = time.perf_counter() - start
    peak_gradient = ta.last_call_stats().peak_live_bytes

    ref_value, ref_grads = numpy_loss_and_grad(params, x, onehot)
    worst = max(float(np.max(np.abs(grads[k] - ref_grads[k]))) for k in grads)
    print(f"loss tensorad {float(value):.6f} numpy {ref_value:.6f}; max |grad difference| {worst:.2e}")

    t_fwd = best_time(lambda: forward(params, x, onehot))
    t_grad = best_time(lambda: gradient(params, x, onehot))
    t_np = best_time(lambda: numpy_loss_and_grad(params, x, onehot))
    print(f"compile: forward {compile_forward:.2f} s, value_and_grad {compile_gradient:.2f} s")
    print(f"tensorad forward {t_fwd * 1e3:.1f} ms, value_and_grad {t_grad * 1e3:.1f} ms "
          f"(gradient/forward ratio {t_grad / t_fwd:.2f}); peak live bytes {peak_gradient}")
    print(f"numpy hand-written value_and_grad {t_np * 1e3:.1f} ms "
          f"(tensorad/numpy ratio {t_grad / t_np:.2f})")
    try:
        import jax
        import jax.numpy as jnp

        def jax_loss(p, x, onehot):
            h = x
            for i in range(len(SIZES) - 1):
                h = h @ p[f"w{i}"] + p[f"b{i}"]
                if i < len(SIZES) - 2:
                    h = jnp.tanh(h)
            return -jnp.mean(jnp.sum(jax.nn.log_softmax(h) * onehot, axis=1))

        jax_vg = jax.jit(jax.value_and_grad(jax_loss))
        t_jax = best_time(lambda: jax.block_until_ready(jax_vg(params, x, onehot)))
        print(f"JAX value_and_grad {t_jax * 1e3:.1f} ms (tensorad/JAX ratio {t_grad / t_jax:.2f})")
    except ImportError:
        print("JAX not installed: no JAX comparison")


if __name__ == "__main__":
    main()
