"""``tensorad.tree_util``: pytrees with JAX's names (``jax.tree_util``).

Every transformation (:func:`tensorad.jit`, :func:`tensorad.grad`,
:func:`tensorad.vmap`, ...) takes and returns pytrees: nested tuples, lists,
dicts, namedtuples and ``None``, plus the classes registered here. The
structure of the arguments (a :class:`PyTreeDef`, aux data of registered nodes
included) is part of what a compiled function is cached under.

Examples
--------
>>> import dataclasses, numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> from tensorad import tree_util
>>> @tree_util.register_dataclass
... @dataclasses.dataclass
... class Linear:
...     w: np.ndarray
...     b: np.ndarray
>>> loss = lambda p, x: tnp.sum((x @ p.w + p.b) ** 2)
>>> g = ta.grad(loss)(Linear(np.ones((2, 1)), np.zeros(1)), np.array([[1.0, 2.0]]))
>>> g
Linear(w=array([[ 6.], [12.]]), b=array([6.]))
>>> tree_util.tree_map(lambda p, d: p - 0.1 * d, Linear(np.ones((2, 1)), np.zeros(1)), g).b
array([-0.6])
"""

from __future__ import annotations

from typing import Any, Callable

from .tree import (TreeDef, flatten as tree_flatten, register_dataclass, register_pytree_node,
                   register_pytree_node_class, tree_map, unflatten as tree_unflatten)

__all__ = ["PyTreeDef", "register_dataclass", "register_pytree_node", "register_pytree_node_class",
           "tree_flatten", "tree_leaves", "tree_map", "tree_structure", "tree_unflatten"]

#: The structure of a pytree, as JAX names it.
PyTreeDef = TreeDef


def tree_leaves(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of ``tree``, dict entries in sorted key order.

    Examples
    --------
    >>> tree_leaves({"b": [1, None], "a": (2,)})
    [2, 1]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_structure(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> PyTreeDef:
    """The structure of ``tree``, its leaves left out.

    Examples
    --------
    >>> tree_structure((1, {"a": None}))
    PyTreeDef((*, {'a': None}))
    """
    return tree_flatten(tree, is_leaf)[1]
