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


def _add_into(acc: ir.Value, update: ir.Value) -> ir.Value:
    """``acc + update`` written into ``acc`` (its buffer, after bufferization)."""
    rank = acc.type.rank
    add = linalg.ADD[linalg.category(acc.type.element_type)]
    identity = linalg.affine_map(rank, range(rank))
    [out] = linalg.generic([update], [acc], [identity, identity], ["parallel"] * rank,
                           lambda u, a: [add(a, u)])
    return out


@family.lowering("tad.take_backward")
def _lower_take_backward(op):
    output_grad, indices = op.operands
    t, axis = op.results[0].type, _axis(op)
    size = t.shape[axis]
    zeros = _zeros(t)
    if size == 0:  # the result is empty: nowhere to scatter to
        return [zeros]
    # One position per index: indices flattened to (M), output_grad viewed as
    # data[:axis] + (M) + data[axis+1:].
    flat_indices = linalg.to_flat(indices)
    count = flat_indices.type.shape[0]
    rows = t.shape[:axis] + [count] + t.shape[axis + 1:]
    if indices.type.rank != 1:
        output_grad = linalg.from_flat(linalg.to_flat(output_grad),
                                       ir.RankedTensorType.get(rows, t.element_type))
    slab = list(t.shape)
    slab[axis] = 1
    slab_type = ir.RankedTensorType.get(slab, t.element_type)
    loop = scf.ForOp(index_constant(0), index_constant(count), index_constant(1), [zeros])
    with ir.InsertionPoint(loop.body):
        m, acc = loop.induction_variable, loop.inner_iter_args[0]
        target = clamp_index(as_index(tensor.ExtractOp(flat_indices, [m]).result), size)
        update = tensor.ExtractSliceOp(slab_type, output_grad, **_slice_at(axis, m, slab))
        current = tensor.ExtractSliceOp(slab_type, acc, **_slice_at(axis, target, slab))
        summed = _add_into(current.result, update.result)
        scf.YieldOp([tensor.InsertSliceOp(summed, acc, **_slice_at(axis, target, slab)).result])
    return [loop.results[0]]


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
