"""Embedding lookup: rows of a table at integer indices (PyTorch's ``F.embedding``).

Examples
--------
>>> import numpy as np, tensorad as ta
>>> table = np.arange(6.0).reshape(3, 2)
>>> ta.jit(lambda t: embedding(np.array([[2, 0]]), t))(table)
array([[[4., 5.],
        [0., 1.]]])
"""

from __future__ import annotations

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
