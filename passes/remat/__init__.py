"""``tad-remat``: choose what the backward sweep keeps and what it recomputes.

Run after ``tad-differentiate`` (and ``tad-inline``), when each function holds
its forward and backward sweeps. For every function body it builds the graph
of allocations (:mod:`.graph`), honours the ``tad.start_checkpoint`` /
``tad.end_checkpoint`` regions (interior values are recomputed after the
region, unless the region's ``tad.policy`` lets them be kept), and with a
``budget`` (bytes) finds the schedule with the least recomputation whose
peak live bytes fit it:

* ``tier=exact``: the mixed-integer program of :mod:`.exact` (HiGHS, with a
  limit on branch-and-bound nodes; "optimal" only at MIP gap 0);
* ``tier=intervals``: MOCCASIN's retention intervals, a constraint program
  on OR-Tools CP-SAT (:mod:`.intervals`: each value run at most ``copies``
  times, "optimal" among those schedules; a limit on CP-SAT's
  deterministic time);
* ``tier=chain``: the multi-level dynamic program of :mod:`.chain`, for a
  forward that is a chain of layers (a deep MLP) followed by its backward;
* ``tier=mincut``: the byte-weighted min-cut plus greedy repair of
  :mod:`.mincut`, for large programs;
* ``tier=greedy``: the evictions of :mod:`.greedy` alone;
* ``tier=auto`` (default): chain when the function is one, else exact up
  to :data:`EXACT_NODE_LIMIT` nodes, intervals up to
  :data:`INTERVALS_NODE_LIMIT`, else mincut; mincut also when exact or
  intervals end without a schedule, and where intervals did not prove its
  schedule optimal, the one of the two that recomputes less.

Every plan is checked with :func:`.cost.simulate`: its peak live bytes, op
by op, fit the budget, also once the function is rewritten to run it
(rewriting can change what fusion merges; a plan that overshoots is planned
again for a budget smaller by the overshoot, :data:`REWRITE_ROUNDS` times at
most). Live bytes count the temporaries of each op's lowering (the records'
``scratch`` rules: convolutions, pooling, contractions). No solver reads a clock: the same program gets the
same schedule on any machine. A solve that takes more than a second says
what it is doing on stderr, once a second (:mod:`.progress`).

A budget no schedule meets is an error that names the smallest feasible one
found, planned for again before it is named (:data:`SUGGESTION_ROUNDS`), so that
asking for it compiles.
The pass returns a :class:`.report.RematReport` of what was kept and
recomputed, the predicted peaks and the solver status; the registry hands it
to the caller in its :class:`~tensorad.passes.registry.PassResults`
(``autodiff-opt --tad-remat-report=FILE`` writes it as JSON).

Options: ``budget`` (bytes, or with a ``kB``/``MB``/``GB``/``KiB``/``MiB``/``GiB``
suffix), ``policy`` (the default policy of regions without one), ``tier``,
``node_limit`` (branch-and-bound nodes of the exact tier), ``work_limit``
(deterministic seconds of the intervals tier), ``copies`` (runs of one value
the intervals tier allows), ``report`` (describe functions with nothing to
plan too; the JIT turns it off).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
...   %0 = "tad.start_checkpoint"(%x) : (tensor<4xf32>) -> tensor<4xf32>
...   %1 = math.sin %0 : tensor<4xf32>
...   %2 = math.exp %1 : tensor<4xf32>
...   %3 = "tad.end_checkpoint"(%2) : (tensor<4xf32>) -> tensor<4xf32>
...   %4 = math.cos %1 : tensor<4xf32>
...   return %3, %4 : tensor<4xf32>, tensor<4xf32>
... }''', make_context())
>>> run_pipeline(m, "tad-remat")
>>> str(m).count("math.sin")
2
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Optional

from mlir import ir

from ..options import option
from . import bound, chain, cost, exact, greedy, intervals, mincut
from .progress import Progress
from .graph import POLICIES, build
from .report import FunctionReport, RematReport
from .rewrite import apply

# The exact tier's program grows as the cube of the nodes, and its bound is weak:
# past a few dozen nodes proofs take minutes (see exact.NODE_LIMIT).
EXACT_NODE_LIMIT = 24
# The intervals tier proves schedules of graphs this large optimal within its limit (a residual
# network's 40 nodes in 0.8 deterministic seconds, a U-Net's 49 in 0.1); past it, rarely.
INTERVALS_NODE_LIMIT = 64


@dataclass(frozen=True)
class SolverLimits:
    """How much work the exact and intervals tiers may do: counts of work, never a clock.

    Attributes
    ----------
    node_limit : int
        Branch-and-bound nodes of the exact tier.
    work_limit : float
        Deterministic seconds of the intervals tier (CP-SAT's unit of work).
    copies : int
        Runs of one value the intervals tier allows.
    """

    node_limit: int = exact.NODE_LIMIT
    work_limit: float = intervals.WORK_LIMIT
    copies: int = intervals.COPIES


_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9,
          "kib": 2**10, "mib": 2**20, "gib": 2**30}


class RematError(Exception):
    """A schedule that cannot be had, reported at ``location``."""

    def __init__(self, location: ir.Location, message: str):
        super().__init__(message)
        self.location = location


def parse_bytes(text: str) -> int:
    """``"64MiB"`` -> 67108864.

    Examples
    --------
    >>> parse_bytes("1.5kB"), parse_bytes("2048")
    (1500, 2048)
    """
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([a-zA-Z]*)\s*", text)
    if not match or match.group(2).lower() not in _UNITS:
        raise ValueError(f"budget '{text}' is not a number of bytes (e.g. 1048576 or 64MiB)")
    return int(float(match.group(1)) * _UNITS[match.group(2).lower()])


def _inherit_policy(function: ir.Operation, policy: str) -> None:
    for op in function.regions[0].blocks[0].operations:
        if op.operation.name == "tad.start_checkpoint" and "tad.policy" not in op.attributes:
            op.attributes["tad.policy"] = ir.StringAttr.get(policy)


TIERS = ("auto", "chain", "exact", "intervals", "mincut", "greedy")


def _solve_chain(graph, budget: int, progress: Progress):
    """The chain tier as a :class:`~.exact.Solution` (None when ``graph`` is no chain)."""
    found = chain.find(graph)
    if found is None:
        return None
    if cost.simulate(graph, {}).peak <= budget:
        return exact.Solution({}, "optimal", 0.0, 0.0)
    progress.update(f"chain tier, {found.length} layers")
    solution = chain.solve(found, budget)
    plan = solution.plan() if solution is not None else None
    # The program counts what simulate() counts; checking keeps the guarantee unconditional.
    if plan is None or cost.simulate(graph, plan).peak > budget:
        return exact.Solution(None, "infeasible", float("inf"), float("inf"), _chain_floor(graph, found, progress))
    return exact.Solution(plan, "optimal", float(solution.flops), 0.0)


def _chain_floor(graph, found, progress: Progress) -> int | None:
    """The chain tier's smallest budget, when its schedule there holds as simulate() counts it (else None).

    Where the chain's model of a function with more than a chain in it (a
    skip connection read by the backward) counts less than simulate(), the
    budget it names would be refused when asked for.
    """
    smallest = chain.smallest_budget(found, progress=progress.update)
    at_smallest = chain.solve(found, smallest)
    if at_smallest is None or cost.simulate(graph, at_smallest.plan()).peak > smallest:
        return None
    return smallest


def solve(graph, budget: int, tier: str = "auto", limits: SolverLimits = SolverLimits(),
          progress: Progress | None = None):
    """``(tier used, solution)``: a schedule of ``graph`` within ``budget`` by ``tier``, or for ``auto`` the first that fits.

    See the module docstring for the tiers; ``solution`` is an
    :class:`.exact.Solution` (``recompute`` None when none fits, with the
    smallest budget the tier found). Plans are on the graph's count: the
    pass then checks them on the rewritten function.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> used, solution = solve(graph, 11577, tier="intervals")
    >>> used, solution.status, solution.objective
    ('intervals', 'optimal', 2304.0)
    """
    progress = progress if progress is not None else Progress("tad-remat")
    if tier not in TIERS:
        raise ValueError(f"unknown tier '{tier}'; known: {', '.join(TIERS)}")
    chained = None
    if tier in ("chain", "auto"):
        chained = _solve_chain(graph, budget, progress)
        if chained is not None and (chained.recompute is not None or tier == "chain"):
            return "chain", chained
        if chained is None and tier == "chain":
            raise RematError(graph.block.owner.location, "tier=chain: the function is not a chain of "
                             "layers followed by its backward (see tensorad.passes.remat.chain.find)")
    size, started = len(graph.nodes), None
    if tier == "exact" or (tier == "auto" and size <= EXACT_NODE_LIMIT):
        progress.update(f"exact tier, {size} nodes, at most {limits.node_limit} branch-and-bound nodes")
        used, solution = "exact", exact.solve(graph, budget, limits.node_limit)
        if solution.recompute is None:
            progress.update("exact tier: the smallest budget")
            solution.smallest, solution.smallest_proven = exact.smallest_budget(graph, limits.node_limit)
    elif tier == "intervals" or (tier == "auto" and size <= INTERVALS_NODE_LIMIT):
        # The min-cut tier's schedule (a fraction of a second) is where the search starts.
        progress.update(f"mincut tier, {size} nodes, for the intervals tier to start from")
        started = mincut.solve(graph, budget)
        progress.update(f"intervals tier, {size} nodes, at most {limits.work_limit} deterministic seconds")
        used, solution = "intervals", intervals.solve(graph, budget, limits.work_limit, limits.copies,
                                                      started.recompute)
        if solution.recompute is None:
            progress.update("intervals tier: the smallest budget")
            solution.smallest, solution.smallest_proven = intervals.smallest_budget(graph, limits.work_limit,
                                                                                    limits.copies)
    elif tier == "greedy":
        used, solution = "greedy", greedy.solve(graph, budget)
    else:
        progress.update(f"mincut tier, {size} nodes")
        used, solution = "mincut", mincut.solve(graph, budget)
    if tier == "auto" and used != "mincut" and (solution.recompute is None or solution.status != "optimal") \
            and not (solution.status == "infeasible" and used == "exact"):
        # The limit came before a proof, or intervals found no schedule with its few copies of each
        # value: the min-cut tier may find one, or one that recomputes less.
        if started is None:
            progress.update(f"mincut tier, {size} nodes")
        fallback = mincut.solve(graph, budget) if started is None else started
        if fallback.recompute is not None and (solution.recompute is None
                                               or fallback.objective < solution.objective):
            return "mincut", fallback
        if solution.recompute is None:
            solution.smallest = min(solution.smallest, fallback.smallest)
    if (solution.recompute is None and chained is not None and chained.smallest is not None
            and not solution.smallest_proven):
        # The chain tier may know a smaller feasible budget than the fallback reached.
        solution.smallest = min(solution.smallest, chained.smallest)
    return used, solution


def plan_function(function: ir.Operation, budget: int | None, tier: str = "auto",
                  limits: SolverLimits = SolverLimits(), predict: bool = True) -> FunctionReport:
    """Schedule one function in place and describe what was decided.

    With ``predict``, the report's predicted peak is the count of the
    program that runs (one more lowering trial); without (nobody reads the
    report), it is the count the plan was made on.

    Raises
    ------
    RematError
        When no schedule fits ``budget``.
    """
    graph = build(function)
    store_all = cost.simulate(graph, {})
    recompute = cost.without_unread(graph, greedy.region_plan(graph))
    tier_used, status, gap, prediction = "regions", "honoured", 0.0, None
    name = function.attributes["sym_name"].value
    if budget is not None:
        _static_sizes(function)
        with Progress(f"@{name}") as progress:
            tier_used, solution, prediction = _solve_named(function, graph, budget, tier, limits, progress)
        if solution.recompute is None:
            smallest = (f"the {tier_used} tier found no feasible budget (tier=auto tries the others)"
                        if solution.smallest is None else
                        f"the smallest feasible budget is {solution.smallest} bytes"
                        if solution.smallest_proven else
                        f"the smallest feasible budget found is {solution.smallest} bytes "
                        f"(the {tier_used} tier did not prove it minimal)")
            raise RematError(function.location,
                             f"no schedule of @{name} keeps "
                             f"peak live bytes within the budget of {budget} bytes; {smallest}")
        recompute, status, gap = solution.recompute, solution.status, solution.gap
    chosen = cost.simulate(graph, recompute)
    report = FunctionReport.of(graph, function, store_all, chosen, recompute,
                               budget=budget, tier=tier_used, status=status, gap=gap)
    if recompute:
        apply(graph, recompute)
    if predict:
        # The rewritten program is what runs: its own count, with what the lowering recomputes in readers
        # (the plan was made on an upper bound of it), is the prediction; the trial of the plan's
        # rewrite counted it already (the same ops, on a copy).
        chosen = prediction if prediction is not None else cost.simulate(build(function, recomputes=True), {})
    report.predicted_peak_bytes, report.timeline["chosen"] = chosen.peak, chosen.live
    return report


# Rewriting can change what fusion merges: a producer that the plan leaves with one
# reader is fused into it, and the producer's inputs then live until that reader runs.
# Each plan is checked on the rewritten program and, when that overshoots, planned
# again for a budget smaller by the overshoot, at most this many times.
REWRITE_ROUNDS = 8


def rewritten_peak(function: ir.Operation, recompute: dict, graph=None) -> int:
    """Peak live bytes (:func:`.cost.simulate`) of ``function`` rewritten to run ``recompute``, on a copy.

    The larger of the plan's count (every elementwise op a buffer) and the
    prediction's (what the lowering recomputes in readers keeps its input
    alive instead, which may be larger: a conversion to a narrower type):
    a budget this keeps, the report's prediction keeps too. ``graph``, the
    graph of ``function`` when the caller has it, saves building it again.
    """
    return _rewritten_counts(function, recompute, graph)[0]


def _rewritten_counts(function: ir.Operation, recompute: dict, graph=None) -> tuple:
    """``(rewritten_peak(...), the prediction's timeline)``: the second is the report's once the plan is applied."""
    trial = function.clone(ip=ir.InsertionPoint.after(function))
    try:
        apply(build(trial) if graph is None else graph.on_copy(trial), recompute)
        prediction = cost.simulate(build(trial, recomputes=True), {})
        return max(cost.simulate(build(trial), {}).peak, prediction.peak), prediction
    finally:
        trial.erase()


# A budget the pass names in its error is planned for as the user will ask for it, at most
# this many times: when that fails (the tiers' searches depend on the budget, and a plan's
# rewritten program may count more than the plan), the larger budget it names is tried.
SUGGESTION_ROUNDS = 2


def _solve_named(function: ir.Operation, graph, budget: int, tier: str, limits: SolverLimits, progress: Progress):
    """:func:`_solve_rewritten`; when it fails, the smallest budget it names is one that it accepts, where found."""
    tier_used, solution, prediction = _solve_rewritten(function, graph, budget, tier, limits, progress)
    for _ in range(SUGGESTION_ROUNDS if solution.recompute is None else 0):
        if solution.smallest is None:
            break
        progress.update(f"checking that {solution.smallest} bytes is accepted")
        _, named, _ = _solve_rewritten(function, graph, solution.smallest, tier, limits, progress)
        if named.recompute is not None or named.smallest is None or named.smallest <= solution.smallest:
            break
        solution.smallest, solution.smallest_proven = named.smallest, False
    return tier_used, solution, prediction


def _solve_rewritten(function: ir.Operation, graph, budget: int, tier: str, limits: SolverLimits,
                     progress: Progress):
    """:func:`_solve` whose schedule keeps ``budget`` once ``function`` is rewritten to run it.

    Returns ``(tier, solution, the prediction's timeline of its rewrite or None)``. Under
    ``tier=auto``, when the exact or intervals tier's plans all overshoot once rewritten, the
    min-cut tier's are tried: tiers that tie on a plan's count choose different plans, which
    rewrite differently (a residual network's gradient: the exact tier's plans for 370,000
    bytes rewrite to 426,564, the min-cut tier's fit).
    """
    tier_used, solution, prediction = _rewrite_rounds(function, graph, budget, tier, limits, progress)
    if solution.recompute is None and tier == "auto" and tier_used in ("exact", "intervals"):
        fallback = _rewrite_rounds(function, graph, budget, "mincut", limits, progress)
        if fallback[1].recompute is not None:
            return fallback
        named = fallback[1].smallest
        if named is not None and (solution.smallest is None or named < solution.smallest):
            solution.smallest, solution.smallest_proven = named, fallback[1].smallest_proven
    return tier_used, solution, prediction


def _rewrite_rounds(function: ir.Operation, graph, budget: int, tier: str, limits: SolverLimits,
                    progress: Progress):
    """:func:`_solve_rewritten` with one tier (or ``auto``'s choice): plans for smaller budgets while rewrites overshoot."""
    target, feasible = budget, []
    for _ in range(REWRITE_ROUNDS):
        tier_used, solution = solve(graph, target, tier, limits, progress)
        if solution.recompute is None:
            break
        solution.recompute = cost.without_unread(graph, solution.recompute)
        peak, prediction = _rewritten_counts(function, solution.recompute, graph)
        if peak <= budget:
            return tier_used, solution, prediction
        feasible.append(peak)
        progress.update(f"the rewritten program peaks at {peak} bytes: planning for {target - (peak - budget)}")
        target -= peak - budget
        solution = exact.Solution(None, "infeasible", float("inf"), float("inf"))
    if feasible:
        # Below the first target, the tier's figures are about plans, not the rewritten
        # programs: only the peaks the rewritten programs were counted at are known.
        solution.smallest, solution.smallest_proven = min(feasible), False
    elif solution.smallest is not None:
        # A budget at the lower bound is the floor, whichever tier reached it.
        solution.smallest_proven = solution.smallest_proven or solution.smallest == bound.lower_bound(graph)
    return tier_used, solution, None


def _static_sizes(function: ir.Operation) -> None:
    """Refuse a budget for a function with a value of dynamic shape: its bytes are known at run time only."""
    def dynamic(values) -> list:
        return [v.type for v in values if isinstance(v.type, ir.RankedTensorType) and not v.type.has_static_shape]

    found = []

    def visit(op):
        if dynamic(op.results):
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    why = "whose bytes are known at run time only"
    arguments = dynamic(function.regions[0].blocks[0].arguments)
    if arguments:
        raise RematError(function.location, f"a memory budget needs static shapes: "
                         f"@{function.attributes['sym_name'].value} takes a value of type {arguments[0]}, {why}")
    function.walk(visit)
    if found:
        raise RematError(found[0].location, f"a memory budget needs static shapes: '{found[0].name}' makes a "
                         f"value of type {dynamic(found[0].results)[0]}, {why}")


def _has_checkpoints(function: ir.Operation) -> bool:
    return any(op.operation.name == "tad.start_checkpoint" for op in function.regions[0].blocks[0].operations)


def _is_policy(text: str) -> bool:
    return text.partition(":")[0] in POLICIES


@dataclass(frozen=True)
class RematOptions:
    """The options of ``tad-remat`` (pipeline text ``tad-remat{budget=64MiB tier=exact}``)."""

    budget: Optional[int] = option(None, "peak live bytes the schedule must fit (default: checkpoint regions only)",
                                   parse=parse_bytes, accepted="a number of bytes, e.g. 1048576 or 64MiB")
    policy: str = option("", "checkpoint policy of regions that name none", check=_is_policy,
                         accepted="one of " + ", ".join(POLICIES[:-1]) + ", save_only_these_names:NAME,...")
    tier: Literal[TIERS] = option("auto", "the solver; auto picks one by the function's size and shape")
    node_limit: int = option(exact.NODE_LIMIT, "branch-and-bound nodes the exact tier's solver may explore",
                             check=lambda nodes: nodes > 0, accepted="a positive integer")
    work_limit: float = option(intervals.WORK_LIMIT, "deterministic seconds the intervals tier's solver may work",
                               check=lambda seconds: seconds > 0, accepted="a positive number")
    copies: int = option(intervals.COPIES, "runs of one value (the first and its recomputations) the intervals "
                         "tier allows", check=lambda copies: copies > 0, accepted="a positive integer")
    report: bool = option(True, "describe every function's memory, also where there is nothing to plan "
                                "(no budget, no checkpoint region): the JIT asks for it only in memory_report")


def run(op: ir.Operation, pass_, options: RematOptions = RematOptions()) -> Optional[RematReport]:
    """Schedule every function of the module ``op`` (see the module docstring); return what was decided.

    Returns
    -------
    RematReport or None
        None when the pass failed (no schedule fits the budget).
    """
    reports = []
    for function in [o.operation for o in op.regions[0].blocks[0].operations]:
        if function.name != "func.func" or not function.regions[0].blocks:
            continue
        if options.policy:
            _inherit_policy(function, options.policy)
        if not options.report and options.budget is None and not _has_checkpoints(function):
            continue  # nothing to plan, and nobody to tell: the graph costs a lowering of the function
        try:
            limits = SolverLimits(options.node_limit, options.work_limit, options.copies)
            reports.append(plan_function(function, options.budget, options.tier, limits, predict=options.report))
        except RematError as err:
            err.location.emit_error(str(err))
            pass_.signal_pass_failure()
            return None
    return RematReport(reports)
