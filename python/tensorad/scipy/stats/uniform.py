"""``tensorad.scipy.stats.uniform``: the uniform distribution on ``[loc, loc + scale]``, as ``jax.scipy.stats.uniform``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .common import nan_unless, standardize, zero_density_unless

__all__ = ["cdf", "logpdf", "pdf", "ppf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """``-log(scale)`` inside ``[loc, loc + scale]``, ``-inf`` outside.

    Examples
    --------
    >>> logpdf(1.0, 0.0, 4.0)
    array(-1.38629436)
    """
    _, x, loc, scale = standardize(x, loc, scale)
    return zero_density_unless((x >= loc) & (x <= loc + scale), -tnp.log(scale))


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> pdf(2.0)
    array(0.)
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function ``(x - loc) / scale`` clipped to [0, 1] (NaN stays NaN).

    Examples
    --------
    >>> cdf(0.25)
    array(0.25)
    """
    z, x, loc, scale = standardize(x, loc, scale)
    return tnp.select([x < loc, x > loc + scale, (x >= loc) & (x <= loc + scale)], [0.0, 1.0, z], tnp.nan)


@emits_ops
def ppf(q, loc=0, scale=1):
    """The quantile function ``loc + scale * q``; NaN for ``q`` outside [0, 1].

    Examples
    --------
    >>> ppf(0.5, 1.0, 2.0)
    array(2.)
    """
    q, loc, scale = standardize(q, loc, scale)[1:]
    return nan_unless((q >= 0) & (q <= 1), loc + scale * q)
