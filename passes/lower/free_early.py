"""``tad-free-after-last-use``: move each ``memref.dealloc`` up to the last use of its buffer.

Upstream ownership-based deallocation frees every buffer at the end of the
block that allocated it, so a straight-line function holds all of its
temporaries until it returns: its peak live bytes is the sum of every
allocation. What checkpointing is judged by is peak memory, and a forward
value that the backward sweep no longer needs must be gone by then. This pass
moves every unconditional ``memref.dealloc`` to just after the last op of its
block that touches the buffer, through any view or other memref derived from
it (a conservative alias closure: any memref result of an op that takes the
buffer, and the source of a view).

Examples
--------
>>> from mlir import ir

from tensorad.dialects.record import Trait, has_trait
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: memref<4xf32>) {
...   %a = memref.alloc() : memref<4xf32>
...   memref.copy %x, %a : memref<4xf32> to memref<4xf32>
...   %b = memref.alloc() : memref<4xf32>
...   memref.copy %x, %b : memref<4xf32> to memref<4xf32>
...   memref.dealloc %a : memref<4xf32>
...   memref.dealloc %b : memref<4xf32>
...   return
... }''', make_context())
>>> run_pipeline(m, "tad-free-after-last-use")
>>> body = str(m)
>>> body.index("memref.dealloc %alloc :") < body.index("%alloc_0 = memref.alloc")
True
"""

from __future__ import annotations

from mlir import ir

from tensorad.dialects.record import Trait, has_trait


def _is_memref(value: ir.Value) -> bool:
    return isinstance(value.type, (ir.MemRefType, ir.UnrankedMemRefType))


def _aliases(buffer: ir.Value) -> list:
    """``buffer`` and every memref that may share its storage."""
    seen, todo = [], [buffer]
    while todo:
        value = todo.pop()
        if any(value == s for s in seen):
            continue
        seen.append(value)
        for use in value.uses:
            todo.extend(r for r in use.owner.results if _is_memref(r))
        owner = value.owner
        if not isinstance(owner, ir.Block) and has_trait(owner.operation, Trait.VIEW):
            todo.extend(o for o in owner.operation.operands if _is_memref(o))
    return seen


def _ancestor_in(op: ir.Operation, block: ir.Block):
    """The op of ``block`` that is ``op`` or contains it; None if ``op`` is elsewhere."""
    op = op.operation
    while op is not None:
        if op.block == block:
            return op
        parent = op.parent
        op = parent.operation if parent is not None and parent.name != "builtin.module" else None
    return None


def _metadata_of(buffer: ir.Value, block: ir.Block):
    """The ``memref.extract_strided_metadata`` of ``block`` whose base buffer ``buffer`` is, used by the free alone."""
    owner = buffer.owner
    if isinstance(owner, ir.Block) or owner.operation.name != "memref.extract_strided_metadata" \
            or owner.operation.block != block:
        return None
    extract = owner.operation
    base, *metadata = extract.results
    return extract if len(list(base.uses)) == 1 and all(not list(r.uses) for r in metadata) else None


def _free_early_in(block: ir.Block) -> None:
    ops = [op.operation for op in block.operations]
    position = {op: i for i, op in enumerate(ops)}
    for dealloc in [op for op in ops if op.name == "memref.dealloc"]:
        # Deallocation frees a buffer a region yields (an scf.if's result, of a strided layout) through
        # its base buffer, at the end of the block: that extraction moves up with the free.
        extract = _metadata_of(dealloc.operands[0], block)
        buffer = extract.operands[0] if extract is not None else dealloc.operands[0]
        last = None
        for alias in _aliases(buffer):
            for use in alias.uses:
                user = _ancestor_in(use.owner, block)
                if user is None or user == dealloc or user.name == "memref.dealloc" or \
                        (extract is not None and user == extract):
                    continue
                if last is None or position[user] > position[last]:
                    last = user
        if last is None or position[last] >= position[extract or dealloc]:
            continue
        if extract is not None:
            extract.move_after(last)
            last = extract
        dealloc.move_after(last)


def _walk_blocks(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            yield block
            for inner in block.operations:
                yield from _walk_blocks(inner.operation)


def run(op: ir.Operation, pass_) -> None:
    """Free every buffer right after its last use, block by block."""
    for block in list(_walk_blocks(op)):
        _free_early_in(block)
