"""``mode``, ``rankdata`` and ``sem`` of :mod:`tensorad.scipy.stats`, as JAX's."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special

__all__ = ["ModeResult", "mode", "rankdata", "sem"]


class ModeResult(NamedTuple):
    """What :func:`mode` returns: the most common values and how often each occurs."""

    mode: object
    count: object


def _check_nan_policy(nan_policy: str, name: str) -> None:
    if nan_policy not in ("propagate", "omit", "raise"):
        raise ValueError(f"Illegal nan_policy value {nan_policy!r}; expected one of {{'propagate', 'omit', 'raise'}}")
    if nan_policy != "propagate":
        raise NotImplementedError(f"{name}: only nan_policy='propagate' is implemented (the check would need the values)")


@emits_ops
def mode(a, axis=0, nan_policy="propagate", keepdims=False):
    """The most common value along ``axis`` (the smallest among ties) and its count.

    Examples
    --------
    >>> import numpy as np
    >>> mode(np.array([3.0, 1.0, 3.0, 2.0, 1.0]))
    ModeResult(mode=array(1.), count=array(2))
    """
    _check_nan_policy(nan_policy, "mode")
    x = tnp.atleast_1d(tnp.asarray(a))
    if axis is None:
        x, axis = tnp.ravel(x), 0
    axis = axis % x.ndim
    x = tnp.moveaxis(x, axis, 0)
    # counts[i] = how many entries equal entry i: quadratic, but one fused comparison.
    counts = tnp.sum(x[:, None] == x[None, :], axis=1)
    most = tnp.max(counts, axis=0)
    value = tnp.min(tnp.where(counts == most, x, tnp.max(x, axis=0)), axis=0)
    if keepdims:
        value, most = (tnp.expand_dims(v, axis) for v in (value, most))
    return ModeResult(value, most)


@emits_ops
def rankdata(a, method="average", *, axis=None, nan_policy="propagate"):
    """Ranks from 1, ties resolved by ``method`` (average, min, max, dense or ordinal); NaN if any NaN.

    Examples
    --------
    >>> import numpy as np
    >>> rankdata(np.array([10.0, 20.0, 10.0, 5.0]))
    array([2.5, 4. , 2.5, 1. ])
    """
    _check_nan_policy(nan_policy, "rankdata")
    if method not in ("average", "min", "max", "dense", "ordinal"):
        raise ValueError(f"unknown method '{method}'")
    if axis is not None:
        return tnp.apply_along_axis(rankdata, axis, a, method)
    a = tnp.ravel(tnp.asarray(a))
    order = tnp.argsort(a, stable=True)
    inverse = tnp.argsort(order, stable=True)
    ordinal = tnp.astype(inverse + 1, np.float64)
    ranks = ordinal if method == "ordinal" else _tied_ranks(a[order], inverse, method)
    return tnp.where(tnp.any(tnp.isnan(a)), np.nan, ranks) if tnp.issubdtype(a.dtype, np.inexact) else ranks


def _tied_ranks(sorted_a, inverse, method: str):
    """The ``method`` rank of each entry, from the sorted values and each entry's sorted position."""
    first = tnp.concatenate([tnp.array([True]), sorted_a[1:] != sorted_a[:-1]])
    dense = tnp.cumsum(first)[inverse]
    if method == "dense":
        return tnp.astype(dense, np.float64)
    # starts[j]: the sorted position of the first entry of tie group j (and n after the last).
    starts = tnp.astype(tnp.nonzero(first, size=sorted_a.size + 1, fill_value=sorted_a.size)[0], np.float64)
    if method == "max":
        return starts[dense]
    if method == "min":
        return starts[dense - 1] + 1
    return 0.5 * (starts[dense] + starts[dense - 1] + 1)


@emits_ops
def sem(a, axis=0, ddof=1, nan_policy="propagate", *, keepdims=False):
    """The standard error of the mean, ``std(a, ddof) / sqrt(count)``; ``nan_policy='omit'`` skips NaNs.

    Examples
    --------
    >>> import numpy as np
    >>> sem(np.array([1.0, 2.0, 3.0, 4.0]))
    array(0.64549722)
    """
    (b,) = special.promote_args_inexact(a)
    if nan_policy == "propagate":
        size = b.size if axis is None else b.shape[axis]
        return tnp.std(b, axis, ddof=ddof, keepdims=keepdims) / np.sqrt(size).astype(b.dtype)
    if nan_policy == "omit":
        count = tnp.sum(~tnp.isnan(b), axis, keepdims=keepdims)
        return tnp.nanstd(b, axis, ddof=ddof, keepdims=keepdims) / tnp.astype(tnp.sqrt(count), b.dtype)
    raise ValueError(f"{nan_policy} is not supported")
