"""``tensorad.numpy.fft``: ``jax.numpy.fft`` with numpy's semantics, computed by ducc0 (pocketfft's successor).

Every transform is one ``tad.fft`` op (:mod:`tensorad.dialects.families.fft`)
over the transformed axes, moved last; ``n``/``s`` crop or zero-pad the input
as numpy does, and ``norm`` (``"backward"``, ``"ortho"``, ``"forward"``)
scales the result. Derivatives in both modes are the transforms' transposes
(with JAX's correction factors for the real transforms), under JAX's
convention for complex values.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> tnp.fft.rfft(np.array([1.0, 2.0, 3.0, 4.0]))
array([10.+0.j, -2.+2.j, -2.+0.j])
>>> power = lambda x: tnp.sum(tnp.abs(tnp.fft.rfft(x)) ** 2)
>>> ta.grad(power)(np.array([1.0, 2.0, 3.0, 4.0]))
array([12., 20., 20., 28.])
"""

from __future__ import annotations

import numpy as np

from tensorad.dialects.families import fft as fft_ops

from .. import dtypes as _dt
from .. import numpy as tnp
from ..tracing import Tracer, emits_ops

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "fftn", "ifftn", "rfftn", "irfftn",
           "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = (None, "backward", "ortho", "forward")


def _resized(x: Tracer, axis: int, length: int) -> Tracer:
    """``x`` cropped or zero-padded to ``length`` along ``axis``, as numpy's ``n``."""
    have = x.shape[axis]
    if have == length:
        return x
    if have > length:
        index = [slice(None)] * x.ndim
        index[axis] = slice(0, length)
        return x[tuple(index)]
    shape = list(x.shape)
    shape[axis] = length - have
    return tnp.concatenate([x, tnp.zeros(tuple(shape), x.dtype)], axis=axis)


def _input(x, kind: str) -> Tracer:
    """``x`` as the transform reads it: complex (of float32 or float64 parts), or real for ``"RFFT"``."""
    x = tnp.asarray(x)
    real = _dt.real_dtype(x.dtype) if _dt.is_complex(x.dtype) else x.dtype
    if not _dt.is_float(real):
        real = tnp.float64
    if real not in (tnp.float32, tnp.float64):
        raise TypeError(f"fft: {x.dtype.name} arrays are not supported (float32, float64 and their complex types)")
    if kind == "RFFT":
        if _dt.is_complex(x.dtype):
            raise TypeError("fft: rfft takes real input (numpy discards the imaginary part; tensorad refuses it)")
        return tnp.astype(x, real)
    return tnp.astype(x, _dt.complex_of(real))


def _plan(shape: tuple, kind: str, s, axes, one_axis: bool) -> tuple:
    """Normalized (sizes, axes) of a transform of an array of ``shape``, as numpy reads them."""
    rank = len(shape)
    if one_axis:
        axes = (axes,)
        s = None if s is None else (s,)
    elif axes is None:
        axes = tuple(range(rank - (len(s) if s is not None else rank), rank))
    axes = tuple(int(a) for a in axes)
    for a in axes:
        if not -rank <= a < rank:
            raise ValueError(f"fft: axis {a} is out of bounds for an array of dimension {rank}")
    axes = tuple(a % rank for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError(f"fft: repeated axes {axes}")
    if s is None:
        s = [shape[a] for a in axes]
        if kind == "IRFFT":
            s[-1] = 2 * (shape[axes[-1]] - 1)
    s = tuple(int(n) for n in s)
    if len(s) != len(axes):
        raise ValueError(f"fft: s {s} and axes {axes} differ in length")
    if not axes or min(s) < 1:
        raise ValueError(f"fft: invalid number of data points {s} specified")
    return s, axes


@emits_ops
def _transform(x, kind: str, s, axes, norm, one_axis: bool = False) -> Tracer:
    """The transform ``kind`` of ``x`` over ``axes`` (numpy's ``s``/``n``, ``axes``/``axis`` and ``norm``)."""
    if norm not in _NORMS:
        raise ValueError(f"fft: invalid norm {norm!r}; use 'backward', 'ortho' or 'forward'")
    x = _input(x, kind)
    sizes, axes = _plan(x.shape, kind, s, axes, one_axis)
    # The input length of each axis; an inverse real transform reads the half spectrum of the last.
    for axis, size in zip(axes, sizes):
        x = _resized(x, axis, size // 2 + 1 if kind == "IRFFT" and axis == axes[-1] else size)
    order = [d for d in range(x.ndim) if d not in axes] + list(axes)
    x = tnp.transpose(x, order)
    out = Tracer.of(fft_ops.fft(x.value, kind, sizes))
    out = tnp.transpose(out, list(np.argsort(order)))
    points = float(np.prod(sizes))
    inverse = kind in ("IFFT", "IRFFT")
    scale = {None: 1.0, "backward": 1.0, "ortho": points ** 0.5 if inverse else points ** -0.5,
             "forward": points if inverse else 1.0 / points}[norm]
    return out if scale == 1.0 else out * scale


def _one_axis(kind: str, name: str, summary: str, example: str):
    def fn(a, n=None, axis=-1, norm=None):
        return _transform(a, kind, n, axis, norm, one_axis=True)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary} along ``axis``, as ``numpy.fft.{name}`` (``n`` crops or zero-pads).\n\n"
                  f"    Examples\n    --------\n{example}")
    return fn


