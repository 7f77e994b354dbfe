"""``tensorad.numpy``: jax.numpy names over traced arrays, with numpy's semantics.

Broadcasting and dtype promotion follow numpy (NEP 50, Python scalars are
weak). Elementwise math emits upstream ``arith``/``math`` ops on tensors;
structure, contraction and reduction emit ``tad`` ops. Use these functions
inside a function compiled with :func:`tensorad.jit`.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> f = ta.jit(lambda x: tnp.sum(tnp.exp(x) * 2.0, axis=0))
>>> f(np.zeros((2, 3), np.float32))
array([4., 4., 4.], dtype=float32)
"""

from __future__ import annotations

import builtins
import importlib
import math as _math
import operator as _operator
import sys
from typing import Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor

from tensorad.dialects import builder

from .. import dtypes as _dt
from ..errors import TracingError
from ..runtime import Array
from ..tracing import Tracer, constant_tracer, emits_ops

float32, float64 = np.dtype("float32"), np.dtype("float64")
float16, bfloat16 = _dt.float16, _dt.bfloat16
complex64, complex128 = _dt.complex64, _dt.complex128
result_type = _dt.result_type


def promote_types(a, b) -> np.dtype:
    """The dtype two dtypes promote to (numpy's rules; JAX's lattice for float16 and bfloat16).

    Examples
    --------
    >>> promote_types(float16, bfloat16), promote_types("int32", bfloat16)
    (dtype('float32'), dtype(bfloat16))
    """
    return _dt.result_type(_dt.check_supported(a), _dt.check_supported(b))
int32, int64 = np.dtype("int32"), np.dtype("int64")
bool_ = np.dtype("bool")
pi, e, inf, nan = np.pi, np.e, np.inf, np.nan
euler_gamma = np.euler_gamma
newaxis = None
# numpy's index expressions (``s_[1:3]``), as jax.numpy has them.
s_, index_exp = np.s_, np.index_exp
ndarray = Tracer



# ----------------------------------------------------------------------------
# Building blocks
# ----------------------------------------------------------------------------

def _emit(name: str, operands: Sequence[Tracer], dtype) -> Tracer:
    """Emit upstream elementwise op ``name`` on operands already promoted and broadcast."""
    out = builder.elementwise(name, [t.value for t in operands], _dt.to_mlir(dtype))
    return Tracer(out, operands[0].shape, dtype)


def _wrap(value: ir.Value) -> Tracer:
    return Tracer.of(value)


def _splat(value, shape, dtype) -> Tracer:
    dtype = _dt.check_supported(dtype)
    return _wrap(builder.constant(value, shape, _dt.to_mlir(dtype)))


def _is_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex, np.bool_, np.number)) and not isinstance(x, Tracer)


@emits_ops
def asarray(x, dtype=None) -> Tracer:
    """Return ``x`` as a traced array (constants are embedded), optionally converted to ``dtype``.

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.jit(lambda x: x + asarray([1.0, 2.0]))(np.zeros(2))
    array([1., 2.])
    """
    if isinstance(x, Tracer):
        return x if dtype is None else astype(x, dtype)
    if _holds_tracer(x):  # array([x, 2.0 * x]): the entries stacked, in their common dtype
        dtype = _dt.result_type(*_nested_entries(x)) if dtype is None else dtype
        return stack([asarray(entry, dtype) for entry in x])
    return constant_tracer(x, dtype)


array = asarray


def _holds_tracer(x) -> bool:
    """Whether ``x`` is a (nested) list or tuple that holds a traced array."""
    return isinstance(x, (list, tuple)) and builtins.any(
        isinstance(e, Tracer) or _holds_tracer(e) for e in x)


def _nested_entries(x):
    """The arrays and scalars in the (nested) lists and tuples ``x``."""
    for e in x:
        if isinstance(e, (list, tuple)):
            yield from _nested_entries(e)
        else:
            yield e


@emits_ops
def astype(x, dtype) -> Tracer:
    """Convert the elements of ``x`` to ``dtype`` (numpy ``astype`` semantics)."""
    dtype = _dt.check_supported(dtype)
    x = asarray(x)
    if x.dtype == dtype:
        return x
    return _wrap(builder.convert(x.value, _dt.to_mlir(dtype)))


def _broadcast_shapes(*shapes) -> tuple:
    if builtins.all(tuple(s) == tuple(shapes[0]) for s in shapes):
        # Equal shapes need no broadcasting, dynamic dims (a loop tape's rows,
        # seen by derivative rules) included.
        return tuple(shapes[0])
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise TracingError(f"operands could not be broadcast together with shapes "
                           f"{' '.join(str(tuple(s)) for s in shapes)}") from None


@emits_ops
def broadcast_to(x, shape) -> Tracer:
    """Broadcast ``x`` to ``shape`` with numpy's rules."""
    x = asarray(x)
    shape = tuple(int(n) for n in shape)
    if x.shape == shape:
        return x
    if len(shape) < x.ndim or builtins.any(n not in (1, m) for n, m in zip(x.shape[::-1], shape[::-1])):
        raise TracingError(f"cannot broadcast shape {x.shape} to {shape}")
    lead = len(shape) - x.ndim
    return _wrap(builder.broadcast_in_dim(x.value, shape, range(lead, len(shape))))


def _operands(*args, dtype=None) -> list:
    """Promote and broadcast ``args`` to one dtype and shape; scalars become splats."""
    dtype = _dt.result_type(*args) if dtype is None else np.dtype(dtype)
    shape = _broadcast_shapes(*(np.shape(a) if not isinstance(a, Tracer) else a.shape for a in args))
    out = []
    for a in args:
        if _is_scalar(a):
            out.append(_splat(a, shape, dtype))
        else:
            out.append(broadcast_to(astype(asarray(a), dtype), shape))
    return out


# ----------------------------------------------------------------------------
# Elementwise binary ops
# ----------------------------------------------------------------------------

