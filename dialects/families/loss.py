"""Losses: negative log-likelihood and its backward op.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from mlir import ir

from ..record import Family, Trait
from ..shapes import TensorSpec, need, int_attr, same_element_type, gradient_of, floats, integer_indices

family = Family("loss")

family.define("tad.nll_loss",
              operands=("predictions", "targets", "weights"),
              attributes=(("reduction", "string"), ("ignore_index", "integer")),
              summary="Negative log-likelihood of log-probabilities (N, C) or (C) at integer targets, per-class weights; reduction mean, sum or none.",
              traits=(Trait.PURE,))
family.define("tad.nll_loss_backward",
              operands=("output_grad", "predictions", "targets", "weights"),
              attributes=(("reduction", "string"), ("ignore_index", "integer")),
              summary="Gradient of nll_loss with respect to its predictions (result: the predictions' shape).",
              traits=(Trait.PURE,))


def _nll_output(predictions: TensorSpec, targets: TensorSpec, weights: TensorSpec, attrs):
    integer_indices(targets, "targets")
    reduction = attrs["reduction"]
    need(isinstance(reduction, ir.StringAttr) and reduction.value in ("mean", "sum", "none"),
          "reduction must be \"mean\", \"sum\" or \"none\"")
    int_attr(attrs, "ignore_index")
    need(predictions.rank in (1, 2), "predictions must be (C) or (N, C) log-probabilities")
    need(targets.shape == predictions.shape[:-1],
          f"targets {list(targets.shape)} do not match predictions {list(predictions.shape)}")
    need(weights.shape == predictions.shape[-1:], f"weights need shape [{predictions.shape[-1]}]")
    same_element_type(predictions, weights)
    floats(predictions, "predictions")
    shape = targets.shape if reduction.value == "none" else ()
    return TensorSpec(shape, predictions.element_type)


@family.shape_rule("tad.nll_loss")
def _nll_loss(operands, attrs, results):
    return [_nll_output(*operands, attrs)]


@family.shape_rule("tad.nll_loss_backward")
def _nll_loss_backward(operands, attrs, results):
    output_grad, predictions, targets, weights = operands
    return gradient_of("nll_loss", _nll_output(predictions, targets, weights, attrs),
                        output_grad, predictions)
