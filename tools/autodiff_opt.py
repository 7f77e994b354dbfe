"""``autodiff-opt``: an ``mlir-opt``-style driver for tensorad.

Reads MLIR (text, or bytecode: a file that starts with ``ML\\xefR``), checks
the ``tad`` ops (``tad-verify`` always runs after parsing), runs a pass
pipeline that mixes tensorad and upstream passes, and prints the result. Every
pass in :data:`tensorad.passes.registry.PASSES` is a flag of the same name; any
other ``--NAME[=OPTIONS]`` flag names an upstream pass, as in ``mlir-opt``.
Flags apply in command-line order.

The driver's own flags have ``mlir-opt``'s names and meaning:

=========================================== ===================================================================
flag                                        does
=========================================== ===================================================================
``--pass-pipeline=PIPELINE``                run a textual pipeline instead of pass flags
``--split-input-file``                      process the chunks between ``// -----`` markers apart
``--verify-diagnostics``                    check the diagnostics against ``expected-*`` comments
``--mlir-print-ir-before=PASS``             print the IR before each run of PASS (stderr; ``a,b`` names two)
``--mlir-print-ir-after=PASS``              print the IR after each run of PASS
``--mlir-print-ir-before-all``              print the IR before every pass
``--mlir-print-ir-after-all``               print the IR after every pass
``--mlir-print-ir-after-failure``           print the IR after a pass only when it failed
``--mlir-print-ir-after-change``            print the IR after a pass only when it changed it
``--mlir-print-ir-module-scope``            print the whole module, not only the op the pass ran on
``--mlir-pass-statistics``                  print the passes' statistics (stderr; ``-display=list`` as a list)
``--mlir-timing``                           print the time of every pass (stderr)
``--dump-pass-pipeline``                    print the pipeline that will run (stderr)
``--verify-each=false``                     do not verify the IR after every pass (default: true)
``--emit-bytecode``                         write MLIR bytecode instead of text
``--no-implicit-module``                    do not wrap the input in a ``builtin.module``
``--mlir-disable-threading``                run without threads (tensorad's contexts never use them)
``--mlir-pass-pipeline-crash-reproducer=F`` on a failure or crash, write the pipeline and its input to F
``--run-reproducer``                        run the pipeline recorded in the input (a reproducer)
``--list-passes``                           print every pass, upstream and tensorad, with its options, and exit
``--show-dialects``                         print the dialects, and exit
``--version``                               print the versions of tensorad and MLIR, and exit
``--mlir-print-debuginfo``                  print locations (in the output and the IR dumps)
``--mlir-print-op-generic``                 print ops in generic form
``--mlir-elide-elementsattrs-if-larger=N``  elide elements attributes with more than N elements
=========================================== ===================================================================

Examples
--------
Shell::

    autodiff-opt model.mlir --tad-verify --canonicalize -o out.mlir
    autodiff-opt model.mlir --pass-pipeline='builtin.module(tad-lower-to-linalg, cse)'
    autodiff-opt errors.mlir --split-input-file --verify-diagnostics
    autodiff-opt model.mlir --tad-simplify --cse --mlir-print-ir-after=tad-simplify
    autodiff-opt model.mlir --emit-bytecode -o model.mlirbc && autodiff-opt model.mlirbc --cse

From Python:

>>> parse_args(["x.mlir", "--cse", "--verify-each=false"]).verify_each
False
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Callable, Optional, Sequence, Union

from tensorad.tools.verify_diagnostics import Diag, Where, check_expectations, file_location, parse_expectations

PROG = "autodiff-opt"
SPLIT_MARKER = "// -----"
BYTECODE_MAGIC = b"ML\xefR"
# Boolean flags that, as in LLVM's command line, are true when given bare and take a value only as `--flag=value`.
_BOOLEAN_FLAGS = ("--verify-each",)
_TRUE, _FALSE = ("true", "1"), ("false", "0")


class _Parser(argparse.ArgumentParser):
    """Argument parser whose usage errors exit with status 1, like ``mlir-opt``."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(1, f"{self.prog}: error: {message}\n")


