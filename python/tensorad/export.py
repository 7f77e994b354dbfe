"""Ahead-of-time export: a compiled function as a shared library, a C header and a ctypes loader.

:func:`export` turns an LLVM-dialect module (stage ``"llvm"``) into a folder
that runs without MLIR, tensorad or numpy installed::

    DIR/lib<name>.so   the code and its runtime (export_runtime.c); rpath $ORIGIN
    DIR/<name>.h       the C entry point, one plain pointer per array
    DIR/<name>.py      a loader using only ctypes (numpy arrays when numpy is there); it
                       checks the library's size and SHA-256 (also in the header) before loading it
    DIR/libmlir_*.so   MLIR runtime libraries the code needs beyond export_runtime.c,
                       with their dependencies (none for tensorad's own lowerings)

GPU code (lowered by ``tad-lower-to-nvvm``) has its kernels' PTX inside the
library and gets export_cuda_runtime.c as well: the ``mgpu*`` functions it
calls, on the CUDA driver (``libcuda.so.1``) loaded at run time with
``dlopen``. It ships nothing else, builds without the CUDA toolkit, and needs
an NVIDIA GPU and its driver only to run; ``<name>_gpu_error()`` says why it
cannot run (the loader raises that as ``RuntimeError``).

The module becomes LLVM IR with ``mlir-translate``, is optimized with ``opt
-O3`` and compiled with ``llc`` (from the installed ``mlir`` and ``llvm``
packages) for the host CPU, as the ExecutionEngine does for jitted code, and
is linked with ``cc``.

Calling convention of ``void <name>(const T0 *in0, ..., U0 *out0, ...)``:
inputs are contiguous row-major arrays of the exported shapes, only read;
outputs are caller-provided contiguous buffers of the exported shapes,
written by the call. ``uint64_t <name>_peak_bytes(void)`` gives the peak
bytes the last call held allocated at once (device buffers included for
GPU code). Allocation failure, and a CUDA error during a call, abort.

Examples
--------
>>> import numpy as np, tensorad as ta
>>> f = ta.jit(lambda x: x * 2.0)
>>> f.lower(np.ones(3)).compile().export("build/double")  # doctest: +SKIP
PosixPath('build/double')
"""

from __future__ import annotations

import hashlib
import importlib.util
import math
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Sequence

import numpy as np
from mlir import ir

from . import dtypes
from .errors import ExportError
from .runtime import mlir_library_dir
from .tracing import is_process_symbol

# dtype name -> (C type, struct typecode, itemsize); bool travels as bytes (tad-widen-bools).
_C_TYPES = {
    "float32": ("float", "f", 4),
    "float64": ("double", "d", 8),
    "int32": ("int32_t", "i", 4),
    "int64": ("int64_t", "q", 8),
    "bool": ("uint8_t", "B", 1),
}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_C_KEYWORDS = frozenset(
    "auto break case char const continue default do double else enum extern float for goto if inline int "
    "long register restrict return short signed sizeof static struct switch typedef union unsigned void "
    "volatile while bool true false".split())
_RUNTIME_SOURCE = Path(__file__).with_name("export_runtime.c")
_CUDA_RUNTIME_SOURCE = Path(__file__).with_name("export_cuda_runtime.c")
# Top-level ops that mlir-translate turns into LLVM IR (gpu.binary: embedded kernels).
_TRANSLATABLE = re.compile(r"llvm\.|gpu\.binary\Z")


def _tool(package: str, name: str) -> str:
    """Path of ``name`` in the ``bin`` folder of an installed package (found, not hard-coded)."""
    spec = importlib.util.find_spec(package)
    folders = list(spec.submodule_search_locations or []) if spec else []
    for folder in folders:
        path = Path(folder, "bin", name)
        if path.exists():
            return str(path)
    raise ExportError(f"{name} not found in the installed '{package}' package")


def _run(command: Sequence[str], what: str, **kwargs) -> str:
    done = subprocess.run(list(command), capture_output=True, text=True, **kwargs)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-20:])
        raise ExportError(f"{what} failed ({Path(command[0]).name}):\n{tail}")
    return done.stdout


