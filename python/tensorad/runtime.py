"""The runtime: JIT-compiled functions called with numpy arrays, and the allocator.

Lowered code allocates through ``_mlir_memref_to_llvm_alloc/free`` (what
``finalize-memref-to-llvm{use-generic-functions=true}`` emits). This module
implements them with numpy buffers, so that

* every call can report its peak live bytes and what it left alive,
* results come back as numpy arrays (:class:`Array`) that own the buffer
  the compiled code allocated (no copy out, nothing to free by hand), or
  view the input buffer the caller donated for them, and
* large buffers are reused: freed ones, and those of results whose arrays
  are gone, serve the next allocations of their size, so a function called
  again touches no fresh pages.

Multi-threaded code runs its chunks on the thread pool of the MLIR async
runtime, loaded once per process.

Inputs are passed without copies: descriptors point at the numpy data.

One compiled function may be called from several Python threads at once:
each call in flight has its own argument block, the allocator's books are
kept under a lock, and :func:`last_call_stats` reports the calling
thread's last call.

Compiled code does not check what the allocation hook returns. A buffer
larger than this machine's memory is refused before the call
(``MemoryError``); an allocation that fails during a call is served from a
lazily committed anonymous mapping, so the code runs to its end without
writing through NULL, and the call then raises ``MemoryError``.

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

import contextlib
import ctypes
import mmap
import os
import threading
import weakref
from dataclasses import dataclass
from functools import lru_cache, partial
from typing import Sequence

import numpy as np
from mlir import ir
from mlir.execution_engine import ExecutionEngine

from tensorad.dialects.library_calls import symbol_addresses

from . import tree
from .engines import MAX_THREADS, EngineRequest, build_engines
from .host_code import ADDRESS_TABLE, C_INTERFACE_PREFIX, bind_imports, split_host_code, split_kernels
from .passes.lower.host import available_cores
from .errors import CompileError, DeviceError

RUNTIME_LIBRARIES = ("libmlir_c_runner_utils.so",)
CUDA_RUNTIME_LIBRARY = "libmlir_cuda_runtime.so"
CUDA_DRIVER = "libcuda.so.1"
ASYNC_RUNTIME_LIBRARY = "libmlir_async_runtime.so"
# LLVM's optimization level for kernels. Our passes tile, vectorize and unroll
# before LLVM sees the code, so -O3's extras (non-trivial loop unswitching,
# higher inlining thresholds) only copy loops: on an MLP gradient they made
# the IR 43% larger and its compile 0.48 -> 0.29 s of CPU at -O2, for the same
# run time on W1-W8.
OPT_LEVEL = 2
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
    timeline : tuple of int or None
        Live bytes after each allocation and free of the call, in order, for a
        call made inside :func:`record_live_bytes` (None otherwise).
    """

    peak_live_bytes: int
    live_allocations: int
    allocations: int
    timeline: tuple | None = None


# A freed buffer of at least this many bytes is kept for the next allocation
# of its size: a fresh large buffer costs a page fault per 4 KiB page the
# first time it is written, which can take as long as the work done in it.
POOL_MIN_BYTES = 1 << 16
# Linux's MAP_NORESERVE (Python's mmap module names it only from 3.12 on):
# the mapping reserves no swap, pages are committed when first written.
_MAP_NORESERVE = getattr(mmap, "MAP_NORESERVE", 0x4000)


class _CallRecord:
    """The allocations of one call in flight: what it holds now, at most, and in all."""

    __slots__ = ("live_bytes", "peak_bytes", "allocations", "allocated_bytes", "failure", "timeline")
    recording = 0  # inside record_live_bytes(): calls note their live bytes after each allocation and free

    def __init__(self):
        self.live_bytes = self.peak_bytes = self.allocations = self.allocated_bytes = 0
        self.failure: BaseException | None = None  # raised by the hook; re-raised after the call
        self.timeline: list | None = [] if _CallRecord.recording else None


def _data_pointer_offset() -> int | None:
    """Where an ndarray object holds its data pointer, or None where a probe does not find it there.

    NumPy's ABI puts it right after the object header (``PyArrayObject_fields.data``,
    what ``PyArray_DATA`` reads); the probe checks this against ``ctypes.data``.
    """
    offset = object.__basicsize__
    for probe in (np.arange(4.0)[1:], np.zeros((2, 3), np.int8)):
        if ctypes.c_void_p.from_address(id(probe) + offset).value != probe.ctypes.data:
            return None
    return offset


_DATA_OFFSET = _data_pointer_offset()
_pointer_at = ctypes.c_void_p.from_address
# The dtype object, not np.uint8: np.empty resolves a type object each call, at twice the cost.
_BYTE = np.dtype(np.uint8)


