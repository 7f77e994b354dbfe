"""Eager execution: a frontend function called on concrete arrays runs at once.

``tnp.sin(np.ones(3))`` outside any transformation compiles ``tnp.sin`` for
that call's shapes, dtypes and static parameters, runs it and returns a numpy
array, as JAX's eager mode does. The compiled op is cached: the next call with
the same signature runs the cached code (one :class:`~tensorad.compiler.Jitted`
per function and static parameters, which itself caches per shapes and
dtypes). The semantics are the traced ones because the code is the traced one.
A repeated call of arrays and numbers (static keywords too) takes one dict
lookup to its compiled code, with no pytree walk.

Which arguments are arrays and which are static parameters: numpy arrays,
numpy scalars and anything with ``__array__`` are arrays; everything else
(Python numbers, shapes, axes, dtypes, callables, slices) is static and part of
the cache key, as under ``jit(static_argnums=...)``. Python numbers stay
static so that they keep their weak type (``np.float32`` array ``* 2.0``
stays float32, as under ``jit``).

The frontend's decorator (:func:`tensorad.tracing.emits_ops`) sends every
call made outside a trace with no traced argument here.

Examples
--------
>>> import numpy as np, tensorad.numpy as tnp
>>> tnp.sin(np.zeros(2, np.float32)) + 1
array([1., 1.], dtype=float32)
>>> tnp.sum(np.arange(6.0).reshape(2, 3), axis=0)
array([3., 5., 7.])
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Callable

import numpy as np

from . import tree
from .compiler import Jitted, array_key
from .tracing import check_tracers_alive

#: Most cached (function, static parameters) entries; the least recently used one goes first.
CACHE_LIMIT = 4096

# Python numbers, the static positional parameters of the common call (the others are arrays).
_NUMBERS = frozenset({float, int, bool})
# Types of the static keyword parameters of the common call (and tuples of ints: axes).
_KEYWORD_TYPES = frozenset({float, int, bool, str, type(None)})

# (function, static parameters and pytree structure) -> (Jitted, [when it was last used]).
# The least recently used goes first: a tick of _clock, not an OrderedDict's order, marks
# a use, since moving a key to the end hashes it (a pytree structure's hash is Python
# code) unless it is the last already, and eager code alternates between functions.
_cache: dict = {}
_cache_lock = threading.Lock()
_clock = itertools.count()

# The common call (numpy arrays and Python numbers; keywords numbers, strings, None or
# axes) goes straight to the compiled code: (function, per argument array_key(array) or
# (type, number), per keyword (name, type, value)) -> (weak reference to the Compiled,
# whether it returns one array, positions of the arrays or None for all, the _cache
# entry's last use, mark_used of the Jitted's cache). An entry goes when its Compiled is
# dropped.
_direct: dict = {}


def is_array(leaf: Any) -> bool:
    """Whether an argument leaf is passed to the compiled op as an array (not a static parameter).

    Examples
    --------
    >>> is_array(np.ones(2)), is_array(np.float32(1)), is_array(2.0), is_array((2, 3))
    (True, True, False, False)
    """
    return isinstance(leaf, (np.ndarray, np.generic)) or \
        (hasattr(leaf, "__array__") and not isinstance(leaf, type))


def _static_key(leaf: Any):
    """A hashable stand-in for a static leaf (a slice is unhashable before Python 3.12)."""
    if isinstance(leaf, slice):
        return (slice, leaf.start, leaf.stop, leaf.step)
    # The type tells 1 from 1.0 and True, which hash alike but trace differently.
    return (type(leaf), leaf)


def run(fn: Callable, args: tuple, kwargs: dict):
    """Run the frontend function ``fn`` on concrete ``args`` and ``kwargs``; return numpy arrays.

    Parameters
    ----------
    fn : callable
        A frontend function (decorated with ``emits_ops``).
    args, kwargs
        Its arguments; pytrees of arrays and static parameters.

    Examples
    --------
    >>> import tensorad.numpy as tnp
    >>> run(tnp.multiply, (np.arange(3.0), 2.0), {})
    array([0., 2., 4.])
    """
    direct_key = None
    # The common call: one lookup keyed without a tree walk, then the compiled code.
    parts = [fn]
    try:
        for a in args:
            kind = type(a)
            parts.append((kind, a) if kind in _NUMBERS else array_key(a))  # the type tells 1 from 1.0
    except AttributeError:  # an argument that is neither: the general path below
        pass
    else:
        if not kwargs or _add_keywords(parts, kwargs):
            direct_key = tuple(parts)
            entry = _direct.get(direct_key)
            if entry is not None:
                compiled_ref, one_array, positions, last_used, mark_used = entry
                compiled = compiled_ref()
                if compiled is not None:
                    last_used[0] = next(_clock)
                    try:
                        mark_used()
                    except KeyError:  # dropped by another thread meanwhile: this call still runs it
                        pass
                    arrays = args if positions is None else [args[i] for i in positions]
                    # One array: what Compiled.__call__ would do, without its frame.
                    return compiled.executable(arrays)[0] if one_array else compiled(arrays)
    check_tracers_alive(args, kwargs.values())  # outside any trace, every tracer is a leaked one
    leaves, treedef = tree.flatten((args, kwargs))
    dynamic = [i for i, leaf in enumerate(leaves) if is_array(leaf)]
    key = (fn, treedef, tuple(_static_key(leaf) if i not in dynamic else None for i, leaf in enumerate(leaves)))
    try:
        cached = _cache.get(key)
    except TypeError:  # an unhashable static parameter (a list inside a dict, ...): compile for this call
        key, cached = None, None
    if cached is None:
        jitted, last_used = Jitted(_with_statics(fn, leaves, dynamic, treedef)), [next(_clock)]
        if key is not None:
            with _cache_lock:
                _cache[key] = (jitted, last_used)
                if len(_cache) > CACHE_LIMIT:
                    _drop_least_recently_used()
    else:
        jitted, last_used = cached
        last_used[0] = next(_clock)
    # ndarrays as they are (a subclass too), so that the Jitted's fast path knows them.
    arrays = [leaf if isinstance(leaf, np.ndarray) else np.asarray(leaf) for leaf in (leaves[i] for i in dynamic)]
    result = jitted(*arrays)
    count = len(args)
    if direct_key is not None and key is not None and all(leaf is a for leaf, a in zip(leaves, args)) \
            and all(i < count and isinstance(args[i], np.ndarray) for i in dynamic):
        # Each argument a number or an ndarray (not a numpy scalar, which the key would
        # let through but is no array object), the keywords static: later calls can go
        # straight to the code.
        _remember_direct(direct_key, jitted.fast_handle(*arrays), None if len(dynamic) == count else dynamic,
                         last_used)
    return result


def _drop_least_recently_used() -> None:
    """Drop the least recently used entry of ``_cache`` (``_cache_lock`` held)."""
    oldest, (dropped, _) = min(_cache.items(), key=lambda item: item[1][1][0])
    del _cache[oldest]
    dropped.clear_cache()  # its _direct entries hold its cache: emptied, its code goes and they go


def _add_keywords(parts: list, kwargs: dict) -> bool:
    """Add ``kwargs`` to the parts of a key of the common call; False if one is not of its kinds."""
    for name, value in kwargs.items():
        kind = type(value)
        if kind not in _KEYWORD_TYPES and not (kind is tuple and all(type(i) is int for i in value)):
            return False
        parts.append((name, kind, value))  # the type tells 1 from 1.0 and True, as above
    return True


def _remember_direct(direct_key: tuple, handle: tuple | None, positions: list | None, last_used: list) -> None:
    """Send later calls keyed ``direct_key`` straight to the Compiled of ``handle`` (a ``Jitted.fast_handle``)."""
    if handle is None:  # arrays that the compiled code does not read as they are (a copy, a byte swap)
        return
    compiled, mark_used = handle
    table = _direct  # the module's globals may be gone when the last Compiled goes, at exit

    def forget(ref):
        if table.get(direct_key, (None,))[0] is ref:  # not a newer entry of the same key
            table.pop(direct_key, None)

    one_array = compiled.out_tree == tree.LEAF and not compiled.donated
    _direct[direct_key] = (weakref.ref(compiled, forget), one_array,
                           positions if positions is None else tuple(positions), last_used, mark_used)


def _with_statics(fn: Callable, leaves: list, dynamic: list, treedef: tree.TreeDef) -> Callable:
    """``fn`` as a function of the array leaves only, the static leaves bound."""
    template = list(leaves)
    for i in dynamic:
        template[i] = None  # the arrays of this call are not kept alive by the cache

    def call(*arrays):
        filled = list(template)
        for i, array in zip(dynamic, arrays):
            filled[i] = array
        args, kwargs = tree.unflatten(treedef, filled)
        return fn(*args, **kwargs)

    call.__name__ = call.__qualname__ = getattr(fn, "__name__", "op")
    return call

