"""One record per op: everything the compiler knows about an op, in one place.

An :class:`OpRecord` holds an op's declaration (``tad`` ops only: the IRDL
operands, results and attributes), its shape rule, traits, FLOP formula,
fold, lowering, derivative rules and batching rule. Each op family
(``tensorad.dialects.families.*``) fills its records through one
:class:`Family` registrar; passes look records up with :func:`record_of` and
:func:`has_trait` and keep no lists of op names of their own. The IRDL file
``tad.irdl.mlir`` is generated from the declarations (:func:`irdl_text`).

Examples
--------
>>> family = Family("example")
>>> rec = family.upstream("example.noop", traits=(Trait.PURE, Trait.VIEW))
>>> has_trait("example.noop", Trait.VIEW), has_trait("example.other", Trait.VIEW)
(True, False)
>>> forget("example.noop")
"""

from __future__ import annotations

import enum
import inspect
from dataclasses import dataclass
from typing import Callable, Iterable, Optional, Union

from math import prod

from mlir import ir


class Trait(enum.Enum):
    """Facts about an op that passes read instead of lists of op names."""

    #: No side effects: dead results may be erased (DCE) and equal ops merged (CSE).
    PURE = "pure"
    #: The result is a view of (aliases) its first operand: no new bytes, no FLOPs.
    VIEW = "view"
    #: The result may be a view of its first operand (a strided ``tensor.extract_slice``)
    #: or, where a writer needs it, a copy: rematerialization counts its bytes and keeps
    #: the operand's buffer alive while the result is read.
    MAY_VIEW = "may_view"
    #: An identity op that only marks its value for a pass (stop_gradient, checkpoints).
    MARKER = "marker"
    #: Lowers to an all-parallel ``linalg.generic`` that fusion folds into a generic consumer.
    FUSIBLE = "fusible"
    #: Lowers to one ``linalg.generic`` that elementwise producers fuse into.
    GENERIC_CONSUMER = "generic_consumer"
    #: The results do not depend differentiably on the operands.
    ZERO_DERIVATIVE = "zero_derivative"
    #: Computes each result element from the same element of every operand.
    ELEMENTWISE = "elementwise"
    #: A region terminator (``scf.yield``): pure, but never erased on its own.
    TERMINATOR = "terminator"
    #: An op with regions that is pure when every op in its regions is.
    PURE_IF_BODY_PURE = "pure_if_body_pure"
    #: A loop (its body may run many times): work hoisted out of it is saved per iteration.
    LOOP = "loop"
    #: A scalar combiner the vectorizer turns into a vector reduction (``arith.addf``, ``arith.maxsi``).
    REDUCTION_COMBINER = "reduction_combiner"
    #: A constant without operands, safe to rebuild wherever its value is needed.
    CONSTANT = "constant"
    #: Each result is a new tensor for its users to write into (``tensor.empty``):
    #: pure, but CSE never merges two, so that their writers do not share one buffer.
    FRESH = "fresh"
    #: Reads or writes memory, or calls out (``memref.store``, ``func.call``): never
    #: recomputed by rematerialization, never merged or erased.
    SIDE_EFFECTS = "side_effects"
    #: A contraction (matmul, convolution): costly to recompute, so the
    #: ``dots_saveable`` checkpoint policy keeps its result.
    CONTRACTION = "contraction"
    #: A named structured op (``linalg.matmul``): ``tad-differentiate`` rewrites it into
    #: the ``linalg.generic`` it stands for and differentiates that.
    GENERALIZABLE = "generalizable"
    #: The result is one of the operands (a float max or min): a reduction by this combiner
    #: sends its adjoint to the elements equal to its result.
    SELECTS = "selects"


@dataclass(frozen=True)
class Declaration:
    """The IRDL declaration of a ``tad`` op: every operand and result is a tensor.

    ``attributes`` maps each attribute name to its kind: ``"dense_array"``
    (``array<i64: ...>``), ``"integer"``, ``"string"`` or ``"any"``.
    """

    operands: tuple
    results: tuple
    attributes: tuple  # of (name, kind) pairs
    summary: str


