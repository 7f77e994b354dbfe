"""Run by test_distributed.py under ``mpiexec -n 2``: values and derivatives of the collectives.

Every process makes its data from a seed and its index, so each one also
knows every other process's data and computes the expected values with
numpy. Sums over processes that check derivatives use mpi4py directly.
Each check prints ``ok <name>``; a failed one raises, which ends the job.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import distributed as dist

INDEX, COUNT = dist.process_index(), dist.process_count()
assert COUNT == MPI.COMM_WORLD.Get_size() >= 2, COUNT


def data(seed: int, shape, dtype=np.float64, index: int = INDEX) -> np.ndarray:
    """Process ``index``'s array for ``seed`` (integers are small, so sums are exact)."""
    rng = np.random.default_rng([seed, index])
    if np.dtype(dtype).kind == "i":
        return rng.integers(-50, 50, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def everyone(seed: int, shape, dtype=np.float64) -> list:
    return [data(seed, shape, dtype, i) for i in range(COUNT)]


def total(local: float) -> float:
    """The sum over processes of a number (mpi4py's allreduce, independent of tensorad)."""
    return MPI.COMM_WORLD.allreduce(float(local))


def check(name: str, got, want, tol: float = 0.0) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{name}: shape {got.shape} != {want.shape}"
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != {want.dtype}"
    err = float(np.max(np.abs(got.astype(np.float64) - want.astype(np.float64)), initial=0.0))
    assert err <= tol, f"{name}: max error {err} > {tol}"
    report(name)


def report(name: str) -> None:
    """Say a check passed (process 0 speaks for all: a failure elsewhere ends the job with an error)."""
    if INDEX == 0:
        print(f"ok {name}", flush=True)


# --- values: eager and compiled agree with numpy ------------------------------------------

tree = {"f32": data(1, (2, 3), np.float32), "f64": data(2, (4,)), "i32": data(3, (3,), np.int32),
        "i64": data(4, (), np.int64)}
want = {k: sum(everyone(seed, np.shape(v), v.dtype)).astype(v.dtype)
        for seed, (k, v) in enumerate(tree.items(), start=1)}
for how, psum in (("eager", dist.psum), ("jit", ta.jit(dist.psum))):
    got = psum(tree)
    for k in tree:
        check(f"psum {how} {k}", got[k], want[k], 1e-5 if k == "f32" else 1e-12)
check("pmean", dist.pmean(tree["f64"]), sum(everyone(2, (4,))) / COUNT, 1e-12)
check("pmean of integers is a float", dist.pmean(tree["i32"]), sum(everyone(3, (3,), np.int32)) / COUNT)

x = data(5, (2, 3))
parts = everyone(5, (2, 3))
for how, gather in (("eager", dist.all_gather), ("jit", ta.jit(dist.all_gather, static_argnames=("axis", "tiled")))):
    check(f"all_gather {how}", gather(x), np.stack(parts))
    check(f"all_gather axis=2 {how}", gather(x, axis=2), np.stack(parts, axis=2))
    check(f"all_gather axis=-2 {how}", gather(x, axis=-2), np.stack(parts, axis=-2))
    check(f"all_gather tiled axis=1 {how}", gather(x, axis=1, tiled=True), np.concatenate(parts, axis=1))
check("all_gather of a 0-d array", dist.all_gather(np.float32(INDEX)), np.arange(COUNT, dtype=np.float32))

rows = data(6, (COUNT, 3))
check("reduce_scatter", dist.reduce_scatter(rows), sum(everyone(6, (COUNT, 3)))[INDEX], 1e-12)
cols = data(7, (2, COUNT), np.int64)
check("reduce_scatter scatter_dimension=1", ta.jit(lambda c: dist.reduce_scatter(c, scatter_dimension=1))(cols),
      sum(everyone(7, (2, COUNT), np.int64))[:, INDEX])
flat = data(8, (3 * COUNT,))
check("reduce_scatter tiled", dist.reduce_scatter(flat, tiled=True),
      sum(everyone(8, (3 * COUNT,)))[3 * INDEX:3 * INDEX + 3], 1e-12)

# psum of a pytree: one collective (one MPI call) per dtype, in place, the caller's arrays untouched.
leaves = {"a": data(30, (2, 3)), "b": data(31, (4,)), "c": data(32, ()), "i": data(33, (2,), np.int32)}
kept = {k: v.copy() for k, v in leaves.items()}
fused_psum = ta.jit(dist.psum)
got = fused_psum(leaves)
for k, v in leaves.items():
    np.testing.assert_array_equal(v, kept[k])
    check(f"fused psum {k}", got[k], sum(everyone(30 + "abci".index(k), v.shape, v.dtype)).astype(v.dtype), 1e-12)
text = fused_psum.lower(leaves).as_text("tad")
assert text.count('"tad.psum"') == 2, text  # one for the three float64 arrays, one for the int32 one
single = data(34, (3,))
check("psum of an argument in place", ta.jit(dist.psum)(single), sum(everyone(34, (3,))), 1e-12)
check("psum of an argument leaves it", single, data(34, (3,)))
of_constant = ta.jit(lambda x: dist.psum(np.arange(3.0)) + x)  # a constant's buffer is never written
for _ in range(2):
    check("psum of a constant in place", of_constant(np.zeros(3)), COUNT * np.arange(3.0))

# pmax / pmin: values, eagerly and compiled, on a pytree of dtypes.
extreme = {"f": data(35, (2, 3)), "i": data(36, (4,), np.int64)}
for how, pmax, pmin in (("eager", dist.pmax, dist.pmin), ("jit", ta.jit(dist.pmax), ta.jit(dist.pmin))):
    check(f"pmax {how}", pmax(extreme)["f"], np.max(everyone(35, (2, 3)), axis=0))
    check(f"pmin {how}", pmin(extreme)["i"], np.min(everyone(36, (4,), np.int64), axis=0))

# --- reverse mode: the dot-product test with the sum over processes ------------------------
# A value is either the same on every process (psum's result, pvary's operand: counted
# once, its cotangent too) or per process (every process's part counts).

def dot_test(name: str, f, x, t, ct, result_replicated: bool = False, input_replicated: bool = False) -> None:
    y, pullback = ta.vjp(f, x)
    (g,) = pullback(ct)
    _, jt = ta.jvp(f, (x,), (t,))
    lhs = float(np.vdot(ct, jt)) if result_replicated else total(np.vdot(ct, jt))
    rhs = float(np.vdot(g, t)) if input_replicated else total(np.vdot(g, t))
    assert abs(lhs - rhs) <= 1e-10 * max(1.0, abs(lhs)), f"{name}: <ct, J t> = {lhs} but <J^T ct, t> = {rhs}"
    report(f"dot test {name}")


x, t = data(10, (2, 3)), data(11, (2, 3))
same = lambda seed, shape: data(seed, shape, index=0)  # noqa: E731  (the same on every process)
dot_test("psum", lambda x: dist.psum(tnp.sin(x)), x, t, same(12, (2, 3)), result_replicated=True)
dot_test("pmean", lambda x: dist.pmean(x * x), x, t, same(12, (2, 3)), result_replicated=True)
dot_test("pvary", lambda x: tnp.sin(dist.pvary(x)) * (1.0 + INDEX), same(17, (2, 3)), same(18, (2, 3)),
         data(19, (2, 3)), input_replicated=True)
dot_test("all_gather", lambda x: tnp.tanh(dist.all_gather(x, axis=1)), x, t, data(13, (2, COUNT, 3)))
dot_test("reduce_scatter", lambda x: dist.reduce_scatter(tnp.sin(x), scatter_dimension=1, tiled=True),
         data(14, (2, 3 * COUNT)), data(15, (2, 3 * COUNT)), data(16, (2, 3)))

# pmax's and pmin's derivative goes to the process holding the extremum, split evenly among
# ties: the first 2 elements are the same on every process (ties), the others differ.
def tied_data(index: int) -> np.ndarray:
    return np.concatenate([data(37, (2,), index=0), data(37, (3,), index=index)])


tied, direction = tied_data(INDEX), data(38, (5,))
holds = [tied_data(i) == np.max([tied_data(k) for k in range(COUNT)], axis=0) for i in range(COUNT)]
weights = holds[INDEX] / np.sum(holds, axis=0)
assert weights[0] == 1.0 / COUNT and weights[1] == 1.0 / COUNT  # the ties
check("grad of pmax: the holder's, ties split", ta.grad(lambda x: tnp.sum(dist.pmax(x) * direction[0]))(tied),
      weights * direction[0], 1e-15)
check("grad of pmin: the holder's, ties split", ta.jit(ta.grad(lambda x: tnp.sum(-dist.pmin(-x))))(tied),
      weights, 1e-15)
dot_test("pmax", lambda x: dist.pmax(tnp.sin(x)), tied, direction, same(39, (5,)), result_replicated=True)
dot_test("pmin", lambda x: dist.pmin(x * x), tied, direction, same(39, (5,)), result_replicated=True)
away = data(40, (5,))  # no ties: central differences of pmax
f_max = ta.jit(lambda x: dist.pmax(tnp.sin(x)) ** 2)
numeric = (f_max(away + 1e-6 * direction) - f_max(away - 1e-6 * direction)) / 2e-6
check("jvp of pmax against central differences",
      ta.jvp(lambda x: dist.pmax(tnp.sin(x)) ** 2, (away,), (direction,))[1], numeric, 1e-7)
check("vmap pmax", ta.vmap(dist.pmax)(data(41, (4, 3))), np.max(everyone(41, (4, 3)), axis=0))
lows = [tied_data(i) == np.min([tied_data(k) for k in range(COUNT)], axis=0) for i in range(COUNT)]
check("jacrev of pmin", ta.jacrev(dist.pmin)(tied), np.diag(lows[INDEX] / np.sum(lows, axis=0)), 1e-15)

# psum's transpose is the identity: the gradient of a replicated sum is the local derivative.
check("grad through psum", ta.grad(lambda x: dist.psum(tnp.sin(x)).sum())(x), np.cos(x), 1e-15)
check("grad through pmean", ta.grad(lambda x: dist.pmean(x ** 2).sum())(x), 2 * x / COUNT, 1e-15)
# pvary's transpose adds up every process's cotangent: the whole gradient, on every process.
w = same(17, (2, 3))
check("grad through pvary", ta.grad(lambda w: (tnp.sin(dist.pvary(w)) * (1.0 + INDEX)).sum())(w),
      np.cos(w) * sum(1.0 + i for i in range(COUNT)), 1e-14)
# all_gather's transpose adds every process's cotangent: each process reads the whole
# gathered array here, so every slice's gradient comes COUNT times.
check("grad through all_gather", ta.jit(ta.grad(lambda x: (dist.all_gather(x) ** 2).sum()))(x),
      2 * x * COUNT, 1e-12)

# --- forward mode: central differences of a composite, every process stepping together -----

def composite(x):
    g = dist.all_gather(tnp.sin(x))
    return tnp.tanh(dist.reduce_scatter(g * g[::-1])) + dist.psum(x) ** 2


f = ta.jit(composite)
eps = 1e-6
numeric = (f(x + eps * t) - f(x - eps * t)) / (2 * eps)
check("jvp against central differences", ta.jvp(composite, (x,), (t,))[1], numeric, 1e-7)
check("jvp value", ta.jvp(composite, (x,), (t,))[0], f(x), 1e-12)

# --- batch prefixes: jacobians, and vmap ----------------------------------------------------
v = data(20, (3,))
eye = np.eye(3)
check("jacfwd of all_gather", ta.jacfwd(dist.all_gather)(v), np.stack([eye] * COUNT), 1e-15)
# jacrev: reduce_scatter adds up every process's identity cotangent and keeps this process's block.
mine = np.zeros((COUNT, 3, 3))
mine[INDEX] = COUNT * eye
check("jacrev of all_gather", ta.jacrev(dist.all_gather)(v), mine, 1e-15)
check("jacrev of psum", ta.jacrev(lambda v: dist.psum(v * v))(v), np.diag(2 * v), 1e-15)

batch = data(21, (4, 3))
check("vmap psum", ta.vmap(dist.psum)(batch), sum(everyone(21, (4, 3))), 1e-12)
check("vmap all_gather", ta.vmap(dist.all_gather)(batch), np.stack(everyone(21, (4, 3)), axis=1))
rows = data(22, (4, COUNT, 3))
check("vmap reduce_scatter", ta.jit(ta.vmap(dist.reduce_scatter))(rows),
      sum(everyone(22, (4, COUNT, 3)))[:, INDEX], 1e-12)
check("vmap of grad (per-example) through psum",
      ta.vmap(ta.grad(lambda v: dist.psum(v * v).sum()))(batch), 2 * batch, 1e-15)

# --- the same code on every process, in the same order: the IR is the same but for constants ---
text = ta.jit(composite).lower(x).as_text("tad")
assert text.count('"tad.all_gather"') == 1 and 'processes = 2' in text, text
report("ir")
