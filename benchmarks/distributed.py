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

Every run also times, in turn with the step, the gradient of half the
batch alone, without any collective: in one process, what 128 rows cost
(a step does not halve with its batch: the weights' traffic and the
gradients' writes stay); in each of two processes at once, how much they
slow each other (memory bandwidth, caches). One process's 256-row step over
that is the best speed-up two processes can reach. With two processes it
also times the allreduce of W1's gradients (six arrays, 2.7 MB): its cost
inside the step (step minus compute alone; the step packs the gradients in
one buffer and reduces it with one ``MPI_Allreduce`` in place),
``jit(psum)`` of the arrays alone, and mpi4py's ``Allreduce`` of the same
bytes, per array and of one buffer already holding them all, in place.

Every figure is the median (``--statistic min``: the fastest) of
``--steps`` timed calls, each after a barrier, taken by process 0, then
the median over the rounds. The
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


_STATISTICS = {"median": np.median, "min": np.min}


def _seconds(functions: dict, steps: int, warmup: int, barrier, statistic: str) -> dict:
    """Wall time of each function (the ``statistic`` of its calls), the functions called in turn ``steps`` times.

    Called in turn, they see the load drift alike. Every call starts after a
    barrier, so the processes of the job start it together.
    """
    times = {name: [] for name in functions}
    cpu = {name: [] for name in functions}
    for _ in range(warmup):
        for function in functions.values():
            function()
    for _ in range(steps):
        for name, function in functions.items():
            barrier()
            start, start_cpu = time.perf_counter(), time.process_time()
            function()
            times[name].append(time.perf_counter() - start)
            cpu[name].append(time.process_time() - start_cpu)
    result = {f"{name}_s": float(_STATISTICS[statistic](t)) for name, t in times.items()}
    result.update({f"{name}_cpu_s": float(_STATISTICS[statistic](t)) for name, t in cpu.items()})
    return result


def worker(steps: int, warmup: int, statistic: str) -> None:
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
    # Half of the global batch, no collective: with one process, what the step costs on fewer
    # rows alone; with two (both running it at once), how much they slow each other's compute.
    local = ta.jit(value_and_grad)
    half = [a[:GLOBAL_BATCH // 2] for a in (x, labels)] if count == 1 else dist.shard((x, labels))
    timed["local"] = lambda: local(params, *half)
    if count > 1:
        leaves = ta.tree_util.tree_leaves(grads)
        result["allreduce_bytes"], result["allreduce_arrays"] = sum(g.nbytes for g in leaves), len(leaves)
        psum = ta.jit(dist.psum)
        received = [np.empty_like(g) for g in leaves]
        fused = np.concatenate([g.ravel() for g in leaves])

        def mpi4py_allreduce():
            for g, out in zip(leaves, received):
                comm.Allreduce(g, out, op=MPI.SUM)

        timed["psum"], timed["mpi4py"] = lambda: psum(grads), mpi4py_allreduce
        # mpi4py at its best: one in-place Allreduce of one buffer already holding every gradient.
        timed["mpi4py_fused"] = lambda: comm.Allreduce(MPI.IN_PLACE, fused, op=MPI.SUM)
    result.update(_seconds(timed, steps, warmup, comm.Barrier, statistic))
    if count > 1:
        for g, out in zip(leaves, received):
            comm.Allreduce(g, out, op=MPI.SUM)
        for ours, theirs in zip(ta.tree_util.tree_leaves(psum(grads)), received):  # the same sums
            np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    if index == 0:
        print(_RESULT + json.dumps(result), flush=True)


def launch(processes: int, steps: int, warmup: int, statistic: str) -> dict:
    """Run :func:`worker` in ``processes`` processes of an MPI job on this machine; return process 0's figures."""
    from tensorad import distributed as dist

    env = dict(os.environ, TENSORAD_NUM_THREADS="1", OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    command = [dist.mpiexec(), "-launcher", "fork", "-iface", "lo", "-n", str(processes), sys.executable,
               __file__, "--worker", "--steps", str(steps), "--warmup", str(warmup), "--statistic", statistic]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    lines = [line for line in done.stdout.splitlines() if line.startswith(_RESULT)]
    if done.returncode or not lines:
        raise SystemExit(f"{' '.join(command)} failed (exit {done.returncode}):\n{done.stdout}\n{done.stderr}")
    return json.loads(lines[0][len(_RESULT):])


def main(steps: int = 20, warmup: int = 3, rounds: int = 3, statistic: str = "median") -> dict:
    """Run both configurations ``rounds`` times, in turn, and print the table; return the figures.

    Each figure is the median over the rounds of each run's ``statistic`` of its calls.
    """
    runs = {1: [], 2: []}
    for _ in range(rounds):
        for n in runs:
            runs[n].append(launch(n, steps, warmup, statistic))
    one, two = ({key: float(np.median([r[key] for r in group])) for key in group[0] if key.endswith("_s")}
                for group in runs.values())
    print(f"W1 (MLP 784-512-512-10, float32), data parallel, global batch {GLOBAL_BATCH}, "
          f"1 thread per process; {statistic} of {steps} steps, median of {rounds} runs")
    print(f"{'processes':>9} {'step ms':>8} {'samples/s':>10} {'speed-up':>9} {'compile s':>10}")
    for n, run in ((1, one), (2, two)):
        print(f"{n:>9} {1e3 * run['step_s']:8.2f} {GLOBAL_BATCH / run['step_s']:10.0f} "
              f"{one['step_s'] / run['step_s']:8.2f}x {run['compile_s']:10.1f}")
    speedup = one["step_s"] / two["step_s"]
    print(f"two processes against one: {speedup:.2f}x (target >= 1.8x)")
    h = GLOBAL_BATCH // 2
    print(f"compute without a collective, {h} rows: one process alone {1e3 * one['local_s']:.2f} ms, each of two "
          f"processes at once {1e3 * two['local_s']:.2f} ms (half of one process's {GLOBAL_BATCH}-row step: "
          f"{1e3 * one['step_s'] / 2:.2f} ms); the best two processes can do without any communication: "
          f"{one['step_s'] / two['local_s']:.2f}x")
    print(f"CPU time of one process (what other programs' load does not add to): {GLOBAL_BATCH}-row step "
          f"{1e3 * one['step_cpu_s']:.2f} ms, {h} rows {1e3 * one['local_cpu_s']:.2f} ms: compute alone, with idle "
          f"cores and no communication, scales {one['step_cpu_s'] / one['local_cpu_s']:.2f}x")
    sample = runs[2][0]
    in_step = two["step_s"] - two["local_s"]
    print(f"allreduce of the gradients ({sample['allreduce_bytes'] / 1e6:.2f} MB in {sample['allreduce_arrays']} "
          f"arrays), 2 processes: in the step (step - compute alone) {1e3 * in_step:.3f} ms, "
          f"{100 * in_step / two['step_s']:.0f}% of the step; jit(psum) of the arrays alone "
          f"{1e3 * two['psum_s']:.3f} ms (packing them, one MPI_Allreduce in place, copying the results out); "
          f"mpi4py: Allreduce per array {1e3 * two['mpi4py_s']:.3f} ms, one in-place Allreduce of one buffer "
          f"holding them all {1e3 * two['mpi4py_fused_s']:.3f} ms (ratios to tensorad's in-step cost "
          f"{in_step / two['mpi4py_s']:.2f}, {in_step / two['mpi4py_fused_s']:.2f}); in CPU time: in the step "
          f"{1e3 * (two['step_cpu_s'] - two['local_cpu_s']):.3f} ms, jit(psum) {1e3 * two['psum_cpu_s']:.3f} ms, "
          f"mpi4py's one Allreduce {1e3 * two['mpi4py_fused_cpu_s']:.3f} ms")
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    print(f"machine: {os.cpu_count()} cores, load average {load} (1, 5, 15 min; before this run's own load)")
    return {"one": one, "two": two, "speedup": speedup, "allreduce_in_step_s": in_step,
            "compute_bound": one["step_cpu_s"] / one["local_cpu_s"],
            "allreduce_ratio": in_step / two["mpi4py_s"], "fused_allreduce_ratio": in_step / two["mpi4py_fused_s"]}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=20, help="timed calls per figure")
    parser.add_argument("--statistic", choices=sorted(_STATISTICS), default="median",
                        help="of each figure's calls: min is the closest to idle cores on a loaded machine")
    parser.add_argument("--warmup", type=int, default=3, help="untimed calls after compiling")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each configuration, in turn")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)  # a process of the MPI job
    args = parser.parse_args()
    if args.worker:
        worker(args.steps, args.warmup, args.statistic)
    else:
        main(args.steps, args.warmup, args.rounds, args.statistic)
