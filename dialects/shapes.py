"""Shapes of ``tad`` ops: :class:`TensorSpec`, :func:`infer` and the toolkit shape rules are written with.

IRDL checks the kinds of operands, results and attributes; the shape rule in
each op's record (``tensorad.dialects.families``) checks everything about
shapes. The same rule serves two callers: the builder
(:mod:`tensorad.dialects.builder`) calls it to infer result types, and the
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

import threading
from dataclasses import dataclass
from math import prod
from typing import Callable, Optional

from mlir import ir

from .record import Trait, element_bytes, record_of


class ShapeError(ValueError):
    """Raised when an op's operands, attributes and results do not fit its rule."""


#: The size of a dynamic dimension (``?`` in ``tensor<?x4xf64>``), as MLIR spells it in a shape.
DYNAMIC = ir.ShapedType.get_dynamic_size()


def is_dynamic(n: int) -> bool:
    """Whether the size ``n`` of a dimension is dynamic (``?``).

    Examples
    --------
    >>> is_dynamic(DYNAMIC), is_dynamic(3)
    (True, False)
    """
    return n == DYNAMIC


def has_dynamic(shape) -> bool:
    """Whether a shape (or a :class:`TensorSpec`) has a dynamic dimension."""
    return any(map(is_dynamic, shape.shape if isinstance(shape, TensorSpec) else shape))


def dims_agree(a: int, b: int) -> bool:
    """Whether two dimension sizes may be equal: equal, or either one dynamic (known at run time only).

    A rule that accepts them requires them equal at run time: under
    :func:`relate_dims` this is recorded.

    Examples
    --------
    >>> dims_agree(3, 3), dims_agree(DYNAMIC, 3), dims_agree(2, 3)
    (True, True, False)
    """
    agree = a == b or is_dynamic(a) or is_dynamic(b)
    unify = getattr(_RELATING, "unify", None)
    if agree and unify is not None and isinstance(a, _Dim) and isinstance(b, _Dim):
        unify(a.key, b.key)
    return agree


class _Dim(int):
    """A dimension size that remembers which dim it is (``key``): rules pass it on unchanged."""

    key: object

    def __new__(cls, size: int, key):
        dim = super().__new__(cls, size)
        dim.key = key
        return dim


_RELATING = threading.local()  # .unify: the callback of relate_dims running on this thread


def relate_dims(op: ir.Operation, key, unify: Callable) -> None:
    """Tell ``unify(key_a, key_b)`` which dims of a ``tad`` op's operands and results are equal at run time.

    ``key(value, d)`` names dim ``d`` of an operand or result. The op's own
    shape rule says it: the rule runs on sizes tagged with their keys, and
    each pair of sizes it requires to agree (:func:`dims_agree`) and each
    result dim it takes from an operand is reported. An op without a rule,
    or one its rule refuses, reports nothing.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<?x3xf64>) -> tensor<3x?xf64> {
    ...   %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<?x3xf64>) -> tensor<3x?xf64>
    ...   return %0 : tensor<3x?xf64>
    ... }''', make_context())
    >>> transpose = m.body.operations[0].regions[0].blocks[0].operations[0]
    >>> pairs = []
    >>> relate_dims(transpose.operation, lambda v, d: (v.get_name(), d), lambda a, b: pairs.append((a, b)))
    >>> sorted(pairs)
    [(('%arg0', 0), ('%0', 1)), (('%arg0', 1), ('%0', 0))]
    """
    rec = record_of(op.name)
    if rec is None or rec.shape_rule is None:
        return

    def tagged(value: ir.Value) -> TensorSpec:
        spec = TensorSpec.of(value.type)
        return TensorSpec(tuple(_Dim(n, key(value, d)) for d, n in enumerate(spec.shape)), spec.element_type)

    try:
        with op.context:  # rules build types
            operands = [tagged(v) for v in op.operands]
            results = [tagged(v) for v in op.results]
            _RELATING.unify = unify
            inferred = infer(op.name, operands, python_attrs(op), results)
    except (ShapeError, KeyError):
        return
    finally:
        _RELATING.unify = None
    for spec, declared_spec in zip(inferred, results):
        for a, b in zip(spec.shape, declared_spec.shape):
            if isinstance(a, _Dim) and a.key != b.key:
                unify(a.key, b.key)


def shape_text(shape) -> str:
    """A shape as a list that spells dynamic sizes ``?`` (for messages).

    Examples
    --------
    >>> shape_text((DYNAMIC, 4))
    '[?, 4]'
    """
    return "[" + ", ".join("?" if is_dynamic(n) else str(n) for n in shape) + "]"


