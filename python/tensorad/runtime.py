"""The runtime: JIT-compiled functions called with numpy arrays, and the allocator.

Lowered code allocates through ``_mlir_memref_to_llvm_alloc/free`` (what
``finalize-memref-to-llvm{use-generic-functions=true}`` emits). This module
implements them with numpy buffers, so that

* every call can report its peak live bytes and what it left alive,
* results come back as numpy arrays that own the buffer the compiled code
  allocated (no copy out, nothing to free by hand), and
* large buffers are reused: freed ones, and those of results whose arrays
  are gone, serve the next allocations of their size, so a function called
  again touches no fresh pages.

Multi-threaded code runs its chunks on the thread pool of the MLIR async
runtime, loaded once per process.

Inputs are passed without copies: descriptors point at the numpy data.

GPU code (``device="gpu"``, lowered by ``tad-lower-to-nvvm``) runs through
``libmlir_cuda_runtime.so``: its ``mgpuMemAlloc``/``mgpuMemFree`` are
wrapped so that device (managed) memory is counted like host memory, and
results are copied out of device memory into numpy arrays, then freed.

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
import weakref
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine

from .errors import DeviceError

RUNTIME_LIBRARIES = ("libmlir_c_runner_utils.so",)
CUDA_RUNTIME_LIBRARY = "libmlir_cuda_runtime.so"
CUDA_DRIVER = "libcuda.so.1"
ASYNC_RUNTIME_LIBRARY = "libmlir_async_runtime.so"
# Functions of the async runtime that multi-threaded code calls (one is spelled "Runtim" upstream).
_ASYNC_PREFIX = "mlirAsyncRuntim"


def mlir_library_dir() -> str:
    """Folder of the MLIR runtime libraries inside the installed ``mlir`` package."""
    return os.path.join(os.path.dirname(os.path.abspath(ir.__file__)), "lib")


@lru_cache(maxsize=None)
def _async_runtime() -> ctypes.CDLL:
    """The MLIR async runtime, loaded once per process.

    Engines get its functions by address instead of loading it themselves:
    an engine that loads it calls its ``__mlir_execution_engine_destroy`` when
    it is freed, which destroys the process-wide runtime (thread pool
    included) under every other engine still using it.
    """
    return ctypes.CDLL(os.path.join(mlir_library_dir(), ASYNC_RUNTIME_LIBRARY))


def _async_functions(module: ir.Module) -> list:
    """Names of the async runtime functions that ``module`` (LLVM dialect) declares."""
    names = []
    for op in module.body.operations:
        if op.operation.name == "llvm.func":
            name = op.attributes["sym_name"].value
            if name.startswith(_ASYNC_PREFIX):
                names.append(name)
    return names


@lru_cache(maxsize=None)
def _cuda_runtime() -> ctypes.CDLL:
    """MLIR's CUDA runtime wrappers, loaded once per process; needs the CUDA driver."""
    try:
        ctypes.CDLL(CUDA_DRIVER)
    except OSError:
        raise DeviceError(f"device='gpu' needs an NVIDIA GPU and its CUDA driver ({CUDA_DRIVER}), "
                          "which this machine does not have; lower(...).as_text('nvvm') still shows "
                          "the GPU code and its PTX") from None
    lib = ctypes.CDLL(os.path.join(mlir_library_dir(), CUDA_RUNTIME_LIBRARY))
    lib.mgpuMemAlloc.restype = ctypes.c_void_p
    lib.mgpuMemAlloc.argtypes = [ctypes.c_uint64, ctypes.c_void_p, ctypes.c_bool]
    lib.mgpuMemFree.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    return lib


def cuda_available() -> bool:
    """Whether ``device="gpu"`` can run here (the CUDA driver loads).

    Examples
    --------
    >>> isinstance(cuda_available(), bool)
    True
    """
    try:
        _cuda_runtime()
    except (DeviceError, OSError):
        return False
    return True


