"""Lean stand-ins for upstream dialect modules, found first by the MLIR bindings.

The bindings import ``mlir.dialects.<namespace>`` the first time Python sees
an op or attribute of a dialect, to register its op classes. For ``linalg``
that module also runs the OpDSL definitions of every named op (about 40 ms,
paid by the first compile of every process), which tensorad never uses.
:func:`install` puts this package ahead of ``mlir.dialects`` in the bindings'
search path; its ``linalg`` module registers the same generated op classes
and enums, nothing more. ``from mlir.dialects import linalg`` still imports
the full upstream module, whose op classes are those same classes. Its
``tad`` module stops the bindings from looking for a ``tad`` module again,
with a failed import, every time Python sees a ``tad`` op; its ``llvm`` and
``vector`` modules register no op classes at all (tensorad's passes build no
such ops in Python, and read those they walk through the generic op view).

Examples
--------
>>> from mlir._mlir_libs import _mlir
>>> install()
>>> _mlir.globals.dialect_search_modules[0]
'tensorad.dialects.lean'
"""

from __future__ import annotations

from mlir._mlir_libs import _mlir

PREFIX = __name__


def install() -> None:
    """Search this package before the others for dialect modules (idempotent)."""
    modules = list(_mlir.globals.dialect_search_modules)
    if PREFIX not in modules:
        _mlir.globals.dialect_search_modules = [PREFIX, *modules]
