"""Building a tensor-expression graph: the traced function, ``build``, ``lower`` and ``create_schedule``.

A graph becomes an ordinary traced function: each tensor in dependency order
is emitted into the module being traced (a compute as a ``linalg.generic``,
a function node by its own emitter), so :func:`tensorad.jit`, every
transformation and the passes see ordinary IR. :func:`build` compiles it;
:func:`lower` shows its IR at any stage of the pipeline (the input of
``autodiff-opt``).

Examples
--------
>>> import numpy as np
>>> from tensorad import te
>>> A = te.placeholder((2, 2), "float64", name="A")
>>> k = te.reduce_axis((0, 2), name="k")
>>> C = te.compute((2, 2), lambda i, j: te.sum(A[i, k] * A[k, j], axis=k), name="C")
>>> f = te.build([A, C])
>>> f(np.array([[1.0, 2.0], [3.0, 4.0]])).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir

from .. import compiler
from ..tracing import Tracer
from .emit import emit_compute
from .tensor import ComputeOp, FunctionOp, PlaceholderOp, Tensor, graph_of


def emit_graph(outputs: Sequence[Tensor], values: dict) -> list:
    """Tracers of ``outputs``, emitting every tensor they need; ``values`` maps placeholders to tracers.

    ``values`` is extended with the tracer of every tensor emitted, so that a
    later call reuses them.
    """
    for t in graph_of(outputs):
        if t in values:
            continue
        if isinstance(t.op, PlaceholderOp):
            raise ValueError(f"{t.name} (a placeholder) is needed by the outputs but is not an argument")
        with ir.Location.file(t.where[0], t.where[1], 1):
            if isinstance(t.op, ComputeOp):
                value = emit_compute(t, values, t.op.pads)
            else:
                value = t.op.emit(*[values[i] for i in t.op.input_tensors])
        if not isinstance(value, Tracer) or value.shape != t.shape or value.dtype.name != t.dtype:
            described = getattr(t.op, "describe", "its compute")
            got = (value.shape, value.dtype.name) if isinstance(value, Tracer) else type(value).__name__
            raise TypeError(f"{t.name}: {described} made {got}, not {(t.shape, t.dtype)}")
        values[t] = value
    return [values[t] for t in outputs]


class Schedule:
    """The tensors to build (TVM's ``te.create_schedule``).

    tensorad chooses loop order, tiling, vectorization and threads itself
    when it lowers the ``linalg`` IR, so a schedule holds only its outputs;
    it exists so that TVM code reads the same.
    """

    def __init__(self, outputs: Sequence[Tensor]):
        self.outputs = list(outputs)


def create_schedule(ops) -> Schedule:
    """A :class:`Schedule` of one output or a list of outputs (tensors, or their ``.op``)."""
    ops = ops if isinstance(ops, (list, tuple)) else [ops]
    outputs = []
    for op in ops:
        outputs.append(op if isinstance(op, Tensor) else getattr(op, "output", None))
        if outputs[-1] is None:
            raise TypeError("create_schedule takes te tensors (or their .op)")
    return Schedule(outputs)


class Module:
    """A built graph: call it with the placeholders' arrays (returns the outputs), or with every
    argument's array, outputs included, which it fills in place (TVM's calling convention)."""

    def __init__(self, inputs: list, outputs: list, name: str):
        self.inputs, self.outputs = inputs, outputs

        def graph(*arrays):
            values = emit_graph(outputs, dict(zip(inputs, arrays)))
            return values[0] if len(values) == 1 else tuple(values)

        graph.__name__ = name
        self.jitted = compiler.jit(graph)

    def _check(self, arrays: Sequence) -> list:
        converted = []
        for t, x in zip(self.inputs, arrays):
            x = np.asarray(x)
            if x.shape != t.shape:
                raise ValueError(f"{t.name} has shape {t.shape}; the array given has {x.shape}")
            converted.append(x.astype(t.dtype, copy=False))
        return converted

    def __call__(self, *arrays):
        if len(arrays) == len(self.inputs):
            return self.jitted(*self._check(arrays))
        if len(arrays) != len(self.inputs) + len(self.outputs):
            raise TypeError(f"the built function takes the {len(self.inputs)} placeholders "
                            f"(or those and the {len(self.outputs)} outputs to fill); {len(arrays)} given")
        results = self.jitted(*self._check(arrays[:len(self.inputs)]))
        results = results if isinstance(results, tuple) else (results,)
        for t, out, result in zip(self.outputs, arrays[len(self.inputs):], results):
            if not isinstance(out, np.ndarray) or out.shape != t.shape:
                raise ValueError(f"the output array for {t.name} must be a numpy array of shape {t.shape}")
            out[...] = result
        return results[0] if len(results) == 1 else results

    def as_text(self, stage: str = "tad") -> str:
        """The module's IR at ``stage`` ("tad", "differentiated", "linalg", "llvm")."""
        example = [np.zeros(t.shape, t.dtype) for t in self.inputs]
        return self.jitted.lower(*example).as_text(stage)


def _arguments(schedule_or_args, args) -> list:
    if isinstance(schedule_or_args, Schedule):
        return list(args) if args is not None else list(schedule_or_args.outputs)
    if args is not None:
        raise TypeError("build(schedule, args) or build(args)")
    return list(schedule_or_args)


def build(schedule_or_args, args: Sequence[Tensor] | None = None, target: str = "llvm",
          name: str = "te_graph") -> Module:
    """Compile the tensors ``args``: placeholders are the inputs, in order; the others are outputs.

    ``build(s, [A, B, C])`` as in TVM, or ``build([A, B, C])``. The target
    is the CPU (``"llvm"``, as TVM names it).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> A = te.placeholder((3,), "float64", name="A")
    >>> B = te.compute((3,), lambda i: te.exp(A[i]), name="B")
    >>> out = np.empty(3)
    >>> _ = te.build(te.create_schedule(B.op), [A, B])(np.zeros(3), out)
    >>> out.tolist()
    [1.0, 1.0, 1.0]
    """
    if target not in ("llvm", "cpu"):
        raise ValueError(f"target {target!r}: te.build compiles for the CPU ('llvm')")
    tensors = _arguments(schedule_or_args, args)
    if not all(isinstance(t, Tensor) for t in tensors):
        raise TypeError("te.build takes te tensors: placeholders (inputs) and the outputs")
    inputs = [t for t in tensors if isinstance(t.op, PlaceholderOp)]
    outputs = [t for t in tensors if not isinstance(t.op, PlaceholderOp)]
    if not outputs:
        raise ValueError("te.build needs at least one output (a compute) among its arguments")
    missing = [t.name for t in graph_of(outputs) if isinstance(t.op, PlaceholderOp) and t not in inputs]
    if missing:
        raise ValueError(f"the outputs need {', '.join(missing)}, which is not an argument of te.build")
    return Module(inputs, outputs, name)


def lower(schedule_or_args, args: Sequence[Tensor] | None = None, stage: str = "tad", simple_mode: bool = True) -> str:
    """The MLIR of the graph at ``stage``, as text (``simple_mode`` is accepted as in TVM)."""
    return build(schedule_or_args, args).as_text(stage)

