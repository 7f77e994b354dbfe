"""Shape rules of the ``tad`` ops: one small function per op.

IRDL checks the kinds of operands, results and attributes; everything about
shapes lives here. The same rule serves two callers: the op builders
(:mod:`tensorad.dialects.ops`) call it to infer result types, and the
``tad-verify`` pass calls it to check IR that was parsed or transformed.

Examples
--------
>>> from tensorad.dialects import make_context
>>> from mlir import ir
>>> with make_context():
...     f32 = ir.F32Type.get()
...     [out] = infer("tad.transpose", [TensorSpec((2, 3), f32)], {"permutation": (1, 0)})
>>> out.shape
(3, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Callable, Mapping, Optional, Sequence

from mlir import ir

from .rules import registrar


class ShapeError(ValueError):
    """Raised when an op's operands, attributes and results do not fit its rule."""


@dataclass(frozen=True)
class TensorSpec:
    """A static tensor type as plain Python: ``shape`` and MLIR ``element_type``.

    Examples
    --------
    >>> with ir.Context(), ir.Location.unknown():
    ...     TensorSpec.of(ir.RankedTensorType.get([2], ir.F64Type.get())).shape
    (2,)
    """

    shape: tuple
    element_type: ir.Type

    @classmethod
    def of(cls, t: ir.Type) -> "TensorSpec":
        """Read a ranked, statically shaped tensor type."""
        if not isinstance(t, ir.RankedTensorType):
            raise ShapeError(f"expected a ranked tensor, got {t}")
        tt = t
        if not tt.has_static_shape:
            raise ShapeError(f"expected a static shape, got {t}")
        return cls(tuple(tt.shape), tt.element_type)

    def to_type(self) -> ir.RankedTensorType:
        """Return the MLIR tensor type (needs an active context)."""
        return ir.RankedTensorType.get(list(self.shape), self.element_type)

    @property
    def rank(self) -> int:
        return len(self.shape)


Rule = Callable[[Sequence[TensorSpec], Mapping[str, object], Optional[Sequence[TensorSpec]]], list]
SHAPE_RULES: dict[str, Rule] = {}


shape_rule = registrar(SHAPE_RULES)
shape_rule.__doc__ = """``@shape_rule(*op_names)``: register the shape rule of these ops."""


def infer(name, operands, attrs, results=None) -> list:
    """Check an op and return its result specs.

    Parameters
    ----------
    name : str
        Op name, e.g. ``"tad.transpose"``.
    operands : sequence of TensorSpec
    attrs : mapping
        Attributes as Python values (see :func:`python_attrs`).
    results : sequence of TensorSpec, optional
        Declared results. Ops whose results cannot be inferred (``reshape``,
        ``broadcast_in_dim``, ``iota``, ``constant``, ``convert``) need them.

    Raises
    ------
    ShapeError
        With a message that says which rule was broken.
    """
    inferred = SHAPE_RULES[name](operands, attrs, results)
    if results is not None and list(results) != list(inferred):
        got = ", ".join(str(r.to_type()) for r in results)
        want = ", ".join(str(r.to_type()) for r in inferred)
        raise ShapeError(f"result type {got} does not match the inferred type {want}")
    return inferred


def python_attrs(op: ir.Operation) -> dict:
    """Return an op's attributes as Python values.

    Dense i64 arrays become tuples of ints; anything else is returned as the
    ``ir.Attribute`` itself.
    """
    return {name: attr_to_python(op.attributes[name]) for name in op.attributes}


def attr_to_python(attr: ir.Attribute):
    """Dense i64 array -> tuple of ints; any other attribute unchanged."""
    if isinstance(attr, ir.DenseI64ArrayAttr):
        return tuple(ir.DenseI64ArrayAttr(attr))
    return attr


# Compiled code addresses memory with signed 64-bit byte offsets.
MAX_TENSOR_BYTES = (1 << 63) - 1
_FLOAT_ELEMENTS = (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)
_INTEGER_WIDTHS = (1, 8, 16, 32, 64)


