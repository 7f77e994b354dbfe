"""``gaussian_kde``: a Gaussian kernel density estimate, as ``jax.scipy.stats.gaussian_kde``.

A pytree (its arrays are leaves), so it can be built inside ``jit`` or passed
into it. ``integrate_box`` and ``set_bandwidth`` raise, as JAX's.
"""

from __future__ import annotations

import math

import numpy as np

from ... import numpy as tnp
from ... import random
from ...tracing import emits_ops
from ...tree_util import register_pytree_node_class
from .. import linalg, special
from ..special import logsumexp

__all__ = ["gaussian_kde"]


@emits_ops
def _fit(dataset, weights, bw_method):
    """``(dataset, weights, neff, covariance, inv_cov)`` of the estimate, the data promoted to a float dtype."""
    dataset = tnp.atleast_2d(dataset)
    d, n = dataset.shape
    if weights is None:
        (dataset,) = special.promote_args_inexact(dataset)
        weights = tnp.full((n,), 1.0 / n, dtype=dataset.dtype)
    else:
        dataset, weights = special.promote_args_inexact(dataset, weights)
        weights = tnp.atleast_1d(weights)
        if weights.ndim != 1 or weights.shape[0] != n:
            raise ValueError("`weights` input should be one-dimensional, of length n")
        weights = weights / tnp.sum(weights)
    neff = 1 / tnp.sum(weights ** 2)
    if bw_method is None or bw_method == "scott":
        factor = neff ** (-1.0 / (d + 4))
    elif bw_method == "silverman":
        factor = (neff * (d + 2) / 4.0) ** (-1.0 / (d + 4))
    elif isinstance(bw_method, str):
        raise ValueError("`bw_method` should be 'scott', 'silverman', a scalar, or a callable.")
    else:
        factor = bw_method
    data_covariance = tnp.atleast_2d(tnp.cov(dataset, rowvar=True, bias=False, aweights=weights))
    return dataset, weights, neff, data_covariance * factor ** 2, tnp.linalg.inv(data_covariance) / factor ** 2


@emits_ops
def _kernel_sum(in_log: bool, dataset, weights, points, inv_cov):
    """``sum_i w_i N(points; dataset_i, cov)`` at every point (its log if ``in_log``), in whitened coordinates."""
    whitening = linalg.cholesky(inv_cov, lower=True)
    d = dataset.shape[0]
    data = tnp.matmul(dataset.T, whitening)
    xs = tnp.matmul(points.T, whitening)
    log_norm = tnp.sum(tnp.log(tnp.diagonal(whitening))) - 0.5 * d * math.log(2 * math.pi)
    arg = log_norm - 0.5 * tnp.sum((xs[:, None, :] - data[None, :, :]) ** 2, axis=-1)
    if in_log:
        return logsumexp(tnp.log(weights)[None, :] + arg, axis=1)
    return tnp.sum(weights[None, :] * tnp.exp(arg), axis=1)


@emits_ops
def _gaussian_convolution(covariance, dataset, weights, means):
    """``sum_i w_i N(mean; dataset_i, covariance)`` for each column ``mean`` of ``means``."""
    factor = linalg.cholesky(covariance, lower=True)
    d = dataset.shape[0]
    norm = 1.0 / (math.sqrt(2 * math.pi) ** d * tnp.prod(tnp.diagonal(factor)))
    diff = dataset[:, :, None] - means[:, None, :]
    white = linalg.solve_triangular(factor, diff.reshape((d, -1)), lower=True).reshape(diff.shape)
    return norm * tnp.sum(tnp.exp(-0.5 * tnp.sum(white * white, axis=0)) * weights[:, None], axis=0)


@emits_ops
def _box_1d(dataset, weights, covariance, low, high):
    sigma = tnp.sqrt(covariance[0, 0])
    return tnp.sum(weights * (special.ndtr((high - dataset[0]) / sigma) - special.ndtr((low - dataset[0]) / sigma)))


@emits_ops
def _resample(key, dataset, weights, covariance, shape):
    index_key, noise_key = random.split(key)
    index = random.choice(index_key, dataset.shape[1], shape=shape, p=weights)
    noise = random.multivariate_normal(noise_key, tnp.zeros(dataset.shape[0], covariance.dtype), covariance,
                                       shape=shape, dtype=dataset.dtype)
    return dataset[:, index] + tnp.moveaxis(noise, -1, 0)


