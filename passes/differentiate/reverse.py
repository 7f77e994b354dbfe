"""Reverse mode: give a ``tad.vjp`` declaration its body.

The body is a copy of the primal function (the forward sweep; every forward
value the backward sweep reads stays available) followed by the backward
sweep: ops visited in reverse, each active op's adjoint rule (the ``vjp`` of
its record, :func:`~tensorad.dialects.record.record_of`) turning the
cotangents of its results into contributions to its operands' adjoints.
Adjoints are accumulated lazily: a value with no contribution has a symbolic
zero adjoint and nothing is materialized for it. Rules of ops with regions
(``scf``) run nested :class:`Backward` sweeps over their bodies.
"""

from __future__ import annotations

from typing import Callable, Iterable

from mlir import ir
from mlir.dialects import func

from tensorad.dialects.builder import Val, add, wrap, zeros_like
from tensorad.dialects.derivatives import make_context
from tensorad.dialects.record import Trait, has_trait, record_of

from .activity import active_values, carries_derivative, dependency_graph, reach
from .signature import DerivativeError, derivative_type, shapes_of


def _missing_rule(op: ir.Operation) -> DerivativeError:
    return DerivativeError(op.location,
                           f"no reverse-mode (vjp) rule for '{op.name}'; give the function that "
                           "uses it a custom derivative with tad.custom_vjp = @your_bwd")


class Backward:
    """Adjoints of the values of one function (or of one nested body).

    Attributes
    ----------
    adjoints : dict
        ``value -> Val``; absent for a zero adjoint.
    accept : callable
        ``accept(value)``: whether ``value`` takes adjoint contributions (active).
    prefix : tuple
        Batch prefix ``P`` of every cotangent.
    derive : callable
        For rules of calls (see :mod:`tensorad.dialects.families.control_flow`).
    """

    def __init__(self, accept: Callable, prefix: tuple, derive):
        self.adjoints: dict = {}
        self.accept, self.prefix, self.derive = accept, prefix, derive

    def nested(self, ops: list, sources: list, prefix: tuple | None = None) -> "Backward":
        """An engine for replayed ``ops`` (a body): only values that depend on ``sources`` take adjoints.

        ``sources`` are the active values the ops read (carries, captured
        values, a generic's operand elements). A float computed from integers
        alone (an ``arith.sitofp`` of a counter) has no derivative, whatever op
        made it, so no rule is asked for. ``prefix`` is the batch prefix of the
        cotangents in the body (this engine's unless given: ``()`` in a
        ``linalg.generic`` body, which sees one element at a time).
        """
        varied = reach(dependency_graph(ops), sources, carries_derivative)
        return Backward(varied.__contains__, self.prefix if prefix is None else prefix, self.derive)

    def accumulate(self, value: ir.Value, contribution) -> None:
        """Add ``contribution`` (a Val, or None for zero) to the adjoint of ``value``."""
        if contribution is None or not self.accept(value):
            return
        previous = self.adjoints.get(value)
        self.adjoints[value] = wrap(contribution) if previous is None else add(previous, contribution)

    def adjoint_or_zeros(self, value: ir.Value) -> Val:
        """The adjoint of ``value``, materializing zeros only when it is zero."""
        adjoint = self.adjoints.get(value)
        return adjoint if adjoint is not None else zeros_like(value, self.prefix)

    def sweep(self, ops: Iterable[ir.Operation]) -> None:
        """Emit the backward sweep of ``ops`` (in forward order) at the current insertion point."""
        for op in reversed(list(ops)):
            cotangents = [self.adjoints.get(r) for r in op.results]
            if has_trait(op, Trait.ZERO_DERIVATIVE) or all(ct is None for ct in cotangents):
                continue
            record = record_of(op)
            rule = record.vjp if record is not None else None
            if rule is None:
                raise _missing_rule(op)
            with op.location, shapes_of(op, "vjp"):
                contributions = rule(make_context(op, len(self.prefix), self.derive, self),
                                     cotangents)
                if not contributions:  # a rule that rebuilt the op accumulated by itself
                    continue
                for operand, contribution in zip(op.operands, contributions):
                    self.accumulate(operand, contribution)


def build(fn: ir.Operation, request, prefix: tuple, derive) -> None:
    """Turn ``fn`` (a copy of the primal) into the vjp that ``request`` declares."""
    block = fn.regions[0].blocks[0]
    ops = list(block.operations)
    terminator = ops[-1]
    results = list(terminator.operands)
    seeds = [Val(block.add_argument(derivative_type(r.type, prefix), fn.location)) for r in results]
    wrt = [block.arguments[i] for i in request.wrt]
    active = active_values(block, wrt)
    engine = Backward(active.__contains__, prefix, derive)
    with ir.InsertionPoint(terminator), fn.location:
        for value, seed in zip(results, seeds):
            engine.accumulate(value, seed)
        engine.sweep(ops[:-1])
        grads = [engine.adjoint_or_zeros(v) for v in wrt]
        # Rules of loops replace the forward loop: read the results back from the IR.
        func.ReturnOp(list(terminator.operands) + grads)
    terminator.erase()
