"""Generated CPU code: tiled, vectorized and threaded code computes what numpy computes.

Every schedule family of ``tad-tile-and-vectorize`` (register-tiled
contractions with and without cache tiles, transposed operands, vector tiles
of elementwise ops, reductions along inner and outer axes, transposes) runs
single- and multi-threaded against numpy; the float32 polynomial ``exp`` and
``tanh`` are checked for accuracy and special values; and the runtime's
buffer pool, dispatch path and thread-pool launchers keep their contracts.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from mlir import ir

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import runtime
from tensorad.dialects import make_context
from tensorad.passes.lower import host
from tensorad.passes.registry import run_pipeline

RNG = np.random.default_rng(0)


def _rand(*shape, dtype=np.float32):
    return RNG.standard_normal(shape).astype(dtype)


@pytest.fixture(params=["1", "3"], ids=["serial", "threads3"])
def threads(request, monkeypatch):
    """Compile with one thread, and with three (an odd count: uneven chunk sharing)."""
    monkeypatch.setenv(host.THREADS_VARIABLE, request.param)
    return int(request.param)


CONTRACTIONS = {
    # name: (function, operand shapes); sizes pick cache tiles, partial tiles, tiny dims
    "matmul_cache_tiled": (lambda a, b: a @ b, [(64, 1040), (1040, 1024)]),
    "matmul_odd": (lambda a, b: a @ b, [(13, 37), (37, 50)]),
    "matmul_narrow": (lambda a, b: a @ b, [(128, 512), (512, 10)]),
    # Register tiles of no vector shape (5, 6, 12 columns) are vectorized with masks.
    "matmul_five_columns": (lambda a, b: a @ b, [(7, 9), (9, 5)]),
    "lhs_transposed_narrow": (lambda a, b: a.T @ b, [(96, 200), (96, 12)]),
    "rhs_transposed_narrow": (lambda a, b: a @ b.T, [(200, 96), (6, 96)]),
    "lhs_transposed": (lambda a, b: a.T @ b, [(96, 200), (96, 256)]),
    "rhs_transposed": (lambda a, b: a @ b.T, [(200, 96), (256, 96)]),
    "batched": (lambda a, b: a @ b, [(3, 40, 24), (3, 24, 48)]),
    "matvec": (lambda a, b: a @ b, [(64, 300), (300,)]),
}


@pytest.mark.parametrize("name", sorted(CONTRACTIONS))
def test_contractions_match_numpy(name, threads):
    fn, shapes = CONTRACTIONS[name]
    args = [_rand(*s) for s in shapes]
    np.testing.assert_allclose(ta.jit(fn)(*args), fn(*args), rtol=2e-4, atol=2e-4)


def test_a_narrow_contraction_is_masked_and_exact_in_float64():
    # 5 columns are no vector register shape on any x86 width: masked loads and stores of 8 lanes.
    a, b = _rand(64, 300, dtype=np.float64), _rand(300, 5, dtype=np.float64)
    product = ta.jit(lambda a, b: a @ b)
    assert "llvm.intr.masked.load" in product.lower(a, b).as_text("llvm")
    np.testing.assert_allclose(product(a, b), a @ b, rtol=1e-12, atol=1e-12)
    gradient = ta.jit(ta.grad(lambda a, b: tnp.sum(tnp.tanh(a @ b))))(a, b)
    np.testing.assert_allclose(gradient, (1 - np.tanh(a @ b) ** 2) @ b.T, rtol=1e-12, atol=1e-12)


ELEMENTWISE = {
    # name: (function of a numpy-like namespace and the arrays, array shapes)
    "chain_with_broadcast": (lambda xp, x, b: xp.tanh(x * 2.0 + b) - x, [(512, 512), (512,)]),
    "odd_inner_dim": (lambda xp, x, b: xp.exp(x) * b, [(37, 1000), (1000,)]),
    "transposed_read": (lambda xp, x, b: x.T + b, [(256, 512), (256,)]),
    "sum_inner": (lambda xp, x, b: (x * b).sum(axis=1), [(300, 200), (200,)]),
    "sum_outer": (lambda xp, x, b: (x + b).sum(axis=0), [(640, 520), (520,)]),
    "max_all": (lambda xp, x, b: (x - b).max(), [(33, 70), (70,)]),
    # Reductions along the innermost loop into vector partial results: rows in
    # threads, in register tiles only, and in none (the op's own region).
    "partial_sums_rows": (lambda xp, x, b: (x * b).sum(axis=-1), [(1024, 256), (256,)]),
    "partial_max_3d_keepdims": (lambda xp, x, b: x - (x * b).max(axis=-1, keepdims=True), [(8, 128, 256), (256,)]),
    "partial_mean_two_rows": (lambda xp, x, b: (x * b).mean(axis=-1), [(2, 48), (48,)]),
    "partial_min_unit_rows": (lambda xp, x, b: (x + b).min(axis=-1, keepdims=True), [(1, 1, 96), (96,)]),
}


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_elementwise_and_reductions_match_numpy(name, threads):
    fn, shapes = ELEMENTWISE[name]
    args = [_rand(*s) for s in shapes]
    got = ta.jit(lambda *a: fn(tnp, *a))(*args)
    np.testing.assert_allclose(got, fn(np, *args), rtol=1e-5, atol=1e-5)


def test_mlp_gradient_with_threads_matches_serial(monkeypatch):
    def loss(w, x):
        return tnp.sum(tnp.tanh(x @ w["a"]) @ w["b"])

    w = {"a": _rand(256, 512) / 16, "b": _rand(512, 128) / 16}
    x = _rand(128, 256)
    grads = {}
    for n in ("1", "2"):
        monkeypatch.setenv(host.THREADS_VARIABLE, n)
        grads[n] = ta.jit(ta.grad(loss))(w, x)
    for key in w:
        np.testing.assert_allclose(grads["2"][key], grads["1"][key], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("fn, reference", [(tnp.exp, np.exp), (tnp.tanh, np.tanh)], ids=["exp", "tanh"])
def test_float32_vector_approximations_are_accurate(fn, reference):
    x = np.concatenate([np.linspace(-90, 90, 20000), np.linspace(-1e-3, 1e-3, 999)]).astype(np.float32)
    got = ta.jit(fn)(x.reshape(-1, 83))
    want = reference(x.astype(np.float64)).reshape(-1, 83)
    normal = np.abs(want) > 1e-37
    with np.errstate(over="ignore"):
        finite = normal & (np.abs(want) < np.finfo(np.float32).max)
    assert np.max(np.abs(got[finite] - want[finite]) / np.abs(want[finite])) < 5e-7


def test_float32_vector_approximations_keep_special_values():
    x = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 89.0, -110.0, 1e-6] * 8, np.float32)
    e = ta.jit(tnp.exp)(x)[:8]
    t = ta.jit(tnp.tanh)(x)[:8]
    assert np.isnan(e[0]) and e[1] == np.inf and e[2] == 0.0 and e[3] == 1.0 and e[5] == np.inf
    assert e[6] == 0.0
    assert np.isnan(t[0]) and t[1] == pytest.approx(1.0) and t[2] == pytest.approx(-1.0)
    assert t[3] == 0.0 and np.signbit(t[4]) and t[7] == np.float32(1e-6)


def _lowered(text: str, pipeline: str) -> str:
    module = ir.Module.parse(text, make_context())
    run_pipeline(module, pipeline)
    return str(module)


def test_identical_thread_loops_share_one_chunk_function():
    layer = ('%{o} = "tad.dot_general"(%{i}, %w) {{lhs_batching_dimensions = array<i64>, '
             'rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, '
             'rhs_contracting_dimensions = array<i64: 0>}} '
             ': (tensor<256x256xf32>, tensor<256x256xf32>) -> tensor<256x256xf32>')
    body = "\n".join(layer.format(o=f"h{k + 1}", i=f"h{k}") for k in range(3))
    text = (f"func.func @f(%h0: tensor<256x256xf32>, %w: tensor<256x256xf32>) -> tensor<256x256xf32> {{\n"
            f"{body}\nreturn %h3 : tensor<256x256xf32>\n}}")
    llvm = _lowered(text, "tad-lower-to-linalg,tad-lower-to-llvm{threads=2 vector-bits=512}")
    # One kernel for the three products (the zero fills are too small for threads), launched thrice:
    # the products share one function (tad-outline-repeated-kernels), which launches it, called thrice.
    chunks = re.findall(r"llvm.func internal @(\w+)_thread_loop\d+_chunk", llvm)
    assert len(chunks) == 1
    assert llvm.count(f"llvm.call @{chunks[0]}(") == 3


def test_a_shared_zero_init_is_filled_per_contraction_not_copied():
    text = """
    func.func @f(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
      %cst = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<64x64xf32>
      %z = linalg.fill ins(%cst : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
      %0 = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
      %1 = linalg.matmul ins(%b, %a : tensor<64x64xf32>, tensor<64x64xf32>) outs(%z : tensor<64x64xf32>) -> tensor<64x64xf32>
      return %0, %1 : tensor<64x64xf32>, tensor<64x64xf32>
    }"""
    lowered = _lowered(text, "tad-clone-shared-fills,tad-tile-and-vectorize{vector-bits=512},one-shot-bufferize{"
                             "bufferize-function-boundaries}")
    assert lowered.count("linalg.fill") == 2 and "memref.copy" not in lowered


def test_cache_hits_do_not_trace_and_results_reuse_pooled_buffers():
    traced = []

    def double(x):
        traced.append(1)
        return x * 2.0

    f = ta.jit(double)
    x = _rand(512, 256)
    f(x)
    first = f(x)
    address = first.ctypes.data
    np.testing.assert_array_equal(first, x * 2.0)
    del first  # its buffer goes back to the pool ...
    again = f(x)  # ... and the next call of the same shape writes into it
    assert again.ctypes.data == address and len(traced) == 1
    assert ta.last_call_stats().live_allocations == 0 and runtime.live_bytes() == 0
    assert ta.last_call_stats().peak_live_bytes >= x.nbytes


def test_thread_count_setting_is_checked(monkeypatch):
    monkeypatch.setenv(host.THREADS_VARIABLE, "zero")
    with pytest.raises(ValueError, match="TENSORAD_NUM_THREADS"):
        host.num_threads()


def test_gelu_gradient_recomputes_its_elementwise_values_instead_of_storing_them(monkeypatch):
    # tad-recompute-elementwise: the tanh-GELU's x ** 3 and tanh(u) are computed again inside the backward
    # loop from h, not stored between the two passes; the gradients are those of the reference.
    from tensorad.passes.lower import to_llvm
    rng = np.random.default_rng(5)
    x, w1, w2 = rng.standard_normal((64, 32)), rng.standard_normal((32, 128)) / 6, rng.standard_normal((128, 32)) / 11
    c = 0.7978845608

    def loss(w1, w2, x):
        h = x @ w1
        return tnp.sum((0.5 * h * (1 + tnp.tanh(c * (h + 0.044715 * h ** 3))) @ w2) ** 2)

    peaks = []
    for stages in ([s for s in to_llvm.TENSOR_STAGES if s != to_llvm.RECOMPUTE_ELEMENTWISE], to_llvm.TENSOR_STAGES):
        monkeypatch.setattr(to_llvm, "TENSOR_STAGES", tuple(stages))
        g1, g2 = ta.jit(ta.grad(loss, argnums=(0, 1)))(w1, w2, x)
        peaks.append(ta.last_call_stats().peak_live_bytes)
    assert peaks[1] <= 0.8 * peaks[0]
    h = x @ w1
    t = np.tanh(c * (h + 0.044715 * h ** 3))
    gelu = 0.5 * h * (1 + t)
    dout = 2 * gelu @ w2
    dh = (dout @ w2.T) * (0.5 * (1 + t) + 0.5 * h * (1 - t ** 2) * c * (1 + 3 * 0.044715 * h ** 2))
    np.testing.assert_allclose(g2, gelu.T @ dout, rtol=1e-12)
    np.testing.assert_allclose(g1, x.T @ dh, rtol=1e-11, atol=1e-13)


def _strided_write(x, y):
    out = x.copy()
    out[::2, 1::3] = y
    return out


def _max_pool_backward(x, ct):
    """3x3 windows, stride 2, padding 1: each element gathers the cotangent of the windows whose first maximum it is."""
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), constant_values=-np.inf)
    grad = np.zeros_like(padded)
    for i, j in np.ndindex(*ct.shape[2:]):
        first = padded[:, :, 2 * i:2 * i + 3, 2 * j:2 * j + 3].reshape(*ct.shape[:2], 9).argmax(axis=2)
        n, c = np.indices(first.shape)
        grad[n, c, 2 * i + first // 3, 2 * j + first % 3] += ct[:, :, i, j]
    return grad[:, :, 1:-1, 1:-1]


@pytest.mark.parametrize("fn, reference, args", [
    (lambda x: x[::2, 1::3], lambda x: x[::2, 1::3], (_rand(6, 10, dtype=np.float64),)),
    (lambda x, y: x.at[::2, 1::3].set(y), _strided_write,
     (_rand(6, 10, dtype=np.float64), _rand(3, 3, dtype=np.float64))),
    (lambda x, ct: ta.vjp(lambda x: ta.nn.max_pool2d(x, 3, stride=2, padding=1), x)[1](ct)[0], _max_pool_backward,
     (_rand(2, 3, 9, 9, dtype=np.float64), _rand(2, 3, 5, 5, dtype=np.float64))),
], ids=["strided-read", "strided-write", "overlapping-max-pool-backward"])
def test_copies_of_strided_buffers_are_loops(fn, reference, args):
    # The runtime's memrefCopy copies one element at a time with a memcpy call:
    # the max-pool backward's phases spent half of their time in it. Every copy
    # it would run is a loop nest instead (tad-expand-strided-copies).
    f = ta.jit(fn)
    assert "memrefCopy" not in f.lower(*args).as_text("llvm")
    np.testing.assert_allclose(f(*args), reference(*args), rtol=1e-12, atol=1e-12)
