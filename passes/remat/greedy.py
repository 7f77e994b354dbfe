"""The fallback tier for programs too large for the exact one, and the checkpoint-region plan.

:func:`region_plan` turns ``start/end_checkpoint`` regions into a schedule
the way TVM Relax and JAX do: an interior value read after its region ended
is recomputed (with whatever interior values it needs) at the first stage
that reads it, and kept from there.

:func:`solve` starts from that schedule and, while its peak live bytes
(:func:`.cost.simulate`) exceed the budget, evicts one kept copy at the peak stage: of
the :data:`CANDIDATES` largest (the next ones if none of them helps), the
copy that removes the most bytes over the budget per recomputed FLOP is
recomputed at its next read instead. It stops when the schedule fits (so
the budget is guaranteed under the cost model) or when no eviction helps;
then the figure it reached is the smallest budget it can offer.

Examples
--------
>>> from tensorad.passes.remat import cost
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> cost.simulate(graph, {}).peak
12864
>>> solution = solve(graph, 11577)  # 90%: the first two nodes are recomputed at stage 16
>>> solution.recompute, solution.status
({16: [0, 1]}, 'feasible')
"""

from __future__ import annotations

import bisect

import numpy as np

from . import cost
from .exact import Solution

# Evictions tried at once: the copies with the most bytes first, the next ones
# only when none of those helps (each try simulates the whole schedule).
CANDIDATES = 12


def _with(recompute: dict, stage: int, nodes) -> dict:
    updated = {k: set(v) for k, v in recompute.items()}
    updated.setdefault(stage, set()).update(nodes)
    return updated


def _closure(graph, node: int, stale) -> set:
    """``node`` and the inputs it needs recomputed with it (those in ``stale``)."""
    needed, todo = set(), [node]
    while todo:
        i = todo.pop()
        if i not in needed:
            needed.add(i)
            todo.extend(p for p in graph.nodes[i].inputs if p in stale)
    return needed


def merge(*plans) -> dict:
    """The union of schedules, stage by stage."""
    merged: dict = {}
    for plan in plans:
        for stage, nodes in plan.items():
            merged.setdefault(stage, set()).update(nodes)
    return {stage: sorted(nodes) for stage, nodes in merged.items()}


def recompute_after(graph, stale: set, start: int) -> dict:
    """Recompute each ``stale`` node (with the stale inputs it needs) at its first read from ``start`` on.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> recompute_after(graph, {1, 3}, 11)
    {13: {3}, 16: {1}}
    """
    recompute: dict = {}
    stale, members = set(stale), set(stale)
    for t in range(start, len(graph.nodes)):
        wanted = set()
        for i in graph.nodes[t].inputs:
            if i in stale:
                wanted |= _closure(graph, i, stale)
        if wanted:
            recompute = _with(recompute, t, wanted & members)
            stale -= wanted
    return recompute


def region_plan(graph) -> dict:
    """The schedule that honours every checkpoint region and recomputes nothing else.

    Ops with side effects inside a region (a collective) are kept, never run twice.
    """
    return merge(*(recompute_after(graph, {i for i in interior if graph.nodes[i].recomputable}, end + 1)
                   for interior, end in graph.regions))


class _Copies:
    """Where each node's copies are in a timeline, and when each copy is last read: what evictions look up."""

    def __init__(self, timeline):
        self.versions: dict = {}  # node -> its copies (events), in order
        for version, (_, i, _) in enumerate(timeline.events):
            self.versions.setdefault(i, []).append(version)
        self.stages = [stage for stage, _, _ in timeline.events]
        self.last_read = [max(reads, default=-1) for reads in timeline.reads]

    def latest_before(self, node: int, stage: int):
        """The last copy of ``node`` made before ``stage`` (None if there is none)."""
        versions = self.versions.get(node, ())
        # Events run in stage order: the copies made before the stage's first event.
        k = bisect.bisect_left(versions, bisect.bisect_left(self.stages, stage))
        return versions[k - 1] if k else None


def _revived(graph, copies: _Copies, node: int, reader: int) -> set:
    """``node`` and the inputs it needs recomputed with it at ``reader``: those whose copy is dead by then.

    Recomputing a node alone would keep its inputs' old copies alive up to ``reader``.
    """
    needed, todo = set(), [node]
    while todo:
        i = todo.pop()
        if i in needed:
            continue
        needed.add(i)
        for p in graph.nodes[i].inputs:
            version = copies.latest_before(p, reader)
            if version is not None and graph.nodes[p].recomputable and graph.nodes[p].alias_of is None \
                    and copies.last_read[version] < reader:
                todo.append(p)
    return needed


def _excess(timeline, budget: int) -> int:
    """The live bytes over ``budget``, summed over the events."""
    live = np.asarray(timeline.live)
    over = live[live > budget]
    return int(over.sum()) - budget * len(over)


