"""Derivative rules of ``tad.conv2d`` and its backward ops: each derivative is one op of the three.

The three ops are the three partial derivatives of one trilinear form of a
convolution's data ``x``, weight ``w`` and output gradient ``dy`` (all with the
same strides, padding, dilation and groups)::

    T(x, w, dy) = <dy, conv2d(x, w)> = <x, backward_data(dy, w)> = <w, backward_filter(dy, x)>

so each op computes the value of one *role* (``output``, ``data``, ``weight``)
from the other two. Every derivative is then one of the three ops again:

* tangent: each op is linear in each operand, so a tangent of an operand
  goes through the op itself in that operand's place;
* cotangent: the transpose of "role R from role U" is "role U from role R",
  the op that produces U, given the cotangent as R.

A (co)tangent with a batch prefix ``P`` is handed to the op with ``P``
folded into the dim that its role shares with the result's role (e.g. the
batch dim N between data and output, the output channels between weight and
output, within each group), and unfolded from the result: one op per
derivative whatever ``P`` is.

Examples
--------
>>> sorted(name for name in VJP_RULES if name.startswith("tad.conv2d"))
['tad.conv2d', 'tad.conv2d_backward_data', 'tad.conv2d_backward_filter']
"""

from __future__ import annotations

from math import prod

import tensorad.numpy as tnp
from tensorad.dialects import builder as ops
from tensorad.tracing import Tracer

from .rules import JVP_RULES, VJP_RULES, RuleContext

# The roles of each op's two operands and of its result.
_ROLES = {
    "tad.conv2d": ("data", "weight", "output"),
    "tad.conv2d_backward_data": ("output", "weight", "data"),
    "tad.conv2d_backward_filter": ("output", "data", "weight"),
}
_PRODUCER = {roles[2]: name for name, roles in _ROLES.items()}

# The dim that two roles share, per role: (axis, whether that axis is split into groups).
_SHARED = {
    frozenset(("data", "output")): {"data": (0, False), "output": (0, False)},  # batch N
    frozenset(("weight", "output")): {"weight": (0, True), "output": (1, True)},  # output channels
    frozenset(("weight", "data")): {"weight": (1, False), "data": (1, True)},  # input channels
}

_BUILDERS = {
    "tad.conv2d": lambda a, b, shape, **window: ops.conv2d(a, b, **window),
    "tad.conv2d_backward_data": ops.conv2d_backward_data,
    "tad.conv2d_backward_filter": ops.conv2d_backward_filter,
}


def _window(c: RuleContext) -> dict:
    a = c.attrs
    return dict(strides=a["strides"], padding=a["padding"], dilation=a["dilation"],
                groups=a["groups"].value)


def _permuted(t: Tracer, perm) -> Tracer:
    """``t`` transposed by ``perm``; a reshape when only unit dims move (no data moves)."""
    moved = [p for p in perm if t.shape[p] != 1]
    if moved == sorted(moved):
        return tnp.reshape(t, tuple(t.shape[p] for p in perm))
    return tnp.transpose(t, perm)


def _fold(t: Tracer, nb: int, axis: int, groups: int) -> Tracer:
    """Move the batch prefix (the first ``nb`` dims) of ``t`` into value dim ``axis``.

    The dim is read as ``(groups, size / groups)`` and the prefix goes between
    the two, so every group keeps its channels together.
    """
    if not nb:
        return t
    k, shape = prod(t.shape[:nb]), t.shape[nb:]
    split = (k, *shape[:axis], groups, shape[axis] // groups, *shape[axis + 1:])
    perm = [*range(1, axis + 2), 0, *range(axis + 2, len(split))]
    moved = _permuted(tnp.reshape(t, split), perm)
    return tnp.reshape(moved, shape[:axis] + (k * shape[axis],) + shape[axis + 1:])


def _unfold(t: Tracer, prefix: tuple, axis: int, groups: int) -> Tracer:
    """Undo :func:`_fold`: take the batch ``prefix`` out of dim ``axis`` of ``t``, to the front."""
    if not prefix:
        return t
    k, shape = prod(prefix), t.shape
    size = shape[axis] // k
    split = (*shape[:axis], groups, k, size // groups, *shape[axis + 1:])
    perm = [axis + 1, *(d for d in range(len(split)) if d != axis + 1)]
    moved = _permuted(tnp.reshape(t, split), perm)
    return tnp.reshape(moved, prefix + shape[:axis] + (size,) + shape[axis + 1:])


def _partial(c: RuleContext, want: str, values: dict, batched: str, shape: tuple) -> Tracer:
    """The op that produces role ``want`` (unbatched ``shape``) from the other roles' ``values``.

    ``values[batched]`` carries the batch prefix of rank ``c.nb``.
    """
    name, window = _PRODUCER[want], _window(c)
    shared = _SHARED[frozenset((batched, want))]
    (in_axis, in_groups), (out_axis, out_groups) = (
        (axis, window["groups"] if grouped else 1)
        for axis, grouped in (shared[batched], shared[want]))
    prefix = values[batched].shape[:c.nb]
    folded = {**values, batched: _fold(values[batched], c.nb, in_axis, in_groups)}
    a, b = (folded[role].value for role in _ROLES[name][:2])
    out_shape = list(shape)
    out_shape[out_axis] *= prod(prefix)
    out = Tracer.of(_BUILDERS[name](a, b, out_shape, **window))
    return _unfold(out, prefix, out_axis, out_groups)


def _jvp(c: RuleContext, tangents: list) -> list:
    """Bilinear: the op applied to each operand's tangent in its place, summed."""
    *operands, result = _ROLES[c.op.name]
    primals = dict(zip(operands, c.inputs))
    terms = [_partial(c, result, {**primals, role: t}, role, c.outputs[0].shape)
             for role, t in zip(operands, tangents) if t is not None]
    return [terms[0] if len(terms) == 1 else tnp.add(*terms)]


def _vjp(c: RuleContext, cotangents: list) -> list:
    """Each operand's cotangent: the op producing its role, from the result's cotangent."""
    (ct,) = cotangents
    *operands, result = _ROLES[c.op.name]
    values = {**dict(zip(operands, c.inputs)), result: ct}
    return [_partial(c, role, values, result, x.shape) for role, x in zip(operands, c.inputs)]


for _name in _ROLES:
    JVP_RULES[_name], VJP_RULES[_name] = _jvp, _vjp
