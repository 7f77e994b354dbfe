"""Convolution and pooling layers: forward against backward, tensorad and (when installed) PyTorch.

One function per op measures it at ResNet-like sizes (float32) and prints
its run times and the ratio of each backward to the forward, the figure a
gradient's cost is judged by. tensorad runs on one thread; PyTorch is timed
on one thread (the same work per core) and on all of them.

Run ``python benchmarks/conv_pool.py``.
"""

import os
import time

import numpy as np

# tensorad's compiled code runs on one thread here (the comparison is per core),
# unless TENSORAD_NUM_THREADS says otherwise.
os.environ.setdefault("TENSORAD_NUM_THREADS", "1")

import tensorad as ta
from tensorad.dialects.shapes import window_output_size
from tensorad.nn import pool as pool_ops
from tensorad.nn.conv import conv2d

# 3x3 convolutions, data N x C x H x W, weight O x C x 3 x 3: ResNet's stage 1 and 2, and the
# second convolution of the W2 workload (benchmarks/workloads.py).
CONVS = {
    "resnet stage 1": dict(batch=32, channels=64, size=56, out_channels=64, kernel=3, stride=1, padding=1),
    "resnet stage 2": dict(batch=32, channels=128, size=28, out_channels=128, kernel=3, stride=1, padding=1),
    "W2 conv2": dict(batch=32, channels=16, size=14, out_channels=32, kernel=3, stride=1, padding=1),
}


def best_time(fn, repeat=7):
    """The fastest of ``repeat`` calls after a warm-up call, in seconds."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def report(who, times, flops=None):
    """Print ``times`` (name -> seconds, "forward" first) with each one's ratio to the forward.

    With ``flops`` (those of the forward, which each backward op matches), the
    forward's GFLOP/s too.
    """
    forward = times["forward"]
    cells = [f"{name} {t * 1e3:.2f} ms ({t / forward:.2f}x)" for name, t in times.items()]
    rate = f" [forward {flops / forward / 1e9:.0f} GFLOP/s]" if flops else ""
    print(f"  {who}: " + ", ".join(cells) + rate)


def conv2d_tensorad(x, w, ct, stride, padding):
    """Times of tensorad's conv2d, its vjp (value and both gradients) and each backward op."""
    def forward(x, w):
        return conv2d(x, w, stride=stride, padding=padding)

    def value_and_grads(x, w, ct):
        out, pullback = ta.vjp(forward, x, w)
        return out, pullback(ct)

    # A vjp with respect to one operand is that operand's backward op alone: the
    # unused forward result is dead code.
    grad_data = ta.jit(lambda x, w, ct: ta.vjp(lambda x: forward(x, w), x)[1](ct)[0])
    grad_filter = ta.jit(lambda x, w, ct: ta.vjp(lambda w: forward(x, w), w)[1](ct)[0])
    jitted = {"forward": ta.jit(forward), "vjp": ta.jit(value_and_grads),
              "backward_data": grad_data, "backward_filter": grad_filter}
    args = {"forward": (x, w)}
    return {name: best_time(lambda: f(*args.get(name, (x, w, ct)))) for name, f in jitted.items()}


def conv2d_torch(torch, x, w, ct, stride, padding):
    """The same four times for ``torch.nn.functional.conv2d`` and its autograd."""
    F, grad = torch.nn.functional, torch.nn.grad
    x, w, ct = (torch.from_numpy(a) for a in (x, w, ct))
    xg, wg = x.clone().requires_grad_(), w.clone().requires_grad_()

    def value_and_grads():
        out = F.conv2d(xg, wg, stride=stride, padding=padding)
        return out, torch.autograd.grad(out, (xg, wg), ct)

    # x and w do not require gradients, so only value_and_grads records a graph.
    return {
        "forward": best_time(lambda: F.conv2d(x, w, stride=stride, padding=padding)),
        "vjp": best_time(value_and_grads),
        "backward_data": best_time(lambda: grad.conv2d_input(x.shape, w, ct, stride, padding)),
        "backward_filter": best_time(lambda: grad.conv2d_weight(x, w.shape, ct, stride, padding)),
    }


