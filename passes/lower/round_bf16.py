"""``tad-round-bf16-on-bits``: compute ``bf16`` arithmetic in ``f32``, rounding on the bits; move ``bf16`` as ``i16``.

LLVM computes a ``bf16`` operation in ``f32`` and rounds the result with
the CPU's conversion instruction where it has one (x86's ``vcvtneps2bf16``),
which flushes subnormal results to zero (``2**-130 + 2**-131`` gave 0)
where numpy's ``ml_dtypes`` and JAX keep them (they are ``bf16`` values:
``bf16`` has ``f32``'s exponent range); and its x86 backend aborts the
process on some ``bf16`` vectors (a maximum of 17 elements: "Do not know
how to soft promote this operator's operand"). So that LLVM sees ``bf16``
only in memory, this pass makes

* every op that computes a ``bf16`` value or reads one (``arith``/``math``
  on scalars and vectors, ``vector.reduction``) an ``f32`` op on its
  ``bf16`` operands widened exactly (their bits are the high half of an
  ``f32``: integer ops), its ``bf16`` results rounded to nearest, ties to
  even, on the ``f32``'s bits (NaN becomes the quiet NaN);
* an ``arith.truncf`` to ``bf16`` that rounding (from ``f64`` through
  ``f32``, as ``ml_dtypes`` converts), an ``arith.extf`` from it the widening;
* every op that only moves ``bf16`` elements (``select``, ``vector.broadcast``,
  ``shuffle``, ...) the same op on their ``i16`` bits.

Loads, stores and constants keep their ``bf16`` type. ``tad-lower-to-llvm``
runs it after the loops are lowered, when every ``bf16`` operation is a
scalar or 1-D vector op, and before the conversion to the LLVM dialect.
GPU code does not need it: PTX's ``cvt.rn.bf16.f32`` keeps subnormals.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: vector<4xbf16>, %y: vector<4xbf16>) -> vector<4xbf16> {
...   %0 = arith.addf %x, %y : vector<4xbf16>
...   return %0 : vector<4xbf16>
... }''', make_context())
>>> run_pipeline(m, "tad-round-bf16-on-bits")
>>> print(str(m).count("arith.addf"), "vector<4xf32>" in str(m), "arith.extf" in str(m))
1 True False
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith

from ...dialects.record import Trait, has_trait
from ..walk import collect

# The bits of bf16's quiet NaN (numpy's ml_dtypes gives this one for every NaN).
_QUIET_NAN = 0x7FC0


def _element(t: ir.Type) -> ir.Type:
    return ir.VectorType(t).element_type if isinstance(t, ir.VectorType) else t


def _like(t: ir.Type, element: ir.Type) -> ir.Type:
    """``element``, or a vector of it of ``t``'s shape when ``t`` is a vector."""
    return ir.VectorType.get(ir.VectorType(t).shape, element) if isinstance(t, ir.VectorType) else element


def _is_bf16(t: ir.Type) -> bool:
    return isinstance(_element(t), ir.BF16Type)


def _constant(t: ir.Type, value: int) -> ir.Value:
    """The integer ``value`` as a constant of (integer) type ``t``, splat if ``t`` is a vector."""
    element = _element(t)
    if isinstance(t, ir.VectorType):
        return arith.constant(t, ir.DenseElementsAttr.get_splat(t, ir.IntegerAttr.get(element, value)))
    return arith.constant(t, ir.IntegerAttr.get(element, value))


def _bits(x: ir.Value) -> ir.Value:
    """The ``i16`` bits of the ``bf16`` ``x`` (the bits it was made of, where it was made of bits)."""
    owner = x.owner
    if not isinstance(owner, ir.Block) and owner.name == "arith.bitcast" and not _is_bf16(owner.operands[0].type):
        return owner.operands[0]
    return arith.bitcast(_like(x.type, ir.IntegerType.get_signless(16)), x)


def _widened(x: ir.Value) -> ir.Value:
    """The ``bf16`` ``x`` as ``f32``, exactly: its bits are the high half of the ``f32``'s."""
    i32 = _like(x.type, ir.IntegerType.get_signless(32))
    high = arith.shli(arith.extui(i32, _bits(x)), _constant(i32, 16))
    return arith.bitcast(_like(x.type, ir.F32Type.get()), high)


