"""Builders of ``linalg`` ops for lowering rules, without ``mlir.dialects.linalg``.

The lowering rule of every op family (``tad-lower-to-linalg``) builds its
replacement with these: generics over affine maps, element conversions,
reshapes through a flat view, reductions.

Importing ``mlir.dialects.linalg`` runs its OpDSL definitions of every named
op (``core_named_ops``): about 40 ms, paid by the first compile of every
process. The generated op classes and the C++ region builder are all these
passes need.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> ctx = make_context()
>>> with ctx, ir.Location.unknown():
...     module = ir.Module.create()
...     t = ir.RankedTensorType.get([2, 3], ir.F32Type.get())
...     with ir.InsertionPoint(module.body):
...         x = tensor.EmptyOp([2, 3], ir.F32Type.get()).result
...         y = tensor.EmptyOp([2, 3], ir.F32Type.get()).result
...         _ = copy(x, outs=[y])
>>> "linalg.copy ins(" in str(module)
True
"""

from __future__ import annotations

from math import prod
from typing import Callable, Optional, Sequence

from mlir import ir
from mlir._mlir_libs._mlirDialectsLinalg import fill_builtin_region
from mlir.dialects import arith, tensor
from mlir.dialects._linalg_ops_gen import ContractOp, CopyOp, GenericOp, IndexOp, TransposeOp, YieldOp

from .builder import scalar_attr



def _value(x) -> ir.Value:
    return x if isinstance(x, ir.Value) else x.result


def _result_types(init: ir.Value) -> list:
    return [init.type] if isinstance(init.type, ir.RankedTensorType) else []


def _single(op: ir.OpView):
    """The op's one result, or the op itself when it has none (on buffers)."""
    return op.results[0] if len(op.results) == 1 else op


def copy(x, *, outs):
    """``linalg.copy ins(x) outs(outs[0])``; returns its result (the op on buffers)."""
    init = _value(outs[0])
    op = CopyOp(_result_types(init), [_value(x)], [init])
    fill_builtin_region(op.operation)
    return _single(op)


def transpose(x, *, outs, permutation) -> TransposeOp:
    """``linalg.transpose``; returns the op, like ``mlir.dialects.linalg.transpose``."""
    init = _value(outs[0])
    op = TransposeOp(result=_result_types(init), input=_value(x), init=init, permutation=permutation)
    fill_builtin_region(op.operation)
    return op


def contract(*ins, outs, indexing_maps):
    """``linalg.contract`` of ``ins`` into ``outs[0]``; returns its result (the op on buffers)."""
    init = _value(outs[0])
    op = ContractOp(result_tensors=_result_types(init), inputs=[_value(x) for x in ins], outputs=[init],
                    indexing_maps=indexing_maps)
    fill_builtin_region(op.operation)
    return _single(op)



def is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def category(t: ir.Type) -> str:
    return "float" if isinstance(t, ir.FloatType) else ("bool" if is_bool(t) else "int")


# Scalar combiners per element category; booleans follow numpy (+ is or, * is and).
ADD = {"float": arith.addf, "int": arith.addi, "bool": arith.ori}
MUL = {"float": arith.mulf, "int": arith.muli, "bool": arith.andi}
# Float max/min propagate NaN, like numpy's maximum/minimum.
MAX = {"float": arith.maximumf, "int": arith.maxsi, "bool": arith.ori}
MIN = {"float": arith.minimumf, "int": arith.minsi, "bool": arith.andi}


def zero_attr(t: ir.Type) -> ir.Attribute:
    """The identity of sum."""
    return scalar_attr(0, t)


def lowest_attr(t: ir.Type) -> ir.Attribute:
    """The identity of max: -inf, the smallest signed integer, or false."""
    if isinstance(t, ir.FloatType):
        return scalar_attr(float("-inf"), t)
    return scalar_attr(0 if is_bool(t) else -(1 << (t.width - 1)), t)


def highest_attr(t: ir.Type) -> ir.Attribute:
    """The identity of min: +inf, the largest signed integer, or true."""
    if isinstance(t, ir.FloatType):
        return scalar_attr(float("inf"), t)
    return scalar_attr(1 if is_bool(t) else (1 << (t.width - 1)) - 1, t)


def affine_map(n_loops: int, dims: Sequence[Optional[int]]) -> ir.AffineMap:
    """Map ``n_loops`` loop indices to ``dims``: loop ``d`` per entry, None for index 0."""
    exprs = [ir.AffineConstantExpr.get(0) if d is None else ir.AffineDimExpr.get(d) for d in dims]
    return ir.AffineMap.get(n_loops, 0, exprs)


def generic(inputs: Sequence[ir.Value], inits: Sequence[ir.Value], maps: Sequence[ir.AffineMap],
             iterators: Sequence[str], body: Callable[..., list]) -> list:
    """Build a ``linalg.generic`` and return its results.

    ``maps`` holds one indexing map per input, then per init; ``iterators``
    holds ``"parallel"`` or ``"reduction"`` per loop. ``body`` is called inside
    the region with the block arguments (input elements, then accumulators) and
    returns the values to yield.
    """
    op = GenericOp(
        result_tensors=[v.type for v in inits], inputs=list(inputs), outputs=list(inits),
        indexing_maps=ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        iterator_types=ir.ArrayAttr.get(
            [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]))
    block = op.regions[0].blocks.append(*[v.type.element_type for v in [*inputs, *inits]])
    with ir.InsertionPoint(block):
        YieldOp(body(*block.arguments))
    return list(op.results)


