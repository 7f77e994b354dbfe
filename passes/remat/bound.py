"""What no schedule goes under: a lower bound on the peak live bytes of every schedule.

:func:`lower_bound` certifies floors: a tier whose schedule peaks at the
bound has found the least peak any schedule reaches, and one within a few
percent of it is within as much of the exact floor. On every graph the
exact tier proves a floor on, the bound is that floor (the tests check
MLPs, a residual network, an attention block and a U-Net); on a 12-block
transformer (1,000 nodes) it takes about 2 s.

:func:`min_cut` is the byte-weighted vertex cut behind it, which the
min-cut tier's start schedules use too.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# A capacity that no cut may cross (what storing a node costs when it may not be stored).
BIG = 2**62
# scipy's max-flow works in int32 (larger capacities wrap around, silently): finite
# capacities are scaled to sum to at most _FINITE, and BIG becomes _INFINITE.
_FINITE, _INFINITE = 2**30, 2**31 - 1


def min_cut(graph, count: int, needed, capacity, free=(), kept=()) -> tuple:
    """``(bytes, stored)``: the cheapest set of nodes below ``count`` to store so that every ``needed`` node can be had.

    A node can be had when it is stored or ``free`` (live already), or when
    it may run again and its inputs can be had (one without inputs: from
    nothing). A node that may not run again, or is ``kept`` (no tier
    recomputes a result), can be had only stored or free. So the answer is a
    minimum vertex cut between those nodes (the source) and the needed ones
    (the sink) in the dataflow graph: each node split into an in- and an
    out-vertex joined by an edge of ``capacity(i)``, what storing node ``i``
    costs (``BIG``: it may not be; nothing: it is free).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order, maximum_flow

    nodes = graph.nodes
    source, sink = 2 * count, 2 * count + 1
    rows, cols, caps = [], [], []

    def edge(a, b, cap):
        if cap > 0:  # an edge of capacity 0 is cut for nothing: the same as none
            rows.append(a)
            cols.append(b)
            caps.append(cap)

    free = set(free)
    for i in range(count):
        node = nodes[i]
        if i not in free:
            edge(2 * i, 2 * i + 1, capacity(i))
            if not node.recomputable or i in kept:
                edge(source, 2 * i, BIG)  # had only if stored
        for p in node.inputs:
            edge(2 * p + 1, 2 * i, BIG)
    for i in needed:
        edge(2 * i + 1, sink, BIG)
    # Scaled down and rounded down: the cut's bytes are never overstated.
    finite = [c for c in caps if c < BIG]
    unit = max(1, -(-sum(finite) // _FINITE))
    scaled = np.array([c // unit if c < BIG else _INFINITE for c in caps], dtype=np.int32)
    matrix = csr_matrix((scaled, (rows, cols)), shape=(sink + 1, sink + 1))
    flow = maximum_flow(matrix, source, sink)
    # scipy's flow is skew-symmetric, so capacity - flow is the residual graph,
    # reverse edges included; the source side of the cut is what it reaches.
    residual = (matrix - flow.flow).tocsr()
    residual.data = (residual.data > 0).astype(np.int32)
    residual.eliminate_zeros()
    reached = set(breadth_first_order(residual, source, return_predecessors=False).tolist())
    stored = {i for i in range(count) if 2 * i in reached and 2 * i + 1 not in reached and i not in free}
    return int(flow.flow_value) * unit, stored


@dataclass
class StageCut:
    """The cheapest state of the memory while node ``stage`` first runs.

    Attributes
    ----------
    live : set of int
        Nodes whose copies are live: the running node, what it reads, the
        results made so far, and the copies stored so that every later read
        can be had (:func:`min_cut`).
    bytes : int
        Their bytes and the running node's scratch bytes: no schedule has
        fewer live at that point.
    """

    live: set
    bytes: int


def stage_cuts(graph, stored_only=frozenset()) -> list:
    """One :class:`StageCut` per stage of ``graph``.

    While node ``t`` runs (its first run, which every schedule has), its
    result, its scratch bytes and the buffers it reads are live, and so is
    enough to have every value that a later stage reads, or the function
    returns: kept copies from which the rest is recomputed. The cheapest such
    set, with ``t`` and its inputs free (they are live anyway), is a minimum
    cut (:func:`min_cut`). Views cost nothing of their own but need their
    buffer, a checkpoint region's interior may not be kept past its end, and
    results are kept from their first run (:meth:`.graph.Graph.kept_results`).

    ``stored_only`` buffers are kept too wherever a later stage reads them
    (:func:`.mincut.pinned_cut_plan` pins them): the states are then those
    of the schedules that keep them, no longer a bound.
    """
    nodes, users, n = graph.nodes, graph.users(), len(graph.nodes)
    # The last stage each node is read at (the return: n).
    last_read = [max(users[i], default=-1) for i in range(n)]
    for i in graph.outputs:
        last_read[i] = n
    ended = [(set(interior), end) for interior, end in graph.regions]
    kept = graph.kept_results()
    cuts = []
    for t in range(n):
        node = nodes[t]
        results = {i for i in kept if i < t}
        # What reading them keeps alive: views' buffers, the inputs a result may view.
        buffers = {kept for i in [*node.inputs, *results] for kept in graph.kept_alive(i)}
        needed = [i for i in range(t + 1) if last_read[i] > t]
        sealed = set().union(*(interior for interior, end in ended if end < t))

        def capacity(i):
            # A view is had with its buffer; a region's interior is not kept past its end.
            return BIG if nodes[i].alias_of is not None or i in sealed else nodes[i].bytes

        free = buffers | results | set(node.inputs) | {t}
        stored_bytes, stored = min_cut(graph, t + 1, needed, capacity, free=free, kept=stored_only - sealed)
        cuts.append(StageCut(free | stored, node.bytes + node.scratch + sum(nodes[b].bytes for b in buffers)
                             + stored_bytes))
    return cuts


def lower_bound(graph, cuts=None) -> int:
    """Bytes that every schedule of ``graph`` has live at some point: no budget below it is feasible.

    The most bytes of a :func:`stage_cuts` state (``cuts``, when already computed). A tier's smallest budget
    within a few percent of the bound is within as much of the exact floor;
    equal to it, it is the floor.

    Examples
    --------
    >>> from tensorad.passes.remat import exact
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example()
    >>> lower_bound(graph), exact.smallest_budget(graph)
    (9024, (9024, True))
    """
    return max((cut.bytes for cut in (stage_cuts(graph) if cuts is None else cuts)), default=0)
