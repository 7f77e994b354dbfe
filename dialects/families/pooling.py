"""2-D max and average pooling and their backward ops.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.

Lowering
--------

Every window loop nest runs over ``(n, c, kh, kw, oh, ow)``: while the taps of
one (n, c) plane sweep it, that plane's output stays in cache, and the
innermost loop walks an output row contiguously, so LLVM vectorizes it. The
output positions are split into blocks by whether their windows leave the
data (padding, or ceil_mode windows running past it): the inner block reads
the data in place, and only the thin border blocks read a copy of their few
rows padded with -inf (max) or 0 (average), so every tap is in bounds.

* ``max_pool2d``: generics keeping the running maximum of each window; as in
  PyTorch, only a greater value or a NaN replaces it.
* ``avg_pool2d``: window sums, then a division by the number of elements
  each window counts (a constant of the output's spatial shape).
* ``avg_pool2d_backward``: a generic whose *output* is indexed by the window
  map scatters ``output_grad / count`` into zeros of the padded shape;
  overlapping windows add up. The result is the unpadded interior.
* ``max_pool2d_backward``: a generic finds the first maximum of each window
  (its tap number, row-major), then a loop nest over the output adds each
  output gradient at that one position: one read-modify-write per output
  element rather than a mask over every tap.

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
from typing import NamedTuple, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import affine, arith, scf, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..batching import fold_into_leading
from ..builder import Val
from ..derivatives import RuleContext, deflinear
from ..record import Family, Trait
from ..shapes import TensorSpec, int_attr, window_attrs, window_output_size, rank4, gradient_of, floats, python_attrs

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
# Scattering into the input: different (kh, kw, oh, ow) reach the same element.
_SCATTER_ITERATORS = ["parallel", "parallel"] + ["reduction"] * 4


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
    x, t = op.operands[0], op.results[0].type
    lowest = linalg.lowest_attr(t.element_type)
    return _window_reduce(x, _window_of(op), lowest, [linalg.splat(lowest, t)],
                          lambda a, _k, acc: [arith.select(linalg.greater(a, acc), a, acc)])


@family.lowering("tad.avg_pool2d")
def _lower_avg_pool2d(op):
    x, t = op.operands[0], op.results[0].type
    w, zero = _window_of(op), linalg.zero_attr(t.element_type)
    [sums] = _window_reduce(x, w, zero, [linalg.splat(zero, t)],
                            lambda a, _k, acc: [arith.addf(acc, a)])
    counts = _counts_constant(op, w, x, op.results[0])
    return [linalg.parallel([sums, counts], [range(4), (2, 3)], t, lambda s, n, _o: arith.divf(s, n))]


@family.lowering("tad.avg_pool2d_backward")
def _lower_avg_pool2d_backward(op):
    # Each tap receives output_grad / count, divided per tap as PyTorch does.
    g, x = op.operands
    w = _window_of(op)
    tap, out, kernel = _window_maps(w)
    element = x.type.element_type
    zeros = linalg.splat(linalg.zero_attr(element), _padded_type(x.type, w.low, w.high))
    counts = _counts_constant(op, w, x, g)
    [scattered] = linalg.generic([g, counts, _kernel(w, element)], [zeros],
                                 [out, linalg.affine_map(6, (_OH, _OW)), kernel, tap], _SCATTER_ITERATORS,
                                 lambda a, n, _k, acc: [arith.addf(acc, arith.divf(a, n))])
    return [_block(scattered, (0, 0) + w.low, x.type)]


def _index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def _first_max_taps(x: ir.Value, w: PoolWindow, out_shape) -> ir.Value:
    """Per output element, the row-major tap number ``kh * KW + kw`` of its window's first maximum.

    Only a strictly greater value (or the first NaN) replaces the running
    maximum, and the taps run in row-major order, so ties go to the first.
    """
    element = x.type.element_type
    i32 = ir.IntegerType.get_signless(32)
    lowest = linalg.lowest_attr(element)
    best = linalg.splat(lowest, ir.RankedTensorType.get(out_shape, element))
    first = linalg.splat(linalg.zero_attr(i32), ir.RankedTensorType.get(out_shape, i32))

    def body(a, _k, best_value, best_tap):
        take = linalg.greater(a, best_value)
        kh, kw = linalg.IndexOp(_KH).result, linalg.IndexOp(_KW).result
        tap = arith.addi(arith.muli(kh, _index(w.kernel[1])), kw)
        return [arith.select(take, a, best_value),
                arith.select(take, arith.index_cast(i32, tap), best_tap)]

    return _window_reduce(x, w, lowest, [best, first], body)[1]


def _loop_nest(bounds: Sequence[int], init: ir.Value, body, ivs: tuple = ()) -> ir.Value:
    """Nested ``scf.for`` loops over ``bounds`` carrying the tensor ``init``.

    ``body(ivs, acc)`` runs innermost and returns the updated tensor.
    """
    if len(ivs) == len(bounds):
        return body(ivs, init)
    loop = scf.ForOp(_index(0), _index(bounds[len(ivs)]), _index(1), [init])
    with ir.InsertionPoint(loop.body):
        scf.YieldOp([_loop_nest(bounds, loop.inner_iter_args[0], body,
                                ivs + (loop.induction_variable,))])
    return loop.results[0]


def _tap_position(o: ir.Value, k: ir.Value, size: int, stride: int, dilation: int,
                  low: int) -> ir.Value:
    """Data index of tap ``k`` of window ``o`` along one axis.

    Clamped into the data: a window with no real maximum (all padding, or all
    -inf) keeps tap 0, which clamped is (with dilation 1) its first real
    element, where PyTorch routes it too.
    """
    d0, d1 = ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)
    at = affine.apply(ir.AffineMap.get(2, 0, [d0 * stride + d1 * dilation - low]), [o, k])
    return arith.minsi(arith.maxsi(at, _index(0)), _index(size - 1))


@family.lowering("tad.max_pool2d_backward")
def _lower_max_pool2d_backward(op):
    g, x = op.operands
    w = _window_of(op)
    taps = _first_max_taps(x, w, g.type.shape)
    kernel_w = _index(w.kernel[1])

    def add_at_max(ivs, acc):
        n, c, oh, ow = ivs
        tap = arith.index_cast(ir.IndexType.get(), tensor.extract(taps, list(ivs)))
        kh, kw = arith.divui(tap, kernel_w), arith.remui(tap, kernel_w)
        at = [n, c] + [_tap_position(o, k, size, s, d, lo) for o, k, size, s, d, lo in zip(
            (oh, ow), (kh, kw), x.type.shape[2:], w.strides, w.dilation, w.low)]
        total = arith.addf(tensor.extract(acc, at), tensor.extract(g, list(ivs)))
        return tensor.insert(total, acc, at)

    zeros = linalg.splat(linalg.zero_attr(x.type.element_type), x.type)
    return [_loop_nest(g.type.shape, zeros, add_at_max)]


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
