"""Derivative rules of ``linalg.generic``, and so of every named structured op.

``tad-differentiate`` first rewrites named structured ops (records with
:attr:`~tensorad.dialects.record.Trait.GENERALIZABLE`: ``linalg.matmul``,
``linalg.reduce``, the convolutions...) into the ``linalg.generic`` they stand
for (:func:`generalize`). A generic's derivative is built from its scalar body
with the sweeps' own engines, so each scalar op's rule serves here too:

* **Forward mode** builds one generic over the same loops (plus one parallel
  loop per batch-prefix dimension) that reads the primal operands and their
  tangents and yields the tangents: the body's forward sweep. An additive
  reduction (``out + g``) carries only the tangent; any other reduction
  recomputes its primal value alongside (no batch prefix then).
* **Reverse mode** builds, per active operand ``x`` read at the indexing map
  ``M``, a generic whose output is ``x``'s adjoint indexed by ``M`` (loops
  that ``M`` does not read become reductions, as LAGrad turns broadcasts into
  sums and back), over a body that seeds the primal body's yields with the
  result cotangents and sweeps it backwards. The output of an additive
  reduction passes its cotangent to the init unchanged; a max/min reduction
  (``maxnumf``, ``minimumf``, ...) splits it equally among the elements equal
  to the result, as JAX's ``reduce_max`` does. An operand read through a
  window (``d0 + d1``: convolutions, pooling) has no invertible map for its
  adjoint, so its adjoint is accumulated in an ``scf.for`` nest over the loops
  instead.

What has no rule (a reduction that is neither additive nor a max/min in
reverse mode, a body reading an active tensor it captures) is refused with
a diagnostic at the op.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%a: tensor<2x3xf64>, %b: tensor<3x4xf64>, %c: tensor<2x4xf64>) -> tensor<2x4xf64> {
...   %0 = linalg.matmul ins(%a, %b : tensor<2x3xf64>, tensor<3x4xf64>) outs(%c : tensor<2x4xf64>) -> tensor<2x4xf64>
...   return %0 : tensor<2x4xf64>
... }
... func.func private @f_vjp(tensor<2x3xf64>, tensor<3x4xf64>, tensor<2x4xf64>, tensor<2x4xf64>)
...     -> (tensor<2x4xf64>, tensor<2x3xf64>) attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}''',
...     make_context())
>>> run_pipeline(m, "tad-differentiate")
>>> str(m).count("linalg.generic")  # the matmul, and the adjoint of %a
2
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mlir import ir, passmanager
from mlir.dialects import affine, arith, scf, tensor
from mlir.dialects._linalg_ops_gen import GenericOp, YieldOp

from tensorad.dialects import builder, linalg_builder
from tensorad.dialects.builder import Val, scalar_constant, zeros_like
from tensorad.dialects.families.linalg import family, operand_segments
from tensorad.dialects.record import Trait, has_trait
from tensorad.passes.walk import collect, copy_body

from .activity import captured_values, dependency_graph, is_float_tensor, reach
from .forward import Forward
from .reverse import Backward
from .signature import DerivativeError


def generalize(fn: ir.Operation) -> None:
    """Rewrite the named structured ops in ``fn`` into ``linalg.generic`` (upstream ``linalg-generalize-named-ops``)."""
    if collect(fn, lambda op: has_trait(op, Trait.GENERALIZABLE)):
        passmanager.PassManager.parse("func.func(linalg-generalize-named-ops)").run(fn)


# ----------------------------------------------------------------------------
# The parts of a generic, and how each output combines into its init
# ----------------------------------------------------------------------------

@dataclass
class _Output:
    """How output ``j`` of a generic uses its init.

    ``kind`` is ``"read"`` (no reduction loops: the init is read once, like an
    input), ``"add"`` (``out + g``), ``"select"`` (a max/min of ``out`` and
    ``g``) or ``"other"``; ``combiner`` is the body op of ``"add"``/``"select"``
    and ``addend`` its operand ``g``.
    """

    kind: str
    combiner: Optional[ir.Operation] = None
    addend: Optional[ir.Value] = None


@dataclass
class _Generic:
    """A ``linalg.generic``'s operands, indexing maps, iterator kinds and body."""

    op: ir.Operation
    inputs: list
    outputs: list
    maps: list
    iterators: list
    body: ir.Block

    @property
    def n_loops(self) -> int:
        return self.maps[0].n_dims

    @property
    def yields(self) -> list:
        return list(list(self.body.operations)[-1].operands)

    def output_kinds(self) -> list:
        """How each output combines into its init (:class:`_Output`)."""
        args = list(self.body.arguments)[len(self.inputs):]
        if "reduction" not in self.iterators:
            return [_Output("read") for _ in self.outputs]
        depends_on_out = reach(dependency_graph(self.body), args)
        kinds = []
        for arg, yielded in zip(args, self.yields):
            kinds.append(_combination(arg, yielded, depends_on_out))
        return kinds