def _data_address(arr: np.ndarray) -> int:
    """Address of an ndarray's data: read from the array object, a tenth of the cost of ``arr.ctypes.data``."""
    if _DATA_OFFSET is not None and isinstance(arr, np.ndarray):  # anything else has no such field to read
        return _pointer_at(id(arr) + _DATA_OFFSET).value
    return arr.ctypes.data


def _lazy_buffer(size: int) -> np.ndarray:
    """``size`` bytes of anonymous memory committed page by page as written (a failed allocation's stand-in)."""
    return np.frombuffer(mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | _MAP_NORESERVE),
                         np.uint8)


class Allocator:
    """Implements the generic allocation hooks with numpy buffers and counts live bytes.

    Freed large buffers, and those of results once their arrays are gone, are
    kept in a pool by size; the pool holds at most as many bytes as the
    largest single call has allocated (or the call in flight, so far), so
    calls that repeat, and the ops of one call, reuse its buffers.

    Every allocation is counted toward the call that made it: the call in
    flight on the allocating thread, or for a thread-loop chunk running on
    the async runtime's pool, the call started last (the right one, unless
    several calls of thread-loop code run at once). The books are kept under
    a lock, so calls may run at once from several threads.

    If a buffer cannot be allocated, the hook records the error and returns a
    lazily committed anonymous mapping instead of NULL (compiled code does
    not check): the code runs to its end, then the call raises.
    """

    def __init__(self):
        # Reentrant: a result array's base, dropped by the garbage collector
        # inside a locked section, gives its buffer back through keep().
        self.lock = threading.RLock()
        self.buffers: dict[int, tuple] = {}  # address -> (buffer, the call's record)
        self.live_bytes = 0
        self.pool: dict[int, list] = {}
        self.pooled_bytes = 0
        self.pool_limit = 0
        # .record: the call in flight on this thread, or its last call (a
        # Python thread allocates only inside a call, so it is not reset).
        # Executable.__call__ sets it, and last_started, as a call starts.
        self.this_thread = threading.local()
        self.last_started = _CallRecord()
        # Partials, not bound methods: ctypes calls a bound method at one and a half
        # times the cost, and these run for every buffer that compiled code allocates.
        self.alloc_hook = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64)(partial(Allocator._alloc, self))
        self.free_hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(partial(Allocator._free, self))

    def last_record(self) -> _CallRecord | None:
        """The record of this thread's call in flight, or of its last call."""
        return getattr(self.this_thread, "record", None)

    def current_record(self) -> _CallRecord:
        """The record of the call that an allocation on this thread belongs to."""
        # None: a thread-loop chunk on the pool. _alloc inlines this line (see _allocate), and on a pool
        # thread keeps its thread state (_pool_thread_record).
        return getattr(self.this_thread, "record", None) or self.last_started

    def _alloc(self, size: int) -> int:
        record = getattr(self.this_thread, "record", None) or self._pool_thread_record()
        size = size or 1
        try:
            return self._allocate(size, record, None)
        except BaseException as err:  # MemoryError, or a KeyboardInterrupt landing in the hook
            if record.failure is None:
                record.failure = err
            return self._allocate(size, record, _lazy_buffer(size))

    def _pool_thread_record(self) -> _CallRecord:
        """The record for an allocation on a pool thread (a thread-loop chunk): the call started last.

        A hook called on a thread Python does not know makes a thread state
        for the call and deletes it on return: 16 KiB mapped and unmapped
        each time, and the unmapping interrupts every other core (a TLB
        shootdown). Threads allocating in every chunk ran W2's images 2.2
        times slower than one thread did. So the first hook on a pool thread
        takes one more reference to its thread state, which then lives as
        long as the thread (the pool's threads live as long as the process).
        """
        local = self.this_thread
        if not getattr(local, "pinned", False):
            ctypes.pythonapi.PyGILState_Ensure()
            local.pinned = True
        return self.last_started

    def _allocate(self, size: int, record: _CallRecord, buf: np.ndarray | None) -> int:
        """Count ``buf`` (or a pooled or new buffer of ``size`` bytes) toward ``record``; return its address."""
        lock = self.lock
        if buf is None and size >= POOL_MIN_BYTES:  # the pool holds no smaller buffers
            with lock:
                kept = self.pool.get(size)
                if kept:
                    buf = kept.pop()
                    self.pooled_bytes -= size
        if buf is None:
            buf = self.new_buffer(size)
        address = _data_address(buf)
        # This runs for every buffer that compiled code allocates, a result of a
        # small call too: acquire/release rather than `with` (a third of the cost),
        # and count_allocation written out (a call is a tenth of the hook's time).
        lock.acquire()
        try:
            self.buffers[address] = (buf, record)
            self.live_bytes += size
            live = record.live_bytes = record.live_bytes + size
            record.allocations += 1
            record.allocated_bytes += size
            if live > record.peak_bytes:
                record.peak_bytes = live
            if record.timeline is not None:
                record.timeline.append(live)
        finally:
            lock.release()
        return address

    @staticmethod
    def new_buffer(size: int) -> np.ndarray:
        """A fresh buffer of ``size`` bytes (raises ``MemoryError`` when there is no memory)."""
        return np.empty(size, _BYTE)

    def count_allocation(self, size: int, record: _CallRecord) -> None:
        """Count ``size`` more live bytes (host or device) toward ``record``'s call (lock held)."""
        self.live_bytes += size
        live = record.live_bytes = record.live_bytes + size
        record.allocations += 1
        record.allocated_bytes += size
        if live > record.peak_bytes:
            record.peak_bytes = live
        if record.timeline is not None:
            record.timeline.append(live)

    def _free(self, address: int) -> None:
        lock = self.lock
        lock.acquire()  # not `with`: see _allocate
        try:
            entry = self.buffers.pop(address, None)
            if entry is None:
                return
            buf, record = entry
            self.uncount(buf.nbytes, record)
            # The call that freed it may take it again, within what it has allocated: a
            # first call reuses its buffers as later calls do instead of faulting in new ones.
            self.keep(buf, record.allocated_bytes)
        finally:
            lock.release()

    def uncount(self, size: int, record: _CallRecord) -> None:
        """Count a buffer of ``size`` bytes freed or handed over (lock held)."""
        self.live_bytes -= size
        record.live_bytes -= size
        if record.timeline is not None:
            record.timeline.append(record.live_bytes)

    def live_allocations(self, record: _CallRecord) -> int:
        """How many buffers of ``record``'s call are alive and not handed over (host and device)."""
        with self.lock:
            return sum(r is record for _, r in self.buffers.values()) + \
                sum(r is record for _, r in DEVICE_MEMORY.sizes.values())

    def keep(self, buf: np.ndarray, limit: int = 0) -> None:
        """Put a buffer nobody uses any more into the pool, if it is large and there is room.

        The pool holds up to ``pool_limit`` bytes, or ``limit`` if larger.
        """
        size = buf.nbytes
        if size < POOL_MIN_BYTES or buf.base is not None:  # small, or a failed allocation's (unmapped when dropped)
            return
        with self.lock:
            if self.pooled_bytes + size <= max(self.pool_limit, limit):
                self.pool.setdefault(size, []).append(buf)
                self.pooled_bytes += size

    def take(self, address: int) -> np.ndarray | None:
        """Hand the buffer at ``address`` over to the caller (it stops counting as live)."""
        lock = self.lock
        lock.acquire()  # not `with`, and uncount written out: see _allocate
        try:
            entry = self.buffers.pop(address, None)
            if entry is None:
                return None
            buf, record = entry
            size = buf.nbytes
            self.live_bytes -= size
            record.live_bytes -= size
        finally:
            lock.release()
        return buf

    def hooks(self) -> list:
        """``(name, address)`` of the allocation functions compiled code calls, which this allocator defines."""
        return [("_mlir_memref_to_llvm_alloc", ctypes.cast(self.alloc_hook, ctypes.c_void_p)),
                ("_mlir_memref_to_llvm_free", ctypes.cast(self.free_hook, ctypes.c_void_p))]

    def register(self, engine: ExecutionEngine) -> None:
        """Make ``engine``'s code allocate through this allocator."""
        for name, address in self.hooks():
            engine.raw_register_runtime(name, address)


