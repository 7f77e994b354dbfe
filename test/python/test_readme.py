"""Every command of README.md runs: the shell commands and Python snippets of its code blocks.

The blocks run in README order in one scratch folder that links the
repository's files, so what they write (``build/mlp_grad``, ``build/fuzz``)
lands there and a later block can use it (the export one-liner loads the
library the snippet before it exported). Three kinds of command are not run
as written, each for a reason checked here instead:

* set-up steps (``python3 -m venv``, activating it, ``pip install``) would
  change the environment the tests run in: making the environment is what
  ``.ci/run`` does, so those steps must be ``.ci/run``'s, and a ``pip install
  -e ".[extra]"`` must name an extra of pyproject.toml, pinned; the steps
  after them (the demo) run, except the test suite itself (``lit``,
  ``pytest``), which is ``.ci/run``'s too;
* workloads that take minutes at the README's size run at the small size
  :data:`SMALL` gives (the same script and flags, fewer epochs or layers).

A command whose input file is a placeholder (``autodiff-opt in.mlir ...``)
gets the file from :data:`FIXTURES`; one naming a placeholder not there fails
and says so.
"""

from __future__ import annotations

import ctypes.util
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
CI = ROOT / ".ci" / "run"

# README command -> the same command at a size that runs in seconds.
SMALL = {
    "python examples/train_mlp_digits.py": "python examples/train_mlp_digits.py --epochs 1",
    "python examples/train_cnn_digits.py": "python examples/train_cnn_digits.py --epochs 1",
    "python examples/train_char_rnn.py": "python examples/train_char_rnn.py --epochs 1",
    "python examples/train_cells_digits.py": "python examples/train_cells_digits.py --epochs 1",
    "python benchmarks/te_gradients.py": "python benchmarks/te_gradients.py --small",
    "python benchmarks/remat_chain.py --small":
        "python benchmarks/remat_chain.py --layers 2 --width 8 --batch 8 --reps 1",
    "python benchmarks/remat_chain.py":
        "python benchmarks/remat_chain.py --layers 2 --width 8 --batch 8 --reps 1",
    "python -m benchmarks": "python -m benchmarks --tiny --only W6 --reps 1 --warmup 0",
    "python -m benchmarks --quick --only W1,W6 --peers jax":
        "python -m benchmarks --tiny --quick --only W1,W6 --peers jax --reps 1 --warmup 0",
    "python -m tensorad.fuzz --programs 500 --ir 100 --seed 0 --jobs 2 --out build/fuzz":
        "python -m tensorad.fuzz --programs 2 --ir 2 --seed 0 --jobs 1 --out build/fuzz",
    "mpiexec -n 2 python examples/train_mlp_digits.py": "mpiexec -n 2 python examples/train_mlp_digits.py --epochs 1",
    "python benchmarks/distributed.py": "python benchmarks/distributed.py --rounds 1 --steps 2 --warmup 1",
}

# Input files the README's commands name as placeholders. grads.mlir and
# grad.mlir hold the README's own `tad.vjp` declaration (the ```mlir block).
_F = """func.func @f(%a: tensor<8xf64>, %b: tensor<8xf64>) -> tensor<f64> {
  %0 = arith.mulf %a, %b : tensor<8xf64>
  %1 = math.tanh %0 : tensor<8xf64>
  %2 = "tad.reduce_sum"(%1) {dimensions = array<i64: 0>} : (tensor<8xf64>) -> tensor<f64>
  return %2 : tensor<f64>
}
"""
_MAIN = """func.func @main(%a: tensor<8xf64>, %b: tensor<8xf64>) -> (tensor<f64>, tensor<8xf64>) {
  %one = arith.constant dense<1.0> : tensor<f64>
  %0:2 = call @f_vjp(%a, %b, %one) : (tensor<8xf64>, tensor<8xf64>, tensor<f64>) -> (tensor<f64>, tensor<8xf64>)
  return %0#0, %0#1 : tensor<f64>, tensor<8xf64>
}
"""
_ERRORS = """func.func @missing_attribute(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'tad.transpose' op attribute "permutation" is expected but not provided}}
  %0 = "tad.transpose"(%x) : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @operand_count(%x: tensor<2xf32>) {
  // expected-error @+1 {{expects exactly 1 operands, but got 2}}
  %0 = "tad.transpose"(%x, %x) {permutation = array<i64: 0>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return
}
"""


def readme_blocks() -> list:
    """``(line, language, text)`` of each fenced code block of the README."""
    blocks, lines = [], README.read_text().splitlines()
    i = 0
    while i < len(lines):
        opening = re.match(r"^```(\w*)\s*$", lines[i])
        if opening:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            blocks.append((i + 1, opening.group(1), "\n".join(lines[i + 1:end]) + "\n"))
            i = end
        i += 1
    return blocks


def declaration_block() -> str:
    """The README's ```mlir block that declares a derivative."""
    (text,) = [text for _, language, text in readme_blocks() if language == "mlir" and "tad.vjp" in text]
    return text


FIXTURES = {
    "in.mlir": lambda: _F,
    "grads.mlir": lambda: _F + declaration_block(),
    "grad.mlir": lambda: _F + declaration_block() + _MAIN,
    "errors.mlir": lambda: _ERRORS,
}


def _split_outside_quotes(line: str, separator: str) -> list:
    """``line`` split at ``separator`` where it is not quoted; a ``#`` separator drops the comment."""
    parts, quote, start, i = [], None, 0, 0
    while i < len(line):
        ch = line[i]
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif line.startswith(separator, i) and (separator != "#" or i == 0 or line[i - 1].isspace()):
            parts.append(line[start:i])
            start = i = i + len(separator)
            continue
        i += 1
    return parts + [line[start:]]


