"""2-D max and average pooling and their backward ops.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.

Lowering
--------

``max_pool2d`` is one elementwise running maximum over the kernel's taps,
each tap a strided slice of the data padded with -inf (:func:`_tap_slices`:
with a column stride, the padded columns are first dealt into phases, so
that every tap reads contiguous columns and the maximum vectorizes; as in
PyTorch, only a greater value or a NaN replaces it).

* ``avg_pool2d``: window sums, then a division by the number of elements
  each window counts (a constant of the output's spatial shape). The sums
  are window loop nests over ``(n, c, kh, kw, oh, ow)``: while the taps of
  one (n, c) plane sweep it, that plane's output stays in cache, and the
  innermost loop walks an output row. The output positions are split into
  blocks by whether their windows leave the data (padding, or ceil_mode
  windows running past it): the inner block reads the data in place, and
  only the thin border blocks read a copy of their few rows padded with 0,
  so every tap is in bounds.
* the backward ops *gather*: each data element takes its gradient from the
  windows that hold it, never a scatter or a read-modify-write at computed
  positions (:func:`_spread`). ``avg_pool2d_backward`` gives every tap
  ``output_grad / count``; ``max_pool2d_backward`` first finds the tap
  number (row-major) of each window's first maximum (for windows that tile
  the data, by two vectorized reductions over the data viewed as ``(N, C,
  OH, KH, OW, KW)``: the maximum, then the least tap holding it; for others,
  by one elementwise op over the taps of ``max_pool2d``), and gives
  a tap ``output_grad`` where it is that one, else 0. Windows that tile the
  data (stride = kernel: the usual 2x2 pooling) are one parallel generic
  writing the gradient viewed as ``(N, C, OH, KH, OW, KW)``; overlapping
  windows one generic per phase of the stride (the rows ``q * s + r`` of a
  phase lie in windows ``q - j`` at taps ``r + j * s``), each summing those
  few windows' shares and writing its strided rows and columns once.

Derivatives (TVM Relax ``relax.op.grad`` names)
-----------------------------------------------

* ``tad.max_pool2d``: the vjp routes the cotangent with ``max_pool2d_backward``;
  the jvp gathers the tangent at the first maximum of each window (the same
  tie rule as the routing: ties go to the first tap in row-major order).
* ``tad.avg_pool2d`` is linear: the jvp applies it, the vjp is
  ``avg_pool2d_backward``.
* ``tad.avg_pool2d_backward`` is linear in ``output_grad`` (its transpose is
  ``avg_pool2d``) and reads only the shape of ``data``.
* ``tad.max_pool2d_backward`` is linear in ``output_grad`` with a routing that
  ``data`` fixes: the jvp routes the tangent, the vjp gathers the cotangent
  at the first maxima. The routing is piecewise constant in ``data``, so the
  derivative with respect to ``data`` is zero almost everywhere.

A (co)tangent with a batch prefix ``P`` is folded into the batch dimension
``N`` of the NCHW pooling ops (``P + (N, C, H, W)`` becomes
``(prod(P) * N, C, H, W)``) and unfolded afterwards.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.dialects.record import record_of
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
...   %0 = "tad.max_pool2d"(%x) {pool_size = array<i64: 2, 2>, strides = array<i64: 2, 2>,
...       padding = array<i64: 0, 0, 0, 0>, dilation = array<i64: 1, 1>, ceil_mode = 0}
...       : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
...   return %0 : tensor<1x1x2x2xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-lower-to-linalg")
>>> "arith.cmpf ugt" in str(m)
True
>>> all(record_of(name).jvp is not None and record_of(name).vjp is not None
...     for name in family.names)
True
"""

from __future__ import annotations

from itertools import product
from math import prod
from typing import NamedTuple, Optional, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..batching import fold_into_leading
from ..builder import Val
from ..derivatives import RuleContext, deflinear
from ..record import ALLOCATION_PADDING, Family, Trait, allocation_bytes, tensor_bytes
from ..shapes import TensorSpec, int_attr, window_attrs, window_output_size, rank4, gradient_of, floats, need, python_attrs

family = Family("pooling")

family.define("tad.max_pool2d",
              operands=("data",),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer")),
              summary="Max pooling over NCHW windows; padding counts as -inf.",
              traits=(Trait.PURE,))
family.define("tad.avg_pool2d",
              operands=("data",),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer"), ("count_include_pad", "integer")),
              summary="Average pooling over NCHW windows.",
              traits=(Trait.PURE,))
family.define("tad.max_pool2d_backward",
              operands=("output_grad", "data"),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer")),
              summary="Routes each output gradient to the first maximum of its window (result: the data's shape).",
              traits=(Trait.PURE,))
