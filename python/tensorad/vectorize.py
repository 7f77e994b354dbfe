"""``vmap``: map a function over an axis of its arguments, as an IR transformation.

``vmap(f)`` traces ``f`` once, on one example (the arguments with their mapped
axis removed), into its own ``func.func``; it then *declares* the batched
function (``tad.vmap = {of = @f, in_axes = ..., out_axes = ...}``, DESIGN.md)
and calls it. The ``tad-batch`` pass gives the declaration its body with the
batching rules of the op records. Like the derivatives, it composes with
everything: ``jit(vmap(grad(f)))``, ``grad(vmap(f))``, nested ``vmap``.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.vmap(lambda row: tnp.sum(row * row))(np.arange(6.0).reshape(2, 3))
array([ 5., 50.])
"""

from __future__ import annotations

import functools
from typing import Any, Callable

from mlir import ir
from mlir.dialects import func

from . import dtypes, numpy as tnp, tree
from .compiler import Jitted
from .tracing import Tracer, current_module, function_name, trace_into, unique_symbol


def _axes_per_leaf(axes: Any, args: tuple, what: str) -> list:
    """``axes`` (an int, None, or a tuple with one entry per argument, each an int, None or a pytree) per leaf."""
    if axes is None or isinstance(axes, int):
        return [axes] * len(tree.flatten(args)[0])
    if not isinstance(axes, (tuple, list)) or len(axes) != len(args):
        raise ValueError(f"vmap {what} must be an int, None, or a tuple with one entry per argument "
                         f"({len(args)}), got {axes!r}")
    per_leaf = []
    for entry, arg in zip(axes, args):
        leaves = tree.flatten(arg)[0]
        if entry is None or isinstance(entry, int):
            per_leaf += [entry] * len(leaves)
        else:
            entries = tree.flatten(entry, is_leaf=lambda node: node is None)[0]
            if len(entries) != len(leaves):
                raise ValueError(f"vmap {what} entry {entry!r} does not match the structure of its argument")
            per_leaf += entries
    return per_leaf


def _out_axes_per_leaf(out_axes, out) -> list:
    """``out_axes`` per leaf of the output ``out`` (a tuple of out_axes matches a tuple output)."""
    if out_axes is None or isinstance(out_axes, int):
        return [out_axes] * len(tree.flatten(out)[0])
    return _axes_per_leaf(out_axes, out if isinstance(out, tuple) else (out,), "out_axes")


def _repeat(x, size: int, axis: int):
    """``size`` copies of ``x`` stacked along ``axis`` (``-1``: ``x`` itself)."""
    if axis == -1:
        return x
    shape = x.shape[:axis] + (size,) + x.shape[axis:]
    return tnp.broadcast_to(tnp.expand_dims(x, axis), shape)


def _normalized(axis, ndim: int, what: str) -> int:
    """``axis`` in ``0..ndim`` (``-1`` for None)."""
    if axis is None:
        return -1
    if not isinstance(axis, int) or not -ndim - 1 <= axis <= ndim:
        raise ValueError(f"vmap {what} {axis!r} is out of range for a value of rank {ndim}")
    return axis % (ndim + 1) if axis < 0 else axis


def _batched_call(fun: Callable, in_axes, out_axes, axis_size, args: tuple):
    """Trace ``fun`` on one example of ``args``, declare its vmap and call it (inside a trace)."""
    leaves, in_tree = tree.flatten(args)
    inputs = [tnp.asarray(x) for x in leaves]
    axes = [_normalized(a, x.ndim - 1 if a is not None else x.ndim, "in_axes")
            for a, x in zip(_axes_per_leaf(in_axes, args, "in_axes"), inputs)]
    sizes = {x.shape[a] for x, a in zip(inputs, axes) if a != -1}
    if axis_size is not None:
        sizes.add(axis_size)
    if len(sizes) != 1:
        raise ValueError("vmap got arguments whose mapped axes differ in size: " + str(sorted(sizes))
                         if sizes else "vmap needs at least one mapped argument (or axis_size)")
    (size,) = sizes
    if all(a == -1 for a in axes):  # only axis_size: every row is the same
        out = fun(*args)
        per_leaf = _out_axes_per_leaf(out_axes, out)
        leaves, out_tree = tree.flatten(out)
        return tree.unflatten(out_tree, [_repeat(tnp.asarray(x), size, _normalized(a, tnp.asarray(x).ndim, "out_axes"))
                                         for x, a in zip(leaves, per_leaf)])
    examples = [(x.shape[:a] + x.shape[a + 1:] if a != -1 else x.shape, x.dtype) for x, a in zip(inputs, axes)]
    module = current_module()
    name, out_tree, out_avals, captured = trace_into(
        module, lambda *xs: fun(*tree.unflatten(in_tree, xs)), examples, name=function_name(fun))
    out_axes_leaves = _out_axes_per_leaf(out_axes, tree.unflatten(out_tree, [0] * len(out_avals)))
    outs = [_normalized(a, len(s), "out_axes") for a, (s, _) in zip(out_axes_leaves, out_avals)]
    all_in = axes + [-1] * len(captured)
    in_types = [dtypes.tensor_type(x.shape, x.dtype) for x in inputs] + [v.type for v in captured]
    out_types = [dtypes.tensor_type(s[:a] + (size,) + s[a:] if a != -1 else s, d) for (s, d), a in zip(out_avals, outs)]
    declared = unique_symbol(module, f"{name}_vmap")
    with ir.InsertionPoint(module.body):
        decl = func.FuncOp(declared, ir.FunctionType.get(in_types, out_types), visibility="private")
        decl.attributes["tad.vmap"] = ir.DictAttr.get({
            "of": ir.FlatSymbolRefAttr.get(name), "in_axes": ir.DenseI64ArrayAttr.get(all_in),
            "out_axes": ir.DenseI64ArrayAttr.get(outs)})
    call = func.CallOp(out_types, declared, [x.value for x in inputs] + list(captured))
    return tree.unflatten(out_tree, [Tracer.of(r) for r in call.results])


def vmap(fun: Callable, in_axes=0, out_axes=0, axis_size: int | None = None) -> Jitted:
    """Vectorize ``fun`` over an axis of its arguments, as ``jax.vmap`` does.

    Parameters
    ----------
    fun : callable
        A function of arrays (pytrees of arrays).
    in_axes : int, None or tuple
        The mapped axis of each argument (``None``: not mapped); a tuple has
        one entry per positional argument, each an int, None or a pytree of
        them matching the argument.
    out_axes : int, None or tuple
        Where the mapped axis goes in each output (``None``: the output must
        not depend on a mapped argument).
    axis_size : int, optional
        The size of the mapped axis when no argument is mapped.

    Returns
    -------
    Jitted
        Compiled when called on arrays; inlined when called inside a trace.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> w = np.ones((3, 2))
    >>> ta.vmap(lambda x, w: tnp.tanh(x @ w), in_axes=(0, None))(np.zeros((4, 3)), w).shape
    (4, 2)
    >>> per_example = ta.vmap(ta.grad(lambda w, x: tnp.sum((x @ w) ** 2)), in_axes=(None, 0))
    >>> per_example(w, np.ones((5, 3))).shape
    (5, 3, 2)
    """
    if not callable(fun):
        raise TypeError(f"vmap needs a function, got {type(fun).__name__}")

    @functools.wraps(fun)
    def batched(*args):
        return _batched_call(fun, in_axes, out_axes, axis_size, args)

    batched.__name__ = f"vmap_{function_name(fun)}"
    return Jitted(batched)
