"""Make a function run a schedule: clone the ops recomputed before each stage.

A schedule is ``recompute``: ``stage -> nodes`` (see :mod:`.cost`). Before the
ops of node ``t`` it inserts copies of the ops of every node in
``recompute[t]`` (in program order), and from there on every read of such a
node (also reads nested in loop bodies, and the function's results) takes the
newest copy, so the older one dies after its last read before it. An op
that is left without readers (a node recomputed before each of its readers
runs only as its copies) is erased: the lowering would erase it as dead code,
and the graph of the rewritten function, which the pass checks against the
budget, must see what fusion will see.

Examples
--------
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> str(module).count("tad.dot_general")
11
>>> apply(graph, {16: [0, 1]})  # the first layer again, before stage 16
>>> str(module).count("tad.dot_general")
12
"""

from __future__ import annotations

from mlir import ir

from .graph import has_side_effects


def _gather_groups(graph) -> None:
    """Move fused producers next to their root, so each node's ops are contiguous."""
    for node in graph.nodes:
        for op in node.ops[:-1]:
            op.move_before(node.root)


def _rewire(op: ir.Operation, newest: dict, origin: dict) -> None:
    """Point ``op``'s operands (and those of ops nested in it) at the newest copies of the values they copy.

    An operand may itself be a copy (``origin`` maps it to the value it
    copies): a stage's op that read a recomputed input is cloned, later,
    with that operand, which must move on to the newest copy too.
    """
    for k, value in enumerate(op.operands):
        original = origin.get(value, value)
        replacement = newest.get(original, original)
        if replacement != value:
            op.operands[k] = replacement
    for region in op.regions:
        for block in region.blocks:
            for nested in block.operations:
                _rewire(nested.operation, newest, origin)


def apply(graph, recompute: dict) -> None:
    """Insert the recomputations of ``recompute`` into ``graph``'s function.

    Parameters
    ----------
    graph : Graph
        Built from the function with :func:`.graph.build`; its ops are used in place.
    recompute : dict
        ``stage -> nodes`` to run again before node ``stage``.
    """
    _gather_groups(graph)
    newest: dict = {}
    origin: dict = {}
    for stage, node in enumerate(graph.nodes):
        anchor = ir.InsertionPoint(node.ops[0])
        for again in sorted(recompute.get(stage, ())):
            copies: dict = {}
            for op in graph.nodes[again].ops:
                clone = op.clone(ip=anchor)
                _rewire(clone, {**newest, **copies}, origin)
                copies.update(zip(op.results, clone.results))
            newest.update(copies)
            origin.update((copy, original) for original, copy in copies.items())
        for op in node.ops:
            _rewire(op, newest, origin)
        for result in node.root.results:
            newest.pop(result, None)
    terminator = list(graph.block.operations)[-1].operation
    _rewire(terminator, newest, origin)
    _erase_unread(graph.block)


def _erase_unread(block: ir.Block) -> None:
    """Erase the ops of ``block`` whose results nothing reads (readers first, so chains go in one sweep)."""
    for op in reversed([op.operation for op in block.operations][:-1]):
        if op.results and not any(list(r.uses) for r in op.results) and not has_side_effects(op):
            op.erase()
