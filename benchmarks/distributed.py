"""Data-parallel scaling of W1 over MPI processes, and the cost of its gradient allreduce.

Run ``python benchmarks/distributed.py`` (after ``pip install -e ".[distributed]"``).
It starts itself with the mpich wheel's ``mpiexec`` on this machine, as one
process and as two processes in turn (``--rounds`` times each), each process
with one thread (``TENSORAD_NUM_THREADS=1``: compiled code then runs no
thread pool). Every run times the data-parallel
W1 step (MLP 784-512-512-10, cross-entropy, float32, the workload of
``benchmarks/workloads.py``) on a global batch of 256:
``jit(data_parallel(value_and_grad(loss)))``, each process computing the
gradient of its 256 / N rows and the gradients averaged by ``tad.psum``.
It prints the throughput of each run and the speed-up (the target is 1.8x
with two processes, on a machine with two idle cores).

With two processes it also times, in turn with the step: one process's
half of the batch alone (no allreduce: how much the processes slow each
other's compute), and the allreduce of W1's gradients alone (six arrays,
2.7 MB): tensorad's compiled ``psum`` of the gradient pytree against
mpi4py's ``Allreduce`` of the same arrays (same bytes, same number of calls,
buffers allocated beforehand).

Every figure is the median over ``--steps`` timed calls, each after a
barrier, taken by process 0, then the median over the rounds. The
machine's load is printed with them: other programs on its cores slow the
two-process run most (a process waiting in a collective polls its core).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
GLOBAL_BATCH = 256
_RESULT = "RESULT "


def _median_seconds(functions: dict, steps: int, warmup: int, barrier) -> dict:
    """Median wall time of each function, the functions called in turn ``steps`` times (load drifts alike).

    Every call starts after a barrier, so the processes of the job start it together.
    """
    times = {name: [] for name in functions}
    for _ in range(warmup):
        for function in functions.values():
            function()
    for _ in range(steps):
        for name, function in functions.items():
            barrier()
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return {name: float(np.median(t)) for name, t in times.items()}


def worker(steps: int, warmup: int) -> None:
    """One process of the job: time the W1 step, and with several processes the allreduces."""
    sys.path.insert(0, str(ROOT))
    from mpi4py import MPI

    import tensorad as ta
    from benchmarks.workloads import MLP
    from tensorad import distributed as dist

    comm = MPI.COMM_WORLD
    index, count = dist.process_index(), dist.process_count()
    workload = MLP()
    workload.batch = GLOBAL_BATCH
    data = workload.inputs(np.random.default_rng(0))  # the same on every process
    params, (x, labels) = data["params"], data["args"]
    value_and_grad = ta.value_and_grad(MLP.loss_tensorad)
    step = ta.jit(dist.data_parallel(value_and_grad, batch_argnums=(1, 2)))
    started = time.perf_counter()
    _, grads = step(params, x, labels)
    result = {"processes": count, "threads": os.environ.get("TENSORAD_NUM_THREADS"),
              "compile_s": time.perf_counter() - started}
    timed = {"step": lambda: step(params, x, labels)}
    if count > 1:
        # This process's share alone, no collective: how much the processes slow each other's compute.
        local = ta.jit(value_and_grad)
        mine = dist.shard((x, labels))
        timed["local"] = lambda: local(params, *mine)
        leaves = ta.tree_util.tree_leaves(grads)
        result["allreduce_bytes"], result["allreduce_arrays"] = sum(g.nbytes for g in leaves), len(leaves)
        psum = ta.jit(dist.psum)
        received = [np.empty_like(g) for g in leaves]

        def mpi4py_allreduce():
            for g, out in zip(leaves, received):
                comm.Allreduce(g, out, op=MPI.SUM)

        timed["psum"], timed["mpi4py"] = lambda: psum(grads), mpi4py_allreduce
    result.update({f"{name}_s": t for name, t in _median_seconds(timed, steps, warmup, comm.Barrier).items()})
    if count > 1:
        for ours, theirs in zip(ta.tree_util.tree_leaves(psum(grads)), received):  # the same sums
            np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    if index == 0:
        print(_RESULT + json.dumps(result), flush=True)


def launch(processes: int, steps: int, warmup: int) -> dict:
    """Run :func:`worker` in ``processes`` processes of an MPI job on this machine; return process 0's figures."""
    from tensorad import distributed as dist

    env = dict(os.environ, TENSORAD_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    command = [dist.mpiexec(), "-launcher", "fork", "-iface", "lo", "-n", str(processes), sys.executable,
               __file__, "--worker", "--steps", str(steps), "--warmup", str(warmup)]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith(_RESULT)]
    if done.returncode or not lines:
        raise SystemExit(f"{' '.join(command)} failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return json.loads(lines[0][len(_RESULT):])


def main(steps: int = 20, warmup: int = 3, rounds: int = 3) -> dict:
    """Run both configurations ``rounds`` times, in turn, and print the table; return the figures.

    Each figure is the median over the rounds of the runs' medians.
    """
    runs = {1: [], 2: []}
    for _ in range(rounds):
        for n in runs:
            runs[n].append(launch(n, steps, warmup))
    one, two = ({key: float(np.median([r[key] for r in group])) for key in group[0] if key.endswith("_s")}
                for group in runs.values())
    print(f"W1 (MLP 784-512-512-10, float32), data parallel, global batch {GLOBAL_BATCH}, "
          f"1 thread per process; medians of {steps} steps, of {rounds} runs each")
    print(f"{'processes':>9} {'step ms':>8} {'samples/s':>10} {'speed-up':>9} {'compile s':>10}")
    for n, run in ((1, one), (2, two)):
        print(f"{n:>9} {1e3 * run['step_s']:8.2f} {GLOBAL_BATCH / run['step_s']:10.0f} "
              f"{one['step_s'] / run['step_s']:8.2f}x {run['compile_s']:10.1f}")
    speedup = one["step_s"] / two["step_s"]
    print(f"two processes against one: {speedup:.2f}x (target >= 1.8x); with two processes, one process's "
          f"{GLOBAL_BATCH // 2} rows alone (no allreduce) take {1e3 * two['local_s']:.2f} ms "
          f"(half of one process's step: {1e3 * one['step_s'] / 2:.2f} ms)")
    sample = runs[2][0]
    print(f"allreduce of the gradients ({sample['allreduce_bytes'] / 1e6:.2f} MB in {sample['allreduce_arrays']} "
          f"arrays), 2 processes: tensorad psum {1e3 * two['psum_s']:.3f} ms, mpi4py Allreduce "
          f"{1e3 * two['mpi4py_s']:.3f} ms (ratio {two['psum_s'] / two['mpi4py_s']:.2f}), "
          f"{100 * two['psum_s'] / two['step_s']:.0f}% of the two-process step")
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load} (1, 5, 15 min; before this run's own load)")
    return {"one": one, "two": two, "speedup": speedup, "allreduce_ratio": two["psum_s"] / two["mpi4py_s"]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="timed calls per figure (their median is shown)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls after compiling")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each configuration, in turn")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # a process of the MPI job
    args = parser.parse_args()
    if args.worker:
        worker(args.steps, args.warmup)
    else:
        main(args.steps, args.warmup, args.rounds)
