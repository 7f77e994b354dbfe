"""The value-level IR builder: the one way passes, rules and frontends emit ops.

Functions here take and return :class:`Val` (or plain ``ir.Value``), insert at
the current ``ir.InsertionPoint`` with the current ``ir.Location``, and build
``tad``, ``arith``, ``math`` and ``tensor`` ops. There is no type promotion and
no tracer: operands of an elementwise op must share an element type; a Python
scalar takes the element type of the value it meets, and shapes broadcast as
numpy's do (trailing dimensions aligned), which is what derivative rules need
for a (co)tangent with a batch prefix. ``tad`` ops are checked (and their
result types inferred) by the shape rule of their record, so any declared op
can be built with :func:`build` without a function of its own. This module is
to the numpy frontend what ``jax.lax`` is to ``jax.numpy``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> with make_context(), ir.Location.unknown():
...     module = ir.Module.create()
...     f32 = ir.F32Type.get()
...     with ir.InsertionPoint(module.body):
...         x = Val(constant(1.0, (2, 3), f32))
...         y = transpose(x * 2.0 + 1.0, (1, 0))
>>> str(y.type)
'tensor<3x2xf32>'
"""

from __future__ import annotations

import builtins
from typing import Sequence, Union

import numpy as np
from mlir import ir
from mlir.dialects import arith, tensor
from mlir.dialects import complex as complex_dialect

from .shapes import DYNAMIC, ShapeError, TensorSpec, attr_to_python, infer, is_dynamic

Scalar = Union[bool, int, float]


def _i64_array(values: Sequence[int]) -> ir.Attribute:
    return ir.DenseI64ArrayAttr.get([int(v) for v in values])


def build(name: str, operands: Sequence, attributes: dict, result: TensorSpec | None = None) -> "Val":
    """Create the ``tad`` op ``name`` after checking it with the shape rule of its record.

    ``result`` is needed for ops whose result type the rule cannot infer
    (``reshape``, ``broadcast_in_dim``, ``iota``, ``constant``, ``convert``
    and the backward ops, which take the shape of a primal).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         x = constant(0.0, (4, 2), ir.F64Type.get())
    ...         y = build("tad.reduce_sum", [x], {"dimensions": ir.DenseI64ArrayAttr.get([1])})
    >>> y.shape
    (4,)
    """
    [out] = build_all(name, operands, attributes, None if result is None else [result])
    return out


def build_all(name: str, operands: Sequence, attributes: dict, results: Sequence | None = None) -> list:
    """Like :func:`build` for an op with any number of results (``tad.lu``, ``tad.svd``): a list of them."""
    specs = [TensorSpec.of(v.type) for v in operands]
    py_attrs = {k: attr_to_python(a) for k, a in attributes.items()}
    try:
        outs = infer(name, specs, py_attrs, None if results is None else list(results))
    except ShapeError as err:
        raise ShapeError(f"'{name}' {err}") from None
    op = ir.Operation.create(name, results=[out.to_type() for out in outs], operands=operands,
                             attributes=attributes)
    return [Val(r) for r in op.results]


class Val(ir.Value):
    """An ``ir.Value`` with the operators and properties rules are written with.

    ``Val(v)`` views any value; it is still that value (usable as an operand,
    equal to ``v``). ``a * b``, ``a + 1.0``, ``-a``, ``a / b`` build ``arith``
    ops (see :func:`elementwise`); ``shape``, ``ndim`` and ``element_type``
    read the type.
    """

    @property
    def shape(self) -> tuple:
        return tuple(self.type.shape) if isinstance(self.type, ir.ShapedType) else ()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def element_type(self) -> ir.Type:
        return self.type.element_type if isinstance(self.type, ir.ShapedType) else self.type

    @property
    def is_float(self) -> bool:
        return isinstance(self.element_type, ir.FloatType)

    @property
    def is_complex(self) -> bool:
        return isinstance(self.element_type, ir.ComplexType)

    def astype(self, element_type: ir.Type) -> "Val":
        """Convert the elements (``tad.convert``; the value itself when the type is already right)."""
        return convert(self, element_type)

    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        # ``2.0 + x`` builds ``addf(2.0, x)``, operands in written order, as numpy's operators do.
        return add(other, self)

    def __sub__(self, other):
        return subtract(self, other)

    def __rsub__(self, other):
        return subtract(other, self)

    def __mul__(self, other):
        return multiply(self, other)

    def __rmul__(self, other):
        return multiply(other, self)

    def __truediv__(self, other):
        return divide(self, other)

    def __rtruediv__(self, other):
        return divide(other, self)

    def __neg__(self):
        return negative(self)


def wrap(x) -> Val:
    """``x`` as a :class:`Val` (``ir.Value`` or ``Val``)."""
    return x if isinstance(x, Val) else Val(x)


# ----------------------------------------------------------------------------
# Constants
# ----------------------------------------------------------------------------

def scalar_attr(value, element_type: ir.Type) -> ir.Attribute:
    """Return ``value`` as a float or integer attribute of ``element_type``."""
    if isinstance(element_type, ir.FloatType):
        return ir.FloatAttr.get(element_type, float(value))
    return ir.IntegerAttr.get(element_type, int(value))


def constant(value, shape: Sequence[int], element_type: ir.Type) -> Val:
    """A tensor of ``shape`` filled with the scalar ``value`` (``tad.constant``; complex ones from their parts)."""
    if isinstance(element_type, ir.ComplexType):
        part = element_type.element_type
        return make_complex(constant(complex(value).real, shape, part), constant(complex(value).imag, shape, part))
    return build("tad.constant", [], {"value": scalar_attr(value, element_type)},
                 TensorSpec(tuple(shape), element_type))


def scalar_constant(value, element_type: ir.Type) -> Val:
    """The scalar ``value`` of ``element_type`` (``arith.constant``; not a tensor).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         two = scalar_constant(2.0, ir.F64Type.get())
    >>> str(two.type)
    'f64'
    """
    if isinstance(element_type, ir.ComplexType):
        part = element_type.element_type
        return make_complex(scalar_constant(complex(value).real, part), scalar_constant(complex(value).imag, part))
    return Val(arith.ConstantOp(element_type, scalar_attr(value, element_type)).result)


def array_constant(array: np.ndarray) -> Val:
    """An ``arith.constant`` holding the elements of a numpy array (dtype mapped by the bindings)."""
    array = np.ascontiguousarray(array)
    if array.dtype.kind == "c":  # the bindings take no complex buffers: the parts
        return make_complex(array_constant(array.real), array_constant(array.imag))
    if array.dtype.name == "bfloat16":  # ml_dtypes' type, which the bindings do not know: its bits
        attr = ir.DenseElementsAttr.get(array.view(np.uint16), type=ir.BF16Type.get())
    else:
        attr = ir.DenseElementsAttr.get(array)
    return Val(arith.ConstantOp(attr.type, attr).result)


def splat_value(value: ir.Value) -> ir.Attribute | None:
    """The scalar attribute of the ``tad.constant`` defining ``value``, or None (for folds).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         two = constant(2.0, (3,), ir.F32Type.get())
    ...         print(splat_value(two).value, splat_value(two + two))
    2.0 None
    """
    owner = value.owner  # a Block for a block argument
    if isinstance(owner, (ir.Operation, ir.OpView)) and owner.name == "tad.constant":
        return owner.attributes["value"]
    return None


def zeros(shape: Sequence[int], element_type: ir.Type) -> Val:
    """Zeros of ``shape``."""
    return constant(0, shape, element_type)


