"""Run the workloads in every framework, time them, print the table, write JSON and a chart.

Each framework runs in a fresh Python process of its own, one after the
other, so no framework's thread pool competes with another's or holds memory
while another is measured; the parent process compares their outputs (all
must agree with tensorad's) and writes the report. Each step is called
once (its time is the compile time for the jitted frameworks: tracing,
compiling and one run; every framework's modules are imported before,
:func:`peers.prepare`), then ``warmup`` more times (and more until
``MIN_WARMUP_S`` has passed), then timed ``reps`` times; the table shows
the median. The ratio column is
tensorad's median over the fastest peer's, and the target column checks the
issue's goal for that workload against the named peer.

Examples
--------
>>> first, times, out = measure(lambda: [1.0], reps=3, warmup=1, min_warmup_s=0.0)
>>> len(times), out
(3, [1.0])
"""

from __future__ import annotations

import json
import os
import pickle
import statistics
import subprocess
import sys
import time
import traceback
from dataclasses import asdict, dataclass, field
from typing import Callable, Optional

import numpy as np

from . import machine, peers
from .workloads import WORKLOADS, Workload

SEED = 0
# Warm-up lasts at least this long, whatever the count asks: a fresh process's threads sometimes run at half
# speed for their first ~0.1-0.2 s on this kind of machine (seen in JAX's W1 as in tensorad's: 4.7 ms for ten
# calls, then 2.8 ms), which five quick samples would report.
MIN_WARMUP_S = 0.5
# Frameworks whose first call traces and compiles: their first-call time is a compile time.
COMPILED = ("tensorad", "jax", "torch.compile")


@dataclass
class Result:
    """One framework on one workload."""

    framework: str
    status: str = "ok"
    first_call_s: Optional[float] = None
    times_s: list = field(default_factory=list)
    median_s: Optional[float] = None
    max_rel_diff: Optional[float] = None  # against tensorad's outputs (the first that ran)


def measure(step: Callable[[], list], reps: int, warmup: int, inner: int = 1,
            min_warmup_s: float = MIN_WARMUP_S) -> tuple:
    """``(first call seconds, per-call seconds of each timed sample, outputs of the first call)``.

    After the first call, ``warmup`` more untimed calls, and more until
    ``min_warmup_s`` seconds have passed since the first call ended.
    """
    start = time.perf_counter()
    outputs = step()
    first = time.perf_counter() - start
    warm_from, done = time.perf_counter(), 0
    while done < warmup or time.perf_counter() - warm_from < min_warmup_s:
        step()
        done += 1
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(inner):
            step()
        times.append((time.perf_counter() - start) / inner)
    return first, times, outputs


def _as_numpy(values) -> list:
    out = []
    for v in values:
        if hasattr(v, "detach"):  # a torch tensor
            v = v.detach().numpy()
        out.append(np.asarray(v, dtype=np.float64))
    return out


def max_rel_diff(got: list, expected: list) -> float:
    """Largest ``max|got - expected| / max|expected|`` over the outputs.

    Examples
    --------
    >>> max_rel_diff([np.array([1.0, 2.0])], [np.array([1.0, 4.0])])
    0.5
    """
    worst = 0.0
    for a, b in zip(_as_numpy(got), _as_numpy(expected)):
        scale = max(float(np.max(np.abs(b))) if b.size else 0.0, 1e-30)
        worst = max(worst, float(np.max(np.abs(a - b))) / scale if a.size else 0.0)
    return worst


def run_framework(name: str, keys: list, reps: int, warmup: int, tiny: bool,
                  log: Callable[[str], None] = print) -> dict:
    """Measure every workload of ``keys`` in framework ``name``.

    Returns ``{"status": ..., "results": {key: Result}, "outputs": {key: outputs of the first call}}``.
    """
    status = peers.available([name])[name]
    report = {"status": status, "results": {}, "outputs": {}}
    if peers.is_missing(status):
        return report
    peers.prepare(name)
    for cls in WORKLOADS:
        workload = cls(tiny=tiny)
        if workload.key not in keys:
            continue
        result = report["results"][workload.key] = Result(name)
        if name not in workload.frameworks():
            result.status = "not applicable"
            continue
        data = workload.inputs(np.random.default_rng(SEED))
        try:
            step = workload.build(name, data)
            result.first_call_s, result.times_s, outputs = measure(step, reps, warmup, workload.inner,
                                                                   0.0 if tiny else MIN_WARMUP_S)
        except Exception as err:  # a peer failing (torch.compile, say) is reported, not fatal
            first_line = (str(err).strip().splitlines() or [""])[0]
            result.status = f"failed: {type(err).__name__}: {first_line}"
            log(f"{workload.key} {name}: {result.status}")
            if os.environ.get("BENCHMARKS_TRACEBACK"):
                traceback.print_exc()
            continue
        result.median_s = statistics.median(result.times_s)
        report["outputs"][workload.key] = _as_numpy(outputs)
        log(f"{workload.key} {name}: median {_format_time(result.median_s, workload.unit)}"
            + (f", first call {result.first_call_s:.2f} s" if name in COMPILED else ""))
    return report


