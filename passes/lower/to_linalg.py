"""``tad-lower-to-linalg``: rewrite every ``tad`` op into linalg, tensor, arith and math.

Each op has one lowering rule in :data:`LOWERINGS`, registered with
:func:`lowering`. A rule builds the replacement right before the op and returns
the values that replace the op's results. Most rules end in one
``linalg.generic`` built by :func:`_generic`: elementwise and broadcasting
generics are fused into their consumers by ``linalg-fuse-elementwise-ops`` in
``tad-lower-to-llvm``, so broadcasts and constants cost no temporary buffer.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
...   %0 = "tad.transpose"(%x) {permutation = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
...   return %0 : tensor<3x2xf32>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> "linalg.transpose" in str(module)
True
"""

from __future__ import annotations

from math import prod
from typing import Callable, Optional, Sequence

from mlir import ir
from mlir.dialects import arith, tensor

from ...dialects import linalg_builder as linalg
from ...dialects.builder import extract_slice, insert_slice, scalar_attr
from ...dialects.rules import registrar
from ...dialects.shapes import python_attrs
from ..walk import collect

Lowering = Callable[[ir.Operation], list]
LOWERINGS: dict[str, Lowering] = {}


lowering = registrar(LOWERINGS)
lowering.__doc__ = """Register ``fn`` as the lowering rule of the ops ``names``.

    The rule runs with the insertion point right before the op and the op's
    location active; it returns one replacement value per op result.

    Examples
    --------
    >>> @lowering("tad.example_identity")
    ... def _identity(op):
    ...     return [op.operands[0]]
    >>> LOWERINGS.pop("tad.example_identity") is _identity
    True
    """


def run(op: ir.Operation, pass_) -> None:
    """Replace every ``tad`` op inside ``op`` (a ``builtin.module``) by its lowering.

    An op without a lowering rule is reported at its location and the pass
    fails without changing the IR.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> from tensorad.passes.registry import run_pipeline
    >>> m = ir.Module.parse('%0 = "tad.iota"() {iota_dimension = 0} : () -> tensor<3xf32>',
    ...                     make_context())
    >>> run_pipeline(m, "tad-lower-to-linalg")
    >>> "tad." in str(m)
    False
    """
    tad_ops = collect(op, lambda inner: inner.name.startswith("tad."))
    missing = [o for o in tad_ops if o.name not in LOWERINGS]
    for o in missing:
        o.location.emit_error(f"'{o.name}' has no lowering to linalg (tad-lower-to-linalg)")
    if missing:
        pass_.signal_pass_failure()
        return
    for o in tad_ops:
        with ir.InsertionPoint(o), o.location:
            replacements = LOWERINGS[o.name](o)
        for old, new in zip(o.results, replacements):
            old.replace_all_uses_with(new)
        o.erase()


# --- shared builders ---------------------------------------------------------

def _is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and t.width == 1


def _category(t: ir.Type) -> str:
    return "float" if isinstance(t, ir.FloatType) else ("bool" if _is_bool(t) else "int")


# Scalar combiners per element category; booleans follow numpy (+ is or, * is and).
_ADD = {"float": arith.addf, "int": arith.addi, "bool": arith.ori}
_MUL = {"float": arith.mulf, "int": arith.muli, "bool": arith.andi}
# Float max/min propagate NaN, like numpy's maximum/minimum.
_MAX = {"float": arith.maximumf, "int": arith.maxsi, "bool": arith.ori}
_MIN = {"float": arith.minimumf, "int": arith.minsi, "bool": arith.andi}


def _zero(t: ir.Type) -> ir.Attribute:
    """The identity of sum."""
    return scalar_attr(0, t)


def _lowest(t: ir.Type) -> ir.Attribute:
    """The identity of max: -inf, the smallest signed integer, or false."""
    if isinstance(t, ir.FloatType):
        return scalar_attr(float("-inf"), t)
    return scalar_attr(0 if _is_bool(t) else -(1 << (t.width - 1)), t)


def _highest(t: ir.Type) -> ir.Attribute:
    """The identity of min: +inf, the largest signed integer, or true."""
    if isinstance(t, ir.FloatType):
        return scalar_attr(float("inf"), t)
    return scalar_attr(1 if _is_bool(t) else (1 << (t.width - 1)) - 1, t)


def _affine_map(n_loops: int, dims: Sequence[Optional[int]]) -> ir.AffineMap:
    """Map ``n_loops`` loop indices to ``dims``: loop ``d`` per entry, None for index 0."""
    exprs = [ir.AffineConstantExpr.get(0) if d is None else ir.AffineDimExpr.get(d) for d in dims]
    return ir.AffineMap.get(n_loops, 0, exprs)


