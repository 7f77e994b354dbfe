"""The differential fuzzer: its own behaviour, and a fixed-seed campaign over the compiler.

The campaign (80 random Python programs and 60 IR modules, in four shards of
one worker process each) asserts that no program kills its worker, gives a
wrong number or hits an internal error. Its failure message lists each
distinct failure with the seeds that hit it; ``python -m tensorad.fuzz
--programs N --seed S --out DIR`` replays and minimizes them.
"""

import os

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.fuzz import campaign, checks, ir, programs, runner

CAMPAIGN_PROGRAMS = 80  # each also runs eagerly and under vmap (about 1.2 s a program)
CAMPAIGN_IR = 60
CAMPAIGN_SEED = 20261124
# Shards, one worker process each, so that pytest-xdist spreads the campaign over the cores.
CAMPAIGN_SHARDS = 4


def test_generator_is_deterministic_by_seed():
    first = [programs.render(programs.generate(s)) for s in range(20)]
    again = [programs.render(programs.generate(s)) for s in range(20)]
    assert first == again
    assert len(set(first)) > 15
    assert ir.render_ir(ir.generate_ir(5)) == ir.render_ir(ir.generate_ir(5))


def test_one_text_runs_on_numpy_and_tensorad():
    program = {"seed": 3, "inputs": [[[2, 1], "float64"], [[3], "float64"]],
               "stmts": [["add", [0, 1], {}], ["sum", [2], {"axis": 0, "keepdims": True}]],
               "ret": None, "modes": ["rev", "fwd"], "nested": "jvp_of_grad"}
    assert "v2 = v0 + v1" in programs.render(program)
    assert checks.run_program(program) == {"status": "ok", "check": None, "message": ""}


def test_a_wrong_custom_vjp_is_a_wrong_result():
    @ta.custom_vjp
    def planted(x):
        return tnp.sin(x)

    planted.defvjp(lambda x: (tnp.sin(x), x), lambda x, g: (g * tnp.cos(x) * 2.0,))  # twice the derivative
    result = checks.check_function(planted, np.sin, np.sin, [np.linspace(-1.0, 1.0, 4)], seed=0,
                                   modes=("rev",))
    assert result["status"] == "wrong" and result["check"] == "rev"


VMAP = {"size": 3, "in_axes": [1, None], "out_axes": -1, "grad": True}


def test_eager_and_vmap_checks_run_on_a_seeded_program():
    program = {"seed": 5, "inputs": [[[2, 3], "float64"], [[3], "float64"]],
               "stmts": [["tanh", [0], {}], ["multiply", [2, 1], {}],
                         ["sum", [3], {"axis": 1, "keepdims": False}]],
               "ret": None, "modes": ["rev"], "nested": None, "eager": True, "vmap": VMAP}
    stages = []
    assert checks.run_program(program, stages.append) == {"status": "ok", "check": None, "message": ""}
    assert stages == ["forward", "eager", "vmap", "rev", "vmap_grad"]
    generated = [programs.generate(s) for s in range(30)]
    assert all(p["eager"] and len(p["vmap"]["in_axes"]) == len(p["inputs"]) for p in generated)
    assert {a for p in generated for a in p["vmap"]["in_axes"]} >= {0, None, 1, -1}
    assert any(p["vmap"]["grad"] for p in generated)


def test_vmap_axes_fit_the_inputs_while_shrinking():
    assert checks.batch_axes({"in_axes": [2, None, -1]}, [1, 3, 0]) == [1, None, -1]
    assert checks.batch_axes({"in_axes": [None, None]}, [1, 1]) == [0, None]
    program = {"seed": 1, "inputs": [[[2], "float64"], [[2], "float64"]], "stmts": [["sin", [1], {}]],
               "ret": None, "modes": [], "nested": None, "eager": True, "vmap": VMAP}
    candidates = runner._py_candidates(program, "vmap")
    assert {"vmap": dict(VMAP, in_axes=[None]), "inputs": [[[2], "float64"]]}.items() <= \
        next(c for c in candidates if len(c["inputs"]) == 1).items()  # the unused input's axis goes too
    assert candidates[0]["vmap"] == dict(VMAP, grad=False) and not candidates[0]["eager"]  # only the failing check


