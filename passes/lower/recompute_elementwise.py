"""``tad-recompute-elementwise``: recompute an elementwise op in each elementwise reader instead of storing it.

Elementwise fusion (``linalg-fuse-elementwise-ops``) moves a producer into
its consumer only when the consumer is its one reader. A gradient reads many
forward values twice, once in the forward chain and once in the backward
one: GELU's ``x ** 3``, ``tanh(u)``, ``1 - tanh(u) ** 2`` were each stored
as a full tensor, and its backward kernel read ten of them (ten times the
memory traffic of the activation it is a function of). This pass clones
such a producer once per reader, so that fusion computes it inside each
reader from the one tensor it is a function of, the way XLA's fusion
duplicates cheap producers and torch.compile's partitioner recomputes
pointwise ops in the backward pass.

A producer is cloned when it is a ``linalg.generic`` with parallel loops
only and a body of ``arith`` and ``math`` ops; when every reader is a
``linalg.generic`` in the same block that reads it as an input through a
permutation of its loops (or holds it as an init it does not read), at most
``MAX_READERS`` of them, a reader with reduction loops only if the
producer reads an input through a permutation (fusion needs a read of
every loop); and when it is computed from at most one value
made in its block, read whole (through a permutation) and no wider than its
result, counting through the elementwise producers that it alone reads
(fusion moves them into each copy) and not counting arguments of the block
(a bias, which lives throughout). A reader then reads that one value in
place of the producer's result: no more memory traffic, and the producer's
tensor is gone. Readers are visited before their producers, so a chain
(``x`` to ``x ** 3`` to ``tanh(u)``) is recomputed from its start.

Each copy keeps one value no larger than the producer's alive where the
producer's was, so ``tad-remat``'s graph, which models the lowering without
this pass, counts an upper bound of what runs. A constant fill is an
elementwise op without inputs: read by at most ``MAX_READERS`` ops, it is
copied like the others; read by 32 or more, ``tad-inline-splat-inputs`` has
made it a constant inside each reader; in between, it stays stored.
``tad-lower-to-llvm`` runs this pass right before elementwise fusion.

Examples
--------
``tanh(x)``, read before and after a matmul: fusion alone leaves it a loop
of its own, writing a tensor that both readers read; recomputed in each
reader, it is gone, and each reader reads ``x``:

>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> text = '''
... func.func @f(%x: tensor<8x8xf32>, %w: tensor<8x8xf32>) -> tensor<8x8xf32> {
...   %t = math.tanh %x : tensor<8x8xf32>
...   %y = arith.mulf %t, %x : tensor<8x8xf32>
...   %z = arith.constant dense<0.0> : tensor<8x8xf32>
...   %m = linalg.matmul ins(%y, %w : tensor<8x8xf32>, tensor<8x8xf32>) outs(%z : tensor<8x8xf32>) -> tensor<8x8xf32>
...   %b = arith.mulf %t, %m : tensor<8x8xf32>
...   return %b : tensor<8x8xf32>
... }'''
>>> for passes in ("", "tad-recompute-elementwise,"):
...     m = ir.Module.parse(text, make_context())
...     run_pipeline(m, "func.func(convert-elementwise-to-linalg),tad-read-parallel-inits-as-inputs,"
...                  f"{passes}linalg-fuse-elementwise-ops")
...     print(str(m).count("linalg.generic"), str(m).count("math.tanh"))
3 1
2 2
"""

from __future__ import annotations

from typing import Optional

from mlir import ir

from ...dialects.families.linalg import operand_segments
from ...dialects.linalg_builder import iterator_kinds
from ..walk import collect

# Readers of one producer at most: each gets a copy of its work.
MAX_READERS = 4
_BODY_DIALECTS = ("arith.", "math.")


