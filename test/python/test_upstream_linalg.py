"""linalg on tensors, as LAGrad's and Enzyme-MLIR's users write it: both modes, run and checked numerically.

Each case is a hand-written ``@f`` over named structured ops or
``linalg.generic``; the derivative declarations are generated from its
signature (every float argument in ``wrt``), compiled with
``ta.compile_mlir`` and checked by :func:`mlir_derivatives.check_ir`
against float64 central differences (jvp) and the dot-product test (vjp).
"""

import re

import numpy as np
import pytest
from mlir_derivatives import check_ir

import tensorad as ta
from tensorad.errors import CompileError

MAPS = """
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#scalar2 = affine_map<(d0, d1) -> ()>
#id1 = affine_map<(d0) -> (d0)>
#scalar1 = affine_map<(d0) -> ()>
"""

CASES = {
    "matmul": ("""
func.func @f(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>, %c: tensor<3x5xf64>) -> tensor<3x5xf64> {
  %0 = linalg.matmul ins(%a, %b : tensor<3x4xf64>, tensor<4x5xf64>) outs(%c : tensor<3x5xf64>) -> tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}""", [(3, 4), (4, 5), (3, 5)]),
    "matmul_zero_init": ("""
func.func @f(%a: tensor<3x4xf64>, %b: tensor<4x5xf64>) -> tensor<3x5xf64> {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3x5xf64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<3x5xf64>) -> tensor<3x5xf64>
  %0 = linalg.matmul ins(%a, %b : tensor<3x4xf64>, tensor<4x5xf64>) outs(%c : tensor<3x5xf64>) -> tensor<3x5xf64>
  return %0 : tensor<3x5xf64>
}""", [(3, 4), (4, 5)]),
    "batch_matmul": ("""
func.func @f(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>, %c: tensor<2x3x5xf64>) -> tensor<2x3x5xf64> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xf64>, tensor<2x4x5xf64>) outs(%c : tensor<2x3x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}""", [(2, 3, 4), (2, 4, 5), (2, 3, 5)]),
    "matvec": ("""
func.func @f(%a: tensor<3x4xf64>, %x: tensor<4xf64>, %y: tensor<3xf64>) -> tensor<3xf64> {
  %0 = linalg.matvec ins(%a, %x : tensor<3x4xf64>, tensor<4xf64>) outs(%y : tensor<3xf64>) -> tensor<3xf64>
  return %0 : tensor<3xf64>
}""", [(3, 4), (4,), (3,)]),
    "vecmat": ("""
func.func @f(%x: tensor<3xf64>, %a: tensor<3x4xf64>, %y: tensor<4xf64>) -> tensor<4xf64> {
  %0 = linalg.vecmat ins(%x, %a : tensor<3xf64>, tensor<3x4xf64>) outs(%y : tensor<4xf64>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}""", [(3,), (3, 4), (4,)]),
    "dot_to_scalar": ("""
func.func @f(%x: tensor<5xf64>, %y: tensor<5xf64>) -> f64 {
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<f64>
  %c = linalg.fill ins(%z : f64) outs(%e : tensor<f64>) -> tensor<f64>
  %0 = linalg.dot ins(%x, %y : tensor<5xf64>, tensor<5xf64>) outs(%c : tensor<f64>) -> tensor<f64>
  %1 = tensor.extract %0[] : tensor<f64>
  return %1 : f64
}""", [(5,), (5,)]),
    "reduce_add": ("""
func.func @f(%x: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  %0 = linalg.reduce ins(%x : tensor<3x4xf64>) outs(%init : tensor<3xf64>) dimensions = [1]
    (%in: f64, %acc: f64) {
      %s = arith.addf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %0 : tensor<3xf64>
}""", [(3, 4), (3,)]),
    "reduce_max": ("""
func.func @f(%x: tensor<3x4xf64>, %init: tensor<4xf64>) -> tensor<4xf64> {
  %0 = linalg.reduce ins(%x : tensor<3x4xf64>) outs(%init : tensor<4xf64>) dimensions = [0]
    (%in: f64, %acc: f64) {
      %s = arith.maxnumf %in, %acc : f64
      linalg.yield %s : f64
    }
  return %0 : tensor<4xf64>
}""", [(3, 4), (4,)]),
    "max_as_compare_and_select": (MAPS + """
func.func @f(%x: tensor<3x4xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  %0 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf64>) outs(%init : tensor<3xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %e = math.exp %in : f64
    %p = arith.cmpf ogt, %e, %acc : f64
    %r = arith.select %p, %e, %acc : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  return %0 : tensor<3xf64>
}""", [(3, 4), (3,)]),
    "broadcast_transpose_map": ("""
func.func @f(%v: tensor<3xf64>, %m: tensor<4x3xf64>) -> tensor<3x4xf64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %b = linalg.broadcast ins(%v : tensor<3xf64>) outs(%e : tensor<3x4xf64>) dimensions = [1]
  %t = linalg.transpose ins(%m : tensor<4x3xf64>) outs(%e : tensor<3x4xf64>) permutation = [1, 0]
  %p = linalg.map { arith.mulf } ins(%b, %t : tensor<3x4xf64>, tensor<3x4xf64>) outs(%e : tensor<3x4xf64>)
  %s = linalg.map { math.sin } ins(%p : tensor<3x4xf64>) outs(%e : tensor<3x4xf64>)
  return %s : tensor<3x4xf64>
}""", [(3,), (4, 3)]),
    "named_elementwise": ("""
func.func @f(%x: tensor<6xf64>, %y: tensor<6xf64>) -> tensor<6xf64> {
  %e = tensor.empty() : tensor<6xf64>
  %0 = linalg.exp ins(%x : tensor<6xf64>) outs(%e : tensor<6xf64>) -> tensor<6xf64>
  %1 = linalg.mul ins(%0, %y : tensor<6xf64>, tensor<6xf64>) outs(%e : tensor<6xf64>) -> tensor<6xf64>
  %2 = linalg.tanh ins(%1 : tensor<6xf64>) outs(%e : tensor<6xf64>) -> tensor<6xf64>
  %3 = linalg.sub ins(%2, %x : tensor<6xf64>, tensor<6xf64>) outs(%e : tensor<6xf64>) -> tensor<6xf64>
  %4 = linalg.elementwise kind=#linalg.elementwise_kind<exp> ins(%3 : tensor<6xf64>) outs(%e : tensor<6xf64>) -> tensor<6xf64>
  return %4 : tensor<6xf64>
}""", [(6,), (6,)]),
    "logsumexp_generic": (MAPS + """
func.func @f(%x: tensor<3x5xf64>) -> tensor<3xf64> {
  %lo = arith.constant -1.0e30 : f64
  %z = arith.constant 0.0 : f64
  %e = tensor.empty() : tensor<3xf64>
  %m0 = linalg.fill ins(%lo : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %m = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x5xf64>) outs(%m0 : tensor<3xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %r = arith.maximumf %in, %acc : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  %s0 = linalg.fill ins(%z : f64) outs(%e : tensor<3xf64>) -> tensor<3xf64>
  %s = linalg.generic {indexing_maps = [#id2, #row, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<3x5xf64>, tensor<3xf64>) outs(%s0 : tensor<3xf64>) {
  ^bb0(%in: f64, %mx: f64, %acc: f64):
    %d = arith.subf %in, %mx : f64
    %p = math.exp %d : f64
    %r = arith.addf %acc, %p : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  %out = linalg.generic {indexing_maps = [#id1, #id1, #id1], iterator_types = ["parallel"]}
      ins(%s, %m : tensor<3xf64>, tensor<3xf64>) outs(%e : tensor<3xf64>) {
  ^bb0(%a: f64, %b: f64, %o: f64):
    %l = math.log %a : f64
    %r = arith.addf %l, %b : f64
    linalg.yield %r : f64
  } -> tensor<3xf64>
  return %out : tensor<3xf64>
}""", [(3, 5)]),
    "generic_index_and_captured_scalar": (MAPS + """
func.func @f(%x: tensor<3x4xf64>, %w: f64) -> tensor<3x4xf64> {
  %e = tensor.empty() : tensor<3x4xf64>
  %0 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf64>) outs(%e : tensor<3x4xf64>) {
  ^bb0(%in: f64, %o: f64):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %a = arith.mulf %in, %fi : f64
    %b = arith.mulf %a, %w : f64
    %c = math.sin %b : f64
    linalg.yield %c : f64
  } -> tensor<3x4xf64>
  return %0 : tensor<3x4xf64>
}""", [(3, 4), ()]),
    "generic_two_outputs_scalar_input": (MAPS + """
func.func @f(%x: tensor<3x4xf64>, %s: f64, %i0: tensor<3xf64>, %i1: tensor<4xf64>) -> (tensor<3xf64>, tensor<4xf64>) {
  %0:2 = linalg.generic {indexing_maps = [#id2, #scalar2, #row, #col], iterator_types = ["reduction", "reduction"]}
      ins(%x, %s : tensor<3x4xf64>, f64) outs(%i0, %i1 : tensor<3xf64>, tensor<4xf64>) {
  ^bb0(%in: f64, %k: f64, %a: f64, %b: f64):
    %p = arith.mulf %in, %k : f64
    %q = arith.mulf %p, %p : f64
    %r0 = arith.addf %a, %q : f64
    %e = math.exp %in : f64
    %r1 = arith.addf %e, %b : f64
    linalg.yield %r0, %r1 : f64, f64
  } -> (tensor<3xf64>, tensor<4xf64>)
  return %0#0, %0#1 : tensor<3xf64>, tensor<4xf64>
}""", [(3, 4), (), (3,), (4,)]),
    "conv_2d_nhwc_hwcf": ("""
func.func @f(%x: tensor<1x5x6x2xf64>, %w: tensor<3x2x2x3xf64>, %o: tensor<1x3x5x3xf64>) -> tensor<1x3x5x3xf64> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x6x2xf64>, tensor<3x2x2x3xf64>) outs(%o : tensor<1x3x5x3xf64>) -> tensor<1x3x5x3xf64>
  return %0 : tensor<1x3x5x3xf64>
}""", [(1, 5, 6, 2), (3, 2, 2, 3), (1, 3, 5, 3)]),
    "conv_1d_strided_dilated": ("""
func.func @f(%x: tensor<2x9x2xf64>, %w: tensor<2x2x3xf64>, %o: tensor<2x4x3xf64>) -> tensor<2x4x3xf64> {
  %0 = linalg.conv_1d_nwc_wcf {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
      ins(%x, %w : tensor<2x9x2xf64>, tensor<2x2x3xf64>) outs(%o : tensor<2x4x3xf64>) -> tensor<2x4x3xf64>
  return %0 : tensor<2x4x3xf64>
}""", [(2, 9, 2), (2, 2, 3), (2, 4, 3)]),
    "depthwise_conv": ("""
func.func @f(%x: tensor<1x5x5x2xf64>, %w: tensor<2x2x2xf64>, %o: tensor<1x4x4x2xf64>) -> tensor<1x4x4x2xf64> {
  %0 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : tensor<1x5x5x2xf64>, tensor<2x2x2xf64>) outs(%o : tensor<1x4x4x2xf64>) -> tensor<1x4x4x2xf64>
  return %0 : tensor<1x4x4x2xf64>
}""", [(1, 5, 5, 2), (2, 2, 2), (1, 4, 4, 2)]),
    "pooling_max_and_sum": ("""
func.func @f(%x: tensor<1x4x4x2xf64>, %o: tensor<1x2x2x2xf64>) -> (tensor<1x2x2x2xf64>, tensor<1x2x2x2xf64>) {
  %k = tensor.empty() : tensor<2x2xf64>
  %0 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : tensor<1x4x4x2xf64>, tensor<2x2xf64>) outs(%o : tensor<1x2x2x2xf64>) -> tensor<1x2x2x2xf64>
  %1 = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %k : tensor<1x4x4x2xf64>, tensor<2x2xf64>) outs(%o : tensor<1x2x2x2xf64>) -> tensor<1x2x2x2xf64>
  return %0, %1 : tensor<1x2x2x2xf64>, tensor<1x2x2x2xf64>
}""", [(1, 4, 4, 2), (1, 2, 2, 2)]),
}


