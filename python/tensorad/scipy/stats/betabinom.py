"""``tensorad.scipy.stats.betabinom``: the beta-binomial distribution, as ``jax.scipy.stats.betabinom``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import nan_unless, zero_density_unless

__all__ = ["logpmf", "pmf"]


@emits_ops
def logpmf(k, n, a, b, loc=0):
    """Log of ``C(n, y) B(y + a, n - y + b) / B(a, b)``, ``y = floor(k) - loc``; NaN for ``n < 0``, ``a <= 0`` or ``b <= 0``.

    Examples
    --------
    >>> logpmf(2, 4, 1.0, 1.0)
    array(-1.60943791)
    """
    k, n, a, b, loc = special.promote_args_inexact(k, n, a, b, loc)
    y = tnp.floor(k) - loc
    comb = -(tnp.log1p(n) + special.betaln(n - y + 1, y + 1))
    log_probs = comb + special.betaln(y + a, n - y + b) - special.betaln(a, b)
    log_probs = tnp.where((y == 0) & (n == 0), 0.0, log_probs)
    log_probs = zero_density_unless((y >= -loc) & (y <= n) & (y + a > 0), log_probs)
    return nan_unless((n >= 0) & (a > 0) & (b > 0), log_probs)


@emits_ops
def pmf(k, n, a, b, loc=0):
    """The probability mass, ``exp(logpmf(k, n, a, b, loc))``.

    Examples
    --------
    >>> pmf(2, 4, 1.0, 1.0)
    array(0.2)
    """
    return tnp.exp(logpmf(k, n, a, b, loc))
