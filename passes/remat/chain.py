"""The chain tier: optimal multi-level checkpointing of sequential chains with heterogeneous layers.

A *chain* is a forward sweep whose every value ``v_l`` reads only ``v_{l-1}``
(and input-less nodes: constants, values made from arguments alone), followed
by a tail (the backward sweep) that reads the chain's values in reverse
order, each in its own stretch of stages: the forward of a deep MLP and its
backward. :func:`find` recognises one in a :class:`~.graph.Graph`.

The schedules searched are the multi-level (recursive) ones of Beaumont,
Eyraud-Dubois, Herrmann, Joly and Shilova ("Optimal checkpointing for
heterogeneous chains", 2019), the dynamic program behind ``rotor``: the
forward keeps some values (checkpoints); before the tail first reads a value
``v_i`` that is not kept, a sweep recomputes it from the highest checkpoint
``v_a`` below, and that sweep may itself keep values on the way, new
checkpoints that later sweeps start from. Every sweep serving ``v_i`` runs at
one stage (the one between the reads of the layer above and ``v_i``'s with
the fewest other bytes live); a checkpoint is freed after the last sweep
that starts from it or the tail's last read of it, whichever is later.

Memory is :func:`.cost.simulate`'s count, op by op: with ``H`` the bytes of
the checkpoints held, a recomputed layer costs ``H``, the bytes of the tail
live across its stage, its input, itself and its scratch bytes; a stage of
the tail costs ``H``, what it has live (its scratch bytes too), and the chain
value it reads. The recursion:

``Opt(a, i, H)``: least recompute to serve the tail's reads of the layers in
``(a, i]`` with ``v_a`` held (in ``H``) and ``v_i`` the next value read, is
the least over ``k`` in ``(a, i]`` of: the sweep ``a -> k`` (FLOPs of layers
``a+1..k``), then ``Opt(k, i, H + |v_k|)`` if ``k < i``, then ``v_k``'s reads if
the tail reads it, then ``Opt(a, j, H')`` for the next read layer ``j`` below
``k`` (``H'`` less ``|v_a|`` when that sweep was ``v_a``'s last use). The
forward is the same recursion from the arguments, at no cost. ``H`` is
counted in slots of bytes rounded up (so the count is never under-estimated,
and exact when the layers' bytes are multiples of the slot). The program is
exact for its class of schedules; each ``(a, i)`` step is vectorised over
``k`` and ``H`` with numpy, ``O(L · R · L · slots)`` for ``L`` layers of which
``R`` are read. Longer chains use the single-level class (Chen's schedules
with segments of any length: a sweep keeps only the value read), whose
recompute costs do not depend on ``H``: ``O(L^2 · slots)``, 1,000 layers in
about a second. The pass checks every plan with :func:`.cost.simulate`.

Examples
--------
>>> c = synthetic(bytes=[8, 8, 8], flops=[5, 5, 5])
>>> solve(c, 24).flops, solve(c, 24).plan()
(0, {})
>>> solve(c, 16).flops, solve(c, 16).plan()
(5, {5: [0]})
>>> solve(c, 15) is None
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Slots the held-checkpoint bytes are counted in: finer costs time, coarser
# rounds memory up more (never down, so plans stay within the budget).
SLOTS = 256
# Above this many (a, i, k, slot) cells the multi-level program is too slow
# for a compiler pass (a second or more): the single-level one runs instead.
MULTI_LEVEL_CELLS = 4 * 10**7
_INF = np.inf


@dataclass
class Chain:
    """A chain found in a graph, as arrays indexed by layer ``1..L`` (index 0: the arguments).

    "Everything else" is every value outside the chain (the tail's own).

    Attributes
    ----------
    spine : list of int
        Graph nodes of layers ``1..L`` in order.
    bytes, flops : numpy.ndarray
        Per layer (``[0]`` is 0).
    scratch : numpy.ndarray
        Bytes of each layer's temporaries, live while it runs (``[0]`` is 0).
    first_read, last_read : numpy.ndarray
        Stages at which the tail first and last reads each layer's value (-1: never).
    fwd_at : numpy.ndarray
        Bytes of everything else live while the forward computes layer ``l``.
    fwd_before : numpy.ndarray
        Most bytes of everything else over the stages between layers ``l - 1`` and ``l``.
    sweep : numpy.ndarray
        For a layer the tail reads, the stage before which the sweeps that
        recompute it run (-1 for the others); for layer ``L``, the tail's first stage.
    sweep_bg : numpy.ndarray
        Bytes of everything else live across that stage's start.
    window : numpy.ndarray
        For a layer the tail reads: most bytes of everything else, plus the
        layer's own while it is live, over the stages from its sweep stage to
        the next read layer's (the last one: to the end).
    """

    spine: list
    bytes: np.ndarray
    flops: np.ndarray
    first_read: np.ndarray
    last_read: np.ndarray
    fwd_at: np.ndarray
    fwd_before: np.ndarray
    sweep: np.ndarray
    sweep_bg: np.ndarray
    window: np.ndarray
    scratch: np.ndarray = None

    def __post_init__(self):
        if self.scratch is None:
            self.scratch = np.zeros_like(self.bytes)

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
    sweeps : list of (int, int, int)
        ``(stage, a, k)``: before graph node ``stage`` the layers ``a+1..k``
        are recomputed from ``v_a``.
    flops : int
        Recomputed FLOPs.
    multi_level : bool
        Whether the multi-level program found it (else the single-level one).
    """

    chain: Chain
    sweeps: list
    flops: int
    multi_level: bool = True

    def plan(self) -> dict:
        """The schedule as ``stage -> graph nodes`` to recompute (see :mod:`.cost`)."""
        plan: dict = {}
        for stage, a, k in self.sweeps:
            plan.setdefault(int(stage), []).extend(self.chain.spine[l - 1] for l in range(a + 1, k + 1))
        return {stage: sorted(nodes) for stage, nodes in sorted(plan.items())}


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
    return Chain(list(range(L)), size, np.r_[0, np.asarray(flops, dtype=np.int64)], first, first.copy(),
                 zero, zero.copy(), first.copy(), zero.copy(), size.astype(float))


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
    >>> found.length, found.spine  # a contraction and a tanh per layer, the last tanh fused into the backward
    (5, [0, 1, 2, 3, 4])
    """
    if graph.regions or not graph.nodes:
        return None
    users, n = graph.users(), len(graph.nodes)
    spine = _spine(graph, users)
    while len(spine) >= 2:
        first, last = _reads(graph, users, spine, n)
        before = set(range(spine[-1] + 1)) - set(spine)
        if all(not graph.nodes[i].inputs for i in before) and _reversed_reads(first, last):
            return _measure(graph, users, spine, first, last)
        spine = spine[:-1]
    return None


def _background(graph, users, spine: list):
    """Bytes of the values outside the chain live while each stage runs, and across its start.

    A value the chain reads may be read again by any recomputation, so it is
    live from its stage to the end.
    """
    n, inside = len(graph.nodes), set(spine)
    read_by_chain = {p for i in spine for p in graph.nodes[i].inputs}
    during = np.zeros(n + 2, dtype=np.int64)
    across = np.zeros(n + 2, dtype=np.int64)
    for i, node in enumerate(graph.nodes):
        if i in inside:
            continue
        during[i] += node.scratch
        during[i + 1] -= node.scratch
        if not node.bytes:
            continue
        end = n if i in graph.outputs or i in read_by_chain else max(users[i], default=i)
        during[i] += node.bytes
        during[end + 1] -= node.bytes
        across[i + 1] += node.bytes
        across[end + 1] -= node.bytes
    return np.cumsum(during)[:n + 1], np.cumsum(across)[:n + 1]


def _measure(graph, users, spine, first, last) -> Chain:
    n, L = len(graph.nodes), len(spine)
    during, across = _background(graph, users, spine)
    size = np.array([0] + [graph.nodes[i].bytes for i in spine], dtype=np.int64)
    flops = np.array([0] + [graph.nodes[i].flops for i in spine], dtype=np.int64)
    scratch = np.array([0] + [graph.nodes[i].scratch for i in spine], dtype=np.int64)
    fwd_at, fwd_before = np.zeros(L + 1), np.zeros(L + 1)
    for l in range(1, L + 1):
        fwd_at[l] = during[spine[l - 1]]
        fwd_before[l] = during[(spine[l - 2] + 1 if l > 1 else 0):spine[l - 1]].max(initial=0)
    sweep, sweep_bg, window = np.full(L + 1, -1), np.zeros(L + 1), np.zeros(L + 1)
    read = [l for l in range(L, 0, -1) if first[l] >= 0]
    pair = (np.r_[size[:1], size[:-1] + size[1:]] if L else size) + scratch
    sweep[read[0]] = spine[-1] + 1
    # A lower layer is recomputed at the stage between the reads of the one above and
    # its own where the sweep from the arguments and the wait for the read cost least.
    for above, l in zip(read, read[1:]):
        stages = np.arange(last[above] + 1, first[l] + 1)
        waits = np.maximum.accumulate(during[stages][::-1])[::-1]  # most bytes from there to the read
        cost = np.maximum(across[stages] + pair[1:l + 1].max(), waits + size[l])
        sweep[l] = stages[len(stages) - 1 - int(cost[::-1].argmin())]
    ends = [sweep[l] for l in read[1:]] + [n]
    for l, end in zip(read, ends):
        stages = np.arange(sweep[l], end)
        window[l] = (during[stages] + size[l] * (stages <= last[l])).max(initial=0)
        sweep_bg[l] = across[sweep[l]]
    return Chain(spine, size, flops, first, last, fwd_at, fwd_before, sweep, sweep_bg, window, scratch)


# ---- the dynamic programs ----------------------------------------------------------------


class _Terms:
    """What both programs read, for one chain and one budget: slots, reads and memory terms."""

    def __init__(self, chain: Chain, budget: int, slots: int):
        self.chain, self.budget, L = chain, float(budget), chain.length
        b = chain.bytes.astype(float)
        positive = b[1:][b[1:] > 0]
        smallest = float(positive.min()) if positive.size else 1.0
        # A unit dividing the smallest layer exactly makes equal layers count exactly;
        # past ``slots`` of them, coarser units (rounded up) keep the program small.
        self.unit = max(smallest / max(1, math.floor(slots * smallest / max(budget, 1))), budget / slots)
        self.top = int(budget // self.unit)
        self.size = np.ceil(b / self.unit - 1e-9).astype(np.int64)
        self.b = b
        self.read = chain.read.copy()
        self.reads = [l for l in range(1, L + 1) if self.read[l]]
        self.index = np.full(L + 1, -1, dtype=np.int64)  # row of each read layer in the tables
        self.index[self.reads] = np.arange(len(self.reads))
        below, last = np.zeros(L + 2, dtype=np.int64), 0
        for l in range(1, L + 2):
            below[l] = last  # the highest read layer < l (0: none)
            if l <= L and self.read[l]:
                last = l
        self.below = below
        self.fcum = np.cumsum(chain.flops).astype(float)
        # Memory of recomputing layer p from p - 1 (held when p - 1 is the sweep's start):
        scratch = chain.scratch.astype(float)
        self.start = b + scratch  # ... of the sweep's first layer, whose input is held
        self.pair = np.r_[b[:1], b[:-1] + b[1:]] + scratch
        # ... and of the forward computing it.
        self.fwd_first = np.maximum(chain.fwd_before, chain.fwd_at + self.start)
        self.fwd_pair = self.fwd_first + np.r_[0.0, b[:-1]]
        self.slots = np.arange(self.top + 1)

    def held(self, slots) -> np.ndarray:
        """Bytes (an upper bound) of ``slots`` held."""
        return slots * self.unit

    def dead(self, a: int, ks: np.ndarray) -> np.ndarray:
        """Whether the sweep ``a -> k`` is ``v_a``'s last use (then it is freed once layer ``a+1`` read it)."""
        return (not self.read[a]) & (self.below[ks] <= a) & (a > 0)

    def step(self, a: int, ks: np.ndarray, first: float, rest: np.ndarray):
        """``(ok, hp)`` for sweeps ``a -> k``: whether they fit with each number of held slots, and the slots after.

        ``first``: bytes besides the held ones while layer ``a+1`` runs; ``rest[k]``:
        most bytes besides the held ones while layers ``a+2..k`` run.
        """
        h = self.slots[None, :]
        hp = h - self.dead(a, ks)[:, None] * self.size[a]
        ok = (first + self.held(h) <= self.budget) & (rest[:, None] + self.held(hp) <= self.budget) & (hp >= 0)
        windows = np.where(self.read[ks], self.chain.window[ks], -_INF)
        ok &= windows[:, None] + self.held(hp) <= self.budget
        return ok, np.maximum(hp, 0)

    def running_max(self, values: np.ndarray, a: int, top: int) -> np.ndarray:
        """``out[k - a - 1] = max(values[a+2..k])`` for ``k`` in ``a+1..top`` (-inf for ``k = a+1``)."""
        return np.maximum.accumulate(np.r_[-_INF, values[a + 2:top + 1]])


def _gather(table: np.ndarray, slots: np.ndarray, top: int) -> np.ndarray:
    """``table[k, slots[k, h]]`` (inf past the last slot)."""
    picked = table[np.arange(table.shape[0])[:, None], np.minimum(slots, top)]
    return np.where(slots <= top, picked, _INF)


def _multi_level(terms: _Terms):
    """``Opt(a, i, h)`` for every ``a < i`` (read ``i < L``) and held slots ``h``, and the choices of ``k``."""
    L, chain, top = terms.chain.length, terms.chain, terms.top
    m = len(terms.reads)
    opt = np.full((L + 1, m, top + 1), _INF)
    choice = np.zeros((L + 1, m, top + 1), dtype=np.int32)
    for a in range(L - 1, -1, -1):
        for i in terms.reads:
            if i <= a or i == L:
                continue
            ks = np.arange(a + 1, i + 1)
            rest = terms.running_max(terms.pair, a, i)
            ok, hp = terms.step(a, ks, chain.sweep_bg[i] + terms.start[a + 1], chain.sweep_bg[i] + rest)
            total = (terms.fcum[ks] - terms.fcum[a])[:, None] + _next(terms, opt, a, ks, hp)
            deeper = ks < i
            if deeper.any():
                inner = opt[ks[deeper], terms.index[i]]
                total[deeper] += _gather(inner, hp[deeper] + terms.size[ks[deeper]][:, None], top)
            total = np.where(ok, total, _INF)
            best = total.argmin(axis=0)
            opt[a, terms.index[i]] = total[best, terms.slots]
            choice[a, terms.index[i]] = ks[best]
    return opt, choice


def _single_level(terms: _Terms):
    """``Opt(a, i, h)`` of the single-level class, as ``(cost[a, i], most slots[a, i])`` (a table of thresholds).

    Each read layer in ``(a, i]`` is recomputed from ``v_a`` keeping nothing
    else, so the cost does not depend on the slots held, only whether it fits.
    """
    L, chain, m = terms.chain.length, terms.chain, len(terms.reads)
    cost = np.full((L + 1, m), _INF)
    limit = np.full((L + 1, m), -1, dtype=np.int64)
    a = np.arange(L + 1)
    start = terms.start[np.minimum(a + 1, L)]
    rest = np.full(L + 1, -_INF)  # rest[a]: most pair bytes over layers a+2..l

    def room(used):
        return np.floor((terms.budget - used) / terms.unit + 1e-9)

    for l in range(1, L):
        if l >= 2:
            rest[:l - 1] = np.maximum(rest[:l - 1], terms.pair[l])
        if not terms.read[l]:
            continue
        # With v_a's last use (l the lowest read above a), v_a leaves after layer a+1.
        dead = (~terms.read[a]) & (terms.below[l] <= a) & (a > 0)
        fits = np.minimum(room(chain.sweep_bg[l] + start),
                          np.minimum(room(chain.sweep_bg[l] + rest), room(chain.window[l])) + dead * terms.size[a])
        j = terms.below[l]
        lower = a < j
        if j:
            fits = np.where(lower, np.minimum(fits, limit[:, terms.index[j]]), fits)
        here = terms.index[l]
        cost[:, here] = np.where(a < l, terms.fcum[l] - terms.fcum + np.where(lower, cost[:, terms.index[j]], 0), _INF)
        limit[:, here] = np.where(a < l, np.minimum(fits, terms.top), -1)
    return cost, limit


def _next(terms: _Terms, opt, a: int, ks: np.ndarray, hp: np.ndarray) -> np.ndarray:
    """Cost of the reads below each ``k`` (``Opt(a, j, hp)``, ``j`` the read layer below ``k``; 0 if none above ``a``)."""
    j = terms.below[ks]
    total = np.zeros(hp.shape)
    lower = j > a
    if lower.any():
        if isinstance(opt, tuple):  # the single-level thresholds
            cost, limit = opt
            rows = terms.index[j[lower]]
            total[lower] = np.where(hp[lower] <= limit[a, rows][:, None], cost[a, rows][:, None], _INF)
        else:
            total[lower] = opt[a, terms.index[j[lower]]][np.arange(lower.sum())[:, None], hp[lower]]
    return total


def _forward(terms: _Terms, opt):
    """``Fwd(a, h)``: least recompute once the forward has reached ``v_a`` holding ``h`` slots, and the choices."""
    L, top = terms.chain.length, terms.top
    fwd = np.full((L + 1, top + 1), _INF)
    choice = np.zeros((L + 1, top + 1), dtype=np.int32)
    for a in range(L - 1, -1, -1):
        ks = np.arange(a + 1, L + 1)
        rest = terms.running_max(terms.fwd_pair, a, L)
        ok, hp = terms.step(a, ks, terms.fwd_first[a + 1], rest)
        total = _next(terms, opt, a, ks, hp)
        deeper = ks < L
        total[deeper] += _gather(fwd[ks[deeper]], hp[deeper] + terms.size[ks[deeper]][:, None], top)
        total = np.where(ok, total, _INF)
        best = total.argmin(axis=0)
        fwd[a] = total[best, terms.slots]
        choice[a] = ks[best]
    return fwd, choice


def _sweeps(terms: _Terms, opt, choices, fwd_choice) -> list:
    """The sweeps of the best schedule: ``(stage, a, k)``."""
    sweeps, todo = [], [("fwd", 0, terms.chain.length, 0)]
    while todo:
        kind, a, i, h = todo.pop()
        k = int(fwd_choice[a, h]) if kind == "fwd" else \
            int(choices[a, terms.index[i], h]) if choices is not None else i
        hp = h - int(terms.dead(a, np.array([k]))[0]) * int(terms.size[a])
        if kind == "opt":
            sweeps.append((int(terms.chain.sweep[i]), a, k))
        j = int(terms.below[k])
        if j > a:
            todo.append(("opt", a, j, hp))
        if k < i:
            todo.append((kind, k, i, hp + int(terms.size[k])))
    return sweeps


def solve(chain: Chain, budget: int, slots: int = SLOTS, multi_level: bool | None = None):
    """The least-recompute schedule of ``chain`` whose peak live bytes fit ``budget``.

    ``multi_level`` picks the class (default: multi-level unless the chain
    is too long for it, :func:`multi_level_fits`). Returns a
    :class:`ChainSolution`, or None when no schedule of the class fits.

    Examples
    --------
    >>> c = synthetic(bytes=[4, 4, 4], flops=[3, 3, 3])
    >>> solve(c, 12).flops, solve(c, 8).flops, solve(c, 7)
    (0, 3, None)
    """
    if multi_level is None:
        multi_level = multi_level_fits(chain, slots)
    terms = _Terms(chain, budget, slots if multi_level else min(slots, _long_chain_slots(chain.length)))
    if multi_level:
        opt, choices = _multi_level(terms)
    else:
        opt, choices = _single_level(terms), None
    fwd, fwd_choice = _forward(terms, opt)
    if not np.isfinite(fwd[0, 0]):
        return None
    sweeps = _sweeps(terms, opt, choices, fwd_choice)
    return ChainSolution(chain, sorted(sweeps), int(fwd[0, 0]), multi_level)


def multi_level_fits(chain: Chain, slots: int = SLOTS) -> bool:
    """Whether the multi-level program is small enough for ``chain`` (:data:`MULTI_LEVEL_CELLS`).

    Examples
    --------
    >>> multi_level_fits(synthetic([1] * 50, [1] * 50)), multi_level_fits(synthetic([1] * 500, [1] * 500))
    (True, False)
    """
    reads = np.flatnonzero(chain.read).astype(float)
    return float(np.sum(reads ** 2)) / 2 * (slots + 1) <= MULTI_LEVEL_CELLS


def _long_chain_slots(length: int) -> int:
    """Slots for the single-level program on ``length`` layers: fewer on long chains, to bound its ``L^2 · slots`` cells."""
    return max(16, int(MULTI_LEVEL_CELLS // max(1, length) ** 2))


def single_level_plan(chain: Chain, checkpoints: list) -> dict:
    """``stage -> nodes`` of the single-level schedule keeping ``checkpoints``: each read layer from the one below.

    Examples
    --------
    >>> c = synthetic(bytes=[1, 1, 1], flops=[1, 1, 1])
    >>> single_level_plan(c, [3])
    {4: [0, 1], 5: [0]}
    """
    kept, sweeps = sorted(set(checkpoints) | {chain.length}), []
    for i in range(1, chain.length):
        if chain.read[i] and i not in kept:
            a = max([c for c in kept if c < i], default=0)
            sweeps.append((int(chain.sweep[i]), a, i))
    return ChainSolution(chain, sweeps, 0).plan()


def chen_checkpoints(chain: Chain, size: int) -> list:
    """Chen et al.'s schedule: a checkpoint every ``size`` layers (and the last).

    Examples
    --------
    >>> chen_checkpoints(synthetic([1] * 7, [1] * 7), 3)
    [3, 6, 7]
    """
    return sorted(set(range(size, chain.length, size)) | {chain.length})


def smallest_budget(chain: Chain, multi_level: bool | None = None, progress=None) -> int:
    """The least budget the program accepts (bisection on the budget, to the byte).

    ``progress``, if given, is called with a line of text at each step.

    Examples
    --------
    >>> smallest_budget(synthetic(bytes=[8, 8, 8], flops=[5, 5, 5]))
    16
    """
    high = int(chain.bytes.sum() + max(chain.window.max(), chain.fwd_at.max(), chain.sweep_bg.max()))
    low = 0
    while solve(chain, high, multi_level=multi_level) is None:
        low, high = high, 2 * high
    while high - low > 1:
        if progress is not None:
            progress(f"chain tier: the smallest budget is in ({low}, {high}] bytes")
        middle = (low + high) // 2
        if solve(chain, middle, multi_level=multi_level) is None:
            low = middle
        else:
            high = middle
    return high
