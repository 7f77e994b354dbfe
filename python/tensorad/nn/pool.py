"""2-D max and average pooling with PyTorch's conventions (NCHW data).

:func:`max_pool2d` and :func:`avg_pool2d` each emit one ``tad.max_pool2d`` /
``tad.avg_pool2d``; their gradients are the ops ``tad.max_pool2d_backward``
(each output gradient goes to the first maximum of its window, as in
PyTorch) and ``tad.avg_pool2d_backward``.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> x = np.arange(16.0).reshape(1, 1, 4, 4)
>>> ta.jit(lambda x: max_pool2d(x, 2))(x)
array([[[[ 5.,  7.],
         [13., 15.]]]])
"""

from __future__ import annotations

from .. import numpy as tnp
from ..dialects import builder
from ..dialects.shapes import ShapeError
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from .conv import spatial_pair


def _pool(kind: str, x, kernel_size, stride, padding, dilation, ceil_mode: bool,
          count_include_pad: bool = True) -> Tracer:
    """Checks PyTorch's rules, then emits the pooling op; (C, H, W) input pools as one batch."""
    fn = f"{kind}_pool2d"
    x = tnp.asarray(x)
    if x.ndim not in (3, 4):
        raise TracingError(f"{user_line()}: {fn} needs (N, C, H, W) or (C, H, W) input, "
                           f"got shape {x.shape}")
    kernel = spatial_pair(kernel_size, "kernel_size", fn)
    strides = kernel if stride is None else spatial_pair(stride, "stride", fn)
    pad = spatial_pair(padding, "padding", fn)
    if any(p > k // 2 for p, k in zip(pad, kernel)):
        raise TracingError(f"{user_line()}: {fn}: padding {pad} must be at most half of "
                           f"kernel_size {kernel}")
    batched = x if x.ndim == 4 else tnp.reshape(x, (1,) + x.shape)
    try:
        out = Tracer.of(builder.pool2d(kind, batched.value, kernel, strides, pad + pad,
                                   spatial_pair(dilation, "dilation", fn), ceil_mode, count_include_pad))
    except ShapeError as err:
        raise TracingError(f"{user_line()}: {fn} of {x.shape}: {err}") from None
    return out if x.ndim == 4 else tnp.reshape(out, out.shape[1:])


@emits_ops
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False):
    """Maximum over sliding windows of NCHW ``x``, like ``torch.nn.functional.max_pool2d``.

    Parameters
    ----------
    x : array, shape (N, C, H, W) or (C, H, W)
    kernel_size : int or (int, int)
        Window (height, width).
    stride : int or (int, int), optional
        Step of the window; ``kernel_size`` by default.
    padding : int or (int, int)
        -inf added on both sides of each spatial dim, at most half the window.
    dilation : int or (int, int)
        Spacing of the window's taps.
    ceil_mode : bool
        Round the output size up: a last, partial window is kept if it starts
        inside the data or the left padding.

    Returns
    -------
    array, shape (N, C, OH, OW)
        ``OH = (H + 2 * padding - dilation * (KH - 1) - 1) // stride + 1``
        (rounded up with ``ceil_mode``), likewise ``OW``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> x = np.array([[[[1.0, 3.0, 2.0], [0.0, 5.0, 4.0]]]])
    >>> ta.jit(lambda x: max_pool2d(x, 2, stride=1))(x)
    array([[[[5., 5.]]]])
    """
    return _pool("max", x, kernel_size, stride, padding, dilation, ceil_mode)


@emits_ops
def avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True):
    """Mean over sliding windows of NCHW ``x``, like ``torch.nn.functional.avg_pool2d``.

    Parameters
    ----------
    x : array, shape (N, C, H, W) or (C, H, W)
    kernel_size : int or (int, int)
        Window (height, width).
    stride : int or (int, int), optional
        Step of the window; ``kernel_size`` by default.
    padding : int or (int, int)
        Zeros added on both sides of each spatial dim, at most half the window.
    ceil_mode : bool
        Round the output size up (see :func:`max_pool2d`); the part of a last
        window that runs past the padding is never counted.
    count_include_pad : bool
        Divide by the window size including the padding, or (False) by the
        number of elements of ``x`` in the window.

    Returns
    -------
    array, shape (N, C, OH, OW)

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> x = np.ones((1, 1, 2, 2))
    >>> ta.jit(lambda x: avg_pool2d(x, 2, stride=1, padding=1))(x)[0, 0]
    array([[0.25, 0.5 , 0.25],
           [0.5 , 1.  , 0.5 ],
           [0.25, 0.5 , 0.25]])
    >>> ta.jit(lambda x: avg_pool2d(x, 2, stride=1, padding=1, count_include_pad=False))(x)[0, 0]
    array([[1., 1., 1.],
           [1., 1., 1.],
           [1., 1., 1.]])
    """
    return _pool("avg", x, kernel_size, stride, padding, 1, ceil_mode, count_include_pad)