def _boolean(text: str) -> bool:
    """``true``/``false`` (or ``1``/``0``, any case), as LLVM reads a boolean flag's value."""
    if text.lower() in _TRUE + _FALSE:
        return text.lower() in _TRUE
    raise argparse.ArgumentTypeError(f"'{text}' is not a boolean: use true or false")


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse the command line; pass flags become ``namespace.pipeline``.

    A flag that is not one of the tool's own options names a pass, tensorad or
    upstream: ``--NAME`` or ``--NAME=OPTIONS`` becomes the pipeline element
    ``NAME{OPTIONS}``. Pass flags are split off before argparse sees them,
    because argparse takes an unknown flag that contains a space (such as
    ``--canonicalize=max-iterations=3 region-simplify=normal``) for a
    positional argument.

    Examples
    --------
    >>> parse_args(["x.mlir", "--tad-remat=budget=100", "--cse"]).pipeline
    'builtin.module(tad-remat{budget=100},cse)'
    >>> parse_args(["--mlir-print-ir-after=cse,tad-simplify", "--mlir-print-ir-after", "cse"]).mlir_print_ir_after
    ['cse,tad-simplify', 'cse']
    """
    parser = _Parser(
        prog=PROG, add_help=False, allow_abbrev=False,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Read MLIR (text or bytecode), verify tad ops, run passes, print MLIR.")
    own: set[str] = set()

    def option(*flags, **kwargs):
        own.update(flags)
        parser.add_argument(*flags, **kwargs)

    parser.add_argument("input", nargs="?", default="-", help="input file (default: stdin)")
    option("-h", "--help", action=_ShowAction, show=_help, help="show this help and exit")
    option("--version", action=_ShowAction, show=lambda parser: _listings().version(PROG),
           help="show the versions of tensorad and MLIR and exit")
    option("--list-passes", action=_ShowAction, show=lambda parser: _listings().list_passes(_context()),
           help="list every pass, upstream and tensorad, with its options, and exit")
    option("--show-dialects", action=_ShowAction, show=lambda parser: _listings().show_dialects(_context()),
           help="list the registered dialects and exit")
    option("-o", dest="output", metavar="FILE", help="output file (default: stdout; none with --export)")
    option("--pass-pipeline", metavar="PIPELINE",
           help="textual pipeline, e.g. 'builtin.module(tad-verify, canonicalize)'")
    option("--split-input-file", action="store_true",
           help=f"process the chunks between '{SPLIT_MARKER}' markers separately")
    option("--verify-diagnostics", action="store_true",
           help="check produced diagnostics against expected-* comments")
    option("--verify-each", type=_boolean, default=True, metavar="BOOL",
           help="verify the IR after every pass (default: true; --verify-each=false turns it off)")
    option("--emit-bytecode", action="store_true", help="write MLIR bytecode instead of text")
    option("--no-implicit-module", action="store_true",
           help="do not wrap the input in a builtin.module: it must hold one top-level op")
    option("--dump-pass-pipeline", action="store_true", help="print the pipeline that will run (stderr)")
    option("--tad-remat-report", metavar="FILE",
           help="write what tad-remat stored and recomputed (JSON) to FILE")
    option("--run-reproducer", action="store_true",
           help="run the pipeline recorded in the input (a crash reproducer) instead of pass flags")
    option("--mlir-pass-pipeline-crash-reproducer", dest="crash_reproducer", metavar="FILE",
           help="when the pipeline fails or crashes, write its input and the pipeline to FILE as a reproducer")
    option("--export", metavar="DIR",
           help="lower with the pipeline, then write a shared library, C header and ctypes loader "
                "to DIR (the input holds the entry as a func.func on static tensors)")
    option("--export-name", metavar="NAME", help="name of the exported library and function (default: DIR's name)")
    option("--entry", default="main", metavar="NAME", help="the function --export exports (default: main)")
    option("--allow-unregistered-dialect", action="store_true",
           help="accept ops of dialects that are not registered")
    option("--mlir-disable-threading", action="store_true",
           help="run without threads (accepted for mlir-opt's sake: tensorad's contexts never use them)")
    option("--mlir-print-ir-before", action="append", metavar="PASS",
           help="print the IR before every run of PASS (stderr; repeat the flag or write PASS,PASS)")
    option("--mlir-print-ir-after", action="append", metavar="PASS", help="print the IR after every run of PASS")
    option("--mlir-print-ir-before-all", action="store_true", help="print the IR before every pass (stderr)")
    option("--mlir-print-ir-after-all", action="store_true", help="print the IR after every pass (stderr)")
    option("--mlir-print-ir-after-failure", action="store_true",
           help="print the IR after a pass only when it failed")
    option("--mlir-print-ir-after-change", action="store_true",
           help="print the IR after a pass only when the pass changed it")
    option("--mlir-print-ir-module-scope", action="store_true",
           help="print the whole module in IR dumps, not only the op the pass ran on")
    option("--mlir-pass-statistics", action="store_true", help="report the statistics of every pass (stderr)")
    option("--mlir-pass-statistics-display", choices=("list", "pipeline"), default="pipeline",
           help="statistics of each pass, or summed by pass name (list) (default: pipeline)")
    option("--mlir-timing", action="store_true", help="report the time of every pass (stderr)")
    option("--mlir-print-debuginfo", action="store_true", help="print locations")
    option("--mlir-print-op-generic", action="store_true", help="print ops in generic form")
    option("--mlir-elide-elementsattrs-if-larger", type=int, metavar="N",
           help="elide elements attributes with more than N elements")

    rest, elements = _split_pass_flags(argv, own)
    args = parser.parse_args([f"{arg}=true" if arg in _BOOLEAN_FLAGS else arg for arg in rest])
    if args.pass_pipeline is not None and elements:
        parser.error("--pass-pipeline cannot be combined with pass flags")
    if args.export and (args.split_input_file or args.verify_diagnostics):
        parser.error("--export cannot be combined with --split-input-file or --verify-diagnostics")
    if args.emit_bytecode and args.split_input_file:
        parser.error("--emit-bytecode cannot be combined with --split-input-file: bytecode has no chunk marker")
    if args.run_reproducer and (args.pass_pipeline is not None or elements):
        parser.error("--run-reproducer runs the pipeline recorded in the input: it takes no passes")
    args.pipeline = args.pass_pipeline or (f"builtin.module({','.join(elements)})" if elements else "")
    if args.tad_remat_report and not _runs_remat(args.pipeline):
        parser.error("--tad-remat-report needs the tad-remat pass in the pipeline")
    return args


def _runs_remat(pipeline: str) -> bool:
    """Whether ``pipeline`` runs ``tad-remat``, itself or inside a named pipeline.

    A pipeline that cannot be read counts as running it: building the pass
    manager then reports what is wrong with it.

    Examples
    --------
    >>> _runs_remat("tad-jit-differentiate{budget=64MiB}"), _runs_remat("builtin.module(cse)")
    (True, False)
    """
    from tensorad.passes.registry import pipeline_elements

    try:
        elements = pipeline_elements(pipeline)
    except (ValueError, ImportError):
        return True
    return any(re.match(r"tad-remat(?![\w-])", element) for element in elements)


class _ShowAction(argparse.Action):
    """A flag that prints ``show(parser)`` on stdout and exits (``--help``, ``--version``, ``--list-passes``, ...).

    What it shows is computed only when the flag is given (it imports the passes, or runs ``mlir-opt``).
    """

    def __init__(self, option_strings, show: Callable[[argparse.ArgumentParser], str], dest=argparse.SUPPRESS,
                 default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)
        self.show = show

    def __call__(self, parser, namespace, values, option_string=None):
        try:
            text = self.show(parser)
        except (OSError, RuntimeError) as err:  # mlir-opt missing or failing
            parser.exit(1, f"{parser.prog}: error: {option_string}: {err}\n")
        sys.stdout.write(text)
        parser.exit()


def _help(parser: argparse.ArgumentParser) -> str:
    """``--help``: the tool's options, then every tensorad pass with its options."""
    parser.epilog = passes_help()
    return parser.format_help()


