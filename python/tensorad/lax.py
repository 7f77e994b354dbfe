"""``tensorad.lax``: structured control flow on traced arrays (``scf`` ops with tensor carries), and
JAX's other ``lax`` primitives: running reductions and ``associative_scan``, sorts and ``top_k``,
dynamic slices, ``gather``/``scatter``, ``reduce_window`` and ``conv_general_dilated`` (defined in
:mod:`tensorad.numpy.scans`, :mod:`tensorad.numpy.sorting`, :mod:`tensorad.slicing` and
:mod:`tensorad.windowed`), ``select_n`` and ``clamp``; and JAX's elementwise functions (``lax.add``,
``lax.sin``, ``lax.div``, ... strict about shapes and dtypes, as JAX's), structural functions
(``broadcast_in_dim``, ``pad``, ``concatenate``, ...), reductions (``reduce_sum``, ``reduce``, ``argmax``,
...), contractions (``dot_general``) and ``map``, composed from :mod:`tensorad.numpy` in
:mod:`tensorad.lax_api`.

Bodies and branches are traced once into the regions of ``scf.for``,
``scf.while`` and ``scf.if``; loop carries are pytrees of arrays whose shapes
and dtypes must stay the same from one iteration to the next (a mismatch is
reported at the user's line).

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> from tensorad import lax
>>> ta.jit(lambda x: lax.fori_loop(0, 3, lambda i, c: c * 2.0, x))(np.ones(2))
array([8., 8.])
"""

from __future__ import annotations

import builtins
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from tensorad.dialects import builder

from . import dtypes
from . import numpy as tnp
from . import tree
from .dtypes import tensor_type
from .errors import TracingError
from .tracing import Tracer, emits_ops, user_line
# lax's names of the scans, sorts, slicing and indexing primitives and windowed ops, defined in their modules.
from .numpy.scans import associative_scan, cumulative  # noqa: F401
from .numpy.sorting import lexsort_permutation
from .slicing import (GatherDimensionNumbers, GatherScatterMode, ScatterDimensionNumbers,  # noqa: F401
                      dynamic_index_in_dim, dynamic_slice, dynamic_slice_in_dim, dynamic_update_index_in_dim,
                      dynamic_update_slice, dynamic_update_slice_in_dim, gather, scatter, scatter_add, scatter_max,
                      scatter_min, scatter_mul, scatter_sub)
from .windowed import (ConvDimensionNumbers, conv, conv_dimension_numbers, conv_general_dilated,  # noqa: F401
                       padtype_to_pads, reduce_window)
from .lax_api import *  # noqa: F401,F403 (JAX's elementwise, structural, reduction and contraction functions)


@emits_ops
def stop_gradient(x):
    """Identity whose derivative is zero (TVM Relax's ``no_grad``); works on pytrees.

    Examples
    --------
    >>> import tensorad as ta
    >>> from tensorad import lax
    >>> ta.grad(lambda x: x * lax.stop_gradient(x))(3.0)
    array(3.)
    """
    return tree.tree_map(lambda leaf: Tracer.of(builder.marker("stop_gradient", tnp.asarray(leaf).value)), x)


def _avals(leaves) -> list:
    return [(x.shape, x.dtype) for x in leaves]


def _describe(avals) -> str:
    return ", ".join(f"{d.name}{list(s)}" for s, d in avals)


def _flat_arrays(value) -> tuple:
    leaves, treedef = tree.flatten(value)
    return [tnp.asarray(x) for x in leaves], treedef


def _check_same(what: str, expected_tree, expected_avals, got_tree, got_leaves) -> list:
    """Check that ``got`` has the structure, shapes and dtypes of ``expected``; return its arrays."""
    got_avals = _avals(got_leaves)
    if got_tree != expected_tree or got_avals != list(expected_avals):
        raise TracingError(f"{user_line()}: {what}: expected {_describe(expected_avals)} "
                           f"(structure {expected_tree}), got {_describe(got_avals)} "
                           f"(structure {got_tree})")
    return got_leaves


def _tensor_types(avals) -> list:
    return [tensor_type(s, d) for s, d in avals]


def _scalar(x: Tracer) -> ir.Value:
    """The scalar element of a 0-d traced array."""
    return tensor.ExtractOp(x.value, []).result


