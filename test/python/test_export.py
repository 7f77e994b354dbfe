"""Ahead-of-time export: the artefact runs without MLIR, tensorad or numpy and matches jit."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from mlir import ir

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.dialects import make_context
from tensorad.errors import ExportError
from tensorad.export import export, prepare_entry
from tensorad.passes.registry import PASSES, run_pipeline

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="export links with cc")


def mlp_loss(params, x, y):
    h = tnp.tanh(x @ params["w1"] + params["b1"])
    return ((h @ params["w2"] - y) ** 2).mean()


def mlp_args(dtype, batch=16, width=32, features=8, seed=0):
    rng = np.random.default_rng(seed)
    params = {"w1": rng.standard_normal((features, width)), "b1": rng.standard_normal(width),
              "w2": rng.standard_normal((width, 3))}
    params = {k: v.astype(dtype) for k, v in params.items()}
    x, y = rng.standard_normal((batch, features)), rng.standard_normal((batch, 3))
    return params, x.astype(dtype), y.astype(dtype)


# Runs in `python -I -S`: no site-packages, so neither mlir, tensorad nor numpy imports.
ISOLATED = textwrap.dedent("""
    import importlib, importlib.util, sys
    folder, name, inputs, outputs = sys.argv[1:5]
    assert not any(importlib.util.find_spec(m) for m in ("mlir", "tensorad", "numpy")), sys.path
    sys.path.insert(0, folder)
    loader = importlib.import_module(name)
    args = [open(f"{inputs}{i}", "rb").read() for i in range(len(loader.INPUTS))]
    results = loader.__dict__[name](*args)
    results = results if isinstance(results, tuple) else (results,)
    for i, r in enumerate(results):
        open(f"{outputs}{i}", "wb").write(r.tobytes())
    print(loader.peak_bytes())
""")


def run_isolated(folder, name, arrays, tmp_path) -> tuple:
    """Run the loader on raw bytes in a Python without site-packages; return (outputs as bytes, peak)."""
    for i, a in enumerate(arrays):
        (tmp_path / f"in{i}").write_bytes(np.ascontiguousarray(a).tobytes())
    done = subprocess.run([sys.executable, "-I", "-S", "-c", ISOLATED, str(folder), name,
                           str(tmp_path / "in"), str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    count = len(list(tmp_path.glob("out*")))
    return [(tmp_path / f"out{i}").read_bytes() for i in range(count)], int(done.stdout)


def load(folder, name):
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_mlp_gradient_runs_without_mlir(dtype, tmp_path):
    step = ta.jit(ta.value_and_grad(mlp_loss))
    args = mlp_args(dtype)
    folder = step.lower(*args).compile().export(tmp_path / "mlp_grad")
    assert sorted(p.name for p in folder.iterdir()) == ["libmlp_grad.so", "mlp_grad.h", "mlp_grad.py"]

    value, grads = step(*args)
    expected = [value, *ta.tree.flatten(grads)[0]]
    flat_inputs = ta.tree.flatten(args)[0]
    outputs, peak = run_isolated(folder, "mlp_grad", flat_inputs, tmp_path)
    assert len(outputs) == len(expected)
    for raw, want in zip(outputs, expected):
        got = np.frombuffer(raw, want.dtype).reshape(want.shape)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    assert peak == ta.last_call_stats().peak_live_bytes


def test_threaded_code_and_numpy_loader(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORAD_NUM_THREADS", "4")
    grad = ta.jit(ta.grad(mlp_loss))
    args = mlp_args(np.float64, batch=256, width=256, features=256)
    compiled = grad.lower(*args).compile()
    assert "mlirAsyncRuntimeExecute" in str(compiled.module)  # the export brings its own thread pool
    folder = compiled.export(tmp_path / "out", name="mlp_grad_mt")
    assert not list(folder.glob("libmlir*"))
    loader = load(folder, "mlp_grad_mt")
    flat = ta.tree.flatten(args)[0]
    want = ta.tree.flatten(grad(*args))[0]
    for _ in range(3):  # the pool's threads are reused
        got = loader.mlp_grad_mt(*flat)
        for g, w in zip(got, want):
            assert isinstance(g, np.ndarray) and g.shape == w.shape and g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


def test_dtypes_scalars_and_aliased_results(tmp_path):
    def f(x, n, flags):
        return x > 0, n * 2, flags, x.sum(), x  # a bool, an int, inputs returned as they are

    x, n = np.array([1.5, -2.0, 0.0], np.float32), np.arange(6, dtype=np.int64).reshape(2, 3)
    flags = np.array([True, False])
    jitted = ta.jit(f)
    folder = jitted.lower(x, n, flags).compile().export(tmp_path / "mixed")
    loader = load(folder, "mixed")
    for got, want in zip(loader.mixed(x, n, flags), jitted(x, n, flags)):
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
    header = (folder / "mixed.h").read_text()
    assert "void mixed(const float *in0 /* 3 */," in header and "uint8_t *out0 /* 3 */" in header
    assert "float *out3 /* scalar */" in header

    with pytest.raises(TypeError, match="input 0: expected float32 data, got buffer format 'd'"):
        loader.mixed(x.astype(np.float64), n, flags)
    with pytest.raises(ValueError, match=r"input 1: expected int64 of shape \(2, 3\)"):
        loader.mixed(x, n.reshape(3, 2), flags)
    with pytest.raises(TypeError, match="takes 3 inputs, got 1"):
        loader.mixed(x)
    # Non-contiguous arrays are made contiguous; plain bytes count as raw data.
    strided = np.array([1.5, 9, -2.0, 9, 0.0, 9], np.float32)[::2]
    np.testing.assert_array_equal(loader.mixed(strided, n.tobytes(), flags)[1], n * 2)


def test_views_of_results_are_copied_out(tmp_path):
    # Slices, strided rows and a view of an input make the library's copies
    # (memrefCopy and the copy into the caller's buffer) run on strided data.
    def f(x):
        y = tnp.exp(x)
        return y[1:3, ::2], x[:, 1], tnp.concatenate([y[:, :2], x[::2, 1:3]], axis=0), x[2]

    x = np.arange(24, dtype=np.float64).reshape(4, 6) / 7.0
    jitted = ta.jit(f)
    loader = load(jitted.lower(x).compile().export(tmp_path / "views"), "views")
    for got, want in zip(loader.views(x), jitted(x)):
        np.testing.assert_array_equal(got, want)


C_PROGRAM = r"""
#include <stdio.h>
#include "mlp_grad.h"