def _generic(inputs: Sequence[ir.Value], inits: Sequence[ir.Value], maps: Sequence[ir.AffineMap],
             iterators: Sequence[str], body: Callable[..., list]) -> list:
    """Build a ``linalg.generic`` and return its results.

    ``maps`` holds one indexing map per input, then per init; ``iterators``
    holds ``"parallel"`` or ``"reduction"`` per loop. ``body`` is called inside
    the region with the block arguments (input elements, then accumulators) and
    returns the values to yield.
    """
    op = linalg.GenericOp(
        result_tensors=[v.type for v in inits], inputs=list(inputs), outputs=list(inits),
        indexing_maps=ir.ArrayAttr.get([ir.AffineMapAttr.get(m) for m in maps]),
        iterator_types=ir.ArrayAttr.get(
            [ir.Attribute.parse(f"#linalg.iterator_type<{it}>") for it in iterators]))
    block = op.regions[0].blocks.append(*[v.type.element_type for v in [*inputs, *inits]])
    with ir.InsertionPoint(block):
        linalg.YieldOp(body(*block.arguments))
    return list(op.results)


def _empty(t: ir.RankedTensorType) -> ir.Value:
    return tensor.EmptyOp(t.shape, t.element_type).result


def _parallel(inputs: Sequence[ir.Value], in_dims: Sequence[Sequence[Optional[int]]],
              result_type: ir.RankedTensorType, body: Callable[..., ir.Value]) -> ir.Value:
    """An all-parallel generic over ``result_type``; input ``k`` is read at loop dims ``in_dims[k]``."""
    rank = result_type.rank
    maps = [_affine_map(rank, dims) for dims in in_dims] + [_affine_map(rank, range(rank))]
    [result] = _generic(inputs, [_empty(result_type)], maps, ["parallel"] * rank,
                        lambda *args: [body(*args)])
    return result


def _splat(value: ir.Attribute, result_type: ir.RankedTensorType) -> ir.Value:
    """A tensor filled with ``value``, built as a generic that fusion folds into its consumers."""
    return _parallel([], [], result_type, lambda _out: arith.constant(value.type, value))


def _convert_scalar(x: ir.Value, to: ir.Type) -> ir.Value:
    """Convert one element with numpy ``astype`` semantics (floats truncate toward zero)."""
    src = x.type
    if src == to:
        return x
    if _is_bool(to):
        zero = arith.constant(src, _zero(src))
        if isinstance(src, ir.FloatType):
            return arith.cmpf(arith.CmpFPredicate.UNE, x, zero)
        return arith.cmpi(arith.CmpIPredicate.ne, x, zero)
    if isinstance(src, ir.FloatType):
        if isinstance(to, ir.IntegerType):
            return arith.fptosi(to, x)
        return (arith.extf if to.width > src.width else arith.truncf)(to, x)
    if isinstance(to, ir.FloatType):
        return (arith.uitofp if _is_bool(src) else arith.sitofp)(to, x)
    if to.width > src.width:
        return (arith.extui if _is_bool(src) else arith.extsi)(to, x)
    return arith.trunci(to, x)


def _index_scalar(dim: int, to: ir.Type) -> ir.Value:
    """The current loop index ``dim`` as a value of type ``to``."""
    i64 = ir.IntegerType.get_signless(64)
    index = arith.index_cast(i64, linalg.IndexOp(dim).result)
    return _convert_scalar(index, to)


def _static_slice_args(offsets, sizes, strides) -> dict:
    return dict(offsets=[], sizes=[], strides=[], static_offsets=list(offsets),
                static_sizes=list(sizes), static_strides=list(strides))


# --- structure -----------------------------------------------------------------

def _broadcast(x: ir.Value, result_type: ir.RankedTensorType, dims: Sequence[int]) -> ir.Value:
    """Operand dim i -> result dim ``dims[i]``; a size-1 operand dim is read at index 0."""
    result_shape = result_type.shape
    read = [None if n == 1 and result_shape[d] != 1 else d for n, d in zip(x.type.shape, dims)]
    return _parallel([x], [read], result_type, lambda a, _out: a)


@lowering("tad.broadcast_in_dim")
def _broadcast_in_dim(op):
    return [_broadcast(op.operands[0], op.results[0].type,
                       python_attrs(op)["broadcast_dimensions"])]


