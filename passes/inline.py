"""``tad-inline``: inline calls of private functions, ``tad`` ops included.

Upstream ``inline`` asks each op's dialect whether inlining it is legal; an
IRDL dialect has no inliner interface, so a callee holding ``tad`` ops is
never inlined. tensorad traces every transformed function (``grad``, ``vjp``,
...) into a private callee, and fusion, CSE and buffer reuse only see across
those boundaries once the callees are inlined. Run ``symbol-dce`` afterwards
to drop the callees left without callers.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
...   %0 = call @g(%x) : (tensor<2xf64>) -> tensor<2xf64>
...   return %0 : tensor<2xf64>
... }
... func.func private @g(%x: tensor<2xf64>) -> tensor<2xf64> {
...   %0 = "tad.transpose"(%x) {permutation = array<i64: 0>} : (tensor<2xf64>) -> tensor<2xf64>
...   return %0 : tensor<2xf64>
... }''', make_context())
>>> run_pipeline(m, "tad-inline,symbol-dce")
>>> "call" in str(m)
False
"""

from __future__ import annotations

from mlir import ir

from .walk import collect, splice_block


def _calls(op: ir.Operation) -> list:
    return collect(op, lambda inner: inner.name == "func.call")


def _inlinable(callee: ir.Operation) -> bool:
    """A private function with one block that does not call itself."""
    visibility = callee.attributes["sym_visibility"].value if "sym_visibility" in callee.attributes \
        else "public"
    if visibility != "private" or len(callee.regions[0].blocks) != 1:
        return False
    name = callee.attributes["sym_name"].value
    return all(c.attributes["callee"].value != name for c in _calls(callee))


def _inline(call: ir.Operation, callee: ir.Operation) -> None:
    copy = callee.clone(ip=ir.InsertionPoint(call))
    block = copy.regions[0].blocks[0]
    for arg, operand in zip(block.arguments, call.operands):
        arg.replace_all_uses_with(operand)
    splice_block(block, call)
    call.erase()
    copy.erase()


def run(op: ir.Operation, pass_) -> None:
    """Inline every call of an inlinable private function in the module ``op``, to a fixed point."""
    body = op.regions[0].blocks[0]
    symbols = {f.attributes["sym_name"].value: f.operation for f in body.operations
               if f.operation.name == "func.func"}
    while True:
        calls = [c for c in _calls(op) if c.attributes["callee"].value in symbols
                 and _inlinable(symbols[c.attributes["callee"].value])]
        if not calls:
            return
        for call in calls:
            _inline(call, symbols[call.attributes["callee"].value])