def _index(bound) -> ir.Value:
    """A loop bound as an ``index`` value (Python int or 0-d traced integer)."""
    if isinstance(bound, Tracer):
        if bound.shape != () or bound.dtype.kind not in "iu":
            raise TracingError(f"{user_line()}: loop bounds must be integer scalars, got "
                               f"{bound.dtype.name}{list(bound.shape)}")
        return arith.IndexCastOp(ir.IndexType.get(), _scalar(bound)).result
    return arith.ConstantOp(ir.IndexType.get(), int(bound)).result


def _index_to_array(index: ir.Value) -> Tracer:
    """An ``index`` value as a 0-d int64 traced array."""
    value = arith.IndexCastOp(ir.IntegerType.get_signless(64), index).result
    return Tracer.of(tensor.FromElementsOp(
        ir.RankedTensorType.get([], ir.IntegerType.get_signless(64)), [value]).result)


class _Scratch:
    """A block to trace a body into before the op that will own it can be built.

    ``scf.if`` and ``scan`` only know their result types once their bodies are
    traced; the body is traced here, then moved into the real op's block.
    """

    def __init__(self, arg_types: Sequence[ir.Type] = ()):
        self.op = ir.Operation.create("scf.execute_region", results=[], regions=1)
        location = ir.Location.current
        self.block = ir.Block.create_at_start(self.op.regions[0], list(arg_types),
                                              [location] * len(arg_types))

    def trace(self, fun: Callable, *args):
        """Run ``fun(*args)`` with ops going into the scratch block; return its flat arrays and tree."""
        with ir.InsertionPoint(self.block):
            return _flat_arrays(fun(*args))

    def move_into(self, block: ir.Block, arguments: Sequence[ir.Value] = (),
                  results: Sequence[Tracer] = ()) -> list:
        """Move the traced ops to the end of ``block``, its arguments replacing the scratch ones.

        Returns ``results`` (the body's outputs) as they are once moved: a body
        may return one of its arguments unchanged, which the move replaces.
        """
        scratch_arguments = list(self.block.arguments)
        moved = [scratch_arguments.index(r.value) if r.value in scratch_arguments else None
                 for r in results]
        for old, new in zip(self.block.arguments, arguments):
            old.replace_all_uses_with(new)
        for op in list(self.block.operations):
            block.append(op)
        self.op.erase()
        return [r if k is None else Tracer.of(arguments[k]) for r, k in zip(results, moved)]


