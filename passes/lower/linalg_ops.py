"""The few ``linalg`` builders the lowering passes use, without ``mlir.dialects.linalg``.

Importing ``mlir.dialects.linalg`` runs its OpDSL definitions of every named
op (``core_named_ops``): about 40 ms, paid by the first compile of every
process. The generated op classes and the C++ region builder are all these
passes need.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> ctx = make_context()
>>> with ctx, ir.Location.unknown():
...     module = ir.Module.create()
...     t = ir.RankedTensorType.get([2, 3], ir.F32Type.get())
...     with ir.InsertionPoint(module.body):
...         x = tensor.EmptyOp([2, 3], ir.F32Type.get()).result
...         y = tensor.EmptyOp([2, 3], ir.F32Type.get()).result
...         _ = copy(x, outs=[y])
>>> "linalg.copy ins(" in str(module)
True
"""

from __future__ import annotations

from mlir import ir
from mlir._mlir_libs._mlirDialectsLinalg import fill_builtin_region
from mlir.dialects import tensor  # noqa: F401  (used by the example)
from mlir.dialects._linalg_ops_gen import ContractOp, CopyOp, GenericOp, IndexOp, TransposeOp, YieldOp

__all__ = ["GenericOp", "IndexOp", "YieldOp", "contract", "copy", "transpose"]


def _value(x) -> ir.Value:
    return x if isinstance(x, ir.Value) else x.result


def _result_types(init: ir.Value) -> list:
    return [init.type] if isinstance(init.type, ir.RankedTensorType) else []


def _single(op: ir.OpView):
    """The op's one result, or the op itself when it has none (on buffers)."""
    return op.results[0] if len(op.results) == 1 else op


def copy(x, *, outs):
    """``linalg.copy ins(x) outs(outs[0])``; returns its result (the op on buffers)."""
    init = _value(outs[0])
    op = CopyOp(_result_types(init), [_value(x)], [init])
    fill_builtin_region(op.operation)
    return _single(op)


def transpose(x, *, outs, permutation) -> TransposeOp:
    """``linalg.transpose``; returns the op, like ``mlir.dialects.linalg.transpose``."""
    init = _value(outs[0])
    op = TransposeOp(result=_result_types(init), input=_value(x), init=init, permutation=permutation)
    fill_builtin_region(op.operation)
    return op


def contract(*ins, outs, indexing_maps):
    """``linalg.contract`` of ``ins`` into ``outs[0]``; returns its result (the op on buffers)."""
    init = _value(outs[0])
    op = ContractOp(result_tensors=_result_types(init), inputs=[_value(x) for x in ins], outputs=[init],
                    indexing_maps=indexing_maps)
    fill_builtin_region(op.operation)
    return _single(op)
