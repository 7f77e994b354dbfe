"""A compute of the tensor-expression frontend as one ``linalg.generic``.

The loops of the generic are the compute's dimensions (parallel), then its
reduction axes (reduction). Each load ``X[f(i, k)]`` becomes an input read
through the affine map ``f`` (``+ - *`` by constants, ``//`` and ``%`` by
positive constants); the body is the expression, evaluated per point with
``arith``/``math`` ops; a reduction accumulates into an init holding its
identity. The generic is ordinary upstream IR: the derivative rules of
``linalg.generic`` (``tad-differentiate``), ``tad-raise-contractions`` and
the lowering treat it as any other.

Reads guarded by ``if_then_else`` may fall outside their tensor (TVM's
padding idiom): they read a zero-padded copy (``tad.pad``) instead, so both
branches can be evaluated. Any other read out of bounds is an error when the
compute is made.

Examples
--------
>>> import tensorad as ta
>>> from tensorad import te
>>> A = te.placeholder((4,), "float64", name="A")
>>> B = te.compute((2,), lambda i: A[2 * i] + A[2 * i + 1])
>>> "linalg.generic" in te.lower([A, B])
True
"""

from __future__ import annotations

from typing import Optional

from mlir import ir
from mlir.dialects import arith, math, tensor
from mlir.dialects._linalg_ops_gen import IndexOp

from tensorad.dialects import builder, linalg_builder

from .. import dtypes
from ..tracing import Tracer
from . import expr as E

# ----------------------------------------------------------------------------
# Index analysis (when a compute is made)
# ----------------------------------------------------------------------------


def _interval(index: E.Expr, ranges: dict, what: str) -> tuple:
    """``(lo, hi)`` of an affine index expression over the loop ranges; raises TypeError when not affine."""
    if isinstance(index, E.Const):
        return index.value, index.value
    if isinstance(index, E.Var):
        if index not in ranges:
            raise TypeError(f"{what}: the index variable {index.name} is not a loop of this compute "
                            "(a reduce_axis must be reduced by the compute that uses it)")
        return ranges[index]
    if isinstance(index, E.Binary):
        a = _interval(index.a, ranges, what)
        if index.op in ("add", "sub"):
            b = _interval(index.b, ranges, what)
            return (a[0] + b[0], a[1] + b[1]) if index.op == "add" else (a[0] - b[1], a[1] - b[0])
        b = _constant(index.b)
        if index.op == "mul":
            if b is None:
                b, a = _constant(index.a), _interval(index.b, ranges, what)
            if b is not None:
                return (a[0] * b, a[1] * b) if b >= 0 else (a[1] * b, a[0] * b)
        elif index.op in ("floordiv", "mod") and b is not None and b > 0:
            if index.op == "floordiv":
                return a[0] // b, a[1] // b
            return a if 0 <= a[0] and a[1] < b else (0, b - 1)
    raise TypeError(f"{what}: an index must be affine in the loop variables (+, -, * by a constant, "
                    "// and % by a positive constant); data-dependent or nonlinear indices are not supported")


def _constant(index: E.Expr) -> Optional[int]:
    return index.value if isinstance(index, E.Const) and isinstance(index.value, int) else None


def guarded_loads(body: E.Expr) -> dict:
    """``{id(load): (load, guarded)}`` for the loads of ``body``; guarded: inside an if_then_else branch."""
    found, stack = {}, [(body, False)]
    while stack:
        node, guarded = stack.pop()
        if isinstance(node, E.Load):
            _, was = found.get(id(node), (node, True))
            found[id(node)] = (node, was and guarded)
        if isinstance(node, E.Select):
            stack.append((node.cond, guarded))
            stack.extend((branch, True) for branch in (node.then, node.otherwise))
        else:
            stack.extend((child, guarded) for child in node.children())
    return found


def loop_ranges(shape: tuple, axes: tuple, reduce_axes: tuple) -> dict:
    ranges = {v: (0, n - 1) for v, n in zip(axes, shape)}
    ranges.update({k: (k.lo, k.hi - 1) for k in reduce_axes})
    return ranges


def padding_of(shape: tuple, axes: tuple, body: E.Expr, name: str) -> dict:
    """``{id(load): (low, high)}``: the zero padding each load needs; checks every index.

    Raises IndexError for a read outside its tensor that no ``if_then_else`` guards.
    """
    reduce_axes = body.axes if isinstance(body, E.Reduce) else ()
    ranges, pads = loop_ranges(shape, axes, reduce_axes), {}
    for load, guarded in guarded_loads(body).values():
        low, high = [], []
        for d, (index, size) in enumerate(zip(load.indices, load.tensor.shape)):
            lo, hi = _interval(index, ranges, f"compute {name!r}, {load.tensor.name}[...]")
            if (lo < 0 or hi >= size) and not guarded:
                raise IndexError(f"compute {name!r} reads {load.tensor.name} at indices {lo}..{hi} of dim {d} "
                                 f"(size {size}); guard the read with te.if_then_else to pad it with zeros")
            low.append(max(0, -lo))
            high.append(max(0, hi - size + 1))
        if any(low) or any(high):
            pads[id(load)] = (tuple(low), tuple(high))
    return pads


