"""Every elementwise math function of ``tensorad.numpy`` compiles to PTX that needs nothing outside itself.

libdevice's ``__nv_*`` functions are linked and inlined by
``gpu-module-to-binary``; an unresolved one would be an ``.extern .func``
that the CUDA driver refuses to load. Where ``ptxas`` is found, the PTX is
also assembled for ``sm_90``, which fails on any unresolved function.
"""

import re

import numpy as np
import pytest
from ptx import assemble, kernels_of

import tensorad as ta
import tensorad.numpy as tnp

pytestmark = pytest.mark.gpu


def float_math(x, y):
    unary = (tnp.exp, tnp.log, tnp.log1p, tnp.expm1, tnp.tanh, tnp.sin, tnp.cos, tnp.tan, tnp.sqrt, tnp.rsqrt,
             tnp.abs, tnp.sign, tnp.floor, tnp.ceil, tnp.round, tnp.trunc, tnp.log2, tnp.log10, tnp.exp2, tnp.cbrt,
             tnp.sinh, tnp.cosh, tnp.arcsin, tnp.arccos, tnp.arctan, tnp.arcsinh, tnp.arccosh, tnp.arctanh)
    binary = (tnp.power, tnp.arctan2, tnp.remainder, tnp.maximum, tnp.minimum, tnp.copysign, tnp.fmax, tnp.fmin,
              tnp.fmod)
    return [f(x) for f in unary] + [f(x, y) for f in binary]


def integer_math(x, y):
    return [tnp.power(x, y), tnp.abs(x), tnp.sign(x), tnp.remainder(x, y)]


def _kernels(dtype) -> list[str]:
    """The PTX text of every kernel of the functions above for ``dtype``."""
    fun = integer_math if np.issubdtype(dtype, np.integer) else float_math
    args = [np.arange(1, 65).astype(dtype)] * 2
    return kernels_of(ta.jit(fun, device="gpu").lower(*args).as_text("nvvm"))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32], ids=["f32", "f64", "i32"])
def test_math_kernels_have_no_external_calls(dtype, tmp_path):
    kernels = _kernels(dtype)
    assert kernels
    for ptx in kernels:
        assert ".extern" not in ptx and "__nv_" not in ptx
    assemble(kernels, tmp_path)


def test_float32_sqrt_is_correctly_rounded():
    # sqrt alone: libdevice's own asinhf and acoshf take sqrt.approx inside (within their documented error).
    ptx = "".join(kernels_of(ta.jit(tnp.sqrt, device="gpu").lower(np.arange(1, 65, dtype=np.float32)).as_text("nvvm")))
    assert "sqrt.rn.f32" in ptx and not re.search(r"\bsqrt\.approx", ptx)  # rsqrt.approx is libdevice's rsqrtf
