"""numpy's function application: apply_along_axis, apply_over_axes, vectorize (by ``tensorad.vmap``), piecewise.

``apply_along_axis`` and ``vectorize`` batch the user's function with
:func:`tensorad.vmap` (traced once, batched as an IR transformation), as
JAX's do, rather than calling it per element. ``piecewise`` evaluates every
piece on all of ``x`` and selects, so its pieces must be defined (or at
least not matter) everywhere.

Examples
--------
>>> import numpy as np, tensorad.numpy as tnp
>>> tnp.apply_along_axis(lambda row: row / tnp.sum(row), 1, np.array([[1.0, 3.0], [2.0, 2.0]]))
array([[0.25, 0.75],
       [0.5 , 0.5 ]])
"""

from __future__ import annotations

import functools
import re

import numpy as np
from numpy.lib.array_utils import normalize_axis_index

from ..tracing import Tracer, emits_ops
from ..vectorize import vmap
from . import asarray, astype, broadcast_to, expand_dims, full, logical_not, reshape, stack, where
from . import any as reduce_any

__all__ = ["apply_along_axis", "apply_over_axes", "piecewise", "vectorize"]


def apply_along_axis(func1d, axis: int, arr, *args, **kwargs):
    """``func1d`` applied to each 1-D slice of ``arr`` along ``axis``; its result's dims replace that axis.

    Examples
    --------
    >>> apply_along_axis(lambda v: v[::-1], 0, np.arange(4.0).reshape(2, 2))
    array([[2., 3.],
           [0., 1.]])
    """
    ndim = arr.ndim if isinstance(arr, Tracer) else np.ndim(arr)
    axis = normalize_axis_index(axis, ndim)
    func = functools.partial(_call_on_slice, func1d, args, kwargs)
    # The dims after the axis are mapped innermost (their results go last), then the ones before it (first).
    for dim in range(1, ndim - axis):
        func = vmap(func, in_axes=dim, out_axes=-1)
    for _ in range(axis):
        func = vmap(func, in_axes=0, out_axes=0)
    return func(arr)


def _call_on_slice(func1d, args: tuple, kwargs: dict, slice_):
    return func1d(slice_, *args, **kwargs)


def apply_over_axes(func, a, axes):
    """``func(a, axis)`` for each of ``axes`` in turn, each result given back its reduced dim.

    Examples
    --------
    >>> import tensorad.numpy as tnp
    >>> apply_over_axes(tnp.sum, np.arange(6.0).reshape(2, 3), [0, 1])
    array([[15.]])
    """
    value = a
    for axis in (axes,) if np.ndim(axes) == 0 else axes:
        ndim = value.ndim if isinstance(value, Tracer) else np.ndim(value)
        result = func(value, axis)
        if np.ndim(result) == ndim - 1:
            result = expand_dims(result, axis)
        if np.ndim(result) != ndim:
            raise ValueError("apply_over_axes: the function must keep the number of dimensions or reduce it by one")
        value = result
    return value


_ARGUMENT = re.compile(r"\(([^()]*)\)")


def _core_dims(signature: str) -> tuple:
    """A gufunc ``signature`` such as ``"(m,n),(n)->(m)"``: (dim names per input, per output)."""
    inputs, arrow, outputs = signature.replace(" ", "").partition("->")
    if not arrow:
        raise ValueError(f"vectorize: invalid signature {signature!r}")
    parse = lambda part: [tuple(d for d in dims.split(",") if d) for dims in _ARGUMENT.findall(part)]  # noqa: E731
    return parse(inputs), parse(outputs)


