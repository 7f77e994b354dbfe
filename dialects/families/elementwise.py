"""Elementwise ``arith`` and ``math`` ops on tensors (and scalars).

Upstream declares these ops; their records here hold what tensorad adds:
traits, folds and derivative rules. Every op of the two dialects has a
record (the names come from the bindings' generated op classes), so passes
know each of them to be pure and elementwise without a list of names.

Examples
--------
>>> from tensorad.dialects.record import has_trait, record_of
>>> has_trait("math.erf", Trait.PURE), has_trait("arith.cmpf", Trait.ZERO_DERIVATIVE)
(True, True)
>>> record_of("arith.addf").fold is not None
True
"""

from __future__ import annotations

from typing import Callable, Optional

import ml_dtypes
import numpy as np
from mlir import ir
from mlir.dialects import _arith_ops_gen, _math_ops_gen, arith, math

from .. import builder, linalg_builder
from ..builder import Val
from ..derivatives import RuleContext, defcast, defelementwise
from ..record import Family, Trait, operation_names
from ..shapes import accepts_dynamic, floats

family = Family("elementwise")


# ELEMENTWISE describes an op whose one result is a tensor; passes that fuse
# elementwise ops check that it is (and so take an arith.constant of a dense
# tensor for one, as the remat graph always has).
for _name in ("arith.cmpf", "arith.cmpi", "math.floor", "math.ceil", "math.round", "math.roundeven", "math.trunc"):
    # Piecewise constant in their operands (comparisons, rounding).
    family.upstream(_name, traits=(Trait.PURE, Trait.ELEMENTWISE, Trait.ZERO_DERIVATIVE))
family.upstream("arith.constant", traits=(Trait.PURE, Trait.ELEMENTWISE, Trait.ZERO_DERIVATIVE, Trait.CONSTANT))
# The associative combiners the vectorizer turns into vector reductions.
for _name in ("arith.addf", "arith.addi", "arith.mulf", "arith.muli", "arith.maxsi", "arith.minsi",
              "arith.maxui", "arith.minui", "arith.andi", "arith.ori", "arith.xori"):
    family.upstream(_name, traits=(Trait.PURE, Trait.ELEMENTWISE, Trait.REDUCTION_COMBINER))
# Float max/min return one of their operands: a reduction by one of them passes its adjoint to
# the elements equal to its result.
for _name in ("arith.maximumf", "arith.minimumf", "arith.maxnumf", "arith.minnumf"):
    family.upstream(_name, traits=(Trait.PURE, Trait.ELEMENTWISE, Trait.REDUCTION_COMBINER, Trait.SELECTS))
for _name in operation_names(_arith_ops_gen) + operation_names(_math_ops_gen):
    if _name not in family.names:
        family.upstream(_name, traits=(Trait.PURE, Trait.ELEMENTWISE))


# ----------------------------------------------------------------------------
# Folds (tad-simplify)
# ----------------------------------------------------------------------------

def _is_splat(value: ir.Value, number: float) -> bool:
    scalar = builder.splat_value(value)
    return scalar is not None and scalar.value == number


def _is_zero(value: ir.Value) -> bool:
    return _is_splat(value, 0)


