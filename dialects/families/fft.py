"""Fourier transforms: ``tad.fft``, computed by ducc0 (pocketfft's successor) from compiled code.

``tad.fft`` transforms the trailing ``len(fft_lengths)`` dims of its operand,
as ``stablehlo.fft`` does, by ``fft_type``:

* ``"FFT"``, ``"IFFT"``: complex to complex, of shape ``[..., *fft_lengths]``;
  the inverse is divided by the number of points, as numpy's ``ifftn``;
* ``"RFFT"``: real ``[..., *fft_lengths]`` to the non-negative frequencies of
  the last dim, complex ``[..., *fft_lengths[:-1], L // 2 + 1]``;
* ``"IRFFT"``: the inverse of ``"RFFT"`` (divided by the number of points); the
  imaginary parts of the zero and Nyquist frequencies are ignored.

ducc0 has only a Python interface, so the lowering calls a registered
``ctypes`` callback (``tad_ducc0_fft``) with pointers to the buffers (a
complex buffer holds (real, imaginary) pairs, numpy's layout) and a header
of sizes; the callback views them as numpy arrays and runs
``ducc0.fft.c2c`` / ``r2c`` / ``c2r`` into the result. The transforms are
linear: the jvp applies the same transform to the tangent, the vjp its
transpose under JAX's convention for complex cotangents (the cotangent ``w``
of ``z`` pairs with ``dz`` as ``Re(w dz)``): the FFT and its inverse are
symmetric matrices, so each is its own transpose; the real transforms need
JAX's correction factors (the half spectrum stands for two frequencies where
it holds one of a conjugate pair).

Examples
--------
>>> from tensorad.dialects.record import record_of
>>> record_of("tad.fft").lowering is not None
True
"""

from __future__ import annotations

import ctypes
from math import log2, prod

import numpy as np
from mlir import ir

from .. import builder
from ..batching import recreate, with_batch
from ..builder import Val
from ..library_calls import call_kernel, define_symbol
from ..record import Family, Trait
from ..shapes import TensorSpec, array_attr, need, python_attrs

family = Family("fft")

FFT_TYPES = ("FFT", "IFFT", "RFFT", "IRFFT")

family.define("tad.fft", operands=("operand",), attributes=(("fft_type", "string"), ("fft_lengths", "dense_array")),
              summary="Discrete Fourier transform of the trailing dims (fft_type FFT, IFFT, RFFT or IRFFT).",
              traits=(Trait.PURE,))


def fft(x, fft_type: str, fft_lengths) -> Val:
    """``tad.fft`` of ``x`` (see the module docstring for the shapes of each ``fft_type``)."""
    return builder.build("tad.fft", [x], {"fft_type": ir.StringAttr.get(fft_type),
                                          "fft_lengths": ir.DenseI64ArrayAttr.get([int(n) for n in fft_lengths])})


def _attrs(attrs) -> tuple:
    kind = attrs["fft_type"]
    need(isinstance(kind, ir.StringAttr) and kind.value in FFT_TYPES,
         f"fft_type must be one of {', '.join(FFT_TYPES)}")
    lengths = array_attr(attrs, "fft_lengths")
    need(len(lengths) >= 1 and min(lengths) >= 1, f"fft_lengths must be positive sizes, got {list(lengths)}")
    return kind.value, tuple(lengths)


def _half(n: int) -> int:
    return n // 2 + 1


def _real_type(t: ir.Type):
    """The real type of the parts of a complex element type (None for another type)."""
    return t.element_type if isinstance(t, ir.ComplexType) else None


@family.shape_rule("tad.fft")
def _fft_shape(operands, attrs, results):
    (x,) = operands
    kind, lengths = _attrs(attrs)
    k = len(lengths)
    real = x.element_type if kind == "RFFT" else _real_type(x.element_type)
    need(isinstance(real, (ir.F32Type, ir.F64Type)),
         f"the operand of a {kind} must be {'f32 or f64' if kind == 'RFFT' else 'complex<f32> or complex<f64>'}, "
         f"got {x.element_type}")
    expected = lengths[:-1] + (_half(lengths[-1]),) if kind == "IRFFT" else lengths
    need(x.rank >= k and x.shape[x.rank - k:] == expected,
         f"operand {list(x.shape)} does not fit the {kind} of fft_lengths {list(lengths)}")
    batch = x.shape[:x.rank - k]
    if kind == "RFFT":
        return [TensorSpec(batch + expected[:-1] + (_half(lengths[-1]),), ir.ComplexType.get(real))]
    if kind == "IRFFT":
        return [TensorSpec(batch + lengths, real)]
    return [x]


@family.flops("tad.fft")
def _fft_flops(op) -> int:
    lengths = python_attrs(op)["fft_lengths"]
    points = prod(lengths)
    shape = list(op.results[0].type.shape)
    return max(int(5 * prod(shape) * max(log2(points), 1)), 1)


