"""Device memory for GPU code: every buffer a kernel touches is CUDA managed memory.

Two passes, on buffers:

* ``tad-copy-arguments-to-device`` (before buffer deallocation) gives every
  memref argument of a public function, and every constant
  (``memref.get_global``), a fresh buffer filled by a ``memref.copy``
  marked ``tad.copy_in``: the caller's arrays and the constants are host
  memory that a kernel cannot read. The copies are ordinary allocations, so
  ownership-based deallocation frees them (or hands one back as a result);
* ``tad-allocate-on-device`` (after it) turns every ``memref.alloc`` /
  ``memref.dealloc`` of host code into ``gpu.alloc host_shared`` /
  ``gpu.dealloc``: ``cuMemAllocManaged`` memory, which kernels and the host
  code between launches (scalar ops, loop bounds) both read and write, and
  which the runtime counts as device bytes; the marked copies become
  ``gpu.memcpy`` (the other copies are left to ``tad-map-to-gpu``).

Copies and frees wait for their stream, and launches are synchronous (``gpu-to-llvm`` waits on each kernel's stream),
so the host never reads memory a kernel is still writing.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
...   %y = memref.alloc() : memref<4xf32>
...   memref.copy %x, %y : memref<4xf32> to memref<4xf32>
...   return %y : memref<4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-copy-arguments-to-device,tad-allocate-on-device")
>>> print(str(m).count("gpu.alloc  host_shared"), str(m).count("gpu.memcpy async"), "memref.copy" in str(m))
2 1 True
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import gpu, memref

from ..walk import collect, position_in_block

_COPY_IN = "tad.copy_in"


def _is_launch(op: ir.Operation) -> bool:
    """Kernel bodies stay as they are: only host code moves to managed memory."""
    return op.name == "gpu.launch"


def copy_in(op: ir.Operation, pass_) -> None:
    """Copy the memref arguments of public functions, and constants, into fresh buffers."""
    for fn in op.regions[0].blocks[0].operations:
        fn = fn.operation
        if fn.name != "func.func" or not fn.regions[0].blocks or _is_private(fn):
            continue
        entry = fn.regions[0].blocks[0]
        for argument in entry.arguments:
            if isinstance(argument.type, ir.MemRefType):
                _copy_to_fresh_buffer(argument, ir.InsertionPoint.at_block_begin(entry), fn.location)
    for get in collect(op, lambda inner: inner.name == "memref.get_global"):
        after = get.operation.block.operations[position_in_block(get) + 1]
        _copy_to_fresh_buffer(get.results[0], ir.InsertionPoint(after), get.location)


def allocate(op: ir.Operation, pass_) -> None:
    """Allocate host-code buffers as managed memory (``gpu.alloc host_shared``)."""
    targets = collect(op, lambda inner: inner.name in ("memref.alloc", "memref.dealloc")
                      or _COPY_IN in inner.attributes, prune=_is_launch)
    for target in targets:
        with ir.InsertionPoint(target), target.location:
            if target.name == "memref.dealloc":
                _synchronously(lambda token, deps: gpu.dealloc(token, deps, target.operands[0]))
            elif target.name == "memref.copy":
                _synchronously(lambda token, deps: gpu.memcpy(token, deps, target.operands[1],
                                                              target.operands[0]))
            elif ir.MemRefType(target.results[0].type).memory_space is None:
                buffer = gpu.alloc(target.results[0].type, None, [], list(target.operands), [],
                                   host_shared=True)
                target.results[0].replace_all_uses_with(buffer)
            else:
                continue
        target.erase()


def _synchronously(build) -> None:
    """Build an async GPU op (``build(token_type, dependencies)``) and wait for it.

    ``gpu-to-llvm`` lowers ``gpu.memcpy`` and ``gpu.dealloc`` only in their
    async form (a stream per token); waiting at once keeps host order.
    """
    token_type = gpu.AsyncTokenType.get()
    start = gpu.WaitOp(token_type, []).result
    gpu.WaitOp(None, [build(token_type, [start])])


def _is_private(fn: ir.Operation) -> bool:
    return "sym_visibility" in fn.attributes and ir.StringAttr(fn.attributes["sym_visibility"]).value == "private"


def _copy_to_fresh_buffer(value: ir.Value, where: ir.InsertionPoint, location: ir.Location) -> None:
    uses = [(use.owner, use.operand_number) for use in value.uses]
    with where, location:
        buffer = memref.alloc(value.type, [], [])
        memref.copy(value, buffer).attributes[_COPY_IN] = ir.UnitAttr.get()
    for owner, number in uses:
        owner.operands[number] = buffer
