"""Forward mode: give a ``tad.jvp`` declaration its body.

The body is a copy of the primal function in which every op with a nonzero
input tangent is followed by its tangent rule (the ``jvp`` of its record,
:func:`~tensorad.dialects.record.record_of`). Tangents are symbolic zeros
until some input tangent reaches them; zeros are materialized only for
results that need one.
Rules of ops with regions (``scf``) rebuild the op with tangent carries and
sweep its blocks with the same :class:`Forward` engine.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

from tensorad.dialects.builder import Val, wrap, zeros_like
from tensorad.dialects.derivatives import make_context
from tensorad.dialects.record import Trait, has_trait, record_of

from .activity import captured_values, carries_derivative, written_memrefs
from .signature import DerivativeError, derivative_type, shapes_of


class Forward:
    """Tangents of one function: ``value -> Val``, absent for a zero tangent.

    Attributes
    ----------
    tangents : dict
    prefix : tuple
        Batch prefix ``P`` of every tangent.
    derive : callable
        For rules of calls (see :mod:`tensorad.dialects.families.control_flow`).
    """

    def __init__(self, tangents: dict, prefix: tuple, derive):
        self.tangents, self.prefix, self.derive = tangents, prefix, derive

    def nested(self, extra: dict) -> "Forward":
        """An engine for a nested block: it sees the tangents known here, plus ``extra``."""
        return Forward({**self.tangents, **extra}, self.prefix, self.derive)

    def sweep(self, block: ir.Block) -> list:
        """Emit tangents through ``block``; return those of its terminator's operands."""
        ops = list(block.operations)
        self.sweep_ops(ops[:-1])
        return [self.tangents.get(v) for v in ops[-1].operands]

    def sweep_ops(self, ops) -> None:
        """Emit the tangents of ``ops``, each op's right after it."""
        for op in ops:
            inputs = [self.tangents.get(v) for v in op.operands]
            uses_tangents = any(t is not None for t in inputs) or (
                op.regions and any(v in self.tangents for v in captured_values(op)))
            if has_trait(op, Trait.ZERO_DERIVATIVE) or not uses_tangents:
                continue
            if not any(carries_derivative(r) for r in op.results) and not written_memrefs(op):
                continue  # e.g. float -> int conversions: piecewise constant
            record = record_of(op)
            rule = record.jvp if record is not None else None
            if rule is None and not any(_tangent_needed(r) for r in op.results):
                continue  # e.g. a tensor.extract that only feeds a comparison: no tangent is ever read
            if rule is None:
                raise DerivativeError(op.location, f"no forward-mode (jvp) rule for '{op.name}'")
            with ir.InsertionPoint.after(op), op.location, shapes_of(op, "jvp"):
                outputs = rule(make_context(op, len(self.prefix), self.derive, self), inputs)
            if outputs is None:  # a rule that rebuilt the op recorded the tangents itself
                continue
            for result, tangent in zip(op.results, outputs):
                if tangent is not None:
                    self.tangents[result] = wrap(tangent)


def _tangent_needed(value: ir.Value) -> bool:
    """Whether some user of ``value`` would read its tangent.

    Users with results, none of which carries a derivative, that write no
    memory and hold no regions (a comparison, a float-to-int conversion)
    never do; a terminator, a region op or any other op may.
    """
    if not carries_derivative(value):
        return False
    for use in value.uses:
        user = use.owner.operation
        if has_trait(user, Trait.ZERO_DERIVATIVE):
            continue
        if (len(user.results) and not user.regions and not written_memrefs(user)
                and not any(carries_derivative(r) for r in user.results)):
            continue
        return True
    return False


def build(fn: ir.Operation, request, prefix: tuple, derive) -> None:
    """Turn ``fn`` (a copy of the primal) into the jvp that ``request`` declares."""
    block = fn.regions[0].blocks[0]
    tangents = {}
    for i in request.wrt:
        arg = block.arguments[i]
        tangents[arg] = Val(block.add_argument(derivative_type(arg.type, prefix), fn.location))
    out_tangents = Forward(tangents, prefix, derive).sweep(block)
    terminator = list(block.operations)[-1]
    results = list(terminator.operands)
    with ir.InsertionPoint(terminator), fn.location:
        outputs = [t if t is not None else zeros_like(v, prefix) for t, v in zip(out_tangents, results)]
        func.ReturnOp(results + outputs)
    terminator.erase()
