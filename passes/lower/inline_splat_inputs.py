"""``tad-inline-splat-inputs``: a ``linalg.generic`` reads a constant-filled input as the constant itself.

A scalar constant broadcast to a tensor (``0.5`` in ``0.5 * (tanh(0.5 * z) + 1)``,
the ``1`` of ``1 - t * t``) is a fill, computed once and shared by every op
that reads it once simplification has merged its copies. Elementwise fusion
folds a fill into a reader only when the reader is its only one, so in an
unrolled loop of N steps one fill feeds thousands of ops. Each reader then
loads a buffer of a single repeated value, and bufferization analyses every
reader against every other (the fill's buffer is one alias set):
compile time grows with the square of N. This pass drops such an input, of
a fill read by at least ``min-readers`` ops (32), from each reader and gives
the reader's body the constant instead (a clone of the ``arith.constant``
inside it); the fill goes once nothing reads it.

A fill here is a ``linalg.fill`` of an ``arith.constant`` or a
``linalg.generic`` without inputs whose body yields one (what
:func:`tensorad.passes.lower.clone_shared_fills.is_fill` recognizes, whose
value is a constant). ``tad-lower-to-llvm`` runs this pass before
elementwise fusion.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> product = '''
...   %{n} = linalg.generic {{indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}}
...       ins(%x, %h : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {{
...   ^bb0(%a: f32, %b: f32, %o: f32):
...     %p = arith.mulf %a, %b : f32
...     linalg.yield %p : f32
...   }} -> tensor<8xf32>'''
>>> m = ir.Module.parse(f'''
... #id = affine_map<(i) -> (i)>
... func.func @f(%x: tensor<8xf32>) -> tensor<8xf32> {{
...   %half = arith.constant 0.5 : f32
...   %e = tensor.empty() : tensor<8xf32>
...   %h = linalg.fill ins(%half : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
... {"".join(product.format(n=f"r{i}") for i in range(8))}
...   return %r7 : tensor<8xf32>
... }}''', make_context())
>>> run_pipeline(m, "tad-inline-splat-inputs{min-readers=8}")
>>> text = str(m)
>>> "linalg.fill" in text, text.count("arith.constant 5.000000e-01")  # the function's, and one per reader
(False, 9)
"""

from __future__ import annotations

from typing import Optional

from dataclasses import dataclass

from mlir import ir

from tensorad.dialects.families.linalg import operand_segments
from tensorad.dialects.linalg_builder import YieldOp, carry_attributes, empty_generic, iterator_kinds

from ..options import option
from ..walk import collect, copy_body, defining_op
from .clone_shared_fills import is_fill

_SHARED = "tad.shared_splat"  # marks the fills this run rewrites the readers of


@dataclass(frozen=True)
class SplatOptions:
    """The option of ``tad-inline-splat-inputs`` (``min-readers=32``).

    A fill read by fewer ops stays: its buffer costs little, and tad-remat's
    cost model, which counts it, stays exact (it over-counts the buffer of a
    fill this pass removes, so a budget it accepts still holds).
    """

    min_readers: int = option(32, "the fewest readers of a fill that it inlines into them", check=lambda n: n >= 1,
                              accepted="an integer >= 1")


def splat_constant(value: ir.Value) -> Optional[ir.Operation]:
    """The ``arith.constant`` that ``value`` is filled with, if it is a fill of one; else None.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f() -> tensor<4xf64> {
    ...   %one = arith.constant 1.0 : f64
    ...   %e = tensor.empty() : tensor<4xf64>
    ...   %f = linalg.fill ins(%one : f64) outs(%e : tensor<4xf64>) -> tensor<4xf64>
    ...   return %f : tensor<4xf64>
    ... }''', make_context())
    >>> fill = collect(m.operation, lambda op: op.name == "linalg.fill")[0]
    >>> str(splat_constant(fill.results[0]).attributes["value"])
    '1.000000e+00 : f64'
    """
    fill = defining_op(value)
    if not is_fill(fill):
        return None
    if fill.name == "linalg.fill":
        constant = defining_op(fill.operands[0])
    else:
        constant = defining_op(list(fill.regions[0].blocks[0].operations)[-1].operands[0])
    return constant if constant is not None and constant.name == "arith.constant" else None


def _rewrite(op: ir.Operation, splats: dict) -> None:
    """Rebuild the generic ``op`` without its inputs at ``splats`` (position -> constant), read as constants."""
    inputs, inits = operand_segments(op)
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    kept = [k for k in range(len(inputs)) if k not in splats]
    with ir.InsertionPoint(op), op.location:
        new, block = empty_generic([inputs[k] for k in kept], inits,
                                   [maps[k] for k in kept] + maps[len(inputs):], iterator_kinds(op))
        with ir.InsertionPoint(block):
            # An argument per operand of the old body: the new block's, or the cloned constant.
            arguments, fresh = [], iter(block.arguments)
            for k in range(len(inputs) + len(inits)):
                arguments.append(splats[k].clone(ip=ir.InsertionPoint(block)).results[0] if k in splats
                                 else next(fresh))
            YieldOp(copy_body(op, arguments)[1])
        carry_attributes(op, new)
    for old, result in zip(op.results, new.results):
        old.replace_all_uses_with(result)
    op.erase()


def _count_at_least(uses, n: int) -> bool:
    count = 0
    for _ in uses:
        count += 1
        if count >= n:
            return True
    return False


def _droppable(op: ir.Operation, splats: dict) -> dict:
    """Those of ``splats`` that ``op`` can drop while every loop stays read by an operand it keeps.

    A loop only a splat reads (a sum of a constant over it) would lose its
    trip count.
    """
    maps = [ir.AffineMapAttr(m).value for m in op.attributes["indexing_maps"]]
    reads = [{e.position for e in m.results if isinstance(e, ir.AffineDimExpr)} for m in maps]
    kept = dict(splats)
    for k in splats:
        others = set().union(*(r for j, r in enumerate(reads) if j != k and j not in kept))
        if reads[k] <= others:
            continue
        del kept[k]  # needed for a loop: read as an input still
    return kept


def run(op: ir.Operation, pass_, options: SplatOptions = SplatOptions()) -> None:
    """Read every constant-filled input of the ``linalg.generic`` ops inside ``op`` as its constant.

    Only fills read by at least ``options.min_readers`` ops, counted before
    any reader changes; a fill left with no reader is erased.
    """
    shared = [fill for fill in collect(op, is_fill)
              if _count_at_least(fill.results[0].uses, options.min_readers)]
    for fill in shared:
        fill.attributes[_SHARED] = ir.UnitAttr.get()
    for reader in collect(op, lambda inner: inner.name == "linalg.generic"):
        inputs, _ = operand_segments(reader)
        splats = _droppable(reader, {k: constant for k, value in enumerate(inputs)
                                     if _marked(value) and (constant := splat_constant(value)) is not None})
        if not splats:
            continue
        filled = []
        for k in splats:
            if inputs[k] not in filled:
                filled.append(inputs[k])
        _rewrite(reader, splats)
        for value in filled:
            if not any(True for _ in value.uses):
                value.owner.erase()
    for fill in collect(op, lambda inner: _SHARED in inner.attributes):
        del fill.attributes[_SHARED]


def _marked(value: ir.Value) -> bool:
    fill = defining_op(value)
    return fill is not None and _SHARED in fill.attributes
