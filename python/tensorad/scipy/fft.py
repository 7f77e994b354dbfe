"""``tensorad.scipy.fft``: the discrete cosine transforms of ``jax.scipy.fft``.

``dct``/``dctn`` and their inverses ``idct``/``idctn``, type 2 only and
``norm`` ``None``/``"backward"`` or ``"ortho"``, as JAX 0.10.2: each axis
is one complex FFT of the even samples followed by the odd ones reversed
(Makhoul's reordering), twiddled by ``exp(-i pi k / 2N)``. Complex inputs
transform their real and imaginary parts; integers compute in float64.
``n`` (``s``) crops or zero-pads the axis first.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy import fft
>>> np.round(ta.jit(fft.dct)(np.array([1.0, 1.0, 1.0])), 12)
array([6., 0., 0.])
"""

from __future__ import annotations

import math

import numpy as np

from .. import dtypes, lax
from .. import numpy as tnp
from ..tracing import Tracer, emits_ops

__all__ = ["dct", "dctn", "idct", "idctn"]


def _check(name: str, type: int, norm) -> None:  # noqa: A002 (scipy's name)
    if type != 2:
        raise NotImplementedError(f"{name}: only DCT type 2 is implemented")
    if norm not in (None, "backward", "ortho"):
        raise ValueError(f"{name}: norm={norm!r} is not implemented")


def _float(x) -> Tracer:
    x = tnp.asarray(x)
    return tnp.astype(x, dtypes.float_of(x.dtype))


def _resized(x: Tracer, n, axis: int) -> Tracer:
    """``x`` cropped or zero-padded to ``n`` samples along ``axis``."""
    if n is None or n == x.shape[axis]:
        return x
    if n < 1:
        raise ValueError(f"invalid number of data points ({n}) specified")
    if n < x.shape[axis]:
        return tnp.take(x, np.arange(n), axis=axis)
    pad = [(0, 0)] * x.ndim
    pad[axis] = (0, n - x.shape[axis])
    return tnp.pad(x, pad)


def _along(values: np.ndarray, axis: int, ndim: int) -> np.ndarray:
    """The 1-D ``values`` shaped to broadcast along ``axis`` of an ``ndim``-D array."""
    shape = [1] * ndim
    shape[axis] = values.shape[0]
    return values.reshape(shape)


def _ortho_factor(n: int) -> np.ndarray:
    """The per-frequency factor from the backward DCT-II to the orthonormal one."""
    return 1 / np.sqrt(np.r_[4.0, np.full(n - 1, 2.0)] * n)


def _per_part(fn, x: Tracer, *args) -> Tracer:
    """``fn`` of real ``x``, or of the real and imaginary parts of complex ``x``, recombined."""
    if dtypes.is_complex(x.dtype):
        return lax.complex(fn(tnp.real(x), *args), fn(tnp.imag(x), *args))
    return fn(x, *args)


def _dct_axis(x: Tracer, axis: int, ortho: bool) -> Tracer:
    n = x.shape[axis]
    # Even samples, then odd ones reversed: the DCT-II is the real part of this reordering's twiddled FFT.
    order = np.r_[np.arange(0, n, 2), np.arange(1, n, 2)[::-1]]
    spectrum = tnp.fft.fft(tnp.take(x, order, axis=axis), axis=axis)
    twiddle = _along(2 * np.exp(-0.5j * np.pi * np.arange(n) / n), axis, x.ndim)
    out = tnp.real(spectrum * tnp.asarray(twiddle, spectrum.dtype))
    return out * tnp.asarray(_along(_ortho_factor(n), axis, x.ndim), out.dtype) if ortho else out


