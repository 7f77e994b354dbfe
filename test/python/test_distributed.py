"""tensorad.distributed: collectives, data and tensor parallelism, alone and under ``mpiexec -n 2``.

Alone (no launcher) every collective is the identity, or adds a dim of size 1,
and MPI is never needed. The MPI tests run the scripts of ``test/python/mpi/``
(named without ``test_``: pytest does not collect them) with the ``mpiexec``
of the installed mpich wheel, on this machine only (the fork launcher, the
loopback interface), one thread per process, each under a timeout so that a
hung collective fails the test instead of stalling CI.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import distributed as dist

ROOT = Path(__file__).resolve().parents[2]
WORKERS = Path(__file__).resolve().parent / "mpi"
TIMEOUT = 120


# --- one process ------------------------------------------------------------------------

def test_one_process_without_a_launcher():
    dist.initialize()
    dist.initialize()  # again: nothing happens
    assert (dist.process_index(), dist.process_count()) == (0, 1)


def test_collectives_of_one_process_are_identities_in_every_mode():
    x = np.arange(6.0).reshape(2, 3)
    tree = {"a": x, "b": np.arange(3, dtype=np.int32)}
    for psum in (dist.psum, ta.jit(dist.psum)):
        got = psum(tree)
        np.testing.assert_array_equal(got["a"], x)
        np.testing.assert_array_equal(got["b"], tree["b"])
        assert got["b"].dtype == np.int32
    np.testing.assert_array_equal(dist.pmean(x), x)
    np.testing.assert_array_equal(dist.pvary(x), x)
    np.testing.assert_allclose(ta.grad(lambda x: (dist.pvary(x) ** 2).sum())(x), 2 * x)
    np.testing.assert_array_equal(dist.all_gather(x), x[None])
    np.testing.assert_array_equal(dist.all_gather(x, axis=-1), x[..., None])
    np.testing.assert_array_equal(dist.all_gather(x, axis=1, tiled=True), x)
    np.testing.assert_array_equal(dist.reduce_scatter(x[None]), x)
    np.testing.assert_array_equal(dist.reduce_scatter(x, scatter_dimension=1, tiled=True), x)
    np.testing.assert_allclose(ta.grad(lambda x: dist.psum(tnp.sin(x)).sum())(x), np.cos(x))
    np.testing.assert_allclose(ta.jvp(lambda x: dist.all_gather(x * x), (x,), (np.ones_like(x),))[1], 2 * x[None])
    np.testing.assert_allclose(ta.jacrev(lambda v: dist.reduce_scatter(v[None] ** 2))(x[0]), np.diag(2 * x[0]))
    np.testing.assert_array_equal(ta.vmap(dist.all_gather)(x), x[:, None])
    for extremum in (dist.pmax, dist.pmin, ta.jit(dist.pmax)):
        np.testing.assert_array_equal(extremum(tree)["b"], tree["b"])
    np.testing.assert_allclose(ta.grad(lambda x: dist.pmin(tnp.sin(x)).sum())(x), np.cos(x))
    np.testing.assert_allclose(ta.jvp(dist.pmax, (x,), (2 * x,))[1], 2 * x)


def test_derivatives_of_the_new_collectives_and_of_a_shard_left_in_a_loop():
    from tensorad import lax
    from tensorad.test_util import check_grads

    x = np.array([0.3, -1.2, 2.0])
    check_grads(lambda x: tnp.sum(dist.pmax(tnp.sin(x)) * dist.pmin(x * x)), (x,), order=2)

    # tad-partition rebuilds function bodies only: a mark inside a loop stays (an identity), and
    # tad-differentiate and tad-batch use its own rules, which mark the (co)tangent alike.
    def looped(w):
        return lax.fori_loop(0, 2, lambda i, c: c + tnp.sum(tnp.sin(dist.sharded(w * c, axis=1))), 1.0)

    w = np.arange(6.0).reshape(2, 3) / 7
    text = ta.jit(ta.grad(looped)).lower(w).as_text("tad")
    assert text.index('"tad.shard"') > text.index("scf.for"), text
    check_grads(looped, (w,))
    np.testing.assert_allclose(ta.vmap(looped)(np.stack([w, 2 * w])), [looped(w), looped(2 * w)], rtol=1e-14)


def test_psum_of_a_pytree_packs_nothing_with_one_process():
    # With several processes, one collective per dtype (mpi/collectives.py checks it); alone, identities.
    tree = [np.ones((2, 3)), np.ones(4), np.ones(2, np.float32), np.ones(3, np.float32), np.ones(1, np.int32)]
    text = ta.jit(dist.psum).lower(tree).as_text("tad")
    assert text.count('"tad.psum"') == 5 and "tensor.concat" not in text, text
    got = ta.jit(dist.pmean)(tree)
    assert [g.dtype for g in got] == [np.float64, np.float64, np.float32, np.float32, np.float64]


def test_sharded_marks_are_identities_with_one_process():
    w, x = np.arange(12.0).reshape(3, 4) / 10, np.ones((2, 3))
    assert dist.sharded(w, axis=1) is w  # concrete: as it is

    def layer(w, x):
        return tnp.sum(tnp.tanh(x @ dist.sharded(w, axis=1)) ** 2)

    step = ta.jit(ta.value_and_grad(layer))
    assert '"tad.shard"' in step.lower(w, x).as_text("tad")
    assert '"tad.shard"' not in step.lower(w, x).as_text("differentiated")  # tad-partition drops it
    got, want = step(w, x), ta.value_and_grad(lambda w, x: tnp.sum(tnp.tanh(x @ w) ** 2))(w, x)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-14)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-14)


def test_the_ir_names_the_processes_and_one_process_calls_no_mpi():
    lowered = ta.jit(lambda x: dist.psum(x) * 2.0).lower(np.ones(3))
    assert '"tad.psum"(%arg0) {processes = 1 : i64}' in lowered.as_text("tad")
    assert "mpi" not in lowered.as_text("llvm").lower()


def test_shard_and_data_parallel_of_one_process():
    x = np.arange(8.0).reshape(4, 2)
    assert dist.shard(x) is x and dist.shard({"x": x}, axis=1)["x"] is x

    def loss(w, x, y):
        return tnp.mean((x @ w - y) ** 2)

    step = ta.jit(dist.data_parallel(ta.value_and_grad(loss), batch_argnums=(1, 2)))
    got, want = step(np.ones(2), x, np.zeros(4)), ta.value_and_grad(loss)(np.ones(2), x, np.zeros(4))
    np.testing.assert_allclose(got[0], want[0])
    np.testing.assert_allclose(got[1], want[1])
    np.testing.assert_allclose(ta.grad(dist.data_parallel(loss, batch_argnums=(1, 2)))(np.ones(2), x, np.zeros(4)),
                               want[1])
    assert ta.data_parallel is dist.data_parallel


@pytest.mark.parametrize("call, error, message", [
    (lambda: dist.psum(np.ones(2, bool)), TypeError, "collectives take float32, float64, int32 or int64 arrays, "
                                                       "got bool"),
    (lambda: dist.all_gather(np.ones(2), axis=2), ValueError, "axis 2 is out of range for an array of 2 dim"),
    (lambda: dist.all_gather(np.float64(1.0), tiled=True), ValueError, "tiled=True.* of a 0-d array"),
    (lambda: dist.reduce_scatter(np.ones((2, 3))), ValueError, "dim 0 has size 2, not one entry per process"),
    (lambda: ta.jit(lambda x: dist.reduce_scatter(x, scatter_dimension=-3))(np.ones(2)), ValueError,
     "scatter_dimension -3 is out of range"),
    (lambda: dist.shard(np.ones(3), axis=1), ValueError, "axis 1 is out of range for an array of 1 dim"),
    (lambda: ta.jit(lambda x: dist.sharded(x, axis=-2))(np.ones(3)), ValueError,
     "axis -2 is out of range for an array of 1 dim"),
    (lambda: dist.pmax(np.ones(2, np.complex128)), TypeError, "collectives take float32, float64, int32 or int64"),
])
def test_bad_arguments_are_clear_errors_at_the_users_line(call, error, message):
    with pytest.raises(error, match=message) as info:
        call()
    assert "test_distributed.py" in str(info.value)


def test_mpiexec_is_the_installed_one():
    pytest.importorskip("mpi4py")
    path = dist.mpiexec()
    assert os.access(path, os.X_OK) and Path(path).name.startswith("mpiexec")


# --- two processes ---------------------------------------------------------------------

def mpiexec(*command: str, processes: int = 2) -> subprocess.CompletedProcess:
    """``command`` run by ``processes`` processes of an MPI job on this machine; fails after TIMEOUT seconds."""
    pytest.importorskip("mpi4py")
    try:
        launcher = dist.mpiexec()
    except FileNotFoundError as err:
        pytest.skip(str(err))
    env = dict(os.environ, TENSORAD_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    for variable in ("PMI_RANK", "PMI_SIZE", "PMI_FD", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE"):
        env.pop(variable, None)  # pytest itself run by a launcher: the workers get their own job
    return subprocess.run([launcher, "-launcher", "fork", "-iface", "lo", "-n", str(processes), *command],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT)


def passed_checks(done: subprocess.CompletedProcess) -> list:
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return re.findall(r"^ok (.*)$", done.stdout, re.M)


def test_collectives_and_their_derivatives_over_two_processes():
    checks = passed_checks(mpiexec(sys.executable, str(WORKERS / "collectives.py")))
    for name in ("psum jit f32", "psum eager i64", "all_gather tiled axis=1 jit", "reduce_scatter tiled",
                 "fused psum a", "fused psum i", "psum of an argument leaves it", "pmax jit", "pmin eager",
                 "dot test psum", "dot test pvary", "dot test all_gather", "dot test reduce_scatter",
                 "grad through psum", "grad through pvary", "grad of pmax: the holder's, ties split",
                 "grad of pmin: the holder's, ties split", "dot test pmax", "dot test pmin",
                 "jvp of pmax against central differences", "vmap pmax", "jacrev of pmin",
                 "jvp against central differences", "jacrev of all_gather", "vmap reduce_scatter", "ir"):
        assert name in checks, (name, checks)


def test_data_parallel_and_tensor_parallel_training_over_two_processes():
    checks = passed_checks(mpiexec(sys.executable, str(WORKERS / "training.py")))
    assert [c.split(" (")[0] for c in checks] == [
        "W1 data parallel == one process on the global batch", "W1 parameters replicated",
        "checkpoint and memory_budget with data_parallel", "grad of data_parallel(loss)",
        "tensor-parallel MLP gradients == one process's",
        "sharded MLP partitioned by the compiler: gradients == one process's"]


def test_a_process_that_raises_ends_the_job():
    done = mpiexec(sys.executable, str(WORKERS / "raises.py"))
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "ValueError: process 1 fails on purpose" in output
    assert "process 1 raised ValueError; ending every process of the job (MPI_Abort)" in output
    assert "unreachable" not in output


def test_the_mlp_example_trains_as_well_with_two_processes():
    # test_examples.py: 8 epochs in one process reach 92%.
    done = mpiexec(sys.executable, "examples/train_mlp_digits.py", "--epochs", "8")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    accuracies = [float(a) for a in re.findall(r"test accuracy ([0-9.]+)", done.stdout)]
    assert len(accuracies) == 2 and accuracies[0] == accuracies[1] >= 0.92, done.stdout[-3000:]
