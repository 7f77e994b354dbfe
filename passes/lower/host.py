"""What the generated CPU code is tuned for: the host's vector width and thread count.

The code is JIT-compiled for the machine it runs on (the ExecutionEngine
targets the host CPU), so tile sizes follow the host's widest vector
registers, read from the CPU feature flags the kernel reports, and the number
of threads follows ``TENSORAD_NUM_THREADS`` or else the cores this process may
run on.

Examples
--------
>>> vector_bits() in (128, 256, 512)
True
>>> num_threads() >= 1
True
"""

from __future__ import annotations

import functools
import os

THREADS_VARIABLE = "TENSORAD_NUM_THREADS"

# Widest vector registers per x86 feature flag of /proc/cpuinfo, widest first.
_X86_VECTOR_BITS = (("avx512f", 512), ("avx2", 256), ("avx", 256))
# SSE2 on x86-64 and NEON on AArch64 are baseline: 128-bit registers.
_BASELINE_VECTOR_BITS = 128


@functools.lru_cache(maxsize=None)
def cpu_flags() -> frozenset:
    """The host CPU's feature flags from ``/proc/cpuinfo`` (empty where that file does not exist).

    Examples
    --------
    >>> isinstance(cpu_flags(), frozenset)
    True
    """
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() in ("flags", "Features"):  # x86, AArch64
                    return frozenset(value.split())
    except OSError:
        pass
    return frozenset()


def vector_bits() -> int:
    """Width in bits of the host's widest vector registers usable for float math.

    Examples
    --------
    >>> vector_bits() % 128
    0
    """
    flags = cpu_flags()
    return next((bits for flag, bits in _X86_VECTOR_BITS if flag in flags), _BASELINE_VECTOR_BITS)


def available_cores() -> int:
    """Number of cores this process may run on.

    Examples
    --------
    >>> available_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def num_threads() -> int:
    """Threads compiled code splits its work over: ``TENSORAD_NUM_THREADS``, else every available core.

    Raises
    ------
    ValueError
        If ``TENSORAD_NUM_THREADS`` is set to something other than a positive integer.

    Examples
    --------
    >>> import os
    >>> os.environ["TENSORAD_NUM_THREADS"] = "3"
    >>> num_threads()
    3
    >>> del os.environ["TENSORAD_NUM_THREADS"]
    """
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if not text:
        return available_cores()
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{THREADS_VARIABLE} must be a positive integer, got {text!r}")
    return int(text)
