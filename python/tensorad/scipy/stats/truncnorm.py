"""``tensorad.scipy.stats.truncnorm``: the normal distribution truncated to ``[a, b]``, as ``jax.scipy.stats.truncnorm``.

``a`` and ``b`` are in standard units, ``(bound - loc) / scale``. The mass
``Phi(b) - Phi(a)`` is computed in logs, from the tail nearer to the
interval, so that far-tail truncations keep their accuracy; every function
is NaN where ``a >= b``.
"""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from . import norm
from .common import nan_unless, standardize, zero_density_unless

__all__ = ["cdf", "logcdf", "logpdf", "logsf", "pdf", "sf"]


def _log_diff(log_x, log_y):
    """``log(exp(log_x) - exp(log_y))`` for ``log_x >= log_y``."""
    return log_x + tnp.log(-tnp.expm1(log_y - log_x))


def _log_gauss_mass(a, b):
    """``log(Phi(b) - Phi(a))``, from the left tail, the right tail or the centre, whichever is accurate."""
    a, b = tnp.broadcast_arrays(a, b)
    right = a > 0
    tail = _log_diff(special.log_ndtr(tnp.where(right, -a, b)), special.log_ndtr(tnp.where(right, -b, a)))
    central = tnp.log1p(-special.ndtr(a) - special.ndtr(-b))
    return tnp.where((b > 0) & ~right, central, tail)


@emits_ops
def logpdf(x, a, b, loc=0, scale=1):
    """Log of the density ``norm.pdf(x, loc, scale) / (Phi(b) - Phi(a))`` inside the bounds.

    Examples
    --------
    >>> logpdf(0.0, -1.0, 1.0)
    array(-0.53722339)
    """
    z, x, loc, scale, a, b = standardize(x, loc, scale, a, b)
    log_density = norm.logpdf(x, loc, scale) - _log_gauss_mass(a, b)
    return nan_unless(a < b, zero_density_unless((z >= a) & (z <= b), log_density))


@emits_ops
def pdf(x, a, b, loc=0, scale=1):
    """The density, ``exp(logpdf(x, a, b, loc, scale))``.

    Examples
    --------
    >>> pdf(0.0, -1.0, 1.0)
    array(0.58436857)
    """
    return tnp.exp(logpdf(x, a, b, loc, scale))


@emits_ops
def logcdf(x, a, b, loc=0, scale=1):
    """``log((Phi(z) - Phi(a)) / (Phi(b) - Phi(a)))``, through the survival mass where the cdf is near 1.

    Examples
    --------
    >>> logcdf(0.0, -1.0, 1.0)
    array(-0.69314718)
    """
    z, _, _, _, a, b = standardize(x, loc, scale, a, b)
    z, a, b = tnp.broadcast_arrays(z, a, b)
    log_mass = _log_gauss_mass(a, b)
    log_cdf = _log_gauss_mass(a, z) - log_mass
    log_sf = _log_gauss_mass(z, b) - log_mass
    value = tnp.select([z >= b, z <= a, log_cdf > -0.1, z > a], [0.0, -np.inf, tnp.log1p(-tnp.exp(log_sf)), log_cdf])
    return nan_unless(a < b, value)


@emits_ops
def cdf(x, a, b, loc=0, scale=1):
    """The distribution function, ``exp(logcdf(x, a, b, loc, scale))``.

    Examples
    --------
    >>> cdf(0.0, -1.0, 1.0)
    array(0.5)
    """
    return tnp.exp(logcdf(x, a, b, loc, scale))


@emits_ops
def logsf(x, a, b, loc=0, scale=1):
    """``log(sf)``: the mirror image's ``logcdf(-x, -b, -a, -loc, scale)``.

    Examples
    --------
    >>> logsf(0.0, -1.0, 1.0)
    array(-0.69314718)
    """
    x, loc, scale, a, b = special.promote_args_inexact(x, loc, scale, a, b)
    return logcdf(-x, -b, -a, -loc, scale)


@emits_ops
def sf(x, a, b, loc=0, scale=1):
    """The survival function, ``exp(logsf(x, a, b, loc, scale))``.

    Examples
    --------
    >>> sf(0.0, -1.0, 1.0)
    array(0.5)
    """
    return tnp.exp(logsf(x, a, b, loc, scale))
