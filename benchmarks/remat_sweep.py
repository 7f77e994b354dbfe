"""Memory budget sweeps: tensorad's tad-remat against jax.checkpoint and torch.utils.checkpoint, in one run.

Three workloads, each differentiated (loss = sum(out^2), gradients with
respect to every parameter):

* ``chain``: 16 layers of ``tanh(h @ W)``, batch 4096, width 64, float64 (the
  activation-dominated chain: each activation 2 MiB);
* ``transformer``: 12 pre-norm blocks (layer norm, single-head attention,
  residual, layer norm, ReLU MLP of width 4d, residual), batch 4, 64 tokens,
  d = 64, float32;
* ``unet``: a small U-Net (3x3 convolutions, ReLU, 2x2 average pooling,
  nearest upsampling, skip connections by concatenation), 2 x 4 x 32 x 32, float32.

For tensorad: store-all, then ``jit(..., memory_budget=B)`` for B from 100%
of the store-all peak down to the lower bound of
:func:`tensorad.passes.remat.bound.lower_bound` (no schedule fits below it),
and at the first budget the pass refuses, the smallest budget its error names.
Under each table, the floor line: the smallest accepted budget, how far it
is above the lower bound (so at most that far above the exact floor) and,
on graphs of at most ``EXACT_FLOOR_NODES`` nodes, the exact tier's floor. For the peers: store-all and
their checkpointing (JAX: ``jax.checkpoint`` around each layer/block with the
``nothing_saveable`` and ``dots_saveable`` policies, and Chen's sqrt(n)
segments for the chain; PyTorch: ``torch.utils.checkpoint`` around each
layer/block, and ``checkpoint_sequential`` segments for the chain).

Columns: the peak bytes (tensorad: measured by its allocator hooks, results
included, arguments not; JAX: XLA's buffer assignment on CPU, temporaries
plus results, which is what it allocates; PyTorch: the resident-set
high-water mark of a fresh process over its second step, above its level
before it, with glibc mapping every buffer of 64 KiB or more on its own),
recomputed FLOPs as each framework counts them (tensorad: ``tad-remat``'s
count over every recomputed op; JAX: XLA's cost analysis minus store-all's;
PyTorch: ``torch.utils.flop_counter`` over contractions and convolutions,
minus store-all's), in percent of one forward pass's FLOPs counted the same
way, and the step time (median of ``--reps``). Peers run each configuration in
a fresh process.

Usage::

    python benchmarks/remat_sweep.py                    # all three (a few minutes on two cores)
    python benchmarks/remat_sweep.py --only chain --reps 5
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import subprocess
import sys
import time

import numpy as np

WORKLOADS = ("chain", "transformer", "unet")
FRACTIONS = (1.0, 0.75, 0.5, 0.35, 0.3, 0.25)


# ---- the workloads, one definition per framework through a table of ops -------------------


def _ops(framework: str):
    """The few ops the workloads need, as ``framework`` spells them."""
    if framework == "tensorad":
        import tensorad as ta
        import tensorad.numpy as tnp

        def upsample(x):
            return tnp.repeat(tnp.repeat(x, 2, axis=2), 2, axis=3)

        return dict(np=tnp, tanh=tnp.tanh, relu=ta.nn.relu, softmax=ta.nn.softmax,
                    layer_norm=lambda x: ta.nn.layer_norm(x), swap=lambda x: tnp.swapaxes(x, -1, -2),
                    conv=lambda x, w: ta.nn.conv2d(x, w, padding=1), pool=lambda x: ta.nn.avg_pool2d(x, 2),
                    upsample=upsample, concat=lambda xs: tnp.concatenate(xs, axis=1))
    if framework == "jax":
        import jax
        import jax.numpy as jnp

        def layer_norm(x):
            mean = x.mean(-1, keepdims=True)
            return (x - mean) / jnp.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-5)

        def conv(x, w):
            return jax.lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (1, 1)))

        def pool(x):
            n, c, h, w = x.shape
            return x.reshape(n, c, h // 2, 2, w // 2, 2).mean((3, 5))

        return dict(np=jnp, tanh=jnp.tanh, relu=jax.nn.relu, softmax=jax.nn.softmax, layer_norm=layer_norm,
                    swap=lambda x: jnp.swapaxes(x, -1, -2), conv=conv, pool=pool,
                    upsample=lambda x: jnp.repeat(jnp.repeat(x, 2, axis=2), 2, axis=3),
                    concat=lambda xs: jnp.concatenate(xs, axis=1))
    import torch
    import torch.nn.functional as F

    return dict(np=torch, tanh=torch.tanh, relu=torch.relu, softmax=lambda x: torch.softmax(x, -1),
                layer_norm=lambda x: F.layer_norm(x, x.shape[-1:]), swap=lambda x: x.transpose(-1, -2),
                conv=lambda x, w: F.conv2d(x, w, padding=1), pool=lambda x: F.avg_pool2d(x, 2),
                upsample=lambda x: x.repeat_interleave(2, 2).repeat_interleave(2, 3),
                concat=lambda xs: torch.cat(xs, 1))


def _params(workload: str, small: bool):
    """``(list of layer parameter tuples, input)`` as float64/float32 numpy arrays."""
    rng = np.random.default_rng(0)
    if workload == "chain":
        batch = 1024 if small else 4096
        return [(rng.standard_normal((64, 64)) * 0.3,) for _ in range(16)], rng.standard_normal((batch, 64))
    f32 = np.float32
    if workload == "transformer":
        d, blocks = 64, (4 if small else 12)
        layer = lambda: tuple((rng.standard_normal(s) / math.sqrt(s[0])).astype(f32)
                              for s in ((d, d), (d, d), (d, d), (d, d), (d, 4 * d), (4 * d, d)))
        return [layer() for _ in range(blocks)], rng.standard_normal((4, 64, d)).astype(f32)
    channels = [(4, 8), (8, 16), (16, 16), (32, 8), (16, 4)]
    return [((rng.standard_normal((o, i, 3, 3)) / math.sqrt(9 * i)).astype(f32),) for i, o in channels], \
        rng.standard_normal((2, 4, 32, 32)).astype(f32)


def _layers(workload: str, ops: dict):
    """The workload as a list of layer functions ``(h, params) -> h`` (the U-Net's carry its skips)."""
    if workload == "chain":
        return lambda n: [lambda h, p: ops["tanh"](h @ p[0])] * n
    if workload == "transformer":
        def block(x, p):
            wq, wk, wv, wo, w1, w2 = p
            h = ops["layer_norm"](x)
            q, k, v = h @ wq, h @ wk, h @ wv
            a = ops["softmax"]((q @ ops["swap"](k)) * (1 / math.sqrt(q.shape[-1]))) @ v
            x = x + a @ wo
            return x + ops["relu"](ops["layer_norm"](x) @ w1) @ w2
        return lambda n: [block] * n

    # U-Net stages: the carry is (current, skips...).
    def down(h, p):
        *skips, x = h
        y = ops["relu"](ops["conv"](x, p[0]))
        return (*skips, y, ops["pool"](y))

    def bottom(h, p):
        *skips, x = h
        return (*skips, ops["relu"](ops["conv"](x, p[0])))

    def up(h, p, last=False):
        *skips, skip, x = h
        y = ops["conv"](ops["concat"]([ops["upsample"](x), skip]), p[0])
        return (*skips, y if last else ops["relu"](y))

    return lambda n: [down, down, bottom, up, lambda h, p: up(h, p, last=True)]


def _loss(workload: str, ops: dict, wrap=lambda f: f):
    """``loss(params, x)``: the workload's layers, each passed through ``wrap`` (a checkpoint)."""
    def loss(params, x):
        h = (x,) if workload == "unet" else x
        for layer, p in zip(_layers(workload, ops)(len(params)), params):
            h = wrap(layer)(h, p)
        out = h[-1] if workload == "unet" else h
        return (out * out).sum()
    return loss


# ---- tensorad ----------------------------------------------------------------------------------


def _tensorad_rows(workload: str, params, x, reps: int) -> list:
    import tensorad as ta

    loss = _loss(workload, _ops("tensorad"))
    forward_flops = _tensorad_forward_flops(loss, params, x)
    rows = []

    def run(label, budget):
        start = time.perf_counter()
        step = ta.jit(ta.grad(loss), memory_budget=budget)
        report = ta.memory_report(step, params, x)  # compiles and runs it once
        compile_s = time.perf_counter() - start
        main = report.functions[0]
        rows.append(dict(schedule=label, budget=budget, peak=report.measured_peak_bytes,
                         recompute=100 * main.extra_flops / forward_flops, step=_median_time(lambda: step(params, x), reps),
                         compile=compile_s, tier=f"{main.tier}/{main.status}", predicted=main.predicted_peak_bytes))

    run("tensorad store-all", None)
    store_all = rows[0]["peak"]
    bound = _floor_bounds(loss, params, x)["lower_bound"]
    # Down to the floor: each fraction, then the lower bound (no budget below it is feasible).
    for budget in [int(fraction * store_all) for fraction in FRACTIONS] + [bound]:
        label = f"tensorad budget {budget / store_all:.0%}" if budget != bound else "tensorad budget = lower bound"
        if budget < bound:
            continue
        try:
            run(label, budget)
        except ta.CompileError as err:  # below the floor: the error names the smallest budget
            _run_floor(run, err, store_all)
            break
    return rows


def _named_floor(err) -> int:
    return int(re.search(r"smallest feasible budget (?:is|found is) (\d+)", str(err)).group(1))


def _run_floor(run, err, store_all: int, tries: int = 4) -> None:
    """Run at the budget the error names.

    tad-remat plans for it before naming it; should that still fail, the budget named then is tried.
    """
    import tensorad as ta

    for _ in range(tries):
        floor = _named_floor(err)
        try:
            run(f"tensorad budget = floor ({100 * floor / store_all:.1f}%)", floor)
            return
        except ta.CompileError as again:
            err = again


# The exact tier certifies floors on graphs up to this many nodes (in minutes, not seconds).
EXACT_FLOOR_NODES = 60


def _floor_bounds(loss, params, x) -> dict:
    """What bounds the smallest budget of ``grad(loss)``: the lower bound and, on small graphs, the exact floor."""
    import tensorad as ta
    from mlir import ir
    from tensorad.passes.remat import bound, exact
    from tensorad.passes.remat.graph import build
    from tensorad.tracing import TraceState

    if "bounds" in _FLOOR_CACHE:
        return _FLOOR_CACHE["bounds"]
    text = ta.jit(ta.grad(loss)).lower(params, x).as_text("differentiated")
    module = ir.Module.parse(text, TraceState.context())
    graph = build(module.body.operations[0].operation)
    bounds = dict(nodes=len(graph.nodes), lower_bound=bound.lower_bound(graph), exact=None)
    if len(graph.nodes) <= EXACT_FLOOR_NODES:
        start = time.perf_counter()
        floor, proven = exact.smallest_budget(graph)
        bounds["exact"] = (floor, proven, time.perf_counter() - start)
    _FLOOR_CACHE["bounds"] = bounds
    return bounds


_FLOOR_CACHE: dict = {}


def _floor_line(rows: list) -> str:
    """How far the smallest accepted budget is from the lower bound (and the exact floor where it ran)."""
    bounds = _FLOOR_CACHE.pop("bounds")
    accepted = [row["budget"] for row in rows if row.get("schedule", "").startswith("tensorad budget")]
    floor = min(accepted, default=None)
    if floor is None:
        return "floor: no budget accepted"
    bound = bounds["lower_bound"]
    line = (f"floor: smallest accepted budget {floor / 1e6:.3f} MB; lower bound {bound / 1e6:.3f} MB "
            f"({bounds['nodes']} nodes): within {100 * (floor - bound) / bound:.1f}% of the exact floor")
    if bounds["exact"] is not None:
        exact_floor, proven, seconds = bounds["exact"]
        line += (f"; exact tier: {exact_floor / 1e6:.3f} MB ({'proven' if proven else 'not proven'}, "
                 f"{seconds:.0f} s), tensorad's floor {100 * (floor - exact_floor) / exact_floor:+.1f}% from it")
    return line


def _tensorad_forward_flops(loss, params, x) -> float:
    import tensorad as ta
    from mlir import ir
    from tensorad.dialects.record import flops_of
    from tensorad.tracing import TraceState

    module = ir.Module.parse(ta.jit(loss).lower(params, x).as_text(), TraceState.context())
    total = 0

    def visit(op):
        nonlocal total
        total += flops_of(op.operation)
        return ir.WalkResult.SKIP if op.operation.regions else ir.WalkResult.ADVANCE

    for function in module.body.operations:
        for op in function.regions[0].blocks[0].operations:
            visit(op)
    return float(total)


def _median_time(step, reps: int) -> float:
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


# ---- peers, one configuration per fresh process --------------------------------------------------


def _peer_configs(workload: str) -> list:
    configs = [("jax", "store-all"), ("jax", "checkpoint nothing_saveable"),
               ("jax", "checkpoint dots_saveable"), ("torch", "store-all"), ("torch", "checkpoint")]
    if workload == "chain":
        configs += [("jax", "Chen sqrt(n) segments"), ("torch", "checkpoint_sequential sqrt(n)")]
    return configs


def _worker(framework: str, config: str, workload: str, small: bool, reps: int) -> dict:
    """Measure one peer configuration in this (fresh) process."""
    params, x = _params(workload, small)
    if framework == "jax":
        return _jax_worker(config, workload, params, x, reps)
    return _torch_worker(config, workload, params, x, reps)


def _jax_worker(config, workload, params, x, reps):
    import jax

    jax.config.update("jax_platforms", "cpu")
    jax.config.update("jax_enable_x64", True)
    ops = _ops("jax")
    policies = {"nothing_saveable": jax.checkpoint_policies.nothing_saveable,
                "dots_saveable": jax.checkpoint_policies.dots_saveable}
    if config == "store-all":
        loss = _loss(workload, ops)
    elif config.startswith("checkpoint"):
        policy = policies[config.split()[1]]
        loss = _loss(workload, ops, lambda f: jax.checkpoint(f, policy=policy))
    else:  # Chen's segments of sqrt(n) layers
        size = round(math.sqrt(len(params)))
        layer = _layers(workload, ops)(1)[0]

        def segment(h, ps):
            for p in ps:
                h = layer(h, p)
            return h

        def loss(params, x):
            h = x
            for start in range(0, len(params), size):
                h = jax.checkpoint(segment)(h, params[start:start + size])
            return (h * h).sum()
    step = jax.jit(jax.grad(loss))
    compiled = step.lower(params, x).compile()
    memory = compiled.memory_analysis()
    flops = compiled.cost_analysis()["flops"]
    forward = jax.jit(_loss(workload, ops)).lower(params, x).compile().cost_analysis()["flops"]
    base = jax.jit(jax.grad(_loss(workload, ops))).lower(params, x).compile().cost_analysis()["flops"]
    jax.block_until_ready(step(params, x))
    seconds = _median_time(lambda: jax.block_until_ready(step(params, x)), reps)
    return dict(peak=memory.temp_size_in_bytes + memory.output_size_in_bytes,
                recompute=100 * max(0.0, flops - base) / forward, step=seconds)


def _status_bytes(field: str) -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise OSError(f"/proc/self/status has no {field}")


def _reset_high_water_mark() -> int:
    """Reset the resident-set high-water mark (Linux: ``5`` into ``clear_refs``); return the resident bytes now."""
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")
    return _status_bytes("VmRSS")


def _high_water_mark() -> int:
    return _status_bytes("VmHWM")


def _torch_worker(config, workload, params, x, reps):
    import torch
    from torch.utils.checkpoint import checkpoint, checkpoint_sequential
    from torch.utils.flop_counter import FlopCounterMode

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    ops = _ops("torch")
    tparams = [tuple(torch.tensor(a, requires_grad=True) for a in p) for p in params]
    tx = torch.tensor(x)
    if config == "store-all":
        loss = _loss(workload, ops)
    elif config == "checkpoint":
        loss = _loss(workload, ops, lambda f: lambda h, p: checkpoint(f, h, p, use_reentrant=False))
    else:
        layer = _layers(workload, ops)(1)[0]

        def loss(params, x):
            modules = [lambda h, p=p: layer(h, p) for p in params]
            h = checkpoint_sequential(modules, round(math.sqrt(len(params))), x, use_reentrant=False)
            return (h * h).sum()

    def step(fn=loss):
        for p in tparams:
            for a in p:
                a.grad = None
        fn(tparams, tx).backward()

    def counted(fn):
        with FlopCounterMode(display=False) as counter:
            fn()
        return counter.get_total_flops()

    step()  # once first: what the first call allocates for good (thread pools, kernels) is not the step's
    before = _reset_high_water_mark()
    step()
    peak = _high_water_mark() - before
    with torch.no_grad():
        forward = counted(lambda: _loss(workload, ops)(tparams, tx))
    base = counted(lambda: step(_loss(workload, ops)))
    flops = counted(step)
    return dict(peak=peak, recompute=100 * max(0, flops - base) / forward, step=_median_time(step, reps))


def _peer_rows(workload: str, small: bool, reps: int) -> list:
    rows = []
    for framework, config in _peer_configs(workload):
        command = [sys.executable, __file__, "--worker", framework, config, workload, "--reps", str(reps)]
        if small:
            command.append("--small")
        # A fixed mmap threshold: glibc then maps every large buffer and unmaps it when freed (its
        # default threshold grows after the first free, and keeps freed buffers resident).
        env = {**os.environ, "MALLOC_MMAP_THRESHOLD_": "65536"}
        done = subprocess.run(command, capture_output=True, text=True, env=env)
        label = f"{framework} {config}"
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["failed"])[-1]
            rows.append(dict(schedule=label, error=reason[:60]))
            continue
        rows.append(dict(schedule=label, **json.loads(done.stdout.strip().splitlines()[-1])))
    return rows