def prepare_c_entry(entry: ir.Operation) -> None:
    """Give the entry point a C interface, and make its arguments read-only.

    Arguments are the caller's numpy arrays, passed without copies: marking
    them not writable makes bufferization copy before any in-place update.
    """
    ctx = entry.context
    entry.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(ctx)
    n_args = len(entry.regions[0].blocks[0].arguments)
    read_only = ir.DictAttr.get({"bufferization.writable": ir.BoolAttr.get(False, ctx)}, ctx)
    entry.attributes["arg_attrs"] = ir.ArrayAttr.get([read_only] * n_args, ctx)


def prepare_entry(module: ir.Module, entry: str = "main") -> tuple:
    """Give ``func.func @entry`` (tensor level) a C interface; return its signature.

    For IR lowered outside :mod:`tensorad.compiler` (``autodiff-opt
    --export``): call it before lowering.

    Returns
    -------
    (in_avals, out_avals) : lists of (shape, dtype name)

    Raises
    ------
    ExportError
        If there is no such ``func.func``, or a type is not a static tensor of
        an exportable element type.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("func.func @main(%x: tensor<2xf32>) -> tensor<f64> "
    ...                     "{ %0 = arith.constant dense<1.0> : tensor<f64>\\n return %0 : tensor<f64> }",
    ...                     make_context())
    >>> prepare_entry(m)
    ([((2,), 'float32')], [((), 'float64')])
    """
    found = [op for op in module.body.operations
             if op.operation.name == "func.func" and op.attributes["sym_name"].value == entry]
    if not found:
        raise ExportError(f"the module has no func.func @{entry} to export")
    ftype = found[0].attributes["function_type"].value

    def avals(types, kind):
        out = []
        for i, t in enumerate(types):
            ranked = isinstance(t, ir.RankedTensorType)
            try:
                dtype = dtypes.from_mlir(t.element_type) if ranked else None
            except TypeError:  # an element type numpy cannot hold
                dtype = None
            if dtype is None or dtype.name not in _C_TYPES or not t.has_static_shape:
                raise ExportError(f"@{entry} {kind} {i} has type {t}; export takes statically shaped "
                                  f"tensors of {', '.join(_C_TYPES)}")
            out.append((tuple(t.shape), dtype.name))
        return out

    signature = avals(ftype.inputs, "argument"), avals(ftype.results, "result")
    prepare_c_entry(found[0].operation)
    return signature


def _check_lowered(module: ir.Module) -> None:
    for op in module.body.operations:
        name = op.operation.name
        if not _TRANSLATABLE.match(name):
            symbol = op.attributes["sym_name"].value if "sym_name" in op.attributes else ""
            raise ExportError(f"the module is not lowered to the LLVM dialect (it holds {name} "
                              f"{'@' + symbol if symbol else ''}); lower it first, e.g. with "
                              "tad-lower-to-linalg,tad-lower-to-llvm")


def _c_name(dtype) -> str:
    name = np.dtype(dtype).name
    if name not in _C_TYPES:
        raise ExportError(f"cannot export arrays of {name}; export takes {', '.join(_C_TYPES)}")
    return name


def _descriptor_words(rank: int) -> int:
    return 3 + 2 * rank  # allocated, aligned, offset, sizes, strides: 8 bytes each


