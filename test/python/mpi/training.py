"""Run by test_distributed.py under ``mpiexec -n 2``: data-parallel and tensor-parallel training.

* W1 (benchmarks/workloads.py: MLP 784-512-512-10) trained 10 Adam steps with
  ``data_parallel`` over the processes gives the parameters of the same 10
  steps on the global batch in one process (computed here too, with no
  collective), and every process holds the same parameters;
* with checkpointed layers and a memory budget the data-parallel step
  computes the same;
* ``grad(data_parallel(loss))`` is the gradient on the global batch;
* a tensor-parallel MLP (first layer split by columns, second by rows, the
  partial products added with psum, the input through pvary) has the
  gradients of the whole MLP, to 1e-12 in float64.

Process 0 prints ``ok <name>`` per check; a failed check raises, which ends the job.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from mpi4py import MPI

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import distributed as dist
from tensorad import nn, optim

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the repository, for benchmarks/
from benchmarks.workloads import MLP  # noqa: E402

INDEX, COUNT = dist.process_index(), dist.process_count()
assert COUNT >= 2


def report(name: str, detail: str = "") -> None:
    if INDEX == 0:
        print(f"ok {name} {detail}".rstrip(), flush=True)


def max_error(a, b) -> float:
    return max(float(np.max(np.abs(np.asarray(x, np.float64) - np.asarray(y, np.float64)), initial=0.0))
               for x, y in zip(ta.tree_util.tree_leaves(a), ta.tree_util.tree_leaves(b)))


# --- W1: data parallel = one process on the global batch ------------------------------------

workload = MLP()
loss = MLP.loss_tensorad
opt = optim.sgd(0.1, momentum=0.9)


def training_step(value_and_grad, **jit_options):
    @ta.jit(**jit_options)
    def step(params, state, x, labels):
        value, grads = value_and_grad(params, x, labels)
        updates, state = opt.update(grads, state, params)
        return optim.apply_updates(params, updates), state, value

    return step


def train(step, params, steps: int = 10) -> tuple:
    state, losses = opt.init(params), []
    for i in range(steps):
        # The same global batch on every process (same seed); data_parallel takes this process's half.
        x, labels = workload.inputs(np.random.default_rng(100 + i))["args"]
        params, state, value = step(params, state, x, labels)
        losses.append(float(value))
    return params, losses


initial = workload.inputs(np.random.default_rng(0))["params"]
parallel, parallel_losses = train(training_step(dist.data_parallel(ta.value_and_grad(loss), batch_argnums=(1, 2))),
                                  initial)
alone, alone_losses = train(training_step(ta.value_and_grad(loss)), initial)
error = max_error(parallel, alone)
assert error < 2e-6, f"W1 parameters after 10 data-parallel steps differ from one process's by {error}"
assert np.allclose(parallel_losses, alone_losses, rtol=1e-5), (parallel_losses, alone_losses)
assert max_error(parallel, initial) > 1e-3  # it did train
report("W1 data parallel == one process on the global batch", f"(max |difference| {error:.1e})")
everyones = MPI.COMM_WORLD.allgather(parallel)
assert all(max_error(p, parallel) == 0.0 for p in everyones), "processes hold different parameters"
report("W1 parameters replicated")


# --- checkpointing and a memory budget compose with it ------------------------------------

def checkpointed_loss(params, x, labels):
    h = x
    for i in range(3):
        layer = ta.checkpoint(lambda h, w, b: nn.relu(h @ w + b) if i < 2 else h @ w + b)
        h = layer(h, params[f"w{i:02d}"], params[f"b{i:02d}"])
    return nn.cross_entropy(h, labels)


small = MLP(tiny=True)
params = small.inputs(np.random.default_rng(1))["params"]
x, labels = small.inputs(np.random.default_rng(2))["args"]
plain = ta.jit(dist.data_parallel(ta.value_and_grad(loss), batch_argnums=(1, 2)))
reference = plain(params, x, labels)
peak = ta.last_call_stats().peak_live_bytes
budgeted = ta.jit(dist.data_parallel(ta.value_and_grad(checkpointed_loss), batch_argnums=(1, 2)),
                  memory_budget=2 * peak)
got = budgeted(params, x, labels)
assert max_error(got, reference) < 1e-6, max_error(got, reference)
assert max_error(got, ta.value_and_grad(loss)(params, x, labels)) < 1e-6
report("checkpoint and memory_budget with data_parallel")
# Differentiating the data-parallel loss itself: pvary on the parameters adds up the processes' shares.
got = ta.jit(ta.value_and_grad(dist.data_parallel(loss, batch_argnums=(1, 2))))(params, x, labels)
assert max_error(got, reference) < 1e-6, max_error(got, reference)
report("grad of data_parallel(loss)")


# --- tensor parallelism: a sharded MLP layer ---------------------------------------------------

rng = np.random.default_rng(3)  # the same full arrays on every process
D, H, O, B = 6, 4 * COUNT, 3, 5
full = {"w1": rng.standard_normal((D, H)), "b1": rng.standard_normal(H),
        "w2": rng.standard_normal((H, O)), "b2": rng.standard_normal(O)}
x, y = rng.standard_normal((B, D)), rng.standard_normal((B, O))


def mlp_loss(p, x, y):
    h = tnp.tanh(x @ p["w1"] + p["b1"])
    return tnp.mean((h @ p["w2"] + p["b2"] - y) ** 2)


def sharded_mlp_loss(p, x, y):
    x = dist.pvary(x)  # each process uses x its own way: x's gradient adds up every process's share
    h = tnp.tanh(x @ p["w1"] + p["b1"])  # column-parallel: this process's H / COUNT hidden units
    out = dist.psum(h @ p["w2"]) + p["b2"]  # row-parallel: partial products added over processes
    return tnp.mean((out - y) ** 2)


mine = {"w1": dist.shard(full["w1"], axis=1), "b1": dist.shard(full["b1"]), "w2": dist.shard(full["w2"]),
        "b2": full["b2"]}
value, (grads, grad_x) = ta.jit(ta.value_and_grad(sharded_mlp_loss, argnums=(0, 1)))(mine, x, y)
want_value, (want, want_x) = ta.value_and_grad(mlp_loss, argnums=(0, 1))(full, x, y)
assert abs(float(value) - float(want_value)) < 1e-12
errors = {"w1": max_error(grads["w1"], dist.shard(want["w1"], axis=1)),
          "b1": max_error(grads["b1"], dist.shard(want["b1"])),
          "w2": max_error(grads["w2"], dist.shard(want["w2"])),
          "b2": max_error(grads["b2"], want["b2"]),  # used after the psum: the same on every process
          "x": max_error(grad_x, want_x),
          # all_gather puts the column blocks back together.
          "gathered w1": max_error(dist.all_gather(grads["w1"], axis=1, tiled=True), want["w1"])}
assert max(errors.values()) < 1e-12, errors
report("tensor-parallel MLP gradients == one process's", f"(max |difference| {max(errors.values()):.1e})")


# --- tensor parallelism by the compiler: the one-process MLP plus sharding marks -------------

def annotated_mlp_loss(p, x, y):
    # Megatron's split, said by marks only: tad-partition adds the pvary, slices and psum.
    p = dict(p, w1=dist.sharded(p["w1"], axis=1), b1=dist.sharded(p["b1"]), w2=dist.sharded(p["w2"], axis=0))
    return mlp_loss(p, x, y)


annotated = ta.jit(ta.value_and_grad(annotated_mlp_loss, argnums=(0, 1)))
value, (grads, grad_x) = annotated(full, x, y)  # every process passes the whole arrays
errors = {k: max_error(grads[k], want[k]) for k in full}
errors["x"], errors["value"] = max_error(grad_x, want_x), abs(float(value) - float(want_value))
assert max(errors.values()) < 1e-12, errors
text = annotated.lower(full, x, y).as_text("differentiated")
shapes = {line.rsplit("-> ", 1)[1] for line in text.splitlines() if '"tad.dot_general"' in line}
assert f"tensor<{B}x{H // COUNT}xf64>" in shapes and f"tensor<{B}x{H}xf64>" not in shapes, shapes
report("sharded MLP partitioned by the compiler: gradients == one process's",
       f"(max |difference| {max(errors.values()):.1e})")