def _evictions(graph, timeline, stage: int):
    """(next reading stage, node) of every copy kept across ``stage`` without being read there.

    Results are never evicted (:meth:`.graph.Graph.kept_results`).
    """
    results = graph.kept_results()
    for version, (made, node, _) in enumerate(timeline.events):
        reads = timeline.reads[version]
        later = [r for r in reads if r > stage]
        if made < stage and later and stage not in reads and graph.nodes[node].bytes \
                and graph.nodes[node].recomputable and node not in results and min(later) < len(graph.nodes):
            yield min(later), node


def solve(graph, budget: int, start: dict | None = None, charge_inputs: bool = True,
          prune: bool = True) -> Solution:
    """A schedule whose peak live bytes fit ``budget``, found greedily.

    An eviction is charged the FLOPs it adds: those of the copy recomputed and
    of the dead inputs recomputed with it (``charge_inputs``), or of the copy
    alone. Charging the inputs keeps recomputation from re-running whole
    chains of layers (a 12-block transformer at half its store-all peak:
    30% of a forward recomputed, against 121%); charging the copy alone
    reaches lower peaks on some graphs, which the min-cut tier's descents
    start from. With ``prune``, recomputations the schedule fits without are
    dropped at the end (:func:`prune_plan`).

    Returns a :class:`~.exact.Solution` with status ``"feasible"`` or
    ``"infeasible"``; its ``objective`` is the recomputed FLOPs, and
    ``smallest`` the lowest peak the evictions reached (``closest`` the
    schedule that reached it).
    """
    recompute = start if start is not None else region_plan(graph)
    timeline = cost.simulate(graph, recompute)
    smallest, closest = timeline.peak, recompute
    while timeline.peak > budget:
        peak_stage = timeline.peak_stage()
        best, excess = None, _excess(timeline, budget)
        evictions = sorted(set(_evictions(graph, timeline, peak_stage)), key=lambda e: (-graph.nodes[e[1]].bytes, e))
        copies = _Copies(timeline)
        for k, (reader, node) in enumerate(evictions):
            if best is not None and k % CANDIDATES == 0:
                break
            candidate = _with(recompute, reader, _revived(graph, copies, node, reader))
            trial = cost.simulate(graph, candidate, reads=False)
            gain = excess - _excess(trial, budget)
            if gain > 0:
                added = (trial.recompute_flops - timeline.recompute_flops) if charge_inputs \
                    else graph.nodes[node].flops
                score = gain / (added + 1)
                if best is None or score > best[0]:
                    best = (score, candidate, trial)
        if best is None:
            return Solution(None, "infeasible", float("inf"), float("inf"), smallest, closest=as_plan(closest))
        _, recompute, _ = best
        timeline = cost.simulate(graph, recompute)  # with its reads, which the next round's evictions need
        if timeline.peak < smallest:
            smallest, closest = timeline.peak, recompute
    if prune:
        recompute, timeline = prune_plan(graph, recompute, budget)
    # Copies that nothing reads cost nothing as counted (the rewrite erases them): no plan lists them.
    recompute = cost.without_unread(graph, as_plan(recompute))
    return Solution(recompute, "feasible", float(timeline.recompute_flops), float("nan"), smallest)


def as_plan(recompute: dict) -> dict:
    """``stage -> sorted nodes``, without empty stages: the form every tier returns.

    Examples
    --------
    >>> as_plan({17: {1, 0}, 12: set()})
    {17: [0, 1]}
    """
    return {stage: sorted(nodes) for stage, nodes in recompute.items() if nodes}


def prune_plan(graph, recompute: dict, budget: int) -> tuple:
    """Drop each recomputation the schedule still fits ``budget`` without, the costliest first; ``(plan, timeline)``.

    Evictions are chosen one at a time: a cheap one taken early may be needless
    once later ones have lowered the peak. The copy is kept instead (the
    recomputations that checkpoint regions ask for stay).
    """
    timeline = cost.simulate(graph, recompute)
    required = {(t, i) for t, nodes in region_plan(graph).items() for i in nodes}
    chosen = sorted(((t, i) for t, nodes in recompute.items() for i in nodes if (t, i) not in required),
                    key=lambda e: (-graph.nodes[e[1]].flops, e))
    for stage, node in chosen:
        trial_plan = {t: set(v) - ({node} if t == stage else set()) for t, v in recompute.items()}
        trial = cost.simulate(graph, trial_plan, reads=False)
        if trial.peak <= budget:
            recompute, timeline = trial_plan, trial
    return recompute, cost.simulate(graph, recompute)


def smallest_budget(graph) -> int:
    """The least peak the greedy evictions reach from the region plan."""
    return solve(graph, 0).smallest
