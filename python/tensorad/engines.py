"""JIT engines built through MLIR's C API, several at once.

MLIR's ExecutionEngine optimizes a module and generates its code on the
thread that builds it, and the Python binding holds the GIL all the while:
a transformer's kernels took 2 s of one core, the other one idle. Called
through :mod:`ctypes`, which releases the GIL around a foreign call, the
same C functions (``mlirExecutionEngineCreate`` optimizes,
``mlirExecutionEngineLookupPacked`` generates the code) build one engine
per thread. Each module is in a context of its own first: the C API
registers its translations in the module's context as it creates the
engine, which two threads may not do at once to one context.

:func:`build_engines` builds the modules of a wave at once and returns them
as ordinary :class:`~mlir.execution_engine.ExecutionEngine` objects (each
owns its engine and destroys it when collected).

Examples
--------
>>> import ctypes
>>> from mlir import ir
>>> ctx = ir.Context()
>>> m = ir.Module.parse('''
... llvm.func @table(%out: !llvm.ptr) {
...   %f = llvm.mlir.addressof @answer : !llvm.ptr
...   llvm.store %f, %out : !llvm.ptr, !llvm.ptr
...   llvm.return
... }
... llvm.func @answer() -> i64 {
...   %c = llvm.mlir.constant(42 : i64) : i64
...   llvm.return %c : i64
... }''', ctx)
>>> [(engine, [answer])] = build_engines([EngineRequest(m, 2, [], [], "table", 1)])
>>> ctypes.CFUNCTYPE(ctypes.c_int64)(answer.value)()
42
"""

from __future__ import annotations

import ctypes
import io
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from mlir import ir
from mlir.execution_engine import ExecutionEngine

# At most this many engines are built at once: each holds a copy of its module and LLVM's
# working memory, and past a few parts each one's fixed cost (about 10 ms) eats the gain.
MAX_THREADS = 8
# Capsule names of the Python bindings' C API pointers (mlir-c/Bindings/Python/Interop.h).
_MODULE_CAPSULE = b"mlir.ir.Module._CAPIPtr"
_ENGINE_CAPSULE = b"mlir.execution_engine.ExecutionEngine._CAPIPtr"


@dataclass
class EngineRequest:
    """One engine to build.

    Attributes
    ----------
    module : mlir.ir.Module
        An LLVM-dialect module (not modified).
    opt_level : int
        LLVM's optimization level.
    libraries : list of str
        Shared libraries whose symbols the code may use.
    symbols : list of (str, ctypes.c_void_p)
        Symbols bound before the code is generated.
    table : str
        A function of ``module`` that takes one pointer and stores ``count``
        addresses at it (see :data:`tensorad.host_code.ADDRESS_TABLE`).
    count : int
    """

    module: ir.Module
    opt_level: int
    libraries: Sequence[str]
    symbols: Sequence[tuple]
    table: str
    count: int


class _StringRef(ctypes.Structure):
    _fields_ = [("data", ctypes.c_char_p), ("length", ctypes.c_size_t)]


def _string_ref(text: str) -> _StringRef:
    data = text.encode()
    return _StringRef(data, len(data))


@lru_cache(maxsize=None)
def _capi() -> ctypes.CDLL:
    """The C API library the Python bindings are built on (loaded already), its engine functions typed."""
    library = ctypes.CDLL(os.path.join(os.path.dirname(ir.__file__), "_mlir_libs", "libMLIRPythonCAPI.so"))
    library.mlirExecutionEngineCreate.restype = ctypes.c_void_p
    library.mlirExecutionEngineCreate.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                                  ctypes.POINTER(_StringRef), ctypes.c_bool, ctypes.c_bool]
    library.mlirExecutionEngineRegisterSymbol.argtypes = [ctypes.c_void_p, _StringRef, ctypes.c_void_p]
    library.mlirExecutionEngineInitialize.argtypes = [ctypes.c_void_p]
    library.mlirExecutionEngineDestroy.argtypes = [ctypes.c_void_p]
    library.mlirExecutionEngineLookupPacked.restype = ctypes.c_void_p
    library.mlirExecutionEngineLookupPacked.argtypes = [ctypes.c_void_p, _StringRef]
    return library


