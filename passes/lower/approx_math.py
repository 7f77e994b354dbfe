"""``tad-approximate-math``: ``math.exp`` and ``math.tanh`` on float32 vectors as polynomials.

LLVM has no vector ``tanh``, and lowers a vector ``exp`` to one ``expf``
call per lane: a vectorized loop would spend nearly all its time in libm.
This pass expands both on ``vector<...xf32>`` into FMAs and a division, the
approximations used by Cephes and Eigen (as in upstream MLIR's polynomial
approximation patterns, which these Python bindings do not expose):

* ``exp(x) = 2**n * p(r)`` with ``n = round(x / ln 2)``, ``r = x - n ln 2``
  (``ln 2`` split in two for precision) and ``p`` Cephes' degree-7
  polynomial; ``2**n`` is built from the exponent bits as two factors, so
  large ``x`` overflows to ``inf`` and small ``x`` reaches the subnormals;
  relative error below 1e-7 over the normal range;
* ``tanh(x) = x p(x**2) / q(x**2)`` on ``x`` clamped to +-7.9988 (where
  ``tanh`` rounds to +-1), Eigen's rational approximation, and ``x`` itself
  for ``|x| < 4e-4``; relative error below 4e-7.

NaN stays NaN. Scalars and float64 keep libm's correctly rounded functions
(and GPU kernels libdevice's).

``math.expm1`` of every float type, scalar or vector, becomes Kahan's
``(u - 1) x / log(u)`` with ``u = exp(x)`` (``x`` itself where ``u`` rounds
to 1): upstream lowers it to ``exp(x) - 1``, which loses every digit of a
small ``x``; the quotient's rounding errors cancel, leaving a few ulps.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: vector<16xf32>) -> vector<16xf32> {
...   %0 = math.tanh %x : vector<16xf32>
...   return %0 : vector<16xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-approximate-math")
>>> "math.tanh" in str(m), "arith.divf" in str(m)
(False, True)
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, math

from ..walk import collect

# Cephes expf: ln 2 = _LN2_HI + _LN2_LO, and the polynomial's coefficients, highest first.
_LOG2E, _LN2_HI, _LN2_LO = 1.44269504088896341, 0.693359375, -2.12194440e-4
_EXP_POLY = (1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2,
             1.6666665459e-1, 5.0000001201e-1)
# exp(x) is +inf above this and 0 below the lower bound (2**-150 rounds to 0).
_EXP_HIGH, _EXP_LOW = 88.8, -104.0
_F32_BIAS, _F32_MANTISSA_BITS = 127, 23
# Eigen's tanh: odd numerator, even denominator, highest coefficient first.
_TANH_CLAMP, _TANH_TINY = 7.99881172180175781, 0.0004
_TANH_NUM = (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
             1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03)
_TANH_DEN = (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03)


def run(op: ir.Operation, pass_) -> None:
    """Expand every ``math.expm1``, then every float32 vector ``math.exp``/``math.tanh`` inside ``op``."""
    # expm1 first: the exp it expands into is then expanded too where it is a float32 vector.
    for target in collect(op, lambda inner: inner.name == "math.expm1"):
        with ir.InsertionPoint(target), target.location:
            value = _expm1(_Builder(target.results[0].type), target.operands[0])
        target.results[0].replace_all_uses_with(value)
        target.erase()
    targets = collect(op, lambda inner: inner.name in _EXPANSIONS and _is_f32_vector(inner.results[0].type))
    for target in targets:
        with ir.InsertionPoint(target), target.location:
            value = _EXPANSIONS[target.name](_Builder(target.results[0].type), target.operands[0])
        target.results[0].replace_all_uses_with(value)
        target.erase()


def _is_f32_vector(t: ir.Type) -> bool:
    return isinstance(t, ir.VectorType) and isinstance(t.element_type, ir.F32Type)


class _Builder:
    """Constants (splats for vectors) and the few ops the expansions need, for one type."""

    def __init__(self, value_type: ir.Type):
        self.type = value_type
        i32 = ir.IntegerType.get_signless(32)
        self.vector = isinstance(value_type, ir.VectorType)
        self.int_type = ir.VectorType.get(value_type.shape, i32) if self.vector else i32
        self.element = value_type.element_type if self.vector else value_type

    def const(self, value: float) -> ir.Value:
        return self._constant(self.type, ir.FloatAttr.get(self.element, value))

    def int_const(self, value: int) -> ir.Value:
        return self._constant(self.int_type, ir.IntegerAttr.get(ir.IntegerType.get_signless(32), value))

    def _constant(self, t: ir.Type, attr: ir.Attribute) -> ir.Value:
        return arith.constant(t, ir.DenseElementsAttr.get_splat(t, attr) if self.vector else attr)

    def horner(self, x: ir.Value, coefficients) -> ir.Value:
        """``c0 x**k + ... + ck`` with one FMA per coefficient."""
        acc = self.const(coefficients[0])
        for c in coefficients[1:]:
            acc = math.fma(acc, x, self.const(c))
        return acc

    def clamp(self, x: ir.Value, low: float, high: float) -> ir.Value:
        """``x`` clamped to ``[low, high]``; NaN stays NaN."""
        return arith.minimumf(arith.maximumf(x, self.const(low)), self.const(high))

    def power_of_two(self, n: ir.Value) -> ir.Value:
        """``2**n`` for an integer vector ``n`` in the float32 normal range, from its exponent bits."""
        biased = arith.addi(n, self.int_const(_F32_BIAS))
        return arith.bitcast(self.type, arith.shli(biased, self.int_const(_F32_MANTISSA_BITS)))


def _exp(b: _Builder, x: ir.Value) -> ir.Value:
    clamped = b.clamp(x, _EXP_LOW, _EXP_HIGH)
    n = math.floor(math.fma(clamped, b.const(_LOG2E), b.const(0.5)))
    r = math.fma(n, b.const(-_LN2_LO), math.fma(n, b.const(-_LN2_HI), clamped))
    p = math.fma(b.horner(r, _EXP_POLY), arith.mulf(r, r), arith.addf(r, b.const(1.0)))
    # 2**n as 2**half * 2**(n - half): each factor is a normal float even
    # where 2**n overflows or is subnormal.
    whole = arith.fptosi(b.int_type, n)
    half = arith.shrsi(whole, b.int_const(1))
    scaled = arith.mulf(arith.mulf(p, b.power_of_two(half)), b.power_of_two(arith.subi(whole, half)))
    # fptosi of NaN is poison: pick x itself for NaN.
    is_nan = arith.cmpf(arith.CmpFPredicate.UNO, x, x)
    return arith.select(is_nan, x, scaled)


def _tanh(b: _Builder, x: ir.Value) -> ir.Value:
    clamped = b.clamp(x, -_TANH_CLAMP, _TANH_CLAMP)
    square = arith.mulf(clamped, clamped)
    numerator = arith.mulf(clamped, b.horner(square, _TANH_NUM))
    ratio = arith.divf(numerator, b.horner(square, _TANH_DEN))
    tiny = arith.cmpf(arith.CmpFPredicate.OLT, math.absf(x), b.const(_TANH_TINY))
    return arith.select(tiny, x, ratio)


def _expm1(b: _Builder, x: ir.Value) -> ir.Value:
    u = math.exp(x)
    shifted = arith.subf(u, b.const(1.0))
    kahan = arith.divf(arith.mulf(shifted, x), math.log(u))
    # u == 1: x itself (0/0 otherwise); u == 0: -1; u == inf: inf (inf/inf otherwise).
    out = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, u, b.const(float("inf"))), u, kahan)
    out = arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, shifted, b.const(-1.0)), shifted, out)
    return arith.select(arith.cmpf(arith.CmpFPredicate.OEQ, u, b.const(1.0)), x, out)


_EXPANSIONS: dict[str, Callable[[_Builder, ir.Value], ir.Value]] = {"math.exp": _exp, "math.tanh": _tanh}
