"""Lowerings of the indexing ops and of the negative log-likelihood.

``tad.take`` and ``tad.nll_loss`` are ``linalg.generic`` ops whose bodies read
their data with ``tensor.extract`` at computed positions. Every index is
clamped into its dimension first (as JAX's gathers do), so no read or write is
ever out of bounds. ``tad.take_backward`` is a scatter-add: an ``scf.for`` over
the index positions that adds one slice of the output gradient into the
accumulator per step (repeated indices add up). The accumulator's slice is
extracted, updated and inserted back at the same offsets, so one-shot
bufferization updates it in place.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<5x3xf32>, %i: tensor<4xi64>) -> tensor<4x3xf32> {
...   %0 = "tad.take"(%x, %i) {axis = 0} : (tensor<5x3xf32>, tensor<4xi64>) -> tensor<4x3xf32>
...   return %0 : tensor<4x3xf32>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> "tensor.extract " in str(module)
True
"""

from __future__ import annotations

from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from ...dialects import linalg_builder as linalg
from ...dialects.shapes import python_attrs
from .to_linalg import (_ADD, _affine_map, _category, _from_flat, _generic, _parallel, _reduction,
                        _splat, _to_flat, _zero, lowering)


def _index_constant(n: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), n)


def _as_index(i: ir.Value) -> ir.Value:
    """An integer element as an ``index`` (sign-extended: negative stays negative)."""
    return arith.index_cast(ir.IndexType.get(), i)


def _clamp(index: ir.Value, size: int) -> ir.Value:
    """``index`` clamped into ``[0, size)``."""
    return arith.minsi(arith.maxsi(index, _index_constant(0)), _index_constant(size - 1))


def _loop_indices(dims: Sequence[int]) -> list:
    return [linalg.IndexOp(d).result for d in dims]


def _axis(op: ir.Operation) -> int:
    return python_attrs(op)["axis"].value


def _zeros(t: ir.RankedTensorType) -> ir.Value:
    return _splat(_zero(t.element_type), t)


def _scalar_zero(t: ir.Type) -> ir.Value:
    return arith.constant(t, _zero(t))


# --- take / take_backward --------------------------------------------------------

@lowering("tad.take")
def _take(op):
    # Loops run over the result: data dims before the axis, the index dims,
    # then the data dims after the axis.
    data, indices = op.operands
    t, axis, k = op.results[0].type, _axis(op), indices.type.rank
    size = data.type.shape[axis]
    if size == 0:  # nothing to read: an empty axis gathers zeros (numpy refuses such a take)
        return [_zeros(t)]

    def body(index, _out):
        position = (_loop_indices(range(axis)) + [_clamp(_as_index(index), size)]
                    + _loop_indices(range(axis + k, t.rank)))
        return tensor.ExtractOp(data, position).result

    return [_parallel([indices], [range(axis, axis + k)], t, body)]


def _slice_at(axis: int, position: ir.Value, sizes: Sequence[int]) -> dict:
    """``extract_slice``/``insert_slice`` arguments of the unit slab at ``position`` on ``axis``."""
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    offsets = [0] * len(sizes)
    offsets[axis] = dynamic
    return dict(offsets=[position], sizes=[], strides=[], static_offsets=offsets,
                static_sizes=list(sizes), static_strides=[1] * len(sizes))


def _add_into(acc: ir.Value, update: ir.Value) -> ir.Value:
    """``acc + update`` written into ``acc`` (its buffer, after bufferization)."""
    rank = acc.type.rank
    add = _ADD[_category(acc.type.element_type)]
    identity = _affine_map(rank, range(rank))
    [out] = _generic([update], [acc], [identity, identity], ["parallel"] * rank,
                     lambda u, a: [add(a, u)])
    return out


@lowering("tad.take_backward")
def _take_backward(op):
    output_grad, indices = op.operands
    t, axis = op.results[0].type, _axis(op)
    size = t.shape[axis]
    zeros = _zeros(t)
    if size == 0:  # the result is empty: nowhere to scatter to
        return [zeros]
    # One position per index: indices flattened to (M), output_grad viewed as
    # data[:axis] + (M) + data[axis+1:].
    flat_indices = _to_flat(indices)
    count = flat_indices.type.shape[0]
    rows = t.shape[:axis] + [count] + t.shape[axis + 1:]
    if indices.type.rank != 1:
        output_grad = _from_flat(_to_flat(output_grad),
                                 ir.RankedTensorType.get(rows, t.element_type))
    slab = list(t.shape)
    slab[axis] = 1
    slab_type = ir.RankedTensorType.get(slab, t.element_type)
    loop = scf.ForOp(_index_constant(0), _index_constant(count), _index_constant(1), [zeros])
    with ir.InsertionPoint(loop.body):
        m, acc = loop.induction_variable, loop.inner_iter_args[0]
        target = _clamp(_as_index(tensor.ExtractOp(flat_indices, [m]).result), size)
        update = tensor.ExtractSliceOp(slab_type, output_grad, **_slice_at(axis, m, slab))
        current = tensor.ExtractSliceOp(slab_type, acc, **_slice_at(axis, target, slab))
        summed = _add_into(current.result, update.result)
        scf.YieldOp([tensor.InsertSliceOp(summed, acc, **_slice_at(axis, target, slab)).result])
    return [loop.results[0]]


