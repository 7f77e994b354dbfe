"""Crash isolation: pass pipelines run in a forked child, so an abort inside MLIR or LLVM is an exception.

The installed LLVM has assertions on, and an assertion (or a segfault) in an
upstream pass ends the process that runs it. Every pipeline that the Python
API and ``autodiff-opt`` run therefore runs in a child forked for the purpose:
the child transforms its copy of the module and sends it back as MLIR
bytecode, with what the passes returned (their
:class:`~tensorad.passes.registry.PassResults`, pickled); if the child dies instead, the pipeline is run once more, pass by
pass, in a second child that reports the IR after every pass, which names
the pass that crashed and gives the IR it crashed on. That IR is written as
a reproducer in ``mlir-opt``'s format (the pipeline in an
``external_resources`` block), which ``autodiff-opt FILE --run-reproducer``
and ``mlir-opt FILE --run-reproducer`` replay.

A fork copies the process as it is, so the child starts with everything
loaded. A child forked for one pipeline pays more than the fork, though: it
writes to the parent's pages (Python's reference counts) and each written
page is copied, with cold caches: a small program's stages took 21 ms there
against 8 ms in the parent. The compiler's stages (``run_isolated(...,
persistent=True)``, as :func:`tensorad.compiler.run_stages` asks) therefore
go to a *compile worker*: a child forked once, as the first compilation
starts to trace (:func:`start_worker`: it imports the passes of the stages
meanwhile), that runs one request after another and answers each with the same bytecode
and pass results. It sees the parent's environment variables as they are at
each request, and is forked again when it died, when the pass registry
changed, when the request comes from another process (a fork of this one)
or another context, after :data:`WORKER_REQUESTS` requests or
:data:`WORKER_MEMORY` bytes, and after :func:`restart_worker` (for code that
changes the compiler's modules at run time). ``TENSORAD_ISOLATE=0`` runs
pipelines in-process (to debug a pass under ``pdb`` or ``gdb``); where
``os.fork`` does not exist they always run in-process.

Examples
--------
>>> from tensorad.dialects import make_context
>>> module = ir.Module.parse("func.func @f() { return }", make_context())
>>> out = run_isolated(module, "canonicalize")
>>> str(out.body.operations[0].operation.name)
'func.func'
>>> fork_call(lambda: 6 * 7)
42
"""

from __future__ import annotations

import atexit
import faulthandler
import fcntl
import gc
import hashlib
import io
import os
import pickle
import re
import resource
import signal
import struct
import sys
import tempfile
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional

from mlir import ir

from .registry import INTERNAL_ERROR, PASSES, PassResults, build_pass_manager, pipeline_elements

REPRODUCER_DIR_VARIABLE = "TENSORAD_REPRODUCER_DIR"
_REPRODUCER_BLOCK = re.compile(r"\{-#\s*external_resources\s*:\s*\{\s*mlir_reproducer\s*:.*?#-\}", re.S)
_REPRODUCER_PIPELINE = re.compile(r'mlir_reproducer\s*:\s*\{[^}]*?pipeline\s*:\s*"((?:[^"\\]|\\.)*)"', re.S)
# The compile worker is forked again after this many requests, or once its peak resident memory
# passes this many bytes: its context keeps every type and attribute it ever made.
WORKER_REQUESTS = 1000
WORKER_MEMORY = 2 << 30


def isolation_enabled() -> bool:
    """Whether pipelines run in a forked child (``TENSORAD_ISOLATE``, default on, where ``os.fork`` exists).

    Examples
    --------
    >>> isinstance(isolation_enabled(), bool)
    True
    """
    return hasattr(os, "fork") and os.environ.get("TENSORAD_ISOLATE", "1") not in ("", "0")


