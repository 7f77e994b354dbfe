"""The dataflow graph that rematerialization plans over: one node per buffer the code allocates.

A node is what bufferization turns into one allocation: an op together with
the elementwise producers that ``linalg-fuse-elementwise-ops`` folds into its
loop (they never get a buffer of their own), as a copy of the function
lowered up to fusion shows (:func:`_lowered_reads`). Ops that only
view their operand (reshapes, casts, slices, the checkpoint markers) become
*alias* nodes of zero bytes whose uses keep their source alive. Function
arguments belong to the caller and are not nodes.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
...   %0 = math.sin %x : tensor<4xf32>
...   %1 = math.cos %0 : tensor<4xf32>
...   return %1 : tensor<4xf32>
... }''', make_context())
>>> g = build(m.body.operations[0])
>>> [n.label for n in g.nodes], g.nodes[0].bytes
(['math.cos'], 80)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import NamedTuple, Optional

import numpy as np
from mlir import ir
from mlir.dialects import func

from tensorad.dialects import builder, make_context
from tensorad.dialects.record import Trait, flops_of, has_trait, scratch_bytes_of

from ..registry import run_pipeline
from . import cost

NAME_ATTRIBUTE = "tad.checkpoint_name"


def _is_elementwise(op: ir.Operation) -> bool:
    """An elementwise op on tensors: it lowers to an all-parallel ``linalg.generic``."""
    return (has_trait(op, Trait.ELEMENTWISE) and len(op.results) == 1
            and isinstance(op.results[0].type, ir.RankedTensorType))


def _fusible(op: ir.Operation) -> bool:
    # Fusion folds it into a generic consumer when that consumer is its one reader (_only_reader).
    return _is_elementwise(op) or has_trait(op, Trait.FUSIBLE)


def _generic(op: ir.Operation) -> bool:
    return _is_elementwise(op) or has_trait(op, Trait.GENERIC_CONSUMER)


@dataclass
class Node:
    """One allocation of the program (or a view of one).

    Attributes
    ----------
    ops : list of mlir.ir.Operation
        The ops, fused producers first, the op defining the buffer (root) last.
    inputs : list of int
        Nodes whose values the ops read (function arguments excluded).
    bytes : int
        Bytes the node allocates (alignment padding included); 0 for a view.
    value_bytes : int
        Bytes of its values themselves, as reports show them.
    flops : int
        What recomputing it costs (see :mod:`.cost`).
    scratch : int
        Bytes of the temporaries its ops' lowerings allocate, live while it runs.
    alias_of : int or None
        For a view, the node whose buffer it shares.
    holds : int or None
        For an op whose result may view its input (``Trait.MAY_VIEW``), that
        input: its buffer stays live while the result is read.
    recomputable : bool
        Pure, so it may run again in the backward sweep.
    name : str or None
        The ``tensorad.checkpoint_name`` given to it.
    """

    ops: list
    inputs: list
    bytes: int
    flops: int
    alias_of: Optional[int] = None
    value_bytes: int = 0
    recomputable: bool = True
    name: Optional[str] = None
    scratch: int = 0
    holds: Optional[int] = None

    @property
    def root(self) -> ir.Operation:
        """The op whose results are the node's values."""
        return self.ops[-1]

    @property
    def label(self) -> str:
        """The root op's name, for reports."""
        return self.root.name

    @property
    def location(self) -> str:
        """``file:line`` of the root op, for reports."""
        return cost.short_location(self.root.location)


class Columns(NamedTuple):
    """The nodes' fields that :func:`.cost.simulate` reads, as arrays (one entry per node unless said).

    ``inputs[input_offsets[i]:input_offsets[i + 1]]`` are node ``i``'s inputs;
    ``keeps_alive`` is :meth:`Graph.keeps_alive` (-1 for none); ``outputs``
    the returned nodes.
    """

    input_offsets: np.ndarray
    inputs: np.ndarray
    keeps_alive: np.ndarray
    bytes: np.ndarray
    scratch: np.ndarray
    flops: np.ndarray
    outputs: np.ndarray