def _context():
    from tensorad.dialects import make_context

    return make_context()


def _listings():
    """:mod:`tensorad.tools.listings`, imported only when a flag asks for it (it imports MLIR and the passes)."""
    from tensorad.tools import listings

    return listings


def passes_help() -> str:
    """The ``--help`` text of the tensorad passes: name, summary, and each option with its type and default.

    Examples
    --------
    >>> "budget=<a number of bytes" in passes_help()
    True
    """
    from tensorad.tools.listings import tensorad_passes

    passes = list(tensorad_passes())
    width = max(len(name) for name, _, _ in passes) + 2
    lines = ["tensorad passes (flags, or names inside --pass-pipeline):"]
    for name, summary, options in passes:
        lines.append(f"  --{name:<{width}}{summary}")
        lines.extend(f"      {option}\n          {doc}" for option, doc in options)
    return "\n".join(lines + [
        "",
        "Any other --NAME[=OPTIONS] flag runs the upstream MLIR pass NAME, as in mlir-opt",
        "(--list-passes lists every pass with its options).",
        "Pass flags run in command-line order; options look like --NAME='key=value key2=value2'."])


def _split_pass_flags(argv: Sequence[str], own: set[str]) -> tuple[list[str], list[str]]:
    """Return (the tool's own arguments, pipeline elements of the pass flags, in order)."""
    rest, elements = [], []
    for i, arg in enumerate(argv):
        if arg == "--":
            rest.extend(argv[i:])
            break
        if not arg.startswith("-") or arg == "-" or arg.split("=", 1)[0] in own:
            rest.append(arg)
            continue
        name, eq, options = arg.lstrip("-").partition("=")
        elements.append(f"{name}{{{options}}}" if eq else name)
    return rest, elements


