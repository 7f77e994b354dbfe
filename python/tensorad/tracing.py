"""Tracing: running a Python function on symbolic arrays to build ``tad`` IR.

A :class:`Tracer` stands for a tensor value in the function being built. Every
op it emits carries the user's ``file:line`` as its MLIR location, found by
walking the Python stack to the first frame outside the tensorad package.

Examples
--------
>>> import numpy as np
>>> import tensorad.numpy as tnp
>>> module, out_tree, outs = trace_function(lambda x: tnp.exp(x) + 1.0,
...                                          [((3,), np.dtype("float32"))])
>>> "math.exp" in str(module)
True
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any, Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

from . import dtypes, tree
from .errors import ConcretizationError, TracingError

_PACKAGE_DIRS = tuple(
    os.path.dirname(os.path.abspath(p)) + os.sep
    for p in (__file__, __import__("tensorad.dialects").dialects.__file__,
              __import__("tensorad.passes").passes.__file__))


def user_frame():
    """Return the innermost Python frame outside tensorad (the user's code), or None."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIRS):
        frame = frame.f_back
    return frame


def user_line() -> str:
    """``"file:line"`` of the user's code that is running now.

    Examples
    --------
    >>> user_line().endswith(":1")
    True
    """
    frame = user_frame()
    return "<unknown>" if frame is None else f"{frame.f_code.co_filename}:{frame.f_lineno}"


def user_location() -> ir.Location:
    """MLIR ``FileLineColLoc`` of the user's code that is running now (needs a context)."""
    frame = user_frame()
    if frame is None:
        return ir.Location.unknown()
    return ir.Location.file(frame.f_code.co_filename, frame.f_lineno, 1)


_depth = 0


def emits_ops(fn: Callable) -> Callable:
    """Decorate a frontend function so the ops it emits carry the user's location.

    Only the outermost decorated call looks up the location, so helpers that
    call each other do not walk the stack again.
    """
    def wrapper(*args, **kwargs):
        global _depth
        if _depth:
            return fn(*args, **kwargs)
        _depth += 1
        try:
            if ir.Context.current is None:
                return fn(*args, **kwargs)
            with user_location():
                return fn(*args, **kwargs)
        finally:
            _depth -= 1

    wrapper.__name__, wrapper.__qualname__ = fn.__name__, fn.__qualname__
    wrapper.__doc__, wrapper.__wrapped__ = fn.__doc__, fn
    return wrapper


@contextlib.contextmanager
def emitting_at(location: ir.Location):
    """Make frontend functions emit ops at ``location`` (used by passes that build IR with them).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown() as loc, emitting_at(loc):
    ...     pass
    """
    global _depth
    _depth += 1
    try:
        with location:
            yield
    finally:
        _depth -= 1


class Tracer:
    """A symbolic array: one SSA tensor value of the function being traced.

    Behaves like a numpy array (``shape``, ``dtype``, operators, methods);
    anything that needs its runtime value (``bool(x)``, ``float(x)``) raises
    :class:`~tensorad.errors.ConcretizationError`.
    """

    __slots__ = ("value", "shape", "dtype")
    __array_priority__ = 1000  # numpy scalars on the left defer to our operators

    def __init__(self, value: ir.Value, shape: tuple, dtype: np.dtype):
        self.value = value
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)

    @classmethod
    def of(cls, value: ir.Value) -> "Tracer":
        """Wrap an MLIR tensor value."""
        t = value.type
        return cls(value, tuple(t.shape), dtypes.from_mlir(t.element_type))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d traced array")
        return self.shape[0]

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d traced array")
        return (self[i] for i in range(self.shape[0]))

    def __repr__(self) -> str:
        return f"Tracer(shape={self.shape}, dtype={self.dtype.name})"

    def _concrete(self, what: str):
        raise ConcretizationError(
            f"{user_line()}: {what} needs the concrete value of a traced array "
            f"{self.dtype.name}{list(self.shape)}, which is only known when the compiled "
            "code runs. Use tensorad.numpy.where(cond, x, y) to select values, "
            "or tensorad.lax.cond(pred, true_fn, false_fn, *operands) to branch.")

    def __bool__(self):
        self._concrete("converting to bool (an `if`, `while`, `and`, `or` or `not`)")

    def __float__(self):
        self._concrete("float()")

    def __int__(self):
        self._concrete("int()")

    def __index__(self):
        self._concrete("using it as an index")

    def __complex__(self):
        self._concrete("complex()")

    def __array__(self, *args, **kwargs):
        self._concrete("converting to a numpy array")

    def tolist(self):
        self._concrete("tolist()")

    def item(self):
        self._concrete("item()")

    __hash__ = None  # like numpy arrays: unhashable, since == is elementwise


class TraceState:
    """Where ops go while tracing: the MLIR context (shared by all traces)."""

    _context: ir.Context | None = None

    @classmethod
    def context(cls) -> ir.Context:
        """The process-wide context with upstream dialects and ``tad`` loaded."""
        if cls._context is None:
            from tensorad.dialects import make_context
            cls._context = make_context()
        return cls._context


def function_location(fun: Callable) -> ir.Location:
    """Location of ``fun``'s ``def`` line, or unknown for builtins."""
    code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
    if code is None:
        return ir.Location.unknown()
    return ir.Location.file(code.co_filename, code.co_firstlineno, 1)


def trace_function(fun: Callable, in_avals: Sequence[tuple], name: str = "main",
                   in_tree: tree.TreeDef | None = None):
    """Trace ``fun`` on abstract arguments into a module holding ``func.func @name``.

    Parameters
    ----------
    fun : callable
        Called with one :class:`Tracer` per entry of ``in_avals`` (rebuilt into
        ``in_tree`` when given).
    in_avals : sequence of (shape, dtype)
    name : str
        Symbol name of the traced function.
    in_tree : TreeDef, optional
        Structure to rebuild the arguments into.

    Returns
    -------
    module : mlir.ir.Module
    out_tree : TreeDef
        Structure of the results.
    out_avals : list of (shape, dtype)
    """
    from . import numpy as tnp

    ctx = TraceState.context()
    with ctx, function_location(fun):
        module = ir.Module.create()
        arg_types = [ir.RankedTensorType.get(list(shape), dtypes.to_mlir(dt)) for shape, dt in in_avals]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(name, ir.FunctionType.get(arg_types, []))
            entry = fn.add_entry_block()
        with ir.InsertionPoint(entry):
            tracers = [Tracer(a, shape, dt) for a, (shape, dt) in zip(entry.arguments, in_avals)]
            args = tracers if in_tree is None else tree.unflatten(in_tree, tracers)
            out = fun(*args) if in_tree is None else fun(*args[0], **args[1])
            out_leaves, out_tree = tree.flatten(out)
            with user_location():
                results = [tnp.asarray(leaf) for leaf in out_leaves]
            func.ReturnOp([r.value for r in results])
        fn.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get(arg_types, [r.value.type for r in results]))
    return module, out_tree, [(r.shape, r.dtype) for r in results]
