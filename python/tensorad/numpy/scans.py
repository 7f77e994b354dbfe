"""Scans: running sums, products, extrema and log-sum-exps along an axis, and JAX's ``associative_scan``.

A running sum is one ``tad.cumsum`` (a sequential loop in compiled code; its
transpose is the running sum the other way). Every other scan is
:func:`associative_scan` of its binary operation, JAX's log-depth algorithm
built from strided slices, pads and the elementwise operation, so its
derivatives and batching come from those ops' rules (as JAX defines
``cumprod``, ``cummax``, ``cummin`` and ``cumlogsumexp``).

The ``lax``-style functions (:func:`cumulative`, which ``tensorad.lax``
names ``cumsum``, ``cumprod``, ...) keep the dtype and take ``axis`` and
``reverse``; the numpy ones (:func:`cumsum`, :func:`cumprod`,
:func:`cumulative_sum`, :func:`cumulative_prod`) flatten for ``axis=None``
and accumulate booleans and small integers in int64, as numpy does.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: tnp.cumsum(x, axis=1))(np.arange(6.0).reshape(2, 3))
array([[ 0.,  1.,  3.],
       [ 3.,  7., 12.]])
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from tensorad.dialects import builder

from .. import dtypes, tree
from ..errors import TracingError
from ..tracing import Tracer, emits_ops, user_line
from . import (absolute, add, asarray, astype, bitwise_and, concatenate, equal, exp, getitem, imag, inf, int64, log1p,
               logical_and, maximum, minimum, multiply, ones, ravel, real, reshape, subtract, where, zeros)


def _axis(axis: int, ndim: int, what: str) -> int:
    if not -ndim <= axis < ndim:
        raise TracingError(f"{user_line()}: {what}: axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def _along(x: Tracer, axis: int, start, stop, step=None) -> Tracer:
    """``x[start:stop:step]`` along ``axis``."""
    return getitem(x, (slice(None),) * axis + (slice(start, stop, step),))


def _reversed(x: Tracer, axis: int) -> Tracer:
    return Tracer.of(builder.reverse(x.value, [axis]))


def _interleave(even: Tracer, odd: Tracer, axis: int) -> Tracer:
    """``even[0], odd[0], even[1], odd[1], ...`` along ``axis`` (``even`` as long as ``odd`` or one longer).

    Each is padded with gaps between its elements (``tad.pad`` interior
    padding) and the two are merged by the parity of the position.
    """
    same = even.shape[axis] == odd.shape[axis]
    zero = zeros((), even.dtype).value

    def spread(x, low, high):
        lows, highs, interior = [0] * x.ndim, [0] * x.ndim, [0] * x.ndim
        lows[axis], highs[axis], interior[axis] = low, high, 1
        return Tracer.of(builder.pad(x.value, zero, lows, highs, interior))

    a, b = spread(even, 0, 1 if same else 0), spread(odd, 1, 0 if same else 1)
    position = Tracer.of(builder.iota(a.shape, axis, dtypes.to_mlir(int64)))
    return where(equal(bitwise_and(position, 1), 0), a, b)


@emits_ops
def associative_scan(fn: Callable, elems, reverse: bool = False, axis: int = 0):
    """All prefix combinations ``fn(...fn(fn(e[0], e[1]), e[2])..., e[i])`` of ``elems`` along ``axis``.

    JAX's ``lax.associative_scan``: ``fn`` must be associative and combine
    pytrees of arrays elementwise (it is called on whole slices, not on
    elements); ``elems`` is a pytree of arrays of one length along ``axis``.
    The algorithm combines neighbours, recurses on the half as long result
    and interleaves: ``O(n)`` work in ``O(log n)`` steps of slices, pads and
    ``fn``. With ``reverse`` the prefixes run from the end.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jit(lambda x: associative_scan(tnp.maximum, x))(np.array([1.0, 3.0, 2.0, 5.0, 4.0]))
    array([1., 3., 3., 5., 5.])
    """
    leaves, treedef = tree.flatten(elems)
    if not leaves:
        raise TracingError(f"{user_line()}: associative_scan needs at least one array in elems")
    leaves = [asarray(x) for x in leaves]
    if any(x.ndim == 0 for x in leaves):
        raise TracingError(f"{user_line()}: associative_scan needs arrays of rank 1 or more in elems")
    axis = _axis(axis, leaves[0].ndim, "associative_scan")
    lengths = {x.shape[axis] if x.ndim > axis else None for x in leaves}
    if len(lengths) != 1 or None in lengths:
        raise TracingError(f"{user_line()}: associative_scan needs elems of one length along axis {axis}, "
                           f"got shapes {[x.shape for x in leaves]}")
    if reverse:
        leaves = [_reversed(x, axis) for x in leaves]

    def combine(a: list, b: list) -> list:
        out, out_tree = tree.flatten(fn(tree.unflatten(treedef, a), tree.unflatten(treedef, b)))
        out = [asarray(x) for x in out]
        if out_tree != treedef or [x.shape for x in out] != [x.shape for x in a]:
            raise TracingError(f"{user_line()}: associative_scan: fn must return the structure and shapes of "
                               f"its arguments ({treedef}, {[x.shape for x in a]}), got {out_tree}, "
                               f"{[x.shape for x in out]}")
        return out

    def scan(elems: list) -> list:
        n = elems[0].shape[axis]
        if n < 2:
            return elems
        # Combine neighbours, scan the pairs: the prefixes at the odd positions.
        odd = scan(combine([_along(e, axis, 0, n - 1, 2) for e in elems],
                           [_along(e, axis, 1, None, 2) for e in elems]))
        if n < 3:  # no even position after the first
            even = [_along(e, axis, 0, 1) for e in elems]
        else:
            # An even position adds its element to the odd prefix before it.
            before = odd if n % 2 else [_along(o, axis, 0, -1) for o in odd]
            rest = combine(before, [_along(e, axis, 2, None, 2) for e in elems])
            even = [concatenate([_along(e, axis, 0, 1), r], axis) for e, r in zip(elems, rest)]
        return [_interleave(e, o, axis) for e, o in zip(even, odd)]

    out = scan(leaves)
    if reverse:
        out = [_reversed(x, axis) for x in out]
    return tree.unflatten(treedef, out)


def logaddexp(a, b) -> Tracer:
    """``log(exp(a) + exp(b))`` without overflow: the larger one plus ``log1p(exp(-|a - b|))``."""
    a, b = asarray(a), asarray(b)
    larger = maximum(a, b)
    # Two equal infinities (both -inf in particular) give inf - inf: their sum is the larger one.
    spread = log1p(exp(multiply(absolute(subtract(a, b)), -1.0)))
    same_infinity = logical_and(equal(a, b), equal(absolute(larger), inf))
    return where(same_infinity, larger, add(larger, spread))


_COMBINE = {"prod": multiply, "max": maximum, "min": minimum, "logsumexp": logaddexp}


@emits_ops
def cumulative(kind: str, operand, axis: int = 0, reverse: bool = False) -> Tracer:
    """The running ``kind`` (``sum``, ``prod``, ``max``, ``min``, ``logsumexp``) of ``operand`` along ``axis``.

    ``tensorad.lax``'s ``cumsum``, ``cumprod``, ``cummax``, ``cummin`` and
    ``cumlogsumexp``: the dtype is kept, ``reverse`` runs from the end. A
    running sum is one ``tad.cumsum``; the others are
    :func:`associative_scan` of ``multiply``, ``maximum``, ``minimum`` and a
    log-add-exp (NaN propagates through ``max`` and ``min``).

    Examples
    --------
    >>> import numpy as np
    >>> cumulative("max", np.array([2.0, 1.0, 4.0, 3.0]), reverse=True)
    array([4., 4., 4., 3.])
    """
    x = asarray(operand)
    if x.ndim == 0:
        raise TracingError(f"{user_line()}: cum{kind} needs an array of rank 1 or more")
    axis = _axis(axis, x.ndim, f"cum{kind}")
    if dtypes.is_bool(x.dtype) and kind in ("sum", "prod", "logsumexp"):
        raise TypeError(f"cum{kind} of a bool array: convert it to a number type first")
    if kind == "logsumexp" and not dtypes.is_float(x.dtype):
        raise TypeError(f"cumlogsumexp needs a floating-point array, got {x.dtype.name}")
    if dtypes.is_complex(x.dtype) and kind in ("max", "min"):
        raise TypeError(f"cum{kind} of complex numbers is not supported (they have no order)")
    if kind == "sum":
        if dtypes.is_complex(x.dtype):  # the parts' sums
            return Tracer.of(builder.make_complex(cumulative("sum", real(x), axis, reverse).value,
                                                  cumulative("sum", imag(x), axis, reverse).value))
        return Tracer.of(builder.cumsum(x.value, axis, reverse))
    if kind not in _COMBINE:
        raise ValueError(f"unknown running reduction {kind!r}: use sum, prod, max, min or logsumexp")
    return associative_scan(_COMBINE[kind], x, reverse=reverse, axis=axis)


def _numpy_operand(a, axis, dtype, name: str) -> tuple:
    """numpy's operand of a running sum or product: (array in the accumulation dtype, axis)."""
    x = asarray(a)
    if axis is None:
        x, axis = ravel(x), 0
    if dtype is None:
        # numpy accumulates booleans and integers narrower than the platform's in 64 bits.
        narrow = x.dtype.kind in "iu" and x.dtype.itemsize < 8
        dtype = np.dtype("uint64") if narrow and x.dtype.kind == "u" else \
            int64 if narrow or x.dtype.kind == "b" else x.dtype
    x = astype(x, dtype)
    if x.ndim == 0:
        x = reshape(x, (1,))
    return x, _axis(axis, x.ndim, name)


