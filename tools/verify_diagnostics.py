"""``--verify-diagnostics``: check the diagnostics a run produced against the input's ``expected-*`` comments.

As in ``mlir-opt``, a comment ``// expected-error {{text}}`` (or ``-warning``,
``-note``, ``-remark``; ``-re`` for a pattern; ``@+N``, ``@-N``, ``@above``,
``@below``, ``@unknown`` for another line) expects a diagnostic of that
severity at that line whose message contains the text. Diagnostics live
only as long as MLIR's handler call, so :class:`Diag` copies them out.

Examples
--------
>>> expected = parse_expectations("%0 = bad  // expected-error {{unknown op}}")
>>> check_expectations([Diag("error", ("-", 1, 6), "unknown op 'bad'")], expected, print)
True
>>> check_expectations([], parse_expectations("// expected-error@+1 {{gone}}\\nx"), print)
('-', 1, 4) expected error "gone" was not produced
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Sequence

# A source position: (file name as the parser saw it, line, column).
Where = tuple[str, int, int]


def file_location(loc) -> Optional[Where]:
    """Return the first file position inside an ``ir.Location``, or None.

    Name, call-site (the callee) and fused locations are unwrapped, as
    ``mlir-opt`` does when it prints a diagnostic.

    Examples
    --------
    >>> from mlir import ir
    >>> with ir.Context():
    ...     file_location(ir.Location.name("x", childLoc=ir.Location.file("a.py", 3, 1)))
    ('a.py', 3, 1)
    """
    if loc.is_a_file():
        return loc.filename, loc.start_line, loc.start_col
    if loc.is_a_name():
        return file_location(loc.child_loc)
    if loc.is_a_callsite():
        return file_location(loc.callee)
    if loc.is_a_fused():
        return next(filter(None, map(file_location, loc.locations)), None)
    return None


@dataclass
class Diag:
    """A diagnostic copied out of MLIR (``ir.Diagnostic`` lives only during its handler)."""

    severity: str
    where: Optional[Where]
    message: str
    notes: list["Diag"] = field(default_factory=list)

    @classmethod
    def of(cls, diag) -> "Diag":
        """Copy an ``ir.Diagnostic`` and its notes.

        Examples
        --------
        >>> Diag.of(diagnostic).severity  # doctest: +SKIP
        'error'
        """
        return cls(diag.severity.name.lower(), file_location(diag.location), diag.message,
                   [cls.of(note) for note in diag.notes])


@dataclass
class Expected:
    """One ``// expected-SEVERITY@DESIGNATOR {{text}}`` comment."""

    severity: str
    line: int  # the line the diagnostic must be at; 0 for @unknown
    at: Where  # where the comment is
    text: str
    pattern: Optional[re.Pattern]  # for expected-SEVERITY-re
    matched: bool = False

    def matches(self, message: str) -> bool:
        """True when ``message`` contains the text (or matches the -re pattern)."""
        return bool(self.pattern.search(message)) if self.pattern else self.text in message


_EXPECTED = re.compile(r"expected-(error|note|remark|warning)(-re)? *"
                       r"(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}$")


def _re_pattern(text: str) -> re.Pattern:
    """``a{{[0-9]+}}b`` -> regex: literal text, ``{{...}}`` parts are regexes (MLIR's -re)."""
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return re.compile("".join(f"(?:{p})" if i % 2 else re.escape(p) for i, p in enumerate(parts)))


def parse_expectations(text: str) -> list[Expected]:
    """Read the ``expected-*`` comments of ``text`` with MLIR's line designators.

    ``@+N``/``@-N`` are relative to the comment, ``@above`` is the last line
    without an ``expected-*`` comment, ``@below`` the next such line,
    ``@unknown`` a diagnostic without a file location.

    Examples
    --------
    >>> [e.line for e in parse_expectations("x\\n// expected-error@above {{bad}}\\n")]
    [1]
    """
    expected, below = [], []
    last_plain = 0
    for i, line in enumerate(text.split("\n")):
        m = _EXPECTED.search(line.rstrip())
        if not m:
            for e in below:
                e.line = i + 1
            below, last_plain = [], i
            continue
        severity, is_re, designator, body = m[1], m[2], m[4], m[5]
        e = Expected(severity, i + 1, ("-", i + 1, m.start() + 1), body, _re_pattern(body) if is_re else None)
        if designator is None:
            pass
        elif designator[0] in "+-":
            e.line += int(designator)
        elif designator == "unknown":
            e.line = 0
        elif designator == "above":
            e.line = last_plain + 1
        else:
            below.append(e)  # its line is set when the next plain line comes
        expected.append(e)
    return expected


def check_expectations(diags: Sequence[Diag], expected: Sequence[Expected],
                       report: Callable[[Optional[Where], str], None]) -> bool:
    """Match produced diagnostics (notes included) against expectations.

    Every produced diagnostic needs an expectation of its severity at its line
    whose text it contains; every expectation needs a diagnostic. Each
    mismatch is passed to ``report(where, message)``.

    Returns
    -------
    bool
        True when everything matched.

    Examples
    --------
    >>> exp = parse_expectations("x // expected-error {{bad}}")
    >>> check_expectations([Diag("error", ("-", 1, 1), "bad op")], exp, print)
    True
    """
    ok = True
    for d in (n for diag in diags for n in (diag, *diag.notes)):
        # mlir-opt turns this note off in --verify-diagnostics mode; the bindings cannot.
        if d.severity == "note" and d.message.startswith("see current operation"):
            continue
        line = 0 if d.where is None else d.where[1] if d.where[0] == "-" else None
        candidates = [e for e in expected if e.severity == d.severity and e.line == line and e.matches(d.message)]
        if candidates:
            min(candidates, key=lambda e: e.matched).matched = True
        else:
            report(d.where, f"unexpected {d.severity}: {d.message}")
            ok = False
    for e in expected:
        if not e.matched:
            report(e.at, f'expected {e.severity} "{e.text}" was not produced')
            ok = False
    return ok