@dataclass
class Graph:
    """The nodes of one function body in program order.

    Attributes
    ----------
    nodes : list of Node
    outputs : list of int
        Nodes whose values the function returns (kept to the end).
    regions : list of tuple
        One ``(interior nodes, end index)`` per ``start/end_checkpoint`` region:
        its interior values must not be kept past the op at ``end index``.
    backward : list of bool or None
        For a function defined by ``tad-differentiate`` from a ``tad.vjp``
        declaration, which nodes depend on the cotangent arguments (the
        backward sweep); None for other functions.
    """

    nodes: list
    outputs: list
    block: ir.Block
    regions: list = field(default_factory=list)
    backward: list | None = None

    def users(self) -> list:
        """``users[i]``: the nodes that read node ``i``, in order."""
        result = [[] for _ in self.nodes]
        for j, node in enumerate(self.nodes):
            for i in node.inputs:
                result[i].append(j)
        return result

    def kept_results(self) -> set:
        """The results every schedule keeps from their first run to the return: those outside checkpoint regions.

        No tier recomputes a result (a gradient is made once, as in JAX and
        PyTorch); :func:`.bound.lower_bound` relies on it.
        """
        interior = {i for region, _ in self.regions for i in region}
        return {i for i in self.outputs if i not in interior}

    @cached_property
    def columns(self) -> "Columns":
        """The nodes' fields that :func:`.cost.simulate` reads, as arrays (nodes never change)."""
        nodes = self.nodes
        alive = [self.keeps_alive(i) for i in range(len(nodes))]
        return Columns(np.cumsum([0] + [len(node.inputs) for node in nodes]),
                       np.array([i for node in nodes for i in node.inputs], dtype=np.int64),
                       np.array([-1 if i is None else i for i in alive], dtype=np.int64),
                       np.array([node.bytes for node in nodes], dtype=np.int64),
                       np.array([node.scratch for node in nodes], dtype=np.int64),
                       np.array([node.flops for node in nodes], dtype=np.int64),
                       np.array(self.outputs, dtype=np.int64))

    def keeps_alive(self, i: int) -> Optional[int]:
        """The node whose buffer a copy of ``i`` keeps alive: a view's buffer, or the input a result may view."""
        node = self.nodes[i]
        return node.alias_of if node.alias_of is not None else node.holds

    def kept_alive(self, i: int) -> list:
        """``i`` and the nodes whose buffers a copy of it keeps alive, through :meth:`keeps_alive`."""
        chain = []
        while i is not None:
            chain.append(i)
            i = self.keeps_alive(i)
        return chain

    def on_copy(self, function: ir.Operation) -> "Graph":
        """This graph for ``function``, a clone of the function it was built from: the ops at the same places.

        What :func:`.rewrite.apply` needs to rewrite the clone, without
        building its graph again (a build lowers a copy of the function).
        """
        original = [op.operation for op in self.block.operations]
        block = function.regions[0].blocks[0]
        copied = dict(zip(original, [op.operation for op in block.operations]))
        nodes = [replace(node, ops=[copied[op] for op in node.ops]) for node in self.nodes]
        return replace(self, nodes=nodes, block=block)

    def buffer_of(self, i: int) -> int:
        """The node whose allocation ``i`` is (itself unless it is a view)."""
        while self.nodes[i].alias_of is not None:
            i = self.nodes[i].alias_of
        return i


def _operands_from_outside(op: ir.Operation):
    """Operands of ``op`` and of the ops nested in it that are defined outside ``op``."""
    yield from op.operands
    inner = set()
    for region in op.regions:
        for block in region.blocks:
            inner.update(block.arguments)
            for nested in block.operations:
                inner.update(nested.results)
                for value in _operands_from_outside(nested.operation):
                    if value not in inner:
                        yield value


