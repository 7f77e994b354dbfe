"""``tad-simplify``: folding, common-subexpression and dead-code elimination for ``tad`` ops.

Ops of the IRDL-declared ``tad`` dialect carry no MLIR traits, so upstream
``canonicalize``, ``cse`` and DCE leave them alone. This pass reads the op
records (:mod:`tensorad.dialects.record`) instead and repeats three steps
until nothing changes:

1. folding, with the ``fold`` of each op's record: identity structure ops
   disappear, chains of transposes or reshapes collapse, structure ops of a
   splat ``tad.constant`` become a constant, and adding a zero constant is
   dropped (zero adjoints);
2. CSE of pure ops (:attr:`~tensorad.dialects.record.Trait.PURE`): an op
   equal to a dominating one (same name, operands, attributes and result
   types) is replaced by it;
3. DCE of unused pure ops, and of ops with regions
   (:attr:`~tensorad.dialects.record.Trait.PURE_IF_BODY_PURE`) whose bodies
   are pure.

The differentiation markers (:attr:`~tensorad.dialects.record.Trait.MARKER`:
``tad.stop_gradient``, ``tad.start_checkpoint``, ``tad.end_checkpoint``) are
never folded or merged; they go only when unused.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
...   %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
...   %1 = "tad.transpose"(%0) {permutation = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
...   return %1 : tensor<2x3xf32>
... }''', make_context())
>>> run_pipeline(module, "tad-simplify")
>>> "tad.transpose" in str(module)
False
"""

from __future__ import annotations

from collections import ChainMap
from typing import Optional

from mlir import ir

from ..dialects.record import Trait, has_trait, record_of
from .walk import collect


def run(op: ir.Operation, pass_) -> None:
    """Fold, CSE and DCE inside ``op`` (a ``builtin.module``) until nothing changes.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> from tensorad.passes.registry import run_pipeline
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<3xf32>) -> tensor<3xf32> {
    ...   %0 = "tad.convert"(%x) : (tensor<3xf32>) -> tensor<3xf32>
    ...   return %0 : tensor<3xf32>
    ... }''', make_context())
    >>> run_pipeline(m, "tad-simplify")
    >>> "tad.convert" in str(m)
    False
    """
    while _fold_all(op) | _cse(op) | _dce(op):
        pass


# --- the three steps ---------------------------------------------------------------

def _walk(op: ir.Operation) -> list:
    """Every op nested in ``op`` (not ``op`` itself), in post-order: within a
    block an op comes after the producers of its operands."""
    return collect(op)[:-1]


def _fold_all(op: ir.Operation) -> bool:
    # A fold runs with the insertion point before the op and the op's location
    # active; it returns the value that replaces the op's single result (an
    # existing value or one it builds), or None when the op does not fold.
    changed = False
    for inner in _walk(op):
        record = record_of(inner)
        rule = record.fold if record is not None else None
        if rule is None:
            continue
        with ir.InsertionPoint(inner), inner.location:
            replacement = rule(inner)
        if replacement is not None:
            inner.results[0].replace_all_uses_with(replacement)
            inner.erase()
            changed = True
    return changed


def _cse_key(op: ir.Operation) -> Optional[tuple]:
    # Pure upstream ops too: derivative rules recompute the same arith/math
    # values (the same partial for two cotangents), and running upstream cse
    # after this pass would not see the tad ops they feed.
    if (has_trait(op, Trait.MARKER) or op.regions or not is_pure(op)
            or has_trait(op, Trait.FRESH)):
        return None
    attrs = tuple((name, op.attributes[name]) for name in sorted(op.attributes))
    return (op.name, tuple(op.operands), attrs, tuple(r.type for r in op.results))


def _cse(op: ir.Operation) -> bool:
    """Replace each pure op by an equal op that dominates it.

    Ops seen earlier in a block, or in an enclosing block before the region's
    parent op, dominate; a symbol (function, module) starts a fresh scope
    because its body cannot see values from outside.
    """
    changed = False

    def visit_block(block: ir.Block, seen: ChainMap):
        nonlocal changed
        for inner in list(block.operations):
            inner = inner.operation
            key = _cse_key(inner)
            if key is not None and key in seen:
                for old, new in zip(inner.results, seen[key].results):
                    old.replace_all_uses_with(new)
                inner.erase()
                changed = True
                continue
            if key is not None:
                seen[key] = inner
            scope = ChainMap() if "sym_name" in inner.attributes else seen
            for region in inner.regions:
                for nested in region.blocks:
                    visit_block(nested, scope.new_child())

    for region in op.regions:
        for block in region.blocks:
            visit_block(block, ChainMap())
    return changed


def is_pure(op: ir.Operation) -> bool:
    """Whether ``op`` can be erased when unused and merged with an equal op (its regions' ops included)."""
    if op.regions:
        # Structured control flow is pure when everything inside it is (its terminators aside).
        return has_trait(op, Trait.PURE_IF_BODY_PURE) and all(
            has_trait(inner, Trait.TERMINATOR) or is_pure(inner) for inner in _walk(op))
    return has_trait(op, Trait.PURE)


def _dce(op: ir.Operation) -> bool:
    # Users come after their operands in the walk, so visiting it backwards
    # erases a whole dead chain in one sweep. Erasing an op with regions also
    # erases the ops inside it, which the walk still lists: walk again then.
    changed = False
    while True:
        for inner in reversed(_walk(op)):
            if is_pure(inner) and all(not list(r.uses) for r in inner.results):
                had_regions = bool(inner.regions)
                inner.erase()
                changed = True
                if had_regions:
                    break
        else:
            return changed
