"""Numerical tests of ``tad-lower-to-linalg``: every ``tad`` op against numpy.

Each case wraps one op in ``func.func @f``, lowers it with
``tad-lower-to-linalg,tad-lower-to-llvm``, runs it with the MLIR
ExecutionEngine and compares the result with a numpy reference. The small
harness here (allocation callbacks, memref descriptors) stands in for the
``tensorad`` runtime, which is meant to replace it; it also checks that every
buffer but the returned one is freed.
"""

from __future__ import annotations

import ctypes
from pathlib import Path

import mlir
import numpy as np
import pytest
from mlir import ir
from mlir.execution_engine import ExecutionEngine
from mlir.runtime import (as_ctype, get_ranked_memref_descriptor, make_nd_memref_descriptor,
                          make_zero_d_memref_descriptor, ranked_memref_to_numpy)

from tensorad.dialects import make_context
from tensorad.passes.registry import run_pipeline

RUNNER_UTILS = Path(mlir.__path__[0]) / "lib" / "libmlir_c_runner_utils.so"
MLIR_TYPES = {np.dtype(np.float32): "f32", np.dtype(np.float64): "f64", np.dtype(np.int8): "i8",
              np.dtype(np.int32): "i32", np.dtype(np.int64): "i64", np.dtype(np.bool_): "i1"}
NUMPY_TYPES = {name: dtype for dtype, name in MLIR_TYPES.items()}
FLOATS = [np.float32, np.float64]


class Allocator:
    """``_mlir_memref_to_llvm_alloc/free`` backed by libc, remembering live blocks."""

    def __init__(self):
        libc = ctypes.CDLL(None)
        libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
        libc.free.argtypes = [ctypes.c_void_p]
        self.live: set[int] = set()

        @ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_uint64)
        def alloc(size):
            ptr = libc.malloc(max(size, 1))
            self.live.add(ptr)
            return ptr

        @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        def free(ptr):
            self.live.discard(ptr)
            libc.free(ptr)

        self.callbacks = {"_mlir_memref_to_llvm_alloc": alloc, "_mlir_memref_to_llvm_free": free}
        self.free = free

    def register(self, engine: ExecutionEngine) -> None:
        """Resolve the allocation functions of ``engine``'s code to these callbacks."""
        for name, fn in self.callbacks.items():
            engine.raw_register_runtime(name, ctypes.cast(fn, ctypes.c_void_p))


def tensor_type(shape, dtype) -> str:
    """``tensor_type((2, 3), np.float32)`` -> ``'tensor<2x3xf32>'``."""
    return "tensor<" + "".join(f"{n}x" for n in shape) + MLIR_TYPES[np.dtype(dtype)] + ">"


def op_func(name: str, args, result_shape, result_dtype, attrs: str = "") -> str:
    """``func.func @f`` applying ``tad.<name>`` with ``attrs`` to arguments shaped like ``args``."""
    arg_types = [tensor_type(a.shape, a.dtype) for a in args]
    result = tensor_type(result_shape, result_dtype)
    params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(arg_types))
    operands = ", ".join(f"%a{i}" for i in range(len(args)))
    attr_text = f" {{{attrs}}}" if attrs else ""
    return (f"func.func @f({params}) -> {result} {{\n"
            f'  %0 = "tad.{name}"({operands}){attr_text} : ({", ".join(arg_types)}) -> {result}\n'
            f"  return %0 : {result}\n}}")


def i64_array(values) -> str:
    """``i64_array([1, 0])`` -> ``'array<i64: 1, 0>'``."""
    return "array<i64" + "".join(f", {int(v)}" if i else f": {int(v)}" for i, v in enumerate(values)) + ">"


@pytest.fixture(scope="module")
def execute():
    """Return ``execute(text, *args)``: lower and run ``@f`` in ``text``, return its result."""
    allocator = Allocator()

    def run(text: str, *args: np.ndarray) -> np.ndarray:
        ctx = make_context()
        module = ir.Module.parse(text, ctx)
        run_pipeline(module, "tad-lower-to-linalg")
        assert "tad." not in str(module)
        with ctx:
            func = module.body.operations[0]
            func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
            [result_type] = func.type.results
        run_pipeline(module, "tad-lower-to-llvm")
        engine = ExecutionEngine(module, opt_level=2, shared_libs=[str(RUNNER_UTILS)])
        allocator.register(engine)
        dtype = NUMPY_TYPES[str(result_type.element_type)]
        ctype = as_ctype(dtype)
        result = (make_nd_memref_descriptor(result_type.rank, ctype) if result_type.rank
                  else make_zero_d_memref_descriptor(ctype))()
        args = [np.ascontiguousarray(a) for a in args]
        engine.invoke("f", ctypes.pointer(ctypes.pointer(result)),
                      *[ctypes.pointer(ctypes.pointer(get_ranked_memref_descriptor(a))) for a in args])
        if result_type.rank:
            out = ranked_memref_to_numpy([result]).copy()
        else:
            out = np.array(result.aligned[result.offset], dtype=dtype)
        owned = ctypes.cast(result.allocated, ctypes.c_void_p).value
        assert allocator.live <= {owned}, "a buffer other than the result was not freed"
        if owned in allocator.live:
            allocator.free(owned)
        return out

    return run