def element_type_problem(t: ir.Type) -> Optional[str]:
    """Why ``tad`` ops cannot hold elements of type ``t``, or None when they can.

    The lowering computes on IEEE floats up to 64 bits and on signless
    integers; ``index``, complex and x87/quad floats have no lowering.

    Examples
    --------
    >>> with ir.Context():
    ...     element_type_problem(ir.F32Type.get()), element_type_problem(ir.IndexType.get())
    (None, 'element type index is not supported (f16, bf16, f32, f64, i1, i8, i16, i32 or i64)')
    """
    if isinstance(t, _FLOAT_ELEMENTS):
        return None
    if isinstance(t, ir.IntegerType) and t.is_signless and t.width in _INTEGER_WIDTHS:
        return None
    return f"element type {t} is not supported (f16, bf16, f32, f64, i1, i8, i16, i32 or i64)"


def size_problem(t: ir.Type) -> Optional[str]:
    """Why no buffer can hold a value of type ``t`` (its bytes overflow int64), or None.

    Examples
    --------
    >>> with ir.Context(), ir.Location.unknown():
    ...     f64 = ir.F64Type.get()
    ...     size_problem(ir.RankedTensorType.get([2, 3], f64)) is None
    ...     size_problem(ir.RankedTensorType.get([1 << 62, 4], f64))
    True
    'tensor<4611686018427387904x4xf64> takes 147573952589676412928 bytes, more than fits in memory (2**63 - 1)'
    """
    if not isinstance(t, (ir.RankedTensorType, ir.MemRefType)):
        return None
    shape = [n for n in t.shape if n != ir.ShapedType.get_dynamic_size()]
    element = t.element_type
    width = element.width if isinstance(element, (ir.IntegerType, ir.FloatType)) else 64
    n_bytes = prod(shape) * max(width // 8, 1)
    if n_bytes > MAX_TENSOR_BYTES:
        return f"{t} takes {n_bytes} bytes, more than fits in memory (2**63 - 1)"
    return None


def check_op(op: ir.Operation) -> Optional[str]:
    """Return why a ``tad`` op breaks its shape rule, or None when it is fine."""
    rule = SHAPE_RULES.get(op.name)
    if rule is None:
        return None
    for value in [*op.operands, *op.results]:
        if isinstance(value.type, ir.ShapedType):
            problem = element_type_problem(value.type.element_type)
            if problem is not None:
                return problem
    try:
        operands = [TensorSpec.of(v.type) for v in op.operands]
        results = [TensorSpec.of(v.type) for v in op.results]
        infer(op.name, operands, python_attrs(op), results)
    except (ShapeError, KeyError) as err:
        if isinstance(err, KeyError):
            return f"missing attribute {err}"
        return str(err)
    return None


def _need(cond: bool, message: str) -> None:
    if not cond:
        raise ShapeError(message)


def _array(attrs, key: str) -> tuple:
    value = attrs[key]
    _need(isinstance(value, tuple), f"{key} must be an array<i64: ...> attribute")
    return value


def _dims(attrs, key: str, rank: int) -> tuple:
    dims = _array(attrs, key)
    for d in dims:
        _need(0 <= d < rank, f"{key} value {d} is out of range for rank {rank}")
    _need(len(set(dims)) == len(dims), f"{key} {list(dims)} repeats a dimension")
    return dims


def _int_attr(attrs, key: str) -> int:
    attr = attrs[key]
    _need(isinstance(attr, ir.IntegerAttr),
          f"{key} must be an integer attribute")
    return attr.value


def _declared(results, name: str) -> TensorSpec:
    _need(results is not None and len(results) == 1, f"{name} needs its result type")
    return results[0]


def _same_element_type(a: TensorSpec, b: TensorSpec) -> None:
    _need(a.element_type == b.element_type,
          f"element types differ: {a.element_type} vs {b.element_type}")


@shape_rule("tad.broadcast_in_dim")
def _broadcast_in_dim(operands, attrs, results):
    (x,) = operands
    out = _declared(results, "broadcast_in_dim")
    _same_element_type(x, out)
    dims = _dims(attrs, "broadcast_dimensions", out.rank)
    _need(len(dims) == x.rank,
          f"broadcast_dimensions has {len(dims)} entries for an operand of rank {x.rank}")
    for i, d in enumerate(dims):
        _need(x.shape[i] in (1, out.shape[d]),
              f"operand dimension {i} (size {x.shape[i]}) cannot broadcast to result "
              f"dimension {d} (size {out.shape[d]})")
    return [out]


@shape_rule("tad.reshape")
def _reshape(operands, attrs, results):
    (x,) = operands
    out = _declared(results, "reshape")
    _same_element_type(x, out)
    _need(prod(x.shape) == prod(out.shape),
          f"cannot reshape {prod(x.shape)} elements {list(x.shape)} into {list(out.shape)}")
    return [out]


@shape_rule("tad.transpose")
def _transpose(operands, attrs, results):
    (x,) = operands
    perm = _dims(attrs, "permutation", x.rank)
    _need(len(perm) == x.rank, f"permutation {list(perm)} does not fit rank {x.rank}")
    return [TensorSpec(tuple(x.shape[p] for p in perm), x.element_type)]


@shape_rule("tad.slice")
def _slice(operands, attrs, results):
    (x,) = operands
    start, limit, strides = (_array(attrs, k) for k in ("start_indices", "limit_indices", "strides"))
    _need(len(start) == len(limit) == len(strides) == x.rank,
          f"slice needs {x.rank} start, limit and stride values")
    shape = []
    for d, (lo, hi, st) in enumerate(zip(start, limit, strides)):
        _need(0 <= lo <= hi <= x.shape[d],
              f"slice [{lo}, {hi}) is out of bounds for dimension {d} of size {x.shape[d]}")
        _need(st >= 1, f"stride {st} of dimension {d} must be positive")
        shape.append(-(-(hi - lo) // st))
    return [TensorSpec(tuple(shape), x.element_type)]


@shape_rule("tad.pad")
def _pad(operands, attrs, results):
    x, value = operands
    _need(value.rank == 0, "padding_value must be a rank-0 tensor")
    _same_element_type(x, value)
    keys = ("edge_padding_low", "edge_padding_high", "interior_padding")
    low, high, interior = (_array(attrs, k) for k in keys)
    _need(len(low) == len(high) == len(interior) == x.rank,
          f"pad needs {x.rank} low, high and interior values")
    _need(min(low + high + interior, default=0) >= 0, "padding must be non-negative")
    shape = tuple(lo + hi + n + max(n - 1, 0) * it
                  for n, lo, hi, it in zip(x.shape, low, high, interior))
    return [TensorSpec(shape, x.element_type)]


@shape_rule("tad.iota")
def _iota(operands, attrs, results):
    out = _declared(results, "iota")
    _dims({"iota_dimension": (_int_attr(attrs, "iota_dimension"),)}, "iota_dimension", out.rank)
    return [out]


@shape_rule("tad.constant")
def _constant(operands, attrs, results):
    out = _declared(results, "constant")
    value = attrs["value"]
    _need(isinstance(value, (ir.FloatAttr, ir.IntegerAttr, ir.BoolAttr)), "value must be a scalar integer or float attribute")
    _need(value.type == out.element_type,
          f"value of type {value.type} does not match element type {out.element_type}")
    return [out]


@shape_rule("tad.convert")
def _convert(operands, attrs, results):
    (x,) = operands
    out = _declared(results, "convert")
    _need(x.shape == out.shape, f"convert cannot change the shape {list(x.shape)}")
    return [out]


@shape_rule("tad.dot_general")
def _dot_general(operands, attrs, results):
    lhs, rhs = operands
    _same_element_type(lhs, rhs)
    lb = _dims(attrs, "lhs_batching_dimensions", lhs.rank)
    rb = _dims(attrs, "rhs_batching_dimensions", rhs.rank)
    lc = _dims(attrs, "lhs_contracting_dimensions", lhs.rank)
    rc = _dims(attrs, "rhs_contracting_dimensions", rhs.rank)
    _need(len(lb) == len(rb), "lhs and rhs need as many batching dimensions")
    _need(len(lc) == len(rc), "lhs and rhs need as many contracting dimensions")
    _need(not set(lb) & set(lc), "an lhs dimension is both batching and contracting")
    _need(not set(rb) & set(rc), "an rhs dimension is both batching and contracting")
    for kind, ld, rd in (("batching", lb, rb), ("contracting", lc, rc)):
        for a, b in zip(ld, rd):
            _need(lhs.shape[a] == rhs.shape[b],
                  f"{kind} dimension sizes differ: lhs dim {a} has {lhs.shape[a]}, "
                  f"rhs dim {b} has {rhs.shape[b]}")
    lfree = [d for d in range(lhs.rank) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.rank) if d not in rb and d not in rc]
    shape = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lfree]
             + [rhs.shape[d] for d in rfree])
    return [TensorSpec(tuple(shape), lhs.element_type)]


