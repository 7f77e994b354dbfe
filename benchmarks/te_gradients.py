"""Gradients written as TVM tensor expressions (``tensorad.te``) next to the same gradients in tensorad.numpy.

Run ``python benchmarks/te_gradients.py [--small]``. For each computation of
the TVM autodiff tutorial -- a dense layer (``sum(X @ W.T + B)``, gradients
of W and B), a max pool and a convolution (the pullback of a head H) -- it
times the gradient built by ``te.differentiate`` and the one
``tensorad.grad``/``vjp`` builds from ``tensorad.numpy``/``tensorad.nn``, in
one run, and prints their ratio (the target is at most 1.2x).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import nn, te
from tensorad.te import topi


def best_time(fn, *args, repeats: int = 20) -> float:
    """The fastest of ``repeats`` calls, in seconds (after one warm-up call)."""
    fn(*args)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - start)
    return min(times)


def dense(batch: int, features: int, units: int, rng):
    X = te.placeholder((batch, features), "float32", name="X")
    W = te.placeholder((units, features), "float32", name="W")
    B = te.placeholder((units,), "float32", name="B")
    L = topi.sum(topi.nn.dense(X, W, B))
    dW, dB = te.differentiate(L, [W, B])
    args = [rng.standard_normal(s).astype(np.float32) for s in ((batch, features), (units, features), (units,))]
    reference = ta.jit(ta.grad(lambda x, w, b: tnp.sum(x @ w.T + b), argnums=(1, 2)))
    return te.build([X, W, B, dW, dB]), reference, args


def max_pool(batch: int, channels: int, size: int, rng):
    X = te.placeholder((batch, channels, size, size), "float32", name="X")
    Y = topi.nn.pool(X, [2, 2], [2, 2], [0, 0, 0, 0], "max")
    H = te.placeholder(Y.shape, "float32", name="H")
    [dX] = te.differentiate(Y, [X], H)
    args = [rng.standard_normal(s).astype(np.float32) for s in ((batch, channels, size, size), Y.shape)]
    reference = ta.jit(lambda x, h: ta.vjp(lambda x: nn.max_pool2d(x, 2, 2), x)[1](h)[0])
    return te.build([X, H, dX]), reference, args


def conv(batch: int, channels: int, size: int, rng):
    X = te.placeholder((batch, channels, size, size), "float32", name="X")
    K = te.placeholder((channels, channels, 3, 3), "float32", name="K")
    Z = topi.nn.conv2d(X, K, strides=1, padding=1)
    H = te.placeholder(Z.shape, "float32", name="H")
    dX, dK = te.differentiate(Z, [X, K], H)
    args = [rng.standard_normal(s).astype(np.float32)
            for s in ((batch, channels, size, size), (channels, channels, 3, 3), Z.shape)]
    reference = ta.jit(lambda x, k, h: ta.vjp(lambda x, k: nn.conv2d(x, k, padding=1), x, k)[1](h))
    return te.build([X, K, H, dX, dK]), reference, args


def main(small: bool = False) -> list:
    """Time every case; return ``[(name, te seconds, tensorad.numpy seconds)]``."""
    rng = np.random.default_rng(0)
    cases = {
        "dense 256x512 -> 256": lambda: dense(*((16, 32, 8) if small else (256, 512, 256)), rng),
        "max pool 2x2 of 64x32x28x28": lambda: max_pool(*((2, 4, 8) if small else (64, 32, 28)), rng),
        "conv 3x3 of 8x16x32x32": lambda: conv(*((1, 2, 6) if small else (8, 16, 32)), rng),
    }
    rows = []
    print(f"{'gradient':32s} {'te':>10s} {'tnp':>10s} {'te/tnp':>7s}")
    for name, make in cases.items():
        built, reference, args = make()
        ours = best_time(built, *args)
        theirs = best_time(reference, *args)
        rows.append((name, ours, theirs))
        print(f"{name:32s} {ours * 1e3:8.3f}ms {theirs * 1e3:8.3f}ms {ours / theirs:6.2f}x")
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="toy sizes, for a quick check")
    main(parser.parse_args().small)