def has_side_effects(op: ir.Operation) -> bool:
    """Whether ``op``, or an op nested in it, has the ``SIDE_EFFECTS`` trait (it may not run again, or be dropped)."""
    if has_trait(op, Trait.SIDE_EFFECTS):
        return True
    return any(has_side_effects(n.operation) for r in op.regions for b in r.blocks
               for n in b.operations)


class Lowered(NamedTuple):
    """What lowering a function up to elementwise fusion does to the ops of its body, by position.

    Attributes
    ----------
    reads : dict
        Each position that keeps a linalg op of its own, with the positions
        whose values those linalg ops read.
    recomputed : set
        Positions of the elementwise ops that ``tad-recompute-elementwise``
        copied into their readers.
    """

    reads: dict
    recomputed: set


def _lowered_reads(function: ir.Operation, recomputes: bool) -> Optional[Lowered]:
    """What lowering ``function`` does to the ops of its body (see :class:`Lowered`), or None.

    A copy of the function is lowered as the CPU pipeline lowers it, up to
    elementwise fusion (``tad-lower-to-linalg``, then ``TENSOR_STAGES``), with
    each op located by its position. An elementwise op that left no linalg op
    at its position was fused into its readers: it gets no buffer, and its
    operands live until they run. This is what fusion does, not what rules
    say it might: a long sum reads its operand through reshapes that fusion
    cannot see through (``256x16 -> 64x64``), and ``x + x`` reads ``x`` once.
    What a kept op reads there may be more than its operands: a contraction
    that transposes a transposed operand back reads the transpose's source.

    With ``recomputes``, the stages run in three parts, to count the linalg
    ops at each position before and after ``tad-recompute-elementwise``;
    without, that pass does not run, and each value it would recompute in
    its readers stays a buffer of its own: the one value a reader would read
    instead is no larger (the pass's condition), so the count is an upper
    bound of what runs. None when the copy does not lower (the lowering of
    the function itself reports why); the rules of :func:`_only_reader`
    stand in then.
    """
    # The CPU pipeline's passes import the remat pass's registry.
    from ..lower.to_llvm import RECOMPUTE_ELEMENTWISE, TENSOR_STAGES

    context = function.context
    with context, ir.Location.unknown():
        module = ir.Module.create()
        copy = function.clone(ip=ir.InsertionPoint(module.body))
        for k, op in enumerate(list(copy.regions[0].blocks[0].operations)[:-1]):
            op.location = ir.Location.name(f"tad.position.{k}")
    split = TENSOR_STAGES.index(RECOMPUTE_ELEMENTWISE)
    before = ["tad-lower-to-linalg", *TENSOR_STAGES[:split]]
    parts = ((before, [RECOMPUTE_ELEMENTWISE], TENSOR_STAGES[split + 1:]) if recomputes
             else ([*before, *TENSOR_STAGES[split + 1:]],))
    counts = []
    handler = context.attach_diagnostic_handler(lambda diagnostic: True)  # a trial: its errors are not the user's
    try:
        for stages in parts:
            run_pipeline(module, ",".join(stages), verify_each=False)
            if recomputes:
                counts.append(_linalg_ops_at(module))
    except ir.MLIRError:
        return None
    finally:
        handler.detach()
    reads: dict = {}
    for op in module.body.operations[0].regions[0].blocks[0].operations:
        # Reshapes and slices made at an op's position are views; its own loop is a linalg op.
        if op.name.startswith("linalg."):
            read = {int(k) for v in op.operands if not isinstance(v.owner, ir.Block)
                    for k in _POSITION.findall(str(v.owner.location))}
            for k in _POSITION.findall(str(op.location)):
                reads.setdefault(int(k), set()).update(read)
    recomputed = {k for k, n in counts[1].items() if n > counts[0].get(k, 0)} if recomputes else set()
    return Lowered(reads, recomputed)


