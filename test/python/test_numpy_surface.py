"""The numpy functions composed of existing ops, ``einsum``, ``norm`` and numpy's indexing (issue 22).

Each check is written once against an array namespace ``xp`` and run traced
(``xp = tensorad.numpy``, under :func:`tensorad.jit`) and with ``xp = numpy``
as the reference: values, shapes and dtypes. Derivatives are checked against
float64 central finite differences in both modes (the dot-product test for
reverse mode), batching against a loop over numpy. Many cases share one
compiled function (a dict of results): compiling dominates the run time.
The cases follow HIPS autograd's ``tests/test_numpy.py`` and
``tests/test_systematic.py`` where those cover a function.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import TracingError
from tensorad.numpy.norms import norm
from tensorad.test_util import check_grads

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
V = RNG.standard_normal(4)
X3 = RNG.standard_normal((2, 3, 4))
Y = RNG.standard_normal((3, 4, 5))
S = RNG.standard_normal((3, 3))
W = RNG.uniform(0.5, 2.0, 4)  # positive weights
XI = np.arange(12).reshape(3, 4)
SPECIAL = np.array([1.5, np.nan, np.inf, -np.inf, -2.0, 0.0])

NORM = {np: np.linalg.norm, tnp: norm}


def assert_close(got, want, path="result"):
    """A pytree of results equals numpy's: structure, dtypes, shapes and values."""
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), path
        for key in want:
            assert_close(got[key], want[key], f"{path}[{key!r}]")
        return
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want), path
        for i, (g, w) in enumerate(zip(got, want)):
            assert_close(g, w, f"{path}[{i}]")
        return
    want, got = np.asarray(want), np.asarray(got)
    assert got.dtype == want.dtype, f"{path}: dtype {got.dtype} != numpy's {want.dtype}"
    assert got.shape == want.shape, f"{path}: shape {got.shape} != numpy's {want.shape}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=path)
    else:
        np.testing.assert_array_equal(got, want, err_msg=path)


