"""The runtime: JIT-compiled functions called with numpy arrays, and the allocator.

Lowered code allocates through ``_mlir_memref_to_llvm_alloc/free`` (what
``finalize-memref-to-llvm{use-generic-functions=true}`` emits). This module
implements them with numpy buffers, so that

* every call can report its peak live bytes and what it left alive, and
* results come back as numpy arrays that own the buffer the compiled code
  allocated (no copy out, nothing to free by hand).

Inputs are passed without copies: descriptors point at the numpy data.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> f = ta.jit(lambda x: x * 2.0)
>>> y = f(np.ones(4))
>>> last_call_stats().live_allocations
0
"""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine

RUNTIME_LIBRARIES = ("libmlir_c_runner_utils.so",)


def mlir_library_dir() -> str:
    """Folder of the MLIR runtime libraries inside the installed ``mlir`` package."""
    return os.path.join(os.path.dirname(os.path.abspath(ir.__file__)), "lib")


@dataclass(frozen=True)
class CallStats:
    """Memory facts of one call of compiled code.

    Attributes
    ----------
    peak_live_bytes : int
        Most bytes the call held allocated at once (requested sizes, including
        alignment padding), results included.
    live_allocations : int
        Allocations of compiled code still alive after the call, not counting
        the results handed back: 0 unless something leaks.
    allocations : int
        Number of allocations the call made.
    """

    peak_live_bytes: int
    live_allocations: int
    allocations: int


class Allocator:
    """Implements the generic allocation hooks with numpy buffers and counts live bytes."""

    def __init__(self):
        self.buffers: dict[int, np.ndarray] = {}
        self.live_bytes = 0
        self.peak_bytes = 0
        self.count = 0
        self.alloc_hook = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64)(self._alloc)
        self.free_hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self._free)

    def _alloc(self, size: int) -> int:
        buf = np.empty(max(size, 1), np.uint8)
        address = buf.ctypes.data
        self.buffers[address] = buf
        self.live_bytes += buf.nbytes
        self.count += 1
        if self.live_bytes > self.peak_bytes:
            self.peak_bytes = self.live_bytes
        return address

    def _free(self, address: int) -> None:
        buf = self.buffers.pop(address, None)
        if buf is not None:
            self.live_bytes -= buf.nbytes

    def take(self, address: int) -> np.ndarray | None:
        """Hand the buffer at ``address`` over to the caller (it stops counting as live)."""
        buf = self.buffers.pop(address, None)
        if buf is not None:
            self.live_bytes -= buf.nbytes
        return buf

    def register(self, engine: ExecutionEngine) -> None:
        """Make ``engine``'s code allocate through this allocator."""
        engine.raw_register_runtime("_mlir_memref_to_llvm_alloc",
                                    ctypes.cast(self.alloc_hook, ctypes.c_void_p))
        engine.raw_register_runtime("_mlir_memref_to_llvm_free",
                                    ctypes.cast(self.free_hook, ctypes.c_void_p))


ALLOCATOR = Allocator()
_last_stats = CallStats(0, 0, 0)


def last_call_stats() -> CallStats:
    """Memory facts of the most recent call of any compiled function.

    Examples
    --------
    >>> isinstance(last_call_stats().peak_live_bytes, int)
    True
    """
    return _last_stats


def live_bytes() -> int:
    """Bytes currently allocated by compiled code and not yet handed back or freed."""
    return ALLOCATOR.live_bytes


@lru_cache(maxsize=None)
def _descriptor_class(rank: int):
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("shape", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def _contiguous_strides(shape) -> list:
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return strides[::-1]


def _descriptor(shape):
    desc = _descriptor_class(len(shape))()
    if shape:
        desc.shape[:] = list(shape)
        desc.strides[:] = _contiguous_strides(shape)
    return desc


class Executable:
    """A compiled function: call it with contiguous numpy arrays of the traced shapes and dtypes.

    Parameters
    ----------
    module : mlir.ir.Module
        LLVM-dialect module holding ``name`` with ``llvm.emit_c_interface``.
    name : str
    in_avals, out_avals : sequence of (shape, dtype)
    opt_level : int
        LLVM optimization level.
    """

    def __init__(self, module: ir.Module, name: str, in_avals: Sequence, out_avals: Sequence,
                 opt_level: int = 3):
        libs = [os.path.join(mlir_library_dir(), lib) for lib in RUNTIME_LIBRARIES]
        self.engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libs)
        ALLOCATOR.register(self.engine)
        self.engine.initialize()
        address = self.engine.raw_lookup("_mlir_ciface_" + name)
        if not address:
            raise RuntimeError(f"compiled module has no function {name}")
        self._fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        self.out_avals = [(tuple(s), np.dtype(d)) for s, d in out_avals]
        self._in_descs = [_descriptor(shape) for shape, _ in in_avals]
        self._out_descs = [_descriptor(shape) for shape, _ in self.out_avals]
        if len(self._out_descs) > 1:
            fields = [(f"r{i}", type(d)) for i, d in enumerate(self._out_descs)]
            self._out_struct = type("Results", (ctypes.Structure,), {"_fields_": fields})()
            self._out_descs = [getattr(self._out_struct, f"r{i}") for i in range(len(fields))]
            targets = [self._out_struct]
        else:
            targets = list(self._out_descs)
        targets += self._in_descs
        # The packed interface takes pointers to each argument; a memref argument
        # is itself a pointer to its descriptor.
        self._pointers = [ctypes.c_void_p(ctypes.addressof(t)) for t in targets]
        self._packed = (ctypes.c_void_p * len(targets))(
            *[ctypes.addressof(p) for p in self._pointers])

    def __call__(self, arrays: Sequence[np.ndarray]) -> list:
        """Run on ``arrays`` (C-contiguous, matching dtypes) and return the results."""
        global _last_stats
        for desc, arr in zip(self._in_descs, arrays):
            desc.allocated = desc.aligned = arr.ctypes.data
        alloc = ALLOCATOR
        base, count = alloc.live_bytes, alloc.count
        alloc.peak_bytes = base
        self._fn(self._packed)
        peak = alloc.peak_bytes - base
        results = [self._result(desc, shape, dtype)
                   for desc, (shape, dtype) in zip(self._out_descs, self.out_avals)]
        _last_stats = CallStats(peak, len(alloc.buffers), alloc.count - count)
        return results

    @staticmethod
    def _result(desc, shape, dtype) -> np.ndarray:
        start = desc.aligned + desc.offset * dtype.itemsize
        buf = ALLOCATOR.take(desc.allocated)
        if buf is not None:
            return np.ndarray(shape, dtype, buffer=buf, offset=start - desc.allocated)
        # The result aliases memory we do not own (an input or a constant): copy it.
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        raw = (ctypes.c_uint8 * nbytes).from_address(start) if nbytes else b""
        return np.frombuffer(bytes(raw), dtype).reshape(shape).copy()

