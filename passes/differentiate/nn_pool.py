"""Derivative rules of the pooling ops (TVM Relax ``relax.op.grad`` names).

* ``tad.max_pool2d``: the vjp routes the cotangent with ``max_pool2d_backward``;
  the jvp gathers the tangent at the first maximum of each window (the same
  tie rule as the routing: ties go to the first tap in row-major order).
* ``tad.avg_pool2d`` is linear: the jvp applies it, the vjp is
  ``avg_pool2d_backward``.
* ``tad.avg_pool2d_backward`` is linear in ``output_grad`` (its transpose is
  ``avg_pool2d``) and reads only the shape of ``data``.
* ``tad.max_pool2d_backward`` is linear in ``output_grad`` with a routing that
  ``data`` fixes: the jvp routes the tangent, the vjp gathers the cotangent
  at the first maxima. The routing is piecewise constant in ``data``, so the
  derivative with respect to ``data`` is zero almost everywhere.

A (co)tangent with a batch prefix ``P`` is folded into the batch dimension
``N`` of the NCHW pooling ops (``P + (N, C, H, W)`` becomes
``(prod(P) * N, C, H, W)``) and unfolded afterwards.

Examples
--------
>>> from .rules import JVP_RULES, VJP_RULES
>>> all(f"tad.{k}_pool2d{s}" in JVP_RULES and f"tad.{k}_pool2d{s}" in VJP_RULES
...     for k in ("max", "avg") for s in ("", "_backward"))
True
"""

from __future__ import annotations

from itertools import product

import numpy as np

import tensorad.numpy as tnp
from tensorad.dialects import builder as ops
from tensorad.tracing import Tracer

from ..lower.nn_pool import pool_window
from .rules import JVP_RULES, VJP_RULES, RuleContext, deflinear


def _geometry(c: RuleContext) -> dict:
    """The pooling attributes of ``c``'s op, as keyword arguments of the ``ops`` builders."""
    a = c.attrs
    geometry = {k: a[k] for k in ("strides", "padding", "dilation")}
    geometry.update(pool_size=a["pool_size"], ceil_mode=a["ceil_mode"].value)
    if "count_include_pad" in a:
        geometry["count_include_pad"] = a["count_include_pad"].value
    return geometry


def _fold(value: Tracer, prefix: tuple) -> Tracer:
    """``P + (N, C, H, W)`` to ``(prod(P) * N, C, H, W)``."""
    return tnp.reshape(value, (-1,) + value.shape[len(prefix) + 1:]) if prefix else value


def _unfold(value: Tracer, prefix: tuple) -> Tracer:
    return tnp.reshape(value, prefix + (-1,) + value.shape[1:]) if prefix else value


def _avg_pool(c: RuleContext, x: Tracer) -> Tracer:
    """Average-pool ``x`` (with a batch prefix) with the window of ``c``'s op."""
    prefix = x.shape[:c.nb]
    return _unfold(Tracer.of(ops.pool2d("avg", _fold(x, prefix).value, **_geometry(c))), prefix)


def _avg_pool_backward(c: RuleContext, g: Tracer, data: Tracer) -> Tracer:
    prefix = g.shape[:c.nb]
    folded = _fold(g, prefix)
    # avg_pool2d_backward reads only the shape of its data operand: zeros
    # keep the primal input from being stored for the backward pass.
    shape_only = tnp.zeros(folded.shape[:1] + data.shape[1:], data.dtype)
    return _unfold(Tracer.of(ops.pool2d_backward("avg", folded.value, shape_only.value,
                                                 **_geometry(c))), prefix)


def _max_pool_backward(c: RuleContext, g: Tracer, data: Tracer) -> Tracer:
    """Route ``g`` (with a batch prefix) to the first maximum of each window of ``data``."""
    prefix = g.shape[:c.nb]
    # Every folded batch entry needs its own copy of data to route against.
    tiled = _fold(tnp.broadcast_to(data, prefix + data.shape), prefix)
    return _unfold(Tracer.of(ops.pool2d_backward("max", _fold(g, prefix).value, tiled.value,
                                                 **_geometry(c))), prefix)


def _taps(x: Tracer, c: RuleContext, out_hw: tuple, fill: float) -> list:
    """One strided slice of ``x`` (padded with ``fill``) per window tap, in row-major order.

    Slice k holds, at each output position, tap k of that position's window.
    """
    w = pool_window(c.attrs, x.shape[-2:], out_hw)
    lead = x.ndim - 2
    value = tnp.full((), fill, x.dtype).value
    padded = ops.pad(x.value, value, (0,) * lead + w.low, (0,) * lead + w.high, (0,) * x.ndim)
    taps = []
    for kh, kw in product(range(w.kernel[0]), range(w.kernel[1])):
        start = (kh * w.dilation[0], kw * w.dilation[1])
        limit = tuple(s + (o - 1) * step + 1 for s, o, step in zip(start, out_hw, w.strides))
        taps.append(Tracer.of(ops.slice_(padded, (0,) * lead + start, x.shape[:lead] + limit,
                                         (1,) * lead + w.strides)))
    return taps


def _gather_at_first_max(c: RuleContext, t: Tracer, data: Tracer, maxima: Tracer) -> Tracer:
    """``t`` (data's shape, with a batch prefix) read at the first maximum of each window."""
    out_hw = maxima.shape[2:]
    gathered = tnp.zeros(t.shape[:c.nb] + maxima.shape, t.dtype)
    # Walking the taps backwards, the last write to an element is by the first maximum.
    for x_k, t_k in reversed(list(zip(_taps(data, c, out_hw, -np.inf), _taps(t, c, out_hw, 0.0)))):
        gathered = tnp.where(tnp.equal(x_k, maxima), t_k, gathered)
    return gathered


def _max_pool_jvp(c, tangents):
    return [_gather_at_first_max(c, tangents[0], c.inputs[0], c.outputs[0])]


def _max_pool_vjp(c, cotangents):
    return [_max_pool_backward(c, cotangents[0], c.inputs[0])]


def _max_pool_backward_apply(c, tangents):
    t_g = tangents[0]
    return None if t_g is None else _max_pool_backward(c, t_g, c.inputs[1])


def _max_pool_backward_transpose(c, ct):
    data = c.inputs[1]
    maxima = Tracer.of(ops.pool2d("max", data.value, **_geometry(c)))
    return [_gather_at_first_max(c, ct, data, maxima), None]


JVP_RULES["tad.max_pool2d"], VJP_RULES["tad.max_pool2d"] = _max_pool_jvp, _max_pool_vjp
deflinear("tad.max_pool2d_backward", _max_pool_backward_apply, _max_pool_backward_transpose)
deflinear("tad.avg_pool2d",
          lambda c, ts: _avg_pool(c, ts[0]),
          lambda c, ct: [_avg_pool_backward(c, ct, c.inputs[0])])
deflinear("tad.avg_pool2d_backward",
          lambda c, ts: None if ts[0] is None else _avg_pool_backward(c, ts[0], c.inputs[1]),
          lambda c, ct: [_avg_pool(c, ct), None])
