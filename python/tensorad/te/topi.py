"""A small operator library of tensor expressions, named as TVM's ``topi``.

Every function returns a :func:`~tensorad.te.compute`: elementwise
arithmetic with numpy broadcasting, reductions, ``full``, ``tensordot``, and
in :data:`nn` the dense layer, padding, NCHW convolution and pooling, as the
TVM tutorial uses them.

Examples
--------
>>> import numpy as np
>>> from tensorad import te
>>> from tensorad.te import topi
>>> A = te.placeholder((2, 3), "float64", name="A")
>>> B = te.placeholder((3,), "float64", name="B")
>>> S = topi.sum(topi.add(A, B))
>>> float(te.build([A, B, S])(np.ones((2, 3)), np.arange(3.0)))
12.0
"""

from __future__ import annotations

import types
from typing import Sequence

import numpy as np

from ..nn.conv import spatial_pair
from .tensor import Tensor, compute, const, if_then_else, reduce_axis
from . import tensor as T


def _read(x, idx: tuple, shape: tuple):
    """``x`` at the broadcast index ``idx`` of ``shape`` (a number stays itself)."""
    if not isinstance(x, Tensor):
        return x
    lead = len(shape) - x.ndim
    return x[tuple(0 if n == 1 and shape[lead + d] != 1 else idx[lead + d] for d, n in enumerate(x.shape))]


def _shape(*xs) -> tuple:
    return tuple(np.broadcast_shapes(*[x.shape for x in xs if isinstance(x, Tensor)]))


def _elementwise(name: str, combine):
    def op(a, b):
        shape = _shape(a, b)
        return compute(shape, lambda *idx: combine(_read(a, idx, shape), _read(b, idx, shape)), name=name)

    op.__name__, op.__doc__ = name, f"Elementwise ``{name}`` of two tensors (or a tensor and a number), broadcast."
    return op


add = _elementwise("add", lambda a, b: a + b)
subtract = _elementwise("subtract", lambda a, b: a - b)
multiply = _elementwise("multiply", lambda a, b: a * b)
divide = _elementwise("divide", lambda a, b: a / b)
maximum = _elementwise("maximum", lambda a, b: T.max(a, b))
minimum = _elementwise("minimum", lambda a, b: T.min(a, b))


def _unary(name: str, function):
    def op(x: Tensor) -> Tensor:
        return compute(x.shape, lambda *idx: function(x[idx]), name=name)

    op.__name__, op.__doc__ = name, f"Elementwise ``{name}`` of a tensor."
    return op


exp, log, tanh, sigmoid, sqrt = (_unary(n, getattr(T, n)) for n in ("exp", "log", "tanh", "sigmoid", "sqrt"))
negative = _unary("negative", lambda v: -v)


def full(shape, dtype: str, fill_value) -> Tensor:
    """A tensor of ``shape`` holding ``fill_value`` everywhere."""
    return compute(tuple(shape), lambda *idx: const(fill_value, dtype), name="full")


def full_like(x: Tensor, fill_value) -> Tensor:
    """A tensor like ``x`` holding ``fill_value`` everywhere."""
    return full(x.shape, x.dtype, fill_value)


def _axes(x: Tensor, axis) -> list:
    axes = range(x.ndim) if axis is None else [axis] if isinstance(axis, int) else list(axis)
    return sorted(a % x.ndim for a in axes)


def _reduction(combiner: str):
    def reduce(x: Tensor, axis=None, keepdims: bool = False) -> Tensor:
        axes = _axes(x, axis)
        kept = [d for d in range(x.ndim) if d not in axes]
        shape = tuple(1 if d in axes else x.shape[d] for d in range(x.ndim)) if keepdims else \
            tuple(x.shape[d] for d in kept)
        ks = [reduce_axis((0, x.shape[d]), name=f"k{d}") for d in axes]

        def body(*idx):
            out = iter(idx if not keepdims else [idx[d] for d in kept])
            where = dict(zip(axes, ks))
            point = tuple(where[d] if d in where else next(out) for d in range(x.ndim))
            return getattr(T, combiner)(x[point], axis=ks)

        return compute(shape, body, name=combiner)

    reduce.__name__, reduce.__doc__ = combiner, f"The {combiner} of ``x`` over ``axis`` (all axes by default)."
    return reduce


sum = _reduction("sum")  # noqa: A001 (TVM's name)
max = _reduction("max")  # noqa: A001


def tensordot(a: Tensor, b: Tensor, axes: int = 2) -> Tensor:
    """Contract the last ``axes`` dims of ``a`` with the first ``axes`` dims of ``b``."""
    if a.shape[a.ndim - axes:] != b.shape[:axes]:
        raise ValueError(f"tensordot: {a.shape} and {b.shape} do not match over {axes} axes")
    ks = [reduce_axis((0, n), name=f"k{d}") for d, n in enumerate(b.shape[:axes])]
    free_a = a.ndim - axes
    shape = a.shape[:free_a] + b.shape[axes:]

    def body(*idx):
        product = a[tuple(idx[:free_a]) + tuple(ks)] * b[tuple(ks) + tuple(idx[free_a:])]
        return T.sum(product, axis=ks) if ks else product

    return compute(shape, body, name="tensordot")


