"""``tad-expand-strided-copies``: a ``memref.copy`` between non-contiguous buffers becomes a loop nest.

``finalize-memref-to-llvm`` lowers a copy between contiguous buffers to
``memcpy``, and any other copy to a call of the runtime's ``memrefCopy``,
which walks the elements one index at a time and copies each with a call of
``memcpy`` of the element's size: 16 ns an element, where a loop takes
well under one. Bufferization makes such copies where a result is written
into a strided slice (the phases of a max-pool backward into every other
row and column of the gradient, an ``x.at[::2].set(y)``) or read out of one.
This pass makes each of them a ``linalg.copy``, which
``convert-linalg-to-loops`` then makes a loop nest that LLVM vectorizes
along the innermost dim. Copies that would become ``memcpy`` are left as
they are.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: memref<4x8xf32>, %y: memref<4x16xf32>) {
...   %every_other = memref.subview %y[0, 0] [4, 8] [1, 2] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 2]>>
...   memref.copy %x, %every_other : memref<4x8xf32> to memref<4x8xf32, strided<[16, 2]>>
...   memref.copy %x, %x : memref<4x8xf32> to memref<4x8xf32>
...   return
... }''', make_context())
>>> run_pipeline(m, "tad-expand-strided-copies")
>>> str(m).count("linalg.copy"), str(m).count("memref.copy")
(1, 1)
"""

from __future__ import annotations

from mlir import ir
from tensorad.dialects import linalg_builder as linalg

from ..walk import collect


def run(op: ir.Operation, pass_) -> None:
    """Make every ``memref.copy`` inside ``op`` that ``memrefCopy`` would run a ``linalg.copy``."""
    for copy in collect(op, lambda inner: inner.name == "memref.copy"):
        source, target = copy.operands
        if _is_contiguous(source.type) and _is_contiguous(target.type):
            continue
        with ir.InsertionPoint(copy), copy.location:
            linalg.copy(source, outs=[target])
        copy.erase()


def _is_contiguous(t: ir.Type) -> bool:
    """Whether ``finalize-memref-to-llvm`` copies a buffer of type ``t`` with ``memcpy``.

    An identity layout, or a static shape whose inner dims have row-major
    strides and whose other dims are all 1 (upstream's rule, as it is).
    """
    memref = ir.MemRefType(t)
    layout = memref.layout
    if isinstance(layout, ir.AffineMapAttr) and layout.value == ir.AffineMap.get_identity(memref.rank):
        return True
    if not memref.has_static_shape or 0 in memref.shape:
        return False
    strides, _ = memref.get_strides_and_offset()
    dim, running = len(strides) - 1, 1
    while dim >= 0 and strides[dim] == running:
        running *= memref.shape[dim]
        dim -= 1
    while dim >= 0 and memref.shape[dim] == 1:
        dim -= 1
    return dim < 0