family.define("tad.avg_pool2d_backward",
              operands=("output_grad", "data"),
              attributes=(("pool_size", "dense_array"), ("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("ceil_mode", "integer"), ("count_include_pad", "integer")),
              summary="Spreads each output gradient evenly over its window (result: the data's shape).",
              traits=(Trait.PURE,))


def _pool_output(data: TensorSpec, attrs) -> TensorSpec:
    rank4(data, "data")
    strides, padding, dilation, kernel = window_attrs(attrs, "pool_size")
    ceil_mode = bool(int_attr(attrs, "ceil_mode"))
    n, c, h, w = data.shape
    # Windows of padding alone have no maximum (nor, without the padding, an average); PyTorch refuses them too.
    need(h > 0 and w > 0, f"pooling needs at least one row and one column of data, got {h}x{w}")
    oh = window_output_size(h, kernel[0], strides[0], padding[0], padding[2], dilation[0], ceil_mode)
    ow = window_output_size(w, kernel[1], strides[1], padding[1], padding[3], dilation[1], ceil_mode)
    return TensorSpec((n, c, oh, ow), data.element_type)


@family.shape_rule("tad.max_pool2d")
def _pool(operands, attrs, results):
    (data,) = operands
    return [_pool_output(data, attrs)]


@family.shape_rule("tad.avg_pool2d")
def _avg_pool(operands, attrs, results):
    (data,) = operands
    floats(data, "data")
    return [_pool_output(data, attrs)]


@family.shape_rule("tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_backward(operands, attrs, results):
    output_grad, data = operands
    floats(output_grad, "output_grad")
    return gradient_of("pooling", _pool_output(data, attrs), output_grad, data)


@family.flops("tad.max_pool2d", "tad.avg_pool2d", "tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_flops(op) -> int:
    window = prod(python_attrs(op)["pool_size"])
    return max(prod(v.type.shape) for v in [*op.operands, *op.results]) * window


# --- lowering ------------------------------------------------------------------

# Loop dimensions of every window loop nest.
_N, _C, _KH, _KW, _OH, _OW = range(6)
_WINDOW_ITERATORS = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]


class PoolWindow(NamedTuple):
    """Geometry of a pooling window over the two spatial dims (height, width).

    ``low`` is the declared padding before the data; ``high`` the padding
    after it that the windows actually read (more than declared where
    ceil_mode windows run past it, less where the last rows are never read).
    """

    kernel: tuple
    strides: tuple
    dilation: tuple
    low: tuple
    high: tuple


def pool_window(attrs: dict, in_hw: Sequence[int], out_hw: Sequence[int]) -> PoolWindow:
    """The :class:`PoolWindow` of a pooling op with ``attrs`` (``python_attrs`` form).

    Examples
    --------
    >>> attrs = {"pool_size": (3, 3), "strides": (2, 2), "padding": (1, 1, 1, 1),
    ...          "dilation": (1, 1)}
    >>> pool_window(attrs, (5, 6), (3, 3)).high  # 6 + 1 columns hold windows ending at 7
    (1, 0)
    """
    kernel, strides, dilation = attrs["pool_size"], attrs["strides"], attrs["dilation"]
    low = tuple(attrs["padding"][:2])
    high = tuple(max((o - 1) * s + (k - 1) * d + 1 - lo - n, 0)
                 for n, o, k, s, d, lo in zip(in_hw, out_hw, kernel, strides, dilation, low))
    return PoolWindow(tuple(kernel), tuple(strides), tuple(dilation), low, high)


def _window_of(op: ir.Operation) -> PoolWindow:
    # Forward ops map data to the output; backward ops take (output_grad, data).
    if len(op.operands) == 1:
        data, out = op.operands[0], op.results[0]
    else:
        out, data = op.operands
    return pool_window(python_attrs(op), data.type.shape[2:], out.type.shape[2:])


def _window_maps(w: PoolWindow) -> tuple:
    """Indexing maps of the loop nest: the tap read or written, the output element, the kernel."""
    d = [ir.AffineDimExpr.get(i) for i in range(6)]
    (sh, sw), (dh, dw) = w.strides, w.dilation
    tap = ir.AffineMap.get(6, 0, [d[_N], d[_C], d[_OH] * sh + d[_KH] * dh,
                                  d[_OW] * sw + d[_KW] * dw])
    return tap, linalg.affine_map(6, (_N, _C, _OH, _OW)), linalg.affine_map(6, (_KH, _KW))


def _kernel(w: PoolWindow, element_type: ir.Type) -> ir.Value:
    # linalg takes the kh/kw loop bounds from an operand indexed by exactly
    # them; as in upstream's pooling ops, an empty tensor of the kernel's shape.
    return linalg.empty(ir.RankedTensorType.get(list(w.kernel), element_type))


def _padded_type(x_type: ir.RankedTensorType, low: Sequence[int],
                 high: Sequence[int]) -> ir.RankedTensorType:
    n, c, h, wd = x_type.shape
    return ir.RankedTensorType.get([n, c, low[0] + h + high[0], low[1] + wd + high[1]],
                                   x_type.element_type)


def _block(x: ir.Value, offsets: Sequence[int], t: ir.RankedTensorType) -> ir.Value:
    """The block of ``x`` of type ``t`` at ``offsets`` (x itself when that is all of it)."""
    if x.type == t:
        return x
    return tensor.ExtractSliceOp(t, x, **linalg.static_slice_args(offsets, t.shape, (1, 1, 1, 1))).result


def _put_block(block: ir.Value, into: ir.Value, offsets: Sequence[int]) -> ir.Value:
    """``into`` with ``block`` written at ``offsets``."""
    if block.type == into.type:
        return block
    return tensor.InsertSliceOp(block, into, **linalg.static_slice_args(
        offsets, block.type.shape, (1, 1, 1, 1))).result


def _padded(x: ir.Value, low: Sequence[int], high: Sequence[int], fill: ir.Attribute) -> ir.Value:
    """``x`` with ``low``/``high`` rows and columns of ``fill`` around its spatial dims."""
    if not any(low) and not any(high):
        return x
    # x is copied by linalg.copy into the slice that insert_slice then writes
    # back, so bufferization writes it straight into the padded buffer with a
    # vectorized loop. (A plain insert_slice of x becomes a slow strided
    # memref.copy; so does a copying generic, whose unread init elementwise
    # fusion replaces by an empty tensor.)
    filled = linalg.splat(fill, _padded_type(x.type, low, high))
    offsets = (0, 0) + tuple(low)
    copied = linalg.copy(x, outs=[_block(filled, offsets, x.type)])
    return _put_block(copied, filled, offsets)


class _Run(NamedTuple):
    """Consecutive output positions along one axis, and the data rows their windows read."""

    out_start: int
    out_size: int
    data_start: int
    data_size: int
    pad_low: int  # rows of padding the first window reads before the data
    pad_high: int  # and the last window after it


def _runs(n: int, o: int, k: int, s: int, d: int, low: int) -> list:
    """The ``o`` output positions of an axis of ``n`` data rows, split where windows leave the data.

    The windows of the middle run lie inside the data and read it in place;
    only the thin outer runs need a padded copy of the few rows they read.

    Examples
    --------
    >>> first, inner = _runs(8, 4, 3, 2, 1, 1)  # ResNet's stem pooling, on 8 rows
    >>> first.out_size, first.pad_low, inner.out_size, inner.data_start, inner.data_size
    (1, 1, 3, 1, 7)
    """
    inside_from = min(-(-low // s), o)
    inside_to = max(min((n - 1 + low - (k - 1) * d) // s + 1, o), inside_from)
    cuts = sorted({0, inside_from, inside_to, o})
    runs = []
    for a, b in zip(cuts, cuts[1:]):
        first, end = a * s - low, (b - 1) * s + (k - 1) * d - low + 1
        start = min(max(first, 0), n)
        stop = max(min(end, n), start)
        runs.append(_Run(a, b - a, start, stop - start, start - first, end - stop))
    return runs


def _window_reduce(x: ir.Value, w: PoolWindow, fill: ir.Attribute, inits: Sequence[ir.Value],
                   body) -> list:
    """Reduce each window of ``x`` (padded with ``fill``) into ``inits`` of the output shape.

    One generic per block of output positions (see :func:`_runs`), each
    reading its block of data (padded where it leaves the data) and
    accumulating into its block of the inits in place.
    """
    tap, out, kernel_map = _window_maps(w)
    kernel = _kernel(w, x.type.element_type)
    (n, c, h, wd), out_hw = x.type.shape, inits[0].type.shape[2:]
    per_axis = [_runs(*sizes, k, s, d, lo) for sizes, k, s, d, lo in zip(
        zip((h, wd), out_hw), w.kernel, w.strides, w.dilation, w.low)]
    for rh, rw in product(*per_axis):
        data = _block(x, (0, 0, rh.data_start, rw.data_start), ir.RankedTensorType.get(
            [n, c, rh.data_size, rw.data_size], x.type.element_type))
        data = _padded(data, (rh.pad_low, rw.pad_low), (rh.pad_high, rw.pad_high), fill)
        where = (0, 0, rh.out_start, rw.out_start)
        blocks = [_block(i, where, ir.RankedTensorType.get(
            [n, c, rh.out_size, rw.out_size], i.type.element_type)) for i in inits]
        results = linalg.generic([data, kernel], blocks, [tap, kernel_map] + [out] * len(inits),
                                 _WINDOW_ITERATORS, body)
        inits = [_put_block(r, i, where) for r, i in zip(results, inits)]
    return inits


def _window_counts(attrs: dict, w: PoolWindow, in_hw, out_hw) -> np.ndarray:
    """How many elements each window averages over, as PyTorch counts them (output's H x W).

    With ``count_include_pad`` the declared padding counts, but not the part of
    a ceil_mode window that runs past it; without, only the data counts.
    """
    include_pad = bool(attrs["count_include_pad"].value)
    per_axis = []
    for n, o, k, s, d, lo, hi in zip(in_hw, out_hw, w.kernel, w.strides, w.dilation,
                                     attrs["padding"][:2], attrs["padding"][2:]):
        first, end = (-lo, n + hi) if include_pad else (0, n)
        taps = (np.arange(o) * s - lo)[:, None] + np.arange(k) * d
        per_axis.append(((taps >= first) & (taps < end)).sum(axis=1))
    return np.outer(*per_axis)


def _counts_constant(op: ir.Operation, w: PoolWindow, data: ir.Value, out: ir.Value) -> ir.Value:
    element = data.type.element_type
    counts = _window_counts(python_attrs(op), w, data.type.shape[2:], out.type.shape[2:])
    t = ir.RankedTensorType.get(list(counts.shape), element)
    # Parsed, not built from a numpy buffer: numpy has no bfloat16 (the counts
    # are small whole numbers, exact in every float type).
    return arith.constant(t, ir.Attribute.parse(f"dense<{counts.astype(float).tolist()}> : {t}"))


@family.lowering("tad.max_pool2d")
def _lower_max_pool2d(op):
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    x, t = op.operands[0], op.results[0].type
    w = _window_of(op)
    lowest = linalg.lowest_attr(t.element_type)
    taps = _tap_slices(x, w, t.shape[2:], lowest)
    return [linalg.parallel(taps, [range(4)] * len(taps), t, _running_max)]


def _running_max(*args) -> ir.Value:
    """The maximum of a window's taps (all but the last argument, the output's element), in row-major order.

    As in PyTorch, only a greater value or a NaN replaces the running maximum.
    """
    best = args[0]
    for a in args[1:-1]:
        best = arith.select(linalg.greater(a, best), a, best)
    return best


def _tap_extent(x_type: ir.RankedTensorType, w: PoolWindow, out_hw: Sequence[int]) -> tuple:
    """Rows and columns of the padded data of :func:`_tap_slices`: every window's, columns a multiple of the stride."""
    (h, wd), (oh, ow), (top, left) = x_type.shape[2:], out_hw, w.low
    rows = max(top + h, (oh - 1) * w.strides[0] + (w.kernel[0] - 1) * w.dilation[0] + 1)
    cols = max(left + wd, (ow - 1) * w.strides[1] + (w.kernel[1] - 1) * w.dilation[1] + 1)
    return rows, -(-cols // w.strides[1]) * w.strides[1]


def _tap_slices(x: ir.Value, w: PoolWindow, out_hw: Sequence[int], fill: ir.Attribute) -> list:
    """Per tap of the kernel (row-major), the ``(N, C, OH, OW)`` data that the tap reads in every window.

    The data is padded with ``fill`` around every window (the declared
    padding, and ceil_mode windows that run past it). With a column stride
    ``s`` > 1, its columns are then dealt into ``s`` phases (column ``q * s
    + r`` to position ``q`` of phase ``r``): a tap's columns, ``s`` apart in
    the data, are a contiguous run of one phase, so an elementwise op over
    the taps vectorizes along the output's columns (a generic over the
    windows reads columns ``s`` apart, which keeps it scalar).
    """
    (n, c, h, wd), (oh, ow) = x.type.shape, out_hw
    (kh, kw), (sh, sw), (dh, dw), (top, left) = w.kernel, w.strides, w.dilation, w.low
    rows, cols = _tap_extent(x.type, w, out_hw)
    padded = _padded(x, (top, left), (rows - top - h, cols - left - wd), fill)
    element = x.type.element_type
    tap_type = ir.RankedTensorType.get([n, c, oh, ow], element)
    if sw == 1:
        # A tap that reads exactly the data (the centre of a stride-1 "same" pooling) reads x itself:
        # sliced from the padded copy, canonicalization would fold it into the copy that
        # bufferization must then keep apart.
        return [x if (i * dh, j * dw, sh, oh, ow) == (top, left, 1, h, wd) else
                tensor.ExtractSliceOp(tap_type, padded, **linalg.static_slice_args(
                    (0, 0, i * dh, j * dw), (n, c, oh, ow), (1, 1, sh, 1))).result
                for i, j in product(range(kh), range(kw))]
    # (N, C, rows, cols / s, s) -> (s, N, C, rows, cols / s): a tap's slice drops the leading phase dim.
    split = tensor.ExpandShapeOp(ir.RankedTensorType.get([n, c, rows, cols // sw, sw], element), padded,
                                 [[0], [1], [2], [3, 4]], [], [n, c, rows, cols // sw, sw]).result
    phases = linalg.permuted(split, (4, 0, 1, 2, 3))
    return [tensor.ExtractSliceOp(tap_type, phases, **linalg.static_slice_args(
        ((j * dw) % sw, 0, 0, i * dh, (j * dw) // sw), (1, n, c, oh, ow), (1, 1, 1, sh, 1))).result
        for i, j in product(range(kh), range(kw))]


@family.lowering("tad.avg_pool2d")
def _lower_avg_pool2d(op):
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    x, t = op.operands[0], op.results[0].type
    w, zero = _window_of(op), linalg.zero_attr(t.element_type)
    [sums] = _window_reduce(x, w, zero, [linalg.splat(zero, t)],
                            lambda a, _k, acc: [arith.addf(acc, a)])
    counts = _counts_constant(op, w, x, op.results[0])
    return [linalg.parallel([sums, counts], [range(4), (2, 3)], t, lambda s, n, _o: arith.divf(s, n))]


@family.lowering("tad.avg_pool2d_backward")
def _lower_avg_pool2d_backward(op):
    # Each tap receives output_grad / count, divided per tap as PyTorch does.
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    g, x = op.operands
    w = _window_of(op)
    counts = _counts_constant(op, w, x, g)
    one = ir.FloatAttr.get(x.type.element_type, 1.0)
    return [_spread(x.type, w, [g, counts], [(_N, _C, _OH, _OW), (_OH, _OW)],
                    [linalg.zero_attr(g.type.element_type), one], lambda _tap, a, n: arith.divf(a, n))]


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _first_max_taps(x: ir.Value, w: PoolWindow, out_shape) -> ir.Value:
    """Per output element, the row-major tap number ``kh * KW + kw`` of its window's first maximum.

    Only a strictly greater value (or the first NaN) replaces the running
    maximum, and the taps run in row-major order, so ties go to the first.
    One elementwise op over the taps (:func:`_tap_slices`).
    """
    i32 = ir.IntegerType.get_signless(32)
    taps = _tap_slices(x, w, out_shape[2:], linalg.lowest_attr(x.type.element_type))

    def first_of(*args):
        best, first = args[0], arith.constant(i32, 0)
        for k, a in enumerate(args[1:-1], 1):
            take = linalg.greater(a, best)
            best, first = arith.select(take, a, best), arith.select(take, arith.constant(i32, k), first)
        return first

    return linalg.parallel(taps, [range(4)] * len(taps), ir.RankedTensorType.get(out_shape, i32), first_of)


def _tiled_view(x: ir.Value, w: PoolWindow, out_hw: Sequence[int]) -> Optional[ir.Value]:
    """``x`` as ``(N, C, OH, KH, OW, KW)`` when the windows tile it (stride = kernel, no padding or dilation).

    Rows and columns past the last window are left out. None for other windows.
    """
    if w.strides != w.kernel or w.dilation != (1, 1) or any(w.low) or any(w.high):
        return None
    n, c = x.type.shape[:2]
    covered = ir.RankedTensorType.get([n, c, *(o * k for o, k in zip(out_hw, w.kernel))], x.type.element_type)
    tiles = [n, c, out_hw[0], w.kernel[0], out_hw[1], w.kernel[1]]
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(tiles, x.type.element_type), _block(x, (0, 0, 0, 0), covered),
                                [[0], [1], [2, 3], [4, 5]], [], tiles).result


def _first_max_taps_tiled(tiles: ir.Value, w: PoolWindow) -> ir.Value:
    """:func:`_first_max_taps` of windows that tile the data (``tiles`` from :func:`_tiled_view`).

    Two reductions the vectorizer takes (loops ``n, c, oh, kh, kw, ow``,
    output columns innermost): each window's maximum (``maximumf``, which
    keeps a NaN as the forward does), then the least tap holding it (or a NaN
    where the maximum is one) by ``minsi``.
    """
    n, c, oh, kh, ow, kw = tiles.type.shape
    element = tiles.type.element_type
    i32 = ir.IntegerType.get_signless(32)
    read = linalg.affine_map(6, (0, 1, 2, 3, 5, 4))
    out = linalg.affine_map(6, (0, 1, 2, 5))
    iterators = ["parallel"] * 3 + ["reduction"] * 2 + ["parallel"]
    maxima = linalg.splat(linalg.lowest_attr(element), ir.RankedTensorType.get([n, c, oh, ow], element))
    [maxima] = linalg.generic([tiles], [maxima], [read, out], iterators, lambda a, m: [arith.maximumf(a, m)])
    none = linalg.splat(ir.IntegerAttr.get(i32, kh * kw), ir.RankedTensorType.get([n, c, oh, ow], i32))

    def first(a, m, best):
        is_nan = [arith.cmpf(arith.CmpFPredicate.UNO, v, v) for v in (a, m)]
        hit = arith.ori(arith.cmpf(arith.CmpFPredicate.OEQ, a, m), arith.andi(*is_nan))
        tap = arith.addi(arith.muli(linalg.IndexOp(3).result, _index(kw)), linalg.IndexOp(4).result)
        return [arith.minsi(best, arith.select(hit, arith.index_cast(i32, tap), arith.constant(i32, kh * kw)))]

    return linalg.generic([tiles, maxima], [none], [read, out, out], iterators, first)[0]


@family.lowering("tad.max_pool2d_backward")
def _lower_max_pool2d_backward(op):
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    g, x = op.operands
    w = _window_of(op)
    tiled = _tiled_view(x, w, g.type.shape[2:])
    taps = _first_max_taps(x, w, g.type.shape) if tiled is None else _first_max_taps_tiled(tiled, w)
    zero = arith.constant(x.type.element_type, linalg.zero_attr(x.type.element_type))
    i32 = ir.IntegerType.get_signless(32)

    def routed(tap, first, a):
        return arith.select(arith.cmpi(arith.CmpIPredicate.eq, first, arith.index_cast(i32, tap)), a, zero)

    no_tap = ir.IntegerAttr.get(i32, -1)
    return [_spread(x.type, w, [taps, g], [(_N, _C, _OH, _OW)] * 2, [no_tap, linalg.zero_attr(g.type.element_type)],
                    routed)]


def _spread(x_type: ir.RankedTensorType, w: PoolWindow, inputs: Sequence[ir.Value], dims: Sequence[tuple],
            fills: Sequence[ir.Attribute], value) -> ir.Value:
    """The data gradient that gives each tap of each window ``value(tap, *inputs at the window)``.

    ``dims[k]`` lists the loops (``_N, _C, _OH, _OW``) that ``inputs[k]``
    is read at; ``tap`` is the ``index`` number ``kh * KW + kw``; ``fills``
    hold, per input, a value for which ``value`` gives 0 (no window). Every
    data element gathers from the windows that hold it: no scatter, no
    read-modify-write at computed addresses. Disjoint windows (stride =
    kernel, no dilation, the usual 2x2 pooling) are one generic writing the
    data gradient viewed as ``(N, C, OH, KH, OW, KW)``; overlapping ones one
    generic per phase of the stride (:func:`_spread_by_phases`).
    """
    element = x_type.element_type
    n, c = x_type.shape[:2]
    out_hw = inputs[0].type.shape[2:]
    kernel_w = _index(w.kernel[1])
    if w.strides == w.kernel and w.dilation == (1, 1):
        # Loops (n, c, oh, kh, ow, kw): the gradient's rows in order.
        order = (_N, _C, _OH, _KH, _OW, _KW)
        shape = [n, c, out_hw[0], w.kernel[0], out_hw[1], w.kernel[1]]
        maps = [linalg.affine_map(6, [order.index(d) for d in ds]) for ds in dims]
        position = {_KH: order.index(_KH), _KW: order.index(_KW)}

        def disjoint_body(*args):
            kh, kw = (linalg.IndexOp(position[d]).result for d in (_KH, _KW))
            return [value(arith.addi(arith.muli(kh, kernel_w), kw), *args[:len(inputs)])]

        [spread] = linalg.generic(list(inputs), [linalg.empty(ir.RankedTensorType.get(shape, element))],
                                  maps + [linalg.affine_map(6, range(6))], ["parallel"] * 6, disjoint_body)
        covered = [o * k for o, k in zip(out_hw, w.kernel)]
        spread = tensor.CollapseShapeOp(ir.RankedTensorType.get([n, c, *covered], element), spread,
                                        [[0], [1], [2, 3], [4, 5]]).result
        return _data_part(spread, w.low, x_type)
    if w.dilation != (1, 1):
        return _spread_by_taps(x_type, w, inputs, dims, value)
    return _spread_by_phases(x_type, w, inputs, dims, fills, value)


def _spread_by_phases(x_type, w: PoolWindow, inputs, dims, fills, value) -> ir.Value:
    """:func:`_spread` of undilated windows: a gather per phase of the stride.

    The padded rows ``q * s + r`` of one phase ``r`` lie in the windows
    ``q - j`` at taps ``r + j * s`` (``j = 0, 1, ...`` while the tap is in
    the kernel): each phase ``(ry, rx)`` is one generic summing
    ``value(tap, *inputs at window (qy - jy, qx - jx))`` over those few
    ``(jy, jx)``, reading the inputs shifted (padded in front with
    ``fills``, which give 0), and writes its strided rows and columns once.
    """
    element = x_type.element_type
    n, c = x_type.shape[:2]
    extent = [lo + size + hi for lo, size, hi in zip(w.low, x_type.shape[2:], w.high)]
    phases = [-(-e // s) for e, s in zip(extent, w.strides)]  # q of every padded row
    reach = [-(-k // s) for k, s in zip(w.kernel, w.strides)]  # windows a row lies in, at most
    padded = []
    for x, ds, fill in zip(inputs, dims, fills):
        shape = list(x.type.shape)
        front = [0] * len(shape)
        for d, axis in ((_OH, 0), (_OW, 1)):
            at = ds.index(d)
            front[at] = reach[axis] - 1
            shape[at] = phases[axis] + reach[axis] - 1
        into = linalg.splat(fill, ir.RankedTensorType.get(shape, x.type.element_type))
        at = linalg.static_slice_args(front, x.type.shape, [1] * len(shape))
        slot = tensor.ExtractSliceOp(x.type, into, **at).result
        padded.append(tensor.InsertSliceOp(linalg.copy(x, outs=[slot]), into, **at).result)
    grad = linalg.splat(linalg.zero_attr(element), ir.RankedTensorType.get(
        [n, c, *(q * s for q, s in zip(phases, w.strides))], element))
    phase_type = ir.RankedTensorType.get([n, c, *phases], element)
    plane = {_N: 0, _C: 1, _OH: 2, _OW: 3}  # loops of a phase's generic
    for ry, rx in product(range(w.strides[0]), range(w.strides[1])):
        terms = [(jy, jx) for jy in range(reach[0]) if ry + jy * w.strides[0] < w.kernel[0]
                 for jx in range(reach[1]) if rx + jx * w.strides[1] < w.kernel[1]]
        if not terms:
            continue  # rows or columns between windows: no gradient
        reads, maps = [], []
        for jy, jx in terms:
            for x, ds in zip(padded, dims):
                start = [0] * x.type.rank
                size = list(x.type.shape)
                for d, j, axis in ((_OH, jy, 0), (_OW, jx, 1)):
                    start[ds.index(d)], size[ds.index(d)] = reach[axis] - 1 - j, phases[axis]
                reads.append(tensor.ExtractSliceOp(ir.RankedTensorType.get(size, x.type.element_type), x,
                                                   **linalg.static_slice_args(start, size, [1] * len(size))).result)
                maps.append(linalg.affine_map(4, [plane[d] for d in ds]))
        taps = [_index((ry + jy * w.strides[0]) * w.kernel[1] + rx + jx * w.strides[1]) for jy, jx in terms]

        def body(*args, taps=taps):
            total = None
            for k, tap in enumerate(taps):
                part = value(tap, *args[k * len(inputs):(k + 1) * len(inputs)])
                total = part if total is None else arith.addf(total, part)
            return [total]

        at = linalg.static_slice_args((0, 0, ry, rx), phase_type.shape, (1, 1, *w.strides))
        window = tensor.ExtractSliceOp(phase_type, grad, **at).result
        [part] = linalg.generic(reads, [window], maps + [linalg.affine_map(4, range(4))], ["parallel"] * 4, body)
        grad = tensor.InsertSliceOp(part, grad, **at).result
    return _data_part(grad, w.low, x_type)


def _spread_by_taps(x_type, w: PoolWindow, inputs, dims, value) -> ir.Value:
    """:func:`_spread` of dilated windows: one strided window of the padded gradient per tap, added to."""
    element = x_type.element_type
    n, c = x_type.shape[:2]
    out_hw = inputs[0].type.shape[2:]
    padded = linalg.splat(linalg.zero_attr(element), _padded_type(x_type, w.low, w.high))
    plane = {_N: 0, _C: 1, _OH: 2, _OW: 3}  # loops of a tap's generic
    for kh, kw in product(range(w.kernel[0]), range(w.kernel[1])):
        start = (0, 0, kh * w.dilation[0], kw * w.dilation[1])
        window_type = ir.RankedTensorType.get([n, c, *out_hw], element)
        args = linalg.static_slice_args(start, window_type.shape, (1, 1, *w.strides))
        window = tensor.ExtractSliceOp(window_type, padded, **args).result
        tap = _index(kh * w.kernel[1] + kw)
        # The generic reads the window it adds to: bufferization keeps it in place.
        [added] = linalg.generic(list(inputs), [window], [linalg.affine_map(4, [plane[d] for d in ds]) for ds in dims]
                                 + [linalg.affine_map(4, range(4))], ["parallel"] * 4,
                                 lambda *a: [arith.addf(a[len(inputs)], value(tap, *a[:len(inputs)]))])
        padded = tensor.InsertSliceOp(added, padded, **args).result
    return _data_part(padded, w.low, x_type)


def _data_part(spread: ir.Value, low: Sequence[int], x_type: ir.RankedTensorType) -> ir.Value:
    """The data's part ``x_type`` of a gradient over padded rows and columns starting ``low`` before it.

    Rows and columns of the data that no window reads are zero.
    """
    have = [min(size - lo, n) for size, lo, n in zip(spread.type.shape[2:], low, x_type.shape[2:])]
    part_type = ir.RankedTensorType.get([*x_type.shape[:2], *have], x_type.element_type)
    part = _block(spread, (0, 0, *low), part_type)
    if part_type == x_type:
        return part
    zeros = linalg.splat(linalg.zero_attr(x_type.element_type), x_type)
    return _put_block(part, zeros, (0, 0, 0, 0))


def _allocation(shape: Sequence[int], like: ir.RankedTensorType) -> int:
    """Bytes allocated for a buffer of ``shape`` holding ``like``'s elements (no type is built: no location needed)."""
    element = tensor_bytes(like) // max(1, prod(like.shape))
    return prod(shape) * element + ALLOCATION_PADDING if prod(shape) else 0


def _padded_blocks_bytes(x_type: ir.RankedTensorType, w: PoolWindow, out_hw: Sequence[int]) -> int:
    """Bytes of the padded copies of data blocks that :func:`_window_reduce` makes (the outer runs)."""
    (n, c, h, wd) = x_type.shape
    per_axis = [_runs(*sizes, k, s, d, lo) for sizes, k, s, d, lo in zip(
        zip((h, wd), out_hw), w.kernel, w.strides, w.dilation, w.low)]
    total = 0
    for rh, rw in product(*per_axis):
        if rh.pad_low or rh.pad_high or rw.pad_low or rw.pad_high:
            total += _allocation([n, c, rh.pad_low + rh.data_size + rh.pad_high,
                                  rw.pad_low + rw.data_size + rw.pad_high], x_type)
    return total


def _tap_slices_bytes(x_type: ir.RankedTensorType, w: PoolWindow, out_hw: Sequence[int]) -> int:
    """Bytes of the padded data and its column phases that :func:`_tap_slices` makes (both live at once)."""
    n, c, h, wd = x_type.shape
    extent = _tap_extent(x_type, w, out_hw)
    padded = _allocation([n, c, *extent], x_type) if any(w.low) or extent != (h, wd) else 0
    return padded + (_allocation([n, c, *extent], x_type) if w.strides[1] > 1 else 0)


def _spread_bytes(x_type: ir.RankedTensorType, w: PoolWindow, out_hw: Sequence[int]) -> int:
    """Bytes of the gradient over the windows that :func:`_spread` fills before it takes the data's part."""
    if w.strides == w.kernel and w.dilation == (1, 1):
        covered = [o * k for o, k in zip(out_hw, w.kernel)]
        if list(covered) == list(x_type.shape[2:]) and not any(w.low):
            return 0  # the spread gradient is the result
        return _allocation([*x_type.shape[:2], *covered], x_type)
    (n, c, h, wd) = x_type.shape
    if w.dilation != (1, 1):
        return _allocation([n, c, w.low[0] + h + w.high[0], w.low[1] + wd + w.high[1]], x_type)
    # _spread_by_phases: the gradient over whole phases, and both inputs padded in front.
    extent = [lo + size + hi for lo, size, hi in zip(w.low, (h, wd), w.high)]
    phases = [-(-e // s) for e, s in zip(extent, w.strides)]
    reach = [-(-k // s) for k, s in zip(w.kernel, w.strides)]
    shifted = [n, c, *(q + r - 1 for q, r in zip(phases, reach))]
    return (_allocation([n, c, *(q * s for q, s in zip(phases, w.strides))], x_type)
            + 2 * _allocation(shifted, x_type))


@family.scratch("tad.max_pool2d", "tad.avg_pool2d", "tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_scratch(op) -> int:
    # What the lowerings above allocate besides the result: the padded data and its phases
    # (max_pool2d), padded blocks of the data, avg_pool2d's sums, max_pool2d_backward's
    # maxima and first taps, the spread gradient.
    w = _window_of(op)
    data = op.operands[0] if len(op.operands) == 1 else op.operands[1]
    out_shape = op.results[0].type.shape if len(op.operands) == 1 else op.operands[0].type.shape
    if op.name == "tad.max_pool2d":
        return _tap_slices_bytes(data.type, w, out_shape[2:])
    if op.name == "tad.avg_pool2d":
        return _padded_blocks_bytes(data.type, w, out_shape[2:]) + allocation_bytes(op.results[0].type)
    spread = _spread_bytes(data.type, w, out_shape[2:])
    if op.name == "tad.avg_pool2d_backward":
        return spread
    if w.strides == w.kernel and w.dilation == (1, 1) and not any(w.low) and not any(w.high):
        return spread + 2 * _allocation(out_shape, data.type)  # _first_max_taps_tiled: the maxima, the first taps
    return spread + _allocation(out_shape, data.type) + _tap_slices_bytes(data.type, w, out_shape[2:])


# --- derivative rules ------------------------------------------------------------

def _geometry(c: RuleContext) -> dict:
    """The pooling attributes of ``c``'s op, as keyword arguments of the pooling builders."""
    a = c.attrs
    geometry = {k: a[k] for k in ("strides", "padding", "dilation")}
    geometry.update(pool_size=a["pool_size"], ceil_mode=a["ceil_mode"].value)
    if "count_include_pad" in a:
        geometry["count_include_pad"] = a["count_include_pad"].value
    return geometry


def _reshaped(value: Val, shape: Sequence[int]) -> Val:
    """``value`` reshaped to ``shape``, where one entry may be -1 (numpy's rule)."""
    shape = list(shape)
    if -1 in shape:
        known = prod(n for n in shape if n != -1)
        shape[shape.index(-1)] = prod(value.shape) // known if known else 0
    return value if tuple(shape) == value.shape else builder.reshape(value, shape)


def _fold(value: Val, prefix: tuple) -> Val:
    """``P + (N, C, H, W)`` to ``(prod(P) * N, C, H, W)``."""
    return _reshaped(value, (-1,) + value.shape[len(prefix) + 1:]) if prefix else value


def _unfold(value: Val, prefix: tuple) -> Val:
    return _reshaped(value, prefix + (-1,) + value.shape[1:]) if prefix else value


def _avg_pool_batched(c: RuleContext, x: Val) -> Val:
    """Average-pool ``x`` (with a batch prefix) with the window of ``c``'s op."""
    prefix = x.shape[:c.nb]
    return _unfold(builder.pool2d("avg", _fold(x, prefix), **_geometry(c)), prefix)


def _avg_pool_backward_batched(c: RuleContext, g: Val, data: Val) -> Val:
    prefix = g.shape[:c.nb]
    folded = _fold(g, prefix)
    # avg_pool2d_backward reads only the shape of its data operand: zeros
    # keep the primal input from being stored for the backward pass.
    shape_only = builder.zeros(folded.shape[:1] + data.shape[1:], data.element_type)
    return _unfold(builder.pool2d_backward("avg", folded, shape_only, **_geometry(c)), prefix)


def _max_pool_backward_batched(c: RuleContext, g: Val, data: Val) -> Val:
    """Route ``g`` (with a batch prefix) to the first maximum of each window of ``data``."""
    prefix = g.shape[:c.nb]
    # Every folded batch entry needs its own copy of data to route against.
    tiled = _fold(builder.broadcast_to(data, prefix + data.shape), prefix)
    return _unfold(builder.pool2d_backward("max", _fold(g, prefix), tiled, **_geometry(c)), prefix)


def _taps(x: Val, c: RuleContext, out_hw: tuple, fill: float) -> list:
    """One strided slice of ``x`` (padded with ``fill``) per window tap, in row-major order.

    Slice k holds, at each output position, tap k of that position's window.
    """
    w = pool_window(c.attrs, x.shape[-2:], out_hw)
    lead = x.ndim - 2
    value = builder.constant(fill, (), x.element_type)
    padded = builder.pad(x, value, (0,) * lead + w.low, (0,) * lead + w.high, (0,) * x.ndim)
    taps = []
    for kh, kw in product(range(w.kernel[0]), range(w.kernel[1])):
        start = (kh * w.dilation[0], kw * w.dilation[1])
        limit = tuple(s + (o - 1) * step + 1 for s, o, step in zip(start, out_hw, w.strides))
        taps.append(builder.slice_(padded, (0,) * lead + start, x.shape[:lead] + limit,
                                   (1,) * lead + w.strides))
    return taps


def _gather_at_first_max(c: RuleContext, t: Val, data: Val, maxima: Val) -> Val:
    """``t`` (data's shape, with a batch prefix) read at the first maximum of each window."""
    out_hw = maxima.shape[2:]
    gathered = builder.zeros(t.shape[:c.nb] + maxima.shape, t.element_type)
    # Walking the taps backwards, the last write to an element is by the first maximum.
    for x_k, t_k in reversed(list(zip(_taps(data, c, out_hw, -np.inf), _taps(t, c, out_hw, 0.0)))):
        gathered = builder.select(builder.equal(x_k, maxima), t_k, gathered)
    return gathered


@family.jvp("tad.max_pool2d")
def _max_pool_jvp(c, tangents):
    return [_gather_at_first_max(c, tangents[0], c.inputs[0], c.outputs[0])]


@family.vjp("tad.max_pool2d")
def _max_pool_vjp(c, cotangents):
    return [_max_pool_backward_batched(c, cotangents[0], c.inputs[0])]


def _max_pool_backward_apply(c, tangents):
    t_g = tangents[0]
    return None if t_g is None else _max_pool_backward_batched(c, t_g, c.inputs[1])


def _max_pool_backward_transpose(c, ct):
    data = c.inputs[1]
    maxima = builder.pool2d("max", data, **_geometry(c))
    return [_gather_at_first_max(c, ct, data, maxima), None]


deflinear(family, "tad.max_pool2d_backward", _max_pool_backward_apply, _max_pool_backward_transpose)
deflinear(family, "tad.avg_pool2d",
          lambda c, ts: _avg_pool_batched(c, ts[0]),
          lambda c, ct: [_avg_pool_backward_batched(c, ct, c.inputs[0])])
deflinear(family, "tad.avg_pool2d_backward",
          lambda c, ts: None if ts[0] is None else _avg_pool_backward_batched(c, ts[0], c.inputs[1]),
          lambda c, ct: [_avg_pool_batched(c, ct), None])


# Batching (tad-batch): rows of the data are more images of the batch ``N``.
@family.batching("tad.max_pool2d", "tad.avg_pool2d", "tad.max_pool2d_backward", "tad.avg_pool2d_backward")
def _pool_batch(ctx, op, operands, batched):
    return fold_into_leading(ctx, op, operands, batched, range(len(operands)))
