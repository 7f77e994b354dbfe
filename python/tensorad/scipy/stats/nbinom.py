"""``tensorad.scipy.stats.nbinom``: the negative binomial distribution, as ``jax.scipy.stats.nbinom``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import zero_density_unless

__all__ = ["logpmf", "pmf"]


@emits_ops
def logpmf(k, n, p, loc=0):
    """Log of ``Gamma(y + n) / (Gamma(n) y!) p**n (1 - p)**y``, ``y = k - loc >= 0``.

    Examples
    --------
    >>> logpmf(2, 3, 0.5)
    array(-1.67397643)
    """
    k, n, p, loc = special.promote_args_inexact(k, n, p, loc)
    y = k - loc
    comb = special.gammaln(y + n) - special.gammaln(n) - special.gammaln(y + 1)
    return zero_density_unless(k >= loc, comb + special.xlogy(n, p) + special.xlogy(y, 1 - p))


@emits_ops
def pmf(k, n, p, loc=0):
    """The probability mass, ``exp(logpmf(k, n, p, loc))``.

    Examples
    --------
    >>> pmf(2, 3, 0.5)
    array(0.1875)
    """
    return tnp.exp(logpmf(k, n, p, loc))
