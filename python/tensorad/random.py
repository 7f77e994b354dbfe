"""``tensorad.random``: :mod:`jax.random`'s functions, giving the numbers JAX 0.10.2 gives.

The generator is JAX's default one, Threefry-2x32 (20 rounds), in the
"partitionable" form that ``jax_threefry_partitionable`` selects (its default,
``True``, in JAX 0.10.2): the values of a draw of shape ``s`` are the hash of
the 64-bit row-major positions ``0, 1, ...`` of ``s``, split into two 32-bit
counter words. Every function is composed of :mod:`tensorad.numpy` ops (32-bit
wrapping additions, xors, rotations made of shifts), so it runs eagerly on
concrete keys, under :func:`tensorad.jit`, over a batch of keys under
:func:`tensorad.vmap`, and under :func:`tensorad.grad` where a sample is a
differentiable function of its parameters (``minval``/``maxval`` of
:func:`uniform`, ``mean`` of :func:`multivariate_normal`, ...).

Keys. A key is JAX's raw ("legacy") key: two 32-bit words, shape ``(2,)``, as
``jax.random.PRNGKey(seed)`` returns. tensorad compiles no unsigned dtypes, so
the words are held in ``int32`` with the same bits: ``np.asarray(k).view(np.uint32)``
is JAX's key, and JAX's ``uint32`` keys (numpy arrays) are accepted wherever a
key is. Likewise :func:`bits` returns JAX's ``uint32``/``uint64`` values as the
``int32``/``int64`` of the same bits. tensorad has no typed key arrays:
:func:`key` returns the same raw key as :func:`PRNGKey`, and :func:`key_data`
and :func:`wrap_key_data` only check and convert.

Dtypes. tensorad follows numpy's (and JAX's ``jax_enable_x64``) default types,
as :mod:`tensorad.numpy` and :mod:`tensorad.nn.random` do: floats default to
``float64``, integers to ``int64``, bits to ``uint64``; the numbers are then
those of JAX with ``jax_enable_x64`` on. ``float32``, ``float16`` and
``bfloat16`` draws give JAX's numbers for those dtypes.

Exactness. Integers, bits, keys and :func:`uniform` are bit for bit JAX's.
Samples that go through a transcendental function (``log``, ``log1p``, ``erf``,
``erf_inv``) or a matrix factorization are JAX's up to the last few bits where
tensorad's libm-based functions round differently from XLA's approximations.

Not provided (their rejection loops would need exactly XLA's transcendental
functions to reproduce JAX's draws): ``gamma``, ``loggamma``, ``beta``,
``dirichlet``, ``poisson``, ``t``, ``chisquare``, ``f``, ``generalized_normal``,
``ball``, ``binomial``, ``multinomial``, and the other distributions of
``jax.random`` not named in ``__all__``.

Examples
--------
>>> import numpy as np
>>> key = PRNGKey(0)
>>> key.view(np.uint32)
array([0, 0], dtype=uint32)
>>> k1, k2 = split(key)
>>> randint(k1, (5,), 0, 10)
array([6, 2, 0, 2, 7])
>>> uniform(k2, (2,), np.float32)
array([0.00729382, 0.02089119], dtype=float32)
"""

from __future__ import annotations

import functools
import math
from typing import Sequence

import ml_dtypes
import numpy as np

from . import dtypes
from . import lax
from . import numpy as tnp
from .lax_api import shift_left_by, shift_right_by
from .tracing import Tracer, emits_ops

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "split", "fold_in", "bits", "uniform", "normal",
           "randint", "bernoulli", "rademacher", "categorical", "gumbel", "permutation", "choice",
           "truncated_normal", "exponential", "laplace", "logistic", "cauchy", "multivariate_normal",
           "orthogonal"]

_WORD_BITS = 32
_WORD_MASK = (1 << _WORD_BITS) - 1
# Threefry's key-schedule parity constant and the rotations of its rounds, alternating in groups of four.
_THREEFRY_PARITY = 0x1BD11BDA
_THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_THREEFRY_GROUPS = 5
_INT32_SIGN = np.int32(-2 ** 31)
_INT64_SIGN = np.int64(-2 ** 63)
_SQRT2 = math.sqrt(2.0)


# ----------------------------------------------------------------------------
# Keys and the Threefry-2x32 hash
# ----------------------------------------------------------------------------

def _as_key_words(keys):
    """``keys`` with JAX's ``uint32`` words (a concrete array) viewed as the ``int32`` tensorad holds them in."""
    if not isinstance(keys, Tracer) and getattr(keys, "dtype", None) == np.uint32:
        return np.asarray(keys).view(np.int32)
    return keys


