"""``tad-split-rank-reducing-subviews``: name the unit dims a rank-reducing ``memref.subview`` drops.

A rank-reducing subview does not name the dims it drops; upstream works them
out from the strides (``computeMemRefRankReductionMask``). Where some unit
dims stay, that goes wrong two ways. With dynamic strides every stride
compares equal and it drops the first unit dims it meets: the subview
``[2, 1, 2, 1, 1, 2] -> [2, 1, 2, 1, 2]`` of a fully dynamic layout (a
``scf.if`` result after bufferization) drops dim 1 instead of dim 3 or 4, and
``expand-strided-metadata`` then gives result dim 2 the stride of source dim 3:
wrong values, no error (jacfwd through ``lax.cond`` then ``lax.scan``). With
static strides it may find no dims to drop and abort the process (an
assertion in ``SubViewOp::getDroppedDims``): a ``1x1x1x1x1`` tap of a
max-pooling window, stepping 2 along a unit dim, viewed as ``1x1x1x1``.

This pass makes each such subview keep every dim and views the result as
its declared type with ``memref.reinterpret_cast``, taking the strides of the
kept dims (``memref.extract_strided_metadata``). Which dims are kept comes
from the sizes alone: result dims match source dims left to right, as
``tensor.extract_slice`` and bufferization read a rank reduction. Every op it
adds is a view, so nothing is copied. ``tad-lower-to-llvm`` and
``tad-lower-to-nvvm`` run it just before ``expand-strided-metadata``, which
folds the metadata of the full subview.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%m: memref<1x2x1xf64, strided<[?, ?, ?], offset: ?>>) -> memref<1x2xf64, strided<[?, ?], offset: ?>> {
...   %s = memref.subview %m[0, 0, 0] [1, 2, 1] [1, 1, 1]
...       : memref<1x2x1xf64, strided<[?, ?, ?], offset: ?>> to memref<1x2xf64, strided<[?, ?], offset: ?>>
...   return %s : memref<1x2xf64, strided<[?, ?], offset: ?>>
... }''', make_context())
>>> run_pipeline(m, "tad-split-rank-reducing-subviews,expand-strided-metadata")
>>> "sizes: [1, 2], strides: [%strides#0, %strides#1]" in str(m)
True

Without the first pass the view would take the strides of dims 1 and 2.
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import memref

from ..walk import collect

_DYNAMIC = ir.ShapedType.get_dynamic_stride_or_offset()


def _kept_dims(sizes: list, result_shape: list) -> list | None:
    """The source dims a rank reduction keeps, matching sizes left to right; None if it drops a non-unit dim."""
    kept = []
    for dim, size in enumerate(sizes):
        if len(kept) < len(result_shape) and size == result_shape[len(kept)]:
            kept.append(dim)
        elif size != 1:
            return None
    return kept if len(kept) == len(result_shape) else None


def _is_ambiguous(op: ir.Operation) -> bool:
    """Whether upstream must choose the dropped dims of subview ``op`` among its unit dims (some of them stay)."""
    source, result = op.operands[0].type, op.results[0].type
    if not isinstance(source, ir.MemRefType) or result.rank == source.rank:
        return False
    unit_dims = sum(1 for size in op.attributes["static_sizes"] if size == 1)
    return unit_dims != source.rank - result.rank  # all unit dims dropped: nothing to choose


def _split(op: ir.Operation) -> None:
    """Retype subview ``op`` to keep every dim, then view it as its declared type with the kept dims' strides."""
    result = op.results[0]
    reduced = result.type
    sizes = list(op.attributes["static_sizes"])
    kept = _kept_dims(sizes, list(reduced.shape))
    if kept is None:
        return  # not a rank reduction by unit dims: the verifier reports it
    source_strides, _ = op.operands[0].type.get_strides_and_offset()
    reduced_strides, offset = reduced.get_strides_and_offset()
    # The full subview has the layout the verifier infers; the view takes the declared strides
    # (where they differ it is on unit dims, whose strides address nothing).
    full_strides = [_DYNAMIC if _DYNAMIC in (source_stride, step) else source_stride * step
                    for source_stride, step in zip(source_strides, op.attributes["static_strides"])]
    result.set_type(ir.MemRefType.get(sizes, reduced.element_type, ir.StridedLayoutAttr.get(offset, full_strides),
                                      reduced.memory_space))
    with ir.InsertionPoint.after(op), op.location:
        metadata = memref.ExtractStridedMetadataOp(result)
        dynamic_offset = [metadata.offset] if offset == _DYNAMIC else []
        dynamic_sizes = [metadata.sizes[dim] for dim, size in zip(kept, reduced.shape)
                         if ir.ShapedType.is_dynamic_size(size)]
        dynamic_strides = [metadata.strides[dim] for dim, stride in zip(kept, reduced_strides) if stride == _DYNAMIC]
        view = memref.ReinterpretCastOp(reduced, metadata.base_buffer, dynamic_offset, dynamic_sizes, dynamic_strides,
                                        [offset], list(reduced.shape), reduced_strides)
    result.replace_all_uses_except(view.result, metadata.operation)


def run(op: ir.Operation, pass_) -> None:
    """Split every ambiguous rank-reducing ``memref.subview`` nested in ``op``."""
    for subview in collect(op, lambda o: o.name == "memref.subview" and _is_ambiguous(o)):
        _split(subview)
