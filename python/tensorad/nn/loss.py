"""Classification losses with PyTorch's semantics.

:func:`nll_loss` emits one ``tad.nll_loss`` op (its gradient is one
``tad.nll_loss_backward``); :func:`cross_entropy` is the stable
:func:`~tensorad.nn.activations.log_softmax` (no overflow for logits of
``±1e4``) followed by :func:`nll_loss` for class targets, or
``-sum(p * log_softmax)`` for probability targets. Classes lie along axis 1
of ``(N, C, d1, ...)`` inputs and along axis 0 of ``(C)`` ones, as in PyTorch.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> logits = np.array([[2.0, 0.0, -1.0], [0.5, 0.5, 3.0]])
>>> float(ta.jit(lambda z: cross_entropy(z, np.array([0, 2])))(logits))
0.1609272...
"""

from __future__ import annotations

import tensorad.numpy as tnp
from tensorad.autodiff import stop_gradient
from tensorad.dialects import builder
from tensorad.errors import TracingError
from tensorad.tracing import Tracer, emits_ops

from .activations import log_softmax

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(reduction: str) -> None:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction!r} is not a valid value for reduction; "
                         f"use one of {_REDUCTIONS}")


def _class_axis(x: Tracer) -> int:
    return 1 if x.ndim > 1 else 0


def _class_weights(weight, n_classes: int, dtype) -> Tracer:
    """The per-class weights as a constant array (ones by default): no gradient flows to them."""
    if weight is None:
        return tnp.ones((n_classes,), dtype)
    weight = tnp.astype(tnp.asarray(weight), dtype)
    if weight.shape != (n_classes,):
        raise TracingError(f"weight must have shape ({n_classes},), got {weight.shape}")
    return stop_gradient(weight)


def _nll(log_probs: Tracer, targets: Tracer, weights: Tracer, reduction: str,
         ignore_index: int) -> Tracer:
    """``tad.nll_loss`` of ``(N, C, d1, ...)``, ``(N, C)`` or ``(C)`` log-probabilities."""
    if log_probs.dtype.kind != "f":
        raise TracingError(f"log-probabilities must be floats, got {log_probs.dtype.name}")
    samples = log_probs.shape[:1] + log_probs.shape[2:] if log_probs.ndim > 1 else ()
    if targets.dtype.kind not in "iu" or targets.shape != samples:
        raise TracingError(f"targets must be integers of shape {samples} for log-probabilities "
                           f"of shape {log_probs.shape}, got "
                           f"{targets.dtype.name}{list(targets.shape)}")
    if log_probs.ndim > 2:  # the op takes (N, C): move the classes last, flatten the samples
        classes_last = tnp.transpose(log_probs, (0, *range(2, log_probs.ndim), 1))
        log_probs, targets = tnp.reshape(classes_last, (-1, log_probs.shape[1])), tnp.ravel(targets)
    loss = Tracer.of(builder.nll_loss(log_probs.value, targets.value, weights.value, reduction,
                                   ignore_index))
    return tnp.reshape(loss, samples) if reduction == "none" else loss


@emits_ops
def nll_loss(log_probs, targets, weight=None, reduction: str = "mean",
             ignore_index: int = -100) -> Tracer:
    """Negative log-likelihood of integer class ``targets`` (PyTorch's ``F.nll_loss``).

    Parameters
    ----------
    log_probs : array of shape (N, C), (C) or (N, C, d1, ...)
        Log-probabilities, classes along axis 1 (axis 0 when 1-D).
    targets : integer array of shape (N), () or (N, d1, ...)
        The class of each sample. A class outside ``[0, C)`` other than
        ``ignore_index`` is clamped into range (PyTorch raises).
    weight : array of shape (C), optional
        Per-class weights, ones by default. They are constants: no gradient
        flows to them, as in PyTorch.
    reduction : {"mean", "sum", "none"}
        ``"mean"`` divides the weighted sum by the summed weights of the samples
        not ignored (NaN when all are ignored, as in PyTorch).
    ignore_index : int
        Samples with this target add nothing (0 under ``"none"``).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> log_probs = np.log(np.array([[0.5, 0.5], [0.25, 0.75]]))
    >>> ta.jit(lambda p: nll_loss(p, np.array([0, 1]), reduction="none"))(log_probs)
    array([0.69314718, 0.28768207])
    """
    _check_reduction(reduction)
    log_probs = tnp.asarray(log_probs)
    weights = _class_weights(weight, log_probs.shape[_class_axis(log_probs)], log_probs.dtype)
    return _nll(log_probs, tnp.asarray(targets), weights, reduction, ignore_index)


