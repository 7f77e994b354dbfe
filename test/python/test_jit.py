"""tensorad.jit: caching, static arguments, pytrees, stages, the runtime's memory contract."""

import collections

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp


def test_compiles_once_per_signature():
    f = ta.jit(lambda x: x * 2.0)
    f(np.ones(3))
    f(np.zeros(3))
    assert f.cache_size == 1
    f(np.ones(4))
    f(np.ones(3, np.float32))
    assert f.cache_size == 3


def test_static_argnums_are_baked_in_and_key_the_cache():
    f = ta.jit(lambda x, power, scale: x ** power * scale, static_argnums=(1,))
    np.testing.assert_allclose(f(np.arange(3.0), 2, 1.0), [0.0, 1.0, 4.0])
    np.testing.assert_allclose(f(np.arange(3.0), 3, 2.0), [0.0, 2.0, 16.0])
    assert f.cache_size == 2
    f(np.arange(3.0), 3, 5.0)  # a dynamic scalar does not recompile
    assert f.cache_size == 2


def test_unhashable_static_argument_is_reported():
    f = ta.jit(lambda x, cfg: x, static_argnums=1)
    with pytest.raises(ta.TracingError, match="hashable"):
        f(np.ones(2), [1, 2])


Pair = collections.namedtuple("Pair", "first second")


def test_pytrees_in_and_out():
    @ta.jit
    def f(params, xs, extra=None):
        y = xs[0] @ params["w"] + params["b"]
        return {"y": y, "parts": [y.sum(), Pair(xs[1] * 2, None)]}

    w, b = np.ones((3, 2)), np.arange(2.0)
    out = f({"w": w, "b": b}, (np.ones((4, 3)), np.arange(3.0)))
    np.testing.assert_allclose(out["y"], np.ones((4, 3)) @ w + b)
    assert out["parts"][0].shape == ()
    assert isinstance(out["parts"][1], Pair) and out["parts"][1].second is None
    np.testing.assert_allclose(out["parts"][1].first, [0.0, 2.0, 4.0])


def test_keyword_arguments():
    f = ta.jit(lambda x, *, shift: x + shift)
    np.testing.assert_allclose(f(np.ones(2), shift=np.float64(3)), [4.0, 4.0])


def test_python_scalars_as_arguments():
    f = ta.jit(lambda a, b: a * b)
    assert f(2.0, 3.0) == 6.0
    assert f(2, 3).dtype == np.int64


def test_every_stage_shows_ir():
    lowered = ta.jit(lambda x: tnp.tanh(x).sum(axis=0)).lower(np.ones((2, 3), np.float32))
    assert '"tad.reduce_sum"' in lowered.as_text("tad")
    assert "math.tanh" in lowered.as_text("differentiated")
    linalg = lowered.as_text("linalg")
    assert "linalg.generic" in linalg and "tad." not in linalg
    llvm = lowered.as_text("llvm")
    assert "llvm.func @lambda_L66" in llvm and "_mlir_memref_to_llvm_alloc" in llvm
    with pytest.raises(ValueError, match="unknown stage"):
        lowered.as_text("ptx")


def test_ops_carry_the_users_line():
    def f(x):
        return tnp.exp(x)  # the location of this line is checked below

    line = f.__code__.co_firstlineno + 1
    text = ta.jit(f).lower(np.ones(2)).as_text("tad", debug_info=True)
    assert f'test_jit.py":{line}' in text


def test_nested_jit_is_inlined():
    inner = ta.jit(lambda x: x + 1.0)
    outer = ta.jit(lambda x: inner(x) * 2.0)
    np.testing.assert_allclose(outer(np.zeros(2)), [2.0, 2.0])
    assert inner.cache_size == 0


