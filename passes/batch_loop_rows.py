"""``tad-batch-loop-rows``: what a loop does to one row of a tensor per iteration, done to all rows at once.

A recurrent network's loop multiplies one row of its inputs by a weight in
every step (the input projection), and its backward loop adds every step's
weight gradient, a contraction over the batch alone, into an accumulator.
Both are small contractions, far from the kernel's peak; done for all rows
at once they are one large contraction each. In an ``scf.for`` with a
static trip count this pass

1. **hoists** a contraction (:attr:`~tensorad.dialects.record.Trait.CONTRACTION`)
   whose operands are loop-invariant or rows ``X[e]`` of loop-invariant
   tensors (``tensor.extract_slice`` of row ``e``, the same ``e`` for all of
   them, ``X`` having one row per iteration): its batching rule computes it
   for every row before the loop, and the loop reads row ``e`` of that;
2. **sinks** an accumulation: a carry that the body only updates as
   ``acc + D``, where ``D``'s op has a ``row_sum`` rule in its record and its
   operands are rows of loop-invariant tensors or values of the iteration.
   Those values are stacked (one row per iteration, at the row index ``e`` of
   the invariant rows, an affine function of the induction variable, in a
   tensor of zeros), the carry is dropped, and after the loop ``acc`` plus
   the record's ``row_sum`` of the stacked operands gives the result.
   Unvisited rows are zero in a stack, so they add nothing. An accumulator
   updated as ``acc + insert_slice(v into zeros)`` (the adjoint of a row read
   in the loop) adds ``v`` to its slice of ``acc`` in place instead of adding
   the whole tensor each iteration.

Both trade memory (a row per iteration) for speed, like JAX's scan, which
also stacks its residuals; ``tad-remat`` runs after this pass and sees the
stacks. ``tad-jit-differentiate`` runs it after ``tad-simplify``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%xs: tensor<5x2x3xf32>, %u: tensor<3x4xf32>, %h: tensor<2x4xf32>) -> tensor<2x4xf32> {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c5 = arith.constant 5 : index
...   %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %h) -> (tensor<2x4xf32>) {
...     %x = tensor.extract_slice %xs[%i, 0, 0] [1, 2, 3] [1, 1, 1] : tensor<5x2x3xf32> to tensor<2x3xf32>
...     %p = "tad.dot_general"(%x, %u) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
...          lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
...          : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
...     %s = arith.addf %a, %p : tensor<2x4xf32>
...     scf.yield %s : tensor<2x4xf32>
...   }
...   return %r : tensor<2x4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-batch-loop-rows{sink=false}")
>>> text = str(m)
>>> text.index("tad.dot_general") < text.index("scf.for")  # all five rows' products, before the loop
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ..dialects import builder
from ..dialects.batching import BatchContext
from ..dialects.builder import Val
from ..dialects.record import Trait, has_trait, record_of
from .options import option
from .walk import collect, copy_body, defined_outside, defining_op


@dataclass(frozen=True)
class BatchLoopRowsOptions:
    """The options of ``tad-batch-loop-rows``."""

    hoist: bool = option(True, "compute contractions of loop-invariant rows for all rows before the loop")
    sink: bool = option(True, "sum accumulated contractions and reductions of every iteration after the loop")


def run(op: ir.Operation, pass_, options: BatchLoopRowsOptions = BatchLoopRowsOptions()) -> None:
    """Hoist and sink row-wise work out of every ``scf.for`` inside ``op`` with a static trip count."""
    for loop in collect(op, lambda inner: inner.name == "scf.for"):
        count = _trip_count(loop)
        if count is None or count < 2:
            continue
        if options.hoist:
            _hoist(loop, count)
        if options.sink:
            _sink(loop, count)


# --- what the loop reads ----------------------------------------------------------------

def _constant(value: ir.Value) -> Optional[int]:
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    try:
        return ir.IntegerAttr(op.attributes["value"]).value
    except ValueError:
        return None


def _trip_count(loop: ir.Operation) -> Optional[int]:
    lb, ub, step = (_constant(v) for v in list(loop.operands)[:3])
    if lb is None or ub is None or not step or step < 0:
        return None
    return max(0, -(-(ub - lb) // step))


_AFFINE = {"arith.addi": lambda a, b: (a[0] + b[0], a[1] + b[1]),
           "arith.subi": lambda a, b: (a[0] - b[0], a[1] - b[1]),
           "arith.muli": lambda a, b: ((a[0] * b[1], a[1] * b[1]) if b[0] == 0 else
                                       (b[0] * a[1], b[1] * a[1]) if a[0] == 0 else None),
           "arith.divsi": lambda a, b: ((a[0] // b[1], a[1] // b[1])
                                        if b[0] == 0 and b[1] and a[0] % b[1] == 0 and a[1] % b[1] == 0 else None)}


def affine_form(value: ir.Value, iv: ir.Value) -> Optional[tuple]:
    """``(a, b)`` when ``value`` is ``a * iv + b`` by integer arithmetic on constants; None otherwise.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%i: index) -> index {
    ...   %c9 = arith.constant 9 : index
    ...   %r = arith.subi %c9, %i : index
    ...   return %r : index
    ... }''', make_context())
    >>> fn = collect(m.operation, lambda op: op.name == "func.func")[0]
    >>> block = fn.regions[0].blocks[0]
    >>> affine_form(list(block.operations)[-1].operands[0], block.arguments[0])
    (-1, 9)
    """
    if value == iv:
        return (1, 0)
    c = _constant(value)
    if c is not None:
        return (0, c)
    op = defining_op(value)
    if op is None:
        return None
    if op.name in ("arith.index_cast", "arith.index_castui"):
        return affine_form(op.operands[0], iv)
    combine = _AFFINE.get(op.name)
    if combine is None:
        return None
    forms = [affine_form(v, iv) for v in op.operands]
    return None if None in forms else combine(*forms)


def _row_of(value: ir.Value, loop: ir.Operation) -> Optional[tuple]:
    """``(X, e)`` when ``value`` is row ``e`` of ``X``, a static-shaped tensor defined outside ``loop``."""
    op = defining_op(value)
    if op is None or op.name != "tensor.extract_slice" or op.parent != loop:
        return None
    source = op.operands[0]
    t = source.type
    if not (isinstance(t, ir.RankedTensorType) and t.has_static_shape and t.rank >= 1
            and defined_outside(source, loop) and len(op.operands) == 2):
        return None
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
    sizes = list(ir.DenseI64ArrayAttr(op.attributes["static_sizes"]))
    strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
    if (offsets != [dynamic] + [0] * (t.rank - 1) or sizes != [1] + list(t.shape[1:])
            or strides != [1] * t.rank or list(value.type.shape) != list(t.shape[1:])):
        return None
    return source, op.operands[1]


# --- hoisting ---------------------------------------------------------------------------

def _hoist(loop: ir.Operation, count: int) -> None:
    body = loop.regions[0].blocks[0]
    rows: dict = {}  # a row of a loop-invariant tensor -> (that tensor, the row index)
    for op in list(body.operations):
        op = op.operation
        found = _row_of(op.results[0], loop) if len(op.results) == 1 else None
        if found is not None and found[0].type.shape[0] == count:
            rows[op.results[0]] = found
            continue
        record = record_of(op)
        if op.regions or not has_trait(op, Trait.CONTRACTION) or record is None or record.batching is None:
            continue
        stacked = [v in rows for v in op.operands]
        indices = {rows[v][1] for v in op.operands if v in rows}
        if not any(stacked) or len(indices) != 1 or not all(
                s or defined_outside(v, loop) for s, v in zip(stacked, op.operands)):
            continue
        with ir.InsertionPoint(loop), op.location:
            operands = [Val(rows[v][0]) if s else Val(v) for s, v in zip(stacked, op.operands)]
            results = record.batching(BatchContext(count), op, operands, stacked)
        if results is None:
            continue
        (index,) = indices
        with ir.InsertionPoint(op), op.location:
            for old, new in zip(op.results, results):
                old.replace_all_uses_with(builder.dynamic_row(new, index, old.type))
        op.erase()


# --- sinking ----------------------------------------------------------------------------

@dataclass
class _Sunk:
    """Carry ``k`` of the loop, updated as ``acc + op(operands)``; how each operand is summed over the rows."""

    k: int
    op: ir.Operation
    # Per operand: ("rows", (X, None)) a row of the loop-invariant X, or ("stack", (value, row form)) a value
    # stacked by the loop (the form None: at the iteration's number).
    operands: list
    rows: int  # how many rows its sum runs over
    index: Optional[ir.Value]  # the row index of its rows of invariant tensors, if it reads any


def _sink(loop: ir.Operation, count: int) -> None:
    body = loop.regions[0].blocks[0]
    iv, carries = body.arguments[0], list(body.arguments)[1:]
    yielded = list(list(body.operations)[-1].operands)
    for acc, update in zip(carries, yielded):
        _add_in_place(loop, acc, update)
    yielded = list(list(body.operations)[-1].operands)
    sunk = [plan for plan in (_accumulation(loop, count, iv, acc, update) for acc, update in zip(carries, yielded))
            if plan is not None]
    if sunk:
        _rebuild(loop, sunk, _stacks(sunk))


def _stacks(sunk: list) -> dict:
    """One stack per value and row mapping, as long as its longest reader needs: ``key -> (value, index, rows)``.

    A sum that reads no rows of an invariant tensor does not care in which
    order its rows were stacked: it reads a stack another sum made, if any.
    """
    stacks: dict = {}
    for s in sorted(sunk, key=lambda s: s.index is None):
        for position, (kind, (value, form)) in enumerate(s.operands):
            if kind != "stack":
                continue
            if form is None:
                form = next((f for v, f in stacks if v == value), None)
                s.operands[position] = (kind, (value, form))
            key = (value, form)
            index, rows = stacks.get(key, (None, s.index, 0))[1:]
            stacks[key] = (value, index, max(rows, s.rows))
    return stacks


def _add_in_place(loop: ir.Operation, acc: ir.Value, update: ir.Value) -> None:
    """``acc + insert_slice(v into zeros)`` as ``insert_slice(acc[slice] + v into acc)``.

    The adjoint of a row read in a loop (a scan's input) is such a sum: added
    whole, it costs the whole tensor every iteration, a quadratic sweep.
    """
    add = defining_op(update)
    if add is None or add.name != "arith.addf" or add.parent != loop or len(list(acc.uses)) != 1:
        return
    others = [v for v in add.operands if v != acc]
    insert = defining_op(others[0]) if len(others) == 1 else None
    if (insert is None or insert.name != "tensor.insert_slice" or insert.parent != loop
            or len(list(others[0].uses)) != 1):
        return
    zero = builder.splat_value(insert.operands[1])
    if zero is None or zero.value != 0 or not defined_outside(insert.operands[1], loop):
        return
    piece = insert.operands[0]
    positions = list(insert.operands)[2:]
    with ir.InsertionPoint(add), add.location:
        attrs = [insert.attributes[name] for name in ("static_offsets", "static_sizes", "static_strides")]
        counts = list(ir.DenseI32ArrayAttr(insert.attributes["operandSegmentSizes"]))[2:]
        offsets, sizes = positions[:counts[0]], positions[counts[0]:counts[0] + counts[1]]
        strides = positions[counts[0] + counts[1]:]
        old = tensor.ExtractSliceOp(piece.type, acc, offsets, sizes, strides, *attrs).result
        summed = Val(old) + Val(piece)
        new = tensor.InsertSliceOp(summed, acc, offsets, sizes, strides, *attrs).result
    update.replace_all_uses_with(new)
    add.erase()
    insert.erase()


def _accumulation(loop, count: int, iv, acc, update) -> Optional[_Sunk]:
    """The plan for sinking carry ``acc`` (yielded as ``update``), or None if it is not ``acc + D``."""
    add = defining_op(update)
    if (add is None or add.name != "arith.addf" or add.parent != loop or len(list(acc.uses)) != 1
            or len(list(update.uses)) != 1):
        return None
    others = [v for v in add.operands if v != acc]
    if len(others) != 1 or len(list(others[0].uses)) != 1:
        return None
    op = defining_op(others[0])
    record = record_of(op) if op is not None else None
    if record is None or record.row_sum is None or op.parent != loop or op.regions or len(op.results) != 1:
        return None
    found = [_row_of(v, loop) for v in op.operands]
    forms = {affine_form(f[1], iv) for f in found if f is not None}
    if None in forms or len(forms) > 1 or any(form[0] == 0 for form in forms):
        return None  # rows not an injective affine function of the iteration
    form = next(iter(forms)) if forms else None
    row_counts = {f[0].type.shape[0] for f in found if f is not None}
    if len(row_counts) > 1:
        return None
    rows = row_counts.pop() if row_counts else count
    operands = []
    for v, f in zip(op.operands, found):
        if f is not None:
            operands.append(("rows", (f[0], None)))
        elif defined_outside(v, loop) or not (isinstance(v.type, ir.RankedTensorType) and v.type.has_static_shape):
            return None  # a row_sum sums stacked operands only
        else:
            operands.append(("stack", (v, form)))
    if all(kind == "rows" for kind, _ in operands) and rows != count:
        return None  # the rows the loop does not visit would be summed too
    index = next((f[1] for f in found if f is not None), None)
    return _Sunk(ir.BlockArgument(acc).arg_number - 1, op, operands, rows, index)


def _rebuild(loop: ir.Operation, sunk: list, stacks: dict) -> None:
    """``loop`` without the sunk carries, stacking what they summed, and their sums after it."""
    body = loop.regions[0].blocks[0]
    lb, ub, step = list(loop.operands)[:3]
    inits = list(loop.operands)[3:]
    dropped = {s.k for s in sunk}
    kept = [k for k in range(len(inits)) if k not in dropped]
    keys = list(stacks)
    with ir.InsertionPoint(loop), loop.location:
        zeros = [builder.constant(0.0, (rows,) + tuple(v.type.shape), v.type.element_type)
                 for v, _, rows in (stacks[key] for key in keys)]
        new = scf.ForOp(lb, ub, step, [inits[k] for k in kept] + zeros)
    args = list(new.inner_iter_args)
    carried = {k: args[i] for i, k in enumerate(kept)}
    body_ops = [op.operation for op in list(body.operations)[:-1]]
    with ir.InsertionPoint(new.body), loop.location:
        # A dropped carry is read only by the update that is no longer yielded: its init will do.
        ops, yielded = copy_body(loop, [new.induction_variable] + [carried.get(k, inits[k]) for k in range(len(inits))])
        copies = {old: new_op for old, new_op in zip(body_ops, ops)}

        def copied(value: ir.Value) -> ir.Value:
            owner = defining_op(value)
            if owner is None:  # a block argument of the body
                position = ir.BlockArgument(value).arg_number
                return new.induction_variable if position == 0 else carried[position - 1]
            if owner.operation not in copies:
                return value  # defined outside the loop
            return copies[owner.operation].results[list(owner.results).index(value)]

        inserted = []
        for key, arg in zip(keys, args[len(kept):]):
            value, index, _ = stacks[key]
            if index is None:  # stacked at the iteration's number
                index = arith.DivSIOp(arith.SubIOp(new.induction_variable, lb).result, step).result
            else:
                index = copied(index)
            inserted.append(builder.insert_row(arg, copied(value), index))
        scf.YieldOp([yielded[k] for k in kept] + inserted)
    for s in sunk:  # the copied update and what it added are dead now
        update = defining_op(yielded[s.k])
        update.erase()
        copies[s.op].erase()
    results = list(new.results)
    sums = {}
    with ir.InsertionPoint(loop), loop.location:
        for s in sunk:
            operands = [_leading_rows(results[len(kept) + keys.index(what)], s.rows) if kind == "stack"
                        else Val(what[0]) for kind, what in s.operands]
            total = record_of(s.op).row_sum(s.op, operands, [True] * len(operands))
            zero = builder.splat_value(inits[s.k])
            sums[s.k] = total if zero is not None and zero.value == 0 else Val(inits[s.k]) + total
    for k, old in enumerate(loop.results):
        old.replace_all_uses_with(sums[k] if k in dropped else results[kept.index(k)])
    loop.erase()


def _leading_rows(stack: ir.Value, rows: int) -> Val:
    """The first ``rows`` rows of ``stack``: the rows past them were never written (zeros) for this reader."""
    t = stack.type
    if t.shape[0] == rows:
        return Val(stack)
    shape = [rows] + list(t.shape[1:])
    return builder.extract_slice(stack, ir.RankedTensorType.get(shape, t.element_type), [0] * t.rank, shape,
                                 [1] * t.rank)
