"""tad-remat: cost model against measured memory, solver oracles, gradients, API and errors."""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest
from mlir import ir

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.passes.remat import chain, cost, exact, greedy
from tensorad.passes.remat.graph import build
from tensorad.tracing import TraceState


def _chain_loss(ws, x):
    h = x
    for w in ws:
        h = tnp.tanh(h @ w)
    return (h * h).sum()


def _chain(layers=6, batch=128, width=32, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    ws = [(rng.standard_normal((width, width)) * 0.3).astype(dtype) for _ in range(layers)]
    return ws, rng.standard_normal((batch, width)).astype(dtype)


def _segments(ws, x, size):
    """Chen's schedule: checkpoint every ``size`` layers."""
    h = x
    for start in range(0, len(ws), size):
        h = ta.checkpoint(lambda h, block: _chain_loss_block(h, block))(h, ws[start:start + size])
    return (h * h).sum()


def _chain_loss_block(h, block):
    for w in block:
        h = tnp.tanh(h @ w)
    return h


def _graph_of(fun, *args):
    text = ta.jit(fun).lower(*args).as_text("differentiated")
    module = ir.Module.parse(text, TraceState.context())
    function = module.body.operations[0].operation
    with module.context, ir.Location.unknown():
        return module, build(function)


# ---- the cost model agrees with the runtime ---------------------------------------


@pytest.mark.parametrize("budget_fraction", [None, 0.85, 0.7])
def test_predicted_peak_matches_measured(budget_fraction):
    ws, x = _chain(layers=6, batch=256, width=32)
    store_all = ta.memory_report(ta.grad(_chain_loss), ws, x)
    budget = None if budget_fraction is None else int(store_all.measured_peak_bytes * budget_fraction)
    report = ta.memory_report(ta.grad(_chain_loss), ws, x, memory_budget=budget)
    main = report.functions[0]
    assert abs(main.predicted_peak_bytes - report.measured_peak_bytes) <= 0.1 * report.measured_peak_bytes
    if budget is not None:
        assert report.measured_peak_bytes <= budget


def test_predicted_peak_matches_measured_for_mlp():
    rng = np.random.default_rng(1)
    params = [rng.standard_normal((64, 128)) * 0.1, rng.standard_normal((128, 10)) * 0.1]
    x = rng.standard_normal((512, 64))

    def loss(params, x):
        h = ta.nn.relu(x @ params[0])
        return ta.nn.logsumexp(h @ params[1], axis=1).sum()

    report = ta.memory_report(ta.grad(loss), params, x)
    assert abs(report.functions[0].predicted_peak_bytes - report.measured_peak_bytes) \
        <= 0.1 * report.measured_peak_bytes


# ---- gradients do not change ---------------------------------------------------------


@pytest.mark.parametrize("budget_fraction", [0.85, 0.7])
def test_gradients_with_a_budget_equal_gradients_without(budget_fraction):
    ws, x = _chain(layers=6, batch=256, width=32)
    expected = ta.jit(ta.grad(_chain_loss))(ws, x)
    peak = ta.last_call_stats().peak_live_bytes
    got = ta.jit(ta.grad(_chain_loss), memory_budget=int(peak * budget_fraction))(ws, x)
    assert ta.last_call_stats().peak_live_bytes <= peak * budget_fraction
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("policy", [None, "everything_saveable", "dots_saveable",
                                    ta.checkpoint_policies.save_only_these_names("h")])
def test_checkpoint_policies_keep_gradients(policy):
    ws, x = _chain(layers=3, batch=8, width=5)

    def block(h, w):
        z = ta.checkpoint_name(h @ w, "h")
        return tnp.sin(tnp.tanh(z))

    def loss(ws, x):
        h = x
        for w in ws:
            h = ta.checkpoint(block, policy=policy)(h, w)
        return (h * h).sum()

    expected = ta.grad(_chain_loss_like(block))(ws, x)
    got = ta.grad(loss)(ws, x)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    ta.test_util.check_grads(lambda w0: loss([w0] + ws[1:], x), (ws[0],), order=1)


def _chain_loss_like(block):
    def loss(ws, x):
        h = x
        for w in ws:
            h = block(h, w)
        return (h * h).sum()
    return loss


def test_checkpoint_recomputes_and_saves_less():
    ws, x = _chain(layers=8, batch=256, width=32)
    plain = ta.memory_report(ta.grad(_chain_loss), ws, x)
    segmented = ta.memory_report(ta.grad(lambda ws, x: _segments(ws, x, 3)), ws, x)
    assert segmented.measured_peak_bytes < plain.measured_peak_bytes
    assert segmented.functions[0].recomputed and not plain.functions[0].recomputed
    assert segmented.functions[0].extra_flops > 0


def test_dots_saveable_stores_the_contractions():
    ws, x = _chain(layers=2, batch=64, width=16)

    def loss(policy):
        def f(ws, x):
            h = x
            for w in ws:
                h = ta.checkpoint(lambda h, w: tnp.sin(tnp.tanh(h @ w)), policy=policy)(h, w)
            return (h * h).sum()
        return f

    nothing = ta.memory_report(ta.grad(loss(None)), ws, x).functions[0]
    dots = ta.memory_report(ta.grad(loss("dots_saveable")), ws, x).functions[0]
    assert "tad.dot_general" in {r["op"] for r in nothing.recomputed}
    assert "tad.dot_general" not in {r["op"] for r in dots.recomputed}


# ---- solvers ----------------------------------------------------------------------


def _brute_force(graph, budget):
    """Least (FLOPs + 1 per recomputation) over every schedule whose stage figure fits."""
    n = len(graph.nodes)
    users = graph.users()
    pairs = [(t, i) for i, node in enumerate(graph.nodes) if node.recomputable
             for t in range(i + 1, n) if any(u >= t for u in users[i]) or i in graph.outputs]
    best = math.inf
    for chosen in itertools.product((0, 1), repeat=len(pairs)):
        recompute: dict = {}
        for flag, (t, i) in zip(chosen, pairs):
            if flag:
                recompute.setdefault(t, []).append(i)
        timeline = cost.simulate(graph, recompute)
        if timeline.peak <= budget:
            best = min(best, sum(graph.nodes[i].flops + 1 for v in recompute.values() for i in v))
    return best


SMALL_PROGRAMS = [
    (lambda x: tnp.sin(tnp.exp(x) * x).sum(), (np.linspace(0.1, 1, 16),)),
    (lambda x: (tnp.tanh(x @ x) * x).sum(), (np.eye(4) * 0.5,)),
    (lambda x: (tnp.tanh(tnp.sin(x) @ x) ** 2).sum(), (np.eye(4) * 0.5,)),
]


@pytest.mark.parametrize("program", range(len(SMALL_PROGRAMS)))
def test_exact_tier_equals_brute_force(program):
    fun, args = SMALL_PROGRAMS[program]
    _, graph = _graph_of(ta.grad(fun), *args)
    assert len(graph.nodes) <= 8
    store_all = cost.simulate(graph, {}).peak
    smallest, proven = exact.smallest_budget(graph)
    assert proven
    for budget in sorted({store_all, (store_all + smallest) // 2, smallest}):
        solution = exact.solve(graph, budget)
        assert solution.status == "optimal"
        weighted = sum(graph.nodes[i].flops + 1 for v in solution.recompute.values() for i in v)
        assert weighted == _brute_force(graph, budget)
        assert cost.simulate(graph, solution.recompute).peak <= budget
    assert exact.solve(graph, smallest - 1).recompute is None
    assert _brute_force(graph, smallest - 1) == math.inf


def test_chain_tier_beats_chens_schedule_and_greedy_at_its_budget():
    ws, x = _chain(layers=9, batch=64, width=16)
    chen = ta.memory_report(ta.grad(lambda ws, x: _segments(ws, x, 3)), ws, x).functions[0]
    _, graph = _graph_of(ta.grad(_chain_loss), ws, x)
    budget = chen.predicted_peak_bytes
    solution = chain.solve(chain.find(graph), budget)
    greedy_solution = greedy.solve(graph, budget)
    assert solution is not None and solution.flops < chen.extra_flops
    if greedy_solution.recompute is not None:
        assert solution.flops <= greedy_solution.objective


def test_side_effects_are_never_recomputed():
    module = ir.Module.parse("""
    func.func private @opaque(%x: tensor<64xf32>) -> tensor<64xf32>
    func.func @f(%x: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
      %0 = func.call @opaque(%x) : (tensor<64xf32>) -> tensor<64xf32>
      %1 = math.exp %0 : tensor<64xf32>
      %2 = math.sin %1 : tensor<64xf32>
      %3 = math.cos %2 : tensor<64xf32>
      %4 = arith.mulf %3, %0 : tensor<64xf32>
      return %4, %2 : tensor<64xf32>, tensor<64xf32>
    }""", TraceState.context())
    with module.context, ir.Location.unknown():
        graph = build(module.body.operations[1].operation)
    assert not graph.nodes[0].recomputable
    smallest, _ = exact.smallest_budget(graph)
    solution = exact.solve(graph, smallest)
    assert all(0 not in nodes for nodes in solution.recompute.values())


# ---- errors, reports, API ---------------------------------------------------------


def test_infeasible_budget_names_the_smallest_feasible_one():
    ws, x = _chain(layers=4, batch=64, width=16)
    with pytest.raises(ta.CompileError, match=r"smallest feasible budget (is|found is) \d+ bytes"):
        ta.jit(ta.grad(_chain_loss), memory_budget=100)(ws, x)


def test_the_budget_an_error_names_is_accepted():
    ws, x = _chain(layers=4, batch=64, width=16)
    step = ta.grad(_chain_loss)
    with pytest.raises(ta.CompileError) as err:
        ta.jit(step, memory_budget=100)(ws, x)
    named = int(re.search(r"smallest feasible budget (?:is|found is) (\d+)", str(err.value)).group(1))
    report = ta.memory_report(ta.jit(step, memory_budget=named), ws, x)
    assert report.measured_peak_bytes <= report.functions[0].predicted_peak_bytes <= named


def test_the_jit_plans_nothing_where_nothing_is_asked_and_memory_report_still_reports():
    from tensorad.passes.jit_differentiate import JitDifferentiateOptions
    from tensorad.passes.registry import PassResults, run_pipeline

    ws, x = _chain(layers=2, batch=8, width=4)
    jitted = ta.jit(ta.grad(_chain_loss))
    assert jitted.differentiate_options.report is False
    module = ir.Module.parse(jitted.lower(ws, x).as_text(), TraceState.context())
    for report, functions in ((False, 0), (True, 1)):
        results = PassResults()
        run_pipeline(ir.Module.parse(str(module), TraceState.context()),
                     f"tad-jit-differentiate{{report={str(report).lower()}}}", results=results)
        assert len(results.last("tad-remat").functions) == functions
    assert ta.memory_report(jitted, ws, x).functions[0].predicted_peak_bytes > 0


def test_bad_budget_and_policy_are_reported():
    ws, x = _chain(layers=1, batch=4, width=3)
    with pytest.raises(ta.CompileError, match="expected a number of bytes"):
        ta.jit(ta.grad(_chain_loss), memory_budget="lots")(ws, x)
    with pytest.raises(ValueError, match="unknown checkpoint policy 'sometimes'"):
        ta.checkpoint(tnp.sin, policy="sometimes")


def test_print_saved_residuals_names_sizes_and_lines(capsys):
    saved = ta.print_saved_residuals(lambda w: tnp.tanh(w @ w), np.eye(3))
    out = capsys.readouterr().out
    assert saved and "72 bytes" in out and "test_remat.py:" in out


def test_memory_report_plot_draws_the_measured_timeline(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need matplotlib (the bench extra)")
    ws, x = _chain(layers=3, batch=16, width=8)
    report = ta.memory_report(ta.grad(_chain_loss), ws, x)
    main = report.functions[0]
    # The runtime's allocation hooks: live bytes after each allocation and free.
    assert max(main.measured_timeline) == report.measured_peak_bytes == main.measured_peak_bytes
    assert report.measured_timeline == main.measured_timeline and main.measured_timeline[-1] >= 0
    report.plot(str(tmp_path / "memory.png"))
    assert (tmp_path / "memory.png").stat().st_size > 0
    assert "measured" in str(report)


def test_plot_without_matplotlib_names_the_extra(tmp_path, monkeypatch):
    ws, x = _chain(layers=1, batch=4, width=3)
    report = ta.memory_report(ta.grad(_chain_loss), ws, x)
    monkeypatch.setitem(__import__("sys").modules, "matplotlib", None)
    with pytest.raises(ImportError, match=r"bench"):
        report.plot(str(tmp_path / "memory.png"))


def test_memory_report_honours_the_budget_of_a_jitted_function():
    ws, x = _chain(layers=6, batch=256, width=32)
    budget = int(ta.memory_report(ta.grad(_chain_loss), ws, x).measured_peak_bytes * 0.7)
    report = ta.memory_report(ta.jit(ta.grad(_chain_loss), memory_budget=budget), ws, x)
    main = report.functions[0]
    assert main.budget == budget and main.tier == "chain"
    assert report.measured_peak_bytes <= budget and f"budget {budget}" in str(report)


def test_cli_report(tmp_path):
    from tensorad.tools.autodiff_opt import run

    source = tmp_path / "in.mlir"
    source.write_text("""
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %0 = "tad.start_checkpoint"(%x) : (tensor<4xf32>) -> tensor<4xf32>
      %1 = math.sin %0 : tensor<4xf32>
      %2 = "tad.end_checkpoint"(%1) : (tensor<4xf32>) -> tensor<4xf32>
      %3 = math.exp %0 : tensor<4xf32>
      %4 = math.cos %3 : tensor<4xf32>
      %5 = "tad.end_checkpoint"(%4) : (tensor<4xf32>) -> tensor<4xf32>
      %6 = arith.mulf %3, %2 : tensor<4xf32>
      return %5, %6 : tensor<4xf32>, tensor<4xf32>
    }""")
    out, report = tmp_path / "out.mlir", tmp_path / "r.json"
    assert run([str(source), "--tad-remat", f"--tad-remat-report={report}", "-o", str(out)]) == 0
    data = json.loads(report.read_text())["functions"][0]
    assert data["recomputed"][0]["op"] == "math.exp"
    assert out.read_text().count("math.exp") == 2


def test_memory_report_compiles_the_function_once_and_the_next_call_runs_that_code(monkeypatch):
    # The report comes from the compile whose code the jitted function keeps: planning a budget (the min-cut
    # search on a large graph) is not paid twice, and a call after the report compiles nothing.
    from tensorad.compiler import Lowered
    rng = np.random.default_rng(7)
    ws = [rng.standard_normal((16, 16)) / 4 for _ in range(6)]
    x = rng.standard_normal((512, 16))

    def loss(ws, x):
        for w in ws:
            x = tnp.tanh(x @ w)
        return tnp.sum(x ** 2)

    store_all = ta.jit(ta.grad(loss))
    want = store_all(ws, x)
    budget = int(0.8 * ta.memory_report(store_all, ws, x).measured_peak_bytes)
    step = ta.jit(ta.grad(loss), memory_budget=budget)
    import tensorad.compiler as compiler
    import tensorad.remat as remat
    stage_runs = []
    for module in (compiler, remat):  # every way to the pipelines
        monkeypatch.setattr(module, "run_stages", lambda *a, real=compiler.run_stages, **k:
                            stage_runs.append(a[1]) or real(*a, **k))
    report = ta.memory_report(step, ws, x)
    assert stage_runs == ["llvm"]
    assert report.measured_peak_bytes <= budget and report.functions[0].status in ("optimal", "feasible")
    assert step.cache_size == 1

    def no_compile(self, reports=None):
        raise AssertionError("compiled again")
    monkeypatch.setattr(Lowered, "compile", no_compile)
    grads = step(ws, x)
    for got, expected in zip(grads, want):
        np.testing.assert_allclose(got, expected, rtol=1e-12)
