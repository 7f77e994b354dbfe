"""Sorting: a stable ``argsort`` along the last axis and a binary ``searchsorted``.

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
batching rule) is registered here through :data:`family`. Both results are
integer positions, so neither op has a derivative (ZERO_DERIVATIVE): the
frontends sort values by gathering them at the permutation (``tad.take``),
whose derivative is the scatter-add of the cotangent, as JAX's sort.

Order: numbers ascend (or descend), NaN is greater than every number (last
ascending, first descending, as numpy's sort and JAX's ``top_k``), ``-0.0``
equals ``0.0``, and equal elements keep their order (stable in both
directions).

Lowering
--------
``tad.argsort`` is a bottom-up merge sort of each row, in ``scf.for`` loops
over tensors: a pass merges runs of width ``w`` into runs of ``2w``, reading
one half of a ``2 x n`` scratch tensor of keys (and one of positions) and
writing the other, so ``log2(n)`` passes sort a row in ``O(n log n)``. Every
merge step is branch-free (``arith.select`` picks the left or the right
head), and the scratch tensors are the loops' carries, updated with
``tensor.insert``: one-shot bufferization keeps them in place.

``tad.searchsorted`` is one ``linalg.generic`` over the values, each running
a branch-free binary search (Khuong's lower bound) of ``ceil(log2 n)``
unrolled probes into the sorted operand, read with ``tensor.extract``.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.dialects.record import has_trait
>>> from tensorad.passes.registry import run_pipeline
>>> module = ir.Module.parse('''
... func.func @f(%x: tensor<3x5xf32>) -> tensor<3x5xi64> {
...   %0 = "tad.argsort"(%x) {descending = 0} : (tensor<3x5xf32>) -> tensor<3x5xi64>
...   return %0 : tensor<3x5xi64>
... }''', make_context())
>>> run_pipeline(module, "tad-lower-to-linalg")
>>> str(module).count("scf.for")  # rows, passes, runs, merge steps
4
>>> has_trait("tad.argsort", Trait.ZERO_DERIVATIVE)
True
"""

from __future__ import annotations

from math import prod
from typing import Callable, Sequence

from mlir import ir
from mlir.dialects import arith, scf, tensor

from .. import builder
from .. import linalg_builder as linalg
from ..record import Family, Trait, allocation_bytes
from ..shapes import TensorSpec, int_attr, need, python_attrs, same_element_type

family = Family("sorting")

family.define("tad.argsort",
              operands=("operand",),
              attributes=(("descending", "integer"),),
              summary="Stable sorting permutation (i64) of every row along the last axis; NaN sorts as the greatest.",
              traits=(Trait.PURE, Trait.ZERO_DERIVATIVE))
family.define("tad.searchsorted",
              operands=("sorted", "values"),
              attributes=(("right", "integer"),),
              summary="Insertion positions (i64) of `values` in the ascending 1-D `sorted`: before equal elements, or after them with right = 1.",
              traits=(Trait.PURE, Trait.ZERO_DERIVATIVE))

def _flag(attrs, key: str) -> bool:
    value = int_attr(attrs, key)
    need(value in (0, 1), f"{key} must be 0 or 1, got {value}")
    return bool(value)


def _real(x: TensorSpec, what: str) -> None:
    need(not isinstance(x.element_type, ir.ComplexType),
         f"{what} orders real numbers, got {x.element_type}: order complex ones by their parts")


@family.shape_rule("tad.argsort")
def _argsort(operands, attrs, results):
    (x,) = operands
    need(x.rank >= 1, "argsort needs an operand of rank 1 or more (it sorts along the last axis)")
    _real(x, "argsort")
    _flag(attrs, "descending")
    return [TensorSpec(x.shape, ir.IntegerType.get_signless(64))]


@family.shape_rule("tad.searchsorted")
def _searchsorted(operands, attrs, results):
    sorted_, values = operands
    need(sorted_.rank == 1, f"searchsorted needs a 1-D sorted operand, got rank {sorted_.rank}")
    same_element_type(sorted_, values)
    _real(sorted_, "searchsorted")
    _flag(attrs, "right")
    return [TensorSpec(values.shape, ir.IntegerType.get_signless(64))]


@family.flops("tad.argsort")
def _argsort_flops(op) -> int:
    shape = op.operands[0].type.shape
    return prod(shape) * max(shape[-1] - 1, 1).bit_length()


@family.flops("tad.searchsorted")
def _searchsorted_flops(op) -> int:
    return prod(op.operands[1].type.shape) * max(op.operands[0].type.shape[0], 1).bit_length()


