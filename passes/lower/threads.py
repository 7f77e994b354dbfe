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
  memrefs have become descriptor fields) defines each launcher: it stores
  the count and the captures in a context on its stack, gives ``threads - 1``
  helpers the context, and then it and the helpers take chunk indices from
  an atomic counter in the context until none is left (so a thread slowed
  down by another process takes fewer chunks); it returns when every helper
  has emplaced its async token.

A helper is a task started with ``mlirAsyncRuntimeExecute``, unless one is
parked: a helper that has run its chunks stays in the module's
``@__tad_thread_helper`` polling a mailbox for a while (``_PARK_SPINS``)
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
from typing import Optional

from mlir import ir
from mlir.dialects import func

from ..options import option
from ..walk import collect, defined_outside, defining_op

MAX_THREADS = 1024


@dataclass(frozen=True)
class ThreadOptions:
    """The option of the passes that split loops over threads (``tad-outline-thread-loops{threads=4}``)."""

    threads: int = option(1, "threads large loops are split over (1: none)",
                          check=lambda n: 1 <= n <= MAX_THREADS, accepted=f"an integer from 1 to {MAX_THREADS}")

_SUFFIX_CHUNK, _SUFFIX_LAUNCH = "_chunk", "_launch"
# Polls of the helpers' finish count before the launcher sleeps until they are
# done: helpers usually finish within microseconds of the launcher, and
# sleeping in mlirAsyncRuntimeAwaitToken costs a context switch each way.
_SPINS = 20000
# Polls of the module's mailbox by a helper that has finished its chunks
# before it returns to the thread pool: a launcher that finds a helper parked
# hands it the next loop through the mailbox instead of starting a task
# (waking a sleeping pool thread takes tens of microseconds, on a VM ~30 us).
_PARK_SPINS = 1000000
# The mailbox: its state (0 no helper parked, 1 parked, 2 a launcher is
# writing the job, 3 job ready) and the job, a launcher's helper record.
_STATE, _JOB, _HELPER = "__tad_helper_state", "__tad_helper_job", "__tad_thread_helper"
# Helpers running the module's code, and the function that sends parked ones
# back to the pool (``tensorad.runtime`` calls it before it frees the code).
# (Its name is tensorad.runtime.QUIESCE_THREADS.)
_INSIDE, QUIESCE = "__tad_helpers_inside", "__tad_quiesce_threads"
# Ops without operands that are cheaper to copy into the chunk function than to pass.
_CONSTANTS = frozenset({"arith.constant", "ub.poison"})
_RUNTIME = {
    "mlirAsyncRuntimeCreateToken": "() -> !llvm.ptr",
    "mlirAsyncRuntimeExecute": "(!llvm.ptr, !llvm.ptr)",
    "mlirAsyncRuntimeEmplaceToken": "(!llvm.ptr)",
    "mlirAsyncRuntimeAwaitToken": "(!llvm.ptr)",
    "mlirAsyncRuntimeDropRef": "(!llvm.ptr, i64)",
}


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
            if defining is not None and defining.name in _CONSTANTS:
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
    """Give every declared ``*_thread_loop*_launch`` function of ``op`` (LLVM dialect) its body."""
    body = op.regions[0].blocks[0]
    declared = {o.attributes["sym_name"].value: o for o in body.operations
                if o.operation.name == "llvm.func"}
    launchers = [o for name, o in declared.items()
                 if name.endswith(_SUFFIX_LAUNCH) and "_thread_loop" in name and not o.regions[0].blocks]
    if not launchers:
        return
    helpers = max(options.threads - 1, 1)
    text = [f"llvm.func @{name}{signature}" for name, signature in _RUNTIME.items() if name not in declared]
    if _HELPER not in declared:
        text.append(_helper_text())
    for launcher in launchers:
        name = launcher.attributes["sym_name"].value[:-len(_SUFFIX_LAUNCH)]
        # The chunk function takes what the launcher takes, the chunk index in place of the count.
        chunk = declared[name + _SUFFIX_CHUNK]
        params = [str(a.type) for a in chunk.regions[0].blocks[0].arguments]
        # Internal: LLVM drops the chunk function once it is inlined into its one caller.
        chunk.attributes["linkage"] = ir.Attribute.parse("#llvm.linkage<internal>", op.context)
        text.append(_launcher_text(name, params, helpers))
        # Declared so the text parses; the definition stays where it is.
        text.append(f"llvm.func @{name}{_SUFFIX_CHUNK}({', '.join(params)})")
        launcher.erase()
    parsed = ir.Module.parse("\n".join(text), op.context)
    for new in list(parsed.body.operations):
        if (new.operation.name == "llvm.mlir.global" or new.regions[0].blocks
                or new.attributes["sym_name"].value in _RUNTIME):
            body.append(new.operation)


