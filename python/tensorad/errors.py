"""Errors raised by the Python API, each pointing at the user's line."""

from __future__ import annotations


class TensoradError(Exception):
    """Base class of tensorad's errors."""


class ConcretizationError(TensoradError, TypeError):
    """A traced value was used where Python needs a concrete one (``if x > 0:``, ``float(x)``)."""


class TracingError(TensoradError, ValueError):
    """A traced program is malformed (bad shapes, unsupported indexing, ...)."""


class UnexpectedTracerError(TensoradError, RuntimeError):
    """A traced array was used after the trace that made it ended (as ``jax.errors.UnexpectedTracerError``)."""


class CompileError(TensoradError, RuntimeError):
    """The MLIR pipeline rejected a program; the message carries MLIR's diagnostics."""


class DeviceError(TensoradError, RuntimeError):
    """The requested device cannot run code here (``device="gpu"`` without a CUDA driver)."""


class ExportError(TensoradError, ValueError):
    """An ahead-of-time export cannot be written (bad name or folder, unsupported types, a failing tool)."""
