"""Which dynamic dimensions (``?``) of a function's values are equal at run time.

Dynamic sizes are known only when compiled code runs, and that code trusts
them: an ``arith.mulf`` of two ``tensor<?xf64>`` values of different lengths
reads past the end of the shorter one. :class:`DimClasses` gathers the dims
that the IR requires to be equal into classes (a union-find over
``(value, dim)`` pairs and static sizes), from what the op records say:

* an op with :attr:`~tensorad.dialects.record.Trait.ELEMENTWISE` has one
  shape for every tensor operand and result;
* a ``tad`` op relates dims as its shape rule does
  (:func:`~tensorad.dialects.shapes.relate_dims`);
* an op with regions routes values as its record's ``region_flow`` says
  (loop inits, carries, yields and results share their dims);
* ``tensor.dim`` reads a dim, and ``tensor.empty``/``tensor.splat`` take
  their sizes from ``index`` values (what a rule builds with
  :func:`~tensorad.dialects.builder.full_like`);
* a call relates its operands and results through the callee's body,
  analysed afresh at each call site.

Other ops tell nothing: their results' dims are unrelated (a class of
their own), so the classes may miss a requirement but never invent one
that the IR does not state.

Two uses: :func:`argument_checks` lists the sizes a caller must give the
arguments of a function consistently (``compile_mlir`` checks them before a
call), and :func:`kept_sizes` says whether a loop body keeps the sizes of
its carries (reverse mode tapes them in rows of the size of the first).

Examples
--------
>>> from tensorad.dialects import make_context
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<?xf64>, %y: tensor<?xf64>, %w: tensor<3x?xf64>) -> tensor<?xf64> {
...   %0 = arith.mulf %x, %y : tensor<?xf64>
...   %1 = "tad.dot_general"(%w, %0) {lhs_batching_dimensions = array<i64>,
...       rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>,
...       rhs_contracting_dimensions = array<i64: 0>} : (tensor<3x?xf64>, tensor<?xf64>) -> tensor<3xf64>
...   return %0 : tensor<?xf64>
... }''', make_context())
>>> argument_checks(m.operation, "f")
[[(0, 0), (1, 0), (2, 1)]]
"""

from __future__ import annotations

from typing import Optional

from mlir import ir

from ..dialects.record import Trait, has_trait, record_of
from ..dialects.shapes import is_dynamic, relate_dims


def _dims(value: ir.Value) -> int:
    """The rank of a ranked tensor value; 0 for anything else (it has no dims to relate)."""
    return value.type.rank if isinstance(value.type, ir.RankedTensorType) else 0


