"""``tad-lower-to-nvvm``: the named pipeline from tensors to NVIDIA GPU kernels (PTX) and host LLVM.

Stages, in order:

1. the tensor stages of ``tad-lower-to-llvm`` (elementwise ops fused into
   ``linalg.generic``), then one-shot bufferization;
2. ``tad-copy-arguments-to-device``: arguments and constants are copied
   into fresh buffers, then ownership-based deallocation as on the CPU;
3. ``tad-allocate-on-device``: every buffer is CUDA managed memory
   (``gpu.alloc host_shared``), the copies of step 2 become
   ``gpu.memcpy``; ``tad-map-to-gpu``: every linalg op and buffer copy
   becomes a ``gpu.launch`` (tiles to blocks and threads with
   ``scf.forall`` and the transform dialect; contractions through 32 x 32
   tiles of workgroup memory with ``gpu.barrier``);
4. ``convert-math-to-funcs`` (integer powers become functions, which
   ``gpu-kernel-outlining`` then copies into the kernels' modules);
5. ``nvvm-attach-target``, ``gpu.module(convert-gpu-to-nvvm)`` (other math
   ops call libdevice's ``__nv_*`` functions, which ``gpu-module-to-binary``
   links from the copy embedded in the MLIR package, so no CUDA toolkit is
   needed, and inlines), ``tad-native-gpu-math`` (float32 ``sqrt`` as the
   correctly rounded ``sqrt.rn``, not libdevice's ``sqrt.approx``), the host
   code to LLVM as on the CPU, ``gpu-to-llvm`` (launches and allocations
   become calls of ``libmlir_cuda_runtime.so``'s ``mgpu*`` functions), and
   ``gpu-module-to-binary``: the kernels as PTX text (``format=isa``) in a
   ``gpu.binary``, which the CUDA driver compiles when the module is loaded
   (no ``ptxas`` needed), or ``format=llvm`` / ``offloading`` for the NVVM IR.

PTX versions: each ``chip`` gets the oldest PTX ISA that supports it, so
the oldest CUDA driver that knows the chip can load the kernels:

=========  ==========  =====================
chip       features    CUDA driver at least
=========  ==========  =====================
sm_70      +ptx60      9.0
sm_75      +ptx63      10.0
sm_80      +ptx70      11.0
sm_86      +ptx71      11.1
sm_89      +ptx78      11.8
sm_90      +ptx80      12.0
sm_90a     +ptx80      12.0
sm_100     +ptx86      12.8
sm_120     +ptx87      12.8
=========  ==========  =====================

Examples
--------
>>> "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3}" in pipeline()
True
>>> "features=+ptx70" in pipeline(NVVMOptions(chip="sm_80"))
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ..options import option
from .to_llvm import BUFFERIZE, DEALLOC_STAGES, LLVM_STAGES, LOOP_STAGES, TENSOR_STAGES

PTX_FEATURES = {"sm_70": "+ptx60", "sm_75": "+ptx63", "sm_80": "+ptx70", "sm_86": "+ptx71", "sm_89": "+ptx78",
                "sm_90": "+ptx80", "sm_90a": "+ptx80", "sm_100": "+ptx86", "sm_120": "+ptx87"}
FORMATS = ("isa", "llvm", "offloading", "bin", "fatbin")


@dataclass(frozen=True)
class NVVMOptions:
    """The options of ``tad-lower-to-nvvm`` (``tad-lower-to-nvvm{chip=sm_80 format=llvm}``)."""

    chip: str = option("sm_90", "the GPU architecture, sm_XX", check=lambda chip: re.fullmatch(r"sm_\w+", chip),
                       accepted="sm_XX")
    features: str = option("", "PTX ISA version, +ptxNN (default: the oldest that supports the chip)",
                           check=lambda text: re.fullmatch(r"\+ptx[0-9]+", text), accepted="+ptxNN")
    format: Literal[FORMATS] = option("isa", "what gpu-module-to-binary embeds: isa (PTX text), llvm or "
                                      "offloading (NVVM IR), bin or fatbin (need ptxas)")
    opt_level: int = option(3, "LLVM optimization level of the kernels", check=lambda level: 0 <= level <= 3,
                            accepted="0, 1, 2 or 3")

    def __post_init__(self):
        if not self.features and self.chip not in PTX_FEATURES:
            raise ValueError(f"unknown chip '{self.chip}': choose one of {', '.join(PTX_FEATURES)}, "
                             "or give its PTX version as features=+ptxNN")


def pipeline(options: NVVMOptions = NVVMOptions()) -> str:
    """Return the pipeline text of ``tad-lower-to-nvvm``.

    Raises
    ------
    ValueError
        (from :class:`NVVMOptions`) for a chip without a known PTX version
        when ``features`` is empty.

    Examples
    --------
    >>> pipeline(NVVMOptions(format="llvm")).endswith("gpu-module-to-binary{format=llvm}")
    True
    """
    chip, format, opt_level = options.chip, options.format, options.opt_level
    features = options.features or PTX_FEATURES[chip]
    stages = [*TENSOR_STAGES, BUFFERIZE, "tad-copy-arguments-to-device", *DEALLOC_STAGES,
              "tad-allocate-on-device", "tad-map-to-gpu", "func.func(convert-linalg-to-loops)",
              "convert-math-to-funcs", "gpu-kernel-outlining", *LOOP_STAGES,
              f"nvvm-attach-target{{chip={chip} features={features} O={opt_level}}}",
              "gpu.module(convert-gpu-to-nvvm,canonicalize,reconcile-unrealized-casts)", "tad-native-gpu-math",
              *LLVM_STAGES, "gpu-to-llvm", "reconcile-unrealized-casts",
              f"gpu-module-to-binary{{format={format}}}"]
    return ",".join(stages)
