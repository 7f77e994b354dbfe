"""lax primitives with new ops: scans, sorting, indexing (dynamic slices, gather/scatter, ``.at``), windows.

Checked four ways, on small shapes (the whole module runs in about a minute):

* forward values against JAX (``jax.lax`` and ``jax.numpy``, in the float64
  worker of ``conftest.jax_reference``) and against numpy where numpy has the
  function (sort, quantiles, unique, histogram, searchsorted, cumsum, ...);
* derivatives with :func:`tensorad.test_util.check_grads` in float64: forward
  mode against central finite differences, reverse mode by the dot-product
  test;
* ``vmap`` against a loop of the jitted function over the rows;
* eager calls (concrete arrays, ``Array.at``) and clear errors for what is
  not supported.
"""

from __future__ import annotations

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax
from tensorad.test_util import check_grads

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 5))
X_TIES = np.array([[2.0, 1.0, 2.0, 0.5, 1.0], [3.0, 3.0, -1.0, 0.0, 3.0], [0.0, 1.0, 2.0, 3.0, 4.0]])
IMAGE = RNG.standard_normal((2, 3, 6, 5))
KERNEL = RNG.standard_normal((4, 3, 3, 2))


# ----------------------------------------------------------------------------
# Forward values against JAX (one worker call computes them all)
# ----------------------------------------------------------------------------

def _gather_dnums(lax_module):
    return (lax_module.GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)),
            lax_module.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(0, 1), start_index_map=(0, 1)),
            lax_module.GatherDimensionNumbers(offset_dims=(), collapsed_slice_dims=(1,), start_index_map=(1,),
                                              operand_batching_dims=(0,), start_indices_batching_dims=(0,)))


def _scatter_dnums(lax_module):
    return (lax_module.ScatterDimensionNumbers(update_window_dims=(1,), inserted_window_dims=(0,),
                                               scatter_dims_to_operand_dims=(0,)),
            lax_module.ScatterDimensionNumbers(update_window_dims=(), inserted_window_dims=(0, 1),
                                               scatter_dims_to_operand_dims=(0, 1)))


ROW_INDICES = np.array([[2], [0], [7], [2]])
POINT_INDICES = np.array([[1, 4], [2, 0], [1, 4], [-1, 1]])
BATCH_INDICES = np.array([[3], [0], [4]])