def bench_conv2d(c, title):
    """One 3x3 convolution size ``c``: tensorad's times and ratios, then PyTorch's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((c["batch"], c["channels"], c["size"], c["size"]), np.float32)
    w = rng.standard_normal((c["out_channels"], c["channels"], c["kernel"], c["kernel"]),
                            np.float32) / np.float32(3 * np.sqrt(c["channels"]))
    out_size = window_output_size(c["size"], c["kernel"], c["stride"], c["padding"],
                                  c["padding"], 1)
    ct = rng.standard_normal((c["batch"], c["out_channels"], out_size, out_size), np.float32)
    flops = 2 * ct.size * w[0].size
    print(f"conv2d ({title}): data {x.shape}, weight {w.shape}, stride {c['stride']}, "
          f"padding {c['padding']}, float32 (time, and ratio to the forward)")
    report("tensorad (1 thread)", conv2d_tensorad(x, w, ct, c["stride"], c["padding"]), flops)
    try:
        import torch
    except ImportError:
        print("  PyTorch not installed: no comparison")
        return
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    report("PyTorch (1 thread)", conv2d_torch(torch, x, w, ct, c["stride"], c["padding"]), flops)
    torch.set_num_threads(threads)
    report(f"PyTorch ({threads} threads)", conv2d_torch(torch, x, w, ct, c["stride"],
                                                       c["padding"]), flops)


# --- pooling -------------------------------------------------------------------

# ResNet's stem max pooling and a 2x2 average pooling, on stage-1 sized data.
POOL_DATA = (32, 64, 56, 56)
POOLS = {"max_pool2d": dict(kernel_size=3, stride=2, padding=1),
         "avg_pool2d": dict(kernel_size=2, stride=2)}


def pool_tensorad(name, x, ct):
    """Times of tensorad's pooling ``name``, its vjp (value and gradient) and its backward op."""
    pool = getattr(pool_ops, name)

    def forward(x):
        return pool(x, **POOLS[name])

    def value_and_grad(x, ct):
        out, pullback = ta.vjp(forward, x)
        return out, pullback(ct)

    # With the value unused, the vjp is the backward op alone (the forward is dead code).
    jitted = {"forward": ta.jit(forward), "vjp": ta.jit(value_and_grad),
              "backward": ta.jit(lambda x, ct: ta.vjp(forward, x)[1](ct)[0])}
    args = {"forward": (x,)}
    return {op: best_time(lambda: f(*args.get(op, (x, ct)))) for op, f in jitted.items()}


def pool_torch(torch, name, x, ct):
    """The same three times for PyTorch; its backward op reads the indices its forward stored."""
    args = POOLS[name]
    pool, aten = getattr(torch.nn.functional, name), torch.ops.aten
    x, ct = torch.from_numpy(x), torch.from_numpy(ct)
    xg = x.clone().requires_grad_()
    geometry = [[args["kernel_size"]] * 2, [args["stride"]] * 2, [args.get("padding", 0)] * 2]

    def value_and_grad():
        out = pool(xg, **args)
        return out, torch.autograd.grad(out, xg, ct)

    if name == "max_pool2d":
        _, indices = aten.max_pool2d_with_indices(x, *geometry)

        def backward():
            return aten.max_pool2d_with_indices_backward(ct, x, *geometry, [1, 1], False, indices)
    else:
        def backward():
            return aten.avg_pool2d_backward(ct, x, *geometry, False, True, None)

    # x does not require gradients, so only value_and_grad records a graph.
    return {"forward": best_time(lambda: pool(x, **args)), "vjp": best_time(value_and_grad),
            "backward": best_time(backward)}


def bench_pools():
    """max_pool2d and avg_pool2d on ResNet's stage-1 data: tensorad's times, then PyTorch's."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(POOL_DATA, np.float32)
    try:
        import torch
    except ImportError:
        torch = None
    for name, args in POOLS.items():
        k, stride, padding = args["kernel_size"], args["stride"], args.get("padding", 0)
        size = window_output_size(POOL_DATA[2], k, stride, padding, padding, 1)
        ct = rng.standard_normal(POOL_DATA[:2] + (size, size), np.float32)
        print(f"{name}: data {x.shape}, {args}, float32 (time, and ratio to the forward)")
        report("tensorad (1 thread)", pool_tensorad(name, x, ct))
        if torch is None:
            print("  PyTorch not installed: no comparison")
            continue
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        report("PyTorch (1 thread)", pool_torch(torch, name, x, ct))
        torch.set_num_threads(threads)
        report(f"PyTorch ({threads} threads)", pool_torch(torch, name, x, ct))


def main():
    for title, sizes in CONVS.items():
        bench_conv2d(sizes, title)
    bench_pools()


if __name__ == "__main__":
    main()
