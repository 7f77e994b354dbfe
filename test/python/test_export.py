"""Ahead-of-time export: the artefact runs without MLIR, tensorad or numpy and matches jit."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from mlir import ir

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.dialects import make_context
from tensorad.errors import ExportError
from tensorad.export import export
from tensorad.passes.registry import PASSES
from tensorad.runtime import cuda_available

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


def test_damaged_library_is_refused_before_it_is_loaded(tmp_path):
    folder = ta.jit(lambda x: x * 2.0).lower(np.ones(3)).compile().export(tmp_path / "twice")
    library = folder / "libtwice.so"
    size = library.stat().st_size
    header = (folder / "twice.h").read_text()
    assert f"#define TWICE_LIBRARY_SIZE {size}ULL" in header and "#define TWICE_LIBRARY_SHA256 \"" in header
    np.testing.assert_array_equal(load(folder, "twice").twice(np.ones(3)), [2.0, 2.0, 2.0])
    # Loading a truncated library used to die in dlopen (SIGBUS): run it in a child. The
    # damaged file replaces the library under a new inode: truncating the loaded one in
    # place would pull the pages from under this process (a crash when it exits).
    damaged = folder / "damaged.so"
    damaged.write_bytes(library.read_bytes()[: size // 2])
    os.replace(damaged, library)
    code = f"import sys; sys.path.insert(0, {str(folder)!r})\ntry:\n    import twice\nexcept ImportError as err:\n" \
           "    print(err)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert f"libtwice.so is damaged or not the library exported with this loader ({size // 2} bytes, " \
           f"expected {size}" in done.stdout


def test_errors(tmp_path):
    compiled = ta.jit(lambda x: x * 2.0).lower(np.ones(3)).compile()
    (tmp_path / "file").write_text("")
    with pytest.raises(ExportError, match="cannot create the export folder .*: Not a directory"):
        compiled.export(tmp_path / "file" / "lib")
    with pytest.raises(ExportError, match="export name 'my-lib' must be a C identifier"):
        compiled.export(tmp_path / "my-lib")
    with pytest.raises(ExportError, match=f"export name '{compiled.entry}' must be a C identifier other than "
                                          f"'{compiled.entry}'"):
        export(compiled.module, tmp_path / "x", [((3,), "float64")], [((3,), "float64")],
               name=compiled.entry, entry=compiled.entry)
    with pytest.raises(ExportError, match="export name 'memset' is a function the C library"):
        compiled.export(tmp_path / "x", name="memset")
    with pytest.raises(ExportError, match="export name 'int' must be a C identifier"):
        compiled.export(tmp_path / "x", name="int")
    with pytest.raises(ExportError, match="cannot export arrays of float16"):
        export(compiled.module, tmp_path / "half", [((3,), np.float16)], [((3,), np.float16)])
    linalg = ta.jit(lambda x: x * 2.0).lower(np.ones(3)).as_text("linalg")
    module = ir.Module.parse(linalg, make_context())
    with pytest.raises(ExportError, match=r"not lowered to the LLVM dialect .*func.func @lambda_L\d+"):
        export(module, tmp_path / "unlowered", [((3,), "float64")], [((3,), "float64")])
    memset = ir.Module.parse("""
        llvm.func @mgpuMemset32(!llvm.ptr, i32, i64, !llvm.ptr)
        llvm.func @_mlir_ciface_main() {
          %p = llvm.mlir.zero : !llvm.ptr
          %c = llvm.mlir.constant(0 : i32) : i32
          %n = llvm.mlir.constant(0 : i64) : i64
          llvm.call @mgpuMemset32(%p, %c, %n, %p) : (!llvm.ptr, i32, i64, !llvm.ptr) -> ()
          llvm.return
        }""", make_context())
    with pytest.raises(ExportError, match="calls mgpuMemset32, which the export's CUDA runtime "
                                          r"\(export_cuda_runtime.c\) does not implement"):
        export(memset, tmp_path / "uses_memset", [], [])


CUDA_RUNTIME = Path(ta.__file__).with_name("export_cuda_runtime.c")
CUDA_H = Path(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "include", "cuda.h")
needs_gpu_pipeline = pytest.mark.skipif("tad-lower-to-nvvm" not in PASSES, reason="no GPU pipeline")


def gpu_export(tmp_path, name="mlp_grad_gpu"):
    """The MLP gradient lowered for the GPU (no GPU needed) and exported; with its jitted step and inputs."""
    step = ta.jit(ta.value_and_grad(mlp_loss), device="gpu")
    args = mlp_args(np.float32)
    lowered = step.lower(*args)
    module = ir.Module.parse(lowered.as_text("nvvm"), make_context())
    return export(module, tmp_path / name, lowered.in_avals, lowered.out_avals, entry=lowered.entry), step, args


def run_loader(folder, name, code, env=None):
    """Run ``code`` in `python -I -S` with the loader ``name`` imported as ``loader``."""
    script = f"import sys\nsys.path.insert(0, {str(folder)!r})\nimport {name} as loader\n{code}"
    return subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True,
                          timeout=60, env=env)


@needs_gpu_pipeline
def test_gpu_export_is_self_contained(tmp_path):
    # Only lib<name>.so: its mgpu* functions are export_cuda_runtime.c's, the
    # driver is dlopen-ed, and no MLIR, LLVM or CUDA library is linked.
    folder, _, _ = gpu_export(tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == ["libmlp_grad_gpu.so", "mlp_grad_gpu.h", "mlp_grad_gpu.py"]
    library = folder / "libmlp_grad_gpu.so"
    assert library.stat().st_size < 1 << 20
    nm = subprocess.run(["nm", "-D", str(library)], capture_output=True, text=True, check=True).stdout
    defined = {line.split()[-1] for line in nm.splitlines() if line.split()[-2] == "T"}
    undefined = {line.split()[-1].split("@")[0] for line in nm.splitlines() if line.split()[-2] == "U"}
    assert defined == {"mlp_grad_gpu", "mlp_grad_gpu_peak_bytes", "mlp_grad_gpu_gpu_error"}
    assert "dlopen" in undefined and not [s for s in undefined if s.startswith(("mgpu", "cu", "mlir"))]
    ldd = subprocess.run(["ldd", str(library)], capture_output=True, text=True, check=True).stdout
    assert not [line for line in ldd.splitlines() if any(k in line for k in ("LLVM", "mlir", "MLIR", "cuda"))]
    assert b"libcuda.so.1" in library.read_bytes()
    assert "const char *mlp_grad_gpu_gpu_error(void);" in (folder / "mlp_grad_gpu.h").read_text()


@needs_gpu_pipeline
@pytest.mark.skipif(cuda_available(), reason="a CUDA driver is present (the next test runs the code)")
def test_gpu_export_without_driver_is_a_clear_error(tmp_path):
    folder, _, _ = gpu_export(tmp_path)
    done = run_loader(folder, "mlp_grad_gpu", "loader.mlp_grad_gpu(*[b''] * len(loader.INPUTS))")
    assert done.returncode == 1, done.stderr
    assert ("RuntimeError: libmlp_grad_gpu.so cannot run here: the CUDA driver libcuda.so.1 cannot be "
            "loaded (libcuda.so.1: cannot open shared object file") in done.stderr
    # C callers: the entry prints the reason and aborts.
    done = run_loader(folder, "mlp_grad_gpu", "loader._entry(*[None] * 9)")
    assert done.returncode == -signal.SIGABRT
    assert done.stderr.startswith("tensorad export: the CUDA driver libcuda.so.1 cannot be loaded")


@needs_gpu_pipeline
def test_gpu_export_with_a_driver_but_no_device(tmp_path):
    # A stand-in libcuda.so.1 whose cuInit finds no device: every driver
    # function the runtime uses is looked up by its versioned symbol, and the
    # driver's error is reported by name.
    symbols = re.findall(r"X\((\w+), (\w+),", CUDA_RUNTIME.read_text())
    stubs = [f"int {symbol}(void) {{ return 999; }}" for _, symbol in symbols
             if symbol not in ("cuInit", "cuGetErrorName", "cuGetErrorString")]
    (tmp_path / "driver.c").write_text("\n".join([
        "int cuInit(unsigned flags) { return 100; }",
        'int cuGetErrorName(int e, const char **s) { *s = "CUDA_ERROR_NO_DEVICE"; return 0; }',
        'int cuGetErrorString(int e, const char **s) { *s = "no CUDA-capable device is detected"; return 0; }',
        *stubs, ""]))
    (tmp_path / "driver").mkdir()
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / "driver" / "libcuda.so.1"),
                    str(tmp_path / "driver.c")], check=True)
    folder, _, _ = gpu_export(tmp_path)
    env = {**os.environ, "LD_LIBRARY_PATH": str(tmp_path / "driver")}
    done = run_loader(folder, "mlp_grad_gpu", "print(loader._lib.mlp_grad_gpu_gpu_error().decode())", env)
    assert done.stdout == "cuInit failed: CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)\n", done.stderr

    (tmp_path / "driver.c").write_text("int cuInit(unsigned flags) { return 0; }\n")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(tmp_path / "driver" / "libcuda.so.1"),
                    str(tmp_path / "driver.c")], check=True)
    done = run_loader(folder, "mlp_grad_gpu", "print(loader._lib.mlp_grad_gpu_gpu_error().decode())", env)
    assert done.stdout.startswith("libcuda.so.1 has no cuDeviceGet: the NVIDIA driver is too old"), done.stderr


@needs_gpu_pipeline
@pytest.mark.skipif(not cuda_available(), reason="no CUDA driver (libcuda.so.1) on this machine: GPU export not run")
def test_gpu_export_runs_and_matches_cpu(tmp_path):
    folder, step, args = gpu_export(tmp_path)
    outputs, peak = run_isolated(folder, "mlp_grad_gpu", ta.tree.flatten(args)[0], tmp_path)
    value, grads = ta.jit(ta.value_and_grad(mlp_loss))(*args)
    for raw, want in zip(outputs, [value, *ta.tree.flatten(grads)[0]], strict=True):
        np.testing.assert_allclose(np.frombuffer(raw, want.dtype).reshape(want.shape), want, rtol=1e-4, atol=1e-4)
    step(*args)
    assert peak == ta.last_call_stats().peak_live_bytes  # device and host bytes, as the jitted GPU code counts


@pytest.mark.skipif(not CUDA_H.exists(), reason=f"no {CUDA_H} (CUDA toolkit) to check the declarations against")
def test_cuda_declarations_match_cuda_h(tmp_path):
    # Types, symbol versions (cuMemAlloc -> cuMemAlloc_v2) and constants that
    # export_cuda_runtime.c declares itself are cuda.h's.
    source = tmp_path / "check.c"
    source.write_text(Path(ta.__file__).with_name("export_runtime.c").read_text() + CUDA_RUNTIME.read_text())
    done = subprocess.run(["cc", "-fsyntax-only", "-std=gnu11", "-Wall", "-Werror", "-DTAD_CHECK_CUDA_H",
                           f"-I{CUDA_H.parent}", str(source)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
