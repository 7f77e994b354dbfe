"""Worker processes, crash counting, shrinking and reproducer files.

The parent hands tasks (JSON lines) to worker processes
(``python -m tensorad.fuzz.runner``); a worker runs them one after another
and answers each with JSON lines on a private pipe: ``{"stage": ...}``
before each check, then ``{"result": ...}``. A worker that dies (signal,
abort, exit) or stays silent past the timeout turns its current task into a
``death`` result (with the check it was in and the last lines of its stderr,
where LLVM prints assertion failures), and a fresh worker takes the rest.

Examples
--------
>>> from tensorad.fuzz.programs import generate
>>> with WorkerPool(1) as pool:
...     results = pool.run_all([{"kind": "py", "program": generate(0)}])
>>> results[0]["status"] in ("ok", "wrong", "internal", "refusal", "death")
True
"""

from __future__ import annotations

import json
import os
import queue
import re
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time

FAILURES = ("death", "wrong", "internal")
TASK_TIMEOUT_S = 60.0


def run_task(task: dict, stage) -> dict:
    """Run one task in this process (the worker's side)."""
    if task["kind"] == "py":
        from .checks import run_program
        # Fault injection for the fuzzer's own tests: a "compiler" that aborts on one op.
        if task.get("abort_on_op") in {s[0] for s in task["program"]["stmts"]}:
            os.abort()
        return run_program(task["program"], stage)
    if task["kind"] == "ir":
        from .ir import run_ir
        return run_ir(task["program"], stage)
    raise ValueError(f"unknown task kind {task['kind']!r}")


def worker_main() -> None:
    """Read tasks from stdin, answer on the descriptor given in ``TENSORAD_FUZZ_FD``."""
    out = os.fdopen(int(os.environ["TENSORAD_FUZZ_FD"]), "w", buffering=1)
    # Anything else printed (MLIR diagnostics, numpy warnings) goes to stderr.
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def stage(name):
        out.write(json.dumps({"stage": name}) + "\n")

    for line in sys.stdin:
        task = json.loads(line)
        try:
            result = run_task(task, stage)
        except Exception as err:  # noqa: BLE001 - a fuzzer bug must not look like a compiler bug
            result = {"status": "invalid", "check": None, "message": f"{type(err).__name__}: {err}"}
        out.write(json.dumps({"result": result}) + "\n")


def _death_signature(returncode, stderr_text: str) -> str:
    """The first line that explains a worker's death (an assertion, UNREACHABLE, a signal)."""
    for line in stderr_text.splitlines():
        if re.search(r"Assertion|UNREACHABLE|LLVM ERROR|Segmentation|Fatal Python|terminate called", line):
            return line.strip()[:300]
    if returncode is None:
        return "hang (timeout)"
    if returncode < 0:
        try:
            return f"killed by {signal.Signals(-returncode).name}"
        except ValueError:
            return f"killed by signal {-returncode}"
    return f"exited with status {returncode}"


