"""The op records: one per op, the single source of the dialect and of every per-op fact.

Examples of what is checked: ``tad.irdl.mlir`` is what the records generate;
every declared ``tad`` op has a shape rule and a lowering; a family cannot
register a rule for another family's op, nor twice; no module of the compiler
keeps its own list of op names.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
from pathlib import Path

import pytest

from tensorad.dialects import IRDL_PATH, irdl_file, record
from tensorad.dialects.record import RECORDS, Family, Trait, forget, has_trait, record_of

ROOT = Path(__file__).resolve().parents[2]


def test_the_irdl_file_is_generated_from_the_records():
    assert IRDL_PATH.read_text() == irdl_file.generated_text(), (
        "dialects/tad.irdl.mlir is stale: run `python -m tensorad.dialects.irdl_file`")


def test_mlir_opt_loads_the_generated_file():
    spec = importlib.util.find_spec("mlir")  # a namespace package: no __file__
    mlir_opt = Path(list(spec.submodule_search_locations)[0]) / "bin" / "mlir-opt"
    if not mlir_opt.exists():
        pytest.skip("mlir-opt is not installed beside the bindings")
    source = ('%0 = "tad.constant"() {value = 1.0 : f32} : () -> tensor<2xf32>\n'
              '%1 = "tad.transpose"(%0) {permutation = array<i64: 0>} : (tensor<2xf32>) -> tensor<2xf32>\n')
    out = subprocess.run([str(mlir_opt), f"--irdl-file={IRDL_PATH}"], input=source, text=True,
                         capture_output=True, check=True).stdout
    assert '"tad.transpose"' in out


DECLARED = sorted(name for name, rec in RECORDS.items() if rec.declaration is not None)


@pytest.mark.parametrize("name", DECLARED)
def test_every_declared_op_has_a_shape_rule_and_a_lowering(name):
    rec = record_of(name)
    assert rec.shape_rule is not None and rec.lowering is not None


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_derivative_rules_come_in_pairs_and_never_beside_a_zero_derivative(name):
    rec = record_of(name)
    assert (rec.jvp is None) == (rec.vjp is None), f"{name}: a jvp without a vjp or the reverse"
    if Trait.ZERO_DERIVATIVE in rec.traits:
        assert rec.jvp is None, f"{name}: a derivative rule on an op marked ZERO_DERIVATIVE"


def test_a_family_registers_rules_only_for_its_own_ops_and_once():
    mine, other = Family("test_mine"), Family("test_other")
    mine.define("tad.test_records_op", operands=("operand",), summary="A test op.")
    try:
        with pytest.raises(ValueError, match="declare the op in this family first"):
            other.lowering("tad.test_records_op")(lambda op: [])
        mine.lowering("tad.test_records_op")(lambda op: [])
        with pytest.raises(ValueError, match="already has a lowering"):
            mine.lowering("tad.test_records_op")(lambda op: [])
        with pytest.raises(ValueError, match="already registered"):
            other.define("tad.test_records_op", summary="Again.")
    finally:
        forget("tad.test_records_op")
        del record.FAMILIES["test_mine"], record.FAMILIES["test_other"]


def test_traits_answer_for_unregistered_ops_too():
    assert has_trait("tad.reshape", Trait.VIEW)
    assert not has_trait("nonexistent.op", Trait.PURE)


def test_upstream_buffer_and_device_ops_have_records():
    # Read by tad-free-after-last-use (views alias) and remat (side effects are never recomputed).
    assert has_trait("memref.expand_shape", Trait.VIEW) and not has_trait("memref.expand_shape", Trait.PURE)
    assert all(has_trait(name, Trait.SIDE_EFFECTS)
               for name in ("memref.store", "memref.copy", "gpu.memcpy", "func.call", "func.call_indirect"))
    assert sorted(n for n in record.names_with(Trait.CONTRACTION)) == ["tad.conv2d", "tad.dot_general"]


def test_flops_of_a_loop_is_its_trip_count_times_its_body():
    from mlir import ir
    import tensorad.dialects as dialects
    with dialects.make_context() as ctx, ir.Location.unknown():
        module = ir.Module.parse("""
          func.func @f(%x: tensor<8xf64>) -> tensor<8xf64> {
            %c0 = arith.constant 0 : index
            %c5 = arith.constant 5 : index
            %c1 = arith.constant 1 : index
            %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %x) -> tensor<8xf64> {
              %t = math.tanh %a : tensor<8xf64>
              scf.yield %t : tensor<8xf64>
            }
            return %r : tensor<8xf64>
          }""", ctx)
        loop = [op for op in module.body.operations[0].regions[0].blocks[0].operations][3]
        assert loop.operation.name == "scf.for"
        assert record.flops_of(loop) == 5 * 8


def _elements(value: ast.expr) -> list:
    """The entries of a set, list or tuple literal (or ``frozenset({...})``): a membership fact per name.

    A dict from op names to functions is a pass's pattern table (``tad-approximate-math``), not a fact.
    """
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and \
            value.func.id in ("frozenset", "set", "tuple", "list", "dict") and value.args:
        value = value.args[0]
    if isinstance(value, (ast.Set, ast.List, ast.Tuple)):
        return list(value.elts)
    return []


def _op_name_lists(path: Path) -> list:
    """Collections of two or more registered op names that ``path`` names at module level.

    (A rewrite that matches the few ops it rewrites, ``tensor.extract`` and
    ``memref.load`` in tad-widen-bools, is a pattern, not a fact about them.)
    """
    found = []
    for node in ast.parse(path.read_text()).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        names = {n.value for n in _elements(node.value)
                 if isinstance(n, ast.Constant) and isinstance(n.value, str) and n.value in RECORDS}
        if len(names) >= 2:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {sorted(names)}")
    return found


def test_no_pass_keeps_its_own_list_of_op_names():
    # The family modules are where records are made (dialects/families/): not scanned.
    lists = [hit for folder in ("passes", "dialects") for path in sorted((ROOT / folder).rglob("*.py"))
             if "families" not in path.parts for hit in _op_name_lists(path)]
    assert not lists, "op facts belong in records (has_trait / record_of):\n" + "\n".join(lists)
