"""``tad-jit-differentiate``: the named pipeline of ``tensorad.jit``'s ``"differentiated"`` stage.

``tad-partition`` computes values marked ``tad.shard`` by blocks (a no-op
without them); ``tad-batch`` defines every batched function (``tad.vmap``), and the
derivatives those depend on; ``tad-raise-contractions`` makes hand-written
linalg contractions and convolutions ``tad.dot_general`` / ``tad.conv2d``,
so that ``tad-differentiate``, which defines every other declared derivative
function, uses their rules; ``tad-inline`` and ``symbol-dce`` inline them
into their callers and drop them; ``tad-raise-contractions`` runs again for
the adjoints of the generics left (contractions too); ``tad-simplify`` removes what the inlining made dead or foldable;
``tad-batch-loop-rows`` does a loop's contractions of rows for all rows at once (an RNN's input projection
and weight gradients; not under a memory budget, since its stacks take memory); and
``tad-remat`` chooses what the backward sweep stores, with ``tad-remat``'s
options. With ``inline=false`` the derivative functions stay functions of
their own, so that ``tad-remat`` reports on each vjp apart
(``tensorad.print_saved_residuals``).

Examples
--------
>>> pipeline()
'builtin.module(tad-partition,tad-batch,tad-raise-contractions,tad-differentiate,tad-inline,symbol-dce,tad-raise-contractions,tad-simplify,tad-batch-loop-rows,tad-remat)'
>>> pipeline(JitDifferentiateOptions(budget=4096, inline=False))
'builtin.module(tad-partition,tad-batch,tad-raise-contractions,tad-differentiate,tad-raise-contractions,tad-simplify,tad-remat{budget=4096})'
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from .options import option
from .registry import PassSpec, Pipeline
from .remat import RematOptions


@dataclass(frozen=True)
class JitDifferentiateOptions(RematOptions):
    """The options of ``tad-jit-differentiate``: those of ``tad-remat``, and whether derivatives are inlined."""

    inline: bool = option(True, "inline the derivative functions into their callers (tad-inline, symbol-dce)")


def pipeline(options: JitDifferentiateOptions = JitDifferentiateOptions()) -> str:
    """The pipeline text of ``tad-jit-differentiate`` with ``options``."""
    remat = RematOptions(**{f.name: getattr(options, f.name) for f in dataclasses.fields(RematOptions)})
    inline = (PassSpec("tad-inline"), "symbol-dce") if options.inline else ()
    raise_ = PassSpec("tad-raise-contractions")
    # Stacking a loop's rows takes memory: under a budget, tad-remat alone decides what is kept.
    rows = (PassSpec("tad-batch-loop-rows"),) if options.budget is None else ()
    return str(Pipeline(PassSpec("tad-partition"), PassSpec("tad-batch"), raise_, PassSpec("tad-differentiate"),
                        *inline, raise_, PassSpec("tad-simplify"), *rows, PassSpec("tad-remat", remat)))