@dataclass(frozen=True)
class CallStats:
    """Memory facts of one call of compiled code.

    Attributes
    ----------
    peak_live_bytes : int
        Most bytes the call held allocated at once (requested sizes, including
        alignment padding), results included; for GPU code, device bytes.
    live_allocations : int
        Allocations of compiled code still alive after the call, not counting
        the results handed back: 0 unless something leaks.
    allocations : int
        Number of allocations the call made.
    """

    peak_live_bytes: int
    live_allocations: int
    allocations: int


# A freed buffer of at least this many bytes is kept for the next allocation
# of its size: a fresh large buffer costs a page fault per 4 KiB page the
# first time it is written, which can take as long as the work done in it.
POOL_MIN_BYTES = 1 << 16


class Allocator:
    """Implements the generic allocation hooks with numpy buffers and counts live bytes.

    Freed large buffers, and those of results once their arrays are gone, are
    kept in a pool by size; the pool holds at most as many bytes as the
    largest single call has allocated, so calls that repeat reuse its buffers.
    """

    def __init__(self):
        self.buffers: dict[int, np.ndarray] = {}
        self.live_bytes = 0
        self.peak_bytes = 0
        self.count = 0
        self.allocated_bytes = 0
        self.pool: dict[int, list] = {}
        self.pooled_bytes = 0
        self.pool_limit = 0
        self.alloc_hook = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64)(self._alloc)
        self.free_hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self._free)

    def _alloc(self, size: int) -> int:
        size = max(size, 1)
        kept = self.pool.get(size)
        if kept:
            buf = kept.pop()
            self.pooled_bytes -= size
        else:
            buf = np.empty(size, np.uint8)
        address = buf.ctypes.data
        self.buffers[address] = buf
        self.count_allocation(size)
        return address

    def count_allocation(self, size: int) -> None:
        """Count ``size`` more live bytes (host or device)."""
        self.live_bytes += size
        self.allocated_bytes += size
        self.count += 1
        if self.live_bytes > self.peak_bytes:
            self.peak_bytes = self.live_bytes

    def _free(self, address: int) -> None:
        buf = self.buffers.pop(address, None)
        if buf is not None:
            self.live_bytes -= buf.nbytes
            self.keep(buf)

    def keep(self, buf: np.ndarray) -> None:
        """Put a buffer nobody uses any more into the pool, if it is large and there is room."""
        size = buf.nbytes
        if size >= POOL_MIN_BYTES and self.pooled_bytes + size <= self.pool_limit:
            self.pool.setdefault(size, []).append(buf)
            self.pooled_bytes += size

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


class DeviceMemory:
    """Wraps ``mgpuMemAlloc``/``mgpuMemFree`` of GPU code so that ``ALLOCATOR`` counts device bytes."""

    def __init__(self):
        self.sizes: dict[int, int] = {}
        self.alloc_hook = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                                           ctypes.c_bool)(self._alloc)
        self.free_hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(self.free)

    def _alloc(self, size: int, stream, host_shared: bool) -> int:
        address = _cuda_runtime().mgpuMemAlloc(size, stream, host_shared)
        self.sizes[address] = size
        ALLOCATOR.count_allocation(size)
        return address

    def free(self, address: int, stream=None) -> None:
        """Free device memory at ``address`` (a result once copied out, or from compiled code)."""
        size = self.sizes.pop(address, None)
        if size is not None:
            ALLOCATOR.live_bytes -= size
            _cuda_runtime().mgpuMemFree(address, stream)

    def register(self, engine: ExecutionEngine) -> None:
        """Make ``engine``'s GPU code allocate through these hooks."""
        engine.raw_register_runtime("mgpuMemAlloc", ctypes.cast(self.alloc_hook, ctypes.c_void_p))
        engine.raw_register_runtime("mgpuMemFree", ctypes.cast(self.free_hook, ctypes.c_void_p))