@register_pytree_node_class
class gaussian_kde:  # noqa: N801 (scipy's and JAX's name)
    """A Gaussian kernel density estimate of ``dataset`` (``(d, n)``: ``n`` points in ``d`` dimensions).

    ``bw_method`` is ``'scott'`` (the default), ``'silverman'``, a scalar
    factor or a callable of the estimate; ``weights`` weigh the points.

    Examples
    --------
    >>> import numpy as np
    >>> kde = gaussian_kde(np.array([0.0, 1.0, 3.0]))
    >>> kde.integrate_box_1d(-np.inf, np.inf)
    array(1.)
    """

    def __init__(self, dataset, bw_method=None, weights=None):
        if not np.size(dataset) > 1:
            raise ValueError("`dataset` input should have multiple elements.")
        if callable(bw_method):
            # The callable sees the estimate at Scott's factor, then sets its own.
            self._set(*_fit(dataset, weights, "scott"))
            self._set(*_fit(dataset, weights, bw_method(self)))
        else:
            self._set(*_fit(dataset, weights, bw_method))

    def _set(self, dataset, weights, neff, covariance, inv_cov):
        self.dataset, self.weights, self.neff, self.covariance, self.inv_cov = dataset, weights, neff, covariance, inv_cov

    def tree_flatten(self):
        """The arrays, as pytree leaves."""
        return (self.dataset, self.weights, self.neff, self.covariance, self.inv_cov), None

    @classmethod
    def tree_unflatten(cls, aux_data, children):
        """An estimate from the leaves :meth:`tree_flatten` gave."""
        del aux_data
        kde = cls.__new__(cls)
        kde._set(*children)
        return kde

    @property
    def d(self):
        """The dimension of the data."""
        return self.dataset.shape[0]

    @property
    def n(self):
        """The number of data points."""
        return self.dataset.shape[1]

    def _points(self, points):
        points = tnp.atleast_2d(points)
        d, m = points.shape
        if d != self.d:
            if d == 1 and m == self.d:
                return tnp.reshape(points, (self.d, 1))
            raise ValueError(f"points have dimension {d}, dataset has dimension {self.d}")
        return points

    def evaluate(self, points):
        """The estimated density at ``points`` (``(d, m)``).

        Examples
        --------
        >>> import numpy as np
        >>> gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0).evaluate(np.array([0.0]))
        array([0.21969564])
        """
        return _kernel_sum(False, self.dataset, self.weights, self._points(points), self.inv_cov)

    __call__ = evaluate
    pdf = evaluate

    def logpdf(self, x):
        """The log of the estimated density at ``x``, summed in logs (finite far from the data).

        Examples
        --------
        >>> import numpy as np
        >>> gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0).logpdf(np.array([40.0]))
        array([-382.2086593])
        """
        return _kernel_sum(True, self.dataset, self.weights, self._points(x), self.inv_cov)

    def integrate_gaussian(self, mean, cov):
        """The integral of the estimate times the normal density ``N(mean, cov)``.

        Examples
        --------
        >>> import numpy as np
        >>> gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0).integrate_gaussian(0.0, 1.0)
        np.float64(0.19496965572274114)
        """
        mean = tnp.atleast_1d(tnp.squeeze(tnp.asarray(mean)))
        cov = tnp.atleast_2d(cov)
        if mean.shape != (self.d,) or cov.shape != (self.d, self.d):
            raise ValueError(f"mean and covariance must have dimension {self.d}")
        return _gaussian_convolution(self.covariance + cov, self.dataset, self.weights, mean[:, None])[0]

    def integrate_box_1d(self, low, high):
        """The probability mass of a one-dimensional estimate between ``low`` and ``high``.

        Examples
        --------
        >>> import numpy as np
        >>> gaussian_kde(np.array([-1.0, 1.0])).integrate_box_1d(0.0, np.inf)
        array(0.5)
        """
        if self.d != 1:
            raise ValueError("integrate_box_1d() only handles 1D pdfs")
        if np.ndim(low) != 0 or np.ndim(high) != 0:
            raise ValueError("the limits of integration in integrate_box_1d must be scalars")
        return _box_1d(self.dataset, self.weights, self.covariance, low, high)

    def integrate_kde(self, other):
        """The integral of the product of this estimate and ``other``.

        Examples
        --------
        >>> import numpy as np
        >>> kde = gaussian_kde(np.array([-1.0, 1.0]), bw_method=1.0)
        >>> kde.integrate_kde(kde)
        array(0.16022825)
        """
        if other.d != self.d:
            raise ValueError("KDEs are not the same dimensionality")
        small, large = (self, other) if self.n < other.n else (other, self)
        per_point = _gaussian_convolution(self.covariance + other.covariance, large.dataset, large.weights, small.dataset)
        return tnp.sum(per_point * small.weights)

    def resample(self, key, shape=()):
        """``shape`` draws from the estimate, as a ``(d, *shape)`` array: a data point plus kernel noise.

        Examples
        --------
        >>> import numpy as np
        >>> from tensorad import random
        >>> gaussian_kde(np.array([-1.0, 1.0])).resample(random.PRNGKey(0), (5,)).shape
        (1, 5)
        """
        return _resample(key, self.dataset, self.weights, self.covariance, tuple(shape))

    def integrate_box(self, low_bounds, high_bounds, maxpts=None):
        """Not supported (as in JAX): use :meth:`integrate_box_1d`."""
        del low_bounds, high_bounds, maxpts
        raise NotImplementedError("only 1D box integrations are supported; use `integrate_box_1d`")

    def set_bandwidth(self, bw_method=None):
        """Not supported (as in JAX): the bandwidth is fixed when the estimate is built."""
        del bw_method
        raise NotImplementedError("dynamically changing the bandwidth method is not supported")