class DeviceMemory:
    """Wraps ``mgpuMemAlloc``/``mgpuMemFree`` of GPU code so that ``ALLOCATOR`` counts device bytes."""

    def __init__(self):
        self.sizes: dict[int, tuple] = {}  # address -> (size, the call's record)
        self.alloc_hook = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64, ctypes.c_void_p,
                                           ctypes.c_bool)(self._alloc)
        self.free_hook = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(self.free)

    def _alloc(self, size: int, stream, host_shared: bool) -> int:
        address = _cuda_runtime().mgpuMemAlloc(size, stream, host_shared)
        record = ALLOCATOR.current_record()
        with ALLOCATOR.lock:
            self.sizes[address] = (size, record)
            ALLOCATOR.count_allocation(size, record)
        return address

    def free(self, address: int, stream=None) -> None:
        """Free device memory at ``address`` (a result once copied out, or from compiled code)."""
        with ALLOCATOR.lock:
            entry = self.sizes.pop(address, None)
            if entry is not None:
                ALLOCATOR.uncount(*entry)
        if entry is not None:
            _cuda_runtime().mgpuMemFree(address, stream)

    def hooks(self) -> list:
        """``(name, address)`` of the device allocation functions GPU code calls, which these hooks define."""
        return [("mgpuMemAlloc", ctypes.cast(self.alloc_hook, ctypes.c_void_p)),
                ("mgpuMemFree", ctypes.cast(self.free_hook, ctypes.c_void_p))]


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


