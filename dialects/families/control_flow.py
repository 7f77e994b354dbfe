"""Control flow and calls: ``scf`` loops and branches, their terminators, ``func.call`` and ``func.return``.

Upstream declares these ops; their records here hold traits and the
derivative rules of calls. The derivative rules of the ``scf`` ops drive
the differentiator's sweeps over their regions (activity analysis, tapes,
Revolve schedules), so :mod:`tensorad.passes.differentiate.control_flow`
registers them on these records through :data:`family`.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("scf.for", Trait.PURE_IF_BODY_PURE), has_trait("scf.yield", Trait.TERMINATOR)
(True, True)
>>> record_of("func.call").vjp is not None
True
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from .. import builder
from ..derivatives import RuleContext
from ..record import Family, Trait, allocation_bytes, region_flops, region_scratch_bytes

family = Family("control_flow")

# Structured control flow is pure when everything inside it is (its terminators aside).
for _name in ("scf.for", "scf.while"):
    family.upstream(_name, traits=(Trait.PURE_IF_BODY_PURE, Trait.LOOP))
for _name in ("scf.if", "scf.execute_region"):
    family.upstream(_name, traits=(Trait.PURE_IF_BODY_PURE,))
for _name in ("scf.yield", "scf.condition", "func.return"):
    family.upstream(_name, traits=(Trait.TERMINATOR,))
# A call may have side effects: it is neither merged nor erased, nor recomputed.
for _name in ("func.call", "func.call_indirect"):
    family.upstream(_name, traits=(Trait.SIDE_EFFECTS,))


def _terminator(block: ir.Block) -> ir.Operation:
    return list(block.operations)[-1]


@family.region_flow("scf.for")
def _for_flow(op: ir.Operation, edge) -> None:
    """Each init and yielded value flows to its iteration argument and its result."""
    body = op.regions[0].blocks[0]
    inits, carries = list(op.operands)[3:], list(body.arguments)[1:]
    for init, carry, result, yielded in zip(inits, carries, op.results, _terminator(body).operands):
        edge(init, carry), edge(yielded, carry), edge(yielded, result), edge(init, result)


@family.region_flow("scf.if", "scf.execute_region")
def _branch_flow(op: ir.Operation, edge) -> None:
    """What each region yields flows to the results."""
    for region in op.regions:
        if region.blocks:
            for yielded, result in zip(_terminator(region.blocks[0]).operands, op.results):
                edge(yielded, result)


@family.region_flow("scf.while")
def _while_flow(op: ir.Operation, edge) -> None:
    """Inits and the after-region's yields flow to the before-region; what it forwards, to the after-region and the results."""
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    for init, arg, yielded in zip(op.operands, before.arguments, _terminator(after).operands):
        edge(init, arg), edge(yielded, arg)
    forwarded = list(_terminator(before).operands)[1:]
    for value, arg, result in zip(forwarded, after.arguments, op.results):
        edge(value, arg), edge(value, result)


@family.flops("scf.for")
def _for_flops(op: ir.Operation) -> int:
    """Trip count times the body, when the bounds are constants (once otherwise)."""
    bounds = []
    for value in list(op.operands)[:3]:
        owner = value.owner
        if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant":
            return region_flops(op.regions[0])
        bounds.append(ir.IntegerAttr(owner.operation.attributes["value"]).value)
    lower, upper, step = bounds
    return max(0, -(-(upper - lower) // step)) * region_flops(op.regions[0])


@family.scratch("scf.for", "scf.while")
def _loop_scratch(op: ir.Operation) -> int:
    """What one iteration holds at once, and a second copy of every carried value.

    An iteration's regions allocate what :func:`region_scratch_bytes` counts;
    a carried value the body still reads when it writes the next one is
    copied by bufferization, so the carries may be live twice (the loop's
    results, counted as its own bytes, and the copy).
    """
    return sum(region_scratch_bytes(region) for region in op.regions) + \
        sum(allocation_bytes(result.type) for result in op.results)


# ----------------------------------------------------------------------------
# Calls: differentiate the callee once, call its derivative
# ----------------------------------------------------------------------------

def _call(callee: str, operands: list, result_types: list) -> list:
    op = ir.Operation.create("func.call", results=result_types, operands=list(operands),
                             attributes={"callee": ir.FlatSymbolRefAttr.get(callee)})
    return [builder.Val(r) for r in op.results]


def _zero_seed(y: builder.Val, prefix: tuple) -> builder.Val:
    """A zero cotangent, batched by ``prefix``, for the result ``y`` of a call.

    The callee's vjp takes one for each result and ignores those of integer
    results (``index``, ``i1``): ``arith.constant`` makes them, as
    ``tad.constant`` holds floats and fixed-width integers only.
    """
    shape = tuple(prefix) + y.shape
    if y.is_float or y.is_complex or ir.ShapedType.get_dynamic_size() in shape:
        return builder.zeros_like(y, prefix)
    zero = builder.scalar_attr(0, y.element_type)
    if not shape and not isinstance(y.type, ir.ShapedType):
        return builder.Val(arith.ConstantOp(y.element_type, zero).result)
    t = ir.RankedTensorType.get(list(shape), y.element_type)
    return builder.Val(arith.ConstantOp(t, ir.DenseElementsAttr.get_splat(t, zero)).result)


def _float_inputs(c: RuleContext, selected) -> tuple:
    return tuple(i for i, x in enumerate(c.inputs) if (x.is_float or x.is_complex) and selected(i))


@family.jvp("func.call")
def _call_jvp(c: RuleContext, tangents: list) -> list:
    wrt = _float_inputs(c, lambda i: tangents[i] is not None)
    prefix = tangents[wrt[0]].shape[:c.nb]
    name, ftype = c.derive("jvp", c.op.attributes["callee"].value, wrt, prefix)
    outs = _call(name, c.inputs + [tangents[i] for i in wrt], list(ftype.results))
    # Integer results (a count, a flag) have no tangent: None keeps them inactive downstream.
    return [t if y.is_float or y.is_complex else None for t, y in zip(outs[len(c.outputs):], c.outputs)]


@family.vjp("func.call")
def _call_vjp(c: RuleContext, cotangents: list) -> list:
    like = next(ct for ct in cotangents if ct is not None)
    prefix = like.shape[:c.nb]
    wrt = _float_inputs(c, lambda i: True)
    name, ftype = c.derive("vjp", c.op.attributes["callee"].value, wrt, prefix)
    seeds = [ct if ct is not None else _zero_seed(y, prefix) for ct, y in zip(cotangents, c.outputs)]
    grads = iter(_call(name, c.inputs + seeds, list(ftype.results))[len(c.outputs):])
    return [next(grads) if i in wrt else None for i in range(len(c.inputs))]
