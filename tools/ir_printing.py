"""``mlir-opt``'s IR printing flags (``--mlir-print-ir-before=<pass>`` ...) on a tensorad pass manager.

MLIR's IR printer writes to the standard error descriptor with headers such
as ``// -----// IR Dump Before CSE (cse) //----- //``. The Python bindings
turn it on for every pass or for none (``PassManager.enable_ir_printing``);
``--mlir-print-ir-before=<pass>`` and ``--mlir-print-ir-after=<pass>`` name
some passes, so the printer then runs for all of them and the dumps of the
other passes are dropped from the standard error on the way out
(:func:`filtered_stderr`). Everything else written there (diagnostics,
statistics) passes through in its place.

Examples
--------
>>> text = ("// -----// IR Dump Before CSE (cse) //----- //\\nmodule {\\n}\\n\\n\\n"
...         "// -----// IR Dump Before tad-simplify (tad-simplify) //----- //\\nmodule {\\n}\\n\\n"
...         "in.mlir:3:5: error: boom\\n")
>>> print(filter_dumps(text, IRPrinting(before=frozenset({"tad-simplify"})).keeps), end="")
// -----// IR Dump Before tad-simplify (tad-simplify) //----- //
module {
}
<BLANKLINE>
in.mlir:3:5: error: boom
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
import tempfile
from dataclasses import dataclass
from typing import Callable, Iterator, Optional

# `// -----// IR Dump After CSE Failed (cse) ('func.func' operation: @f) //----- //`: the pass
# argument is the last parenthesis without quotes; the operation part is there with module scope.
_HEADER = re.compile(r"// -----// IR Dump (?P<when>Before|After) .*? \((?P<argument>[^()']*)\)"
                     r"(?: \('.*\))? //----- //$")


@dataclass(frozen=True)
class IRPrinting:
    """What the ``--mlir-print-ir-*`` flags ask for, with ``mlir-opt``'s meaning.

    Attributes
    ----------
    before, after : frozenset of str or None
        Pass arguments to print the IR before / after (``--mlir-print-ir-before=cse``);
        None for every pass (``--mlir-print-ir-before-all``).
    after_failure : bool
        Print the IR after a pass only when it failed; it prints after every
        pass that fails, whatever ``after`` names.
    after_change : bool
        Print the IR after a pass only when the pass changed it.
    module_scope : bool
        Print the whole module, not only the operation the pass ran on.

    Examples
    --------
    >>> IRPrinting(after=frozenset({"cse"})).keeps("After", "cse"), IRPrinting().enabled
    (True, False)
    """

    before: Optional[frozenset] = frozenset()
    after: Optional[frozenset] = frozenset()
    after_failure: bool = False
    after_change: bool = False
    module_scope: bool = False

    @property
    def prints_before(self) -> bool:
        return self.before is None or bool(self.before)

    @property
    def prints_after(self) -> bool:
        return self.after is None or bool(self.after) or self.after_failure

    @property
    def enabled(self) -> bool:
        """Whether any IR is printed (``--mlir-print-ir-after-change`` alone prints nothing, as in mlir-opt)."""
        return self.prints_before or self.prints_after

    @property
    def filtered(self) -> bool:
        """Whether only some passes' dumps are kept, so that the standard error must go through :func:`filter_dumps`."""
        return (self.prints_before and self.before is not None) or (
            self.after is not None and bool(self.after) and not self.after_failure)

    def keeps(self, when: str, argument: str) -> bool:
        """Whether the dump ``when`` (``"Before"`` or ``"After"``) the pass ``argument`` is printed."""
        if when == "Before":
            return self.before is None or argument in self.before
        return self.after is None or self.after_failure or argument in self.after

    def enable(self, pm, *, large_elements_limit: Optional[int] = None, debug_info: bool = False,
               generic: bool = False) -> None:
        """Turn MLIR's IR printer on in ``pm`` (a ``PassManager``) for the passes this asks for.

        The printing options are those of the output (``--mlir-print-debuginfo`` ...), as in mlir-opt.
        """
        if not self.enabled:
            return
        pm.enable_ir_printing(
            print_before_all=self.prints_before, print_after_all=self.prints_after,
            print_module_scope=self.module_scope, print_after_change=self.after_change,
            print_after_failure=self.after_failure, large_elements_limit=large_elements_limit,
            enable_debug_info=debug_info, print_generic_op_form=generic)


def filter_dumps(text: str, keep: Callable[[str, str], bool]) -> str:
    """``text`` (what MLIR wrote to stderr) without the IR dumps for which ``keep(when, argument)`` is false.

    A dump is its header line, the IR up to the first empty line, the empty
    lines after it and a ``{-# ... #-}`` resource block if one follows.

    Examples
    --------
    >>> dump = "// -----// IR Dump After CSE (cse) ('func.func' operation: @f) //----- //\\nfunc.func @f()\\n\\n"
    >>> filter_dumps("note: x\\n" + dump, lambda when, argument: argument != "cse")
    'note: x\\n'
    """
    lines = text.splitlines(keepends=True)
    kept, i = [], 0
    while i < len(lines):
        header = _HEADER.match(lines[i].rstrip("\n"))
        if header is None:
            kept.append(lines[i])
            i += 1
            continue
        end = _dump_end(lines, i + 1)
        if keep(header["when"], header["argument"]):
            kept.extend(lines[i:end])
        i = end
    return "".join(kept)


def _dump_end(lines: list, i: int) -> int:
    """Index of the first line after the dump whose IR starts at ``lines[i]``."""
    def skip(blank: bool, j: int) -> int:
        while j < len(lines) and (not lines[j].strip()) == blank and not _HEADER.match(lines[j].rstrip("\n")):
            j += 1
        return j

    end = skip(True, skip(False, i))
    if end < len(lines) and lines[end].startswith("{-#"):
        while end < len(lines) and not lines[end].startswith("#-}"):
            end += 1
        end = skip(True, end + 1)
    return end


@contextlib.contextmanager
def filtered_stderr(keep: Callable[[str, str], bool]) -> Iterator[None]:
    """Inside the block the standard error descriptor goes to a file; on exit, its text less the dumps ``keep`` rejects.

    The descriptor itself is redirected, because MLIR writes dumps to it
    directly; Python's ``sys.stderr`` goes there as well, so diagnostics keep
    their place among the dumps.

    Examples
    --------
    >>> with filtered_stderr(lambda when, argument: False):
    ...     print("kept", file=sys.stderr)
    """
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as capture:
        os.dup2(capture.fileno(), 2)
        try:
            yield
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            capture.seek(0)
            sys.stderr.write(filter_dumps(capture.read().decode(errors="replace"), keep))
            sys.stderr.flush()
