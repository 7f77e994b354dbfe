"""Scatter: update the slabs of an operand at integer indices along an axis (``tad.scatter``).

The op's record (declaration, traits, shape rule, FLOPs, lowering, derivative
and batching rules) is registered here through :data:`family`. It is the
partner of ``tad.take`` (the gather) for JAX's ``.at[...]`` updates and
``lax.scatter*``: ``updates`` has the shape ``operand[:axis] + indices +
operand[axis+1:]`` and slab ``m`` of it is combined into the slab of the
operand at ``indices[m]``, by ``kind``: ``set``, ``add``, ``mul``, ``min``
or ``max``. Index positions are visited in row-major order (a repeated
index adds up, or the last ``set`` wins); an index outside ``[0, size)``
drops its update (JAX's default for scatters; the frontends wrap negative
indices first).

Lowering: one ``scf.for`` over the index positions, each reading, combining
and writing back one slab of the operand in place
(:func:`~tensorad.dialects.families.indexing.scatter_slabs`).

Derivatives, with ``y`` the result, in both modes (rules take a batch prefix):

* ``add``: linear; the cotangent of the updates is the gather of the
  cotangent at the (valid) indices.
* ``set``: the tangent is the same scatter of the tangents; the cotangent of
  the operand is zero where it was overwritten, and only the winning update
  of a repeated index gets its gather (found by scattering the positions).
* ``mul``: ``y[p] = x[p] * prod(u[m] for idx[m] = p)``; an update's partial is
  the operand times the product of the other updates at its index, computed
  without dividing by zero (products of the nonzero updates and counts of the
  zero ones), so repeated indices and zeros are exact (JAX refuses repeated
  indices here).
* ``min``/``max``: the tangent of ``y[p]`` is the mean of the tangents of the
  operand and of the updates that attain it (ties share), as JAX's
  ``scatter_min``/``scatter_max``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<5xf64>, %i: tensor<2xi64>, %u: tensor<2xf64>) -> tensor<5xf64> {
...   %0 = "tad.scatter"(%x, %i, %u) {axis = 0, kind = "max"} : (tensor<5xf64>, tensor<2xi64>, tensor<2xf64>) -> tensor<5xf64>
...   return %0 : tensor<5xf64>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> "arith.maximumf" in str(module) and "scf.for" in str(module)
True
"""

from __future__ import annotations

from math import prod

from mlir import ir

from .. import builder
from .. import linalg_builder as linalg
from ..batching import broadcast_batch
from ..builder import Val
from ..derivatives import RuleContext, sum_contributions
from ..record import Family, Trait
from ..shapes import int_attr, integer_indices, need, python_attrs, same_element_type
from .indexing import scatter_slabs

family = Family("scatter")

KINDS = ("set", "add", "mul", "min", "max")

family.define("tad.scatter",
              operands=("operand", "indices", "updates"),
              attributes=(("axis", "integer"), ("kind", "string")),
              summary="The operand with slab m of `updates` set/added/multiplied/min-ed/max-ed into its slab indices[m] along axis; indices outside the axis are dropped.",
              traits=(Trait.PURE,))


def _kind(attrs) -> str:
    kind = attrs["kind"]
    need(isinstance(kind, ir.StringAttr) and kind.value in KINDS,
         f"kind must be one of {', '.join(KINDS)}, got {kind}")
    return kind.value


def updates_shape(operand_shape, indices_shape, axis: int) -> tuple:
    """The shape of the updates of a scatter (and of a gather's result): ``operand[:axis] + indices + operand[axis+1:]``."""
    return tuple(operand_shape[:axis]) + tuple(indices_shape) + tuple(operand_shape[axis + 1:])


@family.shape_rule("tad.scatter")
def _scatter(operands, attrs, results):
    operand, indices, updates = operands
    integer_indices(indices)
    axis = int_attr(attrs, "axis")
    need(0 <= axis < operand.rank, f"axis {axis} is out of range for rank {operand.rank}")
    kind = _kind(attrs)
    same_element_type(operand, updates)
    need(kind == "set" or not isinstance(operand.element_type, ir.ComplexType),
         f"a {kind} scatter of complex numbers: scatter their parts")
    want = updates_shape(operand.shape, indices.shape, axis)
    need(updates.shape == want, f"updates of shape {list(updates.shape)} do not match operand "
                                f"{list(operand.shape)} at indices {list(indices.shape)} along axis {axis}: "
                                f"expected {list(want)}")
    return [operand]


