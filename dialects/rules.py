"""Rule tables keyed by op name: the one way tensorad registers per-op functions.

Shape rules, lowerings and folds are each a dict from op name to a small
function, filled by a decorator made here.

Examples
--------
>>> TABLE = {}
>>> rule = registrar(TABLE)
>>> @rule("tad.a", "tad.b")
... def _shared(op):
...     return op
>>> sorted(TABLE)
['tad.a', 'tad.b']
"""

from __future__ import annotations

from typing import Callable


def registrar(table: dict) -> Callable[..., Callable[[Callable], Callable]]:
    """Return a decorator factory: ``@register(*op_names)`` stores the function under each name."""

    def register(*names: str) -> Callable[[Callable], Callable]:
        def decorate(fn: Callable) -> Callable:
            for name in names:
                table[name] = fn
            return fn

        return decorate

    return register