def _reduce(operands, attrs, results):
    (x,) = operands
    dims = _dims(attrs, "dimensions", x.rank)
    shape = tuple(n for d, n in enumerate(x.shape) if d not in dims)
    return [TensorSpec(shape, x.element_type)]


for _name in ("tad.reduce_sum", "tad.reduce_max", "tad.reduce_min"):
    shape_rule(_name)(_reduce)


@shape_rule("tad.argmax")
def _argmax(operands, attrs, results):
    (x,) = operands
    (axis,) = _dims({"axis": (_int_attr(attrs, "axis"),)}, "axis", x.rank)
    _need(x.shape[axis] > 0, "argmax of an empty axis")
    shape = tuple(n for d, n in enumerate(x.shape) if d != axis)
    return [TensorSpec(shape, ir.IntegerType.get_signless(64))]


def _identity(operands, attrs, results):
    (x,) = operands
    return [x]


for _name in ("tad.stop_gradient", "tad.start_checkpoint", "tad.end_checkpoint"):
    shape_rule(_name)(_identity)


# ----------------------------------------------------------------------------
# Neural-network and indexing ops
# ----------------------------------------------------------------------------

def _window_attrs(attrs, kernel_key: Optional[str] = None):
    """Strides (2), padding (top, left, bottom, right) and dilation (2), checked."""
    strides, padding, dilation = (_array(attrs, k) for k in ("strides", "padding", "dilation"))
    _need(len(strides) == 2 and len(dilation) == 2 and len(padding) == 4,
          "strides and dilation need 2 values, padding 4 (top, left, bottom, right)")
    _need(min(strides + dilation) >= 1, "strides and dilation must be positive")
    _need(min(padding) >= 0, "padding must be non-negative")
    kernel = _array(attrs, kernel_key) if kernel_key else None
    if kernel is not None:
        _need(len(kernel) == 2 and min(kernel) >= 1, f"{kernel_key} needs 2 positive values")
    return strides, padding, dilation, kernel