def _reduce(loss: Tracer, reduction: str, denominator) -> Tracer:
    if reduction == "none":
        return loss
    total = tnp.sum(loss)
    return total / denominator if reduction == "mean" else total


def _weighted_sum(log_probs: Tracer, probs, weights: Tracer) -> Tracer:
    """``-sum_c weights[c] * probs[c] * log_probs[c]`` over the class axis."""
    axis = _class_axis(log_probs)
    along_classes = tnp.reshape(weights, weights.shape + (1,) * (log_probs.ndim - axis - 1))
    return -tnp.sum(log_probs * probs * along_classes, axis=axis)


def _smoothing_loss(log_probs: Tracer, targets: Tracer, weights: Tracer, reduction: str,
                    ignore_index: int) -> Tracer:
    """The label-smoothing term of ``cross_entropy`` with class targets (before ``eps / C``).

    ``-sum_c weights[c] * log_probs[c]`` per sample, 0 for ignored samples;
    ``"mean"`` divides by the same denominator as :func:`nll_loss`.
    """
    kept = tnp.not_equal(targets, ignore_index)
    per_sample = tnp.where(kept, _weighted_sum(log_probs, 1.0, weights), 0.0)
    target_weights = tnp.take(weights, tnp.where(kept, targets, 0))
    return _reduce(per_sample, reduction, tnp.sum(tnp.where(kept, target_weights, 0.0)))


@emits_ops
def cross_entropy(logits, targets, weight=None, reduction: str = "mean", ignore_index: int = -100,
                  label_smoothing: float = 0.0) -> Tracer:
    """Cross-entropy between ``softmax(logits)`` and ``targets`` (PyTorch's ``F.cross_entropy``).

    Parameters
    ----------
    logits : array of shape (N, C), (C) or (N, C, d1, ...)
        Unnormalized scores, classes along axis 1 (axis 0 when 1-D).
    targets : array
        Integer classes (shape as in :func:`nll_loss`), or class
        probabilities of the logits' shape (a float array).
    weight : array of shape (C), optional
        Per-class weights (constants, see :func:`nll_loss`).
    reduction : {"mean", "sum", "none"}
        As in :func:`nll_loss` for class targets; with probability targets
        ``"mean"`` divides by the number of samples.
    ignore_index : int
        For class targets only.
    label_smoothing : float in [0, 1]
        Mixes the targets with the uniform distribution over the classes.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> probs = np.array([[0.5, 0.5], [1.0, 0.0]])
    >>> ta.jit(lambda z: cross_entropy(z, probs, reduction="none"))(np.zeros((2, 2)))
    array([0.69314718, 0.69314718])
    """
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"label_smoothing must be between 0.0 and 1.0, got {label_smoothing}")
    logits, targets = tnp.asarray(logits), tnp.asarray(targets)
    n_classes = logits.shape[_class_axis(logits)]
    log_probs = log_softmax(logits, axis=_class_axis(logits))
    weights = _class_weights(weight, n_classes, log_probs.dtype)
    if targets.dtype.kind == "f":
        if targets.shape != logits.shape:
            raise TracingError(f"probability targets must have the logits' shape {logits.shape}, "
                               f"got {targets.shape}")
        probs = targets * (1.0 - label_smoothing) + label_smoothing / n_classes
        loss = _weighted_sum(log_probs, probs, weights)
        return _reduce(loss, reduction, loss.size)
    loss = _nll(log_probs, targets, weights, reduction, ignore_index)
    if not label_smoothing:
        return loss
    smoothing = _smoothing_loss(log_probs, targets, weights, reduction, ignore_index)
    return (1.0 - label_smoothing) * loss + (label_smoothing / n_classes) * smoothing
