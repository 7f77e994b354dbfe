"""``tensorad.te``: TVM-style tensor expressions, compiled and differentiated by tensorad.

Write index-level computations as in TVM's ``te`` and differentiate them as
``te.gradient`` / ``tvm.differentiate`` do. Each compute becomes one
``linalg.generic`` in the module being traced, so the derivative rules of
``linalg.generic``, the passes, ``jit`` and ``autodiff-opt`` see ordinary IR.

- graph: :func:`placeholder`, :func:`compute`, :func:`reduce_axis`,
  :func:`sum`/:func:`max`/:func:`min`, :func:`if_then_else`, :func:`all`,
  :func:`any`, :func:`const`, math (:func:`exp`, :func:`log`, :func:`tanh`, ...)
- derivatives: :func:`differentiate` (alias :func:`gradient`), :mod:`tensorad.te.autodiff`
- running: :func:`build`, :func:`lower`, :func:`create_schedule`
- operator library: :mod:`tensorad.te.topi` (``add``, ``sum``, ``nn.dense``, ``nn.conv2d``, ``nn.pool``, ...)

Examples
--------
>>> import numpy as np
>>> from tensorad import te
>>> X = te.placeholder((2, 3), "float64", name="X")
>>> W = te.placeholder((4, 3), "float64", name="W")
>>> k = te.reduce_axis((0, 3), name="k")
>>> Y = te.compute((2, 4), lambda i, j: te.sum(X[i, k] * W[j, k], axis=k), name="Y")
>>> H = te.placeholder((2, 4), "float64", name="H")
>>> [dW] = te.differentiate(Y, [W], head=H)
>>> te.build([X, W, H, dW])(np.ones((2, 3)), np.ones((4, 3)), np.ones((2, 4))).tolist()[0]
[2.0, 2.0, 2.0]
"""

from . import autodiff, topi
from .autodiff import DifferentiationResult, differentiate, gradient
from .build import Module, Schedule, build, create_schedule, lower
from .expr import Expr, ReduceAxis, Var
from .tensor import (Tensor, abs, all, any, ceil, compute, const, cos, erf, exp, expm1, floor, if_then_else, log,
                     log1p, max, min, placeholder, power, reduce_axis, rsqrt, sigmoid, sin, sqrt, sum, tanh)

__all__ = [
    "DifferentiationResult", "Expr", "Module", "autodiff", "differentiate", "gradient", "topi", "ReduceAxis", "Schedule", "Tensor", "Var", "abs", "all", "any", "build", "ceil", "compute",
    "const", "cos", "create_schedule", "erf", "exp", "expm1", "floor", "if_then_else", "log", "log1p", "lower",
    "max", "min", "placeholder", "power", "reduce_axis", "rsqrt", "sigmoid", "sin", "sqrt", "sum", "tanh",
]