class _Recycled:
    """The base of a large result array: its buffer goes back to the pool when the array is gone."""

    __slots__ = ("__array_interface__", "_buf")

    def __init__(self, buf: np.ndarray, shape, dtype: np.dtype, start: int):
        self._buf = buf
        self.__array_interface__ = {"data": (start, False), "shape": shape, "typestr": dtype.str,
                                    "version": 3}

    def __del__(self):
        ALLOCATOR.keep(self._buf)


ALLOCATOR = Allocator()
DEVICE_MEMORY = DeviceMemory()
# (peak live bytes, live allocations, allocations) of the last call: a CallStats
# is built only when asked for, not on every call.
_last_counts = (0, 0, 0)


def last_call_stats() -> CallStats:
    """Memory facts of the most recent call of any compiled function.

    Examples
    --------
    >>> isinstance(last_call_stats().peak_live_bytes, int)
    True
    """
    return CallStats(*_last_counts)


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


# Defined by tad-define-thread-launchers in a module with thread loops.
QUIESCE_THREADS = "__tad_quiesce_threads"


def _quiesce(function, engine) -> None:
    """Call ``function``, the module's quiesce function; ``engine`` lives until then."""
    function()


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
    device : str
        ``"gpu"`` for a module from ``tad-lower-to-nvvm``: loads the CUDA
        runtime wrappers, or raises ``DeviceError`` without a CUDA driver.
    """

    def __init__(self, module: ir.Module, name: str, in_avals: Sequence, out_avals: Sequence,
                 opt_level: int = 3, device: str = "cpu"):
        libs = [os.path.join(mlir_library_dir(), lib) for lib in RUNTIME_LIBRARIES]
        self.on_gpu = device == "gpu"
        if self.on_gpu:
            libs.append(_cuda_runtime()._name)
        async_functions = _async_functions(module)
        self.engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libs)
        ALLOCATOR.register(self.engine)
        if self.on_gpu:
            DEVICE_MEMORY.register(self.engine)
        for function in async_functions:
            self.engine.raw_register_runtime(
                function, ctypes.cast(getattr(_async_runtime(), function), ctypes.c_void_p))
        self.engine.initialize()
        quiesce = self.engine.raw_lookup(QUIESCE_THREADS)
        if quiesce:
            # A helper thread parked in the module's code (see
            # tad-define-thread-launchers) leaves it before the code is freed.
            weakref.finalize(self, _quiesce, ctypes.CFUNCTYPE(None)(quiesce), self.engine)
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
        global _last_counts
        for desc, arr in zip(self._in_descs, arrays):
            desc.allocated = desc.aligned = arr.ctypes.data
        alloc = ALLOCATOR
        base, count, allocated = alloc.live_bytes, alloc.count, alloc.allocated_bytes
        alloc.peak_bytes = base
        self._fn(self._packed)
        peak = alloc.peak_bytes - base
        alloc.pool_limit = max(alloc.pool_limit, alloc.allocated_bytes - allocated)
        results = [self._result(desc, shape, dtype)
                   for desc, (shape, dtype) in zip(self._out_descs, self.out_avals)]
        if self.on_gpu:  # results were copied out of device memory
            for desc in self._out_descs:
                DEVICE_MEMORY.free(desc.allocated)
        _last_counts = (peak, len(alloc.buffers) + len(DEVICE_MEMORY.sizes), alloc.count - count)
        return results

    @staticmethod
    def _result(desc, shape, dtype) -> np.ndarray:
        start = desc.aligned + desc.offset * dtype.itemsize
        buf = ALLOCATOR.take(desc.allocated)
        if buf is not None:
            if buf.nbytes >= POOL_MIN_BYTES:
                return np.asarray(_Recycled(buf, shape, dtype, start))
            return np.ndarray(shape, dtype, buffer=buf, offset=start - desc.allocated)
        # The result aliases memory we do not own (an input or a constant): copy it.
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        raw = (ctypes.c_uint8 * nbytes).from_address(start) if nbytes else b""
        return np.frombuffer(bytes(raw), dtype).reshape(shape).copy()

