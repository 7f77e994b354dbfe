"""Crash isolation: a pass that aborts the process it runs in is a CompileError / PassCrash, never a dead interpreter."""

import os
import textwrap

import numpy as np
import pytest
from mlir import ir

import tensorad as ta
from tensorad import compiler
from tensorad.dialects import make_context
from tensorad.passes import isolation, registry

SOURCE = """
func.func @f(%x: tensor<4xf64>) -> tensor<4xf64> {
  %0 = arith.addf %x, %x : tensor<4xf64>
  %1 = arith.mulf %0, %0 : tensor<4xf64>
  return %1 : tensor<4xf64>
}
"""


@pytest.fixture
def aborting_pass(tmp_path, monkeypatch):
    """Register ``test-abort``, a pass that aborts its process as an LLVM assertion would."""
    (tmp_path / "aborting_pass.py").write_text(textwrap.dedent("""
        import os

        def run(op, pass_):
            os.abort()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.PASSES, "test-abort",
                        registry.PassInfo("test-abort", "Abort the process", "aborting_pass:run"))
    monkeypatch.setenv(isolation.REPRODUCER_DIR_VARIABLE, str(tmp_path / "reproducers"))
    monkeypatch.setenv("TENSORAD_ISOLATE", "1")
    return tmp_path


def test_fork_call_returns_results_and_raises_errors():
    assert isolation.fork_call(lambda: {"answer": 42}) == {"answer": 42}
    with pytest.raises(ZeroDivisionError):
        isolation.fork_call(lambda: 1 / 0)
    with pytest.raises(isolation.ChildCrashed, match="SIGABRT"):
        isolation.fork_call(os.abort)


def test_meanwhile_runs_here_while_the_child_runs_the_stages(monkeypatch):
    monkeypatch.setenv("TENSORAD_ISOLATE", "1")
    ran_in = []
    module = ir.Module.parse(SOURCE, make_context())
    result = isolation.run_isolated(module, "func.func(convert-elementwise-to-linalg)",
                                    meanwhile=lambda: ran_in.append(os.getpid()))
    assert ran_in == [os.getpid()] and "linalg.generic" in str(result)
    # What meanwhile raises is raised here, once the child has been waited for.
    with pytest.raises(ZeroDivisionError):
        isolation.run_isolated(module, "func.func(convert-elementwise-to-linalg)", meanwhile=lambda: 1 / 0)


def test_a_crashing_pass_is_named_with_a_reproducer(aborting_pass):
    module = ir.Module.parse(SOURCE, make_context())
    with pytest.raises(isolation.PassCrash) as info:
        isolation.run_isolated(module, "func.func(convert-elementwise-to-linalg),test-abort,cse")
    crash = info.value
    assert crash.element == "test-abort" and crash.cause.startswith("SIGABRT")
    text = open(crash.reproducer).read()
    # The reproducer holds the IR the pass crashed on: after the passes before it.
    assert "linalg.generic" in text and "arith.addf %x" not in text
    assert isolation.reproducer_pipeline(text) == "builtin.module(test-abort)"
    assert str(module.body.operations[0].operation.name) == "func.func"  # the caller's module is untouched


def test_pass_failures_keep_their_diagnostics():
    module = ir.Module.parse(SOURCE, make_context())
    # (x + x) * (x + x) is one loop once fused: one buffer of 32 bytes and its padding.
    with pytest.raises(ir.MLIRError, match="smallest feasible budget is 96 bytes"):
        isolation.run_isolated(module, "tad-remat{budget=1}")


@pytest.mark.parametrize("persistent", [False, True])
def test_a_failed_stage_is_raised_with_its_locations_and_not_run_again(tmp_path, monkeypatch, persistent):
    # Each run of the pass appends its process to a file: the stage runs once, in the child.
    runs = tmp_path / "runs"
    name = f"refusing_pass_{int(persistent)}"  # a module of its own: a cached one would write elsewhere
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(f"""
        import os
        from mlir import ir

        def run(op, pass_):
            with open({str(runs)!r}, "a") as out:
                out.write(f"{{os.getpid()}}\\n")
            where = ir.Location.callsite(ir.Location.file("model.py", 7, 3), [ir.Location.file("train.py", 2, 1)])
            where.emit_error("no schedule fits")
            pass_.signal_pass_failure()
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.PASSES, "test-refuse",
                        registry.PassInfo("test-refuse", "Refuse", f"{name}:run"))
    monkeypatch.setenv("TENSORAD_ISOLATE", "1")
    context = compiler.TraceState.context()
    module = ir.Module.parse(SOURCE, context)
    with pytest.raises(ir.MLIRError) as info:
        isolation.run_isolated(module, "", stages=[("lowered", "cse"), ("planned", "test-refuse")],
                               persistent=persistent)
    err = info.value
    [diagnostic] = err.error_diagnostics
    assert err.stage == "planned" and diagnostic.message == "no schedule fits"
    assert diagnostic.severity == ir.DiagnosticSeverity.ERROR and diagnostic.location.context is context
    assert str(diagnostic.location) == 'loc(callsite("model.py":7:3 at "train.py":2:1))'
    assert 'error: callsite("model.py":7:3 at "train.py":2:1): no schedule fits' in str(err)
    pids = runs.read_text().split()
    assert len(pids) == 1 and int(pids[0]) != os.getpid()


def test_jit_turns_a_crash_into_a_compile_error(aborting_pass, monkeypatch):
    stages = compiler.STAGES
    monkeypatch.setattr(compiler, "STAGES", tuple(
        (name, registry.Pipeline(spec, registry.PassSpec("test-abort")) if name == "linalg" else spec)
        for name, spec in stages))
    f = ta.jit(lambda x: x * 2.0)
    with pytest.raises(ta.CompileError, match=r"internal compiler error: pass 'test-abort' crashed \(SIGABRT\)"):
        f(np.ones(3))
    monkeypatch.setattr(compiler, "STAGES", stages)
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 2.0))  # the process lives on


