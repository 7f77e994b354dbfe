"""Lowering passes: ``tad`` to linalg, and named pipelines down to LLVM."""
