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

from ..dialects.shapes import check_op, size_problem


def run(op: ir.Operation, pass_) -> None:
    """Emit an error at every ``tad`` op that breaks its shape rule; fail if any does.

    Any op whose results, block arguments or function type hold a tensor too
    large to address is reported too: bufferization would overflow computing
    its layout.
    """
    failed = False

    def visit(inner: ir.Operation):
        nonlocal failed
        problem = _too_large(inner)
        if problem is None and inner.name.startswith("tad."):
            problem = check_op(inner)
        if problem is not None:
            inner.location.emit_error(f"'{inner.name}' op {problem}")
            failed = True
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    if failed:
        pass_.signal_pass_failure()


def _too_large(op: ir.Operation):
    """Why a value ``op`` defines (a result, an argument of its blocks or its function) is too large, or None."""
    types = [r.type for r in op.results]
    types += [a.type for region in op.regions for block in region.blocks for a in block.arguments]
    signature = ir.TypeAttr(op.attributes["function_type"]).value if "function_type" in op.attributes else None
    if isinstance(signature, ir.FunctionType):  # not an llvm.func's !llvm.func
        types += [*signature.inputs, *signature.results]
    return next((p for p in map(size_problem, types) if p is not None), None)
