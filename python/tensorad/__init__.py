"""tensorad: a source-to-source differentiating compiler built on MLIR.

Python functions are traced to the ``tad`` dialect, transformed by MLIR passes,
lowered through upstream MLIR to LLVM and run by the ExecutionEngine.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.exp(x).sum())(np.zeros(3))
array(3.)
"""

from .errors import CompileError, ConcretizationError, TensoradError, TracingError
from .compiler import Jitted, Lowered, compile_mlir, jit
from .runtime import CallStats, last_call_stats, live_bytes
from .autodiff import (custom_vjp, grad, hessian, jacfwd, jacrev, jvp, stop_gradient,
                       value_and_grad, vjp)
from . import numpy, tree

__all__ = ["jit", "compile_mlir", "Jitted", "Lowered", "grad", "value_and_grad", "vjp", "jvp",
           "jacrev", "jacfwd", "hessian", "stop_gradient", "custom_vjp", "numpy", "tree",
           "last_call_stats", "live_bytes", "CallStats", "TensoradError", "ConcretizationError",
           "TracingError", "CompileError"]
