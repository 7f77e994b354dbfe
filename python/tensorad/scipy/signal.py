"""``tensorad.scipy.signal``: ``jax.scipy.signal`` over traced arrays.

Convolutions and correlations (``convolve``, ``correlate``, their 2-D
forms, ``fftconvolve``), ``detrend`` and the spectral estimators ``csd``,
``welch``, ``stft`` and ``istft``, with JAX's names, defaults and dtypes:
integer inputs compute in float64, ``method="auto"`` is the direct method
(``lax.conv_general_dilated``), ``convolve2d`` knows only ``boundary="fill"``
with ``fillvalue=0``, and ``precision`` is accepted and ignored. Complex
direct convolutions are built from the real and imaginary parts, all four
products in one real convolution (``tad.conv2d`` is real). Windows other
than ``"hann"`` come from ``scipy.signal.get_window`` as constants.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy import signal
>>> ta.jit(signal.convolve)(np.array([1.0, 2.0, 3.0]), np.array([1.0, 1.0]))
array([1., 3., 5., 3.])
"""

from __future__ import annotations

import warnings

import numpy as np

from .. import dtypes, lax
from .. import numpy as tnp
from ..tracing import Tracer, emits_ops

__all__ = ["convolve", "convolve2d", "correlate", "correlate2d", "csd", "detrend", "fftconvolve", "istft", "stft",
           "welch"]

_MODES = ("full", "same", "valid")


def _inexact(*arrays) -> list:
    """``arrays`` as traced arrays of their common float or complex dtype (integers and booleans: float64)."""
    arrays = [tnp.asarray(a) for a in arrays]
    dtype = dtypes.float_of(dtypes.result_type(*arrays))
    return [tnp.astype(a, dtype) for a in arrays]


def _check_mode(name: str, mode: str) -> None:
    if mode not in _MODES:
        raise ValueError(f"{name}: mode must be one of {list(_MODES)}, got {mode!r}")


def _cross_correlation(x: Tracer, w: Tracer, padding: list) -> Tracer:
    """``lax.conv_general_dilated`` of one signal ``x`` with one kernel ``w`` (no flip), zero ``padding``.

    ``tad.conv2d`` is real: complex operands go in as a batch of two parts
    (real, imaginary) against two output features, so that ``p[i, j]`` is
    part ``i`` of ``x`` with part ``j`` of ``w`` and one convolution gives
    the four products of ``(a + ib)(c + id)``.
    """
    strides = (1,) * x.ndim
    if not dtypes.is_complex(x.dtype):
        return lax.conv_general_dilated(x[None, None], w[None, None], strides, padding)[0, 0]
    xs = tnp.stack([tnp.real(x), tnp.imag(x)])[:, None]
    ws = tnp.stack([tnp.real(w), tnp.imag(w)])[:, None]
    p = lax.conv_general_dilated(xs, ws, strides, padding)
    return lax.complex(p[0, 0] - p[1, 1], p[0, 1] + p[1, 0])


