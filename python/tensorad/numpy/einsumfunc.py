"""``einsum``: Einstein summation as ``tad.dot_general`` contractions, in the order ``opt_einsum`` chooses.

As JAX does, ``opt_einsum.contract_path`` picks the order of pairwise
contractions (``optimize``: ``"auto"`` by default, ``"greedy"``,
``"optimal"``, ... or an explicit path; ``False`` contracts left to right).
Each step becomes at most: diagonals of repeated indices (strided slices),
sums of indices that only one operand has, one ``dot_general`` (batch dims
are the indices both operands and the result share) and a transpose.
Ellipses, implicit output (indices that appear once, in alphabetical
order), the interleaved form ``einsum(a, [0, 1], b, [1, 2])`` and size-1
broadcasting follow numpy.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
>>> ta.jit(lambda a, b: tnp.einsum("ij,jk->ki", a, b))(a, b).shape
(4, 2)
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import opt_einsum

from tensorad.dialects import builder

from .. import dtypes
from ..tracing import Tracer, emits_ops
from . import asarray, astype, bool_, int64, not_equal, reshape, transpose
from . import sum as reduce_sum
from .matrices import diagonal


def _contraction_path(subscripts, operands: tuple, optimize):
    """``(arrays, steps)``: the operands as traced arrays and opt_einsum's contraction list."""
    if isinstance(subscripts, str):
        arrays = [asarray(a) for a in operands]
        spec = [subscripts] + arrays
    else:  # interleaved: array, sublist, array, sublist, ..., [output sublist]
        spec = [subscripts, *operands]
        arrays = [asarray(a) for a in spec[0::2][:len(spec) // 2]]
        spec[0:2 * len(arrays):2] = arrays
    if optimize is False:  # numpy's default: no reordering, left to right
        optimize = [(0, 1)] * (len(arrays) - 1) or [(0,)]
    elif isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        optimize = list(optimize[1:])  # a path from numpy's einsum_path
    return opt_einsum.contract_path(*spec, einsum_call=True, use_blas=True, optimize=optimize)


def _take_diagonals(x: Tracer, names: str, keep: str):
    """Diagonals of the indices that ``names`` repeats; those not in ``keep`` are summed too."""
    for name, count in Counter(names).items():
        for _ in range(count - 1):
            first = names.index(name)
            second = names.index(name, first + 1)
            x = diagonal(x, 0, first, second)  # the diagonal becomes the last axis
            names = names[:first] + names[first + 1:second] + names[second + 1:] + name
    return _sum_out(x, names, [n for n in set(names) if n not in keep])


def _sum_out(x: Tracer, names: str, summed) -> tuple:
    """``x`` summed over the axes of ``summed`` (names that appear once), and its remaining names."""
    axes = [names.index(n) for n in summed]
    if not axes:
        return x, names
    return reduce_sum(x, tuple(axes)), "".join(n for i, n in enumerate(names) if i not in axes)


def _drop_broadcast_dims(x: Tracer, names: str, other: Tracer, other_names: str) -> tuple:
    """Squeeze the size-1 dims of ``x`` whose index has a larger size in ``other`` (numpy broadcasting)."""
    keep = [x.shape[i] != 1 or n not in other_names or other.shape[other_names.index(n)] == 1
            for i, n in enumerate(names)]
    if all(keep):
        return x, names
    return reshape(x, [s for s, k in zip(x.shape, keep) if k]), "".join(n for n, k in zip(names, keep) if k)


def _contract_pair(lhs: Tracer, lhs_names: str, rhs: Tracer, rhs_names: str, removed, result_names: str):
    """One ``dot_general`` of two operands; returns the result and its index names."""
    lhs, lhs_names = _drop_broadcast_dims(lhs, lhs_names, rhs, rhs_names)
    rhs, rhs_names = _drop_broadcast_dims(rhs, rhs_names, lhs, lhs_names)
    lhs, lhs_names = _take_diagonals(lhs, lhs_names, result_names + rhs_names)
    rhs, rhs_names = _take_diagonals(rhs, rhs_names, result_names + lhs_names)
    lhs, lhs_names = _sum_out(lhs, lhs_names, [n for n in removed if n in lhs_names and n not in rhs_names])
    rhs, rhs_names = _sum_out(rhs, rhs_names, [n for n in removed if n in rhs_names and n not in lhs_names])
    shared = set(lhs_names) & set(rhs_names)
    batch = [n for n in result_names if n in shared]
    contracted = sorted(shared - set(batch))
    lhs_free = "".join(n for n in lhs_names if n not in shared)
    rhs_free = "".join(n for n in rhs_names if n not in shared)
    # opt_einsum tends to put the result's indices in (rhs, lhs) order: try it to save a transpose.
    if "".join(batch) + rhs_free + lhs_free == result_names:
        (lhs, lhs_names, lhs_free), (rhs, rhs_names, rhs_free) = (rhs, rhs_names, rhs_free), (lhs, lhs_names, lhs_free)
    out = builder.dot_general(lhs.value, rhs.value, [lhs_names.index(n) for n in batch],
                              [rhs_names.index(n) for n in batch], [lhs_names.index(n) for n in contracted],
                              [rhs_names.index(n) for n in contracted])
    return Tracer.of(out), "".join(batch) + lhs_free + rhs_free


@emits_ops
def einsum(subscripts, *operands, optimize="auto", dtype=None, preferred_element_type=None) -> Tracer:
    """Einstein summation over the indices named by ``subscripts`` (numpy's notation).

    ``dtype`` converts the operands first (numpy); ``preferred_element_type``
    converts the result (JAX). Booleans contract as integers and give
    whether any product is true, as numpy's do.

    Examples
    --------
    >>> einsum("ii", np.arange(9.0).reshape(3, 3))
    array(12.)
    >>> einsum("i...,i->...", np.ones((2, 3)), np.array([1.0, 2.0]))
    array([3., 3., 3.])
    """
    arrays, steps = _contraction_path(subscripts, operands, optimize)
    dtype = dtypes.result_type(*arrays) if dtype is None else np.dtype(dtype)
    compute = int64 if dtype == bool_ else dtype
    arrays = [astype(a, compute) for a in arrays]
    for positions, removed, step, *_ in steps:
        inputs, result_names = step.split("->")
        names = inputs.split(",")
        picked = [arrays.pop(i) for i in positions]
        if len(picked) == 1:
            out, out_names = _take_diagonals(picked[0], names[0], result_names)
        else:
            out, out_names = _contract_pair(picked[0], names[0], picked[1], names[1], removed, result_names)
        if out_names != result_names:
            out = transpose(out, [out_names.index(n) for n in result_names])
        arrays.append(out)
    out = not_equal(arrays[0], 0) if dtype == bool_ else arrays[0]
    return out if preferred_element_type is None else astype(out, preferred_element_type)


def einsum_path(subscripts, *operands, optimize="greedy") -> tuple:
    """The contraction order :func:`einsum` would follow, and opt_einsum's report of it (numpy's format).

    Only the operands' shapes matter: they may be arrays or traced arrays.

    Examples
    --------
    >>> path, report = einsum_path("ij,jk,kl->il", np.ones((2, 3)), np.ones((3, 4)), np.ones((4, 5)))
    >>> path
    ['einsum_path', (1, 2), (0, 1)]
    """
    if optimize is False:
        optimize = [(0, 1)] * (len(operands) - 1) or [(0,)]
    shapes = [np.empty(a.shape if isinstance(a, Tracer) else np.shape(a), dtype=np.bool_) for a in operands]
    path, info = opt_einsum.contract_path(subscripts, *shapes, optimize=optimize)
    return ["einsum_path", *path], str(info)
