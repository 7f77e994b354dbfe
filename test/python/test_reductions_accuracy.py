"""Float sums accumulate in blocked stages: float32 sums of 10**7 terms match float64 to 1e-6.

One accumulator added ten million times drifts: 0.1 summed 10**7 times in
float32 came out 8.8% off, a dot product of two 10**7 vectors 1.2%. numpy
sums pairwise; tensorad's lowering (tad-lower-to-linalg, shared by the CPU
and GPU pipelines) adds at most a few dozen terms into any one accumulator.
"""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp

_N = 10 ** 7
_RTOL = 1e-6


def _relative_error(got, exact) -> float:
    return float(np.max(np.abs(np.asarray(got, np.float64) - exact) / np.abs(exact)))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return {"tenths": np.full(_N, 0.1, np.float32), "uniform": rng.random(_N, dtype=np.float32),
            "other": rng.random(_N, dtype=np.float32)}


@pytest.mark.parametrize("name", ["tenths", "uniform"])
def test_sum_and_mean_of_ten_million_float32(data, name):
    x = data[name]
    exact = x.astype(np.float64).sum()
    assert _relative_error(ta.jit(lambda v: v.sum())(x), exact) < _RTOL
    assert _relative_error(ta.jit(tnp.mean)(x), exact / _N) < _RTOL


def test_dot_of_ten_million_float32(data):
    x, y = data["uniform"], data["other"]
    exact = x.astype(np.float64) @ y.astype(np.float64)
    assert _relative_error(ta.jit(tnp.dot)(x, y), exact) < _RTOL
    assert _relative_error(ta.jit(lambda a, b: tnp.sum(a * b))(x, y), exact) < _RTOL


@pytest.mark.parametrize("n", [999_983, 3 * 333_331, 2 ** 20 + 7])
def test_lengths_without_a_block_dividing_them(n):
    # Prime and odd lengths sum a head that splits into blocks and a short tail.
    x = np.full(n, 0.1, np.float32)
    exact = x.astype(np.float64).sum()
    assert _relative_error(ta.jit(lambda v: v.sum())(x), exact) < _RTOL


@pytest.mark.parametrize("axis", [0, 1, (0, 2), None])
def test_long_axes_of_a_3d_array(axis):
    x = np.random.default_rng(1).random((4000, 3, 500), dtype=np.float32)
    exact = x.astype(np.float64).sum(axis=axis)
    got = ta.jit(lambda v: tnp.sum(v, axis=axis))(x)
    assert got.shape == exact.shape
    assert _relative_error(got, exact) < _RTOL


def test_float64_sums_and_short_sums_unchanged():
    x = np.random.default_rng(2).random((7, 300))
    np.testing.assert_allclose(ta.jit(lambda v: v.sum(1))(x), x.sum(1), rtol=1e-14)
    np.testing.assert_allclose(ta.jit(lambda v: tnp.sum(v, axis=0, keepdims=True))(x), x.sum(0, keepdims=True),
                               rtol=1e-14)
    ints = np.arange(100_000, dtype=np.int32)
    assert ta.jit(lambda v: v.sum())(ints) == ints.sum()
