"""JAX's ``lax`` functions composed from tensorad.numpy (:mod:`tensorad.lax_api`, re-exported by ``tensorad.lax``).

Checked against ``jax.lax`` itself, run on CPU in float64 (``jax_enable_x64``)
in the worker process of ``conftest.jax_reference`` (JAX stays out of this
process):

* forward values (and dtypes and shapes) of every function on float32,
  float64, complex, integer and boolean operands where the function takes
  them, edge cases included (integer ``div``/``rem`` of negative numbers and
  by zero, shifts out of range, ``pad`` with negative and interior padding,
  ``reduce`` with non-identity init values, ``nextafter`` at zero, infinity
  and the subnormals), all traced in three jitted functions, and again eagerly
  (one case per function, each call compiled on its own);
* parameter names against ``jax.lax``'s signatures;
* derivatives of every differentiable function, several per
  :func:`tensorad.test_util.check_grads` call (float64, away from kinks);
* ``vmap`` against a loop over the rows;
* JAX's strictness: operands of different shapes or dtypes, and dtypes a
  function does not take, raise ``TypeError`` naming the function; ``reduce``
  refuses the computations it cannot recognize.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax, lax_api
from tensorad.test_util import check_grads

RNG = np.random.default_rng(7)


def _float(low, high, shape=(3, 4)):
    return RNG.uniform(low, high, shape)


UNIT = _float(-0.9, 0.9)
POS = _float(0.2, 2.0)
WIDE = _float(-5.0, 5.0)
ARRAYS = {
    "unit64": UNIT, "unit32": UNIT.astype(np.float32), "pos64": POS, "pos32": POS.astype(np.float32),
    "ge1": 1.0 + POS, "ge1_32": (1.0 + POS).astype(np.float32),
    "wide64": WIDE, "wide32": WIDE.astype(np.float32),
    "special": np.array([1.0, np.inf, -np.inf, np.nan, -0.0, 0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 0.49999999999999994]),
    "c128": UNIT + 1j * POS, "c64": (UNIT + 1j * POS).astype(np.complex64),
    "i32": RNG.integers(-50, 50, (3, 4)).astype(np.int32), "j32": RNG.integers(1, 9, (3, 4)).astype(np.int32)
    * np.where(RNG.random((3, 4)) < 0.5, -1, 1).astype(np.int32),
    "i64": RNG.integers(-2 ** 40, 2 ** 40, (3, 4)), "j64": RNG.integers(-9, 9, (3, 4)) | 1,
    "edge32": np.array([0, 1, -1, 7, -7, 12345, -12345, 2 ** 31 - 1, -2 ** 31], np.int32),
    "edge64": np.array([0, 1, -1, 7, -7, 2 ** 40 + 5, -2 ** 40 - 5, 2 ** 63 - 1, -2 ** 63], np.int64),
    # x / y and x % y of negative numbers, by zero and INT_MIN / -1.
    "ix": np.array([7, -7, 7, -7, 6, -6, 5, -5, 0, -2 ** 31, -2 ** 31, 2 ** 31 - 1], np.int32),
    "iy": np.array([2, 2, -2, -2, 3, -3, 0, 0, 0, -1, 1, -1], np.int32),
    "fx": np.array([7.5, -7.5, 7.5, -7.5, 1.0, -1.0, 0.0, 6.0]),
    "fy": np.array([2.0, 2.0, -2.0, -2.0, 0.0, 0.0, 3.0, -3.0]),
    # Shifts by negative amounts, amounts past the width, and of INT_MIN/INT_MAX.
    "sx": np.array([-12345, 12345, -1, 2 ** 31 - 1, -2 ** 31, 7, -7, 1, -1, 5, -5], np.int32),
    "sy": np.array([-1, 0, 1, 5, 30, 31, 32, 33, 100, 3, 3], np.int32),
    "nx": np.array([0.0, 0.0, 1.0, 1.0, 2.0 ** -1022, np.inf, 1.7976931348623157e308, -0.0, np.nan, 3.0, -np.inf,
                    2.0, 2.0, -2.0, -2.0, 5e-324, -5e-324, 1e-310, 0.1]),
    "ny": np.array([1.0, -1.0, 0.0, 2.0, 0.0, 0.0, np.inf, 0.0, 1.0, 3.0, 0.0, 3.0, 1.0, -3.0, 0.0, 0.0, 0.0, 1.0,
                    np.nan]),
    "cvt": np.array([1e20, -1e20, np.nan, 2.7, -2.7, 2.0 ** 31, -2.0 ** 31, 0.0, -0.5]),
    "b": RNG.random((3, 4)) < 0.5, "b2": RNG.random((3, 4)) < 0.5,
    "x3": RNG.standard_normal((2, 3, 4)), "y3": RNG.standard_normal((2, 4, 5)), "w4": RNG.standard_normal((4, 3, 2, 5)),
    "rows7": RNG.standard_normal((7, 3)), "nanrow": np.array([[1.0, np.nan, 3.0, 3.0], [2.0, -1.0, -1.0, np.nan]]),
}
ARRAYS["sx64"] = ARRAYS["sx"].astype(np.int64) * 123456789
ARRAYS["sy64"] = ARRAYS["sy"].astype(np.int64) * 2
ARRAYS["ix64"], ARRAYS["iy64"] = ARRAYS["ix"].astype(np.int64), ARRAYS["iy"].astype(np.int64)
_F32 = np.finfo(np.float32)
ARRAYS["nx32"] = np.array([0.0, 0.0, 1.0, 1.0, _F32.tiny, np.inf, _F32.max, -0.0, np.nan, 3.0, -np.inf, 2.0, 2.0, -2.0,
                           -2.0, _F32.smallest_subnormal, -_F32.smallest_subnormal, 1e-40, 0.1], np.float32)
ARRAYS["ny32"] = ARRAYS["ny"].astype(np.float32)
_F16 = np.finfo(np.float16)
ARRAYS["nx16"] = np.array([0, 0, 1, 1, _F16.tiny, np.inf, _F16.max, -0.0, 3, 2, 2, -2, _F16.smallest_subnormal, 0.1],
                          np.float16)
ARRAYS["ny16"] = np.array([1, -1, 0, 2, 0, 0, np.inf, 0, 3, 3, 1, 0, 0, np.nan], np.float16)
ARRAYS["x3_i32"] = (ARRAYS["x3"] * 10).astype(np.int32)


def _weak(L, value, dtype):
    """A Python number for tensorad (weakly typed, it takes the other operand's dtype); typed for JAX in x64 mode,
    where a Python ``2`` is an int64 that ``jax.lax.add`` refuses next to a float32 array."""
    return value if L.__name__.startswith("tensorad") else np.asarray(value, dtype)


# ----------------------------------------------------------------------------
# The cases: name -> (function of the lax module and arrays, names of the arrays), in three groups
# ----------------------------------------------------------------------------

ELEMENTWISE, STRUCTURE, REDUCTIONS = {}, {}, {}


def _case(table, name, fn, *keys):
    assert name not in table, name
    table[name] = (fn, keys)


def _calls(name):
    return lambda L, *xs: getattr(L, name)(*xs)


for _n in ("acos", "asin", "atan", "asinh", "atanh", "cos", "cosh", "exp", "exp2", "expm1", "log1p", "sin", "sinh",
           "tan", "tanh", "reciprocal", "neg", "sign", "square", "abs"):
    for _k in ("unit64", "unit32", "c128"):
        _case(ELEMENTWISE, f"{_n}:{_k}", _calls(_n), _k)
for _n in ("log", "sqrt", "rsqrt", "acosh"):
    for _k in ("ge1", "ge1_32", "c128"):
        _case(ELEMENTWISE, f"{_n}:{_k}", _calls(_n), _k)
for _n in ("cbrt", "ceil", "floor", "erf", "erfc", "logistic", "is_finite", "round", "sign"):
    for _k in ("wide64", "wide32", "special"):
        _case(ELEMENTWISE, f"{_n}:{_k}", _calls(_n), _k)
_case(ELEMENTWISE, "round:to_nearest_even", lambda L, x: L.round(x, L.RoundingMethod.TO_NEAREST_EVEN), "special")
_case(ELEMENTWISE, "round:to_nearest_even32", lambda L, x: L.round(x, 1), "wide32")
for _n in ("conj", "real", "imag"):
    for _k in ("c128", "c64"):
        _case(ELEMENTWISE, f"{_n}:{_k}", _calls(_n), _k)
_case(ELEMENTWISE, "conj:unit64", _calls("conj"), "unit64")
_case(ELEMENTWISE, "conj:unit32", _calls("conj"), "unit32")
for _n in ("abs", "neg", "sign", "square", "bitwise_not", "population_count", "clz"):
    for _k in ("i32", "i64", "edge32", "edge64"):
        _case(ELEMENTWISE, f"{_n}:{_k}", _calls(_n), _k)
_case(ELEMENTWISE, "bitwise_not:b", _calls("bitwise_not"), "b")
_case(ELEMENTWISE, "integer_pow:unit64", lambda L, x: L.integer_pow(x, 3), "unit64")
_case(ELEMENTWISE, "integer_pow:exponents", lambda L, x: [L.integer_pow(x, y) for y in (0, 1, 2, 5, -1, -3)], "unit64")
_case(ELEMENTWISE, "integer_pow:unit32", lambda L, x: [L.integer_pow(x, y) for y in (2, 7, -2)], "unit32")
_case(ELEMENTWISE, "integer_pow:i32", lambda L, x: [L.integer_pow(x, 3), L.integer_pow(x, 0)], "i32")
_case(ELEMENTWISE, "integer_pow:c128", lambda L, x: [L.integer_pow(x, 3), L.integer_pow(x, -1)], "c128")

for _n in ("add", "sub", "mul", "max", "min", "atan2", "div", "rem", "pow", "nextafter", "complex",
           "eq", "ne", "ge", "gt", "le", "lt"):
    for _k in (("unit64", "pos64"), ("unit32", "pos32")):
        _case(ELEMENTWISE, f"{_n}:{_k[0]}", _calls(_n), *_k)
for _n in ("add", "sub", "mul", "div", "pow", "eq", "ne", "max", "min"):
    _case(ELEMENTWISE, f"{_n}:c128", lambda L, x, n=_n: getattr(L, n)(x, x[::-1]), "c128")
_case(ELEMENTWISE, "max_min:complex_ties", lambda L: [
    f(np.array([1 + 5j, 2 + 0j, 1 + 1j, 1 + 1j]), np.array([1 + 2j, 1 + 9j, 1 + 1j, 1 + 3j])) for f in (L.max, L.min)])
for _n in ("add", "sub", "mul", "max", "min", "div", "rem", "eq", "ne", "ge", "gt", "le", "lt",
           "bitwise_and", "bitwise_or", "bitwise_xor"):
    for _k in (("i32", "j32"), ("i64", "j64")):
        _case(ELEMENTWISE, f"{_n}:{_k[0]}", _calls(_n), *_k)
for _n in ("max", "min", "eq", "ne", "ge", "gt", "le", "lt", "bitwise_and", "bitwise_or", "bitwise_xor"):
    _case(ELEMENTWISE, f"{_n}:b", _calls(_n), "b", "b2")
for _n in ("div", "rem"):
    _case(ELEMENTWISE, f"{_n}:negative_and_zero_int32", _calls(_n), "ix", "iy")
    _case(ELEMENTWISE, f"{_n}:negative_and_zero_int64", _calls(_n), "ix64", "iy64")
    _case(ELEMENTWISE, f"{_n}:negative_and_zero_float", _calls(_n), "fx", "fy")
for _n in ("shift_left", "shift_right_arithmetic", "shift_right_logical"):
    _case(ELEMENTWISE, f"{_n}:int32", _calls(_n), "sx", "sy")
    _case(ELEMENTWISE, f"{_n}:int64", _calls(_n), "sx64", "sy64")
_case(ELEMENTWISE, "nextafter:edges", _calls("nextafter"), "nx", "ny")
_case(ELEMENTWISE, "nextafter:edges32", _calls("nextafter"), "nx32", "ny32")
_case(ELEMENTWISE, "nextafter:edges16", _calls("nextafter"), "nx16", "ny16")
_case(ELEMENTWISE, "pow:integer_exponent", lambda L, x, y: [L.pow(x, y), L.pow(x, 2), L.pow(x, -1)], "pos64", "j32")
# Python numbers (weak types) and broadcasting of rank 0 and of size-1 dims.
_case(ELEMENTWISE, "scalars", lambda L, f32, i32, f64: [
    L.add(f32, _weak(L, 2, np.float32)), L.mul(_weak(L, 3, np.int32), i32), L.max(f64, _weak(L, 0.25, np.float64)),
    L.sub(_weak(L, 1.5, np.float32), f32), L.lt(i32, _weak(L, 0, np.int32)), L.div(i32, _weak(L, -3, np.int32))],
      "unit32", "i32", "unit64")
_case(ELEMENTWISE, "broadcasting", lambda L, x, b: [L.add(x[:, :1], x[:1]), L.mul(x, x[0, 0]), L.select(b[0, 0], x, -x),
                                                    L.atan2(x[:2, :1], x[:, :1][1:])], "unit64", "b")
_case(ELEMENTWISE, "select", lambda L, b, x, y: L.select(b, x, y), "b", "unit64", "pos64")
_case(ELEMENTWISE, "select:int", lambda L, b, i: L.select(b, i, -i), "b", "i32")
for _dtype in (np.int32, np.int64, np.bool_, np.float32, np.complex128):
    _case(ELEMENTWISE, f"convert_element_type:{np.dtype(_dtype).name}",
          lambda L, x, d=_dtype: L.convert_element_type(x, d), "cvt")
_case(ELEMENTWISE, "convert_element_type:float32_to_int32", lambda L, x: L.convert_element_type(x, np.int32), "nx32")
_case(ELEMENTWISE, "convert_element_type:others", lambda L, i, b, c: [
    L.convert_element_type(i, np.float32), L.convert_element_type(b, np.int32),
    L.convert_element_type(i, np.bool_), L.convert_element_type(c.real, np.float64)], "i32", "b", "c128")

PADS = {"interior_and_negative": [(1, 2, 0), (0, 0, 0), (2, -1, 1)],
        "negative_low": [(-1, 2, 1), (1, -2, 2), (0, 0, 3)],
        "crop_into_padding": [(-3, 2, 0), (0, 0, 0), (-2, -2, 1)], "wide_interior": [(0, 0, 0), (0, 0, 5), (1, 1, 0)]}
for _k, _config in PADS.items():
    _case(STRUCTURE, f"pad:{_k}", lambda L, x, c=_config: L.pad(x, -7.0, c), "x3")
_case(STRUCTURE, "pad:int_and_traced_value", lambda L, i, x: [
    L.pad(i, _weak(L, 9, np.int32), [(1, 1, 1), (0, -1, 0)]), L.pad(x, x[0, 0], [(1, 0, 1), (-2, 1, 0)])],
      "i32", "unit64")
_case(STRUCTURE, "pad:past_the_end", lambda L: L.pad(np.array([1.0, 2.0]), 0.0, [(-3, 2, 0)]))
_case(STRUCTURE, "broadcast", lambda L, x: L.broadcast(x, (2,)), "unit64")
_case(STRUCTURE, "broadcast_in_dim", lambda L, x, i: [L.broadcast_in_dim(x[:, :1], (3, 5, 2), (0, 2)),
                                                      L.broadcast_in_dim(x, (4, 2, 3), (2, 0)),
                                                      L.broadcast_in_dim(i[0, 0], (2,), ())], "unit64", "i32")
_case(STRUCTURE, "broadcast_to_rank", lambda L, x: L.broadcast_to_rank(x, 4), "unit32")
_case(STRUCTURE, "iota", lambda L: [L.iota(np.int64, 5), L.iota(np.float32, 3), L.broadcasted_iota(np.int32, (2, 3), 1),
                                    L.broadcasted_iota(np.float64, (2, 3, 2), 0)])
_case(STRUCTURE, "full", lambda L, x32, x: [L.full((2, 3), 1.5), L.full((2,), 2, np.int32), L.full((2, 2), x[0, 0]),
                                            L.full_like(x32, _weak(L, 3, np.float32)),
                                            L.full_like(x, 3, np.int32, (2,))], "unit32", "unit64")
_case(STRUCTURE, "reshape", lambda L, x: [L.reshape(x, (4, 6), (2, 0, 1)), L.reshape(x, (6, 4))], "x3")
_case(STRUCTURE, "transpose", lambda L, x, i: [L.transpose(x, (2, 0, 1)), L.transpose(i, (1, 0))], "x3", "i32")
_case(STRUCTURE, "squeeze", lambda L, x: [L.squeeze(x[:1, :, :1], (0, 2)), L.squeeze(x[:1, :, :1], (-1,))], "x3")
_case(STRUCTURE, "expand_dims", lambda L, x: [L.expand_dims(x, (0, 3)), L.expand_dims(x, (-1,))], "unit64")
_case(STRUCTURE, "rev", lambda L, x, b: [L.rev(x, (0, 2)), L.rev(b, (1,)), L.rev(x, ())], "x3", "b")
_case(STRUCTURE, "concatenate", lambda L, x, i: [L.concatenate([x, x[:, :1], x], 1), L.concatenate([i], 0)],
      "x3", "i32")
_case(STRUCTURE, "split", lambda L, x: L.split(x, (1, 0, 3), axis=2) + L.split(x, (2,)), "x3")
_case(STRUCTURE, "tile", lambda L, x, b: [L.tile(x, (2, 3)), L.tile(b, (1, 2))], "unit64", "b")
_case(STRUCTURE, "collapse", lambda L, x: [L.collapse(x, 1), L.collapse(x, 0, 2), L.collapse(x, -2)], "x3")

for _n in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
    _case(REDUCTIONS, _n, lambda L, x, i, n=_n: [getattr(L, n)(x, (0, 2)), getattr(L, n)(i, (1,)),
                                                 getattr(L, n)(x, ()), getattr(L, n)(x, (0, 1, 2))], "x3", "x3_i32")
_case(REDUCTIONS, "reduce_sum:complex", lambda L, c: L.reduce_sum(c, (0,)), "c128")
_case(REDUCTIONS, "reduce_max_min:bool", lambda L, b: [L.reduce_max(b, (1,)), L.reduce_min(b, (0,))], "b")
for _n in ("reduce_and", "reduce_or", "reduce_xor"):
    _case(REDUCTIONS, _n, lambda L, b, i, j, n=_n: [getattr(L, n)(b, (1,)), getattr(L, n)(i, (1,)),
                                                    getattr(L, n)(j, (0, 1)), getattr(L, n)(b, (0, 1)),
                                                    getattr(L, n)(i, ())], "b", "i32", "i64")
_case(REDUCTIONS, "argmax_argmin", lambda L, x, n, b: [L.argmax(x, 1, np.int32), L.argmin(x, 2, np.int64),
                                                       L.argmax(n, 1, np.int32), L.argmin(n, 1, np.int32),
                                                       L.argmax(b, 0, np.int64)], "x3", "nanrow", "b")
_case(REDUCTIONS, "reduce:float_monoids_with_init", lambda L, x: [
    L.reduce(x, 3.0, L.add, (1,)), L.reduce(x, 1.5, L.mul, (0, 2)), L.reduce(x, 0.25, L.max, (2,)),
    L.reduce(x, -0.25, L.min, (0,)), L.reduce(x, 0.0, L.add, (0, 1, 2))], "x3")
_case(REDUCTIONS, "reduce:bitwise_monoids_with_init", lambda L, i, b: [
    L.reduce(i, _weak(L, 6, np.int32), L.bitwise_and, (0,)), L.reduce(i, _weak(L, 6, np.int32), L.bitwise_or, (1,)),
    L.reduce(i, _weak(L, 6, np.int32), L.bitwise_xor, (0, 1)), L.reduce(b, True, L.bitwise_xor, (1,)),
    L.reduce(i, _weak(L, 5, np.int32), L.add, (1,))], "i32", "b")
_case(REDUCTIONS, "dot", lambda L, x, y: [L.dot(x, y.T), L.dot(x[0], y[0]), L.dot(x, y[0]), L.dot(x[:, 0], y)],
      "unit64", "pos64")
_case(REDUCTIONS, "dot:float32_complex_int", lambda L, x, c, i: [L.dot(x, x.T), L.dot(c, c.T), L.dot(i, i.T),
                                                                 L.dot(i, i.T, preferred_element_type=np.int64)],
      "unit32", "c128", "i32")
_case(REDUCTIONS, "dot_general", lambda L, x, y, w: [
    L.dot_general(x, y, (((2,), (1,)), ((0,), (0,)))), L.dot_general(x, w[:, :, :, 0], (((0,), (2,)), ((), ()))),
    L.dot_general(x, w, (((1,), (1,)), ((2, 0), (0, 2)))), L.dot_general(x, y, (((), ()), ((), ()))),
    L.dot_general(x, y, (((2,), (1,)), ((0,), (0,))), preferred_element_type=np.float32)], "x3", "y3", "w4")
_case(REDUCTIONS, "batch_matmul", lambda L, x, y: L.batch_matmul(x, y), "x3", "y3")
_case(REDUCTIONS, "map", lambda L, x, r: [L.map(lambda row: L.mul(L.sin(row), L.reduce_sum(row, (0,))), x),
                                          L.map(lambda row: (L.reduce_max(row, (0,)), L.mul(row, row)), r,
                                                batch_size=3),
                                          L.map(lambda row: L.neg(row), r[:6], batch_size=3)], "unit64", "rows7")

GROUPS = {"elementwise": ELEMENTWISE, "structure": STRUCTURE, "reductions": REDUCTIONS}

# One call of each of the other functions, to be called eagerly (each call compiles on its own).
EAGER = {}
_case(EAGER, "pad", lambda L, x: L.pad(x, -7.0, PADS["negative_low"]), "x3")
_case(EAGER, "broadcast", lambda L, x: L.broadcast(x, (2,)), "unit64")
_case(EAGER, "broadcast_in_dim", lambda L, x: L.broadcast_in_dim(x, (4, 2, 3), (2, 0)), "unit64")
_case(EAGER, "broadcast_to_rank", lambda L, x: L.broadcast_to_rank(x, 4), "unit32")
_case(EAGER, "iota", lambda L: L.iota(np.float32, 3))
_case(EAGER, "broadcasted_iota", lambda L: L.broadcasted_iota(np.int32, (2, 3), 1))
_case(EAGER, "full", lambda L: L.full((2, 3), 1.5))
_case(EAGER, "full_like", lambda L, x: L.full_like(x, 3, np.int32, (2,)), "unit64")
_case(EAGER, "reshape", lambda L, x: L.reshape(x, (4, 6), (2, 0, 1)), "x3")
_case(EAGER, "transpose", lambda L, x: L.transpose(x, (2, 0, 1)), "x3")
_case(EAGER, "squeeze", lambda L, x: L.squeeze(x[:1, :, :1], (0, 2)), "x3")
_case(EAGER, "expand_dims", lambda L, x: L.expand_dims(x, (0, 3)), "unit64")
_case(EAGER, "rev", lambda L, x: L.rev(x, (0, 2)), "x3")
_case(EAGER, "concatenate", lambda L, x, y: L.concatenate([x, y], 1), "x3", "x3")
_case(EAGER, "split", lambda L, x: L.split(x, (1, 0, 3), axis=2), "x3")
_case(EAGER, "tile", lambda L, x: L.tile(x, (2, 3)), "unit64")
_case(EAGER, "collapse", lambda L, x: L.collapse(x, 1), "x3")
for _n in ("reduce_sum", "reduce_max", "reduce_min", "reduce_prod"):
    _case(EAGER, _n, lambda L, x, n=_n: getattr(L, n)(x, (0, 2)), "x3")
for _n in ("reduce_and", "reduce_or", "reduce_xor"):
    _case(EAGER, _n, lambda L, i, n=_n: getattr(L, n)(i, (1,)), "i32")
_case(EAGER, "argmax", lambda L, x: L.argmax(x, 1, np.int32), "nanrow")
_case(EAGER, "argmin", lambda L, x: L.argmin(x, 2, np.int64), "x3")
_case(EAGER, "reduce", lambda L, x: L.reduce(x, 1.5, L.mul, (0, 2)), "x3")
_case(EAGER, "dot", lambda L, x, y: L.dot(x, y.T), "unit64", "pos64")
_case(EAGER, "dot_general", lambda L, x, w: L.dot_general(x, w, (((1,), (1,)), ((2, 0), (0, 2)))), "x3", "w4")
_case(EAGER, "batch_matmul", lambda L, x, y: L.batch_matmul(x, y), "x3", "y3")
_case(EAGER, "map", lambda L, r: L.map(lambda row: (L.reduce_max(row, (0,)), L.mul(row, row)), r, batch_size=3),
      "rows7")


def _run(L, table, arrays):
    return {name: fn(L, *(arrays[k] for k in keys)) for name, (fn, keys) in table.items()}


def jax_everything(jax):
    """Every case's value in JAX (runs in the worker process), one jitted function per group as ours."""
    out = {}
    for group, table in {**GROUPS, "eager": EAGER}.items():
        needed = sorted({k for _, keys in table.values() for k in keys})
        out[group] = jax.jit(lambda arrays, table=table: _run(jax.lax, table, arrays))({k: ARRAYS[k] for k in needed})
    return out


JAX_NAMES = sorted(lax_api.__all__)


def jax_signatures(jax):
    """The parameter names of jax.lax's functions, without their sharding parameters."""
    out = {}
    for name in JAX_NAMES:
        fn = getattr(jax.lax, name)
        if inspect.isclass(fn):
            continue
        out[name] = [p for p in inspect.signature(fn).parameters if p not in ("out_sharding", "sharding")]
    return out


@pytest.fixture(scope="module")
def jax_results(jax_reference):
    return jax_reference(jax_everything)


# Functions whose real float results are exact (correctly rounded, or data movement): compared bit for bit.
EXACT = {"nextafter", "round", "floor", "ceil", "sign", "rem", "add", "sub", "mul", "max", "min", "neg", "abs",
         "square", "convert_element_type", "select", "conj", "real", "imag", "integer_pow", "div", "sqrt", "scalars",
         "broadcasting", "max_min", "pad", "broadcast", "broadcast_in_dim", "broadcast_to_rank", "iota", "full",
         "reshape", "transpose", "squeeze", "expand_dims", "rev", "concatenate", "split", "tile", "collapse",
         "reduce_max", "reduce_min", "reduce_max_min", "argmax_argmin", "argmax", "argmin"}


def _assert_matches(name, mine, theirs):
    mine, theirs = ta.tree_util.tree_leaves(mine), ta.tree_util.tree_leaves(theirs)
    assert len(mine) == len(theirs), name
    for a, b in zip(mine, theirs):
        a, b = np.asarray(a), np.asarray(b)
        assert (a.shape, a.dtype) == (b.shape, b.dtype), (name, a.shape, a.dtype, b.shape, b.dtype)
        if b.dtype.kind in "biu" or (name.split(":")[0] in EXACT and b.dtype.kind != "c"):
            np.testing.assert_array_equal(a, b, err_msg=name)
        elif b.dtype in (np.float64, np.complex128):
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-14, err_msg=name)
        else:
            np.testing.assert_allclose(a, b, rtol=3e-6, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_jitted_values_match_jax(group, jax_results):
    """Every case of the group traced into one jitted function (one compilation), against jax.lax."""
    table = GROUPS[group]
    needed = sorted({k for _, keys in table.values() for k in keys})
    got = ta.jit(lambda arrays: _run(lax, table, arrays))({k: ARRAYS[k] for k in needed})
    assert sorted(got) == sorted(jax_results[group])
    _assert_all_match([(name, got[name], jax_results[group][name]) for name in sorted(got)])


def _assert_all_match(triples):
    """:func:`_assert_matches` of every ``(name, ours, JAX's)``, reporting all the cases that differ."""
    failures = []
    for name, mine, theirs in triples:
        try:
            _assert_matches(name, mine, theirs)
        except AssertionError as err:
            failures.append(f"{name}: {err}")
    assert not failures, f"{len(failures)} case(s) differ from jax.lax:\n" + "\n".join(failures)


def _eager_cases():
    """The first case of each elementwise function, and the single calls of the others."""
    seen, out = set(), []
    for name in ELEMENTWISE:
        function = name.split(":")[0]
        if function in lax_api.__all__ and function not in seen:
            seen.add(function)
            out.append(("elementwise", name, ELEMENTWISE[name]))
    return out + [("eager", name, case) for name, case in EAGER.items()]


def test_eager_values_match_jax(jax_results):
    """One case per function called on numpy arrays, outside any trace (each lax call compiles and runs)."""
    cases = _eager_cases()
    assert {name.split(":")[0] for _, name, _ in cases} >= set(lax_api.__all__) - {"RoundingMethod"}
    _assert_all_match([(name, fn(lax, *(ARRAYS[k] for k in keys)), jax_results[group][name])
                       for group, name, (fn, keys) in cases])


def test_every_function_has_a_case_and_jax_signature(jax_reference):
    covered = {n for table in GROUPS.values() for name in table for n in name.split(":")[0].split("_and_")}
    covered |= {"max", "min", "argmax", "argmin", "reduce_max", "reduce_min", "iota", "broadcasted_iota", "full",
                "full_like", "reduce", "RoundingMethod"}
    assert set(JAX_NAMES) - covered == set()
    for name, params in jax_reference(jax_signatures).items():
        assert list(inspect.signature(getattr(lax, name)).parameters) == params, name
    assert [(m.name, int(m)) for m in lax.RoundingMethod] == [("AWAY_FROM_ZERO", 0), ("TO_NEAREST_EVEN", 1)]


def test_lax_reexports_the_strict_functions():
    assert lax.add is lax_api.add and lax.max is lax_api.max and lax.pad is lax_api.pad
    # reduce_window recognizes the strict functions as it did tensorad.numpy's.
    np.testing.assert_allclose(lax.reduce_window(np.arange(6.0), 0.0, lax.add, (2,), (2,)), [1.0, 5.0, 9.0])


# ----------------------------------------------------------------------------
# Derivatives (float64, several functions per check), vmap
# ----------------------------------------------------------------------------

X = RNG.uniform(0.2, 0.8, (3, 4))
Y = RNG.uniform(1.2, 1.8, (3, 4))
X3, Y3 = RNG.standard_normal((2, 3, 4)), RNG.standard_normal((2, 4, 5))
# Away from the integers and halves (floor, ceil, round).
X_FRACTIONS = np.array([[0.21, 0.33, 0.62, 0.77], [1.12, 1.41, 1.63, 1.88], [-0.37, -0.69, -1.28, -2.91]])

DERIVATIVES = {
    "inverse_trig": ((X,), lambda x: [lax.acos(x), lax.asin(x), lax.atan(x), lax.asinh(x), lax.atanh(x),
                                     lax.acosh(x + 1.0), lax.cbrt(x), lax.cos(x), lax.cosh(x), lax.erf(x),
                                     lax.erfc(x)]),
    "exp_log": ((X,), lambda x: [lax.exp(x), lax.exp2(x), lax.expm1(x), lax.log(x), lax.log1p(x), lax.logistic(x),
                                 lax.neg(x), lax.reciprocal(x), lax.rsqrt(x), lax.sin(x), lax.sinh(x), lax.sqrt(x),
                                 lax.square(x), lax.tan(x), lax.tanh(x), lax.abs(x - 0.5), lax.integer_pow(x, 3),
                                 lax.integer_pow(x, -2)]),
    "rounding_and_complex": ((X_FRACTIONS,), lambda x: [
        lax.floor(x) * x, lax.ceil(x) * x, lax.round(x) * x, lax.round(x, 1) * x, lax.sign(x) * x,
        lax.real(lax.conj(lax.complex(x, x * x))), lax.imag(lax.conj(lax.complex(x, x * x))),
        lax.abs(lax.complex(x, x * 2.0)), lax.real(lax.mul(lax.conj(x), lax.complex(x, x))),
        lax.real(lax.convert_element_type(x, np.complex128))]),
    "binary": ((X, Y), lambda x, y: [lax.add(x, y), lax.sub(x, y), lax.mul(x, y), lax.max(x, y), lax.min(x, y),
                                     lax.atan2(x, y), lax.div(x, y), lax.rem(y, x), lax.pow(x, y), lax.pow(y, 3),
                                     lax.pow(x, np.arange(12).reshape(3, 4) - 6), lax.select(x > 0.5, x, y),
                                     lax.add(x, 2.0), lax.mul(x[0, 0], y)]),
    "structure": ((X3,), lambda x: [
        lax.broadcast(x, (2,)), lax.broadcast_in_dim(x[:, :1, 0], (2, 3, 4), (0, 2)), lax.broadcast_to_rank(x, 4),
        lax.reshape(x, (4, 6), (2, 0, 1)), lax.transpose(x, (2, 0, 1)), lax.squeeze(x[:1], (0,)),
        lax.expand_dims(x, (1,)), lax.rev(x, (0, 2)), lax.concatenate([x, x[:, :1] * 2.0], 1),
        lax.split(x, (1, 3), 2)[1], lax.tile(x, (1, 2, 1)), lax.collapse(x, 0, 2),
        lax.full((2,), x[0, 0, 0]), lax.full_like(x, x[1, 1, 1]), lax.convert_element_type(x, np.float64)]),
    "pad": ((X3,), lambda x: [lax.pad(x, x[0, 0, 0] * 2.0, [(1, -1, 1), (-1, 2, 0), (0, 0, 2)]),
                              lax.pad(x, 0.5, [(0, 0, 0), (-3, 1, 1), (2, -3, 0)])]),
    "reductions": ((X3,), lambda x: [
        lax.reduce_sum(x, (0, 2)), lax.reduce_max(x, (1,)), lax.reduce_min(x, (0, 1)), lax.reduce_prod(x, (2,)),
        lax.reduce(x, 2.0, lax.add, (1,)), lax.reduce(x, 1.5, lax.mul, (0,)), lax.reduce(x, -0.5, lax.max, (2,)),
        lax.reduce(x, 0.5, lax.min, (0, 2))]),
    "contractions": ((X3, Y3), lambda a, b: [
        lax.dot_general(a, b, (((2,), (1,)), ((0,), (0,)))), lax.batch_matmul(a, b), lax.dot(a[0], b[0]),
        lax.dot(a[0, 0], b[0, :, 0]), lax.dot_general(a, b, (((0,), (0,)), ((), ())))]),
    "map": ((X3,), lambda x: [lax.map(lambda r: tnp.sin(r) * tnp.sum(r), x),
                              lax.map(lambda r: r * r, x, batch_size=2)]),
}


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_derivatives(name):
    args, f = DERIVATIVES[name]
    check_grads(f, args, order=1, modes=("fwd", "rev"))


def _floats(x):
    return (lax.pad(x, -1.0, [(1, -2, 1), (0, 0, 0)]), lax.dot_general(x, x, (((1,), (1,)), ((), ()))),
            lax.round(x * 3.0), lax.reduce(x, 1.0, lax.mul, (1,)), lax.rem(x, 0.3), lax.nextafter(x, 0.0),
            lax.map(lambda r: lax.integer_pow(r, 2), x))


def _integers(i):
    return (lax.div(i, 3), lax.rem(i, -3), lax.shift_right_logical(i, lax.abs(i) % 40),
            lax.shift_left(i, 3), lax.population_count(i), lax.clz(i), lax.reduce_xor(i, (1,)),
            lax.convert_element_type(i, np.float32))


@pytest.mark.parametrize("f, xs", [(_floats, RNG.standard_normal((3, 2, 4))),
                                   (_integers, RNG.integers(-1000, 1000, (3, 2, 5)).astype(np.int32))],
                         ids=["floats", "integers"])
def test_vmap_matches_a_loop(f, xs):
    one = ta.jit(f)
    want = [np.stack(parts) for parts in zip(*[one(x) for x in xs])]
    for got, expected in zip(ta.jit(ta.vmap(f))(xs), want):
        np.testing.assert_allclose(got, expected, rtol=1e-13)
        assert got.dtype == expected.dtype


# ----------------------------------------------------------------------------
# JAX's strictness, and what is refused
# ----------------------------------------------------------------------------

F64, F32, I64 = np.ones(3), np.ones(3, np.float32), np.arange(3)


@pytest.mark.parametrize("call, error, match", [
    (lambda: lax.add(np.ones(3), np.ones(4)), TypeError,
     r"add got incompatible shapes for broadcasting: \(3,\), \(4,\)"),
    (lambda: lax.add(F32, F64), TypeError, "lax.add requires arguments to have the same dtypes, got float32, float64"),
    (lambda: lax.sub(np.ones((3, 1)), F64), TypeError, "sub: arrays must have the same number of dimensions"),
    (lambda: ta.jit(lambda a, b: lax.atan2(a, b))(F32, F64), TypeError, "lax.atan2 requires .* float32, float64"),
    (lambda: ta.jit(lambda a, b: lax.eq(a, b))(np.ones((2, 3)), np.ones((3, 2))), TypeError,
     r"eq got incompatible shapes for broadcasting: \(2, 3\), \(3, 2\)"),
    (lambda: lax.mul(I64, 2.5), TypeError, "lax.mul requires .* int64, float64"),
    (lambda: lax.add(I64, True), TypeError, "lax.add requires .* int64, bool"),
    (lambda: lax.sin(I64), TypeError, "sin does not accept dtype int64"),
    (lambda: lax.mul(np.array([True]), np.array([False])), TypeError, "mul does not accept dtype bool at position 0"),
    (lambda: lax.lt(np.array([1j]), np.array([1j])), TypeError, "lt does not accept dtype complex128"),
    (lambda: lax.rem(np.array([1j]), np.array([1j])), TypeError, "rem does not accept dtype complex128"),
    (lambda: lax.shift_left(F64, F64), TypeError, "shift_left does not accept dtype float64"),
    (lambda: lax.population_count(np.array([True])), TypeError, "population_count does not accept dtype bool"),
    (lambda: lax.round(I64), TypeError, "round does not accept dtype int64"),
    (lambda: lax.real(F64), TypeError, "real does not accept dtype float64"),
    (lambda: lax.complex(I64, I64), TypeError, "complex does not accept dtype int64"),
    (lambda: lax.reciprocal(I64), TypeError, "reciprocal does not accept dtype int64"),
    (lambda: lax.integer_pow(I64, -1), TypeError, "Integers cannot be raised to negative powers"),
    (lambda: lax.pow(F64, F32), TypeError, "two inexact dtypes must match"),
    (lambda: lax.select(np.array([True, False, True]), F64, F32), TypeError, "lax.select requires"),
    (lambda: lax.select(np.array([True, False]), F64, F64), TypeError,
     "select pred must be scalar or have the same shape"),
    (lambda: lax.concatenate([F64, F32], 0), TypeError, "lax.concatenate requires"),
    (lambda: lax.concatenate([F64, np.ones((1, 3))], 0), TypeError, "Cannot concatenate"),
    (lambda: lax.pad(F64, np.float32(0), [(0, 0, 0)]), TypeError, "lax.pad requires"),
    (lambda: lax.pad(F64, 0.0, [(0, 0, -1)]), ValueError, "interior padding"),
    (lambda: lax.pad(F64, 0.0, [(-2, -2, 0)]), ValueError, "not at least 0"),
    (lambda: lax.pad(F64, F64, [(0, 0, 0)]), ValueError, "padding_value must be a scalar"),
    (lambda: lax.reduce(F64, 0.0, lambda a, b: a + b, (0,)), NotImplementedError,
     "supports the computations lax.add, lax.mul, lax.max, lax.min, lax.bitwise_and"),
    (lambda: lax.reduce((F64, F64), (0.0, 0.0), lax.add, (0,)), NotImplementedError, "one operand"),
    (lambda: lax.reduce(F64, F32[0], lax.add, (0,)), TypeError, "same dtypes"),
    (lambda: lax.reduce_sum(np.array([True]), (0,)), TypeError, "reduce_sum does not accept dtype bool"),
    (lambda: lax.reduce_and(F64, (0,)), TypeError, "reduce_and does not accept dtype float64"),
    (lambda: lax.argmax(F64, 0, np.float32), TypeError, "index_dtype must be an integer"),
    (lambda: lax.dot(np.ones((2, 3, 4)), np.ones(4)), ValueError, "dimension_numbers must be specified"),
    (lambda: lax.dot(F64, F32), TypeError, "lax.dot_general requires"),
    (lambda: lax.dot_general(np.ones((2, 3)), np.ones((4, 2)), (((1,), (0,)), ((), ()))), TypeError,
     "contracting dimensions to have the same shape"),
    (lambda: lax.batch_matmul(np.ones((2, 3)), np.ones(3)), ValueError, "at least 2D"),
    (lambda: lax.broadcast_in_dim(F64, (2, 4), (1,)), TypeError, "operand dimension sizes must either be 1"),
    (lambda: lax.broadcast_in_dim(np.ones((3, 3)), (3, 3), (1, 1)), TypeError, "must not contain duplicates"),
    (lambda: lax.reshape(F64, (4,)), TypeError, "reshape total size must be unchanged"),
    (lambda: lax.transpose(np.ones((2, 3)), (0, 0)), TypeError, "isn't a permutation"),
    (lambda: lax.squeeze(np.ones((1, 3)), (1,)), ValueError, "size not equal to one"),
    (lambda: lax.split(F64, (1, 1)), ValueError, "Sum of sizes"),
    (lambda: lax.tile(F64, (2, 2)), TypeError, "reps length must be equal"),
    (lambda: lax.collapse(np.ones((2, 3)), 1, 0), ValueError, "Invalid dimension range"),
    (lambda: lax.full((2,), F64), TypeError, "scalar fill_value"),
    (lambda: lax.convert_element_type(F64, np.uint8), TypeError, "not supported"),
    (lambda: lax.round(F64, 2), ValueError, "not a valid RoundingMethod"),
])
def test_strict_and_unsupported_calls_raise(call, error, match):
    with pytest.raises(error, match=match):
        call()
