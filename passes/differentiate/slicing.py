"""Derivative rules of the ``tensor`` ops: slices, casts and reshapes.

Offsets may be dynamic (loop rows: ``scan`` and loop tapes); sizes and
strides are static. A batch prefix ``P`` adds leading dimensions taken whole.

Examples
--------
>>> "tensor.insert_slice" in VJP_RULES and "tensor.extract_slice" in JVP_RULES
True
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

import tensorad.numpy as tnp
from tensorad.tracing import Tracer

from .rules import JVP_RULES, VJP_RULES
from .signature import DerivativeError

_DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset


def _geometry(op: ir.Operation, first_offset: int, prefix: tuple):
    """Offsets (dynamic values), static offsets, sizes and strides, widened by ``prefix``."""
    a = op.attributes
    sizes, strides = list(a["static_sizes"]), list(a["static_strides"])
    if _DYNAMIC() in strides or ir.ShapedType.get_dynamic_size() in sizes:
        raise DerivativeError(op.location, f"'{op.name}' with dynamic sizes or strides has no rule")
    k = len(prefix)
    return (list(op.operands)[first_offset:], [0] * k + list(a["static_offsets"]),
            list(prefix) + sizes, [1] * k + strides)


def _extract(source: Tracer, like: ir.Type, op: ir.Operation, first_offset: int, prefix: tuple):
    offsets, static_offsets, sizes, strides = _geometry(op, first_offset, prefix)
    t = ir.RankedTensorType.get(list(prefix) + list(like.shape), like.element_type)
    return Tracer.of(tensor.ExtractSliceOp(t, source.value, offsets, [], [], static_offsets,
                                           sizes, strides).result)


def _insert(piece: Tracer, into: Tracer, op: ir.Operation, first_offset: int, prefix: tuple):
    offsets, static_offsets, sizes, strides = _geometry(op, first_offset, prefix)
    return Tracer.of(tensor.InsertSliceOp(piece.value, into.value, offsets, [], [],
                                          static_offsets, sizes, strides).result)


def _prefix(c, like: Tracer) -> tuple:
    return like.shape[:c.nb]


def _extract_jvp(c, tangents):
    t = tangents[0]
    if t is None:
        return [None]
    return [_extract(t, c.op.results[0].type, c.op, 1, _prefix(c, t))]


def _extract_vjp(c, cotangents):
    (ct,) = cotangents
    prefix = _prefix(c, ct)
    source = c.inputs[0]
    zeros = tnp.zeros(prefix + source.shape, source.dtype)
    return [_insert(ct, zeros, c.op, 1, prefix)] + [None] * (len(c.inputs) - 1)


def _insert_jvp(c, tangents):
    t_piece, t_into = tangents[0], tangents[1]
    if t_piece is None and t_into is None:
        return [None]
    like = t_piece if t_piece is not None else t_into
    prefix = _prefix(c, like)
    piece, into = c.inputs[0], c.inputs[1]
    t_piece = t_piece if t_piece is not None else tnp.zeros(prefix + piece.shape, piece.dtype)
    t_into = t_into if t_into is not None else tnp.zeros(prefix + into.shape, into.dtype)
    return [_insert(t_piece, t_into, c.op, 2, prefix)]


def _insert_vjp(c, cotangents):
    (ct,) = cotangents
    prefix = _prefix(c, ct)
    piece = c.inputs[0]
    ct_piece = _extract(ct, c.op.operands[0].type, c.op, 2, prefix)
    ct_into = _insert(tnp.zeros(prefix + piece.shape, piece.dtype), ct, c.op, 2, prefix)
    return [ct_piece, ct_into] + [None] * (len(c.inputs) - 2)


def _cast(value: Tracer, like: ir.Type, prefix: tuple) -> Tracer:
    t = ir.RankedTensorType.get(list(prefix) + list(like.shape), like.element_type)
    return Tracer.of(tensor.CastOp(t, value.value).result)


JVP_RULES["tensor.cast"] = lambda c, ts: [None if ts[0] is None else _cast(
    ts[0], c.op.results[0].type, _prefix(c, ts[0]))]
VJP_RULES["tensor.cast"] = lambda c, cts: [_cast(cts[0], c.op.operands[0].type, _prefix(c, cts[0]))]
def _reshaped(value: Tracer, like: ir.Value, c) -> Tracer:
    return tnp.reshape(value, _prefix(c, value) + tuple(like.type.shape))


for _name in ("tensor.collapse_shape", "tensor.expand_shape"):
    # Row-major reshapes: the tangent and the cotangent are reshaped the same way.
    JVP_RULES[_name] = lambda c, ts: [None if ts[0] is None else _reshaped(ts[0], c.op.results[0], c)]
    VJP_RULES[_name] = lambda c, cts: [_reshaped(cts[0], c.op.operands[0], c)] + \
        [None] * (len(c.inputs) - 1)

JVP_RULES["tensor.extract_slice"], VJP_RULES["tensor.extract_slice"] = _extract_jvp, _extract_vjp
JVP_RULES["tensor.insert_slice"], VJP_RULES["tensor.insert_slice"] = _insert_jvp, _insert_vjp
