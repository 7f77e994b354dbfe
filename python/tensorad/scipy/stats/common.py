"""Helpers the distribution modules of :mod:`tensorad.scipy.stats` share.

Every distribution promotes its arguments to one float dtype (integers in
float64, as :func:`~tensorad.scipy.special.promote_args_inexact`) and, for the
location-scale families, works on the standardized ``(x - loc) / scale``.

Examples
--------
>>> import numpy as np
>>> from tensorad import jit
>>> jit(lambda x: standardize(x, 1.0, 2.0)[0])(np.array([3.0]))
array([1.])
"""

from __future__ import annotations

import numpy as np

from ... import numpy as tnp
from .. import special

__all__ = ["nan_unless", "standardize", "zero_density_unless"]


def standardize(x, loc, scale, *params) -> list:
    """``[(x - loc) / scale, x, loc, scale, *params]``, all promoted to one float dtype.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import jit
    >>> jit(lambda x: standardize(x, 1, 4, 2)[4])(np.float32(3.0)).dtype
    dtype('float32')
    """
    x, loc, scale, *params = special.promote_args_inexact(x, loc, scale, *params)
    return [(x - loc) / scale, x, loc, scale, *params]


def zero_density_unless(inside, log_density):
    """``log_density`` where ``inside`` holds, else ``-inf`` (a point outside the support).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import jit
    >>> jit(lambda x: zero_density_unless(x > 0, x))(np.array([-1.0, 2.0]))
    array([-inf,   2.])
    """
    return tnp.where(inside, log_density, -np.inf)


def nan_unless(valid, value):
    """``value`` where ``valid`` holds, else NaN (an invalid parameter or probability).

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import jit
    >>> jit(lambda s: nan_unless(s > 0, s))(np.array([-1.0, 2.0]))
    array([nan,  2.])
    """
    return tnp.where(valid, value, np.nan)
