"""The one registry of tensorad passes, read by ``autodiff-opt`` and the Python API.

A pass is one module with one public entry ``run(op, pass_, **options)``; a
named pipeline is one module with one public entry ``pipeline(**options)`` that
returns pipeline text. Modules are imported only when a pass is used.

Pipeline text follows ``mlir-opt --pass-pipeline``: tensorad passes and
upstream passes mix freely, e.g.
``builtin.module(tad-verify, canonicalize, tad-lower-to-linalg)``.

Examples
--------
>>> from tensorad.dialects import make_context
>>> from mlir import ir
>>> ctx = make_context()
>>> module = ir.Module.parse("func.func @f() { return }", ctx)
>>> run_pipeline(module, "builtin.module(tad-verify, canonicalize)")
"""

from __future__ import annotations

import functools
import importlib
import re
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

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
    PassInfo("tad-remat", "Choose what the backward sweep stores and what it recomputes, "
             "within a memory budget", _P + "remat:run"),
    PassInfo("tad-inline", "Inline calls of private functions, tad ops included", _P + "inline:run"),
    PassInfo("tad-simplify", "CSE, DCE and folding of tad ops", _P + "simplify:run"),
    PassInfo("tad-lower-to-linalg", "Lower tad ops to linalg, tensor, arith and math",
             _P + "lower.to_linalg:run"),
    PassInfo("tad-widen-bools", "Store booleans as bytes: retype tensor<...xi1> values to i8",
             _P + "lower.widen_bools:run"),
    PassInfo("tad-split-rank-reducing-subviews", "Make each rank-reducing memref.subview that upstream may read "
             "wrongly (unit dims, dynamic strides) a plain subview and a memref.collapse_shape",
             _P + "lower.subviews:run"),
    PassInfo("tad-free-after-last-use", "Move each memref.dealloc up to the last use of its buffer",
             _P + "lower.free_early:run"),
    PassInfo("tad-tile-and-vectorize", "Tile linalg ops for threads, caches and registers, and vectorize them",
             _P + "lower.codegen:run"),
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
    PassInfo("tad-lower-to-llvm", "Fuse, bufferize, free buffers early and lower to the LLVM dialect",
             _P + "lower.to_llvm:pipeline", is_pipeline=True),
    PassInfo("tad-lower-to-nvvm", "Map to GPU blocks and threads, lower to NVVM and embed PTX for an NVIDIA GPU",
             _P + "lower.to_nvvm:pipeline", is_pipeline=True),
)}


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


def _python_pass(info: PassInfo, options_text: str, verify_each: bool = True) -> Callable:
    """Wrap a pass entry: no exception escapes, and (with ``verify_each``) tad ops are verified after it."""
    entry = bind_options(info, options_text)

    def run(op, pass_):
        try:
            with op.context, op.location:  # passes build types and attributes
                entry(op, pass_)
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


def add_pipeline(pm: PassManager, text: str, verify_each: bool = True) -> None:
    """Append the passes of pipeline ``text`` to ``pm`` (anchored at ``builtin.module``).

    With ``verify_each`` false, tensorad passes skip ``tad-verify`` after themselves.

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

    for element in split_top_level(_strip_module_anchor(text)):
        info, options_text = _parse_element(element)
        if info is None:
            upstream.append(element)
            continue
        flush()
        if info.is_pipeline:
            add_pipeline(pm, bind_options(info, options_text)(), verify_each)
        else:
            pm.add(_python_pass(info, options_text, verify_each), name=info.name, argument=info.name,
                   description=info.summary)
    flush()


def build_pass_manager(text: str, ctx: ir.Context | None = None, verify_each: bool = True) -> PassManager:
    """Return a ``PassManager`` running pipeline ``text``.

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
    add_pipeline(pm, text, verify_each)
    return pm


def pipeline_elements(text: str) -> list[str]:
    """The passes of pipeline ``text``, one top-level element each, named pipelines expanded.

    Examples
    --------
    >>> pipeline_elements("builtin.module(tad-verify, func.func(cse, canonicalize))")
    ['tad-verify', 'func.func(cse, canonicalize)']
    >>> len(pipeline_elements("tad-lower-to-llvm")) > 10
    True
    """
    elements: list[str] = []
    for element in split_top_level(_strip_module_anchor(text)):
        info, options_text = _parse_element(element)
        if info is not None and info.is_pipeline:
            elements.extend(pipeline_elements(bind_options(info, options_text)()))
        else:
            elements.append(element)
    return elements


def verify_at_end(module: ir.Module, text: str) -> None:
    """Verify ``module`` after pipeline ``text`` ran without per-pass verification: MLIR's verifier, then ``tad-verify``.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> verify_at_end(ir.Module.parse("func.func @f() { return }", make_context()), "cse")
    """
    module.operation.verify()
    if _strip_module_anchor(text) != "tad-verify":
        build_pass_manager("tad-verify", module.context).run(module.operation)


def run_pipeline(module: ir.Module, text: str, verify_each: bool = True) -> None:
    """Run pipeline ``text`` on ``module`` in place; raises ``mlir.ir.MLIRError`` on failure.

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
    build_pass_manager(text, module.context, verify_each).run(module.operation)
    if not verify_each:
        verify_at_end(module, text)
