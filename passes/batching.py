"""The body of a ``tad.vmap`` declaration, built op by op from the function it maps.

Every value of the mapped function gets a counterpart in the batched one,
either *batched* (its mapped axis first: ``size`` rows of the original) or
not (it does not depend on a mapped input, and is computed once). An op
without batched operands is copied; one with batched operands is batched by
the rule of its record (:mod:`tensorad.dialects.batching`), by its trait
(ELEMENTWISE, MARKER), by the rules here for ``scf.for``, ``scf.if`` and
``func.call`` (registered on their records), or, for anything else, by a
loop over the rows that runs the original op on each row: slower, never
wrong.

* ``scf.for``: the loop carries a batched value wherever its initial value or
  what the body yields is batched (found by trying, at most once per carry);
  the bounds must not be batched (else: the row loop).
* ``scf.if``: an unbatched condition keeps the branch; a batched one runs both
  branches (when they are pure) and selects per row, as JAX does.
* ``func.call``: calls the vmap of the callee (declared and defined once).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<3xf64>, %w: tensor<3xf64>) -> tensor<3xf64> {
...   %0 = arith.mulf %x, %w : tensor<3xf64>
...   return %0 : tensor<3xf64>
... }
... func.func private @f_vmap(tensor<5x3xf64>, tensor<3xf64>) -> tensor<5x3xf64>
...     attributes {tad.vmap = {of = @f, in_axes = array<i64: 0, -1>, out_axes = array<i64: 0>}}''',
...     make_context())
>>> run_pipeline(m, "tad-batch")
>>> "arith.mulf %arg0, %0 : tensor<5x3xf64>" in str(m)
True
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, func, scf, tensor

from tensorad.dialects import builder
from tensorad.dialects.batching import BatchContext, broadcast_batch, elementwise, from_front, to_front, with_batch
from tensorad.dialects.builder import Val
from tensorad.dialects.families.control_flow import family as control_flow
from tensorad.dialects.record import Trait, has_trait, record_of

from .differentiate.activity import captured_values
from .differentiate.signature import DerivativeError, Request
from .simplify import is_pure


class Batcher(BatchContext):
    """Batches the ops of one function (and of the regions inside it) into the current insertion point.

    ``values`` maps each value of the mapped function to ``(value, batched)``
    in the batched one; ``derive(kind, callee, in_axes, prefix)`` declares
    and defines a transformation of a callee (the generator's).
    """

    def __init__(self, size: int, derive: Callable):
        super().__init__(size)
        self.derive = derive
        self.values: dict = {}

    def ops(self, ops) -> None:
        """Batch ``ops`` in order (no terminator among them)."""
        for op in ops:
            self.op(op.operation)

    def op(self, op: ir.Operation) -> None:
        operands = [self.values[v] for v in op.operands]
        outer = captured_values(op) if op.regions else []
        if not any(b for _, b in operands) and not any(self.values[v][1] for v in outer if v in self.values):
            results = [(r, False) for r in self.copy(op).results]
        else:
            values = self.batched(op, [v for v, _ in operands], [b for _, b in operands])
            results = list(zip(values, getattr(values, "flags", [True] * len(values))))
        for old, new in zip(op.results, results):
            self.values[old] = new

    def copy(self, op: ir.Operation) -> ir.Operation:
        """``op`` copied, its operands and the outer values its regions use replaced by their counterparts."""
        new = op.clone()
        _replace_operands(new, {v: self.values[v][0] for v in list(op.operands) + captured_values(op)
                                if v in self.values})
        return new

    def batched(self, op: ir.Operation, operands: list, batched: list):
        """The results of ``op`` batched (each with its mapped axis first)."""
        record = record_of(op)
        results = None
        if record is not None and record.batching is not None:
            results = record.batching(self, op, [Val(v) for v in operands], batched)
        elif not op.regions and (has_trait(op, Trait.ELEMENTWISE) or has_trait(op, Trait.MARKER)):
            results = elementwise(self, op, operands, batched)
        return self.row_loop(op, operands, batched) if results is None else results

    # ------------------------------------------------------------------
    # The general rule: a loop over the rows
    # ------------------------------------------------------------------

    def row_loop(self, op: ir.Operation, operands: list, batched: list) -> list:
        """Run ``op`` once per row of its batched operands, stacking its results."""
        for r in op.results:
            if not isinstance(r.type, (ir.RankedTensorType, ir.FloatType, ir.IntegerType, ir.IndexType)):
                raise DerivativeError(op.location, f"tad-batch: cannot stack results of type {r.type} "
                                      f"of '{op.name}' over the mapped axis")
        stacks = [_empty(with_batch(r.type, self.size)) for r in op.results]
        loop = scf.ForOp(_index(0), _index(self.size), _index(1), stacks)
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            rows = {old: (_row(new, old.type, i) if b else new)
                    for old, new, b in zip(op.operands, operands, batched)}
            for v in captured_values(op):
                new, b = self.values[v]
                rows[v] = _row(new, v.type, i) if b else new
            clone = op.clone()
            _replace_operands(clone, rows)
            scf.YieldOp([_insert_row(stack, r, i) for stack, r in zip(loop.inner_iter_args, clone.results)])
        return list(loop.results)


def _index(value: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), value).result


def _empty(t: ir.RankedTensorType) -> ir.Value:
    return tensor.EmptyOp(list(t.shape), t.element_type).result


def _row(x: ir.Value, unbatched: ir.Type, i: ir.Value) -> ir.Value:
    """Row ``i`` of a batched value whose rows have type ``unbatched`` (a tensor, or a scalar)."""
    if isinstance(unbatched, ir.RankedTensorType):
        return builder.dynamic_row(x, i)
    return tensor.ExtractOp(x, [i]).result


def _insert_row(stack: ir.Value, row: ir.Value, i: ir.Value) -> ir.Value:
    if isinstance(row.type, ir.RankedTensorType):
        return builder.insert_row(stack, row, i)
    return tensor.InsertOp(row, stack, [i]).result


def _replace_operands(op: ir.Operation, mapping: dict) -> None:
    """Replace, in ``op`` and every op inside it, each operand that is a key of ``mapping``."""
    def visit(inner: ir.Operation):
        for k, v in enumerate(inner.operands):
            if v in mapping:
                inner.operands[k] = mapping[v]
        return ir.WalkResult.ADVANCE

    op.walk(visit, ir.WalkOrder.PRE_ORDER)


# ----------------------------------------------------------------------
# Rules that batch regions and calls (they need the batcher itself)
# ----------------------------------------------------------------------

def _for_rule(batcher: Batcher, op: ir.Operation, operands: list, batched: list):
    if any(batched[:3]):
        return None  # a trip count per row: the row loop
    body = op.regions[0].blocks[0]
    carried = list(batched[3:])
    while True:
        inits = [broadcast_batch(v, b, batcher.size) if c and not b else v
                 for v, b, c in zip(operands[3:], batched[3:], carried)]
        loop = scf.ForOp(operands[0], operands[1], operands[2], inits)
        with ir.InsertionPoint(loop.body):
            batcher.values[body.arguments[0]] = (loop.induction_variable, False)
            for old, new, c in zip(list(body.arguments)[1:], loop.inner_iter_args, carried):
                batcher.values[old] = (new, c)
            batcher.ops(list(body.operations)[:-1])
            yielded = [batcher.values[v] for v in list(body.operations)[-1].operands]
            grown = [c or b for c, (_, b) in zip(carried, yielded)]
            if grown == carried:
                scf.YieldOp([broadcast_batch(v, b, batcher.size) if c and not b else v
                             for (v, b), c in zip(yielded, carried)])
                break
        loop.operation.erase()  # a carry became batched in the body: batch it from the start
        carried = grown
    return _Results(list(loop.results), carried)


def _if_rule(batcher: Batcher, op: ir.Operation, operands: list, batched: list):
    regions = [r.blocks[0] for r in op.regions if r.blocks]
    if not batched[0]:
        types = [with_batch(r.type, batcher.size) for r in op.results]
        new = scf.IfOp(operands[0], types, has_else=len(regions) > 1)
        for block, new_block in zip(regions, [new.then_block] + ([new.else_block] if len(regions) > 1 else [])):
            with ir.InsertionPoint(new_block):
                batcher.ops(list(block.operations)[:-1])
                scf.YieldOp([broadcast_batch(*batcher.values[v], batcher.size)
                             for v in list(block.operations)[-1].operands])
        return list(new.results)
    if len(regions) < 2 or not all(is_pure(inner) or has_trait(inner, Trait.TERMINATOR)
                                   for block in regions for inner in block.operations):
        return None  # side effects in a branch: the row loop runs only the branch each row takes
    branches = []
    for block in regions:
        batcher.ops(list(block.operations)[:-1])
        branches.append([batcher.values[v] for v in list(block.operations)[-1].operands])
    results = []
    for r, (a, a_b), (b, b_b) in zip(op.results, *branches):
        shape = tuple(r.type.shape) if isinstance(r.type, ir.RankedTensorType) else ()
        condition = broadcast_batch(operands[0], True, batcher.size, shape)
        results.append(builder.select(condition, broadcast_batch(a, a_b, batcher.size, shape),
                                      broadcast_batch(b, b_b, batcher.size, shape)))
    return results


def _call_rule(batcher: Batcher, op: ir.Operation, operands: list, batched: list):
    callee = op.attributes["callee"].value
    in_axes = tuple(0 if b else -1 for b in batched)
    name, ftype = batcher.derive("vmap", callee, in_axes, (batcher.size,))
    return list(func.CallOp(list(ftype.results), name, operands).results)


class _Results(list):
    """Results of a rule with a batched flag each (``scf.for`` may carry unbatched values)."""

    def __init__(self, values: list, flags: list):
        super().__init__(values)
        self.flags = flags


# The rules of region ops and calls batch what is inside them, so they live
# beside the batcher; they are registered on the control_flow records like the
# others (the batcher is the rules' context).
control_flow.batching("scf.for")(_for_rule)
control_flow.batching("scf.if")(_if_rule)
control_flow.batching("func.call")(_call_rule)


def build(request: Request, primal: ir.Operation, derive: Callable) -> ir.Operation:
    """Define ``request``'s vmap declaration from ``primal``; return the new function.

    Raises
    ------
    DerivativeError
        At the return of ``primal``, when a result with ``out_axes = -1``
        depends on a mapped input.
    """
    declared = request.function_type
    size = next(t.shape[a] for t, a in zip(declared.inputs, request.in_axes) if a != -1)
    fn = func.FuncOp(request.name, declared, ip=ir.InsertionPoint(request.decl))
    for name in request.decl.attributes:
        if name not in ("sym_name", "function_type"):
            fn.attributes[name] = request.decl.attributes[name]
    entry = fn.add_entry_block()
    body = primal.regions[0].blocks[0]
    batcher = Batcher(size, derive)
    with ir.InsertionPoint(entry):
        for old, new, axis in zip(body.arguments, entry.arguments, request.in_axes):
            batcher.values[old] = (new, False) if axis == -1 else (to_front(new, axis), True)
        ops = list(body.operations)
        batcher.ops(ops[:-1])
        results = []
        for j, (v, axis) in enumerate(zip(ops[-1].operands, request.out_axes)):
            new, b = batcher.values[v]
            if axis == -1:
                if b:
                    raise DerivativeError(ops[-1].location, f"vmap of @{request.of}: result {j} depends on "
                                          "a mapped input, but its out_axes entry is -1 (None)")
                results.append(new)
            else:
                results.append(from_front(broadcast_batch(new, b, size), axis))
        func.ReturnOp(results)
    request.decl.erase()
    return fn.operation
