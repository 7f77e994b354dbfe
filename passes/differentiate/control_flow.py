"""Derivative rules of ``scf.if``, ``scf.execute_region``, ``scf.for`` and ``scf.while``.

Forward mode rebuilds the op with one more carry (or result) per active value
and sweeps its blocks. Reverse mode:

* ``scf.if``: the backward pass branches on the same condition (the forward
  value records which branch ran) and, in each branch, recomputes that
  branch's forward ops and sweeps them backwards. ``scf.execute_region`` is
  the case of one branch.
* ``scf.for``: the forward loop is augmented with a *tape*: what each
  iteration needs to be replayed (see :func:`taped_carries`, the one place
  that decides it) is stored into a preallocated stacked tensor, one row per
  iteration. The backward loop runs the iterations in reverse, replays each
  body from its taped row and sweeps it backwards, carrying the adjoints of
  the loop carries and accumulating those of loop-invariant values (which
  are never taped). Values of the body that the sweep reads and that are
  costly to replay (a contraction's output: :func:`costly_residuals`) are
  taped too, as JAX's scan stores its residuals, and the replay of what
  computed them becomes dead code; one the body yields as a taped carry is
  read from that carry's tape a row later. A loop with ``tad.snapshots = s`` and a static trip
  count keeps at most ``s`` snapshots instead and recomputes the other
  iterations on the binomial (Revolve) schedule of
  :mod:`tensorad.passes.remat.revolve` (see :func:`_revolve_vjp`).

The rules are registered on the records of
:mod:`tensorad.dialects.families.control_flow` through its :data:`family`.

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> record_of("scf.for").vjp is _for_vjp and record_of("scf.while").jvp is _while_jvp
True
>>> record_of("scf.execute_region").vjp is not None
True
"""

from __future__ import annotations

from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, scf, tensor

from tensorad.dialects import builder as tad_ops
from tensorad.dialects.builder import Val, zeros_like
from tensorad.dialects.families.control_flow import family
from tensorad.dialects.record import Trait, flops_of, has_trait
from tensorad.dialects.shapes import is_dynamic
from tensorad.passes.dims import kept_sizes
from tensorad.passes.remat import revolve
from tensorad.passes.remat.revolve import Action, Kind
from tensorad.passes.walk import copy_body

from .activity import captured_values, carries_derivative, dependency_graph, is_float_tensor, reach
from .signature import DerivativeError, derivative_type, element_type, value_shape


def _terminator(block: ir.Block) -> ir.Operation:
    return list(block.operations)[-1]


def _batched_type(value: ir.Value, prefix: tuple) -> ir.Type:
    return derivative_type(value.type, prefix)


def _replace_uses(op: ir.Operation, results: Sequence[ir.Value]) -> None:
    for old, new in zip(op.results, results):
        old.replace_all_uses_with(new)


def _grow_active(graph: dict, seeds: list, candidates: dict, active: set) -> set:
    """Fixed point: index ``k`` joins ``active`` once ``candidates[k]`` (values) are reached."""
    while True:
        reached = reach(graph, seeds + [v for k in active for v in candidates[k][1]], is_float_tensor)
        grown = active | {k for k, (outs, _) in candidates.items()
                          if any(v in reached for v in outs)}
        if grown == active:
            return active
        active = grown


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------

def _for_jvp(c, tangents):
    op, fw = c.op, c.engine
    body = op.regions[0].blocks[0]
    inits, n = list(op.operands)[3:], len(op.results)
    yields = list(_terminator(body).operands)
    outer = [v for v in captured_values(op) if v in fw.tangents]
    candidates = {k: ([yields[k]], [body.arguments[1 + k]]) for k in range(n)
                  if is_float_tensor(inits[k])}
    active = sorted(_grow_active(dependency_graph(body), outer, candidates,
                                 {k for k in candidates if inits[k] in fw.tangents}))
    if not active:
        return [None] * n
    with ir.InsertionPoint(op):  # the new loop replaces op: its inits must come before it
        t_inits = _tangent_inits(fw, inits, active)
        loop = scf.ForOp(op.operands[0], op.operands[1], op.operands[2],
                         inits + t_inits)
    carries = list(loop.inner_iter_args)
    with ir.InsertionPoint(loop.body):
        _, yielded = copy_body(op, [loop.induction_variable] + carries[:n])
        inner = fw.nested({carries[k]: Val(carries[n + j]) for j, k in enumerate(active)})
        _terminate_with_tangents(scf.YieldOp, loop.body, inner, [], yielded, active, fw.prefix)
    _replace_uses(op, list(loop.results)[:n])
    fw.tangents.update({loop.results[k]: Val(loop.results[n + j]) for j, k in enumerate(active)})
    return None


def _tangent_inits(fw, inits: list, active: list) -> list:
    """Initial tangent carries: the inits' tangents, zeros where they have none."""
    return [fw.tangents[inits[k]] if inits[k] in fw.tangents else zeros_like(inits[k], fw.prefix)
            for k in active]