# ----------------------------------------------------------------------------
# Emission (inside a trace)
# ----------------------------------------------------------------------------


def _affine(index: E.Expr, dims: dict, shift: int = 0) -> ir.AffineExpr:
    if isinstance(index, E.Const):
        return ir.AffineConstantExpr.get(index.value + shift)
    if isinstance(index, E.ReduceAxis):
        expr = ir.AffineDimExpr.get(dims[index]) + index.lo
    elif isinstance(index, E.Var):
        expr = ir.AffineDimExpr.get(dims[index])
    else:
        a = _affine(index.a, dims)
        b = _affine(index.b, dims)
        expr = {"add": lambda: a + b, "sub": lambda: a - b, "mul": lambda: a * b,
                "floordiv": lambda: ir.AffineFloorDivExpr.get(a, b),
                "mod": lambda: ir.AffineModExpr.get(a, b)}[index.op]()
    return expr + shift if shift else expr


def scalar_type(kind: str, default: str) -> ir.Type:
    if kind == E.INDEX:
        return ir.IndexType.get()
    if kind == E.BOOL:
        return ir.IntegerType.get_signless(1)
    return dtypes.to_mlir(kind or default)


_FLOAT_BINARY = {"add": arith.addf, "sub": arith.subf, "mul": arith.mulf, "div": arith.divf,
                 "pow": math.powf, "max": arith.maximumf, "min": arith.minimumf}
_INDEX_BINARY = {"add": arith.addi, "sub": arith.subi, "mul": arith.muli, "max": arith.maxsi, "min": arith.minsi}
_FLOAT_COMPARE = {"lt": arith.CmpFPredicate.OLT, "le": arith.CmpFPredicate.OLE, "gt": arith.CmpFPredicate.OGT,
                  "ge": arith.CmpFPredicate.OGE, "eq": arith.CmpFPredicate.OEQ, "ne": arith.CmpFPredicate.UNE}
_INDEX_COMPARE = {"lt": arith.CmpIPredicate.slt, "le": arith.CmpIPredicate.sle, "gt": arith.CmpIPredicate.sgt,
                  "ge": arith.CmpIPredicate.sge, "eq": arith.CmpIPredicate.eq, "ne": arith.CmpIPredicate.ne}
_MATH = {"exp": math.exp, "log": math.log, "sqrt": math.sqrt, "tanh": math.tanh, "sin": math.sin,
         "cos": math.cos, "abs": math.absf, "floor": math.floor, "ceil": math.ceil, "erf": math.erf,
         "rsqrt": math.rsqrt, "log1p": math.log1p, "expm1": math.expm1}


class _Body:
    """Emits the scalar expression of one compute inside its generic's block."""

    def __init__(self, default: str, dims: dict, arguments: dict):
        self.default, self.dims, self.arguments, self.memo = default, dims, arguments, {}

    def value(self, node: E.Expr, kind: Optional[str] = None) -> ir.Value:
        """``node`` as a scalar of ``kind`` (its own kind when None)."""
        target = kind or node.kind or self.default
        key = (id(node), target)
        if key not in self.memo:
            self.memo[key] = self._emit(node, target)
        return self.memo[key]

    def _float_of_index(self, node: E.Expr, target: str) -> ir.Value:
        i64 = ir.IntegerType.get_signless(64)
        return arith.sitofp(scalar_type(target, self.default), arith.index_cast(i64, self.value(node)))

    def _emit(self, node: E.Expr, target: str) -> ir.Value:
        t = scalar_type(target, self.default)
        if isinstance(node, E.Const):
            attr = ir.IntegerAttr.get(t, int(node.value)) if target in (E.INDEX, E.BOOL) else \
                ir.FloatAttr.get(t, float(node.value))
            return arith.constant(t, attr)
        own = node.kind or self.default
        if own == E.INDEX and target != E.INDEX:
            return self._float_of_index(node, target)
        if own != target and target not in (E.INDEX, E.BOOL) and own not in (E.INDEX, E.BOOL):
            value = self.value(node)
            wider = dtypes.to_mlir(own).width < t.width
            return arith.extf(t, value) if wider else arith.truncf(t, value)
        if isinstance(node, E.Var):
            index = IndexOp(self.dims[node]).result
            if isinstance(node, E.ReduceAxis) and node.lo:
                index = arith.addi(index, arith.constant(ir.IndexType.get(), node.lo))
            return index
        if isinstance(node, E.Load):
            return self.arguments[id(node)]
        if isinstance(node, E.Cast):
            return self.value(node.value, target)
        if isinstance(node, E.Binary):
            a, b = self.value(node.a, target), self.value(node.b, target)
            if target != E.INDEX:
                return _FLOAT_BINARY[node.op](a, b)
            if node.op in _INDEX_BINARY:
                return _INDEX_BINARY[node.op](a, b)
            quotient = arith.floordivsi(a, b)
            if node.op == "floordiv":
                return quotient
            if node.op == "mod":  # Python's (floored) remainder
                return arith.subi(a, arith.muli(quotient, b))
            raise TypeError(f"'{node.op}' of indices is not supported; convert with .astype(...)")
        if isinstance(node, E.Compare):
            operand = node.operand_kind or self.default
            a, b = self.value(node.a, operand), self.value(node.b, operand)
            if operand == E.INDEX:
                return arith.cmpi(_INDEX_COMPARE[node.op], a, b)
            return arith.cmpf(_FLOAT_COMPARE[node.op], a, b)
        if isinstance(node, E.Logical):
            terms = [self.value(term) for term in node.terms]
            combine = arith.andi if node.op == "and" else arith.ori
            result = terms[0]
            for term in terms[1:]:
                result = combine(result, term)
            return result
        if isinstance(node, E.Select):
            return arith.select(self.value(node.cond), self.value(node.then, target),
                                self.value(node.otherwise, target))
        if isinstance(node, E.Call):
            x = self.value(node.args[0], target)
            if node.name == "sigmoid":
                one = arith.constant(t, ir.FloatAttr.get(t, 1.0))
                return arith.divf(one, arith.addf(one, math.exp(arith.negf(x))))
            return _MATH[node.name](x)
        raise TypeError(f"cannot emit a {type(node).__name__} here")


