"""``tensorad.random``: :mod:`jax.random`'s functions, giving the numbers JAX 0.10.2 gives.

The generator is JAX's default one, Threefry-2x32 (20 rounds), in the
"partitionable" form that ``jax_threefry_partitionable`` selects (its default,
``True``, in JAX 0.10.2): the values of a draw of shape ``s`` are the hash of
the 64-bit row-major positions ``0, 1, ...`` of ``s``, split into two 32-bit
counter words. The hash is one op, ``tad.threefry2x32`` (its rounds are the
body of one elementwise loop, as JAX's ``threefry2x32_p``); the rest is composed
of :mod:`tensorad.numpy` ops, so every function runs eagerly on
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
``erf_inv``, ``pow``) or a matrix factorization are JAX's up to the last few
bits where tensorad's libm-based functions round differently from XLA's
approximations.

Rejection samplers. :func:`gamma` (and :func:`loggamma`, :func:`beta`,
:func:`dirichlet`, :func:`chisquare`, :func:`f`, :func:`t`,
:func:`generalized_normal`, :func:`ball`, made of it), :func:`poisson`,
:func:`binomial` and :func:`multinomial` run JAX's loops (``lax.while_loop``
over whole arrays, or over every element with its own key as JAX's ``vmap``
of one) with the same keys split in the same order. Their accept/reject
tests see values that differ from XLA's only in the last bits, so the
counts (Poisson, binomial, multinomial, geometric) are JAX's, and the floats
are JAX's to the last bits, unless a test is decided within those bits
(none is, among the tests' samples). The float samples of this module
agree with JAX's to 1e-13 relative in float64 (a few tens of ulp; up to
5e-13 in the far tails of the normal values, where ``erf_inv`` magnifies
the last bits of ``log1p``) and 2e-6 in float32. :func:`gamma` is
differentiable in its shape parameter by implicit reparameterization, as
JAX's.

Not provided: JAX's key-implementation plumbing (``key_impl``,
``key_dtype``, the ``random_gamma_p`` primitive; tensorad has raw
threefry2x32 keys only).

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

from tensorad.dialects.families import random_bits

from . import autodiff
from . import dtypes
from . import lax
from . import numpy as tnp
from .lax_api import shift_left_by, shift_right_by
from .nn import softmax
from .tracing import Tracer, emits_ops

__all__ = ["PRNGKey", "key", "key_data", "wrap_key_data", "split", "fold_in", "bits", "uniform", "normal",
           "randint", "bernoulli", "rademacher", "categorical", "gumbel", "permutation", "choice",
           "truncated_normal", "exponential", "laplace", "logistic", "cauchy", "multivariate_normal",
           "orthogonal", "gamma", "loggamma", "beta", "dirichlet", "chisquare", "f", "t", "generalized_normal",
           "ball", "poisson", "geometric", "binomial", "multinomial", "pareto", "weibull_min", "maxwell",
           "double_sided_maxwell", "rayleigh", "wald", "triangular", "lognormal", "clone"]

_WORD_BITS = 32
_WORD_MASK = (1 << _WORD_BITS) - 1
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


def _threefry2x32(key, x1, x2):
    """The Threefry-2x32 hash (``tad.threefry2x32``) of the counter words ``(x1, x2)`` under ``key``.

    The words are int32 (JAX's uint32 bits) and broadcast together.
    """
    words = [tnp.asarray(w) for w in (key[0], key[1], x1, x2)]
    return tuple(Tracer.of(bits) for bits in random_bits.threefry2x32(*(w.value for w in words)))


def _hash_positions(key, shape: tuple):
    """The two hashed words of each position of ``shape`` (JAX's ``iota_2x32_shape`` counters).

    ``key`` may be a batch of keys ``(..., 2)``: the positions are hashed under
    each, into words of shape ``batch + shape`` (the rejection samplers draw
    one value per element from the element's own key, as JAX's do).
    """
    size = math.prod(shape)
    if size >= 2 ** 31:
        raise ValueError(f"tensorad.random draws fewer than 2**31 values from one key, asked for {size}")
    positions = tnp.reshape(tnp.arange(size, dtype=tnp.int32), shape)
    words = tnp.reshape(key, key.shape[:-1] + (1,) * len(shape) + (2,))
    # The high word of every position below 2**32 is 0.
    return _threefry2x32((words[..., 0], words[..., 1]), tnp.zeros((), tnp.int32), positions)


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
    return _split(key, _shape("split", num if isinstance(num, Sequence) else (num,)))


def _split(key, shape: tuple):
    """The keys of :func:`split` (of each key of a batch ``(..., 2)``: ``batch + shape + (2,)``)."""
    hi, lo = _hash_positions(key, shape)
    return tnp.stack([hi, lo], axis=-1)


def _unstack(keys) -> list:
    """The keys of ``_split(key, (n,))`` (of a batch ``(..., n, 2)``: ``n`` batches ``(..., 2)``)."""
    return [keys[..., i, :] for i in range(keys.shape[-2])]


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
    return _uniform(key, shape, dtype, minval, maxval)


def _uniform(key, shape: tuple, dtype: np.dtype, minval=0.0, maxval=1.0):
    """:func:`uniform`'s values, unchecked (of each key of a batch ``(..., 2)``: ``batch + shape``).

    ``minval`` and ``maxval`` are arrays of ``dtype`` or Python floats.
    """
    minval, maxval = (np.asarray(v, dtype) if isinstance(v, float) else v for v in (minval, maxval))
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
    u = _uniform(key, shape, dtype, low, 1.0)
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
    return _exponential(key, _shape("exponential", shape), _float_dtype("exponential", dtype))


def _exponential(key, shape: tuple, dtype: np.dtype):
    return -tnp.log1p(-_uniform(key, shape, dtype))  # log1p(-u): 1 - u is in (0, 1]


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


_GUMBEL_MODES = ("low", "high", "highest")


@_takes_key
def gumbel(key, shape=(), dtype=None, mode: str | None = None):
    """Gumbel random values: ``-log(-log(u))``.

    Parameters
    ----------
    key : key
    shape : tuple of int
    dtype : float dtype, default float64
    mode : None, "low", "high" or "highest"
        JAX's default (None) is "low"; "high" draws twice the bits, for a
        larger largest value; "highest" (float32; other dtypes take "high")
        makes ``u`` of 64 random bits, with all of float32's exponent range.

    Examples
    --------
    >>> gumbel(PRNGKey(0), (2,)).shape
    (2,)
    >>> bool(gumbel(PRNGKey(0), (1000,), np.float32, "highest").max() > 5.0)
    True
    """
    key = _check_key("gumbel", key)
    shape, dtype = _shape("gumbel", shape), _float_dtype("gumbel", dtype)
    mode = "low" if mode is None else mode
    if mode not in _GUMBEL_MODES:
        raise ValueError(f"Must provide valid mode for gumbel, one of {_GUMBEL_MODES}, got {mode!r}")
    info = ml_dtypes.finfo(dtype)
    if mode == "highest" and dtype == np.float32:
        return _gumbel_highest(key, shape)
    if mode != "low":
        high, low = uniform(key, (2, *shape), dtype)
        # Below 1/2 the low draw adds the bits below high's resolution (tiny keeps the logarithms finite).
        x = tnp.where(high >= 0.5, high, high + np.asarray(2.0 ** -info.nmant, dtype) * low
                      + np.asarray(info.tiny, dtype))
        return -tnp.log(-tnp.log1p(-x))
    return -tnp.log(-tnp.log(uniform(key, shape, dtype, info.tiny, 1.0)))


def _gumbel_highest(key, shape: tuple):
    """JAX's float32 "highest" Gumbel values: ``u`` in (0, 1) from 64 random bits, truncated to float32.

    JAX joins two 32-bit draws into a 64-bit fraction ``v``, takes ``1 - v``
    instead where ``v >= 1/2`` (so ``log1p`` sees the small side), and keeps the
    24 bits from the leading one with the exponent of its position (its
    ``_safe_int_to_float`` bit assembly). That float is made here from the
    int64 of the same bits, without a bitcast.
    """
    high, low = _random_bits(key, _WORD_BITS, (2, *shape))
    v = shift_left_by(tnp.astype(high, tnp.int64), _WORD_BITS) | (tnp.astype(low, tnp.int64) & _WORD_MASK)
    below_half = v >= 0  # the top bit of the fraction clear
    v = tnp.where(below_half, v, -v)  # 2**64 - v, wrapping as JAX's carry between the words
    leading = lax.clz(v)  # 64 for v = 0, whose float is then 2**-65, as JAX's
    mantissa = shift_right_by(lax.shift_left(v, leading), 64 - 24, logical=True)  # the leading one and 23 bits
    x = tnp.ldexp(tnp.astype(mantissa, tnp.float32), -(tnp.astype(leading, tnp.int32) + 24))
    return tnp.where(below_half, -tnp.log(-tnp.log1p(-x)), -tnp.log(-tnp.log(x)))


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


# ----------------------------------------------------------------------------
# Parameters of the distributions below
# ----------------------------------------------------------------------------

def _sample_shape(name: str, shape, *params) -> tuple:
    """``shape`` (the parameters must broadcast to it exactly) or, if None, the parameters' broadcast shape."""
    param_shapes = [np.shape(p) for p in params]
    if shape is None:
        try:
            return np.broadcast_shapes(*param_shapes)
        except ValueError:
            raise ValueError(f"{name}: parameter shapes {param_shapes} do not broadcast together") from None
    shape = _shape(name, shape)
    _check_shape(name, shape, *param_shapes)
    return shape


def _cast_params(name: str, dtype: np.dtype, *params) -> list:
    """``params`` as arrays of ``dtype``, refused (as JAX's ``_check_all_safe_to_cast``) where that loses range.

    Python numbers are weakly typed and booleans and integers sit below every
    float in JAX's promotion lattice, so those always cast.
    """
    arrays = []
    for p in params:
        array = tnp.asarray(p)
        if not (type(p) in (bool, int, float) or array.dtype.kind in "biu"
                or dtypes.result_type(array.dtype, dtype) == dtype):
            raise ValueError(f"In arguments to {name}, cannot safely cast argument of type {array.dtype.name} "
                             f"to {dtype.name}")
        arrays.append(tnp.astype(array, dtype))
    return arrays


def _int_dtype(name: str, dtype) -> np.dtype:
    """The dtype of integer samples: int64 by default (JAX's with ``jax_enable_x64``)."""
    dtype = dtypes.check_supported(np.int64 if dtype is None else dtype)
    if not _is_integer(dtype):
        raise ValueError(f"dtype argument to `{name}` must be an int dtype, got {dtype.name}")
    return dtype


def _where(mask, new: tuple, old: tuple) -> tuple:
    """``new`` where ``mask`` else ``old``, leaf by leaf (a key's two words follow its element's mask).

    A step of a loop over a batch of elements, each of which stops when its
    own condition does: JAX's ``vmap`` of a ``while_loop``.
    """
    def pick(a, b):
        return tnp.where(tnp.reshape(mask, mask.shape + (1,) * (a.ndim - mask.ndim)), a, b)

    return tuple(pick(a, b) for a, b in zip(new, old))


# ----------------------------------------------------------------------------
# Gamma and the distributions made of it
# ----------------------------------------------------------------------------

_ONE_THIRD = 1.0 / 3.0
_SQUEEZE = 0.0331  # Marsaglia and Tsang's squeeze: most proposals are accepted without a logarithm
_FRACTION_STEPS = 2000  # JAX's bound on the continued fraction of random_gamma_grad


def _marsaglia_tsang(keys, alpha, log_space: bool):
    """Gamma(``alpha``) samples (their logarithms with ``log_space``), each from its own key: JAX's ``_gamma_one``.

    Marsaglia and Tsang's method: ``d v^3`` for ``d = alpha - 1/3`` and
    ``v = 1 + x / sqrt(9 d)`` of a normal ``x``, proposals redrawn from split
    keys until one is accepted; ``alpha < 1`` draws ``Gamma(alpha + 1)`` and
    multiplies by ``u^(1/alpha)`` (adds ``log(u) / alpha`` in log space, which
    keeps the samples of a tiny ``alpha`` from underflowing).
    """
    dtype = alpha.dtype
    one = np.asarray(1.0, dtype)
    boost_mask = alpha >= one
    d = tnp.where(boost_mask, alpha, alpha + one) - np.asarray(_ONE_THIRD, dtype)
    c = np.asarray(_ONE_THIRD, dtype) / tnp.sqrt(d)

    def rejected(state):
        _, x_squared, v_cubed, u = state
        squeezed_out = u >= one - np.asarray(_SQUEEZE, dtype) * (x_squared * x_squared)
        return squeezed_out & (tnp.log(u) >= x_squared * np.asarray(0.5, dtype)
                               + d * ((one - v_cubed) + tnp.log(v_cubed)))

    def propose(state):
        next_keys, normal_keys, uniform_keys = _unstack(_split(state[0], (3,)))
        x, v = _positive_v(normal_keys, c)
        return _where(rejected(state), (next_keys, x * x, v * v * v, _uniform(uniform_keys, (), dtype)), state)

    keys, boost_keys = _unstack(_split(keys, (2,)))
    zeros = tnp.zeros_like(alpha)
    # u = 2 counts as rejected: every element draws a first proposal.
    _, _, v_cubed, _ = lax.while_loop(lambda state: tnp.any(rejected(state)), propose,
                                      (keys, zeros, zeros + one, zeros + 2 * one))
    if log_space:
        log_u = -_exponential(boost_keys, (), dtype)
        log_boost = tnp.where(boost_mask | (log_u == 0), zeros, log_u * (one / alpha))
        return tnp.log(d) + tnp.log(v_cubed) + log_boost
    boost = tnp.where(boost_mask, one, tnp.power(one - _uniform(boost_keys, (), dtype), one / alpha))
    return d * v_cubed * boost


def _positive_v(keys, c):
    """Normal ``x`` with ``v = 1 + c x > 0``, redrawn from split keys where ``v <= 0`` (JAX's inner loop)."""
    def redraw(state):
        next_keys, normal_keys = _unstack(_split(state[0], (2,)))
        x = _normal_real(normal_keys, (), c.dtype)
        return _where(state[2] <= 0, (next_keys, x, 1 + x * c), state)

    zeros = tnp.zeros_like(c)
    _, x, v = lax.while_loop(lambda state: tnp.any(state[2] <= 0), redraw, (keys, zeros, zeros - 1))
    return x, v


def _random_gamma_grad(a, x):
    """``dx/da`` of a Gamma(``a``) sample ``x`` (implicit reparameterization): JAX's ``random_gamma_grad``.

    ``x`` moves with ``a`` so that ``P(a, x)`` (the regularized lower
    incomplete gamma function, the CDF) stays put: ``dx/da = -(dP/da) / (dP/dx)``.
    Both come from Cephes' series of ``P`` (``x <= max(a, 1)``) or Legendre's
    continued fraction of ``1 - P``, differentiated in ``a`` term by term and
    iterated until the derivative converges; the density ``dP/dx`` cancels
    out of the quotient, so it cannot underflow. Half precision is computed
    in float32, as JAX's.
    """
    dtype = a.dtype
    work = dtypes.computation_dtype(dtype)
    a, x = tnp.astype(a, work), tnp.astype(x, work)
    info = ml_dtypes.finfo(work)
    eps = np.asarray(info.eps, work)
    is_nan = tnp.isnan(a) | tnp.isnan(x)
    x_is_zero = x == 0
    domain_error = (x < 0) | (a <= 0)
    use_fraction = (x > 1) & (x > a)
    underflow = a * tnp.log(x) - x - lax.lgamma(a) < -np.log(np.asarray(info.max, work))
    enabled = ~(x_is_zero | domain_error | underflow | is_nan)
    series = _gamma_series_grad(a, x, enabled & ~use_fraction, eps)
    fraction = _gamma_fraction_grad(a, x, enabled & use_fraction, eps)
    out = tnp.where(x_is_zero, np.asarray(0.0, work), tnp.where(use_fraction, fraction, series))
    return tnp.astype(tnp.where(domain_error | is_nan, np.asarray(np.nan, work), out), dtype)


def _gamma_series_grad(a, x, enabled, eps):
    """``dx/da`` from the series ``P(a, x) = x^a e^-x / Γ(a+1) * sum_k c_k``, ``c_k = x^k / ((a+1)...(a+k))``."""
    def add_term(state):
        active, r, c, total, dc_da, dtotal_da = state
        r = r + 1
        dc_da = dc_da * (x / r) - (c * x) / (r * r)
        dtotal_da = dtotal_da + dc_da
        c = c * (x / r)
        still = active & (tnp.abs(dc_da / dtotal_da) > eps)
        return (still,) + _where(active, (r, c, total + c, dc_da, dtotal_da), state[1:])

    ones, zeros = tnp.ones_like(x), tnp.zeros_like(x)
    _, _, _, total, _, dtotal_da = lax.while_loop(lambda state: tnp.any(state[0]), add_term,
                                                  (enabled, a, ones, ones, zeros, zeros))
    dlog_prefactor_da = tnp.log(x) - lax.digamma(a + 1)
    return -(dtotal_da + total * dlog_prefactor_da) * x / a


def _gamma_fraction_grad(a, x, enabled, eps):
    """``dx/da`` from Legendre's continued fraction of ``1 - P(a, x) = x^a e^-x / Γ(a) * p/q`` (Cephes' ``igamc``).

    The convergents ``p_k/q_k`` and their derivatives in ``a`` follow one
    recurrence; all are scaled by ``eps`` when ``p_k`` grows past ``1/eps``.
    """
    def step(state):
        active, k, ratio, y, z, p, q, p_prev, q_prev, dp_prev, dq_prev, dp, dq, dratio = state
        k, y, z = k + 1, y + 1, z + 2
        yk = y * k
        p_next, q_next = p * z - p_prev * yk, q * z - q_prev * yk
        nonzero = q_next != 0
        ratio_next = tnp.where(nonzero, p_next / q_next, ratio)
        dp_next = dp * z - p - dp_prev * yk + p_prev * k
        dq_next = dq * z - q - dq_prev * yk + q_prev * k
        dratio_next = tnp.where(nonzero, (dp_next - ratio_next * dq_next) / q_next, dratio)
        change = tnp.where(nonzero, tnp.abs(dratio_next - dratio), tnp.ones_like(dratio))
        scale = tnp.where(tnp.abs(p_next) > 1 / eps, eps, tnp.ones_like(p))
        # Each convergent (and derivative) moves back one place; all are rescaled together.
        new = (ratio_next, y, z, p_next * scale, q_next * scale, p * scale, q * scale, dp * scale, dq * scale,
               dp_next * scale, dq_next * scale, dratio_next)
        return (active & (change > eps), k) + _where(active, new, state[2:])

    y = 1 - a
    z = x + y + 1
    ones, zeros = tnp.ones_like(x), tnp.zeros_like(x)
    p, q = x + 1, z * x
    ratio = p / q
    dq = -x
    state = (enabled, tnp.zeros((), x.dtype), ratio, y, z, p, q, ones, x, zeros, zeros, zeros, dq,
             (zeros - ratio * dq) / q)
    _, _, ratio, *_, dratio = lax.while_loop(lambda s: (s[1] < _FRACTION_STEPS) & tnp.any(s[0]), step, state)
    return (dratio + ratio * (tnp.log(x) - lax.digamma(a))) * x


def _gamma_sampler(log_space: bool):
    """Gamma samples (logarithms with ``log_space``) of keys ``(..., 2)`` and ``a``, differentiable in ``a``.

    The derivative is JAX's (``random_gamma_p``'s rule): ``dx/da`` of
    :func:`_random_gamma_grad`, divided by ``x`` for ``log x``.
    """
    @autodiff.custom_jvp
    def sample(keys, a):
        return _marsaglia_tsang(keys, a, log_space)

    @sample.defjvp
    def sample_jvp(primals, tangents):
        keys, a = primals
        out = sample(keys, a)
        if not log_space:
            return out, tangents[1] * _random_gamma_grad(a, out)
        # exp(log x) may round to 0: the smallest normal float stands in, as in JAX's rule.
        x = tnp.exp(out)
        x = tnp.where(x == 0, np.asarray(ml_dtypes.finfo(x.dtype).tiny, x.dtype), x)
        return out, tangents[1] * (_random_gamma_grad(a, x) / x)

    return sample


_GAMMA_SAMPLERS = {log_space: _gamma_sampler(log_space) for log_space in (False, True)}


def _gamma(key, a, shape, dtype: np.dtype, log_space: bool):
    """JAX's ``_gamma``: ``a`` broadcast to ``shape``, each element sampled from its key of ``split(key, shape)``."""
    a = tnp.asarray(a)
    shape = a.shape if shape is None else _sample_shape("gamma", shape, a)
    a = tnp.broadcast_to(tnp.astype(a, dtype), shape)
    return _GAMMA_SAMPLERS[log_space](_split(key, shape), a)


@_takes_key
def gamma(key, a, shape=None, dtype=None):
    """Gamma random values of shape parameter ``a`` (unit scale): density ``x^(a-1) e^-x / Γ(a)``.

    Marsaglia and Tsang's rejection method, as JAX's: each element draws its
    proposals from its own key of ``split(key, shape)`` until one is
    accepted. Differentiable in ``a``: the implicit reparameterization
    gradient ``dx/da = -(dF/da) / (dF/dx)`` of the CDF ``F`` (JAX's
    ``random_gamma_grad``).

    Exactness: the proposals' normal values go through ``erf_inv`` and the
    tests through ``log`` (and the boost of ``a < 1`` through ``pow``), whose
    last bits differ between tensorad (libm) and XLA (its own
    approximations): samples agree with JAX's to a few tens of ulp (float64
    within 1e-13 relative, float32 within 1e-6), as long as no proposal is
    accepted by one and rejected by the other, which needs a test decided
    within those bits.

    Parameters
    ----------
    key : key
    a : float or array broadcasting to ``shape``
    shape : tuple of int, default ``a.shape``
    dtype : float dtype, default float64

    Examples
    --------
    >>> x = gamma(PRNGKey(0), 3.0, (2000,))
    >>> bool(abs(x.mean() - 3.0) < 0.15)
    True
    """
    key = _check_key("gamma", key)
    return _gamma(key, a, shape, _float_dtype("gamma", dtype), log_space=False)


@_takes_key
def loggamma(key, a, shape=None, dtype=None):
    """Logarithms of Gamma random values: ``exp(loggamma(...))`` is :func:`gamma`'s sample.

    In log space a tiny ``a`` keeps its samples, which as floats underflow to
    0. Differentiable in ``a`` (``d log x / da = (dx/da) / x``, with the
    smallest normal float for an ``x`` that underflows, as JAX's). Agrees
    with JAX to a few tens of ulp (see :func:`gamma`).

    Examples
    --------
    >>> x = loggamma(PRNGKey(0), 1e-3, (4,))
    >>> bool((x < -20.0).any())
    True
    """
    key = _check_key("loggamma", key)
    return _gamma(key, a, shape, _float_dtype("loggamma", dtype), log_space=True)


@_takes_key
def beta(key, a, b, shape=None, dtype=None):
    """Beta random values: ``G_a / (G_a + G_b)`` of two Gamma samples, computed from their logarithms.

    Differentiable in ``a`` and ``b``; agrees with JAX to the last bits (see :func:`gamma`).

    Examples
    --------
    >>> x = beta(PRNGKey(0), 2.0, 5.0, (2000,))
    >>> bool(abs(x.mean() - 2.0 / 7.0) < 0.02)
    True
    """
    key = _check_key("beta", key)
    dtype = _float_dtype("beta", dtype)
    a, b = _cast_params("beta", dtype, a, b)
    shape = _sample_shape("beta", shape, a, b)
    key_a, key_b = _unstack(_split(key, (2,)))
    log_gamma_a = _gamma(key_a, tnp.broadcast_to(a, shape), shape, dtype, log_space=True)
    log_gamma_b = _gamma(key_b, tnp.broadcast_to(b, shape), shape, dtype, log_space=True)
    # Scaled by the larger: the ratio keeps its precision where both samples underflow.
    log_max = tnp.maximum(log_gamma_a, log_gamma_b)
    gamma_a_scaled, gamma_b_scaled = tnp.exp(log_gamma_a - log_max), tnp.exp(log_gamma_b - log_max)
    return gamma_a_scaled / (gamma_a_scaled + gamma_b_scaled)


@_takes_key
def dirichlet(key, alpha, shape=None, dtype=None):
    """Dirichlet random values of concentrations ``alpha`` (``(..., n)``): the softmax of log-Gamma samples.

    ``shape`` is the batch shape (the result is ``shape + (n,)``). Differentiable
    in ``alpha``; agrees with JAX to the last bits (see :func:`gamma`).

    Examples
    --------
    >>> x = dirichlet(PRNGKey(0), np.array([1.0, 2.0, 3.0]), (4,))
    >>> x.shape, bool(np.allclose(x.sum(-1), 1.0))
    ((4, 3), True)
    """
    key = _check_key("dirichlet", key)
    dtype = _float_dtype("dirichlet", dtype)
    alpha = tnp.asarray(alpha)
    if alpha.ndim < 1:
        raise ValueError(f"dirichlet requires alpha.ndim >= 1, got alpha.ndim == {alpha.ndim}")
    if shape is None:
        shape = alpha.shape[:-1]
    else:
        shape = _shape("dirichlet", shape)
        _check_shape("dirichlet", shape, alpha.shape[:-1])
    alpha = tnp.astype(alpha, dtype)
    return softmax(_gamma(key, alpha, shape + alpha.shape[-1:], dtype, log_space=True), -1)


def _chisquare(key, df, shape: tuple, dtype: np.dtype):
    half_df = df / np.asarray(2.0, dtype)
    return tnp.exp(_gamma(key, half_df, shape, dtype, log_space=True)) * np.asarray(2.0, dtype)


@_takes_key
def chisquare(key, df, shape=None, dtype=None):
    """Chi-square random values of ``df`` degrees of freedom: twice Gamma(df / 2) samples.

    Differentiable in ``df``; agrees with JAX to the last bits (see :func:`gamma`).

    Examples
    --------
    >>> x = chisquare(PRNGKey(0), 4.0, (2000,))
    >>> bool(abs(x.mean() - 4.0) < 0.2)
    True
    """
    key = _check_key("chisquare", key)
    dtype = _float_dtype("chisquare", dtype)
    (df,) = _cast_params("chisquare", dtype, df)
    return _chisquare(key, df, _sample_shape("chisquare", shape, df), dtype)


@_takes_key
def f(key, dfnum, dfden, shape=None, dtype=None):
    """F-distribution random values: ``(X / dfnum) / (Y / dfden)`` of chi-square ``X``, ``Y``.

    Differentiable in ``dfnum`` and ``dfden``; agrees with JAX to the last bits (see :func:`gamma`).

    Examples
    --------
    >>> x = f(PRNGKey(0), 5.0, 20.0, (2000,))
    >>> bool(abs(np.median(x) - 0.9) < 0.1)
    True
    """
    key = _check_key("f", key)
    dtype = _float_dtype("f", dtype)
    dfnum, dfden = _cast_params("f", dtype, dfnum, dfden)
    shape = _sample_shape("f", shape, dfnum, dfden)
    key_dfd, key_dfn = _unstack(_split(key, (2,)))
    return (_chisquare(key_dfn, dfnum, shape, dtype) / dfnum) / (_chisquare(key_dfd, dfden, shape, dtype) / dfden)


@_takes_key
def t(key, df, shape=None, dtype=None):
    """Student's t random values of ``df`` degrees of freedom: ``z sqrt((df/2) / G)``, ``G ~ Gamma(df/2)``.

    Differentiable in ``df``; agrees with JAX to the last bits (see :func:`gamma`).

    Examples
    --------
    >>> x = t(PRNGKey(0), 5.0, (2000,))
    >>> bool(abs(np.median(x)) < 0.1)
    True
    """
    key = _check_key("t", key)
    dtype = _float_dtype("t", dtype)
    (df,) = _cast_params("t", dtype, df)
    shape = _sample_shape("t", shape, df)
    key_n, key_g = _unstack(_split(key, (2,)))
    n = _normal_real(key_n, shape, dtype)
    half_df = df / np.asarray(2.0, dtype)
    return n * tnp.sqrt(half_df / _gamma(key_g, half_df, shape, dtype, log_space=False))


@_takes_key
def generalized_normal(key, p, shape=(), dtype=None):
    """Generalized normal random values, density proportional to ``exp(-|x|^p)``: ``±G^(1/p)``, ``G ~ Gamma(1/p)``.

    Agrees with JAX to the last bits (see :func:`gamma`).

    Examples
    --------
    >>> x = generalized_normal(PRNGKey(0), 2.0, (2000,))  # normal of variance 1/2
    >>> bool(abs(x.var() - 0.5) < 0.05)
    True
    """
    key = _check_key("generalized_normal", key)
    shape, dtype = _shape("generalized_normal", shape), _float_dtype("generalized_normal", dtype)
    gamma_key, sign_key = _unstack(_split(key, (2,)))
    g = _gamma(gamma_key, 1 / p, shape, dtype, log_space=False)
    return rademacher(sign_key, shape, dtype) * g ** (1 / p)


@_takes_key
def ball(key, d: int, p=2, shape=(), dtype=None):
    """Points uniform in the unit ``p``-norm ball of dimension ``d``, of shape ``shape + (d,)``.

    Generalized normal coordinates scaled by ``(sum |g|^p + e)^(1/p)`` for an
    exponential ``e`` (Barthe, Guédon, Mendelson and Naor, 2005).

    Examples
    --------
    >>> x = ball(PRNGKey(0), 3, 2, (100,))
    >>> x.shape, bool((np.linalg.norm(x, axis=-1) <= 1.0).all())
    ((100, 3), True)
    """
    key = _check_key("ball", key)
    shape, dtype = _shape("ball", shape), _float_dtype("ball", dtype)
    if isinstance(d, Tracer) or not isinstance(d, (int, np.integer)) or d < 0:
        raise TypeError(f"ball: d must be a concrete nonnegative integer, got {d!r}")
    normal_key, exponential_key = _unstack(_split(key, (2,)))
    g = generalized_normal(normal_key, p, (*shape, int(d)), dtype)
    e = _exponential(exponential_key, shape, dtype)
    return g / ((tnp.sum(tnp.abs(g) ** p, axis=-1) + e) ** (1 / p))[..., None]


# ----------------------------------------------------------------------------
# Counts: Poisson, binomial, multinomial, geometric
# ----------------------------------------------------------------------------

_KNUTH_BELOW = 10.0  # rates below: Knuth's products of uniforms; above: Hörmann's transformed rejection


def _poisson_knuth(key, lam, dtype: np.dtype):
    """Knuth's method: one less than the number of uniform factors whose product first falls to ``e^-lam``.

    One loop over the whole array, a key split per step (JAX's ``_poisson_knuth``).
    """
    def multiply(state):
        key, k, log_prod = state
        key, subkey = _unstack(_split(key, (2,)))
        k = tnp.where(log_prod > -lam, k + 1, k)
        return key, k, log_prod + tnp.log(_uniform(subkey, lam.shape, lam.dtype))

    _, k, _ = lax.while_loop(lambda state: tnp.any(state[2] > -lam), multiply,
                             (key, tnp.zeros(lam.shape, dtype), tnp.zeros_like(lam)))
    return k - 1


def _poisson_rejection(key, lam, dtype: np.dtype):
    """Hörmann's transformed rejection (PTRS, 1993) for ``lam >= 10``: JAX's ``_poisson_rejection``.

    One loop over the whole array, as JAX's: each step proposes for every
    element, and an accepted proposal replaces the element's value even if
    an earlier one had been accepted (so the values are JAX's only when the
    loop runs the same number of steps, which it does: the same keys).
    """
    log_lam = tnp.log(lam)
    b = 0.931 + 2.53 * tnp.sqrt(lam)
    a = -0.059 + 0.02483 * b
    inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
    v_r = 0.9277 - 3.6224 / (b - 2)

    def propose(state):
        k_out, accepted, key = state
        key, key_u, key_v = _unstack(_split(key, (3,)))
        u = _uniform(key_u, lam.shape, lam.dtype) - 0.5
        v = _uniform(key_v, lam.shape, lam.dtype)
        u_shifted = 0.5 - tnp.abs(u)
        k = tnp.floor((2 * a / u_shifted + b) * u + lam + 0.43)
        s = tnp.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        log_pmf = -lam + k * log_lam - lax.lgamma(k + 1)
        accept1 = (u_shifted >= 0.07) & (v <= v_r)
        reject = (k < 0) | ((u_shifted < 0.013) & (v > u_shifted))
        accept = accept1 | (~reject & (s <= log_pmf))
        return tnp.where(accept, k, k_out), accepted | accept, key

    init = (tnp.full(lam.shape, -1.0, lam.dtype), tnp.zeros(lam.shape, tnp.bool_), key)
    k, _, _ = lax.while_loop(lambda state: tnp.any(~state[1]), propose, init)
    return tnp.astype(k, dtype)


@_takes_key
def poisson(key, lam, shape=None, dtype=None):
    """Poisson random counts of rate ``lam`` (int64 by default).

    As JAX's: the rates become float32; Knuth's method below rate 10, Hörmann's
    transformed rejection above (both loops run over the whole array, from
    the same key, and each element takes its method's count); rate 0 gives 0.

    Exactness: the counts are JAX's where float32 ``log`` (Knuth) and
    ``lgamma`` (rejection) land on the same side of each test as XLA's; they
    differ from XLA's in the last bits only, so a different count needs a
    test decided within those bits (the tests compare counts exactly).

    Parameters
    ----------
    key : key
    lam : float or array broadcasting to ``shape``
    shape : tuple of int, default ``lam.shape``
    dtype : integer dtype, default int64

    Examples
    --------
    >>> int(poisson(PRNGKey(0), np.array([0.0, 3.0, 1000.0]))[0])
    0
    >>> bool(abs(poisson(PRNGKey(1), 4.0, (2000,)).mean() - 4.0) < 0.2)
    True
    """
    key = _check_key("poisson", key)
    dtype = _int_dtype("poisson", dtype)
    lam = tnp.asarray(lam)
    shape = lam.shape if shape is None else _shape("poisson", shape)
    _check_shape("poisson", shape, lam.shape)
    lam = tnp.astype(tnp.broadcast_to(lam, shape), tnp.float32)
    use_knuth = tnp.isnan(lam) | (lam < _KNUTH_BELOW)
    # Each method runs on every element: the other's elements get a rate its loop ends quickly on.
    lam_knuth = tnp.where(use_knuth, lam, np.float32(0.0))
    lam_rejection = tnp.where(use_knuth, np.float32(1e5), lam)
    result = tnp.where(use_knuth, _poisson_knuth(key, lam_knuth, dtype), _poisson_rejection(key, lam_rejection, dtype))
    return tnp.where(lam == 0, tnp.zeros_like(result), result)


@_takes_key
def geometric(key, p, shape=None, dtype=None):
    """Geometric random counts (trials to the first success, from 1) of success probability ``p``.

    ``floor(log(u) / log1p(-p)) + 1``; agrees with JAX where the quotient
    does not round across an integer (``log1p`` differs from XLA's in the last bits).

    Examples
    --------
    >>> bool(geometric(PRNGKey(0), 0.25, (100,)).min() >= 1)
    True
    """
    key = _check_key("geometric", key)
    dtype = _int_dtype("geometric", dtype)
    p = tnp.asarray(p)
    shape = _sample_shape("geometric", shape, p)
    p = tnp.astype(p, dtypes.float_of(p.dtype))
    u = _uniform(key, shape, p.dtype)
    # u = 0 is mapped to 1 (JAX's choice, which keeps log finite and the other samples unchanged).
    log_u = tnp.log(tnp.where(u == 0, np.asarray(1.0, p.dtype), u))
    return tnp.astype(tnp.floor(log_u / tnp.broadcast_to(tnp.log1p(-p), shape)) + 1, dtype)


# Stirling's series' remainders log k! - (k + 1/2) log(k + 1) + (k + 1) - log(2 pi) / 2 for k = 0..9 (JAX's table).
_STIRLING_TAILS = (0.0810614667953272, 0.0413406959554092, 0.0276779256849983, 0.02079067210376509,
                   0.0166446911898211, 0.0138761288230707, 0.0118967099458917, 0.0104112652619720,
                   0.00925546218271273, 0.00833056343336287)


def _stirling_approx_tail(k):
    """JAX's ``_stirling_approx_tail``: the table for ``k <= 9``; beyond, the series at ``k`` clipped to 9.

    JAX clips ``k`` before the asymptotic series, so every ``k > 9`` gets the
    series' value at 9; kept, for JAX's samples.
    """
    use_table = k <= 9
    k = tnp.clip(k, 0.0, 9.0)
    kp1sq = (k + 1) * (k + 1)
    approx = (1.0 / 12 - (1.0 / 360 - 1.0 / 1260 / kp1sq) / kp1sq) / (k + 1)
    # A NaN or large k takes the series: index 0 keeps its (unused) table lookup in range.
    index = tnp.astype(tnp.where(use_table, tnp.floor(k), 0.0), tnp.int32)
    return tnp.where(use_table, tnp.take(np.asarray(_STIRLING_TAILS, k.dtype), index), approx)


def _binomial_inversion(key, count, prob, dtype: np.dtype):
    """The number of geometric waiting times that fit in ``count`` trials (for ``count * prob <= 10``)."""
    log1minusprob = tnp.log1p(-prob)

    def wait(state):
        num_geom, geom_sum, key = state
        subkey, key = _unstack(_split(key, (2,)))
        num_geom = tnp.where(geom_sum <= count, num_geom + 1, num_geom)
        geom = tnp.ceil(tnp.log(_uniform(subkey, prob.shape, prob.dtype)) / log1minusprob)
        return num_geom, geom_sum + geom, key

    zeros = tnp.zeros_like(prob)
    num_geom, _, _ = lax.while_loop(lambda state: tnp.any(state[1] <= count), wait, (zeros, zeros, key))
    return tnp.astype(num_geom - 1, dtype)


def _btrs(key, count, prob, dtype: np.dtype):
    """Hörmann's transformed rejection with squeeze (BTRS, 1993) for ``count * prob > 10``: JAX's ``_btrs``.

    One loop over the whole array; as in :func:`_poisson_rejection`, an
    accepted proposal replaces the element's value until the loop ends.
    """
    stddev = tnp.sqrt(count * prob * (1 - prob))
    b = 1.15 + 2.53 * stddev
    a = -0.0873 + 0.0248 * b + 0.01 * prob
    c = count * prob + 0.5
    v_r = 0.92 - 4.2 / b
    r = prob / (1 - prob)
    alpha = (2.83 + 5.1 / b) * stddev
    m = tnp.floor((count + 1) * prob)

    def propose(state):
        k_out, accepted, key = state
        key, key_u, key_v = _unstack(_split(key, (3,)))
        u = _uniform(key_u, prob.shape, prob.dtype) - 0.5
        v = _uniform(key_v, prob.shape, prob.dtype)
        us = 0.5 - tnp.abs(u)
        accept1 = (us >= 0.07) & (v <= v_r)
        k = tnp.floor((2 * a / us + b) * u + c)
        reject = (k < 0) | (k > count)
        v = tnp.log(v * alpha / (a / (us * us) + b))
        upper_bound = ((m + 0.5) * tnp.log((m + 1) / (r * (count - m + 1)))
                       + (count + 1) * tnp.log((count - m + 1) / (count - k + 1))
                       + (k + 0.5) * tnp.log(r * (count - k + 1) / (k + 1))
                       + _stirling_approx_tail(m) + _stirling_approx_tail(count - m)
                       - _stirling_approx_tail(k) - _stirling_approx_tail(count - k))
        accept = accept1 | (~reject & (v <= upper_bound))
        return tnp.where(accept, k, k_out), accepted | accept, key

    init = (tnp.full(prob.shape, -1.0, prob.dtype), tnp.zeros(prob.shape, tnp.bool_), key)
    k, _, _ = lax.while_loop(lambda state: tnp.any(~state[1]), propose, init)
    return tnp.astype(k, dtype)


@_takes_key
def binomial(key, n, p, shape=None, dtype=None):
    """Binomial random counts of ``n`` trials of success probability ``p`` (as floats, float64 by default).

    As JAX's (and TensorFlow's): with ``q = min(p, 1 - p)``, the inversion
    algorithm where ``n q <= 10`` and BTRS elsewhere, both run over the whole
    array from the same key; counts of ``1 - p`` are flipped to ``n - k``. A
    negative or NaN ``n`` or a NaN or negative ``q`` gives NaN, an infinite
    ``n`` infinity. Counts agree with JAX's where float ``log``/``log1p`` land
    on the same side of each test as XLA's.

    Parameters
    ----------
    key : key
    n, p : float or array broadcasting to ``shape``
    shape : tuple of int, default the broadcast shape of ``n`` and ``p``
    dtype : float dtype, default float64

    Examples
    --------
    >>> bool(abs(binomial(PRNGKey(0), 20.0, 0.3, (2000,)).mean() - 6.0) < 0.2)
    True
    """
    key = _check_key("binomial", key)
    dtype = _float_dtype("binomial", dtype)
    n, p = tnp.asarray(n), tnp.asarray(p)
    shape = _sample_shape("binomial", shape, n, p)
    prob = tnp.broadcast_to(tnp.astype(p, dtypes.float_of(p.dtype)), shape)
    count = tnp.broadcast_to(tnp.astype(n, prob.dtype), shape)
    p_lt_half = prob < 0.5
    q = tnp.where(p_lt_half, prob, 1.0 - prob)
    count_nan_or_neg = tnp.isnan(count) | (count < 0.0)
    count_inf = tnp.isinf(count)
    q_is_nan, q_l_0 = tnp.isnan(q), q < 0.0
    q = tnp.where(q_is_nan | q_l_0, np.asarray(0.01, q.dtype), q)
    use_inversion = count_nan_or_neg | (count * q <= 10.0)
    count = tnp.floor(count)  # a fractional count is rounded down, as numpy's
    # Each method runs on every element: the other's elements get parameters its loop ends quickly on.
    count_inv = tnp.where(use_inversion, count, np.asarray(0.0, count.dtype))
    count_btrs = tnp.where(use_inversion, np.asarray(1e4, count.dtype), count)
    q_btrs = tnp.where(use_inversion, np.asarray(0.5, q.dtype), q)
    samples = tnp.where(use_inversion, _binomial_inversion(key, count_inv, q, dtype),
                        _btrs(key, count_btrs, q_btrs, dtype))
    invalid = q_l_0 | q_is_nan | count_nan_or_neg
    samples = tnp.where(invalid, np.asarray(np.nan, dtype), samples)
    samples = tnp.where(count_inf & ~invalid, np.asarray(np.inf, dtype), samples)
    return tnp.where(p_lt_half | count_nan_or_neg | q_is_nan | count_inf, samples,
                     tnp.astype(count, dtype) - samples)


@_takes_key
def multinomial(key, n, p, *, shape=None, dtype=None, unroll: int | bool = 1):
    """Multinomial counts of ``n`` trials over the outcomes of probabilities ``p`` (outcomes on the last axis).

    As JAX's: a scan over the outcomes, each drawing a :func:`binomial` count
    of the trials left, with the outcome's share of the probability left.

    Parameters
    ----------
    key : key
    n : float or array broadcasting to ``shape[:-1]``
    p : array of shape ``(..., k)``
    shape : tuple of int, default ``p.shape``
        The result's shape, outcomes included (``p`` is broadcast to it, as
        JAX 0.10.2 does).
    dtype : dtype of the counts, default float64
    unroll : int or bool
        JAX's unrolling of its scan; tensorad's loop is not unrolled, so it
        changes nothing here.

    Examples
    --------
    >>> x = multinomial(PRNGKey(0), 10.0, np.array([0.2, 0.3, 0.5]), shape=(4, 3))
    >>> x.shape, bool((x.sum(-1) == 10.0).all())
    ((4, 3), True)
    """
    key = _check_key("multinomial", key)
    common = dtypes.float_of(dtypes.result_type(n, p))  # Python numbers weakly typed, as JAX's promotion
    n, p = tnp.astype(tnp.asarray(n), common), tnp.astype(tnp.asarray(p), common)
    shape = p.shape if shape is None else _shape("multinomial", shape)
    if not shape:
        raise ValueError("multinomial: p needs an axis of outcomes")
    _check_shape("multinomial", shape, p.shape)
    _check_shape("multinomial", shape[:-1], n.shape)
    dtype = dtypes.check_supported(np.float64 if dtype is None else dtype)
    n, p = tnp.broadcast_to(n, shape[:-1]), tnp.moveaxis(tnp.broadcast_to(p, shape), -1, 0)
    remaining = lax.cumsum(p, 0, reverse=True)
    ratios = p / tnp.where(remaining == 0, tnp.ones_like(remaining), remaining)

    def draw(trials_left, ratio_and_key):
        ratio, outcome_key = ratio_and_key
        count = binomial(outcome_key, trials_left, tnp.clip(ratio, 0, 1), dtype=trials_left.dtype)
        return trials_left - count, count

    _, counts = lax.scan(draw, n, (ratios, _split(key, (ratios.shape[0],))))
    return tnp.astype(tnp.moveaxis(counts, 0, -1), dtype)


# ----------------------------------------------------------------------------
# Transformations of uniform and normal values
# ----------------------------------------------------------------------------

@_takes_key
def pareto(key, b, shape=None, dtype=None):
    """Pareto random values of shape ``b`` (support ``x >= 1``): ``exp(e / b)`` of an exponential ``e``.

    Examples
    --------
    >>> bool(pareto(PRNGKey(0), 3.0, (100,)).min() >= 1.0)
    True
    """
    key = _check_key("pareto", key)
    dtype = _float_dtype("pareto", dtype)
    (b,) = _cast_params("pareto", dtype, b)
    return tnp.exp(_exponential(key, _sample_shape("pareto", shape, b), dtype) / b)


@_takes_key
def weibull_min(key, scale, concentration, shape=(), dtype=None):
    """Weibull random values: ``scale * (-log1p(-u))^(1 / concentration)`` (the inverse CDF).

    ``shape`` is not checked against the parameters' shapes: as JAX's, the
    result has their broadcast shape.

    Examples
    --------
    >>> bool(weibull_min(PRNGKey(0), 2.0, 1.5, (100,)).min() > 0.0)
    True
    """
    key = _check_key("weibull_min", key)
    shape, dtype = _shape("weibull_min", shape), _float_dtype("weibull_min", dtype)
    u = _uniform(key, shape, dtype)
    return tnp.power(-tnp.log1p(-u), 1.0 / concentration) * scale


def _maxwell(key, shape: tuple, dtype: np.dtype):
    x = _normal_real(key, shape + (3,), dtype)
    return tnp.sqrt(tnp.sum(x * x, axis=-1))


@_takes_key
def maxwell(key, shape=(), dtype=None):
    """One-sided Maxwell random values: the length of a standard normal 3-vector.

    Examples
    --------
    >>> bool(maxwell(PRNGKey(0), (100,)).min() > 0.0)
    True
    """
    key = _check_key("maxwell", key)
    return _maxwell(key, _shape("maxwell", shape), _float_dtype("maxwell", dtype))


@_takes_key
def double_sided_maxwell(key, loc, scale, shape=(), dtype=None):
    """Double-sided Maxwell random values: ``±M * scale + loc`` of a Maxwell ``M`` and a random sign.

    As JAX's, the result's shape is ``shape + s`` for the broadcast shape
    ``s`` of ``loc`` and ``scale`` (``s + s`` for an empty ``shape``).

    Examples
    --------
    >>> double_sided_maxwell(PRNGKey(0), 0.0, 1.0, (3,)).shape
    (3,)
    """
    key = _check_key("double_sided_maxwell", key)
    shape, dtype = _shape("double_sided_maxwell", shape), _float_dtype("double_sided_maxwell", dtype)
    params_shape = _sample_shape("double_sided_maxwell", None, loc, scale)
    shape = (shape or params_shape) + params_shape
    maxwell_key, sign_key = _unstack(_split(key, (2,)))
    return rademacher(sign_key, shape, dtype) * _maxwell(maxwell_key, shape, dtype) * scale + loc


@_takes_key
def rayleigh(key, scale, shape=None, dtype=None):
    """Rayleigh random values: ``scale * sqrt(-2 log u)``.

    Examples
    --------
    >>> bool(rayleigh(PRNGKey(0), 2.0, (100,)).min() > 0.0)
    True
    """
    key = _check_key("rayleigh", key)
    dtype = _float_dtype("rayleigh", dtype)
    (scale,) = _cast_params("rayleigh", dtype, scale)
    shape = _sample_shape("rayleigh", shape, scale)
    u = _uniform(key, shape, dtype)
    return tnp.broadcast_to(scale, shape) * tnp.sqrt(tnp.log(u) * np.asarray(-2.0, dtype))


@_takes_key
def wald(key, mean, shape=None, dtype=None):
    """Wald (inverse Gaussian, unit shape) random values of mean ``mean`` (Michael, Schucany and Haas, 1976).

    Examples
    --------
    >>> bool(abs(wald(PRNGKey(0), 2.0, (4000,)).mean() - 2.0) < 0.2)
    True
    """
    key = _check_key("wald", key)
    dtype = _float_dtype("wald", dtype)
    (mean,) = _cast_params("wald", dtype, mean)
    shape = _sample_shape("wald", shape, mean)
    normal_key, uniform_key = _unstack(_split(key, (2,)))
    mean = tnp.broadcast_to(mean, shape)
    v = _normal_real(normal_key, shape, dtype)
    y = v * v
    z = _uniform(uniform_key, shape, dtype)
    mean_sq = mean * mean
    x = mean + mean_sq * y / 2 - mean / 2 * tnp.sqrt(4 * mean * y + mean_sq * (y * y))
    return tnp.where(z <= mean / (mean + x), x, mean_sq / x)


@_takes_key
def triangular(key, left, mode, right, shape=None, dtype=None):
    """Triangular random values on ``[left, right]`` peaking at ``mode`` (the inverse CDF).

    Examples
    --------
    >>> x = triangular(PRNGKey(0), 0.0, 1.0, 4.0, (100,))
    >>> bool(x.min() >= 0.0 and x.max() <= 4.0)
    True
    """
    key = _check_key("triangular", key)
    dtype = _float_dtype("triangular", dtype)
    left, mode, right = _cast_params("triangular", dtype, left, mode, right)
    shape = _sample_shape("triangular", shape, left, mode, right)
    left, mode, right = (tnp.broadcast_to(v, shape) for v in (left, mode, right))
    fc = (mode - left) / (right - left)
    u = _uniform(key, shape, dtype)
    out1 = left + tnp.sqrt(u * (right - left) * (mode - left))
    out2 = right - tnp.sqrt((1 - u) * (right - left) * (right - mode))
    return tnp.where(u < fc, out1, out2)


@_takes_key
def lognormal(key, sigma=1.0, shape=None, dtype=None):
    """Log-normal random values: ``exp(sigma * z)`` of a standard normal ``z`` (complex dtypes too).

    Examples
    --------
    >>> bool(lognormal(PRNGKey(0), 0.5, (100,)).min() > 0.0)
    True
    """
    key = _check_key("lognormal", key)
    dtype = _float_dtype("lognormal", dtype, complex_ok=True)
    (sigma,) = _cast_params("lognormal", dtype, sigma)
    return tnp.exp(normal(key, _sample_shape("lognormal", shape, sigma), dtype) * sigma)


def clone(key):
    """The key itself: JAX's ``clone`` marks a key for reuse under its key-reuse checker, which tensorad has not.

    Examples
    --------
    >>> clone(PRNGKey(3))
    array([0, 3], dtype=int32)
    """
    return key
