"""``tad-native-gpu-math``: libdevice calls in GPU kernels that NVPTX does exactly become LLVM intrinsics.

``convert-gpu-to-nvvm`` turns every math op into a call of libdevice's
``__nv_*`` function, which ``gpu-module-to-binary`` links (from the copy
embedded in the MLIR package) and inlines. libdevice's float32 ``sqrt``
asks ``__nvvm_reflect("__CUDA_PREC_SQRT")``, which LLVM answers 0 here (an
``nvvm-reflect-prec-sqrt`` module flag in ``llvm.module_flags`` changes
nothing), so it would be
``sqrt.approx.f32``; ``llvm.intr.sqrt`` selects the correctly rounded
``sqrt.rn.f32``, like numpy on the CPU. The pass runs after
``convert-gpu-to-nvvm``, which refuses LLVM math intrinsics in kernels.

Examples
--------
>>> from mlir import ir
>>> from tensorad.dialects import make_context
>>> from tensorad.passes.registry import run_pipeline
>>> m = ir.Module.parse('''
... module attributes {gpu.container_module} {
...   gpu.module @k {
...     llvm.func @__nv_sqrtf(f32) -> f32
...     llvm.func @k(%x: f32) -> f32 {
...       %0 = llvm.call @__nv_sqrtf(%x) : (f32) -> f32
...       llvm.return %0 : f32
...     }
...   }
... }''', make_context())
>>> run_pipeline(m, "tad-native-gpu-math")
>>> "llvm.intr.sqrt" in str(m), "__nv_sqrtf" in str(m)
(True, False)
"""

from __future__ import annotations

from mlir import ir

from ..walk import collect

# libdevice function -> LLVM intrinsic that NVPTX selects as one correctly rounded instruction.
_NATIVE = {"__nv_sqrtf": "llvm.intr.sqrt"}


def run(op: ir.Operation, pass_) -> None:
    """Replace every call of a ``_NATIVE`` libdevice function inside a ``gpu.module`` by its LLVM intrinsic."""
    calls = collect(op, lambda inner: inner.name == "llvm.call" and _callee(inner) in _NATIVE)
    declarations = collect(op, lambda inner: inner.name == "llvm.func"
                           and ir.StringAttr(inner.attributes["sym_name"]).value in _NATIVE)
    for call in calls:
        with ir.InsertionPoint(call), call.location:
            native = ir.Operation.create(_NATIVE[_callee(call)], results=[call.results[0].type],
                                         operands=list(call.operands))
        call.results[0].replace_all_uses_with(native.results[0])
        call.erase()
    for declaration in declarations:  # now unused
        declaration.erase()


def _callee(call: ir.Operation) -> str | None:
    callee = call.attributes["callee"] if "callee" in call.attributes else None
    return ir.FlatSymbolRefAttr(callee).value if callee is not None else None
