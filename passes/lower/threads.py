"""Thread loops: each ``scf.parallel`` chunk loop runs on the MLIR async runtime's thread pool.

``tad-tile-and-vectorize`` splits a large op into chunks with ``scf.forall``,
which becomes a one-dimensional ``scf.parallel`` from 0 to the chunk count.
Upstream's ``async-parallel-for`` would run the chunks as ``async.execute``
coroutines; LLVM compiles each coroutine (its resume and destroy clones,
with the kernel inlined into them) at a cost of a tenth of a second per loop.
These two passes run them with plain functions instead:

* ``tad-outline-thread-loops`` (on memrefs) moves the body of every such
  ``scf.parallel`` into a function ``@<f>_thread_loop<k>_chunk(index,
  captures...)`` and replaces the loop by a call of
  ``@<f>_thread_loop<k>_launch(count, captures...)``, declared only;
* ``tad-define-thread-launchers`` (on the LLVM dialect, where the captured
  memrefs have become descriptor fields) defines each launcher from the
  template ``thread_launch.mlir`` beside this module: it stores
  the captures in a context on its stack and passes it, with the loop's
  work function, to the module's one ``@__tad_launch``, which gives
  ``threads - 1`` helpers the context, and then it and the helpers take
  chunk indices from an atomic counter in the context until none is left
  (so a thread slowed down by another process takes fewer chunks); it
  returns when every helper has emplaced its async token.

A helper is a task started with ``mlirAsyncRuntimeExecute``, unless one is
parked: a helper that has run its chunks stays in the module's
``@__tad_thread_helper`` polling a mailbox for a while (see ``thread_launch.mlir``)
before it returns to the pool, and a launcher that finds it there hands it
the context through the mailbox. Waking a pool thread from its sleep takes
tens of microseconds (about 30 on the 2-core VM the benchmarks run on),
which a chunk of a 128-row matmul does not amortize: W1's launches reach the
parked helper instead, and its matmuls scale 1.9x on two threads instead of
1.2–1.4x. Before the module's code is freed, ``tensorad.runtime`` calls its
``@__tad_quiesce_threads``, which sends a parked helper back to the pool.

With ``threads=1`` nothing is outlined and ``convert-scf-to-cf`` runs the
chunks in order. The runtime functions come from ``libmlir_async_runtime.so``
(``tensorad.runtime`` resolves them).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: memref<4xf32>) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c4 = arith.constant 4 : index
...   scf.parallel (%i) = (%c0) to (%c4) step (%c1) {
...     %v = memref.load %x[%i] : memref<4xf32>
...     %w = arith.addf %v, %v : f32
...     memref.store %w, %x[%i] : memref<4xf32>
...     scf.reduce
...   }
...   return
... }''', make_context())
>>> run_pipeline(m, "tad-outline-thread-loops{threads=2}")
>>> "call @f_thread_loop0_launch(%c4, %arg0)" in str(m)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from mlir import ir
from mlir.dialects import func, llvm

from ...dialects.record import Trait, has_trait
from ..options import option
from ..walk import collect, defined_outside, defining_op

MAX_THREADS = 1024


@dataclass(frozen=True)
class ThreadOptions:
    """The option of the passes that split loops over threads (``tad-outline-thread-loops{threads=4}``)."""

    threads: int = option(1, "threads large loops are split over (1: none)",
                          check=lambda n: 1 <= n <= MAX_THREADS, accepted=f"an integer from 1 to {MAX_THREADS}")

_SUFFIX_CHUNK, _SUFFIX_LAUNCH = "_chunk", "_launch"
# The protocol's IR: shared functions and globals, and one thread loop
# ("loop") to instantiate per outlined loop (see the comments in the file).
TEMPLATE = Path(__file__).with_name("thread_launch.mlir")
_TEMPLATE_LOOP = "loop"
# Attribute naming a placeholder op of the template; the launcher's helper count is "helpers".
_MARK, _HELPERS = "tad.template", "helpers"
# Where the captures start in a loop's context (next chunk index, chunk count, helpers finished, captures...).
_FIRST_CAPTURE = 3
# Ops without operands that are cheaper to copy into the chunk function than to pass.


# --- tad-outline-thread-loops ------------------------------------------------------------

def outline(op: ir.Operation, pass_, options: ThreadOptions = ThreadOptions()) -> None:
    """Outline every top-level one-dimensional ``scf.parallel`` from 0 by 1 into a chunk function.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> from tensorad.passes.registry import run_pipeline
    >>> m = ir.Module.parse("func.func @f() { return }", make_context())
    >>> run_pipeline(m, "tad-outline-thread-loops{threads=4}")
    """
    if options.threads < 2:
        return
    launchers: dict = {}  # chunk function text -> its launcher, shared by identical loops
    for function in list(op.regions[0].blocks[0].operations):
        if function.operation.name != "func.func" or not function.regions[0].blocks:
            continue
        # A parallel loop nested in another runs inside the outer one's chunk.
        loops = collect(function.operation, lambda inner: inner.name == "scf.parallel" and _is_chunk_loop(inner),
                        prune=lambda inner: inner.name == "scf.parallel")
        name = function.attributes["sym_name"].value
        for k, loop in enumerate(loops):
            _outline_loop(loop, op, f"{name}_thread_loop{k}", launchers)


def _constant_index(value: ir.Value) -> Optional[int]:
    definer = defining_op(value)
    if definer is not None and definer.name == "arith.constant":
        attr = definer.attributes["value"]
        if isinstance(attr, ir.IntegerAttr):
            return attr.value
    return None


def _is_chunk_loop(loop: ir.Operation) -> bool:
    """A loop ``scf.forall`` made: one index from 0 by 1, no reductions."""
    n = (len(loop.operands) - len(loop.results)) // 3
    if n != 1 or loop.results:
        return False
    lower, _, step = loop.operands
    return _constant_index(lower) == 0 and _constant_index(step) == 1


def _captures(loop: ir.Operation) -> tuple:
    """Values the loop body uses but does not define: ``(constants to copy, values to pass)``."""
    constants, passed = [], []

    def visit(inner: ir.Operation):
        for value in inner.operands:
            if not defined_outside(value, loop):
                continue
            defining = defining_op(value)
            if defining is not None and has_trait(defining, Trait.CONSTANT):
                if defining not in constants:
                    constants.append(defining)
            elif value not in passed:
                passed.append(value)
        return ir.WalkResult.ADVANCE

    for inner in loop.regions[0].blocks[0].operations:
        inner.operation.walk(visit)
    return constants, passed


def _outline_loop(loop: ir.Operation, module: ir.Operation, name: str, launchers: dict) -> None:
    """Move ``loop``'s body into a chunk function and call its launcher instead.

    A loop whose chunk function would be identical to an earlier one's (the
    same layer of a deep network, say) calls that one's launcher: LLVM
    compiles each distinct kernel once.
    """
    constants, passed = _captures(loop)
    body = loop.regions[0].blocks[0]
    index_type = ir.IndexType.get()
    signature = ir.FunctionType.get([index_type] + [v.type for v in passed], [])
    with ir.InsertionPoint(module.regions[0].blocks[0]), loop.location:
        chunk = func.FuncOp(name + _SUFFIX_CHUNK, signature, visibility="private")
    entry = chunk.add_entry_block()
    with ir.InsertionPoint(entry), loop.location:
        copies = [c.clone() for c in constants]
        end = func.ReturnOp([])
    for inner in list(body.operations)[:-1]:  # all but the scf.reduce terminator
        inner.operation.move_before(end)
    body.arguments[0].replace_all_uses_with(entry.arguments[0])
    # Uses inside the chunk function now refer to its arguments and copies.
    outside = {c.results[0]: copy.results[0] for c, copy in zip(constants, copies)}
    outside.update(zip(passed, entry.arguments[1:]))

    def rewire(inner: ir.Operation):
        for i, value in enumerate(inner.operands):
            new = outside.get(value)
            if new is not None:
                inner.operands[i] = new
        return ir.WalkResult.ADVANCE

    chunk.operation.walk(rewire)
    text = chunk.operation.get_asm(use_local_scope=True, assume_verified=True).replace(
        f"@{name}{_SUFFIX_CHUNK}(", "@chunk(", 1)
    launcher = launchers.get(text)
    if launcher is None:
        launcher = launchers[text] = name + _SUFFIX_LAUNCH
        with ir.InsertionPoint(module.regions[0].blocks[0]), loop.location:
            func.FuncOp(launcher, signature, visibility="private")
    else:
        chunk.operation.erase()
    with ir.InsertionPoint(loop), loop.location:
        func.CallOp([], launcher, [loop.operands[1]] + passed)
    loop.erase()


# --- tad-define-thread-launchers ---------------------------------------------------------------

def define_launchers(op: ir.Operation, pass_, options: ThreadOptions = ThreadOptions()) -> None:
    """Give every declared ``*_thread_loop*_launch`` function of ``op`` (LLVM dialect) its body.

    The bodies are instantiated from :data:`TEMPLATE` (``thread_launch.mlir``):
    its shared symbols that ``op`` lacks are copied once, and its thread
    loop once per launcher, renamed and given the loop's captures.
    """
    body = op.regions[0].blocks[0]
    declared = {o.attributes["sym_name"].value: o for o in body.operations
                if o.operation.name == "llvm.func"}
    launchers = [o for name, o in declared.items()
                 if name.endswith(_SUFFIX_LAUNCH) and "_thread_loop" in name and not o.regions[0].blocks]
    if not launchers:
        return
    template = ir.Module.parseFile(str(TEMPLATE), op.context)
    loop = {o.attributes["sym_name"].value: o for o in template.body.operations
            if o.attributes["sym_name"].value.startswith(_TEMPLATE_LOOP + "_")}
    symbols = ir.SymbolTable(op)
    end = ir.InsertionPoint(body)
    helpers = max(options.threads - 1, 1)
    for shared in template.body.operations:
        symbol = shared.attributes["sym_name"].value
        if symbol not in loop and symbol not in symbols:
            _set_helpers(shared.operation.clone(ip=end), helpers)
    calls: dict = {}
    for call in collect(op, lambda o: o.name == "llvm.call" and "callee" in o.attributes):
        calls.setdefault(ir.FlatSymbolRefAttr(call.attributes["callee"]).value, []).append(call)
    for launcher in launchers:
        name = launcher.attributes["sym_name"].value[:-len(_SUFFIX_LAUNCH)]
        # The chunk function takes what the launcher takes, the chunk index in place of the count.
        chunk = declared[name + _SUFFIX_CHUNK]
        # Internal: LLVM drops the chunk function once it is inlined into its one caller.
        chunk.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<internal>", op.context)
        kept = _drop_unused_captures(chunk)
        for call in calls.get(name + _SUFFIX_LAUNCH, []):
            llvm.CallOp(None, [call.operands[0], *(call.operands[1 + k] for k in kept)], [], [],
                        callee=call.attributes["callee"], loc=call.location, ip=ir.InsertionPoint(call))
            call.erase()
        launcher.erase()
        _instantiate(loop, name, chunk, end)


def _drop_unused_captures(chunk: ir.Operation) -> list:
    """Remove the captures (arguments after the chunk index) that ``chunk`` does not read; the numbers of the rest.

    A captured memref arrives as its descriptor's fields, and a chunk of a
    static shape reads its aligned pointer only (its sizes and strides are
    constants in the code): W7's 75 thread loops captured 1,719 values and
    read 221. Each capture was passed to the launcher, stored into the loop's
    context and loaded back for every chunk: a fifth of W7's LLVM code.
    """
    block = chunk.regions[0].blocks[0]
    kept = []
    for k in range(len(block.arguments) - 1, 0, -1):
        if next(iter(block.arguments[k].uses), None) is None:
            block.erase_argument(k)
        else:
            kept.append(k - 1)
    types = ", ".join(str(a.type) for a in block.arguments)
    chunk.attributes["function_type"] = ir.TypeAttr.get(ir.Type.parse(f"!llvm.func<void ({types})>"))
    return kept[::-1]


def _set_helpers(shared: ir.Operation, helpers: int) -> None:
    """Give the template's constant marked ``helpers`` inside ``shared`` the value ``helpers``."""
    i64 = ir.IntegerType.get_signless(64)

    def substitute(inner: ir.Operation):
        if _MARK in inner.attributes and inner.attributes[_MARK].value == _HELPERS:
            inner.attributes["value"] = ir.IntegerAttr.get(i64, helpers)
            del inner.attributes[_MARK]
        return ir.WalkResult.ADVANCE

    shared.walk(substitute)