def everything(lax_module, jnp, x, ties, image, kernel):
    """The same computations in JAX and in tensorad: ``(lax, jnp)`` is ``(jax.lax, jax.numpy)`` or ours."""
    L = lax_module
    row_dn, point_dn, batch_dn = _gather_dnums(L)
    row_sdn, point_sdn = _scatter_dnums(L)
    out = {
        "cumsum": L.cumsum(x, axis=1), "cumsum_rev": L.cumsum(x, axis=0, reverse=True),
        "cumprod": L.cumprod(x, axis=1), "cummax": L.cummax(ties, axis=1),
        "cummin_rev": L.cummin(ties, axis=1, reverse=True), "cumlogsumexp": L.cumlogsumexp(x, axis=0),
        "assoc": L.associative_scan(jnp.add, x, axis=1),
        "assoc_pairs": L.associative_scan(lambda a, b: (a[0] * b[0], a[1] * b[0] + b[1]), (x, ties), axis=1),
        "sort": L.sort(ties), "sort_dim0": L.sort(ties, dimension=0),
        "sort_keys": L.sort((ties[0], ties[1], x[0]), num_keys=2),
        "top_k": L.top_k(ties, 3),
        "dynamic_slice": L.dynamic_slice(x, (np.int64(2), np.int64(-2)), (2, 3)),
        "dynamic_update_slice": L.dynamic_update_slice(x, ties[:2, :2], (np.int64(5), np.int64(1))),
        "dynamic_index": L.dynamic_index_in_dim(x, np.int64(-1), 1, keepdims=False),
        "dynamic_update_index": L.dynamic_update_index_in_dim(x, ties[0], np.int64(1), 0),
        "gather_rows": L.gather(x, ROW_INDICES, row_dn, (1, 5)),
        "gather_rows_fill": L.gather(x, ROW_INDICES, row_dn, (1, 5), mode="fill"),
        "gather_points": L.gather(x, POINT_INDICES, point_dn, (1, 1)),
        "gather_batch": L.gather(x, BATCH_INDICES, batch_dn, (1, 1)),
        "scatter_rows": L.scatter(x, ROW_INDICES, ties[[0, 1, 2, 0]], row_sdn),
        "scatter_add_rows": L.scatter_add(x, ROW_INDICES, ties[[0, 1, 2, 0]], row_sdn),
        "scatter_mul_points": L.scatter_mul(x, POINT_INDICES, ties[0, :4], point_sdn),
        "scatter_min_points": L.scatter_min(x, POINT_INDICES, ties[1, :4], point_sdn),
        "scatter_max_clip": L.scatter_max(x, POINT_INDICES, ties[1, :4], point_sdn, mode="clip"),
        "select_n": L.select_n(np.array([[0, 1, 2, 1, 0]] * 3, np.int32), x, ties, -x),
        "clamp": L.clamp(-0.5, x, 0.5),
        "reduce_window_max": L.reduce_window(x, -np.inf, L.max, (2, 2), (1, 2), "SAME"),
        "reduce_window_sum": L.reduce_window(x, 0.0, L.add, (3, 3), (1, 1), ((1, 1), (0, 2)), window_dilation=(1, 2)),
        "reduce_window_long": L.reduce_window(x, np.inf, L.min, (1, 5), (1, 2), ((0, 0), (2, 2))),
        "reduce_window_base": L.reduce_window(x, 1.5, L.add, (2, 1), (1, 1), "VALID", base_dilation=(2, 1)),
        "conv": L.conv_general_dilated(image, kernel, (2, 1), ((1, 1), (0, 2)), rhs_dilation=(1, 2)),
        "conv_nhwc": L.conv_general_dilated(image.transpose(0, 2, 3, 1), kernel.transpose(2, 3, 1, 0), (1, 1),
                                            "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")),
        "conv_1d_groups": L.conv_general_dilated(image[:, :2, 0], kernel[:4, :1, 0], (2,), ((2, -1),),
                                                 feature_group_count=2),
        "conv_3d": L.conv_general_dilated(image[:, :, None].repeat(3, 2), kernel[:, :, None].repeat(2, 2),
                                          (2, 1, 1), ((1, 0), (1, 1), (0, 0)), rhs_dilation=(1, 2, 1)),
        "conv_transposed": L.conv_general_dilated(image, kernel, (1, 1), ((2, 2), (1, 1)), lhs_dilation=(2, 1)),
        "jnp_sort": jnp.sort(ties, axis=0), "jnp_argsort": jnp.argsort(ties, axis=1),
        "jnp_argsort_desc": jnp.argsort(ties, axis=1, descending=True),
        "jnp_cumsum": jnp.cumsum(ties.astype(np.int32)), "jnp_cumprod": jnp.cumprod(x, axis=0),
        "jnp_median": jnp.median(x, axis=1), "jnp_quantile": jnp.quantile(x, np.array([0.1, 0.5, 0.95]), axis=0),
        "jnp_unique": jnp.unique(ties, size=8, fill_value=-9.0, return_index=True, return_inverse=True,
                                 return_counts=True),
        "jnp_unique_min": jnp.unique(ties[0], size=5),
        "jnp_searchsorted": jnp.searchsorted(jnp.sort(ties[1]), x, side="right"),
        "jnp_histogram": jnp.histogram(x, bins=4),
    }
    return out


def jax_everything(jax, *arrays):
    out = everything(jax.lax, jax.numpy, *arrays)
    x, ties = (jax.numpy.asarray(a) for a in arrays[:2])
    out["at_set"] = x.at[np.array([0, 2, 0])].set(ties)
    out["at_ops"] = (x.at[np.array([[1, 0], [1, 1]]), 2].add(ties[0, :2]), x.at[1:, ::2].multiply(2.0),
                     x.at[..., np.array([0, 0, 4])].min(ties[:, :3]), x.at[np.array([-1, 9])].max(ties[:2]),
                     x.at[2, np.array([1, 3])].get(), x.at[np.array([0, 5])].get(mode="fill", fill_value=-1.0),
                     x.at[0].divide(2.0), x.at[:, -1].power(2.0))
    return out


