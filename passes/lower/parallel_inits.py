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

from tensorad.dialects.families.linalg import operand_segments
from tensorad.dialects.linalg_builder import empty_like, iterator_kinds, rebuild_generic

from ..walk import collect


def _reads_parallel_init(op: ir.Operation) -> bool:
    if op.name != "linalg.generic" or "reduction" in iterator_kinds(op):
        return False
    n_inputs = len(operand_segments(op)[0])
    return any(list(arg.uses) for arg in list(op.regions[0].blocks[0].arguments)[n_inputs:])


def run(op: ir.Operation, pass_) -> None:
    """Rewrite every all-parallel ``linalg.generic`` inside ``op`` that reads its inits."""
    for generic in collect(op, _reads_parallel_init):
        inputs, inits = operand_segments(generic)
        maps = [ir.AffineMapAttr(m).value for m in generic.attributes["indexing_maps"]]
        with ir.InsertionPoint(generic), generic.location:
            fresh = [empty_like(v) for v in inits]
        n = len(inputs) + len(inits)
        # The inits' elements are read where the inputs' are; the fresh tensors' are never read.
        rebuild_generic(generic, inputs + inits, fresh, maps[:len(inputs)] + maps[len(inputs):] * 2,
                        list(range(n)) + list(range(len(inputs), n)))
