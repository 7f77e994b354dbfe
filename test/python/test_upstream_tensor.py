"""Derivatives of hand-written IR over upstream ``tensor`` ops, run through ``compile_mlir``.

Each case declares ``@f_jvp`` and ``@f_vjp`` of ``@f`` and is checked by
:func:`mlir_derivatives.check_ir` (float64 central differences and the
dot-product test). Batched declarations (a leading batch prefix on the
(co)tangents, as ``jacfwd``/``jacrev`` ask for) are checked row by row
against the unbatched derivatives. The FileCheck side is
``test/lit/upstream/tensor.mlir``.
"""

from __future__ import annotations

import numpy as np
import pytest
from mlir import ir

import tensorad as ta
from tensorad.dialects import make_context
from tensorad.passes.registry import run_pipeline
from mlir_derivatives import check_ir


def _declarations(body: str, wrt: tuple) -> str:
    """``body`` (defining ``@f``) with ``@f_jvp`` and ``@f_vjp`` declared with respect to ``wrt``."""
    return body + _declare(body, wrt, ())


def _type_text(t: ir.Type, prefix: tuple) -> str:
    if not prefix:
        return str(t)
    shape = list(prefix) + (list(t.shape) if isinstance(t, ir.ShapedType) else [])
    element = t.element_type if isinstance(t, ir.ShapedType) else t
    return f"tensor<{'x'.join(map(str, shape))}x{element}>"


def _declare(body: str, wrt: tuple, prefix: tuple, suffix: str = "") -> str:
    """Declarations ``@f_jvp{suffix}`` and ``@f_vjp{suffix}`` whose (co)tangents carry ``prefix``."""
    with make_context():
        module = ir.Module.parse(body)
        fn = next(op for op in module.body.operations if op.attributes["sym_name"].value == "f")
        ftype = fn.attributes["function_type"].value
        inputs, results = list(ftype.inputs), list(ftype.results)
        given = [str(t) for t in inputs]
        jvp_in = given + [_type_text(inputs[i], prefix) for i in wrt]
        jvp_out = [str(t) for t in results] + [_type_text(t, prefix) for t in results]
        vjp_in = given + [_type_text(t, prefix) for t in results]
        vjp_out = [str(t) for t in results] + [_type_text(inputs[i], prefix) for i in wrt]
    spec = f"{{of = @f, wrt = array<i64: {', '.join(map(str, wrt))}>}}"
    return (f"\nfunc.func private @f_jvp{suffix}({', '.join(jvp_in)}) -> ({', '.join(jvp_out)})\n"
            f"    attributes {{tad.jvp = {spec}}}\n"
            f"func.func private @f_vjp{suffix}({', '.join(vjp_in)}) -> ({', '.join(vjp_out)})\n"
            f"    attributes {{tad.vjp = {spec}}}\n")


def check_batched(body: str, args: list, wrt: tuple, prefix: tuple = (2,), seed: int = 1) -> None:
    """The derivatives declared with batch ``prefix`` equal the unbatched ones, row by row."""
    source = body + _declare(body, wrt, ()) + _declare(body, wrt, prefix, "_batched")
    args = [np.asarray(a) for a in args]
    rng = np.random.default_rng(seed)
    primal = ta.compile_mlir(source, "f")(*args)
    primal = primal if isinstance(primal, tuple) else (primal,)
    n = len(primal)
    rows = int(np.prod(prefix))

    jvp, jvp_b = ta.compile_mlir(source, "f_jvp"), ta.compile_mlir(source, "f_jvp_batched")
    tangents = [rng.standard_normal(prefix + args[i].shape) for i in wrt]
    out = jvp_b(*args, *tangents)
    for k in range(n):
        np.testing.assert_allclose(out[k], primal[k], rtol=1e-12)
    for r in range(rows):
        row = [t.reshape((rows,) + t.shape[len(prefix):])[r] for t in tangents]
        want = jvp(*args, *row)[n:]
        for k in range(n):
            got = np.asarray(out[n + k]).reshape((rows,) + np.shape(primal[k]))[r]
            np.testing.assert_allclose(got, want[k], rtol=1e-10, atol=1e-12, err_msg=f"jvp row {r}")

    vjp, vjp_b = ta.compile_mlir(source, "f_vjp"), ta.compile_mlir(source, "f_vjp_batched")
    seeds = [rng.standard_normal(prefix + np.shape(p)) for p in primal]
    out = vjp_b(*args, *seeds)
    for r in range(rows):
        row = [s.reshape((rows,) + s.shape[len(prefix):])[r] for s in seeds]
        want = vjp(*args, *row)[n:]
        for k, i in enumerate(wrt):
            got = np.asarray(out[n + k]).reshape((rows,) + args[i].shape)[r]
            np.testing.assert_allclose(got, want[k], rtol=1e-10, atol=1e-12, err_msg=f"vjp row {r}")