_ATTRIBUTE_CONSTRAINTS = {"dense_array": 'irdl.base "#builtin.dense_array"',
                          "integer": 'irdl.base "#builtin.integer"',
                          "string": 'irdl.base "#builtin.string"',
                          "any": "irdl.any"}


@dataclass
class OpRecord:
    """What the compiler knows about one op; ``None`` where it has no such rule.

    Attributes
    ----------
    name : str
    family : str
        The family module that registered it.
    traits : frozenset of Trait
    declaration : Declaration, optional
        For ``tad`` ops; upstream ops are declared by their own dialects.
    shape_rule : callable, optional
        ``(operand specs, python attrs, declared result specs or None) -> result specs``.
    flops : callable, optional
        ``op -> int``: FLOPs of one execution (remat's cost model); by default
        one per result element, none for views.
    scratch : callable, optional
        ``op -> int``: bytes of the temporary buffers its lowering allocates
        besides its results, each with its :data:`ALLOCATION_PADDING` (remat's
        cost model counts them live while the op runs); by default none.
    fold : callable, optional
        ``op -> ir.Value or None`` (tad-simplify), built before the op.
    lowering : callable, optional
        ``op -> list of ir.Value`` (tad-lower-to-linalg), built before the op.
    jvp, vjp : callable, optional
        ``(RuleContext, tangents) -> tangents`` and ``(RuleContext, cotangents) -> cotangents``
        (see :mod:`tensorad.dialects.derivatives`).
    batching : callable, optional
        Batching rule (tad-batch).
    row_sum : callable, optional
        ``(op, operands, stacked) -> ir.Value or None`` (tad-batch-loop-rows): the sum over
        a leading axis of ``op`` applied row by row, where ``operands[i]`` has that axis when
        ``stacked[i]``, built as one op (a contraction over the rows too); None when it cannot.
    partition : callable, optional
        ``PartitionContext -> list of (value, dim or None) or None`` (tad-partition): the
        op computed on this process's blocks of its sharded operands (see
        :mod:`tensorad.dialects.partitioning`); None asks for whole operands.
    region_flow : callable, optional
        ``(op, edge) -> None`` for an op with regions: calls ``edge(source, target)``
        for every way a value flows between the op's operands, its regions'
        arguments and terminators, and its results (what MLIR's
        ``RegionBranchOpInterface`` describes); activity analysis follows them.
    """

    name: str
    family: str
    traits: frozenset = frozenset()
    declaration: Optional[Declaration] = None
    shape_rule: Optional[Callable] = None
    flops: Optional[Callable] = None
    scratch: Optional[Callable] = None
    fold: Optional[Callable] = None
    lowering: Optional[Callable] = None
    jvp: Optional[Callable] = None
    vjp: Optional[Callable] = None
    batching: Optional[Callable] = None
    row_sum: Optional[Callable] = None
    partition: Optional[Callable] = None
    region_flow: Optional[Callable] = None


RECORDS: dict[str, OpRecord] = {}
FAMILIES: dict[str, "Family"] = {}

_RULE_FIELDS = ("shape_rule", "flops", "scratch", "fold", "lowering", "jvp", "vjp", "batching", "row_sum", "partition",
               "region_flow")


