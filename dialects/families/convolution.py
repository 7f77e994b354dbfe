"""2-D convolution and its two backward ops (NCHW data, OIHW weights).

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.

Lowering of stride-1 ops: flat planes
-------------------------------------

A stride-1 convolution (and the data gradient of one, which is the
convolution of ``dy`` with the flipped kernel, in and out channels
exchanged) is lowered over *flat planes*: an image's padded input planes are
laid out with rows ``width`` long, one after the other, so that the zeros
after a row's data pad it on the right and the next row on the left. Output
``(y, x)`` is flat position ``y * width + x``, and kernel tap ``(ky, kx)``
reads the flat input at that position shifted by ``ky * dh * width + kx *
dw``: every tap is one contiguous run of the planes, and the output is
computed at every flat position (the ``width - OW`` extra columns per row
are dropped at the end). Per image, in groups of images that a loop marked
``tad.independent_iterations`` runs (``tad-thread-independent-loops`` runs its
iterations on threads on the CPU; a group allocates its temporaries once,
see ``tad-hoist-iteration-buffers``), and per chunk of flat positions small
enough to stay in L2, each kernel tap is one ``linalg.contract`` over loops
``(g, o, k, p)``: one contracting dim, the flat positions innermost and
contiguous, which is the register-tiled contraction kernel of
``tad-tile-and-vectorize``. With few channels (fewer than ``_MIN_DEPTH``),
the kernel's columns or all of its taps are expanded into the contracting
dim instead (shifted copies of the image's planes, ``k = t * C + c``), so
that each contraction does enough products per load of its accumulator. A
generic reading ``y * width + x`` crops the output. The filter gradient
lays the whole batch's planes of a channel one after the other (and ``dy``
the same way, channels-last, zero where no output is), so that each tap's
gradient is one contraction over one dim (batch and positions together),
output channels innermost. No operand of a contraction is a reshape, which
elementwise fusion would fold into it (making it a generic, which gets no
contraction kernel): reshaped weights are read by generics with
``floordiv``/``mod`` maps, the output by the cropping generic.
:func:`conv2d_scratch_bytes` gives the bytes of the temporaries.

Lowering of strided ops: a ``linalg.contract`` per kernel tap
-------------------------------------------------------------

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
>>> # one image: a group of its own, whose buffers a loop over the group's images reuses
>>> str(module).count("linalg.contract"), "tad.reused_iteration_buffers" in str(module)
(1, True)
>>> all(record_of(name).vjp is not None for name in family.names)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Callable, Optional, Sequence, Union

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..batching import fold_into_leading
from ..builder import Val
from ..derivatives import RuleContext, sum_contributions
from ..record import (ALLOCATION_PADDING, INDEPENDENT_ITERATIONS, MIN_ITERATION_WORK, REUSED_ITERATION_BUFFERS,
                      Family, Trait, element_bytes)
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


def _times(i: Offset, factor: int) -> Offset:
    if isinstance(i, int):
        return i * factor
    return i if factor == 1 else arith.muli(i, _index(factor))


def _plus(a: Offset, b: Offset) -> Offset:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    if isinstance(a, int) or isinstance(b, int):
        value, constant = (b, a) if isinstance(a, int) else (a, b)
        return value if constant == 0 else arith.addi(value, _index(constant))
    return arith.addi(a, b)


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

    def of_tap(self, tap: Sequence[Offset], lead: Sequence[int], out_hw: Sequence[int]) -> dict:
        """Slice arguments of tap ``(ky, kx)``'s window in a padded ``lead + (H, W)`` tensor."""
        starts = [_times(k, d) for k, d in zip(tap, self.dilation)]
        return _slice_args([0] * len(lead) + starts, [*lead, *out_hw],
                           [1] * len(lead) + list(self.strides))


def _over_taps(kernel_hw: Sequence[int], init: ir.Value,
               step: Callable[[tuple, ir.Value], ir.Value]) -> ir.Value:
    """Fold ``step((ky, kx), acc) -> acc`` over the kernel taps from ``init``.

    One ``scf.for`` per kernel dim longer than 1 (a tap index is then an
    ``index`` value); a dim of size 1 has the static index 0.
    """
    def loop(tap: tuple, acc: ir.Value) -> ir.Value:
        if len(tap) == len(kernel_hw):
            return step(tap, acc)
        if kernel_hw[len(tap)] == 1:
            return loop((*tap, 0), acc)
        for_op = scf.ForOp(_index(0), _index(kernel_hw[len(tap)]), _index(1), [acc])
        with ir.InsertionPoint(for_op.body):
            scf.YieldOp([loop((*tap, for_op.induction_variable), for_op.inner_iter_args[0])])
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