@lru_cache(maxsize=None)
def _capsules() -> tuple:
    """Python's ``PyCapsule_GetPointer`` and ``PyCapsule_New``, typed."""
    get, new = ctypes.pythonapi.PyCapsule_GetPointer, ctypes.pythonapi.PyCapsule_New
    get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
    new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    return get, new


def _wrap(raw: int) -> ExecutionEngine:
    """The Python binding's engine object for ``raw``, which it then owns."""
    return ExecutionEngine._CAPICreate(_capsules()[1](raw, _ENGINE_CAPSULE, None))


def _build(request: EngineRequest, module: ir.Module, out: list, k: int) -> None:
    """Build ``request``'s engine from ``module``; put ``(raw engine, addresses)`` or the exception at ``out[k]``."""
    capi, raw = _capi(), None
    try:
        libraries = (_StringRef * max(len(request.libraries), 1))(*map(_string_ref, request.libraries))
        # Object dump on, as the Python binding's constructor has it: dump_to_object_file works.
        raw = capi.mlirExecutionEngineCreate(_capsules()[0](module._CAPIPtr, _MODULE_CAPSULE), request.opt_level,
                                             len(request.libraries), libraries, True, False)
        if not raw:
            raise RuntimeError("Failure while creating the ExecutionEngine.")
        for name, address in request.symbols:
            capi.mlirExecutionEngineRegisterSymbol(raw, _string_ref(name), address)
        capi.mlirExecutionEngineInitialize(raw)
        table = capi.mlirExecutionEngineLookupPacked(raw, _string_ref(request.table))  # generates the code
        if not table:
            raise RuntimeError(f"compiled module has no function {request.table}")
        addresses = (ctypes.c_void_p * request.count)()
        argument = ctypes.c_void_p(ctypes.addressof(addresses))
        packed = (ctypes.c_void_p * 1)(ctypes.addressof(argument))  # the packed wrapper takes void **
        ctypes.CFUNCTYPE(None, ctypes.c_void_p)(table)(ctypes.addressof(packed))
        out[k] = (raw, list(addresses))
    except BaseException as error:  # noqa: BLE001 - raised again on the caller's thread
        if raw:
            capi.mlirExecutionEngineDestroy(raw)
        out[k] = error


def build_engines(requests: Sequence[EngineRequest]) -> list:
    """Build an engine for each request, at once on as many threads: ``[(engine, addresses)]``, in order.

    ``addresses`` are the ``count`` addresses (``ctypes.c_void_p``) that the
    request's ``table`` function stores. Every module but the first is
    copied into a context of its own (through bytecode) to be compiled;
    the caller must not use the first one's context until this returns.

    Raises
    ------
    RuntimeError
        If an engine cannot be created (the first failure, after every
        thread has finished).
    """
    modules = [requests[0].module] + [_in_own_context(request.module) for request in requests[1:]]
    out: list = [None] * len(requests)
    threads = [threading.Thread(target=_build, args=(request, module, out, k), name="tensorad-compile")
               for k, (request, module) in enumerate(zip(requests, modules)) if k]
    for thread in threads:
        thread.start()
    _build(requests[0], modules[0], out, 0)
    for thread in threads:
        thread.join()
    failure = next((result for result in out if isinstance(result, BaseException)), None)
    built = [(_wrap(result[0]), [ctypes.c_void_p(a) for a in result[1]]) if isinstance(result, tuple) else None
             for result in out]
    if failure is not None:
        raise failure
    return built


def _in_own_context(module: ir.Module) -> ir.Module:
    """A copy of ``module`` in a new context (without a thread pool, as every context of tensorad)."""
    data = io.BytesIO()
    module.operation.write_bytecode(data)
    context = ir.Context()
    context.enable_multithreading(False)
    return ir.Module.parse(data.getvalue(), context)
