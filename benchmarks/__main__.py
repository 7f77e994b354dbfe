"""``python -m benchmarks``: run the suite and write ``results.json`` and ``ratios.png``.

Examples
--------
>>> args = parse_args(["--quick", "--only", "W1,dispatch"])
>>> args.reps, args.only
(5, ['W1', 'dispatch'])
"""

from __future__ import annotations

import argparse
import sys

from .peers import FRAMEWORKS, PEERS
from .workloads import WORKLOADS

KEYS = [cls.key for cls in WORKLOADS]


def _names(text: str, known, what: str) -> list:
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown {what} {', '.join(unknown)}; choose from {', '.join(known)}")
    return names


def parse_args(argv) -> argparse.Namespace:
    """Parse the command line (``--quick`` means 5 timed runs after 1 warm-up)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("--only", type=lambda t: _names(t, KEYS, "workload"), default=KEYS,
                        help=f"comma-separated workloads (default: all of {','.join(KEYS)})")
    parser.add_argument("--peers", type=lambda t: _names(t, PEERS, "peer"), default=list(PEERS),
                        help=f"comma-separated peers (default: {','.join(PEERS)})")
    parser.add_argument("--reps", type=int, default=None, help="timed runs per measurement (default 20)")
    parser.add_argument("--warmup", type=int, default=None, help="untimed runs after the first (default 3)")
    parser.add_argument("--quick", action="store_true", help="5 timed runs after 1 warm-up")
    parser.add_argument("--tiny", action="store_true", help="tiny sizes (checks that the suite runs)")
    parser.add_argument("--out", default="build/benchmarks", help="folder for results.json and ratios.png")
    parser.add_argument("--worker", choices=FRAMEWORKS, help=argparse.SUPPRESS)  # one framework, --out a file
    args = parser.parse_args(argv)
    args.reps = args.reps or (5 if args.quick else 20)
    args.warmup = args.warmup if args.warmup is not None else (1 if args.quick else 3)
    return args


def main(argv=None) -> dict:
    """Run the suite as the command line asks; return the report written to ``results.json``."""
    from .suite import run, run_framework, write_worker_report
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.worker:
        report = run_framework(args.worker, args.only, args.reps, args.warmup, args.tiny)
        write_worker_report(report, args.out)
        return report
    frameworks = [FRAMEWORKS[0]] + [p for p in PEERS if p in args.peers]
    return run(args.only, frameworks, args.reps, args.warmup, args.tiny, args.out)


if __name__ == "__main__":
    main()
