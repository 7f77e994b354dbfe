"""``tensorad.scipy.stats.multinomial``: the multinomial distribution, as ``jax.scipy.stats.multinomial``.

The counts ``x`` lie along the last axis and must be integers, as ``n``.
"""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from ...tracing import emits_ops
from .. import special
from .common import zero_density_unless

__all__ = ["logpmf", "pmf"]


@emits_ops
def logpmf(x, n, p):
    """Log of ``n! prod p_i**x_i / x_i!``; ``-inf`` unless the counts sum to ``n``.

    Examples
    --------
    >>> import numpy as np
    >>> logpmf(np.array([1, 2]), 3, np.array([0.5, 0.5]))
    array(-0.98082925)
    """
    (p,) = special.promote_args_inexact(p)
    x, n = tnp.asarray(x), tnp.asarray(n)
    if not (np.issubdtype(x.dtype, np.integer) and np.issubdtype(n.dtype, np.integer)):
        raise ValueError(f"x and n must be of integer type; got x.dtype={x.dtype}, n.dtype={n.dtype}")
    x, n = tnp.astype(x, p.dtype), tnp.astype(n, p.dtype)
    log_probs = special.gammaln(n + 1) + tnp.sum(special.xlogy(x, p) - special.gammaln(x + 1), axis=-1)
    return zero_density_unless(tnp.sum(x, axis=-1) == n, log_probs)


@emits_ops
def pmf(x, n, p):
    """The probability mass, ``exp(logpmf(x, n, p))``.

    Examples
    --------
    >>> import numpy as np
    >>> pmf(np.array([1, 1]), 2, np.array([0.5, 0.5]))
    array(0.5)
    """
    return tnp.exp(logpmf(x, n, p))