@family.flops("tad.scatter")
def _scatter_flops(op) -> int:
    return prod(op.operands[2].type.shape)


# --- lowering ------------------------------------------------------------------

_COMBINE = {"add": linalg.ADD, "mul": linalg.MUL, "min": linalg.MIN, "max": linalg.MAX}


@family.lowering("tad.scatter")
def _lower_scatter(op):
    operand, indices, updates = op.operands
    attrs = python_attrs(op)
    kind = attrs["kind"].value
    if kind == "set":
        combine = lambda _current, update: update  # noqa: E731
    else:
        combine = _COMBINE[kind][linalg.category(operand.type.element_type)]
    return [scatter_slabs(operand, indices, updates, attrs["axis"].value, combine, drop_outside=True)]


# --- derivative rules ------------------------------------------------------------

def _axis(c: RuleContext) -> int:
    return c.attrs["axis"].value


def _indices(c: RuleContext) -> Val:
    return c.inputs[1]


def scatter_of(c: RuleContext, into: Val, updates: Val, kind: str) -> Val:
    """The op's scatter (its indices and axis) of ``updates`` into ``into``, both with a batch prefix of rank ``c.nb``."""
    return builder.scatter(into, _indices(c), updates, _axis(c) + into.ndim - c.inputs[0].ndim, kind)


def _gather(c: RuleContext, x: Val) -> Val:
    """``x`` (shaped like the operand, behind a batch prefix) gathered at the op's indices: shaped like the updates."""
    return builder.take(x, _indices(c), _axis(c) + x.ndim - c.inputs[0].ndim)


def _over_updates(c: RuleContext, mask: Val) -> Val:
    """A mask over the index positions spread over the updates' shape."""
    axis, k = _axis(c), _indices(c).ndim
    return builder.broadcast_in_dim(mask, c.inputs[2].shape, range(axis, axis + k))


def _valid(c: RuleContext) -> Val:
    """Which updates land (their index is inside the axis), over the updates' shape."""
    indices, size = _indices(c), c.inputs[0].shape[_axis(c)]
    inside = builder.logical_and(builder.compare("ge", indices, 0), builder.compare("lt", indices, size))
    return _over_updates(c, inside)


def _zeros(c: RuleContext, i: int, like: Val) -> Val:
    return c.zeros_like_input(i, like)


def _masked(mask: Val, x: Val) -> Val:
    return builder.select(mask, x, 0.0)


def _winners(c: RuleContext) -> Val:
    """Which updates a ``set`` keeps (the last one at each valid index), over the updates' shape.

    Each index position scatters its own number; the number that stays at
    its index is the winner's.
    """
    indices, axis = _indices(c), _axis(c)
    i64 = ir.IntegerType.get_signless(64)
    count = prod(indices.shape)
    flat = builder.reshape(indices, (count,))
    numbers = builder.iota((count,), 0, i64)
    kept = builder.scatter(builder.constant(-1, (c.inputs[0].shape[axis],), i64), flat, numbers, 0, "set")
    won = builder.equal(builder.take(kept, flat, 0), numbers)
    return _over_updates(c, builder.reshape(won, indices.shape))


def _product_of_others(c: RuleContext) -> Val:
    """``x[idx[m]]`` times the product of the other updates at ``idx[m]``: the partial of ``y`` in ``u[m]``.

    Computed from the product of the nonzero updates at each index and the
    number of zero ones, without dividing by zero.
    """
    x, u = c.inputs[0], c.inputs[2]
    zero = builder.equal(u, 0.0)
    nonzero = builder.select(zero, 1.0, u)
    products = _gather(c, scatter_of(c, builder.ones(x.shape, x.element_type), nonzero, "mul"))
    zeros_at = _gather(c, scatter_of(c, builder.zeros(x.shape, x.element_type), zero.astype(x.element_type), "add"))
    others = builder.select(zero, _masked(builder.equal(zeros_at, 1.0), products),
                            _masked(builder.equal(zeros_at, 0.0), products / nonzero))
    return _masked(_valid(c), _gather(c, x) * others)


def _extremum_weights(c: RuleContext) -> tuple:
    """(operand kept, update attained, 1 / number of attainers) of a ``min``/``max`` scatter."""
    x, u, y = c.inputs[0], c.inputs[2], c.outputs[0]
    kept = builder.equal(x, y)
    attained = builder.logical_and(builder.equal(u, _gather(c, y)), _valid(c))
    count = kept.astype(x.element_type) + scatter_of(c, builder.zeros(x.shape, x.element_type),
                                                      attained.astype(x.element_type), "add")
    return kept, attained, 1.0 / builder.maximum(count, 1.0)


