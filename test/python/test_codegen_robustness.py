"""Programs that aborted or failed in tad-tile-and-vectorize, each compiled in a child process.

Size-1 dims, broadcasts and several reductions of one value once made the
vector patterns abort the interpreter (an LLVM assertion); an op the
vectorizer declined failed the whole compile. A regression must fail its
test, not kill pytest, so every program runs in a subprocess.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

_PRELUDE = "import numpy as np, tensorad as ta, tensorad.numpy as tnp, tensorad.lax as lax\n"


def _run(code: str) -> str:
    """Run ``code`` in a fresh interpreter; return its stdout, failing on any death or error."""
    done = subprocess.run([sys.executable, "-c", _PRELUDE + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"exit {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def _values(code: str) -> list:
    return [float(v) for v in _run(code).split()]


def test_two_reductions_of_one_unit_dim_value():
    got = _values("""
        def f(x):
            y = tnp.cos(x)
            return y.sum(), (y * 2.0).sum()
        a, b = ta.jit(f)(np.ones((1, 5)))
        print(a, b)
    """)
    np.testing.assert_allclose(got, [5 * np.cos(1.0), 10 * np.cos(1.0)], rtol=1e-12)


def test_broadcast_unit_dims_into_full_reductions():
    got = _values("""
        f = ta.jit(lambda x, y, z: tnp.sum(tnp.tanh(x + y) * z) + tnp.sum(x * y * y))
        x, y, z = np.full((3, 1, 5), 0.3), np.full((1, 4, 5), 0.2), np.linspace(1, 2, 5)
        print(f(x, y, z))
    """)
    x, y, z = np.full((3, 1, 5), 0.3), np.full((1, 4, 5), 0.2), np.linspace(1, 2, 5)
    np.testing.assert_allclose(got, [np.sum(np.tanh(x + y) * z) + np.sum(x * y * y)], rtol=1e-12)


@pytest.mark.parametrize("shape,axis,keepdims", [((1, 5), None, False), ((5, 1), 0, True), ((1, 1, 6), -1, True),
                                                 ((2, 1, 3), 1, False), ((1, 4), 1, True)])
def test_reductions_with_unit_dims(shape, axis, keepdims):
    code = f"""
        def f(x, w):
            y = tnp.sin(x) * w
            return (tnp.sum(y, axis={axis}, keepdims={keepdims}), tnp.sum(y * w, axis={axis}, keepdims={keepdims}),
                    tnp.max(y, axis={axis}, keepdims={keepdims}))
        x = np.linspace(0.1, 1.0, {int(np.prod(shape))}).reshape({shape})
        w = np.linspace(1.0, 2.0, {shape[-1]})
        for r in ta.jit(f)(x, w):
            print(*np.ravel(r))
    """
    x = np.linspace(0.1, 1.0, int(np.prod(shape))).reshape(shape)
    w = np.linspace(1.0, 2.0, shape[-1])
    y = np.sin(x) * w
    want = [np.sum(y, axis=axis, keepdims=keepdims), np.sum(y * w, axis=axis, keepdims=keepdims),
            np.max(y, axis=axis, keepdims=keepdims)]
    np.testing.assert_allclose(_values(code), np.concatenate([np.ravel(r) for r in want]), rtol=1e-12)


def test_gradient_of_dot_of_column_sums():
    # The outer product in the gradient was fused into a broadcast that the vectorizer declined,
    # and the decline failed the compile ("Attempted to vectorize, but failed").
    got = _values("print(*np.ravel(ta.jit(ta.grad(lambda x: tnp.dot(x.sum(0), x.sum(0))))(np.ones((4, 3)))))")
    np.testing.assert_allclose(got, np.full(12, 8.0))


def test_nested_jacrev_after_jacrev():
    got = _values("""
        fun = lambda x: tnp.dot(x.sum(0), x.sum(0))
        first = ta.jacrev(fun)(np.ones((2, 3)))
        hessian = ta.jacrev(ta.jacrev(fun))(np.linspace(0.1, 0.6, 6).reshape(2, 3))
        print(*np.ravel(first), *np.ravel(hessian))
    """)
    # d/dx[k, l] of 2 * s[j] (s the column sums) is 2 when l == j, for every row k and i.
    hessian = np.broadcast_to(2.0 * np.eye(3)[None, :, None, :], (2, 3, 2, 3))
    np.testing.assert_allclose(got, np.concatenate([np.full(6, 4.0), np.ravel(hessian)]))


def test_one_element_reduction_result_with_a_broadcast_operand():
    # Found by the IR fuzzer: a reduction into tensor<1xf64> (not 0-d) whose tile
    # folds to one element made reduction_to_contract abort (cast<VectorType>).
    got = _values("""
        f = ta.compile_mlir('''
        func.func @f(%v0: tensor<1x1xf64>) -> tensor<1xf64> {
          %v1 = "tad.broadcast_in_dim"(%v0) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<1x1xf64>) -> tensor<3x1x1xf64>
          %v2 = "tad.reduce_max"(%v1) {dimensions = array<i64: 0, 2>} : (tensor<3x1x1xf64>) -> tensor<1xf64>
          return %v2 : tensor<1xf64>
        }
        func.func private @f_jvp(tensor<1x1xf64>, tensor<1x1xf64>) -> (tensor<1xf64>, tensor<1xf64>)
            attributes {tad.jvp = {of = @f, wrt = array<i64: 0>}}''', "f_jvp")
        value, tangent = f(np.full((1, 1), 0.5), np.full((1, 1), 2.0))
        print(value[0], tangent[0])
    """)
    np.testing.assert_allclose(got, [0.5, 2.0])


def test_unit_reduction_with_a_broadcast_operand_under_jacfwd():
    # Found by the fuzzer (seed 1001077): a reduction over unit dims only, with an
    # operand broadcast along them, became a vector.contract that aborted.
    got = _values("""
        def f(v0):
            v1 = tnp.broadcast_to(v0, (1, 1, 1, 2))
            return tnp.inner(ta.nn.logsumexp(v1, axis=(0, 1)), v0)
        x = np.array([[[0.3, -0.7]]])
        print(*ta.jacfwd(f)(x).ravel(), *ta.jacrev(f)(x).ravel())
    """)
    np.testing.assert_allclose(got[:len(got) // 2], got[len(got) // 2:], rtol=1e-12)
