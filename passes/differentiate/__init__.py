"""``tad-differentiate``: define every function declared with ``tad.vjp`` or ``tad.jvp``.

A derivative is asked for by declaring the function that should exist (see
DESIGN.md, "Asking for a derivative in IR"). This pass gives each declaration
its body: reverse mode in :mod:`.reverse`, forward mode in :mod:`.forward`,
with the rules of the op records (:mod:`tensorad.dialects.families`; those of
``scf`` ops, which sweep their regions, in :mod:`.control_flow`). Generated
functions are ordinary IR, so they can be differentiated again; a
declaration may name another declaration as ``of``.
A function with ``tad.custom_vjp = @bwd`` gets its vjp from ``@bwd``
(``bwd(inputs..., cotangents...) -> one gradient per input``). One with
``tad.custom_jvp = @rule`` gets both modes from ``@rule(inputs...,
tangents...) -> (results..., tangents of the results...)``, which takes one
tangent per leading input (those after them, values a traced function closed
over, have no tangent): its jvp calls the rule, and its vjp is the transpose of
the rule's linear map from tangents to output tangents, that is the rule's own
vjp with respect to its tangents, taken at zero tangents (as JAX transposes a
``custom_jvp`` rule).

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
...   %0 = math.sin %x : tensor<3xf64>
...   return %0 : tensor<3xf64>
... }
... func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>) -> (tensor<3xf64>, tensor<3xf64>)
...     attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}''', make_context())
>>> run_pipeline(m, "tad-differentiate")
>>> "math.cos" in str(m)
True
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from mlir import ir
from mlir.dialects import arith, func, scf

from tensorad.dialects import builder as tad_ops
from tensorad.dialects.shapes import ShapeError

from . import control_flow, forward, linalg, reverse  # noqa: F401  (control_flow and linalg register rules)
from . import tensor_regions  # noqa: F401  (registers the rules of tensor.generate and tensor.pad)
from .signature import DerivativeError, Request, check, derivative_type, expected_type, pending_requests, vmap_type

_BUILDERS = {"vjp": reverse.build, "jvp": forward.build}


class Generator:
    """Defines the declared functions of one module (derivatives, and more with ``definers``), each once.

    ``definers`` maps another request kind (``"vmap"``) to the function that
    defines it, ``(request, primal, derive) -> function``: ``tad-batch`` passes
    its own, so that derivatives and batched functions may depend on each other.
    """

    def __init__(self, module: ir.Operation, definers: dict | None = None):
        self.module = module
        self.definers = dict(definers or {})
        self.body = module.regions[0].blocks[0]
        self.symbols = {op.attributes["sym_name"].value: op.operation
                        for op in self.body.operations if op.operation.name == "func.func"}
        self.in_progress: set = set()
        self.derived: dict = {}

    def pending(self, kinds: tuple) -> list:
        """The declarations of ``kinds`` that still need a body (defined functions that carry a request are checked too)."""
        return [r for r in pending_requests(self.symbols.values()) if r.kind in kinds]

    def define(self, request: Request) -> None:
        """Give ``request``'s declaration its body (defining what it depends on first)."""
        if request.name in self.in_progress:
            raise DerivativeError(request.decl.location,
                                  f"@{request.name} depends on its own derivative")
        primal = self.symbols.get(request.of)
        if primal is None:
            raise DerivativeError(request.decl.location, f"@{request.of} is not defined in this module")
        name = request.name  # the declaration is replaced below
        self.in_progress.add(name)
        if not primal.regions[0].blocks:
            pending = Request.from_decl(primal)
            if pending is None:
                raise DerivativeError(request.decl.location,
                                      f"@{request.of} is only declared; it has no body to differentiate")
            if pending.kind not in _BUILDERS and pending.kind not in self.definers:
                raise DerivativeError(request.decl.location,
                                      f"@{request.of} is a tad.{pending.kind} declaration: run tad-batch first")
            self.define(pending)
            primal = self.symbols[request.of]
        primal_type = primal.attributes["function_type"].value
        with request.decl.location, _shapes_of_declaration(request):
            prefix = check(request, primal_type)
            if request.kind in self.definers:
                fn = self.definers[request.kind](request, primal, self.derive)
            elif request.kind == "vjp" and "tad.custom_vjp" in primal.attributes:
                fn = self._custom_vjp(request, primal, prefix)
            elif "tad.custom_jvp" in primal.attributes:
                fn = self._custom_jvp(request, primal, prefix)
            else:
                fn = self._copy_of(primal, request)
                _BUILDERS[request.kind](fn, request, prefix, self.derive)
        self.symbols[name] = fn
        self.in_progress.discard(name)

    def _copy_of(self, primal: ir.Operation, request: Request) -> ir.Operation:
        """Copy ``primal`` in place of the declaration, taking its name and attributes."""
        fn = primal.clone(ip=ir.InsertionPoint(request.decl))
        linalg.generalize(fn)  # while it still is the primal, a valid function
        for name in [n for n in fn.attributes if n not in ("sym_name", "function_type")]:
            del fn.attributes[name]
        for name in request.decl.attributes:
            fn.attributes[name] = request.decl.attributes[name]
        request.decl.erase()
        return fn

    def _custom_vjp(self, request: Request, primal: ir.Operation, prefix: tuple) -> ir.Operation:
        """vjp = (call @f, call @bwd) when @f carries ``tad.custom_vjp = @bwd``.

        ``@bwd`` takes the inputs and one cotangent per result and returns one
        gradient per input. A batched request (prefix ``P``) calls it once per
        cotangent row, unless ``@bwd`` itself takes the batched cotangents.
        """
        bwd_name = primal.attributes["tad.custom_vjp"].value
        bwd = self.symbols.get(bwd_name)
        primal_type = primal.attributes["function_type"].value
        inputs, results = list(primal_type.inputs), list(primal_type.results)
        declared = request.function_type
        seeds = list(declared.inputs)[len(inputs):]
        batched = ir.FunctionType.get(inputs + seeds, [_batched(t, prefix) for t in inputs])
        per_row = ir.FunctionType.get(inputs + results, inputs)
        bwd_type = None if bwd is None else bwd.attributes["function_type"].value
        if bwd_type not in (batched, per_row):
            raise DerivativeError(primal.location,
                                  f"tad.custom_vjp of @{request.of} must name a function of type "
                                  f"{per_row}")
        fn = func.FuncOp(request.name, declared, ip=ir.InsertionPoint(request.decl))
        for name in request.decl.attributes:
            if name not in ("sym_name", "function_type"):
                fn.attributes[name] = request.decl.attributes[name]
        block = fn.add_entry_block()
        args = list(block.arguments)
        with ir.InsertionPoint(block), fn.location:
            outs = func.CallOp(results, request.of, args[:len(inputs)]).results
            if bwd_type == batched:
                grads = list(func.CallOp(list(batched.results), bwd_name, args).results)
            else:
                grads = _rowwise_call(bwd_name, args[:len(inputs)], args[len(inputs):], inputs, prefix)
            func.ReturnOp(list(outs) + [grads[i] for i in request.wrt])
        request.decl.erase()
        return fn.operation

    def _custom_jvp(self, request: Request, primal: ir.Operation, prefix: tuple) -> ir.Operation:
        """Either derivative of @f from its ``tad.custom_jvp = @rule`` (see the module's docstring)."""
        rule_name = primal.attributes["tad.custom_jvp"].value
        rule = self.symbols.get(rule_name)
        primal_type = primal.attributes["function_type"].value
        inputs, results = list(primal_type.inputs), list(primal_type.results)
        rule_type = None if rule is None else rule.attributes["function_type"].value
        with_tangents = 0 if rule_type is None else len(rule_type.inputs) - len(inputs)
        if rule_type is None or not 0 <= with_tangents <= len(inputs) or \
                list(rule_type.inputs) != inputs + inputs[:with_tangents] or \
                list(rule_type.results) != results + results:
            raise DerivativeError(primal.location, f"tad.custom_jvp of @{request.of} must name a function "
                                  "taking its inputs and one tangent per input, and returning its results "
                                  "and one tangent per result")
        beyond = [i for i in request.wrt if i >= with_tangents]
        if beyond:
            raise DerivativeError(request.decl.location, f"the custom_jvp rule of @{request.of} gives no "
                                  f"tangent for its input {beyond[0]} (a value the function closed over); "
                                  "pass it to the function as an argument")
        fn = func.FuncOp(request.name, request.function_type, ip=ir.InsertionPoint(request.decl))
        for name in request.decl.attributes:
            if name not in ("sym_name", "function_type"):
                fn.attributes[name] = request.decl.attributes[name]
        block = fn.add_entry_block()
        args = list(block.arguments)
        primals, given = args[:len(inputs)], args[len(inputs):]
        with ir.InsertionPoint(block), fn.location:
            zero_tangents = [tad_ops.zeros_like(p) for p in primals[:with_tangents]]
            if request.kind == "jvp":
                tangents = dict(zip(request.wrt, given))
                if prefix:  # the rule takes one tangent each: call it per row of the batch
                    fixed = primals + [None if i in tangents else z for i, z in enumerate(zero_tangents)]
                    outs = list(func.CallOp(results, request.of, primals).results)
                    outs += _rowwise_call(rule_name, fixed, [tangents[i] for i in sorted(tangents)],
                                          results, prefix, list(rule_type.results), len(results))
                else:
                    outs = list(func.CallOp(list(rule_type.results), rule_name, primals + [
                        tangents.get(i, z) for i, z in enumerate(zero_tangents)]).results)
            else:  # the transpose of the rule's tangent map
                wrt = tuple(len(inputs) + i for i in request.wrt)
                name, vjp_type = self.derive("vjp", rule_name, wrt, prefix)
                zero_cotangents = [tad_ops.zeros_like(seed) for seed in given]  # of the results' (batched) types
                called = func.CallOp(list(vjp_type.results), name,
                                     primals + zero_tangents + zero_cotangents + given).results
                outs = list(called[:len(results)]) + list(called[2 * len(results):])
            func.ReturnOp(outs)
        request.decl.erase()
        return fn.operation

    def derive(self, kind: str, callee: str, wrt: tuple, prefix: tuple):
        """Symbol and type of the ``kind`` derivative of ``@callee`` (declared and defined once)."""
        key = (kind, callee, wrt, prefix)
        if key not in self.derived:
            callee_op = self.symbols[callee]
            callee_type = callee_op.attributes["function_type"].value
            if kind == "vmap":  # ``wrt`` holds the in_axes, ``prefix`` the mapped size; results mapped first
                name = f"{callee}_vmap_" + "_".join("n" if a == -1 else str(a) for a in wrt) + f"_x{prefix[0]}"
                out_axes = [0] * len(callee_type.results)
                ftype = vmap_type(callee_type, wrt, out_axes, prefix[0])
                spec = {"in_axes": ir.DenseI64ArrayAttr.get(list(wrt)),
                        "out_axes": ir.DenseI64ArrayAttr.get(out_axes)}
            else:
                name = f"{callee}_{kind}_wrt{'_'.join(map(str, wrt))}"
                if prefix:
                    name += "_batch" + "x".join(map(str, prefix))
                ftype = expected_type(Request(callee_op, kind, callee, wrt), callee_type, prefix)
                spec = {"wrt": ir.DenseI64ArrayAttr.get(list(wrt))}
            with ir.InsertionPoint(self.body), callee_op.location:
                decl = func.FuncOp(name, ftype, visibility="private")
                decl.attributes[f"tad.{kind}"] = ir.DictAttr.get({"of": ir.FlatSymbolRefAttr.get(callee), **spec})
            self.symbols[name] = decl.operation
            if kind == "vmap":
                # Known before it is defined: a batched custom rule calls the batched function
                # it belongs to, whose body is complete by then (the rule is batched last).
                self.derived[key] = (name, ftype)
            self.define(Request.from_decl(decl.operation))
            self.derived[key] = (name, ftype)
        return self.derived[key]