class DimClasses:
    """Classes of equal dimension sizes over the values of a function (see the module's docstring).

    A key is ``(context, value, dim)`` for a dim of a tensor, ``(context,
    value)`` for an ``index`` value, or an ``int`` for a static size; the
    context tells apart the copies of a callee analysed at different calls.
    """

    def __init__(self, symbols: dict):
        self.symbols = symbols  # name -> func.func, for calls
        self.parent: dict = {}
        self.calling: list = []  # callees being analysed: a recursive call tells nothing

    def find(self, key):
        root = key
        while self.parent.get(root, root) != root:
            root = self.parent[root]
        while key != root:  # path compression
            self.parent[key], key = root, self.parent[key]
        return root

    def unify(self, a, b) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            # A static size stays the root, so a class's size is its root when it has one.
            if isinstance(a, int):
                a, b = b, a
            self.parent[a] = b

    def dim(self, context: tuple, value: ir.Value, d: int):
        """The key of dim ``d`` of ``value``, joined with its size when it is static."""
        key = (context, value, d)
        n = value.type.shape[d]
        if key not in self.parent:
            self.parent[key] = key
            if not is_dynamic(n):
                self.unify(key, n)
        return key

    def same_dims(self, context: tuple, a: ir.Value, b: ir.Value) -> None:
        """Join each dim of ``a`` with that of ``b`` (values of one shape)."""
        if _dims(a) and _dims(a) == _dims(b):
            for d in range(_dims(a)):
                self.unify(self.dim(context, a, d), self.dim(context, b, d))

    def add_block(self, block: ir.Block, context: tuple = ()) -> None:
        """Relate the dims of every op in ``block``, nested regions included."""
        for op in block.operations:
            self.add_op(op.operation, context)

    def add_op(self, op: ir.Operation, context: tuple) -> None:
        for region in op.regions:
            for block in region.blocks:
                self.add_block(block, context)
        rec = record_of(op)
        if has_trait(op, Trait.ELEMENTWISE):
            shaped = [v for v in [*op.operands, *op.results] if _dims(v)]
            for v in shaped[1:]:
                self.same_dims(context, shaped[0], v)
        elif op.name.startswith("tad."):
            relate_dims(op, lambda v, d: self.dim(context, v, d), self.unify)
        elif rec is not None and rec.region_flow is not None:
            rec.region_flow(op, lambda source, target: self.same_dims(context, source, target))
        elif "callee" in op.attributes:
            self._call(op, context)
        elif op.name in _SIZE_RULES:
            _SIZE_RULES[op.name](self, op, context)

    def sized_by_operands(self, op: ir.Operation, context: tuple) -> None:
        """``tensor.empty``/``tensor.splat``: each dynamic dim has the size of the next ``index`` operand."""
        result = op.results[0]
        sizes = iter(v for v in op.operands if isinstance(v.type, ir.IndexType))
        for d, n in enumerate(result.type.shape):
            if is_dynamic(n):
                self.unify(self.dim(context, result, d), (context, next(sizes)))

    def dim_read(self, op: ir.Operation, context: tuple) -> None:
        """``tensor.dim %v, %c``: the ``index`` result is dim ``c`` of ``%v`` when ``c`` is a constant."""
        source, index = op.operands
        owner = index.owner
        if isinstance(owner, ir.Block) or owner.operation.name != "arith.constant" or not _dims(source):
            return
        d = ir.IntegerAttr(owner.operation.attributes["value"]).value
        if 0 <= d < _dims(source):
            self.unify((context, op.results[0]), self.dim(context, source, d))

    def _call(self, op: ir.Operation, context: tuple) -> None:
        callee = self.symbols.get(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
        if callee is None or not callee.regions[0].blocks or callee in self.calling:
            return
        inner = context + (op,)
        block = callee.regions[0].blocks[0]
        self.calling.append(callee)
        self.add_block(block, inner)
        self.calling.pop()
        for arg, value in zip(block.arguments, op.operands):
            self._join(inner, arg, context, value)
        returned = list(block.operations)[-1].operands
        for ret, value in zip(returned, op.results):
            self._join(inner, ret, context, value)

    def _join(self, context_a: tuple, a: ir.Value, context_b: tuple, b: ir.Value) -> None:
        if _dims(a) and _dims(a) == _dims(b):
            for d in range(_dims(a)):
                self.unify(self.dim(context_a, a, d), self.dim(context_b, b, d))


# How the upstream ops that build tensors of given sizes, or read sizes, relate dims.
_SIZE_RULES = {"tensor.empty": DimClasses.sized_by_operands, "tensor.splat": DimClasses.sized_by_operands,
               "tensor.dim": DimClasses.dim_read}


def _symbols(module: ir.Operation) -> dict:
    return {op.attributes["sym_name"].value: op.operation for op in module.regions[0].blocks[0].operations
            if op.operation.name == "func.func"}


def argument_checks(module: ir.Operation, name: str) -> list:
    """Dims of ``@name``'s arguments that must be equal at run time: lists of ``(argument, dim)``.

    Each list holds the dynamic argument dims of one class, and ``int`` sizes
    stand for a static size the class must have. A ``tad.vjp``/``tad.jvp``
    declaration (no body yet) takes the classes of the function it
    differentiates: its seeds have the shapes of that function's results
    (vjp) or of its ``wrt`` inputs (jvp), after any batch prefix.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<?x4xf64>) -> tensor<?xf64> {
    ...   %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 1>} : (tensor<?x4xf64>) -> tensor<?xf64>
    ...   return %0 : tensor<?xf64>
    ... }
    ... func.func private @f_vjp(tensor<?x4xf64>, tensor<?xf64>) -> (tensor<?xf64>, tensor<?x4xf64>)
    ...     attributes {tad.vjp = {of = @f, wrt = array<i64: 0>}}''', make_context())
    >>> argument_checks(m.operation, "f_vjp")
    [[(0, 0), (1, 0)]]
    """
    symbols = _symbols(module)
    classes = DimClasses(symbols)
    arguments = _arguments(classes, symbols, name, ())
    groups: dict = {}
    for i, dims in enumerate(arguments):
        for d, key in enumerate(dims):
            if key is not None:
                groups.setdefault(classes.find(key), []).append((i, d))
    checks = []
    for root, members in groups.items():
        if isinstance(root, int):
            checks.append(members + [root])
        elif len(members) > 1:
            checks.append(members)
    return checks


def _arguments(classes: DimClasses, symbols: dict, name: str, context: tuple) -> list:
    """Per argument of ``@name``, the keys of its dynamic dims (None for a static dim)."""
    fn = symbols.get(name)
    if fn is None:
        return []
    types = list(ir.TypeAttr(fn.attributes["function_type"]).value.inputs)
    if fn.regions[0].blocks:
        block = fn.regions[0].blocks[0]
        classes.add_block(block, context)
        return [[classes.dim(context, arg, d) if is_dynamic(n) else None for d, n in enumerate(arg.type.shape)]
                if _dims(arg) else [] for arg in block.arguments]
    spec = next((fn.attributes[k] for k in ("tad.vjp", "tad.jvp") if k in fn.attributes), None)
    if spec is None or "of" not in spec:
        return [[] for _ in types]
    of = ir.FlatSymbolRefAttr(spec["of"]).value
    primal = symbols.get(of)
    if primal is None:
        return [[] for _ in types]
    inner = context + (name,)
    keys = _arguments(classes, symbols, of, inner)
    primal_type = ir.TypeAttr(primal.attributes["function_type"]).value
    if "tad.vjp" in fn.attributes:
        seeds = _results(classes, primal, inner, len(primal_type.results))
    else:
        seeds = [keys[i] for i in ir.DenseI64ArrayAttr(spec["wrt"])] if "wrt" in spec else []
    out = list(keys)
    for t, seed in zip(types[len(keys):], seeds):
        # A batch prefix comes first; its dims are the declaration's own.
        rank = t.rank if isinstance(t, ir.RankedTensorType) else 0
        out.append([None] * (rank - len(seed)) + list(seed))
    return out + [[] for _ in types[len(out):]]


def _results(classes: DimClasses, fn: ir.Operation, context: tuple, count: int) -> list:
    """Per result of ``fn`` (with a body), the keys of its dynamic dims (None for static ones)."""
    if not fn.regions[0].blocks:
        return [[] for _ in range(count)]
    returned = list(fn.regions[0].blocks[0].operations)[-1].operands
    return [[classes.dim(context, v, d) if is_dynamic(n) else None for d, n in enumerate(v.type.shape)]
            if _dims(v) else [] for v in returned]


def kept_sizes(loop: ir.Operation, carries) -> Optional[int]:
    """The first of the ``carries`` (indices) whose dynamic dims ``loop``'s body may change, or None.

    The body keeps a carry's sizes when each dynamic dim of the value it
    yields is in the class of the same dim of the carry's block argument,
    from the body's ops alone.
    """
    module = loop
    while module.parent is not None:
        module = module.parent
    classes = DimClasses(_symbols(module) if module.name == "builtin.module" else {})
    body = loop.regions[-1].blocks[0]
    classes.add_block(body)
    yielded = list(body.operations)[-1].operands
    arguments = list(body.arguments)[len(body.arguments) - len(loop.results):]
    for k in carries:
        arg, value = arguments[k], yielded[k]
        for d in range(_dims(arg)):
            if is_dynamic(arg.type.shape[d]) and \
                    classes.find(classes.dim((), arg, d)) != classes.find(classes.dim((), value, d)):
                return k
    return None
