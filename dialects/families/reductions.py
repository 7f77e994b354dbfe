"""Reductions over dimensions: sums, extrema and ``argmax``.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from mlir import ir
from mlir.dialects import arith

from .. import builder
from .. import linalg_builder as linalg
from ..derivatives import deflinear
from ..record import Family, Trait
from ..shapes import TensorSpec, need, dims_attr, int_attr, python_attrs, accepts_dynamic

family = Family("reductions")

family.define("tad.reduce_sum",
              operands=("operand",),
              attributes=(("dimensions", "dense_array"),),
              summary="Sum over `dimensions` (removed from the result).",
              traits=(Trait.PURE, Trait.GENERIC_CONSUMER))
family.define("tad.reduce_max",
              operands=("operand",),
              attributes=(("dimensions", "dense_array"),),
              summary="Maximum over `dimensions` (removed from the result).",
              traits=(Trait.PURE, Trait.GENERIC_CONSUMER))
family.define("tad.reduce_min",
              operands=("operand",),
              attributes=(("dimensions", "dense_array"),),
              summary="Minimum over `dimensions` (removed from the result).",
              traits=(Trait.PURE, Trait.GENERIC_CONSUMER))
family.define("tad.argmax",
              operands=("operand",),
              attributes=(("axis", "integer"),),
              summary="Index (i64) of the first maximum along `axis` (removed from the result).",
              traits=(Trait.PURE, Trait.ZERO_DERIVATIVE))


@family.shape_rule("tad.reduce_sum", "tad.reduce_max", "tad.reduce_min")
@accepts_dynamic
def _reduce(operands, attrs, results):
    (x,) = operands
    dims = dims_attr(attrs, "dimensions", x.rank)
    shape = tuple(n for d, n in enumerate(x.shape) if d not in dims)
    return [TensorSpec(shape, x.element_type)]


@family.shape_rule("tad.argmax")
@accepts_dynamic
def _argmax(operands, attrs, results):
    (x,) = operands
    (axis,) = dims_attr({"axis": (int_attr(attrs, "axis"),)}, "axis", x.rank)
    need(x.shape[axis] != 0, "argmax of an empty axis")
    shape = tuple(n for d, n in enumerate(x.shape) if d != axis)
    return [TensorSpec(shape, ir.IntegerType.get_signless(64))]


@family.flops("tad.reduce_sum", "tad.reduce_max", "tad.reduce_min", "tad.argmax")
def _reduction_flops(op) -> int:
    return prod(op.operands[0].type.shape)


# --- folds ---------------------------------------------------------------------

@family.fold("tad.reduce_sum")
def _fold_nothing_reduced(op):
    # The shape rule keeps the operand's type only when no dim is reduced.
    x = op.operands[0]
    return x if x.type == op.results[0].type else None


@family.fold("tad.reduce_max", "tad.reduce_min")
def _fold_extremum(op):
    # The extremum of a splat is the splat (a sum of one is not).
    value = builder.splat_value(op.operands[0])
    if value is None or prod(op.operands[0].type.shape) == 0:
        return _fold_nothing_reduced(op)
    t = op.results[0].type
    return builder.constant(value.value, t.shape, t.element_type)


# --- lowerings -------------------------------------------------------------------

def _lower_reduction(op, identity, combiners) -> list:
    """One generic accumulating into a splat of ``identity`` with the element category's combiner."""
    x, t = op.operands[0], op.results[0].type
    dims = python_attrs(op)["dimensions"]
    combine = combiners[linalg.category(t.element_type)]
    sizes = linalg.dynamic_sizes(x, [d for d in range(x.type.rank) if d not in dims])
    return linalg.reduction(x, dims, [linalg.splat(identity(t.element_type), t, sizes)],
                            lambda a, acc: [combine(acc, a)])


@family.lowering("tad.reduce_sum")
def _lower_sum(op):
    x, t = op.operands[0], op.results[0].type
    if isinstance(t.element_type, ir.FloatType):
        return [linalg.float_sum(x, python_attrs(op)["dimensions"])]
    return _lower_reduction(op, linalg.zero_attr, linalg.ADD)


@family.lowering("tad.reduce_max")
def _lower_max(op):
    return _lower_reduction(op, linalg.lowest_attr, linalg.MAX)