def _type(shape) -> str:
    return "f64" if shape == () else "tensor<" + "x".join(map(str, shape)) + "xf64>"


def declarations(source: str, shapes: list, prefix: tuple = ()) -> str:
    """``@f_vjp`` and ``@f_jvp`` declarations of ``@f`` (every argument in ``wrt``), from its signature."""
    results = re.search(r"func\.func @f\(.*?\)\s*->\s*\(?(.*?)\)?\s*\{", source, re.S).group(1)
    result_types = [t.strip() for t in re.split(r",\s*(?![^<]*>)", results)]
    args = [_type(s) for s in shapes]
    batched = [_type(prefix + s) for s in shapes]
    batched_results = [_type(prefix + tuple(int(n) for n in re.findall(r"\d+(?=x)", t))) if prefix else t
                       for t in result_types]
    wrt = ", ".join(map(str, range(len(shapes))))
    return f"""
func.func private @f_vjp({", ".join(args + result_types)}) -> ({", ".join(result_types + args)})
    attributes {{tad.vjp = {{of = @f, wrt = array<i64: {wrt}>}}}}
func.func private @f_jvp({", ".join(args + batched)}) -> ({", ".join(result_types + batched_results)})
    attributes {{tad.jvp = {{of = @f, wrt = array<i64: {wrt}>}}}}
"""