def empty(t: ir.RankedTensorType) -> ir.Value:
    return tensor.EmptyOp(t.shape, t.element_type).result


def parallel(inputs: Sequence[ir.Value], in_dims: Sequence[Sequence[Optional[int]]],
              result_type: ir.RankedTensorType, body: Callable[..., ir.Value]) -> ir.Value:
    """An all-parallel generic over ``result_type``; input ``k`` is read at loop dims ``in_dims[k]``."""
    rank = result_type.rank
    maps = [affine_map(rank, dims) for dims in in_dims] + [affine_map(rank, range(rank))]
    [result] = generic(inputs, [empty(result_type)], maps, ["parallel"] * rank,
                        lambda *args: [body(*args)])
    return result


def splat(value: ir.Attribute, result_type: ir.RankedTensorType) -> ir.Value:
    """A tensor filled with ``value``, built as a generic that fusion folds into its consumers."""
    return parallel([], [], result_type, lambda _out: arith.constant(value.type, value))


def convert_scalar(x: ir.Value, to: ir.Type) -> ir.Value:
    """Convert one element with numpy ``astype`` semantics (floats truncate toward zero)."""
    src = x.type
    if src == to:
        return x
    if is_bool(to):
        zero = arith.constant(src, zero_attr(src))
        if isinstance(src, ir.FloatType):
            return arith.cmpf(arith.CmpFPredicate.UNE, x, zero)
        return arith.cmpi(arith.CmpIPredicate.ne, x, zero)
    if isinstance(src, ir.FloatType):
        if isinstance(to, ir.IntegerType):
            return arith.fptosi(to, x)
        return (arith.extf if to.width > src.width else arith.truncf)(to, x)
    if isinstance(to, ir.FloatType):
        return (arith.uitofp if is_bool(src) else arith.sitofp)(to, x)
    if to.width > src.width:
        return (arith.extui if is_bool(src) else arith.extsi)(to, x)
    return arith.trunci(to, x)


def index_scalar(dim: int, to: ir.Type) -> ir.Value:
    """The current loop index ``dim`` as a value of type ``to``."""
    i64 = ir.IntegerType.get_signless(64)
    index = arith.index_cast(i64, IndexOp(dim).result)
    return convert_scalar(index, to)


def static_slice_args(offsets, sizes, strides) -> dict:
    return dict(offsets=[], sizes=[], strides=[], static_offsets=list(offsets),
                static_sizes=list(sizes), static_strides=list(strides))


def broadcast(x: ir.Value, result_type: ir.RankedTensorType, dims: Sequence[int]) -> ir.Value:
    """Operand dim i -> result dim ``dims[i]``; a size-1 operand dim is read at index 0."""
    result_shape = result_type.shape
    read = [None if n == 1 and result_shape[d] != 1 else d for n, d in zip(x.type.shape, dims)]
    return parallel([x], [read], result_type, lambda a, _out: a)


def to_flat(x: ir.Value) -> ir.Value:
    """Row-major view of ``x`` as a 1-D tensor."""
    t = x.type
    if t.rank == 1:
        return x
    flat = ir.RankedTensorType.get([prod(t.shape)], t.element_type)
    if t.rank == 0:
        return tensor.ExpandShapeOp(flat, x, [], [], [1]).result
    return tensor.CollapseShapeOp(flat, x, [list(range(t.rank))]).result


def from_flat(flat: ir.Value, t: ir.RankedTensorType) -> ir.Value:
    """Row-major view of the 1-D tensor ``flat`` with type ``t``."""
    if t.rank == 1:
        return flat
    if t.rank == 0:
        return tensor.CollapseShapeOp(t, flat, []).result
    return tensor.ExpandShapeOp(t, flat, [list(range(t.rank))], [], list(t.shape)).result


def permuted(x: ir.Value, permutation: Sequence[int]) -> ir.Value:
    """``x`` with result dim i taken from dim ``permutation[i]`` (``linalg.transpose``)."""
    if list(permutation) == list(range(len(permutation))):
        return x  # also rank 0, which linalg.transpose cannot express
    t = x.type
    out = ir.RankedTensorType.get([t.shape[p] for p in permutation], t.element_type)
    return transpose(x, outs=[empty(out)], permutation=list(permutation)).results[0]


def reduction(x: ir.Value, dims: Sequence[int], inits: Sequence[ir.Value],
               body: Callable[..., list]) -> list:
    """A generic reading all of ``x`` and accumulating into ``inits`` (``x`` without ``dims``)."""
    rank = x.type.rank
    kept = [d for d in range(rank) if d not in dims]
    maps = [affine_map(rank, range(rank))] + [affine_map(rank, kept)] * len(inits)
    iterators = ["reduction" if d in dims else "parallel" for d in range(rank)]
    return generic([x], inits, maps, iterators, body)


def greater(a: ir.Value, best: ir.Value) -> ir.Value:
    """True when ``a`` replaces the running maximum ``best``; a NaN beats any number, like numpy."""
    if isinstance(a.type, ir.FloatType):
        above_or_nan = arith.cmpf(arith.CmpFPredicate.UGT, a, best)
        return arith.andi(above_or_nan, arith.cmpf(arith.CmpFPredicate.ORD, best, best))
    if is_bool(a.type):
        return arith.cmpi(arith.CmpIPredicate.ugt, a, best)
    return arith.cmpi(arith.CmpIPredicate.sgt, a, best)
