"""JAX's ``lax`` functions composed from :mod:`tensorad.numpy`: elementwise math, structure, reductions, contractions.

:mod:`tensorad.lax` re-exports every name of this module. No function here
adds an op: each checks its operands as ``jax.lax`` does, then calls
``tensorad.numpy`` functions, so derivatives, ``vmap`` and eager calls come
with them. ``erf``, ``erfc``, ``logistic`` and ``complex``, which
``tensorad.numpy`` lacks, build the existing ops that
``tensorad.scipy.special.erf``/``erfc``, ``tensorad.nn.sigmoid`` and
``tensorad.numpy``'s complex helpers build (those modules import
:mod:`tensorad.lax`, which imports this one). ``map`` looks
:func:`tensorad.lax.scan` up when called, for the same reason.

``lax`` is stricter than ``numpy``: the operands of an elementwise function must
have one dtype (no promotion) and one shape, except that an operand of rank 0
and dims of size 1 broadcast, as in JAX 0.10. A Python number is weakly typed:
it takes the dtype of the array operand when it is of a kind that dtype holds
(an ``int`` for a float array, not a ``float`` for an integer array); alone,
Python numbers are ``int64``, ``float64``, ``complex128`` or ``bool``, as JAX's
with ``jax_enable_x64``. A mismatch raises ``TypeError`` with JAX's message.

The elementwise functions are generated from two tables (name -> ``tensorad.numpy``
function, accepted dtype kinds, description) around one shared operand checker,
:func:`_operands`.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import lax
>>> ta.jit(lambda x: lax.div(x, np.int32(2)) + lax.rem(x, np.int32(2)))(np.array([7, -7], np.int32))
array([ 4, -4], dtype=int32)
>>> lax.pad(np.arange(3.0), 0.0, [(1, -1, 1)])
array([0., 0., 0., 1., 0.])
"""

from __future__ import annotations

import builtins
import enum
import importlib
import math
from typing import Callable, Sequence

import ml_dtypes
import numpy as np

from tensorad.dialects import builder

from . import dtypes
from . import numpy as tnp
from . import tree
from .tracing import Tracer, emits_ops, user_line

# This module's names shadow the builtins abs, max, min, round, pow, complex and map: these are the builtins.
_max, _min, _abs = builtins.max, builtins.min, builtins.abs
_PY_SCALARS = (bool, int, float, builtins.complex)

# Dtype kinds: b(ool), i(nteger), f(loating, half precision included), c(omplex); with JAX's names for messages.
_KIND_NAMES = {"b": "bool", "i": "integer", "f": "floating", "c": "complexfloating"}
# The kinds of array dtype a Python number may take (JAX's weak types); a Python bool is strongly typed.
_WEAK_FITS = {bool: "b", int: "ifc", float: "fc", builtins.complex: "c"}
_WEAK_DEFAULTS = {bool: np.dtype("bool"), int: np.dtype("int64"), float: np.dtype("float64"),
                  builtins.complex: np.dtype("complex128")}


def _kind(dtype) -> str:
    if dtypes.is_bool(dtype):
        return "b"
    if dtypes.is_complex(dtype):
        return "c"
    if dtypes.is_float(dtype):
        return "f"
    return "i"


def _is_weak(x) -> bool:
    """A Python number (not a numpy scalar, which is typed, as in JAX)."""
    return isinstance(x, _PY_SCALARS) and not isinstance(x, np.generic)


def _weak_type(x) -> type:
    return bool if isinstance(x, bool) else int if isinstance(x, int) else \
        float if isinstance(x, float) else builtins.complex


def _accepted(kinds: str) -> str:
    return ", ".join(_KIND_NAMES[k] for k in kinds)


def _check_kind(name: str, dtype, kinds: str, position: int | None = None) -> None:
    if _kind(dtype) in kinds:
        return
    if position is None:
        raise TypeError(f"{name} does not accept dtype {np.dtype(dtype).name}. "
                        f"Accepted dtypes are subtypes of {_accepted(kinds)}.")
    raise TypeError(f"{name} does not accept dtype {np.dtype(dtype).name} at position {position}. "
                    f"Accepted dtypes at position {position} are subtypes of {_accepted(kinds)}.")


def _broadcast_shape(name: str, shapes: Sequence[tuple]) -> tuple:
    """JAX's rule for lax's elementwise operands: rank 0 broadcasts; otherwise one rank, dims equal or 1."""
    shapes = [tuple(s) for s in shapes]
    ranked = [s for s in shapes if s]
    if not ranked:
        return ()
    if len({len(s) for s in ranked}) != 1:
        raise TypeError(f"{name}: arrays must have the same number of dimensions, got "
                        f"{set(len(s) for s in ranked)}")
    out = []
    for dims in zip(*ranked):
        big = {d for d in dims if d != 1}
        if len(big) > 1:
            raise TypeError(f"{name} got incompatible shapes for broadcasting: "
                            f"{', '.join(str(s) for s in ranked)}.")
        out.append(big.pop() if big else 1)
    return tuple(out)


def _operands(name: str, args: Sequence, kinds, *, same_dtype: bool = True, broadcast: bool | None = True) -> list:
    """The shared checker of lax's elementwise functions: ``args`` as traced arrays of one shape (and dtype).

    ``kinds`` is a string of accepted dtype kinds (``"bifc"``), or one per
    position. A Python number takes the dtype of the first array operand when
    it fits that dtype's kind, else its own (``int64``, ``float64``, ...). With
    ``same_dtype`` the operands must then share one dtype. Shapes follow
    :func:`_broadcast_shape`; with ``broadcast`` the operands come back
    broadcast to the common shape (``None``: shapes are not checked, for the
    non-elementwise functions). Raises ``TypeError`` with JAX's messages.
    """
    kinds = (kinds,) * len(args) if isinstance(kinds, str) else tuple(kinds)
    arrays = [a if _is_weak(a) else tnp.asarray(a) for a in args]
    target = next((x.dtype for x in arrays if isinstance(x, Tracer)), None)
    for position, a in enumerate(arrays):
        if not isinstance(a, Tracer):
            weak = _weak_type(a)
            fits = target is not None and _kind(target) in _WEAK_FITS[weak]
            arrays[position] = tnp.asarray(a, target if fits else _WEAK_DEFAULTS[weak])
    if same_dtype and len({x.dtype for x in arrays}) > 1:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in arrays)}.")
    for position, (x, accepted) in enumerate(zip(arrays, kinds)):
        _check_kind(name, x.dtype, accepted, position if len(arrays) > 1 else None)
    if broadcast is None:
        return arrays
    shape = _broadcast_shape(name, [x.shape for x in arrays])
    return [tnp.broadcast_to(x, shape) for x in arrays] if broadcast else arrays


def _operand(name: str, x, kinds: str) -> Tracer:
    return _operands(name, (x,), kinds)[0]


# ----------------------------------------------------------------------------
# Elementwise functions that are not one tensorad.numpy call
# ----------------------------------------------------------------------------

def _bits(dtype) -> int:
    return np.dtype(dtype).itemsize * 8


def _wrapped(value: int, bits: int) -> int:
    """``value`` modulo ``2**bits`` as a signed integer of ``bits`` bits."""
    value %= 1 << bits
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _shifted_by(name: str, x: Tracer, k: int) -> Tracer:
    """``arith`` shift ``name`` of the integers ``x`` by the Python int ``k`` (in range: LLVM's shift past the
    width is poison)."""
    amount = builder.constant(k, x.shape, dtypes.to_mlir(x.dtype))
    return Tracer(builder.elementwise(name, [x.value, amount]), x.shape, x.dtype)


def shift_left_by(x: Tracer, k: int) -> Tracer:
    """``x << k`` for a Python int ``0 <= k < bits`` (wrapping).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(lambda x: shift_left_by(x, 4))(np.array([1, -1], np.int32))
    array([ 16, -16], dtype=int32)
    """
    return _shifted_by("arith.shli", x, k)


def shift_right_by(x: Tracer, k: int, logical: bool) -> Tracer:
    """``x >> k`` (sign-filling, or zero-filling with ``logical``) for a Python int ``0 <= k < bits``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(lambda x: (shift_right_by(x, 28, logical=True), shift_right_by(x, 28, logical=False)))(
    ...     np.array([-1], np.int32))
    (array([15], dtype=int32), array([-1], dtype=int32))
    """
    return _shifted_by("arith.shrui" if logical else "arith.shrsi", x, k)


def _sign(x: Tracer) -> Tracer:
    s = tnp.sign(x)
    return tnp.where(tnp.equal(x, 0), x, s) if dtypes.is_float(x.dtype) else s  # -0.0 stays -0.0


