"""2-D convolution and its two backward ops (NCHW data, OIHW weights).

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.

Lowering: a ``linalg.contract`` per kernel tap
-----------------------------------------------

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
fusion from pulling operand producers into its loops (as in the lowering of
``tad.dot_general``). The loops put a dim that is contiguous in the
accumulator and in the streamed operand innermost (the output width, or
``dw``'s output channels), so LLVM vectorizes the inner loop.

Derivatives: each derivative is one op of the three
---------------------------------------------------

The three ops are the three partial derivatives of one trilinear form of a
convolution's data ``x``, weight ``w`` and output gradient ``dy`` (all with the
same strides, padding, dilation and groups)::

    T(x, w, dy) = <dy, conv2d(x, w)> = <x, backward_data(dy, w)> = <w, backward_filter(dy, x)>

so each op computes the value of one *role* (``output``, ``data``, ``weight``)
from the other two. Every derivative is then one of the three ops again:

* tangent: each op is linear in each operand, so a tangent of an operand
  goes through the op itself in that operand's place;
* cotangent: the transpose of "role R from role U" is "role U from role R",
  the op that produces U, given the cotangent as R.

A (co)tangent with a batch prefix ``P`` is handed to the op with ``P``
folded into the dim that its role shares with the result's role (e.g. the
batch dim N between data and output, the output channels between weight and
output, within each group), and unfolded from the result: one op per
derivative whatever ``P`` is.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.dialects.record import record_of
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
>>> all(record_of(name).vjp is not None for name in family.names)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Callable, Sequence, Union

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..batching import fold_into_leading
from ..builder import Val
from ..derivatives import RuleContext, sum_contributions
from ..record import Family, Trait
from ..shapes import (TensorSpec, need, int_attr, declared, same_element_type, window_attrs, window_output_size,
                      rank4, gradient_of, python_attrs)

family = Family("convolution")

family.define("tad.conv2d",
              operands=("data", "weight"),
              attributes=(("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("groups", "integer")),
              summary="2-D convolution, data NCHW, weight OIHW (O, C/groups, KH, KW); padding = (top, left, bottom, right).",
              traits=(Trait.PURE, Trait.CONTRACTION))
family.define("tad.conv2d_backward_data",
              operands=("output_grad", "weight"),
              attributes=(("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("groups", "integer")),
              summary="Gradient of conv2d with respect to its data (result: the data's shape).",
              traits=(Trait.PURE,))
family.define("tad.conv2d_backward_filter",
              operands=("output_grad", "data"),
              attributes=(("strides", "dense_array"), ("padding", "dense_array"), ("dilation", "dense_array"), ("groups", "integer")),
              summary="Gradient of conv2d with respect to its weight (result: the weight's shape).",
              traits=(Trait.PURE,))


def _conv_output(data: TensorSpec, weight: TensorSpec, attrs) -> TensorSpec:
    rank4(data, "data")
    rank4(weight, "weight (OIHW)")
    same_element_type(data, weight)
    strides, padding, dilation, _ = window_attrs(attrs)
    groups = int_attr(attrs, "groups")
    n, c, h, w = data.shape
    o, cg, kh, kw = weight.shape
    need(groups >= 1 and c % groups == 0 and o % groups == 0,
          f"groups {groups} must divide the {c} input and {o} output channels")
    need(cg * groups == c, f"weight has {cg} input channels per group, data {c} channels "
                            f"in {groups} groups")
    oh = window_output_size(h, kh, strides[0], padding[0], padding[2], dilation[0])
    ow = window_output_size(w, kw, strides[1], padding[1], padding[3], dilation[1])
    return TensorSpec((n, o, oh, ow), data.element_type)


@family.shape_rule("tad.conv2d")
def _conv2d(operands, attrs, results):
    data, weight = operands
    return [_conv_output(data, weight, attrs)]


@family.shape_rule("tad.conv2d_backward_data")
def _conv2d_backward_data(operands, attrs, results):
    output_grad, weight = operands
    out = declared(results, "conv2d_backward_data")
    return gradient_of("conv2d", _conv_output(out, weight, attrs), output_grad, out)


@family.shape_rule("tad.conv2d_backward_filter")
def _conv2d_backward_filter(operands, attrs, results):
    output_grad, data = operands
    out = declared(results, "conv2d_backward_filter")
    return gradient_of("conv2d", _conv_output(data, out, attrs), output_grad, out)


@family.flops("tad.conv2d", "tad.conv2d_backward_data", "tad.conv2d_backward_filter")
def _conv_flops(op) -> int:
    # Every conv op does 2 * N*O*OH*OW * (C/groups)*KH*KW multiply-adds.
    output = op.results[0] if op.name == "tad.conv2d" else op.operands[0]
    weight = op.results[0] if op.name == "tad.conv2d_backward_filter" else op.operands[1]
    return 2 * prod(output.type.shape) * prod(weight.type.shape[1:])


# --- lowering ------------------------------------------------------------------

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
    return linalg.splat(linalg.zero_attr(t.element_type), t)


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
    maps = [linalg.affine_map(len(loops), [loops.index(letter) for letter in dims])
            for dims in (lhs_dims, rhs_dims, acc_dims)]
    return linalg.contract(lhs, rhs, outs=[acc], indexing_maps=maps)


def _taps_first(weight: ir.Value, groups: int) -> ir.Value:
    """An OIHW weight as ``(KH, KW, G, O/G, C/G)``: a tap is a slice that drops leading dims."""
    return linalg.permuted(_split_dim(weight, 0, groups), (3, 4, 0, 1, 2))


def _tap_slice(x: ir.Value, tap: Sequence[ir.Value]) -> dict:
    """Slice arguments of ``x[ky, kx]`` in a taps-first tensor ``(KH, KW, ...)``."""
    rest = x.type.shape[2:]
    return _slice_args([*tap] + [0] * len(rest), [1, 1, *rest], [1] * (len(rest) + 2))


def _tap(x: ir.Value, tap: Sequence[ir.Value]) -> ir.Value:
    """``x[ky, kx]`` of a taps-first tensor ``(KH, KW, ...)``."""
    return _extract(x, x.type.shape[2:], _tap_slice(x, tap))


# Loop letters: n batch, g group, o output channel, c input channel (both within the
# group), y and x output rows and columns.

@family.lowering("tad.conv2d")
def _lower_conv2d(op):
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


@family.lowering("tad.conv2d_backward_data")
def _lower_conv2d_backward_data(op):
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


@family.lowering("tad.conv2d_backward_filter")
def _lower_conv2d_backward_filter(op):
    # Every tap reduces over n, y, x; the innermost loop runs over the output
    # channels o instead (a contiguous row of the channels-last dy and of the
    # accumulator), since a reduction loop innermost does not vectorize. Loops g,
    # n, y, c, x, o keep one row of dy and the (c, o) accumulator in cache. The
    # accumulator is (KH, KW, G, C/G, O/G), transposed to OIHW at the end.
    output_grad, data = op.operands
    win, (o, cg, kh, kw) = _Window.of(op), op.results[0].type.shape
    g = win.groups
    x = _pad(_split_dim(data, 1, g), win.padding)
    dy = linalg.permuted(_split_dim(output_grad, 1, g), (0, 3, 4, 1, 2))  # (N, OH, OW, G, O/G)
    out_hw, lead = output_grad.type.shape[2:], x.type.shape[:3]

    def add_tap(tap, dw):
        window = _extract(x, [*lead, *out_hw], win.of_tap(tap, lead, out_hw))
        part = _contract("gnycxo", dy, "nyxgo", window, "ngcyx", _tap(dw, tap), "gco")
        return _insert(part, dw, _tap_slice(dw, tap))

    dw = _over_taps((kh, kw), _zeros([kh, kw, g, cg, o // g], dy), add_tap)
    return [_merge_dims(linalg.permuted(dw, (2, 4, 3, 0, 1)), 0)]


# --- derivative rules ------------------------------------------------------------

# The op producing each role from the other two: the roles of its operands, in order,
# and its builder (``(a, b, result shape, **window) -> Val``).
_PRODUCERS = {
    "output": (("data", "weight"), lambda a, b, shape, **window: builder.conv2d(a, b, **window)),
    "data": (("output", "weight"), builder.conv2d_backward_data),
    "weight": (("output", "data"), builder.conv2d_backward_filter),
}

# The dim that two roles share, per role: (axis, whether that axis is split into groups).
_SHARED = {
    frozenset(("data", "output")): {"data": (0, False), "output": (0, False)},  # batch N
    frozenset(("weight", "output")): {"weight": (0, True), "output": (1, True)},  # output channels
    frozenset(("weight", "data")): {"weight": (1, False), "data": (1, True)},  # input channels
}


def _window_arguments(c: RuleContext) -> dict:
    """The window attributes of ``c``'s op, as keyword arguments of the conv builders."""
    a = c.attrs
    return dict(strides=a["strides"], padding=a["padding"], dilation=a["dilation"],
                groups=a["groups"].value)