RNG = np.random.default_rng(0)


def _x(*shape):
    return RNG.standard_normal(shape)


EXTRACT = """
func.func @f(%x: tensor<4x3xf64>, %i: index) -> f64 {
  %c1 = arith.constant 1 : index
  %e = tensor.extract %x[%i, %c1] : tensor<4x3xf64>
  %s = math.sin %e : f64
  %r = arith.mulf %s, %e : f64
  return %r : f64
}
"""

INSERT = """
func.func @f(%x: tensor<4x3xf64>, %s: f64, %i: index) -> tensor<4x3xf64> {
  %c2 = arith.constant 2 : index
  %sq = arith.mulf %x, %x : tensor<4x3xf64>
  %v = math.exp %s : f64
  %r = tensor.insert %v into %sq[%i, %c2] : tensor<4x3xf64>
  %t = math.tanh %r : tensor<4x3xf64>
  return %t : tensor<4x3xf64>
}
"""

FROM_ELEMENTS = """
func.func @f(%a: f64, %b: f64, %c: f64) -> tensor<2x2xf64> {
  %bc = arith.mulf %b, %c : f64
  %sa = math.sin %a : f64
  %cst = arith.constant 2.5 : f64
  %r = tensor.from_elements %a, %bc, %sa, %cst : tensor<2x2xf64>
  %t = arith.mulf %r, %r : tensor<2x2xf64>
  return %t : tensor<2x2xf64>
}
"""

SPLAT = """
func.func @f(%s: f64, %x: tensor<3x2xf64>) -> tensor<3x2xf64> {
  %sq = arith.mulf %s, %s : f64
  %t = tensor.splat %sq : tensor<3x2xf64>
  %r = arith.mulf %t, %x : tensor<3x2xf64>
  return %r : tensor<3x2xf64>
}
"""

# Each element reads a captured tensor (a gather) and a captured scalar; the
# row index enters through an integer-to-float conversion (no derivative).
GENERATE = """
func.func @f(%x: tensor<5xf64>, %s: f64) -> tensor<4x5xf64> {
  %0 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %e = tensor.extract %x[%j] : tensor<5xf64>
    %c1 = arith.constant 1 : index
    %c5 = arith.constant 5 : index
    %j1 = arith.addi %j, %c1 : index
    %k = arith.remui %j1, %c5 : index
    %n = tensor.extract %x[%k] : tensor<5xf64>
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %p = arith.mulf %e, %fi : f64
    %q = arith.mulf %p, %s : f64
    %r = arith.mulf %q, %n : f64
    %y = math.sin %r : f64
    tensor.yield %y : f64
  } : tensor<4x5xf64>
  return %0 : tensor<4x5xf64>
}
"""

# The captured values are inactive (index arithmetic): the generated tensor
# only scales the differentiated argument.
GENERATE_INACTIVE = """
func.func @f(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %0 = tensor.generate {
  ^bb0(%i: index, %j: index):
    %s = arith.addi %i, %j : index
    %si = arith.index_cast %s : index to i64
    %f = arith.sitofp %si : i64 to f64
    tensor.yield %f : f64
  } : tensor<3x4xf64>
  %r = arith.mulf %0, %x : tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
"""