def emit_compute(t, values: dict, pads: dict) -> Tracer:
    """The ``linalg.generic`` of the compute tensor ``t``, reading ``values[tensor]`` (tracers)."""
    op = t.op
    body = op.body
    reduce_axes = op.reduce_axis
    dims = {v: d for d, v in enumerate(tuple(op.axis) + tuple(reduce_axes))}
    n_loops = len(dims)
    padded, operands, maps, slot_of, slots = {}, [], [], {}, {}
    for load, _ in guarded_loads(body).values():
        low, high = pads.get(id(load), ((0,) * load.tensor.ndim, (0,) * load.tensor.ndim))
        source = values[load.tensor].value
        if any(low) or any(high):
            key = (load.tensor, low, high)
            if key not in padded:
                zero = builder.constant(0.0, (), builder.Val(source).element_type)
                padded[key] = builder.pad(source, zero, low, high, [0] * len(low))
            source = padded[key]
        amap = ir.AffineMap.get(n_loops, 0, [_affine(i, dims, s) for i, s in zip(load.indices, low)])
        key = (source, str(amap))
        if key not in slot_of:
            slot_of[key] = len(operands)
            operands.append(source)
            maps.append(amap)
        slots[id(load)] = slot_of[key]
    element = dtypes.to_mlir(t.dtype)
    # linalg infers each loop's extent from a map reading it alone: a loop only ever read
    # inside a sum (a strided window, d0 * 2 + d1) gets an empty tensor of its extent as
    # a shape operand, as the pooling ops of linalg have.
    alone = {m.results[r].position for m in maps for r in range(len(m.results))
             if isinstance(m.results[r], ir.AffineDimExpr)} | set(range(len(t.shape)))
    extents = [n for n in t.shape] + [k.hi - k.lo for k in reduce_axes]
    window = [d for d in range(n_loops) if d not in alone]
    if window:
        operands.append(tensor.EmptyOp([extents[d] for d in window], element).result)
        maps.append(linalg_builder.affine_map(n_loops, window))
    result_type = ir.RankedTensorType.get(list(t.shape), element)
    out_map = linalg_builder.affine_map(n_loops, list(range(len(t.shape))))
    if isinstance(body, E.Reduce):
        init = builder.constant(E.Reduce.IDENTITY[body.combiner], t.shape, element)
        iterators = ["parallel"] * len(t.shape) + ["reduction"] * len(reduce_axes)
    else:
        init = tensor.EmptyOp(list(t.shape), element).result
        iterators = ["parallel"] * len(t.shape)
    generic, block = linalg_builder.empty_generic(operands, [init], maps + [out_map], iterators)
    with ir.InsertionPoint(block):
        loads = {key: block.arguments[slot] for key, slot in slots.items()}
        emitter = _Body(t.dtype, dims, loads)
        if isinstance(body, E.Reduce):
            accumulator = block.arguments[-1]
            value = emitter.value(body.value, t.dtype)
            if body.where is not None:
                identity = arith.constant(element, ir.FloatAttr.get(element, E.Reduce.IDENTITY[body.combiner]))
                value = arith.select(emitter.value(body.where), value, identity)
            result = {"sum": arith.addf, "max": arith.maximumf, "min": arith.minimumf}[body.combiner](
                accumulator, value)
        else:
            result = emitter.value(body, t.dtype)
        linalg_builder.YieldOp([result])
    assert generic.results[0].type == result_type
    return Tracer.of(generic.results[0])
