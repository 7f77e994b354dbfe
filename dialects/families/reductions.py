"""Reductions over dimensions: sums, extrema and ``argmax``.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from mlir import ir

from ..record import Family, Trait
from ..shapes import TensorSpec, need, dims_attr, int_attr

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
def _reduce(operands, attrs, results):
    (x,) = operands
    dims = dims_attr(attrs, "dimensions", x.rank)
    shape = tuple(n for d, n in enumerate(x.shape) if d not in dims)
    return [TensorSpec(shape, x.element_type)]


@family.shape_rule("tad.argmax")
def _argmax(operands, attrs, results):
    (x,) = operands
    (axis,) = dims_attr({"axis": (int_attr(attrs, "axis"),)}, "axis", x.rank)
    need(x.shape[axis] > 0, "argmax of an empty axis")
    shape = tuple(n for d, n in enumerate(x.shape) if d != axis)
    return [TensorSpec(shape, ir.IntegerType.get_signless(64))]


@family.flops("tad.reduce_sum", "tad.reduce_max", "tad.reduce_min", "tad.argmax")
def _reduction_flops(op) -> int:
    return prod(op.operands[0].type.shape)
