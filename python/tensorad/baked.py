"""Values that compiled code holds as constants, and the compiled functions to forget when they change.

A traced function that reads a mutable value without receiving it as an
argument (a :class:`~tensorad.nn.Parameter` of a module it closes over)
compiles that value into its code. The value notes the read
(:func:`note_read`); the compiled function, tracing inside
:func:`recording`, learns what it read and registers itself
(:func:`depend`); when the value changes (:func:`changed`) each compiled
function that read it forgets its code, so the next call compiles again
instead of running with the old value.

Examples
--------
>>> class Cell:
...     pass
>>> source, forgotten = Cell(), []
>>> with recording() as read:
...     note_read(source)
>>> for s in read:
...     depend(s, lambda: forgotten.append(True))
>>> changed(source); forgotten
[True]
"""

from __future__ import annotations

import threading
import weakref
from contextlib import contextmanager
from typing import Callable


class _Stack(threading.local):
    def __init__(self):
        self.open: list = []


_recordings = _Stack()
# source -> callbacks of the compiled functions that read it (dropped with the source).
_dependents: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def note_read(source) -> None:
    """Tell the innermost open recording (if any) that ``source`` was read as a constant."""
    if _recordings.open:
        _recordings.open[-1].add(source)


@contextmanager
def recording():
    """Collect the sources read inside (a set, also passed on to an enclosing recording)."""
    read: set = set()
    _recordings.open.append(read)
    try:
        yield read
    finally:
        _recordings.open.pop()
        if _recordings.open:
            _recordings.open[-1].update(read)


def depend(source, forget: Callable[[], None]) -> None:
    """Call ``forget()`` the next time ``source`` changes."""
    _dependents.setdefault(source, []).append(forget)


def changed(source) -> None:
    """``source`` has a new value: every compiled function that read it forgets its code."""
    for forget in _dependents.pop(source, []):
        forget()