def _reshaped(t: Val, shape: Sequence[int]) -> Val:
    """``t`` reshaped to ``shape`` (``t`` itself when it has that shape already)."""
    return t if t.shape == tuple(shape) else builder.reshape(t, shape)


def _moved(t: Val, perm: Sequence[int]) -> Val:
    """``t`` transposed by ``perm``; a reshape when only unit dims move (no data moves)."""
    moved = [p for p in perm if t.shape[p] != 1]
    if moved == sorted(moved):
        return _reshaped(t, tuple(t.shape[p] for p in perm))
    return builder.transpose(t, perm)


def _fold(t: Val, nb: int, axis: int, groups: int) -> Val:
    """Move the batch prefix (the first ``nb`` dims) of ``t`` into value dim ``axis``.

    The dim is read as ``(groups, size / groups)`` and the prefix goes between
    the two, so every group keeps its channels together.
    """
    if not nb:
        return t
    k, shape = prod(t.shape[:nb]), t.shape[nb:]
    split = (k, *shape[:axis], groups, shape[axis] // groups, *shape[axis + 1:])
    perm = [*range(1, axis + 2), 0, *range(axis + 2, len(split))]
    moved = _moved(_reshaped(t, split), perm)
    return _reshaped(moved, shape[:axis] + (k * shape[axis],) + shape[axis + 1:])


def _unfold(t: Val, prefix: tuple, axis: int, groups: int) -> Val:
    """Undo :func:`_fold`: take the batch ``prefix`` out of dim ``axis`` of ``t``, to the front."""
    if not prefix:
        return t
    k, shape = prod(prefix), t.shape
    size = shape[axis] // k
    split = (*shape[:axis], groups, k, size // groups, *shape[axis + 1:])
    perm = [axis + 1, *(d for d in range(len(split)) if d != axis + 1)]
    moved = _moved(_reshaped(t, split), perm)
    return _reshaped(moved, prefix + shape[:axis] + (size,) + shape[axis + 1:])


def _partial(c: RuleContext, want: str, values: dict, batched: str, shape: tuple) -> Val:
    """The op that produces role ``want`` (unbatched ``shape``) from the other roles' ``values``.

    ``values[batched]`` carries the batch prefix of rank ``c.nb``.
    """
    (roles, build), window = _PRODUCERS[want], _window_arguments(c)
    shared = _SHARED[frozenset((batched, want))]
    (in_axis, in_groups), (out_axis, out_groups) = (
        (axis, window["groups"] if grouped else 1)
        for axis, grouped in (shared[batched], shared[want]))
    prefix = values[batched].shape[:c.nb]
    folded = {**values, batched: _fold(values[batched], c.nb, in_axis, in_groups)}
    a, b = (folded[role] for role in roles)
    out_shape = list(shape)
    out_shape[out_axis] *= prod(prefix)
    out = build(a, b, out_shape, **window)
    return _unfold(out, prefix, out_axis, out_groups)


def _jvp(c: RuleContext, result: str, tangents: list) -> list:
    """Bilinear: the op applied to each operand's tangent in its place, summed."""
    operands = _PRODUCERS[result][0]
    primals = dict(zip(operands, c.inputs))
    return [sum_contributions(_partial(c, result, {**primals, role: t}, role, c.outputs[0].shape)
                              for role, t in zip(operands, tangents) if t is not None)]


def _vjp(c: RuleContext, result: str, cotangents: list) -> list:
    """Each operand's cotangent: the op producing its role, from the result's cotangent."""
    (ct,) = cotangents
    operands = _PRODUCERS[result][0]
    values = {**dict(zip(operands, c.inputs)), result: ct}
    return [_partial(c, role, values, result, x.shape) for role, x in zip(operands, c.inputs)]


def _register_rules(name: str, result: str) -> None:
    """Register the rules of the op ``name``, which produces the role ``result``."""
    family.jvp(name)(lambda c, tangents: _jvp(c, result, tangents))
    family.vjp(name)(lambda c, cotangents: _vjp(c, result, cotangents))


_register_rules("tad.conv2d", "output")
_register_rules("tad.conv2d_backward_data", "data")
_register_rules("tad.conv2d_backward_filter", "weight")


# Batching (tad-batch): rows of the data are more images of the batch ``N``. A
# weight per row (or the filter gradient, which sums over ``N``) takes the row loop.
@family.batching("tad.conv2d", "tad.conv2d_backward_data")
def _conv_batch(ctx, op, operands, batched):
    return fold_into_leading(ctx, op, operands, batched, (0,))
