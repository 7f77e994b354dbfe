"""Scans: the running sum along an axis (``tad.cumsum``).

The op's record (declaration, traits, shape rule, FLOPs, fold, lowering,
derivative and batching rules) is registered here through :data:`family`.
Running products, extrema and log-sum-exps are built by the frontend from
slices and elementwise ops (``associative_scan``, as JAX does on CPU), so
their derivatives follow from those ops' rules.

Lowering: the operand is viewed as ``(R, n, C)`` (the dims before the axis,
the axis, the dims after it) and a nest of ``scf.for`` loops over ``r``, ``k``
and ``c`` adds each element to the result's element one step before along
the axis (``tensor.extract``/``tensor.insert`` on the loops' carry, updated
in place by bufferization): a sequential sum like numpy's ``cumsum``, with
the innermost loop along contiguous memory. With ``reverse = 1`` the sums
run from the end.

Derivatives: ``cumsum`` is linear; its tangent is the cumsum of the tangent
and its transpose is the cumsum the other way (``reverse`` flipped). A batch
prefix only moves the axis.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<4x3xf64>) -> tensor<4x3xf64> {
...   %0 = "tad.cumsum"(%x) {axis = 0, reverse = 0} : (tensor<4x3xf64>) -> tensor<4x3xf64>
...   return %0 : tensor<4x3xf64>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> "scf.for" in str(module) and "tad." not in str(module)
True
"""

from __future__ import annotations

from math import prod

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..derivatives import deflinear
from ..record import Family, Trait
from ..shapes import int_attr, need, python_attrs

family = Family("scan")

family.define("tad.cumsum",
              operands=("operand",),
              attributes=(("axis", "integer"), ("reverse", "integer")),
              summary="Running sum along `axis` (from the end with reverse = 1); the result has the operand's type.",
              traits=(Trait.PURE,))


@family.shape_rule("tad.cumsum")
def _cumsum(operands, attrs, results):
    (x,) = operands
    axis = int_attr(attrs, "axis")
    need(0 <= axis < x.rank, f"axis {axis} is out of range for rank {x.rank}")
    need(int_attr(attrs, "reverse") in (0, 1), "reverse must be 0 or 1")
    need(not linalg.is_bool(x.element_type), "cumsum of booleans: convert them to integers first")
    need(not isinstance(x.element_type, ir.ComplexType), "cumsum of complex numbers: sum their parts")
    return [x]


@family.fold("tad.cumsum")
def _fold_cumsum(op):
    # A running sum over one element (or none) is the operand.
    x = op.operands[0]
    return x if x.type.shape[python_attrs(op)["axis"].value] <= 1 else None


def _loop(upper: int, inits, body) -> list:
    """``scf.for`` over ``[0, upper)`` carrying ``inits``; ``body(i, *carried) -> new carries``."""
    index = ir.IndexType.get()
    loop = scf.ForOp(arith.constant(index, 0), arith.constant(index, upper), arith.constant(index, 1), list(inits))
    with ir.InsertionPoint(loop.body):
        scf.YieldOp(body(loop.induction_variable, *loop.inner_iter_args))
    return list(loop.results)


@family.lowering("tad.cumsum")
def _lower_cumsum(op):
    x, t = op.operands[0], op.results[0].type
    attrs = python_attrs(op)
    axis, reverse = attrs["axis"].value, bool(attrs["reverse"].value)
    n = t.shape[axis]
    if n <= 1 or prod(t.shape) == 0:
        return [x]
    rows, columns = prod(t.shape[:axis]), prod(t.shape[axis + 1:])
    rnc = ir.RankedTensorType.get([rows, n, columns], t.element_type)
    add = linalg.ADD[linalg.category(t.element_type)]
    index = ir.IndexType.get()
    zero = arith.constant(t.element_type, linalg.zero_attr(t.element_type))
    x = linalg.from_flat(linalg.to_flat(x), rnc)

    # Element loops, the axis outside the dims after it: element (r, k, c) adds
    # the result's (r, k - 1, c), written one step of k before, so the inner
    # loop runs along contiguous memory. Only tensor.extract/insert on the
    # loop's carry: bufferization updates one buffer in place.
    def row(r, out):
        def step(j, out):
            if reverse:  # k = n - 1, ..., 0, each adding k + 1
                k = arith.subi(arith.constant(index, n - 1), j)
                previous = arith.minsi(arith.addi(k, arith.constant(index, 1)), arith.constant(index, n - 1))
            else:
                k = j
                previous = arith.maxsi(arith.subi(k, arith.constant(index, 1)), arith.constant(index, 0))
            first = arith.cmpi(arith.CmpIPredicate.eq, j, arith.constant(index, 0))

            def column(c, out):
                before = arith.select(first, zero, tensor.ExtractOp(out, [r, previous, c]).result)
                value = add(before, tensor.ExtractOp(x, [r, k, c]).result)
                return [tensor.InsertOp(value, out, [r, k, c]).result]

            return _loop(columns, [out], column)

        return _loop(n, [out], step)

    [out] = _loop(rows, [tensor.EmptyOp(rnc.shape, t.element_type).result], row)
    return [linalg.from_flat(linalg.to_flat(out), t)]


# --- derivatives -------------------------------------------------------------------

def _cumsum_of(c, x, flip: bool):
    attrs = c.attrs
    return builder.cumsum(x, attrs["axis"].value + c.nb, bool(attrs["reverse"].value) != flip)


deflinear(family, "tad.cumsum",
          lambda c, ts: _cumsum_of(c, ts[0], flip=False),
          lambda c, ct: [_cumsum_of(c, ct, flip=True)])


@family.batching("tad.cumsum")
def _cumsum_batch(ctx, op, operands, batched):
    attrs = python_attrs(op)
    return [builder.cumsum(operands[0], attrs["axis"].value + 1, bool(attrs["reverse"].value))]
