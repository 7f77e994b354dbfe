"""``tad-tile-and-vectorize``: tile linalg ops for threads, caches and registers, then vectorize them.

Runs on tensors, after elementwise fusion and before bufferization. Every
``linalg`` op with static shapes gets a schedule chosen here from its loop
sizes and the host's vector width, and the schedule is carried out by the
upstream transform dialect (``transform.structured.tile_using_forall``,
``tile_using_for``, ``vectorize``, the vector lowering patterns), applied to
each op through the transform interpreter:

* **threads**: the outermost parallel loop that splits evenly becomes an
  ``scf.forall`` of a few chunks per thread (``tad-lower-to-llvm`` runs them
  on a thread pool), when the op does enough work to pay for it;
* **contractions** (``linalg.contract`` whose innermost loop is parallel and
  contiguous in the result and one operand): a cache tile of the contracting
  and innermost dims (the streamed operand's block stays in L2), then a
  register tile of ``MR`` rows by ``NR`` columns (``NR`` a multiple of the
  vector lanes) whose accumulators stay in vector registers across the
  contracting loop: ``MR`` broadcast-FMAs per column vector per step;
* a large contraction (at least ``_PACK_MIN_ROWS`` rows, streamed operand
  over ``_L2_BLOCK_BYTES``) first copies its streamed operand into
  contiguous panels of the register tile's width (``_pack_streamed_operands``),
  so its rows, a power of two apart, do not all fall into the same L1 sets;
* **everything else** (elementwise chains, reductions, transposes): a tile of
  one vector along the innermost loop (up to four registers), every other
  loop stepping by one;
* the fill that initializes a contraction or reduction is an elementwise op
  like any other (threaded and vectorized), and a fill shared by several ops
  is cloned per op, so no buffer is zero-filled once and copied into each
  output;
* a transpose of a loop-invariant operand (a weight, in an RNN's loops) is
  moved out of its loops.

Ops that the vectorizer cannot handle (bodies with ``tensor.extract``,
reductions without a single known combiner, windowed accesses, dynamic
shapes) keep their scalar loops; the result is the same either way.

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
from math import prod
from typing import Optional, Sequence

from mlir import ir
from mlir.dialects import scf, tensor
from mlir.dialects.transform import interpreter

from ...dialects import linalg_builder as linalg
from ..options import option
from ..walk import collect, defined_outside, defining_op, splice_block
from .host import vector_bits as host_vector_bits
from .threads import ThreadOptions

# An op is split over threads only when it runs at least this many loop
# iterations (multiply-adds of a contraction, elements of anything else):
# below it, starting and joining the tasks costs more than it saves, and each
# thread loop costs compile time (an outlined chunk function).
PARALLEL_MIN_FMAS = 1 << 22
PARALLEL_MIN_ELEMENTS = 1 << 18
_OVERSHARDING, _MIN_CHUNK_STEPS = 4, 16
# Register tile of a contraction: at most this many rows, and this many
# vectors of columns (MR x NR/lanes accumulators plus the operands fit in 32
# vector registers).
_MAX_ROWS, _ROW_VECTORS = 8, 2
# Cache tile of a contraction whose streamed operand is larger than
# _L2_BLOCK_BYTES: its block of _CACHE_K x _CACHE_N elements stays in L2 while
# every row block passes over it.
_CACHE_K, _CACHE_N, _L2_BLOCK_BYTES = 256, 512, 512 * 1024
# The streamed operand of a contraction with at least this many rows (and
# larger than _L2_BLOCK_BYTES) is packed into panels of the register tile's
# width: with fewer rows (an MLP's batch of 128) the copy costs what it saves.
_PACK_MIN_ROWS = 256
# Vector tile of other ops: at most this many registers along the innermost loop.
_TILE_VECTORS = 4
_COMBINERS = frozenset({
    "arith.addf", "arith.addi", "arith.mulf", "arith.muli", "arith.maximumf", "arith.minimumf",
    "arith.maxnumf", "arith.minnumf", "arith.maxsi", "arith.minsi", "arith.maxui", "arith.minui",
    "arith.andi", "arith.ori", "arith.xori",
})


def _is_vector_width(bits: int) -> bool:
    return bits == 0 or (64 <= bits <= 4096 and bits & (bits - 1) == 0)


@dataclass(frozen=True)
class CodegenOptions(ThreadOptions):
    """The options of ``tad-tile-and-vectorize`` and ``tad-lower-to-llvm``: threads, and the vector width."""

    vector_bits: int = option(0, "vector register width to tile for (0: the host's)", check=_is_vector_width,
                              accepted="0 or a power of two from 64 to 4096")


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
    n_threads = options.threads
    _hoist_transposes(op)
    _clone_shared_fills(op)
    _pack_streamed_operands(op, bits)
    schedules = [_schedule(inner, loops, bits, n_threads) for inner in collect(op)
                 if (loops := _Loops.of(inner)) is not None]
    _apply([s for s in schedules if s is not None])


# --- before tiling ---------------------------------------------------------------------

_LOOPS = ("scf.for", "scf.while")


def _hoist_transposes(module: ir.Operation) -> None:
    """Move a transpose of a loop-invariant tensor out of its loops.

    Contractions transpose an operand into the layout their kernel streams
    (see ``tad-lower-to-linalg``); a weight used in every step of a loop
    would otherwise be transposed once per step.
    """
    for op in collect(module, lambda inner: inner.name == "linalg.transpose"):
        init = defining_op(op.operands[1])
        while op.parent.name in _LOOPS and defined_outside(op.operands[0], op.parent):
            loop = op.parent
            if init is not None and init.name == "tensor.empty" and init.parent == loop:
                init.move_before(loop)
            if not defined_outside(op.operands[1], loop):
                break
            op.move_before(loop)


def _pack_streamed_operands(module: ir.Operation, bits: int) -> None:
    """Copy the streamed operand of a large matmul into panels of register-tile width.

    ``C[i, j] += A[i, k] * B[k, j]`` with ``B`` row-major streams ``B``'s rows
    ``j .. j+NR`` at a stride of a whole row: with rows a multiple of 4 KiB
    apart every step of the contracting loop reads the same L1 sets, and the
    panel is read from L2. ``B`` is copied (once per call, ``K x N`` against
    the contraction's ``M x K x N``) into ``P[j / NR, k, j % NR]``, where each
    panel is contiguous, and the contraction becomes one over ``(i, j / NR,
    k, j % NR)`` writing the result as ``C[i, j / NR, j % NR]``, which is the
    same buffer. A ``B`` that is itself a transpose (``δ·Wᵀ``) is packed from
    the transpose's input in one copy.
    """
    for op in collect(module, lambda inner: inner.name == "linalg.contract"):
        loops = _Loops.of(op)
        if loops is None or len(loops.sizes) != 3 or op.parent.name in _LOOPS:
            continue
        dims = _contraction_dims(loops)
        if dims is None or dims[0] is None:
            continue
        m, n = dims
        k = next(d for d in range(3) if not loops.parallel[d])
        streamed = next(s for s in range(2) if loops.dims[s][-1] == n)
        other = 1 - streamed
        if loops.dims[streamed] != [k, n] or loops.dims[2] != [m, n] or sorted(loops.dims[other]) != sorted([m, k]):
            continue
        lanes = max(bits // loops.element_bits, 1)
        big, cols = loops.sizes[m], loops.sizes[n]
        nr = _vector_tile(loops.sizes[n], lanes, _ROW_VECTORS)
        depth = loops.sizes[k]
        if (nr is None or nr % lanes or cols <= nr or big < _PACK_MIN_ROWS
                or depth * cols * loops.element_bits // 8 <= _L2_BLOCK_BYTES):
            continue
        _pack(op, streamed, other, loops, m, k, nr)


def _pack(op: ir.Operation, streamed: int, other: int, loops: "_Loops", m: int, k: int, nr: int) -> None:
    b, init = op.operands[streamed], op.operands[2]
    depth, cols = b.type.shape
    element = b.type.element_type
    panels = cols // nr
    packed_type = ir.RankedTensorType.get([panels, depth, nr], element)
    new_dim = {m: 0, k: 2}
    maps = [None, None, None]
    maps[other] = _map(4, [new_dim[d] for d in loops.dims[other]])
    maps[streamed] = _map(4, [1, 2, 3])
    maps[2] = _map(4, [0, 1, 3])
    with ir.InsertionPoint(op), op.location:
        source = defining_op(b)
        empty = tensor.EmptyOp([panels, depth, nr], element).result
        if (source is not None and source.name == "linalg.transpose"
                and list(ir.DenseI64ArrayAttr(source.attributes["permutation"])) == [1, 0]
                and len(list(b.uses)) == 1):
            x = source.operands[0]  # B = xᵀ: x[j, k]
            split = tensor.ExpandShapeOp(ir.RankedTensorType.get([panels, nr, depth], element), x,
                                         [[0, 1], [2]], [], [panels, nr, depth]).result
            packed = linalg.transpose(split, outs=[empty], permutation=[0, 2, 1]).results[0]
        else:
            source = None
            split = tensor.ExpandShapeOp(ir.RankedTensorType.get([depth, panels, nr], element), b,
                                         [[0], [1, 2]], [], [depth, panels, nr]).result
            packed = linalg.transpose(split, outs=[empty], permutation=[1, 0, 2]).results[0]
        rows = init.type.shape[0]
        out_type = ir.RankedTensorType.get([rows, panels, nr], element)
        out = tensor.ExpandShapeOp(out_type, init, [[0], [1, 2]], [], [rows, panels, nr]).result
        ins = [None, None]
        ins[streamed], ins[other] = packed, op.operands[other]
        result = linalg.contract(*ins, outs=[out], indexing_maps=maps)
        flat = tensor.CollapseShapeOp(init.type, result, [[0], [1, 2]]).result
    op.results[0].replace_all_uses_with(flat)
    op.erase()
    if source is not None:
        transposed_init = source.operands[1]
        source.erase()
        empty_op = defining_op(transposed_init)
        if empty_op is not None and empty_op.name == "tensor.empty" and not list(transposed_init.uses):
            empty_op.erase()


def _map(n_dims: int, dims: Sequence[int]) -> ir.AffineMap:
    return ir.AffineMap.get(n_dims, 0, [ir.AffineDimExpr.get(d) for d in dims])


# --- what an op computes -------------------------------------------------------------

@dataclass
class _Loops:
    """The loop nest of a linalg op with static shapes.

    ``dims[k]`` lists, per result of operand ``k``'s indexing map, the loop it
    reads (None for anything but a plain loop index). ``element_bits`` is the
    widest element type among the operands: a tile of the innermost loop is
    sized in registers of that type (a float32 operand of an op that writes
    bytes still takes a register per 16 lanes on AVX-512).
    """

    sizes: list
    parallel: list
    dims: list
    n_inputs: int
    element_bits: int

    @staticmethod
    def of(op: ir.Operation) -> Optional["_Loops"]:
        if op.name not in ("linalg.generic", "linalg.contract", "linalg.transpose"):
            return None
        types = [v.type for v in op.operands]
        if not all(isinstance(t, ir.RankedTensorType) and t.has_static_shape for t in types):
            return None
        n_inputs = len(types) - len(op.results)
        if not op.results or not _vectorizable_body(op, n_inputs):
            return None
        if op.name == "linalg.transpose":
            perm = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
            rank = len(perm)
            inverse = [perm.index(d) for d in range(rank)]
            maps = [inverse, list(range(rank))]
            iterators = None
        else:
            maps = []
            for attr in op.attributes["indexing_maps"]:
                amap = ir.AffineMapAttr(attr).value
                if not all(isinstance(e, (ir.AffineDimExpr, ir.AffineConstantExpr)) for e in amap.results):
                    return None  # a window (d0 + d1): not a vectorizable access
                maps.append([e.position if isinstance(e, ir.AffineDimExpr) else None
                             for e in amap.results])
            rank = ir.AffineMapAttr(op.attributes["indexing_maps"][0]).value.n_dims
            iterators = (None if op.name == "linalg.contract"
                         else [str(a).endswith("parallel>") for a in op.attributes["iterator_types"]])
        sizes = [None] * rank
        for dims, t in zip(maps, types):
            for d, n in zip(dims, t.shape):
                if d is not None:
                    sizes[d] = n
        if not sizes or None in sizes or 0 in sizes:
            return None
        if iterators is None:  # a named op: the loops its result reads are parallel
            iterators = [d in maps[-1] for d in range(rank)]
        widths = [t.element_type.width if isinstance(t.element_type, (ir.FloatType, ir.IntegerType)) else 0
                  for t in types]
        if widths[-1] < 8:
            return None
        return _Loops(sizes, iterators, maps, n_inputs, max(widths))


def _vectorizable_body(op: ir.Operation, n_inputs: int) -> bool:
    """True when the vectorizer handles ``op``'s body: scalar arith/math, and known reductions."""
    if op.name != "linalg.generic":
        return True
    block = op.regions[0].blocks[0]
    for inner in block.operations:
        name = inner.operation.name
        if not (name.startswith(("arith.", "math.")) or name in ("linalg.yield", "linalg.index")):
            return False
    has_reduction = any(not str(a).endswith("parallel>") for a in op.attributes["iterator_types"])
    if not has_reduction:
        return True
    if len(op.results) != 1:
        return False
    combiner = defining_op(list(block.operations)[-1].operands[0])
    accumulator = block.arguments[n_inputs]
    return (combiner is not None and combiner.name in _COMBINERS
            and any(v == accumulator for v in combiner.operands))


# --- choosing a schedule -------------------------------------------------------------

@dataclass
class _Schedule:
    """How to tile one op; every tile-size list has one entry per loop (0: not tiled)."""

    op: ir.Operation
    threads: Optional[list] = None
    cache: Optional[list] = None
    register: Optional[list] = None
    reduction: Optional[list] = None

    def tiles_anything(self) -> bool:
        """Whether the schedule makes any loop (else the op is vectorized whole)."""
        return any((self.threads, self.cache, self.register, self.reduction))

    def drop_whole_tiles(self, sizes: Sequence[int]) -> "_Schedule":
        """Leave untiled every loop whose tile spans it at that level.

        A one-trip loop would fold away during the script's canonicalization
        while the script still holds a handle to it.
        """
        extents = list(sizes)
        for level in ("threads", "cache", "register", "reduction"):
            tiles = getattr(self, level)
            if tiles is None:
                continue
            tiles = [t if 0 < t < n else 0 for t, n in zip(tiles, extents)]
            extents = [t or n for t, n in zip(tiles, extents)]
            setattr(self, level, tiles if any(tiles) else None)
        return self


def _largest_divisor(n: int, at_most: int, multiple_of: int = 1) -> Optional[int]:
    """Largest divisor of ``n`` that is at most ``at_most`` and a multiple of ``multiple_of``."""
    for t in range(min(n, at_most), 0, -1):
        if n % t == 0 and t % multiple_of == 0:
            return t
    return None


def _vector_tile(n: int, lanes: int, max_vectors: int) -> Optional[int]:
    """Tile of the innermost loop: whole vectors dividing ``n``, or all of a short loop."""
    if n <= max_vectors * lanes:
        return n
    return (_largest_divisor(n, max_vectors * lanes, lanes)
            or _largest_divisor(n, max_vectors * lanes, max(lanes // 2, 1)))


def _thread_tiles(loops: _Loops, inner: list, threads: int, min_iterations: int) -> Optional[list]:
    """Split the outermost parallel loop that divides evenly into chunks of whole tiles.

    Up to ``_OVERSHARDING`` chunks per thread, each of at least a quarter of
    ``min_iterations``: a thread slowed down by another process hands its
    remaining chunks to the others.
    """
    work = prod(loops.sizes)
    if threads < 2 or work < min_iterations:
        return None
    most = min(threads * _OVERSHARDING, work // (min_iterations // 4))
    for d, (n, parallel) in enumerate(zip(loops.sizes, loops.parallel)):
        step = inner[d] or n
        if not parallel or n % step:
            continue
        for chunks in range(most - most % threads, threads - 1, -threads):
            # Few steps per chunk and LLVM unrolls the chunk's loop, kernel and all.
            steps = n // step // chunks
            if (n // step) % chunks == 0 and (steps >= _MIN_CHUNK_STEPS or chunks == threads):
                tiles = [0] * len(loops.sizes)
                tiles[d] = n // chunks
                return tiles
    return None


def _transposed_dim(loops: _Loops) -> Optional[int]:
    """The innermost dim of an input read across the innermost loop (a transposed read), or None."""
    n = len(loops.sizes) - 1
    for dims in loops.dims[:loops.n_inputs]:
        if dims and n in dims[:-1] and dims[-1] is not None and loops.parallel[dims[-1]]:
            return dims[-1]
    return None


def _is_fill(op: Optional[ir.Operation]) -> bool:
    """True for ``linalg.fill`` and for a generic without inputs that yields a constant (a splat)."""
    if op is None:
        return False
    if op.name == "linalg.fill":
        return True
    if op.name != "linalg.generic" or len(op.operands) != 1:
        return False
    block = op.regions[0].blocks[0]
    body = list(block.operations)
    yielded = defining_op(body[-1].operands[0])
    if yielded is None:  # a block argument: the init's own value
        return False
    inside = yielded.parent == op
    return (len(body) == 2 and yielded.name == "arith.constant") if inside else len(body) == 1


def _contraction_dims(loops: _Loops) -> Optional[tuple]:
    """``(m, n)`` loops of a contraction with a register tile, or None.

    ``n`` is the innermost loop: parallel, and the last dim of the result and
    of exactly one operand (the streamed one, read a row of vectors at a
    time). ``m`` is the innermost parallel loop of the other operand (read one
    element at a time and broadcast) that the streamed operand does not read.
    """
    n = len(loops.sizes) - 1
    lhs, rhs, out = loops.dims
    if not loops.parallel[n] or not out or out[-1] != n:
        return None
    streamed = [dims for dims in (lhs, rhs) if dims and dims[-1] == n]
    broadcast = [dims for dims in (lhs, rhs) if n not in dims]
    if len(streamed) != 1 or len(broadcast) != 1:
        return None
    rows = [d for d in broadcast[0] if d is not None and loops.parallel[d]
            and d not in streamed[0] and d in out]
    return (rows[-1] if rows else None), n


def _panel_dim(loops: _Loops, n: int) -> Optional[int]:
    """The panel loop of a contraction whose streamed operand is packed ``[panel, k, n]``, or None."""
    streamed = [dims for dims in loops.dims[:2] if dims and dims[-1] == n]
    out = loops.dims[2]
    if len(streamed) != 1 or len(streamed[0]) != 3 or len(out) < 2 or out[-2:] != [streamed[0][0], n]:
        return None
    return streamed[0][0] if loops.parallel[streamed[0][0]] else None


def _schedule(op: ir.Operation, loops: _Loops, bits: int, threads: int) -> Optional[_Schedule]:
    lanes = max(bits // loops.element_bits, 1)
    if op.name == "linalg.contract":
        dims = _contraction_dims(loops)
        if dims is not None:
            return _contraction_schedule(op, loops, dims, lanes, threads)
    n = len(loops.sizes) - 1
    tile = _vector_tile(loops.sizes[n], lanes, _TILE_VECTORS)
    if tile is None:
        return None
    register = [1] * len(loops.sizes)
    register[n] = tile
    t = _transposed_dim(loops)
    if t is not None and loops.sizes[t] % lanes == 0 and loops.sizes[n] % lanes == 0:
        # A lanes x lanes block: contiguous vectors read along t, transposed in registers.
        register[t] = register[n] = lanes
    schedule = _Schedule(op, register=register)
    schedule.threads = _thread_tiles(loops, register, threads, PARALLEL_MIN_ELEMENTS)
    return schedule.drop_whole_tiles(loops.sizes)


def _contraction_schedule(op, loops: _Loops, dims: tuple, lanes: int, threads: int) -> Optional[_Schedule]:
    m, n = dims
    sizes = loops.sizes
    cols = _vector_tile(sizes[n], lanes, _ROW_VECTORS)
    if cols is None:
        return None
    register = [1 if parallel else 0 for parallel in loops.parallel]
    register[n] = cols
    if m is not None:
        register[m] = _largest_divisor(sizes[m], _MAX_ROWS)
    reduction = [0 if parallel else 1 for parallel in loops.parallel]
    schedule = _Schedule(op, register=register, reduction=reduction)
    schedule.threads = _thread_tiles(loops, register, threads, PARALLEL_MIN_FMAS)
    contracting = [d for d, parallel in enumerate(loops.parallel) if not parallel]
    columns = (schedule.threads or [0] * len(sizes))[n] or sizes[n]
    # A packed streamed operand (see _pack_streamed_operands) has its columns in panels.
    panel = _panel_dim(loops, n)
    if panel is not None:
        columns *= (schedule.threads or [0] * len(sizes))[panel] or sizes[panel]
    if len(contracting) == 1 and sizes[contracting[0]] * columns * loops.element_bits // 8 > _L2_BLOCK_BYTES:
        cache = [0] * len(sizes)
        cache[contracting[0]] = _CACHE_K
        if panel is None:
            cache[n] = _largest_divisor(columns, _CACHE_N, cols) or 0
        else:
            cache[panel] = _largest_divisor(columns // sizes[n], max(_CACHE_N // sizes[n], 1)) or 0
        schedule.cache = cache
    return schedule.drop_whole_tiles(sizes)


# --- carrying it out -------------------------------------------------------------------

_ANY = "!transform.any_op"


def _tile_for(lines: list, handle: str, sizes: Sequence[int], name: str) -> tuple:
    """Emit ``tile_using_for``; return the tiled op's handle and the loops' handles, outermost first."""
    n_loops = sum(1 for s in sizes if s)
    loops = f"%{name}_loops"
    results = ", ".join([_ANY] * (n_loops + 1))
    lines.append(f"%{name}, {loops}:{n_loops} = transform.structured.tile_using_for {handle} "
                 f"tile_sizes {list(sizes)} : ({_ANY}) -> ({results})")
    return f"%{name}", [f"{loops}#{i}" for i in range(n_loops)]


def _contracts_in_vectors(s: _Schedule) -> bool:
    """Whether a multiply feeding the reduction of schedule ``s``'s tile may become a ``vector.contract``.

    Only when the tile's result has more than one element and every input
    reads every reduced loop (as a matmul's operands read K): once unit dims
    fold away, a one-element result, or an input broadcast along the reduced
    loops, makes a contraction with a scalar accumulator or a missing
    contracting dim that does not verify, and the next patterns abort on it.
    """
    loops = _Loops.of(s.op)
    extents = list(loops.sizes)
    for tiles in (s.threads, s.cache, s.register, s.reduction):
        for d, t in enumerate(tiles or ()):
            if t:
                extents[d] = t
    results = min(prod(extents[d] for d in dims if d is not None) for dims in loops.dims[loops.n_inputs:])
    reduced = {d for d, parallel in enumerate(loops.parallel) if not parallel}
    return results > 1 and all(reduced <= set(dims) for dims in loops.dims[:loops.n_inputs])


def _script(s: _Schedule) -> str:
    """The transform script carrying out schedule ``s`` on the op bound to ``%root``.

    The vector patterns apply inside the op's outermost new loop only: the
    script's cost does not grow with the size of the function around the op.
    """
    lines = []
    handle, outer = "%root", None
    if s.threads:
        lines.append(f"%tiled, %forall = transform.structured.tile_using_forall %root "
                     f"tile_sizes {s.threads} : ({_ANY}) -> ({_ANY}, {_ANY})")
        handle, outer = "%tiled", "%forall"
    reduction_loops = []
    for level, sizes in (("cache", s.cache), ("register", s.register), ("reduction", s.reduction)):
        if sizes:
            handle, loops = _tile_for(lines, handle, sizes, level)
            outer = outer or loops[0]
            if level == "reduction":
                reduction_loops = loops
    if outer is None:  # nothing tiled: the patterns apply inside the op's own region (_enclose)
        lines.insert(0, f"%outer = transform.get_parent_op %root : ({_ANY}) -> {_ANY}")
        outer = "%outer"
    lines.append(f"transform.structured.vectorize {handle} : {_ANY}")
    # A multiply feeding a reduction becomes a vector.contract before
    # canonicalization folds unit reductions away, where that is safe (see
    # _contracts_in_vectors); elsewhere a multi_reduction of the product is as fast.
    to_contract = "transform.apply_patterns.vector.reduction_to_contract" if _contracts_in_vectors(s) else ""
    lines.append(f"""transform.apply_patterns to {outer} {{
      {to_contract}
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.canonicalization
    }} : {_ANY}""")
    # Innermost first: the accumulator tile moves out of each contracting loop in
    # turn and stays in vector registers.
    for loop in reversed(reduction_loops):
        # Constants made inside the loop first move out, so the tile's indices are invariant.
        lines.append(f"transform.apply_licm to {loop} : {_ANY}")
        lines.append(f"transform.loop.hoist_loop_invariant_subsets {loop} : {_ANY}")
    lines.append(f"""transform.apply_patterns to {outer} {{
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_multi_reduction lowering_strategy = "innerreduction"
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
    }} : {_ANY}""")
    body = "\n    ".join(lines)
    return f"""
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: {_ANY} {{transform.consumed}}) {{
    {body}
    transform.yield
  }}
}}"""


def _apply(schedules: Sequence[_Schedule]) -> None:
    """Run each schedule's script on its op, one interpreter call per op.

    One script for all ops would hold a handle per op, and each tiling
    checks every live handle: compile time would grow with the square of
    the number of ops.
    """
    parsed = {}
    options = interpreter.TransformOptions()
    options.expensive_checks = False
    for s in schedules:
        text = _script(s)
        if text not in parsed:
            parsed[text] = ir.Module.parse(text)
        script = parsed[text]
        region = None if s.tiles_anything() else _enclose(s.op)
        try:
            interpreter.apply_named_sequence(s.op, script.body.operations[0], script, options)
        except (ir.MLIRError, ValueError):
            # The vectorizer declined an op the checks above let through (the
            # interpreter reports it as a ValueError carrying the diagnostic):
            # it keeps the (tiled) scalar loops, which compute the same values.
            pass
        if region is not None:
            _inline(region)


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


def _clone_shared_fills(module: ir.Operation) -> None:
    """Give every linalg op its own copy of a fill it shares as an init with other ops.

    Bufferization writes an op's result into its init's buffer; a shared
    init would be filled once and copied for each op that writes into it.
    """
    for fill in collect(module, lambda op: _is_fill(op) and len(list(op.results[0].uses)) > 1):
        inits = [use for use in fill.results[0].uses if use.owner.name.startswith("linalg.")
                 and use.operand_number >= len(use.owner.operands) - len(use.owner.results)]
        for use in inits[1:] if len(inits) == len(list(fill.results[0].uses)) else inits:
            user = use.owner
            copy = fill.clone(ip=ir.InsertionPoint(user))
            user.operands[use.operand_number] = copy.results[0]
