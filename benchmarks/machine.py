"""The machine the benchmarks run on: CPU name, cores, vector width and peak float32 GFLOP/s.

The peak is derived, not looked up: clock x FMA units x float32 lanes x 2
flops per FMA x cores, each factor read from the host where it can be (the
clock from cpufreq or ``/proc/cpuinfo``, the lanes from the CPU's vector
extensions, the cores from this process's affinity mask); the number of FMA
units per core is not reported by the OS and is taken as 2, as on current
x86 server cores. :func:`describe` says where each factor came from.

Examples
--------
>>> peak = peak_gflops()
>>> peak.gflops > 0 and "GFLOP/s" in peak.derivation
True
"""

from __future__ import annotations

import platform
from dataclasses import dataclass

from tensorad.passes.lower.host import available_cores, cpu_flags, vector_bits

FMA_UNITS = 2
FLOPS_PER_FMA = 2
_MAX_FREQ_FILE = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq"


@dataclass(frozen=True)
class Peak:
    """Peak float32 throughput and the sentence that derives it."""

    gflops: float
    derivation: str


def _cpuinfo_field(name: str) -> str | None:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                key, _, value = line.partition(":")
                if key.strip() == name:
                    return value.strip()
    except OSError:
        pass
    return None


def clock_mhz() -> tuple:
    """``(MHz, where it came from)``: cpufreq's maximum, else ``/proc/cpuinfo``'s ``cpu MHz``."""
    try:
        with open(_MAX_FREQ_FILE) as f:
            return int(f.read()) / 1000.0, _MAX_FREQ_FILE
    except (OSError, ValueError):
        pass
    mhz = _cpuinfo_field("cpu MHz")
    if mhz is not None:
        return float(mhz), "/proc/cpuinfo 'cpu MHz'"
    return 0.0, "unknown (no cpufreq, no /proc/cpuinfo)"


def cpu_name() -> str:
    """The CPU's model name, or the platform's processor string."""
    return _cpuinfo_field("model name") or platform.processor() or "unknown CPU"


def peak_gflops() -> Peak:
    """Peak float32 GFLOP/s of this machine, with its derivation.

    Examples
    --------
    >>> "FMA units" in peak_gflops().derivation
    True
    """
    mhz, source = clock_mhz()
    bits = vector_bits()
    lanes = bits // 32
    flags = cpu_flags()
    widest = next((f for f in ("avx512f", "avx2", "avx") if f in flags), None)
    lane_source = f"{widest} in /proc/cpuinfo flags" if widest else "baseline 128-bit vectors"
    cores = available_cores()
    gflops = mhz / 1000.0 * FMA_UNITS * lanes * FLOPS_PER_FMA * cores
    derivation = (f"peak = {mhz:.0f} MHz ({source}) x {FMA_UNITS} FMA units (assumed) x "
                  f"{lanes} float32 lanes ({bits}-bit vectors: {lane_source}) x "
                  f"{FLOPS_PER_FMA} flops per FMA x {cores} cores (affinity mask) "
                  f"= {gflops:.1f} GFLOP/s")
    return Peak(gflops, derivation)


def describe() -> dict:
    """Facts about this machine for the results file."""
    peak = peak_gflops()
    return {"cpu": cpu_name(), "cores": available_cores(), "vector_bits": vector_bits(),
            "peak_gflops": peak.gflops, "peak_derivation": peak.derivation,
            "python": platform.python_version(), "platform": platform.platform()}
