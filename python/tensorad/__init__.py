"""tensorad: a source-to-source differentiating compiler built on MLIR.

Python functions are traced to the ``tad`` dialect, transformed by MLIR passes,
lowered through upstream MLIR to LLVM and run by the ExecutionEngine.

The public names are imported on first use, so tools that only need the
dialect and the passes (``autodiff-opt``) start quickly.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.exp(x).sum())(np.zeros(3))
array(3.)
"""

import importlib

_PUBLIC = {
    "errors": ("CompileError", "ConcretizationError", "DeviceError", "ExportError", "TensoradError", "TracingError",
               "UnexpectedTracerError"),
    "compiler": ("Jitted", "Lowered", "ShapeDtypeStruct", "clear_caches", "compile_mlir", "disable_jit", "eval_shape",
                 "jit"),
    "runtime": ("Array", "CallStats", "block_until_ready", "last_call_stats", "live_bytes"),
    "autodiff": ("custom_jvp", "custom_vjp", "hessian", "jacfwd", "jacobian", "jacrev", "jvp", "linear_transpose",
                 "linearize", "stop_gradient"),
    # JAX's grad/value_and_grad/vjp, taking MindSpore's weights=/grad_position= too.
    "weights": ("grad", "value_and_grad", "vjp"),
    "vectorize": ("vmap",),
    "remat": ("checkpoint", "checkpoint_name", "checkpoint_policies", "memory_report",
              "print_saved_residuals"),
    "distributed": ("data_parallel",),
    "devices": ("Device", "default_backend", "device_count", "device_get", "device_put", "devices", "local_device_count",
                "local_devices"),
}
_HOME = {name: module for module, names in _PUBLIC.items() for name in names}
_SUBMODULES = ("numpy", "lax", "nn", "optim", "random", "scipy", "te", "tree", "tree_util", "test_util", "distributed")
__all__ = sorted(_HOME) + list(_SUBMODULES)


def __getattr__(name: str):
    if name in _HOME:
        value = getattr(importlib.import_module(f"{__name__}.{_HOME[name]}"), name)
    elif name in _SUBMODULES:
        value = importlib.import_module(f"{__name__}.{name}")
    else:
        raise AttributeError(f"module 'tensorad' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__():
    return __all__
