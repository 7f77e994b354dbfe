"""``tad-split-long-functions``: cut a long function into chunk functions it calls in turn.

A function that ``tad-outline-repeated-kernels`` left with nothing but
kernel calls and their buffers (marked ``optnone``) is as long as the
unrolled program: at 128 steps of a recurrent gradient, 15,000 ops before
lowering and 120,000 after. LLVM's code generator allocates registers for a
function as a whole, and the greedy allocator's work grows faster than the
function's length (a recurrence's saved activations live across thousands
of calls), even once ``tad-split-long-blocks`` has cut its block. Cut into
functions of ``length`` ops each, the work grows linearly with N.

A long function that LLVM optimizes (a program without repeats, whose
entry holds every loop nest but the thread loops') is cut too, into chunks
of at least ``optimized-length`` ops, nested ones counted: LLVM optimizes
and compiles a function on one thread, and :func:`tensorad.host_code.split_kernels`
compiles each chunk, a function that large, in a part of its own, at once
with the others (W2's entry was 0.97 s of LLVM on one core). Such a chunk
is cut only where every value crossing it has a slot.

Values pass between chunks through a frame, a stack buffer of the caller
whose pointer every chunk takes: a chunk loads what it reads from before
it at its start and stores what later ops read at its end, so no value
lives in a register across chunks, and a chunk's code and a call to it stay
small however many values cross. (As results, the values would be one
aggregate per chunk, which LLVM's instruction selection copies field by
field at each of its insertions.) A buffer is stored as its memref
descriptor, or, where its sizes, strides and offset are in its type, as its
two pointers; the allocated pointer is kept for the chunk that frees it. A
slot is reused once its last reader has loaded it. A constant
(``arith.constant``, a vector one too) is not passed: each chunk that reads
it makes its own copy. Chunks are ``noinline``, and ``optnone`` when the
function they came from is. A function that passes a value of another type
than memrefs, integers, indices and floats (and constants) between
fixed-length chunks is left whole. ``tad-lower-to-llvm`` runs this pass
after bufferization and deallocation, before thread loops are outlined.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> body = "\\n".join(f"%v{i} = arith.addi %v{i - 1}, %v0 : i64" for i in range(1, 10))
>>> m = ir.Module.parse(f'''
... func.func @f(%v0: i64) -> i64 attributes {{passthrough = ["noinline", "optnone"]}} {{
... {body}
...   return %v9 : i64
... }}''', make_context())
>>> run_pipeline(m, "tad-split-long-functions{length=4}")
>>> text = str(m)
>>> text.count("call @f__chunk_"), text.count("func.func private @f__chunk_")
(3, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, builtin, func, llvm

from ..options import option
from ..walk import collect
from .outline_kernels import add_passthrough, has_passthrough

CHUNK_INFIX = "__chunk_"


@dataclass(frozen=True)
class SplitOptions:
    """The options of ``tad-split-long-functions`` (``length=256 optimized-length=200``).

    A chunk of 256 ops of an ``optnone`` function (about 85 kernel calls
    with their buffers) lowers to some 2,000 LLVM instructions: short enough
    for the register allocator, long enough that the loads and stores at its
    ends cost little. A chunk of an optimized function holds at least 200
    ops with their loop nests: W2's entry (about 1,700 of them) makes 8
    chunks, which compile on two cores in two parts at once.
    """

    length: int = option(256, "the most ops of an optnone function one chunk takes", check=lambda n: n >= 1,
                         accepted="an integer >= 1")
    optimized_length: int = option(200, "the fewest ops (nested ones counted) of a chunk of a function LLVM "
                                   "optimizes; 0 leaves those whole", check=lambda n: n >= 0,
                                   accepted="an integer >= 0")


def run(op: ir.Operation, pass_, options: SplitOptions = SplitOptions()) -> None:
    """Split each long ``func.func`` of one block in ``op`` (a module) into chunks.

    An ``optnone`` function longer than ``2 * length`` ops, into chunks of
    ``length`` ops; any other longer than ``2 * optimized_length`` ops,
    nested ones counted, into chunks of at least ``optimized_length``. Ops
    with regions (an ``scf.for`` over calls, a loop nest) move into a chunk
    whole.
    """
    module_body = op.regions[0].blocks[0]
    for function in list(module_body.operations):
        function = function.operation
        if function.name != "func.func" or len(function.regions[0].blocks) != 1:
            continue
        ops = list(function.regions[0].blocks[0].operations)
        body, terminator = ops[:-1], ops[-1]
        if has_passthrough(function, "optnone"):
            if len(body) <= 2 * options.length:
                continue
            chunks = [body[start:start + options.length] for start in range(0, len(body), options.length)]
            passthrough = ("noinline", "optnone")
        else:
            chunks = _optimized_chunks(body, options.optimized_length)
            passthrough = ("noinline",)
        if len(chunks) < 2:
            continue
        frame = _Frame.plan(chunks, terminator)
        if frame is not None:
            _split(function, chunks, terminator, frame, module_body, passthrough)


def _optimized_chunks(body: list, length: int) -> list:
    """``body`` cut into chunks of at least ``length`` ops, nested ones counted; ``[]`` if not worth it.

    A cut falls only where no value that no frame slot holds (a vector an
    ``scf.for`` carries out of its loop) is defined before it and read after.
    """
    # Constants count for nothing: a chunk that reads one makes its own.
    sizes = [0 if _is_constant_op(top) else len(_nested([top])) for top in body]
    if not length or sum(sizes) <= 2 * length:
        return []
    position = {top.operation: k for k, top in enumerate(body)}
    # The last top-level op reading each op's results that no slot can hold.
    blocked = list(range(len(body)))
    for k, top in enumerate(body):
        for result in top.results:
            if _words(result.type) or _is_constant(result):
                continue
            for use in result.uses:
                owner = use.owner.operation
                while owner is not None and owner not in position:
                    owner = owner.parent
                if owner is not None:
                    blocked[k] = max(blocked[k], position[owner])
    chunks, current, count, until = [], [], 0, 0
    for k, (top, size) in enumerate(zip(body, sizes)):
        current.append(top)
        count += size
        until = max(until, blocked[k])
        if count >= length and until <= k:
            chunks.append(current)
            current, count = [], 0
    if current:
        chunks.append(current)
    return chunks


class _Frame:
    """Where each value read across chunks lives: a slot of 64-bit words in the caller's frame buffer.

    ``loads[k]`` and ``stores[k]`` are the values chunk ``k`` loads at its
    start and stores at its end; the function's arguments are stored before
    the first chunk (``stores[-1]``), and what the terminator reads that a
    chunk defines is loaded after the last one (``loads[-1]``). ``copies[k]``
    are the constants chunk ``k`` (``-1``: the terminator) reads from
    elsewhere, which it copies instead of loading.
    """

    def __init__(self, chunk_count: int):
        self.loads: list = [[] for _ in range(chunk_count + 1)]
        self.stores: list = [[] for _ in range(chunk_count + 1)]
        self.copies: list = [[] for _ in range(chunk_count + 1)]
        self.offset: dict = {}
        self.words = 0

    @classmethod
    def plan(cls, chunks: list, terminator: ir.Operation) -> "_Frame | None":
        """The frame of ``chunks``, or None if a value crossing them has a type no slot holds."""
        frame = cls(len(chunks))
        defined_in: dict = {}
        for k, chunk in enumerate(chunks):
            for top in chunk:
                defined_in.update((result, k) for result in top.results)
        last_reader: dict = {}
        for k, chunk in enumerate(chunks):
            for value in _read_from_outside(chunk):
                if _is_constant(value):
                    frame.copies[k].append(value)
                else:
                    frame.loads[k].append(value)
                    last_reader[value] = k
        for value in terminator.operands:
            if value not in defined_in:
                continue
            if not _is_constant(value):
                frame.loads[-1].append(value)
                last_reader[value] = len(chunks)
            elif value not in frame.copies[-1]:
                frame.copies[-1].append(value)
        for value in last_reader:
            frame.stores[defined_in.get(value, -1)].append(value)
        if not all(_words(value.type) for value in last_reader):
            return None
        free: dict = {}  # words -> offsets of slots no value holds any longer
        for k in (-1, *range(len(chunks))):  # the arguments' stores first
            if k >= 0:
                for value in frame.loads[k]:
                    if last_reader[value] == k:
                        free.setdefault(_words(value.type), []).append(frame.offset[value])
            for value in frame.stores[k]:
                words = _words(value.type)
                if free.get(words):
                    frame.offset[value] = free[words].pop()
                else:
                    frame.offset[value], frame.words = frame.words, frame.words + words
        return frame

    def load(self, value: ir.Value, base: ir.Value, templates: dict) -> ir.Value:
        """Load ``value`` from its slot of the frame at ``base`` (at the insertion point).

        ``templates`` holds, per static memref type, a descriptor with all but
        its pointers filled in, made once at the first load of that type.
        """
        t = value.type
        if _static(t):
            if t not in templates:
                templates[t] = _template(t)
            descriptor = templates[t]
            for word in range(2):
                pointer = llvm.LoadOp(llvm.PointerType.get(), self._address(value, base, word)).result
                descriptor = llvm.InsertValueOp(descriptor, pointer, [word]).result
            return builtin.UnrealizedConversionCastOp([t], [descriptor]).result
        loaded = llvm.LoadOp(_slot_type(t), self._address(value, base)).result
        if isinstance(t, ir.MemRefType):
            return builtin.UnrealizedConversionCastOp([t], [loaded]).result
        return arith.IndexCastOp(t, loaded).result if isinstance(t, ir.IndexType) else loaded

    def store(self, value: ir.Value, base: ir.Value) -> None:
        """Store ``value`` into its slot of the frame at ``base`` (at the insertion point)."""
        t = value.type
        if isinstance(t, ir.MemRefType):
            descriptor = builtin.UnrealizedConversionCastOp([_slot_type(t)], [value]).result
            if _static(t):  # the two pointers; the rest is in the type
                for word in range(2):
                    pointer = llvm.ExtractValueOp(llvm.PointerType.get(), descriptor, [word]).result
                    llvm.StoreOp(pointer, self._address(value, base, word))
                return
            stored = descriptor
        elif isinstance(t, ir.IndexType):
            stored = arith.IndexCastOp(_slot_type(t), value).result
        else:
            stored = value
        llvm.StoreOp(stored, self._address(value, base))

    def _address(self, value: ir.Value, base: ir.Value, word: int = 0) -> ir.Value:
        i64 = ir.IntegerType.get_signless(64)
        return llvm.GEPOp(llvm.PointerType.get(), base, [], [self.offset[value] + word], i64, None).result


def _is_constant_op(op: ir.Operation) -> bool:
    """Whether ``op`` is a constant, which a chunk that reads it copies instead of loading."""
    return op.operation.name == "arith.constant"


def _is_constant(value: ir.Value) -> bool:
    """Whether ``value`` is a constant's result (:func:`_is_constant_op`)."""
    return isinstance(value, ir.OpResult) and _is_constant_op(value.owner)


