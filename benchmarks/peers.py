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


def configure_jax() -> None:
    """CPU only, float32 by default: the same setting as tensorad's inputs."""
    import jax
    jax.config.update("jax_platforms", "cpu")