def _check_key(name: str, keys, *, batched: bool = False):
    """``keys`` as an int32 array of shape ``(..., 2)`` (one key of shape ``(2,)`` unless ``batched``)."""
    keys = tnp.asarray(keys)
    if keys.dtype != np.int32:
        raise TypeError(f"{name}: a key is two 32-bit words (int32, or JAX's uint32), got dtype "
                        f"{keys.dtype.name}")
    if keys.shape[-1:] != (2,):
        raise TypeError(f"{name}: a key has shape (2,) (a batch of keys (..., 2)), got shape {keys.shape}")
    if keys.ndim > 1 and not batched:
        raise ValueError(f"{name} accepts a single key, but was given a key array of shape {keys.shape}; "
                         "use tensorad.vmap for batching")
    return keys


def _takes_key(fn):
    """A public function of a key: its ops emitted (or compiled, called eagerly) by ``emits_ops``;
    JAX's uint32 keys accepted."""
    traced = emits_ops(fn)

    @functools.wraps(fn)
    def wrapper(key, *args, **kwargs):
        return traced(_as_key_words(key), *args, **kwargs)

    return wrapper


def _rotate_left(x, distance: int):
    return shift_left_by(x, distance) | shift_right_by(x, _WORD_BITS - distance, logical=True)


def _threefry2x32(key, x1, x2):
    """The Threefry-2x32 hash of the counter words ``(x1, x2)`` (int32, broadcast together) under ``key``.

    int32 addition wraps as uint32's does, so the words keep JAX's bits.
    """
    k1, k2 = key[0], key[1]
    schedule = (k1, k2, k1 ^ k2 ^ _THREEFRY_PARITY)
    x1, x2 = x1 + k1, x2 + k2
    for group in range(_THREEFRY_GROUPS):
        for distance in _THREEFRY_ROTATIONS[group % 2]:
            x1 = x1 + x2
            x2 = _rotate_left(x2, distance) ^ x1
        x1 = x1 + schedule[(group + 1) % 3]
        x2 = x2 + schedule[(group + 2) % 3] + (group + 1)
    return x1, x2


def _hash_positions(key, shape: tuple):
    """The two hashed words of each position of ``shape`` (JAX's ``iota_2x32_shape`` counters)."""
    size = math.prod(shape)
    if size >= 2 ** 31:
        raise ValueError(f"tensorad.random draws fewer than 2**31 values from one key, asked for {size}")
    positions = tnp.reshape(tnp.arange(size, dtype=tnp.int32), shape)
    # The high word of every position below 2**32 is 0.
    return _threefry2x32(key, tnp.zeros((), tnp.int32), positions)


def _random_bits(key, width: int, shape: tuple):
    """JAX's ``random_bits``: ``width`` (8, 16, 32 or 64) random bits per element.

    64 bits come as int64; fewer as int32 (below 32 bits, the low bits of the word, nonnegative).
    """
    hi, lo = _hash_positions(key, shape)
    if width == 64:
        return shift_left_by(tnp.astype(hi, tnp.int64), _WORD_BITS) | (tnp.astype(lo, tnp.int64) & _WORD_MASK)
    word = hi ^ lo
    return word if width == _WORD_BITS else word & ((1 << width) - 1)


def _shape(name: str, shape) -> tuple:
    if not isinstance(shape, Sequence) or not all(isinstance(d, (int, np.integer)) for d in shape):
        raise TypeError(f"{name}: shape must be a sequence of integers, got {shape!r}")
    if any(d < 0 for d in shape):
        raise ValueError(f"{name}: shape must have nonnegative dimensions, got {tuple(shape)}")
    return tuple(int(d) for d in shape)


def _check_shape(name: str, shape: tuple, *param_shapes) -> None:
    """JAX's rule: the parameters broadcast to ``shape`` exactly."""
    try:
        broadcast = np.broadcast_shapes(shape, *param_shapes)
    except ValueError:
        broadcast = None
    if broadcast != shape:
        raise ValueError(f"{name} parameter shapes {param_shapes} must be broadcast-compatible with shape "
                         f"argument, and the result of broadcasting the shapes must equal the shape argument, "
                         f"but got result {broadcast} for shape argument {shape}.")


def _is_integer(dtype) -> bool:
    return np.dtype(dtype).kind == "i"  # tensorad compiles no unsigned integers


def _float_dtype(name: str, dtype, complex_ok: bool = False) -> np.dtype:
    """The sample dtype: float64 by default (JAX's with ``jax_enable_x64``)."""
    dtype = dtypes.check_supported(np.float64 if dtype is None else dtype)
    if not (dtypes.is_float(dtype) or complex_ok and dtypes.is_complex(dtype)):
        raise ValueError(f"dtype argument to `{name}` must be a float dtype, got {dtype.name}")
    return dtype


def PRNGKey(seed):  # noqa: N802 (JAX's name)
    """A key from an integer seed: JAX's ``PRNGKey`` (Threefry's seeding).

    The key's words are the high and low 32 bits of the seed (an int64 for a
    Python int; an int32 seed has a high word of 0).

    Parameters
    ----------
    seed : int or integer array of shape ()

    Returns
    -------
    int32 array of shape (2,)
        JAX's uint32 key words, with the same bits.

    Examples
    --------
    >>> PRNGKey(42)
    array([ 0, 42], dtype=int32)
    >>> PRNGKey(-1).view(np.uint32)
    array([4294967295, 4294967295], dtype=uint32)
    """
    # As JAX, a Python int is an int64; as an array, it is an argument of one compiled op for every seed.
    return _seed(np.int64(seed) if isinstance(seed, int) else seed)