class Family:
    """The registrar of one op family: it creates the family's records and fills in their rules.

    A rule may be registered only for an op of the same family, once, so an
    op's facts cannot spread over several modules.

    Examples
    --------
    >>> demo = Family("demo")
    >>> _ = demo.define("tad.demo_negate", operands=("operand",), summary="Negation.",
    ...                 traits=(Trait.PURE, Trait.ELEMENTWISE))
    >>> @demo.lowering("tad.demo_negate")
    ... def _lower(op):
    ...     return []
    >>> record_of("tad.demo_negate").lowering is _lower
    True
    >>> forget("tad.demo_negate")
    """

    def __init__(self, name: str):
        self.name = name
        self.names: list[str] = []
        FAMILIES[name] = self

    def _add(self, rec: OpRecord) -> OpRecord:
        if rec.name in RECORDS:
            raise ValueError(f"op '{rec.name}' is already registered by family "
                             f"'{RECORDS[rec.name].family}'")
        RECORDS[rec.name] = rec
        self.names.append(rec.name)
        return rec

    def define(self, name: str, *, operands: Iterable[str] = (), results: Iterable[str] = ("result",),
               attributes: Iterable[tuple] = (), summary: str, traits: Iterable[Trait] = (Trait.PURE,),
               shape_rule: Optional[Callable] = None, flops: Optional[Callable] = None) -> OpRecord:
        """Declare a ``tad`` op (generated into ``tad.irdl.mlir``) and return its record."""
        for _, kind in attributes:
            if kind not in _ATTRIBUTE_CONSTRAINTS:
                raise ValueError(f"{name}: unknown attribute kind {kind!r}")
        declaration = Declaration(tuple(operands), tuple(results), tuple(attributes), summary)
        return self._add(OpRecord(name, self.name, frozenset(traits), declaration,
                                  shape_rule=shape_rule, flops=flops))

    def upstream(self, name: str, *, traits: Iterable[Trait] = (Trait.PURE,),
                 flops: Optional[Callable] = None) -> OpRecord:
        """Record an op declared by an upstream dialect (``arith.addf``) and return its record."""
        return self._add(OpRecord(name, self.name, frozenset(traits), flops=flops))

    def _rule(self, field_name: str, names: tuple) -> Callable[[Callable], Callable]:
        def register(fn: Callable) -> Callable:
            for name in names:
                rec = RECORDS.get(name)
                if rec is None or rec.family != self.name:
                    raise ValueError(f"family '{self.name}' cannot register a {field_name} for "
                                     f"'{name}': declare the op in this family first")
                if getattr(rec, field_name) is not None:
                    raise ValueError(f"'{name}' already has a {field_name}")
                setattr(rec, field_name, fn)
            return fn

        return register

    def shape_rule(self, *names: str):
        """``@family.shape_rule(*names)``: register the shape rule of these ops."""
        return self._rule("shape_rule", names)

    def flops(self, *names: str):
        """``@family.flops(*names)``: register the FLOP formula of these ops."""
        return self._rule("flops", names)

    def scratch(self, *names: str):
        """``@family.scratch(*names)``: register the bytes of temporaries that these ops' lowerings allocate."""
        return self._rule("scratch", names)

    def fold(self, *names: str):
        """``@family.fold(*names)``: register the tad-simplify fold of these ops."""
        return self._rule("fold", names)

    def lowering(self, *names: str):
        """``@family.lowering(*names)``: register the tad-lower-to-linalg rule of these ops."""
        return self._rule("lowering", names)

    def jvp(self, *names: str):
        """``@family.jvp(*names)``: register the forward-mode rule of these ops."""
        return self._rule("jvp", names)

    def vjp(self, *names: str):
        """``@family.vjp(*names)``: register the reverse-mode rule of these ops."""
        return self._rule("vjp", names)

    def batching(self, *names: str):
        """``@family.batching(*names)``: register the batching rule of these ops."""
        return self._rule("batching", names)

    def row_sum(self, *names: str):
        """``@family.row_sum(*names)``: register how these ops sum over stacked rows (tad-batch-loop-rows)."""
        return self._rule("row_sum", names)

    def partition(self, *names: str):
        """``@family.partition(*names)``: register the tad-partition rule of these ops."""
        return self._rule("partition", names)

    def region_flow(self, *names: str):
        """``@family.region_flow(*names)``: register how values flow through these ops' regions."""
        return self._rule("region_flow", names)


def operation_names(module) -> list:
    """Names of the ops whose classes the bindings generated in ``module``, sorted.

    Examples
    --------
    >>> from mlir.dialects import _math_ops_gen
    >>> "math.erf" in operation_names(_math_ops_gen)
    True
    """
    return sorted({cls.OPERATION_NAME for _, cls in inspect.getmembers(module, inspect.isclass)
                   if isinstance(getattr(cls, "OPERATION_NAME", None), str)})


