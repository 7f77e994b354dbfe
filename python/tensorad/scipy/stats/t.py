"""``tensorad.scipy.stats.t``: Student's t distribution, as ``jax.scipy.stats.t``."""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import standardize

__all__ = ["logpdf", "pdf"]


@emits_ops
def logpdf(x, df, loc=0, scale=1):
    """Log of the density ``Gamma((df+1)/2) / (Gamma(df/2) sqrt(pi df) scale) (1 + z**2/df)**(-(df+1)/2)``.

    Examples
    --------
    >>> logpdf(0.0, 3.0)
    array(-1.00088885)
    """
    z, _, _, scale, df = standardize(x, loc, scale, df)
    half_df = df / 2
    normalizer = special.gammaln(half_df) - special.gammaln(half_df + 0.5) + tnp.log(math.pi * scale * scale * df) / 2
    return -(normalizer + (half_df + 0.5) * tnp.log1p(z * z / df))


@emits_ops
def pdf(x, df, loc=0, scale=1):
    """The density, ``exp(logpdf(x, df, loc, scale))``.

    Examples
    --------
    >>> pdf(0.0, 1.0)
    array(0.31830989)
    """
    return tnp.exp(logpdf(x, df, loc, scale))
