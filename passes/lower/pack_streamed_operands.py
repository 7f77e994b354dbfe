"""``tad-pack-streamed-operands``: copy the streamed operand of a large matmul into panels of register-tile width.

``C[i, j] += A[i, k] * B[k, j]`` with ``B`` row-major streams ``B``'s rows
``j .. j+NR`` at a stride of a whole row: with rows a multiple of 4 KiB apart
every step of the contracting loop reads the same L1 sets, and the panel is
read from L2. ``B`` is copied (once per call, ``K x N`` against the
contraction's ``M x K x N``) into ``P[j / NR, k, j % NR]``, where each panel
is contiguous, and the contraction becomes one over ``(i, j / NR, k, j %
NR)`` writing the result as ``C[i, j / NR, j % NR]``, which is the same
buffer. A ``B`` that is itself a transpose (``δ·Wᵀ``) is packed from the
transpose's input in one copy. Which matmuls are packed, and ``NR``, come
from :func:`.schedule.pack_plan`; ``tad-lower-to-llvm`` runs this pass
before ``tad-tile-and-vectorize``, which tiles the packed contraction.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%a: tensor<256x512xf32>, %b: tensor<512x1024xf32>, %c: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
...   %0 = linalg.contract indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>,
...                                         affine_map<(m, k, n) -> (m, n)>]
...       ins(%a, %b : tensor<256x512xf32>, tensor<512x1024xf32>)
...       outs(%c : tensor<256x1024xf32>) -> tensor<256x1024xf32>
...   return %0 : tensor<256x1024xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-pack-streamed-operands{vector-bits=512}")
>>> "tensor<32x512x32xf32>" in str(m)
True
"""

from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir.dialects import tensor

from ...dialects import linalg_builder as linalg
from ...dialects.record import Trait, has_trait
from ..walk import collect, defining_op
from .host import vector_bits as host_vector_bits
from .loop_nest import loops_of
from .schedule import Loops, PackPlan, pack_plan
from .tile_and_vectorize import VectorOptions



def run(op: ir.Operation, pass_, options: VectorOptions = VectorOptions()) -> None:
    """Pack the streamed operand of every large ``linalg.contract`` matmul inside ``op`` outside of loops.

    A matmul inside a loop is left alone: packing its operand in every step
    would cost what it saves.
    """
    bits = options.vector_bits or host_vector_bits()
    for contract in collect(op, lambda inner: inner.name == "linalg.contract"):
        loops = loops_of(contract)
        if loops is None or len(loops.sizes) != 3 or has_trait(contract.parent, Trait.LOOP):
            continue
        plan = pack_plan(loops, bits)
        if plan is not None:
            _pack(contract, loops, plan)


def _pack(op: ir.Operation, loops: Loops, plan: PackPlan) -> None:
    streamed, other, m, k, nr = plan.streamed, plan.other, plan.m, plan.k, plan.width
    b, init = op.operands[streamed], op.operands[2]
    depth, cols = b.type.shape
    element = b.type.element_type
    panels = cols // nr
    new_dim = {m: 0, k: 2}
    maps = [None, None, None]
    maps[other] = _map(4, [new_dim[d] for d in loops.dims[other]])
    maps[streamed] = _map(4, [1, 2, 3])
    maps[2] = _map(4, [0, 1, 3])
    with ir.InsertionPoint(op), op.location:
        source = defining_op(b)
        empty = tensor.EmptyOp([panels, depth, nr], element).result
        if (source is not None and source.name == "linalg.transpose"
                and list(ir.DenseI64ArrayAttr(source.attributes["permutation"])) == [1, 0]
                and len(list(b.uses)) == 1):
            x = source.operands[0]  # B = xᵀ: x[j, k]
            split = tensor.ExpandShapeOp(ir.RankedTensorType.get([panels, nr, depth], element), x,
                                         [[0, 1], [2]], [], [panels, nr, depth]).result
            packed = linalg.transpose(split, outs=[empty], permutation=[0, 2, 1]).results[0]
        else:
            source = None
            split = tensor.ExpandShapeOp(ir.RankedTensorType.get([depth, panels, nr], element), b,
                                         [[0], [1, 2]], [], [depth, panels, nr]).result
            packed = linalg.transpose(split, outs=[empty], permutation=[1, 0, 2]).results[0]
        rows = init.type.shape[0]
        out_type = ir.RankedTensorType.get([rows, panels, nr], element)
        out = tensor.ExpandShapeOp(out_type, init, [[0], [1, 2]], [], [rows, panels, nr]).result
        ins = [None, None]
        ins[streamed], ins[other] = packed, op.operands[other]
        result = linalg.contract(*ins, outs=[out], indexing_maps=maps)
        flat = tensor.CollapseShapeOp(init.type, result, [[0], [1, 2]]).result
    op.results[0].replace_all_uses_with(flat)
    op.erase()
    if source is not None:
        transposed_init = source.operands[1]
        source.erase()
        empty_op = defining_op(transposed_init)
        if empty_op is not None and empty_op.name == "tensor.empty" and not list(transposed_init.uses):
            empty_op.erase()


def _map(n_dims: int, dims: Sequence[int]) -> ir.AffineMap:
    return ir.AffineMap.get(n_dims, 0, [ir.AffineDimExpr.get(d) for d in dims])
