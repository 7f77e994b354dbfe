"""The benchmark suite runs end to end (tiny sizes, two timed runs), so it cannot rot.

Every framework that is installed computes every workload it has, and all of
them agree with tensorad's loss and gradients.
"""

from __future__ import annotations

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)

from benchmarks.__main__ import main  # noqa: E402
from benchmarks.workloads import WORKLOADS  # noqa: E402


def test_suite_runs_on_tiny_sizes_and_frameworks_agree(tmp_path):
    # torch.compile takes seconds per workload to compile: it is left to the real runs.
    report = main(["--tiny", "--quick", "--reps", "2", "--warmup", "0",
                   "--peers", "numpy,jax,torch", "--out", str(tmp_path)])
    assert set(report["workloads"]) == {cls.key for cls in WORKLOADS}
    for key, entry in report["workloads"].items():
        results = entry["results"]
        assert results["tensorad"]["median_s"] is not None, (key, results["tensorad"]["status"])
        for name, result in results.items():
            if result["status"] == "ok":
                assert len(result["times_s"]) == 2
                assert result["max_rel_diff"] < 1e-4, (key, name, result["max_rel_diff"])
    saved = json.loads((tmp_path / "results.json").read_text())
    assert saved["machine"]["peak_gflops"] > 0 and "GFLOP/s" in saved["machine"]["peak_derivation"]
    pytest.importorskip("matplotlib")
    assert (tmp_path / "ratios.png").stat().st_size > 0


def test_a_first_call_is_timed_after_the_framework_is_imported():
    # tensorad imports its compiler when first used: its first call would otherwise time Python's imports,
    # which JAX and PyTorch do in `import jax` / `import torch`, before their timers start.
    import subprocess
    code = ("import sys; from benchmarks import peers; peers.prepare('tensorad'); "
            "from tensorad.passes.registry import PASSES; "
            "print(all(info.target.partition(':')[0] in sys.modules for info in PASSES.values()))")
    shown = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "True"
