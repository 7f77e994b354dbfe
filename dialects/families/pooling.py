"""2-D max and average pooling and their backward ops.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from ..record import Family, Trait
from ..shapes import TensorSpec, int_attr, window_attrs, window_output_size, rank4, gradient_of, floats, python_attrs

family = Family("pooling")

family.define("tad.max_pool2d",
              operands=("data",),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer")),
              summary="Max pooling over NCHW windows; padding counts as -inf.",
              traits=(Trait.PURE,))
family.define("tad.avg_pool2d",
              operands=("data",),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer"), ("count_include_pad", "integer")),
              summary="Average pooling over NCHW windows.",
              traits=(Trait.PURE,))
family.define("tad.max_pool2d_backward",
              operands=("output_grad", "data"),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer")),
              summary="Routes each output gradient to the first maximum of its window (result: the data's shape).",
              traits=(Trait.PURE,))
family.define("tad.avg_pool2d_backward",
              operands=("output_grad", "data"),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer"), ("count_include_pad", "integer")),
              summary="Spreads each output gradient evenly over its window (result: the data's shape).",
              traits=(Trait.PURE,))


def _pool_output(data: TensorSpec, attrs) -> TensorSpec:
    rank4(data, "data")
    strides, padding, dilation, kernel = window_attrs(attrs, "pool_size")
    ceil_mode = bool(int_attr(attrs, "ceil_mode"))
    n, c, h, w = data.shape
    oh = window_output_size(h, kernel[0], strides[0], padding[0], padding[2], dilation[0], ceil_mode)
    ow = window_output_size(w, kernel[1], strides[1], padding[1], padding[3], dilation[1], ceil_mode)
    return TensorSpec((n, c, oh, ow), data.element_type)


@family.shape_rule("tad.max_pool2d")
def _pool(operands, attrs, results):
    (data,) = operands
    return [_pool_output(data, attrs)]


@family.shape_rule("tad.avg_pool2d")
def _avg_pool(operands, attrs, results):
    (data,) = operands
    floats(data, "data")
    return [_pool_output(data, attrs)]


@family.shape_rule("tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_backward(operands, attrs, results):
    output_grad, data = operands
    floats(output_grad, "output_grad")
    return gradient_of("pooling", _pool_output(data, attrs), output_grad, data)


@family.flops("tad.max_pool2d", "tad.avg_pool2d", "tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_flops(op) -> int:
    window = prod(python_attrs(op)["pool_size"])
    return max(prod(v.type.shape) for v in [*op.operands, *op.results]) * window