def _conj(x: Tracer) -> Tracer:
    if dtypes.is_complex(x.dtype):
        return tnp.conjugate(x)
    if x.dtype not in (np.dtype("float32"), np.dtype("float64")):
        raise TypeError(f"conj does not accept dtype {x.dtype.name}. Accepted dtypes are subtypes of "
                        "float32, float64, complexfloating.")
    return tnp.astype(x, dtypes.complex_of(x.dtype))


def _logistic(x: Tracer) -> Tracer:
    return Tracer.of(builder.build("tad.logistic", [x.value], {}))  # tensorad.nn.sigmoid's op


def _erf(x: Tracer) -> Tracer:
    return Tracer.of(builder.elementwise("math.erf", [x.value]))  # tensorad.scipy.special.erf's op


def _erfc(x: Tracer) -> Tracer:
    return Tracer.of(builder.elementwise("math.erfc", [x.value]))  # tensorad.scipy.special.erfc's op


def _population_count(x: Tracer) -> Tracer:
    """The number of set bits of each element (SWAR: bit counts of pairs, nibbles, bytes, then summed)."""
    bits = _bits(x.dtype)
    repeated = lambda byte: int(byte * (bits // 8), 16)  # noqa: E731
    m1, m2, m4, h01 = repeated("55"), repeated("33"), repeated("0f"), repeated("01")
    x = tnp.subtract(x, tnp.bitwise_and(shift_right_by(x, 1, True), m1))
    x = tnp.add(tnp.bitwise_and(x, m2), tnp.bitwise_and(shift_right_by(x, 2, True), m2))
    x = tnp.bitwise_and(tnp.add(x, shift_right_by(x, 4, True)), m4)
    return shift_right_by(tnp.multiply(x, h01), bits - 8, True)


def _clz(x: Tracer) -> Tracer:
    """The number of leading zero bits of each element (a binary search over the top bits)."""
    bits = _bits(x.dtype)
    count = tnp.zeros_like(x)
    step = bits // 2
    while step:
        top_zero = tnp.equal(shift_right_by(x, bits - step, True), 0)
        count = tnp.add(count, tnp.astype(tnp.where(top_zero, step, 0), x.dtype))
        x = tnp.where(top_zero, shift_left_by(x, step), x)
        step //= 2
    return tnp.add(count, tnp.astype(tnp.equal(shift_right_by(x, bits - 1, True), 0), x.dtype))


def _max_or_min(kind: str):
    def fn(x: Tracer, y: Tracer) -> Tracer:
        if not dtypes.is_complex(x.dtype):
            return (tnp.maximum if kind == "max" else tnp.minimum)(x, y)
        # Complex numbers compare lexicographically (real part, then imaginary part), as in XLA.
        better = tnp.greater if kind == "max" else tnp.less
        xr, yr = tnp.real(x), tnp.real(y)
        pick_x = tnp.logical_or(better(xr, yr), tnp.logical_and(tnp.equal(xr, yr),
                                                                 tnp.logical_not(better(tnp.imag(y), tnp.imag(x)))))
        return tnp.where(pick_x, x, y)

    return fn


def _div(x: Tracer, y: Tracer) -> Tracer:
    """Integers: the quotient truncated toward zero (``x / 0`` is -1, ``INT_MIN / -1`` wraps, as XLA's)."""
    if _kind(x.dtype) == "i":
        quotient = tnp.floor_divide(x, y)
        remainder = tnp.fmod(x, y)
        rounded_down = tnp.logical_and(tnp.not_equal(remainder, 0), tnp.not_equal(tnp.less(x, 0), tnp.less(y, 0)))
        return tnp.where(tnp.equal(y, 0), -1, tnp.add(quotient, tnp.astype(rounded_down, x.dtype)))
    return tnp.divide(x, y)


def _rem(x: Tracer, y: Tracer) -> Tracer:
    """C's remainder, with the sign of ``x`` (integers: ``x % 0`` is ``x``, as XLA's)."""
    if _kind(x.dtype) == "i":
        return tnp.where(tnp.equal(y, 0), x, tnp.fmod(x, y))
    return tnp.fmod(x, y)


def _power_of_two(exponent: Tracer) -> Tracer:
    """``2**exponent`` in the integer dtype of ``exponent`` (wrapping at the sign bit); ``0 <= exponent < bits``."""
    return tnp.power(tnp.asarray(2, exponent.dtype), exponent)


def _shift_left(x: Tracer, y: Tracer) -> Tracer:
    inside = tnp.logical_and(tnp.greater_equal(y, 0), tnp.less(y, _bits(x.dtype)))
    return tnp.where(inside, tnp.multiply(x, _power_of_two(tnp.where(inside, y, 0))), 0)


def _shift_right_arithmetic(x: Tracer, y: Tracer) -> Tracer:
    bits = _bits(x.dtype)
    # A shift by bits - 1 or more (a negative one counts as huge, as XLA's unsigned amounts) fills with the sign.
    full = tnp.logical_or(tnp.less(y, 0), tnp.greater_equal(y, bits - 1))
    shifted = tnp.floor_divide(x, _power_of_two(tnp.where(full, 0, y)))
    return tnp.where(full, tnp.negative(tnp.astype(tnp.less(x, 0), x.dtype)), shifted)


def _shift_right_logical(x: Tracer, y: Tracer) -> Tracer:
    bits = _bits(x.dtype)
    inside = tnp.logical_and(tnp.greater_equal(y, 0), tnp.less(y, bits))
    k = tnp.where(inside, y, 0)
    # The arithmetic shift, with the k copies of the sign bit masked off: mask 2**(bits - k) - 1, all ones for k = 0.
    arithmetic = _shift_right_arithmetic(x, k)
    mask = tnp.where(tnp.equal(k, 0), -1, tnp.subtract(_power_of_two(tnp.subtract(bits, tnp.maximum(k, 1))), 1))
    return tnp.where(inside, tnp.bitwise_and(arithmetic, mask), 0)


def _nextafter(x: Tracer, y: Tracer) -> Tracer:
    """The float after ``x`` toward ``y``: ``|x|`` plus or minus the spacing of its binade, found by a search
    of the (exact) powers of two; subnormals are kept (no flush to zero), as XLA on CPU."""
    info = ml_dtypes.finfo(x.dtype)
    exponents = np.arange(info.minexp, info.maxexp)
    powers = np.ldexp(1.0, exponents).astype(x.dtype)
    spacing = np.ldexp(1.0, exponents - info.nmant).astype(x.dtype)
    tiny = np.array(np.ldexp(1.0, info.minexp - info.nmant), x.dtype)  # the smallest subnormal
    magnitude = tnp.abs(x)
    binade = tnp.subtract(tnp.searchsorted(powers, magnitude, side="right"), 1)  # -1 below the normal range
    index = tnp.clip(binade, 0, len(exponents) - 1)
    up = tnp.where(tnp.less(binade, 0), tiny, tnp.take(spacing, index))
    # Below a power of two (above the smallest normal one) the spacing halves.
    at_power = tnp.logical_and(tnp.greater(binade, 0), tnp.equal(magnitude, tnp.take(powers, index)))
    down = tnp.where(at_power, tnp.take(spacing, tnp.maximum(tnp.subtract(index, 1), 0)), up)
    away = tnp.equal(tnp.greater(y, x), tnp.greater(x, 0))
    moved = tnp.where(away, tnp.add(magnitude, up), tnp.subtract(magnitude, down))
    moved = tnp.where(tnp.isinf(magnitude), np.array(info.max, x.dtype), moved)  # from infinity toward y
    out = tnp.where(tnp.less(x, 0), tnp.negative(moved), moved)
    out = tnp.where(tnp.equal(x, 0), tnp.where(tnp.greater(y, 0), tiny, tnp.negative(tiny)), out)
    out = tnp.where(tnp.equal(x, y), y, out)
    return tnp.where(tnp.logical_or(tnp.isnan(x), tnp.isnan(y)), tnp.add(x, y), out)


def _complex(x: Tracer, y: Tracer) -> Tracer:
    if x.dtype not in (np.dtype("float32"), np.dtype("float64")):
        raise TypeError(f"complex does not accept dtype {x.dtype.name} at position 0. "
                        "Accepted dtypes at position 0 are subtypes of float32, float64.")
    return Tracer.of(builder.make_complex(x.value, y.value))  # the op tensorad.numpy builds complex arrays with


# ----------------------------------------------------------------------------
# The generated elementwise functions
# ----------------------------------------------------------------------------

_DTYPE_SENTENCES = {
    "c": "a complex dtype", "f": "a float dtype", "fc": "a float or complex dtype", "i": "an integer dtype",
    "if": "an integer or float dtype", "ifc": "an integer, float or complex dtype", "bi": "a bool or integer dtype",
    "bif": "a bool, integer or float dtype", "bifc": "any dtype",
}
_RESULTS = {"same": "Of the operands' shape and dtype.", "bool": "Booleans, of the operands' shape.",
            "real": "Of the operand's shape and dtype (the real dtype of a complex one).",
            "complex": "Of the operands' shape, complex (``complex64`` from ``float32``, ``complex128`` from "
                       "``float64``)."}

# name -> (implementation, accepted kinds, what it computes, where it comes from, result, JAX's `accuracy` keyword)
_UNARY = {
    "abs": (tnp.abs, "ifc", "absolute value (magnitude of complex numbers)", "tensorad.numpy.abs", "real", False),
    "acos": (tnp.arccos, "fc", "inverse cosine", "tensorad.numpy.arccos", "same", False),
    "acosh": (tnp.arccosh, "fc", "inverse hyperbolic cosine", "tensorad.numpy.arccosh", "same", False),
    "asin": (tnp.arcsin, "fc", "inverse sine", "tensorad.numpy.arcsin", "same", False),
    "asinh": (tnp.arcsinh, "fc", "inverse hyperbolic sine", "tensorad.numpy.arcsinh", "same", False),
    "atan": (tnp.arctan, "fc", "inverse tangent", "tensorad.numpy.arctan", "same", False),
    "atanh": (tnp.arctanh, "fc", "inverse hyperbolic tangent", "tensorad.numpy.arctanh", "same", False),
    "cbrt": (tnp.cbrt, "f", "cube root", "tensorad.numpy.cbrt", "same", True),
    "ceil": (tnp.ceil, "f", "ceiling", "tensorad.numpy.ceil", "same", False),
    "conj": (_conj, "fc", "complex conjugate (a float32/float64 array becomes complex, as in JAX)",
             "tensorad.numpy.conjugate", "complex", False),
    "cos": (tnp.cos, "fc", "cosine", "tensorad.numpy.cos", "same", True),
    "cosh": (tnp.cosh, "fc", "hyperbolic cosine", "tensorad.numpy.cosh", "same", False),
    "erf": (_erf, "f", "error function", "the op of tensorad.scipy.special.erf", "same", False),
    "erfc": (_erfc, "f", "complementary error function ``1 - erf(x)``", "the op of tensorad.scipy.special.erfc",
             "same", False),
    "exp": (tnp.exp, "fc", "exponential", "tensorad.numpy.exp", "same", True),
    "exp2": (tnp.exp2, "fc", "base-2 exponential", "tensorad.numpy.exp2", "same", True),
    "expm1": (tnp.expm1, "fc", "``exp(x) - 1``", "tensorad.numpy.expm1", "same", True),
    "floor": (tnp.floor, "f", "floor", "tensorad.numpy.floor", "same", False),
    "imag": (tnp.imag, "c", "imaginary part", "tensorad.numpy.imag", "real", False),
    "is_finite": (tnp.isfinite, "f", "test for finite values (neither infinite nor NaN)", "tensorad.numpy.isfinite",
                  "bool", False),
    "log": (tnp.log, "fc", "natural logarithm", "tensorad.numpy.log", "same", True),
    "log1p": (tnp.log1p, "fc", "``log(1 + x)``", "tensorad.numpy.log1p", "same", True),
    "logistic": (_logistic, "f", "logistic function ``1 / (1 + exp(-x))``", "the op of tensorad.nn.sigmoid",
                 "same", True),
    "neg": (tnp.negative, "ifc", "negation", "tensorad.numpy.negative", "same", False),
    "real": (tnp.real, "c", "real part", "tensorad.numpy.real", "real", False),
    "reciprocal": (tnp.reciprocal, "fc", "reciprocal ``1 / x``", "tensorad.numpy.reciprocal", "same", False),
    "rsqrt": (tnp.rsqrt, "fc", "reciprocal square root", "tensorad.numpy.rsqrt", "same", True),
    "sign": (_sign, "ifc", "sign (-1, 0 or 1; ``-0.0`` and NaN kept; ``x / |x|`` of complex numbers)",
             "tensorad.numpy.sign", "same", False),
    "sin": (tnp.sin, "fc", "sine", "tensorad.numpy.sin", "same", True),
    "sinh": (tnp.sinh, "fc", "hyperbolic sine", "tensorad.numpy.sinh", "same", False),
    "sqrt": (tnp.sqrt, "fc", "square root", "tensorad.numpy.sqrt", "same", True),
    "square": (tnp.square, "ifc", "square ``x * x``", "tensorad.numpy.square", "same", False),
    "tan": (tnp.tan, "fc", "tangent", "tensorad.numpy.tan", "same", True),
    "tanh": (tnp.tanh, "fc", "hyperbolic tangent", "tensorad.numpy.tanh", "same", True),
    "bitwise_not": (tnp.invert, "bi", "bitwise NOT (logical NOT of booleans)", "tensorad.numpy.invert", "same",
                    False),
    "population_count": (_population_count, "i", "number of set bits", "tensorad.numpy bitwise operations",
                         "same", False),
    "clz": (_clz, "i", "number of leading zero bits", "tensorad.numpy bitwise operations", "same", False),
}

_BINARY = {
    "add": (tnp.add, "ifc", "sum", "tensorad.numpy.add", "same"),
    "sub": (tnp.subtract, "ifc", "difference", "tensorad.numpy.subtract", "same"),
    "max": (_max_or_min("max"), "bifc", "maximum (NaN propagates; complex numbers compare lexicographically)",
            "tensorad.numpy.maximum", "same"),
    "min": (_max_or_min("min"), "bifc", "minimum (NaN propagates; complex numbers compare lexicographically)",
            "tensorad.numpy.minimum", "same"),
    "atan2": (tnp.arctan2, "f", "arc tangent of ``x / y``", "tensorad.numpy.arctan2", "same"),
    "div": (_div, "ifc", "quotient (integers: truncated toward zero, as C's; ``x / 0`` is -1)",
            "tensorad.numpy.divide, floor_divide and fmod", "same"),
    "rem": (_rem, "if", "remainder with the sign of ``x`` (C's ``fmod``; integers: ``rem(x, 0)`` is ``x``)",
            "tensorad.numpy.fmod", "same"),
    "nextafter": (_nextafter, "f", "next representable float after ``x1`` toward ``x2``",
                  "tensorad.numpy comparisons and searchsorted", "same"),
    "complex": (_complex, "f", "complex number ``x + 1j * y``", "the op tensorad.numpy builds complex arrays with",
                "complex"),
    "eq": (tnp.equal, "bifc", "``x == y``", "tensorad.numpy.equal", "bool"),
    "ne": (tnp.not_equal, "bifc", "``x != y``", "tensorad.numpy.not_equal", "bool"),
    "ge": (tnp.greater_equal, "bif", "``x >= y``", "tensorad.numpy.greater_equal", "bool"),
    "gt": (tnp.greater, "bif", "``x > y``", "tensorad.numpy.greater", "bool"),
    "le": (tnp.less_equal, "bif", "``x <= y``", "tensorad.numpy.less_equal", "bool"),
    "lt": (tnp.less, "bif", "``x < y``", "tensorad.numpy.less", "bool"),
    "bitwise_and": (tnp.bitwise_and, "bi", "bitwise AND (logical AND of booleans)", "tensorad.numpy.bitwise_and",
                    "same"),
    "bitwise_or": (tnp.bitwise_or, "bi", "bitwise OR (logical OR of booleans)", "tensorad.numpy.bitwise_or", "same"),
    "bitwise_xor": (tnp.bitwise_xor, "bi", "bitwise XOR (logical XOR of booleans)", "tensorad.numpy.bitwise_xor",
                    "same"),
    "shift_left": (_shift_left, "i", "``x << y`` (0 for shifts outside ``[0, bits)``)",
                   "tensorad.numpy.multiply by a power of two", "same"),
    "shift_right_arithmetic": (_shift_right_arithmetic, "i",
                               "``x >> y`` filling with the sign bit (-1 or 0 for shifts outside ``[0, bits)``)",
                               "tensorad.numpy.floor_divide by a power of two", "same"),
    "shift_right_logical": (_shift_right_logical, "i",
                            "``x >> y`` filling with zeros (0 for shifts outside ``[0, bits)``)",
                            "tensorad.numpy.floor_divide and bitwise_and", "same"),
}


def _docstring(name: str, what: str, source: str, kinds: str, result: str, params: Sequence[str],
               accuracy: bool) -> str:
    binary = len(params) == 2
    operands = ", ".join(params)
    shape_rule = ("\n        The operands have one dtype (a Python number takes the other's) and one shape (an "
                  "operand of\n        rank 0 and dims of size 1 broadcast), as in JAX." if binary else "")
    accuracy_doc = ("\n    accuracy : None\n        JAX's implementation choice; accepted and ignored."
                    if accuracy else "")
    summary = f"``lax.{name}``: elementwise {what} (``{source}``)"
    return (f"{summary}{', operands of one shape and dtype' if binary else ''}.\n"
            f"\n    Parameters\n    ----------\n    {operands} : array or Python scalar\n"
            f"        Of {_DTYPE_SENTENCES[kinds]}.{shape_rule}{accuracy_doc}\n"
            f"\n    Returns\n    -------\n    array\n        {_RESULTS[result]}\n"
            f"\n    Raises\n    ------\n    TypeError\n        For a dtype ``jax.lax.{name}`` does not accept"
            f"{', operands of different dtypes or shapes that do not broadcast' if binary else ''}.\n")


def _unary(name: str, impl: Callable, kinds: str, what: str, source: str, result: str, accuracy: bool):
    if accuracy:
        def fn(x, *, accuracy=None):
            return impl(_operand(name, x, kinds))
    else:
        def fn(x):
            return impl(_operand(name, x, kinds))

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = _docstring(name, what, source, kinds, result, ("x",), accuracy)
    return emits_ops(fn)


def _binary(name: str, impl: Callable, kinds: str, what: str, source: str, result: str):
    if name == "nextafter":  # JAX's parameter names
        def fn(x1, x2):
            return impl(*_operands(name, (x1, x2), kinds))
    else:
        def fn(x, y):
            return impl(*_operands(name, (x, y), kinds))

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = _docstring(name, what, source, kinds, result, tuple(fn.__code__.co_varnames[:2]), False)
    return emits_ops(fn)


# The generated functions, by name; they become this module's globals (abs, sin, add, ...).
_ELEMENTWISE = {**{name: _unary(name, *spec) for name, spec in _UNARY.items()},
                **{name: _binary(name, *spec) for name, spec in _BINARY.items()}}
globals().update(_ELEMENTWISE)


# ----------------------------------------------------------------------------
# Elementwise functions with parameters of their own
# ----------------------------------------------------------------------------

@emits_ops
def mul(x, y, *, out_dtype=None):
    """``lax.mul``: elementwise product (``tensorad.numpy.multiply``), operands of one shape and dtype.

    Parameters
    ----------
    x, y : array or Python scalar
        Of an integer, float or complex dtype, one dtype (a Python number takes
        the other's) and one shape (rank 0 and dims of size 1 broadcast).
    out_dtype : dtype, optional
        The result's dtype: the operands may then have other dtypes, and are
        converted to it before multiplying.

    Examples
    --------
    >>> import numpy as np
    >>> mul(np.array([1.5, 2.0]), 2)
    array([3., 4.])
    """
    if out_dtype is None:
        return tnp.multiply(*_operands("mul", (x, y), "ifc"))
    out_dtype = dtypes.check_supported(out_dtype)
    a, b = _operands("mul", (x, y), "ifc", same_dtype=False)
    return tnp.multiply(tnp.astype(a, out_dtype), tnp.astype(b, out_dtype))


@emits_ops
def pow(x, y):  # noqa: A001 (JAX's name)
    """``lax.pow``: elementwise ``x ** y`` (``tensorad.numpy.power``).

    Parameters
    ----------
    x : array or Python scalar
        Of a float or complex dtype.
    y : array or Python scalar
        Of an integer dtype, or of the dtype of ``x``. Shapes as in :func:`add`.

        Of the dtype of ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> pow(np.array([2.0, 4.0]), np.array([3, -1]))
    array([8.  , 0.25])
    """
    a, b = _operands("pow", (x, y), ("fc", "ifc"), same_dtype=False)
    if _kind(b.dtype) != "i" and b.dtype != a.dtype:
        raise TypeError("the first argument to pow must have an inexact dtype (float or complex), and the second "
                        "argument must have an inexact or integer dtype, and two inexact dtypes must match, but got "
                        f"{a.dtype.name} and {b.dtype.name} respectively.")
    return tnp.power(a, tnp.astype(b, a.dtype))


@emits_ops
def integer_pow(x, y: int):
    """``lax.integer_pow``: elementwise ``x ** y`` for a static integer ``y``, by repeated squaring (as JAX).

    Parameters
    ----------
    x : array or Python scalar
        Of an integer, float or complex dtype.
    y : int
        The exponent; negative for the reciprocal of a power (not of integers).

        Of the dtype of ``x``.

    Examples
    --------
    >>> import numpy as np
    >>> integer_pow(np.array([2.0, -3.0]), 3)
    array([  8., -27.])
    """
    x = _operand("integer_pow", x, "ifc")
    y = int(y)
    if y < 0 and _kind(x.dtype) == "i":
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow({x.dtype.name}"
                        f"{list(x.shape)}, {y})")
    if y == 0:
        return tnp.ones_like(x)
    # JAX's order of products: the squares of x, multiplied in from the lowest bit up.
    n, acc, square = _abs(y), None, x
    while True:
        if n & 1:
            acc = square if acc is None else tnp.multiply(acc, square)
        n >>= 1
        if not n:
            break
        square = tnp.multiply(square, square)
    return tnp.divide(tnp.ones_like(acc), acc) if y < 0 else acc


class RoundingMethod(enum.IntEnum):
    """How :func:`round` breaks ties, as ``jax.lax.RoundingMethod``."""
    AWAY_FROM_ZERO = 0
    TO_NEAREST_EVEN = 1


@emits_ops
def round(x, rounding_method=RoundingMethod.AWAY_FROM_ZERO):  # noqa: A001 (JAX's name)
    """``lax.round``: round to the nearest integer, halves away from zero (JAX's default) or to even.

    Parameters
    ----------
    x : array or Python scalar
        Of a float dtype.
    rounding_method : RoundingMethod or int
        ``AWAY_FROM_ZERO`` (0) or ``TO_NEAREST_EVEN`` (1, ``tensorad.numpy.round``).

        Of the dtype of ``x``; the derivative is zero.

    Examples
    --------
    >>> import numpy as np
    >>> round(np.array([0.5, 1.5, -2.5])), round(np.array([0.5, 1.5, -2.5]), RoundingMethod.TO_NEAREST_EVEN)
    (array([ 1.,  2., -3.]), array([ 0.,  2., -2.]))
    """
    x = _operand("round", x, "f")
    method = RoundingMethod(int(rounding_method))
    if method == RoundingMethod.TO_NEAREST_EVEN:
        return tnp.round(x)
    # The fraction x - trunc(x) is exact, so comparing it with 0.5 decides exactly (0.49999999999999994 -> 0).
    whole = tnp.trunc(x)
    return tnp.where(tnp.greater_equal(tnp.abs(tnp.subtract(x, whole)), 0.5), tnp.add(whole, tnp.sign(x)), whole)


@emits_ops
def convert_element_type(operand, new_dtype):
    """``lax.convert_element_type``: ``operand`` in ``new_dtype``, with XLA's conversions.

    Floats become integers truncated toward zero and saturated at the integer
    range (NaN becomes 0); complex numbers lose their imaginary part when
    converted to a real dtype; anything nonzero is ``True``.

    Examples
    --------
    >>> import numpy as np
    >>> convert_element_type(np.array([2.7, -2.7, 1e20, np.nan]), np.int32)
    array([         2,         -2, 2147483647,          0], dtype=int32)
    """
    new_dtype = dtypes.check_supported(new_dtype)
    x = tnp.asarray(operand)
    if x.dtype == new_dtype:
        return x
    if _kind(new_dtype) == "i" and _kind(x.dtype) in "fc":
        x = tnp.real(x)
        info, limit = np.iinfo(new_dtype), float(2 ** (_bits(new_dtype) - 1))
        high, low = tnp.greater_equal(x, limit), tnp.less_equal(x, -limit)
        safe = tnp.where(tnp.logical_or(tnp.logical_or(high, low), tnp.isnan(x)), 0, x)
        out = tnp.astype(safe, new_dtype)
        return tnp.where(high, info.max, tnp.where(low, info.min, out))
    if _kind(new_dtype) != "c" and _kind(x.dtype) == "c":
        x = tnp.real(x)
    if _kind(new_dtype) == "b":
        return tnp.not_equal(x, 0)
    return tnp.astype(x, new_dtype)


@emits_ops
def select(pred, on_true, on_false):
    """``lax.select``: ``on_true`` where ``pred``, else ``on_false``.

    Parameters
    ----------
    pred : array or bool
        Booleans (or integers: nonzero selects ``on_true``), a scalar or of the cases' shape.
    on_true, on_false : array or Python scalar
        Of one shape and dtype (a Python number takes the other's dtype).

    Examples
    --------
    >>> import numpy as np
    >>> select(np.array([True, False]), np.ones(2), np.zeros(2))
    array([1., 0.])
    """
    a, b = _operands("select", (on_true, on_false), "bifc", broadcast=False)
    if a.shape != b.shape:
        raise TypeError(f"select cases must have the same shapes, got [{a.shape}, {b.shape}].")
    p = tnp.asarray(pred)
    if _kind(p.dtype) not in "bi":
        raise TypeError(f"select pred must be boolean or integer, got {p.dtype.name}.")
    if p.shape not in ((), a.shape):
        raise TypeError(f"select pred must be scalar or have the same shape as cases, got pred shape {p.shape} "
                        f"for cases of shape {a.shape}.")
    return tnp.where(tnp.astype(p, tnp.bool_), a, b)


# ----------------------------------------------------------------------------
# Structure
# ----------------------------------------------------------------------------

def _shape(shape) -> tuple:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


def _axis(axis: int, ndim: int, name: str) -> int:
    if not -ndim <= int(axis) < ndim:
        raise ValueError(f"{name}: axis {axis} is out of bounds for an array of rank {ndim}")
    return int(axis) % ndim


@emits_ops
def broadcast(operand, sizes):
    """``lax.broadcast``: ``operand`` with leading dims ``sizes`` added (its values repeated along them).


        Of shape ``tuple(sizes) + operand.shape``.

    Examples
    --------
    >>> import numpy as np
    >>> broadcast(np.array([1.0, 2.0]), (2,))
    array([[1., 2.],
           [1., 2.]])
    """
    x = tnp.asarray(operand)
    return tnp.broadcast_to(x, _shape(sizes) + x.shape)


@emits_ops
def broadcast_in_dim(operand, shape, broadcast_dimensions):
    """``lax.broadcast_in_dim``: ``operand`` broadcast to ``shape``, its dim ``i`` as dim ``broadcast_dimensions[i]``.

    Parameters
    ----------
    operand : array
    shape : sequence of int
    broadcast_dimensions : sequence of int
        One distinct result dim per operand dim; an operand dim is of size 1 or of the result dim's size.

    Examples
    --------
    >>> import numpy as np
    >>> broadcast_in_dim(np.array([1.0, 2.0]), (2, 3), (0,))
    array([[1., 1., 1.],
           [2., 2., 2.]])
    """
    x = tnp.asarray(operand)
    shape, dims = _shape(shape), tuple(int(d) for d in broadcast_dimensions)
    if len(dims) != x.ndim:
        raise TypeError("broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
                        f"broadcast_dimensions {dims} for operand ndim {x.ndim}.")
    if len(shape) < x.ndim:
        raise TypeError("broadcast_in_dim target broadcast shape must have equal or higher rank to the operand "
                        f"shape; got operand ndim {x.ndim} and target broadcast ndim {len(shape)}.")
    if not all(0 <= d < len(shape) for d in dims):
        raise TypeError("broadcast_in_dim broadcast_dimensions must be a subset of output dimensions, got "
                        f"{dims} for operand ndim {x.ndim} and shape {shape}.")
    if len(set(dims)) != len(dims):
        raise TypeError(f"broadcast_in_dim broadcast_dimensions must not contain duplicates, got "
                        f"broadcast_dimensions {dims}")
    if not all(n in (1, shape[d]) for n, d in zip(x.shape, dims)):
        raise TypeError("broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
                        f"corresponding dimensions in the target broadcast shape; got operand of shape {x.shape}, "
                        f"target broadcast shape {shape}, broadcast_dimensions {dims} ")
    order = sorted(range(x.ndim), key=lambda i: dims[i])
    x = tnp.transpose(x, order)
    sizes = {dims[i]: x.shape[k] for k, i in enumerate(order)}
    return tnp.broadcast_to(tnp.reshape(x, [sizes.get(d, 1) for d in range(len(shape))]), shape)


@emits_ops
def broadcast_to_rank(x, rank: int):
    """``lax.broadcast_to_rank``: ``x`` with leading dims of size 1 added up to rank ``rank``.

    Examples
    --------
    >>> import numpy as np
    >>> broadcast_to_rank(np.ones(3), 3).shape
    (1, 1, 3)
    """
    x = tnp.asarray(x)
    if int(rank) < x.ndim:
        raise ValueError(f"broadcast_to_rank: rank {rank} is below the rank {x.ndim} of the operand")
    return tnp.reshape(x, (1,) * (int(rank) - x.ndim) + x.shape)


@emits_ops
def iota(dtype, size: int):
    """``lax.iota``: ``0, 1, ..., size - 1`` in ``dtype``.

    Examples
    --------
    >>> import numpy as np
    >>> iota(np.float32, 3)
    array([0., 1., 2.], dtype=float32)
    """
    return tnp.arange(int(size), dtype=dtypes.check_supported(dtype))


@emits_ops
def broadcasted_iota(dtype, shape, dimension: int):
    """``lax.broadcasted_iota``: an array of ``shape`` holding each element's index along ``dimension``.

    Examples
    --------
    >>> import numpy as np
    >>> broadcasted_iota(np.int32, (2, 3), 1)
    array([[0, 1, 2],
           [0, 1, 2]], dtype=int32)
    """
    shape = _shape(shape)
    d = _axis(dimension, len(shape), "broadcasted_iota")
    line = tnp.arange(shape[d], dtype=dtypes.check_supported(dtype))
    return tnp.broadcast_to(tnp.reshape(line, [n if k == d else 1 for k, n in enumerate(shape)]), shape)


def _fill_dtype(fill_value, dtype):
    if dtype is not None:
        return dtypes.check_supported(dtype)
    if _is_weak(fill_value):
        return _WEAK_DEFAULTS[_weak_type(fill_value)]
    return tnp.asarray(fill_value).dtype


@emits_ops
def full(shape, fill_value, dtype=None):
    """``lax.full``: an array of ``shape`` filled with the scalar ``fill_value``.

    Parameters
    ----------
    shape : sequence of int
    fill_value : scalar (array of rank 0 or Python number)
    dtype : dtype, optional
        Default: the dtype of ``fill_value`` (``int64``/``float64`` for Python numbers).

    Examples
    --------
    >>> full((2,), 3)
    array([3, 3])
    """
    fill_shape = fill_value.shape if isinstance(fill_value, Tracer) else np.shape(fill_value)
    if fill_shape != ():
        raise TypeError(f"full must be called with scalar fill_value, got fill_value.shape {fill_shape}.")
    return tnp.full(_shape(shape), fill_value, _fill_dtype(fill_value, dtype))


@emits_ops
def full_like(x, fill_value, dtype=None, shape=None):
    """``lax.full_like``: an array like ``x`` (its dtype and shape unless given) filled with ``fill_value``.

    Examples
    --------
    >>> import numpy as np
    >>> full_like(np.zeros((2, 2), np.float32), 7, shape=(3,))
    array([7., 7., 7.], dtype=float32)
    """
    x = tnp.asarray(x)
    return full(x.shape if shape is None else shape, fill_value, x.dtype if dtype is None else dtype)


@emits_ops
def reshape(operand, new_sizes, dimensions=None):
    """``lax.reshape``: ``operand`` (transposed by ``dimensions`` first, if given) in the row-major ``new_sizes``.

    Parameters
    ----------
    operand : array
    new_sizes : sequence of int
    dimensions : sequence of int, optional
        A permutation of the operand's dims applied before reshaping.

    Examples
    --------
    >>> import numpy as np
    >>> reshape(np.arange(6.0).reshape(2, 3), (6,), dimensions=(1, 0))
    array([0., 3., 1., 4., 2., 5.])
    """
    x = tnp.asarray(operand)
    sizes = _shape(new_sizes)
    if math.prod(sizes) != x.size:
        raise TypeError(f"reshape total size must be unchanged, got new_sizes {sizes} (of total size "
                        f"{math.prod(sizes)}) for shape {x.shape} (of total size {x.size}).")
    if dimensions is not None:
        x = transpose(x, dimensions)
    return tnp.reshape(x, sizes)


@emits_ops
def transpose(operand, permutation):
    """``lax.transpose``: ``operand`` with its dims permuted (result dim ``i`` is operand dim ``permutation[i]``).

    Examples
    --------
    >>> import numpy as np
    >>> transpose(np.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    x = tnp.asarray(operand)
    perm = tuple(int(p) for p in permutation)
    if sorted(perm) != list(range(x.ndim)):
        raise TypeError(f"transpose permutation isn't a permutation of operand dimensions, got permutation "
                        f"{perm} for operand shape {x.shape}.")
    return tnp.transpose(x, perm)


@emits_ops
def squeeze(array, dimensions):
    """``lax.squeeze``: ``array`` without its dims ``dimensions`` (each of size 1).

    Examples
    --------
    >>> import numpy as np
    >>> squeeze(np.zeros((1, 3, 1)), (0, -1)).shape
    (3,)
    """
    x = tnp.asarray(array)
    dims = sorted({_axis(d, x.ndim, "squeeze") for d in dimensions})
    if any(x.shape[d] != 1 for d in dims):
        raise ValueError(f"cannot select an axis to squeeze out which has size not equal to one, got "
                         f"shape={x.shape} and dimensions={tuple(dimensions)}")
    return tnp.reshape(x, [n for d, n in enumerate(x.shape) if d not in dims])


@emits_ops
def expand_dims(array, dimensions):
    """``lax.expand_dims``: ``array`` with dims of size 1 inserted at the result positions ``dimensions``.

    Examples
    --------
    >>> import numpy as np
    >>> expand_dims(np.zeros(3), (0, -1)).shape
    (1, 3, 1)
    """
    return tnp.expand_dims(array, tuple(int(d) for d in dimensions))


@emits_ops
def rev(operand, dimensions):
    """``lax.rev``: ``operand`` reversed along ``dimensions`` (``tensorad.numpy.flip``).

    Examples
    --------
    >>> import numpy as np
    >>> rev(np.arange(3.0), (0,))
    array([2., 1., 0.])
    """
    x = tnp.asarray(operand)
    dims = tuple(_axis(d, x.ndim, "rev") for d in dimensions)
    return tnp.flip(x, dims) if dims else x


@emits_ops
def concatenate(operands, dimension: int):
    """``lax.concatenate``: ``operands`` (of one dtype and rank) joined along ``dimension``.

    Examples
    --------
    >>> import numpy as np
    >>> concatenate([np.zeros(1), np.ones(2)], 0)
    array([0., 1., 1.])
    """
    arrays = [tnp.asarray(x) for x in operands]
    if not arrays:
        raise TypeError("concatenate requires a non-empty sequences of arrays")
    if len({x.dtype for x in arrays}) > 1:
        raise TypeError(f"lax.concatenate requires arguments to have the same dtypes, got "
                        f"{', '.join(x.dtype.name for x in arrays)}.")
    first = arrays[0]
    if first.ndim == 0:
        raise TypeError("concatenate: arrays of rank 0 cannot be concatenated")
    d = _axis(dimension, first.ndim, "concatenate")
    if any(x.ndim != first.ndim or any(x.shape[k] != first.shape[k] for k in range(first.ndim) if k != d)
           for x in arrays):
        raise TypeError("Cannot concatenate arrays with shapes that differ in dimensions other than the one being "
                        f"concatenated: concatenating along dimension {d} for shapes "
                        f"{', '.join(str(x.shape) for x in arrays)}.")
    return tnp.concatenate(arrays, d) if len(arrays) > 1 else first


def _along(x: Tracer, axis: int, start: int, stop: int) -> Tracer:
    return tnp.getitem(x, (builtins.slice(None),) * axis + (builtins.slice(start, stop),))


def _scalar_of(name: str, value, dtype, what: str) -> Tracer:
    """A rank-0 traced array of ``dtype`` from a Python number or a rank-0 array of that dtype."""
    if _is_weak(value):
        return tnp.asarray(value, dtype)
    value = tnp.asarray(value)
    if value.shape != ():
        raise ValueError(f"{what} must be a scalar; got shape {value.shape}")
    if value.dtype != dtype:
        raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {dtype.name}, "
                        f"{value.dtype.name}.")
    return value


@emits_ops
def pad(operand, padding_value, padding_config):
    """``lax.pad``: ``operand`` padded with ``padding_value``, ``(low, high, interior)`` per dim.

    ``interior`` copies of the value go between neighbouring elements, then
    ``low`` and ``high`` at the ends; a negative ``low`` or ``high`` removes
    that many elements from the end instead (from the interior-padded array).

    Parameters
    ----------
    operand : array
    padding_value : scalar of the operand's dtype (or a Python number)
    padding_config : sequence of (int, int, int)
        One ``(low, high, interior)`` per dim; ``interior >= 0``.

        Dim ``d`` of size ``low + high + n + (n - 1) * interior``.

    Examples
    --------
    >>> import numpy as np
    >>> pad(np.array([1.0, 2.0, 3.0]), -1.0, [(-1, 2, 1)])
    array([-1.,  2., -1.,  3., -1., -1.])
    """
    x = tnp.asarray(operand)
    value = _scalar_of("pad", padding_value, x.dtype, "padding_value")
    config = [tuple(int(v) for v in c) for c in padding_config]
    if len(config) != x.ndim or any(len(c) != 3 for c in config):
        raise ValueError(f"length of padding_config must equal the number of axes of operand, got padding_config "
                         f"{padding_config} for operand shape {x.shape}")
    if any(interior < 0 for _, _, interior in config):
        raise ValueError(f"interior padding in padding_config must be nonnegative, got padding_config {config}")
    result = tuple(low + high + (n + (n - 1) * interior if n else 0)
                   for (low, high, interior), n in zip(config, x.shape))
    if any(n < 0 for n in result):
        raise ValueError(f"Dimension size after padding is not at least 0, got result shape {result}, for "
                         f"padding_config {config} and operand shape {x.shape}")
    for axis, (low, high, interior) in enumerate(config):
        x = _pad_axis(x, value, axis, low, high, interior)
    return x


def _pad_axis(x: Tracer, value: Tracer, axis: int, low: int, high: int, interior: int) -> Tracer:
    n = x.shape[axis]
    if interior and n > 1:
        # Each element followed by `interior` values, then the trailing ones cut: (..., n, 1 + interior, ...).
        spread = tnp.expand_dims(x, axis + 1)
        fill_shape = list(spread.shape)
        fill_shape[axis + 1] = interior
        spread = tnp.concatenate([spread, tnp.full(fill_shape, value)], axis + 1)
        spread = tnp.reshape(spread, x.shape[:axis] + (n * (1 + interior),) + x.shape[axis + 1:])
        x = _along(spread, axis, 0, n + (n - 1) * interior)
    parts = []
    for size in (low, None, high):
        if size is None:
            parts.append(x)
        elif size > 0:
            shape = list(x.shape)
            shape[axis] = size
            parts.append(tnp.full(shape, value))
    if len(parts) > 1:
        x = tnp.concatenate(parts, axis)
    if low < 0 or high < 0:
        x = _along(x, axis, _max(-low, 0), x.shape[axis] - _max(-high, 0))
    return x


@emits_ops
def split(operand, sizes, axis: int = 0):
    """``lax.split``: ``operand`` cut along ``axis`` into pieces of ``sizes`` (which add up to the axis' size).

    Examples
    --------
    >>> import numpy as np
    >>> split(np.arange(5.0), (2, 3))
    [array([0., 1.]), array([2., 3., 4.])]
    """
    x = tnp.asarray(operand)
    d = _axis(axis, x.ndim, "split")
    sizes = [int(s) for s in sizes]
    if any(s < 0 for s in sizes) or sum(sizes) != x.shape[d]:
        raise ValueError(f"Sum of sizes {sum(sizes)} must be equal to dimension {d} of the operand shape "
                         f"{x.shape}")
    starts = np.cumsum([0] + sizes)
    return [_along(x, d, int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]


@emits_ops
def tile(operand, reps):
    """``lax.tile``: ``operand`` repeated ``reps[d]`` times along each dim ``d`` (one entry per dim).

    Examples
    --------
    >>> import numpy as np
    >>> tile(np.array([[1, 2]]), (2, 2))
    array([[1, 2, 1, 2],
           [1, 2, 1, 2]])
    """
    x = tnp.asarray(operand)
    reps = tuple(int(r) for r in reps)
    if len(reps) != x.ndim:
        raise TypeError(f"reps length must be equal to the ndim of x, got len(reps)={len(reps)} and x.ndim={x.ndim}.")
    return tnp.tile(x, reps)


@emits_ops
def collapse(operand, start_dimension: int, stop_dimension: int | None = None):
    """``lax.collapse``: dims ``[start_dimension, stop_dimension)`` of ``operand`` merged into one (row-major).

    Parameters
    ----------
    operand : array
    start_dimension : int
    stop_dimension : int, optional
        Default: to the last dim.

    Examples
    --------
    >>> import numpy as np
    >>> collapse(np.zeros((2, 3, 4)), 0, 2).shape
    (6, 4)
    """
    x = tnp.asarray(operand)
    lo, hi, _ = builtins.slice(start_dimension, stop_dimension).indices(x.ndim)
    if hi < lo:
        raise ValueError(f"Invalid dimension range passed to collapse: {x.shape}[{start_dimension}:{stop_dimension}]")
    return tnp.reshape(x, x.shape[:lo] + (math.prod(x.shape[lo:hi]),) + x.shape[hi:])


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

def _axes(axes, ndim: int, name: str) -> tuple:
    out = tuple(sorted({_axis(a, ndim, name) for a in axes}))
    if len(out) != len(tuple(axes)):
        raise ValueError(f"{name}: repeated axes in {tuple(axes)}")
    return out


def _pairwise(x: Tracer, axes: tuple, combine: Callable, identity) -> Tracer:
    """``combine`` over ``axes`` as a tree of elementwise combinations of halves (associative, commutative)."""
    if not axes:
        return x
    kept = [d for d in range(x.ndim) if d not in axes]
    count = math.prod(x.shape[d] for d in axes)
    flat = tnp.reshape(tnp.transpose(x, kept + list(axes)), [x.shape[d] for d in kept] + [count])
    if count == 0:
        return tnp.full([x.shape[d] for d in kept], identity, x.dtype)
    last = flat.ndim - 1
    while count > 1:
        half = count // 2
        combined = combine(_along(flat, last, 0, half), _along(flat, last, half, 2 * half))
        flat = tnp.concatenate([combined, _along(flat, last, 2 * half, count)], last) if count % 2 else combined
        count = flat.shape[last]
    return tnp.reshape(flat, flat.shape[:-1])


def _reduction(name: str, kinds: str, what: str, reducer: Callable):
    def fn(operand, axes):
        x = _operand(name, operand, kinds)
        return reducer(x, _axes(axes, x.ndim, name))

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    fn.__doc__ = (f"``lax.{name}``: the {what} of ``operand`` over ``axes``, in its dtype.\n\n"
                  f"    Parameters\n    ----------\n    operand : array\n        Of {_DTYPE_SENTENCES[kinds]}.\n"
                  f"    axes : sequence of int\n\n    Returns\n    -------\n    array\n"
                  f"        The operand's shape without ``axes``.\n")
    return emits_ops(fn)


def _bitwise_reducer(kind: str):
    combine = {"and": tnp.bitwise_and, "or": tnp.bitwise_or, "xor": tnp.bitwise_xor}[kind]

    def reducer(x: Tracer, axes: tuple) -> Tracer:
        if dtypes.is_bool(x.dtype) and kind != "xor":
            return (tnp.all if kind == "and" else tnp.any)(x, axis=axes)
        identity = (True if dtypes.is_bool(x.dtype) else -1) if kind == "and" else 0
        return _pairwise(x, axes, combine, identity)

    return reducer


reduce_sum = _reduction("reduce_sum", "ifc", "sum", lambda x, axes: tnp.sum(x, axis=axes, dtype=x.dtype))
reduce_prod = _reduction("reduce_prod", "ifc", "product", lambda x, axes: tnp.prod(x, axis=axes, dtype=x.dtype))
reduce_max = _reduction("reduce_max", "bif", "maximum (NaN propagates)", lambda x, axes: tnp.max(x, axis=axes))
reduce_min = _reduction("reduce_min", "bif", "minimum (NaN propagates)", lambda x, axes: tnp.min(x, axis=axes))
reduce_and = _reduction("reduce_and", "bi", "bitwise AND (``all`` of booleans)", _bitwise_reducer("and"))
reduce_or = _reduction("reduce_or", "bi", "bitwise OR (``any`` of booleans)", _bitwise_reducer("or"))
reduce_xor = _reduction("reduce_xor", "bi", "bitwise XOR (parity of booleans)", _bitwise_reducer("xor"))


def _arg_reduction(name: str, fn_of_tnp: Callable):
    def fn(operand, axis: int, index_dtype):
        x = _operand(name, operand, "bif")
        index_dtype = dtypes.check_supported(index_dtype)
        if _kind(index_dtype) != "i":
            raise TypeError(f"index_dtype must be an integer type, but got {index_dtype.name}")
        return tnp.astype(fn_of_tnp(x, _axis(axis, x.ndim, name)), index_dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__module__ = __name__
    extreme = "maximum" if name == "argmax" else "minimum"
    fn.__doc__ = (f"``lax.{name}``: the index of the first {extreme} of ``operand`` along ``axis`` (the first NaN, "
                  f"if any), as JAX's.\n\n    Parameters\n    ----------\n    operand : array\n"
                  f"        Of a bool, integer or float dtype.\n    axis : int\n    index_dtype : dtype\n"
                  f"        An integer dtype.\n\n    Returns\n    -------\n    array\n"
                  f"        The operand's shape without ``axis``, in ``index_dtype``.\n")
    return emits_ops(fn)


argmax = _arg_reduction("argmax", tnp.argmax)
argmin = _arg_reduction("argmin", tnp.argmin)

# The computations reduce recognizes (lax's strict functions and their tensorad.numpy counterparts).
_MONOIDS = (
    ((_ELEMENTWISE["add"], tnp.add), reduce_sum, "ifc"),
    ((mul, tnp.multiply), reduce_prod, "ifc"),
    ((_ELEMENTWISE["max"], tnp.maximum), reduce_max, "bif"),
    ((_ELEMENTWISE["min"], tnp.minimum), reduce_min, "bif"),
    ((_ELEMENTWISE["bitwise_and"], tnp.bitwise_and), reduce_and, "bi"),
    ((_ELEMENTWISE["bitwise_or"], tnp.bitwise_or), reduce_or, "bi"),
    ((_ELEMENTWISE["bitwise_xor"], tnp.bitwise_xor), reduce_xor, "bi"),
)


@emits_ops
def reduce(operands, init_values, computation: Callable, dimensions):
    """``lax.reduce`` of one operand by a known monoid: the reduction over ``dimensions``, combined with the init value.

    ``computation`` must be one of ``lax.add``, ``lax.mul``, ``lax.max``,
    ``lax.min``, ``lax.bitwise_and``, ``lax.bitwise_or``, ``lax.bitwise_xor``
    (or the ``tensorad.numpy`` function of the same name), recognized by
    identity. The init value is combined once with each result, as XLA does,
    so a non-identity init value counts (``reduce(x, 10.0, add, (0,))`` is
    ``10 + sum(x)``).

    Returns
    -------
    array (in the pytree of ``operands``)

    Raises
    ------
    NotImplementedError
        For another computation, or several operands.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import lax
    >>> reduce(np.arange(5.0), 10.0, lax.add, (0,)), reduce(np.arange(1, 5), 2, lax.mul, (0,))
    (array(20.), array(48))
    """
    leaves, treedef = tree.flatten(operands)
    init_leaves, init_tree = tree.flatten(init_values)
    if treedef != init_tree or len(leaves) != len(init_leaves):
        raise ValueError(f"Operands must have the same tree structure as init_values: {treedef} vs. {init_tree}")
    supported = ("lax.add, lax.mul, lax.max, lax.min, lax.bitwise_and, lax.bitwise_or, lax.bitwise_xor (or their "
                 "tensorad.numpy counterparts)")
    if len(leaves) != 1:
        raise NotImplementedError(f"{user_line()}: lax.reduce reduces one operand here (with {supported}); got "
                                  f"{len(leaves)} operands")
    for functions, reducer, kinds in _MONOIDS:
        if any(computation is f for f in functions):
            break
    else:
        raise NotImplementedError(f"{user_line()}: lax.reduce supports the computations {supported}; got "
                                  f"{computation!r}")
    x = _operand(reducer.__name__, leaves[0], kinds)
    init = _scalar_of("reduce", init_leaves[0], x.dtype, "init_values")
    reduced = reducer(x, dimensions)
    return tree.unflatten(treedef, [functions[1](init, reduced)])


# ----------------------------------------------------------------------------
# Contractions
# ----------------------------------------------------------------------------

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _dims(value) -> tuple:
    return (int(value),) if isinstance(value, (int, np.integer)) else tuple(int(v) for v in value)


@emits_ops
def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    """``lax.dot_general``: contract ``lhs`` and ``rhs`` over paired dims, batched over paired dims.

    The result's dims are the batch dims (in the order given), then the free
    dims of ``lhs``, then those of ``rhs``; one ``tensorad.numpy.einsum``
    (one ``tad.dot_general``).

    Parameters
    ----------
    lhs, rhs : array
        Of one dtype.
    dimension_numbers : ((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))
    precision : None
        Accepted for JAX's signature and ignored.
    preferred_element_type : dtype, optional
        The result's dtype; the operands are converted to it first.

    Examples
    --------
    >>> import numpy as np
    >>> x, y = np.ones((2, 3, 4)), np.ones((2, 4, 5))
    >>> dot_general(x, y, (((2,), (1,)), ((0,), (0,)))).shape
    (2, 3, 5)
    """
    a, b = _operands("dot_general", (lhs, rhs), "bifc", broadcast=None)
    (lc, rc), (lb, rb) = ((_dims(c) for c in pair) for pair in dimension_numbers)
    for dims, x, what in ((lc, a, "lhs contracting"), (rc, b, "rhs contracting"), (lb, a, "lhs batch"),
                          (rb, b, "rhs batch")):
        if any(not 0 <= d < x.ndim for d in dims) or len(set(dims)) != len(dims):
            raise TypeError(f"dot_general requires {what} dimensions to be distinct and in range for an operand "
                            f"of rank {x.ndim}, got {dims}.")
    if len(lc) != len(rc) or len(lb) != len(rb) or set(lc) & set(lb) or set(rc) & set(rb):
        raise TypeError(f"dot_general requires paired, disjoint contracting and batch dimensions, got "
                        f"{dimension_numbers}.")
    for (p, q), what in (((lc, rc), "contracting"), ((lb, rb), "batch")):
        if tuple(a.shape[i] for i in p) != tuple(b.shape[j] for j in q):
            raise TypeError(f"dot_general requires {what} dimensions to have the same shape, got "
                            f"{tuple(a.shape[i] for i in p)} and {tuple(b.shape[j] for j in q)}.")
    if a.ndim + b.ndim > len(_LETTERS):
        raise NotImplementedError(f"{user_line()}: dot_general of operands of total rank above {len(_LETTERS)}")
    letters = iter(_LETTERS)
    lhs_names = [next(letters) for _ in range(a.ndim)]
    rhs_names = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(lc + lb, rc + rb):
        rhs_names[j] = lhs_names[i]
    output = ([lhs_names[i] for i in lb] + [n for i, n in enumerate(lhs_names) if i not in lc + lb]
              + [n for j, n in enumerate(rhs_names) if j not in rc + rb])
    if preferred_element_type is not None:
        dtype = dtypes.check_supported(preferred_element_type)
        a, b = tnp.astype(a, dtype), tnp.astype(b, dtype)
    return tnp.einsum(f"{''.join(lhs_names)},{''.join(rhs_names)}->{''.join(output)}", a, b, optimize=False)


@emits_ops
def dot(lhs, rhs, *, dimension_numbers=None, precision=None, preferred_element_type=None):
    """``lax.dot``: vector-vector, matrix-vector or matrix-matrix product (or :func:`dot_general` with
    ``dimension_numbers``).

    Parameters
    ----------
    lhs, rhs : array
        Of one dtype; without ``dimension_numbers``, of rank 1 or 2, ``lhs``'s last dim the size of ``rhs``'s first.
    dimension_numbers : optional
        As for :func:`dot_general`.
    precision : None
        Accepted for JAX's signature and ignored.
    preferred_element_type : dtype, optional

    Examples
    --------
    >>> import numpy as np
    >>> dot(np.array([[1.0, 2.0]]), np.array([3.0, 4.0]))
    array([11.])
    """
    if dimension_numbers is None:
        ls, rs = np.shape(lhs) if not isinstance(lhs, Tracer) else lhs.shape, \
            np.shape(rhs) if not isinstance(rhs, Tracer) else rhs.shape
        if not (1 <= len(ls) <= 2 and 1 <= len(rs) <= 2 and ls[-1] == rs[0]):
            raise ValueError("jax.lax.dot: dimension_numbers must be specified when not performing simple "
                             f"un-batched matrix-matrix, matrix-vector, or vector-vector products; got lhs_shape={ls} "
                             f"rhs_shape={rs}")
        dimension_numbers = (((len(ls) - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dimension_numbers, precision, preferred_element_type)


@emits_ops
def batch_matmul(lhs, rhs, precision=None):
    """``lax.batch_matmul``: matrix products over the leading (batch) dims of two arrays of one rank >= 2.

    Parameters
    ----------
    lhs, rhs : array
        Of shapes ``(..., m, k)`` and ``(..., k, n)``, one batch shape.
    precision : None
        Accepted for JAX's signature and ignored.

        Of shape ``(..., m, n)``.

    Examples
    --------
    >>> import numpy as np
    >>> batch_matmul(np.ones((2, 3, 4)), np.ones((2, 4, 5))).shape
    (2, 3, 5)
    """
    ln, rn = np.ndim(lhs) if not isinstance(lhs, Tracer) else lhs.ndim, \
        np.ndim(rhs) if not isinstance(rhs, Tracer) else rhs.ndim
    if _min(ln, rn) < 2:
        raise ValueError(f"Arguments to batch_matmul must be at least 2D, got {ln}, {rn}")
    if ln != rn:
        raise ValueError(f"Arguments to batch_matmul must have same ndim, got {ln}, {rn}")
    batch = tuple(range(ln - 2))
    return dot_general(lhs, rhs, (((ln - 1,), (rn - 2,)), (batch, batch)), precision)


# ----------------------------------------------------------------------------
# map
# ----------------------------------------------------------------------------

@emits_ops
def map(f: Callable, xs, *, batch_size: int | None = None):  # noqa: A001 (JAX's name)
    """``lax.map``: ``f`` applied to each slice of ``xs`` along its leading axis, the results stacked.

    A :func:`tensorad.lax.scan` without a carry. With ``batch_size``, each
    step of the scan applies ``f`` to ``batch_size`` slices (vectorized with
    :func:`tensorad.vmap`), and the remainder is computed at the end, as in JAX.

    Parameters
    ----------
    f : callable
        Takes a slice of (the pytree) ``xs``, returns a pytree of arrays.
    xs : array or pytree of arrays
        With one leading length.
    batch_size : int, optional

    Returns
    -------
    pytree of arrays
        ``f``'s outputs stacked along a new leading axis.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jit(lambda xs: map(lambda row: tnp.sum(row ** 2), xs))(np.arange(6.0).reshape(3, 2))
    array([ 1., 13., 41.])
    """
    scan = importlib.import_module("tensorad.lax").scan  # lax.py imports this module: looked up at call time
    if batch_size is None:
        return scan(lambda carry, x: (carry, f(x)), (), xs)[1]
    batch_size = int(batch_size)
    if batch_size < 1:
        raise ValueError(f"batch_size must be a positive integer, got {batch_size}")
    leaves, treedef = tree.flatten(xs)
    leaves = [tnp.asarray(x) for x in leaves]
    lengths = {x.shape[0] if x.ndim else None for x in leaves}
    if len(lengths) != 1 or None in lengths:
        raise ValueError(f"{user_line()}: lax.map needs xs with one leading length, got {sorted(lengths, key=str)}")
    (n,) = lengths
    steps, left = divmod(n, batch_size)
    vmap = importlib.import_module("tensorad.vectorize").vmap
    outs = []
    if steps:
        grouped = tree.unflatten(treedef, [tnp.reshape(_along(x, 0, 0, steps * batch_size),
                                                       (steps, batch_size) + x.shape[1:]) for x in leaves])
        ys = scan(lambda carry, x: (carry, vmap(f)(x)), (), grouped)[1]
        outs.append(tree.tree_map(lambda y: tnp.reshape(y, (steps * batch_size,) + y.shape[2:]), ys))
    if left:
        outs.append(vmap(f)(tree.unflatten(treedef, [_along(x, 0, steps * batch_size, n) for x in leaves])))
    if len(outs) == 1:
        return outs[0]
    return tree.tree_map(lambda a, b: tnp.concatenate([a, b], 0), outs[0], outs[1])


__all__ = sorted(list(_ELEMENTWISE) + [
    "mul", "pow", "integer_pow", "RoundingMethod", "round", "convert_element_type", "select",
    "broadcast", "broadcast_in_dim", "broadcast_to_rank", "iota", "broadcasted_iota", "full", "full_like",
    "reshape", "transpose", "squeeze", "expand_dims", "rev", "concatenate", "pad", "split", "tile", "collapse",
    "reduce_sum", "reduce_prod", "reduce_max", "reduce_min", "reduce_and", "reduce_or", "reduce_xor",
    "argmax", "argmin", "reduce", "dot_general", "dot", "batch_matmul", "map"])
