"""Indexing: gather along an axis (``tad.take``) and its scatter-add.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from ..record import Family, Trait
from ..shapes import TensorSpec, dims_attr, int_attr, declared, gradient_of, integer_indices

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