def _wrapper_source(name: str, entry: str, in_avals: list, out_avals: list, gpu: bool) -> str:
    """C source of the exported entry: builds memref descriptors and calls ``_mlir_ciface_<entry>``.

    GPU code (``gpu``) first checks that it can run (driver, device,
    kernels loaded) and may return device buffers, freed after the copy out.
    """
    params = [f"const {_C_TYPES[d][0]} *in{i}" for i, (_, d) in enumerate(in_avals)]
    params += [f"{_C_TYPES[d][0]} *out{i}" for i, (_, d) in enumerate(out_avals)]
    lines = [f"void {name}({', '.join(params) or 'void'}) {{"]
    for i, (shape, _) in enumerate(in_avals):
        strides = [math.prod(shape[k + 1:]) for k in range(len(shape))]
        words = [f"(int64_t)(intptr_t)in{i}"] * 2 + ["0"] + [str(n) for n in (*shape, *strides)]
        lines.append(f"  int64_t d{i}[] = {{{', '.join(words)}}};")
    offsets, total = [], 0
    for shape, _ in out_avals:
        offsets.append(total)
        total += _descriptor_words(len(shape))
    args = (["results"] if out_avals else []) + [f"d{i}" for i in range(len(in_avals))]
    lines.append(f"  int64_t results[{max(total, 1)}];")
    if gpu:
        lines.append("  tad_require_gpu();")
    lines.append("  tad_begin_call();")
    lines.append(f"  _mlir_ciface_{entry}({', '.join(args)});")
    for i, ((shape, d), at) in enumerate(zip(out_avals, offsets)):
        lines.append(f"  tad_copy_result(results + {at}, {len(shape)}, {_C_TYPES[d][2]}, out{i});")
    allocated = ", ".join(f"(void *)(intptr_t)results[{at}]" for at in offsets) or "0"
    lines.append(f"  void *allocated[] = {{{allocated}}};")
    lines.append(f"  tad_end_call({len(out_avals)}, allocated, {'tad_free_device' if gpu else 'NULL'});")
    lines.append("}")
    declaration = ", ".join(["int64_t *"] * len(args)) or "void"
    return "\n".join([
        f"\n/* --- generated: the entry {name} ---------------------------------------- */",
        f"void _mlir_ciface_{entry}({declaration});",
        *lines,
        f"uint64_t {name}_peak_bytes(void) {{ return tad_peak_bytes(); }}",
        *([f"const char *{name}_gpu_error(void) {{ return tad_gpu_error(); }}"] if gpu else []),
        ""])


def _header(name: str, in_avals: list, out_avals: list, gpu: bool, library_size: int, library_sha256: str) -> str:
    def shape_text(shape):
        return "x".join(map(str, shape)) or "scalar"

    params = [f"const {_C_TYPES[d][0]} *in{i} /* {shape_text(s)} */" for i, (s, d) in enumerate(in_avals)]
    params += [f"{_C_TYPES[d][0]} *out{i} /* {shape_text(s)} */" for i, (s, d) in enumerate(out_avals)]
    guard = f"{name.upper()}_H"
    gpu_error = f"""
/* GPU code: NULL when it can run here, else why not (no CUDA driver
 * libcuda.so.1, no device, kernels the driver cannot load); {name} then
 * prints that and aborts. */
const char *{name}_gpu_error(void);
""" if gpu else ""
    return f"""/* {name}.h: a function exported by tensorad (lib{name}.so beside this file).
 *
 * Every array is contiguous, row-major (C order), of the shape in its comment
 * and the element type of its pointer (bool: one byte, 0 or 1). Inputs are
 * only read. Outputs are buffers the caller provides; the call writes them.
 * The call allocates its temporaries itself and aborts if memory runs out.
 * Calls may run at once from several threads.
 */
#ifndef {guard}
#define {guard}

#include <stdint.h>

#ifdef __cplusplus
extern "C" {{
#endif

#define {name.upper()}_NUM_INPUTS {len(in_avals)}
#define {name.upper()}_NUM_OUTPUTS {len(out_avals)}
/* lib{name}.so as exported: check its size and SHA-256 before dlopen (a
 * truncated library can kill the process that loads it). */
#define {name.upper()}_LIBRARY_SIZE {library_size}ULL
#define {name.upper()}_LIBRARY_SHA256 "{library_sha256}"

void {name}({(',' + chr(10) + ' ' * (len(name) + 6)).join(params) or 'void'});

/* Most bytes the last call held allocated at once, its outputs included. */
uint64_t {name}_peak_bytes(void);
{gpu_error}
#ifdef __cplusplus
}}
#endif

#endif /* {guard} */
"""


