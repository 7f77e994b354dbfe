"""``tensorad.scipy``: the parts of ``jax.scipy`` that tensorad provides, over traced arrays.

Each submodule has the names and semantics of its ``jax.scipy`` counterpart
(``special`` for special functions, ``stats`` for probability distributions,
``signal``, ``fft`` (cosine transforms), ``ndimage``, ``integrate`` and
``interpolate``);
like ``tensorad.numpy``, its functions run eagerly on concrete arrays and
emit IR inside a trace.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy import special
>>> ta.jit(special.gammaln)(np.array([1.0, 5.0]))
array([0.        , 3.17805383])
"""

from . import fft, integrate, interpolate, linalg, ndimage, signal, special, stats  # noqa: F401
