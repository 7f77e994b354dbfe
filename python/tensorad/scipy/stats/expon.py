"""``tensorad.scipy.stats.expon``: the exponential distribution, as ``jax.scipy.stats.expon``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .common import nan_unless, standardize, zero_density_unless

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(-(x - loc) / scale) / scale`` on ``x >= loc``.

    Examples
    --------
    >>> logpdf(2.0, 0.0, 2.0)
    array(-1.69314718)
    """
    z, x, loc, scale = standardize(x, loc, scale)
    return zero_density_unless(x >= loc, -(z + tnp.log(scale)))


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> pdf(1.0)
    array(0.36787944)
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function ``-expm1(-(x - loc) / scale)``, 0 below ``loc``.

    Examples
    --------
    >>> cdf(1e-10)
    array(1.e-10)
    """
    z, x, loc, _ = standardize(x, loc, scale)
    return tnp.where(x < loc, 0.0, -tnp.expm1(-z))


@emits_ops
def logcdf(x, loc=0, scale=1):
    """``log1p(-sf(x, loc, scale))``.

    Examples
    --------
    >>> logcdf(1.0)
    array(-0.45867515)
    """
    return tnp.log1p(-sf(x, loc, scale))


@emits_ops
def logsf(x, loc=0, scale=1):
    """``log(sf) = -(x - loc) / scale``, 0 below ``loc``.

    Examples
    --------
    >>> logsf(3.0)
    array(-3.)
    """
    z, x, loc, _ = standardize(x, loc, scale)
    return tnp.where(x < loc, 0.0, -z)


@emits_ops
def sf(x, loc=0, scale=1):
    """The survival function ``exp(logsf(x, loc, scale))``.

    Examples
    --------
    >>> sf(1.0)
    array(0.36787944)
    """
    return tnp.exp(logsf(x, loc, scale))


@emits_ops
def ppf(q, loc=0, scale=1):
    """The quantile function ``loc - scale * log1p(-q)``; NaN for ``q`` outside [0, 1].

    Examples
    --------
    >>> ppf(0.5)
    array(0.69314718)
    """
    q, loc, scale = standardize(q, loc, scale)[1:]
    return nan_unless((q >= 0) & (q <= 1), loc - scale * tnp.log1p(-q))