def ones(shape: Sequence[int], element_type: ir.Type) -> Val:
    """Ones of ``shape``."""
    return constant(1, shape, element_type)


# ----------------------------------------------------------------------------
# Elementwise arith and math
# ----------------------------------------------------------------------------

def broadcast_shapes(*shapes) -> tuple:
    """numpy's broadcast of shapes; equal shapes (dynamic dims included) broadcast to themselves.

    A dynamic dim (``?``) is taken for a size other than 1: it broadcasts a
    size-1 dim, and stands for the static size it meets.

    Examples
    --------
    >>> from tensorad.dialects.shapes import DYNAMIC
    >>> broadcast_shapes((3, 1), (2, 1, 4)), broadcast_shapes((DYNAMIC, 1), (4,)) == (DYNAMIC, 4)
    ((2, 3, 4), True)
    """
    if all(tuple(s) == tuple(shapes[0]) for s in shapes):
        return tuple(shapes[0])
    rank = max(len(s) for s in shapes)
    out = []
    for d in range(rank):
        sizes = {s[d - rank + len(s)] for s in shapes if d - rank + len(s) >= 0} - {1}
        if len(sizes) > 1 and any(map(is_dynamic, sizes)):
            sizes = {n for n in sizes if not is_dynamic(n)} or {next(iter(sizes))}
        if len(sizes) > 1:
            raise ValueError(f"shapes {' '.join(str(tuple(s)) for s in shapes)} do not broadcast together")
        out.append(sizes.pop() if sizes else 1)
    return tuple(out)


def _operands(args: Sequence, element_type: ir.Type | None = None) -> list:
    """Tensors of one shape for ``args``: values broadcast, Python scalars splatted.

    Every value must have ``element_type`` (the first value's by default);
    there is no promotion. When every value is a scalar (``f64``, not
    ``tensor<f64>``) the operands stay scalars and Python numbers become
    ``arith.constant`` scalars, so rules apply unchanged to scalar functions.
    """
    values = [wrap(a) for a in args if not isinstance(a, (bool, int, float))]
    if not values:
        raise TypeError("an elementwise op needs at least one IR value among its operands")
    element_type = element_type or values[0].element_type
    for v in values:
        if v.element_type != element_type:
            raise TypeError(f"element types differ: {v.element_type} and {element_type} "
                            "(the builder does not promote; convert first)")
    if not any(isinstance(v.type, ir.ShapedType) for v in values):
        return [scalar_constant(a, element_type) if isinstance(a, (bool, int, float)) else wrap(a)
                for a in args]
    shape = broadcast_shapes(*(v.shape for v in values))
    # A value of the result's shape gives the sizes of its dynamic dims (``?``).
    like = _of_shape(values, shape)
    return [(constant(a, shape, element_type) if like is None else full_like(like, a, element_type=element_type))
            if isinstance(a, (bool, int, float)) else broadcast_to(a, shape, like) for a in args]


def _of_shape(values: Sequence, shape: tuple):
    """A value of ``values`` whose shape is ``shape`` (the sizes of its dynamic dims), or None."""
    return next((v for v in values if v.shape == tuple(shape)), None)


def elementwise(name: str, args: Sequence, result_element_type: ir.Type | None = None,
                attributes: dict | None = None, operand_element_type: ir.Type | None = None) -> Val:
    """Upstream elementwise op ``name`` (``arith.addf``, ``math.exp``) on broadcast operands.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         x = zeros((2, 3), ir.F32Type.get())
    ...         y = elementwise("math.exp", [x])
    >>> y.owner.name
    'math.exp'
    """
    operands = _operands(args, operand_element_type)
    like = operands[0]
    if like.is_complex and name != "arith.select":
        return _complex_elementwise(name, operands)
    out_type = ir.RankedTensorType.get(list(like.shape), result_element_type or like.element_type) \
        if isinstance(like.type, ir.RankedTensorType) else (result_element_type or like.element_type)
    op = ir.Operation.create(name, results=[out_type], operands=list(operands),
                             attributes=attributes or {})
    return Val(op.result)


def _kind(args: Sequence) -> str:
    t = next(wrap(a) for a in args if not isinstance(a, (bool, int, float))).element_type
    if isinstance(t, ir.FloatType):
        return "float"
    if isinstance(t, ir.ComplexType):
        return "complex"
    return "bool" if isinstance(t, ir.IntegerType) and t.width == 1 else "int"


def _by_kind(float_op: str | None, int_op: str | None, bool_op: str | None = None):
    # Complex operands take the float op: elementwise() expands it on their parts (or refuses it).
    table = {"float": float_op, "int": int_op, "bool": bool_op, "complex": float_op}

    def fn(*args):
        name = table[_kind(args)]
        if name is None:
            raise TypeError(f"no op for {_kind(args)} operands among {[n for n in table.values() if n]}")
        return elementwise(name, args)

    return fn


add = _by_kind("arith.addf", "arith.addi", "arith.ori")
subtract = _by_kind("arith.subf", "arith.subi")
multiply = _by_kind("arith.mulf", "arith.muli", "arith.andi")
divide = _by_kind("arith.divf", "arith.divsi")
maximum = _by_kind("arith.maximumf", "arith.maxsi", "arith.ori")
minimum = _by_kind("arith.minimumf", "arith.minsi", "arith.andi")
power = _by_kind("math.powf", "math.ipowi")
atan2 = _by_kind("math.atan2", None)
copysign = _by_kind("math.copysign", None)
logical_and = _by_kind(None, None, "arith.andi")
logical_or = _by_kind(None, None, "arith.ori")
for _fn, _name in ((add, "add"), (subtract, "subtract"), (multiply, "multiply"), (divide, "divide"),
                   (maximum, "maximum"), (minimum, "minimum"), (power, "power"), (atan2, "atan2"),
                   (copysign, "copysign"), (logical_and, "logical_and"), (logical_or, "logical_or")):
    _fn.__name__ = _fn.__qualname__ = _name
    _fn.__doc__ = f"Elementwise ``{_name}`` of operands of one element type (Python scalars adapt)."


def _unary(op_name: str):
    def fn(x):
        return elementwise(op_name, [x])

    fn.__name__ = fn.__qualname__ = op_name.split(".")[1]
    fn.__doc__ = f"Elementwise ``{op_name}``."
    return fn


exp, expm1, log, log1p = _unary("math.exp"), _unary("math.expm1"), _unary("math.log"), _unary("math.log1p")
sin, cos, tan, tanh = _unary("math.sin"), _unary("math.cos"), _unary("math.tan"), _unary("math.tanh")
sqrt, rsqrt, absf, floor = _unary("math.sqrt"), _unary("math.rsqrt"), _unary("math.absf"), _unary("math.floor")
sinh, cosh, trunc = _unary("math.sinh"), _unary("math.cosh"), _unary("math.trunc")


def negative(x) -> Val:
    """Elementwise ``-x`` (``arith.negf`` for floats, ``0 - x`` for integers)."""
    x = wrap(x)
    return elementwise("arith.negf", [x]) if x.is_float or x.is_complex else subtract(0, x)


def square(x) -> Val:
    """Elementwise ``x * x``."""
    return multiply(x, x)


def reciprocal(x) -> Val:
    """Elementwise ``1 / x`` of floats."""
    return divide(1.0, x)


