"""Forward mode: give a ``tad.jvp`` declaration its body.

The body is a copy of the primal function in which every op with a nonzero
input tangent is followed by its tangent rule from
:data:`~.rules.JVP_RULES`. Tangents are symbolic zeros until some input
tangent reaches them; zeros are materialized only for results that need one.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import func

import tensorad.numpy as tnp
from tensorad.tracing import Tracer, emitting_at

from .activity import is_float_tensor
from .rules import JVP_RULES, ZERO_DERIVATIVE, make_context
from .signature import DerivativeError


def tangent_sweep(block: ir.Block, tangents: dict, nb: int, derive) -> list:
    """Propagate ``tangents`` (value -> Tracer) through ``block``; return the terminator operands' tangents."""
    ops = list(block.operations)
    for op, following in zip(ops[:-1], ops[1:]):
        inputs = [tangents.get(v) for v in op.operands]
        if op.name in ZERO_DERIVATIVE or all(t is None for t in inputs):
            continue
        if not any(is_float_tensor(r) for r in op.results):
            continue
        rule = JVP_RULES.get(op.name)
        if rule is None:
            raise DerivativeError(op.location, f"no forward-mode (jvp) rule for '{op.name}'")
        with ir.InsertionPoint(following), emitting_at(op.location):
            outputs = rule(make_context(op, nb, derive), inputs)
        for result, tangent in zip(op.results, outputs):
            if tangent is not None:
                tangents[result] = tangent
    return [tangents.get(v) for v in ops[-1].operands]


def build(fn: ir.Operation, request, prefix: tuple, derive) -> None:
    """Turn ``fn`` (a copy of the primal) into the jvp that ``request`` declares."""
    block = fn.regions[0].blocks[0]
    tangents = {}
    for i in request.wrt:
        arg = block.arguments[i]
        t = ir.RankedTensorType.get(list(prefix) + list(arg.type.shape), arg.type.element_type)
        tangents[arg] = Tracer.of(block.add_argument(t, fn.location))
    out_tangents = tangent_sweep(block, tangents, len(prefix), derive)
    terminator = list(block.operations)[-1]
    results = list(terminator.operands)
    with ir.InsertionPoint(terminator), emitting_at(fn.location):
        outputs = [t if t is not None else tnp.zeros(prefix + tuple(v.type.shape), Tracer.of(v).dtype)
                   for t, v in zip(out_tangents, results)]
        func.ReturnOp(results + [t.value for t in outputs])
    terminator.erase()
