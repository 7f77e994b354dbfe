"""Collecting the ops of a region tree before a pass rewrites them; where an op or a value sits.

Passes gather their targets first and rewrite after the walk: changing IR
while the bindings walk it would invalidate the walk.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: f32) -> f32 {
...   %0 = arith.addf %x, %x : f32
...   %1 = arith.mulf %0, %x : f32
...   return %1 : f32
... }''', make_context())
>>> [op.name for op in collect(m.operation, lambda op: op.name.startswith("arith."))]
['arith.addf', 'arith.mulf']
"""

from __future__ import annotations

from typing import Callable

from mlir import ir


def _always(op: ir.Operation) -> bool:
    return True


def collect(root: ir.Operation, keep: Callable[[ir.Operation], bool] = _always,
            prune: Callable[[ir.Operation], bool] | None = None) -> list:
    """The ops nested in ``root`` (``root`` included) for which ``keep`` holds.

    Parameters
    ----------
    root : mlir.ir.Operation
    keep : callable
        Which ops to return.
    prune : callable, optional
        Ops whose regions are not entered (they are still offered to ``keep``).

    Returns
    -------
    list of mlir.ir.Operation
        In post-order (within a block an op comes after the producers of its
        operands, nested ops before their parent); with ``prune``, in
        pre-order, as the walk must meet a parent first to skip its regions.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("func.func @f() { return }", make_context())
    >>> [op.name for op in collect(m.operation)]
    ['func.return', 'func.func', 'builtin.module']
    >>> [op.name for op in collect(m.operation, prune=lambda op: op.name == "func.func")]
    ['builtin.module', 'func.func']
    """
    found = []

    def visit(op: ir.Operation):
        if keep(op):
            found.append(op)
        return ir.WalkResult.SKIP if prune is not None and prune(op) else ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.POST_ORDER if prune is None else ir.WalkOrder.PRE_ORDER)
    return found


def position_in_block(op: ir.Operation) -> int:
    """The index of ``op`` among the operations of its block.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("func.func @f() { return }", make_context())
    >>> position_in_block(collect(m.operation, lambda op: op.name == "func.return")[0])
    0
    """
    for i, other in enumerate(op.operation.block.operations):
        if other.operation == op.operation:
            return i
    raise ValueError("op not in its block")


def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op that defines ``value``; None for a block argument.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("func.func @f(%x: f32) -> f32 { %0 = arith.negf %x : f32\\n return %0 : f32 }",
    ...                     make_context())
    >>> ret = collect(m.operation, lambda op: op.name == "func.return")[0]
    >>> defining_op(ret.operands[0]).name, defining_op(defining_op(ret.operands[0]).operands[0])
    ('arith.negf', None)
    """
    owner = value.owner
    return owner.operation if isinstance(owner, ir.OpView) else None


def defined_outside(value: ir.Value, op: ir.Operation) -> bool:
    """Whether ``value`` comes from outside ``op`` (neither a result of it nor defined in its regions).

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("func.func @f(%x: f32) -> f32 { %0 = arith.negf %x : f32\\n return %0 : f32 }",
    ...                     make_context())
    >>> fn = collect(m.operation, lambda op: op.name == "func.func")[0]
    >>> ret = collect(m.operation, lambda op: op.name == "func.return")[0]
    >>> defined_outside(ret.operands[0], fn), defined_outside(ret.operands[0], ret)
    (False, True)
    """
    owner = value.owner
    definer = owner.operation if isinstance(owner, ir.OpView) else owner.owner.operation
    if definer == op:
        return False
    parent = definer.parent
    while parent is not None:
        if parent == op:
            return False
        parent = parent.parent
    return True


def splice_block(block: ir.Block, op: ir.Operation) -> None:
    """Move ``block``'s ops before ``op`` and let ``op``'s results become its terminator's operands.

    What inlining a call or unwrapping a single-block region does; ``op`` is
    left without uses for the caller to erase.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: f32) -> f32 {
    ...   %0 = scf.execute_region -> f32 {
    ...     %1 = arith.negf %x : f32
    ...     scf.yield %1 : f32
    ...   }
    ...   return %0 : f32
    ... }''', make_context())
    >>> region = collect(m.operation, lambda op: op.name == "scf.execute_region")[0]
    >>> splice_block(region.regions[0].blocks[0], region); region.erase()
    >>> [op.name for op in collect(m.operation)]
    ['arith.negf', 'func.return', 'func.func', 'builtin.module']
    """
    ops = list(block.operations)
    for inner in ops[:-1]:
        inner.move_before(op)
    for result, value in zip(op.results, ops[-1].operands):
        result.replace_all_uses_with(value)


def copy_body(template: ir.Operation, arguments, region: int = 0) -> tuple:
    """Copy block 0 of ``template``'s region ``region`` to the current insertion point.

    ``arguments`` replace the block's arguments. Returns the copied ops (the
    terminator left out) and the values the terminator yields. ``template``
    is left as it was: derivative rules replay a body (a loop's, a generic's)
    while sweeps still hold values of the original.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: f32) -> f32 {
    ...   %0 = scf.execute_region -> f32 {
    ...     %1 = arith.negf %x : f32
    ...     scf.yield %1 : f32
    ...   }
    ...   return %0 : f32
    ... }''', make_context())
    >>> region = collect(m.operation, lambda op: op.name == "scf.execute_region")[0]
    >>> with ir.InsertionPoint(region), region.location:
    ...     ops, yielded = copy_body(region, [])
    >>> [op.name for op in ops], yielded[0].owner.name
    (['arith.negf'], 'arith.negf')
    """
    copy = template.clone()
    block = copy.regions[region].blocks[0]
    for old, new in zip(block.arguments, arguments):
        old.replace_all_uses_with(new)
    ops = list(block.operations)
    yielded = list(ops[-1].operands)
    for op in ops[:-1]:
        op.move_before(copy)
    copy.erase()
    return ops[:-1], yielded
