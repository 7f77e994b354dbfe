"""The one registry of tensorad passes, read by ``autodiff-opt`` and the Python API.

A pass is one module with one public entry ``run(op, pass_, options=...)``; a
named pipeline is one module with one public entry ``pipeline(options=...)`` that
returns pipeline text. Modules are imported only when a pass is used. A pass
that has something to tell its caller (``tad-remat``'s report) returns it:
the results of a run are collected in a :class:`PassResults`.

Pipeline text follows ``mlir-opt --pass-pipeline``: tensorad passes and
upstream passes mix freely, e.g.
``builtin.module(tad-verify, canonicalize, tad-lower-to-linalg)``. From
Python, pipelines are built from :class:`PassSpec` and :class:`Pipeline`
objects, whose ``str()`` is that text.

Examples
--------
>>> from tensorad.dialects import make_context
>>> from mlir import ir
>>> ctx = make_context()
>>> module = ir.Module.parse("func.func @f() { return }", ctx)
>>> run_pipeline(module, "builtin.module(tad-verify, canonicalize)")
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Optional, Union

from mlir import ir
from mlir.passmanager import PassManager

from .options import OptionError, options_class
from .options import parse as parse_options


@dataclass(frozen=True)
class PassInfo:
    """One registered pass or named pipeline.

    Attributes
    ----------
    name : str
        The command-line flag and pipeline name, e.g. ``"tad-verify"``.
    summary : str
        One line shown by ``autodiff-opt --help``.
    target : str
        ``"module:function"`` of the entry, imported lazily.
    is_pipeline : bool
        True when the entry returns pipeline text instead of transforming IR.
    """

    name: str
    summary: str
    target: str
    is_pipeline: bool = False

    def load(self) -> Callable:
        """Import and return the entry function."""
        module, _, function = self.target.partition(":")
        return getattr(importlib.import_module(module), function)


_P = "tensorad.passes."
# How an exception that escaped a tensorad pass (a bug, not a property of the input) is reported.
INTERNAL_ERROR = "internal error in pass"
PASSES: dict[str, PassInfo] = {info.name: info for info in (
    PassInfo("tad-verify", "Check the shape and attribute rules of every tad op", _P + "verify:run"),
    PassInfo("tad-differentiate", "Define every function declared with tad.vjp or tad.jvp",
             _P + "differentiate:run"),
    PassInfo("tad-batch", "Define every function declared with tad.vmap", _P + "batch:run"),
    PassInfo("tad-remat", "Choose what the backward sweep stores and what it recomputes, "
             "within a memory budget", _P + "remat:run"),
    PassInfo("tad-inline", "Inline calls of private functions, tad ops included", _P + "inline:run"),
    PassInfo("tad-partition", "Compute with this process's blocks of the values marked tad.shard "
             "(tensor parallelism over MPI)", _P + "partition:run"),
    PassInfo("tad-simplify", "CSE, DCE and folding of tad ops", _P + "simplify:run"),
    PassInfo("tad-batch-loop-rows", "Compute contractions of a loop's rows for all rows at once, before "
             "the loop (inputs) or after it (accumulated sums)", _P + "batch_loop_rows:run"),
    PassInfo("tad-jit-differentiate", "jit's differentiation stage: define derivatives, inline them, "
             "simplify, and choose what the backward sweep stores (tad-remat's options)",
             _P + "jit_differentiate:pipeline", is_pipeline=True),
    PassInfo("tad-lower-to-linalg", "Lower tad ops to linalg, tensor, arith and math",
             _P + "lower.to_linalg:run"),
    PassInfo("tad-raise-contractions", "Make each linalg contraction (matmul, or a generic computing "
             "out + a * b) a tad.dot_general", _P + "lower.raise_contractions:run"),
    PassInfo("tad-collapse-loops", "Merge the loops of a linalg op that every operand reads together "
             "(two contracting dims, a reshape fused into a contraction, batch and sequence) into one loop",
             _P + "lower.collapse_loops:run"),
    PassInfo("tad-read-parallel-inits-as-inputs", "Make the inits that an all-parallel linalg.generic reads "
             "inputs, so that elementwise fusion keeps them out of reductions",
             _P + "lower.parallel_inits:run"),
    PassInfo("tad-widen-bools", "Store booleans as bytes: retype tensor<...xi1> values to i8",
             _P + "lower.widen_bools:run"),
    PassInfo("tad-round-bf16-on-bits", "Compute each bf16 op in f32 and round its result to bf16 on the bits "
             "(keeping subnormals, which x86's conversion instruction flushes)", _P + "lower.round_bf16:run"),
    PassInfo("tad-split-rank-reducing-subviews", "Make each rank-reducing memref.subview that upstream may read "
             "wrongly (unit dims, dynamic strides) a plain subview and a memref.collapse_shape",
             _P + "lower.subviews:run"),
    PassInfo("tad-split-fresh-deallocs", "Free each fresh allocation of a bufferization.dealloc with a "
             "dealloc of its own", _P + "lower.split_deallocs:run"),
    PassInfo("tad-free-after-last-use", "Move each memref.dealloc up to the last use of its buffer",
             _P + "lower.free_early:run"),
    PassInfo("tad-write-into-donated", "Make the last elementwise reader of each donated argument write into it",
             _P + "lower.donated:write_into"),
    PassInfo("tad-return-donated", "Return a donated argument as it is, not as a clone",
             _P + "lower.donated:return_in_place"),
    PassInfo("tad-thread-independent-loops", "Run the iterations of each scf.for marked "
             "tad.independent_iterations on threads (an scf.forall)", _P + "lower.independent_loops:run"),
    PassInfo("tad-expand-strided-copies", "Make each memref.copy that the runtime's memrefCopy would run (a "
             "non-contiguous buffer) a linalg.copy, which becomes a loop nest", _P + "lower.expand_strided_copies:run"),
    PassInfo("tad-hoist-iteration-buffers", "Allocate once, before the loop, the buffers that each iteration of an "
             "scf.for marked tad.reused_iteration_buffers allocates and frees",
             _P + "lower.hoist_iteration_buffers:run"),
    PassInfo("tad-hoist-invariant-transposes", "Move each transpose of a loop-invariant tensor out of its loops",
             _P + "lower.hoist_invariant_transposes:run"),
    PassInfo("tad-outline-repeated-kernels", "Move each linalg op that occurs more than once into one "
             "function, called where it was, so that it is compiled once", _P + "lower.outline_kernels:run"),
    PassInfo("tad-inline-splat-inputs", "Read each constant-filled input of a linalg.generic as the constant, "
             "inside its body", _P + "lower.inline_splat_inputs:run"),
    PassInfo("tad-recompute-elementwise", "Clone an elementwise op read by several elementwise ops once per "
             "reader, so that fusion recomputes it in each instead of storing it",
             _P + "lower.recompute_elementwise:run"),
    PassInfo("tad-clone-shared-fills", "Give every linalg op its own copy of a fill it shares as an init",
             _P + "lower.clone_shared_fills:run"),
    PassInfo("tad-pack-streamed-operands", "Copy the streamed operand of each large matmul into panels of "
             "register-tile width", _P + "lower.pack_streamed_operands:run"),
    PassInfo("tad-tile-and-vectorize", "Tile linalg ops for threads, caches and registers, and vectorize them",
             _P + "lower.tile_and_vectorize:run"),
    PassInfo("tad-approximate-math", "Expand exp and tanh on float32 vectors into polynomials",
             _P + "lower.approx_math:run"),
    PassInfo("tad-native-gpu-math", "Make libdevice calls in GPU kernels that NVPTX does exactly (sqrtf) LLVM intrinsics",
             _P + "lower.gpu_math:run"),
    PassInfo("tad-outline-thread-loops", "Move the body of each thread loop (scf.parallel) into a chunk function",
             _P + "lower.threads:outline"),
    PassInfo("tad-define-thread-launchers", "Run the chunks of each outlined thread loop on the async runtime's threads",
             _P + "lower.threads:define_launchers"),
    PassInfo("tad-map-to-gpu", "Make every linalg op a GPU kernel (gpu.launch), with shared-memory tiles for contractions",
             _P + "lower.gpu_mapping:run"),
    PassInfo("tad-copy-arguments-to-device", "Copy memref arguments of public functions and constants into fresh buffers",
             _P + "lower.device_memory:copy_in"),
    PassInfo("tad-allocate-on-device", "Allocate host-code buffers as CUDA managed memory (gpu.alloc host_shared)",
             _P + "lower.device_memory:allocate"),
    PassInfo("tad-split-long-functions", "Cut each long function (of kernel calls, or of loop nests LLVM "
             "optimizes) into chunk functions it calls in turn", _P + "lower.split_functions:run"),
    PassInfo("tad-split-long-blocks", "Cut the long blocks of optnone LLVM functions into blocks of bounded "
             "length", _P + "lower.split_blocks:run"),
    PassInfo("tad-lower-to-llvm", "Fuse, bufferize, free buffers early and lower to the LLVM dialect",
             _P + "lower.to_llvm:pipeline", is_pipeline=True),
    PassInfo("tad-lower-to-nvvm", "Map to GPU blocks and threads, lower to NVVM and embed PTX for an NVIDIA GPU",
             _P + "lower.to_nvvm:pipeline", is_pipeline=True),
)}


def _render_options(options: Any) -> str:
    """The ``key=value`` text of the options that differ from their defaults, as :func:`.options.parse` reads it.

    Examples
    --------
    >>> from tensorad.passes.remat import RematOptions
    >>> _render_options(RematOptions(budget=2048, policy="save_only_these_names:a,b", node_limit=500))
    'budget=2048 policy=save_only_these_names:a,b node-limit=500'
    """
    items = []
    for f in dataclasses.fields(options):
        value = getattr(options, f.name)
        if value == f.default:
            continue
        text = ("true" if value else "false") if isinstance(value, bool) else str(value)
        if '"' in text or value is None:
            raise ValueError(f"option '{f.name}' = {value!r} cannot be written as pipeline text")
        if not text or any(ch.isspace() or ch in "{}" for ch in text):
            text = f'"{text}"'
        items.append(f"{f.name.replace('_', '-')}={text}")
    return " ".join(items)


@dataclass(frozen=True)
class PassSpec:
    """A registered pass (or named pipeline) with its typed options; ``str()`` is its pipeline text.

    Attributes
    ----------
    name : str
        A name of :data:`PASSES`.
    options : dataclass instance, optional
        An instance of the pass's options class (see :mod:`tensorad.passes.options`);
        None for its defaults.

    Raises
    ------
    ValueError
        For a name that is not registered.
    TypeError
        For options of another class than the pass's.

    Examples
    --------
    >>> from tensorad.passes.remat import RematOptions
    >>> str(PassSpec("tad-remat", RematOptions(budget=1024, tier="greedy")))
    'tad-remat{budget=1024 tier=greedy}'
    >>> str(PassSpec("tad-lower-to-llvm").replace(threads=4))
    'tad-lower-to-llvm{threads=4}'
    >>> str(PassSpec("tad-verify"))
    'tad-verify'
    """

    name: str
    options: Any = None

    def __post_init__(self):
        info = PASSES.get(self.name)
        if info is None:
            raise ValueError(f"'{self.name}' is not a registered tensorad pass")
        if self.options is not None:
            expected = options_class(info.load())
            if type(self.options) is not expected:
                takes = f"{expected.__name__} options" if expected else "no options"
                raise TypeError(f"pass '{self.name}' takes {takes}, got {type(self.options).__name__}")

    def replace(self, **changes) -> "PassSpec":
        """This pass with the options ``changes`` changed (the others as they are, or their defaults)."""
        options = self.options if self.options is not None else options_class(PASSES[self.name].load())()
        return PassSpec(self.name, dataclasses.replace(options, **changes))

    def __str__(self) -> str:
        text = "" if self.options is None else _render_options(self.options)
        return f"{self.name}{{{text}}}" if text else self.name


@dataclass(frozen=True, init=False)
class Pipeline:
    """Passes run in turn: :class:`PassSpec` objects, upstream pass text (``"symbol-dce"``) or other pipelines.

    ``str()`` is the text that ``autodiff-opt --pass-pipeline`` takes.

    Examples
    --------
    >>> str(Pipeline(PassSpec("tad-inline"), "symbol-dce", PassSpec("tad-simplify")))
    'builtin.module(tad-inline,symbol-dce,tad-simplify)'
    """

    elements: tuple

    def __init__(self, *elements: Union[PassSpec, "Pipeline", str]):
        object.__setattr__(self, "elements", elements)

    def __str__(self) -> str:
        return _ANCHOR + ",".join(_strip_module_anchor(str(e)) for e in self.elements) + ")"


@dataclass
class PassResults:
    """What the tensorad passes of a run returned, in the order they ran (e.g. ``tad-remat``'s report).

    Pickle-able, so that a run in a forked child (:mod:`tensorad.passes.isolation`)
    sends its results back.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> module = ir.Module.parse("func.func @f() { return }", make_context())
    >>> results = PassResults()
    >>> run_pipeline(module, "tad-remat", results=results)
    >>> [r.function for r in results.last("tad-remat").functions]
    ['f']
    """

    entries: list = field(default_factory=list)  # (pass name, result)

    def add(self, pass_name: str, result: Any) -> None:
        """Record ``result`` of a run of ``pass_name``."""
        self.entries.append((pass_name, result))

    def extend(self, other: "PassResults") -> None:
        """Append the results of ``other``."""
        self.entries.extend(other.entries)

    def of(self, pass_name: str) -> list:
        """The results of every run of ``pass_name``, in order."""
        return [result for name, result in self.entries if name == pass_name]

    def last(self, pass_name: str) -> Any:
        """The result of the last run of ``pass_name``, or None."""
        found = self.of(pass_name)
        return found[-1] if found else None


def split_top_level(text: str, sep: str = ",") -> Iterator[str]:
    """Split ``text`` at ``sep`` outside of (), {} and quotes.

    Raises
    ------
    ValueError
        For a bracket that is never closed or closes the wrong one, an open
        quote, or an empty element (``a,,b``).

    Examples
    --------
    >>> list(split_top_level("a, b{x=1,y=2}, func.func(c, d)"))
    ['a', 'b{x=1,y=2}', 'func.func(c, d)']
    >>> list(split_top_level("a{x=1"))
    Traceback (most recent call last):
    ...
    ValueError: '{' at column 2 of 'a{x=1' is never closed
    """
    opened: list[int] = []  # positions of the open brackets
    quoted, start, elements = False, 0, []
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif quoted:
            continue
        elif ch in "({":
            opened.append(i)
        elif ch in ")}":
            if not opened or text[opened.pop()] != _OPENING[ch]:
                raise ValueError(f"unbalanced '{ch}' at column {i + 1} of '{text}'")
        elif ch == sep and not opened:
            elements.append(text[start:i].strip())
            start = i + 1
    if quoted:
        raise ValueError(f"unclosed quote in '{text}'")
    if opened:
        raise ValueError(f"'{text[opened[-1]]}' at column {opened[-1] + 1} of '{text}' is never closed")
    elements.append(text[start:].strip())
    if elements == [""]:
        return iter(())
    if "" in elements:
        raise ValueError(f"empty pass name in '{text}'")
    return iter(elements)


_OPENING = {")": "(", "}": "{"}
_ANCHOR = "builtin.module("


def _strip_module_anchor(text: str) -> str:
    """``builtin.module(a, b)`` -> ``a, b``: the outer anchor's parenthesis must close at the very end.

    Examples
    --------
    >>> _strip_module_anchor(" builtin.module(cse, canonicalize) ")
    'cse, canonicalize'
    """
    text = text.strip()
    if not text.startswith(_ANCHOR):
        return text
    list(split_top_level(text))  # raises on unbalanced brackets
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch in "({") - (ch in ")}")
        if depth == 0 and ch == ")":
            if i != len(text) - 1:
                raise ValueError(f"unexpected '{text[i + 1:].strip()}' after the builtin.module(...) "
                                 f"of '{text}'")
            return text[len(_ANCHOR):-1]
    return text  # unreachable: the brackets are balanced


def _parse_element(element: str) -> tuple[Optional[PassInfo], str]:
    """``tad-remat{budget=10}`` -> (its :class:`PassInfo`, ``"budget=10"``); (None, "") for an upstream element.

    Raises
    ------
    ValueError
        For a tensorad pass followed by anything but one ``{options}``.
    """
    name = re.match(r"[\w.-]*", element).group(0)
    info = PASSES.get(name)
    if info is None:
        return None, ""
    rest = element[len(name):].strip()
    if not rest:
        return info, ""
    if rest[0] != "{" or rest[-1] != "}" or _closing_brace(rest) != len(rest) - 1:
        raise ValueError(f"'{element}': a tensorad pass takes its options as {name}{{key=value ...}}")
    return info, rest[1:-1]


def _closing_brace(text: str) -> int:
    """Index of the brace closing the one ``text`` starts with."""
    depth, quoted = 0, False
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted:
            depth += (ch == "{") - (ch == "}")
            if depth == 0:
                return i
    return -1


def bind_options(info: PassInfo, text: str = "") -> Callable:
    """The entry of ``info`` with its options read from ``text`` (``"budget=64MiB tier=exact"``).

    The text is parsed into the pass's options class (see
    :mod:`tensorad.passes.options`) here, before anything runs.

    Raises
    ------
    tensorad.passes.options.OptionError
        For an unknown option or a bad value, naming the pass, the option,
        the value and what is accepted.

    Examples
    --------
    >>> bind_options(PASSES["tad-lower-to-llvm"], "threads=4")().count("threads=4") > 1
    True
    """
    entry = info.load()
    options = options_class(entry)
    if options is None:
        if text.strip():
            raise OptionError(f"pass '{info.name}' takes no options, got '{text.strip()}'")
        return entry
    return functools.partial(entry, options=parse_options(options, text, info.name))


def pass_spec(element: str) -> Optional[PassSpec]:
    """The :class:`PassSpec` of tensorad pipeline element ``element``, options read; None for an upstream one.

    Raises
    ------
    ValueError
        (an :class:`~tensorad.passes.options.OptionError` for options) as :func:`bind_options` does.

    Examples
    --------
    >>> str(pass_spec("tad-remat{budget=1KiB}")), pass_spec("func.func(cse)")
    ('tad-remat{budget=1024}', None)
    """
    info, options_text = _parse_element(element)
    if info is None:
        return None
    options = bind_options(info, options_text)
    return PassSpec(info.name, getattr(options, "keywords", {}).get("options"))


def _python_pass(info: PassInfo, options_text: str, verify_each: bool = True,
                 results: Optional[PassResults] = None) -> Callable:
    """Wrap a pass entry: no exception escapes, its result goes to ``results``, tad ops are verified after it.

    Without ``verify_each`` no ``tad-verify`` follows the pass.
    """
    entry = bind_options(info, options_text)

    def run(op, pass_):
        try:
            with op.context, op.location:  # passes build types and attributes
                result = entry(op, pass_)
                if result is not None and results is not None:
                    results.add(info.name, result)
                if verify_each and info.name != "tad-verify":
                    from .verify import run as verify
                    verify(op, pass_)
        except Exception as err:  # a pass reports failure, it never raises
            # An exception here is a bug in the pass, not a property of the
            # input: say so, at no source position (the module's would be 0:0).
            # Errors raised inside MLIR callbacks carry a whole traceback: keep its last line.
            message = (str(err).strip().splitlines() or [""])[-1]
            ir.Location.unknown(op.context).emit_error(
                f"{INTERNAL_ERROR} '{info.name}': {type(err).__name__}: {message}")
            pass_.signal_pass_failure()

    run.__name__ = info.name.replace("-", "_")
    return run


def add_pipeline(pm: PassManager, text: Union[str, PassSpec, Pipeline], verify_each: bool = True,
                 results: Optional[PassResults] = None) -> None:
    """Append the passes of pipeline ``text`` to ``pm`` (anchored at ``builtin.module``).

    With ``verify_each`` false, tensorad passes skip ``tad-verify`` after themselves.
    What the passes return when ``pm`` runs is added to ``results``.

    Raises
    ------
    ValueError
        If the text is malformed, or a pass name is unknown.
    tensorad.passes.options.OptionError
        (a ``ValueError``) if a pass option is unknown or has a bad value.
    """
    upstream: list[str] = []

    def flush():
        if upstream:
            pm.add(",".join(upstream))
            upstream.clear()

    for element in split_top_level(_strip_module_anchor(str(text))):
        info, options_text = _parse_element(element)
        if info is None:
            upstream.append(element)
            continue
        flush()
        if info.is_pipeline:
            add_pipeline(pm, bind_options(info, options_text)(), verify_each, results)
        else:
            pm.add(_python_pass(info, options_text, verify_each, results), name=info.name, argument=info.name,
                   description=info.summary)
    flush()


def build_pass_manager(text: Union[str, PassSpec, Pipeline], ctx: ir.Context | None = None,
                       verify_each: bool = True, results: Optional[PassResults] = None) -> PassManager:
    """Return a ``PassManager`` running pipeline ``text``; what its passes return goes to ``results``.

    ``verify_each`` (the default, as in ``mlir-opt``) verifies the IR after
    every pass: MLIR's verifier, and ``tad-verify`` after tensorad passes.
    Without it no pass is followed by a verification; :func:`run_pipeline`
    then verifies once, at the end.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> pm = build_pass_manager("tad-verify,cse", make_context())
    """
    pm = PassManager("builtin.module", context=ctx)
    pm.enable_verifier(verify_each)
    add_pipeline(pm, text, verify_each, results)
    return pm


def pipeline_elements(text: Union[str, PassSpec, Pipeline]) -> list[str]:
    """The passes of pipeline ``text``, one top-level element each, named pipelines expanded.

    Examples
    --------
    >>> pipeline_elements("builtin.module(tad-verify, func.func(cse, canonicalize))")
    ['tad-verify', 'func.func(cse, canonicalize)']
    >>> len(pipeline_elements("tad-lower-to-llvm")) > 10
    True
    """
    elements: list[str] = []
    for element in split_top_level(_strip_module_anchor(str(text))):
        info, options_text = _parse_element(element)
        if info is not None and info.is_pipeline:
            elements.extend(pipeline_elements(bind_options(info, options_text)()))
        else:
            elements.append(element)
    return elements


def verify_at_end(module: ir.Module, text: Union[str, PassSpec, Pipeline]) -> None:
    """Verify ``module`` after pipeline ``text`` ran without per-pass verification: MLIR's verifier, then ``tad-verify``.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> verify_at_end(ir.Module.parse("func.func @f() { return }", make_context()), "cse")
    """
    module.operation.verify()
    # A module lowered to the LLVM dialect holds no tad op and no tensor (LLVM
    # types only, which MLIR's verifier just checked): walking its thousands of
    # ops from Python was 8% of an MLP gradient's compile.
    lowered = all(op.operation.name.startswith("llvm.") for op in module.body.operations)
    if not lowered and _strip_module_anchor(str(text)) != "tad-verify":
        build_pass_manager("tad-verify", module.context).run(module.operation)


def run_pipeline(module: ir.Module, text: Union[str, PassSpec, Pipeline], verify_each: bool = True,
                 results: Optional[PassResults] = None) -> None:
    """Run pipeline ``text`` on ``module`` in place; raises ``mlir.ir.MLIRError`` on failure.

    What the passes return (see :class:`PassResults`) is added to ``results``.

    With ``verify_each`` false the IR is verified once, after the last pass,
    instead of after every pass (what the JIT does: verification between
    passes is a large part of a compile's time). A broken pass is then
    reported at the end of the pipeline rather than right after itself.
    This runs in the calling process: :func:`tensorad.passes.isolation.run_isolated`
    runs a pipeline where a crash cannot end the process.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> module = ir.Module.parse("func.func @f() { return }", make_context())
    >>> run_pipeline(module, "canonicalize,cse", verify_each=False)
    """
    build_pass_manager(text, module.context, verify_each, results).run(module.operation)
    if not verify_each:
        verify_at_end(module, text)
