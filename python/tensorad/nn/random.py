"""``tensorad.nn.random``: a counter-based, stateless pseudo-random number generator.

A key is a 0-d int64 array. Every value drawn from a key is a pure function of
the key and of the value's position (its counter): the splitmix64 mixing
function applied to ``key + (counter + 1) * golden_gamma``, in wrapping 64-bit
integer arithmetic. Nothing is stateful, so a traced function that draws from
a key is an ordinary pure function: its backward pass, a recomputation under
:func:`tensorad.checkpoint` or a second call see the very same numbers.

As in JAX, derive fresh keys with :func:`split` rather than reusing a key for
two purposes. Inside a traced function these functions emit ``tensorad.numpy``
ops; called outside one (with concrete keys) they compile themselves, once per
shape, like :func:`tensorad.grad`.

Examples
--------
>>> import numpy as np
>>> k1, k2 = split(key(0))
>>> u = uniform(k1, (1000,))
>>> bool(u.min() >= 0.0 and u.max() < 1.0)
True
>>> np.array_equal(uniform(k1, (1000,)), u)
True
"""

from __future__ import annotations

import functools
import inspect

import numpy as np

from .. import numpy as tnp
from ..compiler import Jitted
from ..tracing import current_module, emits_ops

_BITS = 64


def _as_int64(constant: int) -> int:
    """The int64 value with the same 64 bits as the unsigned ``constant``."""
    return constant - (1 << _BITS) if constant >= 1 << (_BITS - 1) else constant


# splitmix64 (Steele, Lea and Flood, 2014): the Weyl increment and the two
# multipliers of its finalizer, held as int64 (wrapping multiplication gives
# the same bits as unsigned multiplication).
_GOLDEN_GAMMA = _as_int64(0x9E3779B97F4A7C15)
_MIX1 = _as_int64(0xBF58476D1CE4E5B9)
_MIX2 = _as_int64(0x94D049BB133111EB)


def _shift_right(x, n: int):
    """Logical right shift of 64-bit patterns held in int64: ``x >>> n`` for 0 < n < 64.

    tensorad.numpy has no shift ops: floor division by ``2**n`` is the
    arithmetic shift, and masking off the ``n`` copied sign bits makes it logical.
    """
    return tnp.floor_divide(x, 1 << n) & ((1 << (_BITS - n)) - 1)


def _mix(z):
    """The splitmix64 finalizer: a bijection on 64-bit patterns with full avalanche."""
    z = (z ^ _shift_right(z, 30)) * _MIX1
    z = (z ^ _shift_right(z, 27)) * _MIX2
    return z ^ _shift_right(z, 31)


def _counters(shape: tuple, start: int = 1, step: int = 1):
    """int64 counters ``start, start + step, ...`` laid out row-major in ``shape``."""
    size = int(np.prod(shape, dtype=np.int64))
    return tnp.reshape(tnp.arange(start, start + step * size, step, dtype=tnp.int64), shape)


def _random_bits(key, shape: tuple):
    """64 random bits (as int64) per element of ``shape``, from counters 1, 2, ..."""
    return _mix(tnp.asarray(key, tnp.int64) + _counters(shape) * _GOLDEN_GAMMA)


def _normalize_shape(shape) -> tuple:
    return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(n) for n in shape)


