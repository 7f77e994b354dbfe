"""``tensorad.scipy.stats.chi2``: the chi-squared distribution, as ``jax.scipy.stats.chi2``.

``chi2(df)`` is ``gamma(df / 2, scale=2)``.
"""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import standardize, zero_density_unless

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


@emits_ops
def logpdf(x, df, loc=0, scale=1):
    """Log of the density ``y**(df/2-1) exp(-y/2) / (2**(df/2) Gamma(df/2) scale)`` on ``x >= loc``.

    Examples
    --------
    >>> logpdf(1.0, 3.0)
    array(-1.41893853)
    """
    y, x, loc, scale, df = standardize(x, loc, scale, df)
    half_df = df / 2
    log_density = (half_df - 1) * tnp.log(y) - y / 2 - special.gammaln(half_df) - half_df * math.log(2) - tnp.log(scale)
    return zero_density_unless(x >= loc, log_density)


@emits_ops
def pdf(x, df, loc=0, scale=1):
    """The density, ``exp(logpdf(x, df, loc, scale))``.

    Examples
    --------
    >>> pdf(1.0, 3.0)
    array(0.24197072)
    """
    return tnp.exp(logpdf(x, df, loc, scale))


def _gamma_args(x, df, loc, scale):
    y, _, _, _, df = standardize(x, loc, scale, df)
    return df / 2, tnp.maximum(y / 2, 0.0)


@emits_ops
def cdf(x, df, loc=0, scale=1):
    """The distribution function ``gammainc(df / 2, y / 2)``.

    Examples
    --------
    >>> cdf(1.0, 3.0)
    array(0.19874804)
    """
    return special.gammainc(*_gamma_args(x, df, loc, scale))


@emits_ops
def logcdf(x, df, loc=0, scale=1):
    """``log(cdf(x, df, loc, scale))``.

    Examples
    --------
    >>> logcdf(1.0, 3.0)
    array(-1.61571737)
    """
    return tnp.log(cdf(x, df, loc, scale))


@emits_ops
def sf(x, df, loc=0, scale=1):
    """The survival function ``gammaincc(df / 2, y / 2)``.

    Examples
    --------
    >>> sf(1.0, 3.0)
    array(0.80125196)
    """
    return special.gammaincc(*_gamma_args(x, df, loc, scale))


@emits_ops
def logsf(x, df, loc=0, scale=1):
    """``log(sf(x, df, loc, scale))``.

    Examples
    --------
    >>> logsf(1.0, 3.0)
    array(-0.22157983)
    """
    return tnp.log(sf(x, df, loc, scale))
