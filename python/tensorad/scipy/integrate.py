"""``tensorad.scipy.integrate``: ``jax.scipy.integrate``, whose one function is ``trapezoid``.

It is :func:`tensorad.numpy.trapezoid` (JAX's is ``jax.numpy.trapezoid``
too): the integral of samples ``y`` by the trapezoidal rule, at ``x`` or
``dx`` apart, along ``axis``.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad.scipy import integrate
>>> ta.jit(integrate.trapezoid)(np.array([1.0, 2.0, 3.0]))
array(4.)
"""

from ..numpy import trapezoid

__all__ = ["trapezoid"]
