"""Pytrees: nested containers of arrays, with a registry of the container types.

A pytree node is a value whose type is in the registry: ``tuple``, ``list``,
``dict``, ``collections.OrderedDict``, ``collections.defaultdict``, ``None``,
every namedtuple class, and the classes users register with
:func:`register_pytree_node`, :func:`register_pytree_node_class` or
:func:`register_dataclass`. Anything else is a leaf. Types are looked up
exactly, as in JAX: a subclass of a registered class is a leaf until it is
registered itself. :mod:`tensorad.tree_util` is the public face of this module,
with JAX's names.

Examples
--------
>>> leaves, treedef = flatten({"b": (1, 2), "a": [3]})
>>> leaves
[3, 1, 2]
>>> treedef
PyTreeDef({'a': [*], 'b': (*, *)})
>>> unflatten(treedef, [30, 10, 20])
{'a': [30], 'b': (10, 20)}
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any, Callable, Iterable


class _NodeType:
    """One entry of the registry: how to take a node apart, put it together and print its structure."""

    __slots__ = ("name", "flatten", "unflatten", "show", "custom")

    def __init__(self, name: str, flatten: Callable, unflatten: Callable, show: Callable, custom: bool = False):
        self.name = name
        self.flatten = flatten  # node -> (children, aux_data)
        self.unflatten = unflatten  # (aux_data, list of children) -> node
        self.show = show  # (aux_data, list of the children's strings) -> str
        self.custom = custom  # registered by a user: its aux data is compared with types, see _typed


def _typed(value):
    """A comparison key for a user's aux data that tells ``1`` from ``1.0`` and ``True``.

    They hash and compare alike but trace differently, so a static field holding
    one must not reuse the code compiled for another.
    """
    if type(value) is tuple:
        return tuple, tuple(_typed(v) for v in value)
    return type(value), value


class TreeDef:
    """The structure of a pytree with its leaves left out.

    Hashable and compared by structure (node types, dict keys, aux data), so it
    keys compile caches.

    Examples
    --------
    >>> treedef = flatten((1, {"a": 2}))[1]
    >>> treedef, treedef.num_leaves, treedef.num_nodes
    (PyTreeDef((*, {'a': *})), 2, 4)
    >>> treedef == flatten((5, {"a": 6}))[1], treedef == flatten((5, {"b": 6}))[1]
    (True, False)
    """

    __slots__ = ("_node", "_aux", "_key", "_children", "_num_leaves", "_hash")

    def __init__(self, node: _NodeType | None, aux: Any = None, children: tuple = ()):
        self._node, self._aux, self._children = node, aux, children
        self._key = _typed(aux) if node is not None and node.custom else aux
        self._num_leaves = 1 if node is None else sum(child._num_leaves for child in children)
        try:
            self._hash = hash((node, self._key, children))
        except TypeError:
            raise TypeError(f"the aux data of a {node.name} pytree node must be hashable (it is part of the "
                            f"tree structure, which keys compile caches), got {aux!r}") from None

    @property
    def num_leaves(self) -> int:
        """Number of leaves the structure holds."""
        return self._num_leaves

    @property
    def num_nodes(self) -> int:
        """Number of nodes, leaves included (as in JAX, ``None`` is a node without leaves)."""
        return 1 + sum(child.num_nodes for child in self._children)

    def children(self) -> list:
        """The structures of the root's children.

        Examples
        --------
        >>> flatten(([1, 2], 3))[1].children()
        [PyTreeDef([*, *]), PyTreeDef(*)]
        """
        return list(self._children)

    def unflatten(self, leaves: Iterable) -> Any:
        """Rebuild a pytree of this structure from ``leaves``; see :func:`unflatten`.

        Examples
        --------
        >>> flatten([1, None, (2,)])[1].unflatten("ab")
        ['a', None, ('b',)]
        """
        return unflatten(self, leaves)

    def flatten_up_to(self, tree: Any) -> list:
        """The subtrees of ``tree`` at this structure's leaves.

        ``tree`` must have this structure down to those leaves; each may be any
        pytree. A mismatch is a ValueError.

        Examples
        --------
        >>> flatten((1, {"a": 2}))[1].flatten_up_to(([1, 2], {"a": (3,)}))
        [[1, 2], (3,)]
        """
        subtrees: list = []
        _flatten_up_to(self, tree, subtrees, self)
        return subtrees

    def __eq__(self, other) -> bool:
        if self is other:
            return True
        if not isinstance(other, TreeDef):
            return NotImplemented
        return (self._hash == other._hash and self._node is other._node and self._key == other._key
                and self._children == other._children)

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"PyTreeDef({self._show()})"

    def _show(self) -> str:
        if self._node is None:
            return "*"
        return self._node.show(self._aux, [child._show() for child in self._children])


#: The structure of a single leaf.
LEAF = TreeDef(None)


def _show_dict(keys, children: list) -> str:
    return "{" + ", ".join(f"{key!r}: {child}" for key, child in zip(keys, children)) + "}"


def _sorted_keys(node: dict) -> tuple:
    try:
        return tuple(sorted(node))
    except TypeError:
        raise TypeError(f"the keys of a dict in a pytree must be sortable (leaves come in key order), "
                        f"got {list(node)}") from None


def _flatten_dict(node: dict):
    keys = _sorted_keys(node)
    return [node[key] for key in keys], keys


def _flatten_defaultdict(node: collections.defaultdict):
    keys = _sorted_keys(node)
    return [node[key] for key in keys], (node.default_factory, keys)


_REGISTRY: dict[type, _NodeType] = {
    tuple: _NodeType("tuple", lambda node: (node, None), lambda _, children: tuple(children),
                     lambda _, children: "(" + ", ".join(children) + ("," if len(children) == 1 else "") + ")"),
    list: _NodeType("list", lambda node: (node, None), lambda _, children: children,
                    lambda _, children: "[" + ", ".join(children) + "]"),
    dict: _NodeType("dict", _flatten_dict, lambda keys, children: dict(zip(keys, children)), _show_dict),
    type(None): _NodeType("None", lambda node: ((), None), lambda _, children: None, lambda _, children: "None"),
    collections.OrderedDict: _NodeType(
        "OrderedDict", lambda node: (list(node.values()), tuple(node)),
        lambda keys, children: collections.OrderedDict(zip(keys, children)),
        lambda keys, children: f"OrderedDict({_show_dict(keys, children)})"),
    collections.defaultdict: _NodeType(
        "defaultdict", _flatten_defaultdict,
        lambda aux, children: collections.defaultdict(aux[0], zip(aux[1], children)),
        lambda aux, children: f"defaultdict({aux[0]!r}, {_show_dict(aux[1], children)})"),
}

# Every namedtuple class, unless registered itself; the aux data is the class.
_NAMEDTUPLE = _NodeType(
    "namedtuple", lambda node: (node, type(node)), lambda cls, children: cls(*children),
    lambda cls, children: f"{cls.__name__}(" + ", ".join(f"{f}={c}" for f, c in zip(cls._fields, children)) + ")")


def _node_type(node: Any) -> _NodeType | None:
    """The registry entry of ``node``'s type, or None for a leaf."""
    entry = _REGISTRY.get(type(node))
    if entry is None and isinstance(node, tuple) and hasattr(node, "_fields"):
        return _NAMEDTUPLE
    return entry