_LOADER = '''"""Loader of {name}, exported by tensorad: runs lib{name}.so with ctypes only.

Needs neither MLIR nor tensorad; returns numpy arrays when numpy is
installed, else ``array.array`` (flat, row-major).

Example::

    from {name} import {name}
    outputs = {name}(*inputs)   # buffers of INPUTS' shapes and dtypes

Inputs are numpy arrays or any contiguous buffer (array.array, bytes,
bytearray, memoryview) of the right size. One output comes back as such,
several as a tuple, in the order of OUTPUTS.
"""

import array
import ctypes
import hashlib
import os

try:
    import numpy
except ImportError:
    numpy = None

INPUTS = {inputs!r}
OUTPUTS = {outputs!r}
# lib{name}.so as exported: loading a damaged (say truncated) library can kill the process.
LIBRARY_SIZE = {library_size}
LIBRARY_SHA256 = "{library_sha256}"
# dtype name -> (array typecode, itemsize, buffer formats taken as that dtype)
_KINDS = {{"float32": ("f", 4, "f"), "float64": ("d", 8, "d"), "int32": ("i", 4, "il"),
          "int64": ("q", 8, "qlLQ"), "bool": ("B", 1, "?Bb")}}
_RAW_FORMATS = "Bbc"  # plain bytes are taken as any dtype



def _checked_library(path):
    """``path``, after checking that it is the library exported with this loader."""
    try:
        with open(path, "rb") as library:
            data = library.read()
    except OSError as err:
        raise ImportError("cannot read %s: %s" % (path, err.strerror)) from None
    if len(data) != LIBRARY_SIZE or hashlib.sha256(data).hexdigest() != LIBRARY_SHA256:
        raise ImportError("%s is damaged or not the library exported with this loader (%d bytes, expected %d; "
                          "checksum mismatch): export it again" % (path, len(data), LIBRARY_SIZE))
    return path


_lib = ctypes.CDLL(_checked_library(os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib{name}.so")))
_entry = _lib.{name}
_entry.restype = None
_entry.argtypes = [ctypes.c_void_p] * (len(INPUTS) + len(OUTPUTS))
_lib.{name}_peak_bytes.restype = ctypes.c_uint64
{gpu_setup}

def _count(shape):
    n = 1
    for size in shape:
        n *= size
    return n


def _input_address(index, value, keep):
    shape, dtype = INPUTS[index]
    _, itemsize, formats = _KINDS[dtype]
    view = memoryview(value)
    if not view.c_contiguous and numpy is not None:
        view = memoryview(numpy.ascontiguousarray(value))
    if not view.c_contiguous:
        raise ValueError("input %d is not contiguous" % index)
    fmt = view.format.lstrip("@=<")
    if fmt not in _RAW_FORMATS and (fmt not in formats or view.itemsize != itemsize):
        raise TypeError("input %d: expected %s data, got buffer format %r" % (index, dtype, view.format))
    nbytes = _count(shape) * itemsize
    if view.nbytes != nbytes or (view.ndim > 1 and tuple(view.shape) != tuple(shape)):
        raise ValueError("input %d: expected %s of shape %s (%d bytes), got shape %s (%d bytes)"
                         % (index, dtype, tuple(shape), nbytes, tuple(view.shape), view.nbytes))
    raw = view.cast("B") if view.ndim != 1 or fmt != "B" else view
    try:
        buffer = (ctypes.c_char * nbytes).from_buffer(raw)
    except TypeError:  # read-only (bytes, a read-only array): pass a copy
        buffer = (ctypes.c_char * nbytes).from_buffer_copy(raw)
    keep.append(buffer)
    return ctypes.addressof(buffer)


def _output(shape, dtype):
    if numpy is not None:
        out = numpy.empty(shape, dtype)
        return out, out.ctypes.data
    typecode, itemsize, _ = _KINDS[dtype]
    out = array.array(typecode, bytes(_count(shape) * itemsize))
    return out, out.buffer_info()[0]


def {name}(*inputs):
    """Run the exported function on ``inputs`` (see INPUTS); return its outputs."""
    if len(inputs) != len(INPUTS):
        raise TypeError("{name} takes %d inputs, got %d" % (len(INPUTS), len(inputs)))
{gpu_check}    keep = []
    addresses = [_input_address(i, x, keep) for i, x in enumerate(inputs)]
    outputs = [_output(shape, dtype) for shape, dtype in OUTPUTS]
    _entry(*addresses, *[address for _, address in outputs])
    results = [out for out, _ in outputs]
    return results[0] if len(results) == 1 else tuple(results)


def peak_bytes():
    """Most bytes the last call held allocated at once, its outputs included."""
    return _lib.{name}_peak_bytes()
'''