def check(execute, name, args, expected, attrs="", **tolerance):
    """Run ``tad.<name>`` on ``args`` and compare with ``expected`` (dtype and shape too)."""
    expected = np.asarray(expected)
    got = execute(op_func(name, args, expected.shape, expected.dtype, attrs), *args)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_allclose(got, expected, **tolerance)


def rand(shape, dtype, seed=0):
    """Random test data of ``dtype``: normals for floats, small signed integers, booleans."""
    rng = np.random.default_rng(seed)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    return rng.integers(-50, 50, shape).astype(dtype)


# --- structure -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("shape,result_shape,dims", [
    ((3,), (2, 3), (1,)), ((3, 1), (3, 4), (0, 1)), ((1,), (2, 3), (1,)), ((), (2, 2), ()),
    ((2, 3), (2, 5, 3), (0, 2)), ((2, 3), (2, 3), (0, 1)), ((1, 1), (1, 4), (0, 1)),
    ((3, 2), (2, 3), (1, 0)), ((2, 1), (4, 2, 3), (1, 0)),
])
def test_broadcast_in_dim(execute, dtype, shape, result_shape, dims):
    x = rand(shape, dtype)
    aligned = np.transpose(x, np.argsort(dims)) if x.ndim else x
    expanded = [1] * len(result_shape)
    for d, n in zip(sorted(dims), aligned.shape):
        expanded[d] = n
    expected = np.broadcast_to(aligned.reshape(expanded), result_shape)
    check(execute, "broadcast_in_dim", [x], expected, f"broadcast_dimensions = {i64_array(dims)}")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,result_shape", [
    ((2, 3), (3, 2)), ((6,), (2, 3)), ((2, 3), (6,)), ((), (1, 1)), ((1, 1), ()), ((2, 3, 4), (4, 6)),
    ((1,), ()), ((), (1,)), ((4,), (4,)), ((2, 6), (3, 2, 2)),
])
def test_reshape(execute, dtype, shape, result_shape):
    x = rand(shape, dtype)
    check(execute, "reshape", [x], x.reshape(result_shape))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,perm", [
    ((2, 3), (1, 0)), ((2, 3, 4), (2, 0, 1)), ((2, 3, 4), (0, 1, 2)), ((2, 3, 4, 5), (3, 1, 0, 2)),
])
def test_transpose(execute, dtype, shape, perm):
    x = rand(shape, dtype)
    check(execute, "transpose", [x], np.transpose(x, perm), f"permutation = {i64_array(perm)}")


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,start,limit,strides", [
    ((10,), (1,), (8,), (2,)), ((4, 5), (1, 0), (3, 5), (1, 2)), ((3, 4, 5), (0, 0, 0), (3, 4, 5), (1, 1, 1)),
    ((7, 6), (2, 1), (7, 6), (3, 4)), ((5,), (2,), (3,), (1,)),
])
def test_slice(execute, dtype, shape, start, limit, strides):
    x = rand(shape, dtype)
    expected = x[tuple(slice(*s) for s in zip(start, limit, strides))]
    attrs = (f"start_indices = {i64_array(start)}, limit_indices = {i64_array(limit)}, "
             f"strides = {i64_array(strides)}")
    check(execute, "slice", [x], expected, attrs)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32])
@pytest.mark.parametrize("shape,low,high,interior", [
    ((3,), (1,), (2,), (1,)), ((2, 3), (0, 1), (1, 0), (0, 2)), ((2, 2), (0, 0), (0, 0), (0, 0)),
    ((2, 3, 2), (1, 0, 2), (0, 3, 1), (1, 1, 0)), ((1,), (0,), (0,), (3,)),
])
def test_pad(execute, dtype, shape, low, high, interior):
    x, value = rand(shape, dtype), np.array(7, dtype)
    result_shape = [lo + hi + n + max(n - 1, 0) * it for n, lo, hi, it in zip(shape, low, high, interior)]
    expected = np.full(result_shape, value)
    expected[tuple(slice(lo, lo + n + (n - 1) * it, it + 1)
                   for n, lo, it in zip(shape, low, interior))] = x
    attrs = (f"edge_padding_low = {i64_array(low)}, edge_padding_high = {i64_array(high)}, "
             f"interior_padding = {i64_array(interior)}")
    check(execute, "pad", [x, value], expected, attrs)


