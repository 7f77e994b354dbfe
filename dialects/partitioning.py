"""Partitioning rules: how an op computes on this process's blocks of its sharded operands.

``tad-partition`` turns a program written for one process, whose values
are marked ``tad.shard`` (split along one dim over the processes of an MPI
job), into the program each process runs: a *sharded* value is replaced by
this process's block of it, a *replicated* one (every other value) stays
whole and the same on every process. An op that reads a sharded value is
rewritten by the ``partition`` rule of its record (or the elementwise rule
below, for ops with the ``ELEMENTWISE`` trait), which builds the op on
blocks through a :class:`PartitionContext` and says how each result is laid
out; an op without a rule gets its sharded operands whole
(:meth:`PartitionContext.whole`).

The collectives the rules add keep derivatives right under JAX's
``shard_map`` conventions (:mod:`tensorad.dialects.families.collectives`):
a replicated value that processes use their own way goes through
``tad.pvary`` first (so its cotangent adds up over processes), a block is
a ``tad.slice`` of it, a whole value is the ``tad.psum`` of the blocks,
each padded with zeros to the whole shape (its transpose takes this
process's block of the cotangent: an ``all_gather`` would add up every
process's copy of a replicated cotangent instead), and partial sums of a
contraction over a sharded dim are added with ``tad.psum`` (or, with
``combine="reduce-scatter"``, ``tad.reduce_scatter`` keeps each process's
block of the sum).

Examples
--------
>>> block_bounds(10, 2, 1)
(5, 10)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from mlir import ir

from . import builder
from .builder import Val
from .shapes import python_attrs


def block_bounds(size: int, processes: int, process: int) -> tuple:
    """``(start, stop)`` of block ``process`` of a dim of ``size`` split over ``processes``."""
    n = size // processes
    return process * n, (process + 1) * n


@dataclass(frozen=True)
class Mesh:
    """The processes a program is partitioned over, as ``tad.shard`` names them."""

    process: int
    processes: int

    @property
    def attr(self) -> ir.Attribute:
        """The ``processes`` attribute of the collectives the rules build."""
        return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), self.processes)


@dataclass(frozen=True)
class Sharded:
    """This process's block of a value split along ``dim``."""

    block: Val
    dim: int


class PartitionContext:
    """What a partition rule sees of the op it rewrites, and how it gets its operands.

    Attributes
    ----------
    op : mlir.ir.Operation
    attrs : dict
        The op's attributes as Python values.
    layouts : list of Sharded or None
        Per operand: its block (sharded) or None (replicated: the operand itself).
    mesh : Mesh
    combine : str
        How partial sums over a sharded contracting dim are added: ``"psum"``
        or ``"reduce-scatter"``.
    """

    def __init__(self, op: ir.Operation, layouts: list, mesh: Mesh, combine: str = "psum"):
        self.op, self.layouts, self.mesh, self.combine = op, layouts, mesh, combine
        self.attrs = python_attrs(op)

    def dim(self, i: int) -> Optional[int]:
        """The dim along which operand ``i`` is split, or None when it is replicated."""
        layout = self.layouts[i]
        return None if layout is None else layout.dim

    def whole(self, i: int) -> Val:
        """Operand ``i`` whole, the same on every process (gathered when it is sharded)."""
        layout = self.layouts[i]
        if layout is None:
            return Val(self.op.operands[i])
        return gather(layout, Val(self.op.operands[i]).shape, self.mesh)

    def varying(self, i: int) -> Val:
        """Operand ``i`` whole, through ``pvary`` (floats): the processes use it their own way.

        Integers and booleans have no derivative, so they need no ``pvary``.
        """
        whole = self.whole(i)
        if isinstance(whole.element_type, ir.IntegerType):
            return whole
        return builder.build("tad.pvary", [whole], {"processes": self.mesh.attr})

    def block(self, i: int, dim: int) -> Val:
        """This process's block of operand ``i`` along ``dim``."""
        layout = self.layouts[i]
        if layout is not None and layout.dim == dim:
            return layout.block
        return split(self.varying(i), dim, self.mesh)

    def add_partials(self, partial: Val) -> tuple:
        """``(value, dim or None)``: the sum over processes of ``partial``, each process's own part of it.

        With ``combine="psum"`` every process gets the whole sum (replicated);
        with ``"reduce-scatter"`` each keeps its block along the first dim that
        splits evenly (replicated as with psum when none does).
        """
        p = self.mesh.processes
        dims = [d for d, n in enumerate(partial.shape) if n % p == 0] if self.combine == "reduce-scatter" else []
        if not dims:
            return builder.build("tad.psum", [partial], {"processes": self.mesh.attr}), None
        d, shape = dims[0], partial.shape
        rows = builder.reshape(partial, shape[:d] + (p, shape[d] // p) + shape[d + 1:])
        if d:
            rows = builder.transpose(rows, [d] + list(range(d)) + list(range(d + 1, rows.ndim)))
        return builder.build("tad.reduce_scatter", [rows], {"processes": self.mesh.attr}), d


def split(x: Val, dim: int, mesh: Mesh) -> Val:
    """This process's block of ``x`` along ``dim`` (a ``tad.slice``)."""
    start, stop = block_bounds(x.shape[dim], mesh.processes, mesh.process)
    starts = [start if d == dim else 0 for d in range(x.ndim)]
    limits = [stop if d == dim else n for d, n in enumerate(x.shape)]
    return builder.slice_(x, starts, limits, [1] * x.ndim)


def gather(layout: Sharded, shape: tuple, mesh: Mesh) -> Val:
    """The whole value of shape ``shape`` whose block ``layout`` is: the psum of the zero-padded blocks."""
    block, d = layout.block, layout.dim
    start, stop = block_bounds(shape[d], mesh.processes, mesh.process)
    low = [start if i == d else 0 for i in range(block.ndim)]
    high = [shape[d] - stop if i == d else 0 for i in range(block.ndim)]
    padded = builder.pad(block, builder.zeros((), block.element_type), low, high, [0] * block.ndim)
    return builder.build("tad.psum", [padded], {"processes": mesh.attr})


def local_type(t: ir.RankedTensorType, dim: int, processes: int) -> ir.RankedTensorType:
    """The type of a block of a value of type ``t`` split along ``dim``."""
    shape = list(t.shape)
    shape[dim] //= processes
    return ir.RankedTensorType.get(shape, t.element_type)


def partition_elementwise(c: PartitionContext) -> list:
    """An elementwise op on blocks: every operand's block along the dim of the first sharded one."""
    d = next(layout.dim for layout in c.layouts if layout is not None)
    operands = [c.block(i, d) for i in range(len(c.op.operands))]
    results = [local_type(r.type, d, c.mesh.processes) for r in c.op.results]
    attributes = {a.name: a.attr for a in (c.op.attributes[i] for i in range(len(c.op.attributes)))}
    op = ir.Operation.create(c.op.name, results=results, operands=operands, attributes=attributes)
    return [(Val(r), d) for r in op.results]