class Worker:
    """One child process running tasks; restarted by the pool after it dies."""

    def __init__(self):
        read_fd, write_fd = os.pipe()
        self.stderr = tempfile.TemporaryFile()
        env = dict(os.environ, TENSORAD_FUZZ_FD=str(write_fd), PYTHONFAULTHANDLER="1")
        self.proc = subprocess.Popen([sys.executable, "-m", "tensorad.fuzz.runner"], stdin=subprocess.PIPE,
                                     stdout=subprocess.DEVNULL, stderr=self.stderr, env=env,
                                     pass_fds=(write_fd,), text=True)
        os.close(write_fd)
        self.results_fd, self.pending = read_fd, b""

    def _next_message(self, deadline: float):
        """The worker's next JSON line, or None when it closed the pipe or the deadline passed."""
        while b"\n" not in self.pending:
            ready, _, _ = select.select([self.results_fd], [], [], max(deadline - time.monotonic(), 0))
            if not ready:
                return "timeout"
            chunk = os.read(self.results_fd, 65536)
            if not chunk:
                return None
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)

    def run(self, task: dict, timeout: float) -> dict:
        self.stderr.seek(0)
        self.stderr.truncate()
        stage = None
        try:
            self.proc.stdin.write(json.dumps(task) + "\n")
            self.proc.stdin.flush()
            deadline = time.monotonic() + timeout
            while True:
                message = self._next_message(deadline)
                if message == "timeout":
                    self.proc.kill()
                    self.proc.wait()
                    return self._death(stage, None)
                if message is None:
                    self.proc.wait()
                    return self._death(stage, self.proc.returncode)
                if "stage" in message:
                    stage = message["stage"]
                else:
                    return message["result"]
        except BrokenPipeError:
            self.proc.wait()
            return self._death(stage, self.proc.returncode)

    def _death(self, stage, returncode) -> dict:
        self.stderr.seek(0)
        text = self.stderr.read().decode(errors="replace")
        return {"status": "death", "check": stage, "message": _death_signature(returncode, text),
                "stderr_tail": text[-3000:]}

    @property
    def alive(self) -> bool:
        return self.proc.poll() is None

    def close(self) -> None:
        if self.alive:
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        os.close(self.results_fd)
        self.stderr.close()


