"""``tensorad.scipy.stats.vonmises``: the von Mises distribution on the circle, as ``jax.scipy.stats.vonmises``."""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import nan_unless

__all__ = ["logpdf", "pdf"]


@emits_ops
def logpdf(x, kappa):
    """Log of the density ``exp(kappa cos(x)) / (2 pi I0(kappa))``; NaN where ``kappa <= 0``.

    Written with ``i0e`` (``I0(k) exp(-k)``) so that large ``kappa`` does not overflow.

    Examples
    --------
    >>> logpdf(0.0, 1.0)
    array(-1.07379142)
    """
    x, kappa = special.promote_args_inexact(x, kappa)
    return nan_unless(kappa > 0, kappa * (tnp.cos(x) - 1) - tnp.log(2 * math.pi * special.i0e(kappa)))


@emits_ops
def pdf(x, kappa):
    """The density, ``exp(logpdf(x, kappa))``.

    Examples
    --------
    >>> pdf(0.0, 1.0)
    array(0.34171049)
    """
    return tnp.exp(logpdf(x, kappa))