_CMPF = {"eq": 1, "gt": 2, "ge": 3, "lt": 4, "le": 5, "ne": 13}  # ordered, except != (une)
_CMPI_SIGNED = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}
_CMPI_UNSIGNED = {"eq": 0, "ne": 1, "lt": 6, "le": 7, "gt": 8, "ge": 9}


def compare(kind: str, a, b) -> Val:
    """Elementwise comparison ``kind`` in ``eq ne lt le gt ge``; an ``i1`` tensor (bools compare unsigned)."""
    category = _kind([a, b])
    if category == "complex":  # equal where both parts are; complex numbers have no order
        if kind not in ("eq", "ne"):
            raise TypeError(f"complex numbers have no order: no comparison {kind!r}")
        a, b = _operands([a, b])
        parts = [compare(kind, part(a), part(b)) for part in (real, imag)]
        return (logical_and if kind == "eq" else logical_or)(*parts)
    if category == "float":
        name, predicate = "arith.cmpf", _CMPF[kind]
    else:
        name = "arith.cmpi"
        predicate = (_CMPI_UNSIGNED if category == "bool" else _CMPI_SIGNED)[kind]
    attr = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), predicate)
    return elementwise(name, [a, b], ir.IntegerType.get_signless(1), {"predicate": attr})


def equal(a, b) -> Val:
    """Elementwise ``a == b``."""
    return compare("eq", a, b)


def not_equal(a, b) -> Val:
    """Elementwise ``a != b`` (true where either is NaN)."""
    return compare("ne", a, b)


def less(a, b) -> Val:
    """Elementwise ``a < b``."""
    return compare("lt", a, b)


def greater(a, b) -> Val:
    """Elementwise ``a > b``."""
    return compare("gt", a, b)


def select(condition, on_true, on_false) -> Val:
    """``arith.select``: ``on_true`` where ``condition`` (an ``i1`` tensor) holds, else ``on_false``.

    Scalars take the element type of the other branch; all three broadcast.
    """
    branches = [wrap(v) for v in (on_true, on_false) if not isinstance(v, (bool, int, float))]
    if not branches:
        raise TypeError("select needs an IR value in one of its branches to know the element type")
    element_type = branches[0].element_type
    condition = wrap(condition)
    shape = broadcast_shapes(condition.shape, *(b.shape for b in branches))
    a, b = _operands([on_true, on_false, branches[0]], element_type)[:2]
    like = _of_shape([condition, a, b], shape)
    if isinstance(a.type, ir.ShapedType) or isinstance(condition.type, ir.ShapedType):
        a, b = broadcast_to(a, shape, like), broadcast_to(b, shape, like)
    if isinstance(condition.type, ir.ShapedType):
        condition = broadcast_to(condition, shape, like)
    # else a scalar i1 selects between whole values, as arith.select allows.
    op = ir.Operation.create("arith.select", results=[a.type], operands=[condition, a, b])
    return Val(op.result)


def sign(x) -> Val:
    """Elementwise sign of floats: -1, 0 or 1 (``(x > 0) - (x < 0)``, as numpy's); NaN stays NaN.

    Of complex numbers, ``z / |z|`` (0 at 0, as numpy 2's), with JAX's derivative: zero.
    """
    x = wrap(x)
    if x.is_complex:
        magnitude = complex_abs(x)
        at_zero = equal(magnitude, 0.0)
        unit = _complex_divide(x, make_complex(select(at_zero, 1.0, magnitude), zeros_like(magnitude)))
        return marker("stop_gradient", select(at_zero, zeros_like(x), unit))
    s = subtract(convert(greater(x, 0.0), x.element_type), convert(less(x, 0.0), x.element_type))
    return select(not_equal(x, x), x, s)


def _is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def convert_scalar(x: ir.Value, to: ir.Type) -> ir.Value:
    """Convert one element with numpy ``astype`` semantics (floats truncate toward zero)."""
    src = x.type
    if src == to:
        return x
    if _is_bool(to):
        zero = arith.constant(src, scalar_attr(0, src))
        if isinstance(src, ir.FloatType):
            return arith.cmpf(arith.CmpFPredicate.UNE, x, zero)
        return arith.cmpi(arith.CmpIPredicate.ne, x, zero)
    if isinstance(src, ir.FloatType):
        if isinstance(to, ir.IntegerType):
            # LLVM's fptosi of NaN or of a value out of range is poison (any value, changing with the
            # optimizer): those give the least value, as numpy's conversion does on x86.
            least = -(2 ** (to.width - 1))
            low = arith.constant(src, scalar_attr(float(least), src))
            high = arith.constant(src, scalar_attr(-float(least), src))
            in_range = arith.andi(arith.cmpf(arith.CmpFPredicate.OGE, x, low),
                                  arith.cmpf(arith.CmpFPredicate.OLT, x, high))
            return arith.select(in_range, arith.fptosi(to, x), arith.constant(to, scalar_attr(least, to)))
        f32 = ir.F32Type.get()
        if isinstance(to, ir.BF16Type) and not isinstance(src, ir.F32Type):
            # From f64 through f32, as ml_dtypes' conversion (numpy's bfloat16) rounds, and from f16 through
            # f32 (exactly); on the CPU, tad-round-bf16-on-bits rounds the f32 on its bits.
            return arith.truncf(to, (arith.extf if src.width < 32 else arith.truncf)(f32, x))
        if isinstance(src, ir.BF16Type) and isinstance(to, ir.F16Type):  # neither holds the other: through f32
            return arith.truncf(to, arith.extf(f32, x))
        return (arith.extf if to.width > src.width else arith.truncf)(to, x)
    if isinstance(to, ir.FloatType):
        return (arith.uitofp if _is_bool(src) else arith.sitofp)(to, x)
    if to.width > src.width:
        return (arith.extui if _is_bool(src) else arith.extsi)(to, x)
    return arith.trunci(to, x)



def convert(x, element_type: ir.Type) -> Val:
    """Convert the elements of ``x`` to ``element_type`` (``tad.convert``; ``x`` when already of it)."""
    x = wrap(x)
    if x.element_type == element_type:
        return x
    if isinstance(element_type, ir.ComplexType):  # the parts converted; a real x is the real part
        part = element_type.element_type
        if x.is_complex:
            return make_complex(convert(real(x), part), convert(imag(x), part))
        re = convert(x, part)
        return make_complex(re, zeros_like(re))
    if x.is_complex:  # numpy's astype: the imaginary part is dropped
        return convert(real(x), element_type)
    if not isinstance(x.type, ir.ShapedType):
        return Val(convert_scalar(x, element_type))
    return build("tad.convert", [x], {}, TensorSpec(x.shape, element_type))


# ----------------------------------------------------------------------------
# Complex numbers: tensors of complex<f32>/complex<f64>, computed on their parts
# ----------------------------------------------------------------------------

def make_complex(re, im) -> Val:
    """``re + i im`` of two float values of one type (``tad.complex``; ``complex.create`` on scalars).

    Arithmetic on the result expands on its parts (:func:`elementwise`):

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         z = make_complex(constant(1.0, (2,), ir.F64Type.get()), constant(2.0, (2,), ir.F64Type.get()))
    ...         w = z * z
    >>> str(w.type), w.owner.name
    ('tensor<2xcomplex<f64>>', 'tad.complex')
    """
    re, im = wrap(re), wrap(im)
    if not isinstance(re.type, ir.ShapedType):
        return Val(complex_dialect.CreateOp(ir.ComplexType.get(re.type), re, im).result)
    return build("tad.complex", [re, im], {})