def record_of(op_or_name: Union[str, ir.Operation, ir.OpView]) -> Optional[OpRecord]:
    """The record of an op (or op name), or None for an op nobody registered.

    Examples
    --------
    >>> import tensorad.dialects
    >>> record_of("tad.transpose").family
    'structure'
    """
    name = op_or_name if isinstance(op_or_name, str) else op_or_name.name
    return RECORDS.get(name)


def has_trait(op_or_name: Union[str, ir.Operation, ir.OpView], trait: Trait) -> bool:
    """Whether the op (or op name) has ``trait``; an unregistered op has none.

    Examples
    --------
    >>> import tensorad.dialects
    >>> has_trait("tad.reshape", Trait.VIEW), has_trait("tad.dot_general", Trait.VIEW)
    (True, False)
    """
    rec = record_of(op_or_name)
    return rec is not None and trait in rec.traits


def flops_of(op: Union[ir.Operation, ir.OpView]) -> int:
    """FLOPs of one execution of ``op``: what recomputing it costs (remat's cost model).

    A view costs nothing; an op whose record has a FLOP formula costs what the
    formula says (contractions, convolutions, reductions, ``scf.for``); an op
    with regions costs its costlier region; anything else one FLOP per result
    element.

    Examples
    --------
    >>> import tensorad.dialects
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()  # 64 x 4 inputs, 4 x 4 weights
    >>> flops_of(graph.nodes[0].root), flops_of(graph.nodes[1].root)  # a contraction, a tanh
    (2048, 256)
    """
    op = op.operation
    if has_trait(op, Trait.VIEW):
        return 0
    # With a dynamic dim the count is known at run time only (a memory budget refuses such a
    # function): one FLOP per result element stands in, a dynamic dim counting as 1 as in tensor_bytes.
    # (An op with regions counts its body, whose ops do the same.)
    dynamic = not op.regions and any(isinstance(v.type, ir.RankedTensorType) and not v.type.has_static_shape
                                     for v in (*op.operands, *op.results))
    rec = record_of(op)
    if rec is not None and rec.flops is not None and not dynamic:
        return rec.flops(op)
    if op.regions:
        return max(region_flops(r) for r in op.regions)
    return sum(prod(1 if ir.ShapedType.is_dynamic_size(n) else n for n in r.type.shape)
               if isinstance(r.type, ir.RankedTensorType) else 1 for r in op.results)


# Bufferization aligns every allocation to 64 bytes, and the lowered code asks
# the allocator for that much more than the buffer needs, to align it itself.
ALLOCATION_PADDING = 64

# A lowering marks a loop whose iterations are independent with INDEPENDENT_ITERATIONS
# (``tad-thread-independent-loops`` runs them on threads), and a loop whose
# iterations allocate temporaries that the next iteration may reuse with
# REUSED_ITERATION_BUFFERS (``tad-hoist-iteration-buffers`` allocates them once).
INDEPENDENT_ITERATIONS = "tad.independent_iterations"
REUSED_ITERATION_BUFFERS = "tad.reused_iteration_buffers"

# Loop iterations of linalg ops below which one iteration of a loop marked
# INDEPENDENT_ITERATIONS stays off threads (``tad-thread-independent-loops``),
# and that a convolution's group of images reaches together. W2's step (32
# images of 1M multiply-adds per convolution, two threads), by the work of a
# group: 1M (an image a thread) 4.5 ms, 2M 4.4-4.9 ms, 4M 4.1-4.4 ms, 8M 4.6
# ms, 32M (one group, one thread) 5.2 ms (medians of fresh processes).
MIN_ITERATION_WORK = 1 << 22


def tensor_bytes(t: ir.Type) -> int:
    """Bytes of a ranked tensor of type ``t`` (0 for anything else); a dynamic dim (``?``) counts as 1.

    ``i1`` is stored as a byte, like numpy.

    Examples
    --------
    >>> with ir.Context(), ir.Location.unknown():
    ...     f32 = ir.F32Type.get()
    ...     pairs = (([2, 3], f32), ([2], ir.ComplexType.get(f32)))
    ...     [tensor_bytes(ir.RankedTensorType.get(shape, t)) for shape, t in pairs]
    [24, 16]
    """
    if not isinstance(t, ir.RankedTensorType):
        return 0
    return prod(1 if ir.ShapedType.is_dynamic_size(n) else n for n in t.shape) * element_bytes(t.element_type)


