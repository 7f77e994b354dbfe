"""``tad-collapse-loops``: loops of a linalg op that always travel together become one loop.

``tad-tile-and-vectorize`` schedules each op from its loop nest. A loop
nest split over more dims than the op needs costs speed and compile time:

* a ``linalg.contract`` gets its register-tiled schedule, whose accumulators
  stay in vector registers across the contracting loop, with one loop per
  role (rows, contracting, columns). The weight gradient of ``x @ w`` for an
  ``x`` of shape ``(batch, seq, d)`` contracts over two loops, its forward
  product has two row loops, and a ``reshape`` that upstream's elementwise
  fusion folds into a contraction ("fusion by expansion") splits its loops
  and leaves a ``linalg.generic`` computing ``out + a * b``: three to five
  times slower than the same product in two dimensions;
* any other op (an activation over ``(batch, seq, width)``, a bias
  gradient summing ``(batch, seq)`` away, a softmax over ``(batch, heads,
  seq, seq)``) gets a loop per outer dim around its vector tile. LLVM
  unrolls an outer loop of a few steps (a batch of 8 split over threads, 4
  heads) fully, with every loop inside it: the same kernel compiled several
  times over.

When consecutive loops of the same kind appear, in every operand that reads
any of them, all together and at consecutive dims in loop order, they index
one contiguous block of each operand: this pass merges them into one loop
of their product's size, reading collapsed operands
(``tensor.collapse_shape``, a view of a contiguous buffer after
bufferization) and expanding the results back. A merged ``linalg.generic``
that computes ``out + a * b`` becomes the ``linalg.contract`` it stands for;
any other keeps its body, and its innermost loop stays a loop of its own (its
vector tile spans a short one already; merging it would reshape every small
elementwise op). Values and summation order along each merged loop
are unchanged. Ops whose body reads ``linalg.index``, whose operands are
not static tensors read at plain loop indices, or that read a slice (a
strided view, which a collapse would copy), are left as they are.
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
>>> run_pipeline(m, "tad-collapse-loops")
>>> "tensor<1024x256xf32>" in str(m) and "tensor<1024x768xf32>" in str(m)
True
"""

from __future__ import annotations

from math import prod
from typing import Optional

from mlir import ir
from mlir.dialects import tensor

from tensorad.dialects.families.linalg import operand_segments
from tensorad.dialects.linalg_builder import YieldOp, carry_attributes, contract, empty_generic, iterator_kinds

from ..walk import collect, copy_body, defining_op
from .raise_contractions import contraction_dims, loop_dims


def _contraction(op: ir.Operation) -> Optional[tuple]:
    """``(reads, reduced)`` (see :func:`_generic_reads`) of a contraction with a contracting loop; else None.

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
    return list(dims), reduced


def _generic_reads(op: ir.Operation) -> Optional[tuple]:
    """``(reads, reduced)`` of a ``linalg.generic`` whose loops this pass may merge; else None.

    ``reads[k]`` lists the loop each dim of operand ``k`` reads (empty for a
    scalar operand); ``reduced[loop]`` says whether the loop is a reduction.
    """
    if op.name != "linalg.generic" or collect(op, lambda inner: inner.name == "linalg.index"):
        return None
    inputs, inits = operand_segments(op)
    reads = []
    for value, attr in zip(inputs + inits, op.attributes["indexing_maps"]):
        dims = loop_dims(ir.AffineMapAttr(attr).value)
        shaped = isinstance(value.type, ir.RankedTensorType)
        if dims is None or (shaped and not value.type.has_static_shape) or (not shaped and dims):
            return None
        definer = defining_op(value)
        if definer is not None and definer.name == "tensor.extract_slice":
            return None  # a strided view: collapsing it would copy it into a buffer of its own
        reads.append(dims)
    return reads, [kind == "reduction" for kind in iterator_kinds(op)]


def _groups(reads: list, reduced: list) -> list:
    """Runs of consecutive loops of one kind that every operand reads together, at consecutive dims in order."""
    groups = [[0]]
    for loop in range(1, len(reduced)):
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
    if not isinstance(value.type, ir.RankedTensorType):
        return value, [], []  # a scalar operand
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


def _rewrite(op: ir.Operation, reads: list, groups: list, as_contraction: bool) -> None:
    """Replace ``op`` by an op over ``groups`` (one loop each) of collapsed operands.

    A ``linalg.contract`` where ``as_contraction``, else a ``linalg.generic``
    with ``op``'s body.
    """
    group_of = {loop: g for g, group in enumerate(groups) for loop in group}
    inputs, inits = operand_segments(op)
    with ir.InsertionPoint(op), op.location:
        collapsed = [_collapse(v, dims, group_of) for v, dims in zip(inputs + inits, reads)]
        maps = [ir.AffineMap.get(len(groups), 0, [ir.AffineDimExpr.get(g) for g in loops])
                for _, _, loops in collapsed]
        values = [value for value, _, _ in collapsed]
        if as_contraction:
            new = contract(values[0], values[1], outs=[values[2]], indexing_maps=maps).owner
        else:
            kinds = iterator_kinds(op)
            new, block = empty_generic(values[:len(inputs)], values[len(inputs):], maps,
                                       [kinds[group[0]] for group in groups])
            with ir.InsertionPoint(block):
                YieldOp(copy_body(op, block.arguments)[1])
        carry_attributes(op, new)
        for old, result, (_, reassociation, _) in zip(op.results, new.results, collapsed[len(inputs):]):
            if len(reassociation) != old.type.rank:
                result = tensor.ExpandShapeOp(old.type, result, reassociation, [], list(old.type.shape)).result
            old.replace_all_uses_with(result)
    op.erase()


def run(op: ir.Operation, pass_) -> None:
    """Merge the loops that travel together in every contraction and generic inside ``op`` (a ``builtin.module``)."""
    for candidate in collect(op, lambda o: o.name in ("linalg.contract", "linalg.generic")):
        contraction = _contraction(candidate)
        found = contraction or _generic_reads(candidate)
        if found is None:
            continue
        reads, reduced = found
        groups = _groups(reads, reduced)
        if contraction is None and len(groups[-1]) > 1:
            # The innermost loop stays a loop of its own: merging it buys little (its vector
            # tile is the whole short loop already) and would reshape every small op.
            groups[-1:] = [groups[-1][:-1], groups[-1][-1:]]
        if any(len(group) > 1 for group in groups):
            _rewrite(candidate, reads, groups, as_contraction=contraction is not None)
