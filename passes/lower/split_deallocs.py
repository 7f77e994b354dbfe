"""``tad-split-fresh-deallocs``: one ``bufferization.dealloc`` per fresh allocation, not one for all of them.

Ownership-based deallocation frees what a block allocated with one
``bufferization.dealloc`` at its end, listing every buffer. For a function
that is a long list of kernel calls (an unrolled loop, see
``tad-outline-repeated-kernels``) that is thousands of buffers in one op, and
``buffer-deallocation-simplification`` compares them pairwise: compile time
grows with the square of the function's length. Buffers that are results of
distinct ``memref.alloc`` ops never alias one another, so each can be freed
by a dealloc of its own, with the same retained values; the ownership of a
retained value, which the op returns, is then the ``or`` of what the split
deallocs return. Every dealloc that lists something else (a view, a block
argument, a buffer twice) is left as it is. ``tad-lower-to-llvm`` runs this
pass between ownership-based deallocation and its simplification.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%c: i1, %r: memref<2xf32>) -> i1 {
...   %a = memref.alloc() : memref<2xf32>
...   %b = memref.alloc() : memref<2xf32>
...   %0 = bufferization.dealloc (%a, %b : memref<2xf32>, memref<2xf32>) if (%c, %c) retain (%r : memref<2xf32>)
...   return %0 : i1
... }''', make_context())
>>> run_pipeline(m, "tad-split-fresh-deallocs")
>>> str(m).count("bufferization.dealloc ("), str(m).count("arith.ori")
(2, 1)
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, bufferization

from ..walk import collect, defining_op


def run(op: ir.Operation, pass_) -> None:
    """Split every ``bufferization.dealloc`` inside ``op`` that frees only distinct fresh allocations."""
    for dealloc in collect(op, lambda inner: inner.name == "bufferization.dealloc"):
        _split(dealloc)


def _split(dealloc: ir.Operation) -> None:
    view = dealloc.opview
    memrefs, conditions, retained = list(view.memrefs), list(view.conditions), list(view.retained)
    if len(memrefs) < 2:
        return
    allocations = [defining_op(m) for m in memrefs]
    if any(a is None or a.name != "memref.alloc" for a in allocations) or len(set(map(hash, memrefs))) < len(memrefs):
        return
    with ir.InsertionPoint(dealloc), dealloc.location:
        split = [bufferization.DeallocOp([m], [c], retained).results for m, c in zip(memrefs, conditions)]
        for k, result in enumerate(dealloc.results):
            if not list(result.uses):
                continue
            owned = split[0][k]
            for other in split[1:]:
                owned = arith.OrIOp(owned, other[k]).result
            result.replace_all_uses_with(owned)
    dealloc.erase()