def _linalg_ops_at(module: ir.Module) -> dict:
    """How many linalg ops the body of ``module``'s one function has at each position."""
    found: dict = {}
    for op in module.body.operations[0].regions[0].blocks[0].operations:
        if op.name.startswith("linalg."):
            for k in _POSITION.findall(str(op.location)):
                found[int(k)] = found.get(int(k), 0) + 1
    return found


_POSITION = re.compile(r'"tad\.position\.(\d+)"')


def _only_reader(value: ir.Value) -> Optional[ir.Operation]:
    """The op that fusion sees as ``value``'s one reader, if there is one.

    Canonicalization merges the repeated operands of an elementwise generic
    (``x + x`` reads ``x`` once), so such an op is the one reader too.
    """
    owners = [use.owner.operation for use in value.uses]
    if len(owners) == 1 or (owners and all(owner == owners[0] for owner in owners)
                            and _is_elementwise(owners[0])):
        return owners[0]
    return None


def _group(ops: list, kept) -> list:
    """Partition ``ops`` (a body without its terminator) into fused groups, each listed root last.

    With ``kept`` (the positions :func:`_lowered_reads` keeps), a fusible op joins the group
    of its readers when the lowering kept no op of its own at its position
    and all its readers are in one group, and so does a reshape (a view,
    which fusion moves through); without, when its one reader
    (:func:`_only_reader`) is a generic op.
    """
    position = {op: k for k, op in enumerate(ops)}
    root: dict = {}
    for op in reversed(ops):
        root[op] = op
        results = list(op.results)
        # Fusion propagates reshapes through elementwise loops: a reshape between two joins them.
        reshape = kept is not None and has_trait(op, Trait.VIEW) and not has_trait(op, Trait.MARKER)
        if len(results) != 1 or not (_fusible(op) or reshape):
            continue
        if kept is None:
            consumer = _only_reader(results[0])
            readers = [consumer] if consumer is not None and _generic(consumer) else []
        elif position[op] in kept:
            continue
        else:
            readers = [use.owner.operation for use in results[0].uses]
        # Readers nested in a loop, or the terminator, are no group (they are not in root).
        if readers and all(reader in root and reader.block == op.block for reader in readers):
            roots = {root[reader] for reader in readers}
            if len(roots) == 1:
                root[op] = roots.pop()
    members: dict = {}
    for op in ops:
        members.setdefault(root[op], []).append(op)
    return [members[op] for op in ops if op in members]


