"""``tensorad.scipy.stats.poisson``: the Poisson distribution, as ``jax.scipy.stats.poisson``."""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import zero_density_unless

__all__ = ["cdf", "entropy", "logpmf", "pmf"]


@emits_ops
def logpmf(k, mu, loc=0):
    """Log of ``mu**x exp(-mu) / x!``, ``x = k - loc``; ``-inf`` for negative or non-integer ``k``.

    Examples
    --------
    >>> logpmf(2, 3.0)
    array(-1.4959226)
    """
    k, mu, loc = special.promote_args_inexact(k, mu, loc)
    x = k - loc
    return zero_density_unless((x >= 0) & (tnp.round(k) == k), special.xlogy(x, mu) - special.gammaln(x + 1) - mu)


@emits_ops
def pmf(k, mu, loc=0):
    """The probability mass, ``exp(logpmf(k, mu, loc))``.

    Examples
    --------
    >>> pmf(0, 2.0)
    array(0.13533528)
    """
    return tnp.exp(logpmf(k, mu, loc))


@emits_ops
def cdf(k, mu, loc=0):
    """The distribution function ``gammaincc(floor(k - loc) + 1, mu)``, 0 below ``loc``.

    Examples
    --------
    >>> cdf(2, 3.0)
    array(0.42319008)
    """
    k, mu, loc = special.promote_args_inexact(k, mu, loc)
    x = k - loc
    return tnp.where(x < 0, 0.0, special.gammaincc(tnp.floor(1 + x), mu))


def _summed_entropy(mu, terms: int, upper):
    """``-sum p log p`` over ``k < min(terms, upper)``: the terms past ``upper`` are below float64's resolution."""
    k = tnp.arange(terms, dtype=mu.dtype).reshape((terms,) + (1,) * mu.ndim)
    return tnp.sum(special.entr(tnp.where(k < upper, pmf(k, mu), 0.0)), axis=0)


@emits_ops
def entropy(mu, loc=0):
    """The entropy ``-sum_k pmf(k) log pmf(k)``: summed for ``mu < 100``, asymptotic above; ``loc`` only broadcasts.

    Examples
    --------
    >>> entropy(1.0)
    array(1.30484224)
    """
    mu, loc = special.promote_args_inexact(mu, loc)
    safe = tnp.where(mu > 0, mu, 1.0)
    small = _summed_entropy(safe, 35, tnp.ceil(safe + 20))
    medium = _summed_entropy(safe, 250, tnp.ceil(safe + 10 * tnp.sqrt(safe) + 20))
    large = 0.5 * tnp.log(2 * math.pi * math.e * safe) - 1 / (12 * safe)
    value = tnp.where(mu == 0, 0.0, tnp.where(mu < 10, small, tnp.where(mu < 100, medium, large)))
    return tnp.broadcast_to(value, tnp.broadcast_shapes(mu.shape, loc.shape))
