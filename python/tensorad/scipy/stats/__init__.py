"""``tensorad.scipy.stats``: probability distributions and statistics, as ``jax.scipy.stats``.

One module per distribution (``norm``, ``gamma``, ...), each with the
functions JAX's has; ``mode``, ``rankdata`` and ``sem`` (:mod:`.core`) and
the Gaussian kernel density estimate ``gaussian_kde`` (:mod:`.kde`).

Examples
--------
>>> import numpy as np
>>> from tensorad.scipy import stats
>>> stats.norm.cdf(np.array([0.0]))
array([0.5])
"""

from . import (bernoulli, beta, betabinom, binom, cauchy, chi2, dirichlet, expon, gamma,  # noqa: F401
               gennorm, geom, gumbel_l, gumbel_r, laplace, logistic, multinomial, multivariate_normal,
               nbinom, norm, pareto, poisson, t, truncnorm, uniform, vonmises, wrapcauchy)
from .core import mode, rankdata, sem  # noqa: F401
from .kde import gaussian_kde  # noqa: F401