def _static(t: ir.Type) -> bool:
    """Whether ``t`` is a memref whose sizes, strides and offset are all in its type."""
    if not isinstance(t, ir.MemRefType) or not t.has_static_shape:
        return False
    strides, offset = t.get_strides_and_offset()
    return ir.ShapedType.get_dynamic_stride_or_offset() not in [*strides, offset]


def _words(t: ir.Type) -> int:
    """64-bit words of the slot that holds a value of type ``t``; 0 if none does."""
    if isinstance(t, ir.MemRefType):
        if t.memory_space is not None:
            return 0
        return 2 if _static(t) else 3 + 2 * t.rank
    if isinstance(t, (ir.IndexType, ir.FloatType)) or (isinstance(t, ir.IntegerType) and t.width <= 64):
        return 1
    return 0


def _slot_type(t: ir.Type) -> ir.Type:
    """The LLVM type a value of type ``t`` is stored as: a memref's descriptor, an index as i64."""
    if isinstance(t, ir.MemRefType):
        sizes = f", array<{t.rank} x i64>, array<{t.rank} x i64>" if t.rank else ""
        return ir.Type.parse(f"!llvm.struct<(ptr, ptr, i64{sizes})>")
    return ir.IntegerType.get_signless(64) if isinstance(t, ir.IndexType) else t