def _in_subprocess(name: str, keys: list, reps: int, warmup: int, tiny: bool, out_dir: str) -> dict:
    """:func:`run_framework` in a fresh Python, so no framework's threads compete with another's."""
    path = os.path.join(out_dir, f".worker-{name}.pickle")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    command = [sys.executable, "-m", "benchmarks", "--worker", name, "--only", ",".join(keys),
               "--reps", str(reps), "--warmup", str(warmup), "--out", path] + (["--tiny"] if tiny else [])
    finished = subprocess.run(command, env=env)
    if finished.returncode != 0 or not os.path.exists(path):
        return {"status": f"failed: worker exited with status {finished.returncode}", "results": {},
                "outputs": {}}
    with open(path, "rb") as f:
        report = pickle.load(f)
    os.remove(path)
    return report


def write_worker_report(report: dict, path: str) -> None:
    """Hand a worker's :func:`run_framework` report to the parent process."""
    with open(path, "wb") as f:
        pickle.dump(report, f)


def _format_time(seconds: Optional[float], unit: str) -> str:
    if seconds is None:
        return "-"
    return f"{seconds * 1e6:.1f} us" if unit == "us" else f"{seconds * 1e3:.2f} ms"


def fastest_peer(results: dict) -> Optional[str]:
    """The peer with the smallest median, None when no peer ran."""
    timed = [(r.median_s, name) for name, r in results.items()
             if name != "tensorad" and r.median_s is not None]
    return min(timed)[1] if timed else None


def summarize(workload: Workload, results: dict) -> dict:
    """Ratios and the target verdict of one workload."""
    ours = results["tensorad"].median_s
    best = fastest_peer(results)
    summary = {"key": workload.key, "title": workload.title, "unit": workload.unit,
               "fastest_peer": best, "ratio_to_fastest_peer": None,
               "ratios": {}, "target": None, "target_met": None}
    if ours is None:
        return summary
    summary["ratios"] = {name: ours / r.median_s for name, r in results.items()
                         if name != "tensorad" and r.median_s}
    if best is not None:
        summary["ratio_to_fastest_peer"] = ours / results[best].median_s
    if workload.target is not None:
        peer, factor = workload.target
        summary["target"] = f"<= {factor:.2f}x {peer}"
        if peer in summary["ratios"]:
            summary["target_met"] = summary["ratios"][peer] <= factor
    flops = workload.flops()
    if flops:
        summary["gflops"] = {name: flops / r.median_s / 1e9 for name, r in results.items() if r.median_s}
    return summary


def compile_summary(workloads_results: dict) -> Optional[dict]:
    """The issue's compile-time goal: W1's gradient compiles in at most 2x JAX's time."""
    w1 = workloads_results.get("W1")
    ours, jax = (w1["results"].get(name) if w1 else None for name in ("tensorad", "jax"))
    if ours is None or jax is None or ours.first_call_s is None or jax.first_call_s is None:
        return None  # a run without JAX (--peers numpy) has nothing to compare with
    ratio = ours.first_call_s / jax.first_call_s
    return {"ratio_to_jax": ratio, "target": "<= 2.00x jax", "target_met": ratio <= 2.0}


def format_table(all_results: dict, frameworks: list, peak: machine.Peak) -> str:
    """The table: median per framework, compile times, ratio to the fastest peer, target."""
    head = ["workload"] + frameworks + ["tensorad/fastest", "target"]
    rows = [head]
    for key, entry in all_results.items():
        results, summary = entry["results"], entry["summary"]
        unit = summary["unit"]
        row = [key]
        for name in frameworks:
            r = results[name]
            if r.median_s is None:
                cell = "missing" if peers.is_missing(r.status) else ("n/a" if r.status == "not applicable" else "failed")
            else:
                cell = _format_time(r.median_s, unit)
                if name in COMPILED and r.first_call_s is not None:
                    cell += f" (c {r.first_call_s:.1f}s)"
            row.append(cell)
        ratio = summary["ratio_to_fastest_peer"]
        row.append("-" if ratio is None else f"{ratio:.2f}x ({summary['fastest_peer']})")
        met = summary["target_met"]
        row.append("-" if summary["target"] is None else
                   f"{summary['target']} {'met' if met else ('MISSED' if met is False else '?')}")
        rows.append(row)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)) for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    for key, entry in all_results.items():
        ran = [(name, r.max_rel_diff) for name, r in entry["results"].items() if r.max_rel_diff is not None]
        if len(ran) > 1:
            diffs = ", ".join(f"{name} {diff:.1e}" for name, diff in ran[1:])
            lines.append(f"{key} outputs, max relative difference to {ran[0][0]}'s: {diffs}")
    for key, entry in all_results.items():
        gflops = entry["summary"].get("gflops")
        if gflops:
            cells = ", ".join(f"{name} {g:.1f} ({g / peak.gflops:.0%} of peak)" for name, g in gflops.items())
            lines.append(f"{key} GFLOP/s: {cells}")
    lines.append("(c N s): first call, i.e. trace + compile + one run; times are medians.")
    return "\n".join(lines)