def _walk(node: Any, leaves: list, is_leaf: Callable | None) -> TreeDef:
    if is_leaf is not None and is_leaf(node):
        leaves.append(node)
        return LEAF
    entry = _node_type(node)
    if entry is None:
        leaves.append(node)
        return LEAF
    children, aux = entry.flatten(node)
    return TreeDef(entry, aux, tuple([_walk(child, leaves, is_leaf) for child in children]))


def flatten(tree: Any, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, TreeDef]:
    """Return the leaves of ``tree`` in order and its structure.

    Dict entries are visited in sorted key order, as in JAX. ``None`` is a node
    without children, so it holds no leaf.

    Parameters
    ----------
    tree : pytree
    is_leaf : callable, optional
        Called on every node first; where it returns True the node is a leaf
        (``is_leaf=lambda x: x is None`` makes ``None`` a leaf).

    Examples
    --------
    >>> flatten([1, (2, None)])[0]
    [1, 2]
    >>> flatten([1, (2, None)], is_leaf=lambda x: x is None or isinstance(x, tuple))[0]
    [1, (2, None)]
    """
    leaves: list = []
    return leaves, _walk(tree, leaves, is_leaf)


def _build(treedef: TreeDef, leaves):
    # A module-level function taking the iterator, not a closure: a closure that
    # calls itself is a reference cycle that would keep the leaves (arrays and the
    # buffers they own) alive until the garbage collector runs.
    if treedef._node is None:
        return next(leaves)
    return treedef._node.unflatten(treedef._aux, [_build(child, leaves) for child in treedef._children])


