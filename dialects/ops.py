"""Python builders for ``tad`` ops, with result types inferred by the shape rules.

Every builder inserts at the current ``ir.InsertionPoint`` with the current
``ir.Location`` and returns the new op's result value.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> with make_context(), ir.Location.unknown():
...     module = ir.Module.create()
...     f32 = ir.F32Type.get()
...     with ir.InsertionPoint(module.body):
...         x = constant(1.0, (2, 3), f32)
...         y = transpose(x, (1, 0))
>>> str(y.type)
'tensor<3x2xf32>'
"""

from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir.dialects import tensor

from .shapes import TensorSpec, attr_to_python, infer


def _i64_array(values: Sequence[int]) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def _build(name: str, operands: Sequence[ir.Value], attributes: dict,
           result: TensorSpec | None = None) -> ir.Value:
    """Create op ``name`` after checking it with its shape rule."""
    specs = [TensorSpec.of(v.type) for v in operands]
    py_attrs = {k: attr_to_python(a) for k, a in attributes.items()}
    [out] = infer(name, specs, py_attrs, None if result is None else [result])
    op = ir.Operation.create(name, results=[out.to_type()], operands=list(operands),
                             attributes=attributes)
    return op.result


def broadcast_in_dim(x: ir.Value, shape: Sequence[int], broadcast_dimensions: Sequence[int]) -> ir.Value:
    """Broadcast ``x`` to ``shape``; operand dim i becomes result dim ``broadcast_dimensions[i]``."""
    out = TensorSpec(tuple(shape), TensorSpec.of(x.type).element_type)
    return _build("tad.broadcast_in_dim", [x],
                  {"broadcast_dimensions": _i64_array(broadcast_dimensions)}, out)


def reshape(x: ir.Value, shape: Sequence[int]) -> ir.Value:
    """Row-major reshape of ``x`` to ``shape``."""
    out = TensorSpec(tuple(shape), TensorSpec.of(x.type).element_type)
    return _build("tad.reshape", [x], {}, out)


def transpose(x: ir.Value, permutation: Sequence[int]) -> ir.Value:
    """Permute the dimensions of ``x``: result dim i is operand dim ``permutation[i]``."""
    return _build("tad.transpose", [x], {"permutation": _i64_array(permutation)})


def slice_(x: ir.Value, start: Sequence[int], limit: Sequence[int], strides: Sequence[int]) -> ir.Value:
    """Strided slice ``x[start:limit:strides]`` along every dimension."""
    return _build("tad.slice", [x], {"start_indices": _i64_array(start),
                                     "limit_indices": _i64_array(limit),
                                     "strides": _i64_array(strides)})


def pad(x: ir.Value, value: ir.Value, low: Sequence[int], high: Sequence[int],
        interior: Sequence[int]) -> ir.Value:
    """Pad ``x`` with the rank-0 tensor ``value``: ``low``/``high`` at the edges, ``interior`` between elements."""
    return _build("tad.pad", [x, value], {"edge_padding_low": _i64_array(low),
                                          "edge_padding_high": _i64_array(high),
                                          "interior_padding": _i64_array(interior)})


def iota(shape: Sequence[int], dimension: int, element_type: ir.Type) -> ir.Value:
    """A tensor whose entries count along ``dimension`` (0, 1, 2, ...)."""
    attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(dimension))
    return _build("tad.iota", [], {"iota_dimension": attr}, TensorSpec(tuple(shape), element_type))


def scalar_attr(value, element_type: ir.Type) -> ir.Attribute:
    """Return ``value`` as a float or integer attribute of ``element_type``."""
    if isinstance(element_type, ir.FloatType):
        return ir.FloatAttr.get(element_type, float(value))
    return ir.IntegerAttr.get(element_type, int(value))


def constant(value, shape: Sequence[int], element_type: ir.Type) -> ir.Value:
    """A tensor of ``shape`` filled with the scalar ``value``."""
    return _build("tad.constant", [], {"value": scalar_attr(value, element_type)},
                  TensorSpec(tuple(shape), element_type))


def convert(x: ir.Value, element_type: ir.Type) -> ir.Value:
    """Convert the elements of ``x`` to ``element_type``."""
    return _build("tad.convert", [x], {}, TensorSpec(TensorSpec.of(x.type).shape, element_type))


def dot_general(lhs: ir.Value, rhs: ir.Value, lhs_batching: Sequence[int], rhs_batching: Sequence[int],
                lhs_contracting: Sequence[int], rhs_contracting: Sequence[int]) -> ir.Value:
    """General contraction; the result has batch dims, then lhs free dims, then rhs free dims."""
    return _build("tad.dot_general", [lhs, rhs], {
        "lhs_batching_dimensions": _i64_array(lhs_batching),
        "rhs_batching_dimensions": _i64_array(rhs_batching),
        "lhs_contracting_dimensions": _i64_array(lhs_contracting),
        "rhs_contracting_dimensions": _i64_array(rhs_contracting)})


def reduce(kind: str, x: ir.Value, dimensions: Sequence[int]) -> ir.Value:
    """Reduce ``x`` over ``dimensions`` with ``kind`` in ``{"sum", "max", "min"}``."""
    return _build(f"tad.reduce_{kind}", [x], {"dimensions": _i64_array(sorted(dimensions))})


def argmax(x: ir.Value, axis: int) -> ir.Value:
    """Index (i64) of the first maximum of ``x`` along ``axis``."""
    attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(axis))
    return _build("tad.argmax", [x], {"axis": attr})


def dynamic_row(x: ir.Value, index: ir.Value) -> ir.Value:
    """Row ``x[index]`` for an ``index``-typed value (``tensor.extract_slice``, leading dim dropped)."""
    t = x.type
    rest = list(t.shape[1:])
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return tensor.ExtractSliceOp(ir.RankedTensorType.get(rest, t.element_type), x, [index], [], [],
                                 [dynamic] + [0] * len(rest), [1] + rest,
                                 [1] * (len(rest) + 1)).result


def insert_row(stack: ir.Value, row: ir.Value, index: ir.Value) -> ir.Value:
    """``stack`` with ``stack[index] = row`` (``tensor.insert_slice``, done in place after bufferization)."""
    rest = list(row.type.shape)
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return tensor.InsertSliceOp(row, stack, [index], [], [], [dynamic] + [0] * len(rest),
                                [1] + rest, [1] * (len(rest) + 1)).result


def marker(kind: str, x: ir.Value) -> ir.Value:
    """Identity op ``tad.<kind>`` for ``stop_gradient``, ``start_checkpoint`` or ``end_checkpoint``."""
    return _build(f"tad.{kind}", [x], {})


__all__ = ["broadcast_in_dim", "reshape", "transpose", "slice_", "pad", "iota", "constant",
           "convert", "dot_general", "reduce", "argmax", "marker", "scalar_attr", "dynamic_row",
           "insert_row"]
