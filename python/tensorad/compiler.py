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
import dataclasses
import functools
import os
import threading
import weakref
from typing import Any, Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

from tensorad.passes.isolation import PassCrash, run_isolated
from tensorad.passes.jit_differentiate import JitDifferentiateOptions
from tensorad.passes.lower.host import num_threads
from tensorad.passes.options import OptionError, parse
from tensorad.passes.registry import PassResults, PassSpec

# Traced functions use Tracer's array methods and operators, which tensorad.numpy installs.
from . import dtypes, numpy as _array_methods, tree  # noqa: F401
from .errors import CompileError, TracingError
from .export import prepare_c_entry
from .runtime import Executable
from .tracing import Tracer, TraceState, current_module, trace_function

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
        prepare_c_entry(module.body.operations[0])  # the entry point comes first


def run_stages(module: ir.Module, last: str, differentiate: JitDifferentiateOptions | None = None,
               results: PassResults | None = None) -> ir.Module:
    """Run the compiler's stages on ``module`` up to and including ``last``; return the resulting module.

    The stages run in a forked child (:mod:`tensorad.passes.isolation`), so
    the result is a new module in the same context, and a crash inside MLIR
    or LLVM is a ``CompileError`` naming the pass, with a reproducer file.
    ``differentiate`` holds the options of the ``"differentiated"`` stage
    (``tad-jit-differentiate``: the memory budget, ...); what the passes
    return (``tad-remat``'s report) is added to ``results``.

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
            pipeline = pipeline.replace(threads=num_threads())
        stages.append((name, pipeline))
        if name == last:
            break
    with COMPILE_LOCK:
        try:
            return run_isolated(module, "", _verify_each(), prepare=_prepare_stage, stages=stages, results=results)
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
    """

    def __init__(self, module: ir.Module, in_avals, out_tree, out_avals,
                 differentiate_options: JitDifferentiateOptions = JitDifferentiateOptions(), device: str = "cpu"):
        self._text = module.operation.get_asm(enable_debug_info=True)
        self.entry = module.body.operations[0].attributes["sym_name"].value
        self.in_avals, self.out_tree, self.out_avals = in_avals, out_tree, out_avals
        self.differentiate_options, self.device = differentiate_options, device

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
            module = run_stages(self.module(), stage, self.differentiate_options)
            return module.operation.get_asm(enable_debug_info=debug_info)

    def compile(self) -> "Compiled":
        """Lower to LLVM and JIT-compile."""
        with COMPILE_LOCK:
            module = run_stages(self.module(),
                                "nvvm" if self.device == "gpu" else "llvm", self.differentiate_options)
            executable = Executable(module, self.entry, self.in_avals, self.out_avals, device=self.device)
        return Compiled(executable, self.out_tree, module, self.in_avals, self.entry)


class Compiled:
    """A compiled function for one signature: takes the flat list of input arrays."""

    def __init__(self, executable: Executable, out_tree, module: ir.Module | None = None,
                 in_avals: Sequence = (), entry: str = "main"):
        self.executable, self.out_tree = executable, out_tree
        self._one_array = out_tree.kind == "leaf"  # no pytree to rebuild
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

        module, entry = self.module, self.entry
        if name == entry or (name is None and os.path.basename(os.fspath(path)) == entry):
            # The library's C function takes the name: the compiled entry moves aside.
            module, entry = _renamed(module, entry, f"{entry}_impl")
        return export(module, path, self.in_avals, self.executable.out_avals, name=name, entry=entry)

    def __call__(self, flat_arrays: Sequence[np.ndarray]) -> Any:
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


def _tensor_avals(types, entry: str) -> list:
    """(shape, dtype) of each type of ``entry``'s signature; a CompileError for what cannot cross to numpy."""
    avals = []
    for t in types:
        if not (isinstance(t, ir.RankedTensorType) and t.has_static_shape):
            raise CompileError(f"@{entry} takes or returns {t}: compile_mlir passes statically shaped tensors")
        try:
            avals.append((tuple(t.shape), dtypes.from_mlir(t.element_type)))
        except TypeError as err:
            raise CompileError(f"@{entry}: {err}") from None
    return avals