def _terminate_with_tangents(build, block: ir.Block, inner, leading: list, values: list,
                             active: list, prefix) -> None:
    """End ``block`` with ``build(leading + values + tangents of values[k], k in active)``.

    The block's ops are swept with ``inner`` first. Rules of nested region ops
    replace those ops' results, so the values to yield are read back from a
    provisional terminator after the sweep.
    """
    provisional = build(*leading, list(values))
    inner.sweep_ops(list(block.operations)[:-1])
    current = list(provisional.operation.operands)
    head, values = current[:len(leading)], current[len(leading):]
    with ir.InsertionPoint(provisional.operation), provisional.location:
        extra = [inner.tangents.get(values[k]) for k in active]
        extra = [t if t is not None else zeros_like(values[k], prefix) for t, k in zip(extra, active)]
        build(*head, values + extra)
    provisional.operation.erase()


def _entry_blocks(op: ir.Operation) -> list:
    """The blocks of ``op``'s regions, one per region (refusing a region of several blocks)."""
    for region in op.regions:
        if len(region.blocks) > 1:
            raise DerivativeError(op.location, f"cannot differentiate '{op.name}' with a region of "
                                  f"{len(region.blocks)} blocks: only single-block regions (structured "
                                  "control flow) have derivative rules")
    return [region.blocks[0] for region in op.regions if len(region.blocks)]


def _new_if(op: ir.Operation, types: list):
    """An ``scf.if`` on ``op``'s condition with results ``types``, and its two blocks."""
    new = scf.IfOp(op.operands[0], types, has_else=True)
    return new, [new.then_block, new.else_block]


def _new_execute_region(op: ir.Operation, types: list):
    """An ``scf.execute_region`` like ``op`` with results ``types``, and its block."""
    new = scf.ExecuteRegionOp(types)
    if "no_inline" in op.attributes:
        new.attributes["no_inline"] = op.attributes["no_inline"]
    return new, [new.regions[0].blocks.append()]


def _branches_jvp(c, rebuild):
    """Forward mode of an op that runs one of its single-block regions once (``scf.if``, ``scf.execute_region``).

    ``rebuild(op, types)`` makes the op again with results ``types``; each
    region is replayed into it and ends yielding the tangents of the active
    results after the values.
    """
    op, fw = c.op, c.engine
    if not op.results:
        return []
    blocks = _entry_blocks(op)
    outer = [v for v in captured_values(op) if v in fw.tangents]
    reached = set()
    for block in blocks:
        reached |= reach(dependency_graph(block), outer, is_float_tensor)
    n = len(op.results)
    active = [k for k in range(n) if is_float_tensor(op.results[k])
              and any(_terminator(b).operands[k] in reached for b in blocks)]
    if not active:
        return [None] * n
    types = [r.type for r in op.results] + [_batched_type(op.results[k], fw.prefix) for k in active]
    with ir.InsertionPoint(op):
        new, targets = rebuild(op, types)
    for region, target in enumerate(targets):
        with ir.InsertionPoint(target):
            _, yielded = copy_body(op, [], region)
            _terminate_with_tangents(scf.YieldOp, target, fw.nested({}), [], yielded, active,
                                     fw.prefix)
    _replace_uses(op, list(new.results)[:n])
    fw.tangents.update({new.results[k]: Val(new.results[n + j]) for j, k in enumerate(active)})
    return None


def _while_blocks(op: ir.Operation) -> tuple:
    """The condition and body blocks of an ``scf.while`` whose results are its carries (number and types)."""
    if [r.type for r in op.results] != [v.type for v in op.operands]:
        raise DerivativeError(op.location, "cannot differentiate an 'scf.while' whose results differ in number "
                              "or type from its carries: the condition region must forward one value of "
                              "each carry's type")
    return op.regions[0].blocks[0], op.regions[1].blocks[0]


def _while_jvp(c, tangents):
    op, fw = c.op, c.engine
    before, after = _while_blocks(op)
    inits, n = list(op.operands), len(op.results)
    forwarded = list(_terminator(before).operands)[1:]
    yields = list(_terminator(after).operands)
    outer = [v for v in captured_values(op) if v in fw.tangents]
    graph = dependency_graph(before)
    graph.update(dependency_graph(after))
    candidates = {k: ([forwarded[k], yields[k]], [before.arguments[k], after.arguments[k]])
                  for k in range(n) if is_float_tensor(inits[k])}
    active = sorted(_grow_active(graph, outer, candidates,
                                 {k for k in candidates if inits[k] in fw.tangents}))
    if not active:
        return [None] * n
    with ir.InsertionPoint(op):
        t_inits = _tangent_inits(fw, inits, active)
        types = [r.type for r in op.results] + [t.type for t in t_inits]
        loop = scf.WhileOp(types, inits + t_inits)
    location = op.location
    for region_index, region in ((0, loop.before), (1, loop.after)):
        block = ir.Block.create_at_start(region, types, [location] * len(types))
        args = list(block.arguments)
        with ir.InsertionPoint(block):
            _, yielded = copy_body(op, args[:n], region_index)
            inner = fw.nested({args[k]: Val(args[n + j]) for j, k in enumerate(active)})
            if region_index == 0:  # scf.condition(flag) forwarded...
                _terminate_with_tangents(scf.ConditionOp, block, inner, [yielded[0]], yielded[1:],
                                         active, fw.prefix)
            else:
                _terminate_with_tangents(scf.YieldOp, block, inner, [], yielded, active, fw.prefix)
    _replace_uses(op, list(loop.results)[:n])
    fw.tangents.update({loop.results[k]: Val(loop.results[n + j]) for j, k in enumerate(active)})
    return None


