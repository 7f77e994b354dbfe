"""Losses: negative log-likelihood and its backward op.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.

Lowering: ``linalg.generic`` ops whose bodies read the predictions and the
class weights with ``tensor.extract`` at each sample's target, clamped into
the class dimension as the indexing family clamps its indices.

Derivatives: ``nll_loss`` is linear in its predictions: ``loss = G . predictions``
where ``G = nll_loss_backward(1)`` holds ``-weights[t] / total weight`` at each
sample's target ``t``. ``nll_loss_backward`` applies ``G``'s transpose to its
output gradient, so the pair transposes into each other. Integer targets have
no derivative. The class weights are constants, as in PyTorch (whose
``nll_loss`` has no derivative for ``weight``): the rules give them no
(co)tangent, and :func:`tensorad.nn.nll_loss` stops their gradient so that
this is what the user asked for.

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> all(record_of(name).jvp is not None and record_of(name).vjp is not None
...     for name in family.names)
True
"""

from __future__ import annotations

from typing import Callable

from mlir import ir
from mlir.dialects import arith, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..builder import Val
from ..derivatives import RuleContext, deflinear
from ..record import Family, Trait
from ..shapes import (TensorSpec, need, int_attr, same_element_type, gradient_of, floats, integer_indices,
                      python_attrs)
from .indexing import as_index, clamp_index, index_constant, loop_indices

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


# --- lowering ------------------------------------------------------------------

def _reduction_and_ignore_index(op: ir.Operation) -> tuple:
    return op.attributes["reduction"].value, python_attrs(op)["ignore_index"].value


def _zeros(t: ir.RankedTensorType) -> ir.Value:
    return linalg.splat(linalg.zero_attr(t.element_type), t)


def _scalar_zero(t: ir.Type) -> ir.Value:
    return arith.constant(t, linalg.zero_attr(t))


def _target_class(target: ir.Value, weights: ir.Value, ignore_index: int) -> tuple:
    """One sample's clamped class, whether the sample is ignored, and the class's weight."""
    index = as_index(target)
    ignored = arith.cmpi(arith.CmpIPredicate.eq, index, index_constant(ignore_index))
    cls = clamp_index(index, weights.type.shape[0])
    return cls, ignored, tensor.ExtractOp(weights, [cls]).result


def _unless(ignored: ir.Value, value: ir.Value) -> ir.Value:
    """``value``, or 0 for an ignored sample (PyTorch skips those: no 0 * inf NaN)."""
    return arith.select(ignored, _scalar_zero(value.type), value)


def _sample_sums(targets: ir.Value, element_type: ir.Type, count: int,
                 terms: Callable[[ir.Value], list]) -> list:
    """0-d sums over all samples of the ``count`` values ``terms(target)`` returns."""
    scalar = ir.RankedTensorType.get([], element_type)
    add = linalg.ADD[linalg.category(element_type)]
    # Over (1) for a single sample, not over no loops at all: elementwise fusion
    # would take a loop-free generic that reads its accumulator for an
    # elementwise one, and fuse it into a consumer that then adds up once per
    # iteration of its own loops.
    return linalg.reduction(linalg.to_flat(targets), (0,), [_zeros(scalar) for _ in range(count)],
                            lambda target, *acc: [add(a, v) for a, v in zip(acc, terms(target))])


def _total_weight(targets: ir.Value, weights: ir.Value, ignore_index: int) -> ir.Value:
    """The denominator of ``mean``: the summed weights of the samples not ignored."""
    def terms(target):
        _, ignored, w = _target_class(target, weights, ignore_index)
        return [_unless(ignored, w)]

    return _sample_sums(targets, weights.type.element_type, 1, terms)[0]


def _divide(numerator: ir.Value, denominator: ir.Value) -> ir.Value:
    """Quotient of two 0-d tensors."""
    return linalg.parallel([numerator, denominator], [(), ()], numerator.type,
                           lambda a, b, _out: arith.divf(a, b))


