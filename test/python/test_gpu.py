"""NVIDIA GPU code: PTX from the Python API (everywhere) and numerics on a CUDA device (where one is)."""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.runtime import cuda_available

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