def ours_at(x, ties):
    return {"at_set": x.at[np.array([0, 2, 0])].set(ties),
            "at_ops": (x.at[np.array([[1, 0], [1, 1]]), 2].add(ties[0, :2]), x.at[1:, ::2].multiply(2.0),
                       x.at[..., np.array([0, 0, 4])].min(ties[:, :3]), x.at[np.array([-1, 9])].max(ties[:2]),
                       x.at[2, np.array([1, 3])].get(), x.at[np.array([0, 5])].get(mode="fill", fill_value=-1.0),
                       x.at[0].divide(2.0), x.at[:, -1].power(2.0))}


@pytest.fixture(scope="module")
def jax_results(jax_reference):
    return jax_reference(jax_everything, X, X_TIES, IMAGE, KERNEL)


def _leaves(value):
    return ta.tree_util.tree_leaves(value)


def test_forward_values_match_jax(jax_results):
    """Every primitive, traced in one jitted function, against JAX (float64)."""
    def ours(x, ties, image, kernel):
        out = everything(lax, tnp, x, ties, image, kernel)
        out.update(ours_at(x, ties))
        return out

    got = ta.jit(ours)(X, X_TIES, IMAGE, KERNEL)
    assert sorted(got) == sorted(jax_results)
    for name in sorted(got):
        mine, theirs = _leaves(got[name]), _leaves(jax_results[name])
        assert len(mine) == len(theirs), name
        for a, b in zip(mine, theirs):
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape, (name, a.shape, b.shape)
            if b.dtype.kind in "iub":
                np.testing.assert_array_equal(a, b, err_msg=name)
            else:
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, err_msg=name)


# ----------------------------------------------------------------------------
# numpy functions against numpy
# ----------------------------------------------------------------------------

NAN_DATA = np.array([[3.0, np.nan, 1.0, -0.0, 0.0, 2.0], [1.0, 1.0, -np.inf, 5.0, np.inf, 1.0]])


def test_sorting_functions_match_numpy():
    """Stable sorts with NaN last, lexsort, searchsorted with a sorter, both sides."""
    f = ta.jit(lambda d, x: (tnp.sort(d, axis=1), tnp.argsort(d, axis=1), tnp.sort(d, axis=None),
                             tnp.argsort(x, axis=0), tnp.lexsort((x[0], x[1] > 1.0)), tnp.sort(x.astype(np.int32)),
                             tnp.searchsorted(x[0], x, sorter=tnp.argsort(x[0])),
                             tnp.searchsorted(np.array([0.0, 1.0, 1.0, 3.0]), x[1], side="right")))
    got = f(NAN_DATA, X_TIES)
    want = (np.sort(NAN_DATA, axis=1), np.argsort(NAN_DATA, axis=1, kind="stable"), np.sort(NAN_DATA, axis=None),
            np.argsort(X_TIES, axis=0, kind="stable"), np.lexsort((X_TIES[0], X_TIES[1] > 1.0)),
            np.sort(X_TIES.astype(np.int32)), np.searchsorted(X_TIES[0], X_TIES, sorter=np.argsort(X_TIES[0])),
            np.searchsorted(np.array([0.0, 1.0, 1.0, 3.0]), X_TIES[1], side="right"))
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_methods_match_numpy(method):
    q = np.array([0.0, 0.2, 0.5, 0.75, 1.0])
    got = ta.jit(lambda x: tnp.quantile(x, q, axis=1, method=method, keepdims=True))(X)
    np.testing.assert_allclose(got, np.quantile(X, q, axis=1, method=method, keepdims=True), rtol=1e-12)