# Scalar arithmetic of two splat constants is evaluated here for floats only:
# integer wrap-around and division rounding are left to the compiled code.
_FLOAT_DTYPES = {"f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32, "f64": np.float64}


def _splat_arithmetic(op: ir.Operation, combine: Callable) -> Optional[ir.Value]:
    """A splat constant for ``combine`` of two float splat constants, or None."""
    a, b = (builder.splat_value(v) for v in op.operands)
    t = op.results[0].type
    if a is None or b is None or not isinstance(t.element_type, ir.FloatType):
        return None
    value = combine(a.value, b.value)
    return builder.constant(float(np.asarray(value, _FLOAT_DTYPES[str(t.element_type)])), t.shape,
                            t.element_type)


@family.fold("arith.addf", "arith.addi")
def _fold_add(op):
    # Drops zero adjoints; the one value this changes is -0.0 + 0.0 (-0.0
    # instead of +0.0), which no derivative depends on.
    lhs, rhs = op.operands
    return lhs if _is_zero(rhs) else (rhs if _is_zero(lhs) else _splat_arithmetic(op, lambda a, b: a + b))


@family.fold("arith.subf", "arith.subi")
def _fold_subtract(op):
    lhs, rhs = op.operands
    return lhs if _is_zero(rhs) else _splat_arithmetic(op, lambda a, b: a - b)


@family.fold("arith.mulf", "arith.muli")
def _fold_multiply(op):
    # Seeds of 1 (grad's cotangent) multiply whole adjoints: drop them.
    lhs, rhs = op.operands
    if _is_splat(rhs, 1):
        return lhs
    return rhs if _is_splat(lhs, 1) else _splat_arithmetic(op, lambda a, b: a * b)


# ----------------------------------------------------------------------------
# Derivatives
# ----------------------------------------------------------------------------

defelementwise(family, "arith.addf", lambda c: 1, lambda c: 1)
defelementwise(family, "arith.subf", lambda c: 1, lambda c: -1)
defelementwise(family, "arith.mulf", lambda c: c.inputs[1], lambda c: c.inputs[0])
defelementwise(family, "arith.divf", lambda c: builder.reciprocal(c.inputs[1]),
               lambda c: builder.negative(c.outputs[0] / c.inputs[1]))
defelementwise(family, "arith.negf", lambda c: -1)


def _max_share(c: RuleContext, wins: Callable) -> Val:
    """1 where operand 0 wins, 0 where it loses, 1/2 on ties (as JAX splits them).

    ``wins(a, b)`` is an ``i1`` tensor, true where the result is ``a`` and not ``b``.
    """
    a, b = c.inputs
    won = wins(a, b)
    tie = builder.convert(builder.equal(a, b), a.element_type) * 0.5
    return builder.select(won, 1.0, tie)


defelementwise(family, "arith.maximumf", lambda c: _max_share(c, builder.greater),
               lambda c: 1.0 - _max_share(c, builder.greater))
defelementwise(family, "arith.minimumf", lambda c: _max_share(c, builder.less),
               lambda c: 1.0 - _max_share(c, builder.less))


def _beats_nan(compare: Callable) -> Callable:
    """``compare(a, b)`` or ``b`` is NaN: maxnumf and minnumf return the operand that is a number."""
    return lambda a, b: builder.logical_or(compare(a, b), builder.not_equal(b, b))


defelementwise(family, "arith.maxnumf", lambda c: _max_share(c, _beats_nan(builder.greater)),
               lambda c: 1.0 - _max_share(c, _beats_nan(builder.greater)))
defelementwise(family, "arith.minnumf", lambda c: _max_share(c, _beats_nan(builder.less)),
               lambda c: 1.0 - _max_share(c, _beats_nan(builder.less)))
# remf(a, b) = a - b * trunc(a / b): the quotient is constant between its jumps.
defelementwise(family, "arith.remf", lambda c: 1,
               lambda c: builder.negative(builder.trunc(c.inputs[0] / c.inputs[1])))
defcast(family, "arith.extf")
defcast(family, "arith.truncf")


# Selecting (not multiplying by a 0/1 mask, as JAX): an inf or NaN derivative in
# the branch not taken stays out, so where(y == 0, 0, y * x ** (y - 1)) has
# finite derivatives of every order at x = 0.
@family.jvp("arith.select")
def _select_jvp(c: RuleContext, tangents: list) -> list:
    _, on_true, on_false = tangents
    if on_true is None and on_false is None:
        return [None]
    like = on_true if on_true is not None else on_false
    on_true = on_true if on_true is not None else c.zeros_like_input(1, like)
    on_false = on_false if on_false is not None else c.zeros_like_input(2, like)
    return [builder.select(c.inputs[0], on_true, on_false)]


@family.vjp("arith.select")
def _select_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    zeros = builder.zeros_like(ct)
    return [None, builder.select(c.inputs[0], ct, zeros), builder.select(c.inputs[0], zeros, ct)]


defelementwise(family, "math.exp", lambda c: c.outputs[0])
defelementwise(family, "math.exp2", lambda c: c.outputs[0] * 0.6931471805599453)  # ln 2
defelementwise(family, "math.expm1", lambda c: c.outputs[0] + 1.0)
defelementwise(family, "math.log", lambda c: builder.reciprocal(c.inputs[0]))
defelementwise(family, "math.log1p", lambda c: builder.reciprocal(c.inputs[0] + 1.0))
defelementwise(family, "math.log2", lambda c: builder.reciprocal(c.inputs[0] * 0.6931471805599453))  # x ln 2
defelementwise(family, "math.log10", lambda c: builder.reciprocal(c.inputs[0] * 2.302585092994046))  # x ln 10
defelementwise(family, "math.tanh", lambda c: 1.0 - builder.square(c.outputs[0]))
defelementwise(family, "math.sin", lambda c: builder.cos(c.inputs[0]))
defelementwise(family, "math.cos", lambda c: builder.negative(builder.sin(c.inputs[0])))
defelementwise(family, "math.tan", lambda c: 1.0 + builder.square(c.outputs[0]))
defelementwise(family, "math.sinh", lambda c: builder.cosh(c.inputs[0]))
defelementwise(family, "math.cosh", lambda c: builder.sinh(c.inputs[0]))


def _one_minus_square(c: RuleContext) -> Val:
    """``1 - x**2`` as ``(1 - x)(1 + x)``: no cancellation near ``|x| = 1``, where asin, acos, atanh are steep."""
    x = c.inputs[0]
    return (1.0 - x) * (1.0 + x)


defelementwise(family, "math.asin", lambda c: builder.rsqrt(_one_minus_square(c)))
defelementwise(family, "math.acos", lambda c: builder.negative(builder.rsqrt(_one_minus_square(c))))
defelementwise(family, "math.atan", lambda c: builder.reciprocal(1.0 + builder.square(c.inputs[0])))
defelementwise(family, "math.asinh", lambda c: builder.rsqrt(builder.square(c.inputs[0]) + 1.0))
# (x - 1)(x + 1) rather than x**2 - 1, exact near x = 1 for the same reason.
defelementwise(family, "math.acosh", lambda c: builder.rsqrt((c.inputs[0] - 1.0) * (c.inputs[0] + 1.0)))
defelementwise(family, "math.atanh", lambda c: builder.reciprocal(_one_minus_square(c)))
defelementwise(family, "math.sqrt", lambda c: 0.5 / c.outputs[0])
defelementwise(family, "math.rsqrt", lambda c: -0.5 * c.outputs[0] / c.inputs[0])
# From the result: 1 / (3 cbrt(x)**2), without dividing by x.
defelementwise(family, "math.cbrt", lambda c: builder.reciprocal(3.0 * builder.square(c.outputs[0])))
defelementwise(family, "math.absf", lambda c: builder.sign(c.inputs[0]))


def _erf_slope(c: RuleContext) -> Val:
    """``d/dx erf(x) = 2 / sqrt(pi) * exp(-x**2)``."""
    return 1.1283791670955126 * builder.exp(builder.negative(builder.square(c.inputs[0])))


defelementwise(family, "math.erf", _erf_slope)
defelementwise(family, "math.erfc", lambda c: builder.negative(_erf_slope(c)))
defelementwise(family, "math.fma", lambda c: c.inputs[1], lambda c: c.inputs[0], lambda c: 1)
# copysign(a, b) = |a| * (+-1 by the sign bit of b); it is constant in b between its jumps,
# and its slope in a is that of |a| (0 at a = 0, as math.absf's) times b's sign.
defelementwise(family, "math.copysign", lambda c: builder.sign(c.inputs[0]) * builder.copysign(1.0, c.inputs[1]),
               None)


def _power_base_partial(c: RuleContext) -> Val:
    """``y * x ** (y - 1)``, with the exponent 1 instead of -1 where ``x == y == 0``.

    There it is ``0 * 0 ** 1 = 0`` (``x ** 0`` is constant, even at ``x == 0``,
    as in JAX), and so are the derivatives in ``x`` of every order of the
    partial itself, where ``0 * 0 ** -1`` would leave ``0 * inf = nan``.
    Elsewhere the exponent stays ``y - 1``, so the derivative in ``y`` is right.
    """
    x, y = c.inputs
    at_origin = builder.logical_and(builder.equal(x, 0.0), builder.equal(y, 0.0))
    return y * builder.power(x, builder.select(at_origin, 1.0, y - 1.0))


def _power_exponent_partial(c: RuleContext) -> Val:
    """``log(x) * x ** y``, with ``log(1) = 0`` in place of ``log(0)`` where ``x == 0``."""
    x = c.inputs[0]
    return builder.log(builder.select(builder.equal(x, 0.0), 1.0, x)) * c.outputs[0]


defelementwise(family, "math.powf", _power_base_partial, _power_exponent_partial)


def _integer_power_partial(c: RuleContext) -> Val:
    """``n * x ** (n - 1)`` of ``math.fpowi``; 0 where ``n == 0`` (not ``0 * 0 ** -1 = nan``, as for powf)."""
    x, n = c.inputs
    exponent = builder.select(builder.equal(n, 0), 1, n - 1)
    power = ir.Operation.create("math.fpowi", results=[x.type], operands=[x, exponent]).result
    return builder.convert(n, x.element_type) * power


# The integer exponent is not differentiable.
defelementwise(family, "math.fpowi", _integer_power_partial, None)


def _atan2_denominator(c: RuleContext) -> Val:
    y, x = c.inputs
    return builder.square(x) + builder.square(y)


defelementwise(family, "math.atan2", lambda c: c.inputs[1] / _atan2_denominator(c),
               lambda c: builder.negative(c.inputs[0]) / _atan2_denominator(c))


# ----------------------------------------------------------------------------
# tad.logistic: the sigmoid as one op, so its derivative reuses its result
# ----------------------------------------------------------------------------

family.define("tad.logistic", operands=("operand",),
              summary="Elementwise logistic sigmoid 1 / (1 + exp(-x)) of floats, accurate in both tails.",
              traits=(Trait.PURE, Trait.ELEMENTWISE))


@family.shape_rule("tad.logistic")
@accepts_dynamic
def _logistic_shape(operands, attrs, results):
    (x,) = operands
    floats(x, "operand")
    return [x]


@family.lowering("tad.logistic")
def _lower_logistic(op):
    def element(x, _out):
        # Both tails from exp(-|x|), which never overflows: sigmoid(-40) keeps its relative precision.
        decay = math.exp(arith.negf(math.absf(x)))
        one = arith.constant(x.type, ir.FloatAttr.get(x.type, 1.0))
        total = arith.addf(one, decay)
        zero = arith.constant(x.type, ir.FloatAttr.get(x.type, 0.0))
        return arith.select(arith.cmpf(arith.CmpFPredicate.OGE, x, zero),
                            arith.divf(one, total), arith.divf(decay, total))

    x = op.operands[0]
    return [linalg_builder.parallel([x], [range(x.type.rank)], x.type, element)]


defelementwise(family, "tad.logistic", lambda c: c.outputs[0] * (1.0 - c.outputs[0]))
