"""The schedule chooser of ``tad-tile-and-vectorize`` (``passes/lower/schedule.py``), without IR.

Each case builds a loop nest by hand and checks the tiles chosen for it:
vector tiles of elementwise ops and reductions, transposed reads, thread
chunks, register and cache tiles of contractions, packed operands, and when a
multiply may become a ``vector.contract``.
"""

from __future__ import annotations

import pytest

from tensorad.passes.lower.schedule import (PARALLEL_MIN_ELEMENTS, PARALLEL_MIN_FMAS, Loops, PackPlan, Schedule,
                                            choose, contracts_in_vectors, masked_vector_sizes, pack_plan)


def elementwise(*sizes: int, bits: int = 32) -> Loops:
    """An all-parallel op reading and writing every loop in order."""
    dims = list(range(len(sizes)))
    return Loops(list(sizes), [True] * len(sizes), [dims, dims], 1, bits)


def matmul(m: int, k: int, n: int, bits: int = 32) -> Loops:
    """``C[m, n] += A[m, k] * B[k, n]`` over loops ``(m, k, n)``."""
    return Loops([m, k, n], [True, False, True], [[0, 1], [1, 2], [0, 2]], 2, bits)


@pytest.mark.parametrize("bits, register", [(512, [1, 64]), (256, [1, 32]), (128, [1, 16])])
def test_an_elementwise_op_steps_one_vector_along_its_innermost_loop(bits, register):
    # Up to four registers per step: 256 columns of f32 take 64 lanes at 512 bits, and so on.
    assert choose(elementwise(64, 256), False, bits, 1) == Schedule(register=register)


def test_a_short_innermost_loop_is_taken_whole():
    assert choose(elementwise(64, 10), False, 512, 1) == Schedule(register=[1, 0])


def test_an_innermost_loop_of_no_whole_vectors_takes_half_vectors():
    # 200 = 25 x 8: no multiple of 16 lanes divides it, a multiple of 8 does.
    assert choose(elementwise(4, 200), False, 512, 1) == Schedule(register=[1, 40])


def test_a_transposed_read_takes_a_square_block_of_lanes():
    # out[i, j] = x[j, i]: x is read across the innermost loop.
    loops = Loops([64, 64], [True, True], [[1, 0], [0, 1]], 1, 32)
    assert choose(loops, False, 512, 1) == Schedule(register=[16, 16])


def test_an_op_is_split_over_threads_only_with_enough_work():
    small = elementwise(64, 64)
    assert 64 * 64 < PARALLEL_MIN_ELEMENTS
    assert choose(small, False, 512, 4).threads is None
    large = elementwise(1024, 1024)
    assert choose(large, False, 512, 1).threads is None
    # Four chunks per thread, each of at least 16 steps of the tiled loop.
    assert choose(large, False, 512, 4).threads == [64, 0]


def test_a_thread_chunk_is_one_step_or_many():
    # (8, 128, 1024) on two threads: eight chunks of one step of the outer loop (no loop
    # of four steps around the tile loops, which LLVM would unroll, kernel and all).
    assert choose(elementwise(8, 128, 1024), False, 512, 2).threads == [1, 0, 0]


def test_a_matmul_gets_a_register_tile_and_a_contracting_loop():
    s = choose(matmul(16, 32, 64), True, 512, 1)
    assert s == Schedule(register=[8, 0, 32], reduction=[0, 1, 0])


def test_a_large_matmul_gets_threads_and_a_cache_tile():
    assert 512 * 512 * 512 >= PARALLEL_MIN_FMAS
    # AVX-512: 8 x 32 accumulators (16 of 32 registers), 1 MiB of B in L2 blocks of 256 x 512 (512 KiB).
    s = choose(matmul(512, 512, 512), True, 512, 4)
    assert s == Schedule(threads=[128, 0, 0], cache=[0, 256, 0], register=[8, 0, 32], reduction=[0, 1, 0])


def test_a_matmul_on_avx2_keeps_its_accumulators_in_half_of_16_registers():
    # AVX2: 4 x 16 (8 accumulators; 8 rows spilled them), L2 blocks of 256 x 256 (256 KiB).
    s = choose(matmul(512, 512, 512), True, 256, 4)
    assert s == Schedule(threads=[64, 0, 0], cache=[0, 256, 256], register=[4, 0, 16], reduction=[0, 1, 0])
    assert choose(matmul(16, 32, 64), True, 256, 1).register == [4, 0, 16]


def test_a_packed_matmul_takes_its_cache_tile_in_panels():
    # After packing: C[i, p, j] += A[i, k] * P[p, k, j] over loops (i, p, k, j), 32 panels of 32.
    loops = Loops([256, 32, 512, 32], [True, True, False, True], [[0, 2], [1, 2, 3], [0, 1, 3]], 2, 32)
    s = choose(loops, True, 512, 1)
    assert s.cache == [0, 16, 256, 0] and s.register == [8, 1, 0, 0]


def test_a_contraction_without_a_streamed_operand_reduces_into_partial_results():
    # A matrix-vector product: the innermost loop is a reduction, so no register tile
    # of a matmul; four rows accumulate 32 partial sums each across it.
    loops = Loops([8, 256], [True, False], [[0, 1], [1], [0]], 2, 32)
    assert choose(loops, True, 512, 1) == Schedule(register=[4, 0], partial=[0, 32])
    # Too short for two steps of partial results: one vector tile per row.
    short = Loops([8, 16], [True, False], [[0, 1], [1], [0]], 2, 32)
    assert choose(short, True, 512, 1) == Schedule(register=[1, 0])


