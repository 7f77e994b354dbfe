"""Transformation requests: reading ``tad.vjp``/``tad.jvp``/``tad.vmap`` declarations and checking their types.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<3xf64>) -> tensor<f64> {
...   %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<3xf64>) -> tensor<f64>
...   return %0 : tensor<f64>
... }
... func.func private @f_vjp(tensor<3xf64>, tensor<f64>) -> (tensor<f64>, tensor<3xf64>)
...     attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}''', make_context())
>>> request = Request.from_decl(m.body.operations[1].operation)
>>> request.kind, request.of, request.wrt
('vjp', 'f', (0,))
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

from mlir import ir

from tensorad.dialects.shapes import ShapeError, is_dynamic, shape_text

KINDS = ("vjp", "jvp", "vmap")
#: The keys of each kind's declaration attribute.
_KEYS = {"vjp": ("of", "wrt"), "jvp": ("of", "wrt"), "vmap": ("of", "in_axes", "out_axes")}


class DerivativeError(Exception):
    """A derivative cannot be generated; reported at ``location``."""

    def __init__(self, location: ir.Location, message: str):
        super().__init__(message)
        self.location = location


@contextmanager
def shapes_of(op: ir.Operation, mode: str):
    """Report a shape the ``mode`` rule of ``op`` cannot build (a ``ShapeError``: dynamic dims) at ``op``.

    Examples
    --------
    >>> with ir.Context() as ctx:
    ...     ctx.allow_unregistered_dialects = True
    ...     op = ir.Operation.create("test.concat", loc=ir.Location.unknown())
    ...     try:
    ...         with shapes_of(op, "vjp"):
    ...             raise ShapeError("'tad.slice' takes no dynamic dimensions (?)")
    ...     except DerivativeError as err:
    ...         print(err)
    the vjp rule of 'test.concat' cannot build its derivative for these shapes: 'tad.slice' takes no dynamic dimensions (?)
    """
    try:
        yield
    except ShapeError as err:
        raise DerivativeError(op.location, f"the {mode} rule of '{op.name}' cannot build its derivative "
                              f"for these shapes: {err}") from None


@dataclass(frozen=True)
class Request:
    """One declared function: the ``kind`` transformation of ``@of``.

    A derivative is taken with respect to inputs ``wrt``; a batched function
    (``vmap``) maps input ``i`` over its axis ``in_axes[i]`` (``-1``: not
    mapped) and puts the mapped axis of result ``j`` at ``out_axes[j]``.
    """

    decl: ir.Operation
    kind: str
    of: str
    wrt: tuple = ()
    in_axes: tuple = ()
    out_axes: tuple = ()

    @classmethod
    def from_decl(cls, decl: ir.Operation) -> "Request | None":
        """Read the request declared by ``decl``, or None when it declares none.

        Raises
        ------
        DerivativeError
            At the declaration, when it declares both kinds or its attribute
            is not ``{of = @function, wrt = array<i64: ...>}`` with distinct
            indices.
        """
        kinds = [kind for kind in KINDS if f"tad.{kind}" in decl.attributes]
        if not kinds:
            return None
        name = decl.attributes["sym_name"].value
        if len(kinds) > 1:
            raise DerivativeError(decl.location, f"@{name} declares both {' and '.join('tad.' + k for k in kinds)}: "
                                  "a function is one transformation; declare the other in a second function")
        kind = kinds[0]
        key, keys = f"tad.{kind}", _KEYS[kinds[0]]
        spec = decl.attributes[key]
        form = f"{key} must be {{of = @function, " + ", ".join(f"{k} = array<i64: ...>" for k in keys[1:]) + "}"
        if not isinstance(spec, ir.DictAttr) or any(k not in spec for k in keys):
            raise DerivativeError(decl.location, f"{form}, got {spec}")
        extra = sorted(named.name for named in spec if named.name not in keys)
        if extra:
            raise DerivativeError(decl.location, f"{form}: unknown key {', '.join(extra)}")
        of = spec["of"]
        if not isinstance(of, ir.FlatSymbolRefAttr):
            raise DerivativeError(decl.location, f"{form}: 'of' must name a function (@f), got {of}")
        lists = {}
        for k in keys[1:]:
            if not isinstance(spec[k], ir.DenseI64ArrayAttr):
                what = "list input indices as" if k == "wrt" else "be"
                raise DerivativeError(decl.location, f"{form}: '{k}' must {what} array<i64: ...>, got {spec[k]}")
            lists[k] = tuple(spec[k])
        if kind == "vmap":
            return cls(decl, kind, of.value, in_axes=lists["in_axes"], out_axes=lists["out_axes"])
        wrt = lists["wrt"]
        if not wrt or len(set(wrt)) != len(wrt):
            raise DerivativeError(decl.location, f"{key}: 'wrt' must name one or more distinct inputs, "
                                  f"got {list(wrt)}")
        return cls(decl, kind, of.value, wrt)

    @property
    def name(self) -> str:
        return self.decl.attributes["sym_name"].value

    @property
    def function_type(self) -> ir.FunctionType:
        return self.decl.attributes["function_type"].value


def pending_requests(functions) -> list:
    """The requests of the declarations among ``functions`` (``func.func`` ops) that still need a body.

    A function with a body that carries ``tad.vjp``/``tad.jvp`` (generated
    earlier, or written by hand) is checked as well: it must be a well-formed
    request whose type is the derivative's, so a mistyped or misplaced
    attribute is an error instead of being ignored.

    Raises
    ------
    DerivativeError
        At the first malformed declaration or defined function.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> { return %x : tensor<3xf64> }
    ... func.func private @f_jvp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
    ...     attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}''', make_context())
    >>> [r.name for r in pending_requests([op.operation for op in m.body.operations])]
    ['f_jvp']
    """
    functions = list(functions)
    defined = {f.attributes["sym_name"].value: f for f in functions if f.regions[0].blocks}
    pending = []
    for function in functions:
        request = Request.from_decl(function)
        if request is None:
            continue
        if not function.regions[0].blocks:
            pending.append(request)
        elif request.of in defined:
            with function.location:
                check(request, defined[request.of].attributes["function_type"].value)
    return pending


def tensor_type(shape, element_type) -> ir.RankedTensorType:
    """A ranked tensor type (needs an active context)."""
    return ir.RankedTensorType.get(list(shape), element_type)


#: Scalar types a differentiated function may take and return (floats are
#: differentiable, the others inactive), as Enzyme-MLIR's inputs do.
SCALAR_TYPES = (ir.FloatType, ir.IntegerType, ir.IndexType)


def is_scalar(t: ir.Type) -> bool:
    """Whether ``t`` is a scalar (not shaped) float, integer or index type."""
    return isinstance(t, SCALAR_TYPES)


def value_shape(t: ir.Type) -> tuple:
    """The shape of a ranked tensor type; ``()`` for a scalar type."""
    return () if is_scalar(t) else tuple(t.shape)


def element_type(t: ir.Type) -> ir.Type:
    """The element type of a ranked tensor type; a scalar type itself."""
    return t if is_scalar(t) else t.element_type


def derivative_type(t: ir.Type, prefix: tuple = ()) -> ir.Type:
    """The type of a (co)tangent of a value of type ``t`` with batch prefix ``prefix``.

    A scalar's unbatched (co)tangent is a scalar of its type; a batched one
    is a tensor of shape ``prefix``.

    Examples
    --------
    >>> with ir.Context(), ir.Location.unknown():
    ...     f64 = ir.F64Type.get()
    ...     print(derivative_type(f64), derivative_type(f64, (3,)), derivative_type(tensor_type((2,), f64), (3,)))
    f64 tensor<3xf64> tensor<3x2xf64>
    """
    if is_scalar(t) and not prefix:
        return t
    return tensor_type(tuple(prefix) + value_shape(t), element_type(t))


def batch_prefix(declared: ir.Type, unbatched: ir.Type) -> tuple:
    """The prefix ``P`` such that ``declared`` is ``P + unbatched`` (raises ValueError otherwise)."""
    if is_scalar(unbatched) and declared == unbatched:
        return ()
    if not isinstance(declared, ir.RankedTensorType):
        raise ValueError
    d_shape, u_shape = list(declared.shape), list(value_shape(unbatched))
    k = len(d_shape) - len(u_shape)
    if k < 0 or d_shape[k:] != u_shape or declared.element_type != element_type(unbatched):
        raise ValueError
    return tuple(d_shape[:k])


def expected_type(request: Request, primal_type: ir.FunctionType, prefix: tuple) -> ir.FunctionType:
    """The function type a request must declare, given the primal's type and batch prefix."""
    inputs, results = list(primal_type.inputs), list(primal_type.results)
    batched = [derivative_type(t, prefix)
               for t in (results if request.kind == "vjp" else [inputs[i] for i in request.wrt])]
    derived = [derivative_type(t, prefix)
               for t in ([inputs[i] for i in request.wrt] if request.kind == "vjp" else results)]
    return ir.FunctionType.get(inputs + batched, results + derived)


# Branches between blocks: the differentiator handles structured control flow only.
_UNSTRUCTURED = ("cf.br", "cf.cond_br", "cf.switch")


def check_primal(request: Request, primal_type: ir.FunctionType) -> None:
    """Check that ``@of`` can be differentiated: ``wrt`` inputs and results are tensors or scalars, and no branches.

    Raises
    ------
    DerivativeError
        At the primal function for a type that is neither a ranked tensor
        nor a scalar (float, integer, index), at its first branch op for
        unstructured control flow.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: memref<2xf64>) -> f64 { %c = arith.constant 0 : index
    ...   %0 = memref.load %x[%c] : memref<2xf64>
    ...   return %0 : f64 }
    ... func.func private @f_vjp(memref<2xf64>, f64) -> (f64, memref<2xf64>)
    ...     attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}
    ... ''', make_context())
    >>> request = Request.from_decl(m.body.operations[1].operation)
    >>> try:
    ...     check_primal(request, m.body.operations[0].attributes["function_type"].value)
    ... except DerivativeError as err:
    ...     print(err)
    cannot differentiate @f: input 0 has type memref<2xf64>, and tad-differentiate works on ranked tensors and scalars (f64, i1, index, ...)
    """
    primal = _function(request.decl.parent, request.of)
    inputs = list(primal_type.inputs)
    differentiated = [("input", i, inputs[i]) for i in request.wrt if 0 <= i < len(inputs)]
    for kind, i, t in differentiated + [("result", i, t) for i, t in enumerate(primal_type.results)]:
        if not isinstance(t, ir.RankedTensorType) and not is_scalar(t):
            raise DerivativeError((primal or request.decl).location,
                                  f"cannot differentiate @{request.of}: {kind} {i} has type {t}, and "
                                  "tad-differentiate works on ranked tensors and scalars (f64, i1, index, ...)")
    branch = None if primal is None else _first_branch(primal)
    if branch is not None and branch.parent != primal:  # in a region op (scf.execute_region)
        holder = branch.parent
        raise DerivativeError(holder.location, f"cannot differentiate @{request.of}: '{holder.name}' has a "
                              f"region of several blocks joined by '{branch.name}' (unstructured control "
                              "flow); only single-block regions are supported")
    if branch is not None:
        raise DerivativeError(branch.location, f"cannot differentiate @{request.of}: unstructured control flow "
                              f"('{branch.name}') is not supported; use scf.if, scf.for or scf.while")


def _function(module: ir.Operation, name: str):
    return next((op.operation for op in module.regions[0].blocks[0].operations
                 if op.operation.name == "func.func" and op.attributes["sym_name"].value == name), None)


def _first_branch(function: ir.Operation):
    found = []

    def visit(op):
        if op.name in _UNSTRUCTURED:
            found.append(op)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    function.walk(visit)
    return found[0] if found else None


def check(request: Request, primal_type: ir.FunctionType) -> tuple:
    """Check the declared type of ``request``; return its batch prefix ``P`` (``(size,)`` for a vmap)."""
    if request.kind == "vmap":
        return (check_batch(request, primal_type),)
    check_primal(request, primal_type)
    inputs = list(primal_type.inputs)
    for i in request.wrt:
        if not 0 <= i < len(inputs):
            raise DerivativeError(request.decl.location,
                                  f"wrt index {i} is out of range: @{request.of} has {len(inputs)} inputs")
        if not isinstance(element_type(inputs[i]), (ir.FloatType, ir.ComplexType)):
            raise DerivativeError(request.decl.location,
                                  f"cannot differentiate with respect to input {i} of type {inputs[i]}: "
                                  "only floating-point and complex inputs have derivatives")
    declared = request.function_type
    seeds = list(declared.inputs)[len(inputs):]
    unbatched = list(primal_type.results) if request.kind == "vjp" else [inputs[i] for i in request.wrt]
    prefix = ()
    try:
        if seeds and unbatched:
            prefix = batch_prefix(seeds[0], unbatched[0])
    except ValueError:
        prefix = None
    want = expected_type(request, primal_type, prefix or ())
    if prefix is None or declared != want:
        raise DerivativeError(request.decl.location,
                              f"@{request.name} is declared as {declared}, but the {request.kind} of "
                              f"@{request.of} with respect to inputs {list(request.wrt)} has type {want}")
    if any(map(is_dynamic, prefix)):
        # Rules build zeros and rows of the batch from its sizes, which a dynamic prefix does not give.
        raise DerivativeError(request.decl.location,
                              f"@{request.name}: the batch prefix {shape_text(prefix)} of its "
                              f"{'cotangents' if request.kind == 'vjp' else 'tangents'} has a dynamic size (?); "
                              "a batch of (co)tangents needs static sizes")
    return prefix


def batched_type(t: ir.Type, size: int, axis: int) -> ir.Type:
    """``t`` with a mapped axis of ``size`` at ``axis`` (``-1``: ``t`` itself); a scalar becomes a vector."""
    if axis == -1:
        return t
    shape = list(t.shape) if isinstance(t, ir.RankedTensorType) else []
    element = t.element_type if isinstance(t, ir.RankedTensorType) else t
    return tensor_type(shape[:axis] + [size] + shape[axis:], element)


def vmap_type(primal_type: ir.FunctionType, in_axes: tuple, out_axes: tuple, size: int) -> ir.FunctionType:
    """The type of the vmap of a function of type ``primal_type``."""
    return ir.FunctionType.get([batched_type(t, size, a) for t, a in zip(primal_type.inputs, in_axes)],
                               [batched_type(t, size, a) for t, a in zip(primal_type.results, out_axes)])


def check_batch(request: Request, primal_type: ir.FunctionType) -> int:
    """Check a ``tad.vmap`` declaration against ``@of``'s type; return the size of the mapped axis."""
    inputs, results = list(primal_type.inputs), list(primal_type.results)
    where = request.decl.location
    for name, axes, types, what in (("in_axes", request.in_axes, inputs, "inputs"),
                                    ("out_axes", request.out_axes, results, "results")):
        if len(axes) != len(types):
            raise DerivativeError(where, f"tad.vmap of @{request.of}: {name} has {len(axes)} entries, "
                                  f"but @{request.of} has {len(types)} {what}")
        for i, (axis, t) in enumerate(zip(axes, types)):
            rank = len(t.shape) if isinstance(t, ir.RankedTensorType) else 0
            if not -1 <= axis <= rank or (axis != -1 and not isinstance(t, (ir.RankedTensorType, ir.FloatType,
                                                                              ir.IntegerType, ir.IndexType))):
                raise DerivativeError(where, f"tad.vmap of @{request.of}: {name}[{i}] = {axis} is not an axis "
                                      f"of a value of type {t} (0..{rank}, or -1 for not mapped)")
    mapped = [i for i, a in enumerate(request.in_axes) if a != -1]
    if not mapped:
        raise DerivativeError(where, f"tad.vmap of @{request.of}: in_axes maps no input")
    declared = request.function_type
    first = mapped[0]
    declared_input = list(declared.inputs)[first] if first < len(declared.inputs) else None
    size = declared_input.shape[request.in_axes[first]] \
        if isinstance(declared_input, ir.RankedTensorType) and declared_input.rank > request.in_axes[first] else -1
    want = vmap_type(primal_type, request.in_axes, request.out_axes, max(size, 0))
    if declared != want:
        raise DerivativeError(where, f"@{request.name} is declared as {declared}, but the vmap of "
                              f"@{request.of} with in_axes {list(request.in_axes)} and out_axes "
                              f"{list(request.out_axes)} has type {want}")
    return size