@emits_ops
def _seed(seed):
    seed = tnp.asarray(seed)
    if seed.ndim:
        raise TypeError(f"PRNGKey accepts a scalar seed, but was given an array of shape {seed.shape} != (). "
                        "Use tensorad.vmap for batching")
    if not _is_integer(seed.dtype):
        raise TypeError(f"PRNG key seed must be an integer; got dtype {seed.dtype.name}")
    if seed.dtype == np.int32:
        return tnp.stack([tnp.zeros((), tnp.int32), seed])
    high = tnp.astype(shift_right_by(seed, _WORD_BITS, logical=True), tnp.int32)
    return tnp.stack([high, tnp.astype(seed, tnp.int32)])  # int64 to int32 keeps the low bits


def key(seed):
    """A key from an integer seed: the same raw key as :func:`PRNGKey`.

    tensorad has no typed key arrays (JAX's ``key`` returns a scalar of a key
    dtype); its keys are always the raw ``(2,)`` words, which every function
    here takes.

    Examples
    --------
    >>> key(0)
    array([0, 0], dtype=int32)
    """
    return PRNGKey(seed)


def key_data(keys):
    """The words of ``keys`` (shape ``(..., 2)``): the keys themselves, as tensorad keys are raw.

    Examples
    --------
    >>> key_data(split(key(0), 3)).shape
    (3, 2)
    """
    keys = _as_key_words(keys)
    _check_key("key_data", keys, batched=True)
    return keys


def wrap_key_data(key_bits_array, *, impl=None):
    """Keys from their words (shape ``(..., 2)``; ``int32``, or JAX's ``uint32`` viewed as ``int32``).

    Parameters
    ----------
    key_bits_array : array of shape (..., 2)
    impl : None or "threefry2x32"
        The only implementation tensorad has.

    Examples
    --------
    >>> wrap_key_data(np.array([0, 42], np.uint32))
    array([ 0, 42], dtype=int32)
    """
    if impl not in (None, "threefry2x32"):
        raise ValueError(f"tensorad.random implements threefry2x32 only, got impl={impl!r}")
    return key_data(key_bits_array)


@_takes_key
def split(key, num: int | tuple = 2):
    """``num`` new keys (a shape if a tuple) from ``key``, stacked along leading axes.

    Examples
    --------
    >>> split(PRNGKey(0)).view(np.uint32)
    array([[1797259609, 2579123966],
           [ 928981903, 3453687069]], dtype=uint32)
    """
    key = _check_key("split", key)
    shape = _shape("split", num if isinstance(num, Sequence) else (num,))
    hi, lo = _hash_positions(key, shape)
    return tnp.stack([hi, lo], axis=-1)


def fold_in(key, data):
    """A new key from ``key`` and the integer ``data`` (taken modulo ``2**32``).

    Examples
    --------
    >>> fold_in(PRNGKey(0), 7).view(np.uint32)
    array([2716826189,  292468403], dtype=uint32)
    """
    # A Python int as an array: one compiled op for every value (a static number would key a compilation).
    return _fold_in(_as_key_words(key), np.asarray(data) if isinstance(data, int) else data)


@emits_ops
def _fold_in(key, data):
    key = _check_key("fold_in", key)
    data = tnp.asarray(data)
    if data.ndim:
        raise TypeError(f"fold_in accepts a scalar, but was given an array of shape {data.shape} != (). "
                        "Use tensorad.vmap for batching.")
    if not _is_integer(data.dtype):
        raise TypeError(f"fold_in: data must be an integer, got dtype {data.dtype.name}")
    # JAX hashes the seed words of data as a uint32: 0 and data's low 32 bits.
    hi, lo = _threefry2x32(key, tnp.zeros((), tnp.int32), tnp.astype(data, tnp.int32))
    return tnp.stack([hi, lo])


# ----------------------------------------------------------------------------
# Bits, uniform floats and integers
# ----------------------------------------------------------------------------

_BITS_CONTAINERS = {np.dtype(np.uint32): np.dtype(np.int32), np.dtype(np.uint64): np.dtype(np.int64)}