def _combination(out: ir.Value, yielded: ir.Value, depends_on_out: set) -> _Output:
    """How a reduction's body combines its running value ``out`` into what it yields.

    ``out + g``, a max/min op of ``out`` and ``g``, or a choice between them
    (``select(cmpf(out, g), out, g)``, as LAGrad writes a max), with ``g``
    independent of every running value; ``"other"`` for anything else.
    """
    combiner = yielded.owner
    if not isinstance(combiner, (ir.Operation, ir.OpView)) or len(list(yielded.uses)) != 1:
        return _Output("other")
    combiner = combiner.operation
    users = {use.owner.operation for use in out.uses}
    others = [v for v in combiner.operands if v != out]
    if combiner.name == "arith.select":  # operands: the choice, then the two candidates
        choice, candidates = combiner.operands[0], list(combiner.operands)[1:]
        compare = choice.owner
        if not isinstance(compare, (ir.Operation, ir.OpView)) or compare.operation.name != "arith.cmpf" \
                or len(list(choice.uses)) != 1 or out not in candidates:
            return _Output("other")
        compare = compare.operation
        others = [v for v in candidates if v != out]
        if users != {combiner, compare} or len(others) != 1 or set(compare.operands) != {out, others[0]}:
            return _Output("other")
        kind = "select"
    elif users == {combiner} and combiner.name == "arith.addf":
        kind = "add"
    elif users == {combiner} and has_trait(combiner, Trait.SELECTS):
        kind = "select"
    else:
        return _Output("other")
    if len(others) != 1 or others[0] in depends_on_out:
        return _Output("other")
    return _Output(kind, combiner, others[0])


def _parts(op: ir.Operation) -> _Generic:
    inputs, outputs = operand_segments(op)
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    return _Generic(op, inputs, outputs, maps, linalg_builder.iterator_kinds(op), op.regions[0].blocks[0])


def _shifted(m: ir.AffineMap, nb: int, batched: bool) -> ir.AffineMap:
    """``m`` over ``nb`` more leading loops; with ``batched``, reading them first (a batch prefix)."""
    results = [e.shift_dims(m.n_dims, nb) for e in m.results]
    if batched:
        results = [ir.AffineDimExpr.get(d) for d in range(nb)] + results
    return ir.AffineMap.get(m.n_dims + nb, 0, results)


def _reads_dims(m: ir.AffineMap) -> set:
    return {e.position for e in m.results if isinstance(e, ir.AffineDimExpr)}


def _element(value: ir.Value) -> ir.Type:
    return value.type.element_type if isinstance(value.type, ir.ShapedType) else value.type


def _captured_active(op: ir.Operation, active, mode: str) -> list:
    """Active values ``op``'s body captures; refused unless they are scalars."""
    captured = [v for v in captured_values(op) if active(v)]
    if any(isinstance(v.type, ir.ShapedType) for v in captured):
        raise DerivativeError(op.location, f"no {mode} rule for 'linalg.generic' whose body reads an active "
                              "tensor it captures; pass the tensor to the generic as an input")
    return captured