# The loader's lines for GPU code: the library says why it cannot run, the loader raises that.
_LOADER_GPU_SETUP = """_lib.{name}_gpu_error.restype = ctypes.c_char_p
"""
_LOADER_GPU_CHECK = """    error = _lib.{name}_gpu_error()
    if error:
        raise RuntimeError("lib{name}.so cannot run here: " + error.decode())
"""


def _defined_symbols(path: str, dynamic: bool) -> set:
    flags = ["-D"] if dynamic else []
    out = _run([_tool("llvm", "llvm-nm"), *flags, "--defined-only", "--just-symbol-name", path],
               "listing symbols")
    return set(out.split())


def _runtime_libraries(undefined: set) -> list:
    """MLIR runtime libraries (file names) defining some of ``undefined``, with their dependencies.

    Only libraries found in the installed ``mlir`` and ``llvm`` packages
    count: the system's (libc, libcuda) are not shipped.
    """
    folders = [Path(mlir_library_dir()), Path(_tool("llvm", "llvm-nm")).parent.parent / "lib"]
    shipped = [lib.name for lib in sorted(folders[0].glob("libmlir_*.so"))
               if undefined & _defined_symbols(str(lib), dynamic=True)]
    todo = list(shipped)
    while todo:
        lib = todo.pop()
        where = next(f / lib for f in folders if (f / lib).exists())
        listing = _run([_tool("llvm", "llvm-readelf"), "--needed-libs", str(where)], "reading dependencies")
        for dep in re.findall(r"^\s+(\S+\.so[.\d]*)$", listing, re.M):
            if dep not in shipped and any((f / dep).exists() for f in folders):
                shipped.append(dep)
                todo.append(dep)
    return [next(f / lib for f in folders if (f / lib).exists()) for lib in shipped]


def _compile_object(module: ir.Module, work: Path) -> Path:
    """LLVM-dialect module -> optimized object file for the host CPU."""
    (work / "module.mlir").write_text(module.operation.get_asm(assume_verified=True))
    _run([_tool("mlir", "mlir-translate"), "--mlir-to-llvmir", str(work / "module.mlir"),
          "-o", str(work / "module.ll")], "translating to LLVM IR")
    triple = _run([_tool("llvm", "llvm-config"), "--host-target"], "asking the host target").strip()
    # The IR has no target: opt and llc get the host's, so that the code is
    # optimized and vectorized as the ExecutionEngine does for jitted code.
    target = [f"-mtriple={triple}", "-mcpu=native"]
    _run([_tool("llvm", "opt"), "-O3", *target, str(work / "module.ll"), "-o", str(work / "module.bc")],
         "optimizing")
    _run([_tool("llvm", "llc"), "-O3", "-filetype=obj", "-relocation-model=pic", *target,
          str(work / "module.bc"), "-o", str(work / "module.o")], "compiling")
    return work / "module.o"