@_takes_key
def bits(key, shape=(), dtype=None):
    """Uniform random bits: JAX's unsigned integers, held in the signed dtype of the same width.

    Parameters
    ----------
    key : key
    shape : tuple of int
    dtype : uint32 or uint64 (default)
        JAX's dtype; the result is int32 or int64 with the same bits.

    Examples
    --------
    >>> bits(PRNGKey(0), (2,), np.uint32).view(np.uint32)
    array([4070199207, 4202968722], dtype=uint32)
    """
    key = _check_key("bits", key)
    dtype = np.dtype(np.uint64 if dtype is None else dtype)
    if dtype.kind != "u":
        raise ValueError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype.name}")
    if dtype not in _BITS_CONTAINERS:
        raise TypeError(f"bits: tensorad holds random bits in int32 or int64, so dtype must be uint32 or uint64, "
                        f"got {dtype.name}")
    return _random_bits(key, dtype.itemsize * 8, _shape("bits", shape))


def _unit_floats(key, shape: tuple, dtype: np.dtype):
    """JAX's uniform floats in [0, 1) before scaling.

    JAX sets the mantissa of 1.0 to the top random bits, bitcasts and
    subtracts 1; that is ``mantissa * 2**-nmant`` exactly, which is made here
    without a bitcast (the integer converts exactly: it has ``nmant`` bits).
    """
    info = ml_dtypes.finfo(dtype)
    width = 8 if info.nmant < 8 else info.bits  # JAX draws 8 bits for bfloat16's 7 mantissa bits
    mantissa = shift_right_by(_random_bits(key, width, shape), width - info.nmant, logical=True)
    return tnp.astype(mantissa, dtype) * np.asarray(2.0 ** -info.nmant, dtype)


@_takes_key
def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """Uniform random floats in ``[minval, maxval)``.

    Differentiable in ``minval`` and ``maxval``.

    Parameters
    ----------
    key : key
    shape : tuple of int
    dtype : float dtype, default float64
    minval, maxval : float or array broadcasting to ``shape``

    Examples
    --------
    >>> uniform(PRNGKey(0), (3,))
    array([0.41845711, 0.21629545, 0.96532146])
    """
    key = _check_key("uniform", key)
    shape, dtype = _shape("uniform", shape), _float_dtype("uniform", dtype)
    minval, maxval = (tnp.astype(tnp.asarray(v), dtype) for v in (minval, maxval))
    _check_shape("uniform", shape, minval.shape, maxval.shape)
    floats = _unit_floats(key, shape, dtype)
    # The maximum keeps the values at or above minval when the product rounds down (as JAX's).
    return tnp.maximum(minval, floats * (maxval - minval) + minval)


def _unsigned_remainder(x, n, width: int):
    """``x mod n`` of unsigned ``width``-bit integers held in int64 (``n != 0``).

    32-bit values are held as their (nonnegative) values; 64-bit ones as int64
    with the same bits, where a negative ``x`` stands for ``x + 2**64`` and a
    negative ``n`` for ``n + 2**64``.
    """
    if width == _WORD_BITS:
        return tnp.remainder(x, n)
    # n >= 2**63: x < 2n, so the remainder is x - n when x >= n (compared unsigned: sign bits flipped), else x.
    above = tnp.where((x ^ _INT64_SIGN) >= (n ^ _INT64_SIGN), x - n, x)
    # n < 2**63: numpy's remainder is right for x >= 0; a negative x also counts 2**64 = 2 * 2**63.
    small_n = tnp.where(n > 0, n, 1)
    half = tnp.remainder(tnp.remainder(np.int64(2 ** 63 - 1), small_n) + 1, small_n)  # 2**63 mod n
    full = _add_modulo(half, half, small_n)  # 2**64 mod n
    below = tnp.remainder(x, small_n)
    below = tnp.where(x < 0, _add_modulo(below, full, small_n), below)
    return tnp.where(n < 0, above, below)


def _add_modulo(a, b, n):
    """``(a + b) mod n`` for ``0 <= a, b < n`` without overflowing."""
    return tnp.where(a >= n - b, a - (n - b), a + b)


def _clip_to(value, dtype: np.dtype):
    """``value`` (an integer array) clipped to the range of ``dtype`` and converted, as JAX's."""
    info, own = np.iinfo(dtype), np.iinfo(value.dtype)
    return tnp.astype(tnp.clip(value, max(info.min, own.min), min(info.max, own.max)), dtype)


