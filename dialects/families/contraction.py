"""Contraction: ``tad.dot_general`` (matmul, batched matmul, dots and outer products).

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from mlir import ir
from mlir.dialects import arith

from .. import batching, builder
from .. import linalg_builder as linalg
from ..derivatives import sum_contributions
from ..record import Family, Trait, allocation_bytes
from ..shapes import TensorSpec, need, dims_attr, same_element_type, python_attrs, accepts_dynamic, dims_agree

family = Family("contraction")

family.define("tad.dot_general",
              operands=("lhs", "rhs"),
              attributes=(("lhs_batching_dimensions", "dense_array"), ("rhs_batching_dimensions", "dense_array"), ("lhs_contracting_dimensions", "dense_array"), ("rhs_contracting_dimensions", "dense_array")),
              summary="Contraction; result dims are batch dims, then lhs free dims, then rhs free dims.",
              traits=(Trait.PURE, Trait.CONTRACTION))


@family.shape_rule("tad.dot_general")
@accepts_dynamic
def _dot_general(operands, attrs, results):
    lhs, rhs = operands
    same_element_type(lhs, rhs)
    lb = dims_attr(attrs, "lhs_batching_dimensions", lhs.rank)
    rb = dims_attr(attrs, "rhs_batching_dimensions", rhs.rank)
    lc = dims_attr(attrs, "lhs_contracting_dimensions", lhs.rank)
    rc = dims_attr(attrs, "rhs_contracting_dimensions", rhs.rank)
    need(len(lb) == len(rb), "lhs and rhs need as many batching dimensions")
    need(len(lc) == len(rc), "lhs and rhs need as many contracting dimensions")
    need(not set(lb) & set(lc), "an lhs dimension is both batching and contracting")
    need(not set(rb) & set(rc), "an rhs dimension is both batching and contracting")
    for kind, ld, rd in (("batching", lb, rb), ("contracting", lc, rc)):
        for a, b in zip(ld, rd):
            need(dims_agree(lhs.shape[a], rhs.shape[b]),
                  f"{kind} dimension sizes differ: lhs dim {a} has {lhs.shape[a]}, "
                  f"rhs dim {b} has {rhs.shape[b]}")
    lfree = [d for d in range(lhs.rank) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.rank) if d not in rb and d not in rc]
    shape = ([lhs.shape[d] for d in lb] + [lhs.shape[d] for d in lfree]
             + [rhs.shape[d] for d in rfree])
    return [TensorSpec(tuple(shape), lhs.element_type)]


@family.flops("tad.dot_general")
def _dot_general_flops(op) -> int:
    lhs = op.operands[0].type.shape
    contracting = prod(lhs[d] for d in python_attrs(op)["lhs_contracting_dimensions"])
    return 2 * prod(op.results[0].type.shape) * contracting


# --- lowering --------------------------------------------------------------------

# A dot product over more terms than this is lowered as products and a blocked
# sum (linalg_builder.float_sum). Products with free dims (matrix-vector,
# matrix-matrix) keep their register-tiled kernel, whose accumulators add along
# the contracting dim as BLAS's do: splitting that dim would cost a partial
# result per block.
_LONG_CONTRACTION = 4096


def _rhs_layout(rank: int, batching, contracting):
    """The permutation that lays rhs out as (batch, contracting, free) dims; None when it is so (or has no free dims)."""
    free = [d for d in range(rank) if d not in batching and d not in contracting]
    order = list(batching) + list(contracting) + free
    return order if free and order != list(range(rank)) else None


@family.scratch("tad.dot_general")
def _dot_general_scratch(op) -> int:
    # The lowering's copy of rhs in its (batch, contracting, free) layout.
    a, rhs = python_attrs(op), op.operands[1].type
    moved = _rhs_layout(rhs.rank, a["rhs_batching_dimensions"], a["rhs_contracting_dimensions"])
    return 0 if moved is None else allocation_bytes(rhs)


@family.lowering("tad.dot_general")
def _lower_dot_general(op):
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
    lhs_free = [d for d in range(lhs.type.rank) if d not in lb and d not in lc]
    # The result's dims are these operand dims (the shape rule's), dynamic sizes included.
    sizes = linalg.dynamic_sizes(lhs, [*lb, *lhs_free]) + linalg.dynamic_sizes(rhs, rhs_free)
    order = _rhs_layout(rhs.type.rank, rb, rc)
    if order is not None:
        rhs = linalg.permuted(rhs, order)
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
        return linalg.affine_map(n_loops, [loop[d] for d in range(rank)])

    lhs_map = operand_map(lhs.type.rank, lb, lc, n_batch)
    rhs_map = operand_map(rhs.type.rank, rb, rc, first_contract + n_contract)
    out_loops = list(range(first_contract)) + list(range(first_contract + n_contract, n_loops))
    out_map = linalg.affine_map(n_loops, out_loops)
    category = linalg.category(t.element_type)
    if not n_contract:
        # An outer product writes each element once. An all-parallel generic
        # that read a zero init would be fused into a broadcasting consumer
        # with that init as an output written once per broadcast element.
        return linalg.generic([lhs, rhs], [linalg.empty(t, sizes)], [lhs_map, rhs_map, out_map],
                              ["parallel"] * n_loops, lambda l, r, _out: [linalg.MUL[category](l, r)])
    n_terms = prod(lhs.type.shape[d] for d in lc)
    if category == "float" and n_terms > _LONG_CONTRACTION and not n_lhs_free and not n_rhs_free:
        # A dot product (batched or not) uses each operand element once: the
        # products, fused into a blocked sum, lose no reuse and add in stages
        # instead of along one accumulator of n_terms.
        loops = ir.RankedTensorType.get(
            [*t.shape[:first_contract], *(lhs.type.shape[d] for d in lc), *t.shape[first_contract:]],
            t.element_type)
        products = linalg.generic([lhs, rhs], [linalg.empty(loops, sizes)],
                                  [lhs_map, rhs_map, linalg.affine_map(n_loops, range(n_loops))],
                                  ["parallel"] * n_loops, lambda l, r, _out: [arith.mulf(l, r)])[0]
        return [linalg.float_sum(products, range(first_contract, first_contract + n_contract))]
    zero = linalg.splat(linalg.zero_attr(t.element_type), t, sizes)
    if category != "bool":
        # A named contraction, not a generic: elementwise fusion would pull the
        # producers of its operands (a tanh, say) into the innermost loop and
        # recompute them there once per output column. (linalg.contract needs a
        # contracting dim, and reduces booleans with addi, not or.)
        return [linalg.contract(lhs, rhs, outs=[zero], indexing_maps=[lhs_map, rhs_map, out_map])]
    iterators = (["parallel"] * first_contract + ["reduction"] * n_contract
                 + ["parallel"] * n_rhs_free)
    return linalg.generic([lhs, rhs], [zero], [lhs_map, rhs_map, out_map], iterators,
                          lambda l, r, acc: [linalg.ADD[category](acc, linalg.MUL[category](l, r))])


# --- derivatives -----------------------------------------------------------------

def _dot_dims(c):
    a = c.attrs
    lhs, rhs = c.inputs
    lb, rb = list(a["lhs_batching_dimensions"]), list(a["rhs_batching_dimensions"])
    lc, rc = list(a["lhs_contracting_dimensions"]), list(a["rhs_contracting_dimensions"])
    lfree = [d for d in range(lhs.ndim) if d not in lb and d not in lc]
    rfree = [d for d in range(rhs.ndim) if d not in rb and d not in rc]
    return lb, rb, lc, rc, lfree, rfree


def _dot(a, b, batch, contract):
    return builder.dot_general(a, b, batch[0], batch[1], contract[0], contract[1])


def _transposed(value, perm):
    return value if list(perm) == list(range(len(perm))) else builder.transpose(value, list(perm))


@family.jvp("tad.dot_general")
def _dot_jvp(c, tangents):
    lb, rb, lc, rc, lfree, rfree = _dot_dims(c)
    lhs, rhs = c.inputs
    nb, n_b, n_l, n_r = c.nb, len(lb), len(lfree), len(rfree)
    terms = []
    if tangents[0] is not None:  # result dims: B, P, Lf, Rf
        out = _dot(tangents[0], rhs, ([d + nb for d in lb], rb), ([d + nb for d in lc], rc))
        perm = [n_b + p for p in range(nb)] + list(range(n_b)) + \
            [n_b + nb + k for k in range(n_l + n_r)]
        terms.append(_transposed(out, perm))
    if tangents[1] is not None:  # result dims: B, Lf, P, Rf
        out = _dot(lhs, tangents[1], (lb, [d + nb for d in rb]), (lc, [d + nb for d in rc]))
        perm = [n_b + n_l + p for p in range(nb)] + list(range(n_b + n_l)) + \
            [n_b + n_l + nb + k for k in range(n_r)]
        terms.append(_transposed(out, perm))
    return [sum_contributions(terms)]


@family.vjp("tad.dot_general")
def _dot_vjp(c, cotangents):
    (ct,) = cotangents
    lb, rb, lc, rc, lfree, rfree = _dot_dims(c)
    lhs, rhs = c.inputs
    nb, n_b, n_l, n_r = c.nb, len(lb), len(lfree), len(rfree)
    ct_b = [nb + i for i in range(n_b)]
    ct_l = [nb + n_b + k for k in range(n_l)]
    ct_r = [nb + n_b + n_l + k for k in range(n_r)]

    def grad(other, other_batch, other_free, ct_free_other, own_batch, own_free, own_contract,
             other_contract, rank):
        # Two equivalent contractions; keep the one whose result needs no transpose.
        rest = sorted(other_contract)
        n_rest = len(rest)
        forms = (  # (operands, batch, contract, where P, own free, own contracting dims land)
            ((ct, other), (ct_b, other_batch), (ct_free_other, other_free),
             n_b, n_b + nb, n_b + nb + len(own_free)),
            ((other, ct), (other_batch, ct_b), (other_free, ct_free_other),
             n_b + n_rest, n_b + n_rest + nb, n_b),
        )
        candidates = []
        for operands, batch, contract, at_p, at_free, at_contract in forms:
            position = {d: i for i, d in enumerate(own_batch)}
            position.update({d: at_free + k for k, d in enumerate(own_free)})
            position.update({d: at_contract + rest.index(od)
                             for d, od in zip(own_contract, other_contract)})
            perm = [at_p + p for p in range(nb)] + [position[d] for d in range(rank)]
            candidates.append((perm != sorted(perm), operands, batch, contract, perm))
        _, operands, batch, contract, perm = min(candidates, key=lambda form: form[0])
        return _transposed(_dot(operands[0], operands[1], batch, contract), perm)

    return [grad(rhs, rb, rfree, ct_r, lb, lfree, lc, rc, lhs.ndim),
            grad(lhs, lb, lfree, ct_l, rb, rfree, rc, lc, rhs.ndim)]


# ----------------------------------------------------------------------------
# Batching rule (tad-batch): the mapped axis is axis 0 of every batched value
# ----------------------------------------------------------------------------

@family.batching("tad.dot_general")
def _dot_general_batch(ctx, op, operands, batched):
    """Both operands mapped: one more batch dimension. One mapped: a free dimension, moved first."""
    attrs = python_attrs(op)
    lb, rb = list(attrs["lhs_batching_dimensions"]), list(attrs["rhs_batching_dimensions"])
    lc, rc = list(attrs["lhs_contracting_dimensions"]), list(attrs["rhs_contracting_dimensions"])
    lhs, rhs = operands
    if batched[0] and batched[1]:
        return [builder.dot_general(lhs, rhs, [0] + [d + 1 for d in lb], [0] + [d + 1 for d in rb],
                                    [d + 1 for d in lc], [d + 1 for d in rc])]
    if batched[0]:
        lb, lc = [d + 1 for d in lb], [d + 1 for d in lc]
        mapped = len(lb)  # the first lhs free dimension of the result
    else:
        rb, rc = [d + 1 for d in rb], [d + 1 for d in rc]
        lhs_rank = len(op.operands[0].type.shape)
        mapped = lhs_rank - len(lc)  # batch dims, lhs free dims, then the first rhs free dimension
    out = builder.dot_general(lhs, rhs, lb, rb, lc, rc)
    return [batching.to_front(out, mapped)]


@family.row_sum("tad.dot_general")
def _dot_general_row_sum(op, operands, stacked):
    """Both operands stacked: the rows' axis is contracted too (one contraction over the rows and what
    each row contracts, instead of one small contraction per row)."""
    if not (stacked[0] and stacked[1]):
        return None
    attrs = python_attrs(op)
    shifted = [[d + 1 for d in attrs[name]] for name in ("lhs_batching_dimensions", "rhs_batching_dimensions",
                                                         "lhs_contracting_dimensions", "rhs_contracting_dimensions")]
    return builder.dot_general(operands[0], operands[1], shifted[0], shifted[1], [0] + shifted[2], [0] + shifted[3])


# --- partitioning (tad-partition) ----------------------------------------------------------

@family.partition("tad.dot_general")
def _partition_dot(c):
    """A contraction on blocks: the first sharded operand's dim decides.

    A contracting dim: the other operand's block along its partner dim, and
    the partial products added over processes. A batch dim: both blocks, the
    result split along that batch dim. A free dim: the other operand whole
    (through pvary), the result split along the dim that free dim becomes.
    """
    batch = (list(c.attrs["lhs_batching_dimensions"]), list(c.attrs["rhs_batching_dimensions"]))
    contract = (list(c.attrs["lhs_contracting_dimensions"]), list(c.attrs["rhs_contracting_dimensions"]))
    ranks = [ir.RankedTensorType(v.type).rank for v in c.op.operands]
    free = [[d for d in range(ranks[s]) if d not in batch[s] + contract[s]] for s in (0, 1)]
    s = 0 if c.dim(0) is not None else 1
    d, other = c.dim(s), 1 - s
    pairs = batch if d in batch[s] else contract if d in contract[s] else None
    operands = [None, None]
    operands[s] = c.block(s, d)
    operands[other] = c.varying(other) if pairs is None else c.block(other, pairs[other][pairs[s].index(d)])
    y = builder.dot_general(*operands, *batch, *contract)
    if pairs is contract:
        return [c.add_partials(y)]
    if pairs is batch:
        return [(y, batch[s].index(d))]
    return [(y, len(batch[0]) + (free[0].index(d) if s == 0 else len(free[0]) + free[1].index(d)))]
