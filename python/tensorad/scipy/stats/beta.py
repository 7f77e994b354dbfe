"""``tensorad.scipy.stats.beta``: the beta distribution on ``[loc, loc + scale]``, as ``jax.scipy.stats.beta``.

``logpdf`` is NaN where ``a``, ``b`` or ``scale`` is not positive.
"""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import nan_unless, standardize, zero_density_unless

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


@emits_ops
def logpdf(x, a, b, loc=0, scale=1):
    """Log of the density ``y**(a-1) (1-y)**(b-1) / (B(a, b) scale)``, ``y = (x - loc) / scale``.

    Examples
    --------
    >>> logpdf(0.5, 2.0, 3.0)
    array(0.40546511)
    """
    y, x, loc, scale, a, b = standardize(x, loc, scale, a, b)
    log_density = special.xlogy(a - 1, y) + special.xlog1py(b - 1, -y) - special.betaln(a, b) - tnp.log(scale)
    inside = zero_density_unless((x >= loc) & (x <= loc + scale), log_density)
    return nan_unless((a > 0) & (b > 0) & (scale > 0), inside)


@emits_ops
def pdf(x, a, b, loc=0, scale=1):
    """The density, ``exp(logpdf(x, a, b, loc, scale))``.

    Examples
    --------
    >>> pdf(0.5, 2.0, 2.0)
    array(1.5)
    """
    return tnp.exp(logpdf(x, a, b, loc, scale))


def _clipped(x, a, b, loc, scale):
    y, _, _, _, a, b = standardize(x, loc, scale, a, b)
    return tnp.clip(y, 0.0, 1.0), a, b


@emits_ops
def cdf(x, a, b, loc=0, scale=1):
    """The distribution function ``betainc(a, b, y)``, ``y`` clipped to [0, 1].

    Examples
    --------
    >>> cdf(0.5, 2.0, 3.0)
    array(0.6875)
    """
    y, a, b = _clipped(x, a, b, loc, scale)
    return special.betainc(a, b, y)


@emits_ops
def logcdf(x, a, b, loc=0, scale=1):
    """``log(cdf(x, a, b, loc, scale))``.

    Examples
    --------
    >>> logcdf(0.5, 2.0, 3.0)
    array(-0.37469345)
    """
    return tnp.log(cdf(x, a, b, loc, scale))


@emits_ops
def sf(x, a, b, loc=0, scale=1):
    """The survival function ``betainc(b, a, 1 - y)``.

    Examples
    --------
    >>> sf(0.5, 2.0, 3.0)
    array(0.3125)
    """
    y, a, b = _clipped(x, a, b, loc, scale)
    return special.betainc(b, a, 1 - y)


@emits_ops
def logsf(x, a, b, loc=0, scale=1):
    """``log(sf(x, a, b, loc, scale))``.

    Examples
    --------
    >>> logsf(0.5, 2.0, 3.0)
    array(-1.16315081)
    """
    return tnp.log(sf(x, a, b, loc, scale))