def _instantiate(loop: dict, name: str, chunk: ir.Operation, ip: ir.InsertionPoint) -> None:
    """Copy the template's thread loop to ``ip`` as thread loop ``name`` of chunk function ``chunk``."""
    t = _TEMPLATE_LOOP
    work = loop[f"{t}_work"].operation.clone(ip=ip)
    launch = loop[f"{t}_launch"].operation.clone(ip=ip)
    ir.SymbolTable.set_symbol_name(work, f"{name}_work")
    ir.SymbolTable.set_symbol_name(launch, name + _SUFFIX_LAUNCH)
    ir.SymbolTable.replace_all_symbol_uses(f"{t}_work", f"{name}_work", launch)
    ir.SymbolTable.replace_all_symbol_uses(f"{t}{_SUFFIX_CHUNK}", name + _SUFFIX_CHUNK, work)
    captures = [a.type for a in chunk.regions[0].blocks[0].arguments][1:]
    entry = launch.regions[0].blocks[0]
    # The context type: the template's has one capture, of the launcher's second argument's type.
    i64 = ir.IntegerType.get_signless(64)
    placeholder = llvm.StructType.get_literal([i64] * _FIRST_CAPTURE + [entry.arguments[1].type])
    context = ir.TypeAttr.get(llvm.StructType.get_literal([i64] * _FIRST_CAPTURE + captures))

    def substitute(inner: ir.Operation):
        if inner.name in ("llvm.getelementptr", "llvm.alloca") and \
                ir.TypeAttr(inner.attributes["elem_type"]).value == placeholder:
            inner.attributes["elem_type"] = context
        return ir.WalkResult.ADVANCE

    work.walk(substitute)
    launch.walk(substitute)
    # The launcher stores each capture into the context where the template stores its one.
    launch.attributes["function_type"] = chunk.attributes["function_type"]
    store = next(iter(entry.arguments[1].uses)).owner
    address = defining_op(store.operands[1])
    for k, capture in enumerate(captures):
        argument = entry.add_argument(capture, store.location)
        field = _field(address, k)
        copy = store.clone(ip=ir.InsertionPoint(address))
        copy.operands[0], copy.operands[1] = argument, field.results[0]
    store.erase()
    address.erase()
    entry.erase_argument(1)
    # The work function loads each capture from the context and passes it to the chunk function.
    call = next(o for o in collect(work, lambda o: o.name == "llvm.call")
                if ir.FlatSymbolRefAttr(o.attributes["callee"]).value == name + _SUFFIX_CHUNK)
    load = defining_op(call.operands[1])
    address = defining_op(load.operands[0])
    values = []
    for k, capture in enumerate(captures):
        field = _field(address, k, before=call)
        value = load.clone(ip=ir.InsertionPoint(call))
        value.operands[0] = field.results[0]
        value.results[0].set_type(capture)
        values.append(value.results[0])
    llvm.CallOp(None, [call.operands[0], *values], [], [], callee=call.attributes["callee"],
                loc=call.location, ip=ir.InsertionPoint(call))
    call.erase()
    load.erase()
    address.erase()


def _field(address: ir.Operation, k: int, before: Optional[ir.Operation] = None) -> ir.Operation:
    """A copy of the template's ``getelementptr`` of its capture (``address``), addressing capture ``k``."""
    field = address.clone(ip=ir.InsertionPoint(before or address))
    field.attributes["rawConstantIndices"] = ir.DenseI32ArrayAttr.get([0, _FIRST_CAPTURE + k])
    return field
