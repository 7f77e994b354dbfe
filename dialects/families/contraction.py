"""Contraction: ``tad.dot_general`` (matmul, batched matmul, dots and outer products).

Each op's record (declaration, traits, shape rule, FLOPs, lowering and
derivative rules) is registered here through :data:`family`.
"""

from __future__ import annotations

from math import prod

from ..record import Family, Trait
from ..shapes import TensorSpec, need, dims_attr, same_element_type, python_attrs

family = Family("contraction")

family.define("tad.dot_general",
              operands=("lhs", "rhs"),
              attributes=(("lhs_batching_dimensions", "dense_array"), ("rhs_batching_dimensions", "dense_array"), ("lhs_contracting_dimensions", "dense_array"), ("rhs_contracting_dimensions", "dense_array")),
              summary="Contraction; result dims are batch dims, then lhs free dims, then rhs free dims.",
              traits=(Trait.PURE,))


@family.shape_rule("tad.dot_general")
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
            need(lhs.shape[a] == rhs.shape[b],
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