class ChildCrashed(RuntimeError):
    """The child process running compiler work died (a signal, or an exit without a result).

    Attributes
    ----------
    cause : str
        How it died, e.g. ``"SIGABRT"`` or ``"exit status 1"``.
    """

    def __init__(self, cause: str):
        super().__init__(f"the compiler crashed ({cause})")
        self.cause = cause


@dataclass(frozen=True)
class PassCrash(Exception):
    """A pass crashed: its pipeline element, how, and where the reproducer was written.

    Attributes
    ----------
    element : str
        The pipeline element that crashed (``"tad-tile-and-vectorize{threads=2}"``, ``"canonicalize"``).
    cause : str
        ``"SIGABRT"``, ``"SIGSEGV"``, ...
    reproducer : str or None
        Path of the reproducer file (None if it could not be written).
    """

    element: str
    cause: str
    reproducer: Optional[str]

    def __str__(self) -> str:
        where = f"; reproducer written to {self.reproducer}" if self.reproducer else ""
        if self.cause.startswith(INTERNAL_ERROR):
            return f"{self.cause}{where}"
        return f"pass '{self.element}' crashed ({self.cause}){where}"


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        try:
            return signal.Signals(number).name
        except ValueError:
            return f"signal {number}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _read_frame(stream) -> Optional[bytes]:
    """The next length-prefixed frame of ``stream``; None at its end (or a frame cut short)."""
    header = stream.read(8)
    if len(header) < 8:
        return None
    (size,) = struct.unpack("<Q", header)
    payload = stream.read(size)
    return payload if len(payload) == size else None


def _write_frame(stream, payload: bytes) -> None:
    stream.write(struct.pack("<Q", len(payload)) + payload)
    stream.flush()


def _read_frames(fd: int):
    """Yield the length-prefixed frames a child writes to ``fd`` until it closes it."""
    with os.fdopen(fd, "rb") as stream:
        while (payload := _read_frame(stream)) is not None:
            yield payload


def _child_main(fd: int, work: Callable[[Callable[[bytes], None]], Any]) -> None:
    """Run ``work`` in the child; frames go to ``fd``; never returns."""
    code = 1
    try:
        with os.fdopen(fd, "wb") as stream:
            def send(payload: bytes) -> None:
                _write_frame(stream, payload)

            try:
                outcome = ("ok", work(send))
            except BaseException as err:  # carried to the parent and raised there
                outcome = ("error", _picklable(err))
            send(pickle.dumps(outcome))
        code = 0
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def _picklable(err: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(err))
        return err
    except Exception:
        return RuntimeError(f"{type(err).__name__}: {err}")


def _in_child(work: Callable[[Callable[[bytes], None]], Any],
              meanwhile: Optional[Callable[[], None]] = None) -> tuple[list, Optional[str]]:
    """Run ``work(send)`` in a forked child: its frames, and how it died (None if it finished).

    ``meanwhile()`` runs here, on this thread, while the child works: after
    the fork, so that no thread of it can hold a lock the child inherits.

    The child's standard error goes to a temporary file: passed on as it is
    when the child finishes, and boiled down to the assertion's message when
    it dies (instead of LLVM's stack dump).
    """
    sys.stdout.flush()
    sys.stderr.flush()
    read_fd, write_fd = os.pipe()
    with tempfile.TemporaryFile() as errors:
        pid = os.fork()
        if pid == 0:
            # The child lives for one pipeline: a garbage collection there
            # would only copy the parent's pages it walks over.
            gc.disable()
            os.close(read_fd)
            os.dup2(errors.fileno(), 2)
            faulthandler.disable()  # a crash is reported by the parent, not as a Python traceback
            _child_main(write_fd, work)
        os.close(write_fd)
        try:
            if meanwhile is not None:
                meanwhile()
        finally:  # the child is waited for, whatever meanwhile did
            frames = list(_read_frames(read_fd))
            _, status = os.waitpid(pid, 0)
        errors.seek(0)
        text = errors.read().decode(errors="replace")
    if status != 0 or not frames:
        return frames, _describe(status) + _assertion(text)
    if text:
        sys.stderr.write(text)
        sys.stderr.flush()
    return frames, None


