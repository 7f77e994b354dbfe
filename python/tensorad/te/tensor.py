"""Tensors of the tensor-expression frontend: placeholders, computes, and tensors made by functions.

A :class:`Tensor` is a node of a dataflow graph, not an array: its value
exists once the graph is built (:func:`tensorad.te.build`) and called. Three
kinds of node make it:

- :func:`placeholder`: an argument;
- :func:`compute`: one element per index tuple, given by a Python lambda of
  the indices (a ``linalg.generic`` once built);
- a *function node* (:class:`FunctionOp`): a Python function of the values of
  other tensors, which emits tensorad ops (the derivative of a compute, a
  Jacobian, a user's ``fdiff``). :func:`tensorad.te.differentiate` makes them.

Examples
--------
>>> from tensorad import te
>>> X = te.placeholder((3, 4), name="X")
>>> k = te.reduce_axis((0, 4), name="k")
>>> S = te.compute((3,), lambda i: te.sum(X[i, k] * X[i, k], axis=k), name="S")
>>> S.shape, S.dtype, [t.name for t in S.op.input_tensors]
((3,), 'float32', ['X'])
"""

from __future__ import annotations

import builtins
import inspect
import itertools
from typing import Callable, Optional, Sequence

import numpy as np

from ..tracing import user_frame, user_line
from . import expr as E
from .emit import padding_of

_names = itertools.count()


