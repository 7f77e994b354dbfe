"""Structure ops: broadcasting, reshapes, transposes, slices, padding, constants and conversions.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from mlir import ir

from ..record import Family, Trait
from ..shapes import TensorSpec, need, array_attr, dims_attr, int_attr, declared, same_element_type

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
def _broadcast_in_dim(operands, attrs, results):
    (x,) = operands
    out = declared(results, "broadcast_in_dim")
    same_element_type(x, out)
    dims = dims_attr(attrs, "broadcast_dimensions", out.rank)
    need(len(dims) == x.rank,
          f"broadcast_dimensions has {len(dims)} entries for an operand of rank {x.rank}")
    for i, d in enumerate(dims):
        need(x.shape[i] in (1, out.shape[d]),
              f"operand dimension {i} (size {x.shape[i]}) cannot broadcast to result "
              f"dimension {d} (size {out.shape[d]})")
    return [out]


@family.shape_rule("tad.reshape")
def _reshape(operands, attrs, results):
    (x,) = operands
    out = declared(results, "reshape")
    same_element_type(x, out)
    need(prod(x.shape) == prod(out.shape),
          f"cannot reshape {prod(x.shape)} elements {list(x.shape)} into {list(out.shape)}")
    return [out]


@family.shape_rule("tad.transpose")
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
def _convert(operands, attrs, results):
    (x,) = operands
    out = declared(results, "convert")
    need(x.shape == out.shape, f"convert cannot change the shape {list(x.shape)}")
    return [out]
