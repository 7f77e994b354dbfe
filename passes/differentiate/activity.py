"""Activity analysis: which values of a function need derivatives.

A value is *active* when it has a floating-point type, depends
differentiably on a ``wrt`` input (it is *varied*) and reaches a result (it is
*useful*). Integer and boolean values, and results of ops in
:data:`~tensorad.passes.differentiate.rules.ZERO_DERIVATIVE`, are never varied.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<2xf64>, %y: tensor<2xf64>) -> tensor<2xf64> {
...   %0 = math.exp %y : tensor<2xf64>
...   %1 = arith.mulf %x, %0 : tensor<2xf64>
...   return %1 : tensor<2xf64>
... }''', make_context())
>>> block = m.body.operations[0].regions[0].blocks[0]
>>> active = active_values(block, [block.arguments[0]])
>>> block.arguments[1] in active
False
"""

from __future__ import annotations

from typing import Iterable

from mlir import ir

from .rules import ZERO_DERIVATIVE


def is_float_tensor(value: ir.Value) -> bool:
    """True for values whose element type is floating point."""
    t = value.type
    element = t.element_type if isinstance(t, ir.ShapedType) else t
    return isinstance(element, ir.FloatType)


def active_values(block: ir.Block, wrt: Iterable[ir.Value]) -> set:
    """The active values of ``block``: varied by ``wrt`` and useful for its terminator's operands."""
    ops = list(block.operations)
    varied = {v for v in wrt if is_float_tensor(v)}
    for op in ops:
        if op.name in ZERO_DERIVATIVE:
            continue
        if any(v in varied for v in op.operands):
            varied.update(r for r in op.results if is_float_tensor(r))
    useful = {v for v in ops[-1].operands if v in varied}
    for op in reversed(ops[:-1]):
        if any(r in useful for r in op.results):
            useful.update(v for v in op.operands if v in varied)
    return useful