def _args(shapes, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) if s else np.float64(rng.standard_normal()) for s in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
def test_both_modes_match_finite_differences(name):
    source, shapes = CASES[name]
    check_ir(source + declarations(source, shapes), _args(shapes), list(range(len(shapes))))


ACCUMULATE_THEN_REDUCE = """
#r = affine_map<(d0, d1) -> (d0, d1)>
#c = affine_map<(d0, d1) -> (d0)>
#i = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<3x5xf64>, %a: tensor<3xf64>, %init: tensor<3xf64>) -> tensor<3xf64> {
  %p = linalg.generic {indexing_maps = [#i, #i], iterator_types = ["parallel"]} ins(%a : tensor<3xf64>) outs(%init : tensor<3xf64>) {
    ^bb0(%in: f64, %out: f64):
      %s = arith.addf %out, %in : f64
      linalg.yield %s : f64
  } -> tensor<3xf64>
  %z = arith.constant dense<0.0> : tensor<3xf64>
  %b = linalg.generic {indexing_maps = [#r, #c, #c], iterator_types = ["parallel", "reduction"]} ins(%x, %p : tensor<3x5xf64>, tensor<3xf64>) outs(%z : tensor<3xf64>) {
    ^bb0(%in: f64, %k: f64, %out: f64):
      %m = arith.mulf %k, %in : f64
      %s = arith.addf %out, %m : f64
      linalg.yield %s : f64
  } -> tensor<3xf64>
  return %b : tensor<3xf64>
}"""


