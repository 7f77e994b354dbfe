"""The fallback tier for large graphs: a byte-weighted min-cut, then greedy repair.

The program is split where store-all peaks (for a vjp function: between its
forward and backward sweeps). Every value made before the split and read
after it must cross it: stored, or recomputed after the split from stored
values. The cheapest set to store, in bytes, is a minimum vertex cut
(:func:`.bound.min_cut`) between what can only be stored (results, ops with
side effects) and the crossing values; a checkpoint region's interior may
not be stored. What is not stored is recomputed at its first read after the
split (:func:`.greedy.recompute_after`). :func:`.greedy.solve` then repairs
that schedule, and the store-all one, until the peak live bytes fit the
budget; the cheaper of the two is the answer. When neither fits, descents
start from both, from where the repairs got stuck, and from the schedules
that keep what each stage's cut of the lower bound keeps (:func:`pinned_cut_plan`).

Examples
--------
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> solution = solve(graph, 10934)  # 85% of store-all's 12864 bytes
>>> solution.recompute, solution.status
({16: [0, 1], 17: [7]}, 'feasible')
"""

from __future__ import annotations

from . import cost, exact, greedy
from .bound import BIG, lower_bound, min_cut, stage_cuts


def _split(graph, timeline) -> int:
    """The first stage after the forward sweep (or after store-all's peak)."""
    if graph.backward is not None and any(graph.backward):
        return graph.backward.index(True)
    return timeline.peak_stage() + 1


def stored_cut(graph, split: int) -> set:
    """Nodes made before ``split`` whose storing lets everything read after it be recomputed, fewest bytes.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> stored_cut(graph, 11)  # the last weight's gradient, a result; the rest is recomputed from the arguments
    {10}
    """
    users, nodes = graph.users(), graph.nodes
    count = min(split, len(nodes))
    interior = {i for region, _ in graph.regions for i in region}
    crossing = [i for i in range(count) if i in graph.outputs or any(u >= split for u in users[i])]
    # A region's interior may not be stored.
    return min_cut(graph, count, crossing, lambda i: BIG if i in interior else max(1, nodes[i].bytes),
                    kept=graph.kept_results())[1]


def start_plan(graph, split: int) -> dict:
    """The store-the-cut schedule: everything crossing ``split`` and not in the cut is recomputed after it."""
    stored = stored_cut(graph, split)
    stale = {i for i in range(min(split, len(graph.nodes)))
             if i not in stored and graph.nodes[i].recomputable}
    return greedy.merge(greedy.region_plan(graph), greedy.recompute_after(graph, stale, split))


def cut_plan(graph, cuts) -> dict | None:
    """The schedule that keeps, at every stage, what its :class:`~.bound.StageCut` keeps, and recomputes the rest.

    A stage's cut keeps the results made so far, what the stage reads, and
    what must be stored for later reads (what may not run again, or is
    pinned: see :func:`pinned_cut_plan`). A value read at a stage is
    recomputed there (with the inputs it needs) unless its copy has been in
    every stage's cut since it was made. A deep chain gets the multi-level
    schedule its floor needs this way (within 2% of it on MLPs of 4-12
    layers, where evictions one at a time stop 14-18% above it). None when
    the cuts would recompute what may not run again.
    """
    nodes, n = graph.nodes, len(graph.nodes)
    fixed = graph.kept_results() | {i for i, node in enumerate(nodes) if not node.recomputable}
    valid, plan = [False] * n, {}
    for t in range(n):
        todo = [v for v in nodes[t].inputs if not valid[v]]
        while todo:
            v = todo.pop()
            if valid[v]:
                continue
            if v in fixed:
                return None
            plan.setdefault(t, set()).add(v)
            valid[v] = True
            todo.extend(p for p in nodes[v].inputs if not valid[p])
        valid[t] = True
        for v in range(t + 1):
            valid[v] = valid[v] and v in cuts[t].live
    return greedy.as_plan(plan)


# Rounds of pinned_cut_plan: each one recomputes every stage's cut.
PIN_ROUNDS = 8


def pinned_cut_plan(graph, cuts) -> dict | None:
    """The :func:`cut_plan` with the lowest peak as values are pinned, round by round.

    Where a cut plan peaks at a stage that recomputes its inputs (a U-Net's
    skip gradient, recomputed with the whole forward before it), those
    inputs are pinned: the next round's cuts keep them from their first run
    (:func:`.bound.stage_cuts`), and the plan peaks elsewhere. On a small
    U-Net's gradient the first plan peaks 19% above the lower bound and the
    best 4% above; on attention blocks the descents from it reach the bound,
    where the others stop 1-2.5% above.
    """
    pinned, best = set(), None
    for _ in range(PIN_ROUNDS):
        plan = cut_plan(graph, stage_cuts(graph, frozenset(pinned)) if pinned else cuts)
        if plan is None:
            break
        timeline = cost.simulate(graph, plan)
        if best is None or timeline.peak < best[1]:
            best = (plan, timeline.peak)
        stage = timeline.peak_stage()
        recomputed = {graph.buffer_of(v) for v in graph.nodes[stage].inputs if v in plan.get(stage, ())} - pinned
        if not recomputed:
            break
        pinned |= recomputed
    return best[0] if best is not None else None