def real(z) -> Val:
    """The real part of a complex value (``tad.real``; ``complex.re`` on scalars)."""
    z = wrap(z)
    if not isinstance(z.type, ir.ShapedType):
        return Val(complex_dialect.ReOp(z).result)
    return build("tad.real", [z], {})


def imag(z) -> Val:
    """The imaginary part of a complex value (``tad.imag``; ``complex.im`` on scalars)."""
    z = wrap(z)
    if not isinstance(z.type, ir.ShapedType):
        return Val(complex_dialect.ImOp(z).result)
    return build("tad.imag", [z], {})


def conj(z) -> Val:
    """The complex conjugate ``re - i im``."""
    return make_complex(real(z), negative(imag(z)))


def _parts(v) -> tuple:
    """(real part, imaginary part) of a value; None for the imaginary part of a real one."""
    v = wrap(v)
    return (real(v), imag(v)) if v.is_complex else (v, None)


def _sum_parts(a, b, negate_second: bool = False):
    """``a + b`` (``a - b`` with ``negate_second``) where either may be None (zero)."""
    if b is None:
        return a
    if a is None:
        return negative(b) if negate_second else b
    return a - b if negate_second else a + b


def complex_abs(z) -> Val:
    """``|z|`` as ``m sqrt(1 + (n/m)**2)`` (``m``, ``n`` the larger and smaller part): no overflow of the squares.

    ``|0| = 0``, with the quotient taken of 1 there so that no derivative is ``0/0``.
    """
    a, b = absf(real(z)), absf(imag(z))
    big, small = maximum(a, b), minimum(a, b)
    zero = equal(big, 0.0)
    ratio = small / select(zero, 1.0, big)
    return select(zero, 0.0, big * sqrt(1.0 + ratio * ratio))


def _complex_log(z) -> Val:
    return make_complex(log(complex_abs(z)), atan2(imag(z), real(z)))


def _complex_exp(z) -> Val:
    magnitude = exp(real(z))
    return make_complex(magnitude * cos(imag(z)), magnitude * sin(imag(z)))


def _complex_divide(a, b) -> Val:
    """``a / b``, ``b`` scaled by ``|re b| + |im b|`` first (as Smith's algorithm, no overflow of ``|b|**2``)."""
    (ar, ai), (br, bi) = _parts(a), _parts(b)
    scale = absf(br) + absf(bi)
    br, bi = br / scale, bi / scale
    denominator = (br * br + bi * bi) * scale
    return make_complex((ar * br + ai * bi) / denominator, (ai * br - ar * bi) / denominator)


def _complex_sqrt(z) -> Val:
    """The principal square root (numpy's): ``t = sqrt((|z| + |re|)/2)``, the other part ``im / 2t``."""
    re, im = real(z), imag(z)
    t = sqrt((complex_abs(z) + absf(re)) * 0.5)
    zero = equal(t, 0.0)
    half_ratio = absf(im) / (2.0 * select(zero, 1.0, t))
    right = greater(re, 0.0)
    out_re = select(zero, 0.0, select(right, t, half_ratio))
    out_im = select(zero, im, select(right, im / (2.0 * select(zero, 1.0, t)), copysign(t, im)))
    return make_complex(out_re, out_im)


def _complex_tanh(z) -> Val:
    """``(sinh 2x + i sin 2y) / (cosh 2x + cos 2y)``; for ``|x| > 20``, ``±1 + 4i sin y cos y e^(-2|x|)``."""
    x, y = real(z), imag(z)
    far = greater(absf(x), 20.0)
    near_x = select(far, 0.0, x)  # no overflow of cosh in the branch not taken
    denominator = cosh(2.0 * near_x) + cos(2.0 * y)
    tail = exp(-2.0 * absf(x))
    return make_complex(select(far, copysign(1.0, x), sinh(2.0 * near_x) / denominator),
                        select(far, 2.0 * sin(2.0 * y) * tail, sin(2.0 * y) / denominator))


def _complex_power(z, w) -> Val:
    """``z ** w = exp(w log z)``; ``0 ** w`` is 0, and ``0 ** 0`` is 1 (as JAX's)."""
    at_zero = compare("eq", z, 0.0)
    safe_z = select(at_zero, 1.0, z)
    power = _complex_exp(multiply(w, _complex_log(safe_z)))
    zero_power = select(compare("eq", w, 0.0), 1.0, zeros_like(power))
    return select(at_zero, zero_power, power)


def _complex_expm1(z) -> Val:
    """``exp(z) - 1`` accurate for small ``z``: ``expm1(x) cos y - 2 sin²(y/2)``, ``e^x sin y``."""
    x, y = real(z), imag(z)
    half = sin(y * 0.5)
    return make_complex(expm1(x) * cos(y) - 2.0 * half * half, exp(x) * sin(y))


def _complex_log1p(z) -> Val:
    """``log(1 + z)`` accurate for small ``z``: ``log1p(x(2 + x) + y²) / 2``, ``atan2(y, 1 + x)``."""
    x, y = real(z), imag(z)
    return make_complex(0.5 * log1p(x * (2.0 + x) + y * y), atan2(y, 1.0 + x))


def _sin_cos_h(z, kind: str) -> Val:
    x, y = real(z), imag(z)
    if kind == "sin":
        return make_complex(sin(x) * cosh(y), cos(x) * sinh(y))
    if kind == "cos":
        return make_complex(cos(x) * cosh(y), negative(sin(x) * sinh(y)))
    if kind == "sinh":
        return make_complex(sinh(x) * cos(y), cosh(x) * sin(y))
    return make_complex(cosh(x) * cos(y), sinh(x) * sin(y))


def _times_i(z, sign: float = 1.0) -> Val:
    """``i z`` (``-i z`` with ``sign=-1``), exactly: its parts swapped and one negated."""
    re, im = real(z), imag(z)
    return make_complex(negative(im), re) if sign > 0 else make_complex(im, negative(re))


def _complex_asinh(z) -> Val:
    """``asinh z = log1p(w + w²/(1 + sqrt(w² + 1)))`` of ``w = ±z`` with ``re w >= 0`` (odd symmetry).

    No cancellation of ``w + sqrt(w² + 1)`` (``re w >= 0``) nor of the log near 0.
    """
    flip = less(real(z), 0.0)
    w = select(flip, _COMPLEX_UNARY["arith.negf"](z), z)
    square = w * w
    out = _complex_log1p(w + _complex_divide(square, 1.0 + _complex_sqrt(square + 1.0)))
    return select(flip, _COMPLEX_UNARY["arith.negf"](out), out)


def _complex_acosh(z) -> Val:
    """``acosh z = log1p((z - 1) + sqrt(z + 1) sqrt(z - 1))`` (numpy's principal branch, accurate near 1)."""
    return _complex_log1p((z - 1.0) + _complex_sqrt(z + 1.0) * _complex_sqrt(z - 1.0))


def _complex_atanh(z) -> Val:
    """``atanh z = (log1p(z) - log1p(-z)) / 2``."""
    return (_complex_log1p(z) - _complex_log1p(_COMPLEX_UNARY["arith.negf"](z))) * 0.5


def _complex_asin(z) -> Val:
    """``asin z = -i asinh(i z)`` (C99's, whose branch cuts are numpy's)."""
    return _times_i(_complex_asinh(_times_i(z)), -1.0)


