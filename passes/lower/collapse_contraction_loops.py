"""``tad-collapse-contraction-loops``: loops of a contraction that always travel together become one loop.

``tad-tile-and-vectorize`` gives a ``linalg.contract`` with one loop per
role (rows, contracting, columns) its register-tiled schedule, whose
accumulators stay in vector registers across the contracting loop. Two
common programs reach it with a role split over several loops, which that
schedule does not cover, and run three to five times slower than the same
product written in two dimensions:

* the weight gradient of ``x @ w`` for an ``x`` of shape ``(batch, seq, d)``
  contracts over two loops (``batch`` and ``seq``), and its forward product
  has two row loops;
* a ``reshape`` feeding a contraction is folded into it by upstream's
  elementwise fusion ("fusion by expansion"), which splits the contraction's
  loops along the reshape's dims and leaves a ``linalg.generic`` computing
  ``out + a * b`` instead of the named op.

When consecutive loops of the same kind appear, in every operand that reads
any of them, all together and at consecutive dims in loop order, they index
one contiguous block of each operand: this pass merges them into one loop
of their product's size, reading collapsed operands
(``tensor.collapse_shape``, a view of a contiguous buffer after
bufferization) and expanding the result back. A merged ``linalg.generic``
that computes ``out + a * b`` becomes the ``linalg.contract`` it stands for.
Values and summation order along each merged loop are unchanged.
``tad-lower-to-llvm`` runs it after elementwise fusion.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<8x128x256xf32>, %c: tensor<8x128x768xf32>, %o: tensor<256x768xf32>) -> tensor<256x768xf32> {
...   %0 = linalg.contract indexing_maps = [affine_map<(b, s, i, j) -> (b, s, i)>,
...                                         affine_map<(b, s, i, j) -> (b, s, j)>,
...                                         affine_map<(b, s, i, j) -> (i, j)>]
...        ins(%x, %c : tensor<8x128x256xf32>, tensor<8x128x768xf32>) outs(%o : tensor<256x768xf32>) -> tensor<256x768xf32>
...   return %0 : tensor<256x768xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-collapse-contraction-loops")
>>> "tensor<1024x256xf32>" in str(m) and "tensor<1024x768xf32>" in str(m)
True
"""

from __future__ import annotations

from math import prod
from typing import Optional

from mlir import ir
from mlir.dialects import tensor

from tensorad.dialects.families.linalg import operand_segments
from tensorad.dialects.linalg_builder import contract, iterator_kinds

from ..walk import collect
from .raise_contractions import contraction_dims

# What a structured op carries itself; any other attribute is moved to the new op.
_INHERENT = {"indexing_maps", "iterator_types", "operandSegmentSizes", "doc", "library_call", "cast"}


def _contraction(op: ir.Operation) -> Optional[tuple]:
    """The loops each operand of ``op`` reads, if it is a contraction with a contracting loop; else None.

    A contraction as :func:`.raise_contractions.contraction_dims` says, whose
    iterators (a generic's) agree with its output's map.
    """
    dims = contraction_dims(op)
    if dims is None:
        return None
    n_loops = ir.AffineMapAttr(op.attributes["indexing_maps"][0]).value.n_dims
    reduced = [loop not in dims[2] for loop in range(n_loops)]
    if not any(reduced) or (op.name == "linalg.generic"
                            and [kind == "reduction" for kind in iterator_kinds(op)] != reduced):
        return None
    return dims


def _groups(reads: tuple) -> list:
    """Runs of consecutive loops of one kind that every operand reads together, at consecutive dims in order."""
    n_loops = len(set(reads[0]) | set(reads[1]))  # every loop is read by an input
    reduced = [loop not in reads[2] for loop in range(n_loops)]
    groups = [[0]]
    for loop in range(1, n_loops):
        last = groups[-1][-1]
        together = reduced[loop] == reduced[last] and all(
            (loop in dims) == (last in dims) and (loop not in dims or dims.index(loop) == dims.index(last) + 1)
            for dims in reads)
        if together:
            groups[-1].append(loop)
        else:
            groups.append([loop])
    return groups


def _collapse(value: ir.Value, dims: list, group_of: dict) -> tuple:
    """``value`` with its dims that read one group of loops merged: ``(value, reassociation, merged loops)``."""
    reassociation, loops = [], []
    for k, loop in enumerate(dims):
        if reassociation and group_of[loop] == loops[-1]:
            reassociation[-1].append(k)
        else:
            reassociation.append([k])
            loops.append(group_of[loop])
    if len(reassociation) == len(dims):
        return value, reassociation, loops
    t = value.type
    shape = [prod(t.shape[k] for k in group) for group in reassociation]
    collapsed = tensor.CollapseShapeOp(ir.RankedTensorType.get(shape, t.element_type), value, reassociation)
    return collapsed.result, reassociation, loops


def _rewrite(op: ir.Operation, reads: tuple, groups: list) -> None:
    """Replace ``op`` by a ``linalg.contract`` over ``groups`` (one loop each) of collapsed operands."""
    group_of = {loop: g for g, group in enumerate(groups) for loop in group}
    inputs, inits = operand_segments(op)
    result_type = op.results[0].type
    with ir.InsertionPoint(op), op.location:
        collapsed = [_collapse(v, dims, group_of) for v, dims in zip(inputs + inits, reads)]
        maps = [ir.AffineMap.get(len(groups), 0, [ir.AffineDimExpr.get(g) for g in loops])
                for _, _, loops in collapsed]
        result = contract(collapsed[0][0], collapsed[1][0], outs=[collapsed[2][0]], indexing_maps=maps)
        new = result.owner
        for name in op.attributes:
            if name not in _INHERENT:
                new.attributes[name] = op.attributes[name]
        reassociation = collapsed[2][1]
        if len(reassociation) != result_type.rank:
            result = tensor.ExpandShapeOp(result_type, result, reassociation, [], list(result_type.shape)).result
    op.results[0].replace_all_uses_with(result)
    op.erase()


def run(op: ir.Operation, pass_) -> None:
    """Merge the loops that travel together in every contraction inside ``op`` (a ``builtin.module``)."""
    for candidate in collect(op, lambda o: o.name in ("linalg.contract", "linalg.generic")):
        reads = _contraction(candidate)
        if reads is None:
            continue
        groups = _groups(reads)
        if any(len(group) > 1 for group in groups):
            _rewrite(candidate, reads, groups)