def export(module: ir.Module, path, in_avals: Sequence, out_avals: Sequence,
           name: str | None = None, entry: str = "main") -> Path:
    """Write the artefact folder ``path`` for ``entry`` of an LLVM-dialect module.

    Parameters
    ----------
    module : mlir.ir.Module
        Lowered to the LLVM dialect (stage ``"llvm"``), with ``entry`` given
        ``llvm.emit_c_interface`` before lowering. Not modified.
    path : str or os.PathLike
        The folder to write (created if missing; files of an earlier export are replaced).
    in_avals, out_avals : sequence of (shape, dtype)
        Static shapes and dtypes of the entry's arguments and results.
    name : str, optional
        C identifier naming the library, header, loader and entry point;
        default: the folder's name.
    entry : str
        The function of ``module`` to export.

    Returns
    -------
    pathlib.Path
        ``path``.

    Raises
    ------
    ExportError
        Bad name or folder, unsupported dtype, a module not in the LLVM
        dialect, or a failing compiler, with the tool's message.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(lambda x: x + 1.0).lower(np.ones(2)).compile().export("out/inc")  # doctest: +SKIP
    PosixPath('out/inc')
    """
    path = Path(path)
    name = path.name if name is None else name
    if not _IDENTIFIER.match(name) or name == entry or name.startswith(("_mlir", "mlir", "tad_")) \
            or name in _C_KEYWORDS:
        raise ExportError(f"export name {name!r} must be a C identifier other than {entry!r} and not "
                          "start with _mlir, mlir or tad_ (pass name=...)")
    if is_process_symbol(name):
        # A library defining e.g. `free` would clash with the C headers and
        # take the place of libc's function in every program that loads it.
        raise ExportError(f"export name {name!r} is a function the C library (or Python) already "
                          "defines; choose another (pass name=...)")
    in_avals = [(tuple(s), _c_name(d)) for s, d in in_avals]
    out_avals = [(tuple(s), _c_name(d)) for s, d in out_avals]
    _check_lowered(module)
    cc = shlex.split(os.environ.get("CC", "")) or [shutil.which("cc") or shutil.which("gcc") or ""]
    if not cc[0]:
        raise ExportError("no C compiler found: install cc (gcc or clang) or set CC")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise ExportError(f"cannot create the export folder '{path}': {err.strerror}") from None
    with tempfile.TemporaryDirectory(prefix="tensorad-export-") as tmp:
        work = Path(tmp)
        obj = _compile_object(module, work)
        undefined = set(_run([_tool("llvm", "llvm-nm"), "--undefined-only", "--just-symbol-name", str(obj)],
                             "listing symbols").split())
        gpu = any(symbol.startswith("mgpu") for symbol in undefined)
        source = work / f"{name}.c"
        source.write_text(_RUNTIME_SOURCE.read_text() + (_CUDA_RUNTIME_SOURCE.read_text() if gpu else "")
                          + _wrapper_source(name, entry, in_avals, out_avals, gpu))
        runtime = work / "runtime.o"
        _run([*cc, "-c", "-fPIC", "-O2", "-std=gnu11", "-o", str(runtime), str(source)], "compiling the runtime")
        unresolved = undefined - _defined_symbols(str(runtime), dynamic=False)
        missing = sorted(symbol for symbol in unresolved if symbol.startswith("mgpu"))
        if missing:
            raise ExportError(f"the GPU code calls {', '.join(missing)}, which the export's CUDA runtime "
                              f"({_CUDA_RUNTIME_SOURCE.name}) does not implement")
        libraries = _runtime_libraries(unresolved)
        for lib in libraries:
            shutil.copy2(lib, path / lib.name)
        # Only the entry points are exported: the compiled `main` and the
        # runtime's functions stay inside, bound to each other.
        exported = [name, f"{name}_peak_bytes"] + ([f"{name}_gpu_error"] if gpu else [])
        (work / "exports.map").write_text(f"{{ global: {'; '.join(exported)}; local: *; }};\n")
        _run([*cc, "-shared", "-o", str(path / f"lib{name}.so"), str(obj), str(runtime),
              f"-Wl,--version-script={work / 'exports.map'}", "-Wl,-z,defs", "-Wl,-rpath,$ORIGIN", f"-L{path}",
              *[f"-l:{lib.name}" for lib in libraries], "-lm", "-lpthread", *(["-ldl"] if gpu else [])], "linking")
    library = (path / f"lib{name}.so").read_bytes()
    size, sha256 = len(library), hashlib.sha256(library).hexdigest()
    (path / f"{name}.h").write_text(_header(name, in_avals, out_avals, gpu, size, sha256))
    (path / f"{name}.py").write_text(_LOADER.format(
        name=name, inputs=[(list(s), d) for s, d in in_avals], outputs=[(list(s), d) for s, d in out_avals],
        library_size=size, library_sha256=sha256,
        gpu_setup=_LOADER_GPU_SETUP.format(name=name) if gpu else "",
        gpu_check=_LOADER_GPU_CHECK.format(name=name) if gpu else ""))
    return path
