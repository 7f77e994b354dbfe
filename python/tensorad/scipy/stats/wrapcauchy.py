"""``tensorad.scipy.stats.wrapcauchy``: the wrapped Cauchy distribution on ``[0, 2 pi]``, as ``jax.scipy.stats.wrapcauchy``."""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import nan_unless, zero_density_unless

__all__ = ["logpdf", "pdf"]


@emits_ops
def logpdf(x, c):
    """Log of the density ``(1 - c**2) / (2 pi (1 + c**2 - 2 c cos(x)))``; NaN unless ``0 < c < 1``.

    Examples
    --------
    >>> logpdf(0.0, 0.5)
    array(-0.73926478)
    """
    x, c = special.promote_args_inexact(x, c)
    log_density = tnp.log(1 - c * c) - math.log(2 * math.pi) - tnp.log(1 + c * c - 2 * c * tnp.cos(x))
    return nan_unless((c > 0) & (c < 1), zero_density_unless((x >= 0) & (x <= 2 * math.pi), log_density))


@emits_ops
def pdf(x, c):
    """The density, ``exp(logpdf(x, c))``.

    Examples
    --------
    >>> pdf(0.0, 0.5)
    array(0.47746483)
    """
    return tnp.exp(logpdf(x, c))
