"""jax.numpy's linalg extras, vector products, shaping aliases, polynomials, set operations, index functions,
sampled calculus and function application, in tensorad.numpy.

Values are checked against ``jax.numpy`` itself (float64, in the worker
process of ``conftest.jax_reference``), all of them traced into one jitted
function; numpy is the reference where it and JAX agree and JAX lacks the
case. Derivatives of the differentiable functions are checked in both
modes, several per :func:`tensorad.test_util.check_grads` call; a few run
under ``vmap`` and eagerly; data-dependent shapes without ``size=`` raise a
TracingError at the user's line.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad.errors import TracingError
from tensorad.test_util import check_grads

rng = np.random.default_rng(3)
SQUARE = rng.normal(size=(3, 3)) + 3.0 * np.eye(3)
BATCH = rng.normal(size=(2, 3, 4))
VECTORS = rng.normal(size=(2, 3))
TENSOR = rng.normal(size=(2, 3, 6)) + np.eye(6).reshape(2, 3, 6) * 4.0
RHS = rng.normal(size=(2, 3))
POLY = np.array([2.0, -1.0, 0.5, 3.0])
DIVISOR = np.array([1.5, -0.5])
XS = np.array([0.0, 0.4, 1.1, 1.7, 2.5, 3.0])
YS = np.array([1.0, 0.2, -0.3, 0.8, 2.0, 2.5])
SIGNAL = np.array([1.0, -2.0, 0.5, 3.0, 0.25])
KERNEL = np.array([0.5, 1.0, -1.0])
INTS_A = np.array([5, 1, 3, 1, 7, 3])
INTS_B = np.array([[3, 8], [1, 9]])
GRID = np.array([[0, 2, 0], [3, 0, 4]])
PHASES = np.array([0.0, 3.0, 6.5, 12.0, -3.0])


def cases(np_):
    """name -> value of each function, computed by the numpy-like module ``np_`` (jax.numpy or tensorad.numpy)."""
    la = np_.linalg
    return {
        "vector_norm": la.vector_norm(BATCH, axis=(0, 2), keepdims=True),
        "vector_norm_ord": la.vector_norm(BATCH, ord=3),
        "matrix_norm": la.matrix_norm(BATCH, ord="nuc"),
        "matrix_norm_inf": la.matrix_norm(BATCH, ord=np.inf, keepdims=True),
        "svdvals": la.svdvals(BATCH),
        "cond": la.cond(SQUARE),
        "cond_1": la.cond(SQUARE, 1),
        "matrix_rank": la.matrix_rank(np.array([[1.0, 2.0], [2.0, 4.0]])),
        "multi_dot": la.multi_dot([VECTORS[0], np.ones((3, 5)), np.ones((5, 2)), VECTORS[:, :2].T]),
        "tensorinv": la.tensorinv(TENSOR.reshape(6, 2, 3), ind=1),
        "tensorsolve": la.tensorsolve(TENSOR, RHS),
        "linalg_matmul": la.matmul(BATCH, BATCH[0].T),
        "linalg_outer": la.outer(VECTORS[0], VECTORS[1]),
        "linalg_tensordot": la.tensordot(BATCH, BATCH, axes=((0, 2), (0, 2))),
        "linalg_trace": la.trace(BATCH, offset=1),
        "linalg_diagonal": la.diagonal(BATCH, offset=-1),
        "linalg_cross": la.cross(VECTORS, VECTORS[::-1]),
        "linalg_vecdot": la.vecdot(BATCH, BATCH[0], axis=-1),
        "vdot": np_.vdot(BATCH, BATCH),
        "vecdot": np_.vecdot(VECTORS, VECTORS[0]),
        "matvec": np_.matvec(BATCH, BATCH[0, 0]),
        "vecmat": np_.vecmat(BATCH[:, 0, :3], BATCH),
        "concat": np_.concat([BATCH[0], VECTORS], axis=None),
        "permute_dims": np_.permute_dims(BATCH, (2, 0, 1)),
        "matrix_transpose": np_.matrix_transpose(BATCH),
        "unstack": np_.unstack(BATCH, axis=1),
        "hsplit": np_.hsplit(BATCH, [1]),
        "vsplit": np_.vsplit(BATCH, 2),
        "dsplit": np_.dsplit(BATCH, 2),
        "rollaxis": np_.rollaxis(BATCH, 2, 1),
        "resize": np_.resize(VECTORS, (4, 4)),
        "poly": np_.poly(np.array([1.0, -2.0, 0.5, 3.0, 2.0])),
        "polyadd": np_.polyadd(POLY, DIVISOR),
        "polysub": np_.polysub(DIVISOR, POLY),
        "polymul": np_.polymul(POLY, DIVISOR),
        "polydiv": np_.polydiv(POLY, DIVISOR),
        "polyder": np_.polyder(POLY, 2),
        "polyint": np_.polyint(POLY, 2, k=np.array([1.0, 2.0])),
        "polyval": np_.polyval(POLY, XS),
        "polyfit": np_.polyfit(XS, YS, 2),
        "polyfit_weighted": np_.polyfit(XS, np.stack([YS, XS], 1), 1, w=XS + 1.0),
        "convolve": np_.convolve(SIGNAL, KERNEL),
        "convolve_same": np_.convolve(KERNEL, SIGNAL, "same"),
        "convolve_valid": np_.convolve(SIGNAL, KERNEL[:2], "valid"),
        "correlate": np_.correlate(SIGNAL, KERNEL),
        "correlate_full": np_.correlate(KERNEL, SIGNAL, "full"),
        "correlate_same": np_.correlate(SIGNAL, KERNEL[:2], "same"),
        "isin": np_.isin(INTS_B, INTS_A),
        "isin_invert": np_.isin(INTS_A, INTS_B, invert=True),
        "intersect1d": np_.intersect1d(INTS_A, INTS_B, size=4, fill_value=-1),
        "intersect1d_indices": np_.intersect1d(INTS_A, INTS_B, return_indices=True, size=3),
        "union1d": np_.union1d(INTS_A, INTS_B, size=8, fill_value=0),
        "setdiff1d": np_.setdiff1d(INTS_A, INTS_B, size=4),
        "setxor1d": np_.setxor1d(INTS_A, INTS_B, size=6, fill_value=-1),
        "unique_values": np_.unique_values(INTS_A, size=4),
        "unique_counts": tuple(np_.unique_counts(INTS_A, size=5, fill_value=0)),
        "unique_inverse": tuple(np_.unique_inverse(INTS_B, size=4)),
        "unique_all": tuple(np_.unique_all(INTS_A, size=4)),
        "nonzero": np_.nonzero(GRID, size=5, fill_value=-1),
        "argwhere": np_.argwhere(GRID, size=4),
        "flatnonzero": np_.flatnonzero(GRID, size=2),
        "bincount": np_.bincount(INTS_A, length=9),
        "bincount_weights": np_.bincount(INTS_A, weights=SIGNAL[[0, 1, 2, 3, 4, 0]], length=6),
        "digitize": np_.digitize(XS, np.array([0.4, 1.0, 2.5])),
        "digitize_right_decreasing": np_.digitize(XS, np.array([2.5, 1.0, 0.4]), right=True),
        "unravel_index": np_.unravel_index(np.array([0, 5, 11, -1, 30]), (3, 4)),
        "ravel_multi_index": np_.ravel_multi_index((np.array([0, 2, 5]), np.array([1, -1, 3])), (3, 4), mode="clip"),
        "ravel_multi_index_wrap": np_.ravel_multi_index((np.array([0, 2, 5]), np.array([1, -1, 3])), (3, 4),
                                                        mode="wrap", order="F"),
        "ix_": np_.ix_(np.array([0, 1]), np.array([2, 0, 1])),
        "choose": np_.choose(np.array([[0, 1, 2], [2, 1, 0]]), [INTS_A[:3], 10 * INTS_A[3:], -INTS_A[:3]],
                             mode="wrap"),
        "compress": np_.compress(np.array([True, False, True]), BATCH, axis=2, size=3, fill_value=9.0),
        "extract": np_.extract(GRID > 1, GRID * 10, size=3),
        "place": np_.place(np.zeros((2, 3)), GRID, np.array([7.0, 8.0]), inplace=False),
        "put": np_.put(np.zeros((2, 3)), np.array([0, 4, 9]), np.array([5.0, 6.0]), inplace=False),
        "put_wrap": np_.put(np.zeros((2, 3)), np.array([0, 4, 9]), np.array([5.0, 6.0]), mode="wrap", inplace=False),
        "insert": np_.insert(VECTORS, np.array([1, 1, 3]), np.array([7.0, 8.0, 9.0]), axis=1),
        "insert_block": np_.insert(VECTORS, 1, np.array([7.0, 8.0]), axis=1),
        "insert_flat": np_.insert(VECTORS, slice(0, 4, 2), -1.0),
        "delete": np_.delete(BATCH, np.array([0, 2]), axis=2),
        "delete_flat": np_.delete(VECTORS, slice(1, None, 2)),
        "partition": np_.partition(BATCH, 2, axis=2),
        "partition_values": np_.take_along_axis(BATCH, np_.argpartition(BATCH, 1, axis=1), axis=1),
        "interp": np_.interp(XS * 1.3 - 0.5, XS, YS),
        "interp_bounds": np_.interp(XS * 1.3 - 0.5, XS, YS, left=-9.0, right=9.0),
        "interp_period": np_.interp(XS * 3.0, XS[:5], YS[:5], period=2.0),
        "gradient": np_.gradient(BATCH),
        "gradient_coordinates": np_.gradient(BATCH, XS[:3], 0.5, axis=(1, 2)),
        "trapezoid": np_.trapezoid(BATCH, axis=1),
        "trapezoid_x": np_.trapezoid(YS, XS),
        "ediff1d": np_.ediff1d(VECTORS, to_begin=np.array([1.0, 2.0]), to_end=3.0),
        "unwrap": np_.unwrap(PHASES),
        "unwrap_period": np_.unwrap(PHASES, period=5.0),
        "apply_along_axis": np_.apply_along_axis(lambda v: v[::2] * v.sum(), 1, BATCH),
        "apply_over_axes": np_.apply_over_axes(np_.sum, BATCH, [0, 2]),
        "vectorize": np_.vectorize(lambda a, b: a * b + 1.0)(VECTORS, VECTORS[0]),
        "vectorize_signature": np_.vectorize(lambda m, v: m @ v, signature="(m,n),(n)->(m)")(BATCH, BATCH[0, 0]),
        "piecewise": np_.piecewise(XS, [XS < 1.0, XS > 2.0], [lambda v: -v, lambda v: v * v, 0.5]),
    }


def jax_cases(jax):
    # One compilation: op by op, JAX would compile each of the hundreds of ops on its own.
    return jax.jit(lambda: cases(jax.numpy))()


# numpy's, where JAX has no function of the name or differs in what its results leave open.
NUMPY_CASES = {
    "trim_zeros": (lambda: tnp.trim_zeros(np.array([0, 0, 3, 0, 2, 0])),
                   lambda: np.trim_zeros(np.array([0, 0, 3, 0, 2, 0]))),
    "trim_zeros_front": (lambda: tnp.trim_zeros(np.array([0, 3, 0]), "f"), lambda: np.trim_zeros(np.array([0, 3, 0]), "f")),
}


@pytest.fixture(scope="module")
def jax_results(jax_reference):
    return jax_reference(jax_cases)


def test_values_match_jax_under_jit(jax_results):
    mine = ta.jit(lambda: cases(tnp))()
    assert set(mine) == set(jax_results)
    for name, theirs in jax_results.items():
        got, expected = ta.tree_util.tree_leaves(mine[name]), ta.tree_util.tree_leaves(theirs)
        assert len(got) == len(expected), name
        for g, e in zip(got, expected):
            assert np.shape(g) == np.shape(e), name
            np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-9, err_msg=name)


def test_numpy_only_cases_and_signatures():
    for name, (fn, reference) in NUMPY_CASES.items():
        np.testing.assert_array_equal(fn(), reference(), err_msg=name)
    assert list(inspect.signature(tnp.intersect1d).parameters) == [
        "ar1", "ar2", "assume_unique", "return_indices", "size", "fill_value"]


def test_eager_concrete_inputs_need_no_size():
    np.testing.assert_array_equal(tnp.nonzero(GRID)[1], np.nonzero(GRID)[1])
    np.testing.assert_array_equal(tnp.setdiff1d(INTS_A, INTS_B), np.setdiff1d(INTS_A, INTS_B))
    np.testing.assert_array_equal(tnp.bincount(INTS_A, minlength=10), np.bincount(INTS_A, minlength=10))
    np.testing.assert_array_equal(tnp.ravel_multi_index((np.array([0, 2]), np.array([3, 1])), (3, 4)),
                                  np.ravel_multi_index((np.array([0, 2]), np.array([3, 1])), (3, 4)))
    with pytest.raises(ValueError):  # numpy's mode="raise", on concrete indices
        tnp.ravel_multi_index((np.array([3]), np.array([0])), (3, 4))


@pytest.mark.parametrize("call, argument", [
    (lambda x: tnp.nonzero(x), "size="),
    (lambda x: tnp.unique_counts(x), "size="),
    (lambda x: tnp.intersect1d(x, x), "size="),
    (lambda x: tnp.extract(x > 0, x), "size="),
    (lambda x: tnp.bincount(x), "length="),
    (lambda x: tnp.choose(x, [x, x]), "mode='clip'"),
])
def test_data_dependent_shapes_need_static_arguments(call, argument):
    with pytest.raises(TracingError) as err:
        ta.jit(call)(INTS_A)
    assert argument in str(err.value)
    assert str(err.value).startswith(f"{__file__}:")


def test_derivatives_of_the_linalg_extras():
    def f(square, tensor, rhs, batch):
        return (tnp.linalg.cond(square), tnp.linalg.cond(square, "fro"), tnp.linalg.tensorsolve(tensor, rhs),
                tnp.linalg.vector_norm(batch, ord=3, axis=(0, 1)), tnp.linalg.matrix_norm(batch, ord=2),
                tnp.linalg.svdvals(batch), tnp.linalg.multi_dot([batch[0].T, square, batch[1, :, :3]]),
                tnp.linalg.tensorinv(tensor.reshape(6, 2, 3), ind=1), tnp.vecmat(rhs[0], square))
    check_grads(f, (SQUARE, TENSOR, RHS, BATCH), modes=("fwd", "rev"), rtol=1e-5, atol=1e-6)


def test_derivatives_of_polynomials_and_calculus():
    def f(coefficients, xs, ys, signal, kernel, batch):
        return (tnp.polyval(coefficients, xs), tnp.polyfit(xs, ys, 2), tnp.polydiv(coefficients, kernel[:2]),
                tnp.poly(kernel), tnp.convolve(signal, kernel, "same"), tnp.correlate(kernel, signal, "full"),
                tnp.interp(xs * 1.3 - 0.5, xs, ys), tnp.trapezoid(ys, xs), tnp.gradient(batch, xs[:3], 0.5, axis=(1, 2)),
                tnp.unwrap(signal * 2.0), tnp.partition(signal, 2), tnp.piecewise(xs, [xs < 1.0], [tnp.sin, tnp.cos]),
                tnp.insert(signal, np.array([1, 3]), kernel[:2]))
    check_grads(f, (POLY, XS, YS, SIGNAL, KERNEL, BATCH), modes=("fwd", "rev"), rtol=1e-5, atol=1e-6)


def test_under_vmap():
    batched = ta.vmap(lambda x, y: (tnp.convolve(x, y), tnp.polyval(y, x), tnp.interp(x, XS[:5], y),
                                    tnp.isin(x, y), tnp.linalg.vector_norm(x)))
    signals = rng.normal(size=(3, 5))
    got = batched(signals, signals[:, ::-1])
    for i in range(3):
        expected = (np.convolve(signals[i], signals[i, ::-1]), np.polyval(signals[i, ::-1], signals[i]),
                    np.interp(signals[i], XS[:5], signals[i, ::-1]), np.isin(signals[i], signals[i, ::-1]),
                    np.linalg.norm(signals[i]))
        for g, e in zip(got, expected):
            np.testing.assert_allclose(g[i], e, rtol=1e-12, atol=1e-12)
