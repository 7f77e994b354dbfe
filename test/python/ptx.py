"""PTX checks that need no GPU: the kernels' text from the "nvvm" stage, assembled by ``ptxas`` where one is found."""

from __future__ import annotations

import functools
import importlib.util
import os
import re
import shutil
import subprocess

import pytest

_ESCAPE = re.compile(r"\\([0-9A-F]{2})")


def kernels_of(nvvm_text: str) -> list[str]:
    """The PTX of every ``gpu.binary`` in the IR of the "nvvm" stage (its string attribute unescaped)."""
    unescape = functools.partial(_ESCAPE.sub, lambda m: chr(int(m[1], 16)))
    return [unescape(s) for s in re.findall(r'assembly = "(.*?)"', nvvm_text)]


def ptxas() -> str | None:
    """The CUDA toolkit's PTX assembler if this machine has one, else the ``nvidia-cuda-nvcc-cu12`` wheel's."""
    found = shutil.which("ptxas") or shutil.which("ptxas", path="/usr/local/cuda/bin")
    if found is None and importlib.util.find_spec("nvidia") is not None:
        wheel = importlib.util.find_spec("nvidia.cuda_nvcc")
        if wheel is not None:
            found = shutil.which("ptxas", path=os.pathsep.join(
                os.path.join(folder, "bin") for folder in wheel.submodule_search_locations))
    return found


def assemble(kernels: list[str], folder, arch: str = "sm_90") -> None:
    """Assemble each kernel with ``ptxas``; fail on its first error, skip the test without ``ptxas``.

    Call it last: the checks before it have run (and passed) when it skips.
    """
    tool = ptxas()
    if tool is None:
        pytest.skip("no ptxas (CUDA toolkit or nvidia-cuda-nvcc-cu12): the PTX text was checked, "
                    "not assembled")
    for k, ptx in enumerate(kernels):
        path = folder / f"kernel{k}.ptx"
        path.write_text(ptx)
        done = subprocess.run([tool, f"-arch={arch}", str(path), "-o", str(folder / f"kernel{k}.cubin")],
                              capture_output=True, text=True)
        assert done.returncode == 0, f"ptxas rejected kernel {k}:\n{done.stderr}"
