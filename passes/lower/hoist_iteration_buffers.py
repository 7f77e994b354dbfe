"""``tad-hoist-iteration-buffers``: allocate once what each iteration of a marked loop allocates and frees.

A lowering whose loop allocates the same temporaries in every iteration (a
convolution's images of a group: flat planes, their copies, a flat output)
marks the ``scf.for`` with the unit attribute
``tad.reused_iteration_buffers``. After bufferization and deallocation,
this pass moves each ``memref.alloc`` of a static shape at the top of such a
loop's body, freed by a ``memref.dealloc`` at the top of the body as well,
to before the loop, and the ``memref.dealloc`` to after it: the iterations
run one after another, so each can use the buffer the one before it freed.
Every allocation calls the runtime's allocator (it counts live bytes), which
costs about as much as a small image's convolution; the group's images then
call it once. The buffers of one iteration are all live together, which the
scratch rules of the ops that mark loops count.

A buffer read before it is written in an iteration would see the previous
iteration's data where it saw undefined memory: no lowering reads a fresh
allocation. A buffer the iteration does not free in its body (a result, or
one freed under a condition) is left where it is.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%out: memref<4x8xf32>) {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %c4 = arith.constant 4 : index
...   scf.for %i = %c0 to %c4 step %c1 {
...     %t = memref.alloc() : memref<8xf32>
...     %row = memref.subview %out[%i, 0] [1, 8] [1, 1] : memref<4x8xf32> to memref<8xf32, strided<[1], offset: ?>>
...     memref.copy %t, %row : memref<8xf32> to memref<8xf32, strided<[1], offset: ?>>
...     memref.dealloc %t : memref<8xf32>
...   } {tad.reused_iteration_buffers}
...   return
... }''', make_context())
>>> run_pipeline(m, "tad-hoist-iteration-buffers")
>>> [op.name for op in m.body.operations[0].regions[0].blocks[0].operations][3:6]
['memref.alloc', 'scf.for', 'memref.dealloc']
"""

from __future__ import annotations

from mlir import ir

from tensorad.dialects.record import REUSED_ITERATION_BUFFERS

from ..walk import collect


def run(op: ir.Operation, pass_) -> None:
    """Hoist the per-iteration buffers of every ``scf.for`` inside ``op`` marked ``tad.reused_iteration_buffers``."""
    for loop in collect(op, lambda inner: inner.name == "scf.for" and REUSED_ITERATION_BUFFERS in inner.attributes):
        _hoist(loop)


def _hoist(loop: ir.Operation) -> None:
    for alloc in [o.operation for o in loop.regions[0].blocks[0].operations if o.operation.name == "memref.alloc"]:
        if len(alloc.operands) or not ir.MemRefType(alloc.results[0].type).has_static_shape:
            continue
        frees = [use.owner for use in alloc.results[0].uses if use.owner.name == "memref.dealloc"]
        if len(frees) != 1 or frees[0].parent != loop:
            continue
        alloc.move_before(loop)
        frees[0].move_after(loop)
