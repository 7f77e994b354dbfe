"""jit's options beyond static_argnums: static_argnames, donation, tensorad.Array results, DLPack inputs."""

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp

# 4 MiB of float64: large enough for the runtime's buffer pool and for thread loops.
BIG = 4 * 2**20 // 8


# --- static_argnames ------------------------------------------------------------------------------------------


def scaled(x, mode, factor=2.0):
    return x * factor if mode == "scale" else x + factor


def test_static_argnames_are_baked_in_and_key_the_cache():
    f = ta.jit(scaled, static_argnames="mode")
    x = np.arange(3.0)
    np.testing.assert_array_equal(f(x, mode="scale", factor=2.0), x * 2.0)
    np.testing.assert_array_equal(f(x, mode="shift", factor=2.0), x + 2.0)
    assert f.cache_size == 2
    np.testing.assert_array_equal(f(x, mode="scale", factor=3.0), x * 3.0)  # a dynamic scalar: no recompile
    assert f.cache_size == 2


def test_a_static_argname_passed_by_position_is_static():
    # A string is no array: traced as a dynamic argument it would be refused.
    f = ta.jit(scaled, static_argnames="mode")
    np.testing.assert_array_equal(f(np.ones(2), "shift"), [3.0, 3.0])
    reshape = ta.jit(lambda x, shape: x.reshape(shape), static_argnames="shape")
    assert reshape(np.arange(6.0), (2, 3)).shape == (2, 3)


def test_a_static_argnum_passed_by_keyword_is_static():
    f = ta.jit(scaled, static_argnums=1)
    np.testing.assert_array_equal(f(np.ones(2), mode="shift", factor=1.0), [2.0, 2.0])


def test_static_argnames_and_argnums_together():
    def f(x, n, y, *, op):
        return (x ** n + y) if op == "add" else x ** n * y
    g = ta.jit(f, static_argnums=1, static_argnames="op")
    x, y = np.arange(3.0), np.full(3, 2.0)
    np.testing.assert_array_equal(g(x, 2, y, op="add"), x ** 2 + y)
    np.testing.assert_array_equal(g(x, 3, y=y, op="mul"), x ** 3 * y)


def test_unhashable_static_keyword_argument_is_reported():
    f = ta.jit(lambda x, cfg: x, static_argnames="cfg")
    with pytest.raises(ta.TracingError, match="hashable"):
        f(np.ones(2), cfg=[1, 2])
    with pytest.raises(ta.TracingError, match="hashable"):
        f(np.ones(2), [1, 2])


def test_bad_argnames_are_clear_errors():
    with pytest.raises(ValueError, match=r"static_argnames \['mdoe'\] of scaled: no such parameter"):
        ta.jit(scaled, static_argnames="mdoe")
    with pytest.raises(TypeError, match="static_argnames must be a str"):
        ta.jit(scaled, static_argnames=1)
    with pytest.raises(TypeError, match="donate_argnums must be an int"):
        ta.jit(scaled, donate_argnums="x")
    with pytest.raises(ValueError, match="both static and donated"):
        ta.jit(scaled, static_argnums=0, donate_argnames="x")
    # A function taking **kwargs takes any name.
    f = ta.jit(lambda x, **kw: x * kw["k"], static_argnames="k")
    np.testing.assert_array_equal(f(np.ones(2), k=3.0), [3.0, 3.0])


# --- donation ------------------------------------------------------------------------------------------------


def test_donation_writes_the_result_in_place():
    x = np.random.default_rng(0).random(BIG)
    expected = x * 2.0 + 1.0
    plain = ta.jit(lambda x: x * 2.0 + 1.0)
    np.testing.assert_array_equal(plain(x), expected)
    without = ta.last_call_stats().peak_live_bytes
    assert without >= x.nbytes

    donating = ta.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)
    y = donating(x)
    assert ta.last_call_stats().peak_live_bytes == 0 and ta.last_call_stats().allocations == 0
    np.testing.assert_array_equal(y, expected)
    assert isinstance(y, ta.Array) and np.shares_memory(x, y)
    z = donating(y)  # a donated result is donated again
    np.testing.assert_array_equal(z, expected * 2.0 + 1.0)
    assert ta.last_call_stats().peak_live_bytes == 0


def test_donation_of_a_3d_array_writes_in_place():
    # tad-collapse-loops merges the op's outer loops (reshaping its operands) only after
    # tad-write-into-donated has found the donated argument read as itself.
    x = np.random.default_rng(1).random((8, 16, 32))
    expected = x * 2.0 + 1.0
    y = ta.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)(x)
    assert ta.last_call_stats().allocations == 0 and np.shares_memory(x, y)
    np.testing.assert_array_equal(y, expected)


def test_donation_is_shown_in_the_ir():
    f = ta.jit(lambda x, y: x + y, donate_argnums=1)
    text = f.lower(np.ones(3), np.ones(3)).as_text("tad")
    assert "%arg0: tensor<3xf64>," in text and "%arg1: tensor<3xf64> {tad.donated}" in text