def _many_axes(kind: str, name: str, summary: str, example: str, default_axes=None):
    def fn(a, s=None, axes=default_axes, norm=None):
        return _transform(a, kind, s, axes, norm)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}, as ``numpy.fft.{name}`` (``s`` crops or zero-pads).\n\n"
                  f"    Examples\n    --------\n{example}")
    return fn


fft = _one_axis("FFT", "fft", "The discrete Fourier transform", """\
    >>> fft(np.array([1.0, 0.0, -1.0, 0.0]))
    array([0.+0.j, 2.+0.j, 0.+0.j, 2.+0.j])
""")
ifft = _one_axis("IFFT", "ifft", "The inverse discrete Fourier transform", """\
    >>> ifft(np.array([4.0, 0.0, 0.0, 0.0]))
    array([1.+0.j, 1.+0.j, 1.+0.j, 1.+0.j])
""")
rfft = _one_axis("RFFT", "rfft", "The discrete Fourier transform of real input (non-negative frequencies)", """\
    >>> rfft(np.array([1.0, 1.0, 1.0, 1.0]), norm="ortho")
    array([2.+0.j, 0.+0.j, 0.+0.j])
""")
irfft = _one_axis("IRFFT", "irfft", "The inverse of ``rfft``: a real signal of ``n`` points", """\
    >>> irfft(np.array([3.0, 0.0]), n=3)
    array([1., 1., 1.])
""")
fftn = _many_axes("FFT", "fftn", "The n-dimensional discrete Fourier transform", """\
    >>> fftn(np.ones((2, 2)))
    array([[4.+0.j, 0.+0.j],
           [0.+0.j, 0.+0.j]])
""")
ifftn = _many_axes("IFFT", "ifftn", "The n-dimensional inverse discrete Fourier transform", """\
    >>> ifftn(np.array([[4.0, 0.0], [0.0, 0.0]]))
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]])
""")
rfftn = _many_axes("RFFT", "rfftn", "The n-dimensional discrete Fourier transform of real input", """\
    >>> rfftn(np.ones((2, 4))).shape
    (2, 3)
""")
irfftn = _many_axes("IRFFT", "irfftn", "The inverse of ``rfftn``", """\
    >>> irfftn(np.array([[8.0, 0.0, 0.0], [0.0, 0.0, 0.0]]))
    array([[1., 1., 1., 1.],
           [1., 1., 1., 1.]])
""")
fft2 = _many_axes("FFT", "fft2", "The 2-dimensional discrete Fourier transform", """\
    >>> fft2(np.eye(2))
    array([[2.+0.j, 0.+0.j],
           [0.+0.j, 2.+0.j]])
""", (-2, -1))
ifft2 = _many_axes("IFFT", "ifft2", "The 2-dimensional inverse discrete Fourier transform", """\
    >>> ifft2(np.array([[4.0, 0.0], [0.0, 0.0]]))
    array([[1.+0.j, 1.+0.j],
           [1.+0.j, 1.+0.j]])
""", (-2, -1))
rfft2 = _many_axes("RFFT", "rfft2", "The 2-dimensional discrete Fourier transform of real input", """\
    >>> rfft2(np.ones((3, 4))).shape
    (3, 3)
""", (-2, -1))
irfft2 = _many_axes("IRFFT", "irfft2", "The inverse of ``rfft2``", """\
    >>> irfft2(np.array([[4.0, 0.0], [0.0, 0.0]]))
    array([[1., 1.],
           [1., 1.]])
""", (-2, -1))


