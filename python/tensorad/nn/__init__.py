"""``tensorad.nn``: neural-network layers over traced arrays, differentiable in both modes.

One namespace for the layer families, each in its own module:

- activations, as ``jax.nn``'s: :func:`relu`, :func:`relu6`, :func:`leaky_relu`, :func:`elu`,
  :func:`celu`, :func:`selu`, :func:`gelu`, :func:`silu` (alias ``swish``), :func:`mish`,
  :func:`sigmoid`, :func:`log_sigmoid`, :func:`hard_sigmoid`, :func:`hard_silu` (alias
  ``hard_swish``), :func:`hard_tanh`, :func:`tanh`, :func:`soft_sign`, :func:`softplus`,
  :func:`squareplus`, :func:`sparse_plus`, :func:`sparse_sigmoid`, :func:`log1mexp`,
  :func:`glu`, :func:`identity`
- log-domain reductions: :func:`softmax`, :func:`log_softmax`, :func:`logsumexp`, :func:`logmeanexp`
- attention (``[B]TNH``, as ``jax.nn``): :func:`dot_product_attention`
- convolution and pooling (NCHW): :func:`conv2d`, :func:`max_pool2d`, :func:`avg_pool2d`
- losses: :func:`nll_loss`, :func:`cross_entropy`
- normalization: :func:`standardize`, :func:`layer_norm`, :func:`batch_norm`
- lookup and encoding: :func:`embedding`, :func:`one_hot`
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
from .activations import (celu, elu, gelu, glu, hard_sigmoid, hard_silu, hard_swish, hard_tanh, identity, leaky_relu,
                          log1mexp, log_sigmoid, log_softmax, logmeanexp, logsumexp, mish, relu, relu6, selu, sigmoid,
                          silu, soft_sign, softmax, softplus, sparse_plus, sparse_sigmoid, squareplus, swish, tanh)
from .attention import dot_product_attention
from .conv import conv2d
from .embedding import embedding, one_hot
from .layers import Conv2d, Dense, Embedding, Flatten, LayerNorm, ReLU, Sequential, SequentialCell, Tanh
from .loss import cross_entropy, nll_loss
from .module import Cell, Module, Parameter
from .normalization import batch_norm, layer_norm, standardize
from .pool import avg_pool2d, max_pool2d
from .random import dropout

__all__ = [
    "Cell", "Conv2d", "Dense", "Embedding", "Flatten", "LayerNorm", "Module", "Parameter", "ReLU", "Sequential",
    "SequentialCell", "Tanh", "avg_pool2d", "batch_norm", "celu", "conv2d", "cross_entropy", "dot_product_attention",
    "dropout", "elu", "embedding", "gelu", "glu", "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "identity",
    "layer_norm", "leaky_relu", "log1mexp", "log_sigmoid", "log_softmax", "logmeanexp", "logsumexp", "max_pool2d",
    "mish", "nll_loss", "one_hot", "random", "relu", "relu6", "selu", "sigmoid", "silu", "soft_sign", "softmax",
    "softplus", "sparse_plus", "sparse_sigmoid", "squareplus", "standardize", "swish", "tanh",
]