@family.lowering("tad.nll_loss")
def _lower_nll_loss(op):
    predictions, targets, weights = op.operands
    t = op.results[0].type
    reduction, ignore_index = _reduction_and_ignore_index(op)

    def terms(target):  # sample n: -weights[t] * predictions[n, t], and weights[t] for "mean"
        cls, ignored, w = _target_class(target, weights, ignore_index)
        p = tensor.ExtractOp(predictions, loop_indices(range(targets.type.rank)) + [cls]).result
        loss = _unless(ignored, arith.negf(arith.mulf(w, p)))
        return [loss, _unless(ignored, w)] if reduction == "mean" else [loss]

    if reduction == "none":
        return [linalg.parallel([targets], [range(t.rank)], t, lambda target, _out: terms(target)[0])]
    sums = _sample_sums(targets, t.element_type, 2 if reduction == "mean" else 1, terms)
    return [_divide(*sums)] if reduction == "mean" else sums


@family.lowering("tad.nll_loss_backward")
def _lower_nll_loss_backward(op):
    # d loss / d predictions[n, c] = -weights[c] * output_grad[n] where c is the
    # target of sample n (and it is not ignored), 0 elsewhere; "mean" divides
    # the output gradient by the total weight first.
    output_grad, _, targets, weights = op.operands  # the predictions only give the shape
    t = op.results[0].type
    reduction, ignore_index = _reduction_and_ignore_index(op)
    if reduction == "mean":
        output_grad = _divide(output_grad, _total_weight(targets, weights, ignore_index))
    samples = range(targets.type.rank)  # loops over (n, c): the samples come first

    def body(target, g, _out):
        cls, ignored, w = _target_class(target, weights, ignore_index)
        hit = arith.cmpi(arith.CmpIPredicate.eq, cls, linalg.IndexOp(t.rank - 1).result)
        return arith.select(hit, _unless(ignored, arith.negf(arith.mulf(w, g))),
                            _scalar_zero(t.element_type))

    return [linalg.parallel([targets, output_grad], [samples, range(output_grad.type.rank)], t, body)]


# --- derivative rules ------------------------------------------------------------

def _nll_operands(c: RuleContext) -> tuple:
    """``(predictions, targets, weights)``: the last three operands of both nll ops."""
    return tuple(c.inputs[-3:])


def _nll_arguments(c: RuleContext) -> dict:
    """The op's attributes as keyword arguments of the nll builders."""
    return dict(reduction=c.attrs["reduction"].value, ignore_index=c.attrs["ignore_index"].value)


def _loss_shape(c: RuleContext) -> tuple:
    """Shape of the loss: that of the targets for ``"none"``, else ()."""
    targets = c.inputs[-2]
    return targets.shape if c.attrs["reduction"].value == "none" else ()


def _coefficients(c: RuleContext) -> Val:
    """``G``: d loss / d predictions, for each element of the loss (its output gradient of ones)."""
    predictions = c.inputs[-3]
    ones = builder.ones(_loss_shape(c), predictions.element_type)
    return builder.nll_loss_backward(ones, *_nll_operands(c), **_nll_arguments(c))


def _contract(c: RuleContext, x: Val) -> Val:
    """``G . x`` for ``x`` shaped like the predictions (batched): the loss's tangent."""
    if c.nb == 0:
        return builder.nll_loss(x, *_nll_operands(c)[1:], **_nll_arguments(c))
    # The class dim, and the sample dim unless "none".
    summed = range(c.nb + len(_loss_shape(c)), x.ndim)
    return builder.sum(x * _coefficients(c), tuple(summed))


def _spread(c: RuleContext, g: Val) -> Val:
    """``Gᵀ g`` for ``g`` shaped like the loss (batched): the predictions' cotangent."""
    if c.nb == 0:
        return builder.nll_loss_backward(g, *_nll_operands(c), **_nll_arguments(c))
    predictions = c.inputs[-3]
    aligned = builder.reshape(g, g.shape + (1,) * (predictions.ndim - len(_loss_shape(c))))
    return aligned * _coefficients(c)


deflinear(family, "tad.nll_loss",
          lambda c, ts: None if ts[0] is None else _contract(c, ts[0]),
          lambda c, ct: [_spread(c, ct), None, None])
deflinear(family, "tad.nll_loss_backward",
          lambda c, ts: None if ts[0] is None else _spread(c, ts[0]),
          lambda c, ct: [_contract(c, ct), None, None, None])