def split_input(text: str) -> list[str]:
    """Split ``text`` at every ``// -----``, keeping line and column numbers.

    Like ``mlir-opt``, the marker splits wherever it occurs. Each chunk is
    preceded by as many newlines and spaces as text precedes it, so
    diagnostics and ``expected-*`` line designators refer to positions in the
    whole file.

    Examples
    --------
    >>> split_input("a\\n// -----\\nb\\n")
    ['a\\n', '\\n        \\nb\\n']
    """
    chunks, lines, col = [], 0, 0
    for piece in text.split(SPLIT_MARKER):
        chunks.append("\n" * lines + " " * col + piece)
        last = piece.rfind("\n")
        lines += piece.count("\n")
        col = (col if last < 0 else 0) + len(piece) - (last + 1) + len(SPLIT_MARKER)
    return chunks


class Source:
    """The input text and its name, for printing diagnostics the way ``mlir-opt`` does.

    The parser names every buffer ``"-"``; diagnostics at ``"-"`` are shown
    with the real input name and the source line.

    Examples
    --------
    >>> Source("a.mlir", "%0 = foo\\n").render("error", ("-", 1, 6), "unknown op")
    'a.mlir:1:6: error: unknown op\\n%0 = foo\\n     ^'
    """

    def __init__(self, name: str, text: str):
        self.name = name
        self.lines = text.split("\n")

    def render(self, severity: str, where: Optional[Where], message: str, show_line: bool = True) -> str:
        """Return ``FILE:LINE:COL: SEVERITY: MESSAGE`` with the source line and a caret."""
        if where is None or where[1] == 0:  # line 0: no position (a parsed module's own location)
            return f"{self.name}: {severity}: {message}"
        file, line, col = where
        text = f"{self.name if file == '-' else file}:{line}:{col}: {severity}: {message}"
        if show_line and file == "-" and 1 <= line <= len(self.lines):
            text += f"\n{self.lines[line - 1]}\n{' ' * max(col - 1, 0)}^"
        return text

    def print(self, severity: str, where: Optional[Where], message: str, show_line: bool = True) -> None:
        """Print a rendered diagnostic to stderr."""
        print(self.render(severity, where, message, show_line), file=sys.stderr, flush=True)

    def print_diag(self, diag: Diag) -> None:
        """Print a diagnostic and its notes (notes without the source line)."""
        self.print(diag.severity, diag.where, diag.message)
        for note in diag.notes:
            self.print(note.severity, note.where, note.message, show_line=False)


def _mlir_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


class _UsageError(Exception):
    """A flag whose value is wrong in a way only a context can tell (an unknown pass name)."""


def _pass_names(flag: str, values: Optional[list], ctx) -> frozenset:
    """The passes named by the values of ``--FLAG=a,b`` (given any number of times), each checked to exist."""
    from tensorad.passes.registry import PASSES
    from tensorad.tools.listings import is_upstream_pass

    names = set()
    for name in (name.strip() for value in values or () for name in value.split(",")):
        if not name:
            raise _UsageError(f"--{flag} needs a pass name, e.g. --{flag}=cse")
        info = PASSES.get(name)
        if not re.fullmatch(r"[\w.-]+", name) or (info is None and not is_upstream_pass(name, ctx)):
            raise _UsageError(f"--{flag}: '{name}' is not a registered pass (see --list-passes)")
        if info is not None and info.is_pipeline:
            raise _UsageError(f"--{flag}: '{info.name}' is a pipeline of passes: name one of them "
                              "(--dump-pass-pipeline lists them)")
        names.add(name)
    return frozenset(names)


