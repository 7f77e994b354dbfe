"""``tensorad.scipy.stats.laplace``: the Laplace distribution, as ``jax.scipy.stats.laplace``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .common import standardize

__all__ = ["cdf", "logpdf", "pdf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(-|x - loc| / scale) / (2 scale)``.

    Examples
    --------
    >>> logpdf(1.0)
    array(-1.69314718)
    """
    z, _, _, scale = standardize(x, loc, scale)
    return -(tnp.abs(z) + tnp.log(2 * scale))


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> pdf(0.0)
    array(0.5)
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function: ``exp(z) / 2`` for ``z <= 0``, ``1 - exp(-z) / 2`` above.

    Examples
    --------
    >>> cdf(-1.0)
    array(0.18393972)
    """
    z = standardize(x, loc, scale)[0]
    return tnp.where(z <= 0, 0.5 * tnp.exp(z), 1 - 0.5 * tnp.exp(-z))
