"""Fixtures shared by the test modules: JAX, the NN parity tests' reference, in a worker process."""

from __future__ import annotations

import concurrent.futures
import multiprocessing

import numpy as np
import pytest


def pytest_configure(config):
    # Once its CPU backend has started (the benchmarks' JAX peer starts it in
    # this process), JAX warns on every os.fork(), and tensorad forks a child
    # for every pass pipeline (crash isolation). The child runs MLIR passes
    # only and exits; the warning is for a child that goes on using JAX.
    config.addinivalue_line("filterwarnings", r"ignore:os\.fork\(\) was called:RuntimeWarning")


def _start_jax() -> None:
    """The worker's settings: float64 arrays, and XLA compiling fast rather than well."""
    import jax

    jax.config.update("jax_enable_x64", True)
    # Each reference runs once or twice, on small arrays: compiling dominates.
    jax.config.update("jax_disable_most_optimizations", True)


def _call(function, args, kwargs):
    import jax

    return jax.tree.map(np.asarray, function(jax, *args, **kwargs))


@pytest.fixture(scope="session")
def jax_reference():
    """``jax_reference(function, *args, **kwargs)``: ``function(jax, *args, **kwargs)``, in numpy.

    ``function`` is a module-level function (it is pickled by name) and runs
    in a worker process that has JAX in float64 on CPU (``jax`` and ``jaxlib``
    are pinned in the ``test`` extra: CPU builds, no GPU needed). JAX stays
    out of the test process: XLA's memory (hundreds of MB after a few hundred
    compilations) would make each of tensorad's forks slower, which slows
    every later test by a fifth.
    """
    context = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=context,
                                                initializer=_start_jax) as worker:
        yield lambda function, *args, **kwargs: worker.submit(_call, function, args,
                                                              kwargs).result()


@pytest.fixture
def monkeypatch(monkeypatch):
    """pytest's ``monkeypatch``, whose patches reach the compile worker too.

    The worker (:mod:`tensorad.passes.isolation`) is forked once and then
    sees the test process as it was: after each patch it is stopped, so the
    next compilation forks one that sees the patch (and, after the test, one
    that sees it undone).
    """
    from tensorad.passes.isolation import restart_worker

    def restarting(method):
        def patched(*args, **kwargs):
            method(*args, **kwargs)
            restart_worker()
        return patched

    for name in ("setattr", "delattr", "setitem", "delitem", "syspath_prepend"):
        setattr(monkeypatch, name, restarting(getattr(monkeypatch, name)))
    yield monkeypatch
    restart_worker()