def accepts_dynamic(rule: Callable) -> Callable:
    """Mark a shape rule that handles dynamic dimensions (``?``): its op's lowering and rules do too.

    :func:`infer` refuses dynamic dimensions to an op whose rule is not
    marked, so an op that would need sizes it cannot get at run time (a
    ``tad.iota`` of type ``tensor<?xf32>``) is an error at its location.
    The rule compares sizes with :func:`dims_agree` and gives each result
    dim the size of the operand dim it comes from.
    """
    rule.accepts_dynamic = True
    return rule


def regrouped(shape) -> tuple:
    """``(core, groups)`` of a shape with dynamic dims: how a row-major reshape of it may proceed.

    ``core`` is the shape with each run of static dims between dynamic ones
    multiplied into one dim (a run of size-1 dims vanishes); ``groups[k]`` lists
    the dims of ``shape`` that core dim ``k`` gathers (size-1 dims join a
    neighbour), a reassociation that ``tensor.collapse_shape`` accepts. Two
    shapes with equal cores reshape into each other by collapsing one to the
    core and expanding the core to the other.

    Examples
    --------
    >>> core, groups = regrouped((DYNAMIC, 3, 4, 1))
    >>> shape_text(core), groups
    ('[?, 12]', [[0], [1, 2, 3]])
    """
    core, groups, run, waiting = [], [], [], []

    def close_run():
        sizes = [shape[d] for d in run]
        if run and prod(sizes) != 1:
            core.append(prod(sizes))
            groups.append(waiting + run)
            waiting.clear()
        elif groups:
            groups[-1].extend(run)
        else:  # leading size-1 dims join the first group
            waiting.extend(run)
        run.clear()

    for d, n in enumerate(shape):
        if is_dynamic(n):
            close_run()
            core.append(n)
            groups.append(waiting + [d])
            waiting.clear()
        else:
            run.append(d)
    close_run()
    if waiting:  # only size-1 dims: one group of them
        groups.append(waiting)
    return tuple(core), groups


@dataclass(frozen=True)
class TensorSpec:
    """A tensor type as plain Python: ``shape`` (:data:`DYNAMIC` for ``?``) and MLIR ``element_type``.

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
        """Read a ranked tensor type."""
        if not isinstance(t, ir.RankedTensorType):
            raise ShapeError(f"expected a ranked tensor, got {t}")
        return cls(tuple(t.shape), t.element_type)

    def to_type(self) -> ir.RankedTensorType:
        """Return the MLIR tensor type (needs an active context)."""
        return ir.RankedTensorType.get(list(self.shape), self.element_type)

    @property
    def rank(self) -> int:
        return len(self.shape)


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
        With a message that says which rule was broken; for dynamic
        dimensions (``?``) given to an op whose rule does not take them
        (see :func:`accepts_dynamic`).
    """
    rule = record_of(name).shape_rule
    if not getattr(rule, "accepts_dynamic", False):
        dynamic = next((s for s in [*operands, *(results or ())] if has_dynamic(s)), None)
        if dynamic is not None:
            raise ShapeError(f"takes no dynamic dimensions (?), got {dynamic.to_type()}: "
                             "it works on static shapes only")
    inferred = rule(operands, attrs, results)
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

    The lowering computes on IEEE floats up to 64 bits, complex numbers of
    f32 and f64 and signless integers; ``index`` and x87/quad floats have no lowering.

    Examples
    --------
    >>> with ir.Context():
    ...     element_type_problem(ir.F32Type.get()), element_type_problem(ir.IndexType.get())
    (None, 'element type index is not supported (f16, bf16, f32, f64, complex<f32>, complex<f64>, i1, i8, i16, i32 or i64)')
    """
    if isinstance(t, _FLOAT_ELEMENTS):
        return None
    if isinstance(t, ir.ComplexType) and isinstance(t.element_type, (ir.F32Type, ir.F64Type)):
        return None
    if isinstance(t, ir.IntegerType) and t.is_signless and t.width in _INTEGER_WIDTHS:
        return None
    return (f"element type {t} is not supported (f16, bf16, f32, f64, complex<f32>, complex<f64>, "
            "i1, i8, i16, i32 or i64)")


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
    n_bytes = prod(shape) * element_bytes(t.element_type)
    if n_bytes > MAX_TENSOR_BYTES:
        return f"{t} takes {n_bytes} bytes, more than fits in memory (2**63 - 1)"
    return None


def _sums_elements(rec) -> bool:
    """Whether an op's lowering adds or multiplies elements (contractions, reductions), which complex ones cannot."""
    traits = rec.traits
    return Trait.CONTRACTION in traits or (Trait.GENERIC_CONSUMER in traits and Trait.FUSIBLE not in traits)


