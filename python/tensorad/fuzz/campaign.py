"""A fuzzing campaign: generate, run in workers, count by class, shrink, write reproducers.

Examples
--------
>>> summary = run_campaign(programs=2, seed=0, ir=2, jobs=1, out_dir=None)
>>> sorted(summary["counts"]) == sorted(CLASSES)
True
"""

from __future__ import annotations

import argparse
import json
import os
import time

from .programs import generate
from .runner import FAILURES, WorkerPool, shrink, signature, write_reproducer

CLASSES = ("ok", "refusal", "death", "wrong", "internal", "invalid")


def make_tasks(programs: int, seed: int, ir: int) -> list:
    """The campaign's tasks: ``programs`` Python programs, then ``ir`` IR modules, from ``seed`` on."""
    tasks = [{"kind": "py", "program": generate(seed + i)} for i in range(programs)]
    if ir:
        from .ir import generate_ir
        tasks += [{"kind": "ir", "program": generate_ir(seed + i)} for i in range(ir)]
    return tasks


def run_campaign(programs: int, seed: int, ir: int = 0, jobs: int = 1, out_dir: str | None = "build/fuzz",
                 shrink_runs: int = 60, log=lambda line: None) -> dict:
    """Run a campaign; return ``{"counts", "ir_counts", "findings", "seconds"}``.

    ``findings`` has one entry per distinct failure signature (refusals
    included): the class, the check, the message, how many tasks hit it, and
    the minimized reproducer's path when ``out_dir`` is given.
    """
    started = time.monotonic()
    tasks = make_tasks(programs, seed, ir)
    counts = {"py": dict.fromkeys(CLASSES, 0), "ir": dict.fromkeys(CLASSES, 0)}
    groups = {}

    def on_result(i, result):
        counts[tasks[i]["kind"]][result["status"]] += 1
        if result["status"] != "ok":
            key = (tasks[i]["kind"], signature(result, tasks[i]["program"]))
            groups.setdefault(key, []).append(i)
            log(f"{tasks[i]['kind']} seed {tasks[i]['program']['seed']}: {result['status']} "
                f"({result.get('check')}) {result['message'].splitlines()[0][:160] if result['message'] else ''}")

    with WorkerPool(jobs) as pool:
        results = pool.run_all(tasks, on_result)
        run_seconds = time.monotonic() - started
        findings, seen = [], set()
        for (kind, _), members in sorted(groups.items(), key=lambda kv: kv[1][0]):
            first = members[0]
            task, result = tasks[first], results[first]
            # A hang costs a whole timeout per try: it is reported as found.
            if out_dir and result["status"] in FAILURES + ("refusal",) and shrink_runs \
                    and not result["message"].startswith("hang"):
                task, result, _ = shrink(pool, task, result, shrink_runs)
            final = signature(result, task["program"])
            if (kind, final) in seen:  # two raw signatures that shrink to one bug
                next(f for f in findings if f["signature"] == final)["count"] += len(members)
                continue
            seen.add((kind, final))
            finding = {"kind": kind, "status": result["status"], "check": result.get("check"),
                       "message": result["message"][:600], "signature": final, "count": len(members),
                       "seeds": [tasks[m]["program"]["seed"] for m in members[:10]]}
            if out_dir and result["status"] != "invalid":
                finding["reproducer"] = write_reproducer(out_dir, task, result)
            findings.append(finding)
    summary = {"counts": counts["py"], "ir_counts": counts["ir"], "findings": findings,
               "seconds": round(time.monotonic() - started, 1), "run_seconds": round(run_seconds, 1)}
    if out_dir:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
    return summary


def format_summary(summary: dict) -> str:
    """The counts by class and one line per distinct finding."""
    lines = [f"python programs: {summary['counts']}", f"IR modules:      {summary['ir_counts']}",
             f"time: {summary['seconds']} s ({summary['run_seconds']} s running, the rest shrinking)", f"distinct findings: {len(summary['findings'])}"]
    for f in summary["findings"]:
        lines.append(f"  [{f['kind']} {f['status']} x{f['count']}] {f['signature'][:200]}")
        if f.get("reproducer"):
            lines.append(f"      {f['reproducer']}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tensorad.fuzz", description=__doc__)
    parser.add_argument("--programs", type=int, default=100, help="random Python programs to run")
    parser.add_argument("--seed", type=int, default=0, help="first seed (program i uses seed + i)")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2), help="worker processes")
    parser.add_argument("--ir", type=int, default=0, help="random IR modules to run")
    parser.add_argument("--out", default="build/fuzz", help="folder of the reproducers and summary.json")
    parser.add_argument("--shrink-runs", type=int, default=60, help="runs allowed to shrink one failure")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every non-ok result")
    args = parser.parse_args(argv)
    summary = run_campaign(args.programs, args.seed, args.ir, args.jobs, args.out, args.shrink_runs,
                           log=print if args.verbose else (lambda line: None))
    print(format_summary(summary))
    failed = sum(summary[c][k] for c in ("counts", "ir_counts") for k in FAILURES)
    return 1 if failed else 0