@emits_ops
def cond(pred, true_fun: Callable, false_fun: Callable, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one ``scf.if``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(lambda x: cond(x.sum() > 0, lambda v: v * 2.0, lambda v: -v, x))(np.ones(2))
    array([2., 2.])
    """
    if not isinstance(pred, Tracer):
        return true_fun(*operands) if pred else false_fun(*operands)
    if pred.shape != ():
        raise TracingError(f"{user_line()}: cond needs a scalar predicate, got shape {pred.shape}")
    flag = _scalar(tnp.astype(pred, tnp.bool_))
    branches = [_Scratch(), _Scratch()]
    (outs_t, tree_t), (outs_f, tree_f) = [s.trace(f, *operands)
                                          for s, f in zip(branches, (true_fun, false_fun))]
    _check_same("cond branches return different types", tree_t, _avals(outs_t), tree_f, outs_f)
    if_op = scf.IfOp(flag, _tensor_types(_avals(outs_t)), has_else=True)
    for scratch, block, outs in zip(branches, (if_op.then_block, if_op.else_block),
                                    (outs_t, outs_f)):
        scratch.move_into(block)
        with ir.InsertionPoint(block):
            scf.YieldOp([x.value for x in outs])
    return tree.unflatten(tree_t, [Tracer.of(r) for r in if_op.results])


@emits_ops
def switch(index, branches: Sequence[Callable], *operands):
    """``branches[index](*operands)``, with ``index`` clamped to the valid range (as in JAX).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> fs = [lambda v: v, lambda v: v * 10.0, lambda v: -v]
    >>> ta.jit(lambda k, x: switch(k, fs, x))(np.int64(1), np.ones(2))
    array([10., 10.])
    """
    if not branches:
        raise TracingError("switch needs at least one branch")
    if not isinstance(index, Tracer):
        return branches[builtins.min(builtins.max(int(index), 0), len(branches) - 1)](*operands)
    if len(branches) == 1:
        return branches[0](*operands)
    # A chain of conds: index <= 0 takes the first branch, the rest recurse.
    return cond(index <= 0, branches[0],
                lambda *ops: switch(index - 1, branches[1:], *ops), *operands)


def _ask_snapshots(loop: scf.ForOp, snapshots) -> None:
    """Mark ``loop`` for binomial checkpointing with ``snapshots`` snapshots (``tad.snapshots``)."""
    if snapshots is None:
        return
    if int(snapshots) < 1:
        raise TracingError(f"{user_line()}: snapshots must be at least 1, got {snapshots}")
    loop.operation.attributes["tad.snapshots"] = ir.IntegerAttr.get(
        ir.IntegerType.get_signless(64), int(snapshots))


def _loop(lower, upper, init, body: Callable, extra_outputs: Callable | None = None,
          snapshots=None):
    """An ``scf.for`` over ``[lower, upper)`` with carry ``init``; ``body(i, carry) -> carry``."""
    leaves, treedef = _flat_arrays(init)
    lb, ub = _index(lower), _index(upper)
    step = arith.ConstantOp(ir.IndexType.get(), 1).result
    loop = scf.ForOp(lb, ub, step, [x.value for x in leaves])
    _ask_snapshots(loop, snapshots)
    with ir.InsertionPoint(loop.body):
        i = _index_to_array(loop.induction_variable)
        carry = tree.unflatten(treedef, [Tracer.of(a) for a in loop.inner_iter_args])
        new_leaves, new_tree = _flat_arrays(body(i, carry))
        _check_same("the loop body must return the carry's structure, shapes and dtypes",
                    treedef, _avals(leaves), new_tree, new_leaves)
        scf.YieldOp([x.value for x in new_leaves])
    return tree.unflatten(treedef, [Tracer.of(r) for r in loop.results])


@emits_ops
def fori_loop(lower, upper, body_fun: Callable, init_val, *, snapshots: int | None = None):
    """``for i in range(lower, upper): val = body_fun(i, val)`` as one ``scf.for``.

    ``i`` is a 0-d int64 array; the bounds may be Python ints or traced integer scalars.

    By default reverse mode stores the carry of every iteration. With
    ``snapshots=s`` it keeps at most ``s`` snapshots of it (and the carry the
    reversal starts from) and recomputes the other iterations from them on
    the binomial (Revolve) schedule, with the fewest recomputed steps there
    can be: ``r·l − β(s+1, r−1)`` for ``l`` iterations, ``β(s, r) = C(s+r, s)``
    and ``r`` the smallest with ``β(s, r) >= l``. It needs constant bounds.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> f = lambda x: fori_loop(0, 100, lambda i, h: tnp.sin(h), x, snapshots=4)
    >>> print(f"{float(ta.grad(f)(0.5)):.6f}")  # (round is lax.round here)
    0.032833
    """
    if not isinstance(lower, Tracer) and not isinstance(upper, Tracer) and int(upper) <= int(lower):
        return init_val
    return _loop(lower, upper, init_val, body_fun, snapshots=snapshots)


@emits_ops
def scan(f: Callable, init, xs=None, length: int | None = None, reverse: bool = False, *,
         snapshots: int | None = None):
    """Loop ``carry, y = f(carry, x)`` over the leading axis of ``xs``; return ``(carry, stacked ys)``.

    ``snapshots=s`` asks for binomial checkpointing of the carry, as in :func:`fori_loop`.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> cumsum = lambda xs: scan(lambda c, x: (c + x, c + x), tnp.zeros(()), xs)[1]
    >>> ta.jit(cumsum)(np.arange(4.0))
    array([0., 1., 3., 6.])
    """
    x_leaves, x_tree = _flat_arrays(xs)
    lengths = {x.shape[0] for x in x_leaves if x.ndim}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1 or any(x.ndim == 0 for x in x_leaves):
        raise TracingError(f"{user_line()}: scan needs xs with one common leading length "
                           f"(and length=...), got {sorted(lengths)}")
    (n,) = lengths
    carry_leaves, carry_tree = _flat_arrays(init)
    carry_types = _tensor_types(_avals(carry_leaves))
    index_type = ir.IndexType.get()
    scratch = _Scratch([index_type] + carry_types)
    ref = {}

    def step(i_value, *carry_values):
        i = i_value
        if reverse:  # visit rows n-1, ..., 0
            last = arith.ConstantOp(index_type, n - 1).result
            i = arith.SubIOp(last, i_value).result
        ref["row"] = i
        x = tree.unflatten(x_tree, [Tracer.of(builder.dynamic_row(x.value, i)) for x in x_leaves])
        carry = tree.unflatten(carry_tree, [Tracer.of(v) for v in carry_values])
        out = f(carry, x)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise TracingError(f"{user_line()}: the scan body must return a pair (carry, y)")
        return out

    outs, out_tree = scratch.trace(step, *scratch.block.arguments)
    new_carry, ys = tree.unflatten(out_tree, outs)
    new_leaves, new_tree = _flat_arrays(new_carry)
    _check_same("the scan body must return the carry's structure, shapes and dtypes",
                carry_tree, _avals(carry_leaves), new_tree, new_leaves)
    y_leaves, y_tree = _flat_arrays(ys)
    stacks = [tnp.zeros((n,) + y.shape, y.dtype) for y in y_leaves]
    lb, ub = _index(0), _index(n)
    loop = scf.ForOp(lb, ub, _index(1), [x.value for x in carry_leaves + stacks])
    _ask_snapshots(loop, snapshots)
    inner = list(loop.inner_iter_args)
    moved = scratch.move_into(loop.body, [loop.induction_variable] + inner[:len(carry_leaves)],
                              new_leaves + y_leaves)
    new_leaves, y_leaves = moved[:len(new_leaves)], moved[len(new_leaves):]
    # The scratch block's arguments are gone: the row is the new induction variable (or
    # the reversed index computed from it in the body).
    row = ref["row"] if reverse else loop.induction_variable
    with ir.InsertionPoint(loop.body):
        stacked = [Tracer.of(builder.insert_row(s, y.value, row))
                   for s, y in zip(inner[len(carry_leaves):], y_leaves)]
        scf.YieldOp([x.value for x in new_leaves + stacked])
    results = [Tracer.of(r) for r in loop.results]
    return (tree.unflatten(carry_tree, results[:len(carry_leaves)]),
            tree.unflatten(y_tree, results[len(carry_leaves):]))


@emits_ops
def while_loop(cond_fun: Callable, body_fun: Callable, init_val):
    """``while cond_fun(val): val = body_fun(val)`` as one ``scf.while``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jit(lambda x: while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))(np.float64(1.0))
    array(16.)
    """
    leaves, treedef = _flat_arrays(init_val)
    types = _tensor_types(_avals(leaves))
    loop = scf.WhileOp(types, [x.value for x in leaves])
    location = ir.Location.current
    before = ir.Block.create_at_start(loop.before, types, [location] * len(types))
    after = ir.Block.create_at_start(loop.after, types, [location] * len(types))
    with ir.InsertionPoint(before):
        pred = tnp.asarray(cond_fun(tree.unflatten(treedef, [Tracer.of(a) for a in before.arguments])))
        if pred.shape != ():
            raise TracingError(f"{user_line()}: while_loop's cond_fun must return a scalar, "
                               f"got shape {pred.shape}")
        scf.ConditionOp(_scalar(tnp.astype(pred, tnp.bool_)), list(before.arguments))
    with ir.InsertionPoint(after):
        new_leaves, new_tree = _flat_arrays(body_fun(tree.unflatten(
            treedef, [Tracer.of(a) for a in after.arguments])))
        _check_same("the while_loop body must return the carry's structure, shapes and dtypes",
                    treedef, _avals(leaves), new_tree, new_leaves)
        scf.YieldOp([x.value for x in new_leaves])
    return tree.unflatten(treedef, [Tracer.of(r) for r in loop.results])


# ----------------------------------------------------------------------------
# Selection and clamping
# ----------------------------------------------------------------------------

@emits_ops
def select_n(which, *cases):
    """``cases[which]`` elementwise: ``which`` is boolean (two cases) or integer, a scalar or of the cases' shape.

    Examples
    --------
    >>> import numpy as np
    >>> select_n(np.array([0, 2, 1]), np.zeros(3), np.ones(3), np.full(3, 2.0))
    array([0., 2., 1.])
    """
    if not cases:
        raise TracingError(f"{user_line()}: select_n needs at least one case")
    cases = [tnp.asarray(c) for c in cases]
    if len({(c.shape, c.dtype) for c in cases}) != 1:
        raise TracingError(f"{user_line()}: select_n needs cases of one shape and dtype, got "
                           f"{[(c.dtype.name, c.shape) for c in cases]}")
    which = tnp.asarray(which)
    if which.shape not in ((), cases[0].shape):
        raise TracingError(f"{user_line()}: select_n: which of shape {which.shape} for cases of shape {cases[0].shape}")
    if which.dtype == tnp.bool_ and len(cases) > 2:
        raise TracingError(f"{user_line()}: select_n with a boolean which takes at most two cases")
    if len(cases) == 1:
        return cases[0]
    if which.dtype == tnp.bool_:
        return tnp.where(which, cases[1], cases[0])
    # A binary tree of selects: the low half of the cases, or the high half.
    half = len(cases) // 2
    return tnp.where(which < half, select_n(which, *cases[:half]), select_n(tnp.subtract(which, half), *cases[half:]))


@emits_ops
def clamp(min, x, max):  # noqa: A002 (JAX's names)
    """``x`` limited to ``[min, max]``; as JAX's, the derivative goes to ``x`` strictly inside, to a bound
    strictly outside it, and to none of them at a tie.

    Examples
    --------
    >>> import numpy as np
    >>> clamp(0.0, np.array([-1.0, 0.5, 2.0]), 1.0)
    array([0. , 0.5, 1. ])
    """
    dtype = tnp.asarray(x).dtype
    low, x, high = (tnp.astype(tnp.asarray(v), dtype) for v in (min, x, max))
    inside = tnp.logical_and(tnp.greater(x, low), tnp.less(x, high))
    below = tnp.logical_and(tnp.greater(low, x), tnp.less(low, high))
    return tnp.where(inside, x, tnp.where(below, low, tnp.where(tnp.less(high, x), high, stop_gradient(x))))


# ----------------------------------------------------------------------------
# Running reductions (tensorad.numpy.scans) and sorting (tad.argsort)
# ----------------------------------------------------------------------------

def _running(kind: str):
    def fn(operand, axis: int = 0, reverse: bool = False):
        return cumulative(kind, operand, axis, reverse)

    fn.__name__ = fn.__qualname__ = f"cum{kind}"
    fn.__doc__ = (f"The running {kind} of ``operand`` along ``axis`` (from the end with ``reverse``), in its dtype.\n\n"
                  "    See :func:`tensorad.numpy.scans.cumulative`.\n")
    return fn


cumsum, cumprod, cummax, cummin, cumlogsumexp = (_running(k) for k in ("sum", "prod", "max", "min", "logsumexp"))


@emits_ops
def sort(operand, dimension: int = -1, is_stable: bool = True, num_keys: int = 1):
    """``operand`` sorted along ``dimension``; a sequence of arrays is sorted together by its first ``num_keys``.

    The sort is stable (equal keys keep their order) and lexicographic over
    the keys; NaN sorts last. A sequence gives back a tuple.

    Examples
    --------
    >>> import numpy as np
    >>> sort((np.array([2, 1, 2, 0]), np.array([10.0, 20.0, 30.0, 40.0])))
    (array([0, 1, 2, 2]), array([40., 20., 10., 30.]))
    """
    single = not isinstance(operand, (list, tuple))
    operands = [tnp.asarray(operand)] if single else [tnp.asarray(x) for x in operand]
    shape = operands[0].shape
    if not shape or any(x.shape != shape for x in operands):
        raise TracingError(f"{user_line()}: sort needs operands of one shape, of rank 1 or more, got "
                           f"{[x.shape for x in operands]}")
    if not 1 <= num_keys <= len(operands):
        raise TracingError(f"{user_line()}: sort: num_keys {num_keys} for {len(operands)} operands")
    if not -len(shape) <= dimension < len(shape):
        raise TracingError(f"{user_line()}: sort: dimension {dimension} is out of bounds for rank {len(shape)}")
    last = [tnp.moveaxis(x, dimension, -1) for x in operands]
    order = lexsort_permutation(last[:num_keys])
    out = tuple(tnp.moveaxis(tnp.take_along_axis(x, order, -1), -1, dimension) for x in last)
    return out[0] if single else out


@emits_ops
def sort_key_val(keys, values, dimension: int = -1, is_stable: bool = True):
    """``(keys, values)`` sorted along ``dimension`` by the keys.

    Examples
    --------
    >>> import numpy as np
    >>> sort_key_val(np.array([3.0, 1.0, 2.0]), np.array([0, 1, 2]))
    (array([1., 2., 3.]), array([1, 2, 0]))
    """
    return sort((keys, values), dimension, is_stable, num_keys=1)


@emits_ops
def top_k(operand, k: int, *, axis: int = -1):
    """The ``k`` largest elements along ``axis`` (largest first, NaN counting as the largest) and their
    indices (int32, as JAX's); of equal elements the first comes first.

    Examples
    --------
    >>> import numpy as np
    >>> top_k(np.array([1.0, 5.0, 3.0, 5.0]), 3)
    (array([5., 5., 3.]), array([1, 3, 2], dtype=int32))
    """
    x = tnp.asarray(operand)
    if x.ndim == 0 or not -x.ndim <= axis < x.ndim:
        raise TracingError(f"{user_line()}: top_k: axis {axis} of an array of dimension {x.ndim}")
    last = tnp.moveaxis(x, axis, -1)
    if not 0 <= int(k) <= last.shape[-1]:
        raise TracingError(f"{user_line()}: top_k: k={k} for an axis of length {last.shape[-1]}")
    order = tnp.getitem(lexsort_permutation([last], descending=True), (Ellipsis, builtins.slice(0, int(k))))
    values = tnp.take_along_axis(last, order, -1)
    return tnp.moveaxis(values, -1, axis), tnp.moveaxis(tnp.astype(order, tnp.int32), -1, axis)


@emits_ops
def slice(operand, start_indices, limit_indices, strides=None):  # noqa: A001 (JAX's name)
    """The static slice ``operand[start:limit:strides]`` of every dim.

    Examples
    --------
    >>> import numpy as np
    >>> slice(np.arange(10.0), (1,), (8,), (3,))
    array([1., 4., 7.])
    """
    x = tnp.asarray(operand)
    strides = strides if strides is not None else (1,) * x.ndim
    if not len(start_indices) == len(limit_indices) == len(strides) == x.ndim:
        raise TracingError(f"{user_line()}: slice needs {x.ndim} starts, limits and strides")
    return tnp.getitem(x, tuple(builtins.slice(int(a), int(b), int(s))
                                for a, b, s in zip(start_indices, limit_indices, strides)))


@emits_ops
def slice_in_dim(operand, start_index, limit_index, stride: int = 1, axis: int = 0):
    """The static slice ``start:limit:stride`` along ``axis`` (None for a bound: the end).

    Examples
    --------
    >>> import numpy as np
    >>> slice_in_dim(np.arange(6.0).reshape(2, 3), 1, None, axis=1)
    array([[1., 2.],
           [4., 5.]])
    """
    x = tnp.asarray(operand)
    axis = axis % builtins.max(x.ndim, 1)
    return tnp.getitem(x, (builtins.slice(None),) * axis + (builtins.slice(start_index, limit_index, stride),))


@emits_ops
def index_in_dim(operand, index: int, axis: int = 0, keepdims: bool = True):
    """Element ``index`` (static) along ``axis``, kept as a dim of 1 with ``keepdims``.

    Examples
    --------
    >>> import numpy as np
    >>> index_in_dim(np.arange(6.0).reshape(2, 3), -1, axis=1, keepdims=False)
    array([2., 5.])
    """
    x = tnp.asarray(operand)
    axis = axis % builtins.max(x.ndim, 1)
    index = int(index) % x.shape[axis] if -x.shape[axis] <= int(index) < x.shape[axis] else int(index)
    out = slice_in_dim(x, index, index + 1, 1, axis)
    return out if keepdims else tnp.squeeze(out, axis)

# ----------------------------------------------------------------------------
# Special functions (elementwise tad ops of floats; tensorad.scipy.special promotes and wraps them)
# ----------------------------------------------------------------------------

def _special(op_name: str, x, attributes=None) -> Tracer:
    x = tnp.asarray(x)
    if not dtypes.is_float(x.dtype):
        raise TypeError(f"{op_name[4:]} takes floating-point arrays, got {x.dtype.name}")
    return Tracer.of(builder.build(op_name, [x.value], attributes or {}))


@emits_ops
def lgamma(x):
    """``log|Γ(x)|`` of a float array (``tad.lgamma``), as ``jax.lax.lgamma``.

    Examples
    --------
    >>> import numpy as np
    >>> lgamma(np.array([3.0, 0.5]))
    array([0.69314718, 0.57236494])
    """
    return _special("tad.lgamma", x)


@emits_ops
def digamma(x):
    """The digamma function ``d/dx log Γ(x)`` of a float array (``tad.polygamma`` of order 0).

    Examples
    --------
    >>> import numpy as np
    >>> digamma(np.array([1.0]))
    array([-0.57721566])
    """
    return _special("tad.polygamma", x, {"order": builder.scalar_attr(0, ir.IntegerType.get_signless(64))})


@emits_ops
def erf_inv(x):
    """The inverse error function of a float array (``tad.erf_inv``), as ``jax.lax.erf_inv``.

    Examples
    --------
    >>> import numpy as np
    >>> erf_inv(np.array([0.0, 0.5]))
    array([0.        , 0.47693628])
    """
    return _special("tad.erf_inv", x)