def window_output_size(size: int, kernel: int, stride: int, pad_low: int, pad_high: int,
                       dilation: int, ceil_mode: bool = False) -> int:
    """Output length of a sliding window (PyTorch's rule for ``ceil_mode``).

    Examples
    --------
    >>> window_output_size(8, 3, 1, 1, 1, 1), window_output_size(5, 2, 2, 0, 0, 1, True)
    (8, 3)
    """
    span = size + pad_low + pad_high - dilation * (kernel - 1) - 1
    _need(span >= 0, f"the window ({kernel} dilated by {dilation}) is larger than the padded "
                     f"input ({size} + {pad_low} + {pad_high})")
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad_low:  # the last window starts in padding
        out -= 1
    return out


def _rank4(spec: TensorSpec, what: str) -> None:
    _need(spec.rank == 4, f"{what} must be a rank-4 NCHW tensor, got rank {spec.rank}")


def _conv_output(data: TensorSpec, weight: TensorSpec, attrs) -> TensorSpec:
    _rank4(data, "data")
    _rank4(weight, "weight (OIHW)")
    _same_element_type(data, weight)
    strides, padding, dilation, _ = _window_attrs(attrs)
    groups = _int_attr(attrs, "groups")
    n, c, h, w = data.shape
    o, cg, kh, kw = weight.shape
    _need(groups >= 1 and c % groups == 0 and o % groups == 0,
          f"groups {groups} must divide the {c} input and {o} output channels")
    _need(cg * groups == c, f"weight has {cg} input channels per group, data {c} channels "
                            f"in {groups} groups")
    oh = window_output_size(h, kh, strides[0], padding[0], padding[2], dilation[0])
    ow = window_output_size(w, kw, strides[1], padding[1], padding[3], dilation[1])
    return TensorSpec((n, o, oh, ow), data.element_type)


@shape_rule("tad.conv2d")
def _conv2d(operands, attrs, results):
    data, weight = operands
    return [_conv_output(data, weight, attrs)]


def _gradient_of(what: str, forward: TensorSpec, output_grad: TensorSpec, out: TensorSpec):
    _need(forward.shape == output_grad.shape,
          f"output_grad {list(output_grad.shape)} does not match the {what} output "
          f"{list(forward.shape)} for the declared result {list(out.shape)}")
    _same_element_type(out, output_grad)
    return [out]


