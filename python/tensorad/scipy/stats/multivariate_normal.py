"""``tensorad.scipy.stats.multivariate_normal``: the multivariate normal distribution, as ``jax.scipy.stats.multivariate_normal``.

``mean`` is a scalar (a univariate normal) or a vector along the last axis;
``cov`` a scalar (isotropic) or a matrix, factored by Cholesky.
"""

from __future__ import annotations

import math

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import linalg, special

__all__ = ["logpdf", "pdf"]


@emits_ops
def logpdf(x, mean, cov, allow_singular=None):
    """Log of the density ``exp(-(x - mean)^T cov^-1 (x - mean) / 2) / sqrt((2 pi)**n det(cov))``.

    Examples
    --------
    >>> import numpy as np
    >>> logpdf(np.array([1.0, 0.0]), np.zeros(2), np.eye(2))
    array(-2.33787707)
    """
    if allow_singular is not None:
        raise NotImplementedError("allow_singular argument of multivariate_normal.logpdf")
    x, mean, cov = special.promote_args_inexact(x, mean, cov)
    if not mean.shape:
        return -0.5 * (x - mean) ** 2 / cov - 0.5 * (math.log(2 * math.pi) + tnp.log(cov))
    n = mean.shape[-1]
    y = x - mean
    if not cov.shape:
        return -0.5 * tnp.sum(y * y, axis=-1) / cov - n / 2 * (math.log(2 * math.pi) + tnp.log(cov))
    if cov.ndim < 2 or cov.shape[-2:] != (n, n):
        raise ValueError("multivariate_normal.logpdf got incompatible shapes")
    factor = linalg.cholesky(cov, lower=True)
    y = tnp.broadcast_to(y, tnp.broadcast_shapes(y.shape, cov.shape[:-1]))
    whitened = linalg.solve_triangular(tnp.broadcast_to(factor, y.shape[:-1] + (n, n)), y[..., None], lower=True)[..., 0]
    log_det = tnp.sum(tnp.log(tnp.diagonal(factor, axis1=-2, axis2=-1)), axis=-1)
    return -0.5 * tnp.sum(whitened * whitened, axis=-1) - n / 2 * math.log(2 * math.pi) - log_det


@emits_ops
def pdf(x, mean, cov):
    """The density, ``exp(logpdf(x, mean, cov))``.

    Examples
    --------
    >>> import numpy as np
    >>> pdf(np.zeros(2), np.zeros(2), 2.0)
    array(0.07957747)
    """
    return tnp.exp(logpdf(x, mean, cov))
