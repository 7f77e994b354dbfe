"""``tensorad.scipy.stats.bernoulli``: the Bernoulli distribution, as ``jax.scipy.stats.bernoulli``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import nan_unless, zero_density_unless

__all__ = ["cdf", "logpmf", "pmf", "ppf"]


@emits_ops
def logpmf(k, p, loc=0):
    """``log(p)`` at ``k - loc = 1``, ``log(1 - p)`` at 0, ``-inf`` outside [0, 1].

    Examples
    --------
    >>> logpmf(1, 0.25)
    array(-1.38629436)
    """
    k, p, loc = special.promote_args_inexact(k, p, loc)
    x = k - loc
    return zero_density_unless((x >= 0) & (x <= 1), special.xlogy(x, p) + special.xlog1py(1 - x, -p))


@emits_ops
def pmf(k, p, loc=0):
    """The probability mass, ``exp(logpmf(k, p, loc))``.

    Examples
    --------
    >>> pmf(0, 0.25)
    array(0.75)
    """
    return tnp.exp(logpmf(k, p, loc))


def _valid(p):
    return ~tnp.isnan(p) & (p >= 0) & (p <= 1)


@emits_ops
def cdf(k, p):
    """The distribution function: 0 below 0, ``1 - p`` on [0, 1), 1 from 1 on; NaN for ``p`` outside [0, 1].

    Examples
    --------
    >>> cdf(0.5, 0.25)
    array(0.75)
    """
    k, p = special.promote_args_inexact(k, p)
    return nan_unless(_valid(p) & ~tnp.isnan(k), tnp.where(k < 0, 0.0, tnp.where(k < 1, 1 - p, 1.0)))


@emits_ops
def ppf(q, p):
    """The quantile function: 0 for ``q <= 1 - p``, else 1; NaN for ``q`` or ``p`` outside [0, 1].

    Examples
    --------
    >>> ppf(0.9, 0.25)
    array(1.)
    """
    q, p = special.promote_args_inexact(q, p)
    return nan_unless(_valid(p) & (q >= 0) & (q <= 1), tnp.where(q <= 1 - p, 0.0, 1.0))
