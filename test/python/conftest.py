"""Fixtures shared by the test modules: JAX, the reference of the NN parity tests."""

from __future__ import annotations

import pytest

# The reference's settings: float64 arrays, and XLA compiling fast rather than
# well (each reference runs once, on small arrays, so compiling dominates).
JAX_SETTINGS = {"jax_enable_x64": True, "jax_disable_most_optimizations": True}


def pytest_configure(config):
    # Once its CPU backend has started, JAX warns on every os.fork(), and
    # tensorad forks a child for every pass pipeline (crash isolation). The
    # child runs MLIR passes only and exits; the warning is for a child that
    # goes on using JAX. Without this filter every later compilation warns.
    config.addinivalue_line("filterwarnings", r"ignore:os\.fork\(\) was called:RuntimeWarning")


@pytest.fixture(scope="module")
def jax():
    """JAX on CPU, set up for the module's tests and restored after.

    ``jax`` and ``jaxlib`` are pinned in the ``test`` extra (CPU builds: no
    GPU needed). Other modules (the benchmarks' JAX peer) keep JAX's defaults.
    """
    import jax

    saved = {name: jax.config.read(name) for name in JAX_SETTINGS}
    for name, value in JAX_SETTINGS.items():
        jax.config.update(name, value)
    yield jax
    for name, value in saved.items():
        jax.config.update(name, value)