@_takes_key
def randint(key, shape, minval, maxval, dtype=None):
    """Uniform random integers in ``[minval, maxval)`` (JAX's modulus of twice the dtype's bits).

    Parameters
    ----------
    key : key
    shape : tuple of int
    minval, maxval : int or integer array broadcasting to ``shape``
    dtype : int32 or int64 (default)

    Examples
    --------
    >>> randint(PRNGKey(0), (4,), 0, 100)
    array([35, 11, 75, 17])
    """
    key = _check_key("randint", key)
    shape = _shape("randint", shape)
    dtype = dtypes.check_supported(np.int64 if dtype is None else dtype)
    if not _is_integer(dtype):
        raise TypeError(f"randint only accepts integer dtypes, got {dtype.name}")
    minval, maxval = (tnp.asarray(v) for v in (minval, maxval))
    minval, maxval = (v if _is_integer(v.dtype) else tnp.astype(v, tnp.int64) for v in (minval, maxval))
    _check_shape("randint", shape, minval.shape, maxval.shape)
    maxval_out_of_range = maxval > min(np.iinfo(dtype).max, np.iinfo(maxval.dtype).max)
    minval, maxval = _clip_to(minval, dtype), _clip_to(maxval, dtype)
    width = np.iinfo(dtype).bits
    higher_key, lower_key = split(key)
    higher, lower = _random_bits(higher_key, width, shape), _random_bits(lower_key, width, shape)

    # Unsigned width-bit arithmetic in int64: 32-bit values masked to their 32 bits, 64-bit ones wrapping.
    def wrap(x):
        return x & _WORD_MASK if width == _WORD_BITS else x

    higher, lower = wrap(tnp.astype(higher, tnp.int64)), wrap(tnp.astype(lower, tnp.int64))
    span = wrap(tnp.astype(maxval, tnp.int64) - tnp.astype(minval, tnp.int64))
    span = tnp.where(maxval <= minval, 1, span)  # minval when the range is empty
    # maxval beyond the dtype: one more. A 32-bit span of 2**32 stands for uint32's 0, and both are
    # remainders that change nothing, as XLA's x % 0 == x.
    span = tnp.where(maxval_out_of_range & (maxval > minval), span + 1, span)
    # 2**width mod span, as (2**(width/2) mod span)**2 mod span.
    multiplier = _unsigned_remainder(tnp.asarray(2 ** (width // 2), tnp.int64), span, width)
    multiplier = _unsigned_remainder(wrap(multiplier * multiplier), span, width)
    offset = wrap(wrap(_unsigned_remainder(higher, span, width) * multiplier)
                  + _unsigned_remainder(lower, span, width))
    offset = _unsigned_remainder(offset, span, width)
    return minval + tnp.astype(offset, dtype)  # int64 to int32 wraps, as uint32's


# ----------------------------------------------------------------------------
# Distributions
# ----------------------------------------------------------------------------

@_takes_key
def normal(key, shape=(), dtype=None):
    """Standard normal random values: ``sqrt(2) * erf_inv(u)`` of uniform ``u`` in ``(-1, 1)``, as JAX's.

    A complex dtype draws the real and imaginary parts from two split keys,
    each of variance 1/2.

    Examples
    --------
    >>> np.round(normal(PRNGKey(0), (3,)), 6)
    array([-0.205842, -0.784766,  1.816087])
    """
    key = _check_key("normal", key)
    shape, dtype = _shape("normal", shape), _float_dtype("normal", dtype, complex_ok=True)
    if dtypes.is_complex(dtype):
        real_key, imag_key = split(key)
        real, imag = (tnp.astype(_normal_real(k, shape, dtypes.real_dtype(dtype)), dtype)
                      for k in (real_key, imag_key))
        return (real + 1j * imag) / np.asarray(_SQRT2, dtype)
    return _normal_real(key, shape, dtype)


def _normal_real(key, shape: tuple, dtype: np.dtype):
    low = np.nextafter(np.array(-1.0, dtype), np.array(0.0, dtype))
    u = uniform(key, shape, dtype, low, 1.0)
    return np.asarray(_SQRT2, dtype) * lax.erf_inv(u)


@_takes_key
def truncated_normal(key, lower, upper, shape=None, dtype=None):
    """Standard normal values truncated to the open interval ``(lower, upper)``.

    Examples
    --------
    >>> z = truncated_normal(PRNGKey(0), -1.0, 1.0, (1000,))
    >>> bool(z.min() > -1.0 and z.max() < 1.0)
    True
    """
    key = _check_key("truncated_normal", key)
    dtype = _float_dtype("truncated_normal", dtype)
    lower, upper = (tnp.astype(tnp.asarray(v), dtype) for v in (lower, upper))
    if shape is None:
        shape = np.broadcast_shapes(lower.shape, upper.shape)
    else:
        shape = _shape("truncated_normal", shape)
        _check_shape("truncated_normal", shape, lower.shape, upper.shape)
    sqrt2 = np.asarray(_SQRT2, dtype)
    u = uniform(key, shape, dtype, lax.erf(lower / sqrt2), lax.erf(upper / sqrt2))
    out = sqrt2 * lax.erf_inv(u)
    # Rounding (or u at its minimum) could reach the bounds: clip into the open interval, as JAX's.
    return tnp.clip(out, lax.nextafter(lax.stop_gradient(lower), np.array(np.inf, dtype)),
                    lax.nextafter(lax.stop_gradient(upper), np.array(-np.inf, dtype)))


@_takes_key
def bernoulli(key, p=0.5, shape=None, mode: str = "low"):
    """Booleans that are True with probability ``p``.

    Parameters
    ----------
    key : key
    p : float or float array broadcasting to ``shape``
    shape : tuple of int, default ``p.shape``
    mode : "low" or "high"
        "high" draws twice the bits, for ``p`` below the dtype's resolution.

    Examples
    --------
    >>> bernoulli(PRNGKey(0), 0.5, (4,))
    array([ True,  True, False, False])
    """
    key = _check_key("bernoulli", key)
    if mode not in ("high", "low"):
        raise ValueError(f"got mode={mode!r}, expected 'high' or 'low'")
    p = tnp.asarray(p)
    if not dtypes.is_float(p.dtype):
        raise TypeError(f"bernoulli probability `p` must have a floating dtype, got {p.dtype.name}.")
    shape = p.shape if shape is None else _shape("bernoulli", shape)
    _check_shape("bernoulli", shape, p.shape)
    if mode == "high":
        u1, u2 = uniform(key, (2, *shape), p.dtype)
        # u2 fills in the bits below u1's resolution.
        return u2 * np.asarray(2.0 ** -ml_dtypes.finfo(p.dtype).nmant, p.dtype) < p - u1
    return uniform(key, shape, p.dtype) < p


@_takes_key
def rademacher(key, shape=(), dtype=None):
    """-1 or 1 with equal probability (int64 by default).

    Examples
    --------
    >>> rademacher(PRNGKey(0), (4,))
    array([ 1,  1, -1, -1])
    """
    key = _check_key("rademacher", key)
    dtype = dtypes.check_supported(np.int64 if dtype is None else dtype)
    samples = tnp.astype(bernoulli(key, 0.5, _shape("rademacher", shape)), dtype)
    return tnp.astype(2 * samples - 1, dtype)


@_takes_key
def exponential(key, shape=(), dtype=None):
    """Exponential random values of rate 1: ``-log1p(-u)``.

    Examples
    --------
    >>> bool(exponential(PRNGKey(0), (100,)).min() >= 0.0)
    True
    """
    key = _check_key("exponential", key)
    u = uniform(key, _shape("exponential", shape), _float_dtype("exponential", dtype))
    return -tnp.log1p(-u)  # log1p(-u): 1 - u is in (0, 1]


@_takes_key
def laplace(key, shape=(), dtype=None):
    """Laplace random values of scale 1.

    Examples
    --------
    >>> laplace(PRNGKey(0), (2, 3)).shape
    (2, 3)
    """
    key = _check_key("laplace", key)
    dtype = _float_dtype("laplace", dtype)
    u = uniform(key, _shape("laplace", shape), dtype, -1.0 + ml_dtypes.finfo(dtype).epsneg, 1.0)
    return tnp.sign(u) * tnp.log1p(-tnp.abs(u))


@_takes_key
def logistic(key, shape=(), dtype=None):
    """Logistic random values: ``log(x) - log1p(-x)`` of uniform ``x``.

    Examples
    --------
    >>> logistic(PRNGKey(0), (3,)).dtype
    dtype('float64')
    """
    key = _check_key("logistic", key)
    dtype = _float_dtype("logistic", dtype)
    x = uniform(key, _shape("logistic", shape), dtype, ml_dtypes.finfo(dtype).tiny, 1.0)
    return tnp.log(x) - tnp.log1p(-x)


@_takes_key
def cauchy(key, shape=(), dtype=None):
    """Cauchy random values: ``tan(pi (u - 1/2))``.

    Examples
    --------
    >>> cauchy(PRNGKey(0), (3,))
    array([-0.26192951, -1.23784602,  9.14252843])
    """
    key = _check_key("cauchy", key)
    dtype = _float_dtype("cauchy", dtype)
    u = uniform(key, _shape("cauchy", shape), dtype, ml_dtypes.finfo(dtype).eps, 1.0)
    return tnp.tan(np.asarray(np.pi, dtype) * (u - np.asarray(0.5, dtype)))


_GUMBEL_MODES = ("low", "high")


@_takes_key
def gumbel(key, shape=(), dtype=None, mode: str | None = None):
    """Gumbel random values: ``-log(-log(u))``.

    Parameters
    ----------
    key : key
    shape : tuple of int
    dtype : float dtype, default float64
    mode : None, "low" or "high"
        JAX's default (None) is "low"; "high" draws twice the bits, for a
        larger largest value. JAX's "highest" is not provided.

    Examples
    --------
    >>> gumbel(PRNGKey(0), (2,)).shape
    (2,)
    """
    key = _check_key("gumbel", key)
    shape, dtype = _shape("gumbel", shape), _float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in _GUMBEL_MODES:
        raise ValueError(f"gumbel mode must be one of {_GUMBEL_MODES} (tensorad has no 'highest'), got {mode!r}")
    info = ml_dtypes.finfo(dtype)
    if mode == "high":
        high, low = uniform(key, (2, *shape), dtype)
        # Below 1/2 the low draw adds the bits below high's resolution (tiny keeps the logarithms finite).
        x = tnp.where(high >= 0.5, high, high + np.asarray(2.0 ** -info.nmant, dtype) * low
                      + np.asarray(info.tiny, dtype))
        return -tnp.log(-tnp.log1p(-x))
    return -tnp.log(-tnp.log(uniform(key, shape, dtype, info.tiny, 1.0)))


@_takes_key
def categorical(key, logits, axis: int = -1, shape=None, replace: bool = True, mode: str | None = None):
    """Indices drawn from categorical distributions of unnormalized log probabilities ``logits``.

    With replacement, the Gumbel-max trick (int64 indices); without, the
    Gumbel-top-k trick (int32 indices, as JAX's).

    Examples
    --------
    >>> categorical(PRNGKey(0), np.log(np.array([0.1, 0.2, 0.7])), shape=(5,))
    array([2, 2, 2, 1, 1])
    """
    key = _check_key("categorical", key)
    logits = tnp.asarray(logits)
    axis = axis + logits.ndim if axis < 0 else axis
    if not 0 <= axis < logits.ndim:
        raise ValueError(f"categorical: axis {axis} is out of bounds for logits of shape {logits.shape}")
    batch_shape = logits.shape[:axis] + logits.shape[axis + 1:]
    shape = batch_shape if shape is None else _shape("categorical", shape)
    _check_shape("categorical", shape, batch_shape)
    prefix = shape[:len(shape) - len(batch_shape)]
    if replace:
        noise_shape = (*prefix, *shape[len(prefix):axis + len(prefix)], logits.shape[axis],
                       *shape[axis + len(prefix):])
        noisy = gumbel(key, noise_shape, logits.dtype, mode) + tnp.reshape(logits, (1,) * len(prefix) + logits.shape)
        return tnp.argmax(noisy, axis=axis + len(prefix))
    count = math.prod(prefix)
    if count > logits.shape[axis]:
        raise ValueError(f"Number of samples without replacement ({count}) cannot exceed number of categories "
                         f"({logits.shape[axis]}).")
    noisy = logits + gumbel(key, logits.shape, logits.dtype, mode)
    _, indices = lax.top_k(tnp.moveaxis(noisy, axis, -1), count)
    # The k draws of each distribution lead the result.
    return tnp.reshape(tnp.moveaxis(indices, -1, 0), shape)


def _shuffle(key, x, axis: int):
    """JAX's shuffle: stable sorts of ``x`` along ``axis`` by random 32-bit keys, enough rounds to make ties rare."""
    rounds = math.ceil(3 * math.log(max(1, x.size)) / math.log(np.iinfo(np.uint32).max))
    for _ in range(rounds):
        key, subkey = split(key)
        # Sign bit flipped: int32 order is the uint32 order of JAX's sort keys.
        sort_keys = _random_bits(subkey, _WORD_BITS, x.shape) ^ _INT32_SIGN
        _, x = lax.sort_key_val(sort_keys, x, axis)
    return x


@_takes_key
def permutation(key, x, axis: int = 0, independent: bool = False):
    """A random permutation of ``arange(x)`` (an int ``x``) or of ``x`` along ``axis``.

    With ``independent``, each slice along ``axis`` is shuffled on its own.

    Examples
    --------
    >>> permutation(PRNGKey(0), 5)
    array([0, 1, 4, 3, 2])
    """
    key = _check_key("permutation", key)
    if not isinstance(x, Tracer) and np.ndim(x) == 0:
        if not _is_integer(np.asarray(x).dtype):
            raise TypeError(f"permutation: x must be an integer or at least 1-dimensional, got {x!r}")
        return _shuffle(key, tnp.arange(int(x)), 0)
    x = tnp.asarray(x)
    if not x.ndim:
        raise TypeError("permutation: an integer x must be concrete (a Python int), not traced")
    axis = axis + x.ndim if axis < 0 else axis
    if not 0 <= axis < x.ndim:
        raise ValueError(f"permutation: axis {axis} is out of bounds for an array of shape {x.shape}")
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    return tnp.take(x, _shuffle(key, tnp.arange(x.shape[axis]), 0), axis=axis)


@_takes_key
def choice(key, a, shape=(), replace: bool = True, p=None, axis: int = 0, mode: str | None = None):
    """A random sample of ``a`` (or of ``arange(a)`` for an int ``a``) along ``axis``.

    Parameters
    ----------
    key : key
    a : int or array
    shape : tuple of int
    replace : bool
    p : None or 1-D float array of ``a.shape[axis]`` probabilities
    axis : int
    mode : None, "low" or "high"
        The Gumbel sampler's mode, when ``p`` is given and ``replace`` is False.

    Examples
    --------
    >>> choice(PRNGKey(0), 10, (3,), replace=False)
    array([0, 1, 8])
    """
    key = _check_key("choice", key)
    if not isinstance(shape, Sequence):
        raise TypeError(f"shape argument of choice must be a sequence, got {shape}")
    shape = _shape("choice", shape)
    arr = tnp.asarray(a)
    if arr.ndim == 0:
        if isinstance(a, Tracer) or not _is_integer(arr.dtype):
            raise TypeError(f"choice: a must be a concrete integer (a Python int) or an array, got {a!r}")
        n_inputs = int(a)
    else:
        axis = axis + arr.ndim if axis < 0 else axis
        n_inputs = arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws == 0:
        return tnp.zeros(shape, arr.dtype)
    if n_inputs <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n_inputs:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size {n_inputs}) "
                         "when 'replace=False'")
    if p is None:
        if replace:
            indices = randint(key, shape, 0, n_inputs)
            result = indices if arr.ndim == 0 else tnp.take(arr, indices, axis=axis)
        else:
            shuffled = permutation(key, n_inputs if arr.ndim == 0 else arr, axis)
            result = shuffled[(slice(None),) * axis + (slice(n_draws),)]
    else:
        p = tnp.asarray(p)
        if not dtypes.is_float(p.dtype):
            p = tnp.astype(p, tnp.float64)
        if p.shape != (n_inputs,):
            raise ValueError("p must be None or a 1D vector with the same size as a.shape[axis]. "
                             f"p has shape {p.shape} and a.shape[axis] is {n_inputs}.")
        if replace:
            cumulative = tnp.cumsum(p)
            r = cumulative[-1] * (1 - uniform(key, shape, p.dtype))
            indices = tnp.astype(tnp.searchsorted(cumulative, r), tnp.int64)
        else:
            noisy = gumbel(key, (n_inputs,), p.dtype, mode) + tnp.log(p)
            indices = tnp.astype(lax.top_k(noisy, n_draws)[1], tnp.int64)
        result = indices if arr.ndim == 0 else tnp.take(arr, indices, axis=axis)
    return tnp.reshape(result, shape if arr.ndim == 0 else arr.shape[:axis] + shape + arr.shape[axis + 1:])


_FACTORIZATIONS = ("cholesky", "svd", "eigh")


@_takes_key
def multivariate_normal(key, mean, cov, shape=None, dtype=None, method: str = "cholesky"):
    """Multivariate normal values of ``mean`` (``(..., n)``) and covariance ``cov`` (``(..., n, n)``).

    ``mean + factor @ z`` for standard normal ``z``, where ``factor factor^T = cov``
    comes from ``method``: "cholesky", "svd" or "eigh".

    Examples
    --------
    >>> multivariate_normal(PRNGKey(0), np.zeros(2), np.eye(2), (3,)).shape
    (3, 2)
    """
    key = _check_key("multivariate_normal", key)
    if method not in _FACTORIZATIONS:
        raise ValueError(f"method must be one of {_FACTORIZATIONS}, got {method!r}")
    mean, cov = tnp.asarray(mean), tnp.asarray(cov)
    dtype = _float_dtype("multivariate_normal", dtype)
    mean, cov = tnp.astype(mean, dtype), tnp.astype(cov, dtype)
    if mean.ndim < 1:
        raise ValueError(f"multivariate_normal requires mean.ndim >= 1, got mean.ndim == {mean.ndim}")
    if cov.ndim < 2:
        raise ValueError(f"multivariate_normal requires cov.ndim >= 2, got cov.ndim == {cov.ndim}")
    n = mean.shape[-1]
    if cov.shape[-2:] != (n, n):
        raise ValueError(f"multivariate_normal requires cov.shape == (..., n, n) for n={n}, but got "
                         f"cov.shape == {cov.shape}.")
    if shape is None:
        shape = np.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    else:
        shape = _shape("multivariate_normal", shape)
        _check_shape("normal", shape, mean.shape[:-1], cov.shape[:-2])
    if method == "svd":
        u, s, _ = tnp.linalg.svd(cov)
        factor = u * tnp.sqrt(s)[..., None, :]
    elif method == "eigh":
        w, v = tnp.linalg.eigh(cov)
        factor = v * tnp.sqrt(w)[..., None, :]
    else:
        factor = tnp.linalg.cholesky(cov)
    z = normal(key, shape + (n,), dtype)
    return mean + tnp.einsum("...ij,...j->...i", factor, z)


@_takes_key
def orthogonal(key, n: int, shape=(), dtype=None, m: int | None = None):
    """A random matrix of the orthogonal group O(n) (semi-orthogonal ``(n, m)`` for a given ``m``).

    The QR factorization of a normal matrix, its columns' signs fixed by
    ``R``'s diagonal (Mezzadri, 2007).

    Examples
    --------
    >>> q = orthogonal(PRNGKey(0), 3)
    >>> bool(np.allclose(q @ q.T, np.eye(3)))
    True
    """
    key = _check_key("orthogonal", key)
    shape, dtype = _shape("orthogonal", shape), _float_dtype("orthogonal", dtype)
    m = n if m is None else m
    z = normal(key, (*shape, max(n, m), min(n, m)), dtype)
    q, r = tnp.linalg.qr(z)
    x = q * tnp.expand_dims(tnp.sign(tnp.diagonal(r, axis1=-2, axis2=-1)), -2)
    return tnp.swapaxes(x, -1, -2) if n < m else x