@shape_rule("tad.conv2d_backward_data")
def _conv2d_backward_data(operands, attrs, results):
    output_grad, weight = operands
    out = _declared(results, "conv2d_backward_data")
    return _gradient_of("conv2d", _conv_output(out, weight, attrs), output_grad, out)


@shape_rule("tad.conv2d_backward_filter")
def _conv2d_backward_filter(operands, attrs, results):
    output_grad, data = operands
    out = _declared(results, "conv2d_backward_filter")
    return _gradient_of("conv2d", _conv_output(data, out, attrs), output_grad, out)


def _pool_output(data: TensorSpec, attrs) -> TensorSpec:
    _rank4(data, "data")
    strides, padding, dilation, kernel = _window_attrs(attrs, "pool_size")
    ceil_mode = bool(_int_attr(attrs, "ceil_mode"))
    n, c, h, w = data.shape
    oh = window_output_size(h, kernel[0], strides[0], padding[0], padding[2], dilation[0], ceil_mode)
    ow = window_output_size(w, kernel[1], strides[1], padding[1], padding[3], dilation[1], ceil_mode)
    return TensorSpec((n, c, oh, ow), data.element_type)


def _floats(spec: TensorSpec, what: str) -> None:
    """Averages, gradients and log-probabilities are floating point (the lowering divides and negates)."""
    _need(isinstance(spec.element_type, ir.FloatType), f"{what} must have a floating-point element type, "
                                                        f"got {spec.element_type}")


@shape_rule("tad.max_pool2d")
def _pool(operands, attrs, results):
    (data,) = operands
    return [_pool_output(data, attrs)]


@shape_rule("tad.avg_pool2d")
def _avg_pool(operands, attrs, results):
    (data,) = operands
    _floats(data, "data")
    return [_pool_output(data, attrs)]


@shape_rule("tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_backward(operands, attrs, results):
    output_grad, data = operands
    _floats(output_grad, "output_grad")
    return _gradient_of("pooling", _pool_output(data, attrs), output_grad, data)


def _integer_indices(indices: TensorSpec, what: str = "indices") -> None:
    _need(isinstance(indices.element_type, ir.IntegerType) and indices.element_type.width > 1,
          f"{what} must be an integer tensor, got {indices.element_type}")


def _take_output(data: TensorSpec, indices: TensorSpec, attrs) -> TensorSpec:
    _integer_indices(indices)
    (axis,) = _dims({"axis": (_int_attr(attrs, "axis"),)}, "axis", data.rank)
    return TensorSpec(data.shape[:axis] + indices.shape + data.shape[axis + 1:], data.element_type)


@shape_rule("tad.take")
def _take(operands, attrs, results):
    data, indices = operands
    return [_take_output(data, indices, attrs)]


@shape_rule("tad.take_backward")
def _take_backward(operands, attrs, results):
    output_grad, indices = operands
    out = _declared(results, "take_backward")
    return _gradient_of("take", _take_output(out, indices, attrs), output_grad, out)


def _nll_output(predictions: TensorSpec, targets: TensorSpec, weights: TensorSpec, attrs):
    _integer_indices(targets, "targets")
    reduction = attrs["reduction"]
    _need(isinstance(reduction, ir.StringAttr) and reduction.value in ("mean", "sum", "none"),
          "reduction must be \"mean\", \"sum\" or \"none\"")
    _int_attr(attrs, "ignore_index")
    _need(predictions.rank in (1, 2), "predictions must be (C) or (N, C) log-probabilities")
    _need(targets.shape == predictions.shape[:-1],
          f"targets {list(targets.shape)} do not match predictions {list(predictions.shape)}")
    _need(weights.shape == predictions.shape[-1:], f"weights need shape [{predictions.shape[-1]}]")
    _same_element_type(predictions, weights)
    _floats(predictions, "predictions")
    shape = targets.shape if reduction.value == "none" else ()
    return TensorSpec(shape, predictions.element_type)


@shape_rule("tad.nll_loss")
def _nll_loss(operands, attrs, results):
    return [_nll_output(*operands, attrs)]


@shape_rule("tad.nll_loss_backward")
def _nll_loss_backward(operands, attrs, results):
    output_grad, predictions, targets, weights = operands
    return _gradient_of("nll_loss", _nll_output(predictions, targets, weights, attrs),
                        output_grad, predictions)