# A loop inside the body, and a dynamic extent (the result is cast back to a static shape).
GENERATE_LOOP = """
func.func @f(%x: tensor<4xf64>, %s: f64) -> tensor<3xf64> {
  %n = arith.constant 3 : index
  %0 = tensor.generate %n {
  ^bb0(%i: index):
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %init = arith.constant 0.0 : f64
    %r = scf.for %k = %c0 to %c4 step %c1 iter_args(%acc = %init) -> f64 {
      %e = tensor.extract %x[%k] : tensor<4xf64>
      %ii = arith.index_cast %i : index to i64
      %fi = arith.sitofp %ii : i64 to f64
      %p = arith.mulf %e, %fi : f64
      %q = arith.mulf %p, %s : f64
      %y = math.sin %q : f64
      %sum = arith.addf %acc, %y : f64
      scf.yield %sum : f64
    }
    tensor.yield %r : f64
  } : tensor<?xf64>
  %1 = tensor.cast %0 : tensor<?xf64> to tensor<3xf64>
  return %1 : tensor<3xf64>
}
"""

PAD = """
func.func @f(%x: tensor<2x3xf64>, %v: f64, %l: index) -> tensor<5x6xf64> {
  %v2 = arith.mulf %v, %v : f64
  %0 = tensor.pad %x low[1, %l] high[2, 1] {
  ^bb0(%i: index, %j: index):
    tensor.yield %v2 : f64
  } : tensor<2x3xf64> to tensor<5x6xf64>
  %r = math.sin %0 : tensor<5x6xf64>
  return %r : tensor<5x6xf64>
}
"""

# The padding value is a constant made inside the region: no derivative for it.
PAD_CONSTANT = """
func.func @f(%x: tensor<2x3xf64>) -> tensor<4x4xf64> {
  %0 = tensor.pad %x low[0, 1] high[2, 0] {
  ^bb0(%i: index, %j: index):
    %c = arith.constant 0.5 : f64
    tensor.yield %c : f64
  } : tensor<2x3xf64> to tensor<4x4xf64>
  %r = arith.mulf %0, %0 : tensor<4x4xf64>
  return %r : tensor<4x4xf64>
}
"""

RESHAPE = """
func.func @f(%x: tensor<2x6xf64>) -> tensor<3x4xf64> {
  %shape = arith.constant dense<[3, 4]> : tensor<2xindex>
  %0 = tensor.reshape %x(%shape) : (tensor<2x6xf64>, tensor<2xindex>) -> tensor<3x4xf64>
  %r = math.sin %0 : tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
"""

# A reshape to a dynamic shape, cast back to a static one.
RESHAPE_DYNAMIC = """
func.func @f(%x: tensor<2x6xf64>) -> tensor<12xf64> {
  %shape = arith.constant dense<[12]> : tensor<1xindex>
  %0 = tensor.reshape %x(%shape) : (tensor<2x6xf64>, tensor<1xindex>) -> tensor<?xf64>
  %1 = tensor.cast %0 : tensor<?xf64> to tensor<12xf64>
  %r = math.sin %1 : tensor<12xf64>
  return %r : tensor<12xf64>
}
"""

EXTRACT_SLICE = """
func.func @f(%x: tensor<6x5xf64>, %i: index, %j: index) -> (tensor<2x3xf64>, tensor<5xf64>) {
  %0 = tensor.extract_slice %x[%i, %j] [2, 3] [2, 1] : tensor<6x5xf64> to tensor<2x3xf64>
  %1 = math.sin %0 : tensor<2x3xf64>
  %2 = tensor.extract_slice %x[%j, 0] [1, 5] [1, 1] : tensor<6x5xf64> to tensor<5xf64>
  %3 = arith.mulf %2, %2 : tensor<5xf64>
  return %1, %3 : tensor<2x3xf64>, tensor<5xf64>
}
"""

INSERT_SLICE = """
func.func @f(%x: tensor<6x5xf64>, %p: tensor<2x3xf64>, %i: index, %j: index) -> tensor<6x5xf64> {
  %sq = arith.mulf %x, %x : tensor<6x5xf64>
  %sp = math.sin %p : tensor<2x3xf64>
  %0 = tensor.insert_slice %sp into %sq[%i, %j] [2, 3] [2, 1] : tensor<2x3xf64> into tensor<6x5xf64>
  %r = math.tanh %0 : tensor<6x5xf64>
  return %r : tensor<6x5xf64>
}
"""

# tensor.empty filled entirely by an insert_slice.
EMPTY = """
func.func @f(%p: tensor<2x3xf64>) -> tensor<2x3xf64> {
  %e = tensor.empty() : tensor<2x3xf64>
  %sp = math.sin %p : tensor<2x3xf64>
  %0 = tensor.insert_slice %sp into %e[0, 0] [2, 3] [1, 1] : tensor<2x3xf64> into tensor<2x3xf64>
  %r = arith.mulf %0, %p : tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}
"""

