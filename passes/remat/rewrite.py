"""Make a function run a schedule: clone the ops recomputed before each stage.

A schedule is ``recompute``: ``stage -> nodes`` (see :mod:`.cost`). Before the
ops of node ``t`` it inserts copies of the ops of every node in
``recompute[t]`` (in program order), and from there on every read of such a
node (also reads nested in loop bodies, and the function's results) takes the
newest copy, so the older one dies after its last read before it.

Examples
--------
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> str(module).count("tad.dot_general")
11
>>> apply(graph, {17: [0, 1]})  # the first layer again, before stage 17
>>> str(module).count("tad.dot_general")
12
"""

from __future__ import annotations

from mlir import ir


def _gather_groups(graph) -> None:
    """Move fused producers next to their root, so each node's ops are contiguous."""
    for node in graph.nodes:
        for op in node.ops[:-1]:
            op.move_before(node.root)


def _rewire(op: ir.Operation, newest: dict) -> None:
    """Point ``op``'s operands (and those of ops nested in it) at the newest copies."""
    for k, value in enumerate(op.operands):
        replacement = newest.get(value)
        if replacement is not None:
            op.operands[k] = replacement
    for region in op.regions:
        for block in region.blocks:
            for nested in block.operations:
                _rewire(nested.operation, newest)


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
    for stage, node in enumerate(graph.nodes):
        anchor = ir.InsertionPoint(node.ops[0])
        for again in sorted(recompute.get(stage, ())):
            copies: dict = {}
            for op in graph.nodes[again].ops:
                clone = op.clone(ip=anchor)
                _rewire(clone, {**newest, **copies})
                copies.update(zip(op.results, clone.results))
            newest.update(copies)
        for op in node.ops:
            _rewire(op, newest)
        for result in node.root.results:
            newest.pop(result, None)
    terminator = list(graph.block.operations)[-1].operation
    _rewire(terminator, newest)
