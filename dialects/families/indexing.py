"""Indexing: gather along an axis (``tad.take``) and its scatter-add.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.

Lowering: ``tad.take`` is a ``linalg.generic`` whose body reads the data with
``tensor.extract`` at computed positions. Every index is clamped into its
dimension first (as JAX's gathers do), so no read or write is ever out of
bounds; the loss family clamps its targets with the same helpers
(:func:`as_index`, :func:`clamp_index`). ``tad.take_backward`` is a
scatter-add: an ``scf.for`` over the index positions that adds one slice of
the output gradient into the accumulator per step (repeated indices add up).
The accumulator's slice is extracted, updated and inserted back at the same
offsets, so one-shot bufferization updates it in place.

Derivatives: ``take`` gathers and ``take_backward`` scatter-adds along the same
axis at the same (clamped) indices, and each is linear in its differentiable
operand: each is the other's transpose. A batch prefix ``P`` in front of a
(co)tangent only moves the axis by ``c.nb``. Integer indices have no
derivative.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.dialects.record import record_of
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<5x3xf32>, %i: tensor<4xi64>) -> tensor<4x3xf32> {
...   %0 = "tad.take"(%x, %i) {axis = 0} : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
...   return %0 : tensor<4x3xf32>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> "tensor.extract " in str(module)
True
>>> record_of("tad.take").vjp is not None and record_of("tad.take_backward").jvp is not None
True
"""

from __future__ import annotations

from math import prod
from typing import Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..builder import Val
from ..derivatives import RuleContext, deflinear
from ..record import Family, Trait
from ..shapes import (TensorSpec, dims_attr, int_attr, declared, gradient_of, integer_indices,
                      python_attrs)

family = Family("indexing")

family.define("tad.take",
              operands=("data", "indices"),
              attributes=(("axis", "integer"),),
              summary="Gathers along axis: result shape data[:axis] + indices + data[axis+1:]; integer indices, clamped.",
              traits=(Trait.PURE,))
family.define("tad.take_backward",
              operands=("output_grad", "indices"),
              attributes=(("axis", "integer"),),
              summary="Scatter-add of output_grad into zeros of the declared result shape (repeated indices add up).",
              traits=(Trait.PURE,))


def _take_output(data: TensorSpec, indices: TensorSpec, attrs) -> TensorSpec:
    integer_indices(indices)
    (axis,) = dims_attr({"axis": (int_attr(attrs, "axis"),)}, "axis", data.rank)
    return TensorSpec(data.shape[:axis] + indices.shape + data.shape[axis + 1:], data.element_type)


@family.shape_rule("tad.take")
def _take(operands, attrs, results):
    data, indices = operands
    return [_take_output(data, indices, attrs)]


@family.shape_rule("tad.take_backward")
def _take_backward(operands, attrs, results):
    output_grad, indices = operands
    out = declared(results, "take_backward")
    return gradient_of("take", _take_output(out, indices, attrs), output_grad, out)


# --- lowering ------------------------------------------------------------------

def index_constant(n: int) -> ir.Value:
    """The ``index`` constant ``n``."""
    return arith.constant(ir.IndexType.get(), n)


def as_index(i: ir.Value) -> ir.Value:
    """An integer element as an ``index`` (sign-extended: negative stays negative)."""
    return arith.index_cast(ir.IndexType.get(), i)


def clamp_index(index: ir.Value, size: int) -> ir.Value:
    """``index`` clamped into ``[0, size)``."""
    return arith.minsi(arith.maxsi(index, index_constant(0)), index_constant(size - 1))


def loop_indices(dims: Sequence[int]) -> list:
    """The ``index`` values of the enclosing ``linalg.generic``'s loops ``dims``."""
    return [linalg.IndexOp(d).result for d in dims]


def _axis(op: ir.Operation) -> int:
    return python_attrs(op)["axis"].value


def _zeros(t: ir.RankedTensorType) -> ir.Value:
    return linalg.splat(linalg.zero_attr(t.element_type), t)


@family.lowering("tad.take")
def _lower_take(op):
    # Loops run over the result: data dims before the axis, the index dims,
    # then the data dims after the axis.
    data, indices = op.operands
    t, axis, k = op.results[0].type, _axis(op), indices.type.rank
    size = data.type.shape[axis]
    if size == 0:  # nothing to read: an empty axis gathers zeros (numpy refuses such a take)
        return [_zeros(t)]

    def body(index, _out):
        position = (loop_indices(range(axis)) + [clamp_index(as_index(index), size)]
                    + loop_indices(range(axis + k, t.rank)))
        return tensor.ExtractOp(data, position).result

    return [linalg.parallel([indices], [range(axis, axis + k)], t, body)]


