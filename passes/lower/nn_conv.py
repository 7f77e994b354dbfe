"""Lowerings of ``tad.conv2d`` and its backward ops: a ``linalg.contract`` per kernel tap.

A convolution is the sum over its kernel taps ``(ky, kx)`` of 1x1 convolutions:
tap ``(ky, kx)`` meets the input rows and columns of a strided *window* of the
padded input, starting at ``(ky * dilation_h, kx * dilation_w)`` and stepping by
the strides. Each lowering pads once (a zero fill and an ``insert_slice``),
then runs two ``scf.for`` over the taps (so neither the IR nor the compile
time grows with the kernel), adding one ``linalg.contract`` per tap into an
accumulator that the loops carry:

* ``conv2d``: ``out += window(x) . w[:, :, ky, kx]`` (a gather);
* ``conv2d_backward_data``: ``window(dx) += dy . w[:, :, ky, kx]`` (a scatter
  into the padded data gradient, cropped at the end), so a stride costs
  nothing extra: every product is one the forward computes, none is a zero
  from a dilated ``dy``;
* ``conv2d_backward_filter``: ``dw[:, :, ky, kx] = dy . window(x)``, with
  ``dy`` made channels-last first.

Windows and taps are ``tensor.extract_slice`` views (the weight is laid out
taps-first once, a small transpose), so no im2col buffer exists.
Channels are split into ``(groups, channels / groups)`` by ``expand_shape``;
the group is a batch dim of every contraction. A tap's maps are projected
permutations, which the named op needs (a ``linalg.generic`` over all taps
would index ``y * stride + ky * dilation``), and a named op keeps elementwise
fusion from pulling operand producers into its loops (see ``_dot_general``).
The loops put a dim that is contiguous in the accumulator and in the streamed
operand innermost (the output width, or ``dw``'s output channels), so LLVM
vectorizes the inner loop.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x5x5xf32> {
...   %0 = "tad.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>,
...     dilation = array<i64: 1, 1>, groups = 1} : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>)
...     -> tensor<1x3x5x5xf32>
...   return %0 : tensor<1x3x5x5xf32>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> str(module).count("linalg.contract"), str(module).count("scf.for")
(1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence, Union

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ...dialects import linalg_builder as linalg
from ...dialects.shapes import python_attrs
from .to_linalg import _affine_map, _permuted, _splat, _zero, lowering

Offset = Union[int, ir.Value]  # a static offset, or an ``index`` value


def _index(n: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), n)


def _times(i: ir.Value, factor: int) -> ir.Value:
    return i if factor == 1 else arith.muli(i, _index(factor))


def _slice_args(offsets: Sequence[Offset], sizes: Sequence[int], strides: Sequence[int]) -> dict:
    """Arguments of ``extract_slice``/``insert_slice`` with static sizes and strides."""
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return dict(offsets=[o for o in offsets if isinstance(o, ir.Value)], sizes=[], strides=[],
                static_offsets=[dynamic if isinstance(o, ir.Value) else o for o in offsets],
                static_sizes=list(sizes), static_strides=list(strides))


@dataclass(frozen=True)
class _Window:
    """A conv op's attributes as Python ints."""

    strides: tuple
    padding: tuple  # (top, left, bottom, right)
    dilation: tuple
    groups: int

    @classmethod
    def of(cls, op: ir.Operation) -> "_Window":
        a = python_attrs(op)
        return cls(a["strides"], a["padding"], a["dilation"], a["groups"].value)

    def of_tap(self, tap: Sequence[ir.Value], lead: Sequence[int], out_hw: Sequence[int]) -> dict:
        """Slice arguments of tap ``(ky, kx)``'s window in a padded ``lead + (H, W)`` tensor."""
        starts = [_times(k, d) for k, d in zip(tap, self.dilation)]
        return _slice_args([0] * len(lead) + starts, [*lead, *out_hw],
                           [1] * len(lead) + list(self.strides))


def _over_taps(kernel_hw: Sequence[int], init: ir.Value,
               step: Callable[[tuple, ir.Value], ir.Value]) -> ir.Value:
    """Fold ``step((ky, kx), acc) -> acc`` over the kernel taps from ``init`` (two ``scf.for``)."""
    def loop(tap: tuple, acc: ir.Value) -> ir.Value:
        for_op = scf.ForOp(_index(0), _index(kernel_hw[len(tap)]), _index(1), [acc])
        with ir.InsertionPoint(for_op.body):
            tap = (*tap, for_op.induction_variable)
            carried = for_op.inner_iter_args[0]
            scf.YieldOp([step(tap, carried) if len(tap) == 2 else loop(tap, carried)])
        return for_op.results[0]

    return loop((), init)


