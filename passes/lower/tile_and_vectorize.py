"""``tad-tile-and-vectorize``: tile linalg ops for threads, caches and registers, then vectorize them.

Runs on tensors, after elementwise fusion and before bufferization. Every
``linalg`` op with static shapes gets a schedule from :mod:`.schedule`
(chosen from its loop sizes and the host's vector width), and the schedule
is carried out by the upstream transform dialect
(``transform.structured.tile_using_forall``, ``tile_using_for``,
``vectorize``, the vector lowering patterns), applied to each op through the
transform interpreter:

* **threads**: an ``scf.forall`` of a few chunks per thread
  (``tad-lower-to-llvm`` runs them on a thread pool);
* **contractions**: cache and register tiles whose accumulators stay in
  vector registers across the contracting loop: ``MR`` broadcast-FMAs per
  column vector per step;
* **everything else** (elementwise chains, reductions, transposes, fills): a
  tile of one vector along the innermost loop.

Ops that the vectorizer cannot handle (bodies with ``tensor.extract``,
reductions without a single known combiner, windowed accesses, dynamic
shapes) keep their scalar loops; the result is the same either way.

Every tile loop but the innermost carries LLVM loop metadata (``#llvm.loop_annotation``,
which ``convert-scf-to-cf`` puts on its back edge) that keeps LLVM's unroller
and loop vectorizer off it: unrolled, each of its steps copied the whole
nest inside, which took a fifth to a third of a workload's LLVM time (W3,
W5, W7) and made nothing faster; the innermost loop, whose unrolling copies
one register tile, is left to LLVM.
``tad-lower-to-llvm`` runs ``tad-hoist-invariant-transposes``,
``tad-clone-shared-fills`` and ``tad-pack-streamed-operands`` before this
pass.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... func.func @f(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
...   %0 = math.exp %x : tensor<64x256xf32>
...   return %0 : tensor<64x256xf32>
... }''', make_context())
>>> run_pipeline(m, "func.func(convert-elementwise-to-linalg),tad-tile-and-vectorize{vector-bits=512}")
>>> "math.exp %" in str(m) and "vector<64xf32>" in str(m)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from mlir import ir
from mlir.dialects import scf, transform
from mlir.dialects.transform import interpreter, loop, structured, vector

from ..options import option
from ..walk import collect, splice_block
from .host import vector_bits as host_vector_bits
from .loop_nest import loops_of
from .schedule import Schedule, choose, contracts_in_vectors, masked_vector_sizes
from .threads import ThreadOptions

# scf.for's attribute of LLVM loop metadata, which convert-scf-to-cf puts on the loop's back edge.
LOOP_ANNOTATION = "loop_annotation"


def _is_vector_width(bits: int) -> bool:
    return bits == 0 or (64 <= bits <= 4096 and bits & (bits - 1) == 0)


@dataclass(frozen=True)
class VectorOptions:
    """The option of the passes that size tiles in vector registers (``vector-bits=512``)."""

    vector_bits: int = option(0, "vector register width to tile for (0: the host's)", check=_is_vector_width,
                              accepted="0 or a power of two from 64 to 4096")


@dataclass(frozen=True)
class CodegenOptions(VectorOptions, ThreadOptions):
    """The options of ``tad-tile-and-vectorize`` and ``tad-lower-to-llvm``: threads, and the vector width."""


def run(op: ir.Operation, pass_, options: CodegenOptions = CodegenOptions()) -> None:
    """Tile and vectorize every linalg op inside ``op`` (a ``builtin.module``).

    ``options.threads`` is the number of chunks a large op's outermost
    parallel loop is split into (1: no thread loops).

    Examples
    --------
    >>> from tensorad.dialects import make_context
    >>> from tensorad.passes.registry import run_pipeline
    >>> m = ir.Module.parse("func.func @f() { return }", make_context())
    >>> run_pipeline(m, "tad-tile-and-vectorize{threads=2 vector-bits=256}")
    """
    bits = options.vector_bits or host_vector_bits()
    scheduled = []
    for inner in collect(op):
        loops = loops_of(inner)
        if loops is None:
            continue
        # Upstream's split into partial results (tile_reduction_using_for) leaves the body's loop
        # indices those of the tile: a sum of x + arange(24) added 0..7 three times.
        reads_indices = bool(collect(inner, lambda body_op: body_op.name == "linalg.index"))
        schedule = choose(loops, inner.name == "linalg.contract", bits, options.threads,
                          split_reduction=not reads_indices)
        if schedule is not None:
            scheduled.append((inner, loops, schedule, masked_vector_sizes(loops, schedule, bits)))
    _apply(scheduled)


def _apply(scheduled: Sequence[tuple]) -> None:
    """Run each ``(op, loops, schedule, vector sizes)``'s script on its op, one interpreter call per op.

    One script for all ops would hold a handle per op, and each tiling
    checks every live handle: compile time would grow with the square of
    the number of ops.
    """
    scripts = {}
    options = interpreter.TransformOptions()
    options.expensive_checks = False
    for op, loops, s, masked in scheduled:
        to_contract = not s.partial and contracts_in_vectors(loops, s)
        key = (repr(s), to_contract, repr(masked))  # ops with the same tiles share one script
        if key not in scripts:
            scripts[key] = _script(s, to_contract, masked)
        script = scripts[key]
        region = None if s.tiles_anything() else _enclose(op)
        try:
            interpreter.apply_named_sequence(op, script.body.operations[0], script, options)
        except (ir.MLIRError, ValueError):
            # The vectorizer declined an op the checks above let through (the
            # interpreter reports it as a ValueError carrying the diagnostic):
            # it keeps the (tiled) scalar loops, which compute the same values.
            pass
        if region is not None:
            _inline(region)


def _script(s: Schedule, to_contract: bool, masked: list | None = None) -> ir.Module:
    """The transform script carrying out schedule ``s`` on the op bound to its entry's argument.

    ``to_contract`` (see :func:`.schedule.contracts_in_vectors`) says whether
    a multiply feeding a reduction may become a ``vector.contract``;
    ``masked`` the vector sizes of a tile vectorized with masks (see
    :func:`.schedule.masked_vector_sizes`), whose masked loads and stores
    the script lowers before the contraction. The
    vector patterns apply inside the op's outermost new loop only: the
    script's cost does not grow with the size of the function around the op.
    """
    any_op = transform.AnyOpType.get()
    script = ir.Module.create()
    script.operation.attributes["transform.with_named_sequence"] = ir.UnitAttr.get()
    with ir.InsertionPoint(script.body):
        main = transform.NamedSequenceOp("__transform_main", [any_op], [],
                                         arg_attrs=[{"transform.consumed": ir.UnitAttr.get()}])
    with ir.InsertionPoint(main.body):
        handle, outer = main.bodyTarget, None
        if s.threads:
            # The generated builder: the class's own spells out an empty static_num_threads.
            handle, outer = structured.structured_tile_using_forall(any_op, any_op, handle, [], [],
                                                                    static_tile_sizes=s.threads)
        reduction_loops, tile_loops = [], []
        for level, sizes in (("cache", s.cache), ("register", s.register), ("reduction", s.reduction)):
            if sizes:
                tiled = structured.TileUsingForOp(handle, sizes=sizes)
                handle, loops = tiled.tiled_linalg_op, list(tiled.loops)
                outer = outer or loops[0]
                tile_loops += loops
                if level == "reduction":
                    reduction_loops = loops
        # The loops around the innermost one: LLVM would unroll them whole, a copy of the nest inside
        # per step, for nothing (the tiles are sized for the registers); those copies were most of its time.
        no_unrolling = transform.ParamConstantOp(transform.AnyParamType.get(), _no_unrolling()).result
        for tile_loop in tile_loops[:-1] if not s.partial else tile_loops:
            transform.AnnotateOp(tile_loop, LOOP_ANNOTATION, param=no_unrolling)
        if outer is None:  # nothing tiled around the op: the patterns apply in its own region (_enclose)
            outer = transform.GetParentOp(any_op, handle).result
        vectorized = [handle]
        if s.partial:
            # Partial results: a fill of the accumulator tile, the loop accumulating
            # into it elementwise, and the reduction across its lanes after the loop.
            fills, handle, combining, partial_loop = structured.TileReductionUsingForOp(
                [any_op], any_op, any_op, any_op, handle, tile_sizes=s.partial).results
            vectorized = [fills, handle, combining]
            reduction_loops = [partial_loop]
        for target in vectorized:
            structured.VectorizeOp(target, vector_sizes=masked)
        # A multiply feeding a reduction becomes a vector.contract before
        # canonicalization folds unit reductions away, where that is safe (see
        # contracts_in_vectors); elsewhere a multi_reduction of the product is as fast.
        with ir.InsertionPoint(transform.ApplyPatternsOp(outer).patterns):
            if to_contract:
                vector.ApplyVectorReductionToContractPatternsOp()
            if masked:
                vector.ApplyLowerMasksPatternsOp()
                vector.ApplyLowerMaskedTransfersPatternsOp()
            vector.ApplyTransferPermutationPatternsOp()
            transform.ApplyCanonicalizationPatternsOp()
        # Innermost first: the accumulator tile moves out of each contracting loop in
        # turn and stays in vector registers.
        for reduction_loop in reversed(reduction_loops):
            # Constants made inside the loop first move out, so the tile's indices are invariant.
            transform.ApplyLoopInvariantCodeMotionOp(reduction_loop)
            loop.HoistLoopInvariantSubsetsOp(reduction_loop)
        with ir.InsertionPoint(transform.ApplyPatternsOp(outer, apply_cse=bool(s.partial)).patterns):
            vector.ApplyLowerContractionPatternsOp(lowering_strategy=vector.VectorContractLowering.OuterProduct)
            vector.ApplyLowerOuterProductPatternsOp()
            vector.ApplyLowerMultiReductionPatternsOp(
                lowering_strategy=vector.VectorMultiReductionLowering.InnerReduction)
            vector.ApplyLowerTransposePatternsOp(lowering_strategy=vector.VectorTransposeLowering.Shuffle16x16)
            vector.ApplyCastAwayVectorLeadingOneDimPatternsOp()
            if s.partial:
                # The hoisted accumulator's write and read of its tile fold away, and the tile with them.
                transform.ApplyCanonicalizationPatternsOp()
        transform.YieldOp()
    return script


def _no_unrolling() -> ir.Attribute:
    """LLVM loop metadata that turns off unrolling and loop vectorization."""
    return ir.Attribute.parse("#llvm.loop_annotation<unroll = <disable = true>, vectorize = <disable = true>>")


def _enclose(op: ir.Operation) -> ir.Operation:
    """Move ``op`` into an ``scf.execute_region`` of its own and return that region op.

    An op that gets no loop of its own still needs a scope for its script's
    vector patterns: applied to the enclosing function they would run again
    over every op vectorized before it, a pass over the whole function per op,
    rewriting vector forms another op's script made and already lowered.
    """
    with ir.InsertionPoint(op), op.location:
        region = scf.ExecuteRegionOp([r.type for r in op.results], no_inline=True)
        block = region.regions[0].blocks.append()
    for result, replacement in zip(op.results, region.results):
        result.replace_all_uses_with(replacement)
    with ir.InsertionPoint(block), op.location:
        yield_op = scf.YieldOp(list(op.results))
    op.move_before(yield_op)
    return region.operation


def _inline(region: ir.Operation) -> None:
    """Undo :func:`_enclose`: move the region's ops (vectorized by now) back in place of it."""
    splice_block(region.regions[0].blocks[0], region)
    region.erase()