def test_order_statistics_match_numpy():
    """median/percentile over several axes, a traced q, integers, and NaN propagating."""
    y = RNG.standard_normal((4, 3, 6))
    f = ta.jit(lambda y, q: (tnp.median(y, axis=(0, 2)), tnp.median(y), tnp.percentile(y, 30.0, axis=-1),
                             tnp.quantile(y, q, axis=0), tnp.median(np.arange(7)), tnp.median(NAN_DATA, axis=1),
                             tnp.percentile(y, np.array([10, 90]), keepdims=True)))
    got = f(y, np.array([0.3, 0.6]))
    want = (np.median(y, axis=(0, 2)), np.median(y), np.percentile(y, 30.0, axis=-1),
            np.quantile(y, np.array([0.3, 0.6]), axis=0), np.median(np.arange(7)), np.median(NAN_DATA, axis=1),
            np.percentile(y, np.array([10, 90]), keepdims=True))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-12)
        assert a.shape == b.shape


def test_unique_and_histogram_match_numpy():
    z = np.array([3, 1, 2, 3, 1, 5, 3])
    for got, want in zip(tnp.unique(z, return_index=True, return_inverse=True, return_counts=True),
                         np.unique(z, return_index=True, return_inverse=True, return_counts=True)):
        np.testing.assert_array_equal(got, want)
    rows = np.array([[1, 2], [0, 5], [1, 2], [0, 5], [0, 1]])
    for got, want in zip(tnp.unique(rows, axis=0, return_counts=True), np.unique(rows, axis=0, return_counts=True)):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(tnp.unique(np.array([np.nan, 1.0, np.nan])), np.unique(np.array([np.nan, 1.0, np.nan])))
    f = ta.jit(lambda x, w: (tnp.histogram(x, bins=5), tnp.histogram(x, bins=3, range=(-1.0, 1.0), density=True),
                             tnp.histogram(x, bins=np.array([-3.0, -0.5, 0.0, 2.5]), weights=w)))
    w = RNG.standard_normal(X.shape)
    for (h, e), (hw, ew) in zip(f(X, w), (np.histogram(X, bins=5), np.histogram(X, bins=3, range=(-1.0, 1.0), density=True),
                                          np.histogram(X, bins=np.array([-3.0, -0.5, 0.0, 2.5]), weights=w))):
        np.testing.assert_allclose(h, hw, rtol=1e-12)
        np.testing.assert_allclose(e, ew, rtol=1e-12)
        assert h.dtype == hw.dtype


def test_numpy_scans_match_numpy():
    b = np.array([[True, False, True], [True, True, False]])
    f = ta.jit(lambda x, b: (tnp.cumsum(x), tnp.cumsum(b, axis=1), tnp.cumprod(x, axis=1),
                             tnp.cumsum(b.astype(np.int32), axis=0), tnp.cumulative_sum(x[0], include_initial=True),
                             tnp.cumulative_prod(x, axis=0, include_initial=True), x.cumsum(axis=0)))
    got = f(X, b)
    want = (np.cumsum(X), np.cumsum(b, axis=1), np.cumprod(X, axis=1), np.cumsum(b.astype(np.int32), axis=0),
            np.cumulative_sum(X[0], include_initial=True), np.cumulative_prod(X, axis=0, include_initial=True),
            X.cumsum(axis=0))
    for a, e in zip(got, want):
        np.testing.assert_allclose(a, e, rtol=1e-12)
        assert a.dtype == e.dtype


def test_complex_numbers_sort_by_parts_and_sum_by_parts():
    z = np.array([1 + 2j, 1 - 1j, 5j, 1 + 2j, 0.5 + 0j])
    f = ta.jit(lambda z: (tnp.sort(z), tnp.argsort(z, descending=True), tnp.cumsum(z), lax.top_k(z, 2)[1],
                          z.at[np.array([0, 0, 4])].add(1j), tnp.unique(z, size=4)))
    want = (np.sort(z), np.argsort(-z, kind="stable"), np.cumsum(z), np.array([0, 3]),
            z + np.array([2j, 0, 0, 0, 1j]), np.unique(z))
    for a, b in zip(f(z), want):
        np.testing.assert_array_equal(a, b)
    with pytest.raises(TypeError, match="complex"):
        lax.cummax(z)


