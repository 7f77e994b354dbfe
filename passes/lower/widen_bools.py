"""``tad-widen-bools``: keep booleans in memory as bytes (``i8``), not ``i1``.

LLVM 22's ``memref.store`` lowering rejects element types narrower than a
byte, and numpy stores a bool per byte anyway. This pass retypes every
``tensor<...xi1>`` and ``memref<...xi1>`` value (function arguments and
results, op results, block arguments) to ``i8`` elements; scalar code keeps
``i1``: linalg bodies truncate the loaded byte (``arith.trunci``) and widen
what they yield (``arith.extui``), ``tensor.extract`` and ``memref.load``
truncate their result and ``memref.store`` widens the stored value.

``tad-lower-to-llvm`` runs it twice: on tensors before bufferization, and on
memrefs after buffer deallocation, whose lowering keeps ownership flags in
``memref<?xi1>`` buffers.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<3xf32>) -> tensor<3xi1> {
...   %0 = arith.cmpf ogt, %x, %x : tensor<3xf32>
...   return %0 : tensor<3xi1>
... }''', make_context())
>>> run_pipeline(m, "func.func(convert-elementwise-to-linalg),tad-widen-bools")
>>> "tensor<3xi8>" in str(m) and "tensor<3xi1>" not in str(m)
True
"""

from __future__ import annotations

import numpy as np
from mlir import ir
from mlir.dialects import arith
from ..walk import collect

_I1_WIDTH = 1


def _is_i1(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == _I1_WIDTH


def _is_bool_tensor(t: ir.Type) -> bool:
    return isinstance(t, (ir.RankedTensorType, ir.MemRefType)) and _is_i1(t.element_type)


def _widened(t: ir.Type) -> ir.Type:
    byte = ir.IntegerType.get_signless(8)
    if _is_bool_tensor(t) and isinstance(t, ir.MemRefType):
        return ir.MemRefType.get(list(t.shape), byte, t.layout, t.memory_space)
    if _is_bool_tensor(t):
        return ir.RankedTensorType.get(list(t.shape), byte, t.encoding)
    if isinstance(t, ir.FunctionType):
        return ir.FunctionType.get([_widened(x) for x in t.inputs], [_widened(x) for x in t.results])
    return t


def _element_type(t: ir.Type) -> ir.Type:
    return t.element_type if isinstance(t, ir.ShapedType) else t


def _narrow_block_arguments(op: ir.Operation) -> None:
    """Make a linalg body read bytes for operands that became ``i8``."""
    block = op.regions[0].blocks[0]
    element_types = [_element_type(v.type) for v in op.operands]
    for arg, want in zip(block.arguments, element_types):
        if _is_i1(arg.type) and not _is_i1(want):
            arg.set_type(want)
            with ir.InsertionPoint.at_block_begin(block), op.location:
                narrow = arith.TruncIOp(ir.IntegerType.get_signless(1), arg)
            arg.replace_all_uses_except(narrow.result, narrow.operation)


def _widen_yield(op: ir.Operation) -> None:
    """Make a linalg body yield bytes for outputs that became ``i8``."""
    block = op.regions[0].blocks[0]
    terminator = list(block.operations)[-1]
    outputs = [_element_type(r.type) for r in op.results]
    for i, (value, want) in enumerate(zip(list(terminator.operands), outputs)):
        if _is_i1(value.type) and not _is_i1(want):
            with ir.InsertionPoint(terminator), op.location:
                terminator.operands[i] = arith.ExtUIOp(want, value).result


def _widen_scalar_inputs(op: ir.Operation) -> None:
    """Scalar ``i1`` inputs of a linalg op (a fill value) become bytes too."""
    for i, value in enumerate(list(op.operands)):
        if _is_i1(value.type):
            with ir.InsertionPoint(op), op.location:
                op.operands[i] = arith.ExtUIOp(ir.IntegerType.get_signless(8), value).result


def _widen_constant(op: ir.Operation) -> None:
    attr = op.attributes["value"]
    values = np.array([bool(v) for v in attr], dtype=np.int8).reshape(attr.type.shape) \
        if not attr.is_splat else None
    new_type = _widened(attr.type)
    if values is None:
        splat = ir.IntegerAttr.get(ir.IntegerType.get_signless(8), int(bool(attr.get_splat_value().value)))
        op.attributes["value"] = ir.DenseElementsAttr.get_splat(new_type, splat)
    else:
        op.attributes["value"] = ir.DenseElementsAttr.get(values, type=new_type)


def _narrow_extract(op: ir.Operation) -> None:
    result = op.results[0]
    result.set_type(ir.IntegerType.get_signless(8))
    with ir.InsertionPoint.after(op), op.location:
        narrow = arith.TruncIOp(ir.IntegerType.get_signless(1), result)
    result.replace_all_uses_except(narrow.result, narrow.operation)


def _widen_store(op: ir.Operation) -> None:
    value = op.operands[0]
    if _is_i1(value.type):
        with ir.InsertionPoint(op), op.location:
            op.operands[0] = arith.ExtUIOp(ir.IntegerType.get_signless(8), value).result


def run(op: ir.Operation, pass_) -> None:
    """Retype the boolean tensors and memrefs of the module ``op`` to bytes."""
    ops = collect(op)  # post-order: nested ops come before their parents
    for inner in ops:
        for region in inner.regions:
            for block in region.blocks:
                for arg in block.arguments:
                    if _is_bool_tensor(arg.type):
                        arg.set_type(_widened(arg.type))
        name = inner.name
        if name == "func.func":
            ftype = inner.attributes["function_type"].value
            inner.attributes["function_type"] = ir.TypeAttr.get(_widened(ftype))
        elif name == "arith.constant" and _is_bool_tensor(inner.results[0].type):
            _widen_constant(inner)
        for result in inner.results:
            if _is_bool_tensor(result.type):
                result.set_type(_widened(result.type))
    # Now that every shaped value is retyped, fix the scalar code at the edges.
    for inner in ops:
        name = inner.name
        if name in ("tensor.extract", "memref.load") and _is_i1(inner.results[0].type) \
                and not _is_i1(_element_type(inner.operands[0].type)):
            _narrow_extract(inner)
        elif name == "memref.store":
            _widen_store(inner)
        elif name.startswith("linalg.") and inner.regions and inner.regions[0].blocks:
            _widen_scalar_inputs(inner)
            _narrow_block_arguments(inner)
            _widen_yield(inner)