def solve(graph, budget: int):
    """A schedule whose peak live bytes fit ``budget``: the cheaper repair of the cut and of store-all.

    When neither repair reaches ``budget`` at once, descents (:func:`descend`)
    from their starts and from the lowest peaks of repairs asked for no budget
    go down towards :func:`.bound.lower_bound` until one fits ``budget``;
    asked for less than the bound, the first descent that reaches it proves
    it the floor.

    Returns a :class:`~.exact.Solution` (``recompute`` None when no schedule was
    found; ``smallest`` is then the least peak reached, ``smallest_proven``
    whether it is the bound).
    """
    split = _split(graph, cost.simulate(graph, {}))
    starts = (start_plan(graph, split), greedy.region_plan(graph))
    tries = [greedy.solve(graph, budget, start) for start in starts]
    fitting = [s for s in tries if s.recompute is not None]
    if not fitting:
        # Descend from each start, and from the lowest peak each repair reached asked for
        # no budget at all (which judges evictions by the area of the timeline), charging
        # evictions either way: they get stuck in different places. No origin depends on
        # the budget, so a budget at or above the least peak a descent reached (the floor
        # an error names) is reached again by that descent.
        origins = [*starts]
        wide = [greedy.solve(graph, 0, start, charge, prune=False) for start in starts for charge in (True, False)]
        for reached in wide:
            if reached.closest not in origins:
                origins.append(reached.closest)
        cuts = stage_cuts(graph)
        least = lower_bound(graph, cuts)
        start = pinned_cut_plan(graph, cuts)
        if start is not None and start not in origins:
            origins.append(start)
        tries = []
        for origin in origins:
            tries.append(descend(graph, origin, max(budget, least), floor=least))
            if budget < least and tries[-1].recompute is not None:
                return exact.Solution(None, "infeasible", float("inf"), float("inf"), least,
                                      smallest_proven=True, closest=tries[-1].recompute)
        fitting = [s for s in tries if s.recompute is not None]
    if fitting:
        return min(fitting, key=lambda s: s.objective)
    return min(tries, key=lambda s: s.smallest)


# The descent lowers its target peak by this fraction of store-all's peak at a time,
# and by a sixteenth of it once that step gets stuck.
DESCENT_STEP = 0.02


def descend(graph, start: dict, budget: int, charge_inputs: bool = False, floor: int | None = None):
    """Repair ``start`` for ever lower targets, each time from the last schedule that fit, until one fits ``budget``.

    :func:`.greedy.solve` asked for a low budget at once judges each eviction
    by the bytes over that budget at every stage, and stops where no single
    eviction lowers that sum, often far above what is reachable. Lowering the
    target a step below the peak each time judges evictions by the peak
    alone: on the small graphs the exact tier certifies, the floor this
    reaches is the exact one (where the repair asked for a budget below the
    floor stops 10-36% above it), or 16% above it on a small attention block.

    The targets go down to ``floor`` (default ``budget``) whatever the
    budget: the descent takes the same steps for every budget, so a budget
    at or above a peak it reached once is reached again.

    Returns a :class:`~.exact.Solution`: the first schedule found within
    ``budget`` (``recompute`` None when the descent gets stuck above it;
    ``smallest`` is the least peak it reached).

    Examples
    --------
    A three-layer MLP's gradient: the repair asked for budget 0 at once
    stops at 10752 bytes; the descent reaches the floor the exact tier proves.

    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example(layers=3)
    >>> greedy.solve(graph, 0).smallest, descend(graph, {}, 0).smallest, exact.smallest_budget(graph)
    (10752, 8832, (8832, True))
    """
    floor = budget if floor is None else min(floor, budget)
    plan = start
    peak = cost.simulate(graph, plan).peak
    step = full_step = max(1, int(DESCENT_STEP * cost.simulate(graph, {}).peak))
    smallest_step = max(1, full_step // 16)
    while peak > budget:
        found = greedy.solve(graph, max(floor, peak - step), plan, charge_inputs, prune=False)
        if found.recompute is not None:
            plan, peak = found.recompute, cost.simulate(graph, found.recompute).peak
            continue
        if step > smallest_step:
            step = smallest_step
            continue
        # Stuck on the peak alone: the evictions that lower the bytes over the
        # budget summed over every stage may pass the stuck point; go on from the
        # lowest peak they reach.
        wide = greedy.solve(graph, floor, plan, charge_inputs, prune=False)
        if wide.recompute is not None:
            plan = wide.recompute
            break
        if wide.smallest >= peak:
            return exact.Solution(None, "infeasible", float("inf"), float("inf"), peak, closest=plan)
        plan, peak, step = wide.closest, wide.smallest, full_step
    plan, timeline = greedy.prune_plan(graph, plan, budget)
    return exact.Solution(cost.without_unread(graph, greedy.as_plan(plan)), "feasible",
                          float(timeline.recompute_flops), float("nan"), timeline.peak)
