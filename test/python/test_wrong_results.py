"""Programs once compiled to wrong numbers without an error: each derivative is checked three ways.

jacfwd, jacrev and central finite differences (float64) must agree. The
first class: a rank-reducing slice of a branch result. After bufferization a
``lax.cond`` result has a fully dynamic layout, and the row a loop takes of
its batched tangent (``[P..., 1, 1, n] -> [P..., 1, n]`` with unit dims in
the batch prefix P) was read with the strides of the wrong dims by upstream
``expand-strided-metadata`` (fixed by ``tad-split-rank-reducing-subviews``).
"""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import lax


def finite_difference_jacobian(f, x, step=1e-6):
    """d f(x) / d x by central differences, shaped ``f(x).shape + x.shape``."""
    flat, compiled = x.ravel(), ta.jit(f)
    columns = []
    for i in range(flat.size):
        delta = np.zeros_like(flat)
        delta[i] = step
        plus = np.asarray(compiled((flat + delta).reshape(x.shape)))
        minus = np.asarray(compiled((flat - delta).reshape(x.shape)))
        columns.append((plus - minus) / (2 * step))
    out_shape = columns[0].shape
    return np.stack([c.ravel() for c in columns], axis=-1).reshape(out_shape + x.shape)


def assert_jacobians_agree(f, x):
    forward, reverse = np.asarray(ta.jacfwd(f)(x)), np.asarray(ta.jacrev(f)(x))
    np.testing.assert_allclose(forward, reverse, rtol=1e-9, atol=1e-12, err_msg="jacfwd != jacrev")
    np.testing.assert_allclose(forward, finite_difference_jacobian(f, x), rtol=1e-6, atol=1e-8,
                               err_msg="jacfwd != finite differences")


def branch(v):
    """Both branches of a cond the loops below read row by row."""
    return lax.cond(tnp.sum(v) > 0.0, lambda u: u * 2.0, lambda u: tnp.sin(u), v)


def cond_then_scan(v):
    body = lambda c, r: (c * 0.8 + tnp.sin(r), tnp.cos(c) + r)
    return lax.scan(body, tnp.zeros(v.shape[1:]) + 0.1, branch(v))[1]


def cond_then_fori_loop(v):
    rows = branch(v)
    return lax.fori_loop(0, v.shape[0], lambda i, c: c * 0.9 + tnp.cos(rows[i]), tnp.zeros(v.shape[1:]))


def cond_then_while_loop(v):
    rows = branch(v)

    def body(state):
        i, c = state
        return i + 1, c * 0.9 + tnp.sin(rows[i]) * c + rows[i]

    return lax.while_loop(lambda state: state[0] < v.shape[0], body, (0, tnp.ones(v.shape[1:])))[1]


def nested_conds_then_scan(v):
    inner = lambda u: lax.cond(tnp.sum(u) < -1.0, lambda w: tnp.cos(w), lambda w: w * w, u)
    rows = lax.cond(tnp.sum(v) > 0.0, lambda u: u * 3.0, inner, v)
    return lax.scan(lambda c, r: (c * tnp.sin(r), c + r), tnp.ones(v.shape[1:]), rows)[1]


PROGRAMS = [cond_then_scan, cond_then_fori_loop, cond_then_while_loop, nested_conds_then_scan]


@pytest.mark.parametrize("program", PROGRAMS, ids=lambda p: p.__name__)
@pytest.mark.parametrize("sign", [-1.0, 1.0], ids=["false_branch", "true_branch"])
def test_branch_result_sliced_by_a_loop(program, sign):
    x = sign * np.abs(np.random.default_rng(0).uniform(0.2, 0.9, size=(2, 1, 2)))
    assert_jacobians_agree(program, x)


def test_several_unit_dims_in_the_row():
    x = -np.abs(np.random.default_rng(1).uniform(0.2, 0.9, size=(3, 1, 1, 2)))
    assert_jacobians_agree(cond_then_scan, x)


def test_reductions_of_values_made_from_their_index_read_the_whole_index():
    # x + arange fused into a row sum reads linalg.index in the reduction's body: upstream's split of the
    # row into vector partial results left it the lane's index within the tile (0..7, three times over).
    rng = np.random.default_rng(0)
    for shape in ((2, 24), (4, 1000), (3, 37)):
        x = rng.standard_normal(shape)
        weights = np.arange(shape[-1])
        sums, maxima, weighted = ta.jit(lambda v: (tnp.sum(v + tnp.arange(shape[-1]), axis=-1),
                                                   tnp.max(v + 0.001 * tnp.arange(shape[-1]), axis=-1),
                                                   tnp.sum(v * tnp.arange(shape[-1]), axis=-1)))(x)
        np.testing.assert_allclose(sums, (x + weights).sum(-1), rtol=1e-12)
        np.testing.assert_allclose(maxima, (x + 0.001 * weights).max(-1), rtol=1e-12)
        np.testing.assert_allclose(weighted, (x * weights).sum(-1), rtol=1e-12)
    # The fuzzer's program: a scan's outputs, offset by an arange, reduced under vmap.
    rows = rng.uniform(-1.0, 1.0, (2, 24))
    scan_max = lambda v: lax.reduce_max(lax.scan(lambda c, r: (c + r, c), 0.1 + tnp.zeros(()), v)[1]
                                        + 0.001 * tnp.arange(24), (0,))
    np.testing.assert_allclose(ta.jit(ta.vmap(scan_max))(rows), [ta.jit(scan_max)(r) for r in rows], rtol=1e-12)
