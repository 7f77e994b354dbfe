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

An op whose rows cannot be stacked (a result of dynamic shape, such as the
tape of a ``scf.while`` in a derivative: each row may run its own number of
iterations) makes the whole function batched by a loop over the rows that
calls the mapped function on each.

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
            if not _stackable(r.type):
                raise Unstackable(op.location, f"tad-batch: cannot stack results of type {r.type} "
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


class Unstackable(DerivativeError):
    """An op's results cannot be stacked row by row (their type has no fixed shape)."""


def _stackable(t: ir.Type) -> bool:
    """Whether values of type ``t`` stack into a tensor (a tensor of static shape, or a scalar)."""
    if isinstance(t, ir.RankedTensorType):
        return t.has_static_shape
    return isinstance(t, (ir.FloatType, ir.IntegerType, ir.IndexType))


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


def _while_rule(batcher: Batcher, op: ir.Operation, operands: list, batched: list):
    """A masked loop: it runs while the condition holds for any row; rows whose condition failed keep their carry.

    Every carry is batched, and one more carry holds each row's condition,
    evaluated before the loop and after each step; the body's new carry is
    selected only for the rows still running (as JAX batches ``while_loop``).
    The condition region forwards its arguments unchanged, so reverse mode
    differentiates the masked loop as any other. The body runs on finished
    rows too, so it must be pure, the condition must forward the before
    region's arguments unchanged (as ``lax.while_loop`` does) and the carries
    must have static shapes (not a derivative's tape); otherwise: the row loop.
    """
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    condition = list(before.operations)[-1]
    if list(condition.operands)[1:] != list(before.arguments) or \
            not all(_stackable(v.type) for v in op.operands) or \
            not all(is_pure(inner) or has_trait(inner, Trait.TERMINATOR)
                    for block in (before, after) for inner in block.operations):
        return None
    size = batcher.size

    def rows_running(carries: list) -> Val:
        """The condition of every row for ``carries`` (the before region batched at the insertion point)."""
        for old, new in zip(before.arguments, carries):
            batcher.values[old] = (new, True)
        batcher.ops(list(before.operations)[:-1])
        return broadcast_batch(*batcher.values[condition.operands[0]], size)

    inits = [broadcast_batch(v, b, size) for v, b in zip(operands, batched)]
    inits.append(rows_running(inits))
    types = [v.type for v in inits]
    loop = scf.WhileOp(types, inits)
    location = ir.Location.current
    new_before = ir.Block.create_at_start(loop.before, types, [location] * len(types))
    new_after = ir.Block.create_at_start(loop.after, types, [location] * len(types))
    with ir.InsertionPoint(new_before):
        i32 = ir.IntegerType.get_signless(32)
        running = builder.greater(builder.reduce("max", builder.convert(new_before.arguments[-1], i32), [0]),
                                  builder.zeros((), i32))
        scf.ConditionOp(tensor.ExtractOp(running, []).result, list(new_before.arguments))
    with ir.InsertionPoint(new_after):
        carries, mask = list(new_after.arguments)[:-1], new_after.arguments[-1]
        for old, new in zip(after.arguments, carries):
            batcher.values[old] = (new, True)
        batcher.ops(list(after.operations)[:-1])
        yielded = [broadcast_batch(*batcher.values[v], size) for v in list(after.operations)[-1].operands]
        kept = [builder.select(broadcast_batch(mask, True, size, tuple(new.type.shape)[1:]), new, old)
                for new, old in zip(yielded, carries)]
        scf.YieldOp(kept + [builder.select(mask, rows_running(kept), mask)])
    return list(loop.results)[:-1]


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
control_flow.batching("scf.while")(_while_rule)
control_flow.batching("func.call")(_call_rule)


def build(request: Request, primal: ir.Operation, derive: Callable) -> ir.Operation:
    """Define ``request``'s vmap declaration from ``primal``; return the new function.

    Raises
    ------
    DerivativeError
        At the return of ``primal``, when a result with ``out_axes = -1``
        depends on a mapped input; when a result of ``primal`` has no fixed
        shape.
    """
    declared = request.function_type
    size = next(t.shape[a] for t, a in zip(declared.inputs, request.in_axes) if a != -1)
    fn = _function(request)
    try:
        _batch_ops(request, primal, derive, size, fn)
    except Unstackable as err:
        # A value inside has rows of different shapes: map the whole function row by row instead.
        fn.operation.erase()
        if -1 in request.out_axes:
            raise DerivativeError(err.location, f"{err} (needed to batch @{request.of}, which has a result "
                                  "with out_axes -1 (None))") from None
        fn = _function(request)
        _loop_over_rows(request, primal, size, fn)
    request.decl.erase()
    _batch_custom_rules(request, primal, fn.operation, size, derive)
    return fn.operation


def _function(request: Request) -> func.FuncOp:
    """An empty definition of ``request``'s declaration, just before it."""
    fn = func.FuncOp(request.name, request.function_type, ip=ir.InsertionPoint(request.decl))
    for name in request.decl.attributes:
        if name not in ("sym_name", "function_type"):
            fn.attributes[name] = request.decl.attributes[name]
    fn.add_entry_block()
    return fn


def _loop_over_rows(request: Request, primal: ir.Operation, size: int, fn: func.FuncOp) -> None:
    """The body of ``fn``: ``@primal`` called on each row, its results stacked."""
    results = list(ir.TypeAttr(primal.attributes["function_type"]).value.results)
    if not all(_stackable(t) for t in results):
        raise DerivativeError(primal.location, f"tad-batch: cannot stack the results of @{request.of} over the "
                              "mapped axis (a result has no fixed shape)")
    entry = fn.entry_block
    inputs = ir.TypeAttr(primal.attributes["function_type"]).value.inputs
    with ir.InsertionPoint(entry):
        mapped = [to_front(x, a) if a != -1 else None for x, a in zip(entry.arguments, request.in_axes)]
        loop = scf.ForOp(_index(0), _index(size), _index(1), [_empty(with_batch(t, size)) for t in results])
        with ir.InsertionPoint(loop.body):
            i = loop.induction_variable
            rows = [x if m is None else _row(m, t, i) for x, m, t in zip(entry.arguments, mapped, inputs)]
            call = func.CallOp(results, request.of, rows)
            scf.YieldOp([_insert_row(stack, r, i) for stack, r in zip(loop.inner_iter_args, call.results)])
        func.ReturnOp([from_front(stack, a) for stack, a in zip(loop.results, request.out_axes)])


def _batch_ops(request: Request, primal: ir.Operation, derive: Callable, size: int, fn: func.FuncOp) -> None:
    """The body of ``fn``: the ops of ``primal`` batched one by one."""
    entry = fn.entry_block
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


def _batch_custom_rules(request: Request, primal: ir.Operation, fn: ir.Operation, size: int,
                        derive: Callable) -> None:
    """Give the batched ``fn`` the batched counterpart of ``primal``'s custom derivative rule.

    Without it, differentiating the batched function would use the rules of
    the ops inside it, not the user's. A ``custom_jvp`` rule is batched like
    the function (tangents mapped as their inputs). A ``custom_vjp`` backward
    function is batched with the cotangents mapped; the gradient of an
    unmapped input is then summed over the mapped axis.
    """
    kinds = [k for k in ("tad.custom_jvp", "tad.custom_vjp") if k in primal.attributes]
    if not kinds:
        return
    if any(axis != 0 for axis in request.out_axes):
        raise DerivativeError(fn.location, f"vmap of @{request.of}, which has a custom derivative rule, "
                              "needs out_axes 0 for every result")
    rule_name = primal.attributes[kinds[0]].value
    primal_type = primal.attributes["function_type"].value
    rule_inputs = len(_function_named(fn, rule_name).attributes["function_type"].value.inputs)
    in_axes = tuple(request.in_axes)
    if kinds[0] == "tad.custom_jvp":
        rule_axes = in_axes + in_axes[:rule_inputs - len(in_axes)]
        name, _ = derive("vmap", rule_name, rule_axes, (size,))
    else:
        name, bwd_type = derive("vmap", rule_name, in_axes + (0,) * len(primal_type.results), (size,))
        name = _summing_wrapper(fn, name, bwd_type, in_axes)
    fn.attributes[kinds[0]] = ir.FlatSymbolRefAttr.get(name)


def _function_named(fn: ir.Operation, name: str) -> ir.Operation:
    """The function ``@name`` of the module holding ``fn`` (found by a scan: the module is mid-rewrite)."""
    return next(op.operation for op in fn.parent.regions[0].blocks[0].operations
                if op.operation.name == "func.func" and op.attributes["sym_name"].value == name)


def _summing_wrapper(fn: ir.Operation, bwd: str, bwd_type: ir.FunctionType, in_axes: tuple) -> str:
    """A function calling the batched backward function ``@bwd`` and putting each gradient on its input's axis.

    ``@bwd`` returns every gradient mapped on axis 0; an unmapped input's
    gradient is the sum of its rows, a mapped one's moves to the input's axis.
    """
    name = f"{fn.attributes['sym_name'].value}_bwd"
    inputs = list(fn.attributes["function_type"].value.inputs)
    wrapper = func.FuncOp(name, ir.FunctionType.get(list(bwd_type.inputs), inputs), ip=ir.InsertionPoint(fn))
    wrapper.attributes["sym_visibility"] = ir.StringAttr.get("private")
    block = wrapper.add_entry_block()
    with ir.InsertionPoint(block), fn.location:
        grads = func.CallOp(list(bwd_type.results), bwd, list(block.arguments)).results
        func.ReturnOp([builder.sum(g, [0]) if axis == -1 else from_front(g, axis)
                       for g, axis in zip(grads, in_axes)])
    return name
