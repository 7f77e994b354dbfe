"""Normalization layers: ``layer_norm`` and ``batch_norm`` (training mode, batch statistics).

Both subtract the mean and divide by ``sqrt(var + eps)`` with the biased
variance (as PyTorch does when normalizing), then apply an optional
elementwise affine map ``weight * y + bias``.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> y = ta.jit(layer_norm)(np.array([[1.0, 2.0, 3.0]]))
>>> np.round(y, 4)
array([[-1.2247,  0.    ,  1.2247]])
"""

from __future__ import annotations

from .. import numpy as tnp
from ..errors import TracingError
from ..tracing import emits_ops


def _standardize(x, axes: tuple, eps: float):
    """``(x - mean) / sqrt(var + eps)`` with the statistics taken over ``axes``."""
    centered = x - tnp.mean(x, axis=axes, keepdims=True)
    variance = tnp.mean(centered * centered, axis=axes, keepdims=True)
    return centered * tnp.rsqrt(variance + eps)


def _affine(y, axes: tuple, weight, bias):
    """``weight * y + bias`` for parameters of shape ``y.shape[axes]`` (either may be None)."""
    expected = tuple(y.shape[d] for d in axes)
    # Parameters get y's rank (size 1 off ``axes``) so that they broadcast along the other axes.
    as_y = [n if d in axes else 1 for d, n in enumerate(y.shape)]
    for param, apply in ((weight, tnp.multiply), (bias, tnp.add)):
        if param is None:
            continue
        param = tnp.asarray(param)
        if param.shape != expected:
            raise TracingError(f"expected an affine parameter of shape {expected}, got {param.shape}")
        y = apply(y, tnp.reshape(param, as_y))
    return y


@emits_ops
def layer_norm(x, weight=None, bias=None, axis=-1, eps: float = 1e-5):
    """Normalize each sample over ``axis`` (the last axis by default).

    Parameters
    ----------
    x : array
    weight, bias : array, optional
        Of shape ``x.shape[axis]`` (the normalized axes' sizes, in order).
    axis : int or tuple of int
        The normalized axes (PyTorch's ``normalized_shape`` are the trailing ones).
    eps : float
        Added to the variance.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> x = np.array([[1.0, 3.0], [0.0, 10.0]])
    >>> y = ta.jit(lambda x, w, b: layer_norm(x, w, b))(x, np.array([2.0, 2.0]), np.array([0.0, 1.0]))
    >>> np.round(y, 4)
    array([[-2.,  3.],
           [-2.,  3.]])
    """
    x = tnp.asarray(x)
    axes = tuple(sorted(a % x.ndim for a in ((axis,) if isinstance(axis, int) else axis)))
    return _affine(_standardize(x, axes, eps), axes, weight, bias)


@emits_ops
def batch_norm(x, weight=None, bias=None, eps: float = 1e-5):
    """Normalize each channel (axis 1) with the statistics of the batch (training mode).

    For ``(N, C)`` input the statistics are taken over ``N``; for ``(N, C, H, W)``
    over ``(N, H, W)``; in general over every axis but 1. Running averages for
    inference are the caller's to keep.

    Parameters
    ----------
    x : array of shape (N, C, ...)
    weight, bias : array of shape (C,), optional
    eps : float
        Added to the variance.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> y = ta.jit(batch_norm)(np.array([[1.0, 10.0], [3.0, 10.0]]))
    >>> np.round(y, 4)
    array([[-1.,  0.],
           [ 1.,  0.]])
    """
    x = tnp.asarray(x)
    if x.ndim < 2:
        raise TracingError(f"batch_norm needs input of shape (N, C, ...), got {x.shape}")
    reduced = (0,) + tuple(range(2, x.ndim))
    return _affine(_standardize(x, reduced, eps), (1,), weight, bias)
