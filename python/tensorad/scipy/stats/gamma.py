"""``tensorad.scipy.stats.gamma``: the gamma distribution, as ``jax.scipy.stats.gamma``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import standardize, zero_density_unless

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


@emits_ops
def logpdf(x, a, loc=0, scale=1):
    """Log of the density ``y**(a-1) exp(-y) / (Gamma(a) scale)`` on ``x >= loc``, ``y = (x - loc) / scale``.

    Examples
    --------
    >>> logpdf(1.0, 2.0)
    array(-1.)
    """
    y, x, loc, scale, a = standardize(x, loc, scale, a)
    inside = x >= loc
    # y = 1 outside the support keeps xlogy (and its derivative) finite there.
    y = tnp.where(inside, y, 1.0)
    return zero_density_unless(inside, special.xlogy(a - 1, y) - y - special.gammaln(a) - tnp.log(scale))


@emits_ops
def pdf(x, a, loc=0, scale=1):
    """The density, ``exp(logpdf(x, a, loc, scale))``.

    Examples
    --------
    >>> pdf(1.0, 2.0)
    array(0.36787944)
    """
    return tnp.exp(logpdf(x, a, loc, scale))


@emits_ops
def cdf(x, a, loc=0, scale=1):
    """The distribution function ``gammainc(a, y)``, ``y`` clipped at 0.

    Examples
    --------
    >>> cdf(1.0, 2.0)
    array(0.26424112)
    """
    y, _, _, _, a = standardize(x, loc, scale, a)
    return special.gammainc(a, tnp.maximum(y, 0.0))


@emits_ops
def logcdf(x, a, loc=0, scale=1):
    """``log(cdf(x, a, loc, scale))``.

    Examples
    --------
    >>> logcdf(1.0, 2.0)
    array(-1.33089327)
    """
    return tnp.log(cdf(x, a, loc, scale))


@emits_ops
def sf(x, a, loc=0, scale=1):
    """The survival function ``gammaincc(a, y)``, 1 below ``loc``.

    Examples
    --------
    >>> sf(1.0, 2.0)
    array(0.73575888)
    """
    y, _, _, _, a = standardize(x, loc, scale, a)
    return tnp.where(y < 0, 1.0, special.gammaincc(a, y))


@emits_ops
def logsf(x, a, loc=0, scale=1):
    """``log(sf(x, a, loc, scale))``.

    Examples
    --------
    >>> logsf(1.0, 2.0)
    array(-0.30685282)
    """
    return tnp.log(sf(x, a, loc, scale))