@contextmanager
def _shapes_of_declaration(request: Request):
    """Report at the declaration a shape that building its function cannot handle (dynamic dims a call needs static)."""
    try:
        yield
    except ShapeError as err:
        raise DerivativeError(request.decl.location, f"cannot define @{request.name}: {err}") from None


def _batched(t: ir.Type, prefix: tuple) -> ir.Type:
    return derivative_type(t, prefix)


def _rowwise_call(callee: str, fixed: list, batched: list, stacked_types: list, prefix: tuple,
                  callee_results: list | None = None, first_stacked: int = 0) -> list:
    """Call ``@callee`` once per row of the batch ``prefix``; stack the results it returns from ``first_stacked`` on.

    Its arguments are ``fixed`` with each ``None`` replaced, in order, by the
    current row of the next of ``batched``; ``fixed`` followed by the rows when
    it holds no ``None``. ``callee_results`` are its result types
    (``stacked_types`` by default).
    """
    rows = int(np.prod(prefix, dtype=np.int64))
    flat = [_reshaped(s, (rows,) + tuple(s.type.shape)[len(prefix):]) for s in batched]
    stacks = [tad_ops.zeros((rows,) + tuple(t.shape), t.element_type) for t in stacked_types]
    index = ir.IndexType.get()
    loop = scf.ForOp(arith.ConstantOp(index, 0).result, arith.ConstantOp(index, rows).result,
                     arith.ConstantOp(index, 1).result, stacks)
    with ir.InsertionPoint(loop.body):
        i = loop.induction_variable
        row_values = iter([tad_ops.dynamic_row(f, i) for f in flat])
        args = [next(row_values) if a is None else a for a in fixed] + list(row_values)
        outs = func.CallOp(callee_results or stacked_types, callee, args).results[first_stacked:]
        scf.YieldOp([tad_ops.insert_row(acc, g, i) for acc, g in zip(loop.inner_iter_args, outs)])
    return [_reshaped(r, prefix + tuple(t.shape)) for r, t in zip(loop.results, stacked_types)]


def _reshaped(x: ir.Value, shape: tuple) -> ir.Value:
    """``x`` reshaped to ``shape``; ``x`` itself when it has that shape already."""
    return x if tuple(x.type.shape) == tuple(shape) else tad_ops.reshape(x, shape)


def define_all(op: ir.Operation, pass_, kinds: tuple, definers: dict | None = None) -> None:
    """Define every declaration of ``kinds`` in the module ``op`` (and what they depend on)."""
    generator = Generator(op, definers)
    try:
        with op.context:
            for name in [request.name for request in generator.pending(kinds)]:
                decl = generator.symbols[name]
                if not decl.regions[0].blocks:  # else defined already, as a dependency
                    generator.define(Request.from_decl(decl))
    except DerivativeError as err:
        err.location.emit_error(str(err))
        pass_.signal_pass_failure()


def run(op: ir.Operation, pass_) -> None:
    """Define every ``tad.vjp``/``tad.jvp`` declaration in the module ``op``."""
    define_all(op, pass_, ("vjp", "jvp"))