def _refuse_other(g: _Generic, j: int, mode: str) -> DerivativeError:
    return DerivativeError(g.op.location, f"no {mode} rule for linalg.generic: output {j} is a reduction "
                           "whose body is neither 'out + g' nor a max/min of 'out' and 'g'")


# ----------------------------------------------------------------------------
# Forward mode
# ----------------------------------------------------------------------------

@family.jvp("linalg.generic")
def _generic_jvp(c, tangents):
    g, fw, nb = _parts(c.op), c.engine, c.nb
    n_in = len(g.inputs)
    kinds = g.output_kinds()
    # The tangent of a reduction other than a sum depends on the running primal value: recompute it alongside.
    recompute = any(k.kind not in ("read", "add") for k in kinds)
    if recompute and nb:
        raise DerivativeError(g.op.location, "no batched forward-mode (jvp) rule for linalg.generic with "
                              "a reduction other than 'out + g'")
    captured = _captured_active(c.op, fw.tangents.__contains__, "forward-mode (jvp)")
    out_maps = g.maps[n_in:]
    ins, maps, roles = [], [], []  # roles: what each new block argument stands for

    def add_input(value, m, role):
        ins.append(value), maps.append(m), roles.append(role)

    for i, x in enumerate(g.inputs):
        add_input(x, _shifted(g.maps[i], nb, False), ("primal", i))
    for i, x in enumerate(g.inputs):
        if tangents[i] is not None:
            add_input(tangents[i], _shifted(g.maps[i], nb, True), ("tangent", i))
    for j, y in enumerate(g.outputs):
        if kinds[j].kind == "read":
            add_input(y, _shifted(out_maps[j], nb, False), ("primal", n_in + j))
            if tangents[n_in + j] is not None:
                add_input(tangents[n_in + j], _shifted(out_maps[j], nb, True), ("tangent", n_in + j))
    if nb:
        prefix_map = ir.AffineMap.get(g.n_loops + nb, 0, [ir.AffineDimExpr.get(d) for d in range(nb)])
        for v in captured:
            add_input(fw.tangents[v], prefix_map, ("captured", v))
    inits, init_maps, init_roles = [], [], []
    if recompute:
        for j, y in enumerate(g.outputs):
            inits.append(y), init_maps.append(out_maps[j]), init_roles.append(("primal", n_in + j))
    floats = [j for j, y in enumerate(g.outputs) if is_float_tensor(y)]
    for j in floats:
        t = tangents[n_in + j]
        if t is None and kinds[j].kind == "read":  # every element is written: nothing to read
            t = linalg_builder.empty_like(g.outputs[j], fw.prefix)
        elif t is None:
            t = zeros_like(g.outputs[j], fw.prefix)
        inits.append(t), init_maps.append(_shifted(out_maps[j], nb, True)), init_roles.append(("tangent", n_in + j))
    op, block = linalg_builder.empty_generic(ins, inits, maps + init_maps, ["parallel"] * nb + g.iterators)
    args = dict(zip(roles + init_roles, block.arguments))
    with ir.InsertionPoint(block):
        # The init of an additive reduction is not read: its tangent is carried below.
        ops, yielded = _replay_body(g, args, nb)
        seeds = {args[("primal", k)]: Val(args[("tangent", k)])
                 for k in range(n_in + len(g.outputs)) if ("tangent", k) in args and ("primal", k) in args}
        for v in captured:
            seeds[v] = Val(args[("captured", v)]) if nb else fw.tangents[v]
        inner = Forward(seeds, (), fw.derive)
        inner.sweep_ops(_without_combiners(ops, yielded, kinds, ("add",)))
        outs = list(yielded) if recompute else []
        for j in floats:
            if kinds[j].kind == "add":
                addend = inner.tangents.get(_replayed(ops, yielded[j], kinds[j]))
                running = args[("tangent", n_in + j)]
                outs.append(running if addend is None else arith.addf(running, addend))
            else:
                t = inner.tangents.get(yielded[j])
                outs.append(t if t is not None else scalar_constant(0, _element(g.outputs[j])))
        YieldOp(outs)
    _erase_dead(block)
    op = _without_unused_inputs(op)
    results = list(op.results)[len(g.outputs) if recompute else 0:]
    tangent_of = dict(zip(floats, results))
    return [Val(tangent_of[j]) if j in tangent_of else None for j in range(len(g.outputs))]