def round_to_bf16(x: ir.Value) -> ir.Value:
    """The ``f32`` (scalar or vector) ``x`` rounded to ``bf16``: to nearest, ties to even, on its bits."""
    i32, i16 = (_like(x.type, ir.IntegerType.get_signless(width)) for width in (32, 16))
    bits = arith.bitcast(i32, x)
    sixteen = _constant(i32, 16)
    odd = arith.andi(arith.shrui(bits, sixteen), _constant(i32, 1))
    rounded = arith.trunci(i16, arith.shrui(arith.addi(bits, arith.addi(odd, _constant(i32, 0x7FFF))), sixteen))
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, x, x)
    return arith.bitcast(_like(x.type, ir.BF16Type.get()), arith.select(is_nan, _constant(i16, _QUIET_NAN), rounded))


def _touches_bf16(op: ir.Operation) -> bool:
    """Whether ``op`` computes on or moves ``bf16`` values in registers (not to or from memory)."""
    values = [*op.operands, *op.results]
    if not any(_is_bf16(value.type) for value in values) or len(op.regions):
        return False
    if any(isinstance(value.type, ir.MemRefType) for value in values) or has_trait(op, Trait.CONSTANT):
        return False
    # A bitcast to or from bf16's bits is what the rewrites below make of everything else.
    return op.name != "arith.bitcast" and (op.name.startswith("vector.") or has_trait(op, Trait.ELEMENTWISE))


def _computes(op: ir.Operation) -> bool:
    """Whether ``op`` does arithmetic (rather than moving bits): ``arith``/``math`` ops but select, reductions."""
    # The vector dialect's other ops (broadcast, extract, shuffle, ...) move elements.
    return op.name in ("vector.reduction", "vector.fma") or (not op.name.startswith("vector.")
                                                             and op.name != "arith.select")


def _rebuilt(op: ir.Operation, operands: list, element: ir.Type) -> list:
    """``op`` made again with ``operands``, each of its ``bf16`` results of ``element`` instead: its results."""
    types = [_like(result.type, element) if _is_bf16(result.type) else result.type for result in op.results]
    attributes = {name: op.attributes[name] for name in op.attributes}
    return list(ir.Operation.create(op.name, results=types, operands=operands, attributes=attributes).results)


def _replacements(op: ir.Operation) -> list:
    """What replaces each result of ``op`` (inserted before it)."""
    if op.name == "arith.extf":  # from bf16: exact on the bits
        wide = _widened(op.operands[0])
        return [wide if isinstance(_element(op.results[0].type), ir.F32Type) else arith.extf(op.results[0].type, wide)]
    if op.name == "arith.truncf":  # to bf16: the rounding itself (from f64 through f32, as ml_dtypes converts)
        source = op.operands[0]
        if not isinstance(_element(source.type), ir.F32Type):
            source = arith.truncf(_like(source.type, ir.F32Type.get()), source)
        return [round_to_bf16(source)]
    if _computes(op):
        results = _rebuilt(op, [_widened(v) if _is_bf16(v.type) else v for v in op.operands], ir.F32Type.get())
        return [round_to_bf16(r) if _is_bf16(old.type) else r for r, old in zip(results, op.results)]
    i16 = ir.IntegerType.get_signless(16)
    results = _rebuilt(op, [_bits(v) if _is_bf16(v.type) else v for v in op.operands], i16)
    return [arith.bitcast(old.type, r) if _is_bf16(old.type) else r for r, old in zip(results, op.results)]


def run(op: ir.Operation, pass_) -> None:
    """Compute every ``bf16`` op inside ``op`` in ``f32`` (rounding on the bits), and move ``bf16`` bits as ``i16``."""
    for target in collect(op, _touches_bf16):
        with ir.InsertionPoint(target), target.location:
            replacements = _replacements(target)
        for old, new in zip(target.results, replacements):
            old.replace_all_uses_with(new)
        target.erase()
