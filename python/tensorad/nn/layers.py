"""Layers with parameters, built on :class:`~tensorad.nn.module.Module` (MindSpore's ``nn`` cells).

``Dense``, ``Conv2d``, ``LayerNorm``, ``Embedding``, ``Sequential`` (alias
``SequentialCell``) and the parameter-free ``ReLU``, ``Tanh``, ``Flatten``.
Initial values are drawn with numpy from ``seed`` (PyTorch's default
ranges: uniform in ``±1/sqrt(fan_in)``), or given as ``weight_init`` /
``bias_init``: an array, ``"zeros"``, ``"ones"`` or ``"normal"`` (sigma 0.01).

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import nn
>>> net = nn.Sequential(nn.Dense(3, 4, seed=0), nn.ReLU(), nn.Dense(4, 2, seed=1))
>>> net(np.ones((5, 3))).shape, [p.name for p in net.trainable_params()]
((5, 2), ['0.weight', '0.bias', '2.weight', '2.bias'])
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .. import numpy as tnp
from .activations import relu
from .conv import conv2d
from .embedding import embedding
from .module import Module, Parameter
from .normalization import layer_norm


def _initial(init, shape: tuple, fan_in: int, rng: np.random.Generator, dtype) -> np.ndarray:
    if init is None:
        bound = 1.0 / np.sqrt(max(fan_in, 1))
        return rng.uniform(-bound, bound, shape).astype(dtype)
    if isinstance(init, str):
        makers = {"zeros": lambda: np.zeros(shape), "ones": lambda: np.ones(shape),
                  "normal": lambda: rng.normal(0.0, 0.01, shape)}
        if init not in makers:
            raise ValueError(f"initializer {init!r}: an array, None, 'zeros', 'ones' or 'normal'")
        return makers[init]().astype(dtype)
    value = np.asarray(init, dtype=dtype)
    if value.shape != tuple(shape):
        raise ValueError(f"an initial value of shape {value.shape} for a parameter of shape {tuple(shape)}")
    return value


class Dense(Module):
    """``y = activation(x @ weight.T + bias)``; ``weight`` is ``(out_channels, in_channels)``.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import nn
    >>> layer = nn.Dense(2, 1, weight_init=np.array([[1.0, 2.0]]), bias_init="ones")
    >>> layer(np.array([[3.0, 4.0]])).tolist()
    [[12.0]]
    """

    def __init__(self, in_channels: int, out_channels: int, weight_init=None, bias_init=None,
                 has_bias: bool = True, activation=None, dtype=np.float64, seed: int | None = None):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.in_channels, self.out_channels, self.activation = in_channels, out_channels, activation
        self.weight = Parameter(_initial(weight_init, (out_channels, in_channels), in_channels, rng, dtype))
        self.bias = Parameter(_initial(bias_init, (out_channels,), in_channels, rng, dtype)) if has_bias else None

    def construct(self, x):
        y = tnp.matmul(x, tnp.transpose(self.weight))
        if self.bias is not None:
            y = y + self.bias
        return y if self.activation is None else self.activation(y)


class Conv2d(Module):
    """2-d convolution of NCHW inputs; ``weight`` is ``(out, in / group, kh, kw)``.

    ``pad_mode`` is ``"valid"`` (no padding), ``"same"`` (stride 1: the
    output keeps the input's size) or ``"pad"`` (``padding`` zeros, an int or
    (top, left, bottom, right)), as MindSpore names them.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import nn
    >>> conv = nn.Conv2d(1, 2, 3, pad_mode="same", weight_init="ones", seed=0)
    >>> conv(np.ones((1, 1, 4, 4))).shape
    (1, 2, 4, 4)
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, pad_mode: str = "same",
                 padding=0, dilation=1, group: int = 1, has_bias: bool = False, weight_init=None,
                 bias_init=None, dtype=np.float64, seed: int | None = None):
        super().__init__()
        kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
        if pad_mode not in ("same", "valid", "pad"):
            raise ValueError(f"pad_mode {pad_mode!r}: 'same', 'valid' or 'pad'")
        if pad_mode == "same" and stride not in (1, (1, 1)):
            raise ValueError("pad_mode='same' is supported with stride 1")
        dh, dw = (dilation, dilation) if isinstance(dilation, int) else tuple(dilation)
        if pad_mode == "same":
            th, tw = dh * (kh - 1), dw * (kw - 1)
            padding = (th // 2, tw // 2, th - th // 2, tw - tw // 2)
        elif pad_mode == "valid":
            padding = 0
        self.stride, self.padding, self.dilation, self.group = stride, padding, dilation, group
        rng = np.random.default_rng(seed)
        fan_in = in_channels // group * kh * kw
        self.weight = Parameter(_initial(weight_init, (out_channels, in_channels // group, kh, kw), fan_in, rng,
                                         dtype))
        self.bias = Parameter(_initial(bias_init, (out_channels,), fan_in, rng, dtype)) if has_bias else None

    def construct(self, x):
        return conv2d(x, self.weight, self.bias, stride=self.stride, padding=self.padding,
                      dilation=self.dilation, groups=self.group)


class LayerNorm(Module):
    """Normalize over the trailing dims of ``normalized_shape``, then scale by ``gamma`` and shift by ``beta``.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import nn
    >>> np.round(nn.LayerNorm((2,))(np.array([[1.0, 3.0]])), 4).tolist()
    [[-1.0, 1.0]]
    """

    def __init__(self, normalized_shape: Sequence[int], epsilon: float = 1e-7, gamma_init="ones",
                 beta_init="zeros", dtype=np.float64):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.epsilon = shape, epsilon
        rng = np.random.default_rng(0)
        self.gamma = Parameter(_initial(gamma_init, shape, 1, rng, dtype))
        self.beta = Parameter(_initial(beta_init, shape, 1, rng, dtype))

    def construct(self, x):
        axes = tuple(range(-len(self.normalized_shape), 0))
        return layer_norm(x, self.gamma, self.beta, axis=axes, eps=self.epsilon)


class Embedding(Module):
    """Rows of a ``(vocab_size, embedding_size)`` table at integer indices.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import nn
    >>> table = nn.Embedding(3, 2, embedding_table=np.arange(6.0).reshape(3, 2))
    >>> table(np.array([2, 0])).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """

    def __init__(self, vocab_size: int, embedding_size: int, embedding_table="normal", dtype=np.float64,
                 seed: int | None = None):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.embedding_table = Parameter(_initial(embedding_table, (vocab_size, embedding_size), 1, rng, dtype))

    def construct(self, indices):
        return embedding(indices, self.embedding_table)


class Sequential(Module):
    """Modules (or functions) applied in order; the ``k``-th is attribute ``"k"``.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import nn
    >>> nn.Sequential(nn.Flatten(), nn.ReLU())(np.array([[[-1.0], [2.0]]])).tolist()
    [[0.0, 2.0]]
    """

    def __init__(self, *cells):
        super().__init__()
        if len(cells) == 1 and isinstance(cells[0], (list, tuple)):
            cells = tuple(cells[0])
        for k, cell in enumerate(cells):
            if not callable(cell):
                raise TypeError(f"Sequential: item {k} ({type(cell).__name__}) is not callable")
            setattr(self, str(k), cell)
        self.length = len(cells)

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, k: int):
        return getattr(self, str(range(self.length)[k]))

    def construct(self, x):
        for k in range(self.length):
            x = self[k](x)
        return x


SequentialCell = Sequential  # MindSpore's name


class ReLU(Module):
    """``max(x, 0)``."""

    def construct(self, x):
        return relu(x)


class Tanh(Module):
    """``tanh(x)``."""

    def construct(self, x):
        return tnp.tanh(x)


class Flatten(Module):
    """Keep the first dim, flatten the rest."""

    def construct(self, x):
        x = tnp.asarray(x)
        return tnp.reshape(x, (x.shape[0], -1))