family.jvp("scf.for")(_for_jvp)
family.jvp("scf.if")(lambda c, tangents: _branches_jvp(c, _new_if))
family.jvp("scf.execute_region")(lambda c, tangents: _branches_jvp(c, _new_execute_region))
family.jvp("scf.while")(_while_jvp)


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------

def _branches_vjp(c, cotangents, rebuild):
    """Reverse mode of an op that runs one of its single-block regions once (``scf.if``, ``scf.execute_region``).

    ``rebuild(op, types)`` makes the op again with results ``types``: in each
    region the backward pass recomputes that region's forward ops, sweeps them
    backwards from the results' cotangents, and yields the adjoints of the
    active values the op reads from above.
    """
    op, bw = c.op, c.engine
    _entry_blocks(op)
    outer = [v for v in captured_values(op) if bw.accept(v)]
    if not outer:
        return []
    new, blocks = rebuild(op, [_batched_type(v, bw.prefix) for v in outer])
    for region, block in enumerate(blocks):
        with ir.InsertionPoint(block):
            ops, yielded = copy_body(op, [], region)
            nested = bw.nested(ops, outer)
            for value, ct in zip(yielded, cotangents):
                nested.accumulate(value, ct)
            nested.sweep(ops)
            scf.YieldOp([nested.adjoint_or_zeros(v) for v in outer])
    for value, adjoint in zip(outer, new.results):
        bw.accumulate(value, Val(adjoint))
    return []


def _constant_index(value: ir.Value):
    """The value of an ``arith.constant`` index or integer, or None."""
    owner = value.owner
    if isinstance(value, ir.OpResult) and owner.name == "arith.constant":
        return owner.attributes["value"].value
    return None


def _index(n: int) -> ir.Value:
    return arith.ConstantOp(ir.IndexType.get(), n).result


def _cast(value: ir.Value, to: ir.Type) -> ir.Value:
    """``value`` (an index or integer) as type ``to``: ``scf.for`` bounds may be ``i64`` as well as ``index``."""
    return value if value.type == to else arith.IndexCastOp(to, value).result


