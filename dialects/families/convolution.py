"""2-D convolution and its two backward ops (NCHW data, OIHW weights).

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from ..record import Family, Trait
from ..shapes import TensorSpec, need, int_attr, declared, same_element_type, window_attrs, window_output_size, rank4, gradient_of

family = Family("convolution")

family.define("tad.conv2d",
              operands=("data", "weight"),
              attributes=(("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("groups", "integer")),
              summary="2-D convolution, data NCHW, weight OIHW (O, C/groups, KH, KW); padding = (top, left, bottom, right).",
              traits=(Trait.PURE,))
family.define("tad.conv2d_backward_data",
              operands=("output_grad", "weight"),
              attributes=(("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("groups", "integer")),
              summary="Gradient of conv2d with respect to its data (result: the data's shape).",
              traits=(Trait.PURE,))
family.define("tad.conv2d_backward_filter",
              operands=("output_grad", "data"),
              attributes=(("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("groups", "integer")),
              summary="Gradient of conv2d with respect to its weight (result: the weight's shape).",
              traits=(Trait.PURE,))


def _conv_output(data: TensorSpec, weight: TensorSpec, attrs) -> TensorSpec:
    rank4(data, "data")
    rank4(weight, "weight (OIHW)")
    same_element_type(data, weight)
    strides, padding, dilation, _ = window_attrs(attrs)
    groups = int_attr(attrs, "groups")
    n, c, h, w = data.shape
    o, cg, kh, kw = weight.shape
    need(groups >= 1 and c % groups == 0 and o % groups == 0,
          f"groups {groups} must divide the {c} input and {o} output channels")
    need(cg * groups == c, f"weight has {cg} input channels per group, data {c} channels "
                            f"in {groups} groups")
    oh = window_output_size(h, kh, strides[0], padding[0], padding[2], dilation[0])
    ow = window_output_size(w, kw, strides[1], padding[1], padding[3], dilation[1])
    return TensorSpec((n, o, oh, ow), data.element_type)


@family.shape_rule("tad.conv2d")
def _conv2d(operands, attrs, results):
    data, weight = operands
    return [_conv_output(data, weight, attrs)]


@family.shape_rule("tad.conv2d_backward_data")
def _conv2d_backward_data(operands, attrs, results):
    output_grad, weight = operands
    out = declared(results, "conv2d_backward_data")
    return gradient_of("conv2d", _conv_output(out, weight, attrs), output_grad, out)


@family.shape_rule("tad.conv2d_backward_filter")
def _conv2d_backward_filter(operands, attrs, results):
    output_grad, data = operands
    out = declared(results, "conv2d_backward_filter")
    return gradient_of("conv2d", _conv_output(data, out, attrs), output_grad, out)


@family.flops("tad.conv2d", "tad.conv2d_backward_data", "tad.conv2d_backward_filter")
def _conv_flops(op) -> int:
    # Every conv op does 2 * N*O*OH*OW * (C/groups)*KH*KW multiply-adds.
    output = op.results[0] if op.name == "tad.conv2d" else op.operands[0]
    weight = op.results[0] if op.name == "tad.conv2d_backward_filter" else op.operands[1]
    return 2 * prod(output.type.shape) * prod(weight.type.shape[1:])
