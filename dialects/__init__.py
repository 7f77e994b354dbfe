"""The ``tad`` dialect: its op records, the value-level builder, and loading it into a context.

Every op is described by one record (:mod:`tensorad.dialects.record`),
registered by the module of its family (:mod:`tensorad.dialects.families`).
The IRDL declaration is generated from the records (``tad.irdl.mlir`` beside
this file holds the same text for ``mlir-opt --irdl-file``) and loaded into an
MLIR context with :func:`load`.

Examples
--------
>>> from mlir import ir
>>> from tensorad import dialects
>>> ctx = dialects.make_context()
>>> ctx.is_registered_operation("tad.transpose")
True
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from mlir import ir
from mlir.dialects import irdl

from .lean import install as install_lean_dialect_modules

install_lean_dialect_modules()

from . import families  # noqa: E402,F401  (registers every op record)
from .record import irdl_text  # noqa: E402
IRDL_PATH = Path(__file__).with_name("tad.irdl.mlir")


@lru_cache(maxsize=None)
def irdl_source() -> str:
    """Return the text of the dialect's IRDL declaration, generated from the op records.

    Examples
    --------
    >>> "irdl.dialect @tad" in irdl_source()
    True
    """
    return irdl_text()


def load(ctx: ir.Context) -> None:
    """Load the ``tad`` dialect into ``ctx`` (once per context).

    Parameters
    ----------
    ctx : mlir.ir.Context
        The context that will parse or build ``tad`` ops.

    Examples
    --------
    >>> ctx = ir.Context(); load(ctx)
    >>> ctx.is_registered_operation("tad.dot_general")
    True
    """
    if ctx.is_registered_operation("tad.transpose"):
        return
    with ctx, ir.Location.unknown():
        irdl.load_dialects(ir.Module.parse(irdl_source()))


def make_context() -> ir.Context:
    """Return a fresh context with every upstream dialect and ``tad`` loaded.

    Examples
    --------
    >>> make_context().is_registered_operation("linalg.generic")
    True
    """
    ctx = ir.Context()
    # No thread pool: pipelines run in forked children (tensorad.passes.isolation),
    # which would wait forever on pool threads a fork does not copy.
    ctx.enable_multithreading(False)
    ctx.load_all_available_dialects()
    load(ctx)
    return ctx