def compile_mlir(source: str, entry: str = "main") -> Callable:
    """Compile hand-written ``tad``/upstream IR and return a function of numpy arrays.

    The function ``entry`` goes through the same stages as traced code; the
    other functions of the module may be callees. Results come back as one
    array, or a tuple when ``entry`` has several.

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
    """
    try:
        module = ir.Module.parse(source, TraceState.context())
    except ir.MLIRError as err:
        raise CompileError(f"cannot parse the module:\n{_format_mlir_error(err)}") from None
    funcs = [op.operation for op in module.body.operations
             if op.operation.name == "func.func" and op.attributes["sym_name"].value == entry]
    if not funcs:
        raise CompileError(f"the module has no func.func @{entry}")
    ftype = funcs[0].attributes["function_type"].value
    in_avals, out_avals = _tensor_avals(ftype.inputs, entry), _tensor_avals(ftype.results, entry)
    with module.context, funcs[0].location:
        # A public first function calling the entry point: the entry may be a
        # declaration that tad-differentiate defines as a private function.
        with ir.InsertionPoint.at_block_begin(module.body):
            caller = func.FuncOp(f"{entry}__entry", ftype)
            block = caller.add_entry_block()
        with ir.InsertionPoint(block):
            func.ReturnOp(func.CallOp(list(ftype.results), entry, list(block.arguments)).results)
    with COMPILE_LOCK:
        module = run_stages(module, "llvm")
        executable = Executable(module, f"{entry}__entry", in_avals, out_avals)

    def run(*arrays):
        results = executable(_matching_inputs(entry, arrays, in_avals))
        return results[0] if len(results) == 1 else tuple(results)

    return run


# The default of jit(cache_limit=...): most signatures of one function kept compiled.
CACHE_LIMIT_VARIABLE = "TENSORAD_JIT_CACHE_LIMIT"
DEFAULT_CACHE_LIMIT = 64


def _matching_inputs(entry: str, arrays: Sequence, avals: Sequence) -> list:
    """The arguments of a ``compile_mlir`` function as arrays of its signature's shapes and dtypes.

    Compiled code trusts the shapes it was compiled for: anything else would
    be read out of bounds, so a mismatch is refused here.
    """
    if len(arrays) != len(avals):
        raise TypeError(f"@{entry} takes {len(avals)} arguments, got {len(arrays)}")
    inputs = []
    for i, (leaf, (shape, dtype)) in enumerate(zip(arrays, avals)):
        arr = np.asarray(leaf)
        if arr.shape != tuple(shape):
            raise ValueError(f"argument {i} of @{entry} must have shape {tuple(shape)}, got {arr.shape}")
        if arr.dtype != dtype:
            if not np.can_cast(arr.dtype, dtype, "same_kind"):
                raise TypeError(f"argument {i} of @{entry} must be {dtype}, got {arr.dtype}")
            arr = arr.astype(dtype)
        inputs.append(_as_input_array(arr))
    return inputs


def _as_input_array(leaf) -> np.ndarray:
    arr = np.asarray(leaf)
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


