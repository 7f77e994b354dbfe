"""Scalar expressions of TVM-style tensor expressions: index variables, loads, arithmetic, reductions.

A compute's body is a tree of :class:`Expr` nodes built by ordinary Python
operators on the index variables a ``compute`` lambda receives and on the
loads ``X[i, k]`` of tensors. Each node knows its kind of value:

- ``"index"``: integer arithmetic on loop indices (affine when it indexes a tensor);
- ``"bool"``: comparisons and their ``all``/``any``;
- a float dtype name (``"float32"``, ``"float64"``): the values computed.

A Python number is *weak*: it takes the kind of the other operand, as a
literal does in TVM. An index meeting a float becomes that float.

Examples
--------
>>> from tensorad import te
>>> from tensorad.te.expr import Var
>>> i, k = Var("i"), te.reduce_axis((0, 4), "k")
>>> (i * 2 + k).kind, (i < 3).kind, (i * 0.5).kind is None
('index', 'bool', True)
"""

from __future__ import annotations

from typing import Optional, Sequence

INDEX, BOOL = "index", "bool"
FLOAT_KINDS = ("float16", "bfloat16", "float32", "float64")


class Expr:
    """A node of a scalar expression; Python operators build new nodes.

    Comparison operators build expressions too (as in TVM), so an expression
    has no truth value: use :func:`if_then_else`, :func:`all` or :func:`any`.
    Nodes hash by identity.
    """

    kind: str

    def __add__(self, other):
        return Binary("add", self, other)

    def __radd__(self, other):
        return Binary("add", other, self)

    def __sub__(self, other):
        return Binary("sub", self, other)

    def __rsub__(self, other):
        return Binary("sub", other, self)

    def __mul__(self, other):
        return Binary("mul", self, other)

    def __rmul__(self, other):
        return Binary("mul", other, self)

    def __truediv__(self, other):
        return Binary("div", self, other)

    def __rtruediv__(self, other):
        return Binary("div", other, self)

    def __floordiv__(self, other):
        return Binary("floordiv", self, other)

    def __rfloordiv__(self, other):
        return Binary("floordiv", other, self)

    def __mod__(self, other):
        return Binary("mod", self, other)

    def __rmod__(self, other):
        return Binary("mod", other, self)

    def __pow__(self, other):
        return Binary("pow", self, other)

    def __rpow__(self, other):
        return Binary("pow", other, self)

    def __neg__(self):
        return Binary("sub", 0, self)

    def __lt__(self, other):
        return Compare("lt", self, other)

    def __le__(self, other):
        return Compare("le", self, other)

    def __gt__(self, other):
        return Compare("gt", self, other)

    def __ge__(self, other):
        return Compare("ge", self, other)

    def __eq__(self, other):  # type: ignore[override]
        return Compare("eq", self, other)

    def __ne__(self, other):  # type: ignore[override]
        return Compare("ne", self, other)

    __hash__ = object.__hash__

    def __bool__(self):
        raise TypeError("a tensor expression has no truth value: it is computed per element; "
                        "use te.if_then_else, te.all or te.any instead of if/and/or")

    def astype(self, dtype: str) -> "Expr":
        """This value converted to ``dtype`` (``"float32"``, ``"float64"``)."""
        return Cast(self, str(dtype))

    def children(self) -> tuple:
        return ()


class Const(Expr):
    """A literal; ``kind`` None while it is weak (a Python number not yet met by a typed operand)."""

    def __init__(self, value, kind: Optional[str] = None):
        self.value, self.kind = value, kind

    def __repr__(self):
        return repr(self.value)


class Var(Expr):
    """A loop index: a dimension of a compute (from its lambda) or a reduction axis."""

    kind = INDEX

    def __init__(self, name: str):
        self.name = name

    def __repr__(self):
        return self.name


class ReduceAxis(Var):
    """A reduction axis over ``[lo, hi)`` (TVM's ``IterVar`` of a ``reduce_axis``)."""

    def __init__(self, lo: int, hi: int, name: str):
        super().__init__(name)
        if not (isinstance(lo, int) and isinstance(hi, int)) or hi <= lo:
            raise ValueError(f"reduce_axis({name!r}) needs integer bounds lo < hi, got ({lo!r}, {hi!r})")
        self.lo, self.hi = lo, hi

    @property
    def var(self) -> "ReduceAxis":
        """The axis itself (TVM code writes ``k.var``)."""
        return self

    @property
    def dom(self) -> tuple:
        return (self.lo, self.hi - self.lo)