def test_a_wrong_eager_result_is_reported():
    # Right under tracing, off by one when called on arrays, i.e. eagerly.
    def eager_is_wrong(x):
        return tnp.sin(x) + (1.0 if isinstance(x, np.ndarray) else 0.0)

    x = [np.linspace(-1.0, 1.0, 4)]
    result = checks.check_function(eager_is_wrong, np.sin, np.sin, x, seed=0, modes=(), eager=True)
    assert result["status"] == "wrong" and result["check"] == "eager", result
    assert checks.check_function(eager_is_wrong, np.sin, np.sin, x, seed=0, modes=())["status"] == "ok"


def _doubled(name, monkeypatch):
    """Plant a batching bug: the rule of ``name`` gives twice the right rows."""
    from tensorad.dialects.record import record_of
    record = record_of(name)
    right = record.batching
    monkeypatch.setattr(record, "batching", lambda ctx, op, operands, batched:
                        [r * 2.0 for r in right(ctx, op, operands, batched)])


def test_a_wrong_batching_rule_is_a_wrong_vmap_result(monkeypatch):
    _doubled("tad.reduce_sum", monkeypatch)
    f = lambda x: tnp.sum(tnp.sin(x), axis=0)  # noqa: E731
    reference = lambda x: np.sum(np.sin(x), axis=0)  # noqa: E731
    result = checks.check_function(f, reference, reference, [np.linspace(-1.0, 1.0, 6).reshape(2, 3)], seed=0,
                                   modes=(), vmap=dict(VMAP, in_axes=[1], grad=False))
    assert result["status"] == "wrong" and result["check"] == "vmap", result
    assert "output 0" in result["message"]


def test_a_wrong_batching_rule_in_a_gradient_is_a_wrong_vmap_grad_result(monkeypatch):
    # The pullback of the inner sum broadcasts a batched cotangent; the function itself broadcasts nothing.
    _doubled("tad.broadcast_in_dim", monkeypatch)
    f = lambda x: tnp.sum(tnp.tanh(tnp.sum(x, axis=1)))  # noqa: E731
    reference = lambda x: np.sum(np.tanh(np.sum(x, axis=1)))  # noqa: E731
    result = checks.check_function(f, reference, reference, [np.linspace(-1.0, 1.0, 6).reshape(2, 3)], seed=0,
                                   modes=(), vmap=VMAP)
    assert result["status"] == "wrong" and result["check"] == "vmap_grad", result


def test_a_clean_refusal_and_an_internal_error_are_told_apart():
    refusal = checks.check_function(lambda x: x[10, 10], lambda x: x, lambda x: x, [np.ones(3)], seed=0)
    assert refusal["status"] == "refusal", refusal
    assert checks.classify_exception(KeyError("dims"))["status"] == "internal"


def test_an_abort_is_a_death_and_is_shrunk(tmp_path):
    program = {"seed": 11, "inputs": [[[3, 4], "float64"], [[4], "float64"]],
               "stmts": [["tanh", [0], {}], ["add", [2, 1], {}], ["sin", [3], {}], ["cos", [4], {}]],
               "ret": None, "modes": ["rev"], "nested": None}
    task = {"kind": "py", "program": program, "abort_on_op": "sin"}
    with runner.WorkerPool(2) as pool:
        results = pool.run_all([task, {"kind": "py", "program": dict(program, stmts=program["stmts"][:2])}])
        assert results[0]["status"] == "death" and "Abort" in results[0]["message"]
        assert results[1]["status"] == "ok"  # the pool replaced the dead worker
        small, result, _ = runner.shrink(pool, task, results[0])
    assert result["status"] == "death"
    assert [s[0] for s in small["program"]["stmts"]] == ["sin"]
    assert all(d <= 1 for shape, _ in small["program"]["inputs"] for d in shape)
    path = runner.write_reproducer(str(tmp_path), small, result)
    assert path.endswith(os.path.join("deaths", "11.py")) and "xp.sin(v" in open(path).read()


def test_a_malformed_module_needs_a_located_diagnostic():
    ok = ir.check_cli_output(_completed(1, "<stdin>:3:7: error: expected SSA operand"), malformed=True)
    dressed = ir.check_cli_output(_completed(1, "<stdin>:0:0: error: tad-remat failed: ValueError: x"),
                                  malformed=True)
    assert ok is None and dressed["status"] == "internal"
    assert ir.check_cli_output(_completed(-6, ""), malformed=True)["status"] == "death"


