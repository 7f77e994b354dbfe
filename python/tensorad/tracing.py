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

import ctypes
import importlib
import os
import sys
import threading
from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

from tensorad.dialects import builder

from . import dtypes, tree
from .errors import ConcretizationError, UnexpectedTracerError

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


class _EmitDepth(threading.local):
    """How many decorated frontend calls this thread is inside.

    Per thread: two threads tracing at once must not see each other's
    calls, or one would emit ops without a location.
    """

    depth = 0


_emit_depth = _EmitDepth()


def _eager_runner() -> Callable:
    """:func:`tensorad.eager.run`, loaded on first use.

    Eager execution compiles, so it sits above this layer (it needs the
    compiler, which traces through this module); it is looked up at run time
    rather than imported, which keeps the import graph acyclic and keeps
    tracing usable without the compiler.
    """
    global _eager_run
    if _eager_run is None:
        _eager_run = importlib.import_module("tensorad.eager").run
    return _eager_run


_eager_run = None


def emits_ops(fn: Callable) -> Callable:
    """Decorate a frontend function so the ops it emits carry the user's location.

    Only the outermost decorated call looks up the location, so helpers that
    call each other do not walk the stack again. A shape or dtype error
    raised inside (``TypeError``, ``ValueError``, ``IndexError``) gets the
    user's ``file:line: `` in front of its message. Called outside any trace,
    the function runs eagerly (:mod:`tensorad.eager`): it is compiled for its
    arguments, run, and returns numpy arrays.
    """
    def wrapper(*args, **kwargs):
        if ir.Context.current is None:
            # No IR is being built on this thread (a trace, and so a decorated call
            # inside one, always has the context entered): eager. tensorad.eager
            # checks for leaked tracers itself, after its fast path for plain arrays
            # and numbers (which are no tracers) has been tried.
            return (_eager_run or _eager_runner())(wrapper, args, kwargs)
        if _emit_depth.depth:
            return fn(*args, **kwargs)
        check_tracers_alive(args, kwargs.values())
        _emit_depth.depth += 1
        try:
            with user_location():
                return fn(*args, **kwargs)
        except (TypeError, ValueError, IndexError) as err:
            _prefix_users_line(err)
            raise
        finally:
            _emit_depth.depth -= 1

    wrapper.__name__, wrapper.__qualname__ = fn.__name__, fn.__qualname__
    wrapper.__doc__, wrapper.__wrapped__ = fn.__doc__, fn
    return wrapper


def _prefix_users_line(err: Exception) -> None:
    """Put ``file:line: `` of the user's code in front of the message of ``err``, raised inside tensorad.

    The line is the innermost user frame of the traceback (a ``lax.cond``
    branch calling ``matmul``), else the caller of the frontend function.
    Errors the user's own code raised, and messages that already start with
    the line, are left as they are.
    """
    frames, tb = [], err.__traceback__
    while tb is not None:
        frames.append((tb.tb_frame.f_code.co_filename, tb.tb_lineno))
        tb = tb.tb_next
    if not frames or not frames[-1][0].startswith(_PACKAGE_DIRS):
        return
    if not (err.args and isinstance(err.args[0], str)):
        return
    users = [f"{path}:{line}" for path, line in frames if not path.startswith(_PACKAGE_DIRS)]
    where = users[-1] if users else user_line()
    if not err.args[0].startswith(where):
        err.args = (f"{where}: {err.args[0]}",) + err.args[1:]


def check_tracers_alive(*groups) -> None:
    """Raise UnexpectedTracerError for a tracer (or list of them) in ``groups`` whose trace has ended.

    Checked before a frontend function emits anything, so that a leaked tracer
    is reported even where no op could be built (outside any trace).

    Examples
    --------
    >>> check_tracers_alive((1.0, [2.0]), {}.values())  # no tracers: nothing to report
    """
    for group in groups:
        for arg in group:
            for leaf in arg if isinstance(arg, (list, tuple)) else (arg,):
                if isinstance(leaf, Tracer):
                    leaf._check_alive()


class _Trace:
    """One function being traced; its tracers may be used only while it is."""

    __slots__ = ("module", "where")

    def __init__(self, module: ir.Module, where: str):
        self.module, self.where = module, where


class _ThreadTraces(threading.local):
    """The functions this thread is tracing, innermost last (a thread never sees another's)."""

    def __init__(self):
        self.stack: list = []


_traces = _ThreadTraces()