def _helper_text() -> str:
    """The module's mailbox and its helper task, shared by every thread loop, as MLIR text.

    A helper record is ``(context, token, work function)``. The task runs the
    work function on the context, counts itself finished and emplaces the
    token; but before it counts itself finished it parks, unless another
    helper is parked already (so the launcher's next loop finds it parked):
    it polls the mailbox ``_PARK_SPINS`` times for the next record, runs it
    the same way, and returns to the pool when nothing came.
    """
    rec_type = "!llvm.struct<(ptr, ptr, ptr)>"
    ctx_prefix = "!llvm.struct<(i64, i64, i64)>"  # the start of every loop's context
    return f"""
  llvm.mlir.global internal @{_STATE}(0 : i64) {{alignment = 64 : i64}} : i64
  llvm.mlir.global internal @{_JOB}() {{alignment = 8 : i64}} : !llvm.ptr {{
    %null = llvm.mlir.zero : !llvm.ptr
    llvm.return %null : !llvm.ptr
  }}
  llvm.mlir.global internal @{_INSIDE}(0 : i64) {{alignment = 64 : i64}} : i64
  llvm.func @{QUIESCE}() {{
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %state = llvm.mlir.addressof @{_STATE} : !llvm.ptr
    %inside = llvm.mlir.addressof @{_INSIDE} : !llvm.ptr
    llvm.br ^close
  ^close:
    %close = llvm.cmpxchg %state, %one, %zero acq_rel monotonic : !llvm.ptr, i64
    %n = llvm.load %inside atomic acquire {{alignment = 8 : i64}} : !llvm.ptr -> i64
    %busy = llvm.icmp "ne" %n, %zero : i64
    llvm.cond_br %busy, ^close, ^done
  ^done:
    llvm.return
  }}
  llvm.func internal @{_HELPER}(%first: !llvm.ptr) {{
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %three = llvm.mlir.constant(3 : i64) : i64
    %spins = llvm.mlir.constant({_PARK_SPINS} : i64) : i64
    %false = llvm.mlir.constant(false) : i1
    %true = llvm.mlir.constant(true) : i1
    %state = llvm.mlir.addressof @{_STATE} : !llvm.ptr
    %job = llvm.mlir.addressof @{_JOB} : !llvm.ptr
    %inside = llvm.mlir.addressof @{_INSIDE} : !llvm.ptr
    %entered = llvm.atomicrmw add %inside, %one acq_rel : !llvm.ptr, i64
    llvm.br ^run(%first, %false : !llvm.ptr, i1)
  ^run(%rec: !llvm.ptr, %mailed: i1):
    %ctx_ptr = llvm.getelementptr %rec[0, 0] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    %token_ptr = llvm.getelementptr %rec[0, 1] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    %work_ptr = llvm.getelementptr %rec[0, 2] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    %ctx = llvm.load %ctx_ptr : !llvm.ptr -> !llvm.ptr
    %token = llvm.load %token_ptr : !llvm.ptr -> !llvm.ptr
    %work = llvm.load %work_ptr : !llvm.ptr -> !llvm.ptr
    llvm.call %work(%ctx) : !llvm.ptr, (!llvm.ptr) -> ()
    llvm.cond_br %mailed, ^reopen, ^park
  ^park:
    %claim = llvm.cmpxchg %state, %zero, %one acq_rel monotonic : !llvm.ptr, i64
    %parked = llvm.extractvalue %claim[1] : !llvm.struct<(i64, i1)>
    llvm.br ^finish(%parked : i1)
  ^reopen:
    llvm.store %one, %state atomic release {{alignment = 8 : i64}} : i64, !llvm.ptr
    llvm.br ^finish(%true : i1)
  ^finish(%stay: i1):
    // Parked before it counts itself finished: the launcher's next loop finds it.
    %finished = llvm.getelementptr %ctx[0, 2] : (!llvm.ptr) -> !llvm.ptr, {ctx_prefix}
    %before = llvm.atomicrmw add %finished, %one release : !llvm.ptr, i64
    llvm.call @mlirAsyncRuntimeEmplaceToken(%token) : (!llvm.ptr) -> ()
    llvm.cond_br %stay, ^poll(%zero : i64), ^leave
  ^poll(%n: i64):
    %s = llvm.load %state atomic acquire {{alignment = 8 : i64}} : !llvm.ptr -> i64
    %ready = llvm.icmp "eq" %s, %three : i64
    llvm.cond_br %ready, ^take, ^closed
  ^closed:
    // The mailbox closes (state 0) under a parked helper only by the quiesce function.
    %gone = llvm.icmp "eq" %s, %zero : i64
    llvm.cond_br %gone, ^leave, ^idle
  ^idle:
    %patience = llvm.icmp "slt" %n, %spins : i64
    %n1 = llvm.add %n, %one : i64
    llvm.cond_br %patience, ^poll(%n1 : i64), ^timeout
  ^timeout:
    %quit = llvm.cmpxchg %state, %one, %zero acq_rel monotonic : !llvm.ptr, i64
    %left = llvm.extractvalue %quit[1] : !llvm.struct<(i64, i1)>
    llvm.cond_br %left, ^leave, ^poll(%n : i64)
  ^take:
    %next = llvm.load %job : !llvm.ptr -> !llvm.ptr
    llvm.br ^run(%next, %true : !llvm.ptr, i1)
  ^leave:
    %left_inside = llvm.atomicrmw sub %inside, %one release : !llvm.ptr, i64
    llvm.return
  }}"""


