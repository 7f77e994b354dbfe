"""Normalization: ``standardize`` (``jax.nn``'s), and the layers ``layer_norm`` and ``batch_norm``.

All subtract the mean and divide by ``sqrt(var + eps)`` with the biased
variance (as PyTorch does when normalizing); the layers then apply an
optional elementwise affine map ``weight * y + bias``.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> y = ta.jit(layer_norm)(np.array([[1.0, 2.0, 3.0]]))
>>> np.round(y, 4)
array([[-1.2247,  0.    ,  1.2247]])
"""

from __future__ import annotations

from .. import dtypes, numpy as tnp
from ..errors import TracingError
from ..tracing import emits_ops
from .activations import included_count


def _mean(x, axis, where):
    """The mean over ``axis`` (kept) of the elements where ``where`` is true (all when None)."""
    total = tnp.sum(x if where is None else tnp.where(where, x, 0.0), axis=axis, keepdims=True)
    return total / included_count(x, axis, where, keepdims=True)


@emits_ops
def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5, where=None, *, algorithm: str = "fast"):
    """``(x - mean) / sqrt(variance + epsilon)``, the statistics over ``axis`` unless given, as ``jax.nn``'s.

    Parameters
    ----------
    x : array
    axis : int or tuple of int
        The axes the statistics are taken over.
    mean, variance : array, optional
        Statistics to use instead (broadcast against ``x``).
    epsilon : float
        Added to the variance.
    where : array of bool, optional
        The elements the statistics take in; every element is standardized.
    algorithm : {"fast", "stable"}
        The variance as ``mean(x**2) - mean**2`` (one pass, clipped at 0) or
        as ``mean((x - mean)**2)`` (two passes, accurate when ``|mean| >> std``).

    Raises
    ------
    ValueError
        An unknown ``algorithm``.

    Examples
    --------
    >>> import numpy as np
    >>> standardize(np.array([1.0, 2.0, 3.0]), epsilon=0.0)
    array([-1.22474487,  0.        ,  1.22474487])
    """
    if algorithm not in ("fast", "stable"):
        raise ValueError(f"standardize: unknown algorithm {algorithm!r}, expected 'fast' or 'stable'")
    x = tnp.asarray(x)
    x = x.astype(dtypes.float_of(x.dtype))
    if mean is None:
        mean = _mean(x, axis, where)
    centered = x - mean
    if variance is None:
        if algorithm == "stable":
            variance = _mean(centered * centered, axis, where)
        else:
            # The one-pass variance can come out slightly negative: rsqrt needs it clipped.
            variance = tnp.clip(_mean(x * x, axis, where) - mean * mean, 0.0)
    return centered * tnp.rsqrt(variance + epsilon)


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
    return _affine(standardize(x, axes, epsilon=eps, algorithm="stable"), axes, weight, bias)


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
    return _affine(standardize(x, reduced, epsilon=eps, algorithm="stable"), (1,), weight, bias)