class Tracer:
    """A symbolic array: one SSA tensor value of the function being traced.

    Behaves like a numpy array (``shape``, ``dtype``, operators, methods);
    anything that needs its runtime value (``bool(x)``, ``float(x)``) raises
    :class:`~tensorad.errors.ConcretizationError`. A tracer belongs to the trace
    it was made in: used after that trace ended (kept in a list or a global),
    or from another thread, it raises
    :class:`~tensorad.errors.UnexpectedTracerError`.
    """

    __slots__ = ("_value", "shape", "dtype", "_trace")
    __array_priority__ = 1000  # numpy scalars on the left defer to our operators

    def __init__(self, value: ir.Value, shape: tuple, dtype: np.dtype):
        self._value = value
        self.shape = tuple(shape)
        self.dtype = np.dtype(dtype)
        # Tracers that passes make while compiling belong to no trace.
        self._trace = _traces.stack[-1] if _traces.stack else None

    @property
    def value(self) -> ir.Value:
        """The MLIR value; only while the trace that made this tracer is running."""
        self._check_alive()
        return self._value

    def _check_alive(self) -> None:
        if self._trace is None:
            return
        if self._trace not in _traces.stack:
            problem = "after that trace ended (or from another thread)"
        elif self._trace.module is not _traces.stack[-1].module:
            problem = "in a separate compilation started while it was traced"
        else:
            return
        raise UnexpectedTracerError(
            f"{user_line()}: a traced array {self.dtype.name}{list(self.shape)} of the function "
            f"traced at {self._trace.where} is used {problem}. A traced array exists only while "
            "its function is being traced: return it from the function instead of keeping it in "
            "a list, a global or an attribute.")

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
        self._check_alive()
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


def constant_tracer(x, dtype=None) -> Tracer:
    """``x`` (a Python scalar, numpy array or nested list) embedded as a constant of the trace.

    Python scalars are weakly typed as in numpy (NEP 50); an array whose
    elements are all equal becomes a ``tad.constant`` splat, others an
    ``arith.constant``.

    Examples
    --------
    >>> import tensorad as ta
    >>> ta.jit(lambda x: x * constant_tracer([1.0, 2.0]))(np.ones(2))
    array([1., 2.])
    """
    if isinstance(x, (bool, int, float)) and dtype is None:
        dtype = dtypes.result_type(x)
    arr = np.asarray(x, dtype=dtype)
    dtypes.check_supported(arr.dtype)
    if arr.ndim == 0 or (arr.size and (arr == arr.flat[0]).all()):
        value = builder.constant(arr.flat[0] if arr.size else 0, arr.shape, dtypes.to_mlir(arr.dtype))
    else:
        value = builder.array_constant(arr)
    return Tracer(value, arr.shape, arr.dtype)


class TraceState:
    """Where ops go while tracing: the shared MLIR context and the module being built."""

    _context: ir.Context | None = None

    @classmethod
    def context(cls) -> ir.Context:
        """The process-wide context with upstream dialects and ``tad`` loaded."""
        if cls._context is None:
            from tensorad.dialects import make_context
            cls._context = make_context()
        return cls._context


def function_location(fun: Callable) -> ir.Location:
    """Location of ``fun``'s ``def`` line; the user's current line for tensorad's own wrappers."""
    code = getattr(getattr(fun, "__wrapped__", fun), "__code__", None)
    if code is None or code.co_filename.startswith(_PACKAGE_DIRS):
        return user_location()
    return ir.Location.file(code.co_filename, code.co_firstlineno, 1)


def function_name(fun: Callable) -> str:
    """The symbol name ``fun`` is traced under: its ``__name__``, ``lambda_L<line>`` for a lambda.

    Examples
    --------
    >>> def loss(x):
    ...     return x
    >>> function_name(loss), function_name(lambda x: x)
    ('loss', 'lambda_L1')
    """
    fun = getattr(fun, "func", fun)  # a functools.partial is named after its function
    name = getattr(fun, "__name__", "fn")
    code = getattr(fun, "__code__", None)
    if name == "<lambda>" and code is not None:
        name = f"lambda_L{code.co_firstlineno}"
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name) or "fn"


def is_process_symbol(name: str) -> bool:
    """Whether ``name`` is a symbol of this process: libc's ``free``, libm's ``tanh``, Python's C API."""
    try:
        getattr(ctypes.CDLL(None), name)
    except AttributeError:
        return False
    return True


def unique_symbol(module: ir.Module, base: str, public: bool = False) -> str:
    """``base``, or ``base_2``, ``base_3``, ...: the first name no symbol of ``module`` has.

    Names are unique per module, not per process, so the IR of a function
    reads the same however many functions were traced before it. A
    ``public`` function (the entry point) also avoids the C functions of the
    process: compiled, it would take the place of libm's ``tanh`` that the
    lowered code calls.

    Examples
    --------
    >>> with TraceState.context():
    ...     module = ir.Module.parse("func.func private @loss()")
    >>> unique_symbol(module, "loss"), unique_symbol(module, "f"), unique_symbol(module, "tanh", public=True)
    ('loss_2', 'f', 'tanh_2')
    """
    taken = {op.attributes["sym_name"].value for op in module.body.operations
             if "sym_name" in op.attributes}
    name, n = base, 1
    while name in taken or (public and is_process_symbol(name)):
        n += 1
        name = f"{base}_{n}"
    return name


