"""tensorad demo: a jitted two-layer network next to numpy, its gradient, and the IR at each stage.

Run ``python examples/demo.py``.
"""

import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp


def mlp(params, x):
    """Two dense layers with tanh, then a log-softmax over the classes."""
    h = tnp.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - tnp.log(tnp.exp(shifted).sum(axis=1, keepdims=True))


def mlp_numpy(params, x):
    """The same network in plain numpy, as the reference."""
    h = np.tanh(x @ params["w1"] + params["b1"])
    logits = h @ params["w2"] + params["b2"]
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def loss(params, x, onehot):
    """Mean negative log-likelihood of the labels."""
    return -tnp.mean(tnp.sum(mlp(params, x) * onehot, axis=1))


def show_gradient(params, x):
    """ta.grad of the loss next to central finite differences (float64)."""
    params64 = {k: v.astype(np.float64) for k, v in params.items()}
    x64 = x.astype(np.float64)
    onehot = np.eye(10)[np.arange(len(x)) % 10]
    grads = ta.grad(loss)(params64, x64, onehot)
    eps, (i, j) = 1e-6, (3, 7)
    bumped = {k: v.copy() for k, v in params64.items()}
    bumped["w2"][i, j] += eps
    up = float(ta.jit(loss)(bumped, x64, onehot))
    bumped["w2"][i, j] -= 2 * eps
    down = float(ta.jit(loss)(bumped, x64, onehot))
    print(f"\nd loss / d w2[{i},{j}]: tensorad {grads['w2'][i, j]:.10f}, "
          f"finite differences {(up - down) / (2 * eps):.10f}")
    print("gradient shapes:", {k: v.shape for k, v in grads.items()})
    text = ta.grad(loss).lower(params64, x64, onehot).as_text("differentiated")
    print("\n===== the gradient function after tad-differentiate and tad-simplify =====")
    print(text)


def main():
    rng = np.random.default_rng(0)
    params = {"w1": rng.standard_normal((64, 128)).astype(np.float32) * 0.1,
              "b1": np.zeros(128, np.float32),
              "w2": rng.standard_normal((128, 10)).astype(np.float32) * 0.1,
              "b2": np.zeros(10, np.float32)}
    x = rng.standard_normal((32, 64)).astype(np.float32)

    f = ta.jit(mlp)
    start = time.perf_counter()
    ours = f(params, x)
    compile_s = time.perf_counter() - start
    reference = mlp_numpy(params, x)
    print("tensorad log-probabilities, first row:", np.round(ours[0, :5], 5))
    print("numpy    log-probabilities, first row:", np.round(reference[0, :5], 5))
    print(f"max |difference| = {np.abs(ours - reference).max():.2e}")

    calls = 200
    start = time.perf_counter()
    for _ in range(calls):
        f(params, x)
    per_call = (time.perf_counter() - start) / calls
    stats = ta.last_call_stats()
    print(f"compile {compile_s * 1e3:.0f} ms, then {per_call * 1e6:.0f} us per call; "
          f"peak live bytes {stats.peak_live_bytes}, live allocations after the call "
          f"{stats.live_allocations}")

    show_gradient(params, x)

    lowered = f.lower(params, x)
    for stage in ("tad", "linalg", "llvm"):
        text = lowered.as_text(stage)
        lines = text.splitlines()
        shown = lines if stage == "tad" else lines[:25] + [f"  ... ({len(lines)} lines in all)"]
        print(f"\n===== IR at stage '{stage}' =====")
        print("\n".join(shown))


if __name__ == "__main__":
    main()
