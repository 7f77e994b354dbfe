"""Checkpointing a deep activation-dominated chain under memory budgets (issue: tad-remat).

L layers of dense width->width + tanh, float32, loss = sum(out^2), gradients with
respect to every weight. One table: for budgets of 100%, 75% and 50% of the
store-all peak, Chen's sqrt(L) level and the smallest feasible budget the pass
reports, the measured peak live bytes, the recomputed FLOPs (percent of one
forward-and-backward step) and the step time; beside them Chen's sqrt(L)
segments and store-nothing (one region around the whole network), run with
``tensorad.checkpoint`` in the same process.

The solve time of each budget is that of the tier ``tensorad.jit`` chose
(``auto``); a second table gives the chain and mincut tiers' solve times on
the same graph (and the exact tier's, on graphs small enough for it).

Usage::

    python benchmarks/remat_chain.py            # 32 x 1024 + tanh, batch 2048 (the issue's size)
    python benchmarks/remat_chain.py --small    # 32 x 256, batch 512: a quick run
"""

from __future__ import annotations

import argparse
import math
import re
import time

import numpy as np
from mlir import ir

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.passes import remat
from tensorad.passes.remat import cost, exact
from tensorad.passes.remat.graph import build
from tensorad.passes.remat.progress import Progress
from tensorad.tracing import TraceState


def layers(h, ws):
    for w in ws:
        h = tnp.tanh(h @ w)
    return h


def store_all(ws, x):
    return (layers(x, ws) ** 2).sum()


def segmented(size):
    def loss(ws, x):
        h = x
        for start in range(0, len(ws), size):
            h = ta.checkpoint(layers)(h, ws[start:start + size])
        return (h ** 2).sum()
    return loss


def measure(loss, ws, x, reps, budget=None):
    """Compile, report and time one configuration."""
    t0 = time.perf_counter()
    report = ta.memory_report(ta.grad(loss), ws, x, memory_budget=budget)
    compile_s = time.perf_counter() - t0
    step = ta.jit(ta.grad(loss), memory_budget=budget)
    step(ws, x)
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        step(ws, x)
        times.append(time.perf_counter() - t)
    main = report.functions[0]
    return {"peak": report.measured_peak_bytes, "predicted": main.predicted_peak_bytes,
            "extra_flops": main.extra_flops, "step_s": float(np.median(times)),
            "compile_s": compile_s, "status": main.status, "tier": main.tier}


def solve_time(graph, budget, tier, node_limit=exact.NODE_LIMIT):
    """Seconds the ``tier`` solver takes for ``budget`` on ``graph``, and the tier it ended in."""
    start = time.perf_counter()
    try:
        with Progress(f"{tier} tier") as progress:
            used, solution = remat.solve(graph, budget, tier, remat.SolverLimits(node_limit=node_limit), progress)
    except remat.RematError:
        return time.perf_counter() - start, f"{tier}: not a chain", None
    return time.perf_counter() - start, used, solution


def smallest_budget(ws, x) -> int:
    """The smallest feasible budget, as the pass's error for an impossible one states it."""
    try:
        ta.jit(ta.grad(store_all), memory_budget=1).lower(ws, x).as_text("differentiated")
    except ta.CompileError as err:
        return int(re.search(r"smallest feasible budget (?:is|found is) (\d+)", str(err)).group(1))
    raise AssertionError("a budget of 1 byte was met")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--width", type=int, default=1024)
    parser.add_argument("--batch", type=int, default=2048)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="width 256, batch 512")
    args = parser.parse_args(argv)
    if args.small:
        args.width, args.batch = 256, 512
    rng = np.random.default_rng(0)
    ws = [(rng.standard_normal((args.width, args.width)) / math.sqrt(args.width)).astype(np.float32)
          for _ in range(args.layers)]
    x = rng.standard_normal((args.batch, args.width)).astype(np.float32)
    step_flops = 3 * args.layers * 2 * args.batch * args.width ** 2  # forward + two backward dots

    rows = {}
    base = rows["store-all"] = measure(store_all, ws, x, args.reps)
    sqrt_size = max(1, round(math.sqrt(args.layers)))
    rows[f"Chen sqrt(L) (segments of {sqrt_size})"] = chen = measure(segmented(sqrt_size), ws, x, args.reps)
    rows["store-nothing (one region)"] = measure(segmented(args.layers), ws, x, args.reps)
    budgets = [("budget 100%", base["peak"]), ("budget 75%", int(0.75 * base["peak"])),
               ("budget 50%", int(0.5 * base["peak"])), ("budget = Chen's peak", chen["peak"]),
               ("smallest feasible (pass-reported)", smallest_budget(ws, x))]
    module = ir.Module.parse(ta.jit(ta.grad(store_all)).lower(ws, x).as_text("differentiated"),
                             TraceState.context())
    with module.context, ir.Location.unknown():
        graph = build(module.body.operations[0].operation)
    solves = {}
    tiers = ("chain", "exact", "mincut") if len(graph.nodes) <= remat.EXACT_NODE_LIMIT else ("chain", "mincut")
    for label, budget in budgets:
        solves[label] = {tier: solve_time(graph, budget, tier) for tier in ("auto",) + tiers}
        try:
            rows[label] = {**measure(store_all, ws, x, args.reps, budget), "budget": budget,
                           "solve_s": solves[label]["auto"][0]}
        except ta.CompileError:
            rows[label] = {"budget": budget, "error": "infeasible"}

    print(f"deep chain: {args.layers} x dense {args.width}->{args.width} + tanh, batch {args.batch}, "
          f"float32; one step = {step_flops / 1e9:.1f} GFLOP; graph of {len(graph.nodes)} nodes, "
          f"store-all peak {cost.simulate(graph, {}).peak / 1e6:.1f} MB")
    header = f"{'schedule':<36}{'budget MB':>10}{'peak MB':>9}{'pred MB':>9}{'peak<=budget':>13}" \
             f"{'recompute':>10}{'step s':>8}{'x store-all':>12}{'compile s':>10}{'solve s':>8}  tier/status"
    print(header)
    print("-" * len(header))
    for label, row in rows.items():
        budget = row.get("budget")
        budget_text = f"{budget / 1e6:10.1f}" if budget else f"{'-':>10}"
        if "error" in row:
            print(f"{label:<36}{budget_text}  {row['error']}")
            continue
        fits = "-" if budget is None else ("yes" if row["peak"] <= budget else "NO")
        print(f"{label:<36}{budget_text}{row['peak'] / 1e6:9.1f}{row['predicted'] / 1e6:9.1f}{fits:>13}"
              f"{100 * row['extra_flops'] / step_flops:9.1f}%{row['step_s']:8.2f}"
              f"{row['step_s'] / base['step_s']:12.2f}{row['compile_s']:10.1f}"
              f"{row.get('solve_s', float('nan')):8.2f}  {row['tier']}/{row['status']}")
    print()
    print(f"{'solve times (s), recompute % by tier':<36}" + "".join(f"{t:>22}" for t in tiers))
    for label, by_tier in solves.items():
        cells = []
        for tier in tiers:
            seconds, used, solution = by_tier[tier]
            if solution is None or solution.recompute is None:
                cells.append(f"{seconds:8.2f} {'infeasible' if solution else used:>13}"[:22])
            else:
                cells.append(f"{seconds:8.2f} {100 * solution.objective / step_flops:6.1f}% {solution.status:>6}"[:22])
        print(f"{label:<36}" + "".join(f"{c:>22}" for c in cells))


if __name__ == "__main__":
    main()