def matches_numpy(cases: dict, *args):
    """Each ``case(xp, *args)`` traced with tensorad (one compiled function) equals it run by numpy."""
    got = ta.jit(lambda *a: {name: case(tnp, *a) for name, case in cases.items()})(*args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's deprecation of 2-vectors in cross, 0/0 in cov
        want = {name: case(np, *args) for name, case in cases.items()}
    assert_close(got, want)


# ----------------------------------------------------------------------------
# Forward values against numpy
# ----------------------------------------------------------------------------

SHAPING = {
    "flip": lambda xp, x, b: xp.flip(b, (0, 2)),
    "flip_all": lambda xp, x, b: xp.flip(b),
    "fliplr": lambda xp, x, b: xp.fliplr(x),
    "flipud": lambda xp, x, b: xp.flipud(x),
    **{f"rot90_{k}": (lambda k: lambda xp, x, b: xp.rot90(b, k, (2, 0)))(k) for k in (-1, 1, 2, 3, 4)},
    "roll_flat": lambda xp, x, b: xp.roll(x, 5),
    "roll_axes": lambda xp, x, b: xp.roll(x, (1, -2, 3), (0, 1, 0)),
    "repeat": lambda xp, x, b: xp.repeat(x, 3),
    "repeat_axis": lambda xp, x, b: xp.repeat(x, 2, axis=1),
    "repeat_counts": lambda xp, x, b: xp.repeat(x, [1, 0, 3], axis=0),
    "tile": lambda xp, x, b: xp.tile(x, (2, 1, 3)),
    "tile_int": lambda xp, x, b: xp.tile(b, 2),
    "split": lambda xp, x, b: xp.split(x, 2, 1),
    "split_at": lambda xp, x, b: xp.split(b, [1, 3, 10], -1),
    "array_split": lambda xp, x, b: xp.array_split(x, 3, 1),
    "vstack": lambda xp, x, b: xp.vstack([x, x[0]]),
    "hstack": lambda xp, x, b: xp.hstack([x, x]),
    "hstack_1d": lambda xp, x, b: xp.hstack([x[0], x[1, :2]]),
    "dstack": lambda xp, x, b: xp.dstack([x, x]),
    "column_stack": lambda xp, x, b: xp.column_stack([x[0], x[:2].T]),
    "append": lambda xp, x, b: xp.append(x, b),
    "append_axis": lambda xp, x, b: xp.append(x, x[:1], 0),
    "moveaxis": lambda xp, x, b: xp.moveaxis(b, (0, 1), (2, 0)),
    "atleast": lambda xp, x, b: xp.atleast_3d(x[0], x, b[0, 0, 0]),
    "atleast_2d": lambda xp, x, b: xp.atleast_2d(x[0]),
    "atleast_1d": lambda xp, x, b: xp.atleast_1d(x[0, 0]),
    "broadcast_arrays": lambda xp, x, b: xp.broadcast_arrays(x[:, :1], b),
    "meshgrid": lambda xp, x, b: xp.meshgrid(x[0], x[1, :3]),
    "meshgrid_ij": lambda xp, x, b: xp.meshgrid(x[0], x[1, :3], x[2, :2], indexing="ij", sparse=True),
    "diff": lambda xp, x, b: xp.diff(x),
    "diff_2": lambda xp, x, b: xp.diff(x, 2, 0, prepend=1.0, append=x[:1]),
    "diff_long": lambda xp, x, b: xp.diff(x[0], 9),
}

PAD_MODES = ("constant", "edge", "reflect", "symmetric", "wrap", "maximum", "minimum", "mean", "linear_ramp")
PADS = {
    **{f"{mode}_{i}": (lambda mode, width: lambda xp, x: xp.pad(x, width, mode))(mode, width)
       for mode in PAD_MODES for i, width in enumerate((2, ((0, 2), (5, 1)), ((7, 9), (0, 0))))},
    "reflect_odd": lambda xp, x: xp.pad(x, ((2, 7), (3, 1)), "reflect", reflect_type="odd"),
    "symmetric_odd": lambda xp, x: xp.pad(x, ((2, 7), (3, 1)), "symmetric", reflect_type="odd"),
    "mean_stat_length": lambda xp, x: xp.pad(x, ((2, 7), (3, 1)), "mean", stat_length=2),
    "maximum_stat_length": lambda xp, x: xp.pad(x, ((2, 7), (3, 1)), "maximum", stat_length=(1, 3)),
    "ramp_ends": lambda xp, x: xp.pad(x, ((2, 7), (3, 1)), "linear_ramp", end_values=((5, -2), (1, 7))),
    "constant_pairs": lambda xp, x: xp.pad(x, ((2, 7), (3, 1)), constant_values=((1, 2), (3, 4))),
    "constant_traced": lambda xp, x: xp.pad(x, 1, constant_values=x[0, 0]),
}

MATRICES = {
    "tri": lambda xp, x, b, s, v: xp.tri(3, 4, 1),
    "tril": lambda xp, x, b, s, v: xp.tril(x, -1),
    "triu": lambda xp, x, b, s, v: xp.triu(b, 1),
    "tril_1d": lambda xp, x, b, s, v: xp.tril(v),
    **{f"diagonal_{k}": (lambda k: lambda xp, x, b, s, v: xp.diagonal(x, k))(k) for k in (-3, -1, 0, 2, 5)},
    **{f"diag_{k}": (lambda k: lambda xp, x, b, s, v: xp.diag(v, k))(k) for k in (-2, 0, 1)},
    "diag_of_matrix": lambda xp, x, b, s, v: xp.diag(x, 1),
    "diagonal_axes": lambda xp, x, b, s, v: xp.diagonal(b, 1, 2, 0),
    "trace": lambda xp, x, b, s, v: xp.trace(s),
    "trace_axes": lambda xp, x, b, s, v: xp.trace(b, -1, 1, 2),
    "kron": lambda xp, x, b, s, v: xp.kron(x, v),
    "kron_3d": lambda xp, x, b, s, v: xp.kron(s[:2, :2], b),
    "cross": lambda xp, x, b, s, v: xp.cross(s, s[::-1]),
    "cross_axes": lambda xp, x, b, s, v: xp.cross(s, s.T, axisa=0, axisb=1, axisc=0),
    "cross_3_2": lambda xp, x, b, s, v: xp.cross(s, s[:, :2]),
    "cross_2_2": lambda xp, x, b, s, v: xp.cross(x[:, :2], x[:, 2:]),
    "outer": lambda xp, x, b, s, v: xp.outer(x, v),
}

UFUNCS = {
    **{name: (lambda name: lambda xp, x, s: getattr(xp, name)(s))(name)
       for name in ("isnan", "isinf", "isfinite", "nan_to_num", "rad2deg", "deg2rad", "degrees", "radians")},
    "nan_to_num_values": lambda xp, x, s: xp.nan_to_num(s.astype(np.float32), nan=-1.0, posinf=9.0),
    "hypot": lambda xp, x, s: xp.hypot(x, x[0]),
    "hypot_special": lambda xp, x, s: xp.hypot(s, s[::-1]),
    "hypot_huge": lambda xp, x, s: xp.hypot(x * 1e300, x[0] * 1e300),
    "select": lambda xp, x, s: xp.select([x < 0, x > 1], [x, x * 2], -1.0),
    "clip": lambda xp, x, s: xp.clip(x, min=-0.5, max=0.5),
    "log2": lambda xp, x, s: xp.log2(x * x), "log10": lambda xp, x, s: xp.log10(x * x),
    "exp2": lambda xp, x, s: xp.exp2(x), "sinh": lambda xp, x, s: xp.sinh(x), "cosh": lambda xp, x, s: xp.cosh(x),
    "arccosh": lambda xp, x, s: xp.arccosh(x * x + 1), "arcsinh": lambda xp, x, s: xp.arcsinh(x),
    "arctanh": lambda xp, x, s: xp.arctanh(x / 4),
}

REDUCTIONS = {
    "prod": lambda xp, x, b, w: xp.prod(x),
    "prod_axis": lambda xp, x, b, w: xp.prod(x, 1),
    "prod_axes": lambda xp, x, b, w: xp.prod(b, (0, 2), keepdims=True),
    "prod_initial_where": lambda xp, x, b, w: xp.prod(x, 0, initial=2.0, where=x > 0),
    "std": lambda xp, x, b, w: xp.std(x, 1, ddof=1),
    "var": lambda xp, x, b, w: xp.var(b, (0, 2), ddof=2, keepdims=True),
    "average": lambda xp, x, b, w: xp.average(x, 1, w),
    "average_returned": lambda xp, x, b, w: xp.average(x, None, x * x, returned=True),
    "average_axes": lambda xp, x, b, w: xp.average(b, (2, 0), xp.outer(w, np.array([1.0, 3.0])), keepdims=True),
    "average_plain": lambda xp, x, b, w: xp.average(x, 0, returned=True),
    "cov": lambda xp, x, b, w: xp.cov(x),
    "cov_y": lambda xp, x, b, w: xp.cov(x, x[:, :2], rowvar=False, ddof=0),
    "cov_weights": lambda xp, x, b, w: xp.cov(x, fweights=np.array([1, 2, 1, 3]), aweights=w),
    "cov_aweights_bias": lambda xp, x, b, w: xp.cov(x, aweights=w, bias=True),
    "cov_vector": lambda xp, x, b, w: xp.cov(w),
    "corrcoef": lambda xp, x, b, w: xp.corrcoef(x),
    "corrcoef_xy": lambda xp, x, b, w: xp.corrcoef(w, w * 2.0 + 1.0),
    "linspace": lambda xp, x, b, w: xp.linspace(0, 1, 7),
    "linspace_arrays": lambda xp, x, b, w: xp.linspace(w, w + 3.0, 5, endpoint=False, axis=-1),
    "linspace_2d": lambda xp, x, b, w: xp.linspace(x, x[0], 5, axis=1),
    "linspace_retstep": lambda xp, x, b, w: xp.linspace(2.0, 3.0, 4, retstep=True),
    "linspace_int": lambda xp, x, b, w: xp.linspace(-3, 7, 6, dtype=np.int64),
    "linspace_float32": lambda xp, x, b, w: xp.linspace(np.float32(1), 3, 6),
    "logspace": lambda xp, x, b, w: xp.logspace(0, 3, 4, base=2.0),
    "logspace_arrays": lambda xp, x, b, w: xp.logspace(w, 2.0, 3, axis=1),
}

INTEGERS = {
    "prod_int32": lambda xp, i: xp.prod(i.astype(np.int32) + 1, 0),
    "prod_bool": lambda xp, i: xp.prod(i > 2, 1),
    "trace": lambda xp, i: xp.trace(i.astype(np.int32)),
    "repeat": lambda xp, i: xp.repeat(i, [2, 0, 1], 0),
    "diff_bool": lambda xp, i: xp.diff(i % 3 == 0),
    "isnan": lambda xp, i: xp.isnan(i),
    "isfinite": lambda xp, i: xp.isfinite(i),
    "nan_to_num": lambda xp, i: xp.nan_to_num(i),
    "rad2deg": lambda xp, i: xp.rad2deg(i),
    **{f"pad_{mode}": (lambda mode: lambda xp, i: xp.pad(i, ((2, 7), (3, 1)), mode))(mode) for mode in PAD_MODES},
    "pad_ramp_ends": lambda xp, i: xp.pad(i, ((2, 7), (3, 1)), "linear_ramp", end_values=(5, -2)),
    "pad_odd": lambda xp, i: xp.pad(i, ((2, 7), (3, 1)), "reflect", reflect_type="odd"),
    "einsum": lambda xp, i: xp.einsum("ij,kj->ik", i, i),
    "einsum_int32": lambda xp, i: xp.einsum("ij,kj", i.astype(np.int32), i.astype(np.int32)),
    "einsum_bool": lambda xp, i: xp.einsum("ij,kj->ik", i > 5, i < 4),
    "norm": lambda xp, i: NORM[xp](i),
    "hypot": lambda xp, i: xp.hypot(i, 3),
}

SUBSCRIPTS = [("ij,jk->ik", "ab", "bc"), ("ij,jk,kl->il", "ab", "bc", "cd"), ("ii", "bb"), ("ii->i", "bb"),
              ("ij->ji", "ab"), ("ji", "ab"), ("i,i", "b", "b"), ("i,j", "a", "b"), ("bii->b", "abb"),
              ("bij,bjk->bik", "abb", "abb"), ("...ij,...jk", "abb", "abb"), ("i...,i->...", "bb", "b"),
              ("ijj,kj->ik", "abb", "ab"), ("ij,ij->", "ab", "ab"), ("iii", "aaa"), ("ij,kl->ijkl", "ab", "ab"),
              ("i,i,i->i", "b", "b", "b"), ("...,...", "ab", "b"), ("bij,jk,bkl->bil", "abb", "bb", "abb"),
              ("ii,i->i", "bb", "b"), ("iij,jk", "bba", "ab")]
SIZES = {"a": 2, "b": 3, "c": 4, "d": 5}


def _operand(shape: str, k: int) -> np.ndarray:
    return np.random.default_rng(k).standard_normal([SIZES[c] for c in shape])


def _einsum_case(index: int, optimize):
    """Case ``index`` of SUBSCRIPTS; its operands are EINSUM_OPERANDS[3 * index:] (three per case).

    The path is tensorad's (``optimize``); numpy's reference contracts without reordering.
    """
    spec = SUBSCRIPTS[index]
    return lambda xp, *ops: xp.einsum(spec[0], *ops[3 * index:3 * index + len(spec) - 1],
                                      optimize=optimize if xp is tnp else False)


EINSUMS = {f"{spec[0]} {optimize}": _einsum_case(i, optimize)
           for i, spec in enumerate(SUBSCRIPTS) for optimize in ("auto", "greedy", False)}
EINSUM_OPERANDS = [_operand(spec[i + 1], i) if i + 1 < len(spec) else np.zeros(())
                   for spec in SUBSCRIPTS for i in range(3)]
EINSUMS.update({
    "broadcast": lambda xp, *ops: xp.einsum("...ij,...jk->...ik", ops[0][None, :, :2], np.ones((4, 2, 3))),
    "broadcast_size_one": lambda xp, *ops: xp.einsum("ij,ij->i", np.ones((1, 3)), ops[0]),
    "interleaved": lambda xp, *ops: xp.einsum(ops[0], [0, 1], ops[1], [1, 2], [2, 0]),
    "interleaved_ellipsis": lambda xp, *ops: xp.einsum(ops[0], [Ellipsis, 1], ops[1], [1, 2]),
    "mixed_dtypes": lambda xp, *ops: xp.einsum("ij,jk", ops[0].astype(np.float32), np.arange(12).reshape(3, 4)),
})

NORMS = {
    **{f"vector_{o}": (lambda o: lambda xp, x, b: NORM[xp](x[0], o))(o)
       for o in (None, 2, 1, np.inf, -np.inf, 0, 3, 0.5, -1.5)},
    **{f"vector_axis_{o}": (lambda o: lambda xp, x, b: NORM[xp](x, o, axis=1, keepdims=True))(o)
       for o in (None, 1, np.inf, 4)},
    **{f"matrix_{o}": (lambda o: lambda xp, x, b: NORM[xp](x, o))(o) for o in (None, "fro", 1, -1, np.inf, -np.inf)},
    **{f"matrix_axes_{o}": (lambda o: lambda xp, x, b: NORM[xp](b, o, axis=(2, 0)))(o) for o in ("fro", 1, -np.inf)},
    "matrix_keepdims": lambda xp, x, b: NORM[xp](b, 1, axis=(1, 2), keepdims=True),
    "all": lambda xp, x, b: NORM[xp](b),
    "all_keepdims": lambda xp, x, b: NORM[xp](b, keepdims=True),
    "float32": lambda xp, x, b: NORM[xp](x.astype(np.float32), 3, axis=0),
}

INDEX_KEYS = [(slice(None, None, -1),), (slice(5, 1, -2),), (slice(None), slice(None, None, -3)), ([1, 2],),
              ([[0, 2], [1, 1]], slice(None), [0, 3]), (Ellipsis, [1, 3]), (0, slice(None), [1, 2]),
              (slice(None), 0, [1, 2]), (np.array([True, False, True]),), (None, [0, 1], None, [1, 2]),
              ([0, 1], None, [1, 2]), (slice(None), [[0], [1]], [1, 2, 3]), ([],), (-1, slice(None, None, -1), -2),
              (1, 2, 3), (slice(2, 0, -1), [0, -1]), (Y[:, :, 0] > 0,),
              (slice(None), np.array([True, False, False, True]), slice(1, None)),
              (np.int64(1), [0, 0], slice(None, 2)),
              (slice(None, None, -1), slice(None), [2, -1, 0])]

FORWARD = {"shaping": (SHAPING, (X, X3)), "pad": (PADS, (X,)), "matrices": (MATRICES, (X, X3, S, V)),
           "ufuncs": (UFUNCS, (X, SPECIAL)), "reductions": (REDUCTIONS, (X, X3, W)), "integers": (INTEGERS, (XI,)),
           "einsum": (EINSUMS, EINSUM_OPERANDS), "norm": (NORMS, (X, X3)),
           "indexing": ({str(k): (lambda k: lambda xp, b: b[k])(k) for k in INDEX_KEYS}, (Y,))}


@pytest.mark.parametrize("cases, args", FORWARD.values(), ids=FORWARD.keys())
def test_forward_matches_numpy(cases, args):
    matches_numpy(cases, *args)


def test_traced_index_arrays_match_numpy():
    i, j = np.array([2, 0, -1]), np.array([[1], [0]])

    def cases(xp, b, i, j, k):
        return {"first": b[i], "middle": b[:, i[:2]], "pair": b[j, :, i], "apart": b[0, i, ::-2][:, j],
                "with_int": b[1, j, i], "scalar_last": b[..., k], "scalar_first": b[k], "mixed": b[[1, 0], i[:2]]}

    args = (Y, i, j, np.int64(-2))
    assert_close(ta.jit(lambda *a: cases(tnp, *a))(*args), cases(np, *args))


def test_array_of_traced_values():
    # autograd's test_array_from_scalars / test_array_from_arrays.
    def cases(xp, v):
        return {"scalars": xp.array([v[0], 2.0, v[1] * 3]), "nested": xp.array([[v[0], 1], [v[1], v[2]]]),
                "rows": xp.array([v, [1.0, 2.0, 3.0, 4.0]]), "tuple": xp.asarray((v, v), dtype=np.float32)}

    assert_close(ta.jit(lambda v: cases(tnp, v))(V), cases(np, V))
    # Python numbers beside float32 values stay weak, as in JAX (numpy's array() makes them float64).
    v32 = V.astype(np.float32)
    assert_close(ta.jit(lambda v: cases(tnp, v))(v32), {k: a.astype(np.float32) for k, a in cases(np, v32).items()})


# ----------------------------------------------------------------------------
# Derivatives against finite differences, both modes
# ----------------------------------------------------------------------------

def _structure(x, b):
    # tad.reverse, slices, pads, broadcasts and gathers: every pullback rule these functions meet.
    return {"flip": tnp.flip(x, 1), "rot90": tnp.rot90(b, 1, (2, 0)), "roll": tnp.roll(x, (1, -2), (0, 1)),
            "repeat": tnp.repeat(x, [1, 0, 2], axis=0), "split": tnp.array_split(b, 3, 2),
            "diff": tnp.diff(b, 2, 1, prepend=0.5), "negative_steps": x[::-1, 3:0:-2],
            "index_arrays": b[[1, 0], :, [3, 3]], "mask": x[np.array([True, False, True])],
            "pad_reflect": tnp.pad(x, ((4, 5), (3, 1)), "reflect"), "pad_edge": tnp.pad(x, 2, "edge"),
            "pad_wrap": tnp.pad(x, ((1, 2), (3, 1)), "wrap"), "pad_odd": tnp.pad(x, 2, "symmetric", reflect_type="odd"),
            "pad_max": tnp.pad(x, 1, "maximum"), "pad_ramp": tnp.pad(x, 2, "linear_ramp", end_values=1.0),
            "pad_traced": tnp.pad(x, 1, constant_values=x[0, 0]),
            "array": tnp.array([[x[0, 0], 1.0], [x[1, 1], x[2, 3]]])}


def _matrices(x, b, s):
    return {"tril": tnp.tril(x, -1), "triu": tnp.triu(b, 1), "diag": tnp.diag(x[0], 1),
            "diagonal": tnp.diagonal(b, 1, 2, 0), "trace": tnp.trace(b, -1, 1, 2), "kron": tnp.kron(x[:2, :2], s),
            "cross": tnp.cross(s, s[::-1] * 2.0), "cross_2d": tnp.cross(x[:, :2], x[:, 1:]),
            "einsum_chain": tnp.einsum("ij,jk,kl->il", x, b[0].T, s), "einsum_trace": tnp.einsum("ii", s),
            "einsum_diagonal": tnp.einsum("ijj,kj->ik", s[None] * b[:, :3, :3], s),
            "einsum_batch": tnp.einsum("bij,bkj->bki", b, b),
            "einsum_interleaved": tnp.einsum(x, [0, 1], x, [0, 1], [1])}


def _math(x, b, w):
    return {"hypot": tnp.hypot(x, w), "select": tnp.select([x < 0, x > 1], [x * 2.0, tnp.sin(x)], w),
            "prod": tnp.prod(x, 1), "prod_axes": tnp.prod(b, (0, 2), keepdims=True),
            "average": tnp.average(b, (2, 0), tnp.outer(w, x[0, :2]) ** 2 + 1.0, returned=True),
            "cov": tnp.cov(x, x[::-1] * 2.0, rowvar=False, aweights=w[:3], fweights=np.array([1, 2, 1])),
            "corrcoef": tnp.corrcoef(x), "linspace": tnp.linspace(x[0], w, 5, axis=1),
            "norm": norm(x), "norm_1": norm(x[0], 1), "norm_inf": norm(x[0], np.inf), "norm_p": norm(w, 3),
            "norm_half": norm(w, 0.5), "matrix_1": norm(x, 1), "matrix_inf": norm(b, -np.inf, axis=(2, 1))}


GRADIENTS = {"structure": (_structure, (X, X3)), "matrices": (_matrices, (X, X3, S)), "math": (_math, (X, X3, W))}


@pytest.mark.parametrize("fn, args", GRADIENTS.values(), ids=GRADIENTS.keys())
def test_derivatives_match_finite_differences(fn, args):
    check_grads(fn, args, order=1)


def test_prod_has_exact_derivatives_at_zeros():
    # autograd's test_prod_4: a zero factor; the product of halves needs no division.
    check_grads(lambda x: tnp.prod(x), (np.array([2.0, 0.0, 3.0, 0.5, 1.5]),))
    np.testing.assert_array_equal(ta.grad(tnp.prod)(np.array([2.0, 0.0, 3.0])), [0.0, 6.0, 0.0])


# ----------------------------------------------------------------------------
# Batching, eager calls and errors
# ----------------------------------------------------------------------------

def _batched(xp, a, s, i):
    return {"flip": xp.flip(a, 1)[::-1], "pad": xp.pad(a, ((1, 2), (2, 0)), "reflect"),
            "pad_traced": xp.pad(a, 1, constant_values=a[0, 0]), "diag": xp.diag(a[0], 1),
            "diagonal": xp.diagonal(a, -1),
            "prod": xp.prod(a, 0), "einsum": xp.einsum("ij,kj->ik", a, a), "roll_traced": xp.roll(a, s, 1),
            "roll": xp.roll(a, 2), "index": a[i], "index_middle": a[:, i], "index_pair": a[[0, 2], i],
            "norm": NORM[xp](a, 1), "linspace": xp.linspace(a[0], a[1], 3), "array": xp.array([a[0, 0], s * 1.0]),
            "repeat": xp.repeat(a, [1, 2, 0], 0), "trace": xp.trace(a), "tril": xp.tril(a)}


def test_vmap_matches_a_loop():
    xs, shifts, rows = RNG.standard_normal((5, 3, 4)), np.array([0, 1, -2, 5, 3]), np.array([2, 0, 1, 1, -1])
    got = ta.vmap(lambda *a: _batched(tnp, *a))(xs, shifts, rows)
    rows_of = [_batched(np, xs[k], shifts[k], rows[k]) for k in range(5)]
    assert_close(got, {key: np.stack([r[key] for r in rows_of]) for key in rows_of[0]})


def test_eager_calls_take_numpy_arrays_for_static_parameters():
    assert_close(tnp.repeat(X, np.array([1, 0, 3, 2]), axis=1), np.repeat(X, np.array([1, 0, 3, 2]), axis=1))
    assert_close(tnp.pad(X, np.array([[1, 0], [0, 2]]), "edge"), np.pad(X, np.array([[1, 0], [0, 2]]), "edge"))
    assert_close(tnp.array_split(X, np.array([2, 1]), 1), np.array_split(X, np.array([2, 1]), 1))
    assert_close(tnp.einsum("ij,j->i", X, V), np.einsum("ij,j->i", X, V))
    assert_close(tnp.tile(V, np.array([2, 1])), np.tile(V, np.array([2, 1])))
    assert_close(X3.prod(axis=1), ta.jit(lambda b: b.prod(axis=1))(X3))  # Tracer methods
    assert_close(np.trace(X) + X.diagonal(1) + X.repeat(2)[:3],
                 ta.jit(lambda x: x.trace() + x.diagonal(1) + x.repeat(2)[:3])(X))
    path, report = tnp.einsum_path("ij,jk,kl->il", X[:2, :3], X, np.ones((4, 5)))
    assert path == np.einsum_path("ij,jk,kl->il", X[:2, :3], X, np.ones((4, 5)), optimize="greedy")[0]
    assert "Optimized" in report or "Complete contraction" in report


ERRORS = {
    "traced_mask": (lambda x: x[x > 0], TracingError, "traced boolean mask"),
    "mask_shape": (lambda x: x[np.array([True, False])], IndexError, "boolean index did not match"),
    "bool_scalar": (lambda x: x[True], TracingError, "boolean scalar"),
    "float_index_array": (lambda x: x[np.array([0.5])], IndexError, "integer type"),
    "out_of_bounds": (lambda x: x[[0, 4]], IndexError, "index 4 is out of bounds"),
    "traced_repeats": (lambda x: tnp.repeat(x, tnp.array([1, 2, 3])), TracingError, "repeats must be concrete"),
    "negative_repeats": (lambda x: tnp.repeat(x, -1), ValueError, "non-negative"),
    "unequal_split": (lambda x: tnp.split(x, 2), ValueError, "equal division"),
    "pad_mode": (lambda x: tnp.pad(x, 1, "median"), NotImplementedError, "pad mode 'median'"),
    "pad_negative": (lambda x: tnp.pad(x, -1), ValueError, "negative"),
    "pad_keyword": (lambda x: tnp.pad(x, 1, "edge", constant_values=1), ValueError, "unsupported keyword"),
    "select_condition": (lambda x: tnp.select([x], [x]), TypeError, "should be boolean"),
    "select_lengths": (lambda x: tnp.select([x > 0], []), ValueError, "same length"),
    "norm_nuclear": (lambda x: norm(x, "nuc"), NotImplementedError, "singular values"),
    "norm_vector_order": (lambda x: norm(x[0], "fro"), ValueError, "Invalid norm order 'fro' for vectors"),
    "norm_matrix_order": (lambda x: norm(x, 3), ValueError, "Invalid norm order for matrices"),
    "einsum_sizes": (lambda x: tnp.einsum("ij,ij", x, x.T), ValueError, "does not match"),
    "cross_size": (lambda x: tnp.cross(x, x), ValueError, "dimension must be 2 or 3"),
    "diagonal_1d": (lambda x: tnp.diagonal(x[0]), ValueError, "at least two dimensions"),
    "rot90_axes": (lambda x: tnp.rot90(x, axes=(0, 0)), ValueError, "Axes must be different"),
    "roll_shifts": (lambda x: tnp.roll(x, tnp.array([1, 2]), 0), ValueError, "2 shifts for 1 axes"),
    "clip_bounds": (lambda x: tnp.clip(x, 0.0, min=1.0), ValueError, "same bound"),
}


@pytest.mark.parametrize("fn, error, match", ERRORS.values(), ids=ERRORS.keys())
def test_errors(fn, error, match):
    with pytest.raises(error, match=match):
        ta.jit(fn)(X)