def build(function: ir.Operation, recomputes: bool = False) -> Graph:
    """Build the graph of ``function``'s body (one block).

    With ``recomputes``, an elementwise op that ``tad-recompute-elementwise``
    computes again in each reader is stored nowhere (a view of the value it
    reads): the count of what runs. Without, it keeps a buffer: an upper
    bound, and the graph the solvers plan on (see :func:`_lowered_reads`).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    ...   %0 = math.sin %x : tensor<4xf32>
    ...   %1 = math.cos %0 : tensor<4xf32>
    ...   return %0, %1 : tensor<4xf32>, tensor<4xf32>
    ... }''', make_context())
    >>> g = build(m.body.operations[0])
    >>> [n.label for n in g.nodes], sorted(g.outputs)
    (['math.sin', 'math.cos'], [0, 1])
    """
    block = function.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    terminator, body = ops[-1], ops[:-1]
    nodes, node_of_value = [], {}
    lowered = _lowered_reads(function, recomputes)
    reads = None if lowered is None else lowered.reads
    position = {op: k for k, op in enumerate(body)}
    node_at: dict = {}  # position -> node
    for group in _group(body, None if reads is None else reads.keys()):
        members = set(group)
        inputs = []
        for op in group:
            for value in _operands_from_outside(op):
                producer = node_of_value.get(value)
                owner = value.owner
                if producer is not None and not (not isinstance(owner, ir.Block)
                                                 and owner.operation in members):
                    if producer not in inputs:
                        inputs.append(producer)
        # What the lowered loops read besides (a source read through a transpose folded away).
        for op in group if reads is not None else ():
            for k in sorted(reads.get(position[op], ())):
                if node_at.get(k) is not None and node_at[k] not in inputs:
                    inputs.append(node_at[k])
        root = group[-1]
        # A view of a function argument allocates nothing and keeps nothing alive. An op that every reader
        # computes again (tad-recompute-elementwise) is stored nowhere: like a view, it keeps alive the one
        # value it reads, which its readers read instead.
        view = has_trait(root, Trait.VIEW) and len(group) == 1 or (
            lowered is not None and len(group) == 1 and position[root] in lowered.recomputed
            and position[root] not in reads and len(inputs) <= 1)
        alias = view and bool(inputs)
        name = root.attributes[NAME_ATTRIBUTE].value if NAME_ATTRIBUTE in root.attributes else None
        node = Node(ops=group, inputs=inputs,
                    bytes=0 if view else sum(cost.allocation_bytes(r.type) for r in root.results),
                    flops=sum(flops_of(op) for op in group),
                    alias_of=inputs[0] if alias else None,
                    value_bytes=sum(cost.bytes_of(r.type) for r in root.results),
                    recomputable=not any(has_side_effects(op) for op in group), name=name,
                    scratch=0 if view else sum(scratch_bytes_of(op) for op in group),
                    holds=inputs[0] if has_trait(root, Trait.MAY_VIEW) and len(group) == 1 and inputs else None)
        for result in root.results:
            node_of_value[result] = len(nodes)
        node_at.update((position[op], len(nodes)) for op in group)
        nodes.append(node)
    outputs = sorted({node_of_value[v] for v in terminator.operands if v in node_of_value})
    graph = Graph(nodes=nodes, outputs=outputs, block=block)
    graph.regions = _checkpoint_regions(graph)
    graph.backward = _backward_sweep(function, graph)
    return graph


def _backward_sweep(function: ir.Operation, graph: Graph):
    """Which nodes read the cotangent arguments of a vjp function, directly or not."""
    if "tad.vjp" not in function.attributes:
        return None
    ftype = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    wrt = len(ir.DenseI64ArrayAttr(ir.DictAttr(function.attributes["tad.vjp"])["wrt"]))
    arguments = list(graph.block.arguments)
    tainted = set(arguments[len(arguments) - (len(ftype.results) - wrt):])
    backward = []
    for node in graph.nodes:
        reads = {v for op in node.ops for v in _operands_from_outside(op)}
        backward.append(bool(reads & tainted) or any(backward[i] for i in node.inputs))
        if backward[-1]:
            tainted.update(node.root.results)
    return backward


def _checkpoint_regions(graph: Graph) -> list:
    """``(interior, end)`` for the nodes between start and end markers (TVM Relax's semantics).

    The interior is every node reachable from a ``tad.start_checkpoint`` that an
    ``tad.end_checkpoint`` depends on; the value an end marker reads is the
    region's output and is stored, the rest is recomputed in the backward sweep.
    Markers pair up by their ``tad.region`` attribute (one region when absent).
    """
    starts, ends = {}, {}
    for i, node in enumerate(graph.nodes):
        key = node.root.attributes["tad.region"].value if "tad.region" in node.root.attributes else 0
        if node.label == "tad.start_checkpoint":
            starts.setdefault(key, []).append(i)
        elif node.label == "tad.end_checkpoint":
            ends.setdefault(key, []).append(i)
    users = graph.users()
    regions = []
    for key in starts.keys() & ends.keys():
        after = set(starts[key])
        for i in range(min(after), len(graph.nodes)):
            if any(p in after for p in graph.nodes[i].inputs):
                after.add(i)
        before = set(ends[key])
        for i in range(max(before), -1, -1):
            if any(u in before for u in users[i]):
                before.add(i)
        outputs = {graph.buffer_of(graph.nodes[e].inputs[0]) for e in ends[key]
                   if graph.nodes[e].inputs}
        marker = graph.nodes[starts[key][0]].root
        policy = marker.attributes["tad.policy"].value if "tad.policy" in marker.attributes else ""
        interior = sorted(i for i in (after & before) - set(starts[key]) - set(ends[key]) - outputs
                          if not saveable(graph.nodes[i], policy))
        regions.append((interior, max(ends[key])))
    return regions


