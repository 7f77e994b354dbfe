"""Element types: numpy dtypes, their MLIR types and numpy's promotion rules.

tensorad follows numpy (NEP 50): Python scalars are weakly typed, so
``float32_array * 2.0`` stays float32 while ``int32_array * 2.5`` is float64.

Examples
--------
>>> import numpy as np
>>> result_type(np.dtype("float32"), 2.0)
dtype('float32')
>>> result_type(np.dtype("int32"), np.dtype("float32"))
dtype('float64')
"""

from __future__ import annotations

import numpy as np
from mlir import ir

SUPPORTED = tuple(np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64"))
_MLIR_NAMES = {"bool": "i1", "int32": "i32", "int64": "i64", "float32": "f32", "float64": "f64"}
_FROM_MLIR = {v: np.dtype(k) for k, v in _MLIR_NAMES.items()}


def check_supported(dtype) -> np.dtype:
    """Return ``np.dtype(dtype)`` or raise ``TypeError`` for a dtype tensorad does not compile.

    Examples
    --------
    >>> check_supported("float64")
    dtype('float64')
    """
    dt = np.dtype(dtype)
    if dt not in SUPPORTED:
        names = ", ".join(d.name for d in SUPPORTED)
        raise TypeError(f"dtype {dt.name} is not supported; tensorad compiles {names}")
    return dt


def to_mlir(dtype) -> ir.Type:
    """MLIR element type of a numpy dtype (needs an active context).

    Examples
    --------
    >>> with ir.Context():
    ...     str(to_mlir("float32"))
    'f32'
    """
    return ir.Type.parse(_MLIR_NAMES[check_supported(dtype).name])


def tensor_type(shape, dtype) -> ir.RankedTensorType:
    """The MLIR tensor type of an array of ``shape`` and numpy ``dtype`` (needs an active context).

    Examples
    --------
    >>> with ir.Context(), ir.Location.unknown():
    ...     str(tensor_type((2, 3), "float64"))
    'tensor<2x3xf64>'
    """
    return ir.RankedTensorType.get(list(shape), to_mlir(dtype))


def from_mlir(element_type: ir.Type) -> np.dtype:
    """numpy dtype of an MLIR element type.

    Examples
    --------
    >>> with ir.Context():
    ...     from_mlir(ir.F64Type.get())
    dtype('float64')
    """
    try:
        return _FROM_MLIR[str(element_type)]
    except KeyError:
        raise TypeError(f"element type {element_type} has no numpy dtype tensorad supports "
                        f"(supported: {', '.join(sorted(_FROM_MLIR))})") from None


def result_type(*operands) -> np.dtype:
    """numpy's promotion of dtypes and (weakly typed) Python scalars.

    Operands may be dtypes, numpy arrays, traced arrays (anything with a
    ``dtype``), Python scalars or nested lists of them.
    """
    args = [op if isinstance(op, (bool, int, float, np.dtype))
            else (op.dtype if hasattr(op, "dtype") else np.asarray(op).dtype) for op in operands]
    return check_supported(np.result_type(*args))


def is_float(dtype) -> bool:
    """True for floating-point dtypes."""
    return np.dtype(dtype).kind == "f"


def is_bool(dtype) -> bool:
    """True for the boolean dtype."""
    return np.dtype(dtype).kind == "b"


def float_of(dtype) -> np.dtype:
    """The dtype numpy computes in for float-only functions (``exp``, ``/`` ...): ints -> float64.

    Examples
    --------
    >>> float_of("int32"), float_of("float32")
    (dtype('float64'), dtype('float32'))
    """
    return np.dtype(dtype) if is_float(dtype) else np.dtype("float64")
