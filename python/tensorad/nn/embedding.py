"""Embedding lookup: rows of a table at integer indices (PyTorch's ``F.embedding``), and ``one_hot``.

``embedding(ids, table)`` is ``one_hot(ids, len(table)) @ table`` without the
product: ``one_hot`` gives the dense encoding itself, as ``jax.nn``'s.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> table = np.arange(6.0).reshape(3, 2)
>>> ta.jit(lambda t: embedding(np.array([[2, 0]]), t))(table)
array([[[4., 5.],
        [0., 1.]]])
"""

from __future__ import annotations

import operator

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

import tensorad.numpy as tnp
from tensorad.tracing import Tracer, emits_ops


@emits_ops
def embedding(indices, table) -> Tracer:
    """Rows of ``table`` at integer ``indices``: shape ``indices.shape + table.shape[1:]``.

    One ``tad.take`` along axis 0; the gradient with respect to ``table``
    scatter-adds the output gradient into the rows that were read (a row read
    several times gets the sum). Indices follow :func:`tensorad.numpy.take`:
    negative ones count from the end, traced ones out of range are clamped.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> grad = ta.grad(lambda t: embedding(np.array([1, 1, 0]), t).sum())
    >>> grad(np.zeros((3, 2)))
    array([[1., 1.],
           [2., 2.],
           [0., 0.]])
    """
    return tnp.take(table, indices, axis=0)


@emits_ops
def one_hot(x, num_classes: int, *, dtype=None, axis: int = -1) -> Tracer:
    """``x == k`` for each class ``k < num_classes``, along a new axis ``axis``, as ``jax.nn.one_hot``.

    Entries of ``x`` outside ``[0, num_classes)`` (negative ones included)
    give a row of zeros.

    Parameters
    ----------
    x : array of int
    num_classes : int
        A Python integer (the size of the new axis), not traced.
    dtype : dtype, optional
        Of the result; float64 by default (numpy's default float; JAX's is
        float32 unless ``jax_enable_x64``).
    axis : int
        Where the new axis goes in the result (``-1``: last).

    Raises
    ------
    TypeError
        ``num_classes`` is not an integer.
    ValueError
        ``num_classes`` is negative, or ``axis`` is out of range for the result.

    Examples
    --------
    >>> import numpy as np
    >>> one_hot(np.array([2, 0, -1]), 3)
    array([[0., 0., 1.],
           [1., 0., 0.],
           [0., 0., 0.]])
    """
    num_classes = operator.index(num_classes)
    if num_classes < 0:
        raise ValueError(f"one_hot: num_classes must be non-negative, got {num_classes}")
    x = tnp.asarray(x)
    axis = normalize_axis_index(axis, x.ndim + 1)
    classes_shape = [1] * x.ndim
    classes_shape.insert(axis, num_classes)
    classes = tnp.reshape(tnp.arange(num_classes, dtype=x.dtype), classes_shape)
    return (tnp.expand_dims(x, axis) == classes).astype(np.float64 if dtype is None else dtype)
