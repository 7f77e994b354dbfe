"""``tensorad.jit``: trace once per signature, lower through MLIR, run natively.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> @ta.jit
... def f(x, y):
...     return tnp.tanh(x @ y).sum(axis=0)
>>> f(np.ones((2, 3)), np.zeros((3, 4)))
array([0., 0., 0., 0.])
>>> print(f.lower(np.ones((2, 3)), np.zeros((3, 4))).as_text("tad"))  # doctest: +ELLIPSIS
module {
...
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import functools
import inspect
import operator
import os
import threading
import weakref
from typing import Any, Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import arith, func, tensor

from tensorad.passes.dims import argument_checks
from tensorad.passes.isolation import PassCrash, run_isolated, start_worker
from tensorad.passes.jit_differentiate import JitDifferentiateOptions
from tensorad.passes.lower.donated import DONATED, donated_arguments
from tensorad.passes.lower.host import num_threads, vector_bits
from tensorad.passes.lower.to_llvm import libm_prototypes
from tensorad.passes.options import OptionError, parse
from tensorad.passes.registry import PassResults, PassSpec

# Traced functions use Tracer's array methods and operators, which tensorad.numpy installs.
from . import baked, compile_cache, dtypes, numpy as _array_methods, tree  # noqa: F401
from .errors import CompileError, ExportError, TracingError
from .export import prepare_c_entry
from .runtime import Executable, donatable_inputs, prepare_code_generation
from .tracing import Tracer, TraceState, current_module, is_process_symbol, trace_function

# Each stage's IR is what the pipelines up to and including it produce. Every
# stage is a registered pass or named pipeline, so `autodiff-opt` runs it too.
STAGES: tuple = (
    ("tad", PassSpec("tad-verify")),
    ("differentiated", PassSpec("tad-jit-differentiate")),
    ("linalg", PassSpec("tad-lower-to-linalg")),
    ("llvm", PassSpec("tad-lower-to-llvm")),
)
# GPU code branches off after "linalg": host LLVM with the kernels' PTX embedded.
GPU_STAGES: tuple = (*STAGES[:-1], ("nvvm", PassSpec("tad-lower-to-nvvm")))
DEVICES = ("cpu", "gpu")


def _format_mlir_error(err: ir.MLIRError) -> str:
    lines = [str(err.message) if hasattr(err, "message") else str(err)]
    for diag in getattr(err, "error_diagnostics", []):
        lines.append(f"{diag.location}: {diag.message}")
        lines.extend(f"  note: {n.location}: {n.message}" for n in diag.notes)
    return "\n".join(lines)


def _verify_each() -> bool:
    """Whether to verify the IR after every pass (``TENSORAD_VERIFY_EACH=1``), for debugging a pass.

    By default each stage's IR is verified once, at the end of the stage:
    verification after every pass would be a sixth of a compile's time.
    """
    return os.environ.get("TENSORAD_VERIFY_EACH", "0") not in ("", "0")


# One compilation at a time in this process: tracing and the pass pipelines
# share one MLIR context, whose multithreading (and with it the locking of its
# type and attribute tables) is off so that a forked child never waits on a
# thread pool it did not inherit. Compiled code runs outside the lock.
COMPILE_LOCK = threading.RLock()


def _prepare_stage(module: ir.Module, stage: str) -> None:
    if stage in ("llvm", "nvvm"):
        entry = module.body.operations[0].operation  # the entry point comes first
        donated = [argument.arg_number for argument in donated_arguments(entry)]
        prepare_c_entry(entry)  # every argument read-only, the donated ones too
        # Bufferization may write into a donated argument in place.
        _mark_arguments(entry, donated, {"bufferization.writable": ir.BoolAttr.get(True, entry.context),
                                         DONATED: ir.UnitAttr.get(entry.context)})


def _mark_arguments(func_op: ir.Operation, indices, attributes: dict) -> None:
    """Set ``attributes`` on the arguments ``indices`` of ``func_op``, keeping their other attributes."""
    if not indices:
        return
    ctx = func_op.context
    count = len(func_op.regions[0].blocks[0].arguments)
    old = list(ir.ArrayAttr(func_op.attributes["arg_attrs"])) if "arg_attrs" in func_op.attributes \
        else [ir.DictAttr.get({}, ctx)] * count
    new = []
    for i, attrs in enumerate(old):
        merged = {name.name: name.attr for name in ir.DictAttr(attrs)} if i in indices else None
        new.append(ir.DictAttr.get({**merged, **attributes}, ctx) if merged is not None else attrs)
    func_op.attributes["arg_attrs"] = ir.ArrayAttr.get(new, ctx)


def run_stages(module: ir.Module, last: str, differentiate: JitDifferentiateOptions | None = None,
               results: PassResults | None = None, bf16: bool = True) -> ir.Module:
    """Run the compiler's stages on ``module`` up to and including ``last``; return the resulting module.

    The stages run in the compile worker, a forked child
    (:mod:`tensorad.passes.isolation`), so the result is a new module in the
    same context, and a crash inside MLIR or LLVM is a ``CompileError``
    naming the pass, with a reproducer file.
    ``differentiate`` holds the options of the ``"differentiated"`` stage
    (``tad-jit-differentiate``: the memory budget, ...); what the passes
    return (``tad-remat``'s report) is added to ``results``. ``bf16=False``
    says the program has no bf16 values (``tad-round-bf16-on-bits`` is left out).

    Raises
    ------
    CompileError
        A pass failed (with its diagnostics) or crashed.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> lowered = ta.jit(lambda x: x * 2.0).lower(np.ones(3))
    >>> module = ir.Module.parse(lowered.as_text("tad"), TraceState.context())
    >>> "linalg.generic" in str(run_stages(module, "linalg"))
    True
    """
    stages = []
    for name, pipeline in GPU_STAGES if last == "nvvm" else STAGES:
        if name == "differentiated" and differentiate is not None:
            pipeline = dataclasses.replace(pipeline, options=differentiate)
        if name == "llvm":
            pipeline = pipeline.replace(threads=num_threads(), bf16=bf16)
        stages.append((name, pipeline))
        if name == last:
            break
    with COMPILE_LOCK:
        try:
            # LLVM sets itself up for the engines while the child runs the stages.
            meanwhile = prepare_code_generation if last in ("llvm", "nvvm") else None
            return run_isolated(module, "", _verify_each(), prepare=_prepare_stage, stages=stages, results=results,
                                meanwhile=meanwhile, persistent=True)
        except ir.MLIRError as err:
            stage = getattr(err, "stage", "?")
            raise CompileError(f"stage '{stage}' failed:\n{_format_mlir_error(err)}") from None
        except PassCrash as crash:
            raise CompileError(f"internal compiler error: {crash}; please report it with the reproducer") from None
        except OptionError as err:  # options that the pipeline text does not accept
            raise CompileError(str(err)) from None


class Lowered:
    """A traced function for one signature; shows its IR at each stage and compiles it.

    Attributes
    ----------
    entry : str
        The public function: the module's first, named after the user's function.
    in_avals, out_avals : list of (shape, dtype)
    out_tree : tensorad.tree.TreeDef
    donated : tuple of int
        The inputs whose buffers the compiled code may write into and
        return (marked ``tad.donated`` in the IR).
    """

    def __init__(self, module: ir.Module, in_avals, out_tree, out_avals,
                 differentiate_options: JitDifferentiateOptions = JitDifferentiateOptions(), device: str = "cpu",
                 donated: Sequence[int] = ()):
        self._text = module.operation.get_asm(enable_debug_info=True)
        self.entry = module.body.operations[0].attributes["sym_name"].value
        self.in_avals, self.out_tree, self.out_avals = in_avals, out_tree, out_avals
        self.differentiate_options, self.device, self.donated = differentiate_options, device, tuple(donated)

    def module(self) -> ir.Module:
        """A fresh module of the traced IR (each compilation transforms its own)."""
        try:
            return ir.Module.parse(self._text, TraceState.context())
        except ir.MLIRError as err:  # tracing made IR that does not parse: a bug, reported as one
            raise CompileError(f"internal compiler error: the traced module does not parse:\n"
                               f"{_format_mlir_error(err)}") from None

    def as_text(self, stage: str = "tad", debug_info: bool = False) -> str:
        """The IR after ``stage``: one of ``"tad"``, ``"differentiated"``, ``"linalg"``, ``"llvm"``, ``"nvvm"``.

        ``"nvvm"`` is the GPU code (``tad-lower-to-nvvm``): host LLVM with the
        kernels' PTX in ``gpu.binary`` ops; it needs no GPU. With
        ``debug_info``, every op shows its location (the user's ``file:line``).

        Examples
        --------
        >>> import numpy as np, tensorad as ta
        >>> "linalg.generic" in ta.jit(lambda x: x + 1.0).lower(np.ones(3)).as_text("linalg")
        True
        """
        names = [name for name, _ in STAGES] + [GPU_STAGES[-1][0]]
        if stage not in names:
            raise ValueError(f"unknown stage {stage!r}; choose one of {names}")
        with COMPILE_LOCK:
            module = run_stages(self.module(), stage, self.differentiate_options, bf16=self._has_bf16)
            return module.operation.get_asm(enable_debug_info=debug_info)

    def compile(self, reports: PassResults | None = None) -> "Compiled":
        """Lower to LLVM and JIT-compile; the lowering comes from the persistent cache where it has it.

        See :mod:`tensorad.compile_cache` (``TENSORAD_COMPILE_CACHE``). With
        ``reports``, the passes describe what they did (``tad-remat``'s
        memory report of every function) into it, and the lowering is not
        taken from the cache, where no pass runs.
        """
        with COMPILE_LOCK:
            if reports is None:
                module = self._lowered()
            else:
                options = dataclasses.replace(self.differentiate_options, report=True)
                module = run_stages(self.module(), self._last_stage, options, reports, self._has_bf16)
            executable = Executable(module, self.entry, self.in_avals, self.out_avals, device=self.device,
                                    donated=self.donated)
        return Compiled(executable, self.out_tree, module, self.in_avals, self.entry, self.donated)

    @property
    def _has_bf16(self) -> bool:
        """Whether the traced program has bf16 values (only then may its lowering compute any)."""
        return "bf16" in self._text

    @property
    def _last_stage(self) -> str:
        """The stage whose module is compiled: GPU code's, or the CPU's LLVM dialect."""
        return "nvvm" if self.device == "gpu" else "llvm"

    def _lowered(self) -> ir.Module:
        """The module after the last stage: from the persistent compile cache, else lowered (and stored there)."""
        last = self._last_stage
        module = self.module()
        if self.device != "cpu" or compile_cache.cache_dir() is None:
            return run_stages(module, last, self.differentiate_options, bf16=self._has_bf16)
        # Source locations change no code: a function moved in its file still hits.
        key = compile_cache.cache_key(module.operation.get_asm(), last, self.differentiate_options, num_threads(),
                                      vector_bits())
        lowered = compile_cache.load(key, module.context)
        if lowered is None:
            lowered = run_stages(module, last, self.differentiate_options, bf16=self._has_bf16)
            compile_cache.store(key, lowered)
        return lowered


class Compiled:
    """A compiled function for one signature: takes the flat list of input arrays.

    The arrays at ``donated`` are given up by the caller: the compiled code
    may overwrite them and return results in their buffers.
    """

    def __init__(self, executable: Executable, out_tree, module: ir.Module | None = None,
                 in_avals: Sequence = (), entry: str = "main", donated: Sequence[int] = ()):
        self.executable, self.out_tree, self.donated = executable, out_tree, tuple(donated)
        self._one_array = out_tree == tree.LEAF  # no pytree to rebuild
        # The LLVM-dialect module and its entry point, kept for export().
        self.module, self.in_avals, self.entry = module, list(in_avals), entry

    def export(self, path, name: str | None = None):
        """Write a self-contained artefact: ``lib<name>.so``, ``<name>.h`` and a ctypes loader ``<name>.py``.

        It runs without MLIR, tensorad or numpy; see :mod:`tensorad.export`
        for the layout and the calling convention. Outputs are the flat
        leaves of the result pytree.

        Examples
        --------
        >>> import numpy as np, tensorad as ta
        >>> f = ta.jit(lambda x: x * 2.0)
        >>> f.lower(np.ones(3)).compile().export("build/double")  # doctest: +SKIP
        PosixPath('build/double')
        """
        from .export import export

        if self.donated:  # its callers would not expect their inputs overwritten
            raise ExportError("this function was compiled with donated arguments, which the exported code would "
                              "overwrite: export it jitted without donate_argnums/donate_argnames")
        module, entry = self.module, self.entry
        if name == entry or (name is None and os.path.basename(os.fspath(path)) == entry):
            # The library's C function takes the name: the compiled entry moves aside.
            module, entry = _renamed(module, entry, f"{entry}_impl")
        return export(module, path, self.in_avals, self.executable.out_avals, name=name, entry=entry)

    def __call__(self, flat_arrays: Sequence[np.ndarray]) -> Any:
        if self.donated:
            flat_arrays = donatable_inputs(flat_arrays, self.donated)
        results = self.executable(flat_arrays)
        return results[0] if self._one_array else tree.unflatten(self.out_tree, results)


def _renamed(module: ir.Module, entry: str, new: str) -> tuple:
    """A copy of the LLVM-dialect ``module`` whose ``@entry`` (and its C interface) is ``@new``; with ``new``."""
    with module.context:
        copy = ir.Module.parse(module.operation.get_asm(enable_debug_info=True))
        for old_name, new_name in ((entry, new), (f"_mlir_ciface_{entry}", f"_mlir_ciface_{new}")):
            ir.SymbolTable.replace_all_symbol_uses(old_name, new_name, copy.operation)
            ir.SymbolTable(copy.operation)[old_name].attributes["sym_name"] = ir.StringAttr.get(new_name)
    return copy, new


def _boundary_type(t: ir.Type) -> ir.Type:
    """The type a value of type ``t`` crosses to numpy as: a scalar as a 0-d tensor (an index as i64)."""
    where = ir.Location.unknown(t.context)
    if isinstance(t, ir.IndexType):
        return ir.RankedTensorType.get([], ir.IntegerType.get_signless(64, t.context), loc=where)
    if isinstance(t, (ir.FloatType, ir.IntegerType)):
        return ir.RankedTensorType.get([], t, loc=where)
    return t


def _tensor_avals(types, entry: str) -> list:
    """(shape, dtype) of each type of ``entry``'s signature; a CompileError for what cannot cross to numpy.

    A scalar (``f64``, ``i1``, ``index``) crosses as a 0-d array (an index as
    int64); a dynamic dimension (``tensor<?x4xf64>``) has size None.
    """
    avals = []
    for t in map(_boundary_type, types):
        if not isinstance(t, ir.RankedTensorType):
            raise CompileError(f"@{entry} takes or returns {t}: compile_mlir passes ranked tensors and scalars")
        try:
            avals.append((tuple(None if ir.ShapedType.is_dynamic_size(n) else n for n in t.shape),
                          dtypes.from_mlir(t.element_type)))
        except TypeError as err:
            raise CompileError(f"@{entry}: {err}") from None
    return avals


def compile_mlir(source: str, entry: str = "main") -> Callable:
    """Compile hand-written ``tad``/upstream IR and return a function of numpy arrays.

    The function ``entry`` goes through the same stages as traced code; the
    other functions of the module may be callees. Results come back as one
    array, or a tuple when ``entry`` has several. Scalar arguments and
    results (``f64``, ``i1``, ``index``) are 0-d arrays (an index is int64).
    A dynamic dimension (``tensor<?xf64>``) takes any size: the function is
    compiled once and called with arrays of any size there, and its results
    come back with the sizes the code gives them.

    Examples
    --------
    >>> import numpy as np
    >>> f = compile_mlir('''
    ... func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {
    ...   %0 = "tad.transpose"(%x) {permutation = array<i64: 0>} : (tensor<3xf64>) -> tensor<3xf64>
    ...   %1 = math.exp %0 : tensor<3xf64>
    ...   return %1 : tensor<3xf64>
    ... }''')
    >>> f(np.zeros(3))
    array([1., 1., 1.])
    >>> g = compile_mlir('''
    ... func.func @main(%x: tensor<?xf64>) -> tensor<?xf64> {
    ...   %0 = math.exp %x : tensor<?xf64>
    ...   return %0 : tensor<?xf64>
    ... }''')
    >>> g(np.zeros(2)), g(np.zeros(4)).shape
    (array([1., 1.]), (4,))
    """
    # Every MLIR object lives and dies under the lock: no MLIR work may run while another thread forks.
    with COMPILE_LOCK:
        executable, in_avals, checks = _compile_entry(source, entry)

    def run(*arrays):
        results = executable(_matching_inputs(entry, arrays, in_avals, checks))
        return results[0] if len(results) == 1 else tuple(results)

    return run


def _compile_entry(source: str, entry: str) -> tuple:
    """``compile_mlir``'s work (the compile lock held): the Executable of ``@entry``, its input avals and size checks.

    The checks (:func:`~tensorad.passes.dims.argument_checks`) list the
    argument dims that the IR requires equal at run time.
    """
    try:
        module = ir.Module.parse(source, TraceState.context())
    except ir.MLIRError as err:
        raise CompileError(f"cannot parse the module:\n{_format_mlir_error(err)}") from None
    funcs = [op.operation for op in module.body.operations
             if op.operation.name == "func.func" and op.attributes["sym_name"].value == entry]
    if not funcs:
        raise CompileError(f"the module has no func.func @{entry}")
    _check_c_declarations(module)
    ftype = funcs[0].attributes["function_type"].value
    in_avals, out_avals = _tensor_avals(ftype.inputs, entry), _tensor_avals(ftype.results, entry)
    checks = argument_checks(module.operation, entry) if any(None in s for s, _ in in_avals) else []
    with module.context, funcs[0].location:
        # A public first function calling the entry point: the entry may be a
        # declaration that tad-differentiate defines as a private function.
        # It takes and returns scalars as 0-d tensors, which the runtime passes.
        with ir.InsertionPoint.at_block_begin(module.body):
            caller = func.FuncOp(f"{entry}__entry", ir.FunctionType.get(
                [_boundary_type(t) for t in ftype.inputs], [_boundary_type(t) for t in ftype.results]))
            block = caller.add_entry_block()
        with ir.InsertionPoint(block):
            args = []
            for arg, t in zip(block.arguments, ftype.inputs):
                value = arg if arg.type == t else tensor.ExtractOp(arg, []).result
                args.append(arith.IndexCastOp(t, value).result if isinstance(t, ir.IndexType) else value)
            results = []
            for value, t in zip(func.CallOp(list(ftype.results), entry, args).results, ftype.results):
                boundary = _boundary_type(t)
                if isinstance(t, ir.IndexType):
                    value = arith.IndexCastOp(boundary.element_type, value).result
                results.append(value if boundary == t else tensor.FromElementsOp(boundary, [value]).result)
            func.ReturnOp(results)
    module = run_stages(module, "llvm")
    if any(op.operation.name == "llvm.func" and op.attributes["sym_name"].value == entry
           and not len(op.regions[0].blocks) for op in module.body.operations):
        raise CompileError(f"@{entry} is a declaration that nothing defines (tad-differentiate defines one "
                           "with a tad.vjp or tad.jvp attribute): there is no code to run")
    return Executable(module, f"{entry}__entry", in_avals, out_avals), in_avals, checks


def _check_c_declarations(module: ir.Module) -> None:
    """Refuse a declaration of a C math function (``@sin``) with a type other than the C library's.

    The code would call the library's function all the same, passing and
    reading its values in the wrong registers: ``@sin(f32) -> f32`` returned
    its argument. Declarations that request a transformation (``tad.vjp``)
    are defined by the compiler, not the library.
    """
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func" or len(op.regions[0].blocks) or any(a.startswith("tad.") for a in op.attributes):
            continue
        name, declared = op.attributes["sym_name"].value, str(op.attributes["function_type"])
        # Only a name the process defines asks for the table (built on first use, in tenths of a second).
        expected = libm_prototypes().get(name) if is_process_symbol(name) else None
        if expected is not None and declared != expected:
            raise CompileError(f"{op.location}: @{name} is declared {declared}, but the C library's {name} is "
                               f"{expected}: a call would pass and return the wrong values")


# The default of jit(cache_limit=...): most signatures of one function kept compiled.
CACHE_LIMIT_VARIABLE = "TENSORAD_JIT_CACHE_LIMIT"
DEFAULT_CACHE_LIMIT = 64


def _matching_inputs(entry: str, arrays: Sequence, avals: Sequence, checks: Sequence = ()) -> list:
    """The arguments of a ``compile_mlir`` function as arrays of its signature's shapes and dtypes.

    Compiled code trusts the shapes it was compiled for: anything else would
    be read out of bounds, so a mismatch is refused here. A dynamic dim
    (size None) takes any size, as far as ``checks`` allow: each lists
    ``(argument, dim)`` pairs that must have one size (and the static size
    they must have, an ``int``).
    """
    if len(arrays) != len(avals):
        raise TypeError(f"@{entry} takes {len(avals)} arguments, got {len(arrays)}")
    inputs = []
    for i, (leaf, (shape, dtype)) in enumerate(zip(arrays, avals)):
        arr = _host_array(leaf)
        if len(arr.shape) != len(shape) or any(n is not None and n != m for n, m in zip(shape, arr.shape)):
            want = "(" + ", ".join("?" if n is None else str(n) for n in shape) + (",)" if len(shape) == 1 else ")")
            raise ValueError(f"argument {i} of @{entry} must have shape {want}, got {arr.shape}")
        if arr.dtype != dtype:
            if not np.can_cast(arr.dtype, dtype, "same_kind"):
                raise TypeError(f"argument {i} of @{entry} must be {dtype}, got {arr.dtype}")
            arr = arr.astype(dtype)
        inputs.append(_as_input_array(arr))
    for check in checks:
        dims = [c for c in check if not isinstance(c, int)]
        sizes = {inputs[i].shape[d] for i, d in dims} | {c for c in check if isinstance(c, int)}
        if len(sizes) > 1:
            given = ", ".join(f"argument {i} dim {d} has {inputs[i].shape[d]}" for i, d in dims)
            static = [c for c in check if isinstance(c, int)]
            need = f" (and must be {static[0]})" if static else ""
            raise ValueError(f"the dynamic sizes of @{entry}'s arguments must agree{need}: {given}")
    return inputs


# DLPack device types of host memory (those numpy.from_dlpack reads), and names of the others for errors.
_HOST_DLPACK_DEVICES = frozenset({1, 3, 11, 13})  # CPU, CUDA host (pinned), ROCm host, CUDA managed
_DLPACK_DEVICE_NAMES = {2: "cuda", 4: "opencl", 7: "vulkan", 8: "metal", 9: "vpi", 10: "rocm", 12: "ext_dev",
                        14: "oneapi", 15: "webgpu", 16: "hexagon", 17: "maia"}


def _host_array(leaf) -> np.ndarray:
    """``leaf`` as a numpy array; a DLPack tensor (``__dlpack__``, e.g. a torch CPU tensor) without a copy.

    Compiled code reads host memory: a tensor on a GPU is refused with a TypeError.
    """
    if isinstance(leaf, (np.ndarray, np.generic, type)) or not hasattr(leaf, "__dlpack_device__"):
        return np.asarray(leaf)
    device_type, device_id = leaf.__dlpack_device__()
    if device_type not in _HOST_DLPACK_DEVICES:
        device = _DLPACK_DEVICE_NAMES.get(int(device_type), f"type {int(device_type)}")
        raise TypeError(f"a {type(leaf).__name__} on device {device}:{device_id} cannot be passed to compiled "
                        "code, which reads host memory: move it to the CPU first (for a torch tensor, .cpu())")
    try:
        return np.from_dlpack(leaf)
    except (BufferError, TypeError, ValueError, RuntimeError) as err:  # e.g. a dtype numpy has not
        raise TypeError(f"cannot read a {type(leaf).__name__} through DLPack: {err}") from None


def _as_input_array(leaf) -> np.ndarray:
    arr = _host_array(leaf)
    if not arr.dtype.isnative:  # compiled code reads the machine's byte order
        arr = arr.astype(arr.dtype.newbyteorder("="))
    dtypes.check_supported(arr.dtype)
    flags = arr.flags
    # A copy is C-contiguous and aligned (np.ascontiguousarray would turn a 0-d array into a 1-d one).
    return arr if flags.c_contiguous and flags.aligned else arr.copy(order="C")


def _cache_limit_from_environment() -> int:
    text = os.environ.get(CACHE_LIMIT_VARIABLE, "")
    if not text:
        return DEFAULT_CACHE_LIMIT
    try:
        limit = int(text)
    except ValueError:
        limit = -1
    if limit < 1:
        raise ValueError(f"{CACHE_LIMIT_VARIABLE} must be a positive integer, got {text!r}")
    return limit


# Every Jitted, for clear_caches().
_ALL_JITTED: "weakref.WeakSet[Jitted]" = weakref.WeakSet()


@dataclasses.dataclass(frozen=True)
class _Statics:
    """What keys a compiled signature beside the array leaves: static arguments and donated leaves."""

    positional: tuple  # values of the static positional arguments, in order
    named: tuple  # (name, value) of the static keyword arguments, by name
    donated: tuple  # indices of the donated leaves among the flattened dynamic arguments


def _argnums(value, what: str) -> tuple:
    """An int or a sequence of ints as a sorted tuple without repeats."""
    nums = (value,) if isinstance(value, (int, str)) else tuple(value) if hasattr(value, "__iter__") else (value,)
    if any(isinstance(i, bool) or not isinstance(i, int) for i in nums):
        raise TypeError(f"{what} must be an int or a sequence of ints, got {value!r}")
    return tuple(sorted(set(nums)))


def _argnames(value, what: str) -> tuple:
    """A str or a sequence of str as a sorted tuple without repeats."""
    names = (value,) if isinstance(value, str) or not hasattr(value, "__iter__") else tuple(value)
    if any(not isinstance(n, str) for n in names):
        raise TypeError(f"{what} must be a str or a sequence of str, got {value!r}")
    return tuple(sorted(set(names)))


class _Selection:
    """Arguments chosen by position (``*_argnums``) and by name (``*_argnames``), as JAX reads them.

    Each completes the other through the function's signature: a named
    parameter passed by position is chosen too, and so is a parameter chosen
    by (non-negative) position but passed by keyword.
    """

    def __init__(self, fun: Callable, nums, names, kind: str):
        self.kind = kind  # "static" or "donate"
        self.nums = _argnums(nums, f"{kind}_argnums")
        self.names = frozenset(_argnames(names, f"{kind}_argnames"))
        parameters = None
        if self.nums or self.names:
            try:
                parameters = list(inspect.signature(fun).parameters.values())
            except (TypeError, ValueError):  # no signature (some builtins): positions and names as given
                pass
        by_position = set()
        if parameters is not None:
            kinds = inspect.Parameter
            positional = [p.name for p in parameters if p.kind in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD)]
            if not any(p.kind == kinds.VAR_KEYWORD for p in parameters):
                unknown = sorted(self.names - {p.name for p in parameters})
                if unknown:
                    raise ValueError(f"{kind}_argnames {unknown} of {_name(fun)}: no such parameter")
            keyword = {p.name for p in parameters if p.kind == kinds.POSITIONAL_OR_KEYWORD}
            named = {i for i in self.nums if 0 <= i < len(positional) and positional[i] in keyword}
            self.names |= {positional[i] for i in named}
            by_position = named | {positional.index(n) for n in self.names if n in positional}
        # Positions of named parameters: a call with fewer positional arguments passed them by
        # keyword (or not at all). The other argnums must be in each call.
        self.by_position = frozenset(by_position)
        self.checked = tuple(i for i in self.nums if i not in by_position)

    def __bool__(self) -> bool:
        return bool(self.nums or self.names)

    def positions(self, fun: Callable, count: int) -> frozenset:
        """The positions chosen among ``count`` positional arguments (negative argnums count from the end)."""
        positions = frozenset(i + count if i < 0 else i for i in self.checked)
        if any(not 0 <= i < count for i in positions):
            raise ValueError(f"jitted function {_name(fun)} has {self.kind}_argnums={self.nums}, but was "
                             f"called with {count} positional argument{'s' * (count != 1)}")
        return positions | {i for i in self.by_position if i < count}


def _name(fun: Callable) -> str:
    return getattr(fun, "__name__", repr(fun))


class Jitted:
    """A function compiled on first call for each (shapes, dtypes, static args) signature.

    One that :func:`jit` made runs as Python under :func:`disable_jit`
    (``obeys_disable_jit``); those of the transformations (``grad``, eager
    mode's ops) compile there too: they are how code runs op by op.

    The compiled signatures are kept in a least-recently-used cache of at
    most ``cache_limit`` entries; one dropped frees its code and is compiled
    again if it is called again. Calls may run at once from several threads.
    """

    obeys_disable_jit = False

    def __init__(self, fun: Callable, static_argnums: Sequence[int] = (), memory_budget=None,
                 device: str = "cpu", cache_limit: int | None = None, *, static_argnames: Sequence[str] = (),
                 donate_argnums: Sequence[int] = (), donate_argnames: Sequence[str] = ()):
        if device not in DEVICES:
            raise ValueError(f"unknown device {device!r}; choose one of {DEVICES}")
        if cache_limit is None:
            cache_limit = _cache_limit_from_environment()
        elif isinstance(cache_limit, bool) or not isinstance(cache_limit, int) or cache_limit < 1:
            raise ValueError(f"cache_limit must be a positive integer, got {cache_limit!r}")
        self.fun, self.device, self.cache_limit = fun, device, cache_limit
        self._static = _Selection(fun, static_argnums, static_argnames, "static")
        self._donate = _Selection(fun, donate_argnums, donate_argnames, "donate")
        both = (set(self._static.nums) | self._static.by_position) & (set(self._donate.nums) | self._donate.by_position)
        both |= self._static.names & self._donate.names
        if both:
            raise ValueError(f"jitted function {_name(fun)}: arguments {sorted(both, key=str)} are both static "
                             "and donated; a static argument has no buffer to donate")
        # As given (static_argnames completed from the signature). The fast path of __call__
        # needs none of them: a call with static or donated arguments makes no fast entry.
        self.static_argnums = self._static.nums
        self.static_argnames = tuple(sorted(self._static.names))
        self.donate_argnums, self.donate_argnames = self._donate.nums, tuple(sorted(self._donate.names))
        # The options of tad-jit-differentiate, read from the text a pipeline would hold, so a bad
        # budget is the same usage error as on the command line.
        try:
            options = JitDifferentiateOptions() if memory_budget is None else \
                parse(JitDifferentiateOptions, f"budget={memory_budget}", "tad-jit-differentiate")
            # What tad-remat decided is read by memory_report alone, which asks for it.
            self.differentiate_options = dataclasses.replace(options, report=False)
        except OptionError as err:  # e.g. jit(memory_budget="lots")
            raise CompileError(str(err)) from None
        # (static args, input tree, signature) -> Compiled, least recently used first.
        self._cache: collections.OrderedDict = collections.OrderedDict()
        # _fast_key of a call -> (Compiled, its key in _cache, whether it returns one array):
        # calls with arrays passed as they are.
        self._fast: dict = {}
        self._cache_lock = threading.Lock()
        _ALL_JITTED.add(self)
        functools.update_wrapper(self, fun, updated=())  # not the wrapped Jitted's state

    def _static_positions(self, count: int) -> frozenset:
        """The static arguments' positions among ``count`` positional arguments."""
        return self._static.positions(self.fun, count)

    def _split(self, args: tuple, kwargs: dict):
        """(statics, dynamic leaves, their tree) of a call; statics are ``()`` when there are none."""
        positions = self._static_positions(len(args)) if self._static else ()
        static, dynamic = [], []
        for i, a in enumerate(args):
            (static if i in positions else dynamic).append(a)
        named = ()
        if kwargs and self._static.names:
            named = tuple(sorted(((k, v) for k, v in kwargs.items() if k in self._static.names),
                                 key=lambda item: item[0]))
            kwargs = {k: v for k, v in kwargs.items() if k not in self._static.names}
        leaves, in_tree = tree.flatten((tuple(dynamic), kwargs))
        donated = self._donated_leaves(args, positions, kwargs) if self._donate else ()
        if not (static or named or donated):
            return (), leaves, in_tree
        statics = _Statics(tuple(static), named, donated)
        try:
            hash(statics)
        except TypeError:
            raise TracingError(f"static arguments of {_name(self.fun)} must be hashable, "
                               f"got {[type(s).__name__ for s in (*static, *(v for _, v in named))]}") from None
        return statics, leaves, in_tree

    def _donated_leaves(self, args: tuple, static_positions, kwargs: dict) -> tuple:
        """Indices of the leaves of the donated arguments among ``flatten((dynamic args, kwargs))``."""
        positions = self._donate.positions(self.fun, len(args))
        donated, offset = [], 0
        for i, a in enumerate(args):
            if i not in static_positions:
                count = len(tree.flatten(a)[0])
                if i in positions:
                    donated.extend(range(offset, offset + count))
                offset += count
        for name in tree.flatten({k: k for k in kwargs})[0]:  # the keys in the order flatten visits them
            count = len(tree.flatten(kwargs[name])[0])
            if name in self._donate.names:
                donated.extend(range(offset, offset + count))
            offset += count
        return tuple(donated)

    def _with_statics(self, static) -> Callable:
        if not static or not (static.positional or static.named):
            return self.fun

        def call(*dynamic, **kwargs):
            total = len(static.positional) + len(dynamic)
            positions = self._static_positions(total)
            merged, it_s, it_d = [], iter(static.positional), iter(dynamic)
            for i in range(total):
                merged.append(next(it_s) if i in positions else next(it_d))
            return self.fun(*merged, **kwargs, **dict(static.named))

        return call

    def _lower(self, static, arrays, in_tree) -> Lowered:
        in_avals = [(a.shape, a.dtype) for a in arrays]
        # GPU code copies its arguments to the device: there is nothing to donate.
        donated = static.donated if static and self.device == "cpu" else ()
        with COMPILE_LOCK, baked.recording() as read:
            if self.device == "cpu" and compile_cache.cache_dir() is None:
                # The first compilation of a process: the worker that will run the stages imports
                # their passes while the function is traced here (forked under the lock: no MLIR
                # work runs in another thread meanwhile).
                start_worker(TraceState.context(), tuple(pipeline for _, pipeline in STAGES))
            module, out_tree, out_avals = trace_function(self._with_statics(static), in_avals,
                                                         in_tree=in_tree)
            # Values compiled in as constants (parameters the function closes over): when
            # one changes, this function's code is dropped and the next call compiles again.
            for source in read:
                baked.depend(source, _forgetter(self))
            _mark_arguments(module.body.operations[0].operation, donated,
                            {DONATED: ir.UnitAttr.get(module.context)})
            lowered = Lowered(module, in_avals, out_tree, out_avals, self.differentiate_options, self.device,
                              donated)
            # Printed and dropped under the lock: no MLIR work may run while another thread forks.
            del module
        return lowered

    def lower(self, *args, **kwargs) -> Lowered:
        """Trace for these arguments' shapes and dtypes (arrays or :class:`ShapeDtypeStruct` s); see :meth:`Lowered.as_text`."""
        static, leaves, in_tree = self._split(args, kwargs)
        return self._lower(static, [x if isinstance(x, ShapeDtypeStruct) else _as_input_array(x) for x in leaves],
                           in_tree)

    def compile_with_reports(self, *args, **kwargs) -> PassResults:
        """Compile for these arguments, as a call would, and keep the code; return what the passes reported.

        The next call with arguments of these shapes and dtypes runs this
        code. :func:`tensorad.memory_report` reads ``tad-remat``'s report
        from it, so that the function is planned and compiled once.

        Examples
        --------
        >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
        >>> f = ta.jit(ta.grad(lambda x: tnp.sin(tnp.sin(x)).sum()))
        >>> f.compile_with_reports(np.ones(4)).last("tad-remat").functions[0].status
        'honoured'
        >>> f.cache_size
        1
        """
        static, leaves, in_tree = self._split(args, kwargs)
        arrays = [_as_input_array(x) for x in leaves]
        reports = PassResults()
        compiled = self._lower(static, arrays, in_tree).compile(reports)
        self._remember(*self._cache_keys(args, kwargs, static, in_tree, arrays), compiled)
        return reports

    @staticmethod
    def _cache_keys(args, kwargs, static, in_tree, arrays) -> tuple:
        """``(key, fast_key)`` of a call's compiled code in the cache (``fast_key`` None where there is none)."""
        key = (static, in_tree, tuple((a.shape, a.dtype) for a in arrays))
        return key, None if kwargs or static else _fast_key(args, arrays)

    def __call__(self, *args, **kwargs):
        if _JIT.disabled and self.obeys_disable_jit:  # disable_jit(): the function runs as Python, op by op
            return self.fun(*args, **kwargs)
        if not kwargs:
            # Fast path for the common call, arrays that compiled code reads as they are:
            # one lookup, no pytree walk (see _fast_key).
            try:
                entry = self._fast.get(tuple(map(array_key, args)))
            except Exception:  # an argument that is no array: the general path below says what is wrong
                entry = None
            if entry is not None:
                compiled, key, one_array = entry
                try:
                    self._cache.move_to_end(key)
                except KeyError:  # dropped by another thread meanwhile: this call still runs it
                    pass
                # One array: what Compiled.__call__ would do, without its frame.
                return compiled.executable(args)[0] if one_array else compiled(args)
        static, leaves, in_tree = self._split(args, kwargs)
        if current_module() is not None or any(isinstance(x, Tracer) for x in leaves):
            # Inside another trace, inline: the function may close over that
            # trace's values even when its arguments are concrete.
            return self.fun(*args, **kwargs)
        arrays = [_as_input_array(x) for x in leaves]
        key, fast_key = self._cache_keys(args, kwargs, static, in_tree, arrays)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._lower(static, arrays, in_tree).compile()
            self._remember(key, fast_key, compiled)
        else:
            try:
                self._cache.move_to_end(key)
            except KeyError:
                pass
            if fast_key is not None and fast_key not in self._fast:  # e.g. an Array where an ndarray came first
                self._remember(key, fast_key, compiled)
        return compiled(arrays)

    def _remember(self, key, fast_key, compiled) -> None:
        """Cache ``compiled`` under ``key`` (and ``fast_key``), dropping the least recently used beyond the limit."""
        with self._cache_lock:
            if key in self._cache:  # a fast key for a kept signature: it gets the kept key object, which
                key = next(k for k in list(self._cache) if k == key)  # move_to_end finds without a hash
            self._cache[key] = compiled
            if fast_key is not None:
                one_array = compiled.out_tree == tree.LEAF and not compiled.donated
                self._fast[fast_key] = (compiled, key, one_array)
            while len(self._cache) > self.cache_limit:
                dropped, _ = self._cache.popitem(last=False)
                for fast, (_, full, _) in list(self._fast.items()):
                    if full == dropped:
                        del self._fast[fast]

    def fast_handle(self, *args) -> tuple | None:
        """What the fast path of a call with ``args`` runs: ``(compiled, mark_used)``, or None if it runs nothing.

        For a caller that makes the same call many times (eager mode) and
        dispatches it itself: ``compiled(args)`` runs it, and ``mark_used()``
        keeps this function's least-recently-used order as a call would (it
        raises ``KeyError`` once the signature is dropped). The caller keeps
        ``compiled`` by a weak reference, so that a dropped signature's code is
        still freed.

        Examples
        --------
        >>> import numpy as np, tensorad as ta
        >>> f, x = ta.jit(lambda x: x * 2.0), np.ones(2)
        >>> f.fast_handle(x) is None  # not compiled yet
        True
        >>> _ = f(x)
        >>> compiled, mark_used = f.fast_handle(x)
        >>> mark_used(); compiled((x,))
        array([2., 2.])
        """
        try:
            entry = self._fast.get(tuple(map(array_key, args)))
        except Exception:  # an argument that is no array
            return None
        if entry is None:
            return None
        compiled, key, _ = entry
        return compiled, functools.partial(self._cache.move_to_end, key)

    def clear_cache(self) -> None:
        """Drop every compiled signature of this function, freeing its code.

        Examples
        --------
        >>> import numpy as np, tensorad as ta
        >>> f = ta.jit(lambda x: x + 1.0)
        >>> f(np.zeros(2))
        array([1., 1.])
        >>> f.clear_cache(); f.cache_size
        0
        """
        with self._cache_lock:
            self._cache.clear()
            self._fast.clear()

    @property
    def cache_size(self) -> int:
        """Number of signatures compiled and kept."""
        return len(self._cache)


#: What the fast path of Jitted.__call__ keys an argument by (tensorad.eager too). The class,
#: since a numpy scalar has a shape and a dtype too; the dtype itself (not its letter), which
#: tells a big-endian array from a native one; the flags, so that only arrays passed as they
#: are take the fast path. All read in C: a fifth of the cost of a Python loop.
array_key = operator.attrgetter("__class__", "shape", "dtype", "flags.c_contiguous", "flags.aligned")


def _fast_key(args: tuple, arrays: list) -> tuple | None:
    """The fast path's key for a call with positional ``args`` whose leaves compiled code gets as ``arrays``.

    None unless each argument is an array that compiled code reads as it
    is: no pytree, no copy, no byte swap.
    """
    if len(args) != len(arrays) or not all(isinstance(a, np.ndarray) for a in args):
        return None
    key = tuple(map(array_key, args))
    for (_, _, dtype, contiguous, aligned), arr in zip(key, arrays):
        if not (contiguous and aligned and dtype == arr.dtype):
            return None
    return key


def _forgetter(jitted: "Jitted") -> Callable[[], None]:
    """A callback dropping ``jitted``'s compiled code (without keeping ``jitted`` alive)."""
    ref = weakref.ref(jitted)

    def forget() -> None:
        alive = ref()
        if alive is not None:
            alive.clear_cache()

    return forget


def clear_caches() -> None:
    """Drop the compiled code of every jitted function, as ``jax.clear_caches()`` does.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> f = ta.jit(lambda x: x * 3.0)
    >>> f(np.ones(2))
    array([3., 3.])
    >>> ta.clear_caches(); f.cache_size
    0
    """
    for jitted in list(_ALL_JITTED):
        jitted.clear_cache()


@dataclasses.dataclass(frozen=True)
class ShapeDtypeStruct:
    """A shape and a dtype standing for an array, as JAX's: what :func:`eval_shape` gives and ``lower`` takes.

    Examples
    --------
    >>> s = ShapeDtypeStruct((2, 3), np.float32)
    >>> s.shape, s.dtype, s.ndim, s.size
    ((2, 3), dtype('float32'), 2, 6)
    """

    shape: tuple
    dtype: np.dtype

    def __post_init__(self):
        object.__setattr__(self, "shape", tuple(operator.index(n) for n in self.shape))
        object.__setattr__(self, "dtype", dtypes.check_supported(np.dtype(self.dtype)))

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))


def eval_shape(fun: Callable, *args, **kwargs):
    """The shapes and dtypes of ``fun(*args, **kwargs)``, as :class:`ShapeDtypeStruct` s, by tracing it only.

    Arguments may be arrays or :class:`ShapeDtypeStruct` s (pytrees of
    them): nothing is compiled or run, so nothing of their size is allocated.

    Examples
    --------
    >>> import tensorad.numpy as tnp
    >>> out = eval_shape(lambda x, w: tnp.tanh(x @ w), ShapeDtypeStruct((1000, 64), np.float32),
    ...                  ShapeDtypeStruct((64, 10), np.float32))
    >>> out.shape, out.dtype
    ((1000, 10), dtype('float32'))
    """
    lowered = Jitted(fun).lower(*args, **kwargs)
    return tree.unflatten(lowered.out_tree, [ShapeDtypeStruct(shape, dtype) for shape, dtype in lowered.out_avals])


class _JitSwitch(threading.local):
    """Whether :func:`disable_jit` is in force on this thread."""

    disabled = False


_JIT = _JitSwitch()


@contextlib.contextmanager
def disable_jit(disable: bool = True):
    """Within it, ``jit``-compiled functions run as plain Python on this thread (to debug them), as JAX's.

    Their operations then run one by one (tensorad's eager mode), so
    ``print`` shows values and a debugger stops inside them.

    Examples
    --------
    >>> f = jit(lambda x: x * 2.0)
    >>> with disable_jit():
    ...     y = f(np.ones(2))
    >>> y, f.cache_size
    (array([2., 2.]), 0)
    """
    previous = _JIT.disabled
    _JIT.disabled = disable
    try:
        yield
    finally:
        _JIT.disabled = previous


def jit(fun: Callable | None = None, *, static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (), donate_argnums: int | Sequence[int] = (),
        donate_argnames: str | Sequence[str] = (), memory_budget: int | str | None = None, device: str = "cpu",
        cache_limit: int | None = None):
    """Compile ``fun`` with MLIR; recompiles once per (shapes, dtypes, static args).

    Arguments are pytrees of arrays: numpy arrays, tensorad's :class:`Array`
    results, Python and numpy scalars, and DLPack tensors in host memory
    (``__dlpack__``: a torch CPU tensor, ...), read in place, without a copy
    (a tensor on a GPU is refused with ``TypeError``). Results are
    :class:`Array` instances: numpy arrays.

    Parameters
    ----------
    fun : callable
        Takes and returns pytrees of arrays.
    static_argnums : int or sequence of int
        Positional arguments passed as Python values (hashable) and baked into
        the compiled code; a negative one counts from the end of the call's
        arguments. A call with too few arguments raises ``ValueError``.
    static_argnames : str or sequence of str
        Keyword arguments passed as Python values, as ``static_argnums``.
        As in JAX, each completes the other through ``fun``'s signature: a
        parameter named here is static when passed by position too, and one
        chosen by (non-negative) position is static when passed by keyword.
        A static value that is not hashable raises ``TracingError``; a name
        that ``fun`` has no parameter for, ``ValueError``.
    donate_argnums, donate_argnames : int / str or sequences of them
        Arguments (every array of their pytrees) whose buffers the caller
        gives up: the compiled code may write its results and temporaries
        into them instead of allocating (an elementwise update such as
        ``x * 2.0 + 1.0`` then allocates nothing), and a result written in
        place comes back as a view of the donated array. Afterwards the
        contents of a donated array are unspecified (JAX deletes it); do not
        read it. Nothing is donated where it is unsafe: an array that is
        read-only, not contiguous, aligned and in native byte order, or that
        is also passed as an argument that is not donated, is copied and the
        copy donated, leaving the caller's array as it was. The same buffer
        donated twice in one call raises ``ValueError``, as does an argument
        both static and donated. ``device="gpu"`` code copies its arguments
        to the device and ignores donation.
    memory_budget : int or str, optional
        Peak live bytes the compiled code may use (``"64MiB"`` works too):
        ``tad-remat`` recomputes forward values in the backward sweep instead of
        storing them, as little as it can; a budget no schedule meets raises
        ``CompileError`` naming the smallest feasible one (at compilation),
        as does one that is no number of bytes (here).
    device : str
        ``"cpu"`` or ``"gpu"``: an NVIDIA GPU through ``tad-lower-to-nvvm``
        and the CUDA driver (``DeviceError`` at the first call where there
        is none; ``lower(...).as_text("nvvm")`` works everywhere).
    cache_limit : int, optional
        Most signatures kept compiled; beyond it the least recently used one
        is dropped (its memory freed). Default: ``TENSORAD_JIT_CACHE_LIMIT``,
        else 64. ``f.clear_cache()`` and ``tensorad.clear_caches()`` drop them all.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> scale = ta.jit(lambda x, k: x * k, static_argnums=1)
    >>> scale(np.arange(3.0), 2)
    array([0., 2., 4.])

    Static keyword arguments, also static when passed by position:

    >>> def power(x, n=2):
    ...     return x ** n
    >>> f = ta.jit(power, static_argnames="n")
    >>> f(np.arange(3.0), n=3), f(np.arange(3.0), 3)
    (array([0., 1., 8.]), array([0., 1., 8.]))

    Donation: the update is written into ``x``'s buffer, no allocation:

    >>> step = ta.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)
    >>> x = np.ones(4)
    >>> y = step(x)
    >>> y, ta.last_call_stats().peak_live_bytes, np.shares_memory(x, y)
    (array([3., 3., 3., 3.]), 0, True)
    """
    if fun is None:
        return lambda f: jit(f, static_argnums=static_argnums, static_argnames=static_argnames,
                             donate_argnums=donate_argnums, donate_argnames=donate_argnames,
                             memory_budget=memory_budget, device=device, cache_limit=cache_limit)
    jitted = Jitted(fun, static_argnums, memory_budget, device, cache_limit, static_argnames=static_argnames,
                    donate_argnums=donate_argnums, donate_argnames=donate_argnames)
    jitted.obeys_disable_jit = True
    return jitted
