"""Builders of ``linalg`` ops for lowering rules, without ``mlir.dialects.linalg``.

The lowering rule of every op family (``tad-lower-to-linalg``) builds its
replacement with these: generics over affine maps, element conversions,
reshapes through a flat view, reductions, and float sums in blocked stages.

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

from .builder import convert_scalar, dim_size, extract_slice, scalar_attr
from .shapes import DYNAMIC, is_dynamic, regrouped



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


def empty_generic(inputs: Sequence[ir.Value], inits: Sequence[ir.Value], maps: Sequence[ir.AffineMap],
                  iterators: Sequence[str]) -> tuple:
    """A ``linalg.generic`` and its empty block: ``(op, block)``.

    ``maps`` holds one indexing map per input, then per init; ``iterators``
    holds ``"parallel"`` or ``"reduction"`` per loop. The block has one
    argument per operand: its element type (a scalar input's own type).
    """
    op = GenericOp(
        result_tensors=[v.type for v in inits], inputs=list(inputs), outputs=list(inits),
        indexing_maps=ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        iterator_types=ir.ArrayAttr.get(
            [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]))
    block = op.regions[0].blocks.append(*[v.type.element_type if isinstance(v.type, ir.ShapedType) else v.type
                                          for v in [*inputs, *inits]])
    return op, block


def generic(inputs: Sequence[ir.Value], inits: Sequence[ir.Value], maps: Sequence[ir.AffineMap],
            iterators: Sequence[str], body: Callable[..., list]) -> list:
    """Build a ``linalg.generic`` (see :func:`empty_generic`) and return its results.

    ``body`` is called inside the region with the block arguments (input
    elements, then accumulators) and returns the values to yield.
    """
    op, block = empty_generic(inputs, inits, maps, iterators)
    with ir.InsertionPoint(block):
        YieldOp(body(*block.arguments))
    return list(op.results)


# What a structured op carries as its own structure (a named op's cast included).
_STRUCTURE = frozenset({"indexing_maps", "iterator_types", "operandSegmentSizes", "doc", "library_call", "cast"})


def carry_attributes(old: ir.Operation, new: ir.Operation) -> None:
    """Copy the attributes of structured op ``old`` that are not its structure (marks passes set) onto ``new``.

    Examples
    --------
    >>> from mlir import ir
    >>> from tensorad.dialects import make_context
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    ...   %0 = linalg.exp {tad.mark} ins(%x : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    ...   %1 = linalg.exp ins(%0 : tensor<4xf32>) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    ...   return %1 : tensor<4xf32>
    ... }''', make_context())
    >>> first, second = list(m.body.operations[0].regions[0].blocks[0].operations)[:2]
    >>> carry_attributes(first, second)
    >>> "tad.mark" in second.attributes
    True
    """
    for name in old.attributes:
        if name not in _STRUCTURE:
            new.attributes[name] = old.attributes[name]


def iterator_kinds(op: ir.Operation) -> list:
    """``"parallel"`` or ``"reduction"`` for each loop of the ``linalg.generic`` ``op``."""
    return [str(a).split("<")[1].rstrip(">") for a in op.attributes["iterator_types"]]


def dynamic_sizes(x: ir.Value, dims: Sequence[int]) -> list:
    """The sizes (``index`` values) of the dynamic dims of ``x`` among ``dims``, in the order of ``dims``.

    They are what :func:`empty` needs for a result whose dims are these dims of ``x``.
    """
    return [dim_size(x, d) for d in dims if is_dynamic(x.type.shape[d])]


def empty(t: ir.RankedTensorType, sizes: Sequence[ir.Value] = ()) -> ir.Value:
    """``tensor.empty`` of type ``t``; ``sizes`` gives its dynamic dims, in order (:func:`dynamic_sizes`)."""
    sizes = iter(sizes)
    return tensor.EmptyOp([next(sizes) if is_dynamic(n) else n for n in t.shape], t.element_type).result


def _read_sizes(inputs: Sequence[ir.Value], in_dims: Sequence[Sequence[Optional[int]]],
                result_type: ir.RankedTensorType) -> list:
    """Sizes of the dynamic dims of a parallel generic's result, each read from an input dim on that loop."""
    sizes = []
    for d, n in enumerate(result_type.shape):
        if not is_dynamic(n):
            continue
        sources = [(x, k) for x, dims in zip(inputs, in_dims) for k, loop in enumerate(dims) if loop == d]
        if not sources:
            raise ValueError(f"no input gives the size of dynamic dim {d} of {result_type}")
        # A dynamic input dim first: a static one of another input may be a size-1 broadcast.
        x, k = next(((x, k) for x, k in sources if is_dynamic(x.type.shape[k])), sources[0])
        sizes.append(dim_size(x, k))
    return sizes


def parallel(inputs: Sequence[ir.Value], in_dims: Sequence[Sequence[Optional[int]]],
              result_type: ir.RankedTensorType, body: Callable[..., ir.Value],
              sizes: Optional[Sequence[ir.Value]] = None) -> ir.Value:
    """An all-parallel generic over ``result_type``; input ``k`` is read at loop dims ``in_dims[k]``.

    The dynamic dims of ``result_type`` have the sizes of the input dims read on
    their loops, or ``sizes`` when given (a generic without inputs).
    """
    rank = result_type.rank
    maps = [affine_map(rank, dims) for dims in in_dims] + [affine_map(rank, range(rank))]
    if sizes is None:
        sizes = _read_sizes(inputs, in_dims, result_type)
    [result] = generic(inputs, [empty(result_type, sizes)], maps, ["parallel"] * rank,
                        lambda *args: [body(*args)])
    return result


def splat(value: ir.Attribute, result_type: ir.RankedTensorType, sizes: Sequence[ir.Value] = ()) -> ir.Value:
    """A tensor filled with ``value``, built as a generic that fusion folds into its consumers.

    ``sizes`` gives the dynamic dims of ``result_type``, in order.
    """
    return parallel([], [], result_type, lambda _out: arith.constant(value.type, value), sizes)


def zeros_if_empty(op: ir.Operation) -> Optional[list]:
    """``[zeros of op's one result]`` when an operand or the result has no elements, else None.

    A window op's lowering (convolution, pooling) calls this first: its slices
    of an empty tensor would be out of bounds, and each element of its result
    is then an empty sum, or there is none.
    """
    if any(0 in value.type.shape for value in (*op.operands, *op.results)):
        t = op.results[0].type
        return [splat(zero_attr(t.element_type), t)]
    return None


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


def reshaped(x: ir.Value, t: ir.RankedTensorType) -> ir.Value:
    """Row-major reshape of ``x`` (with dynamic dims) to ``t``, a shape of the same regrouped core.

    ``x`` collapses to the core (:func:`~tensorad.dialects.shapes.regrouped`),
    which expands to ``t``; the expansion reads the dynamic sizes from the core.
    """
    core, from_groups = regrouped(x.type.shape)
    _, to_groups = regrouped(t.shape)
    if len(from_groups) < x.type.rank:
        x = tensor.CollapseShapeOp(ir.RankedTensorType.get(list(core), t.element_type), x, from_groups).result
    if len(to_groups) == t.rank:
        return x
    group_of = {d: k for k, g in enumerate(to_groups) for d in g}
    sizes = [dim_size(x, group_of[d]) for d, n in enumerate(t.shape) if is_dynamic(n)]
    return tensor.ExpandShapeOp(t, x, to_groups, sizes, list(t.shape)).result


def permuted(x: ir.Value, permutation: Sequence[int]) -> ir.Value:
    """``x`` with result dim i taken from dim ``permutation[i]`` (``linalg.transpose``)."""
    if list(permutation) == list(range(len(permutation))):
        return x  # also rank 0, which linalg.transpose cannot express
    t = x.type
    out = ir.RankedTensorType.get([t.shape[p] for p in permutation], t.element_type)
    return transpose(x, outs=[empty(out, dynamic_sizes(x, permutation))], permutation=list(permutation)).results[0]


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


# A long float sum adds at most _SUM_BLOCK terms into one accumulator
# (_SUM_LANES in its last stage): its reduced dim is split into blocks that are
# summed first, and the block sums in turn, so the rounding error grows with
# the number of stages (the log of the length), not with the length. A float32
# sum of 10**7 terms is then within about 1e-7 of the exact one; added one by
# one, 0.1 ten million times came out 9% off.
_SUM_BLOCK = 32
# A dim of at most this many terms adds along one accumulator (a rounding error
# of a few ulp typically, 1024 at worst): splitting it costs more than it
# saves (W4, whose gradient sums over 1000 points, ran 50% slower).
_SUM_DIRECT = 1024
# The innermost reduced dim keeps this many partial sums side by side until the
# last stage: contiguous, so every stage but that one adds whole vectors.
_SUM_LANES = 64


def _plain_sum(x: ir.Value, dims: Sequence[int]) -> ir.Value:
    """``x`` summed over ``dims`` by one accumulator per result element."""
    kept = [d for d in range(x.type.rank) if d not in dims]
    t = ir.RankedTensorType.get([x.type.shape[d] for d in kept], x.type.element_type)
    return reduction(x, dims, [splat(zero_attr(t.element_type), t, dynamic_sizes(x, kept))],
                     lambda a, acc: [arith.addf(acc, a)])[0]


def float_sum(x: ir.Value, dims: Sequence[int]) -> ir.Value:
    """The float tensor ``x`` summed over ``dims``, long dims in blocked stages.

    No accumulator adds more than ``_SUM_BLOCK`` terms (``_SUM_LANES`` in the
    last stage), so the rounding error grows with the log of the length.

    Adjacent reduced dims are collapsed into one first (a full reduction is
    one long dim), then each is summed on its own, the innermost first. A
    dynamic dim (``?``) is summed in blocks of ``_SUM_DIRECT`` terms and a
    tail (:func:`_sum_dynamic_dim`).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> with make_context(), ir.Location.unknown():
    ...     module = ir.Module.create()
    ...     with ir.InsertionPoint(module.body):
    ...         x = tensor.EmptyOp([10 ** 6], ir.F32Type.get()).result
    ...         total = float_sum(x, [0])
    >>> total.type
    RankedTensorType(tensor<f32>)
    >>> "tensor<625x25x64xf32>" in str(module)  # 10**6 = 625 * 25 * 64: blocks of 25 rows of 64 lanes
    True
    """
    if any(is_dynamic(x.type.shape[d]) for d in dims):
        for d in sorted(dims, reverse=True):
            n = x.type.shape[d]
            x = _sum_dynamic_dim(x, d) if is_dynamic(n) else \
                _plain_sum(x, [d]) if n <= _SUM_DIRECT else _sum_dim(x, d, innermost=d == x.type.rank - 1)
        return x
    if prod(x.type.shape[d] for d in dims) <= _SUM_DIRECT:
        return _plain_sum(x, dims)
    groups = []  # reassociation of the collapse: runs of adjacent reduced dims
    for d in range(x.type.rank):
        if d in dims and groups and groups[-1][-1] in dims and groups[-1][-1] == d - 1:
            groups[-1].append(d)
        else:
            groups.append([d])
    if len(groups) < x.type.rank:
        shape = [prod(x.type.shape[d] for d in g) for g in groups]
        x = tensor.CollapseShapeOp(ir.RankedTensorType.get(shape, x.type.element_type), x, groups).result
    reduced = [k for k, g in enumerate(groups) if g[0] in dims]
    for k in reversed(reduced):
        n = x.type.shape[k]
        x = _plain_sum(x, [k]) if n <= _SUM_DIRECT else _sum_dim(x, k, innermost=k == x.type.rank - 1)
    return x


def _split_dim(x: ir.Value, d: int, outer, inner: int) -> ir.Value:
    """``x`` with dim ``d`` split row-major into ``[outer, inner]`` (``outer`` an int or an index value)."""
    sizes = _sizes_but(x, d)
    sizes[d:d + 1] = [outer, inner]
    static = [n if isinstance(n, int) else DYNAMIC for n in sizes]
    groups = [[k] for k in range(d)] + [[d, d + 1]] + [[k + 1] for k in range(d + 1, x.type.rank)]
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(static, x.type.element_type), x, groups,
                                [n for n in sizes if not isinstance(n, int)], static).result


def _slice_dim(x: ir.Value, d: int, start, stop) -> ir.Value:
    """``x[..., start:stop, ...]`` along dim ``d``; ``start`` and ``stop`` are ints or index values."""
    sizes = _sizes_but(x, d)
    offsets = [0] * len(sizes)
    if isinstance(start, int) and isinstance(stop, int):
        offsets[d], sizes[d] = start, stop - start
    else:
        offsets[d], sizes[d] = _index(start), arith.subi(_index(stop), _index(start))
    t = ir.RankedTensorType.get([n if isinstance(n, int) else DYNAMIC for n in sizes], x.type.element_type)
    return extract_slice(x, t, offsets, sizes, [1] * len(sizes))


def _sizes_but(x: ir.Value, d: int) -> list:
    """The sizes of ``x``'s dims, ints or ``index`` values (dynamic ones), with None for dim ``d``."""
    return [None if k == d else dim_size(x, k) if is_dynamic(n) else n for k, n in enumerate(x.type.shape)]


def _index(n) -> ir.Value:
    """``n`` as an ``index`` value (an int becomes a constant)."""
    return n if isinstance(n, ir.Value) else arith.constant(ir.IndexType.get(), n)


def _sum_dynamic_dim(x: ir.Value, d: int) -> ir.Value:
    """``x`` summed over its dynamic dim ``d``: blocks of ``_SUM_DIRECT`` terms in rows of lanes, then a tail.

    The length ``n`` is known at run time only. Its first ``n - n % B`` terms
    (``B = _SUM_DIRECT``) become ``[n / B, B / _SUM_LANES, _SUM_LANES]``,
    summed over the rows of each block, the blocks, then the lanes, so no
    accumulator adds more than ``max(n / B, _SUM_LANES)`` terms; the tail,
    fewer than ``B`` terms, adds along one accumulator as a short static sum does.
    """
    block = _SUM_DIRECT
    n = dim_size(x, d)
    blocks = arith.divui(n, _index(block))
    whole = arith.muli(blocks, _index(block))
    head = _split_dim(_split_dim(_slice_dim(x, d, 0, whole), d, blocks, block), d + 1,
                      block // _SUM_LANES, _SUM_LANES)
    head = _plain_sum(_plain_sum(_plain_sum(head, [d + 1]), [d]), [d])
    tail = _plain_sum(_slice_dim(x, d, whole, n), [d])
    return parallel([head, tail], [range(head.type.rank)] * 2, head.type, lambda a, b, _out: arith.addf(a, b))


def _sum_dim(x: ir.Value, d: int, innermost: bool) -> ir.Value:
    """``x`` summed over dim ``d`` in stages of at most ``_SUM_BLOCK`` terms.

    The innermost dim first becomes ``[n / lanes, lanes]`` so that the stages
    add rows of ``lanes`` contiguous partial sums; a length without a block
    size dividing it is split into a part that has one and a short tail.
    """
    n = x.type.shape[d]
    if n <= (_SUM_LANES if innermost else _SUM_BLOCK):
        return _plain_sum(x, [d])
    if innermost:
        lanes = next(v for v in range(_SUM_LANES, 0, -1) if n % v == 0)
        if lanes > 1:
            return _plain_sum(_sum_dim(_split_dim(x, d, n // lanes, lanes), d, innermost=False), [d])
    block = next((b for b in range(_SUM_BLOCK, _SUM_BLOCK // 4, -1) if n % b == 0), None)
    if block is None:
        whole = n - n % _SUM_BLOCK
        head = _sum_dim(_slice_dim(x, d, 0, whole), d, innermost)
        tail = _sum_dim(_slice_dim(x, d, whole, n), d, innermost)
        return parallel([head, tail], [range(head.type.rank)] * 2, head.type, lambda a, b, _out: arith.addf(a, b))
    return _sum_dim(_plain_sum(_split_dim(x, d, n // block, block), [d + 1]), d, innermost=False)


def rebuild_generic(op: ir.Operation, inputs: Sequence[ir.Value], inits: Sequence[ir.Value],
                    maps: Sequence[ir.AffineMap], arguments: Sequence[int]) -> ir.Operation:
    """Replace the ``linalg.generic`` ``op`` by one over other operands, moving its body over.

    The new generic reads ``inputs`` and writes ``inits`` at ``maps`` (one per
    operand) with ``op``'s iterators; its block argument ``k`` stands for
    ``op``'s block argument ``arguments[k]``, whose uses it takes over (an old
    argument listed twice gives them to the first; the second is unused).
    ``op``'s results are replaced and ``op`` erased; the new op is returned.
    """
    with ir.InsertionPoint(op), op.location:
        new, block = empty_generic(inputs, inits, maps, iterator_kinds(op))
    old_block = op.regions[0].blocks[0]
    for k, argument in zip(arguments, block.arguments):
        old_block.arguments[k].replace_all_uses_with(argument)
    at_end = ir.InsertionPoint(block)
    for inner in list(old_block.operations):
        inner.detach_from_parent()
        at_end.insert(inner)
    for old, result in zip(op.results, new.results):
        old.replace_all_uses_with(result)
    op.erase()
    return new.operation


def empty_like(value: ir.Value, prefix: Sequence[int] = ()) -> ir.Value:
    """A ``tensor.empty`` shaped ``prefix + value``'s shape, its dynamic sizes read from ``value``."""
    t = value.type
    return empty(ir.RankedTensorType.get(list(prefix) + list(t.shape), t.element_type),
                 dynamic_sizes(value, range(t.rank)))
