"""Derivative rules of the ``tensor`` ops with a region: ``tensor.generate`` and ``tensor.pad``.

``tensor.generate`` computes each element of its result from the element's
indices and from values captured from above. Forward mode generates the
tangent the same way: a ``tensor.generate`` whose body is a copy of the body
followed by its forward sweep (with a batch prefix an element's tangent is a
tensor, so a loop nest writes each element's tangent row instead). Reverse
mode visits every element in a loop nest: it replays the body at the
element's indices, sweeps it backwards from the element's cotangent, and adds
what reaches the captured values to their adjoints, which the loops carry. A
gathered element (``tensor.extract`` of a captured tensor, whose adjoint is a
scatter into zeros) is added in place: one read and one write per element.

``tensor.pad`` is linear in its source and its padding value, which must be
the same at every position: a value captured from above, or one the region
computes from values without derivatives.

The rules are registered on the records of
:mod:`tensorad.dialects.families.structure` through its :data:`family`.

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> record_of("tensor.generate").vjp is _generate_vjp and record_of("tensor.pad").jvp is _pad_jvp
True
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, scf, tensor

from tensorad.dialects import builder as tad_ops
from tensorad.dialects.builder import Val, zeros_like
from tensorad.dialects.families.structure import family
from tensorad.passes.walk import copy_body, defined_outside

from .activity import captured_values
from .signature import DerivativeError


def _index(n: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), n).result


def _extents(op: ir.Operation) -> list:
    """The sizes of ``tensor.generate``'s result as index values (its operands are the dynamic ones)."""
    dynamic = iter(op.operands)
    return [next(dynamic) if ir.ShapedType.is_dynamic_size(n) else _index(n)
            for n in op.results[0].type.shape]


def _for_each_element(extents: list, carries: list, step: Callable, indices: tuple = ()) -> list:
    """A row-major ``scf.for`` nest over ``extents``: ``step(indices, carries) -> carries`` per element."""
    if len(indices) == len(extents):
        return step(list(indices), carries)
    loop = scf.ForOp(_index(0), extents[len(indices)], _index(1), carries)
    with ir.InsertionPoint(loop.body):
        scf.YieldOp(_for_each_element(extents, list(loop.inner_iter_args), step,
                                      indices + (loop.induction_variable,)))
    return list(loop.results)


# ----------------------------------------------------------------------------
# tensor.generate
# ----------------------------------------------------------------------------

def _element_tangent(op: ir.Operation, fw, indices: list) -> Val:
    """Replay ``op``'s body at ``indices`` with its forward sweep; the tangent of the element it yields."""
    ops, yielded = copy_body(op, indices)
    # Rules of region ops in the body replace those ops' results: read the
    # yielded value back from a use after the sweep.
    holder = ir.Operation.create("tensor.yield", operands=[yielded[0]])
    inner = fw.nested({})
    inner.sweep_ops(ops)
    value = holder.operands[0]
    holder.erase()
    tangent = inner.tangents.get(value)
    return tangent if tangent is not None else zeros_like(value, fw.prefix)


def _generate_jvp(c, tangents):
    op, fw = c.op, c.engine
    result = op.results[0]
    if not fw.prefix:
        new = tensor.GenerateOp(result.type, list(op.operands))
        block = new.regions[0].blocks.append(*[ir.IndexType.get()] * result.type.rank)
        with ir.InsertionPoint(block):
            tensor.YieldOp(_element_tangent(op, fw, list(block.arguments)))
        return [Val(new.result)]
    nb = len(fw.prefix)

    def step(indices, carries):
        return [tad_ops.with_element(carries[0], _element_tangent(op, fw, indices), indices, nb)]

    return [Val(_for_each_element(_extents(op), [zeros_like(result, fw.prefix)], step)[0])]


def _zero_splat(value: ir.Value) -> bool:
    attr = tad_ops.splat_value(value)
    return attr is not None and attr.value == 0


def _scattered(total: Val, contribution: ir.Value, dead: list, users: int = 0) -> Val:
    """``total + contribution``, adding scatters into zeros (gathers' adjoints) in place.

    A contribution that is a sum is added term by term. Only values with no
    more than ``users`` uses (the sum being split) are split; the ops replaced
    by in-place additions are appended to ``dead``.
    """
    owner = contribution.owner
    if not isinstance(owner, (ir.Operation, ir.OpView)) or len(list(contribution.uses)) > users:
        return total + contribution
    if owner.name == "arith.addf" and owner.operands[0].type == owner.operands[1].type == total.type:
        dead.append(owner)
        return _scattered(_scattered(total, owner.operands[0], dead, 1), owner.operands[1], dead, 1)
    if owner.name == "tensor.insert" and _zero_splat(owner.operands[1]):
        dead.append(owner)
        indices = list(owner.operands[2:])
        return tad_ops.with_element(total, tad_ops.element(total, indices) + owner.operands[0], indices)
    if owner.name == "tensor.insert_slice" and _zero_splat(owner.operands[1]):
        dead.append(owner)
        piece = owner.operands[0]
        geometry = list(owner.operands[2:])  # the dynamic offsets, sizes and strides
        segments = list(ir.DenseI32ArrayAttr(owner.attributes["operandSegmentSizes"]))
        attributes = {name: owner.attributes[name] for name in ("static_offsets", "static_sizes", "static_strides")}
        read = ir.Operation.create("tensor.extract_slice", results=[piece.type], operands=[total] + geometry,
                                   attributes={**attributes, "operandSegmentSizes": ir.DenseI32ArrayAttr.get(
                                       [1] + segments[2:])}).result
        added = tad_ops.add(read, piece)
        written = owner.clone()
        written.operands[0] = added
        written.operands[1] = total
        return Val(written.result)
    return total + contribution


