"""NVIDIA GPU code: PTX from the Python API (everywhere) and numerics on a CUDA device (where one is)."""

import os
import sys

import numpy as np
import pytest
from ptx import assemble, kernels_of

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.runtime import cuda_available

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
from benchmarks.workloads import WORKLOADS, Gradient  # noqa: E402

GRADIENTS = [cls for cls in WORKLOADS if issubclass(cls, Gradient)]

pytestmark = pytest.mark.gpu
needs_cuda = pytest.mark.skipif(not cuda_available(),
                                reason="no CUDA driver (libcuda.so.1) on this machine: GPU numerics not run")


def mlp_loss(w, b, x):
    return tnp.sum(tnp.tanh(x @ w + b) ** 2)


def _inputs():
    rng = np.random.default_rng(0)
    return (rng.standard_normal((32, 16)).astype(np.float32) * 0.3, rng.standard_normal(16).astype(np.float32),
            rng.standard_normal((8, 32)).astype(np.float32))


def test_ptx_from_python_api():
    text = ta.jit(ta.grad(mlp_loss), device="gpu").lower(*_inputs()).as_text("nvvm")
    assert "gpu.binary" in text and ".target sm_90" in text and ".visible .entry" in text
    assert ".shared" in text and "__nv_" not in text  # shared-memory matmul; no libdevice call


@pytest.mark.skipif(cuda_available(), reason="a CUDA driver is present")
def test_gpu_without_driver_is_a_clear_error():
    with pytest.raises(ta.DeviceError, match="CUDA driver"):
        ta.jit(mlp_loss, device="gpu")(*_inputs())


def test_unknown_device():
    with pytest.raises(ValueError, match="unknown device"):
        ta.jit(mlp_loss, device="tpu")


@needs_cuda
def test_forward_and_gradient_match_cpu():
    args = _inputs()
    for fun in (mlp_loss, ta.grad(mlp_loss)):
        expected = ta.jit(fun)(*args)
        got = ta.jit(fun, device="gpu")(*args)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert ta.last_call_stats().peak_live_bytes > 0
    assert ta.last_call_stats().live_allocations == 0


def _workload_step(cls, device: str):
    """The workload's loss and gradients (tiny sizes) as one jitted step on ``device``, with its inputs."""
    workload = cls(tiny=True)
    data = workload.inputs(np.random.default_rng(0))
    step = ta.jit(ta.value_and_grad(cls.loss_tensorad), device=device)
    return step, (data["params"], *data["args"])


@pytest.mark.parametrize("cls", GRADIENTS, ids=[cls.key for cls in GRADIENTS])
def test_benchmark_gradients_compile_to_ptx(cls, tmp_path):
    # Convolutions, pooling, scan loops and the GMM's reductions all become
    # kernels that ptxas (where the CUDA toolkit is installed) accepts.
    step, args = _workload_step(cls, "gpu")
    kernels = kernels_of(step.lower(*args).as_text("nvvm"))
    assert kernels and not any(".extern" in k for k in kernels)
    assemble(kernels, tmp_path)


@needs_cuda
@pytest.mark.parametrize("key", ["W1", "W5"])
def test_benchmark_gradients_match_cpu(key):
    cls = next(c for c in GRADIENTS if c.key == key)
    (cpu, args), (gpu, _) = _workload_step(cls, "cpu"), _workload_step(cls, "gpu")
    for got, expected in zip(ta.tree.flatten(gpu(*args))[0], ta.tree.flatten(cpu(*args))[0]):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
