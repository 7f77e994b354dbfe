"""``tad-clone-shared-fills``: give every linalg op its own copy of a fill it shares as an init.

Bufferization writes an op's result into its init's buffer; an init shared
by several ops would be filled once and copied for each op that writes into
it. With a fill of its own per op (cloned before the op), each op's buffer
is filled in place, and ``tad-tile-and-vectorize`` threads and vectorizes
the fill like any elementwise op. ``tad-lower-to-llvm`` runs this pass
before ``tad-tile-and-vectorize``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>) {
...   %cst = arith.constant 0.0 : f32
...   %e = tensor.empty() : tensor<4x4xf32>
...   %z = linalg.fill ins(%cst : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
...   %0 = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
...   %1 = linalg.matmul ins(%b, %a : tensor<4x4xf32>, tensor<4x4xf32>) outs(%z : tensor<4x4xf32>) -> tensor<4x4xf32>
...   return %0, %1 : tensor<4x4xf32>, tensor<4x4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-clone-shared-fills")
>>> str(m).count("linalg.fill")
2
"""

from __future__ import annotations

from typing import Optional

from mlir import ir

from ..walk import collect, defining_op


def run(op: ir.Operation, pass_) -> None:
    """Clone each fill inside ``op`` that initializes more than one linalg op, once per op but the first.

    A fill that also has other uses (a value read, not written into) keeps
    none of its linalg users: each of them gets a clone.
    """
    for fill in collect(op, lambda inner: is_fill(inner) and len(list(inner.results[0].uses)) > 1):
        inits = [use for use in fill.results[0].uses if use.owner.name.startswith("linalg.")
                 and use.operand_number >= len(use.owner.operands) - len(use.owner.results)]
        for use in inits[1:] if len(inits) == len(list(fill.results[0].uses)) else inits:
            user = use.owner
            copy = fill.clone(ip=ir.InsertionPoint(user))
            user.operands[use.operand_number] = copy.results[0]


def is_fill(op: Optional[ir.Operation]) -> bool:
    """True for ``linalg.fill`` and for a generic without inputs that yields a constant (a splat)."""
    if op is None:
        return False
    if op.name == "linalg.fill":
        return True
    if op.name != "linalg.generic" or len(op.operands) != 1:
        return False
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    yielded = defining_op(body[-1].operands[0])
    if yielded is None:  # a block argument: the init's own value
        return False
    inside = yielded.parent == op
    return (len(body) == 2 and yielded.name == "arith.constant") if inside else len(body) == 1