@pytest.mark.parametrize("n", [5, BIG])
def test_a_donated_argument_still_read_later_stays_correct(n):
    x = np.random.default_rng(1).random(n)
    expected = (x * 2.0, x + 1.0, np.sum(x) * x)
    out = ta.jit(lambda x: (x * 2.0, x + 1.0, tnp.sum(x) * x), donate_argnums=0)(x)
    for got, want in zip(out, expected):
        np.testing.assert_allclose(got, want)


def test_donation_with_pytrees_and_argnames():
    def sgd(params, grads, lr=0.1):
        return {k: params[k] - lr * grads[k] for k in params}

    rng = np.random.default_rng(2)
    params = {"w": rng.random((64, 32)), "b": rng.random(32)}
    grads = {"w": rng.random((64, 32)), "b": rng.random(32)}
    grads_before = {k: v.copy() for k, v in grads.items()}
    expected = {k: params[k] - 0.1 * grads[k] for k in params}
    for step in (ta.jit(sgd, donate_argnames="params"), ta.jit(sgd, donate_argnums=0)):
        donated = {k: v.copy() for k, v in params.items()}
        new = step(donated, grads)                       # by position
        for k in params:
            np.testing.assert_allclose(new[k], expected[k])
            assert np.shares_memory(new[k], donated[k]) and not np.shares_memory(new[k], grads[k])
            np.testing.assert_array_equal(grads[k], grads_before[k])
        donated = {k: v.copy() for k, v in params.items()}
        new = step(params=donated, grads=grads)          # by keyword
        for k in params:
            np.testing.assert_allclose(new[k], expected[k])
            assert np.shares_memory(new[k], donated[k])


def test_a_donated_result_returned_twice_is_not_shared():
    x = np.arange(4.0)
    a, b = ta.jit(lambda x: (x, x), donate_argnums=0)(x)
    assert np.shares_memory(a, x) and not np.shares_memory(a, b)
    np.testing.assert_array_equal(b, [0.0, 1.0, 2.0, 3.0])


def test_gradient_with_donation_matches():
    def loss(w, x):
        return tnp.sum(tnp.tanh(x @ w) ** 2)

    rng = np.random.default_rng(3)
    w, x = rng.random((50, 20)), rng.random((30, 50))
    expected = ta.jit(ta.grad(loss))(w, x)
    np.testing.assert_allclose(ta.jit(ta.grad(loss), donate_argnums=(0, 1))(w.copy(), x.copy()), expected)
    update = ta.jit(lambda w, x: w - 0.1 * ta.grad(loss)(w, x), donate_argnums=0)
    np.testing.assert_allclose(update(w.copy(), x), w - 0.1 * expected)


def _unsafe_donations():
    read_only = np.arange(6.0)
    read_only.flags.writeable = False
    big_endian = np.arange(6.0).astype(">f8")
    strided = np.arange(12.0)[::2]
    return {"read-only": read_only, "big-endian": big_endian, "strided": strided}


@pytest.mark.parametrize("kind", sorted(_unsafe_donations()))
def test_an_array_that_cannot_be_donated_is_left_as_it_was(kind):
    x = _unsafe_donations()[kind]
    before = x.copy()
    y = ta.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)(x)
    np.testing.assert_array_equal(y, before * 2.0 + 1.0)
    np.testing.assert_array_equal(x, before)
    assert not np.shares_memory(x, y)


def test_an_array_donated_and_also_read_is_not_donated():
    x = np.arange(6.0)
    f = ta.jit(lambda x, y: (x * 2.0 + 1.0, y * 3.0), donate_argnums=0)
    a, b = f(x, x)
    np.testing.assert_array_equal(x, np.arange(6.0))
    np.testing.assert_array_equal(a, np.arange(6.0) * 2.0 + 1.0)
    np.testing.assert_array_equal(b, np.arange(6.0) * 3.0)
    # Overlapping views count too.
    base = np.arange(8.0)
    a, b = ta.jit(lambda x, y: (x + 1.0, y * 2.0), donate_argnums=0)(base[:6], base[2:])
    np.testing.assert_array_equal(base, np.arange(8.0))
    np.testing.assert_array_equal(a, np.arange(6.0) + 1.0)
    np.testing.assert_array_equal(b, np.arange(2.0, 8.0) * 2.0)


def test_the_same_buffer_donated_twice_is_an_error():
    x = np.arange(6.0)
    f = ta.jit(lambda x, y: x + y, donate_argnums=(0, 1))
    with pytest.raises(ValueError, match="donated once"):
        f(x, x)
    with pytest.raises(ValueError, match="donated once"):
        ta.jit(lambda p: p["a"] + p["b"], donate_argnums=0)({"a": x[:3], "b": x[2:5]})


def test_donate_argnums_out_of_range_is_a_clear_error():
    with pytest.raises(ValueError, match=r"has donate_argnums=\(2,\), but was called with 1 positional"):
        ta.jit(lambda x, y=1.0: x * y, donate_argnums=2)(np.ones(2))