@family.lowering("tad.reduce_min")
def _lower_min(op):
    return _lower_reduction(op, linalg.highest_attr, linalg.MIN)


@family.lowering("tad.argmax")
def _lower_argmax(op):
    # Only a strictly greater value replaces the running maximum, so with the
    # loops running in ascending order the FIRST maximum wins, as in numpy.
    x, t = op.operands[0], op.results[0].type
    axis = python_attrs(op)["axis"].value
    element = x.type.element_type
    sizes = linalg.dynamic_sizes(x, [d for d in range(x.type.rank) if d != axis])
    best = linalg.splat(linalg.lowest_attr(element), ir.RankedTensorType.get(t.shape, element), sizes)
    index = linalg.splat(linalg.zero_attr(t.element_type), t, sizes)

    def body(a, best_value, best_index):
        take = linalg.greater(a, best_value)
        i = linalg.index_scalar(axis, t.element_type)
        return [arith.select(take, a, best_value), arith.select(take, i, best_index)]

    return linalg.reduction(x, (axis,), [best, index], body)[1:]


# --- derivatives -----------------------------------------------------------------

def _expand_reduced(c, value, nb: int):
    """Broadcast a reduced value with a batch prefix of rank ``nb`` back over the reduced dims."""
    x, dims = c.inputs[0], c.attrs["dimensions"]
    kept = [d for d in range(x.ndim) if d not in dims]
    shape = tuple(value.shape[:nb]) + x.shape
    return builder.broadcast_in_dim(value, shape, list(range(nb)) + [d + nb for d in kept], like=x)


deflinear(family, "tad.reduce_sum",
          lambda c, ts: builder.sum(ts[0], [d + c.nb for d in c.attrs["dimensions"]]),
          lambda c, ct: [_expand_reduced(c, ct, c.nb)])


def _extremum_weights(c):
    """Where the operand attains the extremum, 1/(number of ties); elsewhere 0."""
    x = c.inputs[0]
    hits = builder.equal(x, _expand_reduced(c, c.outputs[0], 0)).astype(x.element_type)
    return hits / builder.sum(hits, c.attrs["dimensions"], keepdims=True)


@family.jvp("tad.reduce_max", "tad.reduce_min")
def _extremum_jvp(c, tangents):
    dims = [d + c.nb for d in c.attrs["dimensions"]]
    return [builder.sum(tangents[0] * _extremum_weights(c), dims)]


@family.vjp("tad.reduce_max", "tad.reduce_min")
def _extremum_vjp(c, cotangents):
    return [_expand_reduced(c, cotangents[0], c.nb) * _extremum_weights(c)]


# ----------------------------------------------------------------------------
# Batching rules (tad-batch): the mapped axis is axis 0 of every batched value
# ----------------------------------------------------------------------------

@family.batching("tad.reduce_sum", "tad.reduce_max", "tad.reduce_min")
def _reduce_batch(ctx, op, operands, batched):
    dims = [d + 1 for d in ir.DenseI64ArrayAttr(op.attributes["dimensions"])]
    return [builder.reduce(op.name.removeprefix("tad.reduce_"), operands[0], dims)]


@family.row_sum("tad.reduce_sum")
def _reduce_sum_row_sum(op, operands, stacked):
    # The sum over the rows of each row's sum: one sum over the rows' axis too.
    dims = [d + 1 for d in ir.DenseI64ArrayAttr(op.attributes["dimensions"])]
    return builder.reduce("sum", operands[0], [0] + dims)


@family.batching("tad.argmax")
def _argmax_batch(ctx, op, operands, batched):
    return [builder.argmax(operands[0], ir.IntegerAttr(op.attributes["axis"]).value + 1)]


# --- partitioning (tad-partition) ----------------------------------------------------------

@family.partition("tad.reduce_sum")
def _partition_sum(c):
    # Summing over the split dim leaves a partial sum on each process, added over processes.
    d, dims = c.dim(0), list(c.attrs["dimensions"])
    total = builder.build("tad.reduce_sum", [c.block(0, d)], {"dimensions": c.op.attributes["dimensions"]})
    if d in dims:
        return [c.add_partials(total)]
    return [(total, d - sum(1 for k in dims if k < d))]