CAST = """
func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
  %0 = tensor.cast %x : tensor<3xf64> to tensor<?xf64>
  %1 = tensor.cast %0 : tensor<?xf64> to tensor<3xf64>
  %r = math.sin %1 : tensor<3xf64>
  return %r : tensor<3xf64>
}
"""

CONCAT = """
func.func @f(%x: tensor<2x3xf64>, %y: tensor<1x3xf64>) -> tensor<3x3xf64> {
  %sy = math.sin %y : tensor<1x3xf64>
  %0 = tensor.concat dim(0) %x, %sy : (tensor<2x3xf64>, tensor<1x3xf64>) -> tensor<3x3xf64>
  %r = arith.mulf %0, %0 : tensor<3x3xf64>
  return %r : tensor<3x3xf64>
}
"""

RESHAPES = """
func.func @f(%x: tensor<2x6xf64>) -> tensor<3x4xf64> {
  %0 = tensor.collapse_shape %x [[0, 1]] : tensor<2x6xf64> into tensor<12xf64>
  %1 = math.sin %0 : tensor<12xf64>
  %2 = tensor.expand_shape %1 [[0, 1]] output_shape [3, 4] : tensor<12xf64> into tensor<3x4xf64>
  %r = arith.mulf %2, %2 : tensor<3x4xf64>
  return %r : tensor<3x4xf64>
}
"""