def test_parallel_generic_reading_its_init_feeds_a_reduction():
    # Upstream elementwise fusion alone would re-add %a at every step of the reduction (65 instead of 55).
    x, a, init = np.ones((3, 5)), np.array([1.0, 2.0, 3.0]), np.array([10.0, 20.0, 30.0])
    source = ACCUMULATE_THEN_REDUCE + declarations(ACCUMULATE_THEN_REDUCE, [(3, 5), (3,), (3,)])
    value = check_ir(source, [x, a, init], [0, 1, 2])[0]
    np.testing.assert_array_equal(value, [55.0, 110.0, 165.0])


@pytest.mark.parametrize("name", ["matmul", "conv_2d_nhwc_hwcf", "generic_index_and_captured_scalar",
                                  "broadcast_transpose_map"])
def test_a_batch_of_tangents_matches_one_at_a_time(name):
    # A Jacobian's prefix: one extra parallel loop in front, read by the tangents only.
    source, shapes = CASES[name]
    args = _args(shapes)
    batched = ta.compile_mlir(source + declarations(source, shapes, prefix=(2,)), "f_jvp")
    single = ta.compile_mlir(source + declarations(source, shapes), "f_jvp")
    rng = np.random.default_rng(1)
    tangents = [rng.standard_normal((2,) + s) for s in shapes]
    out = batched(*args, *tangents)
    out = out if isinstance(out, tuple) else (out,)
    for row in range(2):
        expected = single(*args, *[t[row] for t in tangents])
        expected = expected if isinstance(expected, tuple) else (expected,)
        n = len(expected) // 2
        for got, want in zip(out[n:], expected[n:]):
            np.testing.assert_allclose(got[row], want, rtol=1e-12, atol=1e-12)