_COMPLEX_UNARY = {
    "arith.negf": lambda z: make_complex(negative(real(z)), negative(imag(z))),
    "math.exp": _complex_exp, "math.log": _complex_log, "math.sqrt": _complex_sqrt,
    "math.rsqrt": lambda z: divide(1.0, _complex_sqrt(z)),
    "math.expm1": _complex_expm1, "math.log1p": _complex_log1p, "math.tanh": _complex_tanh,
    "math.sin": lambda z: _sin_cos_h(z, "sin"), "math.cos": lambda z: _sin_cos_h(z, "cos"),
    "math.sinh": lambda z: _sin_cos_h(z, "sinh"), "math.cosh": lambda z: _sin_cos_h(z, "cosh"),
    "math.tan": lambda z: _complex_divide(_sin_cos_h(z, "sin"), _sin_cos_h(z, "cos")),
    "math.exp2": lambda z: _complex_exp(z * 0.6931471805599453),  # ln 2
    "math.log2": lambda z: _complex_log(z) * 1.4426950408889634,  # 1 / ln 2
    "math.log10": lambda z: _complex_log(z) * 0.4342944819032518,  # 1 / ln 10
    "math.asinh": _complex_asinh, "math.acosh": _complex_acosh, "math.atanh": _complex_atanh,
    "math.asin": _complex_asin,
    "math.acos": lambda z: _complex_asin(z) * -1.0 + 1.5707963267948966,  # pi/2 - asin z
    "math.atan": lambda z: _times_i(_complex_atanh(_times_i(z)), -1.0),  # -i atanh(i z)
}


def _complex_elementwise(name: str, operands: list) -> Val:
    """The complex result of upstream op ``name`` on complex operands, computed on their parts."""
    if len(operands) == 1 and name in _COMPLEX_UNARY:
        return _COMPLEX_UNARY[name](operands[0])
    if len(operands) == 2 and name in ("arith.addf", "arith.subf"):
        (ar, ai), (br, bi) = (_parts(v) for v in operands)
        combine = add if name == "arith.addf" else subtract
        return make_complex(combine(ar, br), combine(ai, bi))
    if len(operands) == 2 and name == "arith.mulf":
        (ar, ai), (br, bi) = (_parts(v) for v in operands)
        return make_complex(ar * br - ai * bi, ar * bi + ai * br)
    if len(operands) == 2 and name == "arith.divf":
        return _complex_divide(*operands)
    if len(operands) == 2 and name == "math.powf":
        return _complex_power(*operands)
    raise TypeError(f"{name} is not supported for complex operands")


# ----------------------------------------------------------------------------
# Structure, contraction and reduction (tad ops)
# ----------------------------------------------------------------------------

def broadcast_to(x, shape: Sequence[int], like=None) -> Val:
    """Broadcast ``x`` to ``shape`` aligning trailing dimensions (numpy's rule).

    A scalar (``f64``, not a tensor) becomes a tensor of ``shape`` (``tensor.splat``).
    ``like``, a value of ``shape``, gives the sizes of dynamic dims that ``x``
    does not have (see :func:`broadcast_in_dim`).
    """
    x = wrap(x)
    shape = tuple(shape)
    if not isinstance(x.type, ir.ShapedType):
        dynamic = [d for d, n in enumerate(shape) if is_dynamic(n)]
        if dynamic and like is None:
            raise ShapeError(f"cannot splat a scalar into the dynamic shape {list(shape)} "
                             "without a value of that shape")
        return Val(tensor.SplatOp(ir.RankedTensorType.get(list(shape), x.type), x,
                                  [dim_size(like, d) for d in dynamic]).result)
    if x.shape == shape:
        return x
    lead = len(shape) - x.ndim
    return broadcast_in_dim(x, shape, range(lead, len(shape)), like)


def sum(x, dimensions: Sequence[int], keepdims: bool = False) -> Val:  # noqa: A001 (numpy's name)
    """Sum of ``x`` over ``dimensions`` (``tad.reduce_sum``), keeping them as size 1 with ``keepdims``."""
    x = wrap(x)
    dims = sorted({d % max(x.ndim, 1) for d in dimensions})
    if not dims:
        return x
    out = reduce("sum", x, dims)
    if keepdims:
        out = reshape(out, [1 if d in dims else n for d, n in enumerate(x.shape)])
    return out


def concatenate(parts: Sequence, axis: int) -> Val:
    """Join tensors of one element type along ``axis`` (``tensor.concat``)."""
    parts = [wrap(p) for p in parts]
    if len(parts) == 1:
        return parts[0]
    shape = list(parts[0].shape)
    sizes = [p.shape[axis] for p in parts]
    shape[axis] = DYNAMIC if any(map(is_dynamic, sizes)) else builtins.sum(sizes)
    op = ir.Operation.create(
        "tensor.concat", results=[ir.RankedTensorType.get(shape, parts[0].element_type)],
        operands=parts,
        attributes={"dim": ir.IntegerAttr.get(ir.IntegerType.get_signless(64), axis)})
    return Val(op.result)


def broadcast_in_dim(x, shape: Sequence[int], broadcast_dimensions: Sequence[int], like=None) -> Val:
    """Broadcast ``x`` to ``shape``; operand dim i becomes result dim ``broadcast_dimensions[i]``.

    A dynamic dim of ``shape`` (``?``) takes its size from the dynamic operand
    dim mapped to it, or else from ``like``, a value whose shape is the
    trailing part of ``shape`` (the primal a cotangent is spread back over):
    ``x`` is then first multiplied (an outer product) by ones of those sizes.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> from tensorad.dialects.shapes import DYNAMIC
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         rows = tensor.EmptyOp([arith.ConstantOp(ir.IndexType.get(), 5).result, 3], f64).result
    ...         spread = broadcast_in_dim(zeros((3,), f64), (DYNAMIC, 3), [1], like=rows)
    >>> str(spread.type), spread.owner.name  # ones(rows) x zeros(3): the operand spread over the rows
    ('tensor<?x3xf64>', 'tad.dot_general')
    """
    x, shape, dims = wrap(x), tuple(shape), list(broadcast_dimensions)
    given = {d for n, d in zip(x.shape, dims) if is_dynamic(n)}
    missing = [d for d, n in enumerate(shape) if is_dynamic(n) and d not in given]
    if missing and like is not None:
        like, offset = wrap(like), len(shape) - wrap(like).ndim
        if min(missing) < offset:
            raise ValueError(f"dynamic dims {missing} of {list(shape)}: `like` of shape {list(like.shape)} "
                             "covers only its trailing dims")
        # Operand dims of size 1 broadcast over a missing dim go; ones of the missing sizes come first.
        kept = [i for i, d in enumerate(dims) if d not in missing]
        if len(kept) < x.ndim:
            x, dims = reshape(x, [x.shape[i] for i in kept]), [dims[i] for i in kept]
        ones = full_like(like, 1, dims=[d - offset for d in missing], element_type=x.element_type)
        x, dims = dot_general(ones, x, [], [], [], []), missing + dims
        if x.shape == shape and dims == list(range(len(shape))):
            return x
    out = TensorSpec(shape, x.element_type)
    return build("tad.broadcast_in_dim", [x],
                  {"broadcast_dimensions": _i64_array(dims)}, out)


def reshape(x, shape: Sequence[int]) -> Val:
    """Row-major reshape of ``x`` to ``shape``."""
    out = TensorSpec(tuple(shape), Val(x).element_type)
    return build("tad.reshape", [x], {}, out)


def transpose(x, permutation: Sequence[int]) -> Val:
    """Permute the dimensions of ``x``: result dim i is operand dim ``permutation[i]``."""
    return build("tad.transpose", [x], {"permutation": _i64_array(permutation)})