def test_without_isolation_pipelines_run_here(monkeypatch):
    monkeypatch.setenv("TENSORAD_ISOLATE", "0")
    module = ir.Module.parse(SOURCE, make_context())
    assert isolation.run_isolated(module, "func.func(convert-elementwise-to-linalg)") is module
    assert "linalg.generic" in str(module)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_compiled_results_match_in_process_compilation(monkeypatch):
    x = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    isolated = ta.jit(lambda x: (x @ x.T).sum(axis=0))(x)
    monkeypatch.setenv("TENSORAD_ISOLATE", "0")
    in_process = ta.jit(lambda x: (x @ x.T).sum(axis=0))(x)
    np.testing.assert_array_equal(isolated, in_process)


def test_an_exception_in_a_pass_is_an_internal_error_with_a_reproducer(tmp_path, monkeypatch):
    (tmp_path / "raising_pass.py").write_text("def run(op, pass_):\n    raise IndexError('list index out of range')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.PASSES, "test-raise",
                        registry.PassInfo("test-raise", "Raise an exception", "raising_pass:run"))
    monkeypatch.setenv(isolation.REPRODUCER_DIR_VARIABLE, str(tmp_path / "reproducers"))
    monkeypatch.setenv("TENSORAD_ISOLATE", "1")
    module = ir.Module.parse(SOURCE, make_context())
    with pytest.raises(isolation.PassCrash, match="internal error in pass 'test-raise': IndexError") as info:
        isolation.run_isolated(module, "canonicalize,test-raise")
    assert info.value.element == "test-raise"
    assert isolation.reproducer_pipeline(open(info.value.reproducer).read()) == "builtin.module(test-raise)"


