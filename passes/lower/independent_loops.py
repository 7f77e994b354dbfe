"""``tad-thread-independent-loops``: run the iterations of a marked ``scf.for`` on threads.

A lowering rule that loops over independent pieces of work (the images of a
convolution) writes each iteration's result into its own slice of the one
tensor the loop carries, and marks the loop with the unit attribute
``tad.independent_iterations``. The ``scf.for`` is what every pipeline can
take (``tad-lower-to-nvvm`` launches the kernels of each iteration in turn);
on the CPU this pass turns it into an ``scf.forall`` whose ``shared_outs``
is that tensor and whose terminator is the slice's ``parallel_insert_slice``,
so that ``tad-lower-to-llvm`` runs the iterations on its thread pool (the
threads take iterations from a shared counter). ``tad-lower-to-llvm`` runs
this pass first.

A marked loop must carry one tensor, yield ``tensor.insert_slice %x into
%carried[...]`` and use the carried tensor nowhere else; a marked loop that
does not is left as it is.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c4 = arith.constant 4 : index
...   %e = tensor.empty() : tensor<4x8xf32>
...   %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%out = %e) -> (tensor<4x8xf32>) {
...     %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
...     %twice = arith.addf %row, %row : tensor<8xf32>
...     %put = tensor.insert_slice %twice into %out[%i, 0] [1, 8] [1, 1] : tensor<8xf32> into tensor<4x8xf32>
...     scf.yield %put : tensor<4x8xf32>
...   } {tad.independent_iterations}
...   return %r : tensor<4x8xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-thread-independent-loops")
>>> "scf.forall (%arg1) in (4)" in str(m), "tensor.parallel_insert_slice" in str(m)
(True, True)
"""

from __future__ import annotations

from typing import Optional

from mlir import ir
from mlir.dialects import scf, tensor

from ..walk import collect, defining_op

MARK = "tad.independent_iterations"


def run(op: ir.Operation, pass_) -> None:
    """Turn every marked ``scf.for`` inside ``op`` that has the expected form into an ``scf.forall``."""
    for loop in collect(op, lambda inner: inner.name == "scf.for" and MARK in inner.attributes):
        insert = _yielded_insert(loop)
        if insert is not None:
            _to_forall(loop, insert)


def _constant(value: ir.Value) -> Optional[int]:
    definer = defining_op(value)
    if definer is None or definer.name != "arith.constant":
        return None
    attr = definer.attributes["value"]
    return attr.value if isinstance(attr, ir.IntegerAttr) else None


def _yielded_insert(loop: ir.Operation) -> Optional[ir.Operation]:
    """The ``insert_slice`` into the carried tensor that ``loop`` yields, if that is its only use."""
    if len(loop.results) != 1 or any(_constant(v) is None for v in loop.operands[:3]):
        return None
    body = loop.regions[0].blocks[0]
    carried = body.arguments[1]
    yielded = defining_op(body.operations[len(body.operations) - 1].operands[0])
    if yielded is None or yielded.name != "tensor.insert_slice" or yielded.operands[1] != carried:
        return None
    return yielded if len(list(carried.uses)) == 1 else None


def _to_forall(loop: ir.Operation, insert: ir.Operation) -> None:
    lower, upper, step = (_constant(v) for v in loop.operands[:3])
    body = loop.regions[0].blocks[0]
    with ir.InsertionPoint(loop), loop.location:
        forall = scf.ForallOp([lower], [upper], [step], [loop.operands[3]])
    iv, shared = forall.body.arguments
    body.arguments[0].replace_all_uses_with(iv)
    ops = list(body.operations)
    with ir.InsertionPoint(forall.body), loop.location:
        anchor = scf.InParallelOp()
    for inner in ops[:-1]:
        if inner != insert:
            inner.move_before(anchor)
    with ir.InsertionPoint(anchor.regions[0].blocks[0]), loop.location:
        tensor.ParallelInsertSliceOp(insert.operands[0], shared, *_slice_operands(insert))
    loop.results[0].replace_all_uses_with(forall.results[0])
    loop.erase()


def _slice_operands(insert: ir.Operation) -> list:
    """The dynamic offsets, sizes and strides, then the static ones, of an ``insert_slice``."""
    segments = list(ir.DenseI32ArrayAttr(insert.attributes["operandSegmentSizes"]))
    start = segments[0] + segments[1]
    dynamic = []
    for count in segments[2:]:
        dynamic.append(list(insert.operands[start:start + count]))
        start += count
    static = [list(ir.DenseI64ArrayAttr(insert.attributes[name]))
              for name in ("static_offsets", "static_sizes", "static_strides")]
    return [*dynamic, *static]