def write_chart(all_results: dict, path: str) -> Optional[str]:
    """Write a bar chart of tensorad's time over each peer's, per workload (log scale).

    Returns None when the chart was written, else why not (matplotlib missing).
    """
    try:
        import matplotlib
        import matplotlib.ticker
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        return f"no chart: matplotlib missing ({err})"
    keys = [k for k, e in all_results.items() if e["summary"]["ratios"]]
    names = sorted({p for k in keys for p in all_results[k]["summary"]["ratios"]}, key=peers.PEERS.index)
    fig, ax = plt.subplots(figsize=(1.6 * max(len(keys), 3) + 2, 4.5))
    width = 0.8 / max(len(names), 1)
    for i, name in enumerate(names):
        xs = [j + (i - (len(names) - 1) / 2) * width for j in range(len(keys))]
        ys = [all_results[k]["summary"]["ratios"].get(name, np.nan) for k in keys]
        ax.bar(xs, ys, width, label=f"tensorad / {name}")
    for j, k in enumerate(keys):
        target = all_results[k]["workload"].target
        if target:
            ax.plot([j - 0.45, j + 0.45], [target[1]] * 2, "k--", linewidth=1)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.set_xticks(range(len(keys)), keys)
    ax.set_ylabel("time ratio (below 1: tensorad faster)")
    ax.set_title("tensorad time / peer time per workload (dashed: target)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return None


def run(keys: list, frameworks: list, reps: int, warmup: int, tiny: bool, out_dir: str,
        log: Callable[[str], None] = print) -> dict:
    """Run the suite, one process per framework; write ``results.json`` and ``ratios.png`` into ``out_dir``.

    Returns the report that ``results.json`` holds.
    """
    os.makedirs(out_dir, exist_ok=True)
    peak = machine.peak_gflops()
    log(peak.derivation)
    reports = {}
    for name in frameworks:
        reports[name] = _in_subprocess(name, keys, reps, warmup, tiny, out_dir)
        log(f"{name}: {reports[name]['status']}")
    all_results = {}
    for cls in WORKLOADS:
        workload = cls(tiny=tiny)
        if workload.key not in keys:
            continue
        results = {name: reports[name]["results"].get(workload.key, Result(name, reports[name]["status"]))
                   for name in frameworks}
        outputs = [reports[name]["outputs"].get(workload.key) for name in frameworks]
        reference = next((o for o in outputs if o is not None), None)
        for name, got in zip(frameworks, outputs):
            if got is not None:
                results[name].max_rel_diff = max_rel_diff(got, reference)
        all_results[workload.key] = {"workload": workload, "results": results,
                                     "summary": summarize(workload, results)}
    table = format_table(all_results, frameworks, peak)
    log(table)
    compile_goal = compile_summary(all_results)
    if compile_goal:
        log(f"W1 gradient compile time: {compile_goal['ratio_to_jax']:.2f}x JAX's "
            f"(target {compile_goal['target']}: {'met' if compile_goal['target_met'] else 'MISSED'})")
    report = {"machine": machine.describe(), "frameworks": {n: r["status"] for n, r in reports.items()},
              "reps": reps, "warmup": warmup, "tiny": tiny, "seed": SEED, "threads": _threads(),
              "workloads": {k: {"summary": e["summary"],
                                "results": {n: asdict(r) for n, r in e["results"].items()}}
                            for k, e in all_results.items()},
              "compile_time_w1": compile_goal, "table": table}
    json_path = os.path.join(out_dir, "results.json")
    with open(json_path, "w") as f:
        json.dump(report, f, indent=1)
    chart_path = os.path.join(out_dir, "ratios.png")
    problem = write_chart(all_results, chart_path)
    log(f"wrote {json_path}" + (f"; {problem}" if problem else f" and {chart_path}"))
    return report


def _threads() -> dict:
    from tensorad.passes.lower.host import num_threads
    return {"tensorad": num_threads(), "cores": machine.available_cores()}