@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64, np.int8])
@pytest.mark.parametrize("shape,dim", [((4,), 0), ((2, 3), 1), ((2, 3), 0), ((3, 2, 4), 2)])
def test_iota(execute, dtype, shape, dim):
    index = np.arange(shape[dim]).reshape([-1 if d == dim else 1 for d in range(len(shape))])
    expected = np.broadcast_to(index, shape).astype(dtype)
    check(execute, "iota", [], expected, f"iota_dimension = {dim} : i64")


@pytest.mark.parametrize("dtype,value,attr", [
    (np.float32, 2.5, "2.5 : f32"), (np.float64, -1.25, "-1.25 : f64"), (np.int32, 7, "7 : i32"),
    (np.int64, -3, "-3 : i64"), (np.bool_, True, "true"), (np.float64, np.inf, "0x7FF0000000000000 : f64"),
])
@pytest.mark.parametrize("shape", [(2, 3), (), (5,)])
def test_constant(execute, dtype, value, attr, shape):
    check(execute, "constant", [], np.full(shape, value, dtype), f"value = {attr}")


@pytest.mark.parametrize("source,target", [
    (np.float32, np.int32), (np.float64, np.int64), (np.float64, np.int8), (np.float64, np.float32),
    (np.float32, np.float64), (np.int32, np.float32), (np.int64, np.float64), (np.int64, np.int32),
    (np.int32, np.int64), (np.int8, np.int64), (np.bool_, np.float32), (np.bool_, np.int32),
    (np.float32, np.bool_), (np.float64, np.bool_), (np.int32, np.bool_), (np.float32, np.float32),
    (np.int32, np.int32),
])
def test_convert(execute, source, target):
    x = (rand((3, 4), source) * (3 if np.dtype(source).kind == "f" else 1)).astype(source)
    if np.dtype(source).kind == "f":
        x.flat[:4] = [0.0, -0.0, -2.7, 2.7]
        if target == np.bool_:
            x.flat[4] = np.nan
    check(execute, "convert", [x], x.astype(target))