def _static_only(name: str, x) -> None:
    """Refuse a value with dynamic dims to an op of static sizes before its attributes are computed from them."""
    if any(map(is_dynamic, wrap(x).shape)):
        raise ShapeError(f"'{name}' takes no dynamic dimensions (?), got {x.type}: it works on static shapes only")


def slice_(x, start: Sequence[int], limit: Sequence[int], strides: Sequence[int]) -> Val:
    """Strided slice ``x[start:limit:strides]`` along every dimension."""
    _static_only("tad.slice", x)
    return build("tad.slice", [x], {"start_indices": _i64_array(start),
                                     "limit_indices": _i64_array(limit),
                                     "strides": _i64_array(strides)})


def reverse(x, dimensions: Sequence[int]) -> Val:
    """``x`` with the order of its elements reversed along each of ``dimensions``."""
    _static_only("tad.reverse", x)
    return build("tad.reverse", [x], {"dimensions": _i64_array(sorted(dimensions))})


def pad(x, value, low: Sequence[int], high: Sequence[int],
        interior: Sequence[int]) -> Val:
    """Pad ``x`` with the rank-0 tensor ``value``: ``low``/``high`` at the edges, ``interior`` between elements."""
    _static_only("tad.pad", x)
    return build("tad.pad", [x, value], {"edge_padding_low": _i64_array(low),
                                          "edge_padding_high": _i64_array(high),
                                          "interior_padding": _i64_array(interior)})


def iota(shape: Sequence[int], dimension: int, element_type: ir.Type) -> Val:
    """A tensor whose entries count along ``dimension`` (0, 1, 2, ...)."""
    return build("tad.iota", [], {"iota_dimension": _i64(dimension)},
                  TensorSpec(tuple(shape), element_type))


def is_half(t: ir.Type) -> bool:
    """Whether ``t`` (an element type) is ``f16`` or ``bf16``."""
    return isinstance(t, (ir.F16Type, ir.BF16Type))


def _accumulating_in_f32(build_op):
    """``build_op`` (of tensors of one element type) run in ``f32`` for ``f16``/``bf16`` tensors, rounded back once.

    Half-precision sums and contractions accumulate in ``f32``, as XLA's
    do: rounding every partial sum to 8 (bf16) or 11 (f16) bits would lose
    the small terms of a long sum.
    """
    def fn(x, *args, **kwargs):
        half = wrap(x).element_type
        if not is_half(half):
            return build_op(x, *args, **kwargs)
        f32 = ir.F32Type.get()
        return convert(build_op(convert(x, f32), *(convert(a, f32) if isinstance(a, ir.Value) else a
                                                   for a in args), **kwargs), half)

    fn.__name__, fn.__qualname__, fn.__doc__ = build_op.__name__, build_op.__qualname__, build_op.__doc__
    return fn


@_accumulating_in_f32
def dot_general(lhs, rhs, lhs_batching: Sequence[int], rhs_batching: Sequence[int],
                lhs_contracting: Sequence[int], rhs_contracting: Sequence[int]) -> Val:
    """General contraction; the result has batch dims, then lhs free dims, then rhs free dims.

    ``f16`` and ``bf16`` operands are contracted in ``f32`` and the result rounded back;
    complex ones as four real contractions.
    """
    dims = (lhs_batching, rhs_batching, lhs_contracting, rhs_contracting)
    if wrap(lhs).is_complex or wrap(rhs).is_complex:
        (a, b), (c, d) = (_parts(v) for v in (lhs, rhs))

        def dot(x, y):
            return None if x is None or y is None else dot_general(x, y, *dims)

        re = _sum_parts(dot(a, c), dot(b, d), negate_second=True)
        return make_complex(re, _sum_parts(dot(a, d), dot(b, c)) if b is not None or d is not None
                            else zeros_like(re))
    return build("tad.dot_general", [lhs, rhs], {
        "lhs_batching_dimensions": _i64_array(lhs_batching),
        "rhs_batching_dimensions": _i64_array(rhs_batching),
        "lhs_contracting_dimensions": _i64_array(lhs_contracting),
        "rhs_contracting_dimensions": _i64_array(rhs_contracting)})


def reduce(kind: str, x, dimensions: Sequence[int]) -> Val:
    """Reduce ``x`` over ``dimensions`` with ``kind`` in ``{"sum", "max", "min"}``.

    A sum of ``f16`` or ``bf16`` elements accumulates in ``f32`` and is rounded once, at the end.
    """
    if kind == "sum":
        if wrap(x).is_complex:
            return make_complex(_sum_in_f32(real(x), dimensions), _sum_in_f32(imag(x), dimensions))
        return _sum_in_f32(x, dimensions)
    return build(f"tad.reduce_{kind}", [x], {"dimensions": _i64_array(sorted(dimensions))})


@_accumulating_in_f32
def _sum_in_f32(x, dimensions: Sequence[int]) -> Val:
    return build("tad.reduce_sum", [x], {"dimensions": _i64_array(sorted(dimensions))})


def argmax(x, axis: int) -> Val:
    """Index (i64) of the first maximum of ``x`` along ``axis``."""
    return build("tad.argmax", [x], {"axis": _i64(axis)})


def _i64(value: int) -> ir.Attribute:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), int(value))


def _window(strides, padding, dilation) -> dict:
    return {"strides": _i64_array(strides), "padding": _i64_array(padding),
            "dilation": _i64_array(dilation)}


def _like(x, shape: Sequence[int]) -> TensorSpec:
    return TensorSpec(tuple(shape), Val(x).element_type)


def conv2d(data, weight, strides=(1, 1), padding=(0, 0, 0, 0),
           dilation=(1, 1), groups: int = 1) -> Val:
    """2-D convolution of NCHW ``data`` with OIHW ``weight``; padding is (top, left, bottom, right)."""
    return build("tad.conv2d", [data, weight],
                  {**_window(strides, padding, dilation), "groups": _i64(groups)})


def conv2d_backward_data(output_grad, weight, data_shape: Sequence[int],
                         strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
                         groups: int = 1) -> Val:
    """Gradient of :func:`conv2d` with respect to data of shape ``data_shape``."""
    return build("tad.conv2d_backward_data", [output_grad, weight],
                  {**_window(strides, padding, dilation), "groups": _i64(groups)},
                  _like(output_grad, data_shape))


def conv2d_backward_filter(output_grad, data, weight_shape: Sequence[int],
                           strides=(1, 1), padding=(0, 0, 0, 0), dilation=(1, 1),
                           groups: int = 1) -> Val:
    """Gradient of :func:`conv2d` with respect to a weight of shape ``weight_shape``."""
    return build("tad.conv2d_backward_filter", [output_grad, data],
                  {**_window(strides, padding, dilation), "groups": _i64(groups)},
                  _like(output_grad, weight_shape))


def _pool_attrs(kind: str, pool_size, strides, padding, dilation, ceil_mode, count_include_pad):
    attrs = {**_window(strides, padding, dilation), "pool_size": _i64_array(pool_size),
             "ceil_mode": _i64(bool(ceil_mode))}
    if kind == "avg":
        attrs["count_include_pad"] = _i64(bool(count_include_pad))
    return attrs