def _to_flat(x: ir.Value) -> ir.Value:
    """Row-major view of ``x`` as a 1-D tensor."""
    t = x.type
    if t.rank == 1:
        return x
    flat = ir.RankedTensorType.get([prod(t.shape)], t.element_type)
    if t.rank == 0:
        return tensor.ExpandShapeOp(flat, x, [], [], [1]).result
    return tensor.CollapseShapeOp(flat, x, [list(range(t.rank))]).result


def _from_flat(flat: ir.Value, t: ir.RankedTensorType) -> ir.Value:
    """Row-major view of the 1-D tensor ``flat`` with type ``t``."""
    if t.rank == 1:
        return flat
    if t.rank == 0:
        return tensor.CollapseShapeOp(t, flat, []).result
    return tensor.ExpandShapeOp(t, flat, [list(range(t.rank))], [], list(t.shape)).result


@lowering("tad.reshape")
def _reshape(op):
    # Collapsing to 1-D and expanding again is always legal; canonicalize
    # composes the pair into a single reshape when the shapes allow it.
    x, t = op.operands[0], op.results[0].type
    if x.type == t:
        return [x]
    return [_from_flat(_to_flat(x), t)]


def _permuted(x: ir.Value, permutation: Sequence[int]) -> ir.Value:
    """``x`` with result dim i taken from dim ``permutation[i]`` (``linalg.transpose``)."""
    if list(permutation) == list(range(len(permutation))):
        return x  # also rank 0, which linalg.transpose cannot express
    t = x.type
    out = ir.RankedTensorType.get([t.shape[p] for p in permutation], t.element_type)
    return linalg.transpose(x, outs=[_empty(out)], permutation=list(permutation)).results[0]


@lowering("tad.transpose")
def _transpose(op):
    return [_permuted(op.operands[0], python_attrs(op)["permutation"])]


@lowering("tad.slice")
def _slice(op):
    a, t = python_attrs(op), op.results[0].type
    # An empty slice (a tensor.empty) may start past the end of its dimension.
    return [extract_slice(op.operands[0], t, a["start_indices"], t.shape, a["strides"])]


@lowering("tad.pad")
def _pad(op):
    # Interior padding is a strided insert: stride interior+1 leaves the gaps
    # filled with the padding value.
    x, value = op.operands
    a, t = python_attrs(op), op.results[0].type
    filled = _broadcast(value, t, ())
    strides = [n + 1 for n in a["interior_padding"]]
    return [insert_slice(x, filled, a["edge_padding_low"], x.type.shape, strides)]


@lowering("tad.iota")
def _iota(op):
    t = op.results[0].type
    dim = python_attrs(op)["iota_dimension"].value
    return [_parallel([], [], t, lambda _out: _index_scalar(dim, t.element_type))]


@lowering("tad.constant")
def _constant(op):
    return [_splat(op.attributes["value"], op.results[0].type)]


@lowering("tad.convert")
def _convert(op):
    x, t = op.operands[0], op.results[0].type
    if x.type == t:
        return [x]
    return [_parallel([x], [range(t.rank)], t, lambda a, _out: _convert_scalar(a, t.element_type))]


@lowering("tad.stop_gradient", "tad.start_checkpoint", "tad.end_checkpoint")
def _identity(op):
    return [op.operands[0]]


# --- contraction -----------------------------------------------------------------