def _assertion(stderr: str) -> str:
    """``": <message>"`` of the assertion or fatal error in a crashed child's standard error, or ``""``."""
    for line in stderr.splitlines():
        if "Assertion" in line or "UNREACHABLE" in line or "LLVM ERROR" in line:
            return ": " + line.strip()[:400]
    return ""


def _close_inherited_files(keep: set) -> None:
    """Close this (forked) process's file descriptors but ``keep``: no pipe stays open through it."""
    try:
        numbers = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:  # no /proc: the worker keeps what it inherited
        return
    for number in numbers:
        if number not in keep:
            try:
                os.close(number)
            except OSError:
                pass


def _serve(requests: int, replies: int, context: ir.Context, prepared: tuple = ()) -> None:
    """The compile worker's loop: a request, its stages, the reply; until the parent closes ``requests``.

    The pipelines of ``prepared`` are built first (their passes' modules
    imported), while the parent traces what it will ask for.
    """
    code = 1
    try:
        context.enable_multithreading(True)  # the worker never forks: its passes may run on every core
        for text in prepared:
            try:
                build_pass_manager(text, context)
            except Exception:  # noqa: BLE001 - a request building it says what is wrong
                pass
        with os.fdopen(requests, "rb") as inbox, os.fdopen(replies, "wb") as outbox:
            served = 0
            while (frame := _read_frame(inbox)) is not None:
                served += 1
                try:
                    stages, verify_each, prepare, source, environment = pickle.loads(frame)
                    os.environ.clear()
                    os.environ.update(environment)
                    module = ir.Module.parse(source, context)
                    returned = PassResults()
                    managers = [(name, text, build_pass_manager(text, context, verify_each, returned))
                                for name, text in stages]
                    outcome = ("ok", pickle.dumps(_outcome(module, managers, verify_each, prepare, returned)))
                except BaseException as err:  # carried to the parent and raised there
                    outcome = ("error", _picklable(err))
                peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
                retire = served >= WORKER_REQUESTS or peak > WORKER_MEMORY
                sys.stdout.flush()
                sys.stderr.flush()
                _write_frame(outbox, pickle.dumps((pickle.dumps(outcome), retire)))
                if retire:
                    break
        code = 0
    finally:
        os._exit(code)


