"""Element types: numpy dtypes, their MLIR types and the promotion rules.

tensorad follows numpy (NEP 50) for booleans, integers, float32 and float64:
Python scalars are weakly typed, so ``float32_array * 2.0`` stays float32
while ``int32_array * 2.5`` is float64. The half-precision types ``float16``
and ``bfloat16`` (numpy-side from ``ml_dtypes``, as JAX's) join the others by
JAX's lattice (``jnp.promote_types``): integers and booleans take the half
type, ``float16`` with ``bfloat16`` is ``float32``, and the wider floats and
the complex types win. ``complex64`` and ``complex128`` promote as in numpy
(and JAX): a complex type joined with a float is the complex type wide enough
for both.

Examples
--------
>>> import numpy as np
>>> result_type(np.dtype("float32"), 2.0)
dtype('float32')
>>> result_type(np.dtype("int32"), np.dtype("float32"))
dtype('float64')
>>> result_type(bfloat16, np.dtype("float16")), result_type(bfloat16, 2.0)
(dtype('float32'), dtype(bfloat16))
>>> result_type(np.dtype("float32"), 1j)
dtype('complex64')
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from mlir import ir

float16 = np.dtype("float16")
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype("float32")
complex64, complex128 = np.dtype("complex64"), np.dtype("complex128")
HALF = (float16, bfloat16)
SUPPORTED = tuple(np.dtype(d) for d in ("bool", "int32", "int64", "float32", "float64")) + HALF + (
    complex64, complex128)
_MLIR_NAMES = {"bool": "i1", "int32": "i32", "int64": "i64", "float32": "f32", "float64": "f64",
               "float16": "f16", "bfloat16": "bf16", "complex64": "complex<f32>", "complex128": "complex<f64>"}
_FROM_MLIR = {v: np.dtype(ml_dtypes.bfloat16 if k == "bfloat16" else k) for k, v in _MLIR_NAMES.items()}


def check_supported(dtype) -> np.dtype:
    """Return ``np.dtype(dtype)`` or raise ``TypeError`` for a dtype tensorad does not compile.

    Examples
    --------
    >>> check_supported("float64"), check_supported("bfloat16")
    (dtype('float64'), dtype(bfloat16))
    """
    dt = bfloat16 if isinstance(dtype, str) and dtype == "bfloat16" else np.dtype(dtype)
    if dt not in SUPPORTED:
        names = ", ".join(d.name for d in SUPPORTED)
        raise TypeError(f"dtype {dt.name} is not supported; tensorad compiles {names}")
    return dt


def to_mlir(dtype) -> ir.Type:
    """MLIR element type of a numpy dtype (needs an active context).

    Examples
    --------
    >>> with ir.Context():
    ...     str(to_mlir("float32")), str(to_mlir(bfloat16)), str(to_mlir("complex128"))
    ('f32', 'bf16', 'complex<f64>')
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
    ...     from_mlir(ir.F64Type.get()), from_mlir(ir.BF16Type.get())
    (dtype('float64'), dtype(bfloat16))
    """
    try:
        return _FROM_MLIR[str(element_type)]
    except KeyError:
        raise TypeError(f"element type {element_type} has no numpy dtype tensorad supports "
                        f"(supported: {', '.join(sorted(_FROM_MLIR))})") from None


def _join(a: np.dtype, b: np.dtype) -> np.dtype:
    """The promotion of two (strongly typed) dtypes: JAX's lattice for the half types, numpy's otherwise."""
    if a == b:
        return a
    if a in HALF or b in HALF:
        half, other = (a, b) if a in HALF else (b, a)
        if other in HALF:
            return float32
        # Booleans and integers sit below every float in JAX's lattice; float32 and up above both halves.
        return half if other.kind in "biu" else other
    return np.result_type(a, b)


def _weak_kind(scalar) -> str:
    return {bool: "b", int: "i", float: "f", complex: "c"}[type(scalar)]


def result_type(*operands) -> np.dtype:
    """The promotion of dtypes and (weakly typed) Python scalars.

    Operands may be dtypes, numpy arrays, traced arrays (anything with a
    ``dtype``), Python scalars or nested lists of them. A Python scalar
    changes the result only where its kind is higher: an ``int`` makes a
    boolean array ``int64``, a ``float`` makes integers ``float64``, a
    ``complex`` makes real floats complex of their precision (``float16``
    and ``bfloat16`` become ``complex64``).

    Examples
    --------
    >>> result_type(float16, 3), result_type(np.dtype("int32"), float16), result_type(1.0, 1j)
    (dtype('float16'), dtype('float16'), dtype('complex128'))
    """
    strong, weak = [], []
    for op in operands:
        if type(op) in (bool, int, float, complex):  # numpy scalars (np.float64 is a float) are strong
            weak.append(op)
        elif isinstance(op, np.dtype):
            strong.append(op)
        else:
            strong.append(check_supported(op.dtype if hasattr(op, "dtype") else np.asarray(op).dtype))
    if not strong:
        return check_supported(np.result_type(*weak))
    out = strong[0]
    for dt in strong[1:]:
        out = _join(out, check_supported(dt))
    kinds = {_weak_kind(w) for w in weak}
    if "c" in kinds and out.kind != "c":
        return complex128 if out == np.dtype("float64") or out.kind in "biu" else complex64
    if "f" in kinds and out.kind in "biu":
        return np.dtype("float64")
    if "i" in kinds and out.kind == "b":
        return np.dtype("int64")
    return check_supported(out)


def is_float(dtype) -> bool:
    """True for real floating-point dtypes (``bfloat16`` included).

    Examples
    --------
    >>> is_float(bfloat16), is_float("complex64"), is_float("int32")
    (True, False, False)
    """
    dt = np.dtype(dtype)
    return dt.kind == "f" or dt == bfloat16


def is_complex(dtype) -> bool:
    """True for the complex dtypes."""
    return np.dtype(dtype).kind == "c"


def is_inexact(dtype) -> bool:
    """True for the dtypes that derivatives are taken in: real floats and complex numbers."""
    return is_float(dtype) or is_complex(dtype)


def is_bool(dtype) -> bool:
    """True for the boolean dtype."""
    return np.dtype(dtype).kind == "b"


def float_of(dtype) -> np.dtype:
    """The dtype numpy computes in for float-only functions (``exp``, ``/`` ...): ints -> float64.

    Examples
    --------
    >>> float_of("int32"), float_of("float32"), float_of("complex64")
    (dtype('float64'), dtype('float32'), dtype('complex64'))
    """
    return np.dtype(dtype) if is_inexact(dtype) else np.dtype("float64")


def real_dtype(dtype) -> np.dtype:
    """The real dtype of a complex one (``complex64`` -> ``float32``); a real dtype itself.

    Examples
    --------
    >>> real_dtype("complex128"), real_dtype(float16)
    (dtype('float64'), dtype('float16'))
    """
    dt = np.dtype(dtype)
    return {complex64: float32, complex128: np.dtype("float64")}.get(dt, dt)


def complex_of(dtype) -> np.dtype:
    """The complex dtype holding a real (or complex) ``dtype``: ``float64`` -> ``complex128``, others ``complex64``.

    Examples
    --------
    >>> complex_of("float64"), complex_of(bfloat16), complex_of("complex64")
    (dtype('complex128'), dtype('complex64'), dtype('complex64'))
    """
    dt = np.dtype(dtype)
    if dt.kind == "c":
        return dt
    return complex128 if dt == np.dtype("float64") or dt.kind in "biu" else complex64


def computation_dtype(dtype) -> np.dtype:
    """The dtype half-precision arithmetic accumulates in (``float32``, as XLA's); other dtypes themselves.

    Examples
    --------
    >>> computation_dtype(bfloat16), computation_dtype("float64")
    (dtype('float32'), dtype('float64'))
    """
    dt = np.dtype(dtype)
    return float32 if dt in HALF else dt