@pytest.mark.parametrize("kind", ["stop_gradient", "start_checkpoint", "end_checkpoint"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_markers(execute, kind, dtype):
    x = rand((2, 3), dtype)
    check(execute, kind, [x], x)


# --- contraction -----------------------------------------------------------------

DOT_CASES = [  # lhs shape, rhs shape, (lhs batch, rhs batch, lhs contracting, rhs contracting), einsum
    ((2, 3), (3, 4), ((), (), (1,), (0,)), "ij,jk->ik"),
    ((5, 2, 3), (5, 3, 4), ((0,), (0,), (2,), (1,)), "bij,bjk->bik"),
    ((3,), (3,), ((), (), (0,), (0,)), "i,i->"),
    ((2, 3), (3,), ((), (), (1,), (0,)), "ij,j->i"),
    ((3,), (3, 4), ((), (), (0,), (0,)), "j,jk->k"),
    ((2,), (3,), ((), (), (), ()), "i,j->ij"),
    ((3, 2), (4, 3), ((), (), (0,), (1,)), "ji,kj->ik"),
    ((2, 5, 3), (3, 5, 4), ((1,), (1,), (2,), (0,)), "ibj,jbk->bik"),
    ((2, 3, 4), (3, 4, 5), ((), (), (1, 2), (0, 1)), "ijk,jkl->il"),
    ((2, 3), (3, 2), ((0, 1), (1, 0), (), ()), "ij,ji->ij"),
]


@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("lhs_shape,rhs_shape,dims,spec", DOT_CASES)
def test_dot_general(execute, dtype, lhs_shape, rhs_shape, dims, spec):
    lhs, rhs = rand(lhs_shape, dtype, 1), rand(rhs_shape, dtype, 2)
    names = ("lhs_batching_dimensions", "rhs_batching_dimensions",
             "lhs_contracting_dimensions", "rhs_contracting_dimensions")
    attrs = ", ".join(f"{n} = {i64_array(d)}" for n, d in zip(names, dims))
    check(execute, "dot_general", [lhs, rhs], np.einsum(spec, lhs, rhs).astype(dtype), attrs, rtol=1e-5)


def test_dot_general_bool(execute):
    lhs, rhs = rand((2, 3), np.bool_, 1), rand((3, 4), np.bool_, 2)
    attrs = ("lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>, "
             "lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>")
    check(execute, "dot_general", [lhs, rhs], lhs @ rhs, attrs)


# --- reduction -------------------------------------------------------------------

REDUCERS = {"sum": np.sum, "max": np.max, "min": np.min}


@pytest.mark.parametrize("kind", sorted(REDUCERS))
@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("shape,dims", [
    ((2, 3, 4), (1,)), ((2, 3, 4), (0, 2)), ((2, 3, 4), (0, 1, 2)), ((2, 3), ()), ((5,), (0,)),
])
def test_reduce(execute, kind, dtype, shape, dims):
    x = rand(shape, dtype)
    expected = REDUCERS[kind](x, axis=dims).astype(dtype) if dims else x
    check(execute, f"reduce_{kind}", [x], expected, f"dimensions = {i64_array(dims)}", rtol=1e-5)


@pytest.mark.parametrize("kind", ["max", "min"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_reduce_propagates_nan(execute, kind, dtype):
    x = rand((3, 4), dtype)
    x[1, 2] = np.nan
    check(execute, f"reduce_{kind}", [x], REDUCERS[kind](x, axis=1), f"dimensions = {i64_array([1])}")


@pytest.mark.parametrize("kind", sorted(REDUCERS))
def test_reduce_bool(execute, kind):
    x = rand((4, 5), np.bool_)
    x[0], x[1] = True, False
    expected = REDUCERS[kind](x, axis=1).astype(np.bool_)  # numpy's bool + is or
    check(execute, f"reduce_{kind}", [x], expected, f"dimensions = {i64_array([1])}")


@pytest.mark.parametrize("dtype", FLOATS + [np.int32, np.int64])
@pytest.mark.parametrize("shape,axis", [((3, 4), 0), ((3, 4), 1), ((5,), 0), ((2, 3, 4), 1)])
def test_argmax(execute, dtype, shape, axis):
    x = rand(shape, dtype)
    check(execute, "argmax", [x], np.argmax(x, axis=axis), f"axis = {axis} : i64")


@pytest.mark.parametrize("dtype", FLOATS)
def test_argmax_ties_nan_and_infinity(execute, dtype):
    x = np.array([[1, 3, 3, 0], [np.nan, 5, np.nan, 9], [2, 9, 9, np.nan], [-np.inf] * 4,
                  [0, 0, 0, 0], [-1, -np.inf, 7, 7]], dtype)
    check(execute, "argmax", [x], np.argmax(x, axis=1), "axis = 1 : i64")


def test_argmax_int_ties_and_minimum(execute):
    x = np.array([[5, 5, 1], [np.iinfo(np.int32).min] * 3, [-2, 4, 4]], np.int32)
    check(execute, "argmax", [x], np.argmax(x, axis=1), "axis = 1 : i64")


def test_argmax_bool(execute):
    x = np.array([[False, True, True], [False, False, False], [True, False, True]])
    check(execute, "argmax", [x], np.argmax(x, axis=1), "axis = 1 : i64")


# --- ops together ----------------------------------------------------------------

def test_softmax_like_chain_fuses_and_runs(execute):
    text = """
    func.func @f(%x: tensor<4x5xf64>, %w: tensor<5x3xf64>) -> tensor<4x3xf64> {
      %y = "tad.dot_general"(%x, %w) {lhs_batching_dimensions = array<i64>, rhs_batching_dimensions = array<i64>,
            lhs_contracting_dimensions = array<i64: 1>, rhs_contracting_dimensions = array<i64: 0>}
            : (tensor<4x5xf64>, tensor<5x3xf64>) -> tensor<4x3xf64>
      %m = "tad.reduce_max"(%y) {dimensions = array<i64: 1>} : (tensor<4x3xf64>) -> tensor<4xf64>
      %mb = "tad.broadcast_in_dim"(%m) {broadcast_dimensions = array<i64: 0>} : (tensor<4xf64>) -> tensor<4x3xf64>
      %d = arith.subf %y, %mb : tensor<4x3xf64>
      %e = math.exp %d : tensor<4x3xf64>
      %s = "tad.reduce_sum"(%e) {dimensions = array<i64: 1>} : (tensor<4x3xf64>) -> tensor<4xf64>
      %sb = "tad.broadcast_in_dim"(%s) {broadcast_dimensions = array<i64: 0>} : (tensor<4xf64>) -> tensor<4x3xf64>
      %r = arith.divf %e, %sb : tensor<4x3xf64>
      return %r : tensor<4x3xf64>
    }"""
    x, w = rand((4, 5), np.float64, 3), rand((5, 3), np.float64, 4)
    y = x @ w
    e = np.exp(y - y.max(axis=1, keepdims=True))
    np.testing.assert_allclose(execute(text, x, w), e / e.sum(axis=1, keepdims=True), rtol=1e-12)


def test_op_without_lowering_is_reported():
    ctx = make_context()
    module = ir.Module.parse("func.func @f() { return }", ctx)
    with ctx, ir.Location.unknown():
        func = module.body.operations[0]
        with ir.InsertionPoint.at_block_begin(func.regions[0].blocks[0]):
            ir.Operation.create("tad.no_such_op")
    with pytest.raises(ir.MLIRError, match="'tad.no_such_op' has no lowering"):
        run_pipeline(module, "tad-lower-to-linalg")