# ----------------------------------------------------------------------------
# Derivatives: finite differences (forward mode) and the dot-product test (reverse mode)
# ----------------------------------------------------------------------------

I_ROWS = np.array([0, 2, 0, -1])
DERIVATIVES = {
    "cumsum": lambda x: lax.cumsum(x, axis=1, reverse=True),
    "cumprod": lambda x: lax.cumprod(x, axis=1),
    "cummax_cummin": lambda x: lax.cummax(x, axis=0) + lax.cummin(x, axis=1, reverse=True),
    "cumlogsumexp": lambda x: lax.cumlogsumexp(x, axis=1),
    "sort_top_k": lambda x: tnp.sort(x, axis=0)[:, :3] * lax.top_k(x, 3)[0],
    "quantiles": lambda x: tnp.quantile(x, np.array([0.2, 0.9]), axis=1) + tnp.median(x, axis=1),
    "at_set_add": lambda x: x.at[I_ROWS].set(x[1] * 2.0).at[:, np.array([1, 1, 4])].add(x[:, :3] ** 2),
    "at_mul": lambda x: x.at[np.array([0, 0, 7])].multiply(x[:3]).at[0, 0].multiply(0.0),
    "at_max_min": lambda x: x.at[np.array([0, 0, 1])].max(x[:3] * 0.5).at[2, np.array([0, 0])].min(x[0, :2]),
    "dynamic_slices": lambda x: lax.dynamic_update_slice(x, lax.dynamic_slice(x, (1, 2), (2, 2)) ** 2, (1, 0)),
    "gather_scatter": lambda x: lax.scatter_add(x, ROW_INDICES, lax.gather(x, ROW_INDICES, _gather_dnums(lax)[0],
                                                                          (1, 5)) ** 2, _scatter_dnums(lax)[0]),
    "reduce_window": lambda x: lax.reduce_window(x, -np.inf, lax.max, (2, 2), (1, 2), "SAME")
    + lax.reduce_window(x, 0.0, lax.add, (1, 11), (1, 1), ((0, 0), (5, 5))).sum(),
    "select_clamp": lambda x: lax.select_n(x > 0, x ** 2, tnp.sin(x)) + lax.clamp(-0.5, x, 0.5),
}


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_derivatives_match_finite_differences(name):
    check_grads(DERIVATIVES[name], (X,), order=1)


def test_conv_general_dilated_derivatives():
    x, w = RNG.standard_normal((1, 3, 2, 2)), RNG.standard_normal((2, 2, 1, 2))
    f = lambda x, w: lax.conv_general_dilated(x, w, (1, 2), ((1, 0), (0, 1)), lhs_dilation=(2, 1),  # noqa: E731
                                              dimension_numbers=("NHWC", "OHWI", "NCHW"), feature_group_count=1)
    check_grads(f, (x, w), order=1)


def test_derivatives_with_respect_to_updates():
    """Every scatter kind, with repeated indices, an index out of range and zeros among the factors."""
    u = np.array([2.0, 0.0, -1.5, 3.0, 0.5])
    u[1] = 0.0
    idx = np.array([1, 1, 3, 1, 9])

    def f(x, u):
        return (x.at[idx].set(u) + x.at[idx].add(u * u) + x.at[idx].multiply(u) + x.at[idx].min(u)
                + x.at[idx].max(u))

    check_grads(f, (RNG.standard_normal(5), u), order=1)


def test_second_order_through_sort_and_scan():
    check_grads(lambda x: tnp.sort(x) * lax.cumsum(x), (X[0, :3],), order=2, modes=("fwd",))


# ----------------------------------------------------------------------------
# vmap against a loop over the rows
# ----------------------------------------------------------------------------

