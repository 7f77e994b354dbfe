"""``tensorad.scipy.stats.cauchy``: the Cauchy distribution, as ``jax.scipy.stats.cauchy``."""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .common import standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """Log of the density ``1 / (pi scale (1 + z**2))``, ``z = (x - loc) / scale``.

    Examples
    --------
    >>> logpdf(0.0)
    array(-1.14472989)
    """
    z, _, _, scale = standardize(x, loc, scale)
    return -(tnp.log(math.pi * scale) + tnp.log1p(z * z))


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> pdf(1.0)
    array(0.15915494)
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function ``1/2 + arctan(z) / pi``.

    Examples
    --------
    >>> cdf(1.0)
    array(0.75)
    """
    return 0.5 + tnp.arctan(standardize(x, loc, scale)[0]) / math.pi


@emits_ops
def logcdf(x, loc=0, scale=1):
    """``log(cdf(x, loc, scale))``.

    Examples
    --------
    >>> logcdf(0.0)
    array(-0.69314718)
    """
    return tnp.log(cdf(x, loc, scale))


@emits_ops
def sf(x, loc=0, scale=1):
    """The survival function ``cdf(-x, -loc, scale)`` (the distribution is symmetric).

    Examples
    --------
    >>> sf(1.0)
    array(0.25)
    """
    x, loc, scale = standardize(x, loc, scale)[1:]
    return cdf(-x, -loc, scale)


@emits_ops
def logsf(x, loc=0, scale=1):
    """``log(sf(x, loc, scale))``.

    Examples
    --------
    >>> logsf(0.0)
    array(-0.69314718)
    """
    x, loc, scale = standardize(x, loc, scale)[1:]
    return logcdf(-x, -loc, scale)


def _quantile(q, loc, scale, sign):
    """``loc + scale * tan(sign * (pi q - pi/2))``: the ppf for ``sign = 1``, the isf for ``-1``."""
    q, loc, scale = standardize(q, loc, scale)[1:]
    return loc + scale * tnp.tan(sign * (math.pi * q - math.pi / 2))


@emits_ops
def ppf(q, loc=0, scale=1):
    """The quantile function ``loc + scale * tan(pi (q - 1/2))``.

    Examples
    --------
    >>> ppf(0.75)
    array(1.)
    """
    return _quantile(q, loc, scale, 1.0)


@emits_ops
def isf(q, loc=0, scale=1):
    """The inverse of :func:`sf`, ``loc + scale * tan(pi (1/2 - q))``.

    Examples
    --------
    >>> isf(0.25)
    array(1.)
    """
    return _quantile(q, loc, scale, -1.0)
