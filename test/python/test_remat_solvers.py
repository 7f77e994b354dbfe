"""tad-remat's solvers are deterministic (limits in units of work, never a clock) and say when they take long."""

from __future__ import annotations

import io
import itertools
import threading
import time

import numpy as np

import tensorad as ta
from tensorad.passes.remat import chain, cost, exact, progress
from tensorad.passes.remat.graph import example


def _slowed_down(monkeypatch):
    """Busy threads competing for the cores, and Python clocks that leap a minute at each read."""
    leaps = itertools.count(0.0, 60.0)
    for clock in ("perf_counter", "monotonic", "time"):
        monkeypatch.setattr(time, clock, lambda: next(leaps))
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            sum(range(10_000))

    threads = [threading.Thread(target=spin, daemon=True) for _ in range(2)]
    for thread in threads:
        thread.start()
    return stop


def test_the_same_solve_gives_the_same_schedule_when_the_machine_is_slow(monkeypatch):
    _, graph = example(4, batch=64, width=16)
    budget = int(cost.simulate(graph, {}).peak * 0.8)
    # Few branch-and-bound nodes: the limit, not optimality, ends the search and decides the answer.
    quiet = exact.solve(graph, budget, node_limit=1)
    found = chain.find(graph)
    floor = chain.smallest_budget(found)
    quiet_chain = chain.solve(found, floor).plan()
    assert quiet.status == "feasible" and quiet.gap > 0
    stop = _slowed_down(monkeypatch)
    try:
        busy = exact.solve(graph, budget, node_limit=1)
        busy_chain = chain.solve(found, floor).plan()
    finally:
        stop.set()
    assert (busy.recompute, busy.status, busy.objective, busy.gap) == \
        (quiet.recompute, quiet.status, quiet.objective, quiet.gap)
    assert busy_chain == quiet_chain


def test_progress_is_quiet_for_a_short_solve_and_speaks_for_a_long_one(monkeypatch):
    out = io.StringIO()
    with progress.Progress("@f", stream=out) as p:
        p.update("chain tier")
    assert out.getvalue() == ""
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)
    with progress.Progress("@f", stream=out, every=0.05) as p:
        p.update("exact tier, 30 nodes")
        time.sleep(0.2)
    lines = out.getvalue().splitlines()
    assert any(line.startswith("tad-remat: @f: exact tier, 30 nodes (") for line in lines)
    assert lines[-1].startswith("tad-remat: @f: done")


def test_a_long_compile_reports_progress_on_stderr(monkeypatch, capfd):
    monkeypatch.setattr(progress, "QUIET_SECONDS", 0.0)
    rng = np.random.default_rng(0)
    ws = [rng.standard_normal((8, 8)) for _ in range(3)]
    x = rng.standard_normal((16, 8))

    def loss(ws, x):
        h = x
        for w in ws:
            h = ta.numpy.tanh(h @ w)
        return (h * h).sum()

    ta.jit(ta.grad(loss), memory_budget=10**6).lower(ws, x).as_text("differentiated")
    assert "tad-remat: @grad_loss: " in capfd.readouterr().err
