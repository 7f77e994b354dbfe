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
        Live bytes while each event runs (its inputs and its result included).
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

    Without ``reads``, the timeline's ``reads`` are left empty: a solver's
    trials need the live bytes only, and walking every read up its chain of
    views was most of their time.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> simulate(graph, {}).peak, simulate(graph, {16: [0, 1]}).peak
    (12864, 10944)
    >>> simulate(graph, {16: [0, 1]}).recompute_flops
    2304
    """
    # A view keeps its buffer alive, and so does a result that may be a view (Node.holds).
    inputs, alias, sizes, scratch, node_flops = graph.columns
    n = len(inputs)
    # Per copy (event): the copy it views, the last event reading it (or a view of it), and the
    # stages that read it (or a view of it). Only a recomputed copy can be dead (below): the
    # events reading it are kept, and its own reads count once it is known not to be.
    events, current, source, read_last, stages_reading = [], [None] * n, [], [], []
    readers, pending = {}, []
    for stage in range(n):
        again = recompute.get(stage)
        for node in (sorted(again) + [stage]) if again else (stage,):
            event = len(events)
            recomputed = node != stage
            events.append((stage, node, recomputed))
            copies = [current[i] for i in inputs[node]]
            for version in copies:
                if version in readers:
                    readers[version].append(event)
                while reads and version is not None:
                    stages_reading[version].append(stage)
                    version = source[version]
            if recomputed:
                readers[event] = []
                pending.append((event, copies))
            else:
                for version in copies:  # events come in order: this read is the last so far
                    read_last[version] = event
            source.append(None if alias[node] is None else current[alias[node]])
            read_last.append(-1)
            stages_reading.append([])
            current[node] = event
    count = len(events)
    returned = set()
    for i in graph.outputs:
        version = current[i]
        while version is not None:
            returned.add(version)
            if reads:
                stages_reading[version].append(n)
            version = source[version]
    # A recomputed copy that nothing reads (or only such copies) is erased by the rewrite,
    # readers first. A node's first copy runs at its stage, as every tier and the lower
    # bound assume; where the rewritten program's lowering fuses or erases it, that
    # program is checked on its own (tad-remat's REWRITE_ROUNDS).
    dead = [False] * count
    for version in reversed(readers):
        if version not in returned and all(dead[r] for r in readers[version]):
            dead[version] = True
    for event, copies in pending:
        if not dead[event]:
            for version in copies:
                if read_last[version] < event:
                    read_last[version] = event
    # Each view's last read passed on to the copy it views (made before it), the latest views first.
    for version in range(count - 1, -1, -1):
        viewed = source[version]
        if viewed is not None and read_last[viewed] < read_last[version]:
            read_last[viewed] = read_last[version]
    last_read = [max(version, event) for version, event in enumerate(read_last)]
    for version in returned:
        last_read[version] = count
    # A difference array: a copy is live from the event that makes it to its last read.
    by_event = [0] * (count + 2)
    for v, (_, node, _) in enumerate(events):
        size = sizes[node]
        if size and not dead[v]:
            by_event[v] += size
            by_event[last_read[v] + 1] -= size
    live, total, flops = [], 0, 0
    for e, (_, node, again) in enumerate(events):
        total += by_event[e]
        if dead[e]:
            live.append(total)
            continue
        live.append(total + scratch[node])
        if again:
            flops += node_flops[node]
    return Timeline(events, live, max(live, default=0), flops, stages_reading if reads else [])


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