def test_a_reduction_read_across_its_loop_keeps_the_vector_tile():
    # x[k, m] summed over k with k innermost: each vector would be a strided gather.
    loops = Loops([64, 256], [True, False], [[1, 0], [0]], 1, 32)
    assert choose(loops, False, 512, 1).partial is None


def column_sum(*sizes: int, reduced=(0,), bits: int = 32) -> Loops:
    """``out[...] += x[...]`` over ``sizes``, the loops in ``reduced`` summed away (the innermost kept)."""
    dims = list(range(len(sizes)))
    return Loops(list(sizes), [d not in reduced for d in dims], [dims, [d for d in dims if d not in reduced]], 1, bits)


def test_a_column_sum_steps_its_reduced_loops_inside_the_vector_tile():
    # (64, 32, 64) summed over the middle loop: 64 columns are one tile of four registers,
    # whose accumulator stays in them across the 32 rows (a loop inside the tile's).
    assert choose(column_sum(64, 32, 64, reduced=(1,)), False, 512, 1) == \
        Schedule(register=[1, 0, 0], reduction=[0, 1, 0])
    # 1000 columns take 25 tiles of 40 lanes; the 3 x 1000 rows (12 KB) stay in cache between them.
    assert choose(column_sum(64, 3, 1000, reduced=(1,)), False, 512, 1) == \
        Schedule(register=[1, 0, 40], reduction=[0, 1, 0])


def test_a_column_sum_over_rows_larger_than_the_cache_keeps_them_outside():
    # 4096 x 64 float64: two tiles of 32 lanes would each stream the 2 MiB of rows.
    assert choose(column_sum(4096, 64, bits=64), False, 512, 1) == Schedule(register=[1, 32])


def test_whole_tiles_are_dropped():
    s = Schedule(threads=[4, 0], register=[4, 8]).drop_whole_tiles([4, 8])
    assert s == Schedule() and not s.tiles_anything()
    # A register tile spans what its thread chunk left, not the whole loop.
    chunked = Schedule(threads=[2, 0], register=[2, 4]).drop_whole_tiles([4, 8])
    assert chunked == Schedule(threads=[2, 0], register=[0, 4])


def test_a_multiply_becomes_a_contraction_only_with_several_results():
    mm = matmul(16, 32, 64)
    assert contracts_in_vectors(mm, choose(mm, True, 512, 1))
    total = Loops([4, 5], [False, False], [[0, 1], []], 1, 64)
    assert not contracts_in_vectors(total, Schedule(register=[1, 5]))


def test_a_multiply_with_an_operand_broadcast_along_the_reduction_stays_a_reduction():
    # out[i] = sum_k x[i, k] * y[i]: y does not read the reduced loop.
    loops = Loops([8, 16], [True, False], [[0, 1], [0], [0]], 2, 32)
    assert not contracts_in_vectors(loops, Schedule(register=[8, 16]))


def test_a_large_matmul_packs_its_streamed_operand_in_register_tile_panels():
    assert pack_plan(matmul(256, 512, 1024), 512) == PackPlan(streamed=1, other=0, m=0, k=1, width=32)


@pytest.mark.parametrize("loops", [
    matmul(128, 512, 1024),  # too few rows to pay for the copy
    matmul(256, 64, 1024),  # the streamed operand fits in an L2 block
    matmul(256, 512, 32),  # one register tile wide
], ids=["few_rows", "small_operand", "one_panel"])
def test_other_matmuls_are_not_packed(loops):
    assert pack_plan(loops, 512) is None


def test_partial_results_take_rows_of_the_innermost_loop_longer_than_one():
    # sum(y, axis=-1, keepdims=True) fused into its reader: loops (8, 128, 1, 256).
    loops = Loops([8, 128, 1, 256], [True, True, True, False], [[0, 1, 2, 3], [0, 1, 2]], 1, 32)
    assert choose(loops, False, 512, 1) == Schedule(register=[1, 4, 0, 0], partial=[0, 0, 0, 32])


def test_a_register_tile_of_no_vector_shape_is_masked_at_the_next_power_of_two():
    # 10 float32 columns on 8 lanes: 16 masked lanes; 16 columns are whole vectors, 4 one xmm register.
    for columns, masked in ((10, [4, 1, 16]), (16, None), (4, None), (5, [4, 1, 8])):
        loops = matmul(128, 512, columns)
        assert masked_vector_sizes(loops, choose(loops, True, 256, 1), 256) == masked
    # Float64 on AVX2 (4 lanes): 6 columns take 8 masked lanes.
    loops = Loops([64, 32, 6], [True, False, True], [[0, 1], [1, 2], [0, 2]], 2, 64)
    assert masked_vector_sizes(loops, choose(loops, True, 256, 1), 256) == [4, 1, 8]
    # Not a register-tiled contraction: nothing is masked.
    assert masked_vector_sizes(elementwise(128, 10), choose(elementwise(128, 10), False, 256, 1), 256) is None
