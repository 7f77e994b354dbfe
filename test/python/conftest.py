"""Fixtures shared by the test modules."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def jax():
    """JAX on CPU, the reference of the NN parity tests, with float64 enabled for the module.

    ``jax`` and ``jaxlib`` are pinned in the ``test`` extra (CPU builds: no
    GPU needed). The setting is restored after the module, so other modules
    (the benchmarks' JAX peer) keep JAX's float32 default.
    """
    import jax

    enabled = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield jax
    jax.config.update("jax_enable_x64", enabled)
