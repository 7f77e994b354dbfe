"""``tad-simplify``: folding, common-subexpression and dead-code elimination for ``tad`` ops.

Ops of the IRDL-declared ``tad`` dialect carry no traits, so upstream
``canonicalize``, ``cse`` and DCE leave them alone. This pass repeats three
steps until nothing changes:

1. folding, with one rule per op name in :data:`FOLDS` (registered with
   :func:`fold`): identity structure ops disappear, chains of transposes or
   reshapes collapse, structure ops of a splat ``tad.constant`` become a
   constant, and adding a zero constant is dropped (zero adjoints);
2. CSE of pure ops (``tad``, ``arith``, ``math``, pure ``tensor``): an op equal to a dominating one (same name, operands,
   attributes and result types) is replaced by it;
3. DCE of unused side-effect-free ops (``tad``, ``arith``, ``math`` and pure
   ``tensor`` ops).

The differentiation markers ``tad.stop_gradient``, ``tad.start_checkpoint`` and
``tad.end_checkpoint`` are never folded or merged; they go only when unused.

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
from math import prod
from typing import Callable, Optional

import numpy as np
from mlir import ir

from ..dialects import builder as ops
from ..dialects.rules import registrar
from ..dialects.shapes import python_attrs
from .walk import collect

MARKERS = frozenset({"tad.stop_gradient", "tad.start_checkpoint", "tad.end_checkpoint"})
# Upstream ops without side effects that DCE may erase (tad ops are all pure).
PURE_DIALECTS = ("tad.", "arith.", "math.")
PURE_OPS = frozenset({"tensor.empty", "tensor.extract_slice", "tensor.insert_slice", "tensor.concat",
                      "tensor.collapse_shape", "tensor.expand_shape", "tensor.extract",
                      "tensor.from_elements", "tensor.splat", "tensor.cast", "tensor.dim"})

FoldRule = Callable[[ir.Operation], Optional[ir.Value]]
FOLDS: dict[str, FoldRule] = {}


fold = registrar(FOLDS)
fold.__doc__ = """Register ``fn`` as the fold rule of the ops ``names``.

    A rule runs with the insertion point before the op and the op's location
    active. It returns the value that replaces the op's single result (an
    existing value or one it builds), or None when the op does not fold.

    Examples
    --------
    >>> @fold("tad.example_identity")
    ... def _example(op):
    ...     return op.operands[0]
    >>> FOLDS.pop("tad.example_identity") is _example
    True
    """


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
    changed = False
    for inner in _walk(op):
        rule = FOLDS.get(inner.name)
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
    if op.name in MARKERS or op.regions or not _is_pure(op) or op.name == "tensor.empty":
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


# Structured control flow is pure when everything inside it is (its terminators aside).
PURE_REGION_OPS = frozenset({"scf.for", "scf.if", "scf.while", "scf.execute_region"})
TERMINATORS = frozenset({"scf.yield", "scf.condition"})


def _is_pure(op: ir.Operation) -> bool:
    if op.regions:
        return op.name in PURE_REGION_OPS and all(
            inner.name in TERMINATORS or _is_pure(inner) for inner in _walk(op))
    return op.name.startswith(PURE_DIALECTS) or op.name in PURE_OPS


def _dce(op: ir.Operation) -> bool:
    # Users come after their operands in the walk, so visiting it backwards
    # erases a whole dead chain in one sweep. Erasing an op with regions also
    # erases the ops inside it, which the walk still lists: walk again then.
    changed = False
    while True:
        for inner in reversed(_walk(op)):
            if _is_pure(inner) and all(not list(r.uses) for r in inner.results):
                had_regions = bool(inner.regions)
                inner.erase()
                changed = True
                if had_regions:
                    break
        else:
            return changed


# --- fold rules ------------------------------------------------------------------

def _producer(value: ir.Value, name: str) -> Optional[ir.Operation]:
    """The op named ``name`` that defines ``value``, or None."""
    if isinstance(value, ir.OpResult) and value.owner.name == name:
        return value.owner.operation
    return None


def _splat_value(value: ir.Value) -> Optional[ir.Attribute]:
    """The scalar attribute of the ``tad.constant`` defining ``value``, or None."""
    constant = _producer(value, "tad.constant")
    return None if constant is None else constant.attributes["value"]


@fold("tad.convert", "tad.reduce_sum", "tad.pad")
def _fold_same_type(op):
    # The shape rules leave these ops only one way to keep the operand's
    # type: the identity (no padding, nothing reduced, the whole slice, ...).
    x = op.operands[0]
    return x if x.type == op.results[0].type else None


def _or_splat(rule: FoldRule) -> FoldRule:
    """Fold a structure op of a splat constant into a splat constant first, else apply ``rule``."""

    def folded(op):
        value = _splat_value(op.operands[0])
        if value is None or prod(op.operands[0].type.shape) == 0:
            return rule(op)
        t = op.results[0].type
        return ops.constant(value.value, t.shape, t.element_type)

    return folded


@fold("tad.transpose")
@_or_splat
def _fold_transpose(op):
    # transpose(transpose(y, inner), outer) reads y's dim inner[outer[i]].
    perm = python_attrs(op)["permutation"]
    x = op.operands[0]
    inner = _producer(x, "tad.transpose")
    if inner is not None:
        inner_perm = python_attrs(inner)["permutation"]
        perm, x = tuple(inner_perm[p] for p in perm), inner.operands[0]
    if perm == tuple(range(len(perm))):
        return x
    return None if inner is None else ops.transpose(x, perm)


@fold("tad.reshape")
@_or_splat
def _fold_reshape(op):
    inner = _producer(op.operands[0], "tad.reshape")
    if inner is None:
        return _fold_same_type(op)
    x, t = inner.operands[0], op.results[0].type
    return x if x.type == t else ops.reshape(x, t.shape)


@fold("tad.broadcast_in_dim")
@_or_splat
def _fold_broadcast_in_dim(op):
    dims = python_attrs(op)["broadcast_dimensions"]
    return _fold_same_type(op) if dims == tuple(range(len(dims))) else None


fold("tad.slice", "tad.reduce_max", "tad.reduce_min")(_or_splat(_fold_same_type))


def _is_zero(value: ir.Value) -> bool:
    scalar = _splat_value(value)
    return scalar is not None and scalar.value == 0


# Scalar arithmetic of two splat constants, evaluated here (float ops only:
# integer wrap-around and division rounding are left to the compiled code).
_FLOAT_DTYPES = {"f32": np.float32, "f64": np.float64}
_SPLAT_ARITHMETIC = {"arith.addf": lambda a, b: a + b, "arith.subf": lambda a, b: a - b,
                     "arith.mulf": lambda a, b: a * b}


def _splat_arithmetic(op) -> Optional[ir.Value]:
    a, b = (_splat_value(v) for v in op.operands)
    if a is None or b is None or op.name not in _SPLAT_ARITHMETIC:
        return None
    t = op.results[0].type
    value = _SPLAT_ARITHMETIC[op.name](a.value, b.value)
    return ops.constant(float(np.asarray(value, _FLOAT_DTYPES[str(t.element_type)])), t.shape,
                        t.element_type)


def _is_splat(value: ir.Value, number: float) -> bool:
    scalar = _splat_value(value)
    return scalar is not None and scalar.value == number


def _is_zero(value: ir.Value) -> bool:
    return _is_splat(value, 0)


@fold("arith.addf", "arith.addi")
def _fold_add_zero(op):
    # Drops zero adjoints; the one value this changes is -0.0 + 0.0 (-0.0
    # instead of +0.0), which no derivative depends on.
    lhs, rhs = op.operands
    return lhs if _is_zero(rhs) else (rhs if _is_zero(lhs) else _splat_arithmetic(op))


@fold("arith.subf", "arith.subi")
def _fold_sub_zero(op):
    lhs, rhs = op.operands
    return lhs if _is_zero(rhs) else _splat_arithmetic(op)


@fold("arith.mulf", "arith.muli")
def _fold_mul_one(op):
    # Seeds of 1 (grad's cotangent) multiply whole adjoints: drop them.
    lhs, rhs = op.operands
    return lhs if _is_splat(rhs, 1) else (rhs if _is_splat(lhs, 1) else _splat_arithmetic(op))
