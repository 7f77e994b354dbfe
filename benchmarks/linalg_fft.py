"""LAPACK and FFT from compiled code: ``tensorad.numpy.linalg`` / ``fft`` next to numpy and JAX.

Times (the best of several calls after a warm-up, as the machine may be
shared) of one jitted call in float64 for a moderate size: ``solve`` (n x n
with 16 right-hand sides), ``cholesky``, ``svd`` (singular values and
vectors), ``eigh``, a complex ``fft`` and a batched ``rfft``, plus the
gradient of ``slogdet`` through the LU rule. tensorad's code calls the
OpenBLAS that scipy ships (numpy's is another build), and ducc0 for the
transforms (numpy uses pocketfft); JAX calls its own LAPACK kernels and
ducc0. JAX is measured when it is installed (``pip install -e ".[bench]"``),
in the same process.

Usage::

    python benchmarks/linalg_fft.py            # n = 512, fft of 2**20 points
    python benchmarks/linalg_fft.py --small    # n = 128, fft of 2**14 points
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp


def timed(fn, *args, reps: int) -> float:
    """The fewest seconds ``fn(*args)`` took over ``reps`` calls after one warm-up call."""
    fn(*args)
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        out = fn(*args)
        for leaf in out if isinstance(out, tuple) else (out,):
            getattr(leaf, "block_until_ready", lambda: None)()
        times.append(time.perf_counter() - start)
    return min(times)


def workloads(n: int, points: int):
    """(name, tensorad function, numpy function, JAX function maker, arguments)."""
    rng = np.random.default_rng(0)
    a = rng.normal(size=(n, n)) + n ** 0.5 * np.eye(n)
    spd = a @ a.T
    b = rng.normal(size=(n, 16))
    z = rng.normal(size=points) + 1j * rng.normal(size=points)
    signals = rng.normal(size=(16, points // 16))

    def jax_numpy():
        import jax.numpy as jnp

        return jnp

    return [
        ("solve", tnp.linalg.solve, np.linalg.solve, lambda jnp: jnp.linalg.solve, (a, b)),
        ("cholesky", tnp.linalg.cholesky, np.linalg.cholesky, lambda jnp: jnp.linalg.cholesky, (spd,)),
        ("svd", tnp.linalg.svd, np.linalg.svd, lambda jnp: jnp.linalg.svd, (a,)),
        ("eigh", tnp.linalg.eigh, np.linalg.eigh, lambda jnp: jnp.linalg.eigh, (spd,)),
        ("fft (complex)", tnp.fft.fft, np.fft.fft, lambda jnp: jnp.fft.fft, (z,)),
        ("rfft (16 rows)", tnp.fft.rfft, np.fft.rfft, lambda jnp: jnp.fft.rfft, (signals,)),
        ("grad slogdet", ta.grad(lambda m: tnp.linalg.slogdet(m)[1]), lambda m: np.linalg.inv(m).T,
         lambda jnp: __import__("jax").grad(lambda m: jnp.linalg.slogdet(m)[1]), (a,)),
    ], jax_numpy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="n = 128 and 2**14 points: a quick run")
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    n, points = (128, 2 ** 14) if args.small else (512, 2 ** 20)
    cases, jax_numpy = workloads(n, points)
    try:
        import jax

        jax.config.update("jax_enable_x64", True)
        jnp = jax_numpy()
    except ImportError:
        jax, jnp = None, None
    print(f"float64, n = {n}, fft of {points} points; best of {args.reps} calls (ms)")
    header = f"{'workload':<16}{'tensorad':>10}{'numpy':>10}{'jax':>10}{'tad/numpy':>11}{'tad/jax':>9}"
    print(header)
    print("-" * len(header))
    for name, ours, theirs, jax_maker, operands in cases:
        compiled = ta.jit(ours)
        t_ours = timed(compiled, *operands, reps=args.reps)
        t_numpy = timed(theirs, *operands, reps=args.reps)
        t_jax = timed(jax.jit(jax_maker(jnp)), *operands, reps=args.reps) if jax is not None else float("nan")
        print(f"{name:<16}{t_ours * 1e3:>10.2f}{t_numpy * 1e3:>10.2f}{t_jax * 1e3:>10.2f}"
              f"{t_ours / t_numpy:>11.2f}{t_ours / t_jax:>9.2f}")


if __name__ == "__main__":
    main()