def _slice_at(axis: int, position: ir.Value, sizes: Sequence[int]) -> dict:
    """``extract_slice``/``insert_slice`` arguments of the unit slab at ``position`` on ``axis``."""
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    offsets = [0] * len(sizes)
    offsets[axis] = dynamic
    return dict(offsets=[position], sizes=[], strides=[], static_offsets=offsets,
                static_sizes=list(sizes), static_strides=[1] * len(sizes))


def _combine_into(acc: ir.Value, update: ir.Value, combine, valid) -> ir.Value:
    """``combine(acc, update)`` written into ``acc`` (its buffer, after bufferization); ``acc`` where not ``valid``."""
    rank = acc.type.rank
    identity = linalg.affine_map(rank, range(rank))

    def body(u, a):
        out = combine(a, u)
        return [out if valid is None else arith.select(valid, out, a)]

    [out] = linalg.generic([update], [acc], [identity, identity], ["parallel"] * rank, body)
    return out


# A slab of fewer elements is updated element by element (scalar loops on the
# carried tensor): a vectorized generic per index position costs a temporary
# buffer and a copy each, which is all the time of a scatter of single elements.
_SCALAR_SLAB = 32


def scatter_slabs(into: ir.Value, indices: ir.Value, updates: ir.Value, axis: int, combine,
                  drop_outside: bool = False) -> ir.Value:
    """``into`` with each slab of ``updates`` combined into the slab of ``into`` at its index along ``axis``.

    ``updates`` has the shape ``into[:axis] + indices + into[axis+1:]``. The
    index positions are visited in row-major order, so a repeated index meets
    the earlier updates (they add up, or the last one set stays).
    ``combine(current, update)`` combines two elements. An index outside
    ``[0, size)`` is clamped into it, or with ``drop_outside`` its update is
    dropped. One ``scf.for`` over the index positions extracts the slab of
    ``into``, combines and inserts it back at the same offsets, so one-shot
    bufferization updates the buffer in place; a small slab is updated by
    scalar loops instead, reading and writing the carried tensor element by
    element (``tensor.extract``/``tensor.insert``).
    """
    t = into.type
    size = t.shape[axis]
    if size == 0:  # nowhere to scatter to
        return into
    # One position per index: indices flattened to (M), updates viewed as
    # into[:axis] + (M) + into[axis+1:].
    flat_indices = linalg.to_flat(indices)
    count = flat_indices.type.shape[0]
    rows = t.shape[:axis] + [count] + t.shape[axis + 1:]
    if indices.type.rank != 1:
        updates = linalg.from_flat(linalg.to_flat(updates), ir.RankedTensorType.get(rows, t.element_type))
    slab = list(t.shape)
    slab[axis] = 1
    if prod(slab) < _SCALAR_SLAB:
        return _scatter_elements(into, flat_indices, updates, axis, combine, drop_outside)
    slab_type = ir.RankedTensorType.get(slab, t.element_type)
    loop = scf.ForOp(index_constant(0), index_constant(count), index_constant(1), [into])
    with ir.InsertionPoint(loop.body):
        m, acc = loop.induction_variable, loop.inner_iter_args[0]
        target, valid = _target(flat_indices, m, size, drop_outside)
        update = tensor.ExtractSliceOp(slab_type, updates, **_slice_at(axis, m, slab))
        current = tensor.ExtractSliceOp(slab_type, acc, **_slice_at(axis, target, slab))
        combined = _combine_into(current.result, update.result, combine, valid)
        scf.YieldOp([tensor.InsertSliceOp(combined, acc, **_slice_at(axis, target, slab)).result])
    return loop.results[0]


def _target(flat_indices: ir.Value, m: ir.Value, size: int, drop_outside: bool) -> tuple:
    """(index ``m`` clamped into ``[0, size)``, whether it was inside, or None unless ``drop_outside``)."""
    index = as_index(tensor.ExtractOp(flat_indices, [m]).result)
    target = clamp_index(index, size)
    return target, arith.cmpi(arith.CmpIPredicate.eq, index, target) if drop_outside else None


def _scatter_elements(into: ir.Value, flat_indices: ir.Value, updates: ir.Value, axis: int, combine,
                      drop_outside: bool) -> ir.Value:
    """:func:`scatter_slabs` by scalar loops: index positions, then every element of the slab."""
    t = into.type
    slab_dims = [d for d in range(t.rank) if d != axis]

    def nest(dims, position, target, valid, m, acc):
        if not dims:
            at, source = list(position), list(position)
            at[axis], source[axis] = target, m
            current = tensor.ExtractOp(acc, at).result
            combined = combine(current, tensor.ExtractOp(updates, source).result)
            if valid is not None:
                combined = arith.select(valid, combined, current)
            return tensor.InsertOp(combined, acc, at).result
        loop = scf.ForOp(index_constant(0), index_constant(t.shape[dims[0]]), index_constant(1), [acc])
        with ir.InsertionPoint(loop.body):
            position[dims[0]] = loop.induction_variable
            scf.YieldOp([nest(dims[1:], position, target, valid, m, loop.inner_iter_args[0])])
        return loop.results[0]

    loop = scf.ForOp(index_constant(0), index_constant(flat_indices.type.shape[0]), index_constant(1), [into])
    with ir.InsertionPoint(loop.body):
        m = loop.induction_variable
        target, valid = _target(flat_indices, m, t.shape[axis], drop_outside)
        scf.YieldOp([nest(slab_dims, [None] * t.rank, target, valid, m, loop.inner_iter_args[0])])
    return loop.results[0]


