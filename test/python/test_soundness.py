"""Never a silently wrong derivative, never a crash: soundness of tad-differentiate and of tracing.

Crash regressions run in a child process, so that a regression fails its test
instead of killing pytest.
"""

import importlib
import pathlib
import re
import subprocess
import sys

import pytest

from tensorad.passes.differentiate.rules import JVP_RULES, VJP_RULES

LIT = pathlib.Path(__file__).resolve().parents[1] / "lit" / "differentiate"
REFUSAL_FILES = ("unsupported-region-ops.mlir", "unsupported-linalg-named.mlir")

# Region-holding ops that no function body can hand a tensor or float value of
# its own: symbol tables and function-likes, ops on memory only (no results),
# and ops on scalars, which a function only gets from ops refused before them.
CANNOT_TAKE_AN_ACTIVE_VALUE = {
    "symbol tables and functions": (
        "builtin.module", "func.func", "async.func", "gpu.func", "gpu.module", "llvm.", "ml_program.",
        "shape.func", "shape.function_library", "spirv.", "irdl.", "pdl.", "transform.", "smt.",
        "emitc.func", "emitc.class", "emitc.file", "acc.global_", "acc.firstprivate.recipe",
        "acc.private.recipe", "acc.reduction.recipe", "omp.declare_", "omp.private"),
    "memory only, no results": ("acc.", "omp.", "emitc.do", "emitc.for", "emitc.if", "emitc.switch",
                                "gpu.launch", "gpu.warp_execute_on_lane_0"),
    "scalar operands only": ("sparse_tensor.unary", "sparse_tensor.binary", "sparse_tensor.reduce",
                             "sparse_tensor.select", "gpu.all_reduce", "memref.generic_atomic_rmw",
                             "emitc.expression"),
    "integer only": ("linalg.div_unsigned", "linalg.pooling_"),
    "needs a sparse iteration space, from ops refused first": ("sparse_tensor.iterate",),
    "terminator of scf.forall, refused with it": ("scf.forall.in_parallel",),
}


def _region_holding_ops() -> set:
    """Names of the ops with regions in every dialect the Python bindings install."""
    import mlir.dialects
    names = set()
    for path in pathlib.Path(mlir.dialects.__path__[0]).glob("*.py"):
        if path.name.startswith("_"):
            continue
        try:
            module = importlib.import_module(f"mlir.dialects.{path.stem}")
        except ImportError:  # a dialect whose native extension is not built
            continue
        for cls in vars(module).values():
            # ODS-generated op classes record (number of regions, variadic) there;
            # the bindings keep no public registry of ops.
            if isinstance(cls, type) and hasattr(cls, "OPERATION_NAME") \
                    and getattr(cls, "_ODS_REGIONS", (0,))[0] > 0:
                names.add(cls.OPERATION_NAME)
    return names


def _excused(name: str) -> bool:
    # "linalg.pooling_" excuses only the integer-only (unsigned) poolings.
    if name.startswith("linalg.pooling_") and "unsigned" not in name:
        return False
    return any(name == p or (p.endswith((".", "_")) and name.startswith(p))
               for prefixes in CANNOT_TAKE_AN_ACTIVE_VALUE.values() for p in prefixes)


def test_every_region_holding_op_is_refused_in_the_lit_tests():
    refused = set()
    for file in REFUSAL_FILES:
        refused |= set(re.findall(r"no (?:reverse|forward)-mode \((?:vjp|jvp)\) rule for '([\w.]+)'",
                                  (LIT / file).read_text()))
    differentiated = set(VJP_RULES) & set(JVP_RULES)  # scf.for, scf.if, scf.while
    missing = sorted(n for n in _region_holding_ops() - differentiated
                     if n not in refused and not _excused(n))
    assert not missing, f"region-holding ops with no refusal test: {missing}"