class Jitted:
    """A function compiled on first call for each (shapes, dtypes, static args) signature.

    The compiled signatures are kept in a least-recently-used cache of at
    most ``cache_limit`` entries; one dropped frees its code and is compiled
    again if it is called again. Calls may run at once from several threads.
    """

    def __init__(self, fun: Callable, static_argnums: Sequence[int] = (), memory_budget=None,
                 device: str = "cpu", cache_limit: int | None = None):
        if device not in DEVICES:
            raise ValueError(f"unknown device {device!r}; choose one of {DEVICES}")
        if cache_limit is None:
            cache_limit = _cache_limit_from_environment()
        elif isinstance(cache_limit, bool) or not isinstance(cache_limit, int) or cache_limit < 1:
            raise ValueError(f"cache_limit must be a positive integer, got {cache_limit!r}")
        self.fun, self.device, self.cache_limit = fun, device, cache_limit
        self.static_argnums = tuple(sorted(set(static_argnums)))
        # The options of tad-jit-differentiate, read from the text a pipeline would hold, so a bad
        # budget is the same usage error as on the command line.
        try:
            self.differentiate_options = JitDifferentiateOptions() if memory_budget is None else \
                parse(JitDifferentiateOptions, f"budget={memory_budget}", "tad-jit-differentiate")
        except OptionError as err:  # e.g. jit(memory_budget="lots")
            raise CompileError(str(err)) from None
        # (static args, input tree, signature) -> Compiled, least recently used first.
        self._cache: collections.OrderedDict = collections.OrderedDict()
        # (argument count, signature) -> (Compiled, its key in _cache): calls with plain arrays.
        self._fast: dict = {}
        self._cache_lock = threading.Lock()
        _ALL_JITTED.add(self)
        functools.update_wrapper(self, fun, updated=())  # not the wrapped Jitted's state

    def _static_positions(self, count: int) -> frozenset:
        """The static argnums as positions among ``count`` positional arguments (negative ones count from the end)."""
        positions = frozenset(i + count if i < 0 else i for i in self.static_argnums)
        if any(not 0 <= i < count for i in positions):
            name = getattr(self.fun, "__name__", repr(self.fun))
            raise ValueError(f"jitted function {name} has static_argnums={self.static_argnums}, but was "
                             f"called with {count} positional argument{'s' * (count != 1)}")
        return positions

    def _split(self, args: tuple, kwargs: dict):
        positions = self._static_positions(len(args))
        static, dynamic = [], []
        for i, a in enumerate(args):
            (static if i in positions else dynamic).append(a)
        try:
            hash(tuple(static))
        except TypeError:
            raise TracingError(f"static arguments of {self.fun.__name__} must be hashable, "
                               f"got {[type(s).__name__ for s in static]}") from None
        leaves, in_tree = tree.flatten((tuple(dynamic), kwargs))
        return tuple(static), leaves, in_tree

    def _with_statics(self, static: tuple) -> Callable:
        if not self.static_argnums:
            return self.fun

        def call(*dynamic, **kwargs):
            total = len(static) + len(dynamic)
            positions = self._static_positions(total)
            merged, it_s, it_d = [], iter(static), iter(dynamic)
            for i in range(total):
                merged.append(next(it_s) if i in positions else next(it_d))
            return self.fun(*merged, **kwargs)

        return call

    def _lower(self, static, arrays, in_tree) -> Lowered:
        in_avals = [(a.shape, a.dtype) for a in arrays]
        with COMPILE_LOCK:
            module, out_tree, out_avals = trace_function(self._with_statics(static), in_avals,
                                                         in_tree=in_tree)
        return Lowered(module, in_avals, out_tree, out_avals, self.differentiate_options, self.device)

    def lower(self, *args, **kwargs) -> Lowered:
        """Trace for these arguments' shapes and dtypes; see :meth:`Lowered.as_text`."""
        static, leaves, in_tree = self._split(args, kwargs)
        return self._lower(static, [_as_input_array(x) for x in leaves], in_tree)

    def __call__(self, *args, **kwargs):
        if not kwargs and not self.static_argnums and all(type(a) is np.ndarray for a in args):
            # Fast path for the common call with plain arrays: no pytree walk. The
            # dtype itself (not its letter) tells a big-endian array from a native one.
            entry = self._fast.get((len(args), tuple((a.shape, a.dtype) for a in args)))
            if entry is not None and all(_is_ready(a.flags) for a in args):
                compiled, key = entry
                try:
                    self._cache.move_to_end(key)
                except KeyError:  # dropped by another thread meanwhile: this call still runs it
                    pass
                return compiled(args)
        static, leaves, in_tree = self._split(args, kwargs)
        if current_module() is not None or any(isinstance(x, Tracer) for x in leaves):
            # Inside another trace, inline: the function may close over that
            # trace's values even when its arguments are concrete.
            return self.fun(*args, **kwargs)
        arrays = [_as_input_array(x) for x in leaves]
        signature = tuple((a.shape, a.dtype) for a in arrays)
        key = (static, in_tree, signature)
        compiled = self._cache.get(key)
        if compiled is None:
            compiled = self._lower(static, arrays, in_tree).compile()
            fast_key = (len(arrays), signature) \
                if in_tree == tree.flatten((tuple(leaves), {}))[1] and not static else None
            self._remember(key, fast_key, compiled)
        else:
            try:
                self._cache.move_to_end(key)
            except KeyError:
                pass
        return compiled(arrays)

    def _remember(self, key, fast_key, compiled) -> None:
        """Cache ``compiled`` under ``key`` (and ``fast_key``), dropping the least recently used beyond the limit."""
        with self._cache_lock:
            self._cache[key] = compiled
            if fast_key is not None:
                self._fast[fast_key] = (compiled, key)
            while len(self._cache) > self.cache_limit:
                dropped, _ = self._cache.popitem(last=False)
                for fast, (_, full) in list(self._fast.items()):
                    if full == dropped:
                        del self._fast[fast]

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


def _is_ready(flags) -> bool:
    """Whether an array with these flags can be passed as it is (the fast path's test)."""
    return flags.c_contiguous and flags.aligned


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


def jit(fun: Callable | None = None, *, static_argnums: int | Sequence[int] = (),
        memory_budget: int | str | None = None, device: str = "cpu", cache_limit: int | None = None):
    """Compile ``fun`` with MLIR; recompiles once per (shapes, dtypes, static args).

    Parameters
    ----------
    fun : callable
        Takes and returns pytrees of arrays.
    static_argnums : int or sequence of int
        Positional arguments passed as Python values (hashable) and baked into
        the compiled code; a negative one counts from the end of the call's
        arguments. A call with too few arguments raises ``ValueError``.
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
    """
    if isinstance(static_argnums, int):
        static_argnums = (static_argnums,)
    if fun is None:
        return lambda f: Jitted(f, static_argnums, memory_budget, device, cache_limit)
    return Jitted(fun, static_argnums, memory_budget, device, cache_limit)
