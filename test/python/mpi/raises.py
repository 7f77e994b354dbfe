"""Run by test_distributed.py under ``mpiexec -n 2``: process 1 raises while process 0 waits in a collective.

The job must end at once with process 1's error printed (``MPI_Abort`` from
tensorad.distributed's exception hook), not hang in process 0's psum.
"""

from __future__ import annotations

import numpy as np

from tensorad import distributed as dist

if dist.process_index() == 1:
    raise ValueError("process 1 fails on purpose")
dist.psum(np.ones(3))  # never completes: process 1 does not take part
print("unreachable: the psum returned", flush=True)