def test_float32_matmul_and_logsumexp_gradients():
    source, shapes = CASES["logsumexp_generic"]
    source = source.replace("f64", "f32")
    decl = declarations(CASES["logsumexp_generic"][0], shapes).replace("f64", "f32")
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    value, grad = ta.compile_mlir(source + decl, "f_vjp")(x, np.ones(3, np.float32))
    assert grad.dtype == np.float32
    softmax = np.exp(x - x.max(1, keepdims=True))
    softmax /= softmax.sum(1, keepdims=True)
    np.testing.assert_allclose(grad, softmax, rtol=1e-5)


def test_a_product_reduction_is_refused_in_reverse_mode_with_the_op_location():
    source = MAPS + """
func.func @f(%x: tensor<4xf64>, %init: tensor<f64>) -> tensor<f64> {
  %0 = linalg.generic {indexing_maps = [#id1, #scalar1], iterator_types = ["reduction"]}
      ins(%x : tensor<4xf64>) outs(%init : tensor<f64>) {
  ^bb0(%in: f64, %acc: f64):
    %p = arith.mulf %acc, %in : f64
    linalg.yield %p : f64
  } -> tensor<f64>
  return %0 : tensor<f64>
}"""
    vjp, jvp = declarations(source, [(4,), (1,)]).replace("tensor<1xf64>", "tensor<f64>").split("func.func private @f_jvp")
    with pytest.raises(CompileError, match=r"no reverse-mode \(vjp\) rule for linalg.generic: output 0"):
        ta.compile_mlir(source + vjp, "f_vjp")
    # Forward mode recomputes the running product alongside its tangent.
    x = np.array([1.5, -2.0, 0.5, 3.0])
    value, tangent = ta.compile_mlir(source + "func.func private @f_jvp" + jvp, "f_jvp")(
        x, np.array(1.0), np.ones(4), np.array(0.0))
    np.testing.assert_allclose(tangent, sum(np.prod(np.delete(x, k)) for k in range(4)))


DYNAMIC = """
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @f(%a: tensor<?x3xf64>, %b: tensor<3x4xf64>, %c: tensor<?x4xf64>, %v: tensor<?xf64>)
    -> (tensor<?x4xf64>, tensor<?xf64>) {
  %0 = linalg.matmul ins(%a, %b : tensor<?x3xf64>, tensor<3x4xf64>) outs(%c : tensor<?x4xf64>) -> tensor<?x4xf64>
  %1 = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%0 : tensor<?x4xf64>) outs(%v : tensor<?xf64>) {
  ^bb0(%in: f64, %acc: f64):
    %e = math.exp %in : f64
    %m = arith.maxnumf %e, %acc : f64
    linalg.yield %m : f64
  } -> tensor<?xf64>
  return %0, %1 : tensor<?x4xf64>, tensor<?xf64>
}
func.func private @f_vjp(tensor<?x3xf64>, tensor<3x4xf64>, tensor<?x4xf64>, tensor<?xf64>, tensor<?x4xf64>, tensor<?xf64>)
    -> (tensor<?x4xf64>, tensor<?xf64>, tensor<?x3xf64>, tensor<3x4xf64>, tensor<?x4xf64>, tensor<?xf64>)
    attributes {tad.vjp = {of = @f, wrt = array<i64: 0, 1, 2, 3>}}
func.func private @f_jvp(tensor<?x3xf64>, tensor<3x4xf64>, tensor<?x4xf64>, tensor<?xf64>,
                         tensor<?x3xf64>, tensor<3x4xf64>, tensor<?x4xf64>, tensor<?xf64>)
    -> (tensor<?x4xf64>, tensor<?xf64>, tensor<?x4xf64>, tensor<?xf64>)
    attributes {tad.jvp = {of = @f, wrt = array<i64: 0, 1, 2, 3>}}
"""


@pytest.mark.parametrize("rows", [1, 2, 5])
def test_dynamic_rows_in_both_modes(rows):
    rng = np.random.default_rng(rows)
    args = [rng.standard_normal((rows, 3)), rng.standard_normal((3, 4)), rng.standard_normal((rows, 4)),
            rng.standard_normal(rows)]
    check_ir(DYNAMIC, args, [0, 1, 2, 3])