def _binary(float_op, int_op, bool_op=None, *, name: str):
    """Make a numpy-style binary function from per-kind arith op names."""
    def fn(x, y):
        a, b = _operands(x, y)
        dtype = a.dtype
        # Complex operands take the float op, which the builder computes on their parts.
        op = float_op if _dt.is_inexact(dtype) else (bool_op if _dt.is_bool(dtype) else int_op)
        if op is None:
            raise TypeError(f"{name} is not supported for {dtype.name} operands")
        return _emit(op, [a, b], dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` with numpy broadcasting and promotion."
    return emits_ops(fn)


add = _binary("arith.addf", "arith.addi", "arith.ori", name="add")
subtract = _binary("arith.subf", "arith.subi", name="subtract")
multiply = _binary("arith.mulf", "arith.muli", "arith.andi", name="multiply")
def _ordering_complex_too(real_fn, larger: bool, nan_wins: bool):
    """``real_fn``, and for complex operands numpy's order: by real part, then imaginary part.

    ``nan_wins``: an operand with a NaN part is picked (``maximum``/``minimum``),
    else the other one (``fmax``/``fmin``).
    """
    def fn(x, y):
        a, b = _operands(x, y)
        if not _dt.is_complex(a.dtype):
            return real_fn(a, b)
        beats = greater if larger else less
        (ar, ai), (br, bi) = (real(a), imag(a)), (real(b), imag(b))
        a_nan = logical_or(not_equal(ar, ar), not_equal(ai, ai))
        b_nan = logical_or(not_equal(br, br), not_equal(bi, bi))
        a_first = logical_or(beats(ar, br), logical_and(equal(ar, br), logical_not(beats(bi, ai))))
        pick_a = logical_or(a_nan, logical_and(logical_not(b_nan), a_first)) if nan_wins else \
            logical_or(b_nan, logical_and(logical_not(a_nan), a_first))
        return where(pick_a, a, b)

    fn.__name__ = fn.__qualname__ = real_fn.__name__
    fn.__doc__ = real_fn.__doc__ + " Complex numbers are ordered by real part, then imaginary part (numpy's order)."
    return emits_ops(fn)


maximum = _ordering_complex_too(_binary("arith.maximumf", "arith.maxsi", "arith.ori", name="maximum"), True, True)
minimum = _ordering_complex_too(_binary("arith.minimumf", "arith.minsi", "arith.andi", name="minimum"), False, True)
# fmax/fmin take the operand that is a number where the other is NaN (maximum/minimum propagate NaN).
fmax = _ordering_complex_too(_binary("arith.maxnumf", "arith.maxsi", "arith.ori", name="fmax"), True, False)
fmin = _ordering_complex_too(_binary("arith.minnumf", "arith.minsi", "arith.andi", name="fmin"), False, False)
bitwise_and = _binary(None, "arith.andi", "arith.andi", name="bitwise_and")
bitwise_or = _binary(None, "arith.ori", "arith.ori", name="bitwise_or")
bitwise_xor = _binary(None, "arith.xori", "arith.xori", name="bitwise_xor")


def _float_binary(op_name: str, name: str):
    def fn(x, y):
        a, b = _operands(x, y, dtype=_dt.float_of(_dt.result_type(x, y)))
        return _emit(op_name, [a, b], a.dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``; integer operands are computed in float64 like numpy."
    return emits_ops(fn)


divide = true_divide = _float_binary("arith.divf", "divide")
arctan2 = atan2 = _float_binary("math.atan2", "arctan2")
copysign = _float_binary("math.copysign", "copysign")


@emits_ops
def power(x, y) -> Tracer:
    """Elementwise ``x ** y`` (``math.powf`` for floats, ``math.ipowi`` for integers)."""
    if _is_scalar(y) and y == 2:  # x * x in the promoted dtype: int32 ** 2.0 is float64
        x = astype(x, _dt.result_type(x, y))
        return multiply(x, x)
    a, b = _operands(x, y)
    if _dt.is_bool(a.dtype):
        a, b = astype(a, int64), astype(b, int64)
    return _emit("math.powf" if _dt.is_inexact(a.dtype) else "math.ipowi", [a, b], a.dtype)


def _division_operands(x, y, name: str) -> list:
    """``_operands`` of a division; bool operands are refused (numpy divides them in int8)."""
    a, b = _operands(x, y)
    if _dt.is_bool(a.dtype):
        raise TypeError(f"{name} of bool arrays is not supported (numpy computes it in int8, which tensorad "
                        "does not compile); convert them with astype first")
    if _dt.is_complex(a.dtype):
        raise TypeError(f"{name} of complex arrays is not defined (as in numpy)")
    return [a, b]


def _guarded_divisor(b: Tracer) -> Tracer:
    """``b`` with 0 and -1 replaced by 1.

    Integer division traps (SIGFPE) on ``x / 0`` and on ``INT_MIN / -1``;
    the callers select numpy's results for those divisors afterwards.
    """
    return where(logical_or(equal(b, 0), equal(b, -1)), 1, b)


@emits_ops
def floor_divide(x, y) -> Tracer:
    """Elementwise ``x // y`` (rounds toward minus infinity, like numpy).

    For integers, as numpy: ``x // 0`` is 0 and ``INT_MIN // -1`` wraps to
    ``INT_MIN`` (numpy warns; compiled code cannot).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(floor_divide)(np.array([7, -7, 7]), np.array([2, 2, 0]))
    array([ 3, -4,  0])
    """
    a, b = _division_operands(x, y, "floor_divide")
    if _dt.is_float(a.dtype):
        return floor(_emit("arith.divf", [a, b], a.dtype))
    quotient = _emit("arith.floordivsi", [a, _guarded_divisor(b)], a.dtype)
    return where(equal(b, 0), 0, where(equal(b, -1), negative(a), quotient))


@emits_ops
def remainder(x, y) -> Tracer:
    """Elementwise ``x % y`` with the sign of ``y``, like numpy (for integers, ``x % 0`` is 0).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(remainder)(np.array([7, -7, 7]), np.array([2, 2, 0]))
    array([1, 1, 0])
    """
    a, b = _division_operands(x, y, "remainder")
    if _dt.is_float(a.dtype):
        return subtract(a, multiply(floor_divide(a, b), b))
    # The guarded divisor 1 leaves 0, numpy's answer for y == 0 and y == -1.
    r = _emit("arith.remsi", [a, _guarded_divisor(b)], a.dtype)
    wrong_sign = logical_and(not_equal(r, 0), not_equal(less(r, 0), less(b, 0)))
    return where(wrong_sign, add(r, b), r)


mod = remainder


@emits_ops
def fmod(x, y) -> Tracer:
    """Elementwise C remainder: the sign of ``x``, like numpy's ``fmod`` (for integers, ``fmod(x, 0)`` is 0).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(fmod)(np.array([7, -7, 7]), np.array([2, 2, 0]))
    array([ 1, -1,  0])
    """
    a, b = _division_operands(x, y, "fmod")
    if _dt.is_float(a.dtype):
        return _emit("arith.remf", [a, b], a.dtype)
    return _emit("arith.remsi", [a, _guarded_divisor(b)], a.dtype)


def divmod(x, y) -> tuple:
    """``(floor_divide(x, y), remainder(x, y))``, like numpy's ``divmod``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(divmod)(np.array([7, -7]), np.array([2, 0]))
    (array([3, 0]), array([1, 0]))
    """
    return floor_divide(x, y), remainder(x, y)


def _comparison(kind: str):
    def fn(x, y):
        a, b = _operands(x, y)
        return Tracer(builder.compare(kind, a.value, b.value), a.shape, bool_)

    names = {"eq": "equal", "ne": "not_equal", "lt": "less", "le": "less_equal",
             "gt": "greater", "ge": "greater_equal"}
    fn.__name__ = fn.__qualname__ = names[kind]
    fn.__doc__ = f"Elementwise ``{names[kind]}`` comparison; returns a bool array."
    return emits_ops(fn)


equal, not_equal = _comparison("eq"), _comparison("ne")
less, less_equal = _comparison("lt"), _comparison("le")
greater, greater_equal = _comparison("gt"), _comparison("ge")


def _logical(op_name: str, name: str):
    def fn(x, y):
        return _emit(op_name, _operands(x, y, dtype=bool_), bool_)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}`` of the truth values of ``x`` and ``y``."
    return emits_ops(fn)


logical_and = _logical("arith.andi", "logical_and")
logical_or = _logical("arith.ori", "logical_or")
logical_xor = _logical("arith.xori", "logical_xor")


@emits_ops
def where(condition, x, y) -> Tracer:
    """Select ``x`` where ``condition`` is true, else ``y`` (broadcasting all three)."""
    dtype = _dt.result_type(x, y)
    shape = _broadcast_shapes(*(np.shape(a) if not isinstance(a, Tracer) else a.shape
                                for a in (condition, x, y)))
    c = broadcast_to(astype(asarray(condition), bool_), shape)
    a, b = _operands(x, y, dtype=dtype)
    a, b = broadcast_to(a, shape), broadcast_to(b, shape)
    return Tracer(builder.select(c.value, a.value, b.value), shape, dtype)


@emits_ops
def clip(x, a_min=None, a_max=None, *, min=None, max=None) -> Tracer:  # noqa: A002 (numpy 2's names)
    """Limit ``x`` to ``[a_min, a_max]``; numpy 2 (and JAX) also name the bounds ``min`` and ``max``.

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.jit(lambda x: clip(x, min=0.0))(np.array([-1.0, 2.0]))
    array([0., 2.])
    """
    if (a_min is not None and min is not None) or (a_max is not None and max is not None):
        raise ValueError("Passed more than one argument for the same bound: use either a_min/a_max or min/max")
    a_min, a_max = (a_min if min is None else min), (a_max if max is None else max)
    if a_min is not None:
        x = maximum(x, a_min)
    if a_max is not None:
        x = minimum(x, a_max)
    return asarray(x)


# ----------------------------------------------------------------------------
# Elementwise unary ops
# ----------------------------------------------------------------------------

def _float_unary(op_name: str, name: str):
    def fn(x):
        x = asarray(x)
        x = astype(x, _dt.float_of(x.dtype))
        return _emit(op_name, [x], x.dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``; integers are computed in float64 like numpy."
    return emits_ops(fn)


exp = _float_unary("math.exp", "exp")
log = _float_unary("math.log", "log")
log1p = _float_unary("math.log1p", "log1p")
expm1 = _float_unary("math.expm1", "expm1")
tanh = _float_unary("math.tanh", "tanh")
sin = _float_unary("math.sin", "sin")
cos = _float_unary("math.cos", "cos")
tan = _float_unary("math.tan", "tan")
sqrt = _float_unary("math.sqrt", "sqrt")
rsqrt = _float_unary("math.rsqrt", "rsqrt")
log2 = _float_unary("math.log2", "log2")
log10 = _float_unary("math.log10", "log10")
exp2 = _float_unary("math.exp2", "exp2")
cbrt = _float_unary("math.cbrt", "cbrt")
sinh = _float_unary("math.sinh", "sinh")
cosh = _float_unary("math.cosh", "cosh")
# numpy 2 also spells the inverses the array-API way (asin, ...), as jax.numpy does.
arcsin = asin = _float_unary("math.asin", "arcsin")
arccos = acos = _float_unary("math.acos", "arccos")
arctan = atan = _float_unary("math.atan", "arctan")
arcsinh = asinh = _float_unary("math.asinh", "arcsinh")
arccosh = acosh = _float_unary("math.acosh", "arccosh")
arctanh = atanh = _float_unary("math.atanh", "arctanh")


def _rounding(op_name: str, name: str):
    def fn(x):
        x = asarray(x)
        if not _dt.is_float(x.dtype):  # already whole: numpy returns integers unchanged
            return x
        return _emit(op_name, [x], x.dtype)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"Elementwise ``{name}``; integer arrays are returned unchanged like numpy."
    return emits_ops(fn)


floor = _rounding("math.floor", "floor")
ceil = _rounding("math.ceil", "ceil")
_round_to_integer = _rounding("math.roundeven", "round")  # numpy rounds half to even
trunc = _rounding("math.trunc", "trunc")


@emits_ops
def round(a, decimals: int = 0) -> Tracer:  # noqa: A001 (numpy's name)
    """Round half to even to ``decimals`` decimal places (negative: to tens, hundreds, ...), as numpy.

    To an integer (``decimals=0``) it is one ``math.roundeven``, integers
    unchanged; otherwise, and for complex numbers, :func:`around`'s scaling.

    Examples
    --------
    >>> round(np.array([0.5, 1.5, -2.5])), round(np.array([1.25, 1.35]), 1), round(np.array([125, 135]), -1)
    (array([ 0.,  2., -2.]), array([1.2, 1.4]), array([120, 140]))
    """
    x = asarray(a)
    if _operator.index(decimals) == 0 and x.dtype.kind != "c":
        return _round_to_integer(x)
    return importlib.import_module(f"{__name__}.ufuncs").around(x, decimals)


@emits_ops
def negative(x) -> Tracer:
    """Elementwise ``-x``."""
    x = asarray(x)
    if _dt.is_inexact(x.dtype):
        return _emit("arith.negf", [x], x.dtype)
    if _dt.is_bool(x.dtype):
        raise TypeError("negative of a bool array is not supported (use logical_not)")
    return subtract(0, x)


@emits_ops
def positive(x) -> Tracer:
    """Elementwise ``+x``."""
    return asarray(x)


@emits_ops
def absolute(x) -> Tracer:
    """Elementwise absolute value (the magnitude, a real array, of complex numbers)."""
    x = asarray(x)
    if _dt.is_bool(x.dtype):
        return x
    if _dt.is_complex(x.dtype):
        return _wrap(builder.complex_abs(x.value))
    return _emit("math.absf" if _dt.is_float(x.dtype) else "math.absi", [x], x.dtype)


abs = absolute


@emits_ops
def real(x) -> Tracer:
    """The real part (``x`` itself for a real array).

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jit(tnp.real)(np.array([1 + 2j]))
    array([1.])
    """
    x = asarray(x)
    return _wrap(builder.real(x.value)) if _dt.is_complex(x.dtype) else x


@emits_ops
def imag(x) -> Tracer:
    """The imaginary part (zeros for a real array).

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jit(tnp.imag)(np.array([1 + 2j]))
    array([2.])
    """
    x = asarray(x)
    return _wrap(builder.imag(x.value)) if _dt.is_complex(x.dtype) else zeros_like(x)


@emits_ops
def conjugate(x) -> Tracer:
    """The complex conjugate (``x`` itself for a real array).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(conjugate)(np.array([1 + 2j]))
    array([1.-2.j])
    """
    x = asarray(x)
    return _wrap(builder.conj(x.value)) if _dt.is_complex(x.dtype) else x


conj = conjugate


@emits_ops
def angle(x, deg: bool = False) -> Tracer:
    """The argument ``atan2(imag, real)`` of complex numbers (in degrees with ``deg``).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(angle)(np.array([1j, -1.0]))
    array([1.57079633, 3.14159265])
    """
    x = asarray(x)
    out = arctan2(imag(x), real(x))
    return multiply(out, 180.0 / np.pi) if deg else out


@emits_ops
def sign(x) -> Tracer:
    """Elementwise sign: -1, 0 or 1 (NaN stays NaN), in the dtype of ``x``; ``z / |z|`` of complex ``z``."""
    x = asarray(x)
    if _dt.is_complex(x.dtype):  # numpy 2's, with JAX's zero derivative
        return _wrap(builder.sign(x.value))
    s = subtract(astype(greater(x, 0), x.dtype), astype(less(x, 0), x.dtype))
    if _dt.is_float(x.dtype):
        return where(not_equal(x, x), x, s)
    return s


@emits_ops
def square(x) -> Tracer:
    """Elementwise ``x * x``."""
    return multiply(x, x)


@emits_ops
def reciprocal(x) -> Tracer:
    """Elementwise ``1 / x``; integers divide like numpy's integer loop (truncating toward zero).

    For integers ``1 / 0`` is 0, as ``1 // 0``: numpy warns and gives what its
    platform gives (0 or the dtype's least value); compiled code must not
    divide by zero, which traps.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(reciprocal)(np.array([0, 1, 2, -1]))
    array([ 0,  1,  0, -1])
    """
    x = asarray(x)
    if not _dt.is_inexact(x.dtype) and not _dt.is_bool(x.dtype):
        zero = equal(x, 0)
        return where(zero, 0, _emit("arith.divsi", _operands(1, where(zero, 1, x)), x.dtype))
    return divide(1, x)


@emits_ops
def logical_not(x) -> Tracer:
    """Elementwise logical negation."""
    return logical_xor(x, True)


@emits_ops
def invert(x) -> Tracer:
    """Elementwise bitwise NOT (logical NOT for booleans)."""
    x = asarray(x)
    return bitwise_xor(x, True if _dt.is_bool(x.dtype) else -1)


# ----------------------------------------------------------------------------
# Shapes and structure
# ----------------------------------------------------------------------------

def _normalize_axis(axis: int, ndim: int) -> int:
    if not -builtins.max(ndim, 1) <= axis < builtins.max(ndim, 1):  # numpy takes 0 and -1 on a 0-d array
        raise TracingError(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % builtins.max(ndim, 1)


def _normalize_axes(axis, ndim: int) -> tuple:
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    out = tuple(_normalize_axis(a, ndim) for a in axes)
    if len(set(out)) != len(out):
        raise TracingError(f"repeated axis in {axis}")
    return out


@emits_ops
def reshape(x, shape, *more) -> Tracer:
    """Row-major reshape; one entry of ``shape`` may be -1."""
    x = asarray(x)
    shape = (shape,) + more if more or isinstance(shape, int) else tuple(shape)
    shape = [int(n) for n in shape]
    if shape.count(-1) > 1:
        raise TracingError("can only specify one unknown dimension (-1)")
    if -1 in shape:
        known = int(np.prod([n for n in shape if n != -1], dtype=np.int64))
        shape[shape.index(-1)] = x.size // known if known else 0
    if int(np.prod(shape, dtype=np.int64)) != x.size:
        raise TracingError(f"cannot reshape array of size {x.size} into shape {tuple(shape)}")
    if tuple(shape) == x.shape:
        return x
    return _wrap(builder.reshape(x.value, shape))


@emits_ops
def ravel(x) -> Tracer:
    """Flatten ``x`` to one dimension."""
    return reshape(x, (-1,))


@emits_ops
def transpose(x, axes=None) -> Tracer:
    """Permute the axes of ``x`` (reversed when ``axes`` is None)."""
    x = asarray(x)
    axes = tuple(reversed(range(x.ndim))) if axes is None else _normalize_axes(axes, x.ndim)
    if len(axes) != x.ndim:
        raise TracingError(f"axes {axes} don't match an array of dimension {x.ndim}")
    if axes == tuple(range(x.ndim)):
        return x
    return _wrap(builder.transpose(x.value, axes))


@emits_ops
def swapaxes(x, axis1: int, axis2: int) -> Tracer:
    """Interchange two axes of ``x``."""
    x = asarray(x)
    perm = list(range(x.ndim))
    a, b = _normalize_axis(axis1, x.ndim), _normalize_axis(axis2, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


@emits_ops
def expand_dims(x, axis) -> Tracer:
    """Insert size-1 axes at the positions ``axis`` of the result."""
    x = asarray(x)
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    ndim = x.ndim + len(axes)
    axes = _normalize_axes(axes, ndim)
    dims = iter(x.shape)
    return reshape(x, [1 if d in axes else next(dims) for d in range(ndim)])


@emits_ops
def squeeze(x, axis=None) -> Tracer:
    """Remove size-1 axes (all of them, or those in ``axis``)."""
    x = asarray(x)
    if axis is None:
        axes = tuple(d for d, n in enumerate(x.shape) if n == 1)
    elif x.ndim == 0:  # numpy squeezes a 0-d array over axis 0 or -1 to itself
        _normalize_axes(axis, 0)
        return x
    else:
        axes = _normalize_axes(axis, x.ndim)
        for a in axes:
            if x.shape[a] != 1:
                raise TracingError(f"cannot squeeze axis {a} of size {x.shape[a]}")
    return reshape(x, [n for d, n in enumerate(x.shape) if d not in axes])


@emits_ops
def concatenate(arrays, axis: int = 0) -> Tracer:
    """Join arrays along an existing axis (``tensor.concat``)."""
    if not arrays:
        raise TracingError("need at least one array to concatenate")
    dtype = _dt.result_type(*arrays)
    parts = [astype(asarray(a), dtype) for a in arrays]
    ndim = parts[0].ndim
    if ndim == 0:
        raise TracingError("zero-dimensional arrays cannot be concatenated")
    axis = _normalize_axis(axis, ndim)
    for p in parts:
        if p.ndim != ndim or builtins.any(p.shape[d] != parts[0].shape[d] for d in range(ndim) if d != axis):
            raise TracingError("all the input array dimensions except for the concatenation axis "
                               f"must match: {[q.shape for q in parts]}")
    if len(parts) == 1:
        return parts[0]
    shape = list(parts[0].shape)
    shape[axis] = builtins.sum(p.shape[axis] for p in parts)
    return Tracer(builder.concatenate([p.value for p in parts], axis), shape, dtype)


@emits_ops
def stack(arrays, axis: int = 0) -> Tracer:
    """Join arrays along a new axis."""
    return concatenate([expand_dims(a, axis) for a in arrays], axis=axis)


def _normalized_indices(indices, n: int, axis: int):
    """Integer ``indices`` into an axis of size ``n``, as int64 in ``[0, n)``: a numpy array if concrete.

    Negative indices count from the end. Concrete indices out of ``[-n, n)``
    raise IndexError, as in numpy; traced ones cannot be checked while
    tracing, so they are clamped into range, as in JAX.
    """
    if isinstance(indices, Tracer):
        if indices.dtype.kind not in "iu":
            raise TracingError(f"indices must be integers, got {indices.dtype.name}")
        if n == 0 and indices.size:
            raise IndexError("cannot do a non-empty take from an empty axis")
        wrapped = where(less(indices, 0), add(indices, n), indices)
        return astype(clip(wrapped, 0, n - 1), int64)
    concrete = np.asarray(indices)
    if concrete.dtype.kind == "b":
        raise TracingError("boolean masks are not supported: the result's shape would depend "
                           "on the mask's values")
    if concrete.dtype.kind not in "iu" and concrete.size:
        raise IndexError(f"arrays used as indices must be of integer type, got {concrete.dtype}")
    concrete = concrete.astype(np.int64)
    outside = (concrete < -n) | (concrete >= n)
    if outside.any():
        raise IndexError(f"index {concrete[outside].flat[0]} is out of bounds for axis {axis} "
                         f"with size {n}")
    return np.where(concrete < 0, concrete + n, concrete)


def _gather_indices(indices, n: int, axis: int) -> Tracer:
    """:func:`_normalized_indices` as a traced array."""
    return asarray(_normalized_indices(indices, n, axis))


@emits_ops
def take(a, indices, axis=None) -> Tracer:
    """Elements of ``a`` at integer ``indices`` along ``axis`` (of the flattened ``a`` when None).

    As in numpy, the result has shape ``a.shape[:axis] + indices.shape +
    a.shape[axis + 1:]`` and negative indices count from the end. Concrete
    indices out of range raise IndexError (numpy's default mode); traced
    indices cannot be checked while tracing and are clamped into range
    instead, as in JAX. The derivative scatters back, adding up at repeated
    indices (``tad.take_backward``).

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.jit(lambda x: take(x, np.array([2, 0, -1])))(np.array([1.0, 2.0, 3.0]))
    array([3., 1., 3.])
    """
    a = asarray(a)
    if axis is None:
        a, axis = ravel(a), 0
    if a.ndim == 0:
        raise TracingError("cannot take along an axis of a 0-dimensional array")
    axis = _normalize_axis(axis, a.ndim)
    index = _gather_indices(indices, a.shape[axis], axis)
    return _wrap(builder.take(a.value, index.value, axis))


@emits_ops
def take_along_axis(arr, indices, axis) -> Tracer:
    """One element along ``axis`` per index: ``out[i, j] = arr[i, indices[i, j]]`` for ``axis=1``.

    numpy semantics: ``indices`` has as many dimensions as ``arr`` (or is 1-D
    when ``axis`` is None, which flattens ``arr``), and its other dimensions
    broadcast against ``arr``'s. Index values follow :func:`take`.

    Examples
    --------
    >>> import tensorad as ta
    >>> x = np.array([[10.0, 30.0, 20.0], [60.0, 40.0, 50.0]])
    >>> ta.jit(lambda x: take_along_axis(x, np.array([[1], [0]]), axis=1))(x)
    array([[30.],
           [60.]])
    """
    arr = asarray(arr)
    if axis is None:
        arr, axis = ravel(arr), 0
    axis = _normalize_axis(axis, arr.ndim)
    index = _gather_indices(indices, arr.shape[axis], axis)
    if index.ndim != arr.ndim:
        raise TracingError(f"indices of dimension {index.ndim} do not match an array of "
                           f"dimension {arr.ndim}")
    # One gather from the flattened array at flat offsets: the loop position
    # in every other dim (a size-1 dim of arr broadcasts: stride 0) plus the
    # index along the axis.
    shape = _broadcast_shapes(arr.shape[:axis] + (index.shape[axis],) + arr.shape[axis + 1:],
                              index.shape)
    strides = np.cumprod((1,) + arr.shape[:0:-1])[::-1]  # row-major, in elements
    offsets = multiply(broadcast_to(index, shape), int(strides[axis]))
    for d, n in enumerate(arr.shape):
        if d != axis and n != 1:
            position = _wrap(builder.iota(shape, d, _dt.to_mlir(int64)))
            offsets = add(offsets, multiply(position, int(strides[d])))
    return _wrap(builder.take(ravel(arr).value, offsets.value, 0))


def _index_error(message: str):
    raise TracingError(f"{message}; tensorad supports numpy's indexing: integers, slices, None, Ellipsis, "
                       "integer arrays (concrete or traced) and concrete boolean masks")


def _is_int(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _is_array_index(k) -> bool:
    """Whether the key entry ``k`` is an index array (numpy's advanced indexing), traced scalars included."""
    return isinstance(k, (np.ndarray, Tracer))


def _is_mask(k) -> bool:
    return isinstance(k, np.ndarray) and k.dtype == np.bool_


def _key_entry(k):
    """One entry of an index as numpy reads it: a list is an array; a 0-d integer array is an integer."""
    if isinstance(k, list):
        k = asarray(k) if _holds_tracer(k) else np.asarray(k)
        if not isinstance(k, Tracer) and k.size == 0:  # x[[]] selects nothing
            k = k.astype(np.int64)
    if isinstance(k, (bool, np.bool_)) or (isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype == np.bool_):
        _index_error("boolean scalar indices are not supported")
    if isinstance(k, Tracer) and k.dtype == bool_:
        raise TracingError("a traced boolean mask cannot be an index: the result's shape would depend on "
                           "its values (JAX raises NonConcreteBooleanIndexError too); use a concrete numpy "
                           "mask, or where(mask, x, 0) to keep the shape")
    if isinstance(k, np.ndarray) and k.ndim == 0 and k.dtype.kind in "iu":
        return int(k)
    return k


def _index_key(x: Tracer, key) -> tuple:
    """``key`` as one int, slice or integer array per dim of ``x``, and ``None`` for each new dim.

    An Ellipsis becomes full slices (as many as the dims it stands for), and a
    concrete boolean mask the integer arrays of its true positions (numpy's
    ``nonzero``), one per dim it covers.
    """
    entries = [_key_entry(k) for k in (key if isinstance(key, tuple) else (key,))]
    ellipses = [i for i, k in enumerate(entries) if k is Ellipsis]  # `is`: entries may be arrays
    if len(ellipses) > 1:
        _index_error("an index can only have a single ellipsis ('...')")
    consumed = builtins.sum(k.ndim if _is_mask(k) else 1 for k in entries if k is not None and k is not Ellipsis)
    if consumed > x.ndim:
        _index_error(f"too many indices for an array of dimension {x.ndim}")
    fill = [slice(None)] * (x.ndim - consumed)
    entries = entries[:ellipses[0]] + fill + entries[ellipses[0] + 1:] if ellipses else entries + fill
    key, dim = [], 0
    for k in entries:
        if _is_mask(k):
            for d, (n, m) in enumerate(zip(x.shape[dim:], k.shape)):
                if n != m:
                    raise IndexError(f"boolean index did not match indexed array along axis {dim + d}; size of "
                                     f"axis is {n} but size of corresponding boolean axis is {m}")
            key.extend(np.nonzero(k))
            dim += k.ndim
        else:
            key.append(k)
            dim += k is not None
    return tuple(key)


def _dynamic_first_index(x: Tracer, index: Tracer) -> Tracer:
    """``x[index]`` for a traced integer scalar ``index`` (``tensor.extract_slice``)."""
    if index.shape != () or index.dtype.kind not in "iu":
        _index_error(f"a traced index must be an integer scalar, got {index.dtype.name}"
                     f"{list(index.shape)}")
    if x.ndim == 0:
        _index_error("too many indices for an array of dimension 0")
    n = x.shape[0]
    wrapped = where(less(index, 0), add(index, n), index)
    clamped = astype(minimum(maximum(wrapped, 0), n - 1), int64)
    scalar = tensor.ExtractOp(clamped.value, []).result
    row = arith.IndexCastOp(ir.IndexType.get(), scalar).result
    return _wrap(builder.dynamic_row(x.value, row))


def _basic_index(x: Tracer, key: tuple) -> Tracer:
    """``x[key]`` for a key of ``None``, and one int or slice per dim of ``x`` (:func:`_index_key`)."""
    start, limit, strides, flipped, out_shape = [], [], [], [], []
    dim = 0
    for k in key:
        if k is None:
            out_shape.append(1)
            continue
        n = x.shape[dim]
        if _is_int(k):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim} with size {n}")
            start.append(int(k) % n), limit.append(int(k) % n + 1), strides.append(1)
        elif isinstance(k, slice):
            lo, hi, step = k.indices(n)
            count = len(range(lo, hi, step))
            if count == 0:  # start it at 0, where every dim may begin an empty slice
                lo, hi, step = 0, 0, 1
            elif step < 0:  # the positive-step slice of the same elements, reversed
                lo, hi, step = lo + (count - 1) * step, lo + 1, -step
                flipped.append(dim)
            start.append(lo), limit.append(hi), strides.append(step)
            out_shape.append(count)
        else:
            _index_error(f"unsupported index {k!r} of type {type(k).__name__}")
        dim += 1
    if (start, limit, strides) != ([0] * x.ndim, list(x.shape), [1] * x.ndim):
        x = _wrap(builder.slice_(x.value, start, limit, strides))
    if flipped:
        x = _wrap(builder.reverse(x.value, flipped))
    return reshape(x, out_shape)


@emits_ops
def getitem(x, key) -> Tracer:
    """numpy's indexing ``x[key]``: basic and advanced, with JAX's rules for traced indices.

    Integers, slices (any step), ``None`` and ``...``; integer arrays and
    lists, concrete or traced, in any positions (they broadcast together
    and their dims go where numpy puts them: in place when the indexed dims
    are adjacent, else first); concrete boolean masks (numpy's ``nonzero``).
    Traced indices are clamped into range after negative ones wrap, as in
    JAX; concrete ones out of range raise IndexError. A traced boolean mask
    raises, as in JAX: the result's shape would depend on its values.

    Examples
    --------
    >>> import tensorad as ta
    >>> x = np.arange(12.0).reshape(3, 4)
    >>> ta.jit(lambda x: x[[2, 0], ::-2])(x)
    array([[11.,  9.],
           [ 3.,  1.]])
    """
    x = asarray(x)
    key = _index_key(x, key)
    arrays = [i for i, k in enumerate(key) if _is_array_index(k)]
    if not arrays:
        return _basic_index(x, key)
    if isinstance(key[0], Tracer) and key[0].ndim == 0 and builtins.all(key[i].ndim == 0 for i in arrays):
        # xs[i] or xs[i, j] in a loop: a row (scalar indices add no dims, so the order does not matter).
        return getitem(_dynamic_first_index(x, key[0]), key[1:])
    # Integers index like arrays here: numpy counts them when it places the index dims.
    indexed = [i for i, k in enumerate(key) if _is_array_index(k) or _is_int(k)]
    # Each entry keeps (or adds) one dim: the indexed dims are at the positions `indexed`.
    x = _basic_index(x, tuple(slice(None) if i in indexed else k for i, k in enumerate(key)))
    indices = [_normalized_indices(key[i], x.shape[i], i) for i in indexed]
    if len(indexed) == 1:
        return _wrap(builder.take(x.value, asarray(indices[0]).value, indexed[0]))
    shape = _broadcast_shapes(*(ix.shape for ix in indices))
    if indexed != list(range(indexed[0], indexed[0] + len(indexed))):  # apart: the index dims go first
        x = transpose(x, indexed + [d for d in range(x.ndim) if d not in indexed])
        indexed = list(range(len(indexed)))
    # One take from the indexed dims merged into one, at the row-major offsets.
    first, sizes = indexed[0], [x.shape[d] for d in indexed]
    flat, stride = 0, 1
    for ix, n in zip(reversed(indices), reversed(sizes)):
        flat = add(flat, multiply(ix, stride)) if isinstance(ix, Tracer) or isinstance(flat, Tracer) \
            else flat + ix * stride
        stride *= n
    merged = reshape(x, x.shape[:first] + (stride,) + x.shape[first + len(indexed):])
    return _wrap(builder.take(merged.value, broadcast_to(asarray(flat), shape).value, first))


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

def _keep(result: Tracer, x: Tracer, axes: tuple, keepdims: bool) -> Tracer:
    if not keepdims:
        return result
    return reshape(result, [1 if d in axes else n for d, n in enumerate(x.shape)])


def _reduce(kind: str, x, axis, keepdims: bool, dtype=None) -> Tracer:
    x = asarray(x)
    if dtype is not None:
        x = astype(x, dtype)
    axes = _normalize_axes(axis, x.ndim)
    if not axes or x.ndim == 0:  # numpy reduces a 0-d array over axis 0 or -1 to itself
        return x
    if kind != "sum" and builtins.any(x.shape[a] == 0 for a in axes):
        raise TracingError(f"zero-size array to reduction operation {kind}imum which has no identity")
    if _dt.is_bool(x.dtype) and kind != "sum":  # any/all
        return astype(_reduce(kind, astype(x, int32), axes, keepdims), bool_)
    if _dt.is_complex(x.dtype) and kind != "sum":
        raise TypeError(f"{kind} of complex arrays is not supported: complex numbers have no order")
    out = _wrap(builder.reduce(kind, x.value, axes))
    return _keep(out, x, axes, keepdims)


@emits_ops
def sum(x, axis=None, dtype=None, keepdims: bool = False) -> Tracer:
    """Sum over ``axis``; bool and int32 sum in int64 like numpy."""
    x = asarray(x)
    if dtype is None and x.dtype in (bool_, int32):
        dtype = int64
    return _reduce("sum", x, axis, keepdims, dtype)


@emits_ops
def max(x, axis=None, keepdims: bool = False) -> Tracer:
    """Maximum over ``axis`` (NaN propagates)."""
    return _reduce("max", x, axis, keepdims)


@emits_ops
def min(x, axis=None, keepdims: bool = False) -> Tracer:
    """Minimum over ``axis`` (NaN propagates)."""
    return _reduce("min", x, axis, keepdims)


amax, amin = max, min


@emits_ops
def any(x, axis=None, keepdims: bool = False) -> Tracer:
    """True where any element over ``axis`` is true (False over no elements, as numpy).

    Examples
    --------
    >>> any(np.array([[0, 1], [0, 0]]), axis=1), any(np.zeros((0, 2)), axis=0)
    (array([ True, False]), array([False, False]))
    """
    return _logical_reduce("max", x, axis, keepdims)


@emits_ops
def all(x, axis=None, keepdims: bool = False) -> Tracer:
    """True where every element over ``axis`` is true (True over no elements, as numpy).

    Examples
    --------
    >>> all(np.array([[1, 1], [0, 1]]), axis=1), all(np.zeros((0,)))
    (array([ True, False]), array(True))
    """
    return _logical_reduce("min", x, axis, keepdims)


def _logical_reduce(kind: str, x, axis, keepdims: bool) -> Tracer:
    """``any`` (``"max"``) or ``all`` (``"min"``) of ``x`` as booleans; over nothing, the reduction's identity."""
    x = astype(x, bool_)
    axes = _normalize_axes(axis, x.ndim)
    if builtins.any(x.shape[a] == 0 for a in axes):
        shape = [1 if a in axes else n for a, n in enumerate(x.shape)] if keepdims else \
            [n for a, n in enumerate(x.shape) if a not in axes]
        return full(shape, kind == "min", bool_)
    return _reduce(kind, x, axes, keepdims)


@emits_ops
def mean(x, axis=None, dtype=None, keepdims: bool = False) -> Tracer:
    """Arithmetic mean over ``axis``; integers average in float64 like numpy."""
    x = asarray(x)
    dtype = _dt.float_of(x.dtype) if dtype is None else np.dtype(dtype)
    axes = _normalize_axes(axis, x.ndim)
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64))
    return divide(sum(x, axes, dtype=dtype, keepdims=keepdims), np.array(count, dtype))


@emits_ops
def var(x, axis=None, ddof: int = 0, keepdims: bool = False) -> Tracer:
    """Variance over ``axis``."""
    x = asarray(x)
    axes = _normalize_axes(axis, x.ndim)
    centered = subtract(x, mean(x, axes, keepdims=True))
    count = int(np.prod([x.shape[a] for a in axes], dtype=np.int64)) - ddof
    # |x - mean|**2: the same multiply for real arrays, a real result for complex ones (as numpy).
    squares = sum(real(multiply(centered, conjugate(centered))), axes, keepdims=keepdims)
    return divide(squares, np.array(count, squares.dtype))


@emits_ops
def std(x, axis=None, ddof: int = 0, keepdims: bool = False) -> Tracer:
    """Standard deviation over ``axis``."""
    return sqrt(var(x, axis, ddof, keepdims))


@emits_ops
def argmax(x, axis=None, keepdims: bool = False) -> Tracer:
    """Index of the first maximum along ``axis`` (of the flattened array when None); int64."""
    x = asarray(x)
    if _dt.is_bool(x.dtype):
        x = astype(x, int32)
    if axis is None:
        out = argmax(ravel(x), 0)
        return reshape(out, [1] * x.ndim) if keepdims else out
    a = _normalize_axis(axis, x.ndim)
    if x.shape[a] == 0:
        raise TracingError("attempt to get argmax of an empty sequence")
    return _keep(_wrap(builder.argmax(x.value, a)), x, (a,), keepdims)


@emits_ops
def argmin(x, axis=None, keepdims: bool = False) -> Tracer:
    """Index of the first minimum along ``axis``; int64."""
    x = asarray(x)
    flipped = logical_not(x) if _dt.is_bool(x.dtype) else (
        negative(x) if _dt.is_float(x.dtype) else subtract(-1, x))
    return argmax(flipped, axis, keepdims)


# ----------------------------------------------------------------------------
# Contractions (all through tad.dot_general)
# ----------------------------------------------------------------------------

def _dot_general(a: Tracer, b: Tracer, batch: tuple, contract: tuple) -> Tracer:
    return _wrap(builder.dot_general(a.value, b.value, batch[0], batch[1], contract[0], contract[1]))


def _promote_pair(a, b):
    dtype = _dt.result_type(a, b)
    return astype(asarray(a), dtype), astype(asarray(b), dtype)


@emits_ops
def matmul(a, b) -> Tracer:
    """Matrix product with numpy's rules (1-D promotion, broadcast batch dims)."""
    a, b = _promote_pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        raise TracingError("matmul: input operand does not have enough dimensions")
    a2 = reshape(a, (1,) + a.shape) if a.ndim == 1 else a
    b2 = reshape(b, b.shape + (1,)) if b.ndim == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        raise TracingError(f"matmul: contracting dimensions differ: {a.shape} @ {b.shape}")
    if b2.ndim == 2:  # fold a's batch dims into its free dims: no broadcast of b
        out = _dot_general(a2, b2, ((), ()), ((a2.ndim - 1,), (0,)))
    else:
        batch = _broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
        a2 = broadcast_to(a2, batch + a2.shape[-2:])
        b2 = broadcast_to(b2, batch + b2.shape[-2:])
        nb = len(batch)
        out = _dot_general(a2, b2, (tuple(range(nb)), tuple(range(nb))), ((nb + 1,), (nb,)))
    shape = list(out.shape)
    if b.ndim == 1:
        shape.pop(-1)
    if a.ndim == 1:
        shape.pop(-1 if b.ndim == 1 else -2)
    return reshape(out, shape)


@emits_ops
def dot(a, b) -> Tracer:
    """numpy ``dot``: sum over the last axis of ``a`` and the second-to-last of ``b``."""
    a, b = _promote_pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    rhs_axis = b.ndim - 2 if b.ndim >= 2 else 0
    if a.shape[-1] != b.shape[rhs_axis]:
        raise TracingError(f"shapes {a.shape} and {b.shape} not aligned for dot")
    return _dot_general(a, b, ((), ()), ((a.ndim - 1,), (rhs_axis,)))


@emits_ops
def tensordot(a, b, axes=2) -> Tracer:
    """Sum products over ``axes`` (an int: last/first n axes; or two sequences)."""
    a, b = _promote_pair(a, b)
    if isinstance(axes, int):
        ax_a, ax_b = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        ax_a, ax_b = (_normalize_axes(axes[0], a.ndim), _normalize_axes(axes[1], b.ndim))
    if len(ax_a) != len(ax_b) or builtins.any(a.shape[i] != b.shape[j] for i, j in zip(ax_a, ax_b)):
        raise TracingError(f"shape mismatch for tensordot: {a.shape}, {b.shape}, axes {axes}")
    return _dot_general(a, b, ((), ()), (ax_a, ax_b))


@emits_ops
def inner(a, b) -> Tracer:
    """Sum of products over the last axes of ``a`` and ``b``."""
    a, b = _promote_pair(a, b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, ((a.ndim - 1,), (b.ndim - 1,)))


@emits_ops
def outer(a, b) -> Tracer:
    """Outer product of the flattened ``a`` and ``b``."""
    a, b = _promote_pair(a, b)
    return _dot_general(ravel(a), ravel(b), ((), ()), ((), ()))


# ----------------------------------------------------------------------------
# Creation
# ----------------------------------------------------------------------------

def _shape_tuple(shape) -> tuple:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


@emits_ops
def full(shape, fill_value, dtype=None) -> Tracer:
    """An array of ``shape`` filled with ``fill_value``."""
    if isinstance(fill_value, Tracer):
        return broadcast_to(astype(fill_value, dtype or fill_value.dtype), _shape_tuple(shape))
    dtype = _dt.result_type(fill_value) if dtype is None else dtype
    return _splat(fill_value, _shape_tuple(shape), dtype)


@emits_ops
def zeros(shape, dtype=float64) -> Tracer:
    """An array of zeros (float64 by default, like numpy)."""
    return full(shape, 0, dtype)


@emits_ops
def ones(shape, dtype=float64) -> Tracer:
    """An array of ones (float64 by default, like numpy)."""
    return full(shape, 1, dtype)


@emits_ops
def full_like(x, fill_value, dtype=None) -> Tracer:
    """An array shaped like ``x`` filled with ``fill_value``."""
    return full(np.shape(x) if not isinstance(x, Tracer) else x.shape, fill_value,
                dtype or asarray(x).dtype)


@emits_ops
def zeros_like(x, dtype=None) -> Tracer:
    """Zeros shaped like ``x``."""
    return full_like(x, 0, dtype)


@emits_ops
def ones_like(x, dtype=None) -> Tracer:
    """Ones shaped like ``x``."""
    return full_like(x, 1, dtype)


@emits_ops
def arange(start, stop=None, step=1, dtype=None) -> Tracer:
    """Evenly spaced values ``start, start + step, ...`` below ``stop`` (``tad.iota``)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = _dt.result_type(start, stop, step)
        dtype = float64 if _dt.is_float(dtype) else int64
    dtype = _dt.check_supported(dtype)
    n = builtins.max(int(_math.ceil((stop - start) / step)), 0)
    out = _wrap(builder.iota((n,), 0, _dt.to_mlir(dtype)))
    if step != 1:
        out = multiply(out, np.array(step, dtype))
    if start != 0:
        out = add(out, np.array(start, dtype))
    return out


@emits_ops
def eye(n: int, m: int | None = None, k: int = 0, dtype=float64) -> Tracer:
    """A 2-D array with ones on the ``k``-th diagonal."""
    m = n if m is None else m
    rows = _wrap(builder.iota((n, m), 0, _dt.to_mlir(int64)))
    cols = _wrap(builder.iota((n, m), 1, _dt.to_mlir(int64)))
    return astype(equal(add(rows, k), cols), dtype)


def shape(x) -> tuple:
    """Shape of an array or traced array."""
    return x.shape if isinstance(x, Tracer) else np.shape(x)


def ndim(x) -> int:
    """Number of dimensions of an array or traced array."""
    return len(shape(x))


# ----------------------------------------------------------------------------
# Tracer methods and operators (numpy's array protocol)
# ----------------------------------------------------------------------------

def _swap(fn):
    return lambda self, other: fn(other, self)


def _install_array_methods(cls) -> None:
    binary = {"add": add, "sub": subtract, "mul": multiply, "truediv": divide,
              "floordiv": floor_divide, "mod": remainder, "divmod": divmod, "pow": power, "matmul": matmul,
              "and": bitwise_and, "or": bitwise_or, "xor": bitwise_xor}
    for name, fn in binary.items():
        setattr(cls, f"__{name}__", fn)
        setattr(cls, f"__r{name}__", _swap(fn))
    for name, fn in {"eq": equal, "ne": not_equal, "lt": less, "le": less_equal,
                     "gt": greater, "ge": greater_equal, "neg": negative, "pos": positive,
                     "abs": absolute, "invert": invert, "getitem": getitem}.items():
        setattr(cls, f"__{name}__", fn)
    for fn in (sum, mean, max, min, argmax, argmin, any, all, var, std, astype, ravel,
               squeeze, swapaxes, clip, dot, conjugate):
        setattr(cls, fn.__name__, fn)
    cls.conj, cls.real, cls.imag = conjugate, property(real), property(imag)
    cls.reshape = lambda self, *shape: reshape(self, *shape)
    cls.transpose = lambda self, *axes: transpose(self, axes if axes else None) if len(axes) != 1 \
        else transpose(self, axes[0])
    cls.flatten = ravel
    cls.T = property(transpose)
    for name in ("prod", "repeat", "trace", "diagonal",  # functions of the modules below
                 "sort", "argsort", "searchsorted", "cumsum", "cumprod"):
        setattr(cls, name, _method_of(name))


def _method_of(name: str):
    """A Tracer method calling the function ``name`` of this package, imported on first use."""
    def method(self, *args, **kwargs):
        return getattr(sys.modules[__name__], name)(self, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    return method


_install_array_methods(Tracer)


def _index_update(x):
    """``x.at``: JAX's indexed updates (``x.at[i].set(y)``), from the module ``updates``, imported on first use."""
    return importlib.import_module(f"{__name__}.updates").IndexUpdateHelper(x)


Tracer.at = Array.at = property(_index_update)  # eager results too


# ----------------------------------------------------------------------------
# Functions composed of the ones above, in modules of their own
# ----------------------------------------------------------------------------

# These modules import this package, so a name of theirs is imported on first
# use (importlib, as tensorad/__init__.py does): no import cycle.
_MODULE_NAMES = {
    "shaping": ("block", "mgrid", "ogrid", "r_", "c_", "moveaxis", "atleast_1d", "atleast_2d", "atleast_3d", "broadcast_arrays", "flip", "fliplr",
                "flipud", "rot90", "roll", "repeat", "tile", "array_split", "split", "vstack", "hstack", "dstack",
                "column_stack", "append", "meshgrid", "diff", "pad", "concat", "permute_dims", "matrix_transpose",
                "unstack", "hsplit", "vsplit", "dsplit", "rollaxis", "resize"),
    "matrices": ("tri", "tril", "triu", "diag", "diagflat", "diagonal", "fill_diagonal", "trace", "kron", "cross", "vdot", "vecdot", "matvec",
                 "vecmat"),
    "ufuncs": ("hypot", "isnan", "isinf", "isfinite", "nan_to_num", "rad2deg", "deg2rad", "degrees", "radians",
               "select", "logaddexp", "logaddexp2", "sinc", "i0", "signbit", "rint", "around", "fabs", "isposinf",
               "isneginf", "isreal", "iscomplex", "pow", "float_power", "heaviside", "frexp", "ldexp", "modf",
               "isclose", "allclose", "array_equal", "array_equiv"),
    "bits": ("nextafter", "spacing", "gcd", "lcm", "left_shift", "right_shift", "bitwise_left_shift",
             "bitwise_right_shift", "bitwise_not", "bitwise_invert", "bitwise_count"),
    "reductions": ("prod", "average", "cov", "corrcoef", "ptp", "count_nonzero"),
    "nanfunctions": ("nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmax", "nanmin", "nanargmax", "nanargmin",
                     "nancumsum", "nancumprod", "nanquantile", "nanpercentile", "nanmedian"),
    "creation": ("linspace", "logspace", "geomspace", "indices", "fromfunction", "empty", "empty_like", "copy",
                 "identity", "vander", "hanning", "hamming", "blackman", "bartlett", "kaiser", "tril_indices",
                 "triu_indices", "tril_indices_from", "triu_indices_from", "diag_indices", "diag_indices_from",
                 "mask_indices"),
    "inspection": ("isscalar", "iscomplexobj", "isrealobj", "isdtype", "issubdtype", "can_cast", "iterable",
                   "broadcast_shapes", "size", "finfo", "iinfo"),
    "einsumfunc": ("einsum", "einsum_path"),
    "sorting": ("sort", "argsort", "lexsort", "searchsorted", "median", "quantile", "percentile", "unique",
                "histogram", "histogram_bin_edges", "histogram2d", "histogramdd", "sort_complex"),
    "scans": ("cumsum", "cumprod", "cumulative_sum", "cumulative_prod"),
    "polynomial": ("poly", "polyadd", "polysub", "polymul", "polydiv", "polyder", "polyint", "polyval", "polyfit",
                   "convolve", "correlate", "roots"),
    "setops": ("isin", "intersect1d", "union1d", "setdiff1d", "setxor1d", "unique_values", "unique_counts",
               "unique_inverse", "unique_all"),
    "indexing": ("nonzero", "argwhere", "flatnonzero", "bincount", "digitize", "unravel_index", "ravel_multi_index",
                 "ix_", "choose", "compress", "extract", "place", "put", "insert", "delete", "argpartition",
                 "partition", "trim_zeros", "put_along_axis"),
    "calculus": ("interp", "gradient", "trapezoid", "ediff1d", "unwrap"),
    "functional": ("apply_along_axis", "apply_over_axes", "vectorize", "piecewise"),
}
_MODULE_OF = {name: module for module, names in _MODULE_NAMES.items() for name in names}


# Submodules (numpy's namespaces), imported on first use for the same reason.
_SUBMODULES = ("linalg", "fft")


# numpy's other names of these dtypes, and its abstract scalar types (for issubdtype), as jax.numpy has them;
# found by __getattr__, so that ``bool`` does not hide the builtin in this module.
_ALIASES = {"bool": bool_, "single": float32, "double": float64, "csingle": complex64, "cdouble": complex128,
            "float_": float64, "complex_": complex128, "int_": int64, "dtype": np.dtype,
            **{name: getattr(np, name) for name in ("generic", "number", "inexact", "floating", "complexfloating",
                                                    "integer", "signedinteger", "unsignedinteger", "character",
                                                    "flexible")}}


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _ALIASES:
        return _ALIASES[name]
    if name not in _MODULE_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{_MODULE_OF[name]}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_MODULE_OF) | set(_SUBMODULES))
