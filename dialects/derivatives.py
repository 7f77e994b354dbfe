"""How derivative rules are written and registered (after JAX's ``ad.py``).

A rule receives a :class:`RuleContext` (the op, its primal operands and
results as :class:`~tensorad.dialects.builder.Val`, the rank ``nb`` of the
batch prefix of the (co)tangents) and the (co)tangents, and builds its result
with :mod:`tensorad.dialects.builder`, so it reads like the math. A
(co)tangent may carry a leading batch prefix of rank ``c.nb`` (shape
``P + value shape``); the builder's broadcasting aligns trailing dimensions,
so elementwise rules need nothing special for it, and structural rules shift
their dimension numbers with :meth:`RuleContext.batched`. ``None`` stands for
a symbolic zero (co)tangent.

Two shorthands register both modes at once, through the op's family:

* :func:`defelementwise` gives the partial derivative of an elementwise op with
  respect to each operand (``t * d`` forward, ``ct * d`` backward). A partial
  of ``1`` or ``-1`` adds no multiplication.
* :func:`deflinear` gives the two halves of a linear op: apply it to a tangent,
  and transpose it onto a cotangent; :func:`defcast` is its case for ops
  that convert elements to another type.

Ops whose results do not depend differentiably on their operands carry
:attr:`~tensorad.dialects.record.Trait.ZERO_DERIVATIVE` instead of rules.

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> rec = record_of("math.exp")
>>> rec.jvp is not None and rec.vjp is not None
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

from mlir import ir

from . import builder
from .builder import Val
from .record import Family
from .shapes import python_attrs


@dataclass
class RuleContext:
    """What a rule sees of the op it differentiates.

    Attributes
    ----------
    op : mlir.ir.Operation
    inputs, outputs : list of Val or None
        The primal operands and results; None for values that are neither
        ranked tensors nor scalars (memrefs, tokens).
    nb : int
        Rank of the batch prefix ``P`` of the (co)tangents.
    attrs : dict
        The op's attributes as Python values (:func:`~tensorad.dialects.shapes.python_attrs`).
    derive : callable, optional
        ``derive(kind, callee, wrt, prefix) -> (symbol, function type)``: the
        derivative of another function, for rules of calls.
    engine : object, optional
        The sweep running the rule, for ops with regions.
    """

    op: ir.Operation
    inputs: list
    outputs: list
    nb: int
    attrs: dict = field(default_factory=dict)
    derive: Optional[Callable] = None
    engine: object = None

    def batched(self, dims: Sequence[int]) -> list:
        """Dimension numbers of an unbatched value shifted past the batch prefix."""
        return list(range(self.nb)) + [d + self.nb for d in dims]

    def batched_shape(self, like: Val, shape: Sequence[int]) -> tuple:
        """``shape`` behind the batch prefix of ``like`` (a (co)tangent)."""
        return tuple(like.shape[:self.nb]) + tuple(shape)

    def zeros_like_input(self, i: int, like: Val) -> Val:
        """Zeros of the batched shape of operand ``i``; ``like`` supplies the batch prefix."""
        return builder.zeros_like(self.inputs[i], like.shape[:self.nb])


Partial = Callable[[RuleContext], object]


def _tensor_or_none(value: ir.Value) -> Optional[Val]:
    scalar = isinstance(value.type, (ir.FloatType, ir.IntegerType, ir.IndexType))
    return Val(value) if scalar or isinstance(value.type, ir.RankedTensorType) else None


def make_context(op: ir.Operation, nb: int, derive: Optional[Callable] = None,
                 engine: object = None) -> RuleContext:
    """The :class:`RuleContext` of ``op`` with a batch prefix of rank ``nb``.

    Operands and results that are neither tensors nor scalars are None.
    """
    return RuleContext(op, [_tensor_or_none(v) for v in op.operands],
                       [_tensor_or_none(v) for v in op.results], nb, python_attrs(op), derive, engine)


def scale(value: Val, partial) -> Val:
    """``value * partial``, without a multiplication when ``partial`` is the number 1 or -1."""
    if isinstance(partial, (int, float)) and partial == 1:
        return value
    if isinstance(partial, (int, float)) and partial == -1:
        return builder.negative(value)
    return value * partial


def sum_contributions(terms) -> Optional[Val]:
    """The sum of the terms that are not None (symbolic zeros); None when all are."""
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    total = terms[0]
    for t in terms[1:]:
        total = total + t
    return total


def defelementwise(family: Family, name: str, *partials: Optional[Partial]) -> None:
    """Register an elementwise op of ``family`` by its partial derivatives, one per operand.

    ``None`` marks an operand that the result does not depend on
    differentiably (the condition of ``arith.select``, the sign operand of
    ``math.copysign``): its (co)tangent is a symbolic zero.

    Examples
    --------
    >>> from tensorad.dialects.record import Family, forget
    >>> demo = Family("demo_elementwise")
    >>> _ = demo.upstream("math.demo_exp")
    >>> defelementwise(demo, "math.demo_exp", lambda c: c.outputs[0])
    >>> forget("math.demo_exp")
    """

    def jvp(c: RuleContext, tangents: list) -> list:
        return [sum_contributions(
            scale(t, p(c)) for t, p in zip(tangents, partials) if t is not None and p is not None)]

    def vjp(c: RuleContext, cotangents: list) -> list:
        (ct,) = cotangents
        return [None if p is None else scale(ct, p(c)) for p in partials]

    family.jvp(name)(jvp)
    family.vjp(name)(vjp)


def deflinear(family: Family, name: str, apply: Callable, transpose: Callable) -> None:
    """Register a linear op of ``family``: ``apply(c, tangents) -> tangent`` and ``transpose(c, ct) -> cts``.

    ``apply`` receives the tangents of all operands (``None`` for zero ones)
    and ``transpose`` returns one cotangent per operand.
    """
    family.jvp(name)(lambda c, tangents: [apply(c, tangents)])
    family.vjp(name)(lambda c, cotangents: transpose(c, cotangents[0]))


def defcast(family: Family, name: str) -> None:
    """Register a one-operand op of ``family`` that converts its elements to another type.

    Its derivative is the same conversion: a tangent is converted to the
    result's element type, a cotangent back to the operand's.

    Examples
    --------
    >>> from tensorad.dialects.record import Family, forget
    >>> demo = Family("demo_cast")
    >>> _ = demo.upstream("arith.demo_extf")
    >>> defcast(demo, "arith.demo_extf")
    >>> forget("arith.demo_extf")
    """
    deflinear(family, name, lambda c, tangents: tangents[0].astype(c.outputs[0].element_type),
              lambda c, ct: [ct.astype(c.inputs[0].element_type)])