def run(op: ir.Operation, pass_) -> None:
    """Clone every recomputable elementwise producer inside ``op`` once per reader but the first."""
    sources: dict = {}
    for producer in reversed(collect(op, _elementwise)):
        readers = _readers(producer)
        if readers is None or not 2 <= len(readers) <= MAX_READERS or _sources(producer, sources) is None:
            continue
        if not _reads_whole(producer) and any(not _parallel(reader) for reader in readers):
            # Fused into a reduction, a copy must bring a read of every loop (upstream fusion's condition),
            # or it stays a tensor of its own: copies that the graph does not count.
            continue
        for reader in readers[1:]:
            copy = producer.clone(ip=ir.InsertionPoint(reader))
            for k, operand in enumerate(reader.operands):
                if operand == producer.results[0]:
                    reader.operands[k] = copy.results[0]


def _elementwise(op: ir.Operation) -> bool:
    """Whether ``op`` is a one-result generic of parallel loops whose body holds arith and math ops only."""
    if op.name != "linalg.generic" or len(op.results) != 1:
        return False
    if not _parallel(op):
        return False
    body = list(op.regions[0].blocks[0].operations)
    return (all(inner.name.startswith(_BODY_DIALECTS) for inner in body[:-1])
            and ir.AffineMapAttr(op.attributes["indexing_maps"][len(op.operands) - 1]).value.is_permutation)


def _sources(producer: ir.Operation, memo: dict) -> Optional[frozenset]:
    """The value made in its block that ``producer`` is computed from, once fusion moves into it the producers
    only it reads, as a set of at most one; None when there are more, or it is wider than the result.

    Arguments of the block live throughout and do not count. A producer only
    ``producer`` reads is cloned with each copy of it (it has then as many
    readers, each a copy) when it is computed from at most one value itself.
    """
    if producer not in memo:
        found: Optional[set] = set()
        maps = producer.attributes["indexing_maps"]
        for k, value in enumerate(operand_segments(producer)[0]):
            if isinstance(value.owner, ir.Block):
                continue
            inner = value.owner.operation
            whole = ir.AffineMapAttr(maps[k]).value.is_permutation
            if whole and _elementwise(inner) and all(use.owner.operation == producer for use in value.uses):
                below = _sources(inner, memo)
                if below is None:
                    found = None
                    break
                found |= below
            elif whole:
                found.add(value)
            else:  # a broadcast value made here: the copies would keep it alive
                found = None
                break
        width = _element_bits(producer.results[0].type)
        if found is not None and (len(found) > 1 or any(not 0 < _element_bits(v.type) <= width for v in found)):
            found = None
        memo[producer] = None if found is None else frozenset(found)
    return memo[producer]


def _element_bits(t: ir.Type) -> int:
    """Bits of an element of the tensor type ``t``; 0 for elements other than floats and integers."""
    element = ir.ShapedType(t).element_type
    return element.width if isinstance(element, (ir.FloatType, ir.IntegerType)) else 0


def _readers(producer: ir.Operation) -> Optional[list]:
    """The distinct readers of ``producer``'s result, in order, if each may read a copy of it; else None.

    A reader may also hold the result as an init it does not read (what
    ``convert-elementwise-to-linalg`` writes into): fusion replaces such an
    init with an empty tensor.
    """
    readers = []
    for use in producer.results[0].uses:
        reader = use.owner.operation
        if reader.name != "linalg.generic" or reader.block != producer.block:
            return None
        if use.operand_number >= len(operand_segments(reader)[0]):
            if not _unread_init(reader, use.operand_number):
                return None
        elif not ir.AffineMapAttr(reader.attributes["indexing_maps"][use.operand_number]).value.is_permutation:
            return None
        if all(reader != other for other in readers):
            readers.append(reader)
    return readers


def _unread_init(reader: ir.Operation, operand: int) -> bool:
    """Whether operand ``operand`` of ``reader`` is an init its body does not read, of parallel loops only."""
    return _parallel(reader) and not list(reader.regions[0].blocks[0].arguments[operand].uses)


def _parallel(op: ir.Operation) -> bool:
    """Whether every loop of the generic ``op`` is parallel."""
    return all(kind == "parallel" for kind in iterator_kinds(op))


def _reads_whole(op: ir.Operation) -> bool:
    """Whether the generic ``op`` has an input read through a permutation of its loops (one that reads them all)."""
    maps = op.attributes["indexing_maps"]
    return any(ir.AffineMapAttr(maps[k]).value.is_permutation for k in range(len(operand_segments(op)[0])))