def check_op(op: ir.Operation) -> Optional[str]:
    """Return why a ``tad`` op breaks its shape rule, or None when it is fine."""
    rec = record_of(op.name)
    if rec is None or rec.shape_rule is None:
        return None
    for value in [*op.operands, *op.results]:
        if isinstance(value.type, ir.ShapedType):
            problem = element_type_problem(value.type.element_type)
            if problem is not None:
                return problem
            if isinstance(value.type.element_type, ir.ComplexType) and _sums_elements(rec):
                return (f"element type {value.type.element_type} is not supported by {op.name}: complex sums and "
                        "products are built on the parts (tad.real, tad.imag, tad.complex)")
    try:
        operands = [TensorSpec.of(v.type) for v in op.operands]
        results = [TensorSpec.of(v.type) for v in op.results]
        infer(op.name, operands, python_attrs(op), results)
    except (ShapeError, KeyError) as err:
        if isinstance(err, KeyError):
            return f"missing attribute {err}"
        return str(err)
    return None


def need(cond: bool, message: str) -> None:
    if not cond:
        raise ShapeError(message)


def array_attr(attrs, key: str) -> tuple:
    value = attrs[key]
    need(isinstance(value, tuple), f"{key} must be an array<i64: ...> attribute")
    return value


def dims_attr(attrs, key: str, rank: int) -> tuple:
    dims = array_attr(attrs, key)
    for d in dims:
        need(0 <= d < rank, f"{key} value {d} is out of range for rank {rank}")
    need(len(set(dims)) == len(dims), f"{key} {list(dims)} repeats a dimension")
    return dims


def int_attr(attrs, key: str) -> int:
    attr = attrs[key]
    need(isinstance(attr, ir.IntegerAttr),
          f"{key} must be an integer attribute")
    return attr.value


def declared(results, name: str) -> TensorSpec:
    need(results is not None and len(results) == 1, f"{name} needs its result type")
    return results[0]


def same_element_type(a: TensorSpec, b: TensorSpec) -> None:
    need(a.element_type == b.element_type,
          f"element types differ: {a.element_type} vs {b.element_type}")


def window_attrs(attrs, kernel_key: Optional[str] = None):
    """Strides (2), padding (top, left, bottom, right) and dilation (2), checked."""
    strides, padding, dilation = (array_attr(attrs, k) for k in ("strides", "padding", "dilation"))
    need(len(strides) == 2 and len(dilation) == 2 and len(padding) == 4,
          "strides and dilation need 2 values, padding 4 (top, left, bottom, right)")
    need(min(strides + dilation) >= 1, "strides and dilation must be positive")
    need(min(padding) >= 0, "padding must be non-negative")
    kernel = array_attr(attrs, kernel_key) if kernel_key else None
    if kernel is not None:
        need(len(kernel) == 2 and min(kernel) >= 1, f"{kernel_key} needs 2 positive values")
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
    need(span >= 0, f"the window ({kernel} dilated by {dilation}) is larger than the padded "
                     f"input ({size} + {pad_low} + {pad_high})")
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + pad_low:  # the last window starts in padding
        out -= 1
    return out


def rank4(spec: TensorSpec, what: str) -> None:
    need(spec.rank == 4, f"{what} must be a rank-4 NCHW tensor, got rank {spec.rank}")


def gradient_of(what: str, forward: TensorSpec, output_grad: TensorSpec, out: TensorSpec):
    need(forward.shape == output_grad.shape,
          f"output_grad {list(output_grad.shape)} does not match the {what} output "
          f"{list(forward.shape)} for the declared result {list(out.shape)}")
    same_element_type(out, output_grad)
    return [out]


def floats(spec: TensorSpec, what: str) -> None:
    """Averages, gradients and log-probabilities are floating point (the lowering divides and negates)."""
    need(isinstance(spec.element_type, ir.FloatType), f"{what} must have a floating-point element type, "
                                                        f"got {spec.element_type}")


def integer_indices(indices: TensorSpec, what: str = "indices") -> None:
    need(isinstance(indices.element_type, ir.IntegerType) and indices.element_type.width > 1,
          f"{what} must be an integer tensor, got {indices.element_type}")
