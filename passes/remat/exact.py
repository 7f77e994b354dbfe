"""The exact tier: a Checkmate-style mixed-integer program solved by HiGHS.

Stages are the nodes in program order (plus a last stage, the return). Binary
variables, for node ``i`` and stage ``t > i``:

* ``R[t, i]``: node ``i`` is recomputed before node ``t`` runs;
* ``S[t, i]``: a copy of node ``i`` is kept from stage ``t - 1`` into stage ``t``.

Constraints: every node ``t`` (and every node recomputed at ``t``) finds its
inputs computed or kept in stage ``t``; a copy can only be kept into ``t + 1``
if it was kept into or computed in ``t``; results are kept into the last
stage; a view is kept only with the buffer it shows; interior values of a
``start/end_checkpoint`` region are not kept past the end marker; ops with
side effects are never recomputed. Memory: everything kept into a stage plus
everything computed in it fits the budget (the stage figure of
:mod:`.cost`). Objective: least recomputed FLOPs. Variables exist only
where they can matter (a node is kept or recomputed only while something may
still read it), which keeps programs of a few hundred nodes solvable.

Examples
--------
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> solution = solve(graph, 11577, time_limit=10)  # 90% of store-all
>>> solution.recompute, solution.status, solution.gap
({16: [0, 1]}, 'optimal', 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class Solution:
    """What the solver found.

    Attributes
    ----------
    recompute : dict or None
        ``stage -> nodes`` (None when infeasible).
    status : str
        ``"optimal"`` (gap 0), ``"feasible"`` (time limit, gap > 0) or ``"infeasible"``.
    objective : float
        Recomputed FLOPs of the schedule.
    gap : float
        Relative MIP gap HiGHS reports.
    smallest : int or None
        The least stage figure the tier knows to be reachable, when it computed one.
    smallest_proven : bool
        Whether ``smallest`` is proven to be the least any schedule reaches.
    """

    recompute: dict | None
    status: str
    objective: float
    gap: float
    smallest: int | None = None
    smallest_proven: bool = False


def _horizons(graph) -> list:
    """The last stage at which each node may still be read (by a recomputed reader too)."""
    n = len(graph.nodes)
    users = graph.users()
    horizon = [max(users[i], default=i) for i in range(n)]
    for i in graph.outputs:
        horizon[i] = n
    for i in range(n - 1, -1, -1):
        for j in users[i]:
            if graph.nodes[j].recomputable or graph.nodes[j].alias_of == i:
                horizon[i] = max(horizon[i], horizon[j])
    return horizon


class _Program:
    """Variables and sparse constraint rows of the MILP."""

    def __init__(self, graph, horizon: list):
        self.graph, self.n = graph, len(graph.nodes)
        self.keep, self.again = {}, {}
        for i, node in enumerate(graph.nodes):
            for t in range(i + 1, horizon[i] + 1):
                self.keep[t, i] = self._new()
                if node.recomputable and t < self.n:
                    self.again[t, i] = self._new()
        self.rows, self.lower, self.upper = [], [], []

    def _new(self) -> int:
        self.size = getattr(self, "size", 0) + 1
        return self.size - 1

    def present(self, t: int, i: int) -> dict:
        """Coefficients of 'node i is available in stage t'."""
        terms = {}
        for table in (self.keep, self.again):
            if (t, i) in table:
                terms[table[t, i]] = 1.0
        return terms

    def row(self, terms: dict, lower: float, upper: float) -> None:
        self.rows.append(terms)
        self.lower.append(lower)
        self.upper.append(upper)


def _build(graph, budget_column: bool):
    n = len(graph.nodes)
    p = _Program(graph, _horizons(graph))
    budget = p._new() if budget_column else None
    nodes = graph.nodes
    for t in range(n):
        for i in nodes[t].inputs:
            p.row(p.present(t, i), 1, np.inf)
    for (t, j), r in p.again.items():
        for i in nodes[j].inputs:
            p.row({**p.present(t, i), r: p.present(t, i).get(r, 0) - 1}, 0, np.inf)
    for (t, i), s in p.keep.items():
        if t > i + 1:
            terms = {k: -v for k, v in p.present(t - 1, i).items()}
            terms[s] = terms.get(s, 0) + 1
            p.row(terms, -np.inf, 0)
        src = nodes[i].alias_of
        if src is not None:
            p.row({s: 1, **{k: -v for k, v in p.present(t, src).items()}}, -np.inf, 0)
    for i in graph.outputs:
        if (n, i) in p.keep:
            p.row({p.keep[n, i]: 1}, 1, 1)
    for interior, end in graph.regions:
        for i in interior:
            if (end + 1, i) in p.keep:
                p.row({p.keep[end + 1, i]: 1}, 0, 0)
    stage_terms = [dict() for _ in range(n + 1)]
    for table in (p.keep, p.again):
        for (t, i), var in table.items():
            if nodes[i].bytes:
                stage_terms[t][var] = float(nodes[i].bytes)
    return p, budget, stage_terms


def _milp(p, objective, stage_terms, budget, budget_value, time_limit):
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    rows, lower, upper = list(p.rows), list(p.lower), list(p.upper)
    for t, terms in enumerate(stage_terms):
        own = float(p.graph.nodes[t].bytes) if t < p.n else 0.0
        if budget is None:
            rows.append(terms)
            lower.append(-np.inf)
            upper.append(budget_value - own)
        else:
            rows.append({**terms, budget: -1.0})
            lower.append(-np.inf)
            upper.append(-own)
    data, ri, ci = [], [], []
    for r, terms in enumerate(rows):
        for c, v in terms.items():
            if v:
                ri.append(r)
                ci.append(c)
                data.append(v)
    matrix = coo_matrix((data, (ri, ci)), shape=(len(rows), p.size)).tocsr()
    integrality = np.ones(p.size)
    upper_bounds = np.ones(p.size)
    if budget is not None:
        integrality[budget] = 0
        upper_bounds[budget] = np.inf
    return milp(objective, integrality=integrality, bounds=Bounds(0, upper_bounds),
                constraints=LinearConstraint(matrix, lower, upper),
                options={"time_limit": time_limit, "disp": False})


def solve(graph, budget: int, time_limit: float = 10.0) -> Solution:
    """Least-recompute schedule of ``graph`` whose stage figure fits ``budget`` bytes.

    Parameters
    ----------
    graph : Graph
    budget : int
        Bytes.
    time_limit : float
        Seconds HiGHS may search; the best schedule found by then is returned
        with its gap.
    """
    p, _, stage_terms = _build(graph, budget_column=False)
    objective = np.zeros(p.size)
    for (t, i), var in p.again.items():
        objective[var] = graph.nodes[i].flops + 1  # +1: never recompute for free
    result = _milp(p, objective, stage_terms, None, float(budget), time_limit)
    if result.x is None:
        return Solution(None, "infeasible", float("inf"), float("inf"))
    recompute: dict = {}
    for (t, i), var in p.again.items():
        if result.x[var] > 0.5:
            recompute.setdefault(t, []).append(i)
    gap = float(getattr(result, "mip_gap", 0.0) or 0.0)
    status = "optimal" if result.status == 0 and gap <= 1e-9 else "feasible"
    flops = sum(graph.nodes[i].flops for nodes in recompute.values() for i in nodes)
    return Solution(recompute, status, float(flops), gap)


def smallest_budget(graph, time_limit: float = 10.0) -> tuple:
    """The least stage figure any schedule of ``graph`` reaches: ``(bytes, proven)``.

    ``proven`` is False when the time limit stopped HiGHS before it closed the
    gap: ``bytes`` is then a budget known to be feasible, maybe not the least.
    """
    p, budget, stage_terms = _build(graph, budget_column=True)
    objective = np.zeros(p.size)
    objective[budget] = 1.0
    result = _milp(p, objective, stage_terms, budget, 0.0, time_limit)
    if result.x is None:
        raise RuntimeError(f"the memory program has no solution: {result.message}")
    proven = result.status == 0 and float(getattr(result, "mip_gap", 0.0) or 0.0) <= 1e-9
    return int(np.ceil(result.x[budget] - 1e-6)), proven
