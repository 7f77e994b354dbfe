"""Devices, as JAX names them: ``devices``, ``device_put``, ``device_get``, ``default_backend``.

tensorad's arrays are numpy arrays in host memory: compiled code reads and
writes them there, GPU code (``jit(..., device="gpu")``) copies its inputs
to the device and its results back. So the one device an array lives on is
the CPU, ``device_put`` gives a numpy array (a copy, as JAX's is a new
array) and ``device_get`` numpy arrays; the GPU is listed, by
``devices("gpu")``, when a CUDA driver can be loaded. Code written for JAX
that asks for devices or moves arrays runs unchanged.

Examples
--------
>>> import numpy as np
>>> devices()[0].platform, default_backend(), device_count()
('cpu', 'cpu', 1)
>>> device_get({"w": device_put(np.arange(3.0))})["w"] * 2
array([0., 2., 4.])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import tree
from .runtime import cuda_available

BACKENDS = ("cpu", "gpu")


@dataclass(frozen=True)
class Device:
    """A device code runs on: ``platform`` ``"cpu"`` or ``"gpu"``, and its ``id``."""

    platform: str
    id: int = 0

    @property
    def device_kind(self) -> str:
        """What JAX's ``Device.device_kind`` says: ``"cpu"``, or ``"gpu"``."""
        return self.platform

    def __str__(self) -> str:
        return f"{self.platform.upper()}_{self.id}"


def devices(backend: str | None = None) -> list:
    """The devices of ``backend`` (default: the CPU's); a GPU's only where a CUDA driver loads.

    Raises
    ------
    RuntimeError
        For ``backend="gpu"`` without a CUDA driver, as JAX without one.

    Examples
    --------
    >>> [str(d) for d in devices("cpu")]
    ['CPU_0']
    """
    platform = default_backend() if backend is None else backend
    if platform not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; choose one of {BACKENDS}")
    if platform == "gpu" and not cuda_available():
        raise RuntimeError("Unknown backend: 'gpu' requested, but no CUDA driver could be loaded")
    return [Device(platform)]


def local_devices(backend: str | None = None) -> list:
    """:func:`devices`: every device is local to this process."""
    return devices(backend)


def device_count(backend: str | None = None) -> int:
    """How many devices :func:`devices` lists (one)."""
    return len(devices(backend))


def local_device_count(backend: str | None = None) -> int:
    """:func:`device_count`: every device is local to this process."""
    return device_count(backend)


def default_backend() -> str:
    """``"cpu"``: arrays live in host memory, and ``jit`` compiles for the CPU unless ``device="gpu"``."""
    return "cpu"


def device_put(x, device: Device | str | None = None):
    """``x`` (a pytree) as numpy arrays in host memory, copied; ``device`` is checked, not used.

    Examples
    --------
    >>> a = np.ones(2)
    >>> b = device_put(a, devices()[0]); b[0] = 5.0
    >>> a
    array([1., 1.])
    """
    if device is not None:
        platform = device.platform if isinstance(device, Device) else device
        devices(platform)  # an unknown or absent device is refused as JAX refuses it
    return tree.tree_map(lambda leaf: np.array(leaf), x)


def device_get(x):
    """``x`` (a pytree) with its arrays as numpy arrays (no copy of those that are already).

    Examples
    --------
    >>> device_get([np.float32(1.5), (np.zeros(1),)])
    [array(1.5, dtype=float32), (array([0.]),)]
    """
    return tree.tree_map(np.asarray, x)
