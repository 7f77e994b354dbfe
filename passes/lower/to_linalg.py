"""``tad-lower-to-linalg``: rewrite every ``tad`` op into linalg, tensor, arith and math.

Each op's lowering is the ``lowering`` of its record, registered by the
module of its family (:mod:`tensorad.dialects.families`). A lowering builds
the replacement right before the op and returns the values that replace the
op's results. Most end in one ``linalg.generic``: elementwise and
broadcasting generics are fused into their consumers by
``linalg-fuse-elementwise-ops`` in ``tad-lower-to-llvm``, so broadcasts and
constants cost no temporary buffer.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
...   %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
...   return %0 : tensor<3x2xf32>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> "linalg.transpose" in str(module)
True
"""

from __future__ import annotations

from mlir import ir

from ...dialects.record import record_of
from ..walk import collect


def run(op: ir.Operation, pass_) -> None:
    """Replace every ``tad`` op inside ``op`` (a ``builtin.module``) by its lowering.

    An op without a lowering is reported at its location and the pass
    fails without changing the IR.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> from tensorad.passes.registry import run_pipeline
    >>> m = ir.Module.parse('%0 = "tad.iota"() {iota_dimension = 0} : () -> tensor<3xf32>',
    ...                     make_context())
    >>> run_pipeline(m, "tad-lower-to-linalg")
    >>> "tad." in str(m)
    False
    """
    tad_ops = collect(op, lambda inner: inner.name.startswith("tad."))
    missing = [o for o in tad_ops if _lowering(o) is None]
    for o in missing:
        o.location.emit_error(f"'{o.name}' has no lowering to linalg (tad-lower-to-linalg)")
    if missing:
        pass_.signal_pass_failure()
        return
    for o in tad_ops:
        with ir.InsertionPoint(o), o.location:
            replacements = _lowering(o)(o)
        for old, new in zip(o.results, replacements):
            old.replace_all_uses_with(new)
        o.erase()


def _lowering(op: ir.Operation):
    record = record_of(op)
    return None if record is None else record.lowering
