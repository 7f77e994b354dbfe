"""Derivative rules of the ``tensor`` ops: slices, casts and reshapes.

Offsets, sizes and strides may be dynamic (loop rows of ``scan`` and the
growing tapes of reversed while loops, which forward mode meets in a
jvp of a grad). A batch prefix ``P`` adds leading dimensions taken whole.
Slices with no elements are built by :func:`tensorad.dialects.builder.extract_slice`
and :func:`~tensorad.dialects.builder.insert_slice`, which leave them out.

Examples
--------
>>> "tensor.insert_slice" in VJP_RULES and "tensor.extract_slice" in JVP_RULES
True
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import tensor

import tensorad.numpy as tnp
from tensorad.dialects import builder as tad_ops
from tensorad.tracing import Tracer

from .forward import zeros_like
from .rules import JVP_RULES, VJP_RULES


def _geometry(op: ir.Operation, first_offset: int, prefix: tuple) -> tuple:
    """Offsets, sizes and strides of ``op`` (ints and index values), widened by ``prefix``."""
    a = op.attributes
    dynamic_values = iter(list(op.operands)[first_offset:])  # offsets, then sizes, then strides

    def mixed(name: str) -> list:
        return [next(dynamic_values) if ir.ShapedType.is_dynamic_size(n) else n for n in a[name]]

    offsets, sizes, strides = mixed("static_offsets"), mixed("static_sizes"), mixed("static_strides")
    k = len(prefix)
    return [0] * k + offsets, list(prefix) + sizes, [1] * k + strides


def _extract(source: Tracer, like: ir.Type, op: ir.Operation, first_offset: int, prefix: tuple):
    t = ir.RankedTensorType.get(list(prefix) + list(like.shape), like.element_type)
    return Tracer.of(tad_ops.extract_slice(source.value, t, *_geometry(op, first_offset, prefix)))


def _insert(piece: Tracer, into: Tracer, op: ir.Operation, first_offset: int, prefix: tuple):
    return Tracer.of(tad_ops.insert_slice(piece.value, into.value,
                                          *_geometry(op, first_offset, prefix)))


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
    zeros = zeros_like(c.op.operands[0], prefix)
    return [_insert(ct, zeros, c.op, 1, prefix)] + [None] * (len(c.inputs) - 1)


def _insert_jvp(c, tangents):
    t_piece, t_into = tangents[0], tangents[1]
    if t_piece is None and t_into is None:
        return [None]
    like = t_piece if t_piece is not None else t_into
    prefix = _prefix(c, like)
    piece, into = c.op.operands[0], c.op.operands[1]
    t_piece = t_piece if t_piece is not None else zeros_like(piece, prefix)
    t_into = t_into if t_into is not None else zeros_like(into, prefix)
    return [_insert(t_piece, t_into, c.op, 2, prefix)]


def _insert_vjp(c, cotangents):
    (ct,) = cotangents
    prefix = _prefix(c, ct)
    piece = c.op.operands[0]
    ct_piece = _extract(ct, piece.type, c.op, 2, prefix)
    ct_into = _insert(zeros_like(piece, prefix), ct, c.op, 2, prefix)
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
