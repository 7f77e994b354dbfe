"""How ``tad-tile-and-vectorize`` tiles one op: tile sizes and vector shapes from loop sizes alone.

Pure Python, no IR: a :class:`Loops` describes a linalg op's loop nest (read
from the IR by :func:`tensorad.passes.lower.loop_nest.loops_of`), and
:func:`choose` returns the :class:`Schedule` carried out on it:

* **threads**: the outermost parallel loop that splits evenly becomes chunks,
  a few per thread, when the op does enough work to pay for it;
* **contractions** (whose innermost loop is parallel and contiguous in the
  result and one operand): a cache tile of the contracting and innermost dims
  (the streamed operand's block stays in L2), then a register tile of ``MR``
  rows by ``NR`` columns (``NR`` a multiple of the vector lanes) whose
  accumulators stay in vector registers across the contracting loop;
* **everything else** (elementwise chains, reductions, transposes): a tile of
  one vector along the innermost loop (up to four registers), every other
  loop stepping by one; loops reduced outside the tile (column sums) step
  inside the others, so that the tile's accumulator stays in registers, when
  the tile is the whole innermost loop or the reduced rows stay in cache.

:func:`pack_plan` says whether ``tad-pack-streamed-operands`` copies a large
matmul's streamed operand into panels of the register tile's width.

Examples
--------
A 64x256 elementwise op on 512-bit float32 vectors: one row of 64 lanes at
a time, too small to split over threads:

>>> loops = Loops(sizes=[64, 256], parallel=[True, True], dims=[[0, 1], [0, 1]], n_inputs=1, element_bits=32)
>>> choose(loops, contraction=False, bits=512, threads=4)
Schedule(threads=None, cache=None, register=[1, 64], reduction=None, partial=None)
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod
from typing import Optional, Sequence

# An op is split over threads only when it runs at least this many loop
# iterations (multiply-adds of a contraction, elements of anything else):
# below it, starting and joining the tasks costs more than it saves, and each
# thread loop costs compile time (an outlined chunk function).
PARALLEL_MIN_FMAS = 1 << 22
PARALLEL_MIN_ELEMENTS = 1 << 18
_OVERSHARDING, _MIN_CHUNK_STEPS = 4, 16
# Register tile of a contraction: this many vectors of columns, and as many
# rows as keep its accumulators (rows x _ROW_VECTORS) within half the vector
# registers, the other half holding the operands: 8 rows with AVX-512's 32
# registers, 4 with AVX2's 16 (8 rows there spilled accumulators on every
# step of the contracting loop: a 1024^3 float32 matmul took 35 ms, 14 ms
# with 4, on a 2-core Zen 3).
_ROW_VECTORS = 2
# Cache tile of a contraction whose streamed operand is larger than the L2
# block: its block of _CACHE_K x cache columns (:func:`_cache_block`) stays in
# L2 while every row block passes over it.
_CACHE_K = 256
# The streamed operand of a contraction with at least this many rows (and
# larger than an L2 block) is packed into panels of the register tile's
# width: with fewer rows (an MLP's batch of 128) the copy costs what it saves.
_PACK_MIN_ROWS = 256
# Vector tile of other ops: at most this many registers along the innermost loop.
_TILE_VECTORS = 4
# Reduced rows (outside the innermost loop) of at most this many bytes stay in L2
# while each vector tile of the innermost loop passes over them.
_REDUCED_IN_CACHE_BYTES = 256 * 1024
# A reduction along the innermost loop accumulates this many rows by this many
# vectors of partial results (8 accumulator registers).
_PARTIAL_ROWS, _PARTIAL_VECTORS = 4, 2


@dataclass
class Loops:
    """The loop nest of a linalg op with static shapes.

    Attributes
    ----------
    sizes : list of int
        The trip count of every loop.
    parallel : list of bool
        Whether each loop is parallel (else a reduction).
    dims : list of list
        ``dims[k]`` lists, per result of operand ``k``'s indexing map, the
        loop it reads (None for anything but a plain loop index); the inits
        come after the ``n_inputs`` inputs.
    n_inputs : int
        How many operands are inputs.
    element_bits : int
        The widest element type among the operands: a tile of the innermost
        loop is sized in registers of that type (a float32 operand of an op
        that writes bytes still takes a register per 16 lanes on AVX-512).
    """

    sizes: list
    parallel: list
    dims: list
    n_inputs: int
    element_bits: int


@dataclass
class Schedule:
    """How to tile one op; every tile-size list has one entry per loop (0: not tiled).

    Attributes
    ----------
    threads : list of int, optional
        Tile sizes of the thread loop (``scf.forall``).
    cache, register, reduction : list of int, optional
        Tile sizes of the cache, register and contracting ``scf.for`` loops,
        each level tiling the tile of the one before.
    partial : list of int, optional
        Tile sizes of a reduction loop split into vector partial results
        (``transform.structured.tile_reduction_using_for``): the register
        tile's rows accumulate whole vectors across the loop, in registers,
        and each row is reduced across lanes once, at the end.
    """

    threads: Optional[list] = None
    cache: Optional[list] = None
    register: Optional[list] = None
    reduction: Optional[list] = None
    partial: Optional[list] = None

    def tiles_anything(self) -> bool:
        """Whether the schedule makes a loop around the op's tile (else the op is vectorized whole, or
        split into partial results, in a region of its own).

        Examples
        --------
        >>> Schedule().tiles_anything(), Schedule(register=[1, 8]).tiles_anything()
        (False, True)
        """
        return any((self.threads, self.cache, self.register, self.reduction))

    def drop_whole_tiles(self, sizes: Sequence[int]) -> "Schedule":
        """Leave untiled every loop whose tile spans it at that level.

        A one-trip loop would fold away during the script's canonicalization
        while the script still holds a handle to it.

        Examples
        --------
        >>> Schedule(register=[1, 8]).drop_whole_tiles([4, 8])
        Schedule(threads=None, cache=None, register=[1, 0], reduction=None, partial=None)
        """
        extents = list(sizes)
        for level in ("threads", "cache", "register", "reduction", "partial"):
            tiles = getattr(self, level)
            if tiles is None:
                continue
            tiles = [t if 0 < t < n else 0 for t, n in zip(tiles, extents)]
            extents = [t or n for t, n in zip(tiles, extents)]
            setattr(self, level, tiles if any(tiles) else None)
        return self


@dataclass(frozen=True)
class PackPlan:
    """How ``tad-pack-streamed-operands`` packs one matmul ``C[m, n] += A[m, k] * B[k, n]``.

    Attributes
    ----------
    streamed, other : int
        Operand numbers of the streamed operand (``B``, read a row of vectors
        at a time) and of the other one.
    m, k : int
        The row loop and the contracting loop.
    width : int
        Columns per panel: the register tile's width ``NR``.
    """

    streamed: int
    other: int
    m: int
    k: int
    width: int


def choose(loops: Loops, contraction: bool, bits: int, threads: int,
           split_reduction: bool = True) -> Optional[Schedule]:
    """The schedule of an op with loop nest ``loops``, or None to keep its scalar loops.

    Parameters
    ----------
    loops : Loops
        The op's loop nest.
    contraction : bool
        Whether the op is a ``linalg.contract`` (a register-tiled kernel when
        its operands allow one).
    bits : int
        The vector register width.
    threads : int
        The number of threads (1: no thread loop).
    split_reduction : bool
        Whether a reduction along the innermost loop may be split into
        vector partial results (:func:`_partial_schedule`).

    Examples
    --------
    A 512x512x512 float32 matmul (loops ``m, k, n``) on 256-bit vectors and 4
    threads: 8 chunks of 64 rows, cache blocks of 256 along ``k`` and ``n``
    (the streamed operand, 1 MiB, does not fit an AVX2 core's L2 block of
    256 KiB), a 4x16 register tile (8 accumulators of AVX2's 16 registers),
    and a contracting loop of step 1:

    >>> mm = Loops(sizes=[512, 512, 512], parallel=[True, False, True],
    ...            dims=[[0, 1], [1, 2], [0, 2]], n_inputs=2, element_bits=32)
    >>> choose(mm, contraction=True, bits=256, threads=4)
    Schedule(threads=[64, 0, 0], cache=[0, 256, 256], register=[4, 0, 16], reduction=[0, 1, 0], partial=None)
    """
    lanes = max(bits // loops.element_bits, 1)
    if contraction:
        dims = _contraction_dims(loops)
        if dims is not None:
            return _contraction_schedule(loops, dims, bits, threads)
    n = len(loops.sizes) - 1
    split = _partial_schedule(loops, lanes, threads) if split_reduction else None
    if split is not None:
        return split
    tile = _vector_tile(loops.sizes[n], lanes, _TILE_VECTORS)
    if tile is None:
        return None
    register = [1] * len(loops.sizes)
    register[n] = tile
    t = _transposed_dim(loops)
    if t is not None and loops.sizes[t] % lanes == 0 and loops.sizes[n] % lanes == 0:
        # A lanes x lanes block: contiguous vectors read along t, transposed in registers.
        register[t] = register[n] = lanes
    schedule = Schedule(register=register)
    schedule.threads = _thread_tiles(loops, register, threads, PARALLEL_MIN_ELEMENTS)
    outer_reductions = [d for d in range(n) if not loops.parallel[d] and register[d] == 1]
    reduced_bytes = prod(loops.sizes[d] for d in outer_reductions) * loops.sizes[n] * loops.element_bits // 8
    if outer_reductions and (register[n] == loops.sizes[n] or reduced_bytes <= _REDUCED_IN_CACHE_BYTES):
        # Reduced loops outside the vector tile (column sums) step inside the parallel
        # ones: the tile's accumulator is read once, stays in registers across them and
        # is written once, instead of a load and a store of it per step. Each tile of
        # the innermost loop then passes over the reduced rows once: only where the tile
        # is the whole row, or the rows stay in cache from one tile's pass to the next.
        schedule.reduction = [1 if d in outer_reductions else 0 for d in range(n + 1)]
        for d in outer_reductions:
            register[d] = 0
    return schedule.drop_whole_tiles(loops.sizes)


def masked_vector_sizes(loops: Loops, schedule: Schedule, bits: int) -> Optional[list]:
    """Vector sizes of a contraction's register tile whose columns are no vector register shape, or None.

    A classifier's last layer has 10 columns: a register tile of
    ``vector<10xf32>`` is no register shape on AVX2, and LLVM took it apart
    lane by lane, with shuffles and spills in the contracting loop. Such a
    tile is vectorized at the next power of two of lanes, masked (the loads
    and stores of the 10 columns are masked; the FMAs run on 16 lanes): a
    128x512x10 float32 matmul took 0.20 ms, 0.05 ms masked, on a Zen 3.
    Tiles of whole vectors, or of a power of two of lanes, are left alone.

    Examples
    --------
    >>> mm = Loops(sizes=[128, 512, 10], parallel=[True, False, True],
    ...            dims=[[0, 1], [1, 2], [0, 2]], n_inputs=2, element_bits=32)
    >>> s = choose(mm, contraction=True, bits=256, threads=1)
    >>> s.register, masked_vector_sizes(mm, s, bits=256)  # 4 rows, all 10 columns
    ([4, 0, 0], [4, 1, 16])
    """
    if schedule.partial or not schedule.reduction or len(loops.dims) != 3:
        return None
    dims = _contraction_dims(loops)
    if dims is None:
        return None
    n = dims[1]
    sizes = _tile_extents(loops, schedule)
    lanes = max(bits // loops.element_bits, 1)
    columns = sizes[n]
    if columns % lanes == 0 or columns & (columns - 1) == 0:
        return None
    sizes[n] = 1 << columns.bit_length()  # the next power of two
    return sizes


def contracts_in_vectors(loops: Loops, schedule: Schedule) -> bool:
    """Whether a multiply feeding the reduction of ``schedule``'s tile may become a ``vector.contract``.

    Only when the tile's result has more than one element and every input
    reads every reduced loop (as a matmul's operands read K): once unit dims
    fold away, a one-element result, or an input broadcast along the reduced
    loops, makes a contraction with a scalar accumulator or a missing
    contracting dim that does not verify, and the next patterns abort on it.

    Examples
    --------
    >>> total = Loops(sizes=[4, 5], parallel=[False, False], dims=[[0, 1], []], n_inputs=1, element_bits=64)
    >>> contracts_in_vectors(total, Schedule(register=[1, 5]))
    False
    """
    extents = _tile_extents(loops, schedule)
    results = min(prod(extents[d] for d in dims if d is not None) for dims in loops.dims[loops.n_inputs:])
    reduced = {d for d, parallel in enumerate(loops.parallel) if not parallel}
    return results > 1 and all(reduced <= set(dims) for dims in loops.dims[:loops.n_inputs])


def pack_plan(loops: Loops, bits: int) -> Optional[PackPlan]:
    """How to pack the streamed operand of a large matmul with loop nest ``loops``, or None.

    ``C[i, j] += A[i, k] * B[k, j]`` with ``B`` row-major streams ``B``'s rows
    ``j .. j+NR`` at a stride of a whole row: with rows a multiple of 4 KiB
    apart every step of the contracting loop reads the same L1 sets. A matmul
    of at least ``_PACK_MIN_ROWS`` rows whose ``B`` is larger than an L2
    block, and has more columns than one register tile of whole vectors,
    gets ``B`` copied into panels of ``NR`` columns.

    Examples
    --------
    >>> mm = Loops(sizes=[512, 512, 1024], parallel=[True, False, True],
    ...            dims=[[0, 1], [1, 2], [0, 2]], n_inputs=2, element_bits=32)
    >>> pack_plan(mm, bits=512)
    PackPlan(streamed=1, other=0, m=0, k=1, width=32)
    """
    if len(loops.sizes) != 3:
        return None
    dims = _contraction_dims(loops)
    if dims is None or dims[0] is None:
        return None
    m, n = dims
    k = next(d for d in range(3) if not loops.parallel[d])
    streamed = next(s for s in range(2) if loops.dims[s][-1] == n)
    other = 1 - streamed
    if loops.dims[streamed] != [k, n] or loops.dims[2] != [m, n] or sorted(loops.dims[other]) != sorted([m, k]):
        return None
    lanes = max(bits // loops.element_bits, 1)
    big, cols = loops.sizes[m], loops.sizes[n]
    nr = _vector_tile(loops.sizes[n], lanes, _ROW_VECTORS)
    depth = loops.sizes[k]
    if (nr is None or nr % lanes or cols <= nr or big < _PACK_MIN_ROWS
            or depth * cols * loops.element_bits // 8 <= _cache_block(bits)[0]):
        return None
    return PackPlan(streamed, other, m, k, nr)


def _partial_schedule(loops: Loops, lanes: int, threads: int) -> Optional[Schedule]:
    """The schedule of a reduction along the innermost loop into vector partial results, or None.

    For an op whose loops are all parallel but the innermost, a reduction
    that every input reads contiguously (or not at all), at least two whole
    partial tiles long: ``_PARTIAL_ROWS`` rows of the innermost parallel loop
    longer than one at a time, each accumulating ``_PARTIAL_VECTORS`` vectors
    per step.
    Reducing a vector across lanes at every step instead (the vector tile of
    other ops) makes one long chain of dependent shuffles per row.

    Examples
    --------
    The row sums of a 1024x256 float32 array on 512-bit vectors: four rows
    at a time, 32 partial sums each, in four chunks on two threads:

    >>> rows = Loops(sizes=[1024, 256], parallel=[True, False], dims=[[0, 1], [0]], n_inputs=1, element_bits=32)
    >>> choose(rows, contraction=False, bits=512, threads=2)
    Schedule(threads=[256, 0], cache=None, register=[4, 0], reduction=None, partial=[0, 32])
    """
    n = len(loops.sizes) - 1
    if n < 1 or loops.parallel[n] or not all(loops.parallel[:n]):
        return None
    if any(n in dims[:-1] for dims in loops.dims[:loops.n_inputs]):
        return None  # an input read across the reduced loop: strided vectors
    width = _largest_divisor(loops.sizes[n], _PARTIAL_VECTORS * lanes, lanes)
    if width is None or loops.sizes[n] < 2 * width:
        return None
    register = [1] * n + [0]
    # Rows along the innermost loop longer than one (keepdims leaves unit loops).
    rows = max((d for d in range(n) if loops.sizes[d] > 1), default=n - 1)
    register[rows] = _largest_divisor(loops.sizes[rows], _PARTIAL_ROWS)
    schedule = Schedule(register=register, partial=[0] * n + [width])
    schedule.threads = _thread_tiles(loops, register, threads, PARALLEL_MIN_ELEMENTS)
    return schedule.drop_whole_tiles(loops.sizes)


def _vector_registers(bits: int) -> int:
    """Vector registers of an x86 core with ``bits``-wide vectors: 32 with AVX-512, 16 with AVX2, AVX or SSE.

    Read from the vector width, not the host, so that a schedule depends on
    the pass's options alone (``vector-bits``).
    """
    return 32 if bits >= 512 else 16


def _max_rows(bits: int) -> int:
    """Rows of a contraction's register tile: accumulators in half the vector registers.

    Examples
    --------
    >>> _max_rows(512), _max_rows(256)
    (8, 4)
    """
    return _vector_registers(bits) // 2 // _ROW_VECTORS


def _cache_block(bits: int) -> tuple:
    """``(bytes, columns)`` of a contraction's L2 block: the streamed operand's block above which it is tiled.

    Cores with AVX-512 (server parts) have 1-2 MiB of L2 per core: 512 KiB
    blocks of 512 columns. AVX2 cores have 256 KiB-1 MiB (512 KiB on Zen 2
    and 3): 256 KiB blocks of 256 columns, which took a 1024^3 float32
    matmul from 14.1 to 13.2 ms there.

    Examples
    --------
    >>> _cache_block(512), _cache_block(256)
    ((524288, 512), (262144, 256))
    """
    return (512 * 1024, 512) if bits >= 512 else (256 * 1024, 256)


def _tile_extents(loops: Loops, schedule: Schedule) -> list:
    """The extent of every loop inside the innermost tile of ``schedule`` (its size where nothing tiles it)."""
    extents = list(loops.sizes)
    for tiles in (schedule.threads, schedule.cache, schedule.register, schedule.reduction):
        for d, t in enumerate(tiles or ()):
            if t:
                extents[d] = t
    return extents


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


def _thread_tiles(loops: Loops, inner: list, threads: int, min_iterations: int) -> Optional[list]:
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
            # Few steps per chunk and LLVM unrolls the chunk's loop, kernel and all;
            # a chunk of one step has no loop to unroll.
            steps = n // step // chunks
            if (n // step) % chunks == 0 and (steps == 1 or steps >= _MIN_CHUNK_STEPS or chunks == threads):
                tiles = [0] * len(loops.sizes)
                tiles[d] = n // chunks
                return tiles
    return None


def _transposed_dim(loops: Loops) -> Optional[int]:
    """The innermost dim of an input read across the innermost loop (a transposed read), or None."""
    n = len(loops.sizes) - 1
    for dims in loops.dims[:loops.n_inputs]:
        if dims and n in dims[:-1] and dims[-1] is not None and loops.parallel[dims[-1]]:
            return dims[-1]
    return None


def _contraction_dims(loops: Loops) -> Optional[tuple]:
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


def _panel_dim(loops: Loops, n: int) -> Optional[int]:
    """The panel loop of a contraction whose streamed operand is packed ``[panel, k, n]``, or None."""
    streamed = [dims for dims in loops.dims[:2] if dims and dims[-1] == n]
    out = loops.dims[2]
    if len(streamed) != 1 or len(streamed[0]) != 3 or len(out) < 2 or out[-2:] != [streamed[0][0], n]:
        return None
    return streamed[0][0] if loops.parallel[streamed[0][0]] else None


def _contraction_schedule(loops: Loops, dims: tuple, bits: int, threads: int) -> Optional[Schedule]:
    m, n = dims
    lanes = max(bits // loops.element_bits, 1)
    block_bytes, block_columns = _cache_block(bits)
    sizes = loops.sizes
    cols = _vector_tile(sizes[n], lanes, _ROW_VECTORS)
    if cols is None:
        return None
    register = [1 if parallel else 0 for parallel in loops.parallel]
    register[n] = cols
    if m is not None:
        register[m] = _largest_divisor(sizes[m], _max_rows(bits))
    reduction = [0 if parallel else 1 for parallel in loops.parallel]
    schedule = Schedule(register=register, reduction=reduction)
    schedule.threads = _thread_tiles(loops, register, threads, PARALLEL_MIN_FMAS)
    contracting = [d for d, parallel in enumerate(loops.parallel) if not parallel]
    columns = (schedule.threads or [0] * len(sizes))[n] or sizes[n]
    # A packed streamed operand (see tad-pack-streamed-operands) has its columns in panels.
    panel = _panel_dim(loops, n)
    if panel is not None:
        columns *= (schedule.threads or [0] * len(sizes))[panel] or sizes[panel]
    if len(contracting) == 1 and sizes[contracting[0]] * columns * loops.element_bits // 8 > block_bytes:
        cache = [0] * len(sizes)
        cache[contracting[0]] = _CACHE_K
        if panel is None:
            cache[n] = _largest_divisor(columns, block_columns, cols) or 0
        else:
            cache[panel] = _largest_divisor(columns // sizes[n], max(block_columns // sizes[n], 1)) or 0
        schedule.cache = cache
    return schedule.drop_whole_tiles(sizes)