class _Worker:
    """The parent's end of a compile worker (see the module's text): its pipes, its standard error, its owner."""

    def __init__(self, context: ir.Context, prepared: tuple = ()):
        self.context, self.owner, self.passes = context, os.getpid(), tuple(PASSES.items())
        requests_out, requests_in = os.pipe()
        replies_out, replies_in = os.pipe()
        # Its standard error and output go to an unnamed file, appended to: read and emptied after each request.
        errors, path = tempfile.mkstemp(prefix="tensorad-compile-worker-")
        os.unlink(path)
        fcntl.fcntl(errors, fcntl.F_SETFL, fcntl.fcntl(errors, fcntl.F_GETFL) | os.O_APPEND)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            try:
                signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
                faulthandler.disable()  # a crash is reported by the parent, not as a Python traceback
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                os.dup2(errors, 1)
                os.dup2(errors, 2)
                _close_inherited_files({0, 1, 2, requests_out, replies_in})
                # Python's streams write to these descriptors, whatever the parent's wrote to (pytest's capture).
                sys.stdout = open(1, "w", buffering=1, closefd=False)
                sys.stderr = open(2, "w", buffering=1, closefd=False)
                # What the parent made is never collected here: a collection would copy every page it walks.
                gc.freeze()
            finally:
                _serve(requests_out, replies_in, context, prepared)
        os.close(requests_out)
        os.close(replies_in)
        self.pid, self.errors = pid, errors
        self.requests, self.replies = os.fdopen(requests_in, "wb"), os.fdopen(replies_out, "rb")

    def serves(self, context: ir.Context) -> bool:
        """Whether this worker may run a request of ``context`` from this process, as the registry is now."""
        return (self.pid is not None and self.owner == os.getpid() and self.context is context
                and self.passes == tuple(PASSES.items()))

    def call(self, request: bytes, meanwhile: Optional[Callable[[], None]]) -> tuple[list, Optional[str]]:
        """Send ``request``; its reply frames and how the worker died (None if it answered), as :func:`_in_child`."""
        reply = None
        try:
            try:
                _write_frame(self.requests, request)
                try:
                    if meanwhile is not None:
                        meanwhile()
                finally:  # the reply is read, whatever meanwhile did
                    reply = _read_frame(self.replies)
            except BrokenPipeError:
                pass  # it died before it read the request: told below
            except BaseException:
                if reply is None:  # interrupted before the reply: what the worker does now is unknown
                    self.stop(kill=True)
                raise
        finally:
            text = self._errors() if self.pid is not None else ""
        if reply is None:
            return [], self.stop(kill=True) + _assertion(text)
        outcome, retire = pickle.loads(reply)
        if text:
            sys.stderr.write(text)
            sys.stderr.flush()
        if retire:
            self.stop()
        return [outcome], None

    def _errors(self) -> str:
        """What the worker wrote to its standard error and output since the last request (then emptied)."""
        os.lseek(self.errors, 0, os.SEEK_SET)
        text = b"".join(iter(lambda: os.read(self.errors, 1 << 16), b"")).decode(errors="replace")
        os.ftruncate(self.errors, 0)
        return text

    def stop(self, kill: bool = False) -> str:
        """End the worker (it exits when its requests end; ``kill`` does not wait for that); how it ended."""
        if self.pid is None:
            return "stopped"
        if self.owner != os.getpid():  # a fork's copy: the worker is the parent's
            self.pid = None
            return "stopped"
        for stream in (self.requests, self.replies):
            try:
                stream.close()
            except OSError:
                pass
        os.close(self.errors)
        if kill:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        _, status = os.waitpid(self.pid, 0)
        self.pid = None
        return _describe(status)


_worker: Optional[_Worker] = None
_worker_lock = threading.Lock()


def restart_worker() -> None:
    """Stop the compile worker: the next compilation forks a new one, which sees this process as it is now.

    For code that changes the compiler's modules while the process runs
    (tests patching a pass); the environment and the pass registry are
    seen without it.

    Examples
    --------
    >>> restart_worker()
    """
    global _worker
    with _worker_lock:
        if _worker is not None:
            _worker.stop()
        _worker = None


atexit.register(restart_worker)


def start_worker(context: ir.Context, prepared: tuple = ()) -> None:
    """Fork the compile worker of ``context`` now, unless it has one, to build the pipelines of ``prepared``.

    A compilation calls this before it traces: the worker imports the passes
    it will run while the function is traced here. Without isolation, or
    where this process has a worker already, it does nothing.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> start_worker(make_context(), ("canonicalize",))
    """
    if not isolation_enabled():
        return
    with _worker_lock:
        _serving_worker(context, tuple(str(text) for text in prepared))


def _serving_worker(context: ir.Context, prepared: tuple = ()) -> _Worker:
    """This process's compile worker for ``context``, forked when it has none that serves it (under the lock)."""
    global _worker
    if _worker is not None and not _worker.serves(context):
        _worker.stop()
        _worker = None
    if _worker is None:
        _worker = _Worker(context, prepared)
    return _worker


def _in_worker(context: ir.Context, request: bytes, meanwhile) -> tuple[list, Optional[str]]:
    """Run ``request`` in this process's compile worker (forked first when it has none that serves ``context``)."""
    global _worker
    with _worker_lock:
        worker = _serving_worker(context)
        frames, died = worker.call(request, meanwhile)
        if worker.pid is None:
            _worker = None
        return frames, died


