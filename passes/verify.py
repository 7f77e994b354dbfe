"""``tad-verify``: check the shape and attribute rules of every ``tad`` op.

IRDL verifies operand, result and attribute kinds; the rules it cannot state
live in :mod:`tensorad.dialects.shapes`, one per op. This pass applies them and
reports each violation at the op's location.

Examples
--------
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> from mlir import ir
>>> ctx = make_context()
>>> m = ir.Module.parse('%0 = "tad.iota"() {iota_dimension = 0} : () -> tensor<3xf32>', ctx)
>>> run_pipeline(m, "tad-verify")
"""

from __future__ import annotations

from mlir import ir

from ..dialects.shapes import check_op


def run(op: ir.Operation, pass_) -> None:
    """Emit an error at every ``tad`` op that breaks its shape rule; fail if any does."""
    failed = False

    def visit(inner: ir.Operation):
        nonlocal failed
        if inner.name.startswith("tad."):
            problem = check_op(inner)
            if problem is not None:
                inner.location.emit_error(f"'{inner.name}' op {problem}")
                failed = True
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    if failed:
        pass_.signal_pass_failure()
