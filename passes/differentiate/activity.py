"""Activity analysis: which values of a function need derivatives.

A value is *active* when it depends differentiably on a ``wrt`` input (it is
*varied*) and reaches a result (it is *useful*). Integer, index and boolean
values, and results of ops with the trait
:attr:`~tensorad.dialects.record.Trait.ZERO_DERIVATIVE`, are never varied.

Dependencies are a graph over every value of the function, nested regions
included: an ordinary op makes its results depend on its operands; ``scf``
ops route values through their regions (loop inits and yielded values flow
into iteration arguments and results, branch yields into results). Varied is
reachability from ``wrt``, useful is reachability backwards from the results.

The graph is conservative, so that no dependence goes unseen and no gradient
is silently zero (DESIGN.md, "Soundness rule"): any other op with regions
(``linalg.generic``, ``affine.for``, ``scf.forall``, ...) makes its results
depend on its operands *and* on every value its regions capture from above,
and an op without a derivative rule may write any memref it takes. Such an op
then has an active value and no rule, which the sweeps report as an error.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<2xf64> {
...   %0 = math.exp %y : tensor<2xf64>
...   %1 = arith.mulf %x, %0 : tensor<2xf64>
...   return %1 : tensor<2xf64>
... }''', make_context())
>>> block = m.body.operations[0].regions[0].blocks[0]
>>> active = active_values(block, [block.arguments[0]])
>>> block.arguments[1] in active
False
"""

from __future__ import annotations

from collections import defaultdict
from typing import Iterable

from mlir import ir

from tensorad.dialects.record import Trait, has_trait, record_of


def is_float_tensor(value: ir.Value) -> bool:
    """True for values whose element type is floating point or complex (the types with derivatives)."""
    t = value.type
    element = t.element_type if isinstance(t, ir.ShapedType) else t
    return isinstance(element, (ir.FloatType, ir.ComplexType))


def carries_derivative(value: ir.Value) -> bool:
    """False only for values inactive by type: integer, index and boolean ones.

    Values of any other type (floats, but also ``!async.value<...>``, vectors or
    types the differentiator does not know) may carry a dependence on the
    inputs, so activity flows through them.
    """
    t = value.type
    element = t.element_type if isinstance(t, ir.ShapedType) else t
    return not isinstance(element, (ir.IntegerType, ir.IndexType))


def _terminator(block: ir.Block) -> ir.Operation:
    return list(block.operations)[-1]


def captured_values(op: ir.Operation) -> list:
    """Values used inside ``op``'s regions but defined outside ``op``, in order of first use."""
    defined, used = set(), {}

    def visit(inner: ir.Operation):
        defined.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        for value in inner.operands:
            used.setdefault(value, None)
        return ir.WalkResult.ADVANCE

    for region in op.regions:
        for block in region.blocks:
            defined.update(block.arguments)
            for inner in block.operations:
                inner.walk(visit, ir.WalkOrder.PRE_ORDER)
    return [v for v in used if v not in defined]


def has_rule(op: ir.Operation) -> bool:
    """Whether the differentiator knows ``op``: it has a derivative rule or none is needed."""
    record = record_of(op)
    return record is not None and (Trait.ZERO_DERIVATIVE in record.traits
                                   or record.vjp is not None or record.jvp is not None)


def written_memrefs(op: ir.Operation) -> list:
    """The float memrefs ``op`` may write: any it takes, unless it has a rule (rules are pure)."""
    if has_rule(op):
        return []
    return [v for v in op.operands if isinstance(v.type, ir.MemRefType) and is_float_tensor(v)]


def dependency_graph(block) -> dict:
    """``value -> values that depend on it`` for every value in ``block`` and its regions.

    ``block`` is an ``ir.Block`` or a list of ops (a replayed loop body).
    """
    users: dict = defaultdict(list)

    def edge(source, target):
        users[source].append(target)

    def visit(op: ir.Operation):
        record = record_of(op)
        routed = record is not None and record.region_flow is not None
        if routed:
            record.region_flow(op, edge)
        # What a terminator yields is routed by its parent's region flow.
        if not (routed or has_trait(op, Trait.ZERO_DERIVATIVE) or has_trait(op, Trait.TERMINATOR)):
            sources = list(op.operands) + (captured_values(op) if op.regions else [])
            for source in sources:
                for target in list(op.results) + written_memrefs(op):
                    edge(source, target)
        return ir.WalkResult.ADVANCE

    for op in (block.operations if isinstance(block, ir.Block) else block):
        op.walk(visit, ir.WalkOrder.PRE_ORDER)
    return users


def reach(graph: dict, sources: Iterable, through=lambda value: True) -> set:
    """Values reachable from ``sources``, entering only values that pass ``through``."""
    seen, todo = set(), [v for v in sources if through(v)]
    while todo:
        value = todo.pop()
        if value in seen:
            continue
        seen.add(value)
        todo.extend(v for v in graph.get(value, ()) if through(v))
    return seen


def active_values(block: ir.Block, wrt: Iterable[ir.Value]) -> set:
    """The active values of ``block`` (nested regions included) for derivatives of its results."""
    graph = dependency_graph(block)
    varied = reach(graph, wrt, carries_derivative)
    reverse: dict = defaultdict(list)
    for source, targets in graph.items():
        for target in targets:
            reverse[target].append(source)
    useful = reach(reverse, _terminator(block).operands)
    return varied & useful