def _without_combiners(ops: list, yielded: list, kinds: list, combined: tuple) -> list:
    """``ops`` but the replayed combiners of the outputs whose kind is in ``combined``."""
    combiners = [yielded[j].owner.operation for j, k in enumerate(kinds) if k.kind in combined]
    return [o for o in ops if o.operation not in combiners]


def _replayed(ops: list, yielded: ir.Value, kind: _Output) -> ir.Value:
    """The copy of ``kind.addend`` among the replayed ops: the combiner's operand other than the init."""
    combiner = yielded.owner.operation
    position = [i for i, v in enumerate(kind.combiner.operands) if v == kind.addend][0]
    return combiner.operands[position]


def _replay_body(g: _Generic, primal: dict, shift: int = 0, loops: Optional[list] = None) -> tuple:
    """Copy ``g``'s body to the current insertion point; return its ops and the values it yields.

    ``primal[("primal", k)]`` stands for block argument ``k``; an argument
    not given (the init of a reduction whose rule handles it apart) is a zero
    placeholder. ``linalg.index`` is bound as :func:`_bind_indices` says.
    """
    arguments = [primal[("primal", k)] if ("primal", k) in primal else scalar_constant(0, _element(y))
                 for k, y in enumerate(g.inputs + g.outputs)]
    ops, yielded = copy_body(g.op, arguments)
    return _bind_indices(ops, shift, loops), yielded


def _bind_indices(ops: list, shift: int = 0, loops: Optional[list] = None) -> list:
    """Fix the replayed ``linalg.index`` ops; return ``ops`` without those erased.

    In a generic with ``shift`` more leading loops, ``linalg.index d`` becomes
    ``linalg.index d + shift``; outside any generic (an ``scf.for`` nest over
    ``loops``), it is replaced by the loop's induction variable.
    """
    found = []

    def visit(inner):
        if inner.name == "linalg.index":
            found.append(inner.operation)
        return ir.WalkResult.ADVANCE

    for op in ops:
        op.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    for index in found:
        dim = ir.IntegerAttr(index.attributes["dim"]).value
        if loops is None:
            index.attributes["dim"] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), dim + shift)
        else:
            index.results[0].replace_all_uses_with(loops[dim])
    if loops is None:
        return ops
    gone = set(found)
    kept = [op for op in ops if op.operation not in gone]
    for index in found:
        index.erase()
    return kept


# ----------------------------------------------------------------------------
# Reverse mode
# ----------------------------------------------------------------------------

@dataclass
class _Reads:
    """The operands an adjoint body reads: ``(key, value, map, batched)`` each.

    Keys: ``("primal", k)`` for input ``k`` or the init of a ``"read"`` output,
    ``("final", j)``/``("count", j)`` for a max/min output's result and the
    number of elements equal to it, ``("ct", j)`` for output ``j``'s cotangent.
    ``captured`` holds the active scalars the body captures (read in place).
    """

    entries: list
    captured: list

    def keys(self) -> list:
        return [e[0] for e in self.entries]