@emits_ops
def cumsum(a, axis=None, dtype=None) -> Tracer:
    """numpy's ``cumsum``: running sums along ``axis`` (of the flattened array when None).

    Booleans and integers narrower than 64 bits accumulate in int64, as numpy's.

    Examples
    --------
    >>> cumsum(np.array([[True, False], [True, True]]))
    array([1, 1, 2, 3])
    """
    x, axis = _numpy_operand(a, axis, dtype, "cumsum")
    return cumulative("sum", x, axis)


@emits_ops
def cumprod(a, axis=None, dtype=None) -> Tracer:
    """numpy's ``cumprod``: running products along ``axis`` (of the flattened array when None).

    Examples
    --------
    >>> cumprod(np.array([1.0, 2.0, 3.0, 4.0]))
    array([ 1.,  2.,  6., 24.])
    """
    x, axis = _numpy_operand(a, axis, dtype, "cumprod")
    return cumulative("prod", x, axis)


def _with_initial(kind: str, x, axis, dtype, include_initial: bool, name: str) -> Tracer:
    x = asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise TracingError(f"{user_line()}: {name} needs axis for an array of dimension {x.ndim}")
        axis = 0
    x, axis = _numpy_operand(x, axis, dtype, name)
    out = cumulative(kind, x, axis)
    if not include_initial:
        return out
    shape = list(out.shape)
    shape[axis] = 1
    first = (zeros if kind == "sum" else ones)(shape, out.dtype)
    return concatenate([first, out], axis)


@emits_ops
def cumulative_sum(x, axis=None, dtype=None, include_initial: bool = False) -> Tracer:
    """numpy 2's ``cumulative_sum``: :func:`cumsum` whose ``include_initial`` puts a 0 first.

    Examples
    --------
    >>> cumulative_sum(np.array([1.0, 2.0, 3.0]), include_initial=True)
    array([0., 1., 3., 6.])
    """
    return _with_initial("sum", x, axis, dtype, include_initial, "cumulative_sum")


@emits_ops
def cumulative_prod(x, axis=None, dtype=None, include_initial: bool = False) -> Tracer:
    """numpy 2's ``cumulative_prod``: :func:`cumprod` whose ``include_initial`` puts a 1 first.

    Examples
    --------
    >>> cumulative_prod(np.array([2, 3]), include_initial=True)
    array([1, 2, 6])
    """
    return _with_initial("prod", x, axis, dtype, include_initial, "cumulative_prod")

