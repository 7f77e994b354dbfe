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


def check_op(op: ir.Operation) -> Optional[str]:
    """Return why a ``tad`` op breaks its shape rule, or None when it is fine."""
    rule = SHAPE_RULES.get(op.name)
    if rule is None:
        return None
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