def _adjoint_sweep(c, g: _Generic, kinds: list, live: list, reads: _Reads, value_of: dict, shift: int,
                   loops: Optional[list]) -> Backward:
    """Replay the body at the current insertion point and sweep it back from the result cotangents.

    ``value_of`` maps each read's key to its scalar here.
    """
    ops, yielded = _replay_body(g, value_of, shift, loops)
    # One element at a time: the cotangents inside the body have no batch prefix.
    inner = c.engine.nested(ops, list(value_of.values()) + reads.captured, prefix=())
    for j in live:
        ct, kind = value_of[("ct", j)], kinds[j]
        if kind.kind == "read":
            inner.accumulate(yielded[j], ct)
            continue
        addend = _replayed(ops, yielded[j], kind)
        if kind.kind == "select":  # the cotangent goes to the elements equal to the result, shared equally
            hit = arith.cmpf(arith.CmpFPredicate.OEQ, addend, value_of[("final", j)])
            share = arith.divf(ct, value_of[("count", j)])
            ct = arith.select(hit, share, scalar_constant(0, _element(g.outputs[j])))
        inner.accumulate(addend, ct)
    inner.sweep(_without_combiners(ops, yielded, kinds, ("add", "select")))
    return inner


def _reads(c, g: _Generic, kinds: list, live: list, cotangents: list, counts: dict, captured: list) -> _Reads:
    n_in = len(g.inputs)
    out_maps = g.maps[n_in:]
    entries = [(("primal", i), x, g.maps[i], False) for i, x in enumerate(g.inputs)]
    entries += [(("primal", n_in + j), y, out_maps[j], False)
                for j, y in enumerate(g.outputs) if kinds[j].kind == "read"]
    for j in live:
        if kinds[j].kind == "select":
            entries.append((("final", j), c.op.results[j], out_maps[j], False))
            entries.append((("count", j), counts[j], out_maps[j], False))
        entries.append((("ct", j), cotangents[j], out_maps[j], True))
    return _Reads(entries, captured)


def _equal_as_float(a: ir.Value, b: ir.Value) -> Val:
    """1 where ``a == b``, 0 elsewhere, in ``a``'s element type."""
    return builder.convert(builder.equal(a, b), _element(a))


def _selection_counts(c, g: _Generic, kinds: list, selecting: list) -> dict:
    """For each max/min output: how many elements (the init's included) equal its result, per result element."""
    counts = {}
    n_in = len(g.inputs)
    for j in selecting:
        final, init = c.op.results[j], g.outputs[j]
        et = _element(init)
        maps = g.maps[:n_in] + [g.maps[n_in + j]] * 2
        seed = _equal_as_float(init, final)
        op, block = linalg_builder.empty_generic(list(g.inputs) + [final], [seed], maps, g.iterators)
        with ir.InsertionPoint(block):
            args = list(block.arguments)
            ops, yielded = _replay_body(g, {("primal", i): a for i, a in enumerate(args[:n_in])})
            addend = _replayed(ops, yielded[j], kinds[j])
            hit = arith.cmpf(arith.CmpFPredicate.OEQ, addend, args[n_in])
            one = arith.select(hit, scalar_constant(1, et), scalar_constant(0, et))
            YieldOp([arith.addf(args[-1], one)])
        _erase_dead(block)
        counts[j] = Val(op.results[0])
    return counts