def fork_call(function: Callable[[], Any]) -> Any:
    """Call ``function()`` in a forked child and return its result (pickled across).

    An exception raised by ``function`` is raised again here; if the child
    dies, :class:`ChildCrashed` is raised. Without isolation
    (``TENSORAD_ISOLATE=0``) ``function`` runs in this process.

    Examples
    --------
    >>> fork_call(lambda: sum(range(10)))
    45
    >>> fork_call(lambda: os.abort())
    Traceback (most recent call last):
    ...
    tensorad.passes.isolation.ChildCrashed: the compiler crashed (SIGABRT)
    """
    if not isolation_enabled():
        return function()
    frames, died = _in_child(lambda send: pickle.dumps(function()))
    if died is not None:
        raise ChildCrashed(died)
    kind, value = pickle.loads(frames[-1])
    if kind == "error":
        raise value
    return pickle.loads(value)


def _bytecode(module: ir.Module) -> bytes:
    buffer = io.BytesIO()
    module.operation.write_bytecode(buffer)
    return buffer.getvalue()


def run_isolated(module: ir.Module, pipeline, verify_each: bool = True,
                 prepare: Optional[Callable[[ir.Module, str], None]] = None,
                 stages: Optional[list] = None, results: Optional[PassResults] = None,
                 meanwhile: Optional[Callable[[], None]] = None, persistent: bool = False) -> ir.Module:
    """Run ``pipeline`` on ``module`` in a forked child and return the module it produces.

    Parameters
    ----------
    module : mlir.ir.Module
        Left as it is; the result is a new module in the same context.
    pipeline : str, PassSpec or Pipeline
        Pipeline text (tensorad and upstream passes), or an object rendering
        to it, as for :func:`tensorad.passes.registry.run_pipeline`.
    verify_each : bool
        Verify after every pass, or once at the end.
    prepare : callable, optional
        ``prepare(module, stage_name)`` runs before each stage of ``stages``.
    stages : list of (name, pipeline), optional
        Several pipelines run in turn (``pipeline`` is then ignored); a
        failure names its stage.
    results : PassResults, optional
        Receives what the passes returned (e.g. ``tad-remat``'s report), sent
        back from the child.
    meanwhile : callable, optional
        Called here while the child runs the stages (not at all without
        isolation): work of this process that would otherwise wait for them.
    persistent : bool
        Run them in the compile worker (see the module's text) rather than a
        child forked for them; a ``prepare`` that cannot be pickled (a local
        function) still gets a child of its own.

    Raises
    ------
    mlir.ir.MLIRError
        A pass failed with diagnostics (from the child, as if run here).
    PassCrash
        A pass crashed, or raised an exception (an internal error); the
        reproducer holds the IR it was given.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<2xf64>) -> tensor<2xf64> {
    ...   %0 = arith.addf %x, %x : tensor<2xf64>
    ...   return %0 : tensor<2xf64>
    ... }''', make_context())
    >>> "linalg.generic" in str(run_isolated(m, "func.func(convert-elementwise-to-linalg)"))
    True
    """
    stages = stages if stages is not None else [("", pipeline)]
    isolated = isolation_enabled()
    source = _bytecode(module) if isolated else b""
    request = None
    if persistent and isolated:
        try:
            request = pickle.dumps((stages, verify_each, prepare, source, dict(os.environ)))
        except (pickle.PicklingError, AttributeError, TypeError):  # a local prepare, say: a child of its own
            request = None
    # Pass managers are built here (unless the worker builds its own), so the modules they import
    # stay imported for the next compilation instead of being imported in every child.
    returned = PassResults()  # filled where the passes run: here, or in the child
    managers = [] if request is not None else [
        (name, text, build_pass_manager(text, module.context, verify_each, returned)) for name, text in stages]
    if not isolated:
        for name, text, manager in managers:
            _run_stage(module, name, text, manager, verify_each, prepare)
        if results is not None:
            results.extend(returned)
        return module

    def work(send):
        # The child may have a thread pool (the parent must not: a fork copies no thread of it), so
        # passes nested in any(...) or func.func(...) run on every core, a function per task.
        module.context.enable_multithreading(True)
        return _outcome(module, managers, verify_each, prepare, returned)

    if request is not None:
        frames, died = _in_worker(module.context, request, meanwhile)
    else:
        frames, died = _in_child(lambda send: pickle.dumps(work(send)), meanwhile)
    if died is not None:
        raise _locate(source, module.context, stages, verify_each, prepare, died)
    kind, value = pickle.loads(frames[-1])
    if kind == "error":
        raise value
    result = pickle.loads(value)
    if result[0] == "failed" and INTERNAL_ERROR in result[2]:
        # A bug in a pass rather than a property of the input: find the pass and keep its input.
        raise _locate(source, module.context, stages, verify_each, prepare, result[2])
    if result[0] == "failed":
        # The diagnostics came as text: the same MLIRError, its locations in this context, without running
        # the stages again (a refused memory budget would be solved twice).
        err = ir.MLIRError(result[3], [_diagnostic_here(d, module.context) for d in result[4]])
        err.stage = result[1]
        raise err
    if results is not None:
        results.extend(result[2])
    return ir.Module.parse(result[1], module.context)


