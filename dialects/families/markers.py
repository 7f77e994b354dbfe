"""Differentiation markers: identity ops that only tell a pass something.

Each op's record (declaration, traits, shape rule, lowering and derivative
rules) is registered here through :data:`family`. Markers have no folds:
tad-simplify never folds or merges them, they go only when unused.

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> record_of("tad.start_checkpoint").vjp is not None, record_of("tad.stop_gradient").vjp
(True, None)
"""

from __future__ import annotations

from ..derivatives import deflinear
from ..record import Family, Trait
from ..shapes import accepts_dynamic

family = Family("markers")

family.define("tad.stop_gradient",
              operands=("operand",),
              summary="Identity whose derivative is zero.",
              traits=(Trait.PURE, Trait.VIEW, Trait.MARKER, Trait.ZERO_DERIVATIVE))
family.define("tad.start_checkpoint",
              operands=("operand",),
              summary="Identity marking the start of a region recomputed in the backward pass.",
              traits=(Trait.PURE, Trait.VIEW, Trait.MARKER))
family.define("tad.end_checkpoint",
              operands=("operand",),
              summary="Identity marking the end of a region recomputed in the backward pass.",
              traits=(Trait.PURE, Trait.VIEW, Trait.MARKER))


@family.shape_rule("tad.stop_gradient", "tad.start_checkpoint", "tad.end_checkpoint")
@accepts_dynamic
def _identity(operands, attrs, results):
    (x,) = operands
    return [x]


@family.lowering("tad.stop_gradient", "tad.start_checkpoint", "tad.end_checkpoint")
def _lower_identity(op):
    return [op.operands[0]]


# A checkpoint only marks a region for tad-remat: its derivative is the identity.
deflinear(family, "tad.start_checkpoint", lambda c, ts: ts[0], lambda c, ct: [ct])
deflinear(family, "tad.end_checkpoint", lambda c, ts: ts[0], lambda c, ct: [ct])
