"""Questions about objects, dtypes and shapes, answered in Python while tracing (no ops are emitted).

A traced array answers by its static dtype and shape, as a numpy array does;
``bfloat16`` (an extension dtype to numpy) counts as a real floating dtype,
as in JAX.

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> ta.jit(lambda x: x * tnp.size(x) if tnp.isdtype(x.dtype, "real floating") else x)(np.ones(2))
array([2., 2.])
"""

from __future__ import annotations

import numpy as np

from .. import dtypes
from ..tracing import Tracer


def _dtype_of(x) -> np.dtype:
    """The dtype of an array, traced array, scalar or dtype-like ``x``."""
    if isinstance(x, Tracer):
        return x.dtype
    if isinstance(x, (np.dtype, type, str)):
        return np.dtype(x)
    return np.asarray(x).dtype


def isscalar(element) -> bool:
    """Whether ``element`` is a scalar: a Python or numpy number, a string, or a 0-d array (traced or not), as JAX's.

    Examples
    --------
    >>> isscalar(1.0), isscalar(np.float32(2)), isscalar(np.array(3.0)), isscalar([1.0])
    (True, True, True, False)
    """
    if np.isscalar(element):
        return True
    return isinstance(element, (np.ndarray, Tracer)) and element.ndim == 0


def iscomplexobj(x) -> bool:
    """Whether ``x`` (an array, traced array, scalar or dtype) has a complex dtype.

    Examples
    --------
    >>> iscomplexobj(np.ones(2)), iscomplexobj(1j)
    (False, True)
    """
    return _dtype_of(x).kind == "c"


def isrealobj(x) -> bool:
    """Whether ``x`` (an array, traced array, scalar or dtype) does not have a complex dtype.

    Examples
    --------
    >>> isrealobj(np.ones(2)), isrealobj(np.complex64(1))
    (True, False)
    """
    return not iscomplexobj(x)


def _numpy_stand_in(dtype) -> np.dtype:
    """``dtype``, or float16 for bfloat16: numpy's dtype queries do not know that it is a float."""
    dtype = np.dtype(dtype)
    return np.dtype(np.float16) if dtype == dtypes.bfloat16 else dtype


def isdtype(dtype, kind) -> bool:
    """The array API's dtype test: ``kind`` is a dtype, one of ``"bool"``, ``"signed integer"``,
    ``"unsigned integer"``, ``"integral"``, ``"real floating"``, ``"complex floating"``, ``"numeric"``, or a
    tuple of them.

    Examples
    --------
    >>> isdtype(np.float32, "real floating"), isdtype(np.int64, ("bool", "integral")), isdtype(np.int32, np.int64)
    (True, True, False)
    """
    dtype = np.dtype(dtype)
    kinds = kind if isinstance(kind, tuple) else (kind,)
    for k in kinds:
        if isinstance(k, str):
            if np.isdtype(_numpy_stand_in(dtype), k):
                return True
        elif np.dtype(k) == dtype:
            return True
    return False


def issubdtype(arg1, arg2) -> bool:
    """Whether the dtype ``arg1`` is ``arg2`` or below it in numpy's hierarchy (``np.floating``, ``np.integer``,
    ...); ``bfloat16`` is a floating dtype.

    Examples
    --------
    >>> issubdtype(np.float32, np.floating), issubdtype(np.int32, np.floating)
    (True, False)
    """
    if np.dtype(arg1) == dtypes.bfloat16:
        return arg2 in (np.generic, np.number, np.inexact, np.floating) or np.dtype(arg2) == dtypes.bfloat16
    return bool(np.issubdtype(arg1, arg2))


def can_cast(from_, to, casting: str = "safe") -> bool:
    """Whether numpy's ``casting`` rule allows converting ``from_`` (a dtype, array or traced array) to ``to``.

    Examples
    --------
    >>> can_cast(np.int32, np.float64), can_cast(np.float64, np.int32), can_cast(np.float64, np.int32, "unsafe")
    (True, False, True)
    """
    return bool(np.can_cast(_dtype_of(from_), np.dtype(to), casting))


def iterable(y) -> bool:
    """Whether ``iter(y)`` works (a 0-d array, traced or not, is not iterable).

    Examples
    --------
    >>> iterable([1, 2]), iterable(np.array(1.0)), iterable(2)
    (True, False, False)
    """
    try:
        iter(y)
    except TypeError:
        return False
    return True


def broadcast_shapes(*shapes) -> tuple:
    """The shape that arrays of ``shapes`` broadcast to (numpy's rules; ``ValueError`` if they do not).

    Examples
    --------
    >>> broadcast_shapes((2, 1), (3,), ())
    (2, 3)
    """
    return tuple(np.broadcast_shapes(*shapes))


def size(a, axis=None) -> int:
    """The number of elements of ``a`` (along ``axis`` when given).

    Examples
    --------
    >>> size(np.zeros((2, 3))), size(np.zeros((2, 3)), 1), size(5.0)
    (6, 3, 1)
    """
    shape = a.shape if isinstance(a, Tracer) else np.shape(a)
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    return shape[axis]


def finfo(dtype):
    """Machine limits of a floating dtype (bfloat16 and float16 too), as ``ml_dtypes.finfo`` (JAX's) gives them.

    Examples
    --------
    >>> import ml_dtypes
    >>> float(finfo(ml_dtypes.bfloat16).eps), float(finfo(np.float32).eps)
    (0.0078125, 1.1920928955078125e-07)
    """
    import ml_dtypes
    return ml_dtypes.finfo(_dtype_named(dtype))


def iinfo(dtype):
    """Machine limits of an integer dtype, as numpy's ``iinfo``.

    Examples
    --------
    >>> iinfo(np.int32).max
    2147483647
    """
    return np.iinfo(_dtype_named(dtype))


def _dtype_named(x):
    """``x`` if it names a dtype (a dtype, a scalar type, a string), else the dtype of the array ``x``."""
    return x if isinstance(x, (np.dtype, type, str)) else x.dtype
