"""Binomial checkpointing (Revolve): the schedule that reverses a loop with few snapshots.

Reversing a loop of ``l`` steps ``x[i + 1] = f(i, x[i])`` needs the states
``x[l - 1], ..., x[0]`` in that order. A full tape stores all ``l`` of them.
Revolve (Griewank 1992; Griewank and Walther, ACM TOMS 26(1), 2000) keeps at
most ``s`` snapshots and recomputes every other state from the nearest
snapshot before it, with the fewest forward steps possible:

    r · l − β(s + 1, r − 1),   β(s, r) = C(s + r, s),

where the repetition number ``r`` is the smallest with β(s, r) ≥ l. The ``s``
snapshots include the one of ``x[0]``.

What counts as a forward step (Griewank's convention, which the formula
counts): one step advanced without recording, ``x[i] -> x[i + 1]`` inside an
``ADVANCE``. Reversing step ``i`` evaluates ``f(i, x[i])`` once more, to
recompute the values its derivative reads, and sweeps it backwards; that
evaluation belongs to the reverse step and is not counted. So a schedule
evaluates ``f`` ``forward_steps(l, s) + l`` times in all; with ``s >= l``
nothing is recomputed: ``l - 1`` forward steps reach ``x[l - 1]``, where
reversal starts.

The schedule is a list of :class:`Action`. It starts with the state at step 0
and ``ADVANCE``/``TAKESHOT`` actions up to step ``l - 1`` (the forward
sweep), then ``FIRST_REVERSE`` of step ``l - 1`` from there; after it, each
``REVERSE`` of step ``i`` (``l - 2`` down to 0) is reached by a ``RESTORE``
of the nearest snapshot and ``ADVANCE``/``TAKESHOT`` actions. Snapshot slots
form a stack: a snapshot is only overwritten once every step after it is
reversed.

Examples
--------
>>> for action in schedule(4, 2):
...     print(action)
takeshot x[0] into slot 0
advance x[0] -> x[2]
takeshot x[2] into slot 1
advance x[2] -> x[3]
first_reverse step 3
restore x[2] from slot 1
reverse step 2
restore x[0] from slot 0
advance x[0] -> x[1]
reverse step 1
restore x[0] from slot 0
reverse step 0
>>> forward_steps(4, 2), griewank_forward_steps(4, 2)
(4, 4)
"""

from __future__ import annotations

import enum
from math import comb
from typing import NamedTuple


class Kind(enum.Enum):
    """What an :class:`Action` does."""

    ADVANCE = 0
    TAKESHOT = 1
    RESTORE = 2
    FIRST_REVERSE = 3
    REVERSE = 4


class Action(NamedTuple):
    """One action of a Revolve schedule.

    Attributes
    ----------
    kind : Kind
        ``ADVANCE``: run steps ``start .. stop - 1`` without recording, from
        ``x[start]`` to ``x[stop]``. ``TAKESHOT``: store ``x[start]`` in
        snapshot ``slot``. ``RESTORE``: make snapshot ``slot`` (``x[start]``)
        the current state. ``FIRST_REVERSE``/``REVERSE``: reverse step
        ``start`` from the current state ``x[start]`` (``stop = start + 1``).
    start, stop : int
        Steps; ``stop == start`` for snapshots.
    slot : int
        Snapshot slot, ``-1`` for the actions without one.

    Examples
    --------
    >>> print(Action(Kind.ADVANCE, 0, 3))
    advance x[0] -> x[3]
    """

    kind: Kind
    start: int
    stop: int
    slot: int = -1

    def __str__(self) -> str:
        name = self.kind.name.lower()
        if self.kind == Kind.ADVANCE:
            return f"{name} x[{self.start}] -> x[{self.stop}]"
        if self.kind == Kind.TAKESHOT:
            return f"{name} x[{self.start}] into slot {self.slot}"
        if self.kind == Kind.RESTORE:
            return f"{name} x[{self.start}] from slot {self.slot}"
        return f"{name} step {self.start}"


def _beta(s: int, r: int) -> int:
    """β(s, r) = C(s + r, s): the most steps ``s`` snapshots reverse with ``r`` repetitions."""
    return comb(s + r, s) if r >= 0 else 0