# ----------------------------------------------------------------------------
# Frequencies and shifts
# ----------------------------------------------------------------------------

@emits_ops
def fftfreq(n: int, d=1.0, *, dtype=None) -> Tracer:
    """Sample frequencies of an ``n``-point transform with sample spacing ``d`` (which may be traced).

    Examples
    --------
    >>> fftfreq(4, 0.5)
    array([ 0. ,  0.5, -1. , -0.5])
    """
    unit = tnp.asarray(np.fft.fftfreq(int(n)).astype(dtype or np.float64))
    return unit / d


@emits_ops
def rfftfreq(n: int, d=1.0, *, dtype=None) -> Tracer:
    """Sample frequencies of ``rfft``'s result (non-negative ones).

    Examples
    --------
    >>> rfftfreq(4)
    array([0.  , 0.25, 0.5 ])
    """
    unit = tnp.asarray(np.fft.rfftfreq(int(n)).astype(dtype or np.float64))
    return unit / d


def _roll(x: Tracer, shifts: dict) -> Tracer:
    """``x`` rolled by ``shifts[axis]`` along each axis (slices and a concatenation per axis)."""
    for axis, shift in shifts.items():
        n = x.shape[axis]
        shift %= max(n, 1)
        if shift:
            head = [slice(None)] * x.ndim
            tail = [slice(None)] * x.ndim
            head[axis], tail[axis] = slice(n - shift, n), slice(0, n - shift)
            x = tnp.concatenate([x[tuple(head)], x[tuple(tail)]], axis=axis)
    return x


def _axes_tuple(axes, ndim: int) -> tuple:
    axes = (axes,) if isinstance(axes, (int, np.integer)) else tuple(axes)
    return tuple(int(a) % ndim for a in axes)


@emits_ops
def _shifted(x, axes, sign: int) -> Tracer:
    """``x`` rolled by ``sign * (n // 2)`` along ``axes`` (all by default)."""
    x = tnp.asarray(x)
    axes = tuple(range(x.ndim)) if axes is None else _axes_tuple(axes, x.ndim)
    return _roll(x, {a: sign * (x.shape[a] // 2) for a in axes})


def fftshift(x, axes=None):
    """Move the zero frequency to the center (along ``axes``, all by default).

    Examples
    --------
    >>> fftshift(np.array([0.0, 1.0, 2.0, -2.0, -1.0]))
    array([-2., -1.,  0.,  1.,  2.])
    """
    return _shifted(x, axes, 1)


def ifftshift(x, axes=None):
    """The inverse of :func:`fftshift`.

    Examples
    --------
    >>> ifftshift(np.array([-2.0, -1.0, 0.0, 1.0, 2.0]))
    array([ 0.,  1.,  2., -2., -1.])
    """
    return _shifted(x, axes, -1)


# The Hermitian transforms are the real ones the other way round: numpy's norm modes swap with the direction.
_SWAPPED_NORM = {None: "forward", "backward": "forward", "forward": "backward", "ortho": "ortho"}


def _swapped(norm):
    if norm not in _SWAPPED_NORM:
        raise ValueError(f'Invalid norm value {norm}; should be "backward", "ortho" or "forward".')
    return _SWAPPED_NORM[norm]


def hfft(a, n=None, axis=-1, norm=None):
    """The FFT of a signal with Hermitian symmetry (given by its non-negative frequencies): a real spectrum.

    ``irfft(conj(a), n)`` with the norm's direction swapped, as numpy's.

    Examples
    --------
    >>> hfft(np.array([1.0, 2.0, 3.0]))
    array([ 8., -2.,  0., -2.])
    """
    return irfft(tnp.conj(_input(a, "FFT")), n, axis, _swapped(norm))


def ihfft(a, n=None, axis=-1, norm=None):
    """The inverse of :func:`hfft`: ``conj(rfft(a, n))`` with the norm's direction swapped, as numpy's.

    Examples
    --------
    >>> ihfft(np.array([8.0, -2.0, 0.0, -2.0]))
    array([1.-0.j, 2.-0.j, 3.-0.j])
    """
    return tnp.conj(rfft(a, n, axis, _swapped(norm)))