def _outcome(module, managers, verify_each, prepare, returned) -> tuple:
    """Run the stages: ``("done", bytecode, what the passes returned)`` or
    ``("failed", stage, diagnostics' summary, message, diagnostics)`` (see :func:`_diagnostic_record`)."""
    for name, text, manager in managers:
        try:
            _run_stage(module, name, text, manager, verify_each, prepare)
        except ir.MLIRError as err:
            return ("failed", name, _diagnostics(err), err.message,
                    [_diagnostic_record(d) for d in err.error_diagnostics])
    return ("done", _bytecode(module), returned)


def _run_stage(module, name, text, manager, verify_each, prepare) -> None:
    from .registry import verify_at_end

    if prepare is not None:
        prepare(module, name)
    try:
        manager.run(module.operation)
        if not verify_each:
            verify_at_end(module, text)
    except ir.MLIRError as err:
        err.stage = name  # which of several stages failed, for the caller's message
        raise


def _diagnostics(err: ir.MLIRError) -> str:
    return "; ".join(str(d.message) for d in getattr(err, "error_diagnostics", [])) or str(err)


@dataclass(frozen=True)
class CopiedDiagnostic:
    """A diagnostic of a pass that ran in another process, as ``ir.DiagnosticInfo`` reads."""

    severity: ir.DiagnosticSeverity
    location: ir.Location
    message: str
    notes: tuple


def _diagnostic_record(diagnostic) -> tuple:
    """``(severity, location text, message, notes)`` of a diagnostic: what crosses the process boundary."""
    return (diagnostic.severity.name, str(diagnostic.location), diagnostic.message,
            tuple(_diagnostic_record(note) for note in diagnostic.notes))


def _diagnostic_here(record: tuple, context: ir.Context) -> CopiedDiagnostic:
    """The diagnostic of ``record`` with its location made again in ``context``.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> copied = _diagnostic_here(("ERROR", 'loc("a.py":3:1)', "too big", ()), make_context())
    >>> str(copied.location), copied.severity.name
    ('loc("a.py":3:1)', 'ERROR')
    """
    severity, location, message, notes = record
    try:  # a location has no parser of its own: the one of an empty module carries it
        where = ir.Module.parse(f"module {{}} {location}", context).operation.location
    except ir.MLIRError:  # not one MLIR prints and parses back the same: its text, as a name
        where = ir.Location.name(location, context=context)
    return CopiedDiagnostic(ir.DiagnosticSeverity[severity], where, message,
                            tuple(_diagnostic_here(note, context) for note in notes))


