"""numpy's set operations on flattened arrays: isin, intersect1d, union1d, setdiff1d, setxor1d, unique_*.

Membership is a binary search (``searchsorted``) in the sorted test values.
A set's elements are the first of each run of equal values in a sorted
array (:func:`tensorad.numpy.sorting.sorted_unique_rows`) that pass the
operation's test, packed to the front (the first ``size`` true positions of
the mask, found by ``searchsorted`` in its running count).

How many elements a result has depends on the data, so it is static, as in
JAX: a traced input needs ``size=``; the result is padded with
``fill_value`` (by default the smallest element, 0 for ``setdiff1d``: JAX's)
or truncated. Concrete inputs, eagerly, may leave ``size`` out.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> tnp.intersect1d(np.array([3, 1, 2, 1]), np.array([1, 3, 5]))
array([1, 3])
>>> ta.jit(lambda a, b: tnp.union1d(a, b, size=5, fill_value=-1))(np.array([3, 1]), np.array([1, 4]))
array([ 1,  3,  4, -1, -1])
"""

from __future__ import annotations

import operator
from collections import namedtuple

import numpy as np

from .. import dtypes
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (any as reduce_any, arange, argsort, asarray, astype, concatenate, equal, full, int64, logical_and,
               logical_not, minimum, ravel, reshape, searchsorted, sort, take, where, zeros)
from .sorting import first_true_positions, sorted_unique_rows, unique

__all__ = ["intersect1d", "isin", "setdiff1d", "setxor1d", "union1d", "unique_all", "unique_counts",
           "unique_inverse", "unique_values"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def static_size(size, arrays: tuple, name: str, count) -> int:
    """``size``, or ``count(*arrays)`` of concrete arrays; a traced array without ``size`` is an error."""
    if size is not None:
        return operator.index(size)
    if any(isinstance(a, Tracer) for a in arrays):
        raise TracingError(f"{user_line()}: {name} of a traced array needs a static size=...: how many values "
                           "the result has is known only when the compiled code runs")
    return int(count(*(np.asarray(a) for a in arrays)))


def _flat_pair(ar1, ar2) -> tuple:
    """``ar1`` and ``ar2`` flattened, in their common dtype."""
    a, b = ravel(asarray(ar1)), ravel(asarray(ar2))
    dtype = dtypes.result_type(a, b)
    return astype(a, dtype), astype(b, dtype)


@emits_ops
def isin(element, test_elements, assume_unique: bool = False, invert: bool = False, *, method: str = "auto"):
    """Whether each element of ``element`` is in ``test_elements`` (shaped like ``element``).

    A binary search in the sorted test values (complex ones: compared with
    each); ``assume_unique`` and ``method`` are accepted for numpy's and
    JAX's signatures. NaN is in no array.

    Examples
    --------
    >>> isin(np.array([[1, 2], [3, 4]]), np.array([4, 1]))
    array([[ True, False],
           [False,  True]])
    """
    x, tests = asarray(element), ravel(asarray(test_elements))
    dtype = dtypes.result_type(x, tests)
    x, tests = astype(x, dtype), astype(tests, dtype)
    if tests.shape[0] == 0:
        found = zeros(x.shape, bool)
    elif dtypes.is_complex(dtype):  # no order to search in
        found = reduce_any(equal(x[..., None], tests), -1)
    else:
        ordered = sort(tests)
        flat = ravel(x)
        place = minimum(searchsorted(ordered, flat), tests.shape[0] - 1)
        found = reshape(equal(take(ordered, place), flat), x.shape)
    return logical_not(found) if invert else found


def _packed(ordered: Tracer, keep: Tracer, size: int, fill_value, default_fill) -> tuple:
    """(the first ``size`` elements of ``ordered`` where ``keep``, padded; their positions; how many there are).

    ``default_fill`` None: pad with the smallest kept element (0 if none).
    """
    positions, total = first_true_positions(keep, size)
    values = take(ordered, positions)
    present = arange(size) < total
    if fill_value is None and default_fill is None:
        fill_value = where(total > 0, values[0], 0) if size else 0
    fill = fill_value if fill_value is not None else default_fill
    return where(present, values, astype(asarray(fill), ordered.dtype)), positions, present


def intersect1d(ar1, ar2, assume_unique: bool = False, return_indices: bool = False, *, size: int | None = None,
                fill_value=None):
    """The sorted values in both ``ar1`` and ``ar2`` (flattened); with ``return_indices``, also where each
    first occurs in ``ar1`` and in ``ar2``.

    Padding indices are ``ar1.size`` and ``ar2.size`` (JAX's);
    ``assume_unique`` is accepted and not needed.

    Examples
    --------
    >>> intersect1d(np.array([4, 1, 3]), np.array([3, 4, 4]), return_indices=True)
    (array([3, 4]), array([2, 0]), array([0, 1]))
    """
    size = static_size(size, (ar1, ar2), "intersect1d", lambda a, b: np.intersect1d(a, b).size)
    return _intersect1d(ar1, ar2, return_indices, size, fill_value)


@emits_ops
def _intersect1d(ar1, ar2, return_indices: bool, size: int, fill_value):
    a, b = _flat_pair(ar1, ar2)
    if a.shape[0] == 0 or b.shape[0] == 0:
        values = full((size,), 0 if fill_value is None else fill_value, a.dtype)
        nowhere = (full((size,), a.shape[0], int64), full((size,), b.shape[0], int64))
        return (values,) + nowhere if return_indices else values
    ordered, first, order = sorted_unique_rows(a, equal_nan=True)
    values, positions, present = _packed(ordered, logical_and(first, isin(ordered, b)), size, fill_value, None)
    if not return_indices:
        return values
    index1 = where(present, take(order, positions), a.shape[0])
    # The stable sort of ar2 puts each value's first occurrence first among its equals.
    order2 = argsort(b)
    found = minimum(searchsorted(take(b, order2), take(ordered, positions)), b.shape[0] - 1)
    index2 = where(present, take(order2, found), b.shape[0])
    return values, index1, index2


def union1d(ar1, ar2, *, size: int | None = None, fill_value=None) -> Tracer:
    """The sorted values in ``ar1`` or ``ar2`` (flattened).

    Examples
    --------
    >>> union1d(np.array([3, 1]), np.array([[2, 3]]))
    array([1, 2, 3])
    """
    size = static_size(size, (ar1, ar2), "union1d", lambda a, b: np.union1d(a, b).size)
    return _union1d(ar1, ar2, size, fill_value)


@emits_ops
def _union1d(ar1, ar2, size: int, fill_value) -> Tracer:
    return unique(concatenate(_flat_pair(ar1, ar2)), size=size, fill_value=fill_value)


def setdiff1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None) -> Tracer:
    """The sorted values of ``ar1`` that are not in ``ar2`` (padding: ``fill_value``, else 0).

    Examples
    --------
    >>> setdiff1d(np.array([5, 1, 3, 1]), np.array([3]))
    array([1, 5])
    """
    size = static_size(size, (ar1, ar2), "setdiff1d", lambda a, b: np.setdiff1d(a, b).size)
    return _setdiff1d(ar1, ar2, size, fill_value)


