"""Differentiation markers: identity ops that only tell a pass something.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from ..record import Family, Trait

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
def _identity(operands, attrs, results):
    (x,) = operands
    return [x]
