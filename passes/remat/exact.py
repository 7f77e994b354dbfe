"""The exact tier: a mixed-integer program whose memory is :func:`.cost.simulate`'s, solved by HiGHS.

Stages are the nodes in program order (plus a last stage ``n``, the return);
stage ``t`` runs the nodes recomputed before node ``t`` (ascending) and then
node ``t``: those are its *events*. Variables, for node ``i`` and stage ``t > i``:

* ``R[t, i]`` (binary): node ``i`` is recomputed in stage ``t``;
* ``S[t, i]`` (in [0, 1]): a copy of node ``i`` is kept from stage ``t - 1`` into ``t``;
* ``F[t, i, j]`` (in [0, 1]): that copy is freed right after the recomputed
  node ``j``, a reader of ``i``, runs in stage ``t``;
* ``M[t, j]`` (bytes): live bytes while event ``j`` of stage ``t`` runs.

Constraints: every node (and every recomputed node) finds its inputs
computed or kept in its stage; a copy is kept into ``t + 1`` only if it was
kept into or computed in ``t``; a view is kept only with its buffer;
results are kept from their first run to the end (never recomputed: see
:meth:`.graph.Graph.kept_results`); interior values of a ``start/end_checkpoint``
region are not kept past the end marker; ops with side effects are never
recomputed. ``F[t, i, j]`` may be 1 only if ``j`` runs, no later event of the
stage reads ``i`` and ``i`` is not kept into ``t + 1``. Memory:
``M[t, first] = sum S[t, i] b_i + R b``, ``M[t, j] = M[t, j'] - sum_i F[t, i, j'] b_i
+ R[t, j] b_j`` for consecutive events ``j' < j``, and every ``M`` plus the
event's scratch bytes (``R[t, j] s_j``, or ``s_t``) fits the budget: exactly :func:`.cost.simulate`'s count, op by op, for the least ``S``
and the greatest ``F`` that a choice of ``R`` allows (which is why only ``R``
needs to be integer). Objective: least recomputed FLOPs (plus one per
recomputation, so that nothing is recomputed for free).

HiGHS is stopped by a number of branch-and-bound nodes (``node_limit``),
never by a clock: the same program gives the same schedule on any machine,
however loaded. Variables exist only where they can matter (a node is kept
or recomputed only while something may still read it).

Examples
--------
>>> from tensorad.passes.remat.graph import example
>>> module, graph = example()
>>> solution = solve(graph, 11577)  # 90% of store-all
>>> solution.recompute, solution.status, solution.gap
({12: [0], 16: [1]}, 'optimal', 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bound import lower_bound
from .cost import simulate

# Branch-and-bound nodes HiGHS may explore: deterministic work, about ten
# seconds on the largest program the auto tier gives it (EXACT_NODE_LIMIT nodes).
NODE_LIMIT = 2000


@dataclass
class Solution:
    """What the solver found.

    Attributes
    ----------
    recompute : dict or None
        ``stage -> nodes`` (None when infeasible).
    status : str
        ``"optimal"`` (gap 0), ``"feasible"`` (node limit, gap > 0), ``"infeasible"``
        (proven), or ``"unknown"`` (the node limit came before any schedule).
    objective : float
        Recomputed FLOPs of the schedule.
    gap : float
        Relative MIP gap HiGHS reports.
    smallest : int or None
        The least peak the tier knows to be reachable, when it computed one.
    smallest_proven : bool
        Whether ``smallest`` is proven to be the least any schedule reaches.
    closest : dict or None
        A schedule whose peak is ``smallest``, when the tier keeps one (the
        greedy tier's, when it fails to fit the budget).
    """

    recompute: dict | None
    status: str
    objective: float
    gap: float
    smallest: int | None = None
    smallest_proven: bool = False
    closest: dict | None = None


def horizons(graph) -> list:
    """The last stage at which each node may still be read (by a recomputed reader too)."""
    n = len(graph.nodes)
    users = graph.users()
    horizon = [max(users[i], default=i) for i in range(n)]
    for i in graph.outputs:
        horizon[i] = n
    for i in range(n - 1, -1, -1):
        for j in users[i]:
            if graph.nodes[j].recomputable or graph.keeps_alive(j) == i:
                horizon[i] = max(horizon[i], horizon[j])
    return horizon


def _buffer_readers(graph) -> list:
    """``readers[i]``: the nodes whose reads keep buffer ``i`` alive (through views of it too)."""
    readers = [set() for _ in graph.nodes]
    for j, node in enumerate(graph.nodes):
        for v in node.inputs:
            for kept in graph.kept_alive(v):
                readers[kept].add(j)
    return [sorted(r) for r in readers]


class _Program:
    """Columns and sparse constraint rows of the MILP (see the module docstring)."""

    def __init__(self, graph, budget_column: bool):
        self.graph, self.n = graph, len(graph.nodes)
        self.integer, self.rows, self.lower, self.upper = [], [], [], []
        self.keep, self.again, self.free, self.memory = {}, {}, {}, {}
        horizon = horizons(graph)
        for i, node in enumerate(graph.nodes):
            for t in range(i + 1, horizon[i] + 1):
                self.keep[t, i] = self.column(False)
                if node.recomputable and t < self.n:
                    self.again[t, i] = self.column(True)
        self.budget = self.column(False) if budget_column else None
        self._presence()
        self._frees()
        self._memory()

    def column(self, integer: bool) -> int:
        self.integer.append(integer)
        return len(self.integer) - 1

    def present(self, t: int, i: int) -> dict:
        """Coefficients of 'node i is available in stage t'."""
        return {table[t, i]: 1.0 for table in (self.keep, self.again) if (t, i) in table}

    def row(self, terms: dict, lower: float, upper: float) -> None:
        self.rows.append(terms)
        self.lower.append(lower)
        self.upper.append(upper)

    def _presence(self) -> None:
        graph, nodes, n = self.graph, self.graph.nodes, self.n
        for t in range(n):
            for i in nodes[t].inputs:
                self.row(self.present(t, i), 1, np.inf)
        for (t, j), r in self.again.items():
            for i in nodes[j].inputs:
                self.row({**self.present(t, i), r: -1.0}, 0, np.inf)
        for (t, i), s in self.keep.items():
            if t > i + 1:
                self.row({s: 1.0, **{k: -v for k, v in self.present(t - 1, i).items()}}, -np.inf, 0)
            source = graph.keeps_alive(i)
            if source is not None:  # a view shows the copy of its buffer made before it
                self.row({s: 1.0, self.keep[t, source]: -1.0}, -np.inf, 0)
        for i in graph.outputs:
            if (n, i) in self.keep:
                self.row({self.keep[n, i]: 1.0}, 1, 1)
        for i in graph.kept_results():
            for t in range(i + 1, n):
                self.row({self.keep[t, i]: 1.0}, 1, 1)
        for interior, end in graph.regions:
            for i in interior:
                if (end + 1, i) in self.keep:
                    self.row({self.keep[end + 1, i]: 1.0}, 0, 0)

    def _frees(self) -> None:
        """``F[t, i, j]`` and the rows that let it be 1 only when ``j`` is the last read of ``i`` in stage ``t``."""
        graph, nodes = self.graph, self.graph.nodes
        readers = _buffer_readers(graph)
        views = [[] for _ in nodes]
        for v in range(len(nodes)):
            for source in graph.kept_alive(v)[1:]:
                views[source].append(v)
        kept_to_end = {graph.buffer_of(i) for i in graph.outputs}
        for i, node in enumerate(nodes):
            if not node.bytes or i in kept_to_end:
                continue
            for t in range(i + 1, self.n):
                if t in readers[i]:
                    continue  # node t reads it last in the stage
                running = [j for j in readers[i] if j < t and (t, j) in self.again]
                for k, j in enumerate(running):
                    f = self.free[t, i, j] = self.column(False)
                    self.row({f: 1.0, self.again[t, j]: -1.0}, -np.inf, 0)
                    for later in running[k + 1:]:
                        self.row({f: 1.0, self.again[t, later]: 1.0}, -np.inf, 1)
                    for kept in [i] + views[i]:
                        if (t + 1, kept) in self.keep:
                            self.row({f: 1.0, self.keep[t + 1, kept]: 1.0}, -np.inf, 1)

    def _memory(self) -> None:
        nodes = self.graph.nodes
        frees_after: dict = {}
        for (t, i, j), f in self.free.items():
            frees_after.setdefault((t, j), {})[f] = -float(nodes[i].bytes)
        kept_into: dict = {}
        for (t, i), s in self.keep.items():
            if nodes[i].bytes and t < self.n:
                kept_into.setdefault(t, {})[s] = float(nodes[i].bytes)
        for t in range(self.n):
            events = [j for j in range(t) if (t, j) in self.again] + [t]
            previous = None
            for j in events:
                m = self.memory[t, j] = self.column(False)
                terms = {m: -1.0}
                if previous is None:
                    terms.update(kept_into.get(t, {}))
                else:
                    terms[self.memory[t, previous]] = 1.0
                    terms.update(frees_after.get((t, previous), {}))
                # M[t, j] = (what was live) + the bytes event j allocates
                own = float(nodes[j].bytes)
                if j < t:
                    terms[self.again[t, j]] = terms.get(self.again[t, j], 0.0) + own
                    self.row(terms, 0, 0)
                else:
                    self.row(terms, -own, -own)
                previous = j


def _milp(p: _Program, objective: np.ndarray, budget: float | None, node_limit: int, least: float = 0.0):
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.sparse import coo_matrix

    rows, lower, upper = list(p.rows), list(p.lower), list(p.upper)
    for (t, j), m in p.memory.items():
        # While event j runs its temporaries are live too: a recomputation's only if it runs.
        scratch = float(p.graph.nodes[j].scratch)
        terms = {m: 1.0, p.again[t, j]: scratch} if j < t and scratch else {m: 1.0}
        constant = 0.0 if j < t else scratch
        if p.budget is not None:
            terms[p.budget] = -1.0
        rows.append(terms)
        lower.append(-np.inf)
        upper.append((budget if p.budget is None else 0.0) - constant)
    data, ri, ci = [], [], []
    for r, terms in enumerate(rows):
        for c, v in terms.items():
            if v:
                ri.append(r)
                ci.append(c)
                data.append(v)
    size = len(p.integer)
    matrix = coo_matrix((data, (ri, ci)), shape=(len(rows), size)).tocsr()
    upper_bounds, lower_bounds = np.ones(size), np.zeros(size)
    for column in (*p.memory.values(), *(() if p.budget is None else (p.budget,))):
        upper_bounds[column] = np.inf
    if p.budget is not None:
        lower_bounds[p.budget] = least  # no schedule peaks lower: the search stops once one reaches it
    return milp(objective, integrality=np.array(p.integer, dtype=float),
                bounds=Bounds(lower_bounds, upper_bounds), constraints=LinearConstraint(matrix, lower, upper),
                options={"node_limit": node_limit, "mip_rel_gap": 0.0, "disp": False})


def _gap(result) -> float:
    return float(getattr(result, "mip_gap", 0.0) or 0.0)


def solve(graph, budget: int, node_limit: int = NODE_LIMIT) -> Solution:
    """Least-recompute schedule of ``graph`` whose peak live bytes fit ``budget``.

    Parameters
    ----------
    graph : Graph
    budget : int
        Bytes.
    node_limit : int
        Branch-and-bound nodes HiGHS may explore; the best schedule found by
        then is returned with its gap (status ``"feasible"``).
    """
    p = _Program(graph, budget_column=False)
    objective = np.zeros(len(p.integer))
    for (t, i), var in p.again.items():
        objective[var] = graph.nodes[i].flops + 1  # +1: never recompute for free
    result = _milp(p, objective, float(budget), node_limit)
    if result.x is None:  # proven infeasible, or the node limit came first
        return Solution(None, "infeasible" if result.status == 2 else "unknown", float("inf"), float("inf"))
    recompute: dict = {}
    for (t, i), var in sorted(p.again.items()):
        if result.x[var] > 0.5:
            recompute.setdefault(t, []).append(i)
    gap = _gap(result)
    status = "optimal" if result.status == 0 and gap <= 1e-9 else "feasible"
    flops = sum(graph.nodes[i].flops for nodes in recompute.values() for i in nodes)
    return Solution(recompute, status, float(flops), gap)


def smallest_budget(graph, node_limit: int = NODE_LIMIT) -> tuple:
    """The least peak live bytes any schedule of ``graph`` reaches: ``(bytes, proven)``.

    ``proven`` is False when the node limit stopped HiGHS before it closed the
    gap: ``bytes`` is then a budget known to be feasible, maybe not the least.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example(layers=2)
    >>> smallest_budget(graph)
    (8640, True)
    """
    p = _Program(graph, budget_column=True)
    objective = np.zeros(len(p.integer))
    objective[p.budget] = 1.0
    result = _milp(p, objective, None, node_limit, float(lower_bound(graph)))
    if result.x is None:  # the node limit came before any schedule: store-all is one
        return simulate(graph, {}).peak, False
    proven = result.status == 0 and _gap(result) <= 1e-9
    return int(np.ceil(result.x[p.budget] - 1e-6)), proven
