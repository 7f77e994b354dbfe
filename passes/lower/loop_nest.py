"""The loop nest of a linalg op, read from the IR for the schedule chooser (:mod:`.schedule`).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<8x4xf32>, %y: tensor<4x8xf32>) -> tensor<4x8xf32> {
...   %0 = linalg.transpose ins(%x : tensor<8x4xf32>) outs(%y : tensor<4x8xf32>) permutation = [1, 0]
...   return %0 : tensor<4x8xf32>
... }''', make_context())
>>> loops_of(m.body.operations[0].regions[0].blocks[0].operations[0].operation)
Loops(sizes=[4, 8], parallel=[True, True], dims=[[1, 0], [0, 1]], n_inputs=1, element_bits=32)
"""

from __future__ import annotations

from typing import Optional

from mlir import ir

from ...dialects.record import Trait, has_trait
from ..walk import defining_op
from .schedule import Loops

def loops_of(op: ir.Operation) -> Optional[Loops]:
    """The loop nest of ``op``, or None when it is not a linalg op the vectorizer handles.

    That is a ``linalg.generic``, ``linalg.contract`` or ``linalg.transpose``
    on static, non-empty shapes, whose indexing maps read plain loop indices
    or constants, whose result elements are at least a byte wide, and whose
    body :func:`_vectorizable_body` accepts.
    """
    if op.name not in ("linalg.generic", "linalg.contract", "linalg.transpose"):
        return None
    types = [v.type for v in op.operands]
    if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
        return None
    n_inputs = len(types) - len(op.results)
    if not op.results or not _vectorizable_body(op, n_inputs):
        return None
    if op.name == "linalg.transpose":
        perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        rank = len(perm)
        inverse = [perm.index(d) for d in range(rank)]
        maps = [inverse, list(range(rank))]
        iterators = None
    else:
        maps = []
        for attr in op.attributes["indexing_maps"]:
            amap = ir.AffineMapAttr(attr).value
            if not all(isinstance(e, (ir.AffineDimExpr, ir.AffineConstantExpr)) for e in amap.results):
                return None  # a window (d0 + d1): not a vectorizable access
            maps.append([e.position if isinstance(e, ir.AffineDimExpr) else None
                         for e in amap.results])
        rank = ir.AffineMapAttr(op.attributes["indexing_maps"][0]).value.n_dims
        iterators = (None if op.name == "linalg.contract"
                     else [str(a).endswith("parallel>") for a in op.attributes["iterator_types"]])
    sizes = [None] * rank
    for dims, t in zip(maps, types):
        for d, n in zip(dims, t.shape):
            if d is not None:
                sizes[d] = n
    if not sizes or None in sizes or 0 in sizes:
        return None
    if iterators is None:  # a named op: the loops its result reads are parallel
        iterators = [d in maps[-1] for d in range(rank)]
    widths = [t.element_type.width if isinstance(t.element_type, (ir.FloatType, ir.IntegerType)) else 0
              for t in types]
    if widths[-1] < 8:
        return None
    return Loops(sizes, iterators, maps, n_inputs, max(widths))


def _vectorizable_body(op: ir.Operation, n_inputs: int) -> bool:
    """True when the vectorizer handles ``op``'s body: scalar arith/math, and known reductions."""
    if op.name != "linalg.generic":
        return True
    block = op.regions[0].blocks[0]
    for inner in block.operations:
        name = inner.operation.name
        if not (name.startswith(("arith.", "math.")) or name in ("linalg.yield", "linalg.index")):
            return False
    has_reduction = any(not str(a).endswith("parallel>") for a in op.attributes["iterator_types"])
    if not has_reduction:
        return True
    if len(op.results) != 1:
        return False
    combiner = defining_op(list(block.operations)[-1].operands[0])
    accumulator = block.arguments[n_inputs]
    return (combiner is not None and has_trait(combiner, Trait.REDUCTION_COMBINER)
            and any(v == accumulator for v in combiner.operands))
