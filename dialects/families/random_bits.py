"""Counter-based random bits as one ``tad`` op: ``tad.threefry2x32``, the hash behind ``tensorad.random``.

Threefry-2x32 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3",
2011; 20 rounds, as JAX's ``threefry2x32_p``) maps a key ``(k1, k2)`` and a
counter ``(x1, x2)`` of 32-bit words to two words. Written with ``tad``
elementwise ops, one hash was about 115 tensor ops (5 groups of 4 rounds of
add, two shifts, or and xor, and the key injections), and a program that
draws from a few distributions had tens of thousands of them: every pass,
and upstream fusion, walked each. As one op it lowers to one all-parallel
``linalg.generic`` whose body is the rounds on scalars, which vectorizes as
any elementwise loop does: the same bits, the same machine code after
fusion, a hundredth of the IR.

int32 addition wraps as uint32's does, and the right shifts are logical, so
the words are JAX's bit for bit (``tensorad.random`` holds them as int32).
The op is elementwise (its operands and results have one shape; the caller
broadcasts), so it batches and partitions as any elementwise op, and its
results are integers: no derivative.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("tad.threefry2x32", Trait.ELEMENTWISE), has_trait("tad.threefry2x32", Trait.ZERO_DERIVATIVE)
(True, True)
>>> record_of("tad.threefry2x32").declaration.results
('bits1', 'bits2')
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import arith

from .. import builder, linalg_builder
from ..builder import Val
from ..record import Family, Trait
from ..shapes import accepts_dynamic, dims_agree, need

family = Family("random_bits")

WORD_BITS = 32
# Threefry's key-schedule parity constant, and the rotations of its rounds, alternating in groups of four.
PARITY = 0x1BD11BDA
ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
GROUPS = 5
# Integer ops per element: 20 rounds of 5 (add, shl, shr, or, xor), 5 key injections of 3, 2 key words, 1 parity.
_OPS_PER_ELEMENT = 20 * 5 + GROUPS * 3 + 2 + 2

family.define("tad.threefry2x32", operands=("key1", "key2", "count1", "count2"), results=("bits1", "bits2"),
              summary="Threefry-2x32 (20 rounds) of the int32 words (count1, count2) under the key (key1, key2), "
                      "elementwise.",
              traits=(Trait.PURE, Trait.ELEMENTWISE, Trait.ZERO_DERIVATIVE),
              flops=lambda op: _OPS_PER_ELEMENT * math.prod(op.results[0].type.shape))  # static: see flops_of


@family.shape_rule("tad.threefry2x32")
@accepts_dynamic
def _threefry_shape(operands, attrs, results):
    first = operands[0]
    for name, spec in zip(("key1", "key2", "count1", "count2"), operands):
        need(isinstance(spec.element_type, ir.IntegerType) and spec.element_type.width == WORD_BITS,
             f"{name} must have i32 elements (a 32-bit word), got {spec.element_type}")
        need(len(spec.shape) == len(first.shape) and all(map(dims_agree, spec.shape, first.shape)),
             f"the words must have one shape (broadcast them first), got {list(first.shape)} and "
             f"{list(spec.shape)}")
    return [first, first]


def _rounds(k1: ir.Value, k2: ir.Value, x1: ir.Value, x2: ir.Value) -> list:
    """The hash on scalar i32 words (inside the generic's body): ``[y1, y2]``."""
    i32 = k1.type
    constants: dict = {}  # one constant of each value per body (shift amounts repeat in every group)

    def word(value: int) -> ir.Value:
        value &= (1 << WORD_BITS) - 1
        if value not in constants:
            constants[value] = arith.constant(i32, value - (1 << WORD_BITS) if value >> (WORD_BITS - 1) else value)
        return constants[value]

    def rotate_left(x, distance: int):
        return arith.ori(arith.shli(x, word(distance)), arith.shrui(x, word(WORD_BITS - distance)))

    schedule = (k1, k2, arith.xori(arith.xori(k1, k2), word(PARITY)))
    x1, x2 = arith.addi(x1, k1), arith.addi(x2, k2)
    for group in range(GROUPS):
        for distance in ROTATIONS[group % 2]:
            x1 = arith.addi(x1, x2)
            x2 = arith.xori(rotate_left(x2, distance), x1)
        x1 = arith.addi(x1, schedule[(group + 1) % 3])
        x2 = arith.addi(arith.addi(x2, schedule[(group + 2) % 3]), word(group + 1))
    return [x1, x2]


@family.lowering("tad.threefry2x32")
def _lower(op):
    """Two generics, each hashing and yielding one word: a generic of two results has two uses, and
    upstream fusion moves only a producer of one use into its consumer. Where one consumer reads both
    words (the bits of a draw), both bodies fuse into it, on the same operands, and CSE keeps one hash."""
    words = list(op.operands)
    t = op.results[0].type
    rank = t.rank
    identity = list(range(rank))
    sizes = linalg_builder.dynamic_sizes(words[0], [d for d in identity if ir.ShapedType.is_dynamic_size(t.shape[d])])
    maps = [linalg_builder.affine_map(rank, identity)] * 5
    return [linalg_builder.generic(words, [linalg_builder.empty(t, sizes)], maps, ["parallel"] * rank,
                                   lambda k1, k2, x1, x2, _out, which=which: [_rounds(k1, k2, x1, x2)[which]])[0]
            for which in (0, 1)]


def threefry2x32(key1, key2, count1, count2) -> list[Val]:
    """``[bits1, bits2]``: the Threefry-2x32 hash of the counters under the keys (``tad.threefry2x32``).

    The four int32 operands are broadcast to one shape first.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         key = builder.constant(1, (), ir.IntegerType.get_signless(32))
    ...         counts = builder.constant(0, (2, 3), ir.IntegerType.get_signless(32))
    ...         bits = threefry2x32(key, key, counts, counts)
    >>> [b.shape for b in bits]
    [(2, 3), (2, 3)]
    """
    words = [builder.wrap(w) for w in (key1, key2, count1, count2)]
    shape = builder.broadcast_shapes(*(w.shape for w in words))
    return builder.build_all("tad.threefry2x32", [builder.broadcast_to(w, shape) for w in words], {})