# ----------------------------------------------------------------------------
# Lowering: a callback into ducc0
# ----------------------------------------------------------------------------

def _run(header: int, src: int, dst: int) -> None:
    """The callback: ``header`` holds kind, precision, rank, transformed dims, then both shapes."""
    import ducc0

    kind, double, rank, count = (ctypes.c_int64 * 4).from_address(header)
    shapes = list((ctypes.c_int64 * (2 * rank)).from_address(header + 32))
    in_shape, out_shape = tuple(shapes[:rank]), tuple(shapes[rank:])
    real = ctypes.c_double if double else ctypes.c_float
    complex_dtype = np.complex128 if double else np.complex64
    name = FFT_TYPES[kind]

    def view(address, shape, is_complex):
        flat = np.ctypeslib.as_array(ctypes.cast(address, ctypes.POINTER(real)),
                                     (prod(shape) * (2 if is_complex else 1),))
        return (flat.view(complex_dtype) if is_complex else flat).reshape(shape)

    out = view(dst, out_shape, name != "IRFFT")
    if not out.size:
        return
    source = view(src, in_shape, name != "RFFT")
    axes = tuple(range(rank - count, rank))
    try:
        if name == "RFFT":
            ducc0.fft.r2c(source, axes=axes, forward=True, out=out)
        elif name == "IRFFT":
            ducc0.fft.c2r(source, axes=axes, lastsize=out_shape[-1], forward=False, inorm=2, out=out)
        else:
            ducc0.fft.c2c(source, axes=axes, forward=name == "FFT", inorm=0 if name == "FFT" else 2, out=out)
    except Exception:  # noqa: BLE001  (an exception cannot cross compiled code: the result says it)
        out[...] = np.nan


_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)(_run)
_SYMBOL = define_symbol("tad_ducc0_fft", lambda: ctypes.cast(_CALLBACK, ctypes.c_void_p).value)


@family.lowering("tad.fft")
def _lower_fft(op):
    kind, lengths = _attrs(python_attrs(op))
    x, result = op.operands[0].type, op.results[0].type
    real = result.element_type if kind == "IRFFT" else _real_type(result.element_type)
    values = [FFT_TYPES.index(kind), int(isinstance(real, ir.F64Type)), x.rank, len(lengths), *x.shape,
              *result.shape]
    name = "__tad_fft_{}_{}_{}_{}".format(kind.lower(), "x".join(map(str, x.shape)), real,
                                           "x".join(map(str, lengths)))

    def body(k, source, out):
        header = k.cell(k.i64, len(values))
        for i, value in enumerate(values):
            k.store(k.constant(value, k.i64), header, i)
        k.call(_SYMBOL, [k.pointer(header), k.pointer(source), k.pointer(out)])

    return call_kernel(name, [op.operands[0]], [result], body)


# ----------------------------------------------------------------------------
# Derivatives (linear: the transform of the tangent, the transpose of the cotangent)
# ----------------------------------------------------------------------------

def _kind(c) -> tuple:
    return _attrs(c.attrs)


@family.jvp("tad.fft")
def _fft_jvp(c, tangents):
    kind, lengths = _kind(c)
    return [fft(tangents[0], kind, lengths)]


def _weighted(z, weights: np.ndarray) -> Val:
    """Complex ``z`` times real ``weights`` along its last dim."""
    z = builder.wrap(z)
    real = _real_type(z.element_type)
    w = builder.array_constant(weights.astype(np.float32 if isinstance(real, ir.F32Type) else np.float64))
    return builder.make_complex(builder.real(z) * w, builder.imag(z) * w)


def _half_spectrum_weights(n: int) -> np.ndarray:
    """How many frequencies each entry of an ``n``-point half spectrum stands for: 1 or 2 (a conjugate pair)."""
    half, odd = _half(n), n % 2
    return np.array([1.0] + [2.0] * (half - 2 + odd) + [1.0] * (1 - odd))


@family.vjp("tad.fft")
def _fft_vjp(c, cotangents):
    (ct,) = cotangents
    kind, lengths = _kind(c)
    points = float(prod(lengths))
    if kind in ("FFT", "IFFT"):  # symmetric matrices: each its own transpose
        return [fft(ct, kind, lengths)]
    weights = _half_spectrum_weights(lengths[-1])
    if kind == "RFFT":
        # The transpose of "the first L // 2 + 1 frequencies of the FFT of a real signal",
        # Re(FFT(zero-padded ct)), is the inverse real transform of the conjugate, each
        # frequency taken once: N irfft(conj(ct) / weights).
        return [fft(_weighted(builder.conj(ct), points / weights), "IRFFT", lengths)]
    # IRFFT (JAX's): conj(weights * rfft(ct) / N).
    return [builder.conj(_weighted(fft(ct, "RFFT", lengths), weights / points))]


@family.batching("tad.fft")
def _batch_fft(ctx, op, operands, batched):
    return recreate(op, operands, [with_batch(r.type, ctx.size) for r in op.results])
