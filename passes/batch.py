"""``tad-batch``: define every function declared with ``tad.vmap``.

A batched function is asked for by declaring it (DESIGN.md): the declaration
``tad.vmap = {of = @f, in_axes = array<i64: ...>, out_axes = array<i64: ...>}``
maps input ``i`` of ``@f`` over its axis ``in_axes[i]`` (``-1``: not mapped)
and puts the mapped axis of result ``j`` at ``out_axes[j]``. The body is built
op by op by :mod:`tensorad.passes.batching`, with the batching rules of the op
records. A vmap may be of a derivative and a derivative of a vmap: the
declarations are defined in the order they depend on each other.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
...   %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
...   return %0 : tensor<f64>
... }
... func.func private @f_vmap(tensor<3x4xf64>) -> tensor<4xf64>
...     attributes {tad.vmap = {of = @f, in_axes = array<i64: 1>, out_axes = array<i64: 0>}}''',
...     make_context())
>>> run_pipeline(m, "tad-batch")
>>> 'dimensions = array<i64: 1>' in str(m)
True
"""

from __future__ import annotations

from mlir import ir

from . import batching
from .differentiate import define_all


def run(op: ir.Operation, pass_) -> None:
    """Define every ``tad.vmap`` declaration in the module ``op``."""
    define_all(op, pass_, ("vmap",), {"vmap": batching.build})