@emits_ops
def _setdiff1d(ar1, ar2, size: int, fill_value) -> Tracer:
    a, b = _flat_pair(ar1, ar2)
    if a.shape[0] == 0:
        return full((size,), 0 if fill_value is None else fill_value, a.dtype)
    ordered, first, _ = sorted_unique_rows(a, equal_nan=True)
    return _packed(ordered, logical_and(first, isin(ordered, b, invert=True)), size, fill_value, 0)[0]


def setxor1d(ar1, ar2, assume_unique: bool = False, *, size: int | None = None, fill_value=None) -> Tracer:
    """The sorted values in exactly one of ``ar1`` and ``ar2``.

    Examples
    --------
    >>> setxor1d(np.array([1, 2, 3]), np.array([2, 3, 4]))
    array([1, 4])
    """
    size = static_size(size, (ar1, ar2), "setxor1d", lambda a, b: np.setxor1d(a, b).size)
    return _setxor1d(ar1, ar2, size, fill_value)


@emits_ops
def _setxor1d(ar1, ar2, size: int, fill_value) -> Tracer:
    a, b = _flat_pair(ar1, ar2)
    both = concatenate([a, b])
    if both.shape[0] == 0:
        return full((size,), 0 if fill_value is None else fill_value, both.dtype)
    ordered, first, _ = sorted_unique_rows(both, equal_nan=True)
    in_one = logical_not(logical_and(isin(ordered, a), isin(ordered, b)))
    return _packed(ordered, logical_and(first, in_one), size, fill_value, None)[0]


def unique_values(x, /, *, size: int | None = None, fill_value=None) -> Tracer:
    """The sorted unique values of ``x`` (flattened; NaNs all kept), the array API's :func:`unique`.

    Examples
    --------
    >>> unique_values(np.array([[2, 1], [2, 3]]))
    array([1, 2, 3])
    """
    return unique(x, equal_nan=False, size=size, fill_value=fill_value)


def unique_counts(x, /, *, size: int | None = None, fill_value=None) -> UniqueCountsResult:
    """``UniqueCountsResult(values, counts)``: the unique values of ``x`` and how often each occurs.

    Examples
    --------
    >>> unique_counts(np.array([2, 1, 2]))
    UniqueCountsResult(values=array([1, 2]), counts=array([1, 2]))
    """
    return UniqueCountsResult(*unique(x, return_counts=True, equal_nan=False, size=size, fill_value=fill_value))


def unique_inverse(x, /, *, size: int | None = None, fill_value=None) -> UniqueInverseResult:
    """``UniqueInverseResult(values, inverse_indices)``: the unique values, and which one each element of
    ``x`` is (shaped like ``x``).

    Examples
    --------
    >>> unique_inverse(np.array([2, 1, 2]))
    UniqueInverseResult(values=array([1, 2]), inverse_indices=array([1, 0, 1]))
    """
    return UniqueInverseResult(*unique(x, return_inverse=True, equal_nan=False, size=size, fill_value=fill_value))


def unique_all(x, /, *, size: int | None = None, fill_value=None) -> UniqueAllResult:
    """``UniqueAllResult(values, indices, inverse_indices, counts)``: :func:`unique` with all it returns.

    Examples
    --------
    >>> unique_all(np.array([2, 1, 2])).indices
    array([1, 0])
    """
    return UniqueAllResult(*unique(x, return_index=True, return_inverse=True, return_counts=True,
                                   equal_nan=False, size=size, fill_value=fill_value))
