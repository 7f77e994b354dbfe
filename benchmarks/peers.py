"""The frameworks tensorad is measured against, imported only when present.

A missing peer is reported with the reason, never fatal: JAX and PyTorch are
optional extras (``pip install -e ".[bench]"``).

Examples
--------
>>> FRAMEWORKS[0]
'tensorad'
>>> status = available(["numpy"])
>>> status["numpy"].startswith("numpy ")
True
"""

from __future__ import annotations

import importlib
from importlib import metadata

# Column order of the table; tensorad first, then its peers.
FRAMEWORKS = ("tensorad", "numpy", "jax", "torch", "torch.compile")
PEERS = FRAMEWORKS[1:]
_MODULES = {"tensorad": "tensorad", "numpy": "numpy", "jax": "jax", "torch": "torch",
            "torch.compile": "torch"}


def available(names) -> dict:
    """``{framework: "name version"}`` for the importable ones, ``"missing: reason"`` for the others."""
    status = {}
    for name in names:
        try:
            module = importlib.import_module(_MODULES[name])
            version = getattr(module, "__version__", None) or metadata.version(_MODULES[name])
            status[name] = f"{name} {version}"
        except Exception as err:  # an optional peer may fail to import in any way
            status[name] = f"missing: {type(err).__name__}: {err}"
    return status


def is_missing(status: str) -> bool:
    """True for the status of a framework that could not be imported."""
    return status.startswith("missing")


def prepare(name: str) -> None:
    """Import what ``name``'s first call would otherwise import, and set it up as every framework is measured.

    ``import jax`` and ``import torch`` load their tracers and compilers;
    ``import tensorad`` loads its modules when they are first used, so
    without this its first call would time Python importing the compiler
    and its passes rather than compiling. torch.compile's compiler
    (``torch._dynamo``, ``torch._inductor``) is imported for the same
    reason. JAX runs on the CPU only, with float32 by default: the same
    setting as tensorad's inputs.

    Examples
    --------
    >>> prepare("tensorad")
    >>> import sys
    >>> "tensorad.passes.lower.tile_and_vectorize" in sys.modules
    True
    """
    if name == "tensorad":
        import tensorad.compiler  # noqa: F401
        from tensorad.passes.registry import PASSES
        for info in PASSES.values():
            info.load()
    elif name == "jax":
        import jax
        jax.config.update("jax_platforms", "cpu")
    elif name == "torch.compile":
        import torch._dynamo  # noqa: F401
        import torch._inductor.compile_fx  # noqa: F401