def _launcher_text(name: str, params: list, helpers: int) -> str:
    """The launcher, the chunk-taking loop and the helper task of one thread loop, as MLIR text."""
    captures = params[1:]
    # Context: next chunk index, chunk count, helpers finished, then the captures.
    ctx_type = f"!llvm.struct<(i64, i64, i64{''.join(', ' + t for t in captures)})>"
    rec_type = "!llvm.struct<(ptr, ptr, ptr)>"
    args = "".join(f", %a{k}: {t}" for k, t in enumerate(captures))
    stores = "\n".join(
        f"    %s{k} = llvm.getelementptr %ctx[0, {k + 3}] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}\n"
        f"    llvm.store %a{k}, %s{k} : {t}, !llvm.ptr" for k, t in enumerate(captures))
    loads = "\n".join(
        f"    %p{k} = llvm.getelementptr %ctx[0, {k + 3}] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}\n"
        f"    %v{k} = llvm.load %p{k} : !llvm.ptr -> {t}" for k, t in enumerate(captures))
    values = "".join(f", %v{k}" for k in range(len(captures)))
    types = "".join(f", {t}" for t in captures)
    return f"""
  llvm.func internal @{name}_work(%ctx: !llvm.ptr) attributes {{passthrough = ["noinline"]}} {{
    %one = llvm.mlir.constant(1 : i64) : i64
    %next = llvm.getelementptr %ctx[0, 0] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}
    %count_ptr = llvm.getelementptr %ctx[0, 1] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}
    %count = llvm.load %count_ptr : !llvm.ptr -> i64
    llvm.br ^take
  ^take:
    %i = llvm.atomicrmw add %next, %one monotonic : !llvm.ptr, i64
    %more = llvm.icmp "slt" %i, %count : i64
    llvm.cond_br %more, ^run, ^done
  ^run:
{loads}
    llvm.call @{name}{_SUFFIX_CHUNK}(%i{values}) : (i64{types}) -> ()
    llvm.br ^take
  ^done:
    llvm.return
  }}
  llvm.func internal @{name}{_SUFFIX_LAUNCH}(%count: i64{args}) {{
    %zero = llvm.mlir.constant(0 : i64) : i64
    %one = llvm.mlir.constant(1 : i64) : i64
    %most = llvm.mlir.constant({helpers} : i64) : i64
    %ctx = llvm.alloca %one x {ctx_type} : (i64) -> !llvm.ptr
    %next = llvm.getelementptr %ctx[0, 0] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}
    llvm.store %zero, %next : i64, !llvm.ptr
    %count_ptr = llvm.getelementptr %ctx[0, 1] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}
    llvm.store %count, %count_ptr : i64, !llvm.ptr
    %finished = llvm.getelementptr %ctx[0, 2] : (!llvm.ptr) -> !llvm.ptr, {ctx_type}
    llvm.store %zero, %finished : i64, !llvm.ptr
{stores}
    %others = llvm.sub %count, %one : i64
    %few = llvm.icmp "slt" %others, %most : i64
    %helpers = llvm.select %few, %others, %most : i1, i64
    %recs = llvm.alloca %most x {rec_type} : (i64) -> !llvm.ptr
    %task = llvm.mlir.addressof @{_HELPER} : !llvm.ptr
    %work = llvm.mlir.addressof @{name}_work : !llvm.ptr
    %state = llvm.mlir.addressof @{_STATE} : !llvm.ptr
    %job = llvm.mlir.addressof @{_JOB} : !llvm.ptr
    %parked = llvm.mlir.constant(1 : i64) : i64
    %writing = llvm.mlir.constant(2 : i64) : i64
    %ready = llvm.mlir.constant(3 : i64) : i64
    llvm.br ^start(%zero : i64)
  ^start(%j: i64):
    %start_more = llvm.icmp "slt" %j, %helpers : i64
    llvm.cond_br %start_more, ^spawn, ^work
  ^spawn:
    %rec = llvm.getelementptr %recs[%j] : (!llvm.ptr, i64) -> !llvm.ptr, {rec_type}
    %rec_ctx = llvm.getelementptr %rec[0, 0] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    llvm.store %ctx, %rec_ctx : !llvm.ptr, !llvm.ptr
    %token = llvm.call @mlirAsyncRuntimeCreateToken() : () -> !llvm.ptr
    %rec_token = llvm.getelementptr %rec[0, 1] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    llvm.store %token, %rec_token : !llvm.ptr, !llvm.ptr
    %rec_work = llvm.getelementptr %rec[0, 2] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    llvm.store %work, %rec_work : !llvm.ptr, !llvm.ptr
    %j1 = llvm.add %j, %one : i64
    %claim = llvm.cmpxchg %state, %parked, %writing acq_rel monotonic : !llvm.ptr, i64
    %claimed = llvm.extractvalue %claim[1] : !llvm.struct<(i64, i1)>
    llvm.cond_br %claimed, ^mail, ^execute
  ^mail:
    llvm.store %rec, %job : !llvm.ptr, !llvm.ptr
    llvm.store %ready, %state atomic release {{alignment = 8 : i64}} : i64, !llvm.ptr
    llvm.br ^start(%j1 : i64)
  ^execute:
    llvm.call @mlirAsyncRuntimeExecute(%rec, %task) : (!llvm.ptr, !llvm.ptr) -> ()
    llvm.br ^start(%j1 : i64)
  ^work:
    llvm.call @{name}_work(%ctx) : (!llvm.ptr) -> ()
    %spins = llvm.mlir.constant({_SPINS} : i64) : i64
    llvm.br ^spin(%zero : i64)
  ^spin(%n: i64):
    %done = llvm.load %finished atomic acquire {{alignment = 8 : i64}} : !llvm.ptr -> i64
    %waiting = llvm.icmp "slt" %done, %helpers : i64
    %patience = llvm.icmp "slt" %n, %spins : i64
    %poll = llvm.and %patience, %waiting : i1
    llvm.cond_br %poll, ^again, ^joined
  ^again:
    %n1 = llvm.add %n, %one : i64
    llvm.br ^spin(%n1 : i64)
  ^joined:
    llvm.br ^join(%zero : i64)
  ^join(%k: i64):
    %join_more = llvm.icmp "slt" %k, %helpers : i64
    llvm.cond_br %join_more, ^wait, ^done
  ^wait:
    %wrec = llvm.getelementptr %recs[%k] : (!llvm.ptr, i64) -> !llvm.ptr, {rec_type}
    %wtoken_ptr = llvm.getelementptr %wrec[0, 1] : (!llvm.ptr) -> !llvm.ptr, {rec_type}
    %wtoken = llvm.load %wtoken_ptr : !llvm.ptr -> !llvm.ptr
    llvm.call @mlirAsyncRuntimeAwaitToken(%wtoken) : (!llvm.ptr) -> ()
    llvm.call @mlirAsyncRuntimeDropRef(%wtoken, %one) : (!llvm.ptr, i64) -> ()
    %k1 = llvm.add %k, %one : i64
    llvm.br ^join(%k1 : i64)
  ^done:
    llvm.return
  }}"""
