"""Reverse mode: give a ``tad.vjp`` declaration its body.

The body is a copy of the primal function (the forward sweep; every forward
value the backward sweep reads stays available, see :mod:`.residuals`)
followed by the backward sweep: ops visited in reverse, each active op's
adjoint rule from :data:`~.rules.VJP_RULES` turning the cotangents of its
results into contributions to its operands' adjoints. Adjoints are
accumulated lazily: a value with no contribution has a symbolic zero adjoint
and nothing is materialized for it.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

import tensorad.numpy as tnp
from tensorad.tracing import Tracer, emitting_at

from .activity import active_values
from .rules import VJP_RULES, make_context
from .signature import DerivativeError


def _missing_rule(op: ir.Operation) -> DerivativeError:
    return DerivativeError(op.location,
                           f"no reverse-mode (vjp) rule for '{op.name}'; give the function that "
                           "uses it a custom derivative with tad.custom_vjp = @your_bwd")


def backward_sweep(block: ir.Block, wrt: list, seeds: list, nb: int, derive) -> list:
    """Emit the backward sweep of ``block`` before its terminator.

    Parameters
    ----------
    block : mlir.ir.Block
        Holds the forward sweep; its terminator's operands are the results.
    wrt : list of mlir.ir.Value
        Values whose adjoints are wanted.
    seeds : list of Tracer
        One cotangent per terminator operand.
    nb : int
        Rank of the cotangents' batch prefix.
    derive : callable
        ``derive(kind, callee, wrt, nb) -> symbol`` for rules that need the
        derivative of another function (``func.call``).

    Returns
    -------
    list of Tracer or None
        The adjoint of each ``wrt`` value; None where it is zero.
    """
    ops = list(block.operations)
    terminator = ops[-1]
    active = active_values(block, wrt)
    adjoints: dict = {}

    def accumulate(value: ir.Value, contribution) -> None:
        if contribution is None or value not in active:
            return
        previous = adjoints.get(value)
        adjoints[value] = contribution if previous is None else tnp.add(previous, contribution)

    with ir.InsertionPoint(terminator):
        for value, seed in zip(terminator.operands, seeds):
            accumulate(value, seed)
        for op in reversed(ops[:-1]):
            cotangents = [adjoints.get(r) for r in op.results]
            if all(ct is None for ct in cotangents):
                continue
            rule = VJP_RULES.get(op.name)
            if rule is None:
                raise _missing_rule(op)
            with emitting_at(op.location):
                contributions = rule(make_context(op, nb, derive), cotangents)
                for operand, contribution in zip(op.operands, contributions):
                    accumulate(operand, contribution)
    return [adjoints.get(v) for v in wrt]


def build(fn: ir.Operation, request, prefix: tuple, derive) -> None:
    """Turn ``fn`` (a copy of the primal) into the vjp that ``request`` declares."""
    block = fn.regions[0].blocks[0]
    terminator = list(block.operations)[-1]
    results = list(terminator.operands)
    seeds = [Tracer.of(block.add_argument(ir.RankedTensorType.get(
        list(prefix) + list(r.type.shape), r.type.element_type), fn.location)) for r in results]
    wrt = [block.arguments[i] for i in request.wrt]
    with emitting_at(fn.location):  # where the seeds of returned block arguments add up
        grads = backward_sweep(block, wrt, seeds, len(prefix), derive)
    with ir.InsertionPoint(terminator), emitting_at(fn.location):
        outputs = [g if g is not None else tnp.zeros(prefix + tuple(v.type.shape),
                                                      Tracer.of(v).dtype)
                   for g, v in zip(grads, wrt)]
        func.ReturnOp(results + [g.value for g in outputs])
    terminator.erase()
