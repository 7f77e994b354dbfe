"""Pytrees: nested tuples, lists, dicts (and ``None``) of arrays.

Examples
--------
>>> leaves, treedef = flatten({"b": (1, 2), "a": [3]})
>>> leaves
[3, 1, 2]
>>> unflatten(treedef, [30, 10, 20])
{'a': [30], 'b': (10, 20)}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class TreeDef:
    """The structure of a pytree with its leaves left out (hashable, so it can key caches)."""

    kind: str  # "leaf", "none", "tuple", "list", "dict" or "namedtuple"
    children: tuple = ()
    meta: Any = None  # dict keys, or the namedtuple class

    @property
    def num_leaves(self) -> int:
        """Number of leaves the structure holds."""
        if self.kind == "leaf":
            return 1
        return sum(child.num_leaves for child in self.children)


_LEAF = TreeDef("leaf")
_NONE = TreeDef("none")


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, TreeDef]:
    """Return the leaves of ``tree`` in order and its structure.

    Dict entries are visited in sorted key order, as in JAX.

    Examples
    --------
    >>> flatten([1, (2, None)])[0]
    [1, 2]
    """
    leaves: list = []

    def walk(node) -> TreeDef:
        if is_leaf is not None and is_leaf(node):
            leaves.append(node)
            return _LEAF
        if node is None:
            return _NONE
        if isinstance(node, tuple) and hasattr(node, "_fields"):
            return TreeDef("namedtuple", tuple(walk(c) for c in node), type(node))
        if isinstance(node, (tuple, list)):
            return TreeDef(type(node).__name__, tuple(walk(c) for c in node))
        if isinstance(node, dict):
            keys = tuple(sorted(node))
            return TreeDef("dict", tuple(walk(node[k]) for k in keys), keys)
        leaves.append(node)
        return _LEAF

    treedef = walk(tree)
    return leaves, treedef


def unflatten(treedef: TreeDef, leaves) -> Any:
    """Rebuild a pytree of structure ``treedef`` from ``leaves``.

    Examples
    --------
    >>> _, t = flatten((1, {"x": 2}))
    >>> unflatten(t, ["a", "b"])
    ('a', {'x': 'b'})
    """
    it = iter(leaves)

    def build(node: TreeDef):
        if node.kind == "leaf":
            return next(it)
        if node.kind == "none":
            return None
        children = [build(c) for c in node.children]
        if node.kind == "tuple":
            return tuple(children)
        if node.kind == "list":
            return children
        if node.kind == "namedtuple":
            return node.meta(*children)
        return dict(zip(node.meta, children))

    try:
        return build(treedef)
    finally:
        # build refers to itself: without this the cycle would keep ``leaves``
        # (arrays and the buffers they own) alive until the garbage collector runs.
        del build


def tree_map(fn: Callable, tree: Any, *rest: Any) -> Any:
    """Apply ``fn`` to every leaf (and the matching leaves of ``rest``).

    Examples
    --------
    >>> tree_map(lambda a, b: a + b, (1, [2]), (10, [20]))
    (11, [22])
    """
    leaves, treedef = flatten(tree)
    others = [flatten(r)[0] for r in rest]
    return unflatten(treedef, [fn(*xs) for xs in zip(leaves, *others)])
