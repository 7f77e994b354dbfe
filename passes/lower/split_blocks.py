"""``tad-split-long-blocks``: cut the long blocks of ``optnone`` functions into blocks of a bounded length.

A function that ``tad-outline-repeated-kernels`` left with nothing but kernel
calls (marked ``optnone``) is one block as long as the unrolled program: for
an unrolled loop of N steps, tens of thousands of instructions. LLVM's code
generator spends time per instruction that grows with the length of its block
(instruction ordering, register allocation's live ranges; an LLVM built with
assertions re-validates a block's order at each query), so compile time
would grow with the square of N. Cut into blocks of at most ``_LENGTH`` ops,
chained by unconditional branches, the work is linear. Functions LLVM
optimizes are left alone (it would merge the blocks again first thing).
``tad-lower-to-llvm`` runs this pass last, on the LLVM dialect.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> body = "\\n".join(f"%v{i} = llvm.add %v{i - 1}, %v{i - 1} : i64" for i in range(1, 300))
>>> m = ir.Module.parse(f'''
... llvm.func @f(%v0: i64) -> i64 attributes {{passthrough = ["noinline", "optnone"]}} {{
... {body}
...   llvm.return %v299 : i64
... }}''', make_context())
>>> run_pipeline(m, "tad-split-long-blocks")
>>> str(m).count("llvm.br ^")
2
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import llvm

from .outline_kernels import has_passthrough

# Ops per block: long enough that the branches cost nothing, short enough that per-block work stays small.
_LENGTH = 128


def run(op: ir.Operation, pass_) -> None:
    """Split every block longer than ``_LENGTH`` ops in each ``optnone`` ``llvm.func`` inside ``op``."""
    for function in op.regions[0].blocks[0].operations:
        if function.operation.name != "llvm.func" or not has_passthrough(function.operation, "optnone"):
            continue
        for block in list(function.regions[0].blocks):
            _split(block)


def _split(block: ir.Block) -> None:
    """Move the ops of ``block`` past each ``_LENGTH`` into a new block each, chained by ``llvm.br``.

    Every op moves once; the new blocks follow in order, so each value is
    still defined in a block that dominates its uses.
    """
    ops = list(block.operations)
    if len(ops) <= _LENGTH:
        return
    chain = [block]
    for start in range(_LENGTH, len(ops), _LENGTH):
        chain.append(chain[-1].create_after())
        for moved in ops[start:start + _LENGTH]:
            chain[-1].append(moved.operation)
    for before, after in zip(chain, chain[1:]):
        with ir.InsertionPoint(before), ops[0].location:
            llvm.BrOp([], after)