def _ir_printing(args: argparse.Namespace, ctx):
    """The :class:`~tensorad.tools.ir_printing.IRPrinting` that the ``--mlir-print-ir-*`` flags ask for."""
    from tensorad.tools.ir_printing import IRPrinting

    return IRPrinting(
        before=None if args.mlir_print_ir_before_all else _pass_names(
            "mlir-print-ir-before", args.mlir_print_ir_before, ctx),
        after=None if args.mlir_print_ir_after_all else _pass_names(
            "mlir-print-ir-after", args.mlir_print_ir_after, ctx),
        after_failure=args.mlir_print_ir_after_failure, after_change=args.mlir_print_ir_after_change,
        module_scope=args.mlir_print_ir_module_scope)


Chunk = Union[str, bytes]  # text, or MLIR bytecode


class _Driver:
    """Parses, verifies, transforms and prints one chunk at a time in one context.

    Each chunk is processed in a forked child (:func:`tensorad.passes.isolation.fork_call`),
    so an LLVM assertion or a segfault inside a pass cannot end the tool: the
    pipeline is then run again pass by pass to name the pass that crashed and
    write the IR it crashed on as a reproducer. ``--mlir-timing`` processes
    chunks in this process, so that one report covers them all.
    """

    def __init__(self, args: argparse.Namespace, source: Source):
        from mlir import ir
        from mlir.passmanager import PassDisplayMode

        from tensorad.dialects import make_context
        from tensorad.passes.registry import PassResults, build_pass_manager

        self.ir, self.args, self.source = ir, args, source
        self.ctx = make_context()  # without threads, as --mlir-disable-threading asks
        self.ctx.allow_unregistered_dialects = args.allow_unregistered_dialect
        # Send errors to the handler as well (not only into MLIRError), so every
        # diagnostic arrives in one place, in the order MLIR emits them.
        self.ctx.emit_error_diagnostics = True
        self.diags: list[Diag] = []
        self.quiet = False  # while a crash is located: its diagnostics were shown already
        self._handler = self.ctx.attach_diagnostic_handler(self._on_diagnostic)
        self.printing = _ir_printing(args, self.ctx)
        self.verify_pm = build_pass_manager("tad-verify", self.ctx)
        self.results = PassResults()  # what the passes return while one chunk is processed
        self.pm = None
        if args.pipeline:
            self.pm = build_pass_manager(args.pipeline, self.ctx, verify_each=args.verify_each, results=self.results)
            self.printing.enable(self.pm, large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
                                 debug_info=args.mlir_print_debuginfo, generic=args.mlir_print_op_generic)
            if args.mlir_pass_statistics:
                self.pm.enable_statistics(PassDisplayMode.LIST if args.mlir_pass_statistics_display == "list"
                                          else PassDisplayMode.PIPELINE)
            if args.mlir_timing:
                self.pm.enable_timing()  # the report prints when the PassManager is freed
        if args.dump_pass_pipeline:
            from tensorad.tools.listings import dump_pass_pipeline

            sys.stderr.write(dump_pass_pipeline(args.pipeline, self.ctx))
            sys.stderr.flush()

    def close(self) -> None:
        """Detach the diagnostic handler and free the pass managers (printing --mlir-timing)."""
        self._handler.detach()
        self.pm = self.verify_pm = None

    def _on_diagnostic(self, diagnostic) -> bool:
        diag = Diag.of(diagnostic)
        self.diags.append(diag)
        if not self.args.verify_diagnostics and not self.quiet:
            self.source.print_diag(diag)
        return True

    def process(self, chunk: Chunk):
        """Return (printed IR or None on failure, whether the chunk is fine, what the passes returned).

        A chunk is fine when it succeeded, or under ``--verify-diagnostics``
        when its diagnostics are exactly the expected ones. What the passes
        returned is a :class:`tensorad.passes.registry.PassResults`. The
        printed IR is bytes with ``--emit-bytecode``.
        """
        from tensorad.passes.isolation import ChildCrashed, fork_call
        from tensorad.passes.registry import PassResults

        if self.args.mlir_timing:
            return self._process_here(chunk)
        try:
            return fork_call(lambda: self._process_here(chunk))
        except ChildCrashed as crash:
            self._report_crash(chunk, crash.cause)
            return None, False, PassResults()

    def _process_here(self, chunk: Chunk):
        from tensorad.passes.registry import PassResults

        self.results.entries.clear()
        output, fine = self._transform(chunk)
        return output, fine, PassResults(list(self.results.entries))

    def _parse(self, chunk: Chunk):
        """The chunk as a module; with ``--no-implicit-module``, its one top-level op (a module if it is one).

        Bytecode always holds its top-level op: it is read as a module.
        """
        if self.args.no_implicit_module and isinstance(chunk, str):
            top = self.ir.Operation.parse(chunk, source_name="-", context=self.ctx)
            if top.operation.name != "builtin.module":
                return top
        return self.ir.Module.parse(chunk, self.ctx)

    def _verify(self, top) -> None:
        """Run ``tad-verify`` on the parsed input (on a copy in a module when its top-level op is not one)."""
        if not isinstance(top, self.ir.Module):
            holder = self.ir.Module.create(top.location)
            holder.body.append(top.operation.clone())
            top = holder
        self.verify_pm.run(top.operation)

    def _run_pipeline(self, top, chunk: Chunk) -> None:
        """Run the pipeline on ``top``; on failure write the --mlir-pass-pipeline-crash-reproducer file."""
        import contextlib

        from tensorad.tools.ir_printing import filtered_stderr

        try:
            with filtered_stderr(self.printing.keeps) if self.printing.filtered else contextlib.nullcontext():
                self.pm.run(top.operation)
        except self.ir.MLIRError as err:
            if self.args.crash_reproducer:
                self._write_reproducer(self._parse(chunk), "Failures have been detected while processing "
                                       "an MLIR pass pipeline")
                err.reported = True  # the reproducer's message stands for MLIR's "Failure while executing"
            raise

    def _write_reproducer(self, top, what: str) -> None:
        """Write the --mlir-pass-pipeline-crash-reproducer file for input ``top``, and say so after ``what``."""
        from tensorad.tools.reproducers import write_reproducer_file

        path = self.args.crash_reproducer
        try:
            write_reproducer_file(path, top, self.args.pipeline, verify_each=self.args.verify_each)
        except OSError as err:
            self.source.print("error", None, f"cannot write the reproducer '{path}': {err.strerror or err}")
            return
        if not self.args.verify_diagnostics:
            self.source.print("error", None, what)
            self.source.print("note", None, f"Pipeline failed: reproducer generated at `{path}`")

    def _transform(self, chunk: Chunk) -> tuple[Optional[Chunk], bool]:
        self.diags = []
        try:
            top = self._parse(chunk)
            self._verify(top)
            if self.args.export:
                return self._export(top, chunk)
            if self.pm is not None:
                self._run_pipeline(top, chunk)
            output = self._print(top)
        except self.ir.MLIRError as err:
            output = None
            reported = getattr(err, "reported", False) or any(d.severity == "error" for d in self.diags)
            if not self.args.verify_diagnostics and not reported:
                self.source.print("error", None, str(err))
        if self.args.verify_diagnostics:
            return output, check_expectations(
                self.diags, parse_expectations(chunk if isinstance(chunk, str) else ""),
                lambda where, message: self.source.print("error", where, message))
        return output, output is not None

    def _report_crash(self, chunk: Chunk, cause: str) -> None:
        """Name the pass that crashed on ``chunk`` (running it again, isolated) and where its reproducer is."""
        from tensorad.passes.isolation import ChildCrashed, PassCrash, fork_call, run_isolated

        self.quiet = True
        try:
            try:
                verified = fork_call(lambda: self._parsed_bytecode(chunk))
            except ChildCrashed as crash:
                self.source.print("error", None, f"autodiff-opt crashed ({crash.cause}) while parsing and "
                                  "verifying the input")
                return
            if verified is None or self.pm is None:
                self.source.print("error", None, f"autodiff-opt crashed ({cause})")
                return
            module = self.ir.Module.parse(verified, self.ctx)
            try:
                run_isolated(module, self.args.pipeline, verify_each=self.args.verify_each)
                message = f"the pipeline crashed ({cause}), but not when run again pass by pass"
            except PassCrash as crashed:
                message = str(crashed)
            except self.ir.MLIRError:
                message = f"the pipeline crashed ({cause}), but failed cleanly when run again"
        finally:
            self.quiet = False
        self.source.print("error", _first_position(module), message)
        if self.args.crash_reproducer:
            self._write_reproducer(module, "the pass pipeline crashed")

    def _parsed_bytecode(self, chunk: Chunk) -> Optional[bytes]:
        """The chunk parsed and verified, as bytecode (None when it does not parse or verify)."""
        try:
            top = self._parse(chunk)
            self._verify(top)
        except self.ir.MLIRError:
            return None
        return _bytecode(top)

    def _export(self, top, chunk: Chunk) -> tuple[Optional[str], bool]:
        """Lower ``top`` with the pipeline and write the --export artefact (MLIRError escapes)."""
        from tensorad.errors import ExportError
        from tensorad.export import export, prepare_entry

        args = self.args
        if not isinstance(top, self.ir.Module):
            self.source.print("error", file_location(top.location),
                              f"--export needs a builtin.module, not a top-level '{top.operation.name}'")
            return None, False
        entry = [op for op in top.body.operations
                 if "sym_name" in op.attributes and op.attributes["sym_name"].value == args.entry]
        where = file_location(entry[0].location) if entry else None
        if entry and entry[0].operation.name == "func.func" and not entry[0].regions[0].blocks:
            self.source.print("error", where, f"--entry @{args.entry} is a declaration without a body; "
                              "--export needs a defined function (define derivatives first: "
                              "autodiff-opt IN --tad-differentiate -o OUT, then export OUT)")
            return None, False
        try:
            in_avals, out_avals = prepare_entry(top, args.entry)
            if self.pm is not None:
                self._run_pipeline(top, chunk)
            export(top, args.export, in_avals, out_avals, name=args.export_name, entry=args.entry)
        except ExportError as err:
            self.source.print("error", where, str(err))
            return None, False
        return self._print(top), True

    def _print(self, top) -> Chunk:
        args = self.args
        if args.emit_bytecode:
            return _bytecode(top)
        # Without --verify-each the output may be invalid: the printer then checks it and falls back to
        # the generic form, as mlir-opt's does.
        asm = top.operation.get_asm(
            enable_debug_info=args.mlir_print_debuginfo,
            print_generic_op_form=args.mlir_print_op_generic,
            large_elements_limit=args.mlir_elide_elementsattrs_if_larger,
            assume_verified=args.verify_each)
        if args.mlir_print_debuginfo:
            # The parser names every buffer "-"; show the input's name as mlir-opt does.
            asm = re.sub(r'"-":(\d+):(\d+)', lambda m: f"{_mlir_string(self.source.name)}:{m[1]}:{m[2]}", asm)
        return asm + "\n"