class Array(np.ndarray):
    """A result of compiled code: a numpy array with JAX's ``block_until_ready``.

    Compiled code runs synchronously: a call returns once its results are
    written, so there is nothing to wait for and ``block_until_ready`` returns
    the array at once. It is there so that code written for JAX (timing
    loops, ``jax.block_until_ready``) runs unchanged. Everything else is
    numpy's, printing included; arithmetic on an ``Array`` gives an ``Array``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> y = ta.jit(lambda x: x + 1.0)(np.zeros(2))
    >>> isinstance(y, ta.Array), isinstance(y, np.ndarray)
    (True, True)
    >>> y.block_until_ready()
    array([1., 1.])
    """

    def block_until_ready(self) -> "Array":
        """Return this array: it is ready (compiled code runs synchronously)."""
        return self

    def __repr__(self) -> str:
        return np.ndarray.__repr__(self.view(np.ndarray))

    def __str__(self) -> str:
        return np.ndarray.__str__(self.view(np.ndarray))


def block_until_ready(x):
    """Wait until every array of the pytree ``x`` is computed; return ``x``, as ``jax.block_until_ready``.

    Compiled code runs synchronously, so tensorad's results are ready when a
    call returns; other leaves with a ``block_until_ready`` method (JAX
    arrays) are waited for.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> f = ta.jit(lambda x: (x * 2.0, {"y": x + 1.0}))
    >>> ta.block_until_ready(f(np.ones(2)))
    (array([2., 2.]), {'y': array([2., 2.])})
    """
    for leaf in tree.flatten(x)[0]:
        wait = None if isinstance(leaf, type) else getattr(leaf, "block_until_ready", None)
        if callable(wait):
            wait()
    return x


def donatable_inputs(arrays: Sequence[np.ndarray], donated: Sequence[int]) -> list:
    """``arrays`` (C-contiguous) with each donated array that compiled code must not write replaced by a copy.

    A read-only array, and one sharing memory with an input that is not
    donated, is not the caller's to give: its copy is donated instead, and
    the caller's array is left as it was.

    Raises
    ------
    ValueError
        Two donated arrays share memory (the same buffer donated twice, as JAX refuses).

    Examples
    --------
    >>> x = np.ones(3)
    >>> donatable_inputs([x, x], [0])[0] is x  # x is also read: donating it would change that input
    False
    """
    arrays = list(arrays)
    # Which arrays overlap another: a sweep over their spans sorted by address.
    spans = sorted((_data_address(a), a.nbytes, i) for i, a in enumerate(arrays) if a.nbytes)
    shared, end, widest = set(), 0, -1
    for start, size, i in spans:
        if start < end:
            shared.update((i, widest))
        if start + size > end:
            end, widest = start + size, i
    donated_set = set(donated)
    for i in sorted(shared & donated_set):
        twice = [j for j in shared if j != i and j in donated_set and np.may_share_memory(arrays[i], arrays[j])]
        if twice:
            raise ValueError(f"donated inputs {i} and {twice[0]} (flattened argument leaves) share memory: "
                             "a buffer can be donated once")
    for i in donated:
        if i in shared or not arrays[i].flags.writeable:
            arrays[i] = arrays[i].copy()
    return arrays


def _donated_view(donated: list, start: int, nbytes: int, shape, dtype: np.dtype) -> Array | None:
    """A view of the donated input holding ``[start, start + nbytes)``, taken off ``donated``; None if none does.

    ``donated`` holds (address, array) of the call's donated inputs; each serves
    one result at most, so that no two results share memory.
    """
    for k, (address, arr) in enumerate(donated):
        if address <= start and start + nbytes <= address + arr.nbytes:
            del donated[k]
            return Array(shape, dtype, buffer=arr, offset=start - address)
    return None


def last_call_stats() -> CallStats:
    """Memory facts of the calling thread's most recent call of any compiled function.

    Examples
    --------
    >>> isinstance(last_call_stats().peak_live_bytes, int)
    True
    """
    record = ALLOCATOR.last_record()
    if record is None:
        return CallStats(0, 0, 0)
    return CallStats(record.peak_bytes, ALLOCATOR.live_allocations(record), record.allocations,
                     None if record.timeline is None else tuple(record.timeline))