def shell_commands(text: str) -> list:
    """The commands of an ``sh`` block, comments dropped."""
    commands = [_split_outside_quotes(line, "#")[0].strip() for line in text.splitlines()]
    return [c for c in commands if c]


def steps(command: str) -> list:
    return [s.strip() for s in _split_outside_quotes(command, "&&")]


def ci_steps() -> set:
    """The commands ``.ci/run`` runs, ``--quiet`` and comments dropped."""
    found = set()
    for line in CI.read_text().splitlines():
        line = _split_outside_quotes(line, "#")[0].replace(" --quiet", "").strip()
        if line:
            found.add(line)
    return found


def check_pip_install(step: str) -> None:
    """``pip install -e <project>[extras]``: the project CI installs, extras that exist and are pinned."""
    words = shlex.split(step)
    assert words[:3] == ["pip", "install", "-e"] and len(words) == 4, f"unexpected install step: {step}"
    project, _, extras = words[3].partition("[")
    assert project == ".", step
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for extra in filter(None, extras.rstrip("]").split(",")):
        assert extra in declared, f"{step}: pyproject.toml has no extra '{extra}'"
        unpinned = [r for r in declared[extra] if "==" not in r]
        assert not unpinned, f"extra '{extra}' has unpinned requirements {unpinned}"


def check_against_ci(command: str) -> list:
    """Check the set-up steps of ``command`` against ``.ci/run``; return the steps left to run."""
    ci, left = ci_steps(), []
    for step in steps(command):
        if step in ci:
            continue
        if step.startswith("pip install"):
            check_pip_install(step)
        else:
            assert not step.startswith(("python3 -m venv", ". ", "source ")), \
                f"README set-up step {step!r} is not a step of .ci/run"
            left.append(step)
    return left


def provide_inputs(command: str, folder: Path) -> None:
    """Write the placeholder input files ``command`` reads (those no earlier step writes)."""
    written = set()
    for step in steps(command):
        words = shlex.split(step)
        for before, word in zip([""] + words, words):
            if before == "-o":
                written.add(word)
            elif re.fullmatch(r"[\w./-]+\.mlir(bc)?", word) and word not in written \
                    and not (folder / word).exists():
                assert word in FIXTURES, f"README command {command!r} reads {word}: add it to FIXTURES"
                (folder / word).write_text(FIXTURES[word]())


def has_cuda_driver() -> bool:
    return ctypes.util.find_library("cuda") is not None


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    """A folder that links the repository's files but has its own ``build/``."""
    folder = tmp_path_factory.mktemp("readme")
    for entry in ROOT.iterdir():
        if entry.name not in ("build", ".venv", ".git") and not entry.name.endswith(".egg-info"):
            (folder / entry.name).symlink_to(entry)
    return folder


def run(command: str, folder: Path, timeout: int = 180) -> subprocess.CompletedProcess:
    """Run ``command`` with bash in ``folder``, in this test environment activated (as the README asks)."""
    assert "pip install" not in command, "installing would change the environment the tests run in"
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ["PATH"]]),
               VIRTUAL_ENV=sys.prefix, MPLBACKEND="Agg")
    return subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _cases() -> list:
    """One case per command of an sh block and per python block, in README order."""
    cases, seen = [], set()
    for line, language, text in readme_blocks():
        if language == "sh":
            for command in shell_commands(text):
                small = SMALL.get(command, command)
                if small not in seen:  # two README sizes of one workload run once here
                    seen.add(small)
                    cases.append(pytest.param("sh", command, id=f"L{line}: {command[:60]}"))
        elif language == "python":
            cases.append(pytest.param("python", text, id=f"L{line}: python"))
    return cases


@pytest.mark.parametrize("kind, text", _cases())
def test_readme_command_runs(kind, text, scratch):
    if kind == "python":
        snippet = scratch / "readme_snippet.py"
        snippet.write_text(text)
        done = run(f"python {snippet.name}", scratch)
        if done.returncode and 'device="gpu"' in text and not has_cuda_driver():
            # The snippet's own comment: running GPU code needs libcuda.so.1, else DeviceError.
            assert "tensorad.errors.DeviceError" in done.stderr, done.stderr[-3000:]
            return
    else:
        left = check_against_ci(text)
        if not left:
            return  # set-up steps, checked, or steps .ci/run runs (the test suite itself)
        command = SMALL.get(text, " && ".join(left))
        provide_inputs(command, scratch)
        done = run(command, scratch)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


def test_every_readme_block_is_a_command_or_listed_here():
    """Blocks that are not commands are IR, C or output: a new language here must be handled above."""
    languages = {language for _, language, _ in readme_blocks()}
    assert languages <= {"sh", "python", "mlir", "c", "text"}, languages
    assert set(SMALL) <= {c for _, language, text in readme_blocks() if language == "sh"
                          for c in shell_commands(text)}, "SMALL names a command the README no longer has"


@pytest.mark.skipif(shutil.which("cmake") is None, reason="the CMake route needs cmake, which CI does not install")
def test_cmake_route_configures_from_the_test_environment(tmp_path):
    """The README's CMake command: configure, and the target exists (building it runs the suite, as .ci/run does)."""
    command = "cmake -S . -B build && cmake --build build --target check-autodiff"
    assert f"`{command}`" in README.read_text()
    configure = run(f"cmake -S {shlex.quote(str(ROOT))} -B {shlex.quote(str(tmp_path / 'build'))}", tmp_path)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    targets = run(f"cmake --build {shlex.quote(str(tmp_path / 'build'))} --target help", tmp_path)
    assert "check-autodiff" in targets.stdout