def _template(t: ir.MemRefType) -> ir.Value:
    """The descriptor of a memref of static type ``t``, its pointers left out."""
    i64 = ir.IntegerType.get_signless(64)
    strides, offset = t.get_strides_and_offset()
    fields = [([2], offset), *(([3, d], size) for d, size in enumerate(t.shape)),
              *(([4, d], stride) for d, stride in enumerate(strides))]
    descriptor = llvm.PoisonOp(_slot_type(t)).result
    for position, field in fields:
        constant = llvm.ConstantOp(i64, ir.IntegerAttr.get(i64, field)).result
        descriptor = llvm.InsertValueOp(descriptor, constant, position).result
    return descriptor


def _split(function: ir.Operation, chunks: list, terminator: ir.Operation, frame: _Frame,
           module_body: ir.Block, passthrough: tuple) -> None:
    """Move each list of consecutive ops in ``chunks`` into a function of its own, called in its place.

    The chunks get the LLVM function attributes ``passthrough``.
    """
    name = ir.StringAttr(function.attributes["sym_name"]).value
    pointer = llvm.PointerType.get()
    i64 = ir.IntegerType.get_signless(64)
    with ir.InsertionPoint(chunks[0][0]), chunks[0][0].location:
        one = llvm.ConstantOp(i64, ir.IntegerAttr.get(i64, 1)).result
        base = llvm.AllocaOp(pointer, one, ir.Type.parse(f"!llvm.array<{max(frame.words, 1)} x i64>")).result
        for value in frame.stores[-1]:
            frame.store(value, base)
    for k, chunk in enumerate(chunks):
        chunk_name = f"{name}{CHUNK_INFIX}{k}"
        with ir.InsertionPoint(chunk[0]), chunk[0].location:
            func.CallOp([], chunk_name, [base])
        with ir.InsertionPoint(module_body), chunk[0].location:
            outlined = func.FuncOp(chunk_name, ([pointer], []), visibility="private")
            entry = outlined.add_entry_block()
        with ir.InsertionPoint(entry), chunk[0].location:
            templates: dict = {}
            loaded = {value: frame.load(value, entry.arguments[0], templates) for value in frame.loads[k]}
            loaded.update((value, value.owner.operation.clone().result) for value in frame.copies[k])
            returned = func.ReturnOp([])
        for top in chunk:
            top.move_before(returned)
        for inner in _nested(chunk):
            for number, value in enumerate(inner.operands):
                if value in loaded:
                    inner.operands[number] = loaded[value]
        with ir.InsertionPoint(returned), chunk[-1].location:
            for value in frame.stores[k]:
                frame.store(value, entry.arguments[0])
        add_passthrough(outlined.operation, *passthrough)
    with ir.InsertionPoint(terminator), terminator.location:
        loaded = {value: frame.load(value, base, {}) for value in frame.loads[-1]}
        loaded.update((value, value.owner.operation.clone().result) for value in frame.copies[-1])
    for number, value in enumerate(terminator.operands):
        terminator.operands[number] = loaded.get(value, value)


def _read_from_outside(chunk: list) -> list:
    """The values ops in ``chunk`` (or nested in them) read that none of them defines, in the order first read."""
    inner_ops = _nested(chunk)
    defined = {result for inner in inner_ops for result in inner.results}
    defined.update(argument for inner in inner_ops for region in inner.regions for block in region
                   for argument in block.arguments)
    read: dict = {}
    for inner in inner_ops:
        for value in inner.operands:
            if value not in defined:
                read.setdefault(value, None)
    return list(read)


def _nested(chunk: list) -> list:
    """The ops of ``chunk`` and every op nested in them (only ops with regions are walked)."""
    return [inner for top in chunk for inner in (collect(top) if len(top.regions) else [top])]
