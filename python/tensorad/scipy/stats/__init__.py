"""``tensorad.scipy.stats``: probability distributions, as ``jax.scipy.stats``.

Examples
--------
>>> import numpy as np
>>> from tensorad.scipy import stats
>>> stats.norm.cdf(np.array([0.0]))
array([0.5])
"""

from . import norm  # noqa: F401