class WorkerPool:
    """``jobs`` workers; :meth:`run_all` runs tasks on them in parallel, restarting the dead ones."""

    def __init__(self, jobs: int = 1, timeout: float = TASK_TIMEOUT_S):
        self.jobs, self.timeout = max(1, jobs), timeout
        self.workers = [None] * self.jobs

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for w in self.workers:
            if w is not None:
                w.close()

    def _run_on(self, slot: int, task: dict) -> dict:
        if self.workers[slot] is None or not self.workers[slot].alive:
            if self.workers[slot] is not None:
                self.workers[slot].close()
            self.workers[slot] = Worker()
        result = self.workers[slot].run(task, self.timeout)
        if result["status"] == "death":
            self.workers[slot].close()
            self.workers[slot] = None
        return result

    def run_all(self, tasks: list, on_result=None) -> list:
        """The results of ``tasks`` in order; ``on_result(index, result)`` is called as each arrives."""
        results = [None] * len(tasks)
        todo = queue.Queue()
        for i in range(len(tasks)):
            todo.put(i)

        def serve(slot):
            while True:
                try:
                    i = todo.get_nowait()
                except queue.Empty:
                    return
                results[i] = self._run_on(slot, tasks[i])
                if on_result:
                    on_result(i, results[i])

        threads = [threading.Thread(target=serve, args=(slot,)) for slot in range(self.jobs)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return results


# ---------------------------------------------------------------------------------------------
# signatures, shrinking, reports

def _normalize(text: str) -> str:
    text = re.sub(r"loc\([^)]*\)|\(at [^)]*\)|<fuzzed program>:\d+:\d+|/[\w./-]+", "", text)
    text = re.sub(r"0x[0-9a-f]+|\d+", "N", text)
    return re.sub(r"\s+", " ", text).strip()


def signature(result: dict, program: dict | None = None) -> str:
    """What makes two failures the same bug: the class, the check and the normalized message.

    Wrong results say nothing but their check, so their signature adds the ops
    of the (minimized) program.
    """
    status, check = result["status"], result.get("check")
    if status == "wrong":
        ops = sorted({s[0] for s in program["stmts"]}) if program and "stmts" in program else []
        return f"wrong:{check}:{'+'.join(ops)}"
    lines = [ln for ln in result["message"].splitlines() if ln.strip() and "note:" not in ln]
    return f"{status}:{check}:{_normalize(' | '.join(lines))[:200]}"


def _same_failure(result: dict, target: dict) -> bool:
    if result["status"] != target["status"] or result.get("check") != target.get("check"):
        return False
    if result["status"] == "wrong":
        return True
    return signature(result) == signature(target)


def _renumber(program: dict, var: int, replacement: int | None) -> dict | None:
    """``program`` without variable ``var`` (an input or a statement), its uses read ``replacement``."""
    n_in = len(program["inputs"])

    def fix(v):
        v = replacement if v == var else v
        return None if v is None else v - 1 if v > var else v

    stmts = []
    for k, (op, args, params) in enumerate(program["stmts"]):
        if n_in + k == var:
            continue
        args = [fix(a) for a in args]
        if None in args:
            return None
        stmts.append([op, args, params])
    ret = None if program["ret"] is None else fix(program["ret"])
    if program["ret"] is not None and ret is None:
        return None
    inputs = [x for i, x in enumerate(program["inputs"]) if i != var]
    if not inputs:
        return None
    smaller = dict(program, inputs=inputs, stmts=stmts, ret=ret)
    if program.get("vmap"):
        smaller["vmap"] = dict(program["vmap"], in_axes=[a for i, a in enumerate(program["vmap"]["in_axes"])
                                                         if i != var])
    return smaller


def _check_candidates(program: dict, check: str | None) -> list:
    # Only the failing check runs: the eager and vmap checks too are dropped unless they failed.
    alone = dict(program, eager=check == "eager",
                 vmap=dict(program["vmap"], grad=check == "vmap_grad")
                 if check in ("vmap", "vmap_grad") and program.get("vmap") else None)
    out = []
    if check in ("forward", "eager", "vmap", "vmap_grad", None):
        out.append(dict(alone, modes=[], nested=None))
    elif check in ("rev", "fwd", "jacrev", "jacfwd"):
        out.append(dict(alone, modes=[check], nested=None))
    elif check == "dot-product":
        out.append(dict(alone, nested=None))
    else:
        out.append(dict(alone, modes=[]))
    if check in ("vmap", "vmap_grad") and program.get("vmap"):
        # The simplest map that still fails: two rows, leading axes.
        vmap = program["vmap"]
        out += [dict(program, vmap=dict(vmap, size=2)), dict(program, vmap=dict(vmap, out_axes=0))]
        out += [dict(program, vmap=dict(vmap, in_axes=vmap["in_axes"][:i] + [0] + vmap["in_axes"][i + 1:]))
                for i, a in enumerate(vmap["in_axes"]) if a not in (0, None)]
        out += [dict(program, vmap=dict(vmap, in_axes=vmap["in_axes"][:i] + [None] + vmap["in_axes"][i + 1:]))
                for i, a in enumerate(vmap["in_axes"]) if a is not None]
    if any(d == "float32" for _, d in program["inputs"]):
        out.append(dict(program, inputs=[[s, "float64"] for s, _ in program["inputs"]]))
    return [c for c in out if c != program]


def _py_candidates(program: dict, check: str | None) -> list:
    """Smaller variants of a Python program, likeliest-to-help first."""
    n_in, n = len(program["inputs"]), len(program["inputs"]) + len(program["stmts"])
    ret = program["ret"] if program["ret"] is not None else n - 1
    out = _check_candidates(program, check)
    # Return an earlier variable (and drop everything after it).
    for k in range(n_in, ret):
        out.append(dict(program, stmts=program["stmts"][:k - n_in + 1], ret=None))
    if ret >= n_in:
        out += [dict(program, stmts=[], ret=k) for k in range(n_in)]
    # Drop one statement, its readers reading its first operand instead.
    for k in range(n_in, n):
        first = program["stmts"][k - n_in][1][0]
        out.append(_renumber(program, k, first))
    # Drop unused inputs.
    used = {a for s in program["stmts"] for a in s[1]} | {ret}
    out += [_renumber(program, i, None) for i in range(n_in) if i not in used]
    # Shapes toward 1, then 0.
    for i, (shape, dtype) in enumerate(program["inputs"]):
        for d, size in enumerate(shape):
            for smaller in ([1] if size > 2 else []) + ([size - 1] if size > 0 else []):
                inputs = [list(x) for x in program["inputs"]]
                inputs[i] = [shape[:d] + [smaller] + shape[d + 1:], dtype]
                out.append(dict(program, inputs=inputs))
        if shape:
            inputs = [list(x) for x in program["inputs"]]
            inputs[i] = [shape[1:], dtype]
            out.append(dict(program, inputs=inputs))
    return [c for c in out if c is not None]


def _valid(task: dict) -> bool:
    if task["kind"] == "py":
        from .programs import Invalid, render
        try:
            render(task["program"])
        except Invalid:
            return False
        return True
    from .ir import Invalid as IRInvalid, render_ir
    try:
        render_ir(task["program"])
    except IRInvalid:
        return False
    return True


def _candidates(task: dict, check) -> list:
    if task["kind"] == "py":
        made = _py_candidates(task["program"], check)
    else:
        from .ir import shrink_candidates
        made = shrink_candidates(task["program"])
    tasks = [dict(task, program=p) for p in made]
    return [t for t in tasks if _valid(t)]


def shrink(pool: WorkerPool, task: dict, result: dict, max_runs: int = 120) -> tuple:
    """A smaller task failing the same way as ``task`` did with ``result``: (task, result, runs)."""
    runs = 0
    improved = True
    while improved and runs < max_runs:
        improved = False
        candidates = _candidates(task, result.get("check"))
        # Try them in batches of the pool's width; take the first that still fails the same way.
        for start in range(0, len(candidates), pool.jobs):
            batch = candidates[start:start + pool.jobs][:max_runs - runs]
            if not batch:
                break
            runs += len(batch)
            for cand, got in zip(batch, pool.run_all(batch)):
                if _same_failure(got, result):
                    task, result, improved = cand, got, True
                    break
            if improved or runs >= max_runs:
                break
    return task, result, runs


REPRODUCER = '''"""tensorad fuzz reproducer: {status} in check {check!r}.

{message}

signature: {signature}
Run it: python {name}  (prints the check's result: "ok" once the bug is fixed)
"""
import json

TASK = json.loads({task_json!r})

{listing}
if __name__ == "__main__":
    from tensorad.fuzz.runner import run_task
    print(run_task(TASK, lambda stage: None))
'''


def write_reproducer(out_dir: str, task: dict, result: dict) -> str:
    """Write a standalone script replaying ``task``; return its path."""
    kind = {"death": "deaths", "wrong": "wrong", "internal": "internal", "refusal": "refusals"}[result["status"]]
    folder = os.path.join(out_dir, kind if task["kind"] == "py" else f"ir-{kind}")
    os.makedirs(folder, exist_ok=True)
    name = os.path.join(folder, f"{task['program']['seed']}.py")
    if task["kind"] == "py":
        from .programs import render
        listing = "# The program (xp is numpy for the reference, tensorad.numpy under test):\n" + "".join(
            f"#   {ln}\n" for ln in render(task["program"]).splitlines())
        listing += f"# inputs (shape, dtype): {task['program']['inputs']}, checks: " \
                   f"{task['program']['modes']} nested={task['program']['nested']} " \
                   f"eager={task['program'].get('eager', False)} vmap={task['program'].get('vmap')}\n"
    else:
        from .ir import render_ir
        listing = "# The module:\n" + "".join(f"#   {ln}\n" for ln in render_ir(task["program"]).splitlines())
    message = result["message"].replace('"""', "'''")[:1500]
    text = REPRODUCER.format(status=result["status"], check=result.get("check"), message=message,
                             signature=signature(result, task["program"]), name=name,
                             task_json=json.dumps(task), listing=listing)
    with open(name, "w") as f:
        f.write(text)
    return name


if __name__ == "__main__":
    worker_main()