int main(void) {
  float w1[8 * 4], b1[4], w2[4 * 3], x[2 * 8], y[2 * 3];
  float value, gw1[8 * 4], gb1[4], gw2[4 * 3];
  float *inputs[] = {b1, w1, w2, x, y};
  int sizes[] = {4, 32, 12, 16, 6};
  for (int k = 0; k < 5; ++k)
    for (int i = 0; i < sizes[k]; ++i) inputs[k][i] = (float)((i * 7 + k * 3) % 11) / 8.0f - 0.5f;  /* exact in float */
  mlp_grad(b1, w1, w2, x, y, &value, gb1, gw1, gw2);
  printf("%.9g %.9g %.9g %.9g %llu\n", value, gb1[0], gw1[5], gw2[11],
         (unsigned long long)mlp_grad_peak_bytes());
  return 0;
}
"""


def test_c_program_links_against_the_library(tmp_path):
    step = ta.jit(ta.value_and_grad(mlp_loss))
    args = mlp_args(np.float32, batch=2, width=4)
    flat = ta.tree.flatten(args)[0]  # dict leaves in key order: b1, w1, w2; then x, y
    for k, a in enumerate(flat):
        a[...] = ((np.arange(a.size) * 7 + k * 3) % 11).reshape(a.shape) / 8.0 - 0.5
    folder = step.lower(*args).compile().export(tmp_path / "mlp_grad")
    (tmp_path / "main.c").write_text(C_PROGRAM)
    subprocess.run(["cc", "-o", str(tmp_path / "prog"), str(tmp_path / "main.c"), f"-I{folder}",
                    f"-L{folder}", "-lmlp_grad", f"-Wl,-rpath,{folder}"], check=True)
    printed = subprocess.run([str(tmp_path / "prog")], capture_output=True, text=True, check=True).stdout
    value, gb1, gw1, gw2, peak = printed.split()
    want_value, grads = step(*args)
    np.testing.assert_allclose([float(value), float(gb1), float(gw1), float(gw2)],
                               [want_value, grads["b1"][0], grads["w1"].ravel()[5], grads["w2"].ravel()[11]],
                               rtol=1e-6)
    assert int(peak) == ta.last_call_stats().peak_live_bytes


def test_errors(tmp_path):
    compiled = ta.jit(lambda x: x * 2.0).lower(np.ones(3)).compile()
    (tmp_path / "file").write_text("")
    with pytest.raises(ExportError, match="cannot create the export folder .*: Not a directory"):
        compiled.export(tmp_path / "file" / "lib")
    with pytest.raises(ExportError, match="export name 'my-lib' must be a C identifier"):
        compiled.export(tmp_path / "my-lib")
    with pytest.raises(ExportError, match="export name 'main' must be a C identifier other than 'main'"):
        compiled.export(tmp_path / "x", name="main")
    with pytest.raises(ExportError, match="cannot export arrays of float16"):
        export(compiled.module, tmp_path / "half", [((3,), np.float16)], [((3,), np.float16)])
    linalg = ta.jit(lambda x: x * 2.0).lower(np.ones(3)).as_text("linalg")
    module = ir.Module.parse(linalg, make_context())
    with pytest.raises(ExportError, match="not lowered to the LLVM dialect .*func.func @main"):
        export(module, tmp_path / "unlowered", [((3,), "float64")], [((3,), "float64")])


GPU_MODULE = """
func.func @main(%x: tensor<64x32xf32>, %w: tensor<32x16xf32>) -> tensor<64x16xf32> {
  %0 = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
      lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
      : (tensor<64x32xf32>, tensor<32x16xf32>) -> tensor<64x16xf32>
  %1 = math.tanh %0 : tensor<64x16xf32>
  return %1 : tensor<64x16xf32>
}
"""


@pytest.mark.skipif("tad-lower-to-nvvm" not in PASSES, reason="no GPU pipeline")
def test_gpu_export_builds(tmp_path):
    """The GPU artefact links against libmlir_cuda_runtime.so shipped beside it (not run: no GPU needed)."""
    module = ir.Module.parse(GPU_MODULE, make_context())
    in_avals, out_avals = prepare_entry(module)
    run_pipeline(module, "tad-lower-to-linalg,tad-lower-to-nvvm")
    folder = export(module, tmp_path / "gpu_mm", in_avals, out_avals)
    try:
        assert (folder / "libmlir_cuda_runtime.so").exists()
        nm = subprocess.run(["nm", "-D", str(folder / "libgpu_mm.so")], capture_output=True, text=True,
                            check=True).stdout
        assert " T gpu_mm\n" in nm and " U mgpuLaunchKernel\n" in nm and " U mgpuMemFree\n" in nm
    finally:
        shutil.rmtree(folder)  # the CUDA runtime brings libLLVM.so along: 136 MB