def _bytecode(top) -> bytes:
    import io

    buffer = io.BytesIO()
    top.operation.write_bytecode(buffer)
    return buffer.getvalue()


def _first_position(module) -> Optional[Where]:
    """The first source position inside ``module`` (its first op's), for errors about the whole module."""
    return next(filter(None, (file_location(op.location) for op in module.body.operations)), None)


def _error(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 1


def check_writable(path: str) -> Optional[str]:
    """Why ``path`` cannot be written, or None when it can (a file created to find out is removed again).

    Examples
    --------
    >>> check_writable("/no/such/folder/out.mlir")
    'No such file or directory'
    """
    existed = os.path.exists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as err:
        return err.strerror or str(err)
    if not existed:
        os.remove(path)
    return None


def run(argv: Sequence[str]) -> int:
    """Run the tool on ``argv`` (without the program name); return the exit status.

    Exceptions other than ``SystemExit`` (from ``--help`` and usage errors)
    are internal errors; :func:`main` turns them into a message.

    Examples
    --------
    >>> run(["model.mlir", "--tad-verify"])  # doctest: +SKIP
    0
    """
    from tensorad.passes.isolation import without_reproducer_resource
    from tensorad.passes.options import OptionError

    args = parse_args(argv)
    name = "<stdin>" if args.input == "-" else args.input
    try:
        text = read_input(sys.stdin.buffer if args.input == "-" else args.input)
    except (OSError, UnicodeDecodeError) as err:
        return _error(f"cannot read input file '{name}': {getattr(err, 'strerror', None) or err}")
    if args.run_reproducer:
        problem = _take_reproducer(args, text)
        if problem:
            return _error(f"'{name}' is not a reproducer: {problem}")
        text = without_reproducer_resource(text)
    for path in (args.output, args.tad_remat_report, args.crash_reproducer):
        problem = path and path != "-" and check_writable(path)
        if problem:
            return _error(f"cannot write '{path}': {problem}")
    source = Source(name, text if isinstance(text, str) else "")
    try:
        driver = _Driver(args, source)
    except (OptionError, _UsageError) as err:
        return _error(str(err))
    except (ValueError, TypeError, ImportError) as err:
        return _error(f"invalid pass pipeline: {str(err).strip()}")
    sys.stderr.flush()  # MLIR writes IR dumps and timing straight to the stderr file descriptor
    chunks = split_input(text) if args.split_input_file and isinstance(text, str) else [text]
    results = [driver.process(chunk) for chunk in chunks]
    driver.close()
    reports = [report for _, _, returned in results for report in returned.of("tad-remat")]
    if args.tad_remat_report and reports:
        try:  # the last run's, as when each run wrote the file
            reports[-1].write(args.tad_remat_report)
        except OSError as err:
            return _error(f"cannot write '{args.tad_remat_report}': {err.strerror or err}")
    ok = all(fine for _, fine, _ in results)
    if args.emit_bytecode:  # one chunk (--split-input-file is refused)
        output = results[0][0] or b""
    else:
        output = f"{SPLIT_MARKER}\n".join(out or "" for out, _, _ in results).encode("utf-8")
    # With --export the artefact is the output: the lowered IR is printed only when asked for.
    output_file = args.output or ("" if args.export else "-")
    if output_file == "-":
        sys.stdout.flush()
        sys.stdout.buffer.write(output)
        sys.stdout.buffer.flush()
    elif ok and output_file:
        try:
            Path(output_file).write_bytes(output)
        except OSError as err:
            return _error(f"cannot write '{output_file}': {err.strerror or err}")
    return 0 if ok else 1


def read_input(source) -> Chunk:
    """The input, from a path or a binary stream: bytes for MLIR bytecode (it starts with ``ML\\xefR``), else text.

    Raises
    ------
    OSError
        When it cannot be read.
    UnicodeDecodeError
        For text that is not UTF-8.

    Examples
    --------
    >>> import io
    >>> read_input(io.BytesIO(b"func.func @f()")), read_input(io.BytesIO(BYTECODE_MAGIC + b"\\x00"))[:4]
    ('func.func @f()', b'ML\\xefR')
    """
    data = source.read() if hasattr(source, "read") else Path(source).read_bytes()
    return data if data.startswith(BYTECODE_MAGIC) else data.decode("utf-8")


def _take_reproducer(args: argparse.Namespace, text: Chunk) -> Optional[str]:
    """Set ``args.pipeline`` (and ``verify_each``) from the reproducer ``text``; why it is not one, or None."""
    from tensorad.passes.isolation import reproducer_pipeline
    from tensorad.tools.reproducers import reproducer_flag

    if not isinstance(text, str):
        return "--run-reproducer reads a textual reproducer, not bytecode"
    args.pipeline = reproducer_pipeline(text)
    if args.pipeline is None:
        return "it has no mlir_reproducer resource with a pipeline"
    verify_each = reproducer_flag(text, "verify_each")
    args.verify_each = args.verify_each if verify_each is None else verify_each
    return None


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Console entry of ``autodiff-opt``: never lets a Python traceback reach the user.

    Returns
    -------
    int
        0 on success, 1 on bad input or a failed pass, 2 on an internal error.

    Examples
    --------
    >>> main(["--tad-verify", "model.mlir"])  # doctest: +SKIP
    0
    """
    try:
        return run(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:
        # The reader left (`| head`): silence the flush at exit instead of a traceback.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # anything else is a bug in tensorad, reported without a traceback
        print(f"{PROG}: internal error: {type(err).__name__}: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
