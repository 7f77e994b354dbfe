"""``tensorad.nn``: neural-network layers over traced arrays, differentiable in both modes.

One namespace for the layer families, each in its own module:

- activations: :func:`relu`, :func:`gelu`, :func:`sigmoid`, :func:`softplus`,
  :func:`softmax`, :func:`log_softmax`, :func:`logsumexp`
- convolution and pooling (NCHW): :func:`conv2d`, :func:`max_pool2d`, :func:`avg_pool2d`
- losses: :func:`nll_loss`, :func:`cross_entropy`
- normalization: :func:`layer_norm`, :func:`batch_norm`
- lookup: :func:`embedding`
- randomness: :func:`dropout` and the counter-based PRNG :mod:`tensorad.nn.random`
  (``key``, ``split``, ``uniform``, ``normal``)
- networks with parameters (MindSpore's cells): :class:`Module` (alias ``Cell``),
  :class:`Parameter`, and the layers :class:`Dense`, :class:`Conv2d`, :class:`LayerNorm`,
  :class:`Embedding`, :class:`Sequential`, :class:`ReLU`, :class:`Tanh`, :class:`Flatten`

Use them inside functions compiled with :func:`tensorad.jit` (or transformed
by :func:`tensorad.grad` and friends).

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import nn
>>> logits, labels = np.array([[2.0, 0.5, -1.0]]), np.array([0])
>>> loss = ta.jit(lambda z: nn.cross_entropy(nn.relu(z), labels))
>>> bool(np.isclose(loss(logits), -np.log(np.exp(2.0) / (np.exp(2.0) + np.exp(0.5) + 1.0))))
True
"""

from . import random
from .activations import gelu, log_softmax, logsumexp, relu, sigmoid, softmax, softplus
from .conv import conv2d
from .embedding import embedding
from .layers import Conv2d, Dense, Embedding, Flatten, LayerNorm, ReLU, Sequential, SequentialCell, Tanh
from .loss import cross_entropy, nll_loss
from .module import Cell, Module, Parameter
from .normalization import batch_norm, layer_norm
from .pool import avg_pool2d, max_pool2d
from .random import dropout

__all__ = [
    "Cell", "Conv2d", "Dense", "Embedding", "Flatten", "LayerNorm", "Module", "Parameter", "ReLU", "Sequential",
    "SequentialCell", "Tanh", "avg_pool2d", "batch_norm", "conv2d", "cross_entropy", "dropout", "embedding", "gelu",
    "layer_norm", "log_softmax", "logsumexp", "max_pool2d", "nll_loss", "random", "relu",
    "sigmoid", "softmax", "softplus",
]
