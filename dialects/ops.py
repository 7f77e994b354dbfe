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
from mlir.dialects import arith, tensor

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
    return _build("tad.iota", [], {"iota_dimension": _i64(dimension)},
                  TensorSpec(tuple(shape), element_type))


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
    return _build("tad.argmax", [x], {"axis": _i64(axis)})


def _i64(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def _window(strides, padding, dilation) -> dict:
    return {"strides": _i64_array(strides), "padding": _i64_array(padding),
            "dilation": _i64_array(dilation)}


def _like(x: ir.Value, shape: Sequence[int]) -> TensorSpec:
    return TensorSpec(tuple(shape), TensorSpec.of(x.type).element_type)


def conv2d(data: ir.Value, weight: ir.Value, strides=(1, 1), padding=(0, 0, 0, 0),
           dilation=(1, 1), groups: int = 1) -> ir.Value:
    """2-D convolution of NCHW ``data`` with OIHW ``weight``; padding is (top, left, bottom, right)."""
    return _build("tad.conv2d", [data, weight],
                  {**_window(strides, padding, dilation), "groups": _i64(groups)})


def conv2d_backward_data(output_grad: ir.Value, weight: ir.Value, data_shape: Sequence[int],
                         strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
                         groups: int = 1) -> ir.Value:
    """Gradient of :func:`conv2d` with respect to data of shape ``data_shape``."""
    return _build("tad.conv2d_backward_data", [output_grad, weight],
                  {**_window(strides, padding, dilation), "groups": _i64(groups)},
                  _like(output_grad, data_shape))


def conv2d_backward_filter(output_grad: ir.Value, data: ir.Value, weight_shape: Sequence[int],
                           strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
                           groups: int = 1) -> ir.Value:
    """Gradient of :func:`conv2d` with respect to a weight of shape ``weight_shape``."""
    return _build("tad.conv2d_backward_filter", [output_grad, data],
                  {**_window(strides, padding, dilation), "groups": _i64(groups)},
                  _like(output_grad, weight_shape))


def _pool_attrs(kind: str, pool_size, strides, padding, dilation, ceil_mode, count_include_pad):
    attrs = {**_window(strides, padding, dilation), "pool_size": _i64_array(pool_size),
             "ceil_mode": _i64(bool(ceil_mode))}
    if kind == "avg":
        attrs["count_include_pad"] = _i64(bool(count_include_pad))
    return attrs


def pool2d(kind: str, data: ir.Value, pool_size, strides, padding=(0, 0, 0, 0), dilation=(1, 1),
           ceil_mode: bool = False, count_include_pad: bool = True) -> ir.Value:
    """``tad.max_pool2d`` (``kind="max"``) or ``tad.avg_pool2d`` (``kind="avg"``) of NCHW ``data``."""
    return _build(f"tad.{kind}_pool2d", [data], _pool_attrs(
        kind, pool_size, strides, padding, dilation, ceil_mode, count_include_pad))


def pool2d_backward(kind: str, output_grad: ir.Value, data: ir.Value, pool_size, strides,
                    padding=(0, 0, 0, 0), dilation=(1, 1), ceil_mode: bool = False,
                    count_include_pad: bool = True) -> ir.Value:
    """Gradient of :func:`pool2d` with respect to ``data``."""
    return _build(f"tad.{kind}_pool2d_backward", [output_grad, data], _pool_attrs(
        kind, pool_size, strides, padding, dilation, ceil_mode, count_include_pad))


def take(data: ir.Value, indices: ir.Value, axis: int) -> ir.Value:
    """Gather ``data`` along ``axis`` at integer ``indices``."""
    return _build("tad.take", [data, indices], {"axis": _i64(axis)})


def take_backward(output_grad: ir.Value, indices: ir.Value, axis: int,
                  data_shape: Sequence[int]) -> ir.Value:
    """Scatter-add ``output_grad`` back to ``data_shape`` (gradient of :func:`take`)."""
    return _build("tad.take_backward", [output_grad, indices], {"axis": _i64(axis)},
                  _like(output_grad, data_shape))


def _nll_attrs(reduction: str, ignore_index: int) -> dict:
    return {"reduction": ir.StringAttr.get(reduction), "ignore_index": _i64(ignore_index)}


def nll_loss(predictions: ir.Value, targets: ir.Value, weights: ir.Value, reduction: str = "mean",
             ignore_index: int = -100) -> ir.Value:
    """Negative log-likelihood of log-probabilities ``predictions`` at integer ``targets``."""
    return _build("tad.nll_loss", [predictions, targets, weights], _nll_attrs(reduction, ignore_index))


def nll_loss_backward(output_grad: ir.Value, predictions: ir.Value, targets: ir.Value,
                      weights: ir.Value, reduction: str = "mean", ignore_index: int = -100) -> ir.Value:
    """Gradient of :func:`nll_loss` with respect to ``predictions``."""
    return _build("tad.nll_loss_backward", [output_grad, predictions, targets, weights],
                  _nll_attrs(reduction, ignore_index))


def _mixed(values: Sequence, sentinel: int) -> tuple:
    """(static list with ``sentinel`` for values, the ``ir.Value`` entries) of a mixed list."""
    return ([sentinel if isinstance(v, ir.Value) else int(v) for v in values],
            [v for v in values if isinstance(v, ir.Value)])


def _no_elements(t: ir.Type) -> bool:
    return 0 in list(t.shape)


def extract_slice(source: ir.Value, result_type: ir.Type, offsets: Sequence, sizes: Sequence,
                  strides: Sequence) -> ir.Value:
    """``tensor.extract_slice`` of ``source``; ``offsets``/``sizes``/``strides`` mix ints and index values.

    A slice with no elements reads nothing and is a ``tensor.empty``: upstream
    verification rejects any static offset into a zero-size dim, and an empty
    slice may start past the end of its dim (``v[2:3]`` of a length-1 ``v``).
    ``result_type`` may drop unit dims of ``sizes`` (a rank-reducing slice).

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         x = constant(1.0, (1, 0), f64)
    ...         piece = extract_slice(x, ir.RankedTensorType.get([0, 0], f64), [1, 0], [0, 0], [1, 1])
    >>> piece.owner.name, str(piece.type)
    ('tensor.empty', 'tensor<0x0xf64>')
    """
    static_offsets, dynamic_offsets = _mixed(offsets, ir.ShapedType.get_dynamic_stride_or_offset())
    static_sizes, dynamic_sizes = _mixed(sizes, ir.ShapedType.get_dynamic_size())
    static_strides, dynamic_strides = _mixed(strides, ir.ShapedType.get_dynamic_stride_or_offset())
    if _no_elements(result_type):
        # Dims dropped by a rank-reducing slice are static 1s, so the dynamic
        # sizes are the result's dynamic dims in order.
        remaining = iter(dynamic_sizes)
        shape = [next(remaining) if ir.ShapedType.is_dynamic_size(n) else n
                 for n in result_type.shape]
        return tensor.EmptyOp(shape, result_type.element_type).result
    return tensor.ExtractSliceOp(result_type, source, dynamic_offsets, dynamic_sizes,
                                 dynamic_strides, static_offsets, static_sizes,
                                 static_strides).result


def insert_slice(piece: ir.Value, into: ir.Value, offsets: Sequence, sizes: Sequence,
                 strides: Sequence) -> ir.Value:
    """``into`` with ``piece`` written at ``offsets`` (``tensor.insert_slice``; mixed lists as in :func:`extract_slice`).

    An empty ``piece`` writes nothing: the result is ``into`` itself.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         into = constant(0.0, (4,), f64)
    ...         out = insert_slice(constant(1.0, (2,), f64), into, [1], [2], [1])
    ...         unchanged = insert_slice(constant(1.0, (0,), f64), into, [4], [0], [1])
    >>> out.owner.name, unchanged == into
    ('tensor.insert_slice', True)
    """
    if _no_elements(piece.type):
        return into
    static_offsets, dynamic_offsets = _mixed(offsets, ir.ShapedType.get_dynamic_stride_or_offset())
    static_sizes, dynamic_sizes = _mixed(sizes, ir.ShapedType.get_dynamic_size())
    static_strides, dynamic_strides = _mixed(strides, ir.ShapedType.get_dynamic_stride_or_offset())
    return tensor.InsertSliceOp(piece, into, dynamic_offsets, dynamic_sizes, dynamic_strides,
                                static_offsets, static_sizes, static_strides).result


def dynamic_row(x: ir.Value, index: ir.Value) -> ir.Value:
    """Row ``x[index]`` for an ``index``-typed value (``tensor.extract_slice``, leading dim dropped)."""
    t = x.type
    rest = list(t.shape[1:])
    return extract_slice(x, ir.RankedTensorType.get(rest, t.element_type), [index] + [0] * len(rest),
                         [1] + rest, [1] * (len(rest) + 1))


def insert_row(stack: ir.Value, row: ir.Value, index: ir.Value) -> ir.Value:
    """``stack`` with ``stack[index] = row`` (``tensor.insert_slice``, done in place after bufferization)."""
    rest = list(row.type.shape)
    return insert_slice(row, stack, [index] + [0] * len(rest), [1] + rest, [1] * (len(rest) + 1))


def zeros_shaped_like(value: ir.Value, prefix: Sequence[int] = ()) -> ir.Value:
    """Zeros shaped ``prefix + value.shape``, the dynamic dims read from ``value`` (a loop tape's rows).

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         rows = tensor.EmptyOp([arith.ConstantOp(ir.IndexType.get(), 5).result, 3], f64).result
    ...         zeros = zeros_shaped_like(rows, (2,))
    >>> zeros.owner.name, str(zeros.type)
    ('tensor.splat', 'tensor<2x?x3xf64>')
    """
    t = value.type
    shape = list(prefix) + list(t.shape)
    dynamic = [d for d, n in enumerate(t.shape) if ir.ShapedType.is_dynamic_size(n)]
    if not dynamic:
        return constant(0, shape, t.element_type)
    sizes = [tensor.DimOp(value, arith.ConstantOp(ir.IndexType.get(), d).result).result
             for d in dynamic]
    zero = arith.ConstantOp(t.element_type, scalar_attr(0, t.element_type)).result
    return tensor.SplatOp(ir.RankedTensorType.get(shape, t.element_type), zero, sizes).result


def marker(kind: str, x: ir.Value) -> ir.Value:
    """Identity op ``tad.<kind>`` for ``stop_gradient``, ``start_checkpoint`` or ``end_checkpoint``."""
    return _build(f"tad.{kind}", [x], {})


__all__ = ["broadcast_in_dim", "reshape", "transpose", "slice_", "pad", "iota", "constant",
           "convert", "dot_general", "reduce", "argmax", "marker", "scalar_attr", "dynamic_row",
           "extract_slice", "insert_slice", "zeros_shaped_like",
           "insert_row", "conv2d", "conv2d_backward_data", "conv2d_backward_filter", "pool2d",
           "pool2d_backward", "take", "take_backward", "nll_loss", "nll_loss_backward"]
