"""Eager execution: a frontend function called on concrete arrays runs at once.

``tnp.sin(np.ones(3))`` outside any transformation compiles ``tnp.sin`` for
that call's shapes, dtypes and static parameters, runs it and returns a numpy
array, as JAX's eager mode does. The compiled op is cached: the next call with
the same signature runs the cached code (one :class:`~tensorad.compiler.Jitted`
per function and static parameters, which itself caches per shapes and
dtypes). The semantics are the traced ones because the code is the traced one.

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

import collections
import threading
from typing import Any, Callable

import numpy as np

from . import tree
from .compiler import Jitted

#: Most cached (function, static parameters) entries; the least recently used one goes first.
CACHE_LIMIT = 4096

# Argument types of the common call, keyed without a pytree walk.
_FLAT_TYPES = frozenset({np.ndarray, float, int, bool})

_cache: collections.OrderedDict = collections.OrderedDict()
_cache_lock = threading.Lock()


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
    if not kwargs and all(type(a) in _FLAT_TYPES for a in args):
        # The common call (arrays and numbers, no pytrees): a cheaper key, no tree walk.
        leaves, treedef = list(args), None
        dynamic = [i for i, a in enumerate(args) if type(a) is np.ndarray]
        key = (fn, tuple(None if type(a) is np.ndarray else (type(a), a) for a in args))
    else:
        leaves, treedef = tree.flatten((args, kwargs))
        dynamic = [i for i, leaf in enumerate(leaves) if is_array(leaf)]
        key = (fn, treedef, tuple(_static_key(leaf) if i not in dynamic else None
                                  for i, leaf in enumerate(leaves)))
    try:
        jitted = _cache.get(key)
    except TypeError:  # an unhashable static parameter (a list inside a dict, ...): compile for this call
        key, jitted = None, None
    if jitted is None:
        if treedef is None:
            treedef = tree.flatten((args, kwargs))[1]
        jitted = Jitted(_with_statics(fn, leaves, dynamic, treedef))
        if key is not None:
            with _cache_lock:
                _cache[key] = jitted
                if len(_cache) > CACHE_LIMIT:
                    _cache.popitem(last=False)
    else:
        try:
            _cache.move_to_end(key)
        except KeyError:  # dropped by another thread meanwhile
            pass
    return jitted(*[np.asarray(leaves[i]) for i in dynamic])


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

