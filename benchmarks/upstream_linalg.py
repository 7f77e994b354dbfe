"""Reverse mode of hand-written ``linalg`` against the same program traced from ``tensorad.numpy`` (and JAX).

The program is a two-layer perceptron's loss, ``sum((tanh(X @ W1) @ W2)**2)``,
written once as upstream IR (``linalg.matmul``, ``linalg.generic``,
``linalg.reduce``, with a ``tad.vjp`` declaration, compiled by
``ta.compile_mlir``) and once traced from ``tensorad.numpy`` (``ta.jit`` of
``ta.grad``). The derivative of the hand-written IR is built from the
generalized ops' scalar bodies; the issue's target is at most 1.5x the time
of the traced program. JAX's ``jit(grad)`` is measured in the same run when
installed.

Run ``python benchmarks/upstream_linalg.py`` (``--small`` for a quick check).
"""

import argparse
import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp

IR = """
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#all2 = affine_map<(d0, d1) -> ()>
func.func @loss(%x: tensor<{n}x{d}xf32>, %w1: tensor<{d}x{h}xf32>, %w2: tensor<{h}x{o}xf32>) -> f32 {{
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<{n}x{h}xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<{n}x{h}xf32>) -> tensor<{n}x{h}xf32>
  %a = linalg.matmul ins(%x, %w1 : tensor<{n}x{d}xf32>, tensor<{d}x{h}xf32>) outs(%z1 : tensor<{n}x{h}xf32>) -> tensor<{n}x{h}xf32>
  %t = linalg.generic {{indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}}
      ins(%a : tensor<{n}x{h}xf32>) outs(%e1 : tensor<{n}x{h}xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = math.tanh %in : f32
    linalg.yield %v : f32
  }} -> tensor<{n}x{h}xf32>
  %e2 = tensor.empty() : tensor<{n}x{o}xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<{n}x{o}xf32>) -> tensor<{n}x{o}xf32>
  %y = linalg.matmul ins(%t, %w2 : tensor<{n}x{h}xf32>, tensor<{h}x{o}xf32>) outs(%z2 : tensor<{n}x{o}xf32>) -> tensor<{n}x{o}xf32>
  %e0 = tensor.empty() : tensor<f32>
  %z0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {{indexing_maps = [#id2, #all2], iterator_types = ["reduction", "reduction"]}}
      ins(%y : tensor<{n}x{o}xf32>) outs(%z0 : tensor<f32>) {{
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %r = arith.addf %acc, %sq : f32
    linalg.yield %r : f32
  }} -> tensor<f32>
  %l = tensor.extract %s[] : tensor<f32>
  return %l : f32
}}
func.func private @loss_vjp(tensor<{n}x{d}xf32>, tensor<{d}x{h}xf32>, tensor<{h}x{o}xf32>, f32)
    -> (f32, tensor<{d}x{h}xf32>, tensor<{h}x{o}xf32>) attributes {{tad.vjp = {{of = @loss, wrt = array<i64: 1, 2>}}}}
"""


def best_time(fn, repeat=7):
    """The fastest of ``repeat`` calls after a warm-up call, in seconds."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def traced_loss(x, w1, w2):
    """The same loss, from tensorad.numpy."""
    y = tnp.tanh(x @ w1) @ w2
    return tnp.sum(y * y)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="small sizes, for a quick check")
    args = parser.parse_args(argv)
    n, d, h, o = (64, 32, 32, 16) if args.small else (1024, 512, 512, 256)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((n, d)).astype(np.float32)
    w1 = (rng.standard_normal((d, h)) / np.sqrt(d)).astype(np.float32)
    w2 = (rng.standard_normal((h, o)) / np.sqrt(h)).astype(np.float32)
    hand = ta.compile_mlir(IR.format(n=n, d=d, h=h, o=o), "loss_vjp")
    traced = ta.jit(ta.value_and_grad(traced_loss, argnums=(1, 2)))
    value, g1, g2 = hand(x, w1, w2, np.float32(1.0))
    ref_value, (r1, r2) = traced(x, w1, w2)
    np.testing.assert_allclose(value, ref_value, rtol=1e-3)
    np.testing.assert_allclose(g1, r1, rtol=1e-2, atol=1e-2 * np.abs(r1).max())
    np.testing.assert_allclose(g2, r2, rtol=1e-2, atol=1e-2 * np.abs(r2).max())
    times = {"hand-written linalg (compile_mlir)": best_time(lambda: hand(x, w1, w2, np.float32(1.0))),
             "traced tensorad.numpy (jit(grad))": best_time(lambda: traced(x, w1, w2))}
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:  # an optional peer
        jax = None
    if jax is not None:
        jax.config.update("jax_platforms", "cpu")
        jax_grad = jax.jit(jax.value_and_grad(lambda x, w1, w2: jnp.sum((jnp.tanh(x @ w1) @ w2) ** 2),
                                              argnums=(1, 2)))
        times["JAX jit(value_and_grad)"] = best_time(
            lambda: jax.block_until_ready(jax_grad(x, w1, w2)))
    base = times["traced tensorad.numpy (jit(grad))"]
    print(f"reverse mode of a 2-layer perceptron loss, X {n}x{d}, W1 {d}x{h}, W2 {h}x{o}, float32")
    for name, t in times.items():
        print(f"  {name}: {t * 1e3:.2f} ms ({t / base:.2f}x traced)")


if __name__ == "__main__":
    main()
