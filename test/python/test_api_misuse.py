"""Misuses of the Python API are clean exceptions, never a crash or a silently wrong answer."""

import re

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp

DOUBLE = """
func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> {
  %0 = arith.addf %x, %x : tensor<2xf64>
  return %0 : tensor<2xf64>
}
"""


def test_compile_mlir_checks_arguments_against_the_signature():
    double = ta.compile_mlir(DOUBLE)
    np.testing.assert_array_equal(double(np.ones(2)), [2.0, 2.0])
    np.testing.assert_array_equal(double([1, 2]), [2.0, 4.0])  # converted as numpy would
    # Compiled code trusts its shapes: a wrong shape would be read out of bounds.
    with pytest.raises(ValueError, match=r"argument 0 of @main must have shape \(2,\), got \(3,\)"):
        double(np.ones(3))
    with pytest.raises(TypeError, match="takes 1 arguments, got 2"):
        double(np.ones(2), np.ones(2))
    with pytest.raises(TypeError, match="must be float64, got complex128"):
        double(np.ones(2, complex))


@pytest.mark.parametrize("element", ["f80", "i128", "complex<f16>"])
def test_compile_mlir_refuses_element_types_numpy_cannot_receive(element):
    source = f"func.func @main(%x: tensor<2x{element}>) -> tensor<2x{element}> {{ return %x : tensor<2x{element}> }}"
    with pytest.raises(ta.CompileError, match=f"element type {element}"):
        ta.compile_mlir(source)


def test_compile_mlir_refuses_functions_that_nothing_defines():
    # Found by the fuzzer (seed 22023): a declaration as the entry, and a call to one, were a
    # RuntimeError from the JIT's linker ("compiled module has no function __tad_host_imports").
    body = """
    func.func @f(%x: tensor<3xf64>) -> tensor<3xf64> {
      %0 = func.call @g(%x) : (tensor<3xf64>) -> tensor<3xf64>
      %1 = arith.addf %0, %x : tensor<3xf64>
      return %1 : tensor<3xf64>
    }
    func.func private @g(tensor<3xf64>) -> tensor<3xf64>
    func.func private @f_vjp(tensor<3xf64>, tensor<3xf64>)
    """
    with pytest.raises(ta.CompileError, match="calls @g, declared but defined nowhere"):
        ta.compile_mlir(body, "f")(np.ones(3))
    with pytest.raises(ta.CompileError, match="@f_vjp is a declaration that nothing defines"):
        ta.compile_mlir(body, "f_vjp")


CALLS_C_MATH = """
func.func private @{name}({types}) -> {element}
func.func @main(%x: tensor<{element}>) -> tensor<{element}> {{
  %v = tensor.extract %x[] : tensor<{element}>
  %r = func.call @{name}({operands}) : ({types}) -> {element}
  %t = tensor.from_elements %r : tensor<{element}>
  return %t : tensor<{element}>
}}
"""


def _calls_c_math(name: str, element: str, arity: int = 1) -> str:
    return CALLS_C_MATH.format(name=name, element=element, types=", ".join([element] * arity),
                               operands=", ".join(["%v"] * arity))


@pytest.mark.parametrize("name, element, arity, declared", [
    ("sin", "f32", 1, "(f32) -> f32"),  # returned its argument: libm's sin reads and writes a double
    ("sinf", "f64", 1, "(f64) -> f64"),
    ("pow", "f64", 1, "(f64) -> f64"),  # one argument of two: the other read from a stray register
])
def test_compile_mlir_refuses_c_math_functions_declared_with_other_types(name, element, arity, declared):
    message = f"@{name} is declared {declared}, but the C library's {name} is"
    with pytest.raises(ta.CompileError, match=re.escape(message)):
        ta.compile_mlir(_calls_c_math(name, element, arity))


@pytest.mark.parametrize("name, element, arity, expected", [
    ("sin", "f64", 1, np.sin(0.5)), ("sinf", "f32", 1, np.sin(np.float32(0.5))), ("pow", "f64", 2, 0.5 ** 0.5)])
def test_compile_mlir_calls_c_math_functions_declared_as_the_c_library_has_them(name, element, arity, expected):
    dtype = np.float64 if element == "f64" else np.float32
    np.testing.assert_allclose(ta.compile_mlir(_calls_c_math(name, element, arity))(np.array(0.5, dtype)), expected,
                               rtol=1e-6)


def test_compile_mlir_refuses_signatures_numpy_cannot_pass():
    # Tensors and scalars cross to numpy; a memref (a buffer the caller would own) does not.
    with pytest.raises(ta.CompileError, match="takes or returns memref<2xf64>"):
        ta.compile_mlir("func.func @main(%x: memref<2xf64>) -> f64 {\n  %c = arith.constant 0 : index\n"
                        "  %0 = memref.load %x[%c] : memref<2xf64>\n  return %0 : f64\n}")


def test_reductions_take_axis_minus_one_on_a_0d_array_as_numpy():
    x = np.array(2.0)
    np.testing.assert_array_equal(ta.jit(lambda v: tnp.sum(v, axis=-1, keepdims=True))(x),
                                  np.sum(x, axis=-1, keepdims=True))


def test_custom_vjp_bwd_must_match_the_arguments():
    scaled = ta.custom_vjp(lambda x, y: tnp.sin(x) * y)
    scaled.defvjp(lambda x, y: (tnp.sin(x) * y, (x, y)), lambda r, g: (tnp.cos(r[0]) * r[1] * g, None))
    gx, gy = ta.grad(lambda x, y: scaled(x, y).sum(), argnums=(0, 1))(np.ones(2), np.ones(2))
    np.testing.assert_allclose(gx, np.cos(1.0))
    np.testing.assert_array_equal(gy, 0.0)  # None: a zero cotangent

    too_many = ta.custom_vjp(lambda x: tnp.sin(x))
    too_many.defvjp(lambda x: (tnp.sin(x), x), lambda r, g: (g, g))
    with pytest.raises(ta.TracingError, match="one cotangent per argument"):
        ta.grad(lambda x: too_many(x).sum())(np.ones(2))

    wrong_shape = ta.custom_vjp(lambda x: tnp.sin(x))
    wrong_shape.defvjp(lambda x: (tnp.sin(x), x), lambda r, g: (g.sum(),))
    with pytest.raises(ta.TracingError, match=r"cotangent 0 has shape \(\), but its input has shape \(2,\)"):
        ta.grad(lambda x: wrong_shape(x).sum())(np.ones(2))