def _compiled_outside_traces(*static: str):
    """Decorate a traced function so that, called outside any trace, it compiles itself.

    ``static`` names the parameters that are Python values (shapes, dtypes,
    counts): they key the compilation cache. Inside a trace the function
    always emits its ops, even for concrete arguments, so that a large draw
    from a constant key is computed by the compiled code rather than embedded
    in it as a constant.
    """
    def decorate(fn):
        traced = emits_ops(fn)
        signature = inspect.signature(fn)
        names = list(signature.parameters)
        jitted = Jitted(traced, tuple(names.index(name) for name in static))

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if current_module() is not None:
                return traced(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            # Static values key a cache, so they must be hashable: a shape may come as a list.
            return jitted(*(_normalize_shape(v) if name == "shape" else v
                            for name, v in bound.arguments.items()))

        return wrapper

    return decorate


@_compiled_outside_traces()
def key(seed):
    """A key from an integer seed (a Python int or an integer array of shape ()).

    The key is splitmix64's first output for the state ``seed``, so nearby
    seeds give unrelated keys.

    Examples
    --------
    >>> key(0).dtype, key(0).shape
    (dtype('int64'), ())
    """
    return _random_bits(tnp.astype(tnp.asarray(seed), tnp.int64), ())


@_compiled_outside_traces("num")
def split(key, num: int = 2):
    """``num`` new keys from ``key``, stacked along a leading axis.

    The new keys come from the counters below zero, the values that
    :func:`uniform` and :func:`normal` draw from the counters above it, so a
    split key never equals a value drawn from its parent.

    Examples
    --------
    >>> keys = split(key(0), 3)
    >>> keys.shape, len(set(keys.tolist()))
    ((3,), 3)
    """
    return _mix(tnp.asarray(key, tnp.int64) + _counters((num,), -1, -1) * _GOLDEN_GAMMA)


def _unit_interval(key, shape: tuple, dtype):
    """Uniform values in [0, 1) carrying as many random bits as ``dtype``'s mantissa holds."""
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"random floats need a floating-point dtype, got {dtype.name}")
    mantissa = np.finfo(dtype).nmant + 1
    top = _shift_right(_random_bits(key, _normalize_shape(shape)), _BITS - mantissa)  # exact
    return tnp.astype(top, dtype) * np.asarray(2.0 ** -mantissa, dtype)


@_compiled_outside_traces("shape", "dtype", "minval", "maxval")
def uniform(key, shape=(), dtype=tnp.float64, minval: float = 0.0, maxval: float = 1.0):
    """Uniform random values in ``[minval, maxval)``.

    Parameters
    ----------
    key : int64 array of shape ()
    shape : tuple of int
    dtype : float32 or float64
    minval, maxval : float

    Examples
    --------
    >>> u = uniform(key(1), (2, 3), minval=-1.0, maxval=1.0)
    >>> u.shape, bool(abs(u).max() <= 1.0)
    ((2, 3), True)
    """
    # Python floats are weakly typed: float32 draws stay float32.
    return _unit_interval(key, shape, dtype) * float(maxval - minval) + float(minval)


@_compiled_outside_traces("shape", "dtype")
def normal(key, shape=(), dtype=tnp.float64):
    """Standard normal random values (the Box-Muller transform of two uniform draws).

    Examples
    --------
    >>> z = normal(key(2), (10000,))
    >>> bool(abs(z.mean()) < 0.05 and abs(z.std() - 1.0) < 0.05)
    True
    """
    radius_draw, angle_draw = _unit_interval(key, (2,) + _normalize_shape(shape), dtype)
    # 1 - u lies in (0, 1]: the logarithm stays finite.
    radius = tnp.sqrt(-2.0 * tnp.log(1.0 - radius_draw))
    return radius * tnp.cos((2.0 * np.pi) * angle_draw)


@_compiled_outside_traces("rate")
def dropout(x, rate: float, key):
    """Zero each element of ``x`` with probability ``rate``; scale the rest by ``1 / (1 - rate)``.

    The mask is a pure function of ``key`` and the element's position (and
    not of ``x``'s dtype), so the gradient, a recomputation and a second call
    with the same key all use the same mask. Use a fresh key per step
    (:func:`split`).

    Parameters
    ----------
    x : array
    rate : float
        Probability of dropping an element, in ``[0, 1)``.
    key : int64 array of shape ()

    Examples
    --------
    >>> import numpy as np
    >>> y = dropout(np.ones((2, 4)), 0.5, key(0))
    >>> sorted(set(y.ravel().tolist()))
    [0.0, 2.0]
    """
    if not 0.0 <= rate < 1.0:
        raise ValueError(f"dropout rate must be in [0, 1), got {rate}")
    x = tnp.asarray(x)
    if rate == 0.0:
        return x
    keep = _unit_interval(key, x.shape, tnp.float64) >= rate
    return tnp.where(keep, x * (1.0 / (1.0 - rate)), 0.0)
