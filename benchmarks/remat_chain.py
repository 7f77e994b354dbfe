"""Checkpointing a deep activation-dominated chain under memory budgets (issue: tad-remat).

L layers of dense width->width + tanh, float32, loss = sum(out^2), gradients with
respect to every weight. One table: for budgets of 100%, 75% and 50% of the
store-all peak, Chen's sqrt(L) level and the smallest feasible budget the pass
reports, the measured peak live bytes, the recomputed FLOPs (percent of one
forward-and-backward step) and the step time; beside them Chen's sqrt(L)
segments and store-nothing (one region around the whole network), run with
``tensorad.checkpoint`` in the same process.

Usage::

    python benchmarks/remat_chain.py                       # 32 x 1024, batch 2048
    python benchmarks/remat_chain.py --width 256 --batch 512 --reps 3
"""

from __future__ import annotations

import argparse
import math
import re
import time

import numpy as np

import tensorad as ta
import tensorad.numpy as tnp


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
    args = parser.parse_args(argv)
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
    for label, budget in budgets:
        try:
            rows[label] = {**measure(store_all, ws, x, args.reps, budget), "budget": budget}
        except ta.CompileError:
            rows[label] = {"budget": budget, "error": "infeasible"}

    print(f"deep chain: {args.layers} x dense {args.width}->{args.width} + tanh, batch {args.batch}, "
          f"float32; one step = {step_flops / 1e9:.1f} GFLOP")
    header = f"{'schedule':<36}{'budget MB':>10}{'peak MB':>9}{'pred MB':>9}{'peak<=budget':>13}" \
             f"{'recompute':>10}{'step s':>8}{'x store-all':>12}{'compile s':>10}  tier/status"
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
              f"{row['step_s'] / base['step_s']:12.2f}{row['compile_s']:10.1f}  "
              f"{row['tier']}/{row['status']}")


if __name__ == "__main__":
    main()