VMAPPED = {
    "sort_median": lambda x: tnp.median(x, axis=0) + tnp.sort(x, axis=1)[0],
    "top_k": lambda x: lax.top_k(x, 2)[1],
    "cumsum_cumprod": lambda x: lax.cumsum(x, axis=1) * lax.cumprod(x, axis=0, reverse=True),
    "at_traced_index": lambda x: x.at[tnp.argmax(x, axis=1)].add(1.0),
    "dynamic_slice_traced": lambda x: lax.dynamic_slice(x, (tnp.argmax(x[:, 0]), 1), (2, 2)),
    "searchsorted_unique": lambda x: tnp.searchsorted(np.array([-1.0, 0.0, 1.0]), x)
    + tnp.unique(x[0] > 0, size=2, fill_value=False)[0],
    "histogram": lambda x: tnp.histogram(x, bins=3, range=(-2.0, 2.0))[0],
    "grad_sort": ta.grad(lambda x: (tnp.sort(x, axis=None) * np.arange(15.0)).sum()),
}


@pytest.mark.parametrize("name", sorted(VMAPPED))
def test_vmap_matches_a_loop(name):
    f = VMAPPED[name]
    xs = RNG.standard_normal((3,) + X.shape)
    one = ta.jit(f)
    np.testing.assert_allclose(ta.jit(ta.vmap(f))(xs), np.stack([one(x) for x in xs]), rtol=1e-12)


def test_vmap_of_gathers_and_their_gradients_needs_no_row_loop():
    """Rows of data and of indices merge into one gather (and one scatter-add for the gradient)."""
    f = ta.vmap(ta.value_and_grad(lambda x, i: (tnp.take(x, i) ** 2).sum()))
    i = np.array([[2, 0], [4, 4], [-1, 1]])
    ir = ta.jit(f).lower(X, i).as_text("differentiated")
    assert "scf.for" not in ir and "tad.take_backward" in ir
    value, grad = ta.jit(f)(X, i)
    for k in range(3):
        np.testing.assert_allclose(value[k], (X[k, i[k] % 5] ** 2).sum())
        np.testing.assert_allclose(grad[k], np.bincount(i[k] % 5, 2 * X[k, i[k] % 5], minlength=5))


# ----------------------------------------------------------------------------
# Eager calls, .at on results, and errors
# ----------------------------------------------------------------------------

def test_eager_calls_and_at_on_results():
    y = ta.jit(lambda x: x * 1.0)(X)
    assert isinstance(y, ta.Array)
    updated = y.at[0, 1].set(7.0)
    assert isinstance(updated, ta.Array) and updated[0, 1] == 7.0 and y[0, 1] == X[0, 1]
    np.testing.assert_array_equal(lax.sort(X, dimension=0), np.sort(X, axis=0))
    np.testing.assert_array_equal(tnp.argsort(X), np.argsort(X, kind="stable"))
    np.testing.assert_allclose(lax.cumsum(X, axis=1), np.cumsum(X, axis=1))
    np.testing.assert_allclose(y.at[np.array([1, 1])].apply(lambda v: v * 2.0)[1], X[1] * 4.0)


@pytest.mark.parametrize("call, match", [
    (lambda: ta.jit(lambda x: tnp.unique(x))(X), "static size"),
    (lambda: lax.reduce_window((X, X), 0.0, lax.add, (2, 2)), "one operand"),
    (lambda: lax.reduce_window(X, 0.0, lambda a, b: a - b, (2, 2)), "sums, products, maxima and minima"),
    (lambda: lax.conv_general_dilated(IMAGE, KERNEL, (1, 1), "VALID", batch_group_count=2), "batch_group_count"),
    (lambda: tnp.searchsorted(X, X[0]), "1-D sorted"),
    (lambda: lax.top_k(X, 6), "k=6"),
    (lambda: lax.sort((X, X[0])), "one shape"),
    (lambda: lax.gather(X, ROW_INDICES, _gather_dnums(lax)[0], (2, 5)), "size 1"),
    (lambda: lax.scatter(X, ROW_INDICES, X[:2], _scatter_dnums(lax)[0]), "do not match"),
    (lambda: lax.dynamic_slice(X, (0, 0), (4, 2)), "does not fit"),
    (lambda: lax.cumsum(np.array([True, False])), "bool"),
])
def test_unsupported_or_wrong_calls_raise_clear_errors(call, match):
    with pytest.raises((ta.TracingError, TypeError, ValueError), match=match):
        call()
