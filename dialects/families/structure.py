"""Structure ops: broadcasting, reshapes, transposes, slices, reversals, padding, constants and conversions.

Each op's record (declaration, traits, shape rule, fold, lowering and
derivative rules) is registered here through :data:`family`, and so are the
records of the upstream ``tensor`` ops that move, view or build tensors.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("tensor.collapse_shape", Trait.VIEW), has_trait("tensor.empty", Trait.ZERO_DERIVATIVE)
(True, True)
>>> record_of("tad.transpose").lowering is not None
True
"""

from __future__ import annotations

from math import prod
from typing import Optional

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..batching import broadcast_batch
from ..builder import Val
from ..derivatives import RuleContext, defcast, deflinear
from ..partitioning import partition_elementwise
from ..record import Family, Trait
from ..shapes import (TensorSpec, need, array_attr, dims_attr, int_attr, declared, same_element_type,
                      python_attrs, accepts_dynamic, dims_agree, is_dynamic, has_dynamic, regrouped, shape_text)

family = Family("structure")

family.define("tad.broadcast_in_dim",
              operands=("operand",),
              attributes=(("broadcast_dimensions", "dense_array"),),
              summary="Broadcasts `operand` into the result shape; operand dim i maps to result dim broadcast_dimensions[i] (size 1 or equal).",
              traits=(Trait.PURE, Trait.FUSIBLE, Trait.GENERIC_CONSUMER))
family.define("tad.reshape",
              operands=("operand",),
              summary="Row-major reshape to the result type's shape (same element count).",
              traits=(Trait.PURE, Trait.VIEW))
family.define("tad.transpose",
              operands=("operand",),
              attributes=(("permutation", "dense_array"),),
              summary="result dim i = operand dim permutation[i].",
              traits=(Trait.PURE,))
family.define("tad.slice",
              operands=("operand",),
              attributes=(("start_indices", "dense_array"), ("limit_indices", "dense_array"), ("strides", "dense_array")),
              summary="Strided slice [start, limit) with positive strides.",
              traits=(Trait.PURE, Trait.MAY_VIEW))
family.define("tad.reverse",
              operands=("operand",),
              attributes=(("dimensions", "dense_array"),),
              summary="Reverses the order of the elements along each of `dimensions` (numpy's flip).",
              traits=(Trait.PURE,))
family.define("tad.pad",
              operands=("operand", "padding_value"),
              attributes=(("edge_padding_low", "dense_array"), ("edge_padding_high", "dense_array"), ("interior_padding", "dense_array")),
              summary="Pads with a rank-0 `padding_value`; non-negative low, high and interior padding.",
              traits=(Trait.PURE,))
family.define("tad.iota",
              attributes=(("iota_dimension", "integer"),),
              summary="result[i...] = index along `iota_dimension`.",
              traits=(Trait.PURE, Trait.FUSIBLE, Trait.GENERIC_CONSUMER, Trait.ZERO_DERIVATIVE))
family.define("tad.constant",
              attributes=(("value", "any"),),
              summary="A tensor filled with one scalar `value` (lowers to a fill, never to a stored global).",
              traits=(Trait.PURE, Trait.FUSIBLE, Trait.GENERIC_CONSUMER, Trait.ZERO_DERIVATIVE))
family.define("tad.convert",
              operands=("operand",),
              summary="Elementwise conversion to the result element type (numpy `astype` semantics).",
              traits=(Trait.PURE, Trait.FUSIBLE, Trait.GENERIC_CONSUMER))


@family.shape_rule("tad.broadcast_in_dim")
@accepts_dynamic
def _broadcast_in_dim(operands, attrs, results):
    (x,) = operands
    out = declared(results, "broadcast_in_dim")
    same_element_type(x, out)
    dims = dims_attr(attrs, "broadcast_dimensions", out.rank)
    need(len(dims) == x.rank,
          f"broadcast_dimensions has {len(dims)} entries for an operand of rank {x.rank}")
    for i, d in enumerate(dims):
        need(x.shape[i] == 1 or dims_agree(x.shape[i], out.shape[d]),
              f"operand dimension {i} (size {x.shape[i]}) cannot broadcast to result "
              f"dimension {d} (size {out.shape[d]})")
    for d, n in enumerate(out.shape):
        # The lowering reads the size of a dynamic result dim from the operand.
        need(not is_dynamic(n) or any(is_dynamic(x.shape[i]) for i, e in enumerate(dims) if e == d),
             f"result dimension {d} is dynamic (?) but no dynamic operand dimension gives its size")
    return [out]