def element_bytes(element: ir.Type) -> int:
    """Bytes of one element: ``i1`` a byte, a complex number its two parts, an index 8."""
    if isinstance(element, ir.ComplexType):
        return 2 * element_bytes(element.element_type)
    width = element.width if isinstance(element, ir.IntegerType) else \
        ir.FloatType(element).width if isinstance(element, ir.FloatType) else 64
    return max(1, width // 8)


def allocation_bytes(t: ir.Type) -> int:
    """Bytes the lowered code allocates for a buffer of type ``t`` (:data:`ALLOCATION_PADDING` included).

    A tensor of no elements still takes the padding (the allocator is asked
    for it: a gradient of empty arrays measured 64 bytes where 0 were
    counted); anything but a ranked tensor takes nothing.

    Examples
    --------
    >>> with ir.Context(), ir.Location.unknown():
    ...     f64 = ir.F64Type.get()
    ...     [allocation_bytes(ir.RankedTensorType.get(shape, f64)) for shape in ([3], [2, 0], [])]
    [88, 64, 72]
    """
    return tensor_bytes(t) + ALLOCATION_PADDING if isinstance(t, ir.RankedTensorType) else 0


def scratch_bytes_of(op: Union[ir.Operation, ir.OpView]) -> int:
    """Bytes of the temporary buffers that the lowering of ``op`` allocates besides its results.

    They are live while the op runs (remat's cost model). An op whose record
    has no ``scratch`` rule allocates none, unless it has regions: then what
    one run of its costliest region holds at once (:func:`region_scratch_bytes`).

    Examples
    --------
    >>> import tensorad.dialects
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> scratch_bytes_of(graph.nodes[1].root)  # a tanh writes its result only
    0
    """
    rec = record_of(op.operation)
    if rec is not None and rec.scratch is not None:
        return rec.scratch(op.operation)
    return max((region_scratch_bytes(r) for r in op.operation.regions), default=0)


def _reads(op: ir.Operation):
    """The operands of ``op`` and of every op nested in its regions."""
    yield from op.operands
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield from _reads(inner.operation)


def region_scratch_bytes(region: ir.Region) -> int:
    """Most bytes one run of ``region`` holds allocated at once: its ops' results and scratch.

    Each op's results are allocated when it runs (:func:`allocation_bytes`;
    a view allocates nothing and keeps what it views alive) and freed after
    their last read in the region (what the terminator yields, at its end),
    as ``tad-free-after-last-use`` makes the code do; values from outside
    the region are not counted (their owner's count holds them). Fusion and
    in-place writes only make the lowered code allocate less.

    Examples
    --------
    >>> import tensorad.dialects
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
    ...   %c0 = arith.constant 0 : index
    ...   %c3 = arith.constant 3 : index
    ...   %c1 = arith.constant 1 : index
    ...   %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> tensor<4xf64> {
    ...     %s = math.sin %a : tensor<4xf64>
    ...     %t = arith.mulf %s, %a : tensor<4xf64>
    ...     scf.yield %t : tensor<4xf64>
    ...   }
    ...   return %r : tensor<4xf64>
    ... }''', make_context())
    >>> loop = m.body.operations[0].regions[0].blocks[0].operations[3]
    >>> region_scratch_bytes(loop.regions[0])  # sin and the product live at once: 2 x (32 + 64)
    192
    """
    peak = 0
    for block in region.blocks:
        ops = [op.operation for op in block.operations]
        owners: dict = {}  # a value of the block -> the values whose buffers reading it reads
        allocated: dict = {}  # a value of the block -> bytes allocated for it
        last_read: dict = {}  # a value of the block -> index of the last op reading its buffer
        for k, op in enumerate(ops):
            for value in _reads(op):
                for owner in owners.get(value, ()):
                    last_read[owner] = k
            # A view reads its source's buffer; what may be a view (a strided slice) has a buffer
            # and keeps its source's too.
            view, may_view = has_trait(op, Trait.VIEW), has_trait(op, Trait.MAY_VIEW)
            held = [owner for v in op.operands[:1] for owner in owners.get(v, ())] if view or may_view else []
            for result in op.results:
                allocated[result] = 0 if view else allocation_bytes(result.type)
                owners[result] = held if view and held else [result] + held
        freed_at: dict = {}
        for owner, k in last_read.items():
            freed_at.setdefault(k, []).append(owner)
        live = 0
        for k, op in enumerate(ops):
            live += sum(allocated[r] for r in op.results)
            peak = max(peak, live + scratch_bytes_of(op))
            # Freed after this op: what it last read, and what it made that nothing reads.
            dead = freed_at.get(k, []) + [r for r in op.results if r not in last_read]
            live -= sum(allocated[value] for value in dead)
    return peak


def region_flops(region: ir.Region) -> int:
    """FLOPs of one execution of every op in ``region``."""
    return sum(flops_of(op) for block in region.blocks for op in block.operations)


def names_with(trait: Trait) -> frozenset:
    """Names of every registered op with ``trait`` (for messages and tests, never for dispatch).

    Examples
    --------
    >>> import tensorad.dialects
    >>> sorted(names_with(Trait.MARKER))
    ['tad.end_checkpoint', 'tad.pvary', 'tad.shard', 'tad.start_checkpoint', 'tad.stop_gradient']
    """
    return frozenset(name for name, rec in RECORDS.items() if trait in rec.traits)


def forget(name: str) -> None:
    """Remove a record (for examples and tests that register a throwaway op)."""
    rec = RECORDS.pop(name)
    FAMILIES[rec.family].names.remove(name)


IRDL_HEADER = """\
// GENERATED from the op records in tensorad/dialects/families/ by
// `python -m tensorad.dialects.irdl_file`: edit the records, not this file
// (test/python/test_dialect_records.py checks that it is up to date).
//
// The tad dialect: tensor ops that upstream arith/math/tensor/scf/func do not
// provide at this level. Static shapes; shape rules IRDL cannot state are checked
// by the tad-verify pass (the shape rules of the records).
// Each operand and result has its own constraint variable: an IRDL variable binds one type.
"""


def irdl_text() -> str:
    """The IRDL declaration of every declared ``tad`` op, grouped by family.

    Examples
    --------
    >>> import tensorad.dialects
    >>> "irdl.operation @dot_general" in irdl_text()
    True
    """
    lines = [IRDL_HEADER.rstrip("\n"), "irdl.dialect @tad {"]
    for family in FAMILIES.values():
        declared = [RECORDS[n] for n in family.names if RECORDS[n].declaration is not None]
        if not declared:
            continue
        lines.append(f"  // ---- {family.name} ----")
        for rec in declared:
            lines.extend(_irdl_operation(rec))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _irdl_operation(rec: OpRecord) -> list:
    decl = rec.declaration
    body, counter = [], iter(range(1000))

    def variables(names, constraint):
        named = []
        for name in names:
            var = f"%{next(counter)}"
            body.append(f"    {var} = {constraint}")
            named.append((name, var))
        return named

    operands = variables(decl.operands, 'irdl.base "!builtin.tensor"')
    results = variables(decl.results, 'irdl.base "!builtin.tensor"')
    attributes = [(name, variables([name], _ATTRIBUTE_CONSTRAINTS[kind])[0][1])
                  for name, kind in decl.attributes]
    out = [f"  // {decl.summary}", f"  irdl.operation @{rec.name.split('.', 1)[1]} {{", *body]
    if operands:
        out.append("    irdl.operands(" + ", ".join(f"{n}: {v}" for n, v in operands) + ")")
    out.append("    irdl.results(" + ", ".join(f"{n}: {v}" for n, v in results) + ")")
    if attributes:
        out.append("    irdl.attributes {" + ", ".join(f'"{n}" = {v}' for n, v in attributes) + "}")
    out.append("  }")
    return out