def _tap_slice(x: ir.Value, tap: Sequence[Offset]) -> dict:
    """Slice arguments of ``x[ky, kx]`` in a taps-first tensor ``(KH, KW, ...)``."""
    rest = x.type.shape[2:]
    return _slice_args([*tap] + [0] * len(rest), [1, 1, *rest], [1] * (len(rest) + 2))


def _tap(x: ir.Value, tap: Sequence[Offset]) -> ir.Value:
    """``x[ky, kx]`` of a taps-first tensor ``(KH, KW, ...)``."""
    return _extract(x, x.type.shape[2:], _tap_slice(x, tap))


# --- stride-1 convolutions on flat planes ----------------------------------------

# The flat output of an image is computed in chunks of whole register tiles of
# the contraction kernel (32 lanes of float32 at 512 bits), each small enough
# that its accumulator and the input planes it reads stay in L2 while every
# kernel tap adds to it.
_ALIGN, _CHUNK_BYTES = 32, 384 << 10
# Kernel taps are expanded into the contracting dim (copies of an image's
# planes, shifted) until it holds at least this many products per step of
# the accumulator: one contraction per remaining tap loads and stores its
# accumulator tile once, which a contraction over a channel or two does not
# amortize (the copies cost about what deeper contractions save beyond this).
_MIN_DEPTH = 8
# ... unless the copies of one image would take more than this many bytes.
_MAX_COLUMNS_BYTES = 4 << 20


