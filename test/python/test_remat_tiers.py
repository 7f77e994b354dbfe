"""tad-remat's chain and mincut tiers: oracles against the exact tier and Chen's schedule, speed, gradients."""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.passes.remat import chain, cost, exact, mincut
from tensorad.passes.remat.graph import example


def _loss(ws, x):
    h = x
    for w in ws:
        h = tnp.tanh(h @ w)
    return (h * h).sum()


def _chain(layers, batch=64, width=16, seed=0):
    rng = np.random.default_rng(seed)
    ws = [rng.standard_normal((width, width)) * 0.3 for _ in range(layers)]
    return ws, rng.standard_normal((batch, width))


def _graph(layers):
    return example(layers, batch=64, width=16)


def test_a_deep_mlp_is_a_chain_and_the_program_counts_what_simulate_counts():
    _, graph = _graph(9)
    found = chain.find(graph)
    assert found is not None and found.length == 18  # a contraction and a tanh per layer
    store_all = cost.simulate(graph, {}).stage_peak
    for fraction in (1.0, 0.85, 0.75):
        solution = chain.solve(found, int(store_all * fraction))
        timeline = cost.simulate(graph, solution.plan())
        # The program's memory terms are simulate()'s: the figure it optimises is the one checked.
        assert solution.peak == timeline.stage_peak <= store_all * fraction
        assert solution.flops == timeline.recompute_flops


def test_exact_le_chain_le_chen_at_equal_budget():
    _, graph = _graph(9)
    found = chain.find(graph)
    chen = chain.chen_checkpoints(found, 6)  # a checkpoint every 3 layers (2 nodes each)
    timeline = cost.simulate(graph, chain.plan_of(found, chen))
    budget = timeline.stage_peak
    dp = chain.solve(found, budget)
    best = exact.solve(graph, budget, time_limit=30)
    assert best.recompute is not None and dp is not None
    assert best.objective <= dp.flops <= timeline.recompute_flops
    assert dp.flops < timeline.recompute_flops  # heterogeneous segments beat equal ones here


def test_chain_program_on_1000_layers_is_fast():
    rng = np.random.default_rng(0)
    found = chain.synthetic(rng.integers(1, 5, 1000) * 4096, rng.integers(1, 10, 1000) * 10**6)
    store_all = chain.figure(found, list(range(1, 1001)))
    for fraction in (0.3, 0.1):
        start = time.perf_counter()
        solution = chain.solve(found, int(store_all * fraction))
        elapsed = time.perf_counter() - start
        assert solution is not None and solution.peak <= store_all * fraction
        assert elapsed < 5.0, elapsed  # about 0.3 s on one core; generous for slow CI


def test_chain_smallest_budget_is_feasible_and_tight():
    _, graph = _graph(6)
    found = chain.find(graph)
    smallest = chain.smallest_budget(found)
    assert chain.solve(found, smallest) is not None
    assert chain.solve(found, smallest - max(1, smallest // 1000)) is None


def test_mincut_tier_fits_the_budget_or_names_the_smallest():
    _, graph = _graph(6)
    store_all = cost.simulate(graph, {}).stage_peak
    solution = mincut.solve(graph, int(store_all * 0.9))
    assert solution.recompute is not None
    assert cost.simulate(graph, solution.recompute).stage_peak <= store_all * 0.9
    failed = mincut.solve(graph, 1)
    assert failed.recompute is None and 0 < failed.smallest <= store_all
    assert mincut.solve(graph, failed.smallest).recompute is not None


def test_stored_cut_is_byte_weighted():
    _, graph = _graph(4)
    split = max(range(len(graph.nodes) + 1), key=cost.simulate(graph, {}).held.__getitem__) + 1
    stored = mincut.stored_cut(graph, split)
    # Everything is recomputable from the arguments: the cheapest cut stores nothing.
    assert stored == set()


@pytest.mark.parametrize("tier", ["chain", "mincut"])
def test_gradients_equal_without_remat(tier):
    ws, x = _chain(8, batch=128, width=24)
    expected = ta.jit(ta.grad(_loss))(ws, x)
    peak = ta.last_call_stats().peak_live_bytes
    budget = int(peak * 0.85)
    gradient = ta.jit(ta.grad(_loss), memory_budget=budget)
    # tad-remat{budget=... tier=...}, through jit's tad-jit-differentiate stage
    gradient.differentiate_options = dataclasses.replace(gradient.differentiate_options, tier=tier)
    got = gradient(ws, x)
    assert ta.last_call_stats().peak_live_bytes <= budget
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


def test_chain_tier_recomputing_tail_constants_lowers_its_smallest_budget():
    _, graph = _graph(6)
    found = chain.find(graph)
    assert found.variant is not None  # the constant of tanh's derivative, read once per layer
    smallest = chain.smallest_budget(found)
    without = chain.smallest_budget(dataclasses.replace(found, variant=None))
    proven, optimal = exact.smallest_budget(graph, 60)
    assert optimal and proven <= smallest < without
    # Only the measurement with the constant made again before each read fits it.
    assert chain.solve(found, smallest).chain is found.variant


def test_gradients_exact_when_tail_constants_are_recomputed_at_every_read():
    ws, x = _chain(6, batch=128, width=24)
    expected = ta.jit(ta.grad(_loss))(ws, x)
    module, graph = example(6, batch=128, width=24)
    found = chain.find(graph)
    budget = chain.smallest_budget(found)
    gradient = ta.jit(ta.grad(_loss), memory_budget=budget)
    gradient.differentiate_options = dataclasses.replace(gradient.differentiate_options, tier="chain")
    got = gradient(ws, x)
    assert ta.last_call_stats().peak_live_bytes <= budget
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