def _completed(returncode, stderr):
    import subprocess
    return subprocess.CompletedProcess([], returncode, "", stderr)


def _py(seed, inputs, stmts, modes=(), nested=None, vmap=None):
    return {"kind": "py", "program": {"seed": seed, "inputs": inputs, "stmts": stmts, "ret": None,
                                      "modes": list(modes), "nested": nested, "vmap": vmap}}


SCAN = {"returns_carry": False, "reverse": True, "part": 0}
# Minimized findings of `python -m tensorad.fuzz --programs 1000 --ir 300 --seed 50000` (and the CI seed's
# IR): each must pass its checks. Zero-size arrays, loops under second-order transforms, 0-d axes, the
# vectorizer's size-1 dims, and forward-mode Jacobians through branches.
KNOWN_FINDINGS = [
    _py(50016, [[[], "float64"]], [["logsumexp", [0], {"axis": 0, "keepdims": False}]]),
    _py(50037, [[[1, 0], "float64"]], [["scan", [0], SCAN]]),
    _py(50060, [[[0], "float64"]], [["while_loop", [0], {"n": 1}]], nested="jvp_of_grad"),
    _py(50089, [[[0, 0], "float64"]], [["while_loop", [0], {"n": 3}]], nested="jvp_of_grad"),
    _py(50114, [[[0, 1], "float64"]], [["slice", [0], {"axis": 1, "start": 2, "stop": 2, "step": 1}]]),
    _py(50515, [[[1, 1], "float64"]],
        [["scan", [0], SCAN], ["expand_dims", [1], {"axis": 0}], ["sum", [2], {"axis": 0, "keepdims": False}],
         ["multiply", [3, 0], {}], ["expand_dims", [4], {"axis": 2}],
         ["sum", [5], {"axis": [0, -1], "keepdims": False}]]),
    _py(50591, [[[0], "float64"]], [["stack", [0, 0], {"axis": -1}]], modes=["rev"]),
    _py(50657, [[[0], "float64"]], [["fori_loop", [0], {"n": 2}]], modes=["rev"]),
    _py(50914, [[[], "float64"]], [["while_loop", [0], {"n": 3}]], nested="jvp_of_grad"),
    _py(50407, [[[2, 1, 2], "float64"]], [["cond", [0], {}], ["scan", [1], dict(SCAN, part=1)]], modes=["jacfwd"]),
    # `--programs 150 --seed 3100000`: vmap of a while loop's gradient (its tape has a dynamic length).
    _py(3100019, [[[], "float64"]], [["while_loop", [0], {"n": 2}]],
        vmap={"size": 2, "in_axes": [None], "out_axes": 0, "grad": True}),
    {"kind": "ir", "program": {"seed": 20261162, "inputs": [[1, 1]], "mutation": None, "ops": [
        ["tad.broadcast_in_dim", [0], {"n": 3}], ["tad.reduce_max", [1], {"dims": [0, 2]}]]}},
]


def test_known_findings_pass():
    with runner.WorkerPool(2) as pool:
        results = pool.run_all(KNOWN_FINDINGS)
    failing = [f"seed {t['program']['seed']}: {r['status']} ({r.get('check')}) {r['message'][:200]}"
               for t, r in zip(KNOWN_FINDINGS, results) if r["status"] != "ok"]
    assert not failing, "\n".join(failing)


@pytest.mark.parametrize("shard", range(CAMPAIGN_SHARDS))
def test_fixed_seed_campaign_finds_no_death_wrong_result_or_internal_error(shard):
    programs, modules = CAMPAIGN_PROGRAMS // CAMPAIGN_SHARDS, CAMPAIGN_IR // CAMPAIGN_SHARDS
    seed = CAMPAIGN_SEED + shard * programs
    summary = campaign.run_campaign(programs, seed=seed, ir=modules, jobs=1, out_dir=None)
    failures = [f for f in summary["findings"] if f["status"] in runner.FAILURES]
    report = "\n".join(f"{f['kind']} {f['status']} x{f['count']} seeds {f['seeds']}: {f['signature'][:300]}"
                       for f in failures)
    assert not failures, (f"{summary['counts']} {summary['ir_counts']}\n{report}\nminimize with: python -m "
                          f"tensorad.fuzz --programs {programs} --ir {modules} --seed {seed}")