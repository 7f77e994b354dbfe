"""``tad-partition``: compute a program with values marked ``tad.shard`` on this process's blocks of them.

A program written for one process, with some values marked ``tad.shard``
(``tensorad.distributed.sharded``: split along ``dim`` over the
``processes`` processes of an MPI job, this one holding block
``process``), becomes the program one process of the job runs (tensor
parallelism). Each function's ops are visited in order; a value is either
*sharded* (this process holds a block of it) or *replicated* (whole, the
same on every process). An op that reads a sharded value is rebuilt on
blocks by the ``partition`` rule of its record, or the elementwise rule for
ops with the ``ELEMENTWISE`` trait (:mod:`tensorad.dialects.partitioning`):

* ``tad.shard``: the block of its operand (a slice of it through ``pvary``);
* elementwise ops: blocks along the same dim, the result split the same way;
* ``tad.dot_general``: a sharded contracting dim gives local partial products
  added over processes (``tad.psum``, or ``tad.reduce_scatter`` with
  ``combine=reduce-scatter``); a sharded free or batch dim gives a local
  contraction whose result is split along the matching dim;
* ``tad.reduce_sum``, ``tad.broadcast_in_dim``, ``tad.transpose``,
  ``tad.convert``: local, a sum over the split dim added over processes;
* ``tad.reshape``: local when the split dim's blocks stay blocks of a result dim.

Any other reader of a sharded value (a return, a call, an op with regions,
an op without a rule) gets it whole: the psum of the zero-padded blocks
(an all_gather that differentiates as replicated code needs). Only the
ops of a function's body are rebuilt: a ``tad.shard`` inside a loop's or a
branch's region stays an identity there (the values are the same). The values
that leave a function are therefore the ones the one-process program
computes, and so are derivatives taken after this pass (``tad-differentiate``
sees the collectives, whose rules follow JAX's ``shard_map``): a replicated
argument's gradient is the whole gradient on every process. Ops left
without readers are erased. With one process a ``tad.shard`` is dropped.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @layer(%x: tensor<2x4xf64>, %w: tensor<4x6xf64>) -> tensor<2x6xf64> {
...   %ws = "tad.shard"(%w) {dim = 1, process = 0, processes = 2} : (tensor<4x6xf64>) -> tensor<4x6xf64>
...   %y = "tad.dot_general"(%x, %ws) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
...       lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
...       : (tensor<2x4xf64>, tensor<4x6xf64>) -> tensor<2x6xf64>
...   %t = math.tanh %y : tensor<2x6xf64>
...   return %t : tensor<2x6xf64>
... }''', make_context())
>>> run_pipeline(m, "tad-partition")
>>> text = str(m)  # tanh of this process's 3 columns; the result gathered for the return
>>> "math.tanh %3 : tensor<2x3xf64>" in text, text.count('"tad.psum"')
(True, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from mlir import ir

from ..dialects.builder import Val
from ..dialects.partitioning import Mesh, PartitionContext, Sharded, gather, partition_elementwise
from ..dialects.record import Trait, has_trait, record_of
from ..dialects.shapes import ShapeError
from .options import option


# The op this pass acts on: where a value starts being split.
_MARKER = "tad.shard"


@dataclass(frozen=True)
class PartitionOptions:
    """The options of ``tad-partition``."""

    combine: Literal["psum", "reduce-scatter"] = option(
        "psum", "how partial sums over a sharded dim are added: psum (every process gets the whole sum) or "
        "reduce-scatter (each keeps its block of it, along its first dim that splits evenly)")


def _mesh(marker: ir.Operation) -> Mesh:
    value = lambda name: ir.IntegerAttr(marker.attributes[name]).value  # noqa: E731
    return Mesh(value("process"), value("processes"))


def _rule(op: ir.Operation):
    record = record_of(op)
    if record is not None and record.partition is not None:
        return record.partition
    if has_trait(op, Trait.ELEMENTWISE) and not op.regions:
        return partition_elementwise
    return None


def _partition_block(block: ir.Block, mesh: Mesh, options: PartitionOptions) -> bool:
    """Rebuild the ops of ``block`` that read sharded values and erase the ops they replace; False on an error."""
    layouts: dict = {}  # a value of the one-process program -> Sharded (this process's block)
    replaced = []
    for op in list(block.operations):
        op = op.operation
        sharded = [layouts.get(v) for v in op.operands]
        if all(layout is None for layout in sharded) and op.name != _MARKER:
            continue
        with ir.InsertionPoint(op), op.location:
            context = PartitionContext(op, sharded, mesh, options.combine)
            rule = _rule(op)
            try:
                results = rule(context) if rule is not None else None
                if results is None:  # the op reads its sharded operands whole
                    for i, layout in enumerate(sharded):
                        if layout is not None:
                            op.operands[i] = context.whole(i)
                    continue
            except ShapeError as err:  # a value MPI cannot move (float16, complex, booleans gathered)
                op.location.emit_error(f"'{op.name}' op cannot be partitioned: {err}")
                return False
        for old, (new, dim) in zip(op.results, results):
            if dim is None:
                old.replace_all_uses_with(new)
            else:
                layouts[old] = Sharded(Val(new), dim)
        replaced.append(op)
    # Erased readers first; readers this walk did not see (inside regions) get the whole value.
    for op in reversed(replaced):
        for old in op.results:
            layout = layouts.get(old)
            if layout is not None and list(old.uses):
                with ir.InsertionPoint(op), op.location:
                    old.replace_all_uses_with(gather(layout, tuple(old.type.shape), mesh))
        op.erase()
    return True


def _marked_bodies(module: ir.Operation) -> list:
    """``(body, markers)`` of each function of ``module`` whose body holds ``tad.shard`` ops (not nested)."""
    found = []
    for function in module.regions[0].blocks[0].operations:
        if function.operation.name == "func.func" and function.regions[0].blocks:
            body = function.regions[0].blocks[0]
            markers = [op.operation for op in body.operations if op.operation.name == _MARKER]
            if markers:
                found.append((body, markers))
    return found


def run(op: ir.Operation, pass_, options: PartitionOptions = PartitionOptions()) -> None:
    """Partition every function of the module ``op`` whose body holds a ``tad.shard``."""
    bodies = _marked_bodies(op)
    markers = [marker for _, found in bodies for marker in found]
    if not markers:
        return
    meshes = {_mesh(m) for m in markers}
    if len(meshes) > 1:
        markers[0].location.emit_error(
            "'tad.shard' op: the shards of one module name different processes or numbers of processes: "
            + ", ".join(f"process {m.process} of {m.processes}" for m in sorted(meshes, key=str)))
        pass_.signal_pass_failure()
        return
    (mesh,) = meshes
    if mesh.processes == 1:  # one process holds every block: the shards are identities
        for marker in markers:
            marker.results[0].replace_all_uses_with(marker.operands[0])
            marker.erase()
        return
    for body, _ in bodies:
        if not _partition_block(body, mesh, options):
            pass_.signal_pass_failure()
            return
