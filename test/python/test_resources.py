"""Resources: allocation failure, integer division by zero, byte order, the compile cache's bound, static_argnums."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp


def run_child(code: str) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh Python: a crash fails the test instead of killing pytest."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=300)


def test_allocation_larger_than_the_machine_is_a_memory_error():
    done = run_child("""
        import numpy as np, tensorad as ta, tensorad.numpy as tnp
        f = ta.jit(lambda x: tnp.broadcast_to(x, (2**20, 2**20)) * 2.0)  # 8 TiB
        try:
            f(np.ones(()))
        except MemoryError as err:
            print("MemoryError:", err)
        print(f(np.ones(()))[0, 0] if False else "still alive", ta.live_bytes())
    """)
    assert done.returncode == 0, done.stderr
    assert "MemoryError: the compiled function allocates a buffer of 8796093022" in done.stdout
    assert "still alive 0" in done.stdout


def test_allocation_failing_during_a_call_is_a_memory_error_and_frees_everything():
    # The hook's allocation fails for the big buffer: the compiled code runs
    # on a lazily committed stand-in (never NULL), then the call raises.
    done = run_child("""
        import numpy as np, tensorad as ta, tensorad.numpy as tnp
        from tensorad import runtime
        f = ta.jit(lambda x: (tnp.exp(tnp.broadcast_to(x, (512, 1024))) * 2.0).sum(axis=0) + x)
        want = f(np.ones(()))
        real = runtime.Allocator.new_buffer

        def failing(size):
            if size >= 512 * 1024 * 8:
                raise MemoryError(f"no memory for {size} bytes")
            return real(size)

        runtime.ALLOCATOR.new_buffer = failing
        runtime.ALLOCATOR.pool.clear()  # else the buffer the first call freed is taken again
        runtime.ALLOCATOR.pooled_bytes = 0
        try:
            f(np.ones(()))
        except MemoryError as err:
            print("MemoryError:", err)
        del runtime.ALLOCATOR.new_buffer
        print("live", ta.live_bytes(), "again", np.array_equal(f(np.ones(())), want))
    """)
    assert done.returncode == 0, done.stderr
    assert "MemoryError: compiled code could not allocate a buffer (MemoryError('no memory for" in done.stdout
    assert "live 0 again True" in done.stdout


INTEGER_DIVISION = """
    import warnings
    import numpy as np, tensorad as ta, tensorad.numpy as tnp
    warnings.simplefilter("ignore")  # numpy warns on x // 0; compiled code cannot
    for dtype in (np.int32, np.int64):
        low, high = np.iinfo(dtype).min, np.iinfo(dtype).max
        x = np.array([7, -7, 7, -7, 0, low, low, 5, high, low, -1, 3], dtype)
        y = np.array([2, 2, -2, -2, 0, -1, 0, 0, -1, 1, low, high], dtype)
        for name in ("floor_divide", "remainder", "mod", "fmod"):
            got = ta.jit(getattr(tnp, name))(x, y)
            assert got.dtype == dtype and np.array_equal(got, getattr(np, name)(x, y)), (name, dtype, got)
        q, r = ta.jit(lambda a, b: divmod(a, b))(x, y)
        assert np.array_equal(q, x // y) and np.array_equal(r, x % y), (q, r)
        q, r = ta.jit(lambda a, b: (a // b, a % b))(x, y)
        assert np.array_equal(q, x // y) and np.array_equal(r, x % y), (q, r)
        assert np.array_equal(ta.jit(lambda a: a // 0)(x), x // 0)
        assert np.array_equal(ta.jit(lambda a: a % -1)(x), x % -1)
        # 1 / 0 is 0 (numpy's depends on the platform), never a trap; everything else as numpy.
        got = ta.jit(tnp.reciprocal)(x)
        assert got.dtype == dtype and np.array_equal(got, np.where(x == 0, 0, np.reciprocal(x))), got
    print("ok")
"""


def test_integer_division_by_zero_and_overflow_follow_numpy():
    done = run_child(INTEGER_DIVISION)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_float_to_integer_conversion_of_nan_and_out_of_range_values_follows_numpy():
    # LLVM's fptosi makes poison of them (any value, which may change with the optimizer); numpy on x86
    # gives the integer's least value.
    x = np.array([np.nan, 1e20, -1e20, 3e9, -3e9, np.inf, -np.inf, 2.7, -2.7, -2147483648.0, 2147483647.5])
    with np.errstate(all="ignore"):
        for source in (np.float64, np.float32, np.float16):
            for target in (np.int32, np.int64):
                values = x.astype(source)
                np.testing.assert_array_equal(ta.jit(lambda a: tnp.astype(a, target))(values), values.astype(target))


def test_float_fmod_follows_numpy():
    x, y = np.array([5.5, -5.5, 5.5, 1.0]), np.array([2.0, 2.0, -2.0, 0.0])
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal(ta.jit(tnp.fmod)(x, y), np.fmod(x, y))


def test_big_endian_and_unaligned_inputs_are_read_as_numpy_does():
    f = ta.jit(lambda x: x * 2.0 + 1.0)
    little = np.arange(4.0)
    np.testing.assert_array_equal(f(little), little * 2.0 + 1.0)  # compiled for native float64 first
    big = little.astype(">f8")
    np.testing.assert_array_equal(f(big), little * 2.0 + 1.0)
    assert f.cache_size == 1
    raw = np.zeros(4 * 8 + 1, np.uint8)
    unaligned = raw[1:].view(np.float64)
    unaligned[:] = little
    assert not unaligned.flags.aligned
    np.testing.assert_array_equal(f(unaligned), little * 2.0 + 1.0)
    ints = ta.jit(lambda n: n + 1)
    np.testing.assert_array_equal(ints(np.arange(3, dtype=">i4")), [1, 2, 3])


def test_compile_cache_keeps_the_most_recently_used_signatures():
    traced = []

    def double(x):
        traced.append(x.shape)
        return x * 2.0

    f = ta.jit(double, cache_limit=2)
    for n in (1, 2, 1, 3):  # 2 is the least recently used when 3 comes
        f(np.ones(n))
    assert f.cache_size == 2 and traced == [(1,), (2,), (3,)]
    f(np.ones(1))
    assert len(traced) == 3  # still cached
    f(np.ones(2))
    assert traced[-1] == (2,)  # compiled again
    f.clear_cache()
    assert f.cache_size == 0
    np.testing.assert_array_equal(f(np.ones(2)), [2.0, 2.0])
    ta.clear_caches()
    assert f.cache_size == 0


def test_cache_limit_setting_is_checked(monkeypatch):
    monkeypatch.setenv("TENSORAD_JIT_CACHE_LIMIT", "3")
    assert ta.jit(lambda x: x).cache_limit == 3
    monkeypatch.setenv("TENSORAD_JIT_CACHE_LIMIT", "zero")
    with pytest.raises(ValueError, match="TENSORAD_JIT_CACHE_LIMIT must be a positive integer"):
        ta.jit(lambda x: x)
    with pytest.raises(ValueError, match="cache_limit must be a positive integer"):
        ta.jit(lambda x: x, cache_limit=0)


def test_memory_stays_bounded_over_many_shapes():
    def resident_bytes():
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * 4096

    f = ta.jit(lambda x: tnp.tanh(x * 2.0).sum(axis=0) + tnp.exp(x).mean(), cache_limit=2)
    for n in range(1, 11):
        f(np.ones((n, 3)))
    before = resident_bytes()
    for n in range(11, 41):
        f(np.ones((n, 3)))
    # Each compiled signature holds ~1.6 MB: 30 kept would be ~50 MB.
    assert resident_bytes() - before < 15 * 2**20
    assert f.cache_size == 2


def test_static_argnums_out_of_range_is_a_clear_error():
    def scale(x):
        return x * 2.0

    with pytest.raises(ValueError, match=r"jitted function scale has static_argnums=\(3,\), but was called "
                                         r"with 1 positional argument\b"):
        ta.jit(scale, static_argnums=3)(np.ones(2))


def test_negative_static_argnums_count_from_the_end():
    f = ta.jit(lambda x, k, y: x * k + y, static_argnums=-2)
    np.testing.assert_array_equal(f(np.ones(2), 3.0, np.ones(2)), [4.0, 4.0])
    with pytest.raises(ValueError, match="static_argnums=\\(-2,\\), but was called with 1 positional"):
        f(np.ones(2))


@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod"])
def test_division_of_bools_is_a_clear_error(name):
    with pytest.raises(TypeError, match=f"{name} of bool arrays is not supported"):
        ta.jit(getattr(tnp, name))(np.array([True, False]), np.array([True, True]))


def test_a_first_call_reuses_the_buffers_it_frees():
    # Eight layers of one shape: each frees the activation before it. In a fresh process, with the pool empty,
    # the first call takes the freed buffers back instead of faulting in a new one per layer.
    done = run_child("""
        import numpy as np, tensorad as ta, tensorad.numpy as tnp
        from tensorad import runtime

        def layers(x, w):
            for _ in range(8):
                x = tnp.tanh(x @ w)
            return x

        rng = np.random.default_rng(0)
        x, w = rng.standard_normal((256, 256)), rng.standard_normal((256, 256)) / 16
        compiled = ta.jit(layers).lower(x, w).compile()
        fresh = []
        real = runtime.Allocator.new_buffer
        runtime.ALLOCATOR.new_buffer = lambda size: fresh.append(size) or real(size)
        got = compiled([x, w])
        want = x
        for _ in range(8):
            want = np.tanh(want @ w)
        print("allocations", ta.last_call_stats().allocations, "fresh", len(fresh), np.allclose(got, want))
    """)
    assert done.returncode == 0, done.stderr
    allocations, fresh, equal = done.stdout.split()[1], done.stdout.split()[3], done.stdout.split()[4]
    assert equal == "True" and int(allocations) >= 8 and int(fresh) <= 3, done.stdout
