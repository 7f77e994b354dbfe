"""``tensorad.scipy.stats.geom``: the geometric distribution on ``1, 2, ...``, as ``jax.scipy.stats.geom``."""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import zero_density_unless

__all__ = ["logpmf", "pmf"]


@emits_ops
def logpmf(k, p, loc=0):
    """Log of ``(1 - p)**(x - 1) p``, ``x = k - loc >= 1``.

    Examples
    --------
    >>> logpmf(2, 0.5)
    array(-1.38629436)
    """
    k, p, loc = special.promote_args_inexact(k, p, loc)
    x = k - loc
    return zero_density_unless(x > 0, special.xlog1py(x - 1, -p) + tnp.log(p))


@emits_ops
def pmf(k, p, loc=0):
    """The probability mass, ``exp(logpmf(k, p, loc))``.

    Examples
    --------
    >>> pmf(1, 0.25)
    array(0.25)
    """
    return tnp.exp(logpmf(k, p, loc))
