"""The chain tier: a dynamic program for sequential chains with heterogeneous layers.

A *chain* is a forward sweep whose every value ``v_l`` reads only ``v_{l-1}``
(and input-less nodes: constants, values made from arguments alone), followed
by a tail (the backward sweep) that reads the chain's values in reverse
order, each in its own stretch of stages: the forward of a deep MLP and its
backward. :func:`find` recognises one in a :class:`~.graph.Graph`.

The schedules searched are those of Chen et al. with segments of any length
(heterogeneous costs: Beaumont, Herrmann et al., "Optimal checkpointing for
heterogeneous chains", 2019): the forward keeps checkpoints ``c_1 < ... <
c_r = L``; when the tail first reads a value of segment ``(c_{k-1}, c_k]``
that is not kept, the segment is recomputed from ``v_{c_{k-1}}`` up to it in
one sweep (at the stage with the fewest other bytes live before that read) and the recomputed values are kept until their reads. Under the
stage figure of :mod:`.cost` (every copy a stage makes counts for the whole
stage) a sweep costs its whole length in memory at once, so keeping what it
made costs nothing more at that stage: multi-level (Revolve-like) schedules
only pay off where the tail's own bytes grow faster than the chain's values
are freed, and this class is the one the solver is exact on. (On the deep
MLP the exact tier's lower figures come instead from two things outside the
class: making the tail's input-less constant again before each read, which
:attr:`Chain.variant` measures and :func:`solve` tries, and splitting one
sweep over the two stages before a read.)

The program minimises recomputed FLOPs subject to the stage figure fitting
the budget. Its memory terms are those of :func:`.cost.simulate` for such a
schedule, segment by segment: with ``H`` the bytes of the checkpoints below a
segment, every stage of the segment's forward and backward stretch costs
``H`` plus a term that depends only on the segment's ends. The state is
(last checkpoint, ``H`` in slots of bytes rounded up, so the figure is never
under-estimated); each step is vectorised over all earlier checkpoints and
all slots with numpy, ``O(L^2 · slots)``: 1,000 layers in well under a second.
The plan found is checked with :func:`.cost.simulate` by the pass.

Examples
--------
>>> c = synthetic(bytes=[8, 8, 8], flops=[5, 5, 5])
>>> solve(c, 24).checkpoints, solve(c, 16).checkpoints
([1, 2, 3], [2, 3])
>>> solve(c, 16).flops, solve(c, 16).plan()
(5, {5: [0]})
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

# Slots the held-checkpoint bytes are counted in: finer costs time, coarser
# rounds memory up more (never down, so plans stay within the budget).
SLOTS = 256
_INF = np.inf


@dataclass
class Chain:
    """A chain found in a graph, as arrays indexed by layer ``1..L`` (index 0: the arguments).

    Attributes
    ----------
    spine : list of int
        Graph nodes of layers ``1..L`` in order.
    bytes, flops : numpy.ndarray
        Per layer (``[0]`` is 0).
    first_read, last_read : numpy.ndarray
        Stages at which the tail first and last reads each layer's value (-1: never).
    fwd_bg : numpy.ndarray
        Bytes of everything else live at the stage that computes layer ``l``.
    fwd_after : numpy.ndarray
        Most bytes of everything else over the stages between layers ``l`` and ``l + 1``.
    window : numpy.ndarray
        For a layer the tail reads: most bytes of everything else, plus the
        layer's own bytes while it is live, over the stages from its sweep
        stage to the next read layer's (the last one: to the end).
    sweep_bg : numpy.ndarray
        Bytes of everything else at the stage a read layer would be recomputed.
    sweep : numpy.ndarray
        That stage (-1 for layers the tail does not read).
    again : dict
        ``stage -> nodes`` recomputed whatever the chain's schedule: in
        :attr:`variant`, the tail's input-less values (the constant of a tanh
        derivative, as big as an activation) made again before each read
        instead of living across the whole backward.
    again_flops : int
        FLOPs of ``again``.
    variant : Chain or None
        The same chain measured with its input-less tail values recomputed
        (None when it has none, or for the variant itself).
    """

    spine: list
    bytes: np.ndarray
    flops: np.ndarray
    first_read: np.ndarray
    last_read: np.ndarray
    fwd_bg: np.ndarray
    fwd_after: np.ndarray
    window: np.ndarray
    sweep_bg: np.ndarray
    sweep: np.ndarray
    again: dict = field(default_factory=dict)
    again_flops: int = 0
    variant: "Chain | None" = None

    @property
    def length(self) -> int:
        """Number of layers ``L``."""
        return len(self.spine)

    @property
    def read(self) -> np.ndarray:
        """Which layers the tail reads (index 0 never)."""
        return self.first_read >= 0


@dataclass
class ChainSolution:
    """A schedule of a chain.

    Attributes
    ----------
    checkpoints : list of int
        Layers kept by the forward sweep, ``L`` last.
    flops : int
        Recomputed FLOPs.
    peak : int
        The stage figure of the schedule as the program counts it.
    """

    chain: Chain
    checkpoints: list
    flops: int
    peak: int

    def plan(self) -> dict:
        """The schedule as ``stage -> graph nodes`` to recompute (see :mod:`.cost`)."""
        return plan_of(self.chain, self.checkpoints)


def synthetic(bytes, flops) -> Chain:
    """A chain of layers ``bytes``/``flops`` whose tail reads them one per stage, last first, and holds nothing else.

    Layer ``l`` is graph node ``l - 1``; the tail starts at stage ``L``.

    Examples
    --------
    >>> synthetic([4, 4], [1, 1]).sweep.tolist()
    [-1, 3, 2]
    """
    L = len(bytes)
    first = np.r_[-1, 2 * L - np.arange(1, L + 1)]
    size = np.r_[0, np.asarray(bytes, dtype=np.int64)]
    zero = np.zeros(L + 1)
    window = np.where(np.arange(L + 1) > 0, size, 0).astype(float)
    return Chain(list(range(L)), size, np.r_[0, np.asarray(flops, dtype=np.int64)], first, first.copy(),
                 zero, zero, window, zero.copy(), first.copy())


# ---- recognising a chain ---------------------------------------------------------------


def _spine(graph, users) -> list:
    """The longest path of nodes each reading only its predecessor and input-less nodes."""
    nodes = graph.nodes
    leaf = [not node.inputs for node in nodes]

    def usable(i):
        node = nodes[i]
        return node.recomputable and node.alias_of is None and node.bytes > 0 \
            and i not in graph.outputs

    successor = [None] * len(nodes)
    for i in range(len(nodes)):
        for j in users[i]:
            if usable(j) and all(p == i or leaf[p] for p in nodes[j].inputs):
                successor[i] = j
                break
    length = [0] * len(nodes)
    for i in range(len(nodes) - 1, -1, -1):
        if usable(i):
            length[i] = 1 + (length[successor[i]] if successor[i] is not None else 0)
    starts = [i for i in range(len(nodes)) if leaf[i] and length[i]]
    if not starts:
        return []
    i, path = max(starts, key=lambda s: (length[s], -s)), []
    while i is not None and usable(i):
        path.append(i)
        i = successor[i]
    return path


def _reads(graph, users, spine: list, n: int):
    """First and last stage at which nodes outside ``spine`` read each spine node."""
    inside = set(spine)
    first, last = [-1], [-1]
    for i in spine:
        stages = [u for u in users[i] if u not in inside]
        first.append(min(stages, default=-1))
        last.append(max(stages, default=-1))
    return np.array(first), np.array(last)


def _reversed_reads(first, last) -> bool:
    """Whether the tail reads the layers last-first, one at a time."""
    read = [l for l in range(1, len(first)) if first[l] >= 0]
    return bool(read) and read[-1] == len(first) - 1 and all(
        first[b] <= last[b] < first[a] for a, b in zip(read, read[1:]))


def find(graph):
    """The chain of ``graph``, or None when its forward is not one.

    The forward is the longest run of layers each reading only the one
    before (plus input-less nodes); layers from its end are given to the tail
    until the tail reads what remains last-first. Checkpoint regions, views,
    side effects and returned values in the forward make it no chain.

    Examples
    --------
    >>> from tensorad.passes.remat.graph import example
    >>> module, graph = example(layers=3)
    >>> found = find(graph)
    >>> found.length, found.spine  # a contraction and a tanh per layer
    (6, [0, 1, 2, 3, 4, 5])
    """
    if graph.regions or not graph.nodes:
        return None
    users, n = graph.users(), len(graph.nodes)
    spine = _spine(graph, users)
    while len(spine) >= 2:
        first, last = _reads(graph, users, spine, n)
        before = set(range(spine[-1] + 1)) - set(spine)
        if all(not graph.nodes[i].inputs for i in before) and _reversed_reads(first, last):
            found = _measure(graph, users, spine, first, last, [])
            leaves = _leaves(graph, users, spine)
            if leaves:
                found.variant = _measure(graph, users, spine, first, last, leaves)
                for i in leaves:
                    for u in users[i][1:]:
                        found.variant.again.setdefault(u, []).append(i)
                    found.variant.again_flops += graph.nodes[i].flops * (len(users[i]) - 1)
            return found
        spine = spine[:-1]
    return None


def _leaves(graph, users, spine: list) -> list:
    """Input-less tail values worth making again before each read (read more than once)."""
    read_by_chain = {p for i in spine for p in graph.nodes[i].inputs}
    return [i for i, node in enumerate(graph.nodes)
            if not node.inputs and node.recomputable and node.alias_of is None and node.bytes
            and i not in graph.outputs and i not in read_by_chain and i not in spine
            and len(users[i]) > 1]


def _background(graph, users, spine: list, again: list) -> np.ndarray:
    """Bytes of the nodes outside the chain live at each stage (``n + 1`` stages).

    A node the chain reads may be read again by any recomputation, so it is
    counted live from its stage to the end. A node of ``again`` lives to its
    first read, and each later read makes (and frees) a copy in its own stage.
    """
    n, inside = len(graph.nodes), set(spine)
    read_by_chain = {p for i in spine for p in graph.nodes[i].inputs}
    delta = np.zeros(n + 2, dtype=np.int64)
    for i, node in enumerate(graph.nodes):
        if i in inside or not node.bytes:
            continue
        end = n if i in graph.outputs or i in read_by_chain else max(users[i], default=i)
        if i in again:
            end = users[i][0]
            for u in users[i][1:]:
                delta[u] += node.bytes
                delta[u + 1] -= node.bytes
        delta[i] += node.bytes
        delta[end + 1] -= node.bytes
    return np.cumsum(delta)[:n + 1]


def _measure(graph, users, spine, first, last, again: list) -> Chain:
    n, L = len(graph.nodes), len(spine)
    bg = _background(graph, users, spine, again)
    size = np.array([0] + [graph.nodes[i].bytes for i in spine], dtype=np.int64)
    flops = np.array([0] + [graph.nodes[i].flops for i in spine], dtype=np.int64)
    fwd_bg, fwd_after = np.zeros(L + 1), np.zeros(L + 1)
    for l in range(1, L + 1):
        fwd_bg[l] = bg[spine[l - 1]]
        if l < L:
            fwd_after[l] = bg[spine[l - 1] + 1:spine[l]].max(initial=0)
    window, sweep_bg, sweep = np.zeros(L + 1), np.zeros(L + 1), np.full(L + 1, -1)
    read = [l for l in range(L, 0, -1) if first[l] >= 0]
    # Layer L is left by the forward; a lower one is recomputed (if it is) at the
    # stage with the fewest other bytes between the reads of the one above and its own.
    sweep[read[0]] = spine[-1] + 1
    for above, l in zip(read, read[1:]):
        stages = np.arange(last[above] + 1, first[l] + 1)
        sweep[l] = stages[len(stages) - 1 - int(bg[stages][::-1].argmin())]
    ends = [sweep[l] for l in read[1:]] + [n + 1]
    for l, end in zip(read, ends):
        stages = np.arange(sweep[l], end)
        window[l] = (bg[stages] + size[l] * (stages <= last[l])).max(initial=0)
        sweep_bg[l] = bg[sweep[l]]
    return Chain(spine, size, flops, first, last, fwd_bg, fwd_after, window, sweep_bg, sweep)


# ---- the dynamic program ---------------------------------------------------------------


def _segment_terms(chain: Chain):
    """Per-layer arrays the segment memory and cost are made of."""
    b = chain.bytes.astype(float)
    L = chain.length
    read = chain.read
    # Layer l computed right after a checkpoint (its predecessor is counted in H) ...
    alone = b + np.maximum(chain.fwd_bg, chain.fwd_after)
    # ... or after a value that dies when l has read it.
    pair = np.maximum(np.r_[0.0, b[:-1]] + b + chain.fwd_bg, b + chain.fwd_after)
    held = np.cumsum(np.where(read, b, 0.0))           # bytes of read layers 1..l
    lower = np.r_[0.0, held[:-1]]                       # ... of read layers 1..l-1
    pending = np.where(read, lower + chain.window, -_INF)
    top = np.full(L + 1, -1)                            # largest read layer < l
    last_read = -1
    for l in range(1, L + 1):
        top[l] = last_read
        if read[l]:
            last_read = l
    return alone, pair, held, pending, top, np.cumsum(b), np.cumsum(chain.flops)


def _suffix_max(values: np.ndarray) -> np.ndarray:
    """``out[k] = max(values[k:])``."""
    return np.maximum.accumulate(values[::-1])[::-1]


def _segments_into(chain: Chain, terms, end: int):
    """Memory (bytes above the checkpoints held) and recompute FLOPs of segments ``(c, end]``, every ``c < end``."""
    alone, pair, held, pending, top, bcum, fcum = terms
    c = np.arange(end)
    memory = alone[c + 1]
    if end >= 2:
        # Forward stages of layers c+2..end, each holding its predecessor.
        memory = np.maximum(memory, np.r_[_suffix_max(pair[2:end + 1]), -_INF][np.minimum(c, end - 1)])
    if chain.read[end]:
        memory = np.maximum(memory, chain.window[end])
    d = top[end]
    flops = np.zeros(end)
    if d > 0:
        # Read layers strictly inside the segment: those below each one are held while it is read ...
        inside = np.r_[_suffix_max(pending[1:end]), -_INF]
        memory[:d] = np.maximum(memory[:d], inside[c[:d]] - held[c[:d]])
        # ... and the sweep that recomputes them holds the whole run c+1..d at once.
        memory[:d] = np.maximum(memory[:d], bcum[d] - bcum[c[:d]] + chain.sweep_bg[d])
        flops[:d] = fcum[d] - fcum[c[:d]]
    return memory, flops


def _feasible(memory, budget, slots_of_budget, unit):
    """Most held slots each segment start may carry and still fit the budget (-1: none)."""
    room = np.floor((budget - memory) / unit + 1e-9)
    return np.where(memory <= budget, np.minimum(room, slots_of_budget), -1).astype(int)


def solve(chain: Chain, budget: int, slots: int = SLOTS):
    """The least-recompute schedule of ``chain`` whose stage figure fits ``budget`` bytes.

    The program runs on the chain as found and on its :attr:`~Chain.variant`
    (input-less tail values made again before each read); the schedule with
    fewer recomputed FLOPs, theirs included, wins. Returns a
    :class:`ChainSolution`, or None when no schedule of the class fits.

    Examples
    --------
    >>> c = synthetic(bytes=[4, 4, 4], flops=[3, 3, 3])
    >>> solve(c, 12).flops, solve(c, 8).flops, solve(c, 7)
    (0, 3, None)
    """
    found = [s for s in (_solve_one(c, budget, slots) for c in (chain, chain.variant) if c is not None)
             if s is not None]
    return min(found, key=lambda s: s.flops, default=None)


def _solve_one(chain: Chain, budget: int, slots: int):
    """:func:`solve` for one measurement of the chain."""
    L = chain.length
    positive = chain.bytes[1:][chain.bytes[1:] > 0]
    smallest = float(positive.min()) if positive.size else 1.0
    # A unit dividing the smallest layer exactly makes equal layers count exactly;
    # past ``slots`` of them, coarser units (rounded up) keep the program small.
    unit = max(smallest / max(1, math.floor(slots * smallest / max(budget, 1))), budget / slots)
    top_slot = int(budget // unit)
    size_slots = np.ceil(chain.bytes / unit - 1e-9).astype(int)
    terms = _segment_terms(chain)
    best = np.full((L + 1, top_slot + 1), _INF)
    best[0, 0] = 0.0
    parent = np.full((L + 1, top_slot + 1), -1, dtype=np.int64)
    slot_index = np.arange(top_slot + 1)
    for end in range(1, L + 1):
        memory, flops = _segments_into(chain, terms, end)
        limit = _feasible(memory, budget, top_slot, unit)
        totals = np.where(slot_index[None, :] <= limit[:, None], best[:end] + flops[:, None], _INF)
        choice = totals.argmin(axis=0)
        reached = totals[choice, slot_index]
        if end == L:
            break
        shift = size_slots[end]
        if shift <= top_slot:
            best[end, shift:] = reached[:top_slot + 1 - shift]
            parent[end, shift:] = choice[:top_slot + 1 - shift]
    if not np.isfinite(reached).any():
        return None
    h = int(reached.argmin())
    checkpoints, c = [L], int(choice[h])
    while c > 0:
        checkpoints.append(c)
        c, h = int(parent[c, h]), h - size_slots[c]
    checkpoints.reverse()
    return ChainSolution(chain, checkpoints, int(reached.min()) + chain.again_flops,
                         figure(chain, checkpoints))


def figure(chain: Chain, checkpoints: list) -> int:
    """The stage figure of the schedule keeping ``checkpoints``, as the program counts it (exact bytes).

    Examples
    --------
    >>> c = synthetic(bytes=[8, 8, 8], flops=[5, 5, 5])
    >>> figure(c, [1, 2, 3]), figure(c, [2, 3])
    (24, 16)
    """
    terms = _segment_terms(chain)
    peak, held, below = 0.0, 0.0, 0
    for end in checkpoints:
        memory, _ = _segments_into(chain, terms, end)
        peak = max(peak, held + memory[below])
        held += chain.bytes[end]
        below = end
    return int(peak)


def plan_of(chain: Chain, checkpoints: list) -> dict:
    """``stage -> nodes``: each segment's read layers recomputed in one sweep at its first read.

    Examples
    --------
    >>> c = synthetic(bytes=[1, 1, 1], flops=[1, 1, 1])
    >>> plan_of(c, [3])
    {4: [0, 1]}
    """
    terms = _segment_terms(chain)
    top = terms[4]
    plan, below = {stage: list(nodes) for stage, nodes in chain.again.items()}, 0
    for end in checkpoints:
        d = int(top[end])
        if d > below:
            plan.setdefault(int(chain.sweep[d]), []).extend(chain.spine[l - 1] for l in range(below + 1, d + 1))
        below = end
    return plan


def chen_checkpoints(chain: Chain, size: int) -> list:
    """Chen et al.'s schedule: a checkpoint every ``size`` layers (and the last).

    Examples
    --------
    >>> chen_checkpoints(synthetic([1] * 7, [1] * 7), 3)
    [3, 6, 7]
    """
    return sorted(set(range(size, chain.length, size)) | {chain.length})


def smallest_budget(chain: Chain) -> int:
    """The least stage figure over the schedules the program searches (bisection on the budget).

    Examples
    --------
    >>> smallest_budget(synthetic(bytes=[8, 8, 8], flops=[5, 5, 5]))
    16
    """
    high = figure(chain, list(range(1, chain.length + 1)))
    low = 0
    while high - low > max(1, high // 10**4):
        middle = (low + high) // 2
        if solve(chain, middle) is None:
            low = middle
        else:
            high = middle
    found = solve(chain, high)
    return found.peak if found is not None else high
