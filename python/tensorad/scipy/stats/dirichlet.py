"""``tensorad.scipy.stats.dirichlet``: the Dirichlet distribution, as ``jax.scipy.stats.dirichlet``.

``x`` holds the coordinates along its first axis: ``len(alpha)`` of them, or
one fewer (the last is then ``1 - sum``).
"""

from __future__ import annotations

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import zero_density_unless

__all__ = ["logpdf", "pdf"]


@emits_ops
def logpdf(x, alpha):
    """Log of the density ``prod x_i**(alpha_i - 1) / B(alpha)``; ``-inf`` off the simplex (to 1e-6).

    Examples
    --------
    >>> import numpy as np
    >>> logpdf(np.array([0.25, 0.75]), np.array([2.0, 2.0]))
    array(0.11778304)
    """
    x, alpha = special.promote_args_inexact(x, alpha)
    if alpha.ndim != 1:
        raise ValueError(f"`alpha` must be one-dimensional; got alpha.shape={alpha.shape}")
    if x.shape[0] not in (alpha.shape[0], alpha.shape[0] - 1):
        raise ValueError("`x` must have either the same number of entries as `alpha` or one entry fewer; "
                         f"got x.shape={x.shape}, alpha.shape={alpha.shape}")
    if x.shape[0] != alpha.shape[0]:
        x = tnp.concatenate([x, 1 - tnp.sum(x, axis=0, keepdims=True)], axis=0)
    normalizer = tnp.sum(special.gammaln(alpha)) - special.gammaln(tnp.sum(alpha))
    alpha = alpha.reshape(alpha.shape + (1,) * (x.ndim - 1))
    log_probs = tnp.sum(special.xlogy(alpha - 1, x), axis=0) - normalizer
    on_simplex = tnp.all(x > 0, axis=0) & (tnp.abs(tnp.sum(x, axis=0) - 1) < 1e-6)
    return zero_density_unless(on_simplex, log_probs)


@emits_ops
def pdf(x, alpha):
    """The density, ``exp(logpdf(x, alpha))``.

    Examples
    --------
    >>> import numpy as np
    >>> pdf(np.array([0.5]), np.array([2.0, 2.0]))
    array(1.5)
    """
    return tnp.exp(logpdf(x, alpha))
