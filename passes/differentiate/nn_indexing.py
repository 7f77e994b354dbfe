"""Derivative rules of the indexing ops and of the negative log-likelihood.

All four ops are linear in their one differentiable operand, so each rule
applies the op's linear map or its transpose:

* ``take`` gathers and ``take_backward`` scatter-adds along the same axis at
  the same (clamped) indices: each is the other's transpose. A batch prefix
  ``P`` in front of a (co)tangent only moves the axis by ``c.nb``.
* ``nll_loss`` is linear in its predictions: ``loss = G . predictions`` where
  ``G = nll_loss_backward(1)`` holds ``-weights[t] / total weight`` at each
  sample's target ``t``. ``nll_loss_backward`` applies ``G``'s transpose to its
  output gradient, so the pair transposes into each other too.

Integer operands (indices, targets) have no derivative. The class weights are
constants, as in PyTorch (whose ``nll_loss`` has no derivative for ``weight``):
the rules give them no (co)tangent, and :func:`tensorad.nn.nll_loss` stops
their gradient so that this is what the user asked for.

Examples
--------
>>> from tensorad.passes.differentiate.rules import VJP_RULES
>>> sorted(name for name in VJP_RULES if name.startswith(("tad.take", "tad.nll")))
['tad.nll_loss', 'tad.nll_loss_backward', 'tad.take', 'tad.take_backward']
"""

from __future__ import annotations

import tensorad.numpy as tnp
from tensorad.dialects import builder as ops
from tensorad.tracing import Tracer

from .rules import RuleContext, deflinear


def _axis(c: RuleContext) -> int:
    """The op's axis in a (co)tangent with the batch prefix in front."""
    return c.attrs["axis"].value + c.nb


def _gather(c: RuleContext, x: Tracer) -> Tracer:
    """``take`` of a batched (co)tangent ``x`` at the op's indices."""
    return Tracer.of(ops.take(x.value, c.inputs[1].value, _axis(c)))


def _scatter(c: RuleContext, x: Tracer, shape: tuple) -> Tracer:
    """``take_backward`` of a batched (co)tangent ``x`` into zeros of ``P + shape``."""
    return Tracer.of(ops.take_backward(x.value, c.inputs[1].value, _axis(c),
                                       x.shape[:c.nb] + shape))


deflinear("tad.take",
          lambda c, ts: _gather(c, ts[0]),
          lambda c, ct: [_scatter(c, ct, c.inputs[0].shape), None])
deflinear("tad.take_backward",
          lambda c, ts: _scatter(c, ts[0], c.outputs[0].shape),
          lambda c, ct: [_gather(c, ct), None])


# --- nll_loss ------------------------------------------------------------------------

def _nll_operands(c: RuleContext) -> tuple:
    """``(predictions, targets, weights)``: the last three operands of both nll ops."""
    return tuple(x.value for x in c.inputs[-3:])


def _nll_attrs(c: RuleContext) -> dict:
    return dict(reduction=c.attrs["reduction"].value, ignore_index=c.attrs["ignore_index"].value)


def _loss_shape(c: RuleContext) -> tuple:
    """Shape of the loss: that of the targets for ``"none"``, else ()."""
    targets = c.inputs[-2]
    return targets.shape if c.attrs["reduction"].value == "none" else ()


def _coefficients(c: RuleContext) -> Tracer:
    """``G``: d loss / d predictions, for each element of the loss (its output gradient of ones)."""
    predictions = c.inputs[-3]
    ones = tnp.ones(_loss_shape(c), predictions.dtype)
    return Tracer.of(ops.nll_loss_backward(ones.value, *_nll_operands(c), **_nll_attrs(c)))


def _contract(c: RuleContext, x: Tracer) -> Tracer:
    """``G . x`` for ``x`` shaped like the predictions (batched): the loss's tangent."""
    if c.nb == 0:
        return Tracer.of(ops.nll_loss(x.value, *_nll_operands(c)[1:], **_nll_attrs(c)))
    # The class dim, and the sample dim unless "none".
    summed = range(c.nb + len(_loss_shape(c)), x.ndim)
    return tnp.sum(x * _coefficients(c), axis=tuple(summed))


def _spread(c: RuleContext, g: Tracer) -> Tracer:
    """``Gᵀ g`` for ``g`` shaped like the loss (batched): the predictions' cotangent."""
    if c.nb == 0:
        return Tracer.of(ops.nll_loss_backward(g.value, *_nll_operands(c), **_nll_attrs(c)))
    predictions = c.inputs[-3]
    aligned = tnp.reshape(g, g.shape + (1,) * (predictions.ndim - len(_loss_shape(c))))
    return aligned * _coefficients(c)


deflinear("tad.nll_loss",
          lambda c, ts: None if ts[0] is None else _contract(c, ts[0]),
          lambda c, ct: [_spread(c, ct), None, None])
deflinear("tad.nll_loss_backward",
          lambda c, ts: None if ts[0] is None else _spread(c, ts[0]),
          lambda c, ct: [_contract(c, ct), None, None, None])
