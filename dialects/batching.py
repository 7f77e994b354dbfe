"""What batching rules are written with: values whose leading axis is the mapped one.

``tad-batch`` keeps every mapped value with its mapped axis first, so a rule
sees operands that are either *batched* (``size`` rows of the original
operand, stacked along axis 0) or not, and returns results batched along
axis 0. A rule is registered on an op's record (``@family.batching(name)``)
with the signature::

    rule(ctx, op, operands, batched) -> list of results, or None

where ``ctx`` is a :class:`BatchContext` (``ctx.size`` is the length of the
mapped axis), ``op`` the original (unbatched) op, ``operands`` its operands in
the batched function and ``batched`` one flag per operand (at least one is
set). ``None`` asks the pass for its general rule: a loop over the rows.
Ops whose records have the ELEMENTWISE or MARKER trait need no rule: the
pass batches them by their trait (:func:`elementwise`).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.dialects.builder import constant
>>> with make_context(), ir.Location.unknown():
...     module = ir.Module.create()
...     with ir.InsertionPoint(module.body):
...         x = constant(1.0, (3,), ir.F64Type.get())
...         rows = broadcast_batch(x, False, 4)
>>> rows.shape
(4, 3)
"""

from __future__ import annotations

from typing import Sequence

from mlir import ir
from mlir.dialects import tensor

from . import builder
from .builder import Val, wrap


class BatchContext:
    """What a batching rule knows besides its op: the length of the mapped axis."""

    def __init__(self, size: int):
        self.size = size


def with_batch(t: ir.Type, size: int) -> ir.Type:
    """The type of ``size`` stacked values of type ``t`` (a scalar type becomes a vector)."""
    if isinstance(t, ir.RankedTensorType):
        return ir.RankedTensorType.get([size] + list(t.shape), t.element_type)
    return ir.RankedTensorType.get([size], t)


def to_front(x, axis: int) -> Val:
    """``x`` with its axis ``axis`` moved first."""
    x = wrap(x)
    if axis == 0:
        return x
    order = [axis] + [d for d in range(x.ndim) if d != axis]
    return builder.transpose(x, order)


def from_front(x, axis: int) -> Val:
    """``x`` with its first axis moved to position ``axis``."""
    x = wrap(x)
    if axis == 0:
        return x
    order = list(range(1, axis + 1)) + [0] + list(range(axis + 1, x.ndim))
    return builder.transpose(x, order)


def broadcast_batch(x, batched: bool, size: int, shape: Sequence[int] | None = None) -> Val:
    """``x`` as ``size`` rows of shape ``shape`` (the value's own shape by default).

    An unbatched ``x`` is repeated ``size`` times; a batched one (axis 0
    mapped) is broadcast row by row. Scalars (``f64``, ``i1``) become tensors.
    """
    x = wrap(x)
    own = x.shape[1:] if batched else x.shape
    shape = tuple(own if shape is None else shape)
    if not isinstance(x.type, ir.RankedTensorType):  # an unbatched scalar
        splat = tensor.SplatOp(ir.RankedTensorType.get([size] + list(shape), x.type), x, [])
        return Val(splat.result)
    target = (size,) + shape
    if x.shape == target and batched:
        return x
    lead = len(shape) - len(own)  # numpy's rule: trailing dimensions line up
    dims = ([0] if batched else []) + [1 + lead + d for d in range(len(own))]
    return builder.broadcast_in_dim(x, target, dims)


def recreate(op: ir.Operation, operands: Sequence, result_types: Sequence[ir.Type]) -> list:
    """A copy of ``op`` (same name and attributes) on ``operands`` with ``result_types``."""
    attributes = {name: op.attributes[name] for name in op.attributes}
    new = ir.Operation.create(op.name, results=list(result_types), operands=list(operands),
                              attributes=attributes)
    return [Val(r) for r in new.results]


def elementwise(ctx: BatchContext, op: ir.Operation, operands: Sequence, batched: Sequence[bool]) -> list:
    """Batch an elementwise op (or a marker): every operand becomes ``ctx.size`` rows of the result's shape."""
    size = ctx.size
    shapes = [tuple(r.type.shape) if isinstance(r.type, ir.RankedTensorType) else () for r in op.results]
    rows = [broadcast_batch(x, b, size, shapes[0]) for x, b in zip(operands, batched)]
    return recreate(op, rows, [with_batch(r.type, size) for r in op.results])


def fold_into_leading(ctx: BatchContext, op: ir.Operation, operands: Sequence, batched: Sequence[bool],
                      folded: Sequence[int]) -> list | None:
    """Batch an op that maps its operands' leading (NCHW ``N``) dim independently: merge the rows into ``N``.

    The operands at ``folded`` and every result lead with ``N``; each folded
    operand becomes ``size * N`` rows (an unbatched one repeated), the op runs
    once, and its results split back into ``(size, N, ...)``. ``None`` (the
    pass's row loop) when an operand outside ``folded`` is batched: a weight
    per row is another op.
    """
    if any(b for i, b in enumerate(batched) if i not in folded):
        return None
    size = ctx.size
    merged = list(operands)
    for i in folded:
        rows = broadcast_batch(operands[i], batched[i], size)
        merged[i] = builder.reshape(rows, (size * rows.shape[1],) + tuple(rows.shape[2:]))
    result_types = [ir.RankedTensorType.get([size * r.type.shape[0]] + list(r.type.shape[1:]), r.type.element_type)
                    for r in op.results]
    return [builder.reshape(r, (size,) + tuple(t.type.shape))
            for r, t in zip(recreate(op, merged, result_types), op.results)]