@family.shape_rule("tad.reshape")
@accepts_dynamic
def _reshape(operands, attrs, results):
    (x,) = operands
    out = declared(results, "reshape")
    same_element_type(x, out)
    if has_dynamic(x) or has_dynamic(out):
        core, out_core = regrouped(x.shape)[0], regrouped(out.shape)[0]
        need(len(core) == len(out_core) and all(is_dynamic(a) == is_dynamic(b) and dims_agree(a, b)
                                                for a, b in zip(core, out_core)),
             f"cannot reshape {shape_text(x.shape)} into {shape_text(out.shape)}: a reshape of dynamic "
             "dimensions (?) may only add or remove size-1 dimensions and regroup the static ones between them")
        return [out]
    need(prod(x.shape) == prod(out.shape),
          f"cannot reshape {prod(x.shape)} elements {list(x.shape)} into {list(out.shape)}")
    return [out]


@family.shape_rule("tad.transpose")
@accepts_dynamic
def _transpose(operands, attrs, results):
    (x,) = operands
    perm = dims_attr(attrs, "permutation", x.rank)
    need(len(perm) == x.rank, f"permutation {list(perm)} does not fit rank {x.rank}")
    return [TensorSpec(tuple(x.shape[p] for p in perm), x.element_type)]


@family.shape_rule("tad.slice")
def _slice(operands, attrs, results):
    (x,) = operands
    start, limit, strides = (array_attr(attrs, k) for k in ("start_indices", "limit_indices", "strides"))
    need(len(start) == len(limit) == len(strides) == x.rank,
          f"slice needs {x.rank} start, limit and stride values")
    shape = []
    for d, (lo, hi, st) in enumerate(zip(start, limit, strides)):
        need(0 <= lo <= hi <= x.shape[d],
              f"slice [{lo}, {hi}) is out of bounds for dimension {d} of size {x.shape[d]}")
        need(st >= 1, f"stride {st} of dimension {d} must be positive")
        shape.append(-(-(hi - lo) // st))
    return [TensorSpec(tuple(shape), x.element_type)]


@family.shape_rule("tad.reverse")
def _reverse(operands, attrs, results):
    (x,) = operands
    dims_attr(attrs, "dimensions", x.rank)
    return [x]


@family.shape_rule("tad.pad")
def _pad(operands, attrs, results):
    x, value = operands
    need(value.rank == 0, "padding_value must be a rank-0 tensor")
    same_element_type(x, value)
    keys = ("edge_padding_low", "edge_padding_high", "interior_padding")
    low, high, interior = (array_attr(attrs, k) for k in keys)
    need(len(low) == len(high) == len(interior) == x.rank,
          f"pad needs {x.rank} low, high and interior values")
    need(min(low + high + interior, default=0) >= 0, "padding must be non-negative")
    shape = tuple(lo + hi + n + max(n - 1, 0) * it
                  for n, lo, hi, it in zip(x.shape, low, high, interior))
    return [TensorSpec(shape, x.element_type)]


@family.shape_rule("tad.iota")
def _iota(operands, attrs, results):
    out = declared(results, "iota")
    dims_attr({"iota_dimension": (int_attr(attrs, "iota_dimension"),)}, "iota_dimension", out.rank)
    return [out]


@family.shape_rule("tad.constant")
def _constant(operands, attrs, results):
    out = declared(results, "constant")
    value = attrs["value"]
    need(isinstance(value, (ir.FloatAttr, ir.IntegerAttr, ir.BoolAttr)), "value must be a scalar integer or float attribute")
    need(value.type == out.element_type,
          f"value of type {value.type} does not match element type {out.element_type}")
    return [out]


@family.shape_rule("tad.convert")
@accepts_dynamic
def _convert(operands, attrs, results):
    (x,) = operands
    out = declared(results, "convert")
    need(x.rank == out.rank and all(dims_agree(a, b) and is_dynamic(a) == is_dynamic(b)
                                    for a, b in zip(x.shape, out.shape)),
         f"convert cannot change the shape {shape_text(x.shape)}")
    return [out]


# --- upstream tensor ops ------------------------------------------------------------

for _name in ("tensor.concat", "tensor.insert_slice", "tensor.extract", "tensor.from_elements",
              "tensor.splat"):
    family.upstream(_name, traits=(Trait.PURE,))
for _name in ("tensor.collapse_shape", "tensor.expand_shape", "tensor.cast", "tensor.extract_slice",
              "tensor.reshape"):
    # Views of their source: no new bytes, no FLOPs.
    family.upstream(_name, traits=(Trait.PURE, Trait.VIEW))
# Their results do not depend on tensor contents; each tensor.empty is a new buffer.
family.upstream("tensor.empty", traits=(Trait.PURE, Trait.FRESH, Trait.ZERO_DERIVATIVE))
family.upstream("tensor.dim", traits=(Trait.PURE, Trait.ZERO_DERIVATIVE))
# Not pure for tad-simplify: it was never erased or merged.
family.upstream("tensor.insert", traits=())
family.upstream("ub.poison", traits=(Trait.PURE, Trait.CONSTANT))
# Their region computes one element from its indices (tensor.generate) or the
# padding value (tensor.pad); their derivative rules sweep it, in
# tensorad.passes.differentiate.tensor_regions.
for _name in ("tensor.generate", "tensor.pad"):
    family.upstream(_name, traits=(Trait.PURE_IF_BODY_PURE,))
family.upstream("tensor.yield", traits=(Trait.TERMINATOR,))


# --- folds (tad-simplify) ------------------------------------------------------------

def _producer(value: ir.Value, name: str) -> Optional[ir.Operation]:
    """The op named ``name`` that defines ``value``, or None."""
    if isinstance(value, ir.OpResult) and value.owner.name == name:
        return value.owner.operation
    return None


@family.fold("tad.convert", "tad.pad")
def _fold_same_type(op):
    # The shape rules leave these ops only one way to keep the operand's
    # type: the identity (no conversion, no padding, the whole slice, ...).
    x = op.operands[0]
    return x if x.type == op.results[0].type else None


def _or_splat(rule):
    """Fold a structure op of a splat constant into a splat constant first, else apply ``rule``."""

    def folded(op):
        value = builder.splat_value(op.operands[0])
        if value is None or prod(op.operands[0].type.shape) == 0:
            return rule(op)
        t = op.results[0].type
        return builder.constant(value.value, t.shape, t.element_type)

    return folded


@family.fold("tad.transpose")
@_or_splat
def _fold_transpose(op):
    # transpose(transpose(y, inner), outer) reads y's dim inner[outer[i]].
    perm = python_attrs(op)["permutation"]
    x = op.operands[0]
    inner = _producer(x, "tad.transpose")
    if inner is not None:
        inner_perm = python_attrs(inner)["permutation"]
        perm, x = tuple(inner_perm[p] for p in perm), inner.operands[0]
    if perm == tuple(range(len(perm))):
        return x
    return None if inner is None else builder.transpose(x, perm)


@family.fold("tad.reshape")
@_or_splat
def _fold_reshape(op):
    inner = _producer(op.operands[0], "tad.reshape")
    if inner is None:
        return _fold_same_type(op)
    x, t = inner.operands[0], op.results[0].type
    return x if x.type == t else builder.reshape(x, t.shape)


@family.fold("tad.broadcast_in_dim")
@_or_splat
def _fold_broadcast_in_dim(op):
    dims = python_attrs(op)["broadcast_dimensions"]
    return _fold_same_type(op) if dims == tuple(range(len(dims))) else None


family.fold("tad.slice")(_or_splat(_fold_same_type))


@family.fold("tad.reverse")
@_or_splat
def _fold_reverse(op):
    # Reversing a dim of size 0 or 1 changes nothing; reversing twice undoes it.
    x = op.operands[0]
    dims = {d for d in python_attrs(op)["dimensions"] if x.type.shape[d] > 1}
    inner = _producer(x, "tad.reverse")
    if inner is not None:
        dims ^= {d for d in python_attrs(inner)["dimensions"] if x.type.shape[d] > 1}
        x = inner.operands[0]
    if not dims:
        return x
    return None if inner is None else builder.reverse(x, dims)


# --- lowerings (tad-lower-to-linalg) ------------------------------------------------

@family.lowering("tad.broadcast_in_dim")
def _lower_broadcast_in_dim(op):
    return [linalg.broadcast(op.operands[0], op.results[0].type,
                             python_attrs(op)["broadcast_dimensions"])]


@family.lowering("tad.reshape")
def _lower_reshape(op):
    # Collapsing to 1-D and expanding again is always legal; canonicalize
    # composes the pair into a single reshape when the shapes allow it.
    x, t = op.operands[0], op.results[0].type
    if x.type == t:
        return [x]
    if has_dynamic(x.type.shape) or has_dynamic(t.shape):
        return [linalg.reshaped(x, t)]
    return [linalg.from_flat(linalg.to_flat(x), t)]


@family.lowering("tad.transpose")
def _lower_transpose(op):
    return [linalg.permuted(op.operands[0], python_attrs(op)["permutation"])]


@family.lowering("tad.slice")
def _lower_slice(op):
    a, t = python_attrs(op), op.results[0].type
    # An empty slice (a tensor.empty) may start past the end of its dimension.
    return [builder.extract_slice(op.operands[0], t, a["start_indices"], t.shape, a["strides"])]


@family.lowering("tad.reverse")
def _lower_reverse(op):
    # Each result element reads its mirror image, as tad.take's lowering reads its gathered element.
    x, t = op.operands[0], op.results[0].type
    dims = set(python_attrs(op)["dimensions"])
    index = ir.IndexType.get()

    def body(_out):
        position = []
        for d, n in enumerate(t.shape):
            i = linalg.IndexOp(d).result
            position.append(arith.subi(arith.constant(index, n - 1), i) if d in dims else i)
        return tensor.ExtractOp(x, position).result

    return [linalg.parallel([], [], t, body)]


@family.lowering("tad.pad")
def _lower_pad(op):
    # Interior padding is a strided insert: stride interior+1 leaves the gaps
    # filled with the padding value.
    x, value = op.operands
    a, t = python_attrs(op), op.results[0].type
    filled = linalg.broadcast(value, t, ())
    strides = [n + 1 for n in a["interior_padding"]]
    return [builder.insert_slice(x, filled, a["edge_padding_low"], x.type.shape, strides)]


@family.lowering("tad.iota")
def _lower_iota(op):
    t = op.results[0].type
    dim = python_attrs(op)["iota_dimension"].value
    return [linalg.parallel([], [], t, lambda _out: linalg.index_scalar(dim, t.element_type))]


@family.lowering("tad.constant")
def _lower_constant(op):
    return [linalg.splat(op.attributes["value"], op.results[0].type)]


@family.lowering("tad.convert")
def _lower_convert(op):
    x, t = op.operands[0], op.results[0].type
    if x.type == t:
        return [x]
    return [linalg.parallel([x], [range(t.rank)], t,
                            lambda a, _out: linalg.convert_scalar(a, t.element_type))]


# --- derivatives -------------------------------------------------------------------

def _reshaped(value: Val, shape) -> Val:
    """``value`` reshaped to ``shape`` (itself when it has that shape already)."""
    return value if tuple(shape) == value.shape else builder.reshape(value, shape)


def _transposed(value: Val, permutation) -> Val:
    """``value`` with its dims permuted (itself for the identity permutation)."""
    permutation = [int(p) for p in permutation]
    return value if permutation == list(range(len(permutation))) else builder.transpose(value, permutation)


def _broadcast_apply(c: RuleContext, tangents: list) -> Val:
    (t,) = tangents
    dims = c.batched(c.attrs["broadcast_dimensions"])
    return builder.broadcast_in_dim(t, c.batched_shape(t, c.outputs[0].shape), dims)


def _broadcast_transpose(c: RuleContext, ct: Val) -> list:
    x, dims = c.inputs[0], c.attrs["broadcast_dimensions"]
    out_shape = c.outputs[0].shape
    summed = [d for d in range(len(out_shape)) if d not in dims]
    summed += [d for i, d in enumerate(dims) if x.shape[i] == 1 and out_shape[d] != 1]
    reduced = builder.sum(ct, [d + c.nb for d in summed]) if summed else ct
    kept = sorted(d for d in dims if d not in summed)  # what the sum leaves, in result-dim order
    order = [kept.index(d) for d in dims if d not in summed]
    if order != sorted(order):
        reduced = builder.transpose(reduced, c.batched(order))
    return [_reshaped(reduced, c.batched_shape(ct, x.shape))]


deflinear(family, "tad.broadcast_in_dim", _broadcast_apply, _broadcast_transpose)
deflinear(family, "tad.reshape",
          lambda c, ts: _reshaped(ts[0], c.batched_shape(ts[0], c.outputs[0].shape)),
          lambda c, ct: [_reshaped(ct, c.batched_shape(ct, c.inputs[0].shape))])
deflinear(family, "tad.transpose",
          lambda c, ts: _transposed(ts[0], c.batched(c.attrs["permutation"])),
          lambda c, ct: [_transposed(ct, c.batched(np.argsort(c.attrs["permutation"])))])
defcast(family, "tad.convert")


def _slice_apply(c: RuleContext, tangents: list) -> Val:
    (t,) = tangents
    a = c.attrs
    return builder.slice_(t, [0] * c.nb + list(a["start_indices"]),
                          list(t.shape[:c.nb]) + list(a["limit_indices"]),
                          [1] * c.nb + list(a["strides"]))


def _slice_transpose(c: RuleContext, ct: Val) -> list:
    a, in_shape, out_shape = c.attrs, c.inputs[0].shape, c.outputs[0].shape
    if 0 in out_shape:  # an empty slice: nothing to place, the gradient is zeros
        return [c.zeros_like_input(0, ct)]
    high = []
    for n, lo, step, m in zip(in_shape, a["start_indices"], a["strides"], out_shape):
        used = (m - 1) * step + 1 if m else 0
        high.append(n - lo - used)
    interior = [s - 1 if m > 1 else 0 for s, m in zip(a["strides"], out_shape)]
    zero = builder.zeros((), ct.element_type)
    return [builder.pad(ct, zero, [0] * c.nb + list(a["start_indices"]), [0] * c.nb + high,
                        [0] * c.nb + interior)]


deflinear(family, "tad.slice", _slice_apply, _slice_transpose)
# A reversal is its own transpose; the batch prefix is not reversed.
deflinear(family, "tad.reverse",
          lambda c, ts: builder.reverse(ts[0], [d + c.nb for d in c.attrs["dimensions"]]),
          lambda c, ct: [builder.reverse(ct, [d + c.nb for d in c.attrs["dimensions"]])])


def _pad_value_mask(c: RuleContext) -> Val:
    """1 where the result holds the padding value, 0 where it holds the operand."""
    x, a = c.inputs[0], c.attrs
    return builder.pad(builder.zeros(x.shape, x.element_type), builder.ones((), x.element_type),
                       a["edge_padding_low"], a["edge_padding_high"], a["interior_padding"])


def _pad_apply(c: RuleContext, tangents: list) -> Val:
    t_x, t_v = tangents
    a = c.attrs
    like = t_x if t_x is not None else t_v
    out = None
    if t_x is not None:
        zero = builder.zeros((), t_x.element_type)
        out = builder.pad(t_x, zero, [0] * c.nb + list(a["edge_padding_low"]),
                          [0] * c.nb + list(a["edge_padding_high"]),
                          [0] * c.nb + list(a["interior_padding"]))
    if t_v is not None:
        batch = like.shape[:c.nb]
        spread = _reshaped(t_v, batch + (1,) * c.outputs[0].ndim) * _pad_value_mask(c)
        out = spread if out is None else out + spread
    return out


def _pad_transpose(c: RuleContext, ct: Val) -> list:
    a, x = c.attrs, c.inputs[0]
    limits = [lo + (n - 1) * (it + 1) + 1 if n else lo
              for n, lo, it in zip(x.shape, a["edge_padding_low"], a["interior_padding"])]
    ct_x = builder.slice_(ct, [0] * c.nb + list(a["edge_padding_low"]), list(ct.shape[:c.nb]) + limits,
                          [1] * c.nb + [it + 1 for it in a["interior_padding"]])
    inner = range(c.nb, ct.ndim)
    ct_v = builder.sum(ct, inner) - builder.sum(ct_x, inner)
    return [ct_x, ct_v]


deflinear(family, "tad.pad", _pad_apply, _pad_transpose)


def _concat_apply(c: RuleContext, tangents: list) -> Val:
    like = next(t for t in tangents if t is not None)
    parts = [t if t is not None else c.zeros_like_input(i, like) for i, t in enumerate(tangents)]
    return builder.concatenate(parts, c.op.attributes["dim"].value + c.nb)


def _concat_transpose(c: RuleContext, ct: Val) -> list:
    axis = c.op.attributes["dim"].value + c.nb
    out, start = [], 0
    for x in c.inputs:
        size = x.shape[axis - c.nb]
        begin, end = list((0,) * ct.ndim), list(ct.shape)
        # An empty part starts at 0, where every dim may begin an empty slice.
        begin[axis], end[axis] = (start, start + size) if size else (0, 0)
        whole = begin == [0] * ct.ndim and end == list(ct.shape)
        out.append(ct if whole else builder.slice_(ct, begin, end, [1] * ct.ndim))
        start += size
    return out


deflinear(family, "tensor.concat", _concat_apply, _concat_transpose)


# Offsets, sizes and strides of the tensor slices may be dynamic (loop rows of
# scan and the growing tapes of reversed while loops, which forward mode meets
# in a jvp of a grad). A batch prefix P adds leading dimensions taken whole.
# Slices with no elements are built by builder.extract_slice and
# builder.insert_slice, which leave them out.

def _geometry(op: ir.Operation, dynamic: list, prefix: tuple) -> tuple:
    """Offsets, sizes and strides of ``op`` (ints and the index values ``dynamic``), widened by ``prefix``.

    ``dynamic`` are the op's dynamic offsets, sizes and strides, in order: its
    own operands, or their counterparts in a batched function.
    """
    a = op.attributes
    dynamic_values = iter(dynamic)

    def mixed(name: str) -> list:
        return [next(dynamic_values) if ir.ShapedType.is_dynamic_size(n) else n for n in a[name]]

    offsets, sizes, strides = mixed("static_offsets"), mixed("static_sizes"), mixed("static_strides")
    k = len(prefix)
    return [0] * k + offsets, list(prefix) + sizes, [1] * k + strides


def _extract(source: Val, like: ir.Type, op: ir.Operation, dynamic: list, prefix: tuple) -> Val:
    t = ir.RankedTensorType.get(list(prefix) + list(like.shape), like.element_type)
    return builder.extract_slice(source, t, *_geometry(op, dynamic, prefix))


def _insert(piece: Val, into: Val, op: ir.Operation, dynamic: list, prefix: tuple) -> Val:
    return builder.insert_slice(piece, into, *_geometry(op, dynamic, prefix))


def _prefix(c: RuleContext, like: Val) -> tuple:
    return like.shape[:c.nb]


@family.jvp("tensor.extract_slice")
def _extract_slice_jvp(c: RuleContext, tangents: list) -> list:
    t = tangents[0]
    if t is None:
        return [None]
    return [_extract(t, c.op.results[0].type, c.op, list(c.op.operands)[1:], _prefix(c, t))]


@family.vjp("tensor.extract_slice")
def _extract_slice_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    prefix = _prefix(c, ct)
    zeros = builder.zeros_like(c.op.operands[0], prefix)
    return [_insert(ct, zeros, c.op, list(c.op.operands)[1:], prefix)] + [None] * (len(c.inputs) - 1)


@family.jvp("tensor.insert_slice")
def _insert_slice_jvp(c: RuleContext, tangents: list) -> list:
    t_piece, t_into = tangents[0], tangents[1]
    if t_piece is None and t_into is None:
        return [None]
    like = t_piece if t_piece is not None else t_into
    prefix = _prefix(c, like)
    piece, into = c.op.operands[0], c.op.operands[1]
    t_piece = t_piece if t_piece is not None else builder.zeros_like(piece, prefix)
    t_into = t_into if t_into is not None else builder.zeros_like(into, prefix)
    return [_insert(t_piece, t_into, c.op, list(c.op.operands)[2:], prefix)]


@family.vjp("tensor.insert_slice")
def _insert_slice_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    prefix = _prefix(c, ct)
    piece = c.op.operands[0]
    geometry = list(c.op.operands)[2:]
    ct_piece = _extract(ct, piece.type, c.op, geometry, prefix)
    ct_into = _insert(builder.zeros_like(piece, prefix), ct, c.op, geometry, prefix)
    return [ct_piece, ct_into] + [None] * (len(c.inputs) - 2)


def _cast(value: Val, like: ir.Type, prefix: tuple) -> Val:
    t = ir.RankedTensorType.get(list(prefix) + list(like.shape), like.element_type)
    return Val(tensor.CastOp(t, value).result)


@family.jvp("tensor.cast")
def _cast_jvp(c: RuleContext, tangents: list) -> list:
    t = tangents[0]
    return [None if t is None else _cast(t, c.op.results[0].type, _prefix(c, t))]


@family.vjp("tensor.cast")
def _cast_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    return [_cast(ct, c.op.operands[0].type, _prefix(c, ct))]


# Row-major reshapes: the tangent and the cotangent are reshaped the same way.
@family.jvp("tensor.collapse_shape", "tensor.expand_shape")
def _reshape_jvp(c: RuleContext, tangents: list) -> list:
    t = tangents[0]
    return [None if t is None else _reshaped(t, _prefix(c, t) + tuple(c.op.results[0].type.shape))]


@family.vjp("tensor.collapse_shape", "tensor.expand_shape")
def _reshape_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    return [_reshaped(ct, _prefix(c, ct) + tuple(c.op.operands[0].type.shape))] + \
        [None] * (len(c.inputs) - 1)


def _shape_tensor(like: ir.Value, prefix: tuple) -> Val:
    """The shape ``prefix + like``'s shape as a 1-D ``index`` tensor, dynamic dims read with ``tensor.dim``."""
    index = ir.IndexType.get()
    dims = [arith.ConstantOp(index, n).result for n in prefix]
    for d, n in enumerate(like.type.shape):
        dims.append(tensor.DimOp(like, arith.ConstantOp(index, d).result).result
                    if ir.ShapedType.is_dynamic_size(n) else arith.ConstantOp(index, n).result)
    return Val(tensor.FromElementsOp(ir.RankedTensorType.get([len(dims)], index), dims).result)


def _reshaped_like(value: Val, like: ir.Value, prefix: tuple) -> Val:
    """``value`` (a (co)tangent with batch prefix ``prefix``) reshaped to the shape of the primal ``like``."""
    t = like.type
    if t.has_static_shape and value.type.has_static_shape:
        return _reshaped(value, prefix + tuple(t.shape))
    target = ir.RankedTensorType.get(list(prefix) + list(t.shape), t.element_type)
    return Val(tensor.ReshapeOp(target, value, _shape_tensor(like, prefix)).result)


# tensor.reshape takes its shape from an operand: the (co)tangent is reshaped
# to the primal result's (operand's) shape, behind the batch prefix.
@family.jvp("tensor.reshape")
def _tensor_reshape_jvp(c: RuleContext, tangents: list) -> list:
    t = tangents[0]
    return [None if t is None else _reshaped_like(t, c.op.results[0], _prefix(c, t))]


@family.vjp("tensor.reshape")
def _tensor_reshape_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    return [_reshaped_like(ct, c.op.operands[0], _prefix(c, ct)), None]


# Elements: a scalar's (co)tangent is a scalar, or a tensor of the batch
# prefix's shape (builder.element / builder.with_element read and write them).

def _scalar_zeros(scalar: ir.Value, like: Val, nb: int) -> Val:
    """The zero (co)tangent of ``scalar``; ``like`` supplies the batch prefix."""
    return builder.zeros_like(scalar, like.shape[:nb])


@family.jvp("tensor.extract")
def _extract_jvp(c: RuleContext, tangents: list) -> list:
    t = tangents[0]
    return [None if t is None else builder.element(t, list(c.op.operands[1:]), c.nb)]


@family.vjp("tensor.extract")
def _extract_vjp(c: RuleContext, cotangents: list) -> list:
    # A scatter into zeros; rules that sum many (tensor.generate's) add it in place.
    (ct,) = cotangents
    source, indices = c.op.operands[0], list(c.op.operands[1:])
    zeros = builder.zeros_like(source, ct.shape[:c.nb])
    return [builder.with_element(zeros, ct, indices, c.nb)] + [None] * len(indices)


@family.jvp("tensor.insert")
def _insert_jvp(c: RuleContext, tangents: list) -> list:
    t_scalar, t_dest = tangents[0], tangents[1]
    if t_scalar is None and t_dest is None:
        return [None]
    like = t_scalar if t_scalar is not None else t_dest
    scalar, dest = c.op.operands[0], c.op.operands[1]
    t_scalar = t_scalar if t_scalar is not None else _scalar_zeros(scalar, like, c.nb)
    t_dest = t_dest if t_dest is not None else builder.zeros_like(dest, like.shape[:c.nb])
    return [builder.with_element(t_dest, t_scalar, list(c.op.operands[2:]), c.nb)]


@family.vjp("tensor.insert")
def _insert_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    indices = list(c.op.operands[2:])
    ct_scalar = builder.element(ct, indices, c.nb)
    ct_dest = builder.with_element(ct, _scalar_zeros(c.op.operands[0], ct, c.nb), indices, c.nb)
    return [ct_scalar, ct_dest] + [None] * len(indices)


def _row_major(shape) -> list:
    """The multi-indices of ``shape`` in row-major order (tensor.from_elements' order)."""
    return [list(i) for i in np.ndindex(*shape)]


@family.jvp("tensor.from_elements")
def _from_elements_jvp(c: RuleContext, tangents: list) -> list:
    like = next(t for t in tangents if t is not None)
    parts = [t if t is not None else _scalar_zeros(v, like, c.nb) for t, v in zip(tangents, c.op.operands)]
    t = c.op.results[0].type
    if not c.nb:
        return [Val(tensor.FromElementsOp(t, parts).result)]
    # Each element's tangent is a prefix-shaped tensor: stack them on a new last axis.
    prefix = like.shape[:c.nb]
    columns = [builder.reshape(p, prefix + (1,)) for p in parts]
    return [_reshaped(builder.concatenate(columns, c.nb), prefix + tuple(t.shape))]


@family.vjp("tensor.from_elements")
def _from_elements_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    return [builder.element(ct, i, c.nb) for i in _row_major(c.op.results[0].type.shape)]


@family.jvp("tensor.splat")
def _splat_jvp(c: RuleContext, tangents: list) -> list:
    t = tangents[0]
    if t is None:
        return [None]
    out = c.op.results[0].type
    if not c.nb:
        return [Val(tensor.SplatOp(out, t, list(c.op.operands[1:])).result)]
    return [builder.broadcast_in_dim(t, t.shape + tuple(out.shape), range(c.nb))]


@family.vjp("tensor.splat")
def _splat_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    total = builder.sum(ct, range(c.nb, ct.ndim))
    if not c.nb:
        total = builder.element(total, [])
    return [total] + [None] * (len(c.inputs) - 1)


# ----------------------------------------------------------------------------
# Batching rules (tad-batch): the mapped axis is axis 0 of every batched value
# ----------------------------------------------------------------------------

def _attr(op, name: str) -> list:
    return list(ir.DenseI64ArrayAttr(op.attributes[name]))


@family.batching("tad.broadcast_in_dim")
def _broadcast_in_dim_batch(ctx, op, operands, batched):
    dims = [0] + [d + 1 for d in _attr(op, "broadcast_dimensions")]
    return [builder.broadcast_in_dim(operands[0], (ctx.size,) + tuple(op.results[0].type.shape), dims)]


@family.batching("tad.reshape")
def _reshape_batch(ctx, op, operands, batched):
    return [builder.reshape(operands[0], (ctx.size,) + tuple(op.results[0].type.shape))]


@family.batching("tad.transpose")
def _transpose_batch(ctx, op, operands, batched):
    return [builder.transpose(operands[0], [0] + [p + 1 for p in _attr(op, "permutation")])]


@family.batching("tad.slice")
def _slice_batch(ctx, op, operands, batched):
    return [builder.slice_(operands[0], [0] + _attr(op, "start_indices"), [ctx.size] + _attr(op, "limit_indices"),
                           [1] + _attr(op, "strides"))]


@family.batching("tad.reverse")
def _reverse_batch(ctx, op, operands, batched):
    return [builder.reverse(operands[0], [d + 1 for d in _attr(op, "dimensions")])]


@family.batching("tad.pad")
def _pad_batch(ctx, op, operands, batched):
    if batched[1]:
        return None  # a padding value per row: the pass's row loop
    return [builder.pad(operands[0], operands[1], [0] + _attr(op, "edge_padding_low"),
                        [0] + _attr(op, "edge_padding_high"), [0] + _attr(op, "interior_padding"))]


@family.batching("tad.convert")
def _convert_batch(ctx, op, operands, batched):
    return [builder.convert(operands[0], op.results[0].type.element_type)]


@family.batching("tensor.concat")
def _concat_batch(ctx, op, operands, batched):
    dim = ir.IntegerAttr(op.attributes["dim"]).value
    return [builder.concatenate([broadcast_batch(x, b, ctx.size) for x, b in zip(operands, batched)], dim + 1)]


@family.batching("tensor.extract")
def _extract_batch(ctx, op, operands, batched):
    """Element ``indices`` of every row: a slice across the rows (a batched scalar is a tensor of the rows)."""
    if any(batched[1:]):
        return None  # an index per row: the pass's row loop
    source, indices = operands[0], list(operands[1:])
    rank = len(indices)
    if rank == 0:  # the rows of a 0-d tensor are already the batched scalar
        return [source]
    piece = builder.extract_slice(source, ir.RankedTensorType.get([ctx.size], source.element_type),
                                  [0] + indices, [ctx.size] + [1] * rank, [1] * (rank + 1))
    return [piece]


@family.batching("tensor.insert")
def _insert_batch(ctx, op, operands, batched):
    if any(batched[2:]):
        return None  # a position per row: the pass's row loop
    scalar, dest = (broadcast_batch(v, b, ctx.size) for v, b in zip(operands[:2], batched[:2]))
    return [builder.with_element(dest, scalar, list(operands[2:]), 1)]


@family.batching("tensor.from_elements")
def _from_elements_batch(ctx, op, operands, batched):
    columns = [builder.reshape(broadcast_batch(v, b, ctx.size), (ctx.size, 1)) for v, b in zip(operands, batched)]
    return [_reshaped(builder.concatenate(columns, 1), (ctx.size,) + tuple(op.results[0].type.shape))]


@family.batching("tensor.splat")
def _splat_batch(ctx, op, operands, batched):
    out = op.results[0].type
    if any(batched[1:]) or not out.has_static_shape:
        return None  # sizes per row, or read at run time: the pass's row loop
    return [builder.broadcast_in_dim(operands[0], (ctx.size,) + tuple(out.shape), [0])]


# Slices and reshapes of every row: the mapped axis is a prefix taken whole.
@family.batching("tensor.extract_slice")
def _extract_slice_batch(ctx, op, operands, batched):
    if any(batched[1:]):
        return None  # offsets per row: the pass's row loop
    return [_extract(operands[0], op.results[0].type, op, operands[1:], (ctx.size,))]


@family.batching("tensor.insert_slice")
def _insert_slice_batch(ctx, op, operands, batched):
    if any(batched[2:]):
        return None
    piece, into = (broadcast_batch(v, b, ctx.size) for v, b in zip(operands[:2], batched[:2]))
    return [_insert(piece, into, op, operands[2:], (ctx.size,))]


@family.batching("tensor.collapse_shape", "tensor.expand_shape", "tensor.reshape")
def _reshape_like_batch(ctx, op, operands, batched):
    if any(batched[1:]) or not (op.operands[0].type.has_static_shape and op.results[0].type.has_static_shape):
        return None  # a shape per row, or one read at run time
    return [_reshaped(operands[0], (ctx.size,) + tuple(op.results[0].type.shape))]


# --- partitioning (tad-partition) ----------------------------------------------------------

@family.partition("tad.broadcast_in_dim")
def _partition_broadcast(c):
    # A split dim has more than one element, so it is not one that is spread out: it maps
    # to a result dim of the same size, split the same way.
    d, dims = c.dim(0), list(c.attrs["broadcast_dimensions"])
    shape = list(c.op.results[0].type.shape)
    shape[dims[d]] //= c.mesh.processes
    return [(builder.broadcast_in_dim(c.block(0, d), shape, dims), dims[d])]


@family.partition("tad.transpose")
def _partition_transpose(c):
    d, permutation = c.dim(0), list(c.attrs["permutation"])
    return [(builder.transpose(c.block(0, d), permutation), permutation.index(d))]


@family.partition("tad.reshape")
def _partition_reshape(c):
    # Row-major, the block along operand dim d is one run of elements per index of the dims
    # before d; it is a block of result dim r when the dims before r count as many indices
    # and r splits evenly (then its block covers the same run). Else the reshape wants it whole.
    d, p = c.dim(0), c.mesh.processes
    before, shape = prod(c.op.operands[0].type.shape[:d]), list(c.op.results[0].type.shape)
    r = next((r for r in range(len(shape)) if prod(shape[:r]) == before and shape[r] % p == 0), None)
    if r is None:
        return None
    shape[r] //= p
    return [(builder.reshape(c.block(0, d), shape), r)]


family.partition("tad.convert")(partition_elementwise)
