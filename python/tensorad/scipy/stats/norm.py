"""``tensorad.scipy.stats.norm``: the normal distribution, as ``jax.scipy.stats.norm``.

Every function takes ``loc`` and ``scale`` (broadcast against ``x``, default
0 and 1); integer arguments are computed in float64. The tails stay
accurate: ``cdf`` and ``sf`` through ``erfc``, ``logcdf`` and ``logsf``
through :func:`~tensorad.scipy.special.log_ndtr`, ``ppf`` and ``isf`` through
:func:`~tensorad.scipy.special.ndtri`.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy.stats import norm
>>> ta.grad(lambda x: norm.logpdf(x, 1.0, 2.0))(0.0)  # -(x - loc) / scale**2
array(0.25)
"""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import standardize

__all__ = ["cdf", "isf", "logcdf", "logpdf", "logsf", "pdf", "ppf", "sf"]


@emits_ops
def logpdf(x, loc=0, scale=1):
    """Log of the density ``exp(-(x - loc)**2 / (2 scale**2)) / sqrt(2 pi scale**2)``.

    Examples
    --------
    >>> import numpy as np
    >>> logpdf(np.array([0.0, 1.0]))
    array([-0.91893853, -1.41893853])
    """
    x, loc, scale = special.promote_args_inexact(x, loc, scale)
    variance = scale * scale
    return ((x - loc) * (x - loc) / variance + tnp.log(2 * math.pi * variance)) * -0.5


@emits_ops
def pdf(x, loc=0, scale=1):
    """The density, ``exp(logpdf(x, loc, scale))``.

    Examples
    --------
    >>> import numpy as np
    >>> pdf(np.array([0.0]))
    array([0.39894228])
    """
    return tnp.exp(logpdf(x, loc, scale))


@emits_ops
def cdf(x, loc=0, scale=1):
    """The distribution function ``ndtr((x - loc) / scale)``.

    Examples
    --------
    >>> import numpy as np
    >>> cdf(np.array([0.0, -10.0]))
    array([5.00000000e-01, 7.61985302e-24])
    """
    return special.ndtr(standardize(x, loc, scale)[0])


@emits_ops
def logcdf(x, loc=0, scale=1):
    """``log(cdf(x, loc, scale))``, accurate in both tails (:func:`~tensorad.scipy.special.log_ndtr`).

    Examples
    --------
    >>> import numpy as np
    >>> logcdf(np.array([-40.0]))
    array([-804.60844201])
    """
    return special.log_ndtr(standardize(x, loc, scale)[0])


@emits_ops
def sf(x, loc=0, scale=1):
    """The survival function ``1 - cdf(x, loc, scale)``, accurate where it is small.

    Examples
    --------
    >>> import numpy as np
    >>> sf(np.array([10.0]))
    array([7.61985302e-24])
    """
    return special.ndtr(-standardize(x, loc, scale)[0])


@emits_ops
def logsf(x, loc=0, scale=1):
    """``log(sf(x, loc, scale))``, accurate in both tails.

    Examples
    --------
    >>> import numpy as np
    >>> logsf(np.array([40.0]))
    array([-804.60844201])
    """
    return special.log_ndtr(-standardize(x, loc, scale)[0])


@emits_ops
def ppf(q, loc=0, scale=1):
    """The quantile function, the inverse of :func:`cdf`: ``loc + scale * ndtri(q)``.

    Examples
    --------
    >>> import numpy as np
    >>> ppf(np.array([0.5, 0.975]), 1.0, 2.0)
    array([1.        , 4.91992797])
    """
    q, loc, scale = special.promote_args_inexact(q, loc, scale)
    return loc + scale * special.ndtri(q)


@emits_ops
def isf(q, loc=0, scale=1):
    """The inverse of :func:`sf`: ``loc - scale * ndtri(q)`` (accurate for small ``q``).

    Examples
    --------
    >>> import numpy as np
    >>> isf(np.array([0.025]))
    array([1.95996398])
    """
    q, loc, scale = special.promote_args_inexact(q, loc, scale)
    return loc - scale * special.ndtri(q)