def trace_into(module: ir.Module, fun: Callable, in_avals: Sequence[tuple],
               in_tree: tree.TreeDef | None = None, name: str | None = None,
               private: bool = True):
    """Trace ``fun`` on abstract arguments into a new ``func.func`` at the end of ``module``.

    Parameters
    ----------
    module : mlir.ir.Module
    fun : callable
        Called with one :class:`Tracer` per entry of ``in_avals``, or, with
        ``in_tree``, with the ``(args, kwargs)`` pair rebuilt from them.
    in_avals : sequence of (shape, dtype)
    in_tree : TreeDef, optional
    name : str, optional
        Symbol name, by default :func:`function_name` of ``fun``; a suffix
        ``_2``, ``_3``, ... keeps it unique in ``module``.
    private : bool
        Give the function private visibility (callees are private).

    Returns
    -------
    name : str
    out_tree : TreeDef
        Structure of the results.
    out_avals : list of (shape, dtype)
    captured : list of mlir.ir.Value
        Values of enclosing functions that ``fun`` closed over; the function
        takes them as extra trailing arguments.
    """
    with TraceState.context(), function_location(fun):
        name = unique_symbol(module, name or function_name(fun), public=not private)
        arg_types = [dtypes.tensor_type(shape, dt) for shape, dt in in_avals]
        with ir.InsertionPoint(module.body):
            fn = func.FuncOp(name, ir.FunctionType.get(arg_types, []))
            if private:
                fn.attributes["sym_visibility"] = ir.StringAttr.get("private")
            entry = fn.add_entry_block()
        trace = _Trace(module, _describe_location(fn.location))
        _traces.stack.append(trace)
        try:
            with ir.InsertionPoint(entry):
                tracers = [Tracer(a, shape, dt) for a, (shape, dt) in zip(entry.arguments, in_avals)]
                args = tracers if in_tree is None else tree.unflatten(in_tree, tracers)
                out = fun(*args) if in_tree is None else fun(*args[0], **args[1])
                out_leaves, out_tree = tree.flatten(out)
                with user_location():
                    results = [leaf if isinstance(leaf, Tracer) else constant_tracer(leaf)
                               for leaf in out_leaves]
                result_values = [r.value for r in results]
                func.ReturnOp(result_values)
        finally:
            _traces.stack.remove(trace)
        captured = _lift_captures(fn.operation, entry)
        fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(
            arg_types + [v.type for v in captured], [v.type for v in result_values]))
    return name, out_tree, [(r.shape, r.dtype) for r in results], captured


def _describe_location(location: ir.Location) -> str:
    """``file:line`` of a ``FileLineColLoc`` as Python prints them."""
    text = str(location)  # loc("file":line:col)
    if text.startswith('loc("'):
        path, _, rest = text[5:].rpartition('":')
        return f"{path}:{rest.split(':')[0]}"
    return "<unknown>"


def _lift_captures(fn: ir.Operation, entry: ir.Block) -> list:
    """Turn values of enclosing functions used in ``fn`` (closures over outer tracers) into arguments.

    Returns the captured outer values, in the order of the new trailing arguments.
    """
    defined, uses = set(entry.arguments), []

    def visit(op: ir.Operation):
        defined.update(op.results)
        for region in op.regions:
            for block in region.blocks:
                defined.update(block.arguments)
        uses.extend((op, i, v) for i, v in enumerate(op.operands))
        return ir.WalkResult.ADVANCE

    fn.walk(visit, ir.WalkOrder.PRE_ORDER)
    captured: dict = {}
    for op, i, value in uses:
        if value in defined:
            continue
        if value not in captured:
            captured[value] = entry.add_argument(value.type, fn.location)
        op.operands[i] = captured[value]
    return list(captured)


def trace_function(fun: Callable, in_avals: Sequence[tuple], name: str | None = None,
                   in_tree: tree.TreeDef | None = None):
    """Trace ``fun`` into a new module whose first function is the public ``@name``.

    ``name`` is :func:`function_name` of ``fun`` by default, so the IR of
    ``loss`` shows ``@loss``.

    Returns
    -------
    module : mlir.ir.Module
    out_tree : TreeDef
    out_avals : list of (shape, dtype)
    """
    with TraceState.context(), function_location(fun):
        module = ir.Module.create()
    _, out_tree, out_avals, _ = trace_into(module, fun, in_avals, in_tree, name, private=False)
    return module, out_tree, out_avals


def current_module() -> ir.Module | None:
    """The module being traced into, or None outside tracing."""
    return _traces.stack[-1].module if _traces.stack else None