# --- the order -------------------------------------------------------------------

def before(a: ir.Value, b: ir.Value, descending: bool = False) -> ir.Value:
    """Whether element ``a`` sorts strictly before ``b`` (an ``i1``): NaN is the greatest value.

    Ascending, ``a < b`` or (``b`` is NaN and ``a`` is not); descending, the
    reverse. Integers compare signed, booleans unsigned.
    """
    if descending:
        a, b = b, a
    if isinstance(a.type, ir.FloatType):
        less = arith.cmpf(arith.CmpFPredicate.OLT, a, b)
        b_nan = arith.cmpf(arith.CmpFPredicate.UNO, b, b)
        a_number = arith.cmpf(arith.CmpFPredicate.ORD, a, a)
        return arith.ori(less, arith.andi(b_nan, a_number))
    predicate = arith.CmpIPredicate.ult if linalg.is_bool(a.type) else arith.CmpIPredicate.slt
    return arith.cmpi(predicate, a, b)


# --- lowering helpers --------------------------------------------------------------

def _index(n: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), n)


def _loop(lower, upper, step, inits: Sequence[ir.Value], body: Callable) -> list:
    """``scf.for`` from ``lower`` to ``upper`` by ``step`` carrying ``inits``; ``body(i, *carried) -> new carries``."""
    loop = scf.ForOp(lower, upper, step, list(inits))
    with ir.InsertionPoint(loop.body):
        scf.YieldOp(body(loop.induction_variable, *loop.inner_iter_args))
    return list(loop.results)


def _rows(x: ir.Value, rows: int) -> ir.Value:
    """``x`` viewed as ``(rows, n)``: its leading dims collapsed into one."""
    t = x.type
    return linalg.from_flat(linalg.to_flat(x), ir.RankedTensorType.get([rows, t.shape[-1]], t.element_type))


def _row_slice(offsets: Sequence, n: int) -> dict:
    """Arguments of the ``1 x n`` slice of a 2-D tensor at row ``offsets[0]`` (an int or an index value)."""
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return dict(offsets=[o for o in offsets if isinstance(o, ir.Value)], sizes=[], strides=[],
                static_offsets=[dynamic if isinstance(o, ir.Value) else o for o in offsets],
                static_sizes=[1, n], static_strides=[1, 1])


def _copy_row(source: ir.Value, source_row, into: ir.Value, into_row, n: int) -> ir.Value:
    """``into[into_row, :] = source[source_row, :]`` (tensor slices, rows of length ``n``)."""
    row_type = ir.RankedTensorType.get([1, n], source.type.element_type)
    row = tensor.ExtractSliceOp(row_type, source, **_row_slice([source_row, 0], n)).result
    return tensor.InsertSliceOp(row, into, **_row_slice([into_row, 0], n)).result


def _merge_pass(keys: ir.Value, positions: ir.Value, width: ir.Value, src: ir.Value, dst: ir.Value,
                n: int, descending: bool) -> list:
    """Merge the runs of ``width`` in row ``src`` of the scratch tensors into runs of ``2 width`` in row ``dst``."""
    last = _index(n - 1)
    end = _index(n)

    def run(start, keys, positions):
        mid = arith.minsi(arith.addi(start, width), end)
        stop = arith.minsi(arith.addi(mid, width), end)

        def step(k, i, j, keys, positions):
            # The heads of both runs, read at clamped positions; a spent run's head is ignored.
            i_at, j_at = arith.minsi(i, last), arith.minsi(j, last)
            left = tensor.ExtractOp(keys, [src, i_at]).result
            right = tensor.ExtractOp(keys, [src, j_at]).result
            right_open = arith.cmpi(arith.CmpIPredicate.slt, j, stop)
            left_done = arith.cmpi(arith.CmpIPredicate.sge, i, mid)
            # Equal heads take the left one: the merge is stable.
            take_right = arith.andi(right_open, arith.ori(left_done, before(right, left, descending)))
            key = arith.select(take_right, right, left)
            position = arith.select(take_right, tensor.ExtractOp(positions, [src, j_at]).result,
                                    tensor.ExtractOp(positions, [src, i_at]).result)
            one = _index(1)
            return [arith.select(take_right, i, arith.addi(i, one)),
                    arith.select(take_right, arith.addi(j, one), j),
                    tensor.InsertOp(key, keys, [dst, k]).result,
                    tensor.InsertOp(position, positions, [dst, k]).result]

        return _loop(start, stop, _index(1), [start, mid, keys, positions], step)[2:]

    return _loop(_index(0), end, arith.addi(width, width), [keys, positions], run)


