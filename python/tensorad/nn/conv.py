"""2-D convolution with PyTorch's conventions (NCHW data, OIHW weight).

:func:`conv2d` emits one ``tad.conv2d``; its derivatives are the ops
``tad.conv2d_backward_data`` and ``tad.conv2d_backward_filter`` (and
convolutions again at higher order), so a gradient costs about two forward
convolutions.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> x, w = np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))
>>> ta.jit(conv2d)(x, w)
array([[[[4., 4.],
         [4., 4.]]]])
"""

from __future__ import annotations

from .. import dtypes
from .. import numpy as tnp
from ..dialects import builder
from ..dialects.shapes import ShapeError
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line


def spatial_pair(value, what: str, fn: str = "conv2d") -> tuple:
    """``(height, width)`` from an int or a pair, as PyTorch's 2-d layers take their sizes.

    Raises
    ------
    TracingError
        ``value`` is neither, reported at the user's line.

    Examples
    --------
    >>> spatial_pair(3, "stride"), spatial_pair((1, 2), "dilation")
    ((3, 3), (1, 2))
    """
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2:
        raise TracingError(f"{user_line()}: {fn}: {what} must be an int or a pair, got {value!r}")
    return pair


def _padding(value) -> tuple:
    """(top, left, bottom, right) from an int, a (height, width) pair or a 4-tuple."""
    if isinstance(value, int):
        return (value,) * 4
    padding = tuple(value)
    if len(padding) == 2:
        return padding * 2
    if len(padding) != 4:
        raise TracingError(f"{user_line()}: conv2d: padding must be an int, a (height, width) "
                           f"pair or (top, left, bottom, right), got {value!r}")
    return padding


@emits_ops
def conv2d(x, w, bias=None, stride=1, padding=0, dilation=1, groups: int = 1):
    """2-D convolution (cross-correlation, as in deep learning) of NCHW ``x`` with OIHW ``w``.

    Follows ``torch.nn.functional.conv2d``, except that ``padding`` may also be
    asymmetric.

    Parameters
    ----------
    x : array, shape (N, C, H, W)
    w : array, shape (O, C / groups, KH, KW)
    bias : array, shape (O,), optional
        Added to every output pixel of its channel.
    stride, dilation : int or (int, int)
        Step of the window and spacing of the kernel taps, (height, width).
    padding : int, (int, int) or (int, int, int, int)
        Zeros around ``x``: on all sides, (height, width) on both sides of
        each, or (top, left, bottom, right).
    groups : int
        Channels split into this many groups, each convolved with its own
        ``O / groups`` filters (``groups == C == O``: depthwise).

    Returns
    -------
    array, shape (N, O, OH, OW)
        ``OH = (H + top + bottom - dilation * (KH - 1) - 1) // stride + 1``,
        likewise ``OW``; dtype promoted from the operands like numpy's.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> x, w = np.arange(16.0).reshape(1, 1, 4, 4), np.ones((2, 1, 1, 1))
    >>> ta.jit(lambda x, w: conv2d(x, w, bias=np.array([0.0, 1.0]), stride=2))(x, w)[0]
    array([[[ 0.,  2.],
            [ 8., 10.]],
    <BLANKLINE>
           [[ 1.,  3.],
            [ 9., 11.]]])
    """
    operands = (x, w) if bias is None else (x, w, bias)
    dtype = dtypes.result_type(*operands)
    if dtypes.is_bool(dtype):
        raise TracingError(f"{user_line()}: conv2d of booleans; convert them to numbers first")
    x, w = tnp.asarray(x, dtype), tnp.asarray(w, dtype)
    try:
        out = Tracer.of(builder.conv2d(x.value, w.value, spatial_pair(stride, "stride"),
                                        _padding(padding), spatial_pair(dilation, "dilation"), groups))
    except ShapeError as err:
        raise TracingError(f"{user_line()}: conv2d of {x.shape} with weight {w.shape}: {err}") \
            from None
    if bias is None:
        return out
    return out + tnp.reshape(tnp.asarray(bias, dtype), (-1, 1, 1))
