"""``tad-read-parallel-inits-as-inputs``: an all-parallel generic that reads its init reads it as an input.

Without reduction loops a ``linalg.generic`` reads each element of its init
once, exactly as it would read an input. Written that way (``outs(%c)`` with
a body that reads ``%out``: ``c + a``), upstream
``linalg-fuse-elementwise-ops`` (LLVM 22) fuses it into a reduction that
consumes it and keeps reading the init there, where the init is the
reduction's running value: every iteration of the reduction adds ``a``
again, a silently wrong result. This pass makes such an init an input (same
indexing map) and gives the generic a fresh ``tensor.empty`` to write into,
which means the same and fuses correctly. ``tad-lower-to-llvm`` and
``tad-lower-to-nvvm`` run it before fusion.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... #id = affine_map<(d0) -> (d0)>
... func.func @f(%a: tensor<3xf64>, %c: tensor<3xf64>) -> tensor<3xf64> {
...   %0 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
...       ins(%a : tensor<3xf64>) outs(%c : tensor<3xf64>) {
...   ^bb0(%in: f64, %out: f64):
...     %s = arith.addf %out, %in : f64
...     linalg.yield %s : f64
...   } -> tensor<3xf64>
...   return %0 : tensor<3xf64>
... }''', make_context())
>>> run_pipeline(m, "tad-read-parallel-inits-as-inputs")
>>> "ins(%arg0, %arg1 : tensor<3xf64>, tensor<3xf64>) outs(%0 : tensor<3xf64>)" in str(m)
True
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, tensor
from mlir.dialects._linalg_ops_gen import GenericOp

from tensorad.dialects.families.linalg import operand_segments

from ..walk import collect


def _reads_parallel_init(op: ir.Operation) -> bool:
    if op.name != "linalg.generic" or any("reduction" in str(a) for a in op.attributes["iterator_types"]):
        return False
    n_inputs = len(operand_segments(op)[0])
    return any(list(arg.uses) for arg in list(op.regions[0].blocks[0].arguments)[n_inputs:])


def _empty_like(value: ir.Value) -> ir.Value:
    t = value.type
    sizes = [tensor.DimOp(value, arith.ConstantOp(ir.IndexType.get(), d).result).result
             if ir.ShapedType.is_dynamic_size(n) else n for d, n in enumerate(t.shape)]
    return tensor.EmptyOp(sizes, t.element_type).result


def run(op: ir.Operation, pass_) -> None:
    """Rewrite every all-parallel ``linalg.generic`` inside ``op`` that reads its inits."""
    for generic in collect(op, _reads_parallel_init):
        inputs, inits = operand_segments(generic)
        maps = list(generic.attributes["indexing_maps"])
        with ir.InsertionPoint(generic), generic.location:
            fresh = [_empty_like(v) for v in inits]
            new = GenericOp(result_tensors=[r.type for r in generic.results], inputs=inputs + inits,
                            outputs=fresh, indexing_maps=ir.ArrayAttr.get(maps[:len(inputs)] + maps[len(inputs):] * 2),
                            iterator_types=generic.attributes["iterator_types"])
        old_block = generic.regions[0].blocks[0]
        element_types = [a.type for a in old_block.arguments]
        block = new.regions[0].blocks.append(*(element_types + element_types[len(inputs):]))
        for old, replacement in zip(old_block.arguments, block.arguments):
            old.replace_all_uses_with(replacement)
        at_end = ir.InsertionPoint(block)
        for inner in list(old_block.operations):
            inner.detach_from_parent()
            at_end.insert(inner)
        for old, replacement in zip(generic.results, new.results):
            old.replace_all_uses_with(replacement)
        generic.erase()