def _round_up(n: int, multiple: int) -> int:
    return -(-n // multiple) * multiple


@dataclass(frozen=True)
class _Planes:
    """A stride-1 convolution over input planes that are padded and laid out flat.

    A padded plane of rows ``width`` long, flattened, holds tap ``(ky, kx)``
    of output ``(y, x)`` at ``y * width + x + offset(ky, kx)``: each tap is
    one contiguous run of the flat plane, shifted. The output is computed
    for ``x < width`` (columns past the output's width are computed and
    dropped) at flat positions ``p < length``.

    Kernel dims in ``inner`` are expanded into the contracting dim (copies
    of the planes shifted by those taps, ``columns``); the others are looped
    over (``outer``), one contraction per tap. ``flip`` reads the kernel
    backwards (the data gradient convolves ``dy`` with the flipped kernel).
    """

    in_hw: tuple
    padding: tuple  # (top, left, bottom, right), each >= 0
    dilation: tuple
    kernel: tuple
    inner: tuple  # (rows, columns) of the kernel expanded: each 1 or the kernel's
    flip: bool
    chunk: int = _ALIGN  # flat positions per chunk of the output
    chunks: int = 1

    @property
    def width(self) -> int:
        """Row length of the flat planes: the data's, and zeros that pad two rows at once.

        The zeros after one row's data are the right padding of that row and
        the left padding of the next, so ``max(left, right)`` of them do, as
        long as the output row fits (an output of ``width`` columns is computed).
        """
        (_, w), (_, left, _, right) = self.in_hw, self.padding
        return max(w + max(left, right), self.out_hw[1])

    @property
    def out_hw(self) -> tuple:
        (h, w), (top, left, bottom, right) = self.in_hw, self.padding
        return tuple(n - d * (k - 1) for n, d, k in zip((h + top + bottom, w + left + right),
                                                        self.dilation, self.kernel))

    @property
    def outer(self) -> tuple:
        return tuple(k // i for k, i in zip(self.kernel, self.inner))

    @property
    def expanded(self) -> tuple:
        """The kernel axes (0: rows, 1: columns) expanded into the contracting dim."""
        return tuple(a for a in (0, 1) if self.inner[a] > 1)

    @property
    def looped(self) -> tuple:
        """The kernel axes looped over: one contraction per tap."""
        return tuple(a for a in (0, 1) if self.inner[a] == 1 and self.kernel[a] > 1)

    @property
    def steps(self) -> tuple:
        """Flat distance between neighbouring taps along (ky, kx)."""
        return self.dilation[0] * self.width, self.dilation[1]

    @property
    def valid(self) -> int:
        """Flat positions that hold output rows."""
        return self.out_hw[0] * self.width

    @property
    def length(self) -> int:
        """Flat positions computed per image: whole chunks, at least the valid ones."""
        return self.chunk * self.chunks

    def offset(self, tap: Sequence[Offset], kernel: Sequence[int]) -> Offset:
        """Flat offset of ``tap`` of a ``kernel`` that is the outer or inner part of the kernel.

        The part that covers an axis has that axis's length there, the other
        part 1 (index 0); so the two offsets add up to the whole tap's.
        """
        total: Offset = 0
        for i, k, step in zip(tap, kernel, self.steps):
            if self.flip:
                i = (k - 1 - i) if isinstance(i, int) else arith.subi(_index(k - 1), i)
            total = _plus(total, _times(i, step))
        return total

    def span(self, kernel: Sequence[int]) -> int:
        """The largest offset of a tap of ``kernel`` (a part of the kernel)."""
        return sum((k - 1) * step for k, step in zip(kernel, self.steps))

    @property
    def columns_length(self) -> int:
        """Flat length of each copy of the planes: the output's, and the outer taps' shifts."""
        return self.length + self.span(self.outer)

    @property
    def plane(self) -> int:
        """Flat length of a padded plane."""
        return self.rows * self.width

    @property
    def rows(self) -> int:
        """Rows of the flat planes: the padded ones, and zero rows that the last shifts read."""
        needed = self.columns_length + self.span(self.inner)
        return -(-needed // self.width)


def _expanded(kernel: Sequence[int], channels: int, planes_bytes: int) -> tuple:
    """Which kernel dims a stride-1 convolution with ``channels`` per group expands (``_Planes.inner``).

    The fewest that give the contraction ``_MIN_DEPTH`` products per step,
    while the copies stay under ``_MAX_COLUMNS_BYTES``: none, the kernel's
    columns, or all of it.

    Examples
    --------
    >>> _expanded((3, 3), 64, 1 << 16), _expanded((3, 3), 4, 1 << 16), _expanded((3, 3), 1, 1 << 16)
    ((1, 1), (1, 3), (3, 3))
    """
    kh, kw = kernel
    choice = (1, 1)
    for inner in ((1, 1), (1, kw), (kh, kw)):
        if prod(inner) * planes_bytes > _MAX_COLUMNS_BYTES:
            break
        choice = inner
        if prod(inner) * channels >= _MIN_DEPTH:
            break
    return choice


def _planes_of(in_hw, padding, dilation, kernel, channels: int, out_channels: int, item_bytes: int,
               flip: bool = False) -> _Planes:
    """The :class:`_Planes` of a stride-1 convolution with ``channels`` and ``out_channels`` per group."""
    plain = _Planes(tuple(in_hw), tuple(padding), tuple(dilation), tuple(kernel), (1, 1), flip)
    valid = plain.valid
    chunks = max(1, -(-valid * (channels + out_channels) * item_bytes // _CHUNK_BYTES))
    sized = _Planes(plain.in_hw, plain.padding, plain.dilation, plain.kernel, (1, 1), flip,
                    _round_up(-(-valid // chunks), _ALIGN), chunks)
    inner = _expanded(kernel, channels, channels * sized.columns_length * item_bytes)
    return _Planes(plain.in_hw, plain.padding, plain.dilation, plain.kernel, inner, flip, sized.chunk, chunks)


def _flat_planes(x: ir.Value, planes: _Planes, permutation: Optional[Sequence[int]] = None) -> ir.Value:
    """``(..., H, W)`` data as padded flat planes ``(..., plane)``.

    ``permutation`` (of the leading dims, e.g. the batch after the channels,
    so that a sum over the batch and the positions is one over one dim)
    moves them in the same copy, and then the last two leading dims are
    merged with the plane: ``(..., b, c) -> (..., b, c * plane)``.
    """
    *lead, h, w = x.type.shape
    rank = len(lead) + 2
    if permutation is not None:
        lead = [lead[d] for d in permutation]
    top, left = planes.padding[:2]
    padded = _zeros([*lead, planes.rows, planes.width], x)
    interior = _slice_args([0] * len(lead) + [top, left], [*lead, h, w], [1] * rank)
    slot = _extract(padded, [*lead, h, w], interior)
    # Written into the slice that insert_slice writes back: bufferization writes
    # x straight into the padded buffer (as pooling's _padded).
    if permutation is None:
        moved = linalg.copy(x, outs=[slot])
    else:
        moved = linalg.transpose(x, outs=[slot], permutation=[*permutation, rank - 2, rank - 1]).results[0]
    padded = _insert(moved, padded, interior)
    last = len(lead) - 1 if permutation is not None else len(lead)
    groups = [[d] for d in range(last)] + [list(range(last, rank))]
    return _reshape(padded, [*lead[:last], prod(padded.type.shape[last:])], groups)


def _columns(flat: ir.Value, planes: _Planes, length: int) -> ir.Value:
    """Flat planes ``(..., C, P)`` with the inner taps expanded: ``(..., T * C, length)``.

    Row ``t * C + c`` is plane ``c`` shifted by inner tap ``t`` (row-major);
    without expanded taps, the planes themselves.
    """
    if not planes.expanded:
        return flat
    *lead, c, _ = flat.type.shape
    part = [*lead, c, length]
    into = linalg.empty(_tensor_type([*lead, prod(planes.inner) * c, length], flat))
    ones, zeros = [1] * len(part), [0] * len(lead)

    def copy_tap(tap, cols):
        row = _times(_plus(_times(tap[0], planes.inner[1]), tap[1]), c)
        at = _slice_args([*zeros, row, 0], part, ones)
        shifted = _extract(flat, part, _slice_args([*zeros, 0, planes.offset(tap, planes.inner)], part, ones))
        return _insert(linalg.copy(shifted, outs=[_extract(cols, part, at)]), cols, at)

    return _over_taps(planes.inner, into, copy_tap)


def _shifted(cols: ir.Value, planes: _Planes, tap: Sequence[Offset], length: int) -> ir.Value:
    """The ``length`` flat positions of ``cols`` that looped tap ``tap`` reads."""
    shape = [*cols.type.shape[:-1], length]
    offsets = [0] * (len(shape) - 1) + [planes.offset(tap, planes.outer)]
    return _extract(cols, shape, _slice_args(offsets, shape, [1] * len(shape)))


def _looped_tap(x: ir.Value, planes: _Planes, tap: Sequence[Offset]) -> ir.Value:
    """``x[tap]`` of a tensor whose leading dims are the looped kernel dims (:attr:`_Planes.looped`)."""
    looped = planes.looped
    rest = x.type.shape[len(looped):]
    return _extract(x, rest, _slice_args([tap[a] for a in looped] + [0] * len(rest),
                                         [1] * len(looped) + list(rest), [1] * x.type.rank))


def _kernel_exprs(planes: _Planes, looped: Sequence[ir.AffineExpr], tap: ir.AffineExpr) -> list:
    """``(ky, kx)`` of the tap at looped indices ``looped`` and inner tap number ``tap``."""
    exprs = [ir.AffineConstantExpr.get(0)] * 2
    for a, e in zip(planes.looped, looped):
        exprs[a] = e
    if planes.expanded == (0, 1):
        width = ir.AffineConstantExpr.get(planes.kernel[1])
        exprs = [ir.AffineFloorDivExpr.get(tap, width), ir.AffineModExpr.get(tap, width)]
    elif planes.expanded:
        exprs[planes.expanded[0]] = tap
    return exprs


def _weight_rows(weight: ir.Value, planes: _Planes) -> ir.Value:
    """A ``(G, Out, In, KH, KW)`` weight as ``(*looped kernel dims, G, Out, T * In)``.

    Row ``t * In + c`` holds input channel ``c`` of inner tap ``t``, matching
    :func:`_columns`. A generic with a ``floordiv``/``mod`` map (scalar
    loops over a few weights): a reshape next to the contraction would be
    folded into it by elementwise fusion, making it a generic that does not
    get the contraction kernel.
    """
    g, out, inp, _, _ = weight.type.shape
    n_looped = len(planes.looped)
    d = [ir.AffineDimExpr.get(i) for i in range(n_looped + 3)]
    k, channels = d[-1], ir.AffineConstantExpr.get(inp)
    inner = (ir.AffineFloorDivExpr.get(k, channels), ir.AffineModExpr.get(k, channels)) if planes.expanded \
        else (ir.AffineConstantExpr.get(0), k)
    kernel = _kernel_exprs(planes, d[:n_looped], inner[0])
    read = ir.AffineMap.get(len(d), 0, [d[n_looped], d[n_looped + 1], inner[1], *kernel])
    shape = [*(planes.kernel[a] for a in planes.looped), g, out, prod(planes.inner) * inp]
    [rows] = linalg.generic([weight], [linalg.empty(_tensor_type(shape, weight))],
                            [read, linalg.affine_map(len(d), range(len(d)))], ["parallel"] * len(d),
                            lambda a, _out: [a])
    return rows


def _crop(flat: ir.Value, planes: _Planes) -> ir.Value:
    """The output ``(..., OH, OW)`` of its flat planes ``(..., length)``.

    A generic reading flat position ``y * width + x``: an ``expand_shape``
    of the contraction's result would be folded into the contraction.
    """
    lead = list(flat.type.shape[:-1])
    rank = len(lead) + 2
    d = [ir.AffineDimExpr.get(i) for i in range(rank)]
    read = ir.AffineMap.get(rank, 0, [*d[:len(lead)], d[-2] * planes.width + d[-1]])
    [cropped] = linalg.generic([flat], [linalg.empty(_tensor_type([*lead, *planes.out_hw], flat))],
                               [read, linalg.affine_map(rank, range(rank))], ["parallel"] * rank,
                               lambda a, _out: [a])
    return cropped


def _conv_flat(x: ir.Value, weight: ir.Value, planes: _Planes) -> ir.Value:
    """Stride-1 convolution of ``(N, G, In, H, W)`` data with a ``(G, Out, In, KH, KW)`` weight.

    Returns ``(N, Out * G, OH, OW)`` (NCHW). Image by image (in groups that
    threads take, see :func:`_over_images`), each laid out in flat planes; per
    chunk of the flat output, one contraction per looped tap adds
    ``weight[tap] . columns[shifted by the tap]`` to it (loops ``g, o, k,
    p``: one contracting dim, flat positions innermost), then the image's
    output is cropped from the flat one.
    """
    n, g, *image_shape = x.type.shape
    out_channels = weight.type.shape[1]
    w = _weight_rows(weight, planes)
    rows, chunk = w.type.shape[-1], planes.chunk

    def image_output(i: Offset) -> ir.Value:
        image = _extract(x, [g, *image_shape], _slice_args([i, 0, 0, 0, 0], [1, g, *image_shape], [1] * 5))
        cols = _columns(_flat_planes(image, planes), planes, planes.columns_length)

        def add_chunk(start, acc):
            at = _slice_args([0, 0, start], [g, out_channels, chunk], [1, 1, 1])

            def add_tap(tap, part):
                shifted = _extract(cols, [g, rows, chunk], _slice_args(
                    [0, 0, _plus(start, planes.offset(tap, planes.outer))], [g, rows, chunk], [1, 1, 1]))
                return _contract("gokp", _looped_tap(w, planes, tap), "gok", shifted, "gkp", part, "gop")

            return _insert(_over_taps(planes.outer, _extract(acc, [g, out_channels, chunk], at), add_tap), acc, at)

        flat = _over_chunks(planes, _zeros([g, out_channels, planes.length], x), add_chunk)
        return _crop(flat, planes)

    out_type = _tensor_type([n, g, out_channels, *planes.out_hw], x)
    products = _image_products(g, out_channels, weight.type.shape[2], planes)
    return _merge_dims(_over_images(out_type, products, image_output), 1)


def _image_products(groups: int, out_channels: int, channels: int, planes: _Planes) -> int:
    """Multiply-adds of one image of :func:`_conv_flat` with ``out_channels`` and ``channels`` per group."""
    return groups * out_channels * channels * prod(planes.kernel) * planes.length


def _images_per_group(n: int, image_products: int) -> int:
    """How many of ``n`` images of ``image_products`` multiply-adds each one iteration of a group loop runs.

    The fewest that divide ``n`` and reach :data:`MIN_ITERATION_WORK`
    together (``tad-thread-independent-loops`` puts a loop on threads when
    its iterations do that much), all ``n`` when no number does: one image
    at a time when an image reaches it alone.

    Examples
    --------
    >>> _images_per_group(32, MIN_ITERATION_WORK), _images_per_group(32, MIN_ITERATION_WORK // 3)
    (1, 4)
    >>> _images_per_group(7, MIN_ITERATION_WORK // 3), _images_per_group(32, 10)
    (7, 32)
    """
    return next((k for k in range(1, n + 1) if n % k == 0 and k * image_products >= MIN_ITERATION_WORK), n)


def _over_images(out_type: ir.RankedTensorType, image_products: int,
                 image_output: Callable[[Offset], ir.Value]) -> ir.Value:
    """A result of ``out_type`` ``(N, ...)`` made image by image: ``image_output(i)`` is image ``i``'s ``(1, ...)``.

    The images run in groups of :func:`_images_per_group`, in a loop over the
    groups marked ``tad.independent_iterations`` (``tad-thread-independent-loops``
    runs groups on threads) unless there is one group. Within a group of
    several images, a loop over them marked ``tad.reused_iteration_buffers``
    (``tad-hoist-iteration-buffers`` allocates an image's temporaries once
    for the group: the allocator, called per group and not per image, cost
    more than the work of small images).
    """
    n, rest = out_type.shape[0], out_type.shape[1:]
    per_group = _images_per_group(n, image_products)
    ones = [1] * len(out_type.shape)

    def fill_group(first: Offset, group: ir.Value) -> ir.Value:
        images = scf.ForOp(_index(0), _index(per_group), _index(1), [group])
        images.operation.attributes[REUSED_ITERATION_BUFFERS] = ir.UnitAttr.get()
        with ir.InsertionPoint(images.body):
            j = images.induction_variable
            scf.YieldOp([_insert(image_output(_plus(first, j)), images.inner_iter_args[0],
                                 _slice_args([j] + [0] * len(rest), [1, *rest], ones))])
        return images.results[0]

    if per_group == n:  # one group: no threads
        return fill_group(0, linalg.empty(out_type))
    groups = scf.ForOp(_index(0), _index(n // per_group), _index(1), [linalg.empty(out_type)])
    groups.operation.attributes[INDEPENDENT_ITERATIONS] = ir.UnitAttr.get()
    with ir.InsertionPoint(groups.body):
        first = _times(groups.induction_variable, per_group)
        at = _slice_args([first] + [0] * len(rest), [per_group, *rest], ones)
        all_images = groups.inner_iter_args[0]
        part = image_output(first) if per_group == 1 else \
            fill_group(first, _extract(all_images, [per_group, *rest], at))
        scf.YieldOp([_insert(part, all_images, at)])
    return groups.results[0]


def _over_chunks(planes: _Planes, init: ir.Value, step: Callable[[Offset, ir.Value], ir.Value]) -> ir.Value:
    """Fold ``step(start, acc) -> acc`` over the chunks of the flat output (an ``scf.for`` if several)."""
    if planes.chunks == 1:
        return step(0, init)
    for_op = scf.ForOp(_index(0), _index(planes.length), _index(planes.chunk), [init])
    with ir.InsertionPoint(for_op.body):
        scf.YieldOp([step(for_op.induction_variable, for_op.inner_iter_args[0])])
    return for_op.results[0]


def _filter_flat(x: ir.Value, output_grad: ir.Value, planes: _Planes) -> ir.Value:
    """Filter gradient ``(O, In, KH, KW)`` of a stride-1 convolution of ``(N, G, In, H, W)`` data.

    The data is laid out ``(G, C, N * plane)`` and ``output_grad`` (``(N,
    G, O / G, OH, OW)``) the same way, channels-last, ``(G, N * plane, O /
    G)``, zero wherever no output is. Each looped tap's gradient is then one
    contraction over one dim ``q`` (the batch and the flat positions):
    ``columns[shifted by the tap] . dy``, output channels innermost.
    """
    n, g, og, oh, ow = output_grad.type.shape
    cg = x.type.shape[2]
    plane = planes.plane
    depth = (n - 1) * plane + planes.valid  # the last plane's rows below the output hold no gradient
    cols = _columns(_flat_planes(x, planes, permutation=(1, 2, 0)), planes, depth + planes.span(planes.outer))
    dy = _zeros([g, n, plane // planes.width, planes.width, og], output_grad)
    block = [g, n, oh, ow, og]
    at = _slice_args([0] * 5, block, [1] * 5)
    moved = linalg.transpose(output_grad, outs=[_extract(dy, block, at)], permutation=[1, 0, 3, 4, 2]).results[0]
    dy = _reshape(_insert(moved, dy, at), [g, n * plane, og], [[0], [1, 2, 3], [4]])
    # A slice (never all of dy, so never folded away) keeps the reshape apart from the contraction.
    dy = _extract(dy, [g, depth, og], _slice_args([0, 0, 0], [g, depth, og], [1, 1, 1]))
    rows = cols.type.shape[1]
    looped_shape = [planes.kernel[a] for a in planes.looped]

    def tap_gradient(tap, dw):
        at = _slice_args([tap[a] for a in planes.looped] + [0, 0, 0], [1] * len(looped_shape) + [g, rows, og],
                         [1] * dw.type.rank)
        part = _contract("gkqo", _shifted(cols, planes, tap, depth), "gkq", dy, "gqo",
                         _extract(dw, [g, rows, og], at), "gko")
        return _insert(part, dw, at)

    dw = _over_taps(planes.outer, _zeros([*looped_shape, g, rows, og], dy), tap_gradient)
    # To (G, O/G, C, KH, KW): a generic reading row t * C + c of looped tap (ky, kx).
    d = [ir.AffineDimExpr.get(i) for i in range(5)]  # g, o, c, ky, kx
    inner_tap = ir.AffineConstantExpr.get(0)
    for a in planes.expanded:
        inner_tap = inner_tap * planes.kernel[a] + d[3 + a]
    read = ir.AffineMap.get(5, 0, [*(d[3 + a] for a in planes.looped), d[0], inner_tap * cg + d[2], d[1]])
    kh, kw = planes.kernel
    [weight] = linalg.generic([dw], [linalg.empty(_tensor_type([g, og, cg, kh, kw], dw))],
                              [read, linalg.affine_map(5, range(5))], ["parallel"] * 5, lambda a, _out: [a])
    return _merge_dims(weight, 0)


def _flat_plan(op: ir.Operation) -> Optional[_Planes]:
    """The flat planes that a conv op is lowered over, or None for the lowering by kernel taps.

    Stride-1 ops go flat; the data gradient needs a padding of at most
    ``dilation * (kernel - 1)`` on each side (it convolves ``dy`` padded by the rest).
    """
    win = _Window.of(op)
    if win.strides != (1, 1):
        return None
    data_role = {"tad.conv2d": 0, "tad.conv2d_backward_filter": 1}
    item_bytes = element_bytes(op.operands[0].type.element_type)
    if op.name in data_role:
        data = op.operands[data_role[op.name]]
        weight = op.operands[1] if op.name == "tad.conv2d" else op.results[0]
        c, h, w = data.type.shape[1:]
        return _planes_of((h, w), win.padding, win.dilation, weight.type.shape[2:], c // win.groups,
                          weight.type.shape[0] // win.groups, item_bytes)
    output_grad, weight = op.operands
    n, o, oh, ow = output_grad.type.shape
    kernel = weight.type.shape[2:]
    reach = [d * (k - 1) for d, k in zip(win.dilation, kernel)]
    padding = [r - p for r, p in zip(reach + reach, win.padding)]
    if min(padding) < 0:
        return None
    return _planes_of((oh, ow), padding, win.dilation, kernel, o // win.groups, weight.type.shape[1], item_bytes,
                      flip=True)


def conv2d_scratch_bytes(op: ir.Operation, threads: int = 1) -> int:
    """Bytes of the temporary tensors that the lowering of a conv op holds at once, besides its result.

    Rematerialization counts them among the live bytes at the op. A
    stride-1 convolution or data gradient (:func:`_flat_plan`) holds its
    weight rows (a data gradient first the transposed weight too) and
    temporaries per group of images in flight (:func:`_over_images`): an
    image that runs alone holds the most of three steps: its flat planes
    and their expanded copies (if any) while the copies are made; the
    copies (or the planes) and the flat output while the contractions run;
    the flat output and the cropped one. A group of several images holds
    all four at once, for the whole group. Groups are in flight one at a
    time unless there are several (``tad-thread-independent-loops`` then
    runs them on threads: at most ``threads`` at once). A stride-1 filter
    gradient holds the flat planes of the whole batch, their expanded
    copies and ``dy`` laid out flat.
    Other strides hold the padded data (or data gradient) and, for the
    filter gradient, a channels-last copy of ``dy``.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<2x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) -> tensor<2x4x8x8xf32> {
    ...   %0 = "tad.conv2d"(%x, %w) {strides = array<i64: 1, 1>, padding = array<i64: 1, 1, 1, 1>,
    ...     dilation = array<i64: 1, 1>, groups = 1} : (tensor<2x4x8x8xf32>, tensor<4x4x3x3xf32>)
    ...     -> tensor<2x4x8x8xf32>
    ...   return %0 : tensor<2x4x8x8xf32>
    ... }''', make_context())
    >>> conv = m.body.operations[0].regions[0].blocks[0].operations[0]
    >>> # 144 weights in rows; both images in one group, which holds 4 planes of 13 rows
    >>> # of 9, 3 shifted copies of them (114 long), a flat output (4 x 96) and the
    >>> # cropped one (4 x 64): 2476 float32. One group runs off threads, so two
    >>> # threads hold no more.
    >>> conv2d_scratch_bytes(conv), conv2d_scratch_bytes(conv, threads=2)
    (10480, 10480)
    """
    item_bytes = element_bytes(op.operands[0].type.element_type)
    planes = _flat_plan(op)
    result = op.results[0].type.shape
    win = _Window.of(op)
    if planes is None:
        if op.name == "tad.conv2d_backward_data":
            return prod(_padded_hw(result, win.padding)) * item_bytes
        data = op.operands[0] if op.name == "tad.conv2d" else op.operands[1]
        padded = prod(_padded_hw(data.type.shape, win.padding)) if any(win.padding) else 0
        moved = prod(op.operands[0].type.shape) if op.name == "tad.conv2d_backward_filter" else 0
        return (padded + moved) * item_bytes
    copies = prod(planes.inner)
    if op.name == "tad.conv2d_backward_filter":
        output_grad, data = op.operands
        (n, c), o = data.type.shape[:2], output_grad.type.shape[1]
        depth = (n - 1) * planes.plane + planes.valid + planes.span(planes.outer)
        flat, columns, flat_dy = n * c * planes.plane, copies * c * depth if copies > 1 else 0, n * o * planes.plane
        # The planes are freed once copied: they and the copies, then what the contractions read.
        return max(flat + columns, (columns or flat) + flat_dy) * item_bytes
    (n, c), out = op.operands[0].type.shape[:2], result[1]
    # The weight rows, and the transposed weight a data gradient makes them from (freed before the images).
    rows = prod(op.operands[1].type.shape)
    transposed = rows if op.name == "tad.conv2d_backward_data" else 0
    flat, flat_out, cropped = c * planes.plane, out * planes.length, out * prod(result[2:])
    columns = copies * c * planes.columns_length if copies > 1 else 0
    per_group = _images_per_group(n, _image_products(win.groups, out // win.groups, c // win.groups, planes))
    if per_group > 1:  # a group's images reuse their buffers, allocated together
        image = flat + columns + flat_out + cropped
    else:
        image = max(flat + columns, (columns or flat) + flat_out, flat_out + cropped)
    in_flight = min(n // per_group, max(threads, 1))
    return (rows + max(transposed, in_flight * image)) * item_bytes


# conv2d_scratch_bytes counts the temporaries' bytes; the allocator adds ALLOCATION_PADDING
# to each of them, and a lowering makes no more than this many per image in flight.
_MOST_TEMPORARIES = 16


@family.scratch("tad.conv2d", "tad.conv2d_backward_data", "tad.conv2d_backward_filter")
def _conv2d_scratch(op) -> int:
    # As many images in flight as the batch has: the most any thread count gives,
    # so that a schedule planned with it holds on every machine.
    batch = op.operands[1 if op.name == "tad.conv2d_backward_filter" else 0].type.shape[0]
    return conv2d_scratch_bytes(op, threads=batch) + batch * _MOST_TEMPORARIES * ALLOCATION_PADDING


# Loop letters: n batch, g group, o output channel, c input channel (both within the
# group), y and x output rows and columns.

@family.lowering("tad.conv2d")
def _lower_conv2d(op):
    # Loops n, g, y, o, c, x: for one output row the input rows of all channels of
    # the group stay in cache across o, the output row across c.
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    data, weight = op.operands
    win, (n, o, oh, ow) = _Window.of(op), op.results[0].type.shape
    planes = _flat_plan(op)
    if planes is not None:
        return [_conv_flat(_split_dim(data, 1, win.groups), _split_dim(weight, 0, win.groups), planes)]
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
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    output_grad, weight = op.operands
    win, (n, c, height, width) = _Window.of(op), op.results[0].type.shape
    planes = _flat_plan(op)
    if planes is not None:  # the convolution of dy with the flipped, transposed kernel
        w = linalg.permuted(_split_dim(weight, 0, win.groups), (0, 2, 1, 3, 4))
        return [_conv_flat(_split_dim(output_grad, 1, win.groups), w, planes)]
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
    if (empty := linalg.zeros_if_empty(op)) is not None:
        return empty
    output_grad, data = op.operands
    win, (o, cg, kh, kw) = _Window.of(op), op.results[0].type.shape
    g = win.groups
    planes = _flat_plan(op)
    if planes is not None:
        return [_filter_flat(_split_dim(data, 1, g), _split_dim(output_grad, 1, g), planes)]
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
    if not prod(prefix):  # no batch elements (a Jacobian of an empty result): nothing to fold them into
        return builder.zeros(prefix + tuple(shape), values[batched].element_type)
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