def _dense(data: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``data @ weight.T + bias``: data ``(batch, in)``, weight ``(out, in)``, bias ``(out,)``."""
    k = reduce_axis((0, data.shape[1]), name="k")
    matmul = compute((data.shape[0], weight.shape[0]), lambda i, j: T.sum(data[i, k] * weight[j, k], axis=k),
                     name="dense")
    return matmul if bias is None else add(matmul, bias)


def _pad(data: Tensor, pad_before: Sequence[int], pad_after: Sequence[int] | None = None,
         pad_value: float = 0.0, name: str = "pad") -> Tensor:
    """``data`` with ``pad_before``/``pad_after`` elements of ``pad_value`` around each dim."""
    pad_after = pad_before if pad_after is None else pad_after
    shape = tuple(n + lo + hi for n, lo, hi in zip(data.shape, pad_before, pad_after))

    def body(*idx):
        inside = [c for i, lo, n in zip(idx, pad_before, data.shape) if lo or n != 0
                  for c in (i >= lo, i < lo + n)]
        value = data[tuple(i - lo for i, lo in zip(idx, pad_before))]
        return if_then_else(T.all(*inside), value, const(pad_value, data.dtype)) if inside else value

    return compute(shape, body, name=name)


def _conv2d(data: Tensor, kernel: Tensor, strides=1, padding=0, dilation=1, layout: str = "NCHW") -> Tensor:
    """2-d convolution (cross-correlation), NCHW input and OIHW kernel."""
    if layout != "NCHW":
        raise ValueError("tensorad.te.topi.nn.conv2d supports layout='NCHW'")
    (sh, sw), (ph, pw), (dh, dw) = (spatial_pair(v, what, "conv2d") for v, what in
                                    ((strides, "strides"), (padding, "padding"), (dilation, "dilation")))
    n, c, h, w = data.shape
    f, c2, kh, kw = kernel.shape
    if c != c2:
        raise ValueError(f"conv2d: the input has {c} channels, the kernel {c2}")
    padded = _pad(data, (0, 0, ph, pw), name="pad_temp") if ph or pw else data
    oh, ow = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1, (w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    rc, ry, rx = reduce_axis((0, c), "rc"), reduce_axis((0, kh), "ry"), reduce_axis((0, kw), "rx")
    return compute((n, f, oh, ow), lambda b, o, y, x: T.sum(
        padded[b, rc, y * sh + ry * dh, x * sw + rx * dw] * kernel[o, rc, ry, rx], axis=[rc, ry, rx]),
        name="conv2d_nchw")


def _pool(data: Tensor, kernel, stride, padding, pool_type: str, ceil_mode: bool = False, layout: str = "NCHW",
          count_include_pad: bool = True) -> Tensor:
    """Max or average pooling over the last two dims (TVM's ``topi.nn.pool``; padding is [top, left, bottom, right])."""
    if layout != "NCHW" or ceil_mode:
        raise ValueError("tensorad.te.topi.nn.pool supports layout='NCHW' without ceil_mode")
    (kh, kw), (sh, sw) = spatial_pair(kernel, "kernel", "pool2d"), spatial_pair(stride, "stride", "pool2d")
    top, left, bottom, right = (tuple(padding) * 2)[:4] if len(padding) == 2 else tuple(padding)
    *lead, h, w = data.shape
    oh, ow = (h + top + bottom - kh) // sh + 1, (w + left + right - kw) // sw + 1
    ry, rx = reduce_axis((0, kh), "ry"), reduce_axis((0, kw), "rx")
    nl = len(lead)

    def window(*idx):
        y, x = idx[nl] * sh + ry - top, idx[nl + 1] * sw + rx - left
        value = data[tuple(idx[:nl]) + (y, x)]
        if top or left or bottom or right:
            fill = -np.inf if pool_type == "max" else 0.0
            value = if_then_else(T.all(y >= 0, y < h, x >= 0, x < w), value, const(fill, data.dtype))
        if pool_type == "max":
            return T.max(value, axis=[ry, rx])
        if pool_type == "avg":
            if not count_include_pad and (top or left or bottom or right):
                raise ValueError("avg pooling with count_include_pad=False is not supported")
            return T.sum(value / float(kh * kw), axis=[ry, rx])
        raise ValueError(f"pool_type {pool_type!r}: 'max' or 'avg'")

    return compute(tuple(lead) + (oh, ow), window, name=f"pool_{pool_type}")


def _pool2d(data: Tensor, kernel, stride, dilation, padding, pool_type: str, ceil_mode: bool = False,
            layout: str = "NCHW", count_include_pad: bool = True) -> Tensor:
    """TVM's newer ``pool2d`` signature (dilation must be 1)."""
    if spatial_pair(dilation, "dilation", "pool2d") != (1, 1):
        raise ValueError("pool2d: dilation other than 1 is not supported")
    return _pool(data, kernel, stride, padding, pool_type, ceil_mode, layout, count_include_pad)


def _relu(x: Tensor) -> Tensor:
    """``max(x, 0)`` elementwise."""
    return compute(x.shape, lambda *idx: T.max(x[idx], const(0.0, x.dtype)), name="relu")


nn = types.SimpleNamespace(dense=_dense, pad=_pad, conv2d=_conv2d, conv2d_nchw=_conv2d, pool=_pool,
                           pool2d=_pool2d, relu=_relu)
"""``topi.nn``: ``dense``, ``pad``, ``conv2d`` (NCHW), ``pool`` / ``pool2d`` (max, avg), ``relu``."""

__all__ = ["add", "divide", "exp", "full", "full_like", "log", "max", "maximum", "minimum", "multiply",
           "negative", "nn", "sigmoid", "sqrt", "subtract", "sum", "tanh", "tensordot"]