# ---- the tables -------------------------------------------------------------------------------------


def _table(workload: str, rows: list) -> None:
    store_all = rows[0]["peak"]
    print(f"\n{workload}: peak MB (and % of tensorad's store-all), recompute % of a forward pass, step s")
    header = f"{'schedule':<40}{'budget MB':>10}{'peak MB':>9}{'peak %':>8}{'<=budget':>9}{'recompute':>10}" \
             f"{'step s':>8}{'compile s':>10}  tier"
    print(header)
    print("-" * len(header))
    for row in rows:
        if "error" in row:
            print(f"{row['schedule']:<40}  {row['error']}")
            continue
        budget = row.get("budget")
        fits = "-" if budget is None else ("yes" if row["peak"] <= budget else "NO")
        compile_s = f"{row['compile']:10.1f}" if "compile" in row else f"{'-':>10}"
        print(f"{row['schedule']:<40}{(budget or 0) / 1e6 if budget else float('nan'):10.2f}"
              f"{row['peak'] / 1e6:9.2f}{100 * row['peak'] / store_all:7.0f}%{fits:>9}{row['recompute']:9.1f}%"
              f"{row['step']:8.3f}{compile_s}  {row.get('tier', '')}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=",".join(WORKLOADS), help="comma-separated: " + ", ".join(WORKLOADS))
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--small", action="store_true", help="smaller batch / fewer blocks (a quick run)")
    parser.add_argument("--no-peers", action="store_true", help="tensorad only")
    parser.add_argument("--worker", nargs=3, metavar=("FRAMEWORK", "CONFIG", "WORKLOAD"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(*args.worker, args.small, args.reps)))
        return
    for workload in args.only.split(","):
        params, x = _params(workload, args.small)
        start = time.perf_counter()
        rows = _tensorad_rows(workload, params, x, args.reps)
        if not args.no_peers:
            rows += _peer_rows(workload, args.small, args.reps)
        _table(workload, rows)
        print(_floor_line(rows))
        print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