# --- nll_loss / nll_loss_backward --------------------------------------------------

def _nll_attrs(op: ir.Operation) -> tuple:
    return op.attributes["reduction"].value, python_attrs(op)["ignore_index"].value


def _target_class(target: ir.Value, weights: ir.Value, ignore_index: int) -> tuple:
    """One sample's clamped class, whether the sample is ignored, and the class's weight."""
    index = _as_index(target)
    ignored = arith.cmpi(arith.CmpIPredicate.eq, index, _index_constant(ignore_index))
    cls = _clamp(index, weights.type.shape[0])
    return cls, ignored, tensor.ExtractOp(weights, [cls]).result


def _unless(ignored: ir.Value, value: ir.Value) -> ir.Value:
    """``value``, or 0 for an ignored sample (PyTorch skips those: no 0 * inf NaN)."""
    return arith.select(ignored, _scalar_zero(value.type), value)


def _sample_sums(targets: ir.Value, element_type: ir.Type, count: int,
                 terms: Callable[[ir.Value], list]) -> list:
    """0-d sums over all samples of the ``count`` values ``terms(target)`` returns."""
    scalar = ir.RankedTensorType.get([], element_type)
    add = _ADD[_category(element_type)]
    # Over (1) for a single sample, not over no loops at all: elementwise fusion
    # would take a loop-free generic that reads its accumulator for an
    # elementwise one, and fuse it into a consumer that then adds up once per
    # iteration of its own loops.
    return _reduction(_to_flat(targets), (0,), [_zeros(scalar) for _ in range(count)],
                      lambda target, *acc: [add(a, v) for a, v in zip(acc, terms(target))])


def _total_weight(targets: ir.Value, weights: ir.Value, ignore_index: int) -> ir.Value:
    """The denominator of ``mean``: the summed weights of the samples not ignored."""
    def terms(target):
        _, ignored, w = _target_class(target, weights, ignore_index)
        return [_unless(ignored, w)]

    return _sample_sums(targets, weights.type.element_type, 1, terms)[0]


def _divide(numerator: ir.Value, denominator: ir.Value) -> ir.Value:
    """Quotient of two 0-d tensors."""
    return _parallel([numerator, denominator], [(), ()], numerator.type,
                     lambda a, b, _out: arith.divf(a, b))


@lowering("tad.nll_loss")
def _nll_loss(op):
    predictions, targets, weights = op.operands
    t = op.results[0].type
    reduction, ignore_index = _nll_attrs(op)

    def terms(target):  # sample n: -weights[t] * predictions[n, t], and weights[t] for "mean"
        cls, ignored, w = _target_class(target, weights, ignore_index)
        p = tensor.ExtractOp(predictions, _loop_indices(range(targets.type.rank)) + [cls]).result
        loss = _unless(ignored, arith.negf(arith.mulf(w, p)))
        return [loss, _unless(ignored, w)] if reduction == "mean" else [loss]

    if reduction == "none":
        return [_parallel([targets], [range(t.rank)], t, lambda target, _out: terms(target)[0])]
    sums = _sample_sums(targets, t.element_type, 2 if reduction == "mean" else 1, terms)
    return [_divide(*sums)] if reduction == "mean" else sums


@lowering("tad.nll_loss_backward")
def _nll_loss_backward(op):
    # d loss / d predictions[n, c] = -weights[c] * output_grad[n] where c is the
    # target of sample n (and it is not ignored), 0 elsewhere; "mean" divides
    # the output gradient by the total weight first.
    output_grad, _, targets, weights = op.operands  # the predictions only give the shape
    t = op.results[0].type
    reduction, ignore_index = _nll_attrs(op)
    if reduction == "mean":
        output_grad = _divide(output_grad, _total_weight(targets, weights, ignore_index))
    samples = range(targets.type.rank)  # loops over (n, c): the samples come first

    def body(target, g, _out):
        cls, ignored, w = _target_class(target, weights, ignore_index)
        hit = arith.cmpi(arith.CmpIPredicate.eq, cls, linalg.IndexOp(t.rank - 1).result)
        return arith.select(hit, _unless(ignored, arith.negf(arith.mulf(w, g))),
                            _scalar_zero(t.element_type))

    return [_parallel([targets, output_grad], [samples, range(output_grad.type.rank)], t, body)]
