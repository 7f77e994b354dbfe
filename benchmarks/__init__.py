"""tensorad's benchmark suite: W1..W6 and dispatch against numpy, JAX and PyTorch in one run.

Run ``python -m benchmarks`` from the repository root (``--help`` lists the
options); ``pip install -e ".[bench]"`` installs the peers and matplotlib.
The workloads are in :mod:`benchmarks.workloads`, the timing, table, JSON
and chart in :mod:`benchmarks.suite`, the CPU's peak in
:mod:`benchmarks.machine`.
"""
