"""Derivative rules of every differentiable op, one small function per op.

Rules are written with :mod:`tensorad.numpy` on :class:`~tensorad.tracing.Tracer`
values, so they read like the math. A (co)tangent may carry a leading batch
prefix of rank ``c.nb`` (shape ``P + value shape``); numpy broadcasting aligns
trailing dimensions, so elementwise rules need nothing special for it, and the
structural rules shift their dimension numbers by ``c.nb``.

Three kinds of registration, after JAX's ``ad.py``:

* :func:`defelementwise` gives the partial derivative of an elementwise op with
  respect to each operand; it serves both modes (``t * d`` forward, ``ct * d``
  backward). A partial of ``1`` or ``-1`` adds no multiplication.
* :func:`deflinear` gives the two halves of a linear op: apply it to a tangent,
  and transpose it onto a cotangent.
* :data:`ZERO_DERIVATIVE` lists ops whose results do not depend differentiably
  on their operands (comparisons, rounding, ``argmax``, ``stop_gradient``).

Examples
--------
>>> "math.exp" in JVP_RULES and "math.exp" in VJP_RULES
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

import numpy as np
from mlir import ir

import tensorad.numpy as tnp
from tensorad.dialects import builder as ops
from tensorad.dialects.shapes import python_attrs
from tensorad.tracing import Tracer


@dataclass
class RuleContext:
    """What a rule sees of the op it differentiates.

    Attributes
    ----------
    op : mlir.ir.Operation
    inputs, outputs : list of Tracer
        The primal operands and results.
    nb : int
        Rank of the batch prefix ``P`` of the (co)tangents.
    """

    op: ir.Operation
    inputs: list
    outputs: list
    nb: int
    attrs: dict = field(default_factory=dict)
    derive: Optional[Callable] = None
    engine: object = None  # the sweep running the rule, for ops with regions

    def batched(self, dims: Sequence[int]) -> list:
        """Dimension numbers of an unbatched value shifted past the batch prefix."""
        return list(range(self.nb)) + [d + self.nb for d in dims]


Partial = Callable[[RuleContext], object]
JvpRule = Callable[[RuleContext, list], list]
VjpRule = Callable[[RuleContext, list], list]

JVP_RULES: dict[str, JvpRule] = {}
VJP_RULES: dict[str, VjpRule] = {}
ZERO_DERIVATIVE = {
    "arith.cmpf", "arith.cmpi", "math.floor", "math.ceil", "math.roundeven",
    "tad.argmax", "tad.stop_gradient", "tad.iota", "tad.constant", "arith.constant",
    "tensor.empty", "tensor.dim",
}


def _scale(value: Tracer, partial) -> Tracer:
    if isinstance(partial, (int, float)) and partial == 1:
        return value
    if isinstance(partial, (int, float)) and partial == -1:
        return tnp.negative(value)
    return tnp.multiply(value, partial)


def _sum_contributions(terms) -> Optional[Tracer]:
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    total = terms[0]
    for t in terms[1:]:
        total = tnp.add(total, t)
    return total


def defelementwise(name: str, *partials: Optional[Partial]) -> None:
    """Register an elementwise op by its partial derivatives, one per operand.

    ``None`` marks an operand that is not differentiable (e.g. the condition
    of ``arith.select``).

    Examples
    --------
    >>> defelementwise("math.exp", lambda c: c.outputs[0])
    """

    def jvp(c: RuleContext, tangents: list) -> list:
        return [_sum_contributions(
            _scale(t, p(c)) for t, p in zip(tangents, partials) if t is not None and p is not None)]

    def vjp(c: RuleContext, cotangents: list) -> list:
        (ct,) = cotangents
        return [None if p is None else _scale(ct, p(c)) for p in partials]

    JVP_RULES[name], VJP_RULES[name] = jvp, vjp


def deflinear(name: str, apply: Callable, transpose: Callable) -> None:
    """Register a linear op: ``apply(c, tangents) -> tangent`` and ``transpose(c, ct) -> cts``.

    ``apply`` receives the tangents of all operands (``None`` for zero ones)
    and ``transpose`` returns one cotangent per operand.
    """
    JVP_RULES[name] = lambda c, tangents: [apply(c, tangents)]
    VJP_RULES[name] = lambda c, cotangents: transpose(c, cotangents[0])


def _zeros_like_input(c: RuleContext, i: int, like: Tracer) -> Tracer:
    """Zeros of the batched shape of operand ``i``; ``like`` supplies the batch prefix."""
    x = c.inputs[i]
    return tnp.zeros(like.shape[:c.nb] + x.shape, x.dtype)


# ----------------------------------------------------------------------------
# Elementwise arith and math
# ----------------------------------------------------------------------------

defelementwise("arith.addf", lambda c: 1, lambda c: 1)
defelementwise("arith.subf", lambda c: 1, lambda c: -1)
defelementwise("arith.mulf", lambda c: c.inputs[1], lambda c: c.inputs[0])
defelementwise("arith.divf", lambda c: tnp.reciprocal(c.inputs[1]),
               lambda c: tnp.negative(c.outputs[0] / c.inputs[1]))
defelementwise("arith.negf", lambda c: -1)


def _max_share(c: RuleContext, wins: Callable) -> Tracer:
    """1 where operand 0 wins, 0 where it loses, 1/2 on ties (as JAX splits them)."""
    a, b = c.inputs
    return tnp.where(wins(a, b), 1.0, tnp.where(tnp.equal(a, b), 0.5, 0.0)).astype(a.dtype)


defelementwise("arith.maximumf", lambda c: _max_share(c, tnp.greater),
               lambda c: 1.0 - _max_share(c, tnp.greater))
defelementwise("arith.minimumf", lambda c: _max_share(c, tnp.less),
               lambda c: 1.0 - _max_share(c, tnp.less))


def _select_jvp(c: RuleContext, tangents: list) -> list:
    _, on_true, on_false = tangents
    if on_true is None and on_false is None:
        return [None]
    like = on_true if on_true is not None else on_false
    on_true = on_true if on_true is not None else _zeros_like_input(c, 1, like)
    on_false = on_false if on_false is not None else _zeros_like_input(c, 2, like)
    return [tnp.where(c.inputs[0], on_true, on_false)]


def _select_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    zeros = tnp.zeros_like(ct)
    return [None, tnp.where(c.inputs[0], ct, zeros), tnp.where(c.inputs[0], zeros, ct)]


# Selecting (not multiplying by a 0/1 mask, as JAX): an inf or NaN derivative in
# the branch not taken stays out, so where(y == 0, 0, y * x ** (y - 1)) has
# finite derivatives of every order at x = 0.
JVP_RULES["arith.select"], VJP_RULES["arith.select"] = _select_jvp, _select_vjp
defelementwise("math.exp", lambda c: c.outputs[0])
defelementwise("math.expm1", lambda c: c.outputs[0] + 1.0)
defelementwise("math.log", lambda c: tnp.reciprocal(c.inputs[0]))
defelementwise("math.log1p", lambda c: tnp.reciprocal(c.inputs[0] + 1.0))
defelementwise("math.tanh", lambda c: 1.0 - tnp.square(c.outputs[0]))
defelementwise("math.sin", lambda c: tnp.cos(c.inputs[0]))
defelementwise("math.cos", lambda c: tnp.negative(tnp.sin(c.inputs[0])))
defelementwise("math.tan", lambda c: 1.0 + tnp.square(c.outputs[0]))
defelementwise("math.sqrt", lambda c: 0.5 / c.outputs[0])
defelementwise("math.rsqrt", lambda c: -0.5 * c.outputs[0] / c.inputs[0])
defelementwise("math.absf", lambda c: tnp.sign(c.inputs[0]))


def _power_base_partial(c: RuleContext) -> Tracer:
    """``y * x ** (y - 1)``, with the exponent 1 instead of -1 where ``x == y == 0``.

    There it is ``0 * 0 ** 1 = 0`` (``x ** 0`` is constant, even at ``x == 0``,
    as in JAX), and so are the derivatives in ``x`` of every order of the
    partial itself, where ``0 * 0 ** -1`` would leave ``0 * inf = nan``.
    Elsewhere the exponent stays ``y - 1``, so the derivative in ``y`` is right.
    """
    x, y = c.inputs
    at_origin = tnp.logical_and(tnp.equal(x, 0.0), tnp.equal(y, 0.0))
    return y * tnp.power(x, tnp.where(at_origin, 1.0, y - 1.0))


defelementwise("math.powf", _power_base_partial,
               lambda c: tnp.log(tnp.where(tnp.equal(c.inputs[0], 0.0), 1.0, c.inputs[0]))
               * c.outputs[0])


def _atan2_denominator(c: RuleContext) -> Tracer:
    y, x = c.inputs
    return tnp.square(x) + tnp.square(y)


defelementwise("math.atan2", lambda c: c.inputs[1] / _atan2_denominator(c),
               lambda c: tnp.negative(c.inputs[0]) / _atan2_denominator(c))


# ----------------------------------------------------------------------------
# Structure
# ----------------------------------------------------------------------------

def _wrap(value: ir.Value) -> Tracer:
    return Tracer.of(value)


def _batched_shape(c: RuleContext, like: Tracer, shape) -> tuple:
    return like.shape[:c.nb] + tuple(shape)


def _broadcast_apply(c, tangents):
    (t,) = tangents
    dims = c.batched(c.attrs["broadcast_dimensions"])
    return _wrap(ops.broadcast_in_dim(t.value, _batched_shape(c, t, c.outputs[0].shape), dims))


def _broadcast_transpose(c, ct):
    x, dims = c.inputs[0], c.attrs["broadcast_dimensions"]
    out_shape = c.outputs[0].shape
    summed = [d for d in range(len(out_shape)) if d not in dims]
    summed += [d for i, d in enumerate(dims) if x.shape[i] == 1 and out_shape[d] != 1]
    reduced = tnp.sum(ct, axis=tuple(d + c.nb for d in summed)) if summed else ct
    kept = sorted(d for d in dims if d not in summed)  # what the sum leaves, in result-dim order
    order = [kept.index(d) for d in dims if d not in summed]
    if order != sorted(order):
        reduced = tnp.transpose(reduced, c.batched(order))
    return [tnp.reshape(reduced, _batched_shape(c, ct, x.shape))]


deflinear("tad.broadcast_in_dim", _broadcast_apply, _broadcast_transpose)
deflinear("tad.reshape",
          lambda c, ts: tnp.reshape(ts[0], _batched_shape(c, ts[0], c.outputs[0].shape)),
          lambda c, ct: [tnp.reshape(ct, _batched_shape(c, ct, c.inputs[0].shape))])
deflinear("tad.transpose",
          lambda c, ts: tnp.transpose(ts[0], c.batched(c.attrs["permutation"])),
          lambda c, ct: [tnp.transpose(ct, c.batched(np.argsort(c.attrs["permutation"])))])
deflinear("tad.convert",
          lambda c, ts: ts[0].astype(c.outputs[0].dtype),
          lambda c, ct: [ct.astype(c.inputs[0].dtype)])
deflinear("tad.start_checkpoint", lambda c, ts: ts[0], lambda c, ct: [ct])
deflinear("tad.end_checkpoint", lambda c, ts: ts[0], lambda c, ct: [ct])


def _slice_apply(c, tangents):
    (t,) = tangents
    a = c.attrs
    unbatched = [0] * c.nb
    return _wrap(ops.slice_(t.value, unbatched + list(a["start_indices"]),
                            list(t.shape[:c.nb]) + list(a["limit_indices"]),
                            [1] * c.nb + list(a["strides"])))


def _slice_transpose(c, ct):
    a, in_shape, out_shape = c.attrs, c.inputs[0].shape, c.outputs[0].shape
    if 0 in out_shape:  # an empty slice: nothing to place, the gradient is zeros
        return [_zeros_like_input(c, 0, ct)]
    high = []
    for n, lo, step, m in zip(in_shape, a["start_indices"], a["strides"], out_shape):
        used = (m - 1) * step + 1 if m else 0
        high.append(n - lo - used)
    interior = [s - 1 if m > 1 else 0 for s, m in zip(a["strides"], out_shape)]
    zero = tnp.zeros((), ct.dtype)
    padded = ops.pad(ct.value, zero.value, [0] * c.nb + list(a["start_indices"]),
                     [0] * c.nb + high, [0] * c.nb + interior)
    return [_wrap(padded)]


deflinear("tad.slice", _slice_apply, _slice_transpose)


def _pad_value_mask(c: RuleContext) -> Tracer:
    """1 where the result holds the padding value, 0 where it holds the operand."""
    x, a = c.inputs[0], c.attrs
    placed = ops.pad(tnp.zeros(x.shape, x.dtype).value, tnp.ones((), x.dtype).value,
                     a["edge_padding_low"], a["edge_padding_high"], a["interior_padding"])
    return _wrap(placed)


def _pad_apply(c, tangents):
    t_x, t_v = tangents
    a = c.attrs
    like = t_x if t_x is not None else t_v
    out = None
    if t_x is not None:
        zero = tnp.zeros((), t_x.dtype)
        out = _wrap(ops.pad(t_x.value, zero.value, [0] * c.nb + list(a["edge_padding_low"]),
                            [0] * c.nb + list(a["edge_padding_high"]),
                            [0] * c.nb + list(a["interior_padding"])))
    if t_v is not None:
        batch = like.shape[:c.nb]
        spread = tnp.reshape(t_v, batch + (1,) * c.outputs[0].ndim) * _pad_value_mask(c)
        out = spread if out is None else out + spread
    return out


def _pad_transpose(c, ct):
    a, x = c.attrs, c.inputs[0]
    limits = [lo + (n - 1) * (it + 1) + 1 if n else lo
              for n, lo, it in zip(x.shape, a["edge_padding_low"], a["interior_padding"])]
    ct_x = _wrap(ops.slice_(ct.value, [0] * c.nb + list(a["edge_padding_low"]),
                            list(ct.shape[:c.nb]) + limits,
                            [1] * c.nb + [it + 1 for it in a["interior_padding"]]))
    inner = tuple(range(c.nb, ct.ndim))
    ct_v = tnp.sum(ct, axis=inner) - tnp.sum(ct_x, axis=inner)
    return [ct_x, ct_v]


deflinear("tad.pad", _pad_apply, _pad_transpose)


def _concat_apply(c, tangents):
    like = next(t for t in tangents if t is not None)
    parts = [t if t is not None else _zeros_like_input(c, i, like) for i, t in enumerate(tangents)]
    return tnp.concatenate(parts, axis=c.op.attributes["dim"].value + c.nb)


def _concat_transpose(c, ct):
    axis = c.op.attributes["dim"].value + c.nb
    out, start = [], 0
    for x in c.inputs:
        size = x.shape[axis - c.nb]
        index = [slice(None)] * ct.ndim
        index[axis] = slice(start, start + size)
        out.append(ct[tuple(index)])
        start += size
    return out


deflinear("tensor.concat", _concat_apply, _concat_transpose)


# ----------------------------------------------------------------------------
# Reductions
# ----------------------------------------------------------------------------

def _expand_reduced(c: RuleContext, value: Tracer) -> Tracer:
    """Broadcast a reduced (batched) value back over the reduced dimensions."""
    x, dims = c.inputs[0], c.attrs["dimensions"]
    kept = [d for d in range(x.ndim) if d not in dims]
    shape = _batched_shape(c, value, x.shape)
    return _wrap(ops.broadcast_in_dim(value.value, shape, c.batched(kept)))


deflinear("tad.reduce_sum",
          lambda c, ts: tnp.sum(ts[0], axis=tuple(c.batched(c.attrs["dimensions"])[c.nb:])),
          lambda c, ct: [_expand_reduced(c, ct)])


def _extremum_weights(c: RuleContext) -> Tracer:
    """Where the operand attains the extremum, 1/(number of ties); elsewhere 0."""
    x = c.inputs[0]
    c_unbatched = RuleContext(c.op, c.inputs, c.outputs, 0, c.attrs)
    hits = tnp.equal(x, _expand_reduced(c_unbatched, c.outputs[0])).astype(x.dtype)
    count = tnp.sum(hits, axis=tuple(c.attrs["dimensions"]), keepdims=True)
    return hits / count


def _extremum_jvp(c, tangents):
    dims = tuple(d + c.nb for d in c.attrs["dimensions"])
    return [tnp.sum(tangents[0] * _extremum_weights(c), axis=dims)]


def _extremum_vjp(c, cotangents):
    return [_expand_reduced(c, cotangents[0]) * _extremum_weights(c)]


for _name in ("tad.reduce_max", "tad.reduce_min"):
    JVP_RULES[_name], VJP_RULES[_name] = _extremum_jvp, _extremum_vjp


# ----------------------------------------------------------------------------
# Contraction
# ----------------------------------------------------------------------------

def _dot_dims(c: RuleContext):
    a = c.attrs
    lhs, rhs = c.inputs
    lb, rb = list(a["lhs_batching_dimensions"]), list(a["rhs_batching_dimensions"])
    lc, rc = list(a["lhs_contracting_dimensions"]), list(a["rhs_contracting_dimensions"])
    lfree = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    return lb, rb, lc, rc, lfree, rfree


def _dot(a: Tracer, b: Tracer, batch, contract) -> Tracer:
    return _wrap(ops.dot_general(a.value, b.value, batch[0], batch[1], contract[0], contract[1]))


def _transposed(value: Tracer, perm) -> Tracer:
    return value if list(perm) == list(range(len(perm))) else tnp.transpose(value, list(perm))


def _dot_jvp(c, tangents):
    lb, rb, lc, rc, lfree, rfree = _dot_dims(c)
    lhs, rhs = c.inputs
    nb, n_b, n_l, n_r = c.nb, len(lb), len(lfree), len(rfree)
    terms = []
    if tangents[0] is not None:  # result dims: B, P, Lf, Rf
        out = _dot(tangents[0], rhs, ([d + nb for d in lb], rb), ([d + nb for d in lc], rc))
        perm = [n_b + p for p in range(nb)] + list(range(n_b)) + \
            [n_b + nb + k for k in range(n_l + n_r)]
        terms.append(_transposed(out, perm))
    if tangents[1] is not None:  # result dims: B, Lf, P, Rf
        out = _dot(lhs, tangents[1], (lb, [d + nb for d in rb]), (lc, [d + nb for d in rc]))
        perm = [n_b + n_l + p for p in range(nb)] + list(range(n_b + n_l)) + \
            [n_b + n_l + nb + k for k in range(n_r)]
        terms.append(_transposed(out, perm))
    return [_sum_contributions(terms)]


def _dot_vjp(c, cotangents):
    (ct,) = cotangents
    lb, rb, lc, rc, lfree, rfree = _dot_dims(c)
    lhs, rhs = c.inputs
    nb, n_b, n_l, n_r = c.nb, len(lb), len(lfree), len(rfree)
    ct_b = [nb + i for i in range(n_b)]
    ct_l = [nb + n_b + k for k in range(n_l)]
    ct_r = [nb + n_b + n_l + k for k in range(n_r)]

    def grad(other, other_batch, other_free, ct_free_other, own_batch, own_free, own_contract,
             other_contract, rank):
        # Two equivalent contractions; keep the one whose result needs no transpose.
        rest = sorted(other_contract)
        n_rest = len(rest)
        forms = (  # (operands, batch, contract, where P, own free, own contracting dims land)
            ((ct, other), (ct_b, other_batch), (ct_free_other, other_free),
             n_b, n_b + nb, n_b + nb + len(own_free)),
            ((other, ct), (other_batch, ct_b), (other_free, ct_free_other),
             n_b + n_rest, n_b + n_rest + nb, n_b),
        )
        candidates = []
        for operands, batch, contract, at_p, at_free, at_contract in forms:
            position = {d: i for i, d in enumerate(own_batch)}
            position.update({d: at_free + k for k, d in enumerate(own_free)})
            position.update({d: at_contract + rest.index(od)
                             for d, od in zip(own_contract, other_contract)})
            perm = [at_p + p for p in range(nb)] + [position[d] for d in range(rank)]
            candidates.append((perm != sorted(perm), operands, batch, contract, perm))
        _, operands, batch, contract, perm = min(candidates, key=lambda form: form[0])
        return _transposed(_dot(operands[0], operands[1], batch, contract), perm)

    return [grad(rhs, rb, rfree, ct_r, lb, lfree, lc, rc, lhs.ndim),
            grad(lhs, lb, lfree, ct_l, rb, rfree, rc, lc, rhs.ndim)]


JVP_RULES["tad.dot_general"], VJP_RULES["tad.dot_general"] = _dot_jvp, _dot_vjp


# ----------------------------------------------------------------------------
# Calls: differentiate the callee once, call its derivative
# ----------------------------------------------------------------------------

def _call(callee: str, operands: list, result_types: list) -> list:
    op = ir.Operation.create("func.call", results=result_types, operands=[t.value for t in operands],
                             attributes={"callee": ir.FlatSymbolRefAttr.get(callee)})
    return [Tracer.of(r) for r in op.results]


def _float_inputs(c: RuleContext, selected) -> tuple:
    return tuple(i for i, x in enumerate(c.inputs) if x.dtype.kind == "f" and selected(i))


def _call_jvp(c, tangents):
    wrt = _float_inputs(c, lambda i: tangents[i] is not None)
    like = tangents[wrt[0]]
    prefix = like.shape[:c.nb]
    name, ftype = c.derive("jvp", c.op.attributes["callee"].value, wrt, prefix)
    outs = _call(name, c.inputs + [tangents[i] for i in wrt], list(ftype.results))
    return outs[len(c.outputs):]


def _call_vjp(c, cotangents):
    like = next(ct for ct in cotangents if ct is not None)
    prefix = like.shape[:c.nb]
    wrt = _float_inputs(c, lambda i: True)
    name, ftype = c.derive("vjp", c.op.attributes["callee"].value, wrt, prefix)
    seeds = [ct if ct is not None else tnp.zeros(prefix + y.shape, y.dtype)
             for ct, y in zip(cotangents, c.outputs)]
    grads = iter(_call(name, c.inputs + seeds, list(ftype.results))[len(c.outputs):])
    return [next(grads) if i in wrt else None for i in range(len(c.inputs))]


JVP_RULES["func.call"], VJP_RULES["func.call"] = _call_jvp, _call_vjp


def _traced(value: ir.Value) -> Optional[Tracer]:
    return Tracer.of(value) if isinstance(value.type, ir.RankedTensorType) else None


def make_context(op: ir.Operation, nb: int, derive: Optional[Callable] = None,
                 engine: object = None) -> RuleContext:
    """The :class:`RuleContext` of ``op`` with a batch prefix of rank ``nb``.

    ``derive(kind, callee, wrt, prefix) -> (symbol, function type)`` returns the
    derivative of another function, for rules of calls. ``engine`` is the sweep
    that runs the rule (rules of ops with regions sweep their bodies with it).
    Operands and results that are not tensors (loop bounds, conditions) are None.
    """
    return RuleContext(op, [_traced(v) for v in op.operands], [_traced(v) for v in op.results],
                       nb, python_attrs(op), derive, engine)