def test_gpu_code_donates_nothing():
    # GPU code copies its arguments to the device; the lowering needs no GPU.
    lowered = ta.jit(lambda x: x * 2.0, donate_argnums=0, device="gpu").lower(np.ones(3))
    assert "tad.donated" not in lowered.as_text("tad") and lowered.donated == ()


def test_exporting_a_donating_function_is_refused(tmp_path):
    compiled = ta.jit(lambda x: x + 1.0, donate_argnums=0).lower(np.ones(3)).compile()
    with pytest.raises(ta.ExportError, match="donated"):
        compiled.export(tmp_path / "f")


# --- tensorad.Array ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (BIG,)])
def test_results_are_arrays_that_print_as_numpy(shape):
    y = ta.jit(lambda x: x + 1.0)(np.zeros(shape))
    assert type(y) is ta.Array and isinstance(y, np.ndarray)
    plain = np.ones(shape)
    assert repr(y) == repr(plain) and str(y) == str(plain)
    assert y.block_until_ready() is y
    assert y.flags.writeable


def test_copied_results_are_arrays_too():
    x = np.arange(3.0)
    y = ta.jit(lambda x: x)(x)  # aliases an input that is not donated: copied
    assert type(y) is ta.Array and not np.shares_memory(x, y)
    np.testing.assert_array_equal(y, x)
    f = ta.compile_mlir("func.func @main(%x: tensor<2xf64>) -> tensor<2xf64> { return %x : tensor<2xf64> }")
    assert type(f(np.ones(2))) is ta.Array


def test_block_until_ready_walks_a_pytree():
    out = ta.jit(lambda x: {"a": x * 2.0, "b": [x + 1.0, None]})(np.ones(2))
    assert ta.block_until_ready(out) is out
    assert ta.block_until_ready(3) == 3


def test_arrays_go_back_in_without_recompiling():
    f = ta.jit(lambda x: x * 2.0)
    y = f(np.ones(3))
    z = f(y)
    assert f.cache_size == 1 and type(z) is ta.Array
    np.testing.assert_array_equal(z, [4.0, 4.0, 4.0])


# --- DLPack inputs ---------------------------------------------------------------------------------------------


class DLPackOnly:
    """A tensor offering only the DLPack protocol (no __array__), in host memory, or claiming a device."""

    def __init__(self, array, device=(1, 0)):
        self.array, self.device = array, device

    def __dlpack__(self, **kwargs):
        return self.array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.device


def test_dlpack_tensors_are_read_without_a_copy():
    base = np.arange(6.0)
    np.testing.assert_array_equal(ta.jit(lambda x: x * 2.0)(DLPackOnly(base)), base * 2.0)
    # Donated, the result is written into the tensor's own memory: it was read in place.
    y = ta.jit(lambda x: x + 1.0, donate_argnums=0)(DLPackOnly(base))
    assert np.shares_memory(y, base)
    np.testing.assert_array_equal(y, np.arange(6.0) + 1.0)
    f = ta.compile_mlir("func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> {\n"
                        "  %0 = arith.addf %x, %x : tensor<3xf64>\n  return %0 : tensor<3xf64>\n}")
    np.testing.assert_array_equal(f(DLPackOnly(np.arange(3.0))), [0.0, 2.0, 4.0])


def test_gpu_dlpack_tensors_are_refused():
    on_gpu = DLPackOnly(np.ones(3), device=(2, 0))
    with pytest.raises(TypeError, match="DLPackOnly on device cuda:0 .* move it to the CPU"):
        ta.jit(lambda x: x * 2.0)(on_gpu)
    f = ta.compile_mlir("func.func @main(%x: tensor<3xf64>) -> tensor<3xf64> { return %x : tensor<3xf64> }")
    with pytest.raises(TypeError, match="move it to the CPU"):
        f(on_gpu)


def test_torch_cpu_tensors_without_a_copy():
    torch = pytest.importorskip("torch")
    t = torch.arange(6, dtype=torch.float64)
    np.testing.assert_array_equal(ta.jit(lambda x: x * 2.0)(t), np.arange(6.0) * 2.0)
    y = ta.jit(lambda x: x + 1.0, donate_argnums=0)(t)
    assert y.ctypes.data == t.data_ptr()
    np.testing.assert_array_equal(t.numpy(), np.arange(6.0) + 1.0)
    if torch.cuda.is_available():
        with pytest.raises(TypeError, match="move it to the CPU"):
            ta.jit(lambda x: x * 2.0)(t.cuda())


def test_jax_arrays_are_read_only_inputs():
    jnp = pytest.importorskip("jax.numpy")
    x = jnp.arange(4.0)
    y = ta.jit(lambda x: x * 2.0 + 1.0, donate_argnums=0)(x)  # read-only through DLPack: copied, not donated
    np.testing.assert_array_equal(y, np.arange(4.0) * 2.0 + 1.0)
    np.testing.assert_array_equal(np.asarray(x), np.arange(4.0))
