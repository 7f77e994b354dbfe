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
%carried[...]`` and read the carried tensor nowhere else but in
``tensor.extract_slice`` of that same slice (an iteration that fills its
slice in steps, as a group of images does); a marked loop that does not is
left as it is. So is one whose iterations each run fewer than
``min-work`` loop iterations of linalg ops (multiply-adds of a contraction,
elements of anything else, counted through the loops inside it): starting
the threads and their allocations (each calls the runtime's hook) cost
tens of microseconds, more than they win on less (see
:data:`~tensorad.dialects.record.MIN_ITERATION_WORK`).

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
>>> run_pipeline(m, "tad-thread-independent-loops{min-work=0}")
>>> "scf.forall (%arg1) in (4)" in str(m), "tensor.parallel_insert_slice" in str(m)
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Optional

from mlir import ir
from mlir.dialects import scf, tensor

from tensorad.dialects.record import INDEPENDENT_ITERATIONS, MIN_ITERATION_WORK

from ..options import option
from ..walk import collect, defining_op
from .loop_nest import loops_of

@dataclass(frozen=True)
class IndependentLoopOptions:
    """The option of ``tad-thread-independent-loops`` (``{min-work=0}`` threads every marked loop)."""

    min_work: int = option(MIN_ITERATION_WORK, "loop iterations of linalg ops one iteration must run to go on "
                           "threads", check=lambda n: n >= 0, accepted="an integer >= 0")


def run(op: ir.Operation, pass_, options: IndependentLoopOptions = IndependentLoopOptions()) -> None:
    """Turn every marked ``scf.for`` inside ``op`` that has the expected form and enough work into an ``scf.forall``."""
    for loop in collect(op, lambda inner: inner.name == "scf.for" and INDEPENDENT_ITERATIONS in inner.attributes):
        insert = _yielded_insert(loop)
        if insert is None:
            continue
        work = _iteration_work(loop)
        if work is None or work >= options.min_work:
            _to_forall(loop, insert)


def _iteration_work(loop: ir.Operation) -> Optional[int]:
    """Loop iterations of the linalg ops one iteration of ``loop`` runs, times the trip counts of the loops around them.

    None (unknown: the loop is threaded as the mark asks) when a linalg op has
    a dynamic shape or a loop around one has a trip count known at run time only.
    """
    work = 0
    for inner in collect(loop, lambda o: o.name.startswith("linalg.")):
        if inner.name in ("linalg.yield", "linalg.index"):
            continue
        own = _own_work(inner)
        if own is None:
            return None
        trips, parent = 1, inner.parent
        while parent is not None and parent != loop:
            if parent.name == "scf.for":
                bounds = [_constant(v) for v in parent.operands[:3]]
                if None in bounds or bounds[2] <= 0:
                    return None
                trips *= max(0, -(-(bounds[1] - bounds[0]) // bounds[2]))
            parent = parent.parent
        work += trips * own
    return work


def _own_work(op: ir.Operation) -> Optional[int]:
    """Loop iterations of the linalg op ``op``: its loop nest's, or for another (a copy, a window) its largest tensor's elements; None when unknown."""
    loops = loops_of(op)
    if loops is not None:
        return prod(loops.sizes)
    types = [v.type for v in [*op.operands, *op.results]]
    if not all(isinstance(t, ir.ShapedType) and t.has_static_shape for t in types if isinstance(t, ir.ShapedType)):
        return None
    return max((prod(t.shape) for t in types if isinstance(t, ir.ShapedType)), default=0)


def _constant(value: ir.Value) -> Optional[int]:
    definer = defining_op(value)
    if definer is None or definer.name != "arith.constant":
        return None
    attr = definer.attributes["value"]
    return attr.value if isinstance(attr, ir.IntegerAttr) else None


def _yielded_insert(loop: ir.Operation) -> Optional[ir.Operation]:
    """The ``insert_slice`` into the carried tensor that ``loop`` yields, if the carried tensor has no other use
    than ``extract_slice`` of that same slice (an iteration that fills its slice in steps reads it first)."""
    if len(loop.results) != 1 or any(_constant(v) is None for v in loop.operands[:3]):
        return None
    body = loop.regions[0].blocks[0]
    carried = body.arguments[1]
    yielded = defining_op(body.operations[len(body.operations) - 1].operands[0])
    if yielded is None or yielded.name != "tensor.insert_slice" or yielded.operands[1] != carried:
        return None
    slice_ = _slice_operands(yielded)
    for use in carried.uses:
        reader = use.owner
        if reader != yielded and (reader.name != "tensor.extract_slice" or _slice_operands(reader) != slice_):
            return None
    return yielded


def _to_forall(loop: ir.Operation, insert: ir.Operation) -> None:
    lower, upper, step = (_constant(v) for v in loop.operands[:3])
    body = loop.regions[0].blocks[0]
    with ir.InsertionPoint(loop), loop.location:
        forall = scf.ForallOp([lower], [upper], [step], [loop.operands[3]])
    iv, shared = forall.body.arguments
    body.arguments[0].replace_all_uses_with(iv)
    body.arguments[1].replace_all_uses_with(shared)
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


def _slice_operands(slice_op: ir.Operation) -> list:
    """The dynamic offsets, sizes and strides, then the static ones, of an ``insert_slice`` or ``extract_slice``."""
    segments = list(ir.DenseI32ArrayAttr(slice_op.attributes["operandSegmentSizes"]))
    start = sum(segments[:-3])  # past the source (and an insert's destination)
    dynamic = []
    for count in segments[-3:]:
        dynamic.append(list(slice_op.operands[start:start + count]))
        start += count
    static = [list(ir.DenseI64ArrayAttr(slice_op.attributes[name]))
              for name in ("static_offsets", "static_sizes", "static_strides")]
    return [*dynamic, *static]