def _tensor_type(shape: Sequence[int], like: ir.Value) -> ir.RankedTensorType:
    return ir.RankedTensorType.get(list(shape), like.type.element_type)


def _zeros(shape: Sequence[int], like: ir.Value) -> ir.Value:
    t = _tensor_type(shape, like)
    return _splat(_zero(t.element_type), t)


def _reshape(x: ir.Value, shape: Sequence[int], reassociation: list) -> ir.Value:
    """``x`` as ``shape``: ``collapse_shape`` or ``expand_shape`` by groups of adjacent dims."""
    t = _tensor_type(shape, x)
    if len(shape) < x.type.rank:
        return tensor.CollapseShapeOp(t, x, reassociation).result
    return tensor.ExpandShapeOp(t, x, reassociation, [], list(shape)).result


def _pair_at(dim: int, rank: int) -> list:
    """Reassociation of ``rank + 1`` dims into ``rank``: dims ``dim`` and ``dim + 1`` together."""
    return [[d] for d in range(dim)] + [[dim, dim + 1]] + [[d + 1] for d in range(dim + 1, rank)]


def _split_dim(x: ir.Value, dim: int, groups: int) -> ir.Value:
    """``x`` with dim ``dim`` split into ``(groups, size / groups)``."""
    shape = list(x.type.shape)
    split = shape[:dim] + [groups, shape[dim] // groups] + shape[dim + 1:]
    return _reshape(x, split, _pair_at(dim, len(shape)))


def _merge_dims(x: ir.Value, dim: int) -> ir.Value:
    """``x`` with dims ``dim`` and ``dim + 1`` merged; undoes :func:`_split_dim`."""
    shape = list(x.type.shape)
    merged = shape[:dim] + [shape[dim] * shape[dim + 1]] + shape[dim + 2:]
    return _reshape(x, merged, _pair_at(dim, len(merged)))


def _extract(x: ir.Value, shape: Sequence[int], slice_args: dict) -> ir.Value:
    """``tensor.extract_slice`` of ``x`` with result ``shape``; it may drop *leading* unit dims.

    Only leading ones: canonicalize breaks a rank-reducing slice that drops
    other unit dims when one of the kept dims is 1 too, once its offsets fold
    to constants (as they do when a kernel dim of size 1 folds its loop).
    """
    return tensor.ExtractSliceOp(_tensor_type(shape, x), x, **slice_args).result


def _insert(part: ir.Value, into: ir.Value, slice_args: dict) -> ir.Value:
    return tensor.InsertSliceOp(part, into, **slice_args).result


def _padded_hw(shape: Sequence[int], padding: Sequence[int]) -> list:
    top, left, bottom, right = padding
    return [*shape[:-2], shape[-2] + top + bottom, shape[-1] + left + right]


def _interior(shape: Sequence[int], padding: Sequence[int]) -> dict:
    """Slice arguments of the unpadded ``shape`` inside its padded tensor."""
    top, left = padding[:2]
    return _slice_args([0] * (len(shape) - 2) + [top, left], shape, [1] * len(shape))


def _pad(x: ir.Value, padding: Sequence[int]) -> ir.Value:
    """``x`` with zero rows and columns around its last two dims."""
    if not any(padding):
        return x
    shape = x.type.shape
    return _insert(x, _zeros(_padded_hw(shape, padding), x), _interior(shape, padding))


def _contract(loops: str, lhs: ir.Value, lhs_dims: str, rhs: ir.Value, rhs_dims: str,
              acc: ir.Value, acc_dims: str) -> ir.Value:
    """``acc + sum(lhs * rhs)`` over the loops missing from ``acc_dims`` (``linalg.contract``).

    Each operand names its dims by loop letters; ``loops`` orders the loops,
    outermost first. The operand read along the innermost loop goes second:
    the contraction kernel of ``tad-tile-and-vectorize`` streams its rhs in
    vectors and broadcasts elements of its lhs.
    """
    if lhs_dims[-1] == loops[-1] != rhs_dims[-1]:
        lhs, lhs_dims, rhs, rhs_dims = rhs, rhs_dims, lhs, lhs_dims
    maps = [_affine_map(len(loops), [loops.index(letter) for letter in dims])
            for dims in (lhs_dims, rhs_dims, acc_dims)]
    return linalg.contract(lhs, rhs, outs=[acc], indexing_maps=maps)


def _taps_first(weight: ir.Value, groups: int) -> ir.Value:
    """An OIHW weight as ``(KH, KW, G, O/G, C/G)``: a tap is a slice that drops leading dims."""
    return _permuted(_split_dim(weight, 0, groups), (3, 4, 0, 1, 2))


def _tap_slice(x: ir.Value, tap: Sequence[ir.Value]) -> dict:
    """Slice arguments of ``x[ky, kx]`` in a taps-first tensor ``(KH, KW, ...)``."""
    rest = x.type.shape[2:]
    return _slice_args([*tap] + [0] * len(rest), [1, 1, *rest], [1] * (len(rest) + 2))


def _tap(x: ir.Value, tap: Sequence[ir.Value]) -> ir.Value:
    """``x[ky, kx]`` of a taps-first tensor ``(KH, KW, ...)``."""
    return _extract(x, x.type.shape[2:], _tap_slice(x, tap))


# Loop letters: n batch, g group, o output channel, c input channel (both within the
# group), y and x output rows and columns.

@lowering("tad.conv2d")
def _conv2d(op):
    # Loops n, g, y, o, c, x: for one output row the input rows of all channels of
    # the group stay in cache across o, the output row across c.
    data, weight = op.operands
    win, (n, o, oh, ow) = _Window.of(op), op.results[0].type.shape
    x = _pad(_split_dim(data, 1, win.groups), win.padding)
    w = _taps_first(weight, win.groups)
    lead = x.type.shape[:3]

    def add_tap(tap, out):
        window = _extract(x, [*lead, oh, ow], win.of_tap(tap, lead, (oh, ow)))
        return _contract("ngyocx", window, "ngcyx", _tap(w, tap), "goc", out, "ngoyx")

    out = _zeros([n, win.groups, o // win.groups, oh, ow], data)
    return [_merge_dims(_over_taps(weight.type.shape[2:], out, add_tap), 1)]


@lowering("tad.conv2d_backward_data")
def _conv2d_backward_data(op):
    # Loops n, g, y, c, o, x: the forward's, with the roles of c and o exchanged.
    output_grad, weight = op.operands
    win, (n, c, height, width) = _Window.of(op), op.results[0].type.shape
    dy = _split_dim(output_grad, 1, win.groups)
    w = _taps_first(weight, win.groups)
    out_hw = output_grad.type.shape[2:]
    grouped = [n, win.groups, c // win.groups, height, width]
    lead = grouped[:3]

    def add_tap(tap, dx):
        window = win.of_tap(tap, lead, out_hw)
        part = _contract("ngycox", dy, "ngoyx", _tap(w, tap), "goc",
                         _extract(dx, [*lead, *out_hw], window), "ngcyx")
        return _insert(part, dx, window)

    dx = _over_taps(weight.type.shape[2:], _zeros(_padded_hw(grouped, win.padding), dy), add_tap)
    if any(win.padding):
        dx = _extract(dx, grouped, _interior(grouped, win.padding))
    return [_merge_dims(dx, 1)]


@lowering("tad.conv2d_backward_filter")
def _conv2d_backward_filter(op):
    # Every tap reduces over n, y, x; the innermost loop runs over the output
    # channels o instead (a contiguous row of the channels-last dy and of the
    # accumulator), since a reduction loop innermost does not vectorize. Loops g,
    # n, y, c, x, o keep one row of dy and the (c, o) accumulator in cache. The
    # accumulator is (KH, KW, G, C/G, O/G), transposed to OIHW at the end.
    output_grad, data = op.operands
    win, (o, cg, kh, kw) = _Window.of(op), op.results[0].type.shape
    g = win.groups
    x = _pad(_split_dim(data, 1, g), win.padding)
    dy = _permuted(_split_dim(output_grad, 1, g), (0, 3, 4, 1, 2))  # (N, OH, OW, G, O/G)
    out_hw, lead = output_grad.type.shape[2:], x.type.shape[:3]

    def add_tap(tap, dw):
        window = _extract(x, [*lead, *out_hw], win.of_tap(tap, lead, out_hw))
        part = _contract("gnycxo", dy, "nyxgo", window, "ngcyx", _tap(dw, tap), "gco")
        return _insert(part, dw, _tap_slice(dw, tap))

    dw = _over_taps((kh, kw), _zeros([kh, kw, g, cg, o // g], dy), add_tap)
    return [_merge_dims(_permuted(dw, (2, 4, 3, 0, 1)), 0)]