class vectorize:  # noqa: N801 (numpy's name)
    """``pyfunc`` made to act elementwise on broadcast arrays (or on core dims, per ``signature``), by vmap.

    The loop dims of all arguments broadcast together and are flattened to
    one axis that :func:`tensorad.vmap` maps ``pyfunc`` over. ``excluded``
    (positions or keyword names) pass through unmapped.

    Examples
    --------
    >>> norms = vectorize(lambda v: (v * v).sum(), signature="(n)->()")
    >>> norms(np.array([[3.0, 4.0], [1.0, 0.0]]))
    array([25.,  1.])
    """

    def __init__(self, pyfunc, *, excluded=frozenset(), signature: str | None = None):
        self.pyfunc, self.excluded, self.signature = pyfunc, frozenset(excluded), signature
        functools.update_wrapper(self, pyfunc)

    def __call__(self, *args, **kwargs):
        mapped = [i for i in range(len(args)) if i not in self.excluded]
        mapped_kwargs = [k for k in kwargs if k not in self.excluded]
        arrays = [asarray(args[i]) for i in mapped] + [asarray(kwargs[k]) for k in mapped_kwargs]
        if self.signature is None:
            core, outputs = [()] * len(arrays), None
        else:
            core, outputs = _core_dims(self.signature)
            if len(core) != len(arrays):
                raise TypeError(f"vectorize: the signature has {len(core)} inputs, {len(arrays)} were given")
        loop_shapes = [a.shape[:a.ndim - len(c)] for a, c in zip(arrays, core)]
        loop_shape = tuple(np.broadcast_shapes(*loop_shapes))
        count = int(np.prod(loop_shape, dtype=np.int64))
        rows = [reshape(broadcast_to(a, loop_shape + a.shape[len(s):]), (count,) + a.shape[len(s):])
                for a, s in zip(arrays, loop_shapes)]

        def one(*row_values):
            call_args, call_kwargs = list(args), dict(kwargs)
            for i, value in zip(mapped + mapped_kwargs, row_values):
                if isinstance(i, int):
                    call_args[i] = value
                else:
                    call_kwargs[i] = value
            return self.pyfunc(*call_args, **call_kwargs)

        results = vmap(one)(*rows)
        several = isinstance(results, tuple)
        if outputs is not None and several != (len(outputs) != 1):
            raise ValueError(f"vectorize: the function's results do not match the signature {self.signature!r}")
        shaped = tuple(reshape(r, loop_shape + r.shape[1:]) for r in (results if several else (results,)))
        return shaped if several else shaped[0]


@emits_ops
def piecewise(x, condlist, funclist, *args, **kw) -> Tracer:
    """``funclist[i](x)`` (or the constant ``funclist[i]``) where ``condlist[i]``; one more function: elsewhere.

    Where several conditions hold, the last wins (numpy's); where none
    does, 0 (or the extra function). Every piece is computed on all of
    ``x``, in ``x``'s dtype.

    Examples
    --------
    >>> piecewise(np.array([-2.0, 0.5, 3.0]), [np.array([-2.0, 0.5, 3.0]) < 0], [lambda v: -v, lambda v: v * 2])
    array([2., 1., 6.])
    """
    x = asarray(x)
    if isinstance(condlist, Tracer) and condlist.ndim > x.ndim:  # conditions stacked along the first axis
        condlist = [condlist[i] for i in range(condlist.shape[0])]
    elif not isinstance(condlist, (list, tuple)):
        condlist = [condlist]
    conditions = [broadcast_to(astype(asarray(c), bool), x.shape) for c in condlist]
    if len(funclist) not in (len(conditions), len(conditions) + 1):
        raise ValueError(f"piecewise: {len(funclist)} functions for {len(conditions)} conditions (give as many, "
                         "or one more for elsewhere)")
    if len(funclist) == len(conditions) + 1:
        none_holds = logical_not(reduce_any(stack(conditions), axis=0)) if conditions else full(x.shape, True, bool)
        conditions.append(none_holds)

    def piece(f) -> Tracer:
        return astype(broadcast_to(asarray(f(x, *args, **kw) if callable(f) else f), x.shape), x.dtype)

    out = full(x.shape, 0, x.dtype)
    for condition, f in zip(conditions, funclist):
        out = where(condition, piece(f), out)
    return out