def _generate_vjp(c, cotangents):
    op, bw = c.op, c.engine
    (ct,) = cotangents
    outer = [v for v in captured_values(op) if bw.accept(v)]
    if not outer:
        return []
    nb = len(bw.prefix)

    def step(indices, sums):
        ops, yielded = copy_body(op, indices)
        nested = bw.nested(ops, outer)  # a float made from the indices alone has no derivative
        nested.accumulate(yielded[0], tad_ops.element(ct, indices, nb))
        nested.sweep(ops)
        dead = []
        sums = [Val(s) if v not in nested.adjoints else _scattered(Val(s), nested.adjoints[v], dead)
                for s, v in zip(sums, outer)]
        for replaced in dead:  # users first
            if not any(list(r.uses) for r in replaced.results):
                replaced.erase()
        return sums

    sums = _for_each_element(_extents(op), [zeros_like(v, bw.prefix) for v in outer], step)
    for value, adjoint in zip(outer, sums):
        bw.accumulate(value, Val(adjoint))
    return []


family.jvp("tensor.generate")(_generate_jvp)
family.vjp("tensor.generate")(_generate_vjp)


# ----------------------------------------------------------------------------
# tensor.pad
# ----------------------------------------------------------------------------

def _padding_value(op: ir.Operation, carries: Callable):
    """The padding value of a ``tensor.pad`` when its derivative may be nonzero, else None.

    ``carries(value)`` tells whether a value has a (co)tangent. A padding
    value computed inside the region from such values (perhaps a different
    one at every position) is refused.
    """
    value = list(op.regions[0].blocks[0].operations)[-1].operands[0]
    if defined_outside(value, op):
        return value
    if any(carries(v) for v in captured_values(op)):
        raise DerivativeError(op.location, "no derivative rule for 'tensor.pad' whose padding value is "
                              "computed inside its region from values with derivatives: compute it "
                              "before the pad and yield it unchanged")
    return None


def _pads(op: ir.Operation) -> tuple:
    """``(low, high)`` of a ``tensor.pad``: ints and index values."""
    dynamic = iter(list(op.operands)[1:])

    def mixed(name: str) -> list:
        return [next(dynamic) if ir.ShapedType.is_dynamic_size(n) else n
                for n in ir.DenseI64ArrayAttr(op.attributes[name])]

    low = mixed("static_low")
    return low, mixed("static_high")


def _batched_type(t: ir.Type, prefix: tuple) -> ir.Type:
    return ir.RankedTensorType.get(list(prefix) + list(t.shape), t.element_type)


def _pad_jvp(c, tangents):
    op, fw = c.op, c.engine
    value = _padding_value(op, fw.tangents.__contains__)
    t_x, t_v = tangents[0], (None if value is None else fw.tangents.get(value))
    if t_x is None and t_v is None:
        return [None]
    source, result = op.operands[0], op.results[0]
    low, high = _pads(op)
    if t_x is None:
        t_x = zeros_like(source, fw.prefix)
    if not fw.prefix:
        return [tad_ops.pad_edges(t_x, 0.0 if t_v is None else t_v, low, high, result.type)]
    nb = len(fw.prefix)
    out = tad_ops.pad_edges(t_x, 0.0, [0] * nb + low, [0] * nb + high, _batched_type(result.type, fw.prefix))
    if t_v is not None:  # a tangent per row of the prefix: spread it where the padding is
        where = tad_ops.pad_edges(zeros_like(source), 1.0, low, high, result.type)
        out = out + tad_ops.reshape(t_v, fw.prefix + (1,) * result.type.rank) * where
    return [out]


def _pad_vjp(c, cotangents):
    op, bw = c.op, c.engine
    (ct,) = cotangents
    value = _padding_value(op, bw.accept)
    source = op.operands[0]
    nb = len(bw.prefix)
    low, _ = _pads(op)
    sizes = [tensor.DimOp(source, _index(d)).result if ir.ShapedType.is_dynamic_size(n) else n
             for d, n in enumerate(source.type.shape)]
    ct_x = tad_ops.extract_slice(ct, _batched_type(source.type, bw.prefix), [0] * nb + low,
                                 list(bw.prefix) + sizes, [1] * ct.ndim)
    if value is not None and bw.accept(value):
        inner = range(nb, ct.ndim)
        ct_v = tad_ops.sum(ct, inner) - tad_ops.sum(ct_x, inner)  # the padded positions' part
        bw.accumulate(value, ct_v if nb else tad_ops.element(ct_v, []))
    return [ct_x] + [None] * (len(op.operands) - 1)


family.jvp("tensor.pad")(_pad_jvp)
family.vjp("tensor.pad")(_pad_vjp)
