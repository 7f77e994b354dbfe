"""The intervals tier: MOCCASIN's retention intervals, a constraint program on OR-Tools CP-SAT.

Bartan, Li, Tiwari, Krishnan, Bhardwaj, "Moccasin: Efficient Tensor
Rematerialization for Neural Networks" (ICML 2023). Where the exact tier
(:mod:`.exact`) has a variable for every node at every stage (cubic in the
nodes), this program gives each node a few *copies*, each an optional
interval of the schedule's events: it starts at the event that computes the
copy and ends at its last read. Events are :func:`.cost.simulate`'s: before
stage ``t`` the nodes recomputed there, ascending, then node ``t``; each
possible event has a position on one time axis, and a copy's start may take
only the positions of its node. Constraints:

* copy 0 of node ``j`` runs at stage ``j``; copies ``1..copies-1`` are
  optional recomputations, in order of start;
* every read finds a copy of the node read that is alive then (started
  before, not yet ended); the copy a view (or a result that may be a view)
  reads its buffer from stays alive as long as the view;
* results are kept from their first run to the end, and never recomputed;
  a returned value has a copy alive at the end; values inside a
  ``start/end_checkpoint`` region are not kept past its end marker; ops
  with side effects run once;
* the live bytes of the copies and the scratch bytes of the events that
  run fit the budget at every event: one cumulative constraint.

The objective is the recomputed FLOPs (plus one per recomputation, so that
nothing is recomputed for free).

**What a solution is worth.** The program may let a read take an older copy
where :func:`.cost.simulate` takes the latest one; moving a read to the
latest copy keeps a copy of the same node alive over a span the older one
covered, so the simulated peak of the program's recomputations is at most
the program's: every schedule this tier returns fits the budget as the pass
counts it (the pass checks it anyway). Conversely, each schedule that
computes every value at most ``copies`` times is a solution of the program.
So ``"optimal"`` means optimal among those schedules, and ``"infeasible"``
that none of them fits; schedules that recompute a value more often (the
deepest multi-level checkpointing of a chain) are the exact tier's and the
chain tier's. Floors are proven only where they meet :func:`.bound.lower_bound`.

CP-SAT runs on one worker with a fixed seed and stops after ``work_limit``
units of its *deterministic time* (a count of its work, about a second
each), never by a clock: the same program gets the same schedule on any
machine, however loaded. ``tad-remat`` starts the search from the min-cut
tier's schedule (``hint``), which it then only improves on: past what the
limit lets it prove (60-70 nodes), it still returns the better schedule.

Examples
--------
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> solution = solve(graph, 11577)  # 90% of store-all
>>> solution.recompute, solution.status, solution.objective  # as the exact tier: 2,304 FLOPs
({12: [2, 3]}, 'optimal', 2304.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from .bound import lower_bound
from .cost import simulate
from .exact import Solution, horizons

# Deterministic seconds CP-SAT may work for (its own unit of work, about a second each on one core).
# Proofs on 29-49-node graphs take 0.01-0.8; a 39-node MLP's 2.2-3.0 (unproven then, the search's
# best kept). Every budgeted compile of a mid-size graph may pay it, several times over rewrites.
WORK_LIMIT = 2.0
# Runs of one value a schedule may have: the first and two recomputations.
COPIES = 3


@dataclass
class _Copy:
    present: object  # a literal; None for copy 0, which always runs
    start: object  # an integer expression: a position on the time axis
    end: object


class _Program:
    """The CP-SAT model of a graph (see the module docstring).

    ``capacity`` is the budget in bytes, or ``(least, most)``: the budget
    is then a variable in that range (``self.capacity``) that the caller
    may minimize.
    """

    def __init__(self, graph, capacity, copies: int):
        from ortools.sat.python import cp_model

        self.graph, self.model = graph, cp_model.CpModel()
        nodes, n, model = graph.nodes, len(graph.nodes), self.model
        self.capacity = capacity if isinstance(capacity, int) else model.new_int_var(*capacity, "capacity")
        horizon, kept = horizons(graph), graph.kept_results()
        # The stages at which each node may run again: while something may still read it.
        self.stages = {j: list(range(j + 1, min(horizon[j], n - 1) + 1))
                       if nodes[j].recomputable and j not in kept else [] for j in range(n)}
        recomputed_at = [[] for _ in range(n)]
        for j, stages in self.stages.items():
            for t in stages:
                recomputed_at[t].append(j)
        self.position, at = {}, 0
        for t in range(n):
            for j in sorted(recomputed_at[t]) + [t]:
                self.position[t, j], at = at, at + 1
        self.end_of_time = at  # the return
        region_end = {i: self.position[end, end] for interior, end in graph.regions for i in interior}
        self.copies = [self._copies(j, horizon[j], copies, j in kept, region_end.get(j)) for j in range(n)]
        self.recomputations = [(j, c) for j in range(n) for c in self.copies[j][1:]]
        for v in range(n):
            self._reads(v)
        for i in graph.outputs:
            if i not in kept:  # an output inside a checkpoint region: some copy reaches the end
                ends = []
                for c in self.copies[i]:
                    at_end = model.new_bool_var("")
                    if c.present is not None:
                        model.add_implication(at_end, c.present)
                    model.add(c.end == self.end_of_time).only_enforce_if(at_end)
                    ends.append(at_end)
                model.add_bool_or(ends)
        intervals, demands = [], []
        for j, node in enumerate(nodes):
            for c in self.copies[j]:
                if node.bytes:
                    intervals.append(self._interval(c, self._length(c), c.end + 1))
                    demands.append(int(node.bytes))
                if node.scratch:  # live while the copy's event runs
                    intervals.append(self._interval(c, 1, c.start + 1))
                    demands.append(int(node.scratch))
        model.add_cumulative(intervals, demands, self.capacity)

    def _copies(self, j: int, horizon: int, copies: int, kept: bool, region_end) -> list:
        model, n = self.model, len(self.graph.nodes)
        last_read = self.end_of_time if horizon >= n else self.position[horizon, horizon]
        first = self.position[j, j]
        if kept:
            end = self.end_of_time
        else:
            latest = last_read if region_end is None else min(last_read, region_end)
            end = model.new_int_var(first, max(first, latest), f"end{j}")
        found = [_Copy(None, first, end)]
        starts = [self.position[t, j] for t in self.stages[j]]
        for k in range(1, copies if starts else 1):
            present = model.new_bool_var(f"again{j}_{k}")
            start = model.new_int_var_from_domain(self._domain(starts), f"start{j}_{k}")
            end = model.new_int_var(starts[0], last_read, f"end{j}_{k}")
            model.add(end >= start)
            if k > 1:  # recomputations in order: copy k only after copy k - 1
                model.add_implication(present, found[-1].present)
                model.add(start > found[-1].start).only_enforce_if(present)
            if region_end is not None:  # a copy made inside the region ends there too
                inside = model.new_bool_var("")
                model.add(start <= region_end).only_enforce_if(inside)
                model.add(start > region_end).only_enforce_if(~inside)
                model.add(end <= region_end).only_enforce_if(inside)
            found.append(_Copy(present, start, end))
        return found

    def _length(self, copy: _Copy):
        """Events the copy lives through, as an affine expression (intervals want one): a recomputed copy's
        start is a variable, so its length is a variable of its own."""
        if copy.present is None:
            return copy.end - copy.start + 1
        length = self.model.new_int_var(1, self.end_of_time + 1, "")
        self.model.add(length == copy.end - copy.start + 1)
        return length

    def _interval(self, copy: _Copy, size, end):
        if copy.present is None:
            return self.model.new_interval_var(copy.start, size, end, "")
        return self.model.new_optional_interval_var(copy.start, size, end, copy.present, "")

    @staticmethod
    def _domain(values: list):
        from ortools.sat.python import cp_model

        return cp_model.Domain.from_values(values)

    def _reads(self, v: int) -> None:
        """Each copy of ``v`` that runs finds each of its inputs alive (its buffer too, while ``v``'s copy lives)."""
        model, graph = self.model, self.graph
        buffer = graph.keeps_alive(v)
        for reader in self.copies[v]:
            for u in sorted(set(graph.nodes[v].inputs)):
                options = []
                for source in self.copies[u]:
                    serves = model.new_bool_var("")
                    if source.present is not None:
                        model.add_implication(serves, source.present)
                        model.add(source.start <= reader.start).only_enforce_if(serves)
                    model.add(source.end >= reader.start).only_enforce_if(serves)
                    if u == buffer:
                        model.add(source.end >= reader.end).only_enforce_if(serves)
                    options.append(serves)
                if reader.present is None:
                    model.add_bool_or(options)
                else:
                    model.add_bool_or(options).only_enforce_if(reader.present)

    def solve(self, work_limit: float):
        """``(status name, solver)`` after at most ``work_limit`` deterministic seconds on one worker."""
        from ortools.sat.python import cp_model

        solver = cp_model.CpSolver()
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = 0
        # No linear relaxation: on one worker it slowed the search (a 40-node residual network at 70%
        # of store-all: 69,120 FLOPs unproven after 5 units; without it, 4,096 proven optimal in 1.9).
        solver.parameters.linearization_level = 0
        solver.parameters.max_deterministic_time = work_limit
        return solver.status_name(solver.solve(self.model)), solver

    def hint(self, recompute: dict) -> None:
        """Start the search from the schedule ``recompute`` (``stage -> nodes``), as far as the copies allow."""
        stages: dict = {}
        for t, nodes in recompute.items():
            for j in nodes:
                stages.setdefault(j, []).append(t)
        for j, copies in enumerate(self.copies):
            runs = sorted(t for t in stages.get(j, []) if (t, j) in self.position)
            for k, c in enumerate(copies[1:]):
                self.model.add_hint(c.present, k < len(runs))
                if k < len(runs):
                    self.model.add_hint(c.start, self.position[runs[k], j])

    def recompute(self, solver) -> dict:
        """``stage -> nodes`` of the recomputations the solver chose."""
        stage_of = {at: t for (t, _), at in self.position.items()}
        found: dict = {}
        for j, c in self.recomputations:
            if solver.boolean_value(c.present):
                found.setdefault(stage_of[solver.value(c.start)], []).append(j)
        return {t: sorted(nodes) for t, nodes in sorted(found.items())}


def solve(graph, budget: int, work_limit: float = WORK_LIMIT, copies: int = COPIES, hint: dict | None = None) -> Solution:
    """Least-recompute schedule of ``graph`` whose peak live bytes fit ``budget``, each value run at most ``copies`` times.

    Parameters
    ----------
    graph : Graph
    budget : int
        Bytes.
    work_limit : float
        Deterministic seconds CP-SAT may work; the best schedule found by
        then is returned with its gap (status ``"feasible"``).
    copies : int
        Runs of one value a schedule may have (see the module docstring).
    hint : dict, optional
        A schedule (``stage -> nodes``) to start the search from: another
        tier's, which the search then only improves on.
    """
    program = _Program(graph, int(budget), copies)
    if hint is not None:
        program.hint(hint)
    program.model.minimize(sum((int(graph.nodes[j].flops) + 1) * c.present for j, c in program.recomputations))
    status, solver = program.solve(work_limit)
    if status not in ("OPTIMAL", "FEASIBLE"):
        return Solution(None, "infeasible" if status == "INFEASIBLE" else "unknown", float("inf"), float("inf"))
    recompute = program.recompute(solver)
    value, least = solver.objective_value, solver.best_objective_bound
    gap = 0.0 if status == "OPTIMAL" else (value - least) / max(value, 1.0)
    flops = sum(graph.nodes[i].flops for nodes in recompute.values() for i in nodes)
    return Solution(recompute, "optimal" if status == "OPTIMAL" else "feasible", float(flops), gap)


def smallest_budget(graph, work_limit: float = WORK_LIMIT, copies: int = COPIES) -> tuple:
    """The least peak live bytes the program's schedules reach: ``(bytes, proven)``.

    ``proven`` when it is :func:`.bound.lower_bound`, which no schedule goes
    under (a least peak among the schedules with at most ``copies`` runs of
    a value may still be above the least of all).

    Examples
    --------
    Six tanh layers: their floor, 9,408 bytes, needs a value run four times.

    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example(layers=6)
    >>> smallest_budget(graph), smallest_budget(graph, copies=2)
    ((10944, False), (11328, False))
    """
    least, store_all = int(lower_bound(graph)), int(simulate(graph, {}).peak)
    program = _Program(graph, (least, store_all), copies)
    program.model.minimize(program.capacity)
    status, solver = program.solve(work_limit)
    if status not in ("OPTIMAL", "FEASIBLE"):  # the limit came before any schedule: store-all is one
        return store_all, store_all == least
    found = int(solver.value(program.capacity))
    return found, found == least