@pytest.fixture
def pid_pass(tmp_path, monkeypatch):
    """Register ``test-pid``, a pass that returns the process it runs in and one environment variable."""
    (tmp_path / "pid_pass.py").write_text("import os\n\ndef run(op, pass_):\n"
                                         "    return os.getpid(), os.environ.get('TENSORAD_TEST_VALUE')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(registry.PASSES, "test-pid", registry.PassInfo("test-pid", "Say where", "pid_pass:run"))
    monkeypatch.setenv("TENSORAD_ISOLATE", "1")


def _where(context=None) -> tuple:
    """(pid, TENSORAD_TEST_VALUE) of the process that ran ``test-pid`` as the compiler's stages run."""
    results = registry.PassResults()
    module = ir.Module.parse(SOURCE, context or compiler.TraceState.context())
    isolation.run_isolated(module, "", stages=[("", "test-pid")], results=results, persistent=True)
    return results.last("test-pid")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_the_compile_worker_serves_one_compilation_after_another(pid_pass):
    first, _ = _where()
    assert first != os.getpid()
    assert _where()[0] == first  # the same child, forked once
    os.environ["TENSORAD_TEST_VALUE"] = "seen"  # not monkeypatch's: its patches fork the worker again
    try:
        assert _where() == (first, "seen")  # the environment as it is at each request
    finally:
        del os.environ["TENSORAD_TEST_VALUE"]
    assert _where(make_context())[0] != first  # another context: a worker of its own
    isolation.restart_worker()
    assert _where()[0] not in (first, os.getpid())


def _children() -> set:
    """The processes this one forked that still run (from /proc)."""
    found = set()
    for name in os.listdir("/proc"):
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):  # not a process, or one that ended meanwhile
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z":
            found.add(int(name))
    return found


@pytest.mark.skipif(not hasattr(os, "fork") or not os.path.isdir("/proc"), reason="needs os.fork and /proc")
def test_the_worker_is_forked_before_the_first_trace_and_runs_its_stages(pid_pass, monkeypatch):
    monkeypatch.delenv("TENSORAD_COMPILE_CACHE", raising=False)
    isolation.restart_worker()
    before = _children()
    traced = []

    def f(x):
        traced.append(_children() - before)  # while tracing: the worker exists already
        return x * 2.0

    lowered = ta.jit(f).lower(np.ones(3))
    [(worker,)] = traced
    assert _where()[0] == worker  # the stages run in it
    assert "arith.mulf" in lowered.as_text("tad")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_crashed_compile_worker_is_forked_again(aborting_pass, pid_pass):
    before, _ = _where()
    module = ir.Module.parse(SOURCE, compiler.TraceState.context())
    with pytest.raises(isolation.PassCrash, match=r"pass 'test-abort' crashed \(SIGABRT\)"):
        isolation.run_isolated(module, "", stages=[("", "test-abort")], persistent=True)
    after, _ = _where()
    assert after not in (before, os.getpid())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_the_compile_worker_retires_after_its_requests(pid_pass, monkeypatch):
    monkeypatch.setattr(isolation, "WORKER_REQUESTS", 2)
    pids = [_where()[0] for _ in range(5)]
    assert pids[0] == pids[1] != pids[2] == pids[3] != pids[4]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_a_fork_of_the_process_compiles_with_a_worker_of_its_own(pid_pass):
    parent_worker, _ = _where()
    in_fork = isolation.fork_call(lambda: (os.getpid(), _where()[0]))
    assert in_fork[1] not in (parent_worker, in_fork[0], os.getpid())
    assert _where()[0] == parent_worker  # the parent's worker was left as it was


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_an_error_meanwhile_is_raised_and_the_worker_lives_on(pid_pass):
    first, _ = _where()
    module = ir.Module.parse(SOURCE, compiler.TraceState.context())
    with pytest.raises(ZeroDivisionError):
        isolation.run_isolated(module, "", stages=[("", "test-pid")], persistent=True, meanwhile=lambda: 1 / 0)
    assert _where()[0] == first