def test_results_own_their_memory():
    f = ta.jit(lambda x: (x * 2.0, x, tnp.ones(3)))
    x = np.arange(3.0)
    doubled, same, ones = f(x)
    x[:] = 100.0  # neither result aliases the input
    np.testing.assert_allclose(doubled, [0.0, 2.0, 4.0])
    np.testing.assert_allclose(same, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(ones, 1.0)
    assert doubled.flags.writeable and isinstance(doubled.base, np.ndarray)


def test_inputs_are_passed_without_copies():
    f = ta.jit(lambda x: x + 1.0)
    x = np.arange(4.0)
    f(x)
    compiled = next(iter(f._cache.values()))
    assert compiled.executable._in_descs[0].aligned == x.ctypes.data


def test_non_contiguous_and_integer_inputs():
    f = ta.jit(lambda x: x.sum(axis=0))
    x = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    np.testing.assert_array_equal(f(x), x.sum(axis=0))


def test_unsupported_input_dtype_is_rejected():
    with pytest.raises(TypeError, match="uint16 is not supported"):
        ta.jit(lambda x: x)(np.ones(2, np.uint16))


def test_nothing_leaks_over_1000_calls():
    f = ta.jit(lambda x, y: (tnp.exp(x @ y).sum(axis=1), tnp.maximum(x, 0.0).T))
    x, y = np.ones((8, 5)), np.ones((5, 6))
    before = ta.live_bytes()
    for _ in range(1000):
        f(x, y)
    stats = ta.last_call_stats()
    assert stats.live_allocations == 0
    assert ta.live_bytes() == before
    assert stats.allocations >= 2


def test_peak_live_bytes_of_a_fused_elementwise_chain():
    f = ta.jit(lambda x: tnp.exp(x) * 2.0 + 1.0)
    f(np.ones(1000))
    stats = ta.last_call_stats()
    # Fusion leaves one allocation: the 8000-byte result (plus alignment padding).
    assert stats.allocations == 1
    assert 8000 <= stats.peak_live_bytes <= 8000 + 128


def test_compiled_code_never_writes_into_its_inputs():
    f = ta.compile_mlir('''
    func.func @main(%x: tensor<4xf64>, %v: tensor<f64>) -> tensor<4xf64> {
      %c1 = arith.constant 1 : index
      %r = tensor.insert_slice %v into %x[%c1] [1] [1] : tensor<f64> into tensor<4xf64>
      return %r : tensor<4xf64>
    }''')
    x = np.arange(4.0)
    np.testing.assert_allclose(f(x, np.array(7.0)), [0.0, 7.0, 2.0, 3.0])
    np.testing.assert_allclose(x, [0.0, 1.0, 2.0, 3.0])


def test_eval_shape_traces_only_and_takes_shape_dtype_structs():
    big = ta.ShapeDtypeStruct((10**6, 256), np.float32)  # 1 GiB: never allocated
    out = ta.eval_shape(lambda x, w: {"h": tnp.tanh(x @ w), "n": tnp.sum(x, axis=1, dtype=np.float64)},
                        big, np.ones((256, 8), np.float32))
    assert out == {"h": ta.ShapeDtypeStruct((10**6, 8), np.float32), "n": ta.ShapeDtypeStruct((10**6,), np.float64)}
    assert ta.jit(lambda x: x[1:] * 2).lower(ta.ShapeDtypeStruct((5, 2), np.int32)).out_avals == \
        [((4, 2), np.dtype(np.int32))]
    with pytest.raises(TypeError, match="uint8 is not supported"):
        ta.ShapeDtypeStruct((2,), np.uint8)
    with pytest.raises(TypeError):
        ta.ShapeDtypeStruct((2.5,), np.float32)


def test_disable_jit_runs_the_function_as_python():
    seen = []

    @ta.jit
    def f(x):
        seen.append(type(x))
        return tnp.sin(x) * 2.0

    x = np.linspace(0.0, 1.0, 4)
    with ta.disable_jit():
        eager = f(x)
        assert seen == [np.ndarray] and f.cache_size == 0
        with ta.disable_jit(False):  # nested: compiled again
            compiled = f(x)
    np.testing.assert_allclose(eager, compiled, rtol=1e-15)
    np.testing.assert_allclose(f(x), 2 * np.sin(x), rtol=1e-15)
    assert f.cache_size == 1
    assert ta.grad(lambda x: f(x).sum())(x) is not None  # traced through as a plain function
    with ta.disable_jit():
        np.testing.assert_allclose(ta.grad(lambda x: f(x).sum())(x), 2 * np.cos(x), rtol=1e-14)


def test_devices_as_jax_names_them():
    assert [d.platform for d in ta.devices()] == ["cpu"] and ta.default_backend() == "cpu"
    assert ta.device_count() == ta.local_device_count() == len(ta.local_devices()) == 1
    a = np.arange(3.0)
    b = ta.device_put({"a": a}, ta.devices()[0])["a"]
    b[0] = 7.0
    assert a[0] == 0.0  # a copy
    assert ta.device_get([b])[0] is b
    with pytest.raises(ValueError, match="unknown backend"):
        ta.devices("tpu")
    if not ta.runtime.cuda_available():
        with pytest.raises(RuntimeError, match="no CUDA driver"):
            ta.device_put(a, "gpu")


def test_jacobian_is_jax_s_reverse_mode_jacobian():
    x = np.array([0.3, -1.2])
    np.testing.assert_allclose(ta.jacobian(lambda x: tnp.sin(x) * x[0])(x), ta.jacrev(lambda x: tnp.sin(x) * x[0])(x))