class Shape(tuple):
    """A tensor's shape: a tuple that also concatenates with lists, as TVM's shape arrays do."""

    def __add__(self, other):
        return Shape(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Shape(tuple(other) + tuple(self))

    def __getitem__(self, index):
        item = tuple.__getitem__(self, index)
        return Shape(item) if isinstance(index, slice) else item


def _shape_of(shape) -> Shape:
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if not builtins.all(isinstance(d, (int, np.integer)) and d >= 0 for d in shape):
        raise ValueError(f"a tensor shape is a tuple of non-negative ints, got {shape!r}")
    return Shape(int(d) for d in shape)


def _dtype_name(dtype) -> str:
    name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    if name not in ("float32", "float64"):
        raise TypeError(f"te tensors hold float32 or float64 values, not {name}")
    return name


class PlaceholderOp:
    """The op of an argument tensor."""

    input_tensors: tuple = ()


class ComputeOp:
    """The op of a compute: its index variables, body expression and the padding its guarded reads need."""

    def __init__(self, shape: tuple, axes: tuple, body: E.Expr, name: str):
        self.axis, self.body = axes, body
        loads = [n for n in E.walk(body) if isinstance(n, E.Load)]
        self.input_tensors = tuple(dict.fromkeys(load.tensor for load in loads))
        self.pads = padding_of(shape, axes, body, name)

    @property
    def reduce_axis(self) -> tuple:
        return self.body.axes if isinstance(self.body, E.Reduce) else ()


class FunctionOp:
    """The op of a tensor computed by ``emit(*values of input_tensors)``, a function of tracers."""

    def __init__(self, input_tensors: Sequence["Tensor"], emit: Callable, describe: str):
        self.input_tensors, self.emit, self.describe = tuple(input_tensors), emit, describe


class Tensor:
    """A node of the tensor-expression graph; ``X[i, j]`` (or ``X(i, j)``) is a load in a compute body.

    Tensors hash and compare by identity, so they key dicts (``res.adjoints[X]``).
    """

    def __init__(self, shape, dtype, op, name: str):
        self.shape, self.dtype, self.op, self.name = _shape_of(shape), _dtype_name(dtype), op, name
        op.output = self  # TVM code reaches a tensor from its op
        frame = user_frame()
        # Where the user made it: the location of its ops, and of errors about it.
        self.where = ("<unknown>", 0) if frame is None else (frame.f_code.co_filename, frame.f_lineno)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __getitem__(self, indices) -> E.Load:
        if not isinstance(indices, tuple):
            indices = (indices,)
        return E.Load(self, indices)

    __call__ = __getitem__

    def __repr__(self):
        return f"Tensor(name={self.name}, shape={self.shape}, dtype={self.dtype})"


def placeholder(shape, dtype="float32", name: str = "placeholder") -> Tensor:
    """An argument tensor of the graph (TVM's ``te.placeholder``).

    Examples
    --------
    >>> from tensorad import te
    >>> te.placeholder((2, 3), "float64", name="A")
    Tensor(name=A, shape=(2, 3), dtype=float64)
    """
    return Tensor(shape, dtype, PlaceholderOp(), name)


def reduce_axis(dom, name: Optional[str] = None) -> E.ReduceAxis:
    """A reduction axis over ``range(lo, hi)`` given as ``dom = (lo, hi)``.

    Examples
    --------
    >>> from tensorad import te
    >>> te.reduce_axis((1, 4), name="k").dom
    (1, 3)
    """
    lo, hi = dom
    return E.ReduceAxis(int(lo), int(hi), name or f"rv{next(_names)}")


def _default_float(body: E.Expr) -> str:
    kinds = [n.kind for n in E.walk(body) if n.kind in E.FLOAT_KINDS]
    return kinds[0] if kinds else "float32"


def compute(shape, fcompute: Callable, name: str = "compute", tag: str = "", attrs=None) -> Tensor:
    """A tensor whose element at ``(i, j, ...)`` is ``fcompute(i, j, ...)`` (TVM's ``te.compute``).

    ``fcompute`` receives one index variable per dimension and returns an
    expression: arithmetic of loads ``X[...]`` at affine index expressions,
    math functions, :func:`if_then_else`, or a reduction (:func:`sum`,
    :func:`max`, :func:`min`) at the top. Reads through ``if_then_else`` may
    fall outside their tensor (zero padding, as TVM's ``pad``); other reads
    must stay inside. ``tag`` and ``attrs`` are accepted as in TVM and unused:
    tensorad schedules the result itself.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> A = te.placeholder((3,), "float64", name="A")
    >>> B = te.compute((3,), lambda i: A[i] * 2.0 + 1.0, name="B")
    >>> te.build([A, B])(np.arange(3.0))
    array([1., 3., 5.])
    """
    try:
        return _compute(_shape_of(shape), fcompute, name)
    except (TypeError, ValueError, IndexError) as err:
        # The user's line, not the lambda's: the mistake is in the compute as a whole.
        if err.args and isinstance(err.args[0], str) and not err.args[0].startswith(user_line()):
            err.args = (f"{user_line()}: {err.args[0]}",) + err.args[1:]
        raise


def _compute(shape: tuple, fcompute: Callable, name: str) -> Tensor:
    parameters = list(inspect.signature(fcompute).parameters.values())
    names = [p.name for p in parameters]
    if parameters and parameters[0].kind == inspect.Parameter.VAR_POSITIONAL:
        axes = tuple(E.Var(f"i{d}") for d in range(len(shape)))
        body = fcompute(*axes)
    elif len(names) == 1 and len(shape) != 1:
        axes = tuple(E.Var(f"i{d}") for d in range(len(shape)))
        body = fcompute(axes)
    elif len(names) == len(shape):
        axes = tuple(E.Var(n) for n in names)
        body = fcompute(*axes)
    else:
        raise TypeError(f"compute {name!r}: the lambda takes {len(names)} indices for a {len(shape)}-d shape")
    body = E.as_expr(body)
    nested = [n for n in E.walk(body) if isinstance(n, E.Reduce) and n is not body]
    if nested:
        raise TypeError(f"compute {name!r}: a reduction (te.sum/max/min) must be the whole body, "
                        "as in TVM; compute it into its own tensor first")
    if body.kind in (E.INDEX, E.BOOL):
        body = E.Cast(body, "float32") if body.kind == E.INDEX else E.Select(body, 1.0, 0.0)
    dtype = body.kind or _default_float(body)
    return Tensor(shape, dtype, ComputeOp(shape, axes, body, name), name)


def function_tensor(shape, dtype, inputs: Sequence[Tensor], emit: Callable, name: str, describe: str) -> Tensor:
    """A tensor computed by ``emit(*values of inputs)``, which emits tensorad ops and returns a tracer."""
    return Tensor(shape, dtype, FunctionOp(inputs, emit, describe), name)


def _reducer(combiner: str):
    def reduce(expr, axis=None, where=None, *args):
        if axis is None or isinstance(axis, E.ReduceAxis) or (
                isinstance(axis, (list, tuple)) and builtins.all(isinstance(a, E.ReduceAxis) for a in axis)):
            if axis is None:
                raise TypeError(f"te.{combiner} needs axis=, a te.reduce_axis or a list of them")
            return E.Reduce(combiner, expr, axis if isinstance(axis, (list, tuple)) else [axis], where)
        if combiner == "sum":
            raise TypeError("te.sum(a, b): the second argument must be a reduce_axis")
        # te.max(a, b) / te.min(a, b): the elementwise form, as TVM's reducers allow.
        return E.Binary(combiner, expr, axis)

    reduce.__name__ = combiner
    reduce.__doc__ = f"""The {combiner} of ``expr`` over ``axis`` (a reduce_axis or a list of them).

    ``where`` restricts it to the points where the condition holds.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> A = te.placeholder((2, 3), "float64", name="A")
    >>> k = te.reduce_axis((0, 3), name="k")
    >>> R = te.compute((2,), lambda i: te.{combiner}(A[i, k], axis=k))
    >>> te.build([A, R])(np.array([[1.0, 5.0, 2.0], [0.0, -1.0, 3.0]])).tolist()
    {dict(sum=[8.0, 2.0], max=[5.0, 3.0], min=[1.0, -1.0])[combiner]}
    """
    return reduce


sum = _reducer("sum")  # noqa: A001 (TVM's name)
max = _reducer("max")  # noqa: A001
min = _reducer("min")  # noqa: A001


def if_then_else(cond, then, otherwise) -> E.Expr:
    """``then`` where ``cond`` holds, else ``otherwise``; loads in the branches may fall out of bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from tensorad import te
    >>> A = te.placeholder((3,), "float64", name="A")
    >>> P = te.compute((5,), lambda i: te.if_then_else(te.all(i >= 1, i < 4), A[i - 1], 0.0))
    >>> te.build([A, P])(np.array([1.0, 2.0, 3.0])).tolist()
    [0.0, 1.0, 2.0, 3.0, 0.0]
    """
    return E.Select(cond, then, otherwise)


def all(*conds) -> E.Expr:  # noqa: A001
    """The conjunction of conditions (TVM's ``te.all``)."""
    return E.Logical("and", conds)


def any(*conds) -> E.Expr:  # noqa: A001
    """The disjunction of conditions (TVM's ``te.any``)."""
    return E.Logical("or", conds)


def const(value, dtype: Optional[str] = None) -> E.Expr:
    """A literal of ``dtype`` (a float type; None keeps it weak, as a Python number)."""
    if dtype is not None and dtype not in E.FLOAT_KINDS:
        return E.Const(int(value))
    return E.Const(float(value), dtype)


def _math(name: str, doc: str):
    def function(x):
        return E.Call(name, [x])

    function.__name__, function.__doc__ = name, f"Elementwise {doc} of a float expression."
    return function


exp, log, sqrt, tanh = _math("exp", "e**x"), _math("log", "natural log"), _math("sqrt", "square root"), \
    _math("tanh", "hyperbolic tangent")
sigmoid, sin, cos, abs = _math("sigmoid", "1 / (1 + exp(-x))"), _math("sin", "sine"), \
    _math("cos", "cosine"), _math("abs", "absolute value")  # noqa: A001
floor, ceil, erf, rsqrt = _math("floor", "floor"), _math("ceil", "ceiling"), _math("erf", "error function"), \
    _math("rsqrt", "1 / sqrt(x)")
log1p, expm1 = _math("log1p", "log(1 + x)"), _math("expm1", "exp(x) - 1")


def power(x, y) -> E.Expr:
    """``x ** y`` elementwise."""
    return E.Binary("pow", x, y)


def graph_of(outputs: Sequence[Tensor]) -> list:
    """Every tensor the ``outputs`` depend on (them included), inputs before their users."""
    order, state = [], {}
    for root in outputs:
        stack = [(root, False)]
        while stack:
            t, done = stack.pop()
            if done:
                if state.get(t) != "done":
                    state[t] = "done"
                    order.append(t)
                continue
            if t in state:
                continue
            state[t] = "open"
            stack.append((t, True))
            stack.extend((i, False) for i in reversed(t.op.input_tensors) if i not in state)
    return order