def unflatten(treedef: TreeDef, leaves: Iterable) -> Any:
    """Rebuild a pytree of structure ``treedef`` from ``leaves``.

    Examples
    --------
    >>> _, t = flatten((1, {"x": 2}))
    >>> unflatten(t, ["a", "b"])
    ('a', {'x': 'b'})
    """
    if not isinstance(treedef, TreeDef):
        raise TypeError(f"unflatten expects a TreeDef (from flatten), got {type(treedef).__name__}")
    leaves = leaves if isinstance(leaves, (list, tuple)) else list(leaves)
    if len(leaves) != treedef._num_leaves:
        raise ValueError(f"{treedef} takes {treedef._num_leaves} leaves, got {len(leaves)}")
    return _build(treedef, iter(leaves))


def _flatten_up_to(treedef: TreeDef, node: Any, subtrees: list, whole: TreeDef) -> None:
    if treedef._node is None:
        subtrees.append(node)
        return
    entry = _node_type(node)
    if entry is treedef._node:
        children, aux = entry.flatten(node)
        children = list(children)
        if (_typed(aux) if entry.custom else aux) == treedef._key and len(children) == len(treedef._children):
            for child_def, child in zip(treedef._children, children):
                _flatten_up_to(child_def, child, subtrees, whole)
            return
    found = repr(node)
    found = found if len(found) <= 80 else found[:77] + "..."
    raise ValueError(f"pytree structure mismatch: expected {treedef._show()} (within {whole}), "
                     f"got {type(node).__name__} {found}")


def tree_map(fn: Callable, tree: Any, *rest: Any, is_leaf: Callable[[Any], bool] | None = None) -> Any:
    """Apply ``fn`` to every leaf (and the matching subtrees of ``rest``).

    Each tree of ``rest`` must have the structure of ``tree`` down to its leaves
    (a ValueError otherwise); ``fn`` gets the subtrees found there.

    Examples
    --------
    >>> tree_map(lambda a, b: a + b, (1, [2]), (10, [20]))
    (11, [22])
    >>> tree_map(lambda a, b: (a, b), [1], [(2, 3)])
    [(1, (2, 3))]
    """
    leaves, treedef = flatten(tree, is_leaf)
    others = [treedef.flatten_up_to(r) for r in rest]
    return _build(treedef, iter([fn(*xs) for xs in zip(leaves, *others)]))


def register_pytree_node(nodetype: type, flatten_func: Callable, unflatten_func: Callable) -> None:
    """Make instances of ``nodetype`` pytree nodes.

    Parameters
    ----------
    nodetype : type
        The class; exactly it, not its subclasses.
    flatten_func : callable
        ``flatten_func(x) -> (children, aux_data)``: the children are pytrees,
        the aux data is static and hashable; it is part of the structure.
    unflatten_func : callable
        ``unflatten_func(aux_data, children) -> x``, children as a tuple.

    Raises
    ------
    ValueError
        If ``nodetype`` is registered already (the built-in containers are).

    Examples
    --------
    >>> class Scaled:
    ...     def __init__(self, value, factor):
    ...         self.value, self.factor = value, factor
    >>> register_pytree_node(Scaled, lambda s: ((s.value,), s.factor),
    ...                      lambda factor, children: Scaled(children[0], factor))
    >>> leaves, treedef = flatten([Scaled(1.0, 3), 2.0])
    >>> leaves, treedef
    ([1.0, 2.0], PyTreeDef([CustomNode(Scaled[3], [*]), *]))
    >>> unflatten(treedef, [5.0, 6.0])[0].factor
    3
    """
    if not isinstance(nodetype, type):
        raise TypeError(f"register_pytree_node expects a class, got {nodetype!r}")
    for name, func in (("flatten_func", flatten_func), ("unflatten_func", unflatten_func)):
        if not callable(func):
            raise TypeError(f"register_pytree_node({nodetype.__name__}): {name} must be callable, got {func!r}")
    if nodetype in _REGISTRY:
        raise ValueError(f"duplicate pytree node registration for {nodetype.__qualname__}")
    name = nodetype.__qualname__

    def flatten_node(node):
        out = flatten_func(node)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TypeError(f"the flatten function registered for {name} must return a pair "
                            f"(children, aux_data), got {type(out).__name__}")
        return out

    _REGISTRY[nodetype] = _NodeType(
        name, flatten_node, lambda aux, children: unflatten_func(aux, tuple(children)),
        lambda aux, children: f"CustomNode({nodetype.__name__}[{aux!r}], [{', '.join(children)}])", custom=True)


