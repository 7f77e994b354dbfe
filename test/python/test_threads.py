"""Threads: one compiled function called from several threads at once, and compiling from several threads."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp


def run_in_threads(work, count: int) -> list:
    """Run ``work(i)`` for i in range(count), each on its own thread, all released at once."""
    start = threading.Barrier(count)

    def task(i):
        start.wait()
        return work(i)

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(task, range(count)))


def test_one_function_called_from_four_threads_returns_each_threads_result():
    # Several results: the compiled code writes them into descriptors that
    # each call in flight must have to itself.
    f = ta.jit(lambda x: (x * 2.0, tnp.sin(x).sum(), x[1:] + 1.0))
    inputs = [np.full(16, float(i)) for i in range(4)]
    f(inputs[0])

    def calls(i):
        x, wrong = inputs[i], 0
        for _ in range(500):
            doubled, total, flipped = f(x)
            wrong += not (np.array_equal(doubled, x * 2.0) and np.array_equal(flipped, x[1:] + 1.0)
                          and np.isclose(total, np.sin(x).sum()))
        return wrong

    assert run_in_threads(calls, 4) == [0, 0, 0, 0]


def test_last_call_stats_are_per_thread():
    big = ta.jit(lambda x: tnp.exp(x) * 2.0)
    small = ta.jit(lambda x: x + 1.0)
    big(np.ones(100_000))
    small(np.ones(4))

    def calls(i):
        f, x = (big, np.ones(100_000)) if i % 2 else (small, np.ones(4))
        peaks = set()
        for _ in range(200):
            f(x)
            peaks.add(ta.last_call_stats().peak_live_bytes)
        return peaks, ta.last_call_stats().live_allocations

    results = run_in_threads(calls, 4)
    for i, (peaks, live) in enumerate(results):
        assert live == 0
        assert (min(peaks) >= 800_000) if i % 2 else (max(peaks) < 1000), peaks
    assert ta.live_bytes() == 0 or ta.live_bytes() < 10**6  # nothing left counted as live from the calls


def test_allocator_books_balance_after_concurrent_calls():
    f = ta.jit(lambda x, y: (tnp.exp(x @ y).sum(axis=1), tnp.maximum(x, 0.0).T))
    x, y = np.ones((64, 32)), np.ones((32, 48))
    f(x, y)
    before = ta.live_bytes()
    run_in_threads(lambda i: [f(x, y) for _ in range(200)], 4)
    assert ta.live_bytes() == before


# Run in a child: before the tracer's depth counter was per thread, a
# compilation racing another could crash the process, not only fail.
COMPILING_IN_THREADS = """
import sys, threading
from concurrent.futures import ThreadPoolExecutor
import numpy as np, tensorad as ta, tensorad.numpy as tnp
count, same = int(sys.argv[1]), sys.argv[2] == "same"
sys.setswitchinterval(1e-5)  # threads take turns often, so that their traces interleave
shared = ta.jit(lambda x: tnp.exp(x).sum(axis=0) * 3.0)
start = threading.Barrier(count)

def work(i):
    start.wait()
    if same:
        x = np.arange(12.0).reshape(3, 4) / 10
        return np.allclose(shared(x), np.exp(x).sum(axis=0) * 3.0)
    def chain(x, xp):  # long enough for the traces of two threads to overlap
        for k in range(60):
            x = xp.sin(x) * (1.0 + 0.01 * (i + k))
        return x.sum()

    x = np.linspace(0.0, 1.0, 5 + i)
    return np.allclose(ta.jit(lambda x: chain(x, tnp))(x), chain(x, np))

for _ in range(3):
    with ThreadPoolExecutor(count) as pool:
        assert all(pool.map(work, range(count)))
assert not same or shared.cache_size == 1
print("ok")
"""


@pytest.mark.parametrize("count", [2, 4])
@pytest.mark.parametrize("functions", ["different", "same"])
def test_threads_compiling_at_once(count, functions):
    done = subprocess.run([sys.executable, "-c", COMPILING_IN_THREADS, str(count), functions],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_one_threads_emitting_scope_does_not_reach_another_thread():
    from mlir import ir

    from tensorad.tracing import TraceState, emits_ops

    inside, release = threading.Event(), threading.Event()

    @emits_ops
    def wait_inside_a_frontend_call():
        inside.set()
        release.wait(60)

    def hold_a_scope():
        with TraceState.context(), ir.Location.unknown():
            wait_inside_a_frontend_call()

    holder = threading.Thread(target=hold_a_scope)
    holder.start()
    inside.wait(60)

    def f(x):
        y = tnp.sin(x)
        return y * 2.0

    try:
        text = ta.jit(f).lower(np.ones(2)).as_text("tad", debug_info=True)
    finally:
        release.set()
        holder.join()
    line = f.__code__.co_firstlineno + 1
    assert f'test_threads.py":{line}:' in text  # the sin op carries the user's line


POOL_THREAD_STATES = """
import ctypes, sys
import numpy as np
import tensorad as ta
from tensorad.nn.conv import conv2d

api = ctypes.pythonapi
api.PyInterpreterState_Get.restype = ctypes.c_void_p
api.PyInterpreterState_ThreadHead.restype = api.PyThreadState_Next.restype = ctypes.c_void_p
api.PyInterpreterState_ThreadHead.argtypes = api.PyThreadState_Next.argtypes = [ctypes.c_void_p]


def thread_states():
    count, state = 0, api.PyInterpreterState_ThreadHead(api.PyInterpreterState_Get())
    while state:
        count, state = count + 1, api.PyThreadState_Next(state)
    return count


# Five images of 8.6M multiply-adds: each goes on a thread, and allocates there.
rng = np.random.default_rng(0)
x, w = rng.standard_normal((5, 40, 24, 24)), rng.standard_normal((40, 40, 3, 3))
f = ta.jit(lambda x, w: conv2d(x, w, padding=1))
f.lower(x, w).compile()
before = thread_states()
# On a loaded machine the calling thread may run every image before a pool thread wakes:
# call until one has allocated (with the bug, its thread state is gone again on return).
for _ in range(200):
    f(x, w)
    if thread_states() > before:
        break
counts = []
for _ in range(3):
    for _ in range(5):
        f(x, w)
    counts.append(thread_states())
print(before, *counts)
"""


def test_a_pool_thread_that_allocates_keeps_one_thread_state():
    # A hook called on a thread Python does not know makes a thread state and
    # deletes it on return (mapping and unmapping memory, which interrupts
    # every core): threaded images that allocate ran 2.2x slower than serial
    # ones. The allocator keeps the state of each pool thread it serves.
    env = {**os.environ, "TENSORAD_NUM_THREADS": "2"}
    done = subprocess.run([sys.executable, "-c", POOL_THREAD_STATES], capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    before, *after = map(int, done.stdout.split())
    assert before < after[0] == after[1] == after[2], (before, after)
