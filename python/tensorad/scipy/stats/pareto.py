"""``tensorad.scipy.stats.pareto``: the Pareto distribution on ``x >= loc + scale``, as ``jax.scipy.stats.pareto``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .common import nan_unless, standardize, zero_density_unless

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


def _standardized(x, b, loc, scale):
    """``(y, b, scale, below)``: the standardized ``x``, ``b``, ``scale``, and where ``x`` lies below the support."""
    y, x, loc, scale, b = standardize(x, loc, scale, b)
    return y, b, scale, x < loc + scale


@emits_ops
def logpdf(x, b, loc=0, scale=1):
    """Log of the density ``b / (scale y**(b+1))``, ``y = (x - loc) / scale >= 1``.

    Examples
    --------
    >>> logpdf(2.0, 3.0)
    array(-1.67397643)
    """
    y, b, scale, below = _standardized(x, b, loc, scale)
    return zero_density_unless(~below, -(tnp.log(scale / b) + (b + 1) * tnp.log(y)))


@emits_ops
def pdf(x, b, loc=0, scale=1):
    """The density, ``exp(logpdf(x, b, loc, scale))``.

    Examples
    --------
    >>> pdf(2.0, 3.0)
    array(0.1875)
    """
    return tnp.exp(logpdf(x, b, loc, scale))


@emits_ops
def cdf(x, b, loc=0, scale=1):
    """The distribution function ``1 - y**(-b)``, 0 below the support.

    Examples
    --------
    >>> cdf(2.0, 3.0)
    array(0.875)
    """
    y, b, _, below = _standardized(x, b, loc, scale)
    return tnp.where(below, 0.0, 1 - y ** -b)


@emits_ops
def logcdf(x, b, loc=0, scale=1):
    """``log1p(-y**(-b))``, ``-inf`` below the support.

    Examples
    --------
    >>> logcdf(2.0, 3.0)
    array(-0.13353139)
    """
    y, b, _, below = _standardized(x, b, loc, scale)
    return zero_density_unless(~below, tnp.log1p(-(y ** -b)))


@emits_ops
def logsf(x, b, loc=0, scale=1):
    """``log(sf) = -b log(y)``, 0 below the support.

    Examples
    --------
    >>> logsf(2.0, 3.0)
    array(-2.07944154)
    """
    y, b, _, below = _standardized(x, b, loc, scale)
    return tnp.where(below, 0.0, -b * tnp.log(y))


@emits_ops
def sf(x, b, loc=0, scale=1):
    """The survival function ``y**(-b)``, 1 below the support.

    Examples
    --------
    >>> sf(2.0, 3.0)
    array(0.125)
    """
    return tnp.exp(logsf(x, b, loc, scale))


@emits_ops
def ppf(q, b, loc=0, scale=1):
    """The quantile function ``loc + scale (1 - q)**(-1/b)``; NaN for ``q`` outside [0, 1].

    Examples
    --------
    >>> ppf(0.5, 1.0)
    array(2.)
    """
    q, loc, scale, b = standardize(q, loc, scale, b)[1:]
    return nan_unless((q >= 0) & (q <= 1), loc + scale * (1 - q) ** (-1 / b))