@family.lowering("tad.take_backward")
def _lower_take_backward(op):
    output_grad, indices = op.operands
    t = op.results[0].type
    add = linalg.ADD[linalg.category(t.element_type)]
    return [scatter_slabs(_zeros(t), indices, output_grad, _axis(op), add)]


# --- derivative rules ------------------------------------------------------------

def _batched_axis(c: RuleContext) -> int:
    """The op's axis in a (co)tangent with the batch prefix in front."""
    return c.attrs["axis"].value + c.nb


def _gather(c: RuleContext, x: Val) -> Val:
    """``take`` of a batched (co)tangent ``x`` at the op's indices."""
    return builder.take(x, c.inputs[1], _batched_axis(c))


def _scatter(c: RuleContext, x: Val, shape: tuple) -> Val:
    """``take_backward`` of a batched (co)tangent ``x`` into zeros of ``P + shape``."""
    return builder.take_backward(x, c.inputs[1], _batched_axis(c), x.shape[:c.nb] + shape)


deflinear(family, "tad.take",
          lambda c, ts: _gather(c, ts[0]),
          lambda c, ct: [_scatter(c, ct, c.inputs[0].shape), None])
deflinear(family, "tad.take_backward",
          lambda c, ts: _scatter(c, ts[0], c.outputs[0].shape),
          lambda c, ct: [_gather(c, ct), None])


# ----------------------------------------------------------------------------
# Batching rules (tad-batch): the mapped axis is axis 0 of every batched value
# ----------------------------------------------------------------------------

def _move(x: Val, source: int, destination: int) -> Val:
    """``x`` with its dim ``source`` moved to position ``destination``."""
    order = [d for d in range(x.ndim) if d != source]
    order.insert(destination, source)
    return x if order == list(range(x.ndim)) else builder.transpose(x, order)


def _row_offsets(indices: Val, size: int) -> Val:
    """Batched ``indices`` (rows first) clamped into ``[0, size)`` plus ``row * size``: positions in the rows merged."""
    clamped = builder.minimum(builder.maximum(indices, 0), size - 1)
    return clamped + builder.iota(indices.shape, 0, indices.element_type) * size


def _merged(x: Val, axis: int) -> Val:
    """Batched ``x`` with its rows merged into its dim ``axis``: ``x[:axis] + (rows * n,) + x[axis+1:]``."""
    moved = _move(x, 0, axis)
    shape = moved.shape
    return builder.reshape(moved, shape[:axis] + (shape[axis] * shape[axis + 1],) + shape[axis + 2:])


@family.batching("tad.take")
def _take_batch(ctx, op, operands, batched):
    data, indices = operands
    axis = _axis(op)
    if not batched[1]:
        return [builder.take(data, indices, axis + 1)]
    if not batched[0]:  # one array, rows of indices: their dims are the result's dims from `axis`
        return [_move(builder.take(data, indices, axis), axis, 0)]
    size = op.operands[0].type.shape[axis]
    if size == 0:
        return None
    # Rows of both: one take from the rows merged along the axis, each row's indices shifted to its own.
    out = builder.take(_merged(data, axis), _row_offsets(indices, size), axis)
    return [_move(out, axis, 0)]


@family.batching("tad.take_backward")
def _take_backward_batch(ctx, op, operands, batched):
    output_grad, indices = operands
    axis, shape = _axis(op), tuple(op.results[0].type.shape)
    if not batched[1]:
        return [builder.take_backward(output_grad, indices, axis + 1, (ctx.size,) + shape)]
    size = shape[axis]
    if size == 0:
        return None
    # Rows of indices: scatter into the rows merged along the axis, each row's indices shifted to its own.
    rows = (ctx.size,) + tuple(op.operands[0].type.shape)
    grad = output_grad if batched[0] else builder.broadcast_in_dim(output_grad, rows, range(1, len(rows)))
    merged = shape[:axis] + (ctx.size * size,) + shape[axis + 1:]
    out = builder.take_backward(_move(grad, 0, axis), _row_offsets(indices, size), axis, merged)
    return [_move(builder.reshape(out, shape[:axis] + (ctx.size, size) + shape[axis + 1:]), axis, 0)]