@family.jvp("tad.scatter")
def _scatter_jvp(c: RuleContext, tangents: list) -> list:
    t_x, _, t_u = tangents
    if t_x is None and t_u is None:
        return [None]
    like = t_x if t_x is not None else t_u
    kind = c.attrs["kind"].value
    if kind in ("set", "add"):
        into = t_x if t_x is not None else _zeros(c, 0, like)
        if t_u is None:
            return [into if kind == "add" else scatter_of(c, into, _zeros(c, 2, like), "set")]
        return [scatter_of(c, into, t_u, kind)]
    if kind == "mul":
        u = builder.broadcast_to(c.inputs[2], like.shape[:c.nb] + c.inputs[2].shape)
        terms = [None if t_x is None else scatter_of(c, t_x, u, "mul"),
                 None if t_u is None else scatter_of(c, _zeros(c, 0, like), t_u * _product_of_others(c), "add")]
        return [sum_contributions(terms)]
    kept, attained, weight = _extremum_weights(c)
    terms = [None if t_x is None else _masked(kept, t_x),
             None if t_u is None else scatter_of(c, _zeros(c, 0, like), _masked(attained, t_u), "add")]
    return [sum_contributions(terms) * weight]


@family.vjp("tad.scatter")
def _scatter_vjp(c: RuleContext, cotangents: list) -> list:
    (ct,) = cotangents
    kind = c.attrs["kind"].value
    if kind == "add":
        return [ct, None, _masked(_valid(c), _gather(c, ct))]
    if kind == "set":
        return [scatter_of(c, ct, _zeros(c, 2, ct), "set"), None, _masked(_winners(c), _gather(c, ct))]
    if kind == "mul":
        u = builder.broadcast_to(c.inputs[2], ct.shape[:c.nb] + c.inputs[2].shape)
        return [scatter_of(c, ct, u, "mul"), None, _gather(c, ct) * _product_of_others(c)]
    kept, attained, weight = _extremum_weights(c)
    g = ct * weight
    return [_masked(kept, g), None, _masked(attained, _gather(c, g))]


# ----------------------------------------------------------------------------
# Batching rule (tad-batch): the mapped axis is axis 0 of every batched value
# ----------------------------------------------------------------------------

@family.batching("tad.scatter")
def _scatter_batch(ctx, op, operands, batched):
    operand, indices, updates = operands
    attrs = python_attrs(op)
    axis, kind = attrs["axis"].value, attrs["kind"].value
    size = ctx.size
    operand = broadcast_batch(operand, batched[0], size)
    updates_rows = (size,) + tuple(op.operands[2].type.shape)
    if not batched[1]:
        return [builder.scatter(operand, indices, broadcast_batch(updates, batched[2], size), axis + 1, kind)]
    # Indices per row: the rows become one axis of size * n with row r's
    # indices shifted by r * n (an index outside its row's axis becomes -1,
    # still dropped), the mapped axis moved next to the scattered one.
    n = op.operands[0].type.shape[axis]
    shape = tuple(op.operands[0].type.shape)
    inside = builder.logical_and(builder.compare("ge", indices, 0), builder.compare("lt", indices, n))
    rows = builder.iota(indices.shape, 0, indices.element_type)
    shifted = builder.select(inside, indices + rows * n, -1)
    merged = builder.reshape(_to_axis(operand, axis), shape[:axis] + (size * n,) + shape[axis + 1:])
    updates = _to_axis(broadcast_batch(updates, batched[2], size, updates_rows[1:]), axis)
    out = builder.scatter(merged, shifted, updates, axis, kind)
    return [_from_axis(builder.reshape(out, shape[:axis] + (size, n) + shape[axis + 1:]), axis)]


def _to_axis(x: Val, axis: int) -> Val:
    """``x`` with its leading (mapped) axis moved to position ``axis``."""
    if axis == 0:
        return x
    return builder.transpose(x, list(range(1, axis + 1)) + [0] + list(range(axis + 1, x.ndim)))


def _from_axis(x: Val, axis: int) -> Val:
    """``x`` with its axis ``axis`` moved to the front (the mapped axis)."""
    if axis == 0:
        return x
    return builder.transpose(x, [axis] + [d for d in range(x.ndim) if d != axis])