@contextlib.contextmanager
def record_live_bytes():
    """Make the calls of compiled code started inside record their live bytes over time.

    Each call notes its live bytes after every allocation and free (a list
    append per buffer; outside this context nothing is noted), which
    :func:`last_call_stats` returns as ``timeline``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> f = ta.jit(lambda x: (x * 2.0 + 1.0).sum())
    >>> with record_live_bytes():
    ...     _ = f(np.ones(4))
    >>> max(last_call_stats().timeline) == last_call_stats().peak_live_bytes
    True
    """
    _CallRecord.recording += 1
    try:
        yield
    finally:
        _CallRecord.recording -= 1


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
    """A memref descriptor of ``shape``; a dynamic (None) size is 0 until a call sets it."""
    desc = _descriptor_class(len(shape))()
    if shape:
        _set_shape(desc, [0 if n is None else n for n in shape])
    return desc


def _set_shape(desc, shape) -> None:
    """Write a contiguous array's sizes and strides into the descriptor ``desc``."""
    desc.shape[:] = list(shape)
    desc.strides[:] = _contiguous_strides(shape)


class _Arguments:
    """The ctypes arguments of one call in flight: memref descriptors and the packed pointer array.

    The compiled code writes its results into the output descriptors, so two
    calls running at once each need their own.
    """

    __slots__ = ("inputs", "outputs", "results", "packed", "address", "_targets")

    def __init__(self, in_shapes: Sequence, out_avals: Sequence, results_class):
        self.inputs = [_descriptor(shape) for shape in in_shapes]
        if results_class is None:
            self.outputs = [_descriptor(shape) for shape, _ in out_avals]
            targets = list(self.outputs)
        else:
            results = results_class()
            self.outputs = [getattr(results, name) for name, _ in results_class._fields_]
            targets = [results]
        # (descriptor, shape, dtype) of each result, zipped once rather than at every call;
        # the shape is None where a dim is dynamic: the call reads it from the descriptor.
        self.results = [(desc, None if None in shape else shape, dtype)
                        for desc, (shape, dtype) in zip(self.outputs, out_avals)]
        targets += self.inputs
        # The packed interface takes pointers to each argument; a memref argument
        # is itself a pointer to its descriptor.
        self._targets = [ctypes.c_void_p(ctypes.addressof(t)) for t in targets]
        self.packed = (ctypes.c_void_p * len(targets))(*[ctypes.addressof(p) for p in self._targets])
        self.address = ctypes.addressof(self.packed)  # what the call passes: ctypes takes an int fastest


_ALLOC_FUNCTION = "_mlir_memref_to_llvm_alloc"
# Bytes of the LLVM types that memrefs hold (vectors: lanes times these).
_TYPE_BYTES = {"f64": 8, "i64": 8, "f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1, "i1": 1,
               "!llvm.ptr": 8, "!llvm.struct<(f32, f32)>": 8, "!llvm.struct<(f64, f64)>": 16}  # complex numbers


def _type_bytes(text: str) -> int | None:
    if text in _TYPE_BYTES:
        return _TYPE_BYTES[text]
    lanes = text.startswith("vector<") and text[7:-1].split("x")
    if lanes and len(lanes) >= 2 and all(n.isdigit() for n in lanes[:-1]) and lanes[-1] in _TYPE_BYTES:
        return int(np.prod([int(n) for n in lanes[:-1]])) * _TYPE_BYTES[lanes[-1]]
    return None