def as_expr(x) -> Expr:
    """``x`` as an expression: expressions as they are, Python numbers as weak literals."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, bool):
        return Const(x, BOOL)
    if isinstance(x, (int, float)):
        return Const(x)
    import numpy as np
    if isinstance(x, np.generic) and x.ndim == 0:
        return Const(x.item(), str(x.dtype) if x.dtype.kind == "f" else None)
    raise TypeError(f"{type(x).__name__} is no tensor expression (an index, a load X[i], a number, ...)")


def _joined(a: Expr, b: Expr) -> str:
    """The kind of a binary arithmetic result: a float wins over an index; weak literals follow."""
    kinds = {e.kind for e in (a, b)} - {None}
    floats = kinds & set(FLOAT_KINDS)
    if len(floats) > 1:
        raise TypeError(f"operands of kinds {sorted(floats)} meet; convert one with .astype(...)")
    if BOOL in kinds:
        raise TypeError("booleans are no numbers here; use te.if_then_else(cond, 1.0, 0.0)")
    if floats:
        return floats.pop()
    # A float literal (or a float of the default type) makes a float of the compute's dtype later.
    if any(e.kind is None and not (isinstance(e, Const) and isinstance(e.value, int)) for e in (a, b)):
        return None
    return INDEX


class Binary(Expr):
    """``a op b`` for op in add, sub, mul, div, floordiv, mod, pow, max, min."""

    def __init__(self, op: str, a, b):
        self.op, self.a, self.b = op, as_expr(a), as_expr(b)
        self.kind = _joined(self.a, self.b)
        if op == "div" and self.kind == INDEX:
            raise TypeError("'/' on indices: use '//' (floor division) for index arithmetic")
        if op in ("floordiv", "mod") and self.kind not in (INDEX, None):
            raise TypeError(f"'{'//' if op == 'floordiv' else '%'}' is index arithmetic; use te.floor for floats")

    def children(self) -> tuple:
        return (self.a, self.b)

    def __repr__(self):
        return f"{self.op}({self.a!r}, {self.b!r})"


class Compare(Expr):
    """``a < b`` and friends: a boolean."""

    kind = BOOL

    def __init__(self, op: str, a, b):
        self.op, self.a, self.b = op, as_expr(a), as_expr(b)
        self.operand_kind = _joined(self.a, self.b)

    def children(self) -> tuple:
        return (self.a, self.b)


class Logical(Expr):
    """The conjunction (``and``) or disjunction (``or``) of booleans."""

    kind = BOOL

    def __init__(self, op: str, terms: Sequence):
        self.op, self.terms = op, tuple(as_expr(t) for t in terms)
        if not self.terms or any(t.kind != BOOL for t in self.terms):
            raise TypeError(f"te.{'all' if op == 'and' else 'any'} takes one or more conditions (comparisons)")

    def children(self) -> tuple:
        return self.terms


class Select(Expr):
    """``if_then_else(cond, then, otherwise)``: loads in the branches may fall outside their tensor."""

    def __init__(self, cond, then, otherwise):
        self.cond, self.then, self.otherwise = as_expr(cond), as_expr(then), as_expr(otherwise)
        if self.cond.kind != BOOL:
            raise TypeError("te.if_then_else needs a condition (a comparison) first")
        self.kind = _joined(self.then, self.otherwise)

    def children(self) -> tuple:
        return (self.cond, self.then, self.otherwise)


class Call(Expr):
    """An elementwise math function of float values (``exp``, ``log``, ``tanh``, ...)."""

    def __init__(self, name: str, args: Sequence):
        self.name, self.args = name, tuple(as_expr(a) for a in args)
        kinds = {a.kind for a in self.args} - {None}
        if BOOL in kinds:
            raise TypeError(f"te.{name} of a boolean")
        floats = kinds & set(FLOAT_KINDS)
        self.kind = floats.pop() if len(floats) == 1 else None
        if len(floats) > 1:
            raise TypeError(f"te.{name} of operands of kinds {sorted(floats)}")

    def children(self) -> tuple:
        return self.args


class Cast(Expr):
    """A conversion of an index or a float to the float ``kind``."""

    def __init__(self, value, kind: str):
        if kind not in FLOAT_KINDS:
            raise TypeError(f"astype({kind!r}): tensor expressions convert to float types only")
        self.value, self.kind = as_expr(value), kind

    def children(self) -> tuple:
        return (self.value,)


class Load(Expr):
    """``tensor[indices]``: one element of a tensor at index expressions of the loop variables."""

    def __init__(self, tensor, indices: Sequence):
        self.tensor, self.indices = tensor, tuple(as_expr(i) for i in indices)
        if len(self.indices) != len(tensor.shape):
            raise IndexError(f"{tensor.name} has {len(tensor.shape)} dims; {len(self.indices)} indices given")
        for index in self.indices:
            if index.kind not in (INDEX, None) or (isinstance(index, Const) and not isinstance(index.value, int)):
                raise TypeError(f"an index of {tensor.name} must be integer arithmetic of loop variables")
        self.kind = tensor.dtype

    def children(self) -> tuple:
        return self.indices


class Reduce(Expr):
    """``sum``/``max``/``min`` of a value over reduction axes (only at the top of a compute's body)."""

    IDENTITY = {"sum": 0.0, "max": float("-inf"), "min": float("inf")}

    def __init__(self, combiner: str, value, axes: Sequence[ReduceAxis], where=None):
        self.combiner, self.value = combiner, as_expr(value)
        self.axes = tuple(axes)
        if not self.axes or not all(isinstance(a, ReduceAxis) for a in self.axes):
            raise TypeError(f"te.{combiner} needs axis= one or more te.reduce_axis")
        self.where = None if where is None else as_expr(where)
        if self.where is not None and self.where.kind != BOOL:
            raise TypeError(f"te.{combiner}(where=...) needs a condition")
        if self.value.kind in (INDEX, BOOL):
            raise TypeError(f"te.{combiner} reduces float values; convert an index with .astype(...)")
        self.kind = self.value.kind

    def children(self) -> tuple:
        return (self.value,) + (() if self.where is None else (self.where,))


def walk(expr: Expr):
    """Every node of ``expr``, each once, parents before children."""
    seen, stack = set(), [expr]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(reversed(node.children()))