def pool2d(kind: str, data, pool_size, strides, padding=(0, 0, 0, 0), dilation=(1, 1),
           ceil_mode: bool = False, count_include_pad: bool = True) -> Val:
    """``tad.max_pool2d`` (``kind="max"``) or ``tad.avg_pool2d`` (``kind="avg"``) of NCHW ``data``."""
    return build(f"tad.{kind}_pool2d", [data], _pool_attrs(
        kind, pool_size, strides, padding, dilation, ceil_mode, count_include_pad))


def pool2d_backward(kind: str, output_grad, data, pool_size, strides,
                    padding=(0, 0, 0, 0), dilation=(1, 1), ceil_mode: bool = False,
                    count_include_pad: bool = True) -> Val:
    """Gradient of :func:`pool2d` with respect to ``data``."""
    return build(f"tad.{kind}_pool2d_backward", [output_grad, data], _pool_attrs(
        kind, pool_size, strides, padding, dilation, ceil_mode, count_include_pad))


def take(data, indices, axis: int) -> Val:
    """Gather ``data`` along ``axis`` at integer ``indices``."""
    return build("tad.take", [data, indices], {"axis": _i64(axis)})


def take_backward(output_grad, indices, axis: int,
                  data_shape: Sequence[int]) -> Val:
    """Scatter-add ``output_grad`` back to ``data_shape`` (gradient of :func:`take`)."""
    if wrap(output_grad).is_complex:
        return make_complex(*(take_backward(part(output_grad), indices, axis, data_shape) for part in (real, imag)))
    return build("tad.take_backward", [output_grad, indices], {"axis": _i64(axis)},
                  _like(output_grad, data_shape))


def scatter(operand, indices, updates, axis: int, kind: str) -> Val:
    """``operand`` with slab m of ``updates`` combined (``kind``: set/add/mul/min/max) into its slab ``indices[m]`` along ``axis``.

    Indices outside the axis drop their update (``tad.scatter``).
    """
    return build("tad.scatter", [operand, indices, updates], {"axis": _i64(axis), "kind": ir.StringAttr.get(kind)})


def argsort(x, descending: bool = False) -> Val:
    """Stable sorting permutation (i64) of ``x`` along its last axis; NaN sorts as the greatest (``tad.argsort``)."""
    return build("tad.argsort", [x], {"descending": _i64(bool(descending))})


def searchsorted(sorted_values, values, right: bool = False) -> Val:
    """Positions (i64) where ``values`` go in the ascending 1-D ``sorted_values`` (``tad.searchsorted``)."""
    return build("tad.searchsorted", [sorted_values, values], {"right": _i64(bool(right))})


def cumsum(x, axis: int, reverse: bool = False) -> Val:
    """Running sum of ``x`` along ``axis``, from the end with ``reverse`` (``tad.cumsum``)."""
    return build("tad.cumsum", [x], {"axis": _i64(axis), "reverse": _i64(bool(reverse))})


def _nll_attrs(reduction: str, ignore_index: int) -> dict:
    return {"reduction": ir.StringAttr.get(reduction), "ignore_index": _i64(ignore_index)}


def nll_loss(predictions, targets, weights, reduction: str = "mean",
             ignore_index: int = -100) -> Val:
    """Negative log-likelihood of log-probabilities ``predictions`` at integer ``targets``."""
    return build("tad.nll_loss", [predictions, targets, weights], _nll_attrs(reduction, ignore_index))


def nll_loss_backward(output_grad, predictions, targets,
                      weights, reduction: str = "mean", ignore_index: int = -100) -> Val:
    """Gradient of :func:`nll_loss` with respect to ``predictions``."""
    return build("tad.nll_loss_backward", [output_grad, predictions, targets, weights],
                  _nll_attrs(reduction, ignore_index))


def _mixed(values: Sequence, sentinel: int) -> tuple:
    """(static list with ``sentinel`` for values, the ``ir.Value`` entries) of a mixed list."""
    return ([sentinel if isinstance(v, ir.Value) else int(v) for v in values],
            [v for v in values if isinstance(v, ir.Value)])


def _no_elements(t: ir.Type) -> bool:
    return 0 in list(t.shape)


def extract_slice(source, result_type: ir.Type, offsets: Sequence, sizes: Sequence,
                  strides: Sequence) -> Val:
    """``tensor.extract_slice`` of ``source``; ``offsets``/``sizes``/``strides`` mix ints and index values.

    A slice with no elements reads nothing and is a ``tensor.empty``: upstream
    verification rejects any static offset into a zero-size dim, and an empty
    slice may start past the end of its dim (``v[2:3]`` of a length-1 ``v``).
    ``result_type`` may drop unit dims of ``sizes`` (a rank-reducing slice).

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         x = constant(1.0, (1, 0), f64)
    ...         piece = extract_slice(x, ir.RankedTensorType.get([0, 0], f64), [1, 0], [0, 0], [1, 1])
    >>> piece.owner.name, str(piece.type)
    ('tensor.empty', 'tensor<0x0xf64>')
    """
    static_offsets, dynamic_offsets = _mixed(offsets, ir.ShapedType.get_dynamic_stride_or_offset())
    static_sizes, dynamic_sizes = _mixed(sizes, ir.ShapedType.get_dynamic_size())
    static_strides, dynamic_strides = _mixed(strides, ir.ShapedType.get_dynamic_stride_or_offset())
    if _no_elements(result_type):
        # Dims dropped by a rank-reducing slice are static 1s, so the dynamic
        # sizes are the result's dynamic dims in order.
        remaining = iter(dynamic_sizes)
        shape = [next(remaining) if ir.ShapedType.is_dynamic_size(n) else n
                 for n in result_type.shape]
        return Val(tensor.EmptyOp(shape, result_type.element_type).result)
    return Val(tensor.ExtractSliceOp(result_type, source, dynamic_offsets, dynamic_sizes,
                                     dynamic_strides, static_offsets, static_sizes,
                                     static_strides).result)


def insert_slice(piece, into, offsets: Sequence, sizes: Sequence,
                 strides: Sequence) -> Val:
    """``into`` with ``piece`` written at ``offsets`` (``tensor.insert_slice``; mixed lists as in :func:`extract_slice`).

    An empty ``piece`` writes nothing: the result is ``into`` itself.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         into = constant(0.0, (4,), f64)
    ...         out = insert_slice(constant(1.0, (2,), f64), into, [1], [2], [1])
    ...         unchanged = insert_slice(constant(1.0, (0,), f64), into, [4], [0], [1])
    >>> out.owner.name, unchanged == into
    ('tensor.insert_slice', True)
    """
    if _no_elements(piece.type):
        return wrap(into)
    static_offsets, dynamic_offsets = _mixed(offsets, ir.ShapedType.get_dynamic_stride_or_offset())
    static_sizes, dynamic_sizes = _mixed(sizes, ir.ShapedType.get_dynamic_size())
    static_strides, dynamic_strides = _mixed(strides, ir.ShapedType.get_dynamic_stride_or_offset())
    return Val(tensor.InsertSliceOp(piece, into, dynamic_offsets, dynamic_sizes, dynamic_strides,
                                    static_offsets, static_sizes, static_strides).result)


def dynamic_row(x, index, row_type: ir.Type | None = None) -> Val:
    """Row ``x[index]`` for an ``index``-typed value (``tensor.extract_slice``, leading dim dropped).

    A scalar ``row_type`` (``f64``, not a tensor) reads one element of a
    vector ``x`` (``tensor.extract``): the row :func:`insert_row` stored for a scalar.
    """
    if row_type is not None and not isinstance(row_type, ir.ShapedType):
        return Val(tensor.ExtractOp(x, [index]).result)
    t = x.type
    rest = list(t.shape[1:])
    sizes = [dim_size(x, d + 1) if is_dynamic(n) else n for d, n in enumerate(rest)]
    return extract_slice(x, ir.RankedTensorType.get(rest, t.element_type), [index] + [0] * len(rest),
                         [1] + sizes, [1] * (len(rest) + 1))