@family.vjp("linalg.generic")
def _generic_vjp(c, cotangents):
    g, bw, nb = _parts(c.op), c.engine, c.nb
    n_in = len(g.inputs)
    kinds = g.output_kinds()
    live = [j for j, ct in enumerate(cotangents) if ct is not None]
    for j in live:
        if kinds[j].kind == "other":
            raise _refuse_other(g, j, "reverse-mode (vjp)")
    captured = _captured_active(c.op, bw.accept, "reverse-mode (vjp)")
    empty_map = ir.AffineMap.get(g.n_loops, 0, [])
    targets = [(("primal", i), x, g.maps[i]) for i, x in enumerate(g.inputs) if bw.accept(x)]
    targets += [(("primal", n_in + j), y, g.maps[n_in + j]) for j, y in enumerate(g.outputs)
                if kinds[j].kind == "read" and bw.accept(y)]
    targets += [(("captured", v), v, empty_map) for v in captured]
    counts = _selection_counts(c, g, kinds, [j for j in live if kinds[j].kind == "select"])
    reads = _reads(c, g, kinds, live, cotangents, counts, captured)
    contributions = {}
    for j in live:  # what an additive or max/min reduction passes to its init
        init = g.outputs[j]
        if kinds[j].kind == "add":
            contributions[("primal", n_in + j)] = cotangents[j]
        elif kinds[j].kind == "select":
            contributions[("primal", n_in + j)] = cotangents[j] * _equal_as_float(init, c.op.results[j]) / counts[j]
    windowed = [t for t in targets if not t[2].is_projected_permutation]
    for key, value, m in targets:
        if not m.is_projected_permutation:
            continue
        contributions[key] = _adjoint_generic(c, g, kinds, live, reads, key, value, m)
    if windowed:
        if nb:
            raise DerivativeError(g.op.location, "no batched reverse-mode (vjp) rule for linalg.generic "
                                  "reading an operand through a window (an indexing map that is not a "
                                  "projected permutation)")
        contributions.update(_adjoint_loops(c, g, kinds, live, reads, windowed))
    for v in captured:
        bw.accumulate(v, contributions.get(("captured", v)))
    return [contributions.get(("primal", k)) for k in range(n_in + len(g.outputs))]


def _zeros_for(value: ir.Value, prefix: tuple) -> Val:
    """Zero adjoint of ``value`` as a tensor (0-d for a scalar without a batch prefix)."""
    if isinstance(value.type, ir.ShapedType) or prefix:
        return zeros_like(value, prefix)
    return builder.zeros((), value.type)


def _from_tensor(value: ir.Value, adjoint: Val, prefix: tuple) -> Val:
    """``adjoint`` as the adjoint of ``value``: a scalar's, without a batch prefix, extracted from its 0-d tensor."""
    if isinstance(value.type, ir.ShapedType) or prefix:
        return adjoint
    return Val(tensor.ExtractOp(adjoint, []).result)


def _adjoint_generic(c, g: _Generic, kinds: list, live: list, reads: _Reads, key, value: ir.Value,
                     m: ir.AffineMap) -> Val:
    """The adjoint of one operand read at the projected permutation ``m``: a generic writing it at ``m``."""
    nb, prefix = c.nb, c.engine.prefix
    maps = [_shifted(rm, nb, batched) for _, _, rm, batched in reads.entries]
    kept = _reads_dims(m)
    iterators = ["parallel"] * nb + ["parallel" if d in kept else "reduction" for d in range(g.n_loops)]
    init = _zeros_for(value, prefix)
    # Without reduction loops every element is written once: nothing to accumulate onto. (A parallel
    # generic reading its init would also be fused wrongly into a reduction by linalg-fuse-elementwise-ops.)
    accumulates = "reduction" in iterators
    if not accumulates:
        init = linalg_builder.empty_like(init)
    op, block = linalg_builder.empty_generic([v for _, v, _, _ in reads.entries], [init], maps + [_shifted(m, nb, True)],
                             iterators)
    with ir.InsertionPoint(block):
        args = list(block.arguments)
        value_of = dict(zip(reads.keys(), args))
        inner = _adjoint_sweep(c, g, kinds, live, reads, value_of, nb, None)
        local = value if key[0] == "captured" else value_of[key]
        contribution = inner.adjoints.get(local)
        if not accumulates:
            contribution = contribution if contribution is not None else scalar_constant(0, _element(value))
        elif contribution is not None:
            contribution = arith.addf(args[-1], contribution)
        YieldOp([contribution if contribution is not None else args[-1]])
    _erase_dead(block)
    op = _without_unused_inputs(op)
    return _from_tensor(value, Val(op.results[0]), prefix)


