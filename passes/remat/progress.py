"""Progress of a long solve: a line on stderr each second once it has taken one.

The solvers never read the clock to decide anything (their limits are counts
of work: nodes, cells, steps); only these lines do, to tell a person waiting
on a compile what is running.

Examples
--------
>>> import io
>>> out = io.StringIO()
>>> with Progress("@f: chain tier", stream=out) as progress:
...     progress.update("bisection step 3")
>>> out.getvalue()  # done within the first second: nothing to say
''
"""

from __future__ import annotations

import sys
import threading
import time

# A solve shorter than this prints nothing.
QUIET_SECONDS = 1.0


class Progress:
    """A context that prints ``tad-remat: <what>: <status> (<seconds> s)`` each second after the first.

    Parameters
    ----------
    what : str
        What is being solved (function and tier).
    stream : file, optional
        Where the lines go (default: ``sys.stderr``).
    every : float
        Seconds between lines (the first comes after :data:`QUIET_SECONDS`).
    """

    def __init__(self, what: str, stream=None, every: float = 1.0):
        self.what, self.stream, self.every = what, stream, every
        self.status, self.printed = "starting", False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, daemon=True)

    def update(self, status: str) -> None:
        """Say what the solver does now (the next line shows it)."""
        self.status = status

    def _line(self, text: str) -> None:
        stream = self.stream if self.stream is not None else sys.stderr
        print(f"tad-remat: {self.what}: {text} ({time.perf_counter() - self._start:.0f} s)", file=stream, flush=True)
        self.printed = True

    def _beat(self) -> None:
        wait = QUIET_SECONDS
        while not self._stop.wait(wait):
            self._line(self.status)
            wait = self.every

    def __enter__(self) -> "Progress":
        self._start = time.perf_counter()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        if self.printed:
            self._line("done")
