"""tad-remat's solvers side by side: what each proves, recomputes and takes, as graphs grow (issue: tad-remat).

Gradient graphs of three shapes: an MLP of tanh layers (a chain), a
residual network (each layer's input read by the next layer and by the
skip), and attention blocks with residuals. For each graph, a budget of
70% of the store-all peak, solved by the exact tier (the MILP on HiGHS,
on graphs of at most ``--exact-nodes`` nodes), the intervals tier (CP-SAT,
from the min-cut tier's schedule as ``tad-remat`` runs it), the min-cut
tier and, on chains, the chain tier's dynamic program. Each cell: status,
recomputed FLOPs, wall seconds (the limits are counts of work: the
statuses and FLOPs are the same on any machine, the seconds are not).

Usage::

    python benchmarks/remat_tiers.py            # about five minutes on two cores
    python benchmarks/remat_tiers.py --small    # the smaller graphs only
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from mlir import ir

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.passes.remat import chain, cost, exact, intervals, mincut
from tensorad.passes.remat.graph import build, example
from tensorad.tracing import TraceState

FRACTION = 0.7


def _residual(layers: int):
    """The gradient graph of ``layers`` residual tanh layers (width 16, batch 32)."""
    rng = np.random.default_rng(0)

    def loss(ws, x):
        h = x
        for w in ws:
            h = h + tnp.tanh(h @ w)
        return (h * h).sum()
    return _graph(loss, [rng.standard_normal((16, 16)) * 0.3 for _ in range(layers)], rng.standard_normal((32, 16)))


def _attention(blocks: int, width: int = 8, tokens: int = 16):
    """The gradient graph of ``blocks`` single-head attention blocks with residuals."""
    rng = np.random.default_rng(0)

    def loss(ws, x):
        h = x
        for wq, wk, wv in ws:
            scores = (h @ wq) @ tnp.swapaxes(h @ wk, -1, -2) / np.sqrt(width)
            h = h + ta.nn.softmax(scores) @ (h @ wv)
        return (h * h).sum()
    ws = [[rng.standard_normal((width, width)) / np.sqrt(width) for _ in range(3)] for _ in range(blocks)]
    return _graph(loss, ws, rng.standard_normal((2, tokens, width)))


def _graph(loss, params, x):
    module = ir.Module.parse(ta.jit(ta.grad(loss)).lower(params, x).as_text("differentiated"),
                             TraceState.context())
    return module, build(module.body.operations[0].operation)


def _timed(solve):
    start = time.perf_counter()
    found = solve()
    return found, time.perf_counter() - start


def _cell(status: str, flops, seconds: float) -> str:
    return f"{status:>10} {flops:>9.0f} {seconds:6.2f}" if flops is not None else f"{status:>10} {'-':>9} {seconds:6.2f}"


def row(name: str, module_and_graph, exact_nodes: int) -> str:
    """One line of the table for a graph."""
    _, graph = module_and_graph
    budget = int(FRACTION * cost.simulate(graph, {}).peak)
    found_cut, cut_s = _timed(lambda: mincut.solve(graph, budget))
    found, intervals_s = _timed(lambda: intervals.solve(graph, budget, hint=found_cut.recompute))
    cells = [f"{name:<14}{len(graph.nodes):>6}"]
    if len(graph.nodes) <= exact_nodes:
        best, exact_s = _timed(lambda: exact.solve(graph, budget))
        cells.append(_cell(best.status, best.objective if best.recompute is not None else None, exact_s))
    else:
        cells.append(f"{'-':>10} {'-':>9} {'-':>6}")
    cells.append(_cell(found.status, found.objective if found.recompute is not None else None, intervals_s))
    cells.append(_cell("", found_cut.objective if found_cut.recompute is not None else None, cut_s))
    layers = chain.find(graph)
    dp = chain.solve(layers, budget) if layers is not None else None
    cells.append(f"{dp.flops:>9}" if dp is not None else f"{'-':>9}")
    return "  ".join(cells)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help="the smaller graphs only")
    parser.add_argument("--exact-nodes", type=int, default=40, help="largest graph given to the exact tier")
    args = parser.parse_args(argv)
    graphs = [("mlp-4", lambda: example(4)), ("mlp-6", lambda: example(6)), ("residual-3", lambda: _residual(3)),
              ("attention-1", lambda: _attention(1)), ("residual-6", lambda: _residual(6))]
    if not args.small:
        graphs += [("mlp-8", lambda: example(8)), ("attention-2", lambda: _attention(2)),
                   ("mlp-12", lambda: example(12)), ("residual-10", lambda: _residual(10))]
    print(f"budget: {FRACTION:.0%} of store-all; each tier: status, recomputed FLOPs, wall seconds")
    print(f"{'graph':<14}{'nodes':>6}  {'exact (MILP)':>27}  {'intervals (CP-SAT)':>27}  {'mincut':>27}  {'chain':>9}")
    for name, make in graphs:
        print(row(name, make(), args.exact_nodes), flush=True)


if __name__ == "__main__":
    main()