def _idct_axis(x: Tracer, axis: int, ortho: bool) -> Tracer:
    n = x.shape[axis]
    # The backward inverse is the orthonormal one of x scaled by the orthonormal factor (scipy's 1/2N convention).
    factor = _ortho_factor(n) if ortho else _ortho_factor(n) ** 2
    untwiddle = _along(factor * 2 * n * np.exp(0.5j * np.pi * np.arange(n) / n), axis, x.ndim)
    complex_dtype = np.result_type(x.dtype, np.complex64)
    reordered = tnp.real(tnp.fft.ifft(tnp.astype(x, complex_dtype) * tnp.asarray(untwiddle, complex_dtype),
                                      axis=axis))
    # Undo the even-then-reversed-odd order: sample 2i is entry i, sample 2i + 1 is entry n - 1 - i.
    half = math.ceil(n / 2)
    inverse = np.empty(n, int)
    inverse[0::2] = np.arange(half)
    inverse[1::2] = np.arange(n - 1, half - 1, -1)
    return tnp.take(reordered, inverse, axis=axis)


def _transform_axes(name: str, transform, x, type: int, s, axes, norm) -> Tracer:  # noqa: A002
    _check(name, type, norm)
    x = _float(x)
    if s is not None:
        s = [int(v) for v in np.atleast_1d(s)]
        if len(s) > x.ndim:
            raise ValueError(f"{name}: s must have at most x.ndim ({x.ndim}) elements, got {len(s)}")
    if axes is None:
        axes = range(x.ndim - len(s), x.ndim) if s is not None else range(x.ndim)
    axes = [a % x.ndim for a in np.atleast_1d(np.asarray(axes, int)).tolist()]
    sizes = s if s is not None else [None] * len(axes)
    if len(sizes) != len(axes):
        raise ValueError(f"{name}: s and axes have different lengths ({len(sizes)} and {len(axes)})")

    def real(part: Tracer) -> Tracer:
        for axis, n in zip(axes, sizes):
            part = transform(_resized(part, n, axis), axis, norm == "ortho")
        return part

    return _per_part(real, x)


@emits_ops
def dct(x, type: int = 2, n=None, axis: int = -1, norm=None) -> Tracer:  # noqa: A002
    """The discrete cosine transform (type 2) of ``x`` along ``axis``, as ``scipy.fft.dct``.

    Parameters
    ----------
    x : array_like
    type : int
        Only 2, as JAX.
    n : int, optional
        Crop or zero-pad the axis to ``n`` samples first.
    axis : int
    norm : {None, "backward", "ortho"}

    Examples
    --------
    >>> np.round(dct(np.array([1.0, 2.0, 3.0])), 12) + 0.0  # + 0.0: no -0.
    array([12.        , -3.46410162,  0.        ])
    """
    return _transform_axes("dct", _dct_axis, x, type, None if n is None else [n], [axis], norm)


@emits_ops
def dctn(x, type: int = 2, s=None, axes=None, norm=None) -> Tracer:  # noqa: A002
    """The N-D discrete cosine transform (type 2): :func:`dct` along each of ``axes`` (default: all, or the last
    ``len(s)``), with sizes ``s``.

    Examples
    --------
    >>> np.round(dctn(np.ones((2, 2)), norm="ortho"), 12)
    array([[2., 0.],
           [0., 0.]])
    """
    return _transform_axes("dctn", _dct_axis, x, type, s, axes, norm)


@emits_ops
def idct(x, type: int = 2, n=None, axis: int = -1, norm=None) -> Tracer:  # noqa: A002
    """The inverse of :func:`dct` (type 2, that is a scaled DCT-III) along ``axis``, as ``scipy.fft.idct``.

    Parameters as :func:`dct`.

    Examples
    --------
    >>> np.round(idct(np.array([12.0, -3.46410162, 0.0])), 6)
    array([1., 2., 3.])
    """
    return _transform_axes("idct", _idct_axis, x, type, None if n is None else [n], [axis], norm)


@emits_ops
def idctn(x, type: int = 2, s=None, axes=None, norm=None) -> Tracer:  # noqa: A002
    """The inverse of :func:`dctn`: :func:`idct` along each of ``axes``.

    Examples
    --------
    >>> np.round(idctn(np.array([[2.0, 0.0], [0.0, 0.0]]), norm="ortho"), 12)
    array([[1., 1.],
           [1., 1.]])
    """
    return _transform_axes("idctn", _idct_axis, x, type, s, axes, norm)