POLICIES = ("nothing_saveable", "everything_saveable", "dots_saveable", "save_only_these_names")


def saveable(node: Node, policy: str) -> bool:
    """Whether ``policy`` lets the backward sweep keep ``node``'s value (JAX's checkpoint policies).

    ``policy`` is one of :data:`POLICIES`; ``save_only_these_names:a,b`` names
    the values (``tensorad.checkpoint_name``) that may be kept. An empty
    policy is ``nothing_saveable``.

    Examples
    --------
    >>> saveable(Node(ops=[], inputs=[], bytes=4, flops=1, name="h"), "save_only_these_names:h")
    True
    """
    kind, _, names = (policy or "nothing_saveable").partition(":")
    if kind not in POLICIES:
        raise ValueError(f"unknown checkpoint policy '{kind}'; known: {', '.join(POLICIES)}")
    if kind == "everything_saveable":
        return True
    if kind == "dots_saveable":
        return has_trait(node.label, Trait.CONTRACTION)
    if kind == "save_only_these_names":
        return node.name is not None and node.name in names.split(",")
    return False


def example(layers: int = 4, batch: int = 64, width: int = 4) -> tuple:
    """The graph of the gradient of a tanh MLP's loss: a small realistic input for examples and tests.

    The loss is ``sum(x_L * x_L)`` with ``x_{k+1} = tanh(x_k @ w_k)``; its
    gradient with respect to the weights is asked for with a ``tad.vjp``
    declaration and generated by the passes ``jit`` runs up to its
    ``differentiated`` stage.

    Returns
    -------
    (module, graph)
        Keep ``module`` alive while ``graph`` is used: the graph refers to its ops.

    Examples
    --------
    >>> module, graph = example(layers=2)
    >>> [n.label for n in graph.nodes][:4]  # the last tanh is fused into the loss's gradient
    ['tad.dot_general', 'math.tanh', 'tad.dot_general', 'tad.constant']
    """
    with make_context(), ir.Location.unknown():
        module = ir.Module.create()
        f64 = ir.F64Type.get()
        inputs = [ir.RankedTensorType.get([width, width], f64)] * layers + \
            [ir.RankedTensorType.get([batch, width], f64)]
        scalar = ir.RankedTensorType.get([], f64)
        wrt = list(range(layers))
        with ir.InsertionPoint(module.body):
            main = func.FuncOp("main", (inputs, inputs[:layers]))
            loss = func.FuncOp("loss", (inputs, [scalar]), visibility="private")
            vjp = func.FuncOp("loss_vjp", (inputs + [scalar], [scalar] + inputs[:layers]),
                              visibility="private")
        vjp.attributes["tad.vjp"] = ir.DictAttr.get({
            "of": ir.FlatSymbolRefAttr.get("loss"), "wrt": ir.DenseI64ArrayAttr.get(wrt)})
        with ir.InsertionPoint(loss.add_entry_block()):
            *ws, x = loss.arguments
            x = builder.wrap(x)
            for w in ws:
                x = builder.tanh(builder.dot_general(x, w, [], [], [1], [0]))
            func.ReturnOp([builder.sum(x * x, [0, 1])])
        with ir.InsertionPoint(main.add_entry_block()):  # what tensorad.grad traces
            args = list(main.arguments)
            func.CallOp(loss, args)
            seed = builder.ones((), f64)
            grads = func.CallOp(vjp, args + [seed]).results
            func.ReturnOp(list(grads)[1:])
        run_pipeline(module, "tad-jit-differentiate")
        return module, build(module.body.operations[0].operation)
