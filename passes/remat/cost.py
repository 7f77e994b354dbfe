"""The one cost model of rematerialization: bytes, FLOPs and live bytes of a schedule.

* **Bytes** of a tensor come from its type (elements × element width; ``i1``
  is stored as a byte, like numpy).
* **FLOPs** of an op (the table below) are what recomputing it costs:

  ============================================  ==============================================
  op                                            FLOPs
  ============================================  ==============================================
  ops whose record has a FLOP formula           the formula (contractions, convolutions,
                                                pooling, reductions: see their families)
  views (reshape, markers, casts, slices)       0
  ``scf.for``                                   trip count · FLOPs of the body
  ``scf.if``/``scf.while``                      the costlier region (once)
  everything else (elementwise, copies)         |result|
  ============================================  ==============================================

  (:func:`tensorad.dialects.record.flops_of` reads them from the records.)

* **Scratch bytes** of an op: the temporaries its lowering allocates
  besides its results (a convolution's padded and shifted copies of its
  input, a contraction's transposed operand), from the ``scratch`` rule of
  its record (:func:`tensorad.dialects.record.scratch_bytes_of`); they are
  live while the op runs, and only then.
* **Live bytes of a schedule** (:func:`simulate`): a schedule runs the nodes of
  a :class:`~.graph.Graph` in order, and before node ``t`` recomputes the
  nodes ``recompute[t]`` (in ascending order); every read takes the latest
  copy of a value. A copy is allocated when it runs and freed right after its
  last read (what ``tad-free-after-last-use`` makes the code do); results
  live to the end, and a view keeps its source alive (so does a strided
  slice, which is a view unless a writer needs a copy: ``Node.holds``). :func:`simulate` walks
  that schedule one op at a time: while an op runs, its inputs, its result,
  its scratch bytes and every copy still to be read are live. That count is
  the figure every tier plans against and the pass checks against the
  budget; it is the allocator's count (the runtime's ``peak_live_bytes``)
  when the scratch rules are exact, and more than it when bufferization
  writes a result in place.

Examples
--------
>>> from mlir import ir
>>> with ir.Context(), ir.Location.unknown():
...     bytes_of(ir.RankedTensorType.get([2, 3], ir.F32Type.get()))
24
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np
from mlir import ir

# Bytes of a tensor and of its allocation (padding included): the records' count,
# which their scratch rules use too.
from tensorad.dialects.record import allocation_bytes, tensor_bytes as bytes_of  # noqa: F401


def short_location(location: ir.Location) -> str:
    """``file:line`` of a location (``?`` when it has none)."""
    match = re.search(r'"([^"]*)":(\d+)', str(location))
    return f"{match.group(1)}:{match.group(2)}" if match else "?"


@dataclass
class Timeline:
    """Live bytes of one schedule, op by op.

    Attributes
    ----------
    events : list of (int, int, bool)
        ``(stage, node, recomputed)`` in execution order.
    live : list of int
        Live bytes while each event runs (its inputs and its result included);
        a numpy array in a timeline simulated without its reads.
    peak : int
        Most live bytes at once: ``max(live)``.
    recompute_flops : int
        FLOPs of the recomputed nodes.
    reads : list of list of int
        For each event, the stages that read the copy it made.
    """

    events: list
    live: list
    peak: int
    recompute_flops: int
    reads: list = field(default_factory=list)

    def peak_stage(self) -> int:
        """The stage of the first event at the peak."""
        return self.events[self.live.index(self.peak)][0] if self.events else 0


def simulate(graph, recompute: dict, reads: bool = True) -> Timeline:
    """Run the schedule ``recompute`` (``stage -> nodes``) of ``graph`` on paper.

    Without ``reads``, the timeline's ``events`` and ``reads`` are left
    empty and its ``live`` is a numpy array: a solver's trials need the live
    bytes only (a greedy descent on a 12-block transformer simulates
    thousands of trial schedules).

    Every step is an array operation over all events at once (the solvers
    call this thousands of times: an op-by-op walk in Python took 16 s of a
    transformer's budgeted compile).

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> simulate(graph, {}).peak, simulate(graph, {16: [0, 1]}).peak
    (12864, 10944)
    >>> simulate(graph, {16: [0, 1]}).recompute_flops
    2304
    """
    columns = graph.columns
    n = len(columns.bytes)
    events = _Events(n, recompute)
    node, stage, count = events.node, events.stage, len(events.node)
    recomputed = node != stage
    event = np.arange(count)
    # Every read: (reading event, node read); the copy read is that node's latest event before it.
    starts, ends = columns.input_offsets[node], columns.input_offsets[node + 1]
    widths = ends - starts
    reader = np.repeat(event, widths)
    version = events.latest(columns.inputs[np.repeat(starts - np.cumsum(widths) + widths, widths)
                                           + np.arange(len(reader))], reader)
    # A view keeps its buffer alive, and so does a result that may be a view (Node.holds):
    # each copy's source is the latest copy of the node it keeps alive.
    alias = columns.keeps_alive[node]
    source = np.full(count, -1)
    has_source = alias >= 0
    source[has_source] = events.latest(alias[has_source], event[has_source])
    [returned] = _chains(source, events.latest(columns.outputs, np.full(len(columns.outputs), count)))
    # A recomputed copy that nothing reads (or only such copies) is erased by the rewrite.
    # A node's first copy runs at its stage, as every tier and the lower bound assume; where
    # the rewritten program's lowering fuses or erases it, that program is checked on its
    # own (tad-remat's REWRITE_ROUNDS). Readers come after what they read, so the live
    # copies grow from those that are not candidates to a fixed point.
    candidate = recomputed.copy()
    candidate[returned] = False
    alive = ~candidate
    while True:
        has_live_reader = np.zeros(count, dtype=bool)
        has_live_reader[version[alive[reader]]] = True
        grown = alive | has_live_reader
        if np.array_equal(grown, alive):
            break
        alive = grown
    dead = ~alive
    # A copy lives from the event that makes it to its last read by a live event, or by a
    # live event reading a view of it.
    read_last = np.full(count, -1)
    live_read = alive[reader]
    np.maximum.at(read_last, version[live_read], reader[live_read])
    viewing = np.flatnonzero(has_source)
    while True:  # as many rounds as views are stacked on views
        before = read_last.copy()
        np.maximum.at(read_last, source[viewing], read_last[viewing])
        if np.array_equal(before, read_last):
            break
    last_read = np.maximum(event, read_last)
    last_read[returned] = count
    sizes = np.where(dead, 0, columns.bytes[node])
    by_event = np.bincount(event, sizes, count + 2) - np.bincount(last_read + 1, sizes, count + 2)
    live = np.cumsum(by_event[:count]).astype(np.int64) + np.where(dead, 0, columns.scratch[node])
    flops = int(columns.flops[node[recomputed & alive]].sum())
    peak = int(live.max()) if count else 0
    if not reads:
        return Timeline([], live, peak, flops)
    # Each read counts for the copy read and every copy it views; a returned copy is read at the end.
    chained = _chains(source, version, stage[reader], reader)
    at_return = (returned, np.full(len(returned), n), np.full(len(returned), count))
    read_copy, read_stage, order = (np.concatenate(pair) for pair in zip(chained, at_return))
    sort = np.lexsort((order, read_copy))
    bounds = np.searchsorted(read_copy[sort], event, side="right").tolist()
    stages_reading = read_stage[sort].tolist()
    reads_of = [stages_reading[a:b] for a, b in zip([0] + bounds, bounds)]
    events = list(zip(stage.tolist(), node.tolist(), recomputed.tolist()))
    return Timeline(events, live.tolist(), peak, flops, reads_of)


class _Events:
    """The events of a schedule in execution order (before stage ``t``, ``recompute[t]`` ascending, then ``t``).

    ``node[e]`` and ``stage[e]`` of each event ``e``; :meth:`latest` finds the
    copy that a read gets.
    """

    def __init__(self, n: int, recompute: dict):
        stages = sorted(t for t, nodes in recompute.items() if nodes and 0 <= t < n)
        again = [sorted(recompute[t]) for t in stages]
        at = np.repeat(np.array(stages, dtype=np.int64), [len(nodes) for nodes in again])
        redone = np.array([i for nodes in again for i in nodes], dtype=np.int64)
        # Stage t's own event comes after the recomputations of stages up to t; the k-th
        # recomputation after the at[k] stage events before its stage.
        self.first = np.arange(n) + np.cumsum(np.bincount(at, minlength=n))
        redone_at = np.arange(len(at)) + at
        self.node, self.stage = np.empty(n + len(at), dtype=np.int64), np.empty(n + len(at), dtype=np.int64)
        self.node[self.first] = self.stage[self.first] = np.arange(n)
        self.node[redone_at], self.stage[redone_at] = redone, at
        # The recomputed copies by (node, event), to find the latest one before a read.
        self._base = len(self.node) + 1
        keys = redone * self._base + redone_at
        order = np.argsort(keys)
        self._keys, self._redone_at = keys[order], redone_at[order]
        self._redone = np.zeros(n, dtype=bool)
        self._redone[redone] = True

    def latest(self, nodes: np.ndarray, before: np.ndarray) -> np.ndarray:
        """For each pair, the last event before event ``before`` that makes a copy of ``nodes``.

        That is the node's first copy (it runs before every read of it)
        unless a recomputed copy came after it.
        """
        found = self.first[nodes]
        again = np.flatnonzero(self._redone[nodes])
        if len(again):
            wanted = nodes[again]
            at = np.searchsorted(self._keys, wanted * self._base + before[again]) - 1
            hit = at >= 0
            hit[hit] = self._keys[at[hit]] // self._base == wanted[hit]
            found[again[hit]] = self._redone_at[at[hit]]
        return found


def _chains(source: np.ndarray, copies: np.ndarray, *along: np.ndarray) -> list:
    """``[copies and every copy they view through source, *along repeated for each]``, with repeats."""
    found = [(copies, *along)]
    while True:
        kept = found[-1][0] >= 0
        found[-1] = tuple(column[kept] for column in found[-1])
        if not len(found[-1][0]):
            return [np.concatenate(column) for column in zip(*found)]
        found.append((source[found[-1][0]], *found[-1][1:]))


def without_unread(graph, recompute: dict) -> dict:
    """``recompute`` without the copies that nothing reads.

    Such a copy runs for nothing, and the lowering erases it as dead code;
    its inputs then have fewer readers, which changes what elementwise
    fusion merges and so what lives when (a comparison left with one reader
    is fused into it, and its operands live until that reader runs). A plan
    without them is what the rewritten program runs.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> without_unread(graph, {16: [0, 1], 17: [2]})  # nothing reads node 2 from stage 17 on
    {16: [0, 1]}
    """
    while True:
        timeline = simulate(graph, recompute)
        unread = {(stage, node) for v, (stage, node, again) in enumerate(timeline.events)
                  if again and not timeline.reads[v]}
        if not unread:
            return recompute
        recompute = {stage: kept for stage, nodes in recompute.items()
                     if (kept := [node for node in nodes if (stage, node) not in unread])}
