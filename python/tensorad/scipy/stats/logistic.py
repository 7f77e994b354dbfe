"""``tensorad.scipy.stats.logistic``: the logistic distribution, as ``jax.scipy.stats.logistic``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import standardize

__all__ = ["cdf", "isf", "logpdf", "pdf", "ppf", "sf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """Log of the density ``1 / (scale (e^(z/2) + e^(-z/2))**2)``, through ``logaddexp`` to stay finite in the tails.

    Examples
    --------
    >>> logpdf(0.0)
    array(-1.38629436)
    """
    z, _, _, scale = standardize(x, loc, scale)
    return -2 * tnp.logaddexp(z / 2, -z / 2) - tnp.log(scale)


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> pdf(0.0)
    array(0.25)
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function ``expit((x - loc) / scale)``.

    Examples
    --------
    >>> cdf(1.0)
    array(0.73105858)
    """
    return special.expit(standardize(x, loc, scale)[0])


@emits_ops
def sf(x, loc=0, scale=1):
    """The survival function ``expit(-(x - loc) / scale)``.

    Examples
    --------
    >>> sf(1.0)
    array(0.26894142)
    """
    return special.expit(-standardize(x, loc, scale)[0])


@emits_ops
def ppf(q, loc=0, scale=1):
    """The quantile function ``loc + scale * logit(q)``.

    Examples
    --------
    >>> ppf(0.75)
    array(1.09861229)
    """
    q, loc, scale = standardize(q, loc, scale)[1:]
    return loc + scale * special.logit(q)


@emits_ops
def isf(q, loc=0, scale=1):
    """The inverse of :func:`sf`, ``loc - scale * logit(q)``.

    Examples
    --------
    >>> isf(0.25)
    array(1.09861229)
    """
    q, loc, scale = standardize(q, loc, scale)[1:]
    return loc - scale * special.logit(q)