def _locate(source: bytes, context, stages, verify_each, prepare, died: str) -> PassCrash:
    """Re-run the stages element by element in a child that sends the IR before each; name the one that breaks.

    "Breaks" is a crash (the child dies) or, for an internal error, the first
    element that fails.
    """
    steps = [(name, element) for name, text in stages for element in pipeline_elements(text)]

    def work(send):
        module = ir.Module.parse(source, context)
        current = None
        for name, element in steps:
            if name != current and prepare is not None:
                prepare(module, name)
            current = name
            send(_bytecode(module))
            build_pass_manager(element, context, verify_each).run(module.operation)
        return None

    frames, second_death = _in_child(work)
    broke = second_death is not None
    if not broke:
        kind, _ = pickle.loads(frames.pop())  # the child's outcome; the frames before it are IR
        broke = kind == "error"
    if not broke or not frames:
        # It did not happen again pass by pass: the reproducer runs the whole pipeline.
        text = ",".join(element for _, element in steps)
        return PassCrash(text, died, write_reproducer(ir.Module.parse(source, context), text))
    before = ir.Module.parse(frames[-1], context)
    element = steps[len(frames) - 1][1]
    return PassCrash(element, second_death or died, write_reproducer(before, element))


def write_reproducer(module: ir.Module, pipeline: str, directory: Optional[str] = None) -> Optional[str]:
    """Write ``module`` with ``pipeline`` as an ``mlir-opt``-style crash reproducer; return its path.

    The file goes to ``directory``, else ``$TENSORAD_REPRODUCER_DIR``, else
    the temporary folder; its name is a hash of its text. ``None`` when
    nothing could be written.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse("func.func @f() { return }", make_context())
    >>> path = write_reproducer(m, "canonicalize", tempfile.mkdtemp())
    >>> reproducer_pipeline(open(path).read())
    'builtin.module(canonicalize)'
    """
    anchored = pipeline if pipeline.startswith("builtin.module(") else f"builtin.module({pipeline})"
    escaped = anchored.replace("\\", "\\\\").replace('"', '\\"')
    text = (module.operation.get_asm(enable_debug_info=True, assume_verified=True)
            + "\n{-#\n  external_resources: {\n    mlir_reproducer: {\n"
            f'      pipeline: "{escaped}",\n      disable_threading: true,\n      verify_each: true\n'
            "    }\n  }\n#-}\n")
    folder = directory or os.environ.get(REPRODUCER_DIR_VARIABLE) or os.path.join(
        tempfile.gettempdir(), "tensorad-reproducers")
    path = os.path.join(folder, f"crash-{hashlib.sha1(text.encode()).hexdigest()[:12]}.mlir")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(path, "w") as out:
            out.write(text)
    except OSError:
        return None
    return path


def reproducer_pipeline(text: str) -> Optional[str]:
    """The pipeline recorded in a reproducer's ``mlir_reproducer`` resource, or None.

    Examples
    --------
    >>> reproducer_pipeline('{-# external_resources: { mlir_reproducer: { pipeline: "builtin.module(cse)" } } #-}')
    'builtin.module(cse)'
    """
    match = _REPRODUCER_PIPELINE.search(text)
    return None if match is None else match.group(1).replace('\\"', '"').replace("\\\\", "\\")


def without_reproducer_resource(text: str) -> str:
    """``text`` with its ``mlir_reproducer`` block blanked out (line numbers kept), so parsing it does not warn.

    Examples
    --------
    >>> without_reproducer_resource('x\\n{-# external_resources: { mlir_reproducer: { pipeline: "cse" } } #-}\\n')
    'x\\n\\n'
    """
    return _REPRODUCER_BLOCK.sub(lambda m: "\n" * m.group(0).count("\n"), text)