def _trip_count(lb: ir.Value, ub: ir.Value, step: ir.Value):
    """(static count or None, index value) of ``ceil((ub - lb) / step)``, at least 0."""
    bounds = [_constant_index(v) for v in (lb, ub, step)]
    if None not in bounds:
        count = max(0, -(-(bounds[1] - bounds[0]) // bounds[2]))
        return count, _index(count)
    lb, ub, step = (_cast(v, ir.IndexType.get()) for v in (lb, ub, step))
    span = arith.SubIOp(ub, lb).result
    count = arith.CeilDivSIOp(span, step).result
    return None, arith.MaxSIOp(count, _index(0)).result


def _only_overwritten(arg: ir.Value) -> bool:
    """True when ``arg`` is only ever the destination of ``tensor.insert_slice``.

    Such a carry (``scan``'s stacked outputs) is written, never read: no adjoint
    rule needs its value, so replaying an iteration does not need it either.
    """
    uses = list(arg.uses)
    return bool(uses) and all(u.owner.name == "tensor.insert_slice" and u.operand_number == 1
                              for u in uses)


def _integer_only(op: ir.Operation) -> bool:
    """Whether ``op`` computes integers from its operands alone (pure, no regions, no float results)."""
    return (has_trait(op, Trait.PURE) and not op.regions and len(op.results) > 0
            and not any(carries_derivative(r) for r in op.results))


def _integer_feeds(arg: ir.Value, terminator: ir.Operation):
    """Positions of ``terminator``'s operands that ``arg`` reaches through integer-only ops.

    None when ``arg`` reaches anything else: a float op (``arith.sitofp``,
    ``arith.select`` on a flag), a region op (an ``scf.if`` on it, a nested
    loop's bound), an index into a tensor of floats.
    """
    positions, seen, todo = set(), set(), [arg]
    while todo:
        value = todo.pop()
        if value in seen:
            continue
        seen.add(value)
        for use in value.uses:
            user = use.owner.operation
            if user == terminator:
                positions.add(use.operand_number)
            elif _integer_only(user):
                todo.extend(user.results)
            else:
                return None
    return positions


def taped_carries(loop: ir.Operation) -> list:
    """Indices of the carries a loop's tape stores each iteration.

    Replaying an iteration needs the carries its body reads; nothing else is
    stored: loop-invariant values are read from the enclosing function, and
    carries the body only writes into are replayed from zeros. Integer and
    index carries (counters, flags) are stored as integers when the replay
    needs them; one that only feeds integer arithmetic yielding carries not
    stored either (a ``while`` loop's counter, read by the condition alone)
    is replayed from zeros too. This is the one place a checkpointing scheme
    changes what a loop keeps.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: f64, %n: index) -> f64 {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %r:3 = scf.while (%i = %c0, %k = %c0, %v = %x) : (index, index, f64) -> (index, index, f64) {
    ...     %c = arith.cmpi slt, %i, %n : index
    ...     scf.condition(%c) %i, %k, %v : index, index, f64
    ...   } do {
    ...   ^bb0(%j: index, %l: index, %w: f64):
    ...     %kf = arith.index_cast %l : index to i64
    ...     %f = arith.sitofp %kf : i64 to f64
    ...     %s = arith.mulf %w, %f : f64
    ...     %j1 = arith.addi %j, %c1 : index
    ...     %l1 = arith.addi %l, %c1 : index
    ...     scf.yield %j1, %l1, %s : index, index, f64
    ...   }
    ...   return %r#2 : f64
    ... }''', make_context())
    >>> loop = m.body.operations[0].regions[0].blocks[0].operations[2]
    >>> taped_carries(loop.operation)  # the counter %j only decides when to stop
    [1, 2]
    """
    if loop.name == "scf.for":
        carries = list(loop.regions[0].blocks[0].arguments)[1:]
    else:  # scf.while: the body region's arguments
        carries = list(loop.regions[1].blocks[0].arguments)
    terminator = _terminator(carries[0].owner) if carries else None
    unread = {k for k, arg in enumerate(carries) if not list(arg.uses) or _only_overwritten(arg)}
    feeds = {k: _integer_feeds(arg, terminator) for k, arg in enumerate(carries)
             if k not in unread and not carries_derivative(arg)}
    # An integer carry may go unstored while what it feeds is not stored either.
    skipped = {k for k, positions in feeds.items() if positions is not None}
    while True:
        kept = {k for k in skipped if not feeds[k] <= skipped | unread}
        if not kept:
            break
        skipped -= kept
    return [k for k in range(len(carries)) if k not in unread and k not in skipped]


def _tape(value: ir.Value, rows) -> ir.Value:
    """An empty tape of ``rows`` rows (an int or an index value), each of the shape of ``value`` (one element for a scalar)."""
    t = value.type
    sizes = [tad_ops.dim_size(value, d) if is_dynamic(n) else n for d, n in enumerate(value_shape(t))]
    return tensor.EmptyOp([rows] + sizes, element_type(t)).result


def _empty_tape(value: ir.Value, static_count, count: ir.Value) -> ir.Value:
    return _tape(value, static_count if static_count is not None else count)


def _snapshots(loop: ir.Operation):
    """The loop's ``tad.snapshots`` (binomial checkpointing with that many snapshots), or None."""
    if "tad.snapshots" not in loop.attributes:
        return None
    snapshots = ir.IntegerAttr(loop.attributes["tad.snapshots"]).value
    if snapshots < 1:
        raise DerivativeError(loop.location, f"tad.snapshots of '{loop.name}' must be at least 1, "
                              f"got {snapshots}")
    return snapshots


def _for_vjp(c, cotangents):
    op, bw = c.op, c.engine
    body = op.regions[0].blocks[0]
    lb, ub, step = list(op.operands)[:3]
    inits, n = list(op.operands)[3:], len(op.results)
    carries = list(body.arguments)[1:]
    active = [k for k in range(n) if bw.accept(carries[k]) or bw.accept(op.results[k])]
    outer = [v for v in captured_values(op) if bw.accept(v)]
    if not active and not outer:
        return []
    snapshots = _snapshots(op)
    taped = taped_carries(op)
    resized = kept_sizes(op, taped)
    if resized is not None:
        raise DerivativeError(op.location, f"no reverse-mode (vjp) rule for 'scf.for' whose carry {resized} of "
                              f"type {inits[resized].type} may change its dynamic size from one iteration to the "
                              "next: its tape keeps rows of the initial size; keep the carry's size through the "
                              "body (each ? computed elementwise from the carry)")
    with ir.InsertionPoint(op):
        static_count, count = _trip_count(lb, ub, step)
    if snapshots is not None and static_count is None:
        raise DerivativeError(op.location, "binomial checkpointing (tad.snapshots) needs a loop "
                              "with a static trip count (constant bounds and step)")
    # With a snapshot per step Revolve would store every state, as the tape does.
    if snapshots is not None and snapshots < static_count:
        _revolve_vjp(c, cotangents, active, outer, taped, static_count, snapshots)
        return []
    with ir.InsertionPoint(op):
        forward, body_ops = _taping_loop(op, [_empty_tape(inits[k], static_count, count) for k in taped],
                                         taped)
    _replace_uses(op, list(forward.results)[:n])
    row, replayed = _backward_loop(c, op, 0, count, list(forward.results)[n:], taped, active, outer,
                                   cotangents, lambda row: [_step_value(op, row)])
    _tape_residuals(op, forward, body_ops, replayed, row, taped, static_count, count)
    return []


def _taping_loop(op: ir.Operation, tapes: list, taped: list, residuals=(), residual_tapes=()) -> tuple:
    """``op`` (an ``scf.for``) storing, each iteration, its ``taped`` carries into ``tapes`` and the
    values ``(position, result)`` of its body's ops ``residuals`` into ``residual_tapes``.

    Returns the loop, whose results are ``op``'s then the tapes, and its copy of ``op``'s body ops.
    """
    lb, ub, step = list(op.operands)[:3]
    inits = _loop_inits(op)
    n = len(inits)
    forward = scf.ForOp(lb, ub, step, inits + list(tapes) + list(residual_tapes))
    args = list(forward.inner_iter_args)
    with ir.InsertionPoint(forward.body):
        row = _cast(arith.DivSIOp(arith.SubIOp(forward.induction_variable, lb).result, step).result,
                    ir.IndexType.get())
        stored = [tad_ops.insert_row(args[n + i], args[k], row) for i, k in enumerate(taped)]
        body_ops, yielded = copy_body(op, [forward.induction_variable] + args[:n])
        kept = [tad_ops.insert_row(args[n + len(taped) + m], body_ops[i].results[j], row)
                for m, (i, j) in enumerate(residuals)]
        scf.YieldOp(yielded + stored + kept)
    return forward, body_ops


#: A value the backward sweep reads is taped (stored each iteration) rather than
#: replayed when replaying it costs at least this many FLOPs per element stored.
RESIDUAL_FLOPS_PER_ELEMENT = 8


def _elements(t: ir.Type) -> int:
    return int(np.prod(t.shape)) if isinstance(t, ir.ShapedType) and t.has_static_shape else 1


def costly_residuals(replayed: list) -> list:
    """``(position, result)`` of the replayed values a backward sweep reads that are costly to replay.

    ``replayed`` are a loop body's ops as a reverse step copied them; a result
    is a residual when an op outside them (the sweep) reads it, and costly when
    the replayed ops it depends on cost at least
    :data:`RESIDUAL_FLOPS_PER_ELEMENT` FLOPs per element (remat's cost model):
    a contraction's output, or a long elementwise chain's, but not a slice of
    a loop-invariant input or a broadcast. Storing those, as JAX's scan stores
    its residuals, spares the backward loop a replay of the forward body.
    """
    position = {op.operation: i for i, op in enumerate(replayed)}

    def producer(value: ir.Value):
        owner = value.owner
        return None if isinstance(owner, ir.Block) else position.get(owner.operation)

    def closure_flops(i: int) -> int:
        seen, stack, total = {i}, [i], 0
        while stack:
            op = replayed[stack.pop()]
            total += flops_of(op)
            for k in map(producer, op.operands):
                if k is not None and k not in seen:
                    seen.add(k)
                    stack.append(k)
        return total

    cost: dict = {}
    residuals = []
    for i, op in enumerate(replayed):
        for j, result in enumerate(op.results):
            if all(use.owner.operation in position for use in result.uses):
                continue
            if isinstance(result.type, ir.ShapedType) and not result.type.has_static_shape:
                continue  # its tape's row sizes would be read inside the loop
            if i not in cost:
                cost[i] = closure_flops(i)
            if cost[i] >= RESIDUAL_FLOPS_PER_ELEMENT * _elements(result.type):
                residuals.append((i, j))
    return residuals


def _tape_residuals(op: ir.Operation, forward, body_ops: list, replayed: list, row: ir.Value, taped: list,
                    static_count, count: ir.Value) -> None:
    """Store the costly residuals of ``op``, an ``scf.for``, in its taping loop ``forward``; read them backward.

    ``forward`` is rebuilt with one more tape per residual; the backward
    loop's replayed value becomes that tape's row ``row``. A residual the
    body yields as a taped carry (an RNN's new hidden state) needs no tape of
    its own: it is that carry's tape one row later, so that tape gets one more
    row, the final carry. What the replay then no longer needs is dead code,
    which the simplify pass removes.
    """
    residuals = costly_residuals(replayed)
    if not residuals:
        return
    inits = _loop_inits(op)
    n = len(inits)
    yielded = list(_terminator(forward.body).operands)[:n]
    values = [body_ops[i].results[j] for i, j in residuals]
    # A residual yielded as taped carry k is read from k's tape, one row later.
    shifted = {m: taped.index(k) for m, v in enumerate(values) for k in taped if yielded[k] == v}
    lengthened = sorted(set(shifted.values()))
    own = [m for m in range(len(residuals)) if m not in shifted]
    with ir.InsertionPoint(forward):
        tapes = list(forward.operands)[3 + n:]
        longer = None if static_count is None else static_count + 1
        for t in lengthened:
            tapes[t] = _empty_tape(inits[taped[t]], longer, arith.AddIOp(count, _index(1)).result)
        grown, _ = _taping_loop(op, tapes, taped, [residuals[m] for m in own],
                                [_empty_tape(values[m], static_count, count) for m in own])
        results = list(grown.results)
        for t in lengthened:  # the final carry in the extra row
            results[n + t] = tad_ops.insert_row(results[n + t], results[taped[t]], count)
    _replace_uses(forward, results[:n + len(taped)])
    forward.erase()
    with ir.InsertionPoint(replayed[0]):
        next_row = arith.AddIOp(row, _index(1)).result
        for m, (i, j) in enumerate(residuals):
            result = replayed[i].results[j]
            tape, at = ((results[n + shifted[m]], next_row) if m in shifted
                        else (results[n + len(taped) + own.index(m)], row))
            result.replace_all_uses_with(tad_ops.dynamic_row(tape, at, result.type))


def _step_value(loop: ir.Operation, row: ir.Value) -> ir.Value:
    """The induction variable of an ``scf.for``'s iteration ``row``: ``lb + row * step``."""
    lb, _, step = list(loop.operands)[:3]
    return arith.AddIOp(lb, arith.MulIOp(_cast(row, lb.type), step).result).result


def _loop_inits(loop: ir.Operation) -> list:
    return list(loop.operands)[len(loop.operands) - len(loop.results):]


def _full_carries(loop: ir.Operation, known: dict) -> list:
    """Every carry of ``loop`` for a replay: ``known[k]``, zeros or the init for the others.

    ``known`` holds at least the :func:`taped_carries`; the body never reads
    the others (nor do its adjoints), so any value of the right type will do:
    zeros for a float carry, the init itself for an integer one (``tad.constant``
    has no ``index`` tensors).
    """
    return [known[k] if k in known else zeros_like(v, ()) if carries_derivative(v) else v
            for k, v in enumerate(_loop_inits(loop))]


def _initial_adjoints(bw, loop: ir.Operation, active: list, outer: list, cotangents: list) -> list:
    """Adjoint carries of a reversed loop: the results' cotangents, then zero accumulators."""
    inits = _loop_inits(loop)
    seeds = [cotangents[k] if cotangents[k] is not None else zeros_like(inits[k], bw.prefix)
             for k in active]
    return seeds + [zeros_like(v, bw.prefix) for v in outer]


def _reverse_step(c, loop: ir.Operation, region: int, arguments: list, adjoints: list,
                  active: list, outer: list) -> tuple:
    """Replay one iteration of ``loop`` from ``arguments`` and sweep it backwards.

    ``adjoints`` holds the adjoints of the ``active`` carries after the
    iteration, then the sums so far of those of the loop-invariant ``outer``
    values; returns them as they are before the iteration, and the replayed
    ops (the body's ops in order, as :func:`copy_body` returns them).
    """
    ops, yielded = copy_body(loop, arguments, region)
    replayed_carries = arguments[len(arguments) - len(loop.results):]
    nested = c.engine.nested(ops, [replayed_carries[k] for k in active] + outer)
    for j, k in enumerate(active):
        nested.accumulate(yielded[k], Val(adjoints[j]))
    nested.sweep(ops)
    next_seeds = [nested.adjoint_or_zeros(replayed_carries[k]) for k in active]
    sums = [Val(adjoints[len(active) + i]) + nested.adjoints[v]
            if v in nested.adjoints else adjoints[len(active) + i]
            for i, v in enumerate(outer)]
    return next_seeds + sums, ops


def _accumulate_adjoints(bw, loop: ir.Operation, active: list, outer: list, adjoints: list) -> None:
    """Hand a reversed loop's final adjoints to the inits and the loop-invariant values."""
    inits = _loop_inits(loop)
    for j, k in enumerate(active):
        bw.accumulate(inits[k], Val(adjoints[j]))
    for i, v in enumerate(outer):
        bw.accumulate(v, Val(adjoints[len(active) + i]))


def _backward_loop(c, op: ir.Operation, region: int, count: ir.Value, tapes: list, taped: list,
                   active: list, outer: list, cotangents: list, leading) -> tuple:
    """The reversed loop of a taped ``scf.for``/``scf.while``: ``count`` replays of ``region``.

    Iteration ``row`` (from ``count - 1`` down to 0) replays the body from its
    taped carries (``leading(row)`` supplies the block arguments before the
    carries), sweeps it backwards from the carried adjoints, and adds the
    adjoints of the loop-invariant ``outer`` values to accumulators.
    Returns ``row`` (a value of the backward body) and the replayed ops.
    """
    bw = c.engine
    backward = scf.ForOp(_index(0), count, _index(1),
                         _initial_adjoints(bw, op, active, outer, cotangents))
    with ir.InsertionPoint(backward.body):
        last = arith.SubIOp(count, _index(1)).result
        row = arith.SubIOp(last, backward.induction_variable).result
        inits = _loop_inits(op)
        known = {k: tad_ops.dynamic_row(tapes[i], row, inits[k].type) for i, k in enumerate(taped)}
        adjoints, replayed = _reverse_step(c, op, region, leading(row) + _full_carries(op, known),
                                           list(backward.inner_iter_args), active, outer)
        scf.YieldOp(adjoints)
    _accumulate_adjoints(bw, op, active, outer, list(backward.results))
    return row, replayed


# ----------------------------------------------------------------------------
# Reverse mode with binomial checkpointing (Revolve)
# ----------------------------------------------------------------------------

def _revolve_vjp(c, cotangents, active: list, outer: list, taped: list, steps: int,
                 snapshots: int) -> None:
    """Reverse an ``scf.for`` of ``steps`` iterations keeping ``snapshots`` snapshots.

    The schedule of :func:`tensorad.passes.remat.revolve.schedule` runs as two
    loops over tables of its actions (see :func:`_run_actions`): the forward
    sweep, in place of the loop, takes its first snapshots and runs every step
    (the loop's results are read before the backward sweep starts), keeping
    ``x[l - 1]``, where reversal starts, in one more row; the backward sweep,
    at the end, restores, advances, snapshots and reverses. A snapshot is a
    row of one stacked tensor per taped carry. The body thus runs
    ``forward_steps(l, s) + l + 1`` times, against ``2 l`` for a full tape.
    """
    op, bw = c.op, c.engine
    actions = revolve.schedule(steps, snapshots)
    turn = [a.kind for a in actions].index(Kind.FIRST_REVERSE)
    last = max((a.slot for a in actions), default=-1) + 1  # the row of x[l - 1]
    inits = _loop_inits(op)
    with ir.InsertionPoint(op):
        stacks = [_tape(inits[k], last + 1) for k in taped]
        sweep = actions[:turn] + [Action(Kind.TAKESHOT, steps - 1, steps - 1, last),
                                  Action(Kind.ADVANCE, steps - 1, steps)]
        results, stacks, _ = _run_actions(c, sweep, dict(enumerate(inits)), taped, stacks)
    _replace_uses(op, [results[k] for k in range(len(inits))])
    reversal = [Action(Kind.RESTORE, steps - 1, steps - 1, last)] + actions[turn:]
    _, _, adjoints = _run_actions(c, reversal, {k: results[k] for k in taped}, taped, stacks,
                                  _initial_adjoints(bw, op, active, outer, cotangents),
                                  active, outer)
    _accumulate_adjoints(bw, op, active, outer, adjoints)


def _when(flag: ir.Value, values: list, then) -> list:
    """``then()`` if ``flag`` else ``values``, as an ``scf.if`` (``then`` emits into its branch)."""
    choice = scf.IfOp(flag, [v.type for v in values], has_else=True)
    with ir.InsertionPoint(choice.then_block):
        scf.YieldOp(then())
    with ir.InsertionPoint(choice.else_block):
        scf.YieldOp(values)
    return list(choice.results)


def _action_rows(actions: list) -> list:
    """The rows ``[restore, start, stop, snapshot, reverse]`` of the tables that run ``actions``.

    A row restores slot ``restore`` as ``x[start]``, advances to ``x[stop]``
    (no step when ``stop == start``), stores it in slot ``snapshot`` and
    reverses step ``reverse`` (``== stop``); ``-1`` leaves a section out. A
    row is one action, or an advance and the snapshot that
    follows it: a restore or an advance shares a row with what comes after
    it only at the cost of one more state alive at the peak (the state it
    replaces lives until the end of the row).
    """
    rows = []
    for a in actions:
        if a.kind == Kind.TAKESHOT and rows and rows[-1][1] < rows[-1][2] == a.start:
            rows[-1][3] = a.slot
            continue
        rows.append([a.slot if a.kind == Kind.RESTORE else -1, a.start,
                     a.stop if a.kind == Kind.ADVANCE else a.start,
                     a.slot if a.kind == Kind.TAKESHOT else -1,
                     a.start if a.kind in (Kind.FIRST_REVERSE, Kind.REVERSE) else -1])
    return rows


def _run_actions(c, actions: list, state: dict, taped: list, stacks: list, adjoints=(),
                 active=(), outer=()):
    """Emit one ``scf.for`` that runs Revolve ``actions``, read from a constant table.

    ``state`` maps carry indices to values: the carries the actions keep
    (every carry in the forward sweep, the taped ones after it). ``stacks``
    hold the snapshots, one stacked tensor per taped carry. Each iteration
    runs one row of :func:`_action_rows`: a guarded read of a row of the
    stacks, an inner ``scf.for`` over the steps to advance, a guarded write
    of a row, and a guarded replay and backward sweep of one step that
    updates ``adjoints`` (see :func:`_reverse_step`); the sections no row
    uses are left out. The code is the same size for any number of steps and
    snapshots.

    Returns the final ``(state, stacks, adjoints)``.
    """
    op = c.op
    kept, rows = sorted(state), _action_rows(actions)
    t = ir.RankedTensorType.get([len(rows), 5], ir.IndexType.get())
    table = arith.ConstantOp(t, ir.DenseElementsAttr.get(np.array(rows, np.int64), type=t)).result
    values = [state[k] for k in kept] + list(stacks) + list(adjoints)
    loop = scf.ForOp(_index(0), _index(len(rows)), _index(1), values)
    with ir.InsertionPoint(loop.body):
        args = list(loop.inner_iter_args)
        state = dict(zip(kept, args[:len(kept)]))
        stacks = args[len(kept):len(kept) + len(stacks)]
        adjoints = args[len(kept) + len(stacks):]
        restore, start, stop, snapshot, reverse = [
            tensor.ExtractOp(table, [loop.induction_variable, _index(j)]).result for j in range(5)]

        def given(column: ir.Value) -> ir.Value:
            return arith.CmpIOp(arith.CmpIPredicate.sge, column, _index(0)).result

        if any(row[0] >= 0 for row in rows):
            restored = _when(given(restore), [state[k] for k in taped],
                             lambda: [tad_ops.dynamic_row(s, restore, state[k].type)
                                      for s, k in zip(stacks, taped)])
            state.update(zip(taped, restored))
        state = _advance(op, start, stop, state)
        if any(row[3] >= 0 for row in rows):
            stacks = _when(given(snapshot), stacks,
                           lambda: [tad_ops.insert_row(s, state[k], snapshot)
                                    for s, k in zip(stacks, taped)])
        if any(row[4] >= 0 for row in rows):
            adjoints = _when(given(reverse), adjoints, lambda: _reverse_step(
                c, op, 0, [_step_value(op, reverse)] + _full_carries(op, state), adjoints,
                active, outer)[0])
        scf.YieldOp([state[k] for k in kept] + stacks + adjoints)
    results = list(loop.results)
    return (dict(zip(kept, results[:len(kept)])), results[len(kept):len(kept) + len(stacks)],
            results[len(kept) + len(stacks):])


def _advance(op: ir.Operation, start: ir.Value, stop: ir.Value, state: dict) -> dict:
    """Run iterations ``start .. stop - 1`` of ``op`` on ``state`` (the carries it keeps)."""
    kept = sorted(state)
    loop = scf.ForOp(start, stop, _index(1), [state[k] for k in kept])
    with ir.InsertionPoint(loop.body):
        known = dict(zip(kept, loop.inner_iter_args))
        _, yielded = copy_body(op, [_step_value(op, loop.induction_variable)]
                             + _full_carries(op, known))
        scf.YieldOp([yielded[k] for k in kept])
    return dict(zip(kept, loop.results))


_INITIAL_ROWS = 16  # first capacity of a while loop's tape; it doubles when full


def _grown(tape: ir.Value, count: ir.Value) -> ir.Value:
    """``tape`` with room for row ``count``: twice the rows when it is full."""
    rows = tensor.DimOp(tape, _index(0)).result
    full = arith.CmpIOp(arith.CmpIPredicate.eq, count, rows).result
    choice = scf.IfOp(full, [tape.type], has_else=True)
    with ir.InsertionPoint(choice.then_block):
        t = tape.type
        rest = [tad_ops.dim_size(tape, d + 1) if is_dynamic(n) else n for d, n in enumerate(t.shape[1:])]
        bigger = tensor.EmptyOp([arith.MulIOp(rows, _index(2)).result] + rest, t.element_type).result
        copied = tad_ops.insert_slice(tape, bigger, [0] * (len(rest) + 1), [rows] + rest,
                                      [1] * (len(rest) + 1))
        scf.YieldOp([copied])
    with ir.InsertionPoint(choice.else_block):
        scf.YieldOp([tape])
    return choice.results[0]


def _while_vjp(c, cotangents):
    op, bw = c.op, c.engine
    before, after = _while_blocks(op)
    inits, n = list(op.operands), len(op.results)
    forwarded = list(_terminator(before).operands)[1:]
    # The condition region may compute integers (a do-while's counter), not floats: the
    # backward sweep replays the body region alone.
    changed = [k for k, arg in enumerate(before.arguments) if carries_derivative(arg) and forwarded[k] != arg]
    if changed:
        raise DerivativeError(op.location, f"no reverse-mode (vjp) rule for 'scf.while' whose condition "
                              f"region changes its float carry {changed[0]}: reverse mode needs the "
                              "condition region to forward its float arguments unchanged (as "
                              "lax.while_loop does)")
    carries = list(after.arguments)
    active = [k for k in range(n) if bw.accept(carries[k]) or bw.accept(op.results[k])]
    outer = [v for v in captured_values(op) if bw.accept(v)]
    if not active and not outer:
        return []
    taped = taped_carries(op)
    # Integer and index carries (counters, flags) are taped like float ones, and tensors
    # of dynamic shape whose sizes the body keeps. A while loop's own derivative carries
    # its tape, which grows: that is not taped.
    resized = kept_sizes(op, taped)
    if resized is not None:
        raise DerivativeError(op.location, f"no reverse-mode (vjp) rule for 'scf.while' with carry {resized} of "
                              f"type {inits[resized].type}, whose dynamic size may change from one iteration "
                              "to the next: reverse mode tapes rows of one size (a while loop's own derivative "
                              "cannot be differentiated in reverse mode again: take forward over reverse, e.g. "
                              "jvp of grad or hessian, or use fori_loop or scan)")
    index = ir.IndexType.get()
    with ir.InsertionPoint(op):
        tapes = [_tape(inits[k], _INITIAL_ROWS) for k in taped]
        tapes = [tensor.CastOp(ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()]
                                                       + list(t.type.shape[1:]), t.type.element_type),
                               t).result for t in tapes]
        types = [v.type for v in inits] + [t.type for t in tapes] + [index]
        forward = scf.WhileOp(types, inits + tapes + [_index(0)])
    location = op.location
    blocks = [ir.Block.create_at_start(region, types, [location] * len(types))
              for region in (forward.before, forward.after)]
    with ir.InsertionPoint(blocks[0]):
        args = list(blocks[0].arguments)
        _, yielded = copy_body(op, args[:n])
        scf.ConditionOp(yielded[0], yielded[1:] + args[n:])
    with ir.InsertionPoint(blocks[1]):
        args = list(blocks[1].arguments)
        count = args[-1]
        stored = [tad_ops.insert_row(_grown(args[n + i], count), args[k], count)
                  for i, k in enumerate(taped)]
        _, yielded = copy_body(op, args[:n], 1)
        scf.YieldOp(yielded + stored + [arith.AddIOp(count, _index(1)).result])
    _replace_uses(op, list(forward.results)[:n])
    _backward_loop(c, op, 1, forward.results[-1], list(forward.results)[n:-1], taped, active,
                   outer, cotangents, lambda row: [])
    return []


family.vjp("scf.if")(lambda c, cotangents: _branches_vjp(c, cotangents, _new_if))
family.vjp("scf.execute_region")(lambda c, cotangents: _branches_vjp(c, cotangents, _new_execute_region))
family.vjp("scf.for")(_for_vjp)
family.vjp("scf.while")(_while_vjp)
