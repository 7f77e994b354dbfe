"""tad-remat's solvers are deterministic (limits in units of work, never a clock) and say when they take long."""

from __future__ import annotations

import io
import itertools
import threading
import time

import numpy as np

import tensorad as ta
from tensorad.passes.remat import chain, cost, exact, intervals, progress
from tensorad.passes.remat.graph import Columns, example


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
    # The same for CP-SAT's deterministic time, on a graph it needs seconds of to prove.
    _, deep = example(8)
    deep_budget = int(cost.simulate(deep, {}).peak * 0.7)
    quiet_intervals = intervals.solve(deep, deep_budget, work_limit=0.1)
    assert quiet_intervals.status == "feasible" and quiet_intervals.gap > 0
    found = chain.find(graph)
    floor = chain.smallest_budget(found)
    quiet_chain = chain.solve(found, floor).plan()
    assert quiet.status == "feasible" and quiet.gap > 0
    stop = _slowed_down(monkeypatch)
    try:
        busy = exact.solve(graph, budget, node_limit=1)
        busy_intervals = intervals.solve(deep, deep_budget, work_limit=0.1)
        busy_chain = chain.solve(found, floor).plan()
    finally:
        stop.set()
    assert (busy.recompute, busy.status, busy.objective, busy.gap) == \
        (quiet.recompute, quiet.status, quiet.objective, quiet.gap)
    assert busy_chain == quiet_chain
    assert busy_intervals == quiet_intervals


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


def _simulated_op_by_op(inputs, keeps_alive, sizes, scratch, flops, outputs, recompute):
    """The cost model's timeline walked one op at a time: ``(live bytes per event, recomputed FLOPs, reads)``.

    The reference for :func:`cost.simulate`, which computes it with array operations.
    """
    n = len(inputs)
    events, current, source, read_last, reads, readers, pending = [], [None] * n, [], [], [], {}, []
    for stage in range(n):
        again = sorted(recompute.get(stage, ()))
        for node in again + [stage]:
            event = len(events)
            events.append((stage, node, node != stage))
            copies = [current[i] for i in inputs[node]]
            for version in copies:
                if version in readers:
                    readers[version].append(event)
                while version is not None:  # a read of a view reads what it views
                    reads[version].append(stage)
                    version = source[version]
            if node != stage:
                readers[event] = []
                pending.append((event, copies))
            else:
                for version in copies:
                    read_last[version] = event
            source.append(None if keeps_alive[node] is None else current[keeps_alive[node]])
            read_last.append(-1)
            reads.append([])
            current[node] = event
    returned = set()
    for i in outputs:
        version = current[i]
        while version is not None:
            returned.add(version)
            reads[version].append(n)
            version = source[version]
    dead = [False] * len(events)
    for version in reversed(list(readers)):  # recomputed copies read by no live copy are erased
        dead[version] = version not in returned and all(dead[r] for r in readers[version])
    for event, copies in pending:
        if not dead[event]:
            for version in copies:
                read_last[version] = max(read_last[version], event)
    for version in range(len(events) - 1, -1, -1):
        if source[version] is not None:
            read_last[source[version]] = max(read_last[source[version]], read_last[version])
    live = []
    for e, (_, node, again) in enumerate(events):
        held = sum(sizes[events[v][1]] for v in range(e + 1) if not dead[v]
                   and (len(events) if v in returned else max(v, read_last[v])) >= e)
        live.append(held + (0 if dead[e] else scratch[node]))
    recomputed = sum(flops[node] for e, (_, node, again) in enumerate(events) if again and not dead[e])
    return live, recomputed, reads, events


def test_the_simulated_timeline_is_the_op_by_op_count_with_views_and_dead_copies():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(2, 30))
        inputs = [sorted(rng.choice(i, size=min(i, int(rng.integers(0, 4))), replace=True).tolist()) if i else []
                  for i in range(n)]
        # Some nodes keep an input alive: views, and results that may be views.
        keeps_alive = [int(rng.choice(ins)) if ins and rng.random() < 0.3 else None for ins in inputs]
        sizes, scratch, flops = (rng.integers(0, 1000, n).tolist() for _ in range(3))
        outputs = sorted(set(rng.integers(0, n, int(rng.integers(1, 4))).tolist()))
        graph = type("Graph", (), {})()
        graph.columns = Columns(np.cumsum([0] + [len(ins) for ins in inputs]),
                                np.array([i for ins in inputs for i in ins], dtype=np.int64),
                                np.array([-1 if a is None else a for a in keeps_alive], dtype=np.int64),
                                *(np.array(column, dtype=np.int64) for column in (sizes, scratch, flops, outputs)))
        for _ in range(10):
            plan = {}
            for stage in rng.integers(1, n, int(rng.integers(0, 5))).tolist():
                plan.setdefault(stage, set()).update(rng.integers(0, stage, int(rng.integers(1, 4))).tolist())
            live, recomputed, reads, events = _simulated_op_by_op(inputs, keeps_alive, sizes, scratch, flops,
                                                                  outputs, plan)
            timeline = cost.simulate(graph, plan)
            assert (timeline.live, timeline.recompute_flops, timeline.events) == (live, recomputed, events)
            assert [sorted(r) for r in timeline.reads] == [sorted(r) for r in reads]
            trial = cost.simulate(graph, plan, reads=False)
            assert (list(trial.live), trial.peak) == (live, max(live))