CASES = {
    "extract": (EXTRACT, [_x(4, 3), 2], (0,)),
    "insert": (INSERT, [_x(4, 3), 0.3, 1], (0, 1)),
    "from_elements": (FROM_ELEMENTS, [0.7, -1.1, 0.4], (0, 1, 2)),
    "splat": (SPLAT, [0.8, _x(3, 2)], (0, 1)),
    "generate": (GENERATE, [_x(5), 0.6], (0, 1)),
    "generate_with_a_loop_and_a_dynamic_extent": (GENERATE_LOOP, [_x(4), 0.7], (0, 1)),
    "generate_inactive_captures": (GENERATE_INACTIVE, [_x(3, 4)], (0,)),
    "pad": (PAD, [_x(2, 3), 0.9, 2], (0, 1)),
    "pad_constant_value": (PAD_CONSTANT, [_x(2, 3)], (0,)),
    "reshape": (RESHAPE, [_x(2, 6)], (0,)),
    "reshape_dynamic": (RESHAPE_DYNAMIC, [_x(2, 6)], (0,)),
    "extract_slice_dynamic_offsets": (EXTRACT_SLICE, [_x(6, 5), 1, 2], (0,)),
    "insert_slice_dynamic_offsets": (INSERT_SLICE, [_x(6, 5), _x(2, 3), 2, 1], (0, 1)),
    "empty": (EMPTY, [_x(2, 3)], (0,)),
    "cast": (CAST, [_x(3)], (0,)),
    "concat": (CONCAT, [_x(2, 3), _x(1, 3)], (0, 1)),
    "collapse_expand_shape": (RESHAPES, [_x(2, 6)], (0,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_modes_match_finite_differences(name):
    body, args, wrt = CASES[name]
    check_ir(_declarations(body, wrt), args, wrt)


BATCHED = ["extract", "insert", "from_elements", "splat", "generate", "generate_with_a_loop_and_a_dynamic_extent",
           "pad", "reshape",
           "extract_slice_dynamic_offsets", "insert_slice_dynamic_offsets", "concat"]


@pytest.mark.parametrize("name", BATCHED)
def test_a_batch_prefix_gives_the_derivative_of_every_row(name):
    body, args, wrt = CASES[name]
    check_batched(body, args, wrt)


def test_a_rank_two_prefix_on_a_scalar_result_is_the_jacobian_rows():
    body, args, wrt = CASES["extract"]
    check_batched(body, args, wrt, prefix=(2, 3))


def test_the_gradient_of_an_extract_is_a_one_hot_row():
    body, args, wrt = CASES["extract"]
    x, i = args
    _, grad = ta.compile_mlir(_declarations(body, wrt), "f_vjp")(x, i, 1.0)
    want = np.zeros_like(x)
    e = x[i, 1]
    want[i, 1] = np.cos(e) * e + np.sin(e)
    np.testing.assert_allclose(grad, want, rtol=1e-12)


def _differentiated(source: str) -> str:
    with make_context():
        module = ir.Module.parse(source)
        run_pipeline(module, "tad-differentiate,tad-simplify")
        return str(module)


def test_the_adjoint_of_a_gather_in_a_generate_is_added_in_place():
    # The reverse loop reads and writes one element of the carried adjoint per
    # gathered element, instead of adding a whole scatter into zeros.
    body, _, wrt = CASES["generate"]
    text = _differentiated(_declarations(body, wrt))
    vjp = text[text.index("func.func private @f_vjp"):]
    assert "scf.for" in vjp
    assert "arith.addf" in vjp and ": tensor<5xf64>\n" not in "".join(
        line + "\n" for line in vjp.splitlines() if "arith.addf" in line)


def test_a_padding_value_computed_inside_the_region_from_an_active_value_is_refused():
    body = """
func.func @f(%x: tensor<2xf64>, %v: f64) -> tensor<4xf64> {
  %0 = tensor.pad %x low[1] high[1] {
  ^bb0(%i: index):
    %w = arith.mulf %v, %v : f64
    tensor.yield %w : f64
  } : tensor<2xf64> to tensor<4xf64>
  return %0 : tensor<4xf64>
}
"""
    with pytest.raises(ta.CompileError, match="tensor.pad"):
        ta.compile_mlir(_declarations(body, (0, 1)), "f_vjp")


VMAPPED = """
func.func @f(%x: tensor<6x4xf64>, %s: f64, %i: index) -> (tensor<4x3xf64>, tensor<2x2xf64>, tensor<6x4xf64>) {
  %0 = tensor.insert %s into %x[%i, %i] : tensor<6x4xf64>
  %1 = tensor.splat %s : tensor<6x4xf64>
  %2 = arith.mulf %0, %1 : tensor<6x4xf64>
  %3 = tensor.extract_slice %2[%i, 1] [2, 3] [2, 1] : tensor<6x4xf64> to tensor<2x3xf64>
  %4 = tensor.collapse_shape %3 [[0, 1]] : tensor<2x3xf64> into tensor<6xf64>
  %7 = tensor.expand_shape %4 [[0, 1]] output_shape [3, 2] : tensor<6xf64> into tensor<3x2xf64>
  %shape = arith.constant dense<[4, 3]> : tensor<2xindex>
  %8 = tensor.reshape %2(%shape) : (tensor<6x4xf64>, tensor<2xindex>) -> tensor<8x3xf64>
  %9 = tensor.extract_slice %8[0, 0] [4, 3] [2, 1] : tensor<8x3xf64> to tensor<4x3xf64>
  %two = arith.constant 2.0 : f64
  %10 = tensor.from_elements %s, %two, %s, %s : tensor<2x2xf64>
  %11 = tensor.insert_slice %7 into %2[%i, 0] [3, 2] [1, 1] : tensor<3x2xf64> into tensor<6x4xf64>
  return %9, %10, %11 : tensor<4x3xf64>, tensor<2x2xf64>, tensor<6x4xf64>
}
func.func private @f_vmap(tensor<3x6x4xf64>, tensor<3xf64>, index) -> (tensor<3x4x3xf64>, tensor<3x2x2xf64>, tensor<3x6x4xf64>)
    attributes {tad.vmap = {of = @f, in_axes = array<i64: 0, 0, -1>, out_axes = array<i64: 0, 0, 0>}}
"""


def test_vmap_of_tensor_element_and_slice_ops_is_the_map_over_rows():
    xs, ss, i = _x(3, 6, 4), _x(3), 1
    with make_context():
        module = ir.Module.parse(VMAPPED)
        run_pipeline(module, "tad-batch")
        batched_ir = str(module)
    body = batched_ir[batched_ir.index("func.func private @f_vmap"):]
    assert "scf.for" not in body  # every op has a batching rule: no loop over the rows
    f, f_vmap = ta.compile_mlir(VMAPPED, "f"), ta.compile_mlir(VMAPPED, "f_vmap")
    got = f_vmap(xs, ss, i)
    for r in range(3):
        for k, want in enumerate(f(xs[r], ss[r], i)):
            np.testing.assert_allclose(got[k][r], want, rtol=1e-12)
