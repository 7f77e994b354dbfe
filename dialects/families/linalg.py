"""Structured ops on tensors: upstream ``linalg``, as hand-written IR brings it (LAGrad's subject).

Upstream declares these ops; their records here hold traits and how values
flow through ``linalg.generic``'s body. ``linalg.generic`` gets its
derivative rules from :mod:`tensorad.passes.differentiate.linalg`, which
differentiates the scalar body with the sweeps' own engines and registers
the rules on these records through :data:`family`. Every named structured
op (``linalg.matmul``, ``linalg.conv_2d_nhwc_hwcf``, ``linalg.reduce``, ...)
carries :attr:`~tensorad.dialects.record.Trait.GENERALIZABLE`:
``tad-differentiate`` rewrites it into the ``linalg.generic`` it stands for
before its sweeps, so one pair of rules covers them all and the derivative
stays structured (tiled and vectorized like the primal).

Examples
--------
>>> from tensorad.dialects.record import has_trait
>>> has_trait("linalg.matmul", Trait.GENERALIZABLE), has_trait("linalg.generic", Trait.GENERALIZABLE)
(True, False)
>>> has_trait("linalg.index", Trait.ZERO_DERIVATIVE)
True
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import _linalg_ops_gen

from ..record import Family, Trait, operation_names

family = Family("linalg")

#: Ops of the dialect that are not structured ops over an iteration space
#: (packing, softmax's decomposition, Winograd transforms) or are recorded below.
_NOT_GENERALIZABLE = {"linalg.generic", "linalg.yield", "linalg.index", "linalg.pack", "linalg.unpack",
                      "linalg.softmax", "linalg.winograd_filter_transform",
                      "linalg.winograd_input_transform", "linalg.winograd_output_transform"}

family.upstream("linalg.generic", traits=(Trait.PURE_IF_BODY_PURE,))
family.upstream("linalg.yield", traits=(Trait.TERMINATOR,))
family.upstream("linalg.index", traits=(Trait.PURE, Trait.ZERO_DERIVATIVE))
for _name in operation_names(_linalg_ops_gen):
    if _name not in _NOT_GENERALIZABLE:
        family.upstream(_name, traits=(Trait.PURE, Trait.GENERALIZABLE))


def operand_segments(op: ir.Operation) -> tuple:
    """``(inputs, outputs)`` of a structured op: its operands split as its ``ins``/``outs`` say."""
    sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    operands = list(op.operands)
    return operands[:sizes[0]], operands[sizes[0]:sizes[0] + sizes[1]]


@family.region_flow("linalg.generic")
def _generic_flow(op: ir.Operation, edge) -> None:
    """Each operand flows to its block argument; what the body yields, to the results."""
    body = op.regions[0].blocks[0]
    inputs, outputs = operand_segments(op)
    for operand, argument in zip(inputs + outputs, body.arguments):
        edge(operand, argument)
    for yielded, result in zip(list(body.operations)[-1].operands, op.results):
        edge(yielded, result)
