"""``tad-lower-to-llvm``: the named CPU pipeline from tensors to the LLVM dialect.

Stages, in order:

1. elementwise ``arith``/``math`` ops on tensors become ``linalg.generic`` and
   producer/consumer generics are fused, so a chain of elementwise ops makes
   one loop nest and no temporaries;
2. one-shot bufferization across function boundaries (identity layouts, so
   the C interface sees plain dense memrefs);
3. ownership-based buffer deallocation (function results are owned by the
   caller), then ``tad-free-after-last-use`` moves every free right after the
   buffer's last use, so peak memory is what the program needs at once;
4. loops, then LLVM; allocations go through the generic
   ``_mlir_memref_to_llvm_alloc/free`` so the runtime can count live bytes.

Examples
--------
>>> "one-shot-bufferize" in pipeline()
True
"""

from __future__ import annotations

_STAGES = (
    "func.func(convert-elementwise-to-linalg)",
    "linalg-fuse-elementwise-ops",
    # No upstream cse on tensors: it would merge the ops tad-remat recomputes
    # with the originals they copy (tad-simplify has done CSE before tad-remat).
    "canonicalize",
    "tad-widen-bools",
    "one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops}",
    "buffer-deallocation-pipeline",
    "tad-free-after-last-use",
    "tad-widen-bools",
    "convert-bufferization-to-memref",
    "func.func(convert-linalg-to-loops)",
    "canonicalize",
    "convert-scf-to-cf",
    "expand-strided-metadata",
    "lower-affine",
    "finalize-memref-to-llvm{use-generic-functions=true}",
    "convert-math-to-funcs",
    "convert-math-to-llvm",
    "convert-math-to-libm",
    "convert-arith-to-llvm",
    "convert-index-to-llvm",
    "convert-func-to-llvm",
    "convert-cf-to-llvm",
    "convert-ub-to-llvm",
    "reconcile-unrealized-casts",
)


def pipeline() -> str:
    """Return the pipeline text of ``tad-lower-to-llvm``.

    Examples
    --------
    >>> pipeline().startswith("func.func(")
    True
    """
    return ",".join(_STAGES)