@lowering("tad.dot_general")
def _dot_general(op):
    # Loops: batch dims, lhs free dims, contracting dims, then rhs free dims. With
    # the rhs free dims innermost, the innermost loop walks rows of rhs and of the
    # result contiguously (C[i, :] += A[i, k] * B[k, :]), which LLVM vectorizes.
    lhs, rhs = op.operands
    a, t = python_attrs(op), op.results[0].type
    lb, rb = a["lhs_batching_dimensions"], a["rhs_batching_dimensions"]
    lc, rc = a["lhs_contracting_dimensions"], a["rhs_contracting_dimensions"]
    # Lay rhs out as (batch, contracting, free) first, so its free dims are
    # contiguous; the copy costs one pass over rhs, the contraction many.
    rhs_free = [d for d in range(rhs.type.rank) if d not in rb and d not in rc]
    order = list(rb) + list(rc) + rhs_free
    if rhs_free and order != list(range(rhs.type.rank)):
        rhs = _permuted(rhs, order)
        rb, rc = list(range(len(rb))), list(range(len(rb), len(rb) + len(rc)))
    n_batch, n_contract = len(lb), len(lc)
    n_lhs_free = lhs.type.rank - n_batch - n_contract
    n_rhs_free = rhs.type.rank - n_batch - n_contract
    n_loops = t.rank + n_contract
    first_contract = n_batch + n_lhs_free

    def operand_map(rank, batch, contracting, free_start):
        loop = {d: k for k, d in enumerate(batch)}
        loop.update({d: first_contract + k for k, d in enumerate(contracting)})
        free = [d for d in range(rank) if d not in loop]
        loop.update({d: free_start + k for k, d in enumerate(free)})
        return _affine_map(n_loops, [loop[d] for d in range(rank)])

    lhs_map = operand_map(lhs.type.rank, lb, lc, n_batch)
    rhs_map = operand_map(rhs.type.rank, rb, rc, first_contract + n_contract)
    out_loops = list(range(first_contract)) + list(range(first_contract + n_contract, n_loops))
    out_map = _affine_map(n_loops, out_loops)
    category = _category(t.element_type)
    if not n_contract:
        # An outer product writes each element once. An all-parallel generic
        # that read a zero init would be fused into a broadcasting consumer
        # with that init as an output written once per broadcast element.
        return _generic([lhs, rhs], [_empty(t)], [lhs_map, rhs_map, out_map], ["parallel"] * n_loops,
                        lambda l, r, _out: [_MUL[category](l, r)])
    n_terms = prod(lhs.type.shape[d] for d in lc)
    if category == "float" and n_terms > _LONG_CONTRACTION and not n_lhs_free and not n_rhs_free:
        # A dot product (batched or not) uses each operand element once: the
        # products, fused into a blocked sum, lose no reuse and add in stages
        # instead of along one accumulator of n_terms.
        loops = ir.RankedTensorType.get(
            [*t.shape[:first_contract], *(lhs.type.shape[d] for d in lc), *t.shape[first_contract:]], t.element_type)
        products = _generic([lhs, rhs], [_empty(loops)], [lhs_map, rhs_map, _affine_map(n_loops, range(n_loops))],
                            ["parallel"] * n_loops, lambda l, r, _out: [arith.mulf(l, r)])[0]
        return [_float_sum(products, range(first_contract, first_contract + n_contract))]
    zero = _splat(_zero(t.element_type), t)
    if category != "bool":
        # A named contraction, not a generic: elementwise fusion would pull the
        # producers of its operands (a tanh, say) into the innermost loop and
        # recompute them there once per output column. (linalg.contract needs a
        # contracting dim, and reduces booleans with addi, not or.)
        return [linalg.contract(lhs, rhs, outs=[zero], indexing_maps=[lhs_map, rhs_map, out_map])]
    iterators = (["parallel"] * first_contract + ["reduction"] * n_contract
                 + ["parallel"] * n_rhs_free)
    return _generic([lhs, rhs], [zero], [lhs_map, rhs_map, out_map], iterators,
                    lambda l, r, acc: [_ADD[category](acc, _MUL[category](l, r))])


# --- reduction -------------------------------------------------------------------

def _reduction(x: ir.Value, dims: Sequence[int], inits: Sequence[ir.Value],
               body: Callable[..., list]) -> list:
    """A generic reading all of ``x`` and accumulating into ``inits`` (``x`` without ``dims``)."""
    rank = x.type.rank
    kept = [d for d in range(rank) if d not in dims]
    maps = [_affine_map(rank, range(rank))] + [_affine_map(rank, kept)] * len(inits)
    iterators = ["reduction" if d in dims else "parallel" for d in range(rank)]
    return _generic([x], inits, maps, iterators, body)


_REDUCTIONS = {"sum": (_zero, _ADD), "max": (_lowest, _MAX), "min": (_highest, _MIN)}

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
# A dot product over more terms than this is lowered as products and a blocked
# sum. Products with free dims (matrix-vector, matrix-matrix) keep their
# register-tiled kernel, whose accumulators add along the contracting dim as
# BLAS's do: splitting that dim would cost a partial result per block.
_LONG_CONTRACTION = 4096
# The innermost reduced dim keeps this many partial sums side by side until the
# last stage: contiguous, so every stage but that one adds whole vectors.
_SUM_LANES = 64


def _reduce_rule(kind: str) -> Lowering:
    identity, combiners = _REDUCTIONS[kind]

    def rule(op):
        x, t = op.operands[0], op.results[0].type
        dims = python_attrs(op)["dimensions"]
        if kind == "sum" and isinstance(t.element_type, ir.FloatType):
            return [_float_sum(x, dims)]
        combine = combiners[_category(t.element_type)]
        return _reduction(x, dims, [_splat(identity(t.element_type), t)], lambda a, acc: [combine(acc, a)])

    return rule