def _defining_op(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return None if isinstance(owner, ir.Block) else owner.operation


def _constant_size(value: ir.Value) -> int | None:
    """Fold the byte count that memref lowering computes (``sizeof`` by a GEP on null, plus alignment)."""
    op = _defining_op(value)
    if op is None:
        return None
    if op.name == "llvm.mlir.constant":
        attr = op.attributes["value"]
        return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None
    if op.name in ("llvm.add", "llvm.mul"):
        a, b = (_constant_size(v) for v in op.operands)
        if a is None or b is None:
            return None
        return a + b if op.name == "llvm.add" else a * b
    if op.name == "llvm.ptrtoint":
        gep = _defining_op(op.operands[0])
        if gep is None or gep.name != "llvm.getelementptr" \
                or getattr(_defining_op(gep.operands[0]), "name", None) != "llvm.mlir.zero":
            return None
        indices = list(ir.DenseI32ArrayAttr(gep.attributes["rawConstantIndices"]))
        if len(indices) != 1:
            return None
        dynamic = indices[0] == -(2 ** 31)  # the index is the GEP's next operand
        if not dynamic:
            count = indices[0]
        else:
            count = _constant_size(gep.operands[1]) if len(gep.operands) == 2 else None
        size = _type_bytes(str(ir.TypeAttr(gep.attributes["elem_type"]).value))
        return None if count is None or size is None else count * size
    return None


def largest_allocation(module: ir.Module) -> int:
    """Bytes of the largest buffer that ``module`` (LLVM dialect) allocates, as far as sizes are constants.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> from tensorad.tracing import TraceState
    >>> text = ta.jit(lambda x: tnp.broadcast_to(x, (1000, 1000)) * 2.0).lower(np.ones(())).as_text("llvm")
    >>> largest_allocation(ir.Module.parse(text, TraceState.context())) >= 8 * 1000 * 1000
    True
    """
    largest = 0

    def visit(op):
        nonlocal largest
        if op.name == "llvm.call" and op.operands and "callee" in op.attributes \
                and ir.FlatSymbolRefAttr(op.attributes["callee"]).value == _ALLOC_FUNCTION:
            largest = max(largest, _constant_size(op.operands[0]) or 0)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return largest


@lru_cache(maxsize=None)
def memory_limit() -> int:
    """Most bytes one allocation can get here: physical memory plus swap, or the address-space limit if lower."""
    limit = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    try:
        with open("/proc/meminfo") as meminfo:
            limit += next(int(line.split()[1]) * 1024 for line in meminfo if line.startswith("SwapTotal:"))
    except (OSError, StopIteration, ValueError):
        pass
    import resource

    address_space = resource.getrlimit(resource.RLIMIT_AS)[0]
    return limit if address_space == resource.RLIM_INFINITY else min(limit, address_space)


@lru_cache(maxsize=None)
def prepare_code_generation() -> None:
    """Do, once per process, the set-up that LLVM and the runtime libraries need before the first engine.

    The first engine of a process paid about 40 ms for it (loading the
    runtime libraries, setting up LLVM's host target), and every engine
    built at the same time waited as long: W1's two parts took 145 ms each
    to optimize instead of 73 ms. :func:`tensorad.compiler.run_stages`
    calls this while its child process runs the compiler's stages.

    Examples
    --------
    >>> prepare_code_generation()
    >>> prepare_code_generation.cache_info().currsize
    1
    """
    context = ir.Context()
    context.enable_multithreading(False)
    module = ir.Module.parse("llvm.func @table(%out: !llvm.ptr) { llvm.return }", context)
    libraries = [os.path.join(mlir_library_dir(), lib) for lib in RUNTIME_LIBRARIES]
    build_engines([EngineRequest(module, 3, libraries, [], "table", 0)])


# Defined by tad-define-thread-launchers in a module with thread loops.
QUIESCE_THREADS = "__tad_quiesce_threads"


def _undefined_functions(module: ir.Module, bound: Sequence[str], libs: Sequence[str]) -> list:
    """The functions ``module`` declares without a body that neither ``bound``, ``libs`` nor this process define."""
    process = ctypes.CDLL(None)
    libraries = [ctypes.CDLL(lib) for lib in libs]
    found = []
    for op in module.body.operations:
        if op.operation.name != "llvm.func" or len(op.regions[0].blocks):
            continue
        name = op.attributes["sym_name"].value
        if name not in bound and not any(hasattr(library, name) for library in (process, *libraries)):
            found.append(name)
    return found


def _quiesce(function, engine) -> None:
    """Call ``function``, the module's quiesce function; ``engine`` lives until then."""
    function()


class Executable:
    """A compiled function: call it with contiguous numpy arrays of the traced shapes and dtypes.

    Calls may run at once from several threads.

    Parameters
    ----------
    module : mlir.ir.Module
        LLVM-dialect module holding ``name`` with ``llvm.emit_c_interface``.
    name : str
    in_avals, out_avals : sequence of (shape, dtype)
        A dimension of size None is dynamic (``tensor<?x...>``): an input's is
        read from the array at each call, a result's from what the code returns.
    opt_level : int
        LLVM optimization level.
    device : str
        ``"gpu"`` for a module from ``tad-lower-to-nvvm``: loads the CUDA
        runtime wrappers, or raises ``DeviceError`` without a CUDA driver.
    donated : sequence of int
        Inputs whose buffers the caller gives up (marked ``tad.donated``): the
        code may write into them, and a result it returns in one is a view
        of that input's array. Each such array must be writable and share no
        memory with another input.

    Attributes
    ----------
    engine : mlir.execution_engine.ExecutionEngine
        The engine whose code a call runs.
    kernel_engines : list of mlir.execution_engine.ExecutionEngine
        The engines of the kernels' parts (:func:`~tensorad.host_code.split_kernels`),
        which compile as many at once as there are cores; ``engine`` is one
        of them, unless the module has host code (see
        :mod:`tensorad.host_code`), which ``engine`` then holds, compiled at
        -O0. GPU code and code at -O0 is one engine, ``[engine]``.
    """

    def __init__(self, module: ir.Module, name: str, in_avals: Sequence, out_avals: Sequence,
                 opt_level: int = OPT_LEVEL, device: str = "cpu", donated: Sequence[int] = ()):
        libs = [os.path.join(mlir_library_dir(), lib) for lib in RUNTIME_LIBRARIES]
        prepare_code_generation()  # done already unless the stages ran in this process
        self.on_gpu = device == "gpu"
        if self.on_gpu:
            libs.append(_cuda_runtime()._name)
        symbols = [(function, ctypes.cast(getattr(_async_runtime(), function), ctypes.c_void_p))
                   for function in _async_functions(module)]
        # LAPACK routines and callbacks the code calls
        symbols += [(function, ctypes.c_void_p(address)) for function, address in symbol_addresses(module)]
        # Refused at the call, not here: the module may still be exported to a bigger machine.
        self.largest_allocation = largest_allocation(module)
        self._too_large = self.largest_allocation > memory_limit()
        interface = C_INTERFACE_PREFIX + name
        try:
            quiesce = self._build(module, interface, opt_level, libs, symbols)
        except RuntimeError:
            # LLVM could not link the code (it said which symbols on stderr): a function the program
            # declares and calls that nothing defines is the user's error; anything else is ours.
            missing = _undefined_functions(module, [function for function, _ in symbols + self._hooks()], libs)
            if missing:
                raise CompileError(f"the program calls {', '.join('@' + m for m in missing)}, declared but defined "
                                   "nowhere (not in the module, its libraries or this process)") from None
            raise
        if quiesce:
            # A helper thread parked in the module's code (see
            # tad-define-thread-launchers) leaves it before the code is freed.
            weakref.finalize(self, _quiesce, ctypes.CFUNCTYPE(None)(quiesce), self.kernel_engines)
        address = self.engine.raw_lookup(interface)
        if not address:
            raise RuntimeError(f"compiled module has no function {name}")
        self._fn = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(address)
        self.out_avals = [(tuple(s), np.dtype(d)) for s, d in out_avals]
        self.donated = tuple(donated)
        self._in_shapes = [tuple(shape) for shape, _ in in_avals]
        # Inputs whose descriptors take the sizes of each call's arrays.
        self._dynamic_inputs = [i for i, shape in enumerate(self._in_shapes) if None in shape]
        self._out_shapes = [shape for shape, _ in self.out_avals]
        self._results_class = None
        if len(self.out_avals) > 1:  # several results come back in one struct
            fields = [(f"r{i}", _descriptor_class(len(s))) for i, s in enumerate(self._out_shapes)]
            self._results_class = type("Results", (ctypes.Structure,), {"_fields_": fields})
        # Argument blocks not in use: a call takes one (or makes one, when
        # every block is taken by calls in flight on other threads) and gives it back.
        self._idle = [self._new_arguments()]
        self._in_descs = self._idle[0].inputs  # the block a lone caller always gets

    def _build(self, module: ir.Module, interface: str, opt_level: int, libs: list, symbols: list):
        """Build the engines of ``module`` (``self.engine`` runs ``interface``); the address of its quiesce function."""
        if self.on_gpu or opt_level == 0:
            self.engine = self._engine(module, opt_level, libs, symbols)
            self.kernel_engines = [self.engine]
            return self.engine.raw_lookup(QUIESCE_THREADS)
        # Host code at -O0, calling into the kernels' engines (see tensorad.host_code).
        host, kernels, imported = split_host_code(module)
        defined = ir.SymbolTable(kernels.operation)
        exported = imported + [symbol for symbol in (interface, QUIESCE_THREADS) if symbol in defined]
        parts = split_kernels(kernels, exported, min(available_cores(), MAX_THREADS))
        self.kernel_engines, addresses = self._kernel_engines(parts, opt_level, libs, symbols)
        if host is None:  # the entry is a kernel
            self.engine = next(engine for engine, part in zip(self.kernel_engines, parts)
                               if interface in part.exports)
        else:
            self.engine = self._engine(host, 0, libs, symbols + [(name, addresses[name]) for name in imported])
        return addresses.get(QUIESCE_THREADS, ctypes.c_void_p()).value

    def _engine(self, module: ir.Module, opt_level: int, libs: list, symbols: list) -> ExecutionEngine:
        """An initialized engine of ``module`` whose allocations the runtime counts, ``symbols`` bound."""
        engine = ExecutionEngine(module, opt_level=opt_level, shared_libs=libs)
        for function, address in symbols + self._hooks():
            engine.raw_register_runtime(function, address)
        engine.initialize()
        return engine

    def _hooks(self) -> list:
        """The symbols through which compiled code allocates, as ``(name, address)``."""
        return ALLOCATOR.hooks() + (DEVICE_MEMORY.hooks() if self.on_gpu else [])

    def _kernel_engines(self, parts: list, opt_level: int, libs: list, symbols: list) -> tuple:
        """``(engines, addresses)`` of the kernels' ``parts`` (:func:`~tensorad.host_code.split_kernels`), in order.

        The parts compile at once; then each part's import table receives
        the addresses of what it uses from the others. ``addresses`` maps
        each part's exports to where they are.
        """
        requests = [EngineRequest(part.module, opt_level, libs, symbols + self._hooks(), ADDRESS_TABLE,
                                  part.table_size) for part in parts]
        built = build_engines(requests)
        addresses = {name: address for part, (_, found) in zip(parts, built)
                     for name, address in zip(part.exports, found)}
        for part, (_, found) in zip(parts, built):
            bind_imports(part, found, addresses)
        return [engine for engine, _ in built], addresses

    def _new_arguments(self) -> _Arguments:
        return _Arguments(self._in_shapes, self.out_avals, self._results_class)

    def __call__(self, arrays: Sequence[np.ndarray]) -> list:
        """Run on ``arrays`` (C-contiguous, aligned, native byte order, matching dtypes); return the results."""
        if self._too_large:
            raise MemoryError(f"the compiled function allocates a buffer of {self.largest_allocation} bytes, "
                              f"more than this machine can provide ({memory_limit()} bytes of memory and swap)")
        idle = self._idle
        try:
            args = idle.pop()
        except IndexError:
            args = self._new_arguments()
        for desc, arr in zip(args.inputs, arrays):
            desc.allocated = desc.aligned = _data_address(arr)
        for i in self._dynamic_inputs:
            _set_shape(args.inputs[i], arrays[i].shape)
        allocator = ALLOCATOR
        # The call's allocations count toward a new record (the allocator's books, kept
        # here rather than through methods: this runs for every call); see Allocator.current_record.
        record = allocator.this_thread.record = allocator.last_started = _CallRecord()
        try:
            self._fn(args.address)
        finally:
            if record.allocated_bytes > allocator.pool_limit:  # the pool may grow to what the call allocated
                allocator.pool_limit = record.allocated_bytes
        donated = [(args.inputs[i].aligned, arrays[i]) for i in self.donated] if self.donated else None
        result = self._result
        results = [result(desc, tuple(desc.shape) if shape is None else shape, dtype, donated)
                   for desc, shape, dtype in args.results]
        if self.on_gpu:  # results were copied out of device memory
            for desc in args.outputs:
                DEVICE_MEMORY.free(desc.allocated)
        idle.append(args)
        if record.failure is not None:
            if not isinstance(record.failure, MemoryError):  # a KeyboardInterrupt that landed in the hook
                raise record.failure
            raise MemoryError(f"compiled code could not allocate a buffer ({record.failure!r}); "
                              "the call's results are discarded") from record.failure
        return results

    @staticmethod
    def _result(desc, shape, dtype, donated: list | None = None) -> Array:
        """The result of descriptor ``desc``; ``donated``: (address, array) of the donated inputs not yet viewed."""
        start = desc.aligned + desc.offset * dtype.itemsize
        buf = ALLOCATOR.take(desc.allocated)
        if buf is not None:
            if buf.nbytes >= POOL_MIN_BYTES:
                # One view more than below (a fifth of a microsecond, on 64 KiB or more):
                # the base in between gives the buffer back to the pool.
                # The dtype again: the interface names ml_dtypes' bfloat16 only as void ("<V2").
                return np.asarray(_Recycled(buf, shape, dtype, start)).view(dtype, Array)
            return Array(shape, dtype, buf, start - desc.allocated)  # by position: keywords cost 2x
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if donated and nbytes:
            view = _donated_view(donated, start, nbytes, shape, dtype)
            if view is not None:  # the caller gave that buffer up: no copy
                return view
        # The result aliases memory we do not own (an input or a constant): copy it.
        out = Array(shape, dtype)
        if nbytes:
            ctypes.memmove(_data_address(out), start, nbytes)
        return out