def insert_row(stack, row, index) -> Val:
    """``stack`` with ``stack[index] = row`` (``tensor.insert_slice``, done in place after bufferization).

    A scalar ``row`` is one element of a vector ``stack`` (``tensor.insert``).
    """
    if not isinstance(row.type, ir.ShapedType):
        return Val(tensor.InsertOp(row, stack, [index]).result)
    rest = [dim_size(row, d) if is_dynamic(n) else n for d, n in enumerate(row.type.shape)]
    return insert_slice(row, stack, [index] + [0] * len(rest), [1] + rest, [1] * (len(rest) + 1))


def _index_values(indices: Sequence) -> list:
    """``indices`` as ``index`` values (ints become ``arith.constant``)."""
    return [v if isinstance(v, ir.Value) else arith.ConstantOp(ir.IndexType.get(), int(v)).result
            for v in indices]


def element(x, indices: Sequence, prefix_rank: int = 0) -> Val:
    """Element ``x[..., indices]`` behind a batch prefix of rank ``prefix_rank``; ``indices`` mix ints and index values.

    Without a prefix it is a scalar (``tensor.extract``); with one, the tensor
    of the prefix's shape holding that element of every row (a rank-reducing
    ``tensor.extract_slice``): how a rule reads the (co)tangent of a scalar.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         x = constant(1.0, (5, 4, 3), ir.F64Type.get())
    ...         one, rows = element(x, [1, 2, 0]), element(x, [2, 0], prefix_rank=1)
    >>> str(one.type), str(rows.type)
    ('f64', 'tensor<5xf64>')
    """
    x = wrap(x)
    if not prefix_rank:
        return Val(tensor.ExtractOp(x, _index_values(indices)).result)
    if not indices:
        return x
    prefix = list(x.shape[:prefix_rank])
    rank = len(indices)
    return extract_slice(x, ir.RankedTensorType.get(prefix, x.element_type), [0] * prefix_rank + list(indices),
                         prefix + [1] * rank, [1] * (prefix_rank + rank))


def with_element(into, value, indices: Sequence, prefix_rank: int = 0) -> Val:
    """``into`` with ``into[..., indices] = value``: the inverse of :func:`element`.

    Without a prefix ``value`` is a scalar (``tensor.insert``); with one, a
    tensor of the prefix's shape written across the rows (``tensor.insert_slice``).

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         out = with_element(zeros((2, 3), f64), scalar_constant(1.0, f64), [1, 2])
    >>> out.owner.name
    'tensor.insert'
    """
    into = wrap(into)
    if not prefix_rank:
        return Val(tensor.InsertOp(value, into, _index_values(indices)).result)
    if not indices:
        return wrap(value)
    prefix = list(into.shape[:prefix_rank])
    rank = len(indices)
    return insert_slice(wrap(value), into, [0] * prefix_rank + list(indices), prefix + [1] * rank,
                        [1] * (prefix_rank + rank))


def pad_edges(x, value, low: Sequence, high: Sequence, result_type: ir.Type | None = None) -> Val:
    """``x`` padded with the scalar ``value`` (``tensor.pad``); ``low``/``high`` mix ints and index values.

    ``value`` is an IR scalar or a Python number of ``x``'s element type. The
    result type is inferred (dynamic where a padding is) unless given.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         out = pad_edges(zeros((2, 3), ir.F64Type.get()), 1.0, [1, 0], [0, 2])
    >>> out.owner.name, str(out.type)
    ('tensor.pad', 'tensor<3x5xf64>')
    """
    x = wrap(x)
    static_low, dynamic_low = _mixed(low, ir.ShapedType.get_dynamic_size())
    static_high, dynamic_high = _mixed(high, ir.ShapedType.get_dynamic_size())
    if result_type is None:
        dynamic = ir.ShapedType.get_dynamic_size()
        shape = [dynamic if dynamic in (n, lo, hi) else n + lo + hi
                 for n, lo, hi in zip(x.shape, static_low, static_high)]
        result_type = ir.RankedTensorType.get(shape, x.element_type)
    op = tensor.PadOp(result_type, x, dynamic_low, dynamic_high, static_low, static_high)
    block = op.regions[0].blocks.append(*[ir.IndexType.get()] * x.ndim)
    with ir.InsertionPoint(block):
        scalar = value if isinstance(value, ir.Value) else scalar_constant(value, x.element_type)
        tensor.YieldOp(scalar)
    return Val(op.result)


def dim_size(value, d: int) -> ir.Value:
    """The size of dim ``d`` of the tensor ``value`` at run time (``tensor.dim``, an ``index``)."""
    return tensor.DimOp(value, arith.ConstantOp(ir.IndexType.get(), d).result).result


def full_like(value, fill: Scalar, prefix: Sequence[int] = (), dims: Sequence[int] | None = None,
              element_type: ir.Type | None = None) -> Val:
    """A tensor of ``prefix`` + the sizes of ``value``'s ``dims`` (all by default) filled with ``fill``.

    Dynamic sizes are read from ``value`` (``tensor.dim``), so the result
    has them at run time; the element type is ``value``'s unless given.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         rows = tensor.EmptyOp([arith.ConstantOp(ir.IndexType.get(), 5).result, 3], f64).result
    ...         ones = full_like(rows, 1, dims=[0])
    >>> ones.owner.name, str(ones.type)
    ('tensor.splat', 'tensor<?xf64>')
    """
    t = value.type
    element_type = element_type or Val(value).element_type
    dims = range(len(t.shape)) if dims is None else list(dims)
    shape = list(prefix) + [t.shape[d] for d in dims]
    dynamic = [d for d in dims if is_dynamic(t.shape[d])]
    if not dynamic:
        return constant(fill, shape, element_type)
    return Val(tensor.SplatOp(ir.RankedTensorType.get(shape, element_type), scalar_constant(fill, element_type),
                              [dim_size(value, d) for d in dynamic]).result)


def zeros_like(value, prefix: Sequence[int] = ()) -> Val:
    """Zeros shaped ``prefix + value.shape``, the dynamic dims read from ``value`` (a loop tape's rows).

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     f64 = ir.F64Type.get()
    ...     with ir.InsertionPoint(module.body):
    ...         rows = tensor.EmptyOp([arith.ConstantOp(ir.IndexType.get(), 5).result, 3], f64).result
    ...         zeros = zeros_like(rows, (2,))
    >>> zeros.owner.name, str(zeros.type)
    ('tensor.splat', 'tensor<2x?x3xf64>')
    """
    t = value.type
    if not isinstance(t, ir.ShapedType):  # a scalar: its zero, or a batch of zeros
        if not prefix:
            return scalar_constant(0, t)
        if isinstance(t, ir.IndexType):  # tad.constant holds no index elements
            return Val(tensor.SplatOp(ir.RankedTensorType.get(list(prefix), t), scalar_constant(0, t), []).result)
        return constant(0, prefix, t)
    return full_like(value, 0, prefix)


def marker(kind: str, x) -> Val:
    """Identity op ``tad.<kind>`` for ``stop_gradient``, ``start_checkpoint`` or ``end_checkpoint``."""
    return build(f"tad.{kind}", [x], {})