def _plain_sum(x: ir.Value, dims: Sequence[int]) -> ir.Value:
    """``x`` summed over ``dims`` by one accumulator per result element."""
    kept = [n for d, n in enumerate(x.type.shape) if d not in dims]
    t = ir.RankedTensorType.get(kept, x.type.element_type)
    return _reduction(x, dims, [_splat(_zero(t.element_type), t)], lambda a, acc: [arith.addf(acc, a)])[0]


def _float_sum(x: ir.Value, dims: Sequence[int]) -> ir.Value:
    """``x`` summed over ``dims``, long dims in blocked stages (see ``_SUM_BLOCK``).

    Adjacent reduced dims are collapsed into one first (a full reduction is
    one long dim), then each is summed on its own, the innermost first.

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> from tensorad.passes.registry import run_pipeline
    >>> m = ir.Module.parse('''
    ... func.func @f(%x: tensor<1000000xf32>) -> tensor<f32> {
    ...   %0 = "tad.reduce_sum"(%x) {dimensions = array<i64: 0>} : (tensor<1000000xf32>) -> tensor<f32>
    ...   return %0 : tensor<f32>
    ... }''', make_context())
    >>> run_pipeline(m, "tad-lower-to-linalg")
    >>> "tensor<625x25x64xf32>" in str(m)  # 10**6 = 625 * 25 * 64: blocks of 25 rows of 64 lanes
    True
    """
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


def _split_dim(x: ir.Value, d: int, outer: int) -> ir.Value:
    """``x`` with dim ``d`` split row-major into ``[outer, n / outer]``."""
    shape = list(x.type.shape)
    shape[d:d + 1] = [outer, shape[d] // outer]
    groups = [[k] for k in range(d)] + [[d, d + 1]] + [[k + 1] for k in range(d + 1, x.type.rank)]
    return tensor.ExpandShapeOp(ir.RankedTensorType.get(shape, x.type.element_type), x, groups, [], shape).result


def _slice_dim(x: ir.Value, d: int, start: int, stop: int) -> ir.Value:
    shape = list(x.type.shape)
    offsets = [0] * len(shape)
    offsets[d], shape[d] = start, stop - start
    t = ir.RankedTensorType.get(shape, x.type.element_type)
    return tensor.ExtractSliceOp(t, x, **_static_slice_args(offsets, shape, [1] * len(shape))).result


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
            return _plain_sum(_sum_dim(_split_dim(x, d, n // lanes), d, innermost=False), [d])
    block = next((b for b in range(_SUM_BLOCK, _SUM_BLOCK // 4, -1) if n % b == 0), None)
    if block is None:
        whole = n - n % _SUM_BLOCK
        head = _sum_dim(_slice_dim(x, d, 0, whole), d, innermost)
        tail = _sum_dim(_slice_dim(x, d, whole, n), d, innermost)
        return _parallel([head, tail], [range(head.type.rank)] * 2, head.type, lambda a, b, _out: arith.addf(a, b))
    return _sum_dim(_plain_sum(_split_dim(x, d, n // block), [d + 1]), d, innermost=False)


for _kind in _REDUCTIONS:
    lowering(f"tad.reduce_{_kind}")(_reduce_rule(_kind))


def _greater(a: ir.Value, best: ir.Value) -> ir.Value:
    """True when ``a`` replaces the running maximum ``best``; a NaN beats any number, like numpy."""
    if isinstance(a.type, ir.FloatType):
        above_or_nan = arith.cmpf(arith.CmpFPredicate.UGT, a, best)
        return arith.andi(above_or_nan, arith.cmpf(arith.CmpFPredicate.ORD, best, best))
    if _is_bool(a.type):
        return arith.cmpi(arith.CmpIPredicate.ugt, a, best)
    return arith.cmpi(arith.CmpIPredicate.sgt, a, best)


@lowering("tad.argmax")
def _argmax(op):
    # Only a strictly greater value replaces the running maximum, so with the
    # loops running in ascending order the FIRST maximum wins, as in numpy.
    x, t = op.operands[0], op.results[0].type
    axis = python_attrs(op)["axis"].value
    element = x.type.element_type
    best = _splat(_lowest(element), ir.RankedTensorType.get(t.shape, element))
    index = _splat(_zero(t.element_type), t)

    def body(a, best_value, best_index):
        take = _greater(a, best_value)
        i = _index_scalar(axis, t.element_type)
        return [arith.select(take, a, best_value), arith.select(take, i, best_index)]

    return _reduction(x, (axis,), [best, index], body)[1:]


# Lowerings of the neural-network and indexing ops live in their own modules;
# importing them registers them in LOWERINGS.
from . import nn_conv, nn_indexing, nn_pool  # noqa: E402,F401
