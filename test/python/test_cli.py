"""autodiff-opt on malformed input: a clear error and a non-zero exit, never a traceback, a 0:0 location or a crash.

A representative subset of the sweep of issue 13 (about 150 malformed inputs:
truncated files, bad tad attributes, bad declarations, bad flags and option
values, garbage, unwritable files). Cases run in-process through ``main``
(each chunk already runs in a forked child); the ones that abort inside LLVM
run in a subprocess.
"""

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
    ("--tad-remat=tier=bogus", ["option 'tier' cannot be 'bogus'", "auto, chain, exact, mincut, greedy"]),
    ("--tad-remat=time-limit=nan", ["option 'time-limit' cannot be 'nan'", "a positive number of seconds"]),
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
    ("func.func @f(%x: f64) -> f64 {\n  return %x : f64\n}\n" + declaration("(f64, f64) -> (f64, f64)"),
     "input 0 has type f64, and tad-differentiate works on ranked tensors"),
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
