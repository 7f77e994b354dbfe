"""``tad-hoist-invariant-transposes``: move a transpose of a loop-invariant tensor out of its loops.

Contractions transpose an operand into the layout their kernel streams (see
``tad-lower-to-linalg``); a weight used in every step of a loop (an RNN's)
would otherwise be transposed once per step. ``tad-lower-to-llvm`` runs this
pass before ``tad-tile-and-vectorize``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%w: tensor<4x8xf32>, %h: tensor<8x4xf32>, %n: index) -> tensor<8x4xf32> {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %r = scf.for %i = %c0 to %n step %c1 iter_args(%a = %h) -> (tensor<8x4xf32>) {
...     %e = tensor.empty() : tensor<8x4xf32>
...     %t = linalg.transpose ins(%w : tensor<4x8xf32>) outs(%e : tensor<8x4xf32>) permutation = [1, 0]
...     %s = arith.addf %a, %t : tensor<8x4xf32>
...     scf.yield %s : tensor<8x4xf32>
...   }
...   return %r : tensor<8x4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-hoist-invariant-transposes")
>>> text = str(m)
>>> text.index("linalg.transpose") < text.index("scf.for")
True
"""

from __future__ import annotations

from mlir import ir

from ...dialects.record import Trait, has_trait
from ..walk import collect, defined_outside, defining_op



def run(op: ir.Operation, pass_) -> None:
    """Move every ``linalg.transpose`` inside ``op`` whose input is defined outside its loop out of it.

    The transpose moves out one loop at a time while its input stays
    invariant, taking along its ``tensor.empty`` init when that sits in the
    loop; it stays where its init is computed in the loop.
    """
    for transpose in collect(op, lambda inner: inner.name == "linalg.transpose"):
        init = defining_op(transpose.operands[1])
        while has_trait(transpose.parent, Trait.LOOP) and defined_outside(transpose.operands[0], transpose.parent):
            loop = transpose.parent
            if init is not None and init.name == "tensor.empty" and init.parent == loop:
                init.move_before(loop)
            if not defined_outside(transpose.operands[1], loop):
                break
            transpose.move_before(loop)