def _convolve_nd(name: str, in1, in2, mode: str) -> Tracer:
    """The direct N-D convolution, as JAX's (``"same"`` is centred on ``in1`` even when the inputs swap)."""
    _check_mode(name, mode)
    in1, in2 = _inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"{name}: in1 and in2 must have the same number of dimensions, got shapes "
                         f"{in1.shape} and {in2.shape}")
    if in1.size == 0 or in2.size == 0:
        raise ValueError(f"{name}: zero-size arrays are not supported, got shapes {in1.shape} and {in2.shape}")
    no_swap = all(s1 >= s2 for s1, s2 in zip(in1.shape, in2.shape))
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    if not (no_swap or swap):
        raise ValueError(f"{name}: one input must be smaller than the other in every dimension, got shapes "
                         f"{in1.shape} and {in2.shape}")
    shape_o = in2.shape
    if swap:
        in1, in2 = in2, in1
    shape = in2.shape
    padding = {"valid": [(0, 0) for _ in shape],
               "same": [(s - 1 - (s_o - 1) // 2, s - s_o + (s_o - 1) // 2) for s, s_o in zip(shape, shape_o)],
               "full": [(s - 1, s - 1) for s in shape]}[mode]
    return _cross_correlation(in1, tnp.flip(in2), padding)


def _conj(x: Tracer) -> Tracer:
    return tnp.conj(x) if dtypes.is_complex(x.dtype) else x


@emits_ops
def fftconvolve(in1, in2, mode: str = "full", axes=None) -> Tracer:
    """Convolve two N-D arrays through FFTs (``rfftn`` for real inputs), along ``axes`` (default: all).

    Parameters
    ----------
    in1, in2 : array_like
        Of one rank; along axes not in ``axes`` their sizes must agree.
    mode : {"full", "same", "valid"}
        The full convolution, its part centred with ``in1``'s shape, or the
        part where the inputs overlap fully.
    axes : int or sequence of int, optional

    Returns
    -------
    Tracer
        Integers compute in float64; the result is real for real inputs.

    Examples
    --------
    >>> np.round(fftconvolve(np.array([1.0, 2.0, 3.0, 2.0, 1.0]), np.ones(3), mode="same"), 12)
    array([3., 6., 7., 6., 3.])
    """
    _check_mode("fftconvolve", mode)
    in1, in2 = _inexact(in1, in2)
    if in1.ndim != in2.ndim:
        raise ValueError(f"fftconvolve: in1 and in2 should have the same dimensionality, got shapes {in1.shape} "
                         f"and {in2.shape}")
    axes = tuple(range(in1.ndim)) if axes is None else \
        tuple(sorted({a % in1.ndim for a in np.atleast_1d(np.asarray(axes, int)).tolist()}))
    if any(in1.shape[a] != in2.shape[a] for a in range(in1.ndim) if a not in axes):
        raise ValueError(f"fftconvolve: mapped axes must have the same shape; got {in1.shape} and {in2.shape} "
                         f"with axes={axes}")
    sizes1, sizes2 = [in1.shape[a] for a in axes], [in2.shape[a] for a in axes]
    if mode == "valid":
        no_swap = all(s1 >= s2 for s1, s2 in zip(sizes1, sizes2))
        swap = all(s1 <= s2 for s1, s2 in zip(sizes1, sizes2))
        if not (no_swap or swap):
            raise ValueError("fftconvolve: for 'valid' mode, one input must be at least as large as the other in "
                             "every dimension")
        if swap:
            in1, in2, sizes1, sizes2 = in2, in1, sizes2, sizes1
    full = [s1 + s2 - 1 for s1, s2 in zip(sizes1, sizes2)]
    if all(s1 == 1 or s2 == 1 for s1, s2 in zip(sizes1, sizes2)):
        # No axis has two samples on both sides: the convolution is the broadcast product.
        conv = in1 * in2
    elif dtypes.is_complex(in1.dtype):
        conv = tnp.fft.ifftn(tnp.fft.fftn(in1, full, axes) * tnp.fft.fftn(in2, full, axes), full, axes)
    else:
        conv = tnp.fft.irfftn(tnp.fft.rfftn(in1, full, axes) * tnp.fft.rfftn(in2, full, axes), full, axes)
    out = {"full": full, "same": sizes1, "valid": [s1 - s2 + 1 for s1, s2 in zip(sizes1, sizes2)]}[mode]
    index = [slice(None)] * conv.ndim
    for a, f, o in zip(axes, full, out):
        index[a] = slice((f - o) // 2, (f - o) // 2 + o)
    return conv[tuple(index)]


@emits_ops
def convolve(in1, in2, mode: str = "full", method: str = "auto", precision=None) -> Tracer:
    """The N-D convolution of ``in1`` and ``in2`` (of one rank), as ``scipy.signal.convolve``.

    Parameters
    ----------
    in1, in2 : array_like
        One must be at least as large as the other in every dimension.
    mode : {"full", "same", "valid"}
        ``"same"`` is centred with ``in1``'s shape.
    method : {"auto", "direct", "fft"}
        ``"auto"`` is ``"direct"``, as in JAX; ``"fft"`` is :func:`fftconvolve`.
    precision : None
        Accepted for JAX's signature.

    Returns
    -------
    Tracer
        Integers compute in float64.

    Examples
    --------
    >>> convolve(np.array([1, 2, 3, 2, 1]), np.array([1, 1, 1]), mode="same")
    array([3., 6., 7., 6., 3.])
    """
    if method == "fft":
        return fftconvolve(in1, in2, mode=mode)
    if method not in ("auto", "direct"):
        raise ValueError(f"convolve: got method={method!r}; expected 'auto', 'fft', or 'direct'")
    return _convolve_nd("convolve", in1, in2, mode)


def _check_2d(name: str, in1, in2, boundary: str, fillvalue) -> None:
    if boundary != "fill" or fillvalue != 0:
        raise NotImplementedError(f"{name}() only supports boundary='fill', fillvalue=0")
    if np.ndim(in1) != 2 or np.ndim(in2) != 2:
        raise ValueError(f"{name}() only supports 2-dimensional inputs, got shapes {np.shape(in1)} and "
                         f"{np.shape(in2)}")


@emits_ops
def convolve2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None) -> Tracer:
    """The 2-D convolution of ``in1`` and ``in2``, as ``scipy.signal.convolve2d`` (only ``boundary="fill"``,
    ``fillvalue=0``, as JAX).

    Examples
    --------
    >>> convolve2d(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 1.0]]))
    array([[1., 3., 2.],
           [3., 7., 4.]])
    """
    _check_2d("convolve2d", in1, in2, boundary, fillvalue)
    return _convolve_nd("convolve2d", in1, in2, mode)


@emits_ops
def correlate(in1, in2, mode: str = "full", method: str = "auto", precision=None) -> Tracer:
    """The N-D cross-correlation of ``in1`` and ``in2``: their convolution with ``in2`` conjugated and flipped.

    Parameters as :func:`convolve`.

    Examples
    --------
    >>> correlate(np.array([1.0, 2.0, 3.0, 2.0, 1.0]), np.array([1.0, 3.0, 2.0]), mode="valid")
    array([13., 15., 11.])
    """
    in2 = tnp.asarray(in2)
    return convolve(in1, tnp.flip(_conj(in2)), mode, method=method)


@emits_ops
def correlate2d(in1, in2, mode: str = "full", boundary: str = "fill", fillvalue=0, precision=None) -> Tracer:
    """The 2-D cross-correlation of ``in1`` and ``in2``, as ``scipy.signal.correlate2d`` (only
    ``boundary="fill"``, ``fillvalue=0``, as JAX).

    Examples
    --------
    >>> correlate2d(np.array([[2.0, 1.0], [1.0, 3.0]]), np.array([[1.0, 2.0]]), mode="same")
    array([[4., 1.],
           [7., 3.]])
    """
    _check_2d("correlate2d", in1, in2, boundary, fillvalue)
    in1, in2 = _inexact(in1, in2)
    swap = all(s1 <= s2 for s1, s2 in zip(in1.shape, in2.shape))
    same_shape = in1.shape == in2.shape
    # scipy keeps in1's frame: when in2 is the larger one the correlation runs the other way, so the
    # inputs trade places (in2's reversal, in1 conjugated) instead of flipping the output.
    if mode != "same" and swap and not (mode == "valid" and same_shape):
        result = _convolve_nd("correlate2d", tnp.flip(in2), _conj(in1), mode)
        return _conj(result) if mode == "full" else result
    return tnp.flip(_convolve_nd("correlate2d", tnp.flip(in1), _conj(in2), mode))


def _linear_residual(segment: Tracer) -> Tracer:
    """``segment`` (along axis 0) less its least-squares line, in closed form (centred slope)."""
    n = segment.shape[0]
    t = np.arange(1, n + 1, dtype=np.float64) / n
    t = t - t.mean()
    denominator = float(np.sum(t * t)) or 1.0  # One sample: no slope, and the residual is 0 anyway.
    t = tnp.asarray(t.reshape((n,) + (1,) * (segment.ndim - 1)), dtypes.float_of(tnp.real(segment).dtype))
    centred = segment - tnp.mean(segment, axis=0, keepdims=True)
    slope = tnp.sum(t * centred, axis=0, keepdims=True) / denominator
    return centred - slope * t


@emits_ops
def detrend(data, axis: int = -1, type: str = "linear", bp=0, overwrite_data=None) -> Tracer:  # noqa: A002
    """``data`` less its least-squares line (``type="linear"``, piecewise between the breakpoints ``bp``) or
    its mean (``"constant"``) along ``axis``.

    Parameters
    ----------
    data : array_like
    axis : int
    type : {"linear", "constant"}
    bp : int or sequence of int
        Breakpoints in ``[0, data.shape[axis]]``.
    overwrite_data : None
        Not supported (JAX's ``NotImplementedError`` otherwise).

    Examples
    --------
    >>> np.round(detrend(np.array([1.0, 4.0, 8.0, 8.0, 9.0])), 12) + 0.0
    array([-1.,  0.,  2.,  0., -1.])
    """
    if overwrite_data is not None:
        raise NotImplementedError("detrend: the overwrite_data argument is not implemented")
    if type not in ("constant", "linear"):
        raise ValueError(f"detrend: trend type must be 'linear' or 'constant', got {type!r}")
    (data,) = _inexact(data)
    if type == "constant":
        return data - tnp.mean(data, axis=axis, keepdims=True)
    n = data.shape[axis]
    breaks = np.sort(np.unique(np.r_[0, bp, n]))
    if breaks[0] < 0 or breaks[-1] > n:
        raise ValueError("detrend: breakpoints must be non-negative and less than the length of data along the "
                         "given axis")
    moved = tnp.moveaxis(data, axis, 0)
    pieces = [_linear_residual(moved[lo:hi]) for lo, hi in zip(breaks[:-1], breaks[1:])]
    return tnp.moveaxis(tnp.concatenate(pieces, 0), 0, axis)


def _window(window, nperseg: int, dtype) -> Tracer:
    """The window of ``nperseg`` samples named by ``window`` (a string or tuple), or ``window`` itself."""
    if not isinstance(window, (str, tuple)):
        win = tnp.asarray(window, dtype)
        if win.ndim != 1:
            raise ValueError("window must be 1-D")
        return win
    if window == "hann":
        win = np.ones(1) if nperseg == 1 else np.sin(np.linspace(0, np.pi, nperseg, endpoint=False)) ** 2
    else:
        # Imported here: scipy.signal is slow to import and only named windows need it.
        from scipy.signal import get_window
        win = get_window(window, nperseg)
    return tnp.asarray(win, dtype)


def _odd_extension(x: Tracer, n: int) -> Tracer:
    """``x`` extended by ``n`` samples at both ends of the last axis, point-symmetric about the end samples."""
    if n < 1:
        return x
    if n > x.shape[-1] - 1:
        raise ValueError(f"the extension length n ({n}) is too big: it must not exceed x.shape[axis]-1, which is "
                         f"{x.shape[-1] - 1}")
    left = 2 * x[..., :1] - tnp.flip(x[..., 1:n + 1], -1)
    right = 2 * x[..., -1:] - tnp.flip(x[..., -(n + 1):-1], -1)
    return tnp.concatenate([left, x, right], -1)


def _extend(x: Tracer, n: int, boundary) -> Tracer:
    """``x`` extended by ``n`` samples at both ends of its last axis as stft's ``boundary`` says."""
    if boundary is None:
        return x
    if boundary == "odd":
        return _odd_extension(x, n)
    pad = [(0, 0)] * (x.ndim - 1) + [(n, n)]
    return tnp.pad(x, pad, {"even": "reflect", "constant": "edge", "zeros": "constant"}[boundary])


def _detrend_function(detrend_type):
    if isinstance(detrend_type, str):
        return lambda d: detrend(d, type=detrend_type, axis=-1)
    if callable(detrend_type):
        return detrend_type
    if not detrend_type:
        return lambda d: d
    raise ValueError(f"Unsupported detrend type: {detrend_type}")


def _windowed_fft(x: Tracer, win: Tracer, detrend_func, nperseg: int, noverlap: int, nfft: int,
                  sides: str) -> Tracer:
    """The FFTs of the detrended, windowed segments of the last axis of ``x``: shape ``(..., segments, freqs)``."""
    starts = np.arange(0, x.shape[-1] - nperseg + 1, nperseg - noverlap)
    segments = x[..., starts[:, None] + np.arange(nperseg)]
    segments = detrend_func(segments)
    if dtypes.is_complex(win.dtype) and not dtypes.is_complex(segments.dtype):
        segments = tnp.astype(segments, win.dtype)
    segments = win * segments
    if sides == "twosided":
        return tnp.fft.fft(segments, n=nfft)
    return tnp.fft.rfft(tnp.real(segments), n=nfft)


def _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend_type, return_onesided: bool, scaling: str,
                     axis: int, mode: str, boundary=None, padded: bool = False) -> tuple:
    """scipy's ``_spectral_helper`` as JAX's: ``(freqs, times, result)``; ``y`` is None for auto-spectra."""
    if boundary not in ("even", "odd", "constant", "zeros", None):
        raise ValueError(f"Unknown boundary option {boundary!r}, must be one of: "
                         f"['even', 'odd', 'constant', 'zeros', None]")
    if y is None:
        (x,) = _inexact(x)
        y_arr = x
        outer = x.shape[:axis % x.ndim] + x.shape[axis % x.ndim + 1:]
    else:
        x, y_arr = _inexact(x, y)
        if x.ndim != y_arr.ndim:
            raise ValueError(f"x and y must have the same rank ({x.ndim} vs {y_arr.ndim})")
        axis %= x.ndim
        try:
            outer = np.broadcast_shapes(x.shape[:axis] + x.shape[axis + 1:],
                                        y_arr.shape[:axis] + y_arr.shape[axis + 1:])
        except ValueError as err:
            raise ValueError("x and y cannot be broadcast together.") from err
    axis %= x.ndim
    result_dtype = np.result_type(x.dtype, np.complex64)
    freq_dtype = np.finfo(result_dtype).dtype
    if nperseg is not None and int(nperseg) < 1:
        raise ValueError("nperseg must be a positive integer")
    length = x.shape[axis]
    if isinstance(window, (str, tuple)):
        nperseg = length if nperseg is None else int(nperseg)
        if nperseg > length:
            warnings.warn(f"nperseg={nperseg} is greater than input_length={length}, using nperseg={length}",
                          stacklevel=3)
            nperseg = length
        win = _window(window, nperseg, x.dtype)
    else:
        win = _window(window, nperseg, x.dtype)
        if length < win.shape[0]:
            raise ValueError("window is longer than input signal")
        if nperseg is not None and int(nperseg) != win.shape[0]:
            raise ValueError("value specified for nperseg is different from length of window")
        nperseg = win.shape[0]
    noverlap = nperseg // 2 if noverlap is None else int(noverlap)
    nfft = nperseg if nfft is None else int(nfft)
    if x.size == 0 or y_arr.size == 0:
        shape = x.shape if y is None else outer[:axis] + (min(length, y_arr.shape[axis]),) + outer[axis:]
        return tnp.zeros(shape, freq_dtype), tnp.zeros(shape, freq_dtype), tnp.zeros(shape, result_dtype)
    x = tnp.moveaxis(x, axis, -1)
    if y is not None:
        y_arr = tnp.moveaxis(y_arr, axis, -1)
        # The shorter signal is zero-padded to the longer one's length, as scipy's.
        longest = max(x.shape[-1], y_arr.shape[-1])
        x, y_arr = (tnp.pad(a, [(0, 0)] * (a.ndim - 1) + [(0, longest - a.shape[-1])]) for a in (x, y_arr))
    if nfft < nperseg:
        raise ValueError("nfft must be greater than or equal to nperseg.")
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    step = nperseg - noverlap
    signals = [x] if y is None else [x, y_arr]
    signals = [_extend(s, nperseg // 2, boundary) for s in signals]
    if padded:
        # Zero-pad to a whole number of segments: length nperseg + (segments - 1) * step.
        extra = (-(signals[0].shape[-1] - nperseg) % step) % nperseg
        signals = [tnp.pad(s, [(0, 0)] * (s.ndim - 1) + [(0, extra)]) for s in signals]
    if scaling == "density":
        scale = 1.0 / (fs * tnp.sum(win * win))
    elif scaling == "spectrum":
        scale = 1.0 / tnp.sum(win) ** 2
    else:
        raise ValueError(f"Unknown scaling: {scaling}")
    if mode == "stft":
        scale = tnp.sqrt(scale)
    sides = "onesided" if return_onesided else "twosided"
    if return_onesided and any(dtypes.is_complex(s.dtype) for s in signals):
        sides = "twosided"
        warnings.warn("Input data is complex, switching to return_onesided=False", stacklevel=3)
    freqs = tnp.fft.fftfreq(nfft, 1 / fs, dtype=freq_dtype) if sides == "twosided" else \
        tnp.fft.rfftfreq(nfft, 1 / fs, dtype=freq_dtype)
    detrend_func = _detrend_function(detrend_type)
    spectra = [_windowed_fft(s, win, detrend_func, nperseg, noverlap, nfft, sides) for s in signals]
    if y is not None:
        result = tnp.conj(spectra[0]) * spectra[1]
    elif mode == "psd":
        result = tnp.conj(spectra[0]) * spectra[0]
    else:
        result = spectra[0]
    result = result * tnp.astype(scale, result.dtype)
    if sides == "onesided" and mode == "psd":
        # Negative frequencies fold onto positive ones: double all but DC (and Nyquist for even nfft).
        end = result.shape[-1] if nfft % 2 else result.shape[-1] - 1
        doubling = np.ones(result.shape[-1])
        doubling[1:end] = 2
        result = result * tnp.asarray(doubling, tnp.real(result).dtype)
    length = signals[0].shape[-1]
    time = np.arange(nperseg / 2, length - nperseg / 2 + 1, step) / fs
    if boundary is not None:
        time = time - (nperseg / 2) / fs
    result = tnp.astype(result, result_dtype)
    if y is None and mode != "stft":
        result = tnp.real(result)
    return freqs, tnp.asarray(time, freq_dtype), tnp.moveaxis(result, -1, axis)


@emits_ops
def csd(x, y, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
        return_onesided: bool = True, scaling: str = "density", axis: int = -1, average: str = "mean") -> tuple:
    """The cross power spectral density of ``x`` and ``y`` by Welch's method: ``(freqs, Pxy)``.

    Parameters as ``scipy.signal.csd``; ``nperseg`` defaults to the
    signal's length, as JAX's. ``y=None`` is ``x``'s power spectral density
    (complex, as ``csd(x, x)``); ``average`` is ``"mean"`` or ``"median"``.

    Examples
    --------
    >>> f, p = csd(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 0.0, 1.0, 0.0]), nperseg=2)
    >>> f, np.round(p, 12)
    (array([0. , 0.5]), array([-0.08333333+0.j, -0.08333333+0.j]))
    """
    freqs, _, pxy = _spectral_helper(x, y, fs, window, nperseg, noverlap, nfft, detrend, return_onesided, scaling,
                                     axis, mode="psd")
    if y is not None and not dtypes.is_complex(pxy.dtype):
        pxy = tnp.astype(pxy, np.result_type(pxy.dtype, np.complex64))
    if pxy.ndim >= 2 and pxy.size > 0:
        if pxy.shape[-1] > 1:
            if average == "median":
                segments = pxy.shape[-1]
                # The median of chi-squared periodograms is biased low relative to their mean (scipy's _median_bias).
                bias = 1 + sum(1.0 / (i + 1) - 1.0 / i for i in range(2, segments, 2))
                if dtypes.is_complex(pxy.dtype):
                    pxy = lax.complex(tnp.median(tnp.real(pxy), axis=-1), tnp.median(tnp.imag(pxy), axis=-1))
                else:
                    pxy = tnp.median(pxy, axis=-1)
                pxy = pxy / bias
            elif average == "mean":
                pxy = tnp.mean(pxy, axis=-1)
            else:
                raise ValueError(f'average must be "median" or "mean", got {average}')
        else:
            pxy = tnp.reshape(pxy, pxy.shape[:-1])
    return freqs, pxy


@emits_ops
def welch(x, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, detrend="constant",
          return_onesided: bool = True, scaling: str = "density", axis: int = -1, average: str = "mean") -> tuple:
    """The power spectral density of ``x`` by Welch's method: ``(freqs, Pxx)``, ``Pxx`` real.

    Parameters as :func:`csd` without ``y``.

    Examples
    --------
    >>> f, p = welch(np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]), nperseg=4, window="boxcar")
    >>> f, np.round(p, 12)
    (array([0.  , 0.25, 0.5 ]), array([0., 0., 4.]))
    """
    freqs, pxx = csd(x, None, fs=fs, window=window, nperseg=nperseg, noverlap=noverlap, nfft=nfft, detrend=detrend,
                     return_onesided=return_onesided, scaling=scaling, axis=axis, average=average)
    return freqs, tnp.real(pxx)


@emits_ops
def stft(x, fs=1.0, window="hann", nperseg: int = 256, noverlap=None, nfft=None, detrend=False,
         return_onesided: bool = True, boundary="zeros", padded: bool = True, axis: int = -1) -> tuple:
    """The short-time Fourier transform of ``x``: ``(freqs, times, Zxx)``, segments along the last axis of ``Zxx``.

    Parameters as ``scipy.signal.stft`` (``nperseg`` is cut to the
    signal's length, with a warning, as JAX's).

    Examples
    --------
    >>> f, t, z = stft(np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0]), nperseg=4)
    >>> z.shape, np.round(z[0].real, 12)
    ((3, 5), array([1. , 2.5, 1. , 1. , 0.5]))
    """
    return _spectral_helper(x, None, fs, window, nperseg, noverlap, nfft, detrend, return_onesided,
                            scaling="spectrum", axis=axis, mode="stft", boundary=boundary, padded=padded)


def _overlap_and_add(x: Tracer, step: int) -> Tracer:
    """The frames ``x[..., i, :]`` summed at offsets ``i * step``: shape ``(..., step * (frames - 1) + frame)``.

    Each frame, padded to a whole number ``k`` of steps, is cut into its
    ``k`` step-long pieces; piece ``j`` of every frame lands on one of
    ``frames + k - 1`` slots, so padding the frames' axis by ``frames`` and
    reading it with one slot fewer per row shifts each piece row by ``j``.
    """
    *batch, frames, frame_length = x.shape
    output_size = step * (frames - 1) + frame_length
    pieces = 1 + (frame_length - 1) // step
    x = tnp.pad(x, [(0, 0)] * len(batch) + [(0, 0), (0, pieces * step - frame_length)])
    x = tnp.swapaxes(tnp.reshape(x, (*batch, frames, pieces, step)), -3, -2)
    x = tnp.pad(x, [(0, 0)] * len(batch) + [(0, 0), (0, frames), (0, 0)])
    shrunk = x.shape[-2] - 1
    x = tnp.reshape(x, (*batch, -1))[..., :pieces * shrunk * step]
    x = tnp.sum(tnp.reshape(x, (*batch, pieces, shrunk * step)), axis=-2)
    return x[..., :output_size]


@emits_ops
def istft(Zxx, fs=1.0, window="hann", nperseg=None, noverlap=None, nfft=None, input_onesided: bool = True,
          boundary: bool = True, time_axis: int = -1, freq_axis: int = -2) -> tuple:
    """The inverse of :func:`stft` by weighted overlap-add: ``(times, x)``.

    Parameters as ``scipy.signal.istft``; ``nperseg`` and ``nfft`` default
    from ``Zxx``'s frequency axis.

    Examples
    --------
    >>> x = np.array([1.0, 2.0, 3.0, 2.0, 1.0, 0.0, 1.0, 2.0])
    >>> np.round(istft(stft(x, nperseg=4)[2])[1], 12) + 0.0  # + 0.0: no -0.
    array([1., 2., 3., 2., 1., 0., 1., 2.])
    """
    Zxx = tnp.asarray(Zxx)
    if Zxx.ndim < 2:
        raise ValueError("Input stft must be at least 2d!")
    freq_axis, time_axis = freq_axis % Zxx.ndim, time_axis % Zxx.ndim
    if freq_axis == time_axis:
        raise ValueError("Must specify differing time and frequency axes!")
    Zxx = tnp.astype(Zxx, np.result_type(dtypes.float_of(Zxx.dtype), np.complex64))
    n_default = 2 * (Zxx.shape[freq_axis] - 1) if input_onesided else Zxx.shape[freq_axis]
    nperseg = int(nperseg or n_default)
    if nperseg < 1:
        raise ValueError("nperseg must be a positive integer")
    if nfft is None:
        # An odd nperseg (one more than the one-sided default) means no FFT padding.
        nfft = n_default + 1 if input_onesided and nperseg == n_default + 1 else n_default
    nfft = int(nfft)
    if nfft < nperseg:
        raise ValueError(f"FFT length ({nfft}) must be longer than nperseg ({nperseg}).")
    noverlap = int(noverlap or nperseg // 2)
    if noverlap >= nperseg:
        raise ValueError("noverlap must be less than nperseg.")
    outer = [i for i in range(Zxx.ndim) if i not in (time_axis, freq_axis)]
    Zxx = tnp.transpose(Zxx, outer + [freq_axis, time_axis])
    inverse = tnp.fft.irfft if input_onesided else tnp.fft.ifft
    xsubs = inverse(Zxx, n=nfft, axis=-2)[..., :nperseg, :]
    win = _window(window, nperseg, tnp.real(xsubs).dtype)
    if win.shape[0] != nperseg:
        raise ValueError(f"window must have length of {nperseg}")
    xsubs = xsubs * tnp.sum(win)  # Undoes stft's 'spectrum' scaling.
    win = win[:, None]
    x = _overlap_and_add(tnp.swapaxes(xsubs * tnp.astype(win, xsubs.dtype), -2, -1), nperseg - noverlap)
    norm = _overlap_and_add(tnp.broadcast_to(tnp.swapaxes(win * win, -2, -1), (xsubs.shape[-1], nperseg)),
                            nperseg - noverlap)
    if boundary:
        x = x[..., nperseg // 2:-(nperseg // 2)]
        norm = norm[..., nperseg // 2:-(nperseg // 2)]
    x = x / tnp.astype(tnp.where(norm > 1e-10, norm, 1.0), x.dtype)
    if x.ndim > 1 and time_axis != Zxx.ndim - 1:
        x = tnp.moveaxis(x, -1, time_axis - 1 if freq_axis < time_axis else time_axis)
    # x.shape[0], as scipy's and JAX's (the signal's length when it is 1-D).
    time = np.arange(x.shape[0]) / fs
    return tnp.asarray(time, np.finfo(x.dtype).dtype), x
