"""``tensorad.scipy.stats.gennorm``: the generalized normal distribution, as ``jax.scipy.stats.gennorm``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special

__all__ = ["cdf", "logpdf", "pdf"]


@emits_ops
def logpdf(x, beta):
    """Log of the density ``beta exp(-|x|**beta) / (2 Gamma(1/beta))``.

    Examples
    --------
    >>> logpdf(1.0, 2.0)
    array(-1.57236494)
    """
    x, beta = special.promote_args_inexact(x, beta)
    return tnp.log(0.5 * beta) - special.gammaln(1 / beta) - tnp.abs(x) ** beta


@emits_ops
def pdf(x, beta):
    """The density, ``exp(logpdf(x, beta))``.

    Examples
    --------
    >>> pdf(0.0, 2.0)
    array(0.56418958)
    """
    return tnp.exp(logpdf(x, beta))


@emits_ops
def cdf(x, beta):
    """The distribution function ``(1 + sign(x) gammainc(1/beta, |x|**beta)) / 2``.

    Examples
    --------
    >>> cdf(1.0, 2.0)
    array(0.9213504)
    """
    x, beta = special.promote_args_inexact(x, beta)
    return 0.5 * (1 + tnp.sign(x) * special.gammainc(1 / beta, tnp.abs(x) ** beta))
