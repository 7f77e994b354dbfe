"""``lax``'s windowed operations: ``reduce_window`` and ``conv_general_dilated``.

``reduce_window`` reduces windows (sum, product, maximum or minimum) one dim
at a time, which is exact for these associative, commutative reductions over
box windows: the operand is padded with the reduction's identity (``tad.pad``,
base dilation as interior padding), then each dim combines strided slices,
one per window tap, or for a long window the windows of doubling sizes
(``O(log w)`` slices), so the work is a few fused elementwise ops per tap and
the derivatives and batching come from slices, pads and the elementwise ops.

``conv_general_dilated`` brings any dimension numbers to NCHW/OIHW by
transposes and runs ``tad.conv2d`` (strides, dilation, feature groups; input
dilation as interior zero padding, negative padding as a slice). One spatial
dim gets a unit second one; a third and further spatial dims are folded into
the batch, one ``conv2d`` per tap of the leading kernel dims, summed.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> from tensorad import lax
>>> lax.reduce_window(np.arange(6.0), -np.inf, lax.max, (3,), (2,), "VALID")
array([2., 4.])
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Sequence

import numpy as np

from tensorad.dialects import builder
from tensorad.dialects.shapes import ShapeError

from . import dtypes
from . import numpy as tnp
from .errors import TracingError
from .tracing import Tracer, emits_ops, user_line

# The elementwise combination of each reduction reduce_window does.
_COMBINE = {"add": tnp.add, "mul": tnp.multiply, "max": tnp.maximum, "min": tnp.minimum}
_NAMES = {"add": "add", "mul": "mul", "multiply": "mul", "max": "max", "maximum": "max", "min": "min",
          "minimum": "min"}
# A window of at most this many taps combines one slice per tap; a longer one, windows of doubling sizes.
_DIRECT_TAPS = 8


def _check(cond: bool, message: str) -> None:
    if not cond:
        raise TracingError(f"{user_line()}: {message}")


def _reduction(computation: Callable) -> str:
    """The reduction a ``computation`` names: ``lax.add``/``tnp.add``/``operator.add`` -> ``"add"``, ..."""
    name = getattr(computation, "__name__", "")
    _check(name in _NAMES, f"reduce_window computes sums, products, maxima and minima (lax.add, lax.mul, lax.max, "
                           f"lax.min); got {computation!r}")
    return _NAMES[name]


def _identity(kind: str, dtype: np.dtype):
    """The value that ``kind`` of a window ignores: 0, 1, or the lowest (highest) value of ``dtype``."""
    if kind in ("add", "mul"):
        return 0 if kind == "add" else 1
    if dtypes.is_float(dtype):
        return -np.inf if kind == "max" else np.inf
    if dtypes.is_bool(dtype):
        return kind == "min"
    info = np.iinfo(dtype)
    return info.min if kind == "max" else info.max


def padtype_to_pads(in_shape, window_shape, window_strides, padding) -> list:
    """``(low, high)`` padding per dim for ``"VALID"``, ``"SAME"`` or ``"SAME_LOWER"`` (JAX's rule).

    Examples
    --------
    >>> padtype_to_pads((5, 6), (3, 3), (2, 1), "SAME")
    [(1, 1), (1, 1)]
    """
    kind = padding.upper()
    if kind == "VALID":
        return [(0, 0)] * len(in_shape)
    if kind not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"padding must be 'VALID', 'SAME', 'SAME_LOWER' or (low, high) pairs, got {padding!r}")
    pads = []
    for n, w, s in zip(in_shape, window_shape, window_strides):
        total = max((-(-n // s) - 1) * s + w - n, 0)
        pads.append((total // 2, total - total // 2) if kind == "SAME" else (total - total // 2, total // 2))
    return pads


def _pairs(padding, rank: int, what: str) -> list:
    pairs = [tuple(int(v) for v in p) for p in padding]
    _check(len(pairs) == rank and all(len(p) == 2 for p in pairs),
           f"{what}: padding needs {rank} (low, high) pairs, got {padding!r}")
    return pairs


def _pad(x: Tracer, value: Tracer, pairs: Sequence[tuple], interior: Sequence[int]) -> Tracer:
    """``x`` padded with ``value``; negative padding slices off (``tad.pad`` takes only non-negative)."""
    if all(lo == hi == 0 for lo, hi in pairs) and not any(interior):
        return x
    grown = Tracer.of(builder.pad(x.value, value.value, [max(lo, 0) for lo, _ in pairs],
                                  [max(hi, 0) for _, hi in pairs], list(interior)))
    if all(lo >= 0 and hi >= 0 for lo, hi in pairs):
        return grown
    key = tuple(slice(-min(lo, 0), n + min(hi, 0)) for (lo, hi), n in zip(pairs, grown.shape))
    return tnp.getitem(grown, key)


def _along(x: Tracer, d: int, start: int, count: int, step: int) -> Tracer:
    """``count`` elements of ``x`` along dim ``d`` from ``start`` by ``step``."""
    return tnp.getitem(x, (slice(None),) * d + (slice(start, start + (count - 1) * step + 1, step),))


def _reduce_dim(x: Tracer, d: int, window: int, stride: int, dilation: int, combine: Callable) -> Tracer:
    """Windows of ``window`` taps ``dilation`` apart, every ``stride`` along dim ``d``, reduced by ``combine``."""
    span = (window - 1) * dilation + 1
    out = (x.shape[d] - span) // stride + 1
    if window <= _DIRECT_TAPS:
        acc = _along(x, d, 0, out, stride)
        for k in range(1, window):
            acc = combine(acc, _along(x, d, k * dilation, out, stride))
        return acc
    # Windows of 1, 2, 4, ... taps at every position: S_2m[i] = S_m[i] + S_m[i + m]; the window
    # is the sum of the power-of-two windows of its binary digits, side by side.
    full = x.shape[d] - span + 1
    acc, offset, size, power = None, 0, 1, x
    while window:
        if window & 1:
            piece = _along(power, d, offset * dilation, full, 1)
            acc = piece if acc is None else combine(acc, piece)
            offset += size
        window >>= 1
        if window:
            length = power.shape[d] - size * dilation
            power = combine(_along(power, d, 0, length, 1), _along(power, d, size * dilation, length, 1))
            size *= 2
    return _along(acc, d, 0, out, stride)


@emits_ops
def reduce_window(operand, init_value, computation: Callable, window_dimensions, window_strides=None,
                  padding="VALID", base_dilation=None, window_dilation=None) -> Tracer:
    """JAX's ``reduce_window``: the sum, product, maximum or minimum of every window of ``operand``.

    ``computation`` is ``lax.add``, ``lax.mul``, ``lax.max`` or ``lax.min``
    (or numpy's ``add``, ``multiply``, ``maximum``, ``minimum``); the padding
    (``"VALID"``, ``"SAME"``, ``"SAME_LOWER"`` or ``(low, high)`` pairs) and
    the gaps of ``base_dilation`` count for nothing, and every window starts
    from ``init_value`` (as XLA's).

    Examples
    --------
    >>> from tensorad import lax
    >>> reduce_window(np.arange(16.0).reshape(4, 4), 0.0, lax.add, (2, 2), (2, 2))
    array([[10., 18.],
           [42., 50.]])
    """
    _check(not isinstance(operand, (list, tuple, dict)), "reduce_window takes one operand (an array), "
                                                         "not a pytree of several")
    x = tnp.asarray(operand)
    kind = _reduction(computation)
    combine = _COMBINE[kind]
    rank = x.ndim
    window = tuple(int(w) for w in window_dimensions)
    strides = tuple(int(s) for s in window_strides) if window_strides is not None else (1,) * rank
    base = tuple(int(b) for b in base_dilation) if base_dilation is not None else (1,) * rank
    dilation = tuple(int(r) for r in window_dilation) if window_dilation is not None else (1,) * rank
    _check(len(window) == len(strides) == len(base) == len(dilation) == rank,
           f"reduce_window: window {window}, strides, base and window dilations need {rank} entries each")
    _check(min(window + strides + base + dilation, default=1) >= 1,
           "reduce_window: window sizes, strides and dilations must be positive")
    dilated_shape = [(n - 1) * b + 1 if n else 0 for n, b in zip(x.shape, base)]
    spans = [(w - 1) * r + 1 for w, r in zip(window, dilation)]
    pairs = padtype_to_pads(dilated_shape, spans, strides, padding) if isinstance(padding, str) \
        else _pairs(padding, rank, "reduce_window")
    init = tnp.astype(tnp.asarray(init_value), x.dtype)
    _check(init.shape == (), "reduce_window: init_value must be a scalar")
    # Padding and the gaps of the base dilation count for nothing (as XLA's); each window starts from init.
    identity = _identity(kind, x.dtype)
    x = _pad(x, tnp.full((), identity, x.dtype), pairs, [b - 1 for b in base])
    _check(all(n >= s for n, s in zip(x.shape, spans)),
           f"reduce_window: windows {spans} (dilated) larger than the padded operand {x.shape}")
    for d in range(rank):
        if window[d] > 1 or strides[d] > 1:
            x = _reduce_dim(x, d, window[d], strides[d], dilation[d], combine)
    if isinstance(init_value, Tracer) or np.asarray(init_value) != identity:
        x = combine(x, init)
    return x


# ----------------------------------------------------------------------------
# Convolutions
# ----------------------------------------------------------------------------

class ConvDimensionNumbers(NamedTuple):
    """The dims of a convolution's operands and result: ``lhs_spec`` (batch, feature, spatial...),
    ``rhs_spec`` (output feature, input feature, spatial...), ``out_spec`` (batch, feature, spatial...)."""

    lhs_spec: tuple
    rhs_spec: tuple
    out_spec: tuple


def conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers) -> ConvDimensionNumbers:
    """JAX's ``conv_dimension_numbers``: ``None`` (NC..., OI..., NC...), strings such as
    ``("NHWC", "HWIO", "NHWC")`` or a :class:`ConvDimensionNumbers`.

    Examples
    --------
    >>> conv_dimension_numbers((1, 5, 5, 3), (3, 3, 3, 8), ("NHWC", "HWIO", "NHWC"))
    ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))
    """
    rank = len(lhs_shape)
    if dimension_numbers is None:
        default = tuple(range(rank))
        return ConvDimensionNumbers(default, default, default)
    if isinstance(dimension_numbers, ConvDimensionNumbers) or (
            len(dimension_numbers) == 3 and not any(isinstance(s, str) for s in dimension_numbers)):
        return ConvDimensionNumbers(*(tuple(int(d) for d in spec) for spec in dimension_numbers))
    lhs, rhs, out = dimension_numbers
    if not (len(lhs) == len(rhs) == len(out) == rank and len(rhs_shape) == rank):
        raise TypeError(f"convolution dimension numbers {dimension_numbers} do not fit operands of rank {rank}")
    for spec, pair in ((lhs, "NC"), (rhs, "OI"), (out, "NC")):
        if sorted(spec) != sorted(set(spec)) or any(spec.count(c) != 1 for c in pair):
            raise TypeError(f"convolution dimension numbers: {spec!r} needs {pair[0]!r} and {pair[1]!r} once "
                            "and no repeated letter")
    if set(lhs) - set("NC") != set(rhs) - set("OI") or set(out) - set("NC") != set(rhs) - set("OI"):
        raise TypeError(f"convolution dimension numbers {dimension_numbers} name different spatial dims")

    def order(spec: str, pair: str) -> tuple:
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        if spec is not rhs:  # the spatial dims in the kernel's order
            spatial.sort(key=lambda i: rhs.index(spec[i]))
        return (spec.index(pair[0]), spec.index(pair[1])) + tuple(spatial)

    return ConvDimensionNumbers(order(lhs, "NC"), order(rhs, "OI"), order(out, "NC"))


def _conv_nd(x: Tracer, w: Tracer, strides: list, pads: list, dilation: list, groups: int) -> Tracer:
    """Convolution of ``(N, C, *spatial)`` ``x`` with ``(O, C/groups, *kernel)`` ``w``; pads non-negative."""
    spatial = x.ndim - 2
    if spatial == 2:
        (top, bottom), (left, right) = pads
        return Tracer.of(builder.conv2d(x.value, w.value, strides, (top, left, bottom, right), dilation, groups))
    if spatial == 1:
        out = _conv_nd(tnp.expand_dims(x, 2), tnp.expand_dims(w, 2), [1] + strides, [(0, 0)] + pads,
                       [1] + dilation, groups)
        return tnp.squeeze(out, 2)
    # The leading spatial dim goes into the batch: one convolution of the rest per tap of its kernel.
    zero = tnp.zeros((), x.dtype)
    x = _pad(x, zero, [(0, 0), (0, 0), pads[0]] + [(0, 0)] * (spatial - 1), [0] * x.ndim)
    n, c, depth = x.shape[:3]
    taps, stride, step = w.shape[2], strides[0], dilation[0]
    out_depth = (depth - (taps - 1) * step - 1) // stride + 1
    total = None
    for k in range(taps):
        rows = _along(x, 2, k * step, out_depth, stride)  # (N, C, D', ...)
        folded = tnp.reshape(tnp.moveaxis(rows, 2, 1), (n * out_depth, c) + rows.shape[3:])
        part = _conv_nd(folded, tnp.getitem(w, (slice(None), slice(None), k)), strides[1:], pads[1:],
                        dilation[1:], groups)
        total = part if total is None else tnp.add(total, part)
    total = tnp.reshape(total, (n, out_depth) + total.shape[1:])
    return tnp.moveaxis(total, 1, 2)


@emits_ops
def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count: int = 1, batch_group_count: int = 1,
                         precision=None, preferred_element_type=None) -> Tracer:
    """JAX's general convolution: any spatial rank, dimension numbers, strides, padding, input and kernel
    dilation and feature groups (``batch_group_count`` must be 1).

    Lowered to ``tad.conv2d`` after transposes to NCHW/OIHW; ``lhs_dilation``
    inserts zeros between input elements (a transposed convolution).

    Examples
    --------
    >>> x, w = np.arange(10.0).reshape(1, 5, 2), np.ones((2, 2, 1))  # NWC input, WIO kernel
    >>> conv_general_dilated(x, w, (1,), "VALID", dimension_numbers=("NWC", "WIO", "NWC"))
    array([[[ 6.],
            [14.],
            [22.],
            [30.]]])
    """
    dtype = dtypes.result_type(lhs, rhs)
    _check(not dtypes.is_bool(dtype), "conv_general_dilated of booleans: convert them to numbers first")
    x, w = tnp.astype(tnp.asarray(lhs), dtype), tnp.astype(tnp.asarray(rhs), dtype)
    _check(x.ndim == w.ndim and x.ndim >= 3,
           f"conv_general_dilated needs operands of one rank of at least 3, got {x.shape} and {w.shape}")
    _check(int(batch_group_count) == 1, "conv_general_dilated: batch_group_count other than 1 is not supported")
    dn = conv_dimension_numbers(x.shape, w.shape, dimension_numbers)
    spatial = x.ndim - 2
    strides = [int(s) for s in window_strides]
    lhs_dilation = [int(d) for d in lhs_dilation] if lhs_dilation is not None else [1] * spatial
    rhs_dilation = [int(d) for d in rhs_dilation] if rhs_dilation is not None else [1] * spatial
    _check(len(strides) == len(lhs_dilation) == len(rhs_dilation) == spatial,
           f"conv_general_dilated: strides and dilations need {spatial} entries each")
    _check(min(strides + lhs_dilation + rhs_dilation) >= 1, "conv_general_dilated: strides and dilations must be positive")
    x, w = tnp.transpose(x, dn.lhs_spec), tnp.transpose(w, dn.rhs_spec)
    groups = int(feature_group_count)
    _check(groups >= 1 and x.shape[1] == w.shape[1] * groups and w.shape[0] % groups == 0,
           f"conv_general_dilated: {x.shape[1]} input features in {groups} groups do not match a kernel of "
           f"{w.shape[1]} input and {w.shape[0]} output features")
    kernel = [(k - 1) * r + 1 for k, r in zip(w.shape[2:], rhs_dilation)]
    if isinstance(padding, str):
        _check(lhs_dilation == [1] * spatial, "conv_general_dilated: string padding with lhs_dilation is not "
                                              "supported; give (low, high) pairs")
        pads = padtype_to_pads(x.shape[2:], kernel, strides, padding)
    else:
        pads = _pairs(padding, spatial, "conv_general_dilated")
    # Input dilation and negative padding act on the input; the rest is the convolution's padding.
    zero = tnp.zeros((), x.dtype)
    x = _pad(x, zero, [(0, 0), (0, 0)] + [(min(lo, 0), min(hi, 0)) for lo, hi in pads],
             [0, 0] + [d - 1 for d in lhs_dilation])
    pads = [(max(lo, 0), max(hi, 0)) for lo, hi in pads]
    for n, k, (lo, hi) in zip(x.shape[2:], kernel, pads):
        _check(n + lo + hi >= k, f"conv_general_dilated: the kernel ({k} dilated) is larger than the padded input "
                                 f"({n} + {lo} + {hi})")
    try:
        out = _conv_nd(x, w, strides, pads, rhs_dilation, groups)
    except ShapeError as err:
        raise TracingError(f"{user_line()}: conv_general_dilated of {x.shape} with {w.shape}: {err}") from None
    out = tnp.transpose(out, np.argsort(dn.out_spec))
    if preferred_element_type is not None:
        out = tnp.astype(out, preferred_element_type)
    return out


@emits_ops
def conv(lhs, rhs, window_strides, padding, precision=None, preferred_element_type=None) -> Tracer:
    """JAX's ``lax.conv``: :func:`conv_general_dilated` of NC... data and OI... kernels, no dilation.

    Examples
    --------
    >>> conv(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (2,), "VALID")
    array([[[2., 2.]]])
    """
    return conv_general_dilated(lhs, rhs, window_strides, padding, precision=precision,
                                preferred_element_type=preferred_element_type)

