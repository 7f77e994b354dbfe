"""``tensorad.scipy.stats.gumbel_l``: the left-skewed Gumbel distribution, as ``jax.scipy.stats.gumbel_l``.

The mirror image of :mod:`.gumbel_r`; every function is NaN where ``scale <= 0``.
"""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import nan_unless, standardize

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(z - exp(z)) / scale``.

    Examples
    --------
    >>> logpdf(0.0)
    array(-1.)
    """
    z, _, _, scale = standardize(x, loc, scale)
    return nan_unless(scale > 0, z - tnp.exp(z) - tnp.log(scale))


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> pdf(0.0)
    array(0.36787944)
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def logcdf(x, loc=0, scale=1):
    """``log(1 - exp(-exp(z)))``, through ``expm1`` to stay accurate for very negative ``z``.

    Examples
    --------
    >>> logcdf(-30.0)
    array(-30.)
    """
    z, _, _, scale = standardize(x, loc, scale)
    return nan_unless(scale > 0, tnp.log(-tnp.expm1(-tnp.exp(z))))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function ``exp(logcdf(x, loc, scale))``.

    Examples
    --------
    >>> cdf(0.0)
    array(0.63212056)
    """
    return tnp.exp(logcdf(x, loc, scale))


@emits_ops
def logsf(x, loc=0, scale=1):
    """``log(sf) = -exp(z)``.

    Examples
    --------
    >>> logsf(0.0)
    array(-1.)
    """
    z, _, _, scale = standardize(x, loc, scale)
    return nan_unless(scale > 0, -tnp.exp(z))


@emits_ops
def sf(x, loc=0, scale=1):
    """The survival function ``exp(-exp(z))``.

    Examples
    --------
    >>> sf(1.0)
    array(0.06598804)
    """
    return tnp.exp(logsf(x, loc, scale))


@emits_ops
def ppf(p, loc=0, scale=1):
    """The quantile function ``loc + scale * log(-log1p(-p))``; NaN outside ``0 < p < 1``.

    Examples
    --------
    >>> ppf(0.5)
    array(-0.36651292)
    """
    p, loc, scale = standardize(p, loc, scale)[1:]
    return nan_unless((p > 0) & (p < 1), loc + scale * tnp.log(special.xlog1py(-1, -p)))