def _loop_bounds(g: _Generic) -> list:
    """The trip count of each loop, read from an operand that a plain loop index indexes."""
    bounds = [None] * g.n_loops
    for value, m in zip(g.inputs + g.outputs, g.maps):
        for position, e in enumerate(m.results):
            if isinstance(e, ir.AffineDimExpr) and bounds[e.position] is None:
                bounds[e.position] = tensor.DimOp(
                    value, arith.ConstantOp(ir.IndexType.get(), position).result).result
    return bounds


def _positions(m: ir.AffineMap, loops: list) -> list:
    return [affine.AffineApplyOp(ir.AffineMap.get(m.n_dims, 0, [e]), loops).result for e in m.results]


def _loop_nest(bounds: list, carried: list, body) -> list:
    """An ``scf.for`` nest over ``bounds`` carrying ``carried``; ``body(indices, carries)`` returns the next carries."""
    index = ir.IndexType.get()
    zero, one = arith.ConstantOp(index, 0).result, arith.ConstantOp(index, 1).result

    def level(depth: int, carries: list, indices: list) -> list:
        loop = scf.ForOp(zero, bounds[depth], one, carries)
        with ir.InsertionPoint(loop.body):
            inner = indices + [loop.induction_variable]
            carries = list(loop.inner_iter_args)
            scf.YieldOp(body(inner, carries) if depth + 1 == len(bounds) else level(depth + 1, carries, inner))
        return list(loop.results)

    return level(0, carried, [])


def _adjoint_loops(c, g: _Generic, kinds: list, live: list, reads: _Reads, targets: list) -> dict:
    """Adjoints of operands read through windows, accumulated point by point in an ``scf.for`` nest."""

    def point(loops: list, accumulators: list) -> list:
        value_of = {key: Val(tensor.ExtractOp(value, _positions(m, loops)).result)
                    if isinstance(value.type, ir.ShapedType) else value
                    for key, value, m, _ in reads.entries}
        inner = _adjoint_sweep(c, g, kinds, live, reads, value_of, 0, loops)
        updated = []
        for (key, value, m), acc in zip(targets, accumulators):
            contribution = inner.adjoints.get(value if key[0] == "captured" else value_of[key])
            if contribution is None:
                updated.append(acc)
                continue
            position = _positions(m, loops)
            total = arith.addf(tensor.ExtractOp(acc, position).result, contribution)
            updated.append(tensor.InsertOp(total, acc, position).result)
        return updated

    results = _loop_nest(_loop_bounds(g), [_zeros_for(value, ()) for _, value, _ in targets], point)
    return {key: _from_tensor(value, Val(r), ()) for (key, value, _), r in zip(targets, results)}


def _without_unused_inputs(op: GenericOp) -> ir.Operation:
    """``op``, rebuilt without the inputs its body does not read, when the other operands still span every loop.

    The adjoint generics read the primal operands the body needed before
    differentiation; what is left (``out + ct * b``) may then be a plain
    contraction, which ``tad-raise-contractions`` recognizes.
    """
    op = op.operation
    inputs, inits = operand_segments(op)
    block = op.regions[0].blocks[0]
    maps = [ir.AffineMapAttr(a).value for a in op.attributes["indexing_maps"]]
    used = [k for k, arg in enumerate(block.arguments) if k >= len(inputs) or list(arg.uses)]
    if len(used) == len(block.arguments):
        return op
    spanned = set().union(*(_reads_dims(maps[k]) for k in used))
    if len(spanned) != maps[0].n_dims:
        return op
    operands = list(inputs) + list(inits)
    return linalg_builder.rebuild_generic(op, [operands[k] for k in used if k < len(inputs)], list(inits),
                                          [maps[k] for k in used], used)


def _erase_dead(block: ir.Block) -> None:
    """Erase the pure ops of ``block`` whose results nothing uses (the replayed primal that the derivative does not read)."""
    for op in reversed(list(block.operations)):
        op = op.operation
        if op.results and has_trait(op, Trait.PURE) and not any(list(r.uses) for r in op.results):
            op.erase()
