"""``tensorad.scipy.stats.binom``: the binomial distribution, as ``jax.scipy.stats.binom``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import zero_density_unless

__all__ = ["logpmf", "pmf"]


@emits_ops
def logpmf(k, n, p, loc=0):
    """Log of ``C(n, y) p**y (1 - p)**(n - y)``, ``y = k - loc``; ``-inf`` outside ``0 <= y <= n``.

    Examples
    --------
    >>> logpmf(2, 4, 0.5)
    array(-0.98082925)
    """
    k, n, p, loc = special.promote_args_inexact(k, n, p, loc)
    y = k - loc
    comb = special.gammaln(n + 1) - special.gammaln(y + 1) - special.gammaln(n - y + 1)
    linear = special.xlogy(y, p) + special.xlog1py(n - y, -p)
    # A certain outcome (n = 0, or p at 0 or 1 with y at the matching end) has log
    # probability exactly 0, which the gammaln terms would only round to.
    log_probs = tnp.where(((y == 0) & (n == 0)) | (linear == 0), 0.0, comb + linear)
    return zero_density_unless((k >= loc) & (k < loc + n + 1), log_probs)


@emits_ops
def pmf(k, n, p, loc=0):
    """The probability mass, ``exp(logpmf(k, n, p, loc))``.

    Examples
    --------
    >>> pmf(2, 4, 0.5)
    array(0.375)
    """
    return tnp.exp(logpmf(k, n, p, loc))