def register_pytree_node_class(cls: type) -> type:
    """Class decorator: register ``cls`` with its ``tree_flatten`` method and ``tree_unflatten`` classmethod.

    Examples
    --------
    >>> @register_pytree_node_class
    ... class Pair:
    ...     def __init__(self, a, b):
    ...         self.a, self.b = a, b
    ...     def tree_flatten(self):
    ...         return (self.a, self.b), None
    ...     @classmethod
    ...     def tree_unflatten(cls, aux_data, children):
    ...         return cls(*children)
    >>> flatten(Pair(1, [2]))[0]
    [1, 2]
    """
    register_pytree_node(cls, lambda x: x.tree_flatten(), cls.tree_unflatten)
    return cls


def register_dataclass(nodetype: type, data_fields: Iterable[str] | None = None,
                       meta_fields: Iterable[str] | None = None) -> type:
    """Register a dataclass (or a class built from keyword arguments) as a pytree node.

    Data fields are the children; meta fields are static, hashable aux data, so
    a different value is a different structure (and a new compilation under
    :func:`tensorad.jit`). Usable as a class decorator.

    Parameters
    ----------
    nodetype : type
    data_fields, meta_fields : iterable of str, optional
        Both or neither. When neither is given, ``nodetype`` must be a
        dataclass: its fields with ``metadata=dict(static=True)`` are meta,
        the others data. A dataclass's ``init=True`` fields must all be listed,
        each once. Instances are rebuilt as ``nodetype(**fields)``.

    Returns
    -------
    type
        ``nodetype`` itself.

    Examples
    --------
    >>> @register_dataclass
    ... @dataclasses.dataclass
    ... class Layer:
    ...     w: Any
    ...     b: Any
    ...     activation: str = dataclasses.field(default="relu", metadata=dict(static=True))
    >>> leaves, treedef = flatten(Layer(1.0, 2.0))
    >>> leaves, treedef
    ([1.0, 2.0], PyTreeDef(CustomNode(Layer[('relu',)], [*, *])))
    >>> unflatten(treedef, [3.0, 4.0])
    Layer(w=3.0, b=4.0, activation='relu')
    """
    if not isinstance(nodetype, type):
        raise TypeError(f"register_dataclass expects a class, got {nodetype!r}")
    name = nodetype.__qualname__
    if (data_fields is None) != (meta_fields is None):
        raise TypeError(f"register_dataclass({name}): give both data_fields and meta_fields, or neither")
    is_dataclass = dataclasses.is_dataclass(nodetype)
    init_fields = [f for f in dataclasses.fields(nodetype) if f.init] if is_dataclass else []
    if data_fields is None:
        if not is_dataclass:
            raise TypeError(f"register_dataclass({name}): data_fields and meta_fields are required for a class "
                            f"that is not a dataclass")
        data_fields = [f.name for f in init_fields if not f.metadata.get("static", False)]
        meta_fields = [f.name for f in init_fields if f.metadata.get("static", False)]
    for what, fields in (("data_fields", data_fields), ("meta_fields", meta_fields)):
        if isinstance(fields, str) or not all(isinstance(f, str) for f in fields):
            raise TypeError(f"register_dataclass({name}): {what} must be a list of field names, got {fields!r}")
    data_fields, meta_fields = tuple(data_fields), tuple(meta_fields)
    listed = data_fields + meta_fields
    if len(set(listed)) != len(listed):
        raise ValueError(f"register_dataclass({name}): a field is listed twice in {data_fields} and {meta_fields}")
    if is_dataclass and set(listed) != {f.name for f in init_fields}:
        raise ValueError(f"register_dataclass({name}): data_fields and meta_fields must list every dataclass "
                         f"field with init=True, and only those: {sorted(f.name for f in init_fields)}, "
                         f"got {sorted(listed)}")

    def flatten_node(x):
        return [getattr(x, f) for f in data_fields], tuple(getattr(x, f) for f in meta_fields)

    def unflatten_node(meta, data):
        return nodetype(**dict(zip(meta_fields, meta)), **dict(zip(data_fields, data)))

    register_pytree_node(nodetype, flatten_node, unflatten_node)
    return nodetype
