"""Derivative requests: reading ``tad.vjp``/``tad.jvp`` declarations and checking their types.

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

from dataclasses import dataclass

from mlir import ir

KINDS = ("vjp", "jvp")


class DerivativeError(Exception):
    """A derivative cannot be generated; reported at ``location``."""

    def __init__(self, location: ir.Location, message: str):
        super().__init__(message)
        self.location = location


@dataclass(frozen=True)
class Request:
    """One declared derivative function: ``kind`` of ``@of`` with respect to inputs ``wrt``."""

    decl: ir.Operation
    kind: str
    of: str
    wrt: tuple

    @classmethod
    def from_decl(cls, decl: ir.Operation) -> "Request | None":
        """Read the request declared by ``decl``, or None when it declares none."""
        for kind in KINDS:
            key = f"tad.{kind}"
            if key in decl.attributes:
                spec = decl.attributes[key]
                if not isinstance(spec, ir.DictAttr) or "of" not in spec or "wrt" not in spec:
                    raise DerivativeError(decl.location,
                                          f"{key} must be {{of = @function, wrt = array<i64: ...>}}")
                return cls(decl, kind, spec["of"].value, tuple(spec["wrt"]))
        return None

    @property
    def name(self) -> str:
        return self.decl.attributes["sym_name"].value

    @property
    def function_type(self) -> ir.FunctionType:
        return self.decl.attributes["function_type"].value


def tensor_type(shape, element_type) -> ir.RankedTensorType:
    """A ranked tensor type (needs an active context)."""
    return ir.RankedTensorType.get(list(shape), element_type)


def batch_prefix(declared: ir.Type, unbatched: ir.Type) -> tuple:
    """The prefix ``P`` such that ``declared`` is ``P + unbatched`` (raises ValueError otherwise)."""
    d_shape, u_shape = list(declared.shape), list(unbatched.shape)
    k = len(d_shape) - len(u_shape)
    if k < 0 or d_shape[k:] != u_shape or declared.element_type != unbatched.element_type:
        raise ValueError
    return tuple(d_shape[:k])


def expected_type(request: Request, primal_type: ir.FunctionType, prefix: tuple) -> ir.FunctionType:
    """The function type a request must declare, given the primal's type and batch prefix."""
    inputs, results = list(primal_type.inputs), list(primal_type.results)
    batched = [tensor_type(prefix + tuple(t.shape), t.element_type)
               for t in (results if request.kind == "vjp" else [inputs[i] for i in request.wrt])]
    derived = [tensor_type(prefix + tuple(t.shape), t.element_type)
               for t in ([inputs[i] for i in request.wrt] if request.kind == "vjp" else results)]
    return ir.FunctionType.get(inputs + batched, results + derived)


def check(request: Request, primal_type: ir.FunctionType) -> tuple:
    """Check the declared type of ``request``; return its batch prefix ``P``."""
    inputs = list(primal_type.inputs)
    for i in request.wrt:
        if not 0 <= i < len(inputs):
            raise DerivativeError(request.decl.location,
                                  f"wrt index {i} is out of range: @{request.of} has {len(inputs)} inputs")
        if not isinstance(inputs[i].element_type, ir.FloatType):
            raise DerivativeError(request.decl.location,
                                  f"cannot differentiate with respect to input {i} of type {inputs[i]}: "
                                  "only floating-point inputs have derivatives")
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
    return prefix