def _repetitions(steps: int, snapshots: int) -> int:
    """The smallest ``r`` with β(snapshots, r) ≥ steps."""
    r, beta = 0, 1
    while beta < steps:
        r += 1
        beta = beta * (snapshots + r) // r
    return r


def _split(steps: int, snapshots: int) -> int:
    """An optimal first snapshot position for ``steps >= 2`` steps and ``snapshots >= 2``.

    Reversing ``k`` steps with all snapshots after advancing ``k`` and
    reversing the other ``steps - k`` with one snapshot fewer costs the fewest
    forward steps exactly for ``k`` in ``[max(β(s, r - 2), l - β(s - 1, r)),
    min(β(s, r - 1), l - β(s - 1, r - 1))]``; this takes the upper end (the
    longest first advance, so the forward sweep takes the fewest snapshots).
    """
    r = _repetitions(steps, snapshots)
    return min(_beta(snapshots, r - 1), steps - _beta(snapshots - 1, r - 1))


def schedule(steps: int, snapshots: int) -> list:
    """The Revolve actions that reverse ``steps`` steps keeping at most ``snapshots`` snapshots.

    Parameters
    ----------
    steps : int
        Number of loop steps ``l >= 0``.
    snapshots : int
        Number of snapshot slots ``s >= 1`` (the one of ``x[0]`` included);
        slots ``0 .. s - 1`` are used, fewer when fewer are useful.

    Returns
    -------
    list of Action
        Every step is reversed exactly once, in the order ``l - 1, ..., 0``,
        each from the state at that step; ``forward_steps`` counts its
        advances, the fewest possible.

    Examples
    --------
    >>> [str(a) for a in schedule(2, 1)]
    ['takeshot x[0] into slot 0', 'advance x[0] -> x[1]', 'first_reverse step 1', \
'restore x[0] from slot 0', 'reverse step 0']
    """
    if steps < 0 or snapshots < 1:
        raise ValueError(f"Revolve needs steps >= 0 and snapshots >= 1, got {steps} and "
                         f"{snapshots}")
    actions = [Action(Kind.TAKESHOT, 0, 0, 0)] if steps > 1 else []
    # Segments still to reverse: (start, end, snapshots, slot of x[start], restore first).
    # The state at `start` is current (after the restore), and in `slot` when more than
    # one step is left. A stack, not recursion: a segment's left parts nest r deep.
    todo = [(0, steps, snapshots, 0, False)] if steps else []
    while todo:
        start, end, snaps, slot, restore = todo.pop()
        if restore:
            actions.append(Action(Kind.RESTORE, start, start, slot))
        while end - start > 1 and snaps > 1:
            middle = start + _split(end - start, snaps)
            actions.append(Action(Kind.ADVANCE, start, middle))
            if end - middle > 1:  # one step is reversed from the current state: no snapshot
                actions.append(Action(Kind.TAKESHOT, middle, middle, slot + 1))
            todo.append((start, middle, snaps, slot, True))
            start, snaps, slot = middle, snaps - 1, slot + 1
        # One step left, or one snapshot: advance from x[start] to each step in turn.
        for step in reversed(range(start, end)):
            if step < end - 1:
                actions.append(Action(Kind.RESTORE, start, start, slot))
            if step > start:
                actions.append(Action(Kind.ADVANCE, start, step))
            kind = Kind.FIRST_REVERSE if step == steps - 1 else Kind.REVERSE
            actions.append(Action(kind, step, step + 1))
    return actions


def forward_steps(steps: int, snapshots: int) -> int:
    """Forward steps of :func:`schedule` ``(steps, snapshots)``: the steps its advances run.

    Examples
    --------
    >>> forward_steps(10, 3), forward_steps(10, 10)
    (15, 9)
    """
    return sum(a.stop - a.start for a in schedule(steps, snapshots) if a.kind == Kind.ADVANCE)


def griewank_forward_steps(steps: int, snapshots: int) -> int:
    """Griewank's minimal number of forward steps, r · l − β(s + 1, r − 1).

    Examples
    --------
    >>> griewank_forward_steps(1000, 10)  # r = 4 (β(10, 4) = 1001): 4 · 1000 − β(11, 3)
    3636
    """
    r = _repetitions(steps, snapshots)
    return r * steps - _beta(snapshots + 1, r - 1)