def _argsort_scratch_types(op) -> list:
    """The tensors the lowering of ``tad.argsort`` makes besides its result: ``0..n-1``, and when
    there is anything to order the ``2 x n`` keys and positions."""
    t, element = op.results[0].type, op.operands[0].type.element_type
    n, rows = t.shape[-1], prod(t.shape[:-1])
    with op.location:
        counting = ir.RankedTensorType.get([1, n], t.element_type)
        if n <= 1 or rows == 0:
            return [counting]
        return [counting, ir.RankedTensorType.get([2, n], element), ir.RankedTensorType.get([2, n], t.element_type)]


@family.scratch("tad.argsort")
def _argsort_scratch(op) -> int:
    return sum(allocation_bytes(t) for t in _argsort_scratch_types(op))


@family.lowering("tad.argsort")
def _lower_argsort(op):
    x, t = op.operands[0], op.results[0].type
    descending = bool(python_attrs(op)["descending"].value)
    n, rows = t.shape[-1], prod(t.shape[:-1])
    counting_type, *merging = _argsort_scratch_types(op)
    counting = linalg.parallel([], [], counting_type, lambda _out: linalg.index_scalar(1, t.element_type))
    if not merging:  # nothing to order: every row is 0, 1, ..., n - 1
        return [linalg.parallel([counting], [[None, x.type.rank - 1]], t, lambda i, _out: i)]
    passes = (n - 1).bit_length()  # merges of runs of 1, 2, 4, ... until one run is the row
    x_rows = _rows(x, rows)
    keys, positions = (tensor.EmptyOp(m.shape, m.element_type).result for m in merging)
    result = tensor.EmptyOp([rows, n], t.element_type).result

    def sort_row(r, keys, positions, result):
        keys = _copy_row(x_rows, r, keys, 0, n)
        positions = _copy_row(counting, 0, positions, 0, n)

        def merge(p, keys, positions):
            # Pass p reads row p % 2 of the scratch tensors and writes the other.
            width = arith.shli(_index(1), p)
            src = arith.remui(p, _index(2))
            dst = arith.subi(_index(1), src)
            return _merge_pass(keys, positions, width, src, dst, n, descending)

        keys, positions = _loop(_index(0), _index(passes), _index(1), [keys, positions], merge)
        return [keys, positions, _copy_row(positions, passes % 2, result, r, n)]

    sorted_rows = _loop(_index(0), _index(rows), _index(1), [keys, positions, result], sort_row)[2]
    return [linalg.from_flat(linalg.to_flat(sorted_rows), t)]


@family.lowering("tad.searchsorted")
def _lower_searchsorted(op):
    sorted_, values = op.operands
    t = op.results[0].type
    right = bool(python_attrs(op)["right"].value)
    n = sorted_.type.shape[0]
    if n == 0:
        return [linalg.splat(linalg.zero_attr(t.element_type), t)]

    def body(v, _out):
        # Khuong's branch-free lower bound: the answer lies in [base, base + size]
        # and each probe halves size; the sizes depend on n only, so they unroll.
        def counted(a):  # whether sorted element a goes before v's insertion point
            return arith.xori(before(v, a), arith.constant(ir.IntegerType.get_signless(1), 1)) if right \
                else before(a, v)

        base, size = _index(0), n
        while size > 1:
            half = size // 2
            probe = arith.addi(base, _index(half))
            base = arith.select(counted(tensor.ExtractOp(sorted_, [probe]).result), probe, base)
            size -= half
        last = arith.extui(t.element_type, counted(tensor.ExtractOp(sorted_, [base]).result))
        return arith.addi(arith.index_cast(t.element_type, base), last)

    return [linalg.parallel([values], [range(t.rank)], t, body)]


# ----------------------------------------------------------------------------
# Batching rules (tad-batch): the mapped axis is axis 0 of every batched value
# ----------------------------------------------------------------------------

@family.batching("tad.argsort")
def _argsort_batch(ctx, op, operands, batched):
    # Rows of rows: the last axis stays the sorted one.
    return [builder.build("tad.argsort", [operands[0]], {"descending": op.attributes["descending"]})]


@family.batching("tad.searchsorted")
def _searchsorted_batch(ctx, op, operands, batched):
    if batched[0]:
        return None  # a sorted array per row: the pass's row loop
    return [builder.build("tad.searchsorted", list(operands), {"right": op.attributes["right"]})]
