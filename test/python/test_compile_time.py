"""Compile time: repeated ops compiled once (tad-outline-repeated-kernels), the persistent compile cache,
and the compile-scaling benchmark."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tensorad as ta
import tensorad.numpy as tnp
from tensorad import compile_cache, lax
from tensorad.dialects import make_context

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, ROOT)
from benchmarks import compile_scaling  # noqa: E402

STEPS = 5


def _numpy_lstm_grad(params, xs):
    """The gradient of compile_scaling's loss, by hand: the reference for the unrolled cells."""
    hidden = compile_scaling.HIDDEN
    sig = lambda z: 0.5 * (np.tanh(0.5 * z) + 1.0)  # noqa: E731
    h = c = np.zeros((compile_scaling.BATCH, hidden))
    tape = []
    for x in xs:
        gates = x @ params["wx"] + h @ params["wh"] + params["b"]
        i, f, o, g = (sig(gates[:, :hidden]), sig(gates[:, hidden:2 * hidden]),
                      sig(gates[:, 2 * hidden:3 * hidden]), np.tanh(gates[:, 3 * hidden:]))
        tape.append((x, h, c, i, f, o, g))
        c = f * c + i * g
        h = o * np.tanh(c)
    dh, dc = 2 * h / h.size, np.zeros_like(c)
    grads = {k: np.zeros_like(v) for k, v in params.items()}
    for x, h_prev, c_prev, i, f, o, g in reversed(tape):
        c_new = f * c_prev + i * g
        do = dh * np.tanh(c_new)
        dc = dc + dh * o * (1 - np.tanh(c_new) ** 2)
        di, df, dg = dc * g, dc * c_prev, dc * i
        dgates = np.concatenate([di * i * (1 - i), df * f * (1 - f), do * o * (1 - o), dg * (1 - g ** 2)], axis=1)
        grads["wx"] += x.T @ dgates
        grads["wh"] += h_prev.T @ dgates
        grads["b"] += dgates.sum(axis=0)
        dh, dc = dgates @ params["wh"].T, dc * f
    return grads


@pytest.fixture(scope="module")
def lstm_gradient():
    params, xs = compile_scaling.inputs(STEPS)
    gradient = ta.jit(ta.grad(compile_scaling.make_loss(STEPS, tnp)))
    return gradient, params, xs


def test_unrolled_cells_compile_each_op_once(lstm_gradient):
    gradient, params, xs = lstm_gradient
    text = gradient.lower(params, xs).as_text("llvm")
    kernels = text.count("llvm.func @__tad_kernel_")
    calls = text.count("llvm.call @__tad_kernel_")
    assert 0 < kernels < calls / STEPS  # each cell's ops once, not once per cell
    assert 'passthrough = ["noinline", "optnone"]' in text  # the caller only calls
    assert "llvm.call @grad_loss__chunk_1(" in text  # in chunks (tad-split-long-functions)


def test_unrolled_cells_gradient_is_right(lstm_gradient):
    gradient, params, xs = lstm_gradient
    got, expected = gradient(params, xs), _numpy_lstm_grad(params, xs)
    for name in params:
        np.testing.assert_allclose(got[name], expected[name], rtol=1e-10, atol=1e-14)


def _layers_reference(x, w, steps):
    for _ in range(steps):
        x = np.tanh(x @ w) * 0.5 + x
    return x


def _layers(x, w, steps):
    """_layers_reference in tensorad: ``steps`` identical layers (each outlined into the same kernels)."""
    for _ in range(steps):
        x = tnp.tanh(x @ w) * 0.5 + x
    return x


def _assert_directional_derivative(grad, x, w, steps, rng):
    """``grad`` (of sum(layers(x, w) ** 2) in w) against a central difference along a random direction."""
    eps, d = 1e-6, rng.standard_normal(w.shape)
    loss = lambda w: np.sum(_layers_reference(x, w, steps) ** 2)  # noqa: E731
    np.testing.assert_allclose(np.sum(grad * d), (loss(w + eps * d) - loss(w - eps * d)) / (2 * eps), rtol=1e-6)


def test_repeated_layers_with_donation_scan_and_gradient():
    # Identical layers (outlined), an input donated to them, and a scan whose body repeats the same layer.
    rng = np.random.default_rng(1)
    w, x = rng.standard_normal((16, 16)) / 4, rng.standard_normal((8, 16))

    def layers(x, w):
        return _layers(x, w, 4)

    def scanned(x, w):
        return lax.scan(lambda h, _: (layers(h, w), None), x, None, length=3)[0]

    step = ta.jit(layers, donate_argnums=0)
    assert "__tad_kernel_" in step.lower(x.copy(), w).as_text("llvm")
    np.testing.assert_allclose(step(x.copy(), w), _layers_reference(x, w, 4), rtol=1e-12)
    np.testing.assert_allclose(ta.jit(scanned)(x, w), _layers_reference(x, w, 12), rtol=1e-12)
    grad = ta.jit(ta.grad(lambda w, x: tnp.sum(layers(x, w) ** 2)))(w, x)
    _assert_directional_derivative(grad, x, w, 4, rng)


def test_long_chain_of_calls_split_into_chunks_computes_the_same():
    # 120 layers, a scan over 3 more and a donated input: the caller is cut into chunk functions that pass
    # buffers (and the scan's loop) through the frame; values and a directional derivative are unchanged.
    rng = np.random.default_rng(2)
    w, x = rng.standard_normal((8, 8)) / 4, rng.standard_normal((4, 8))

    def program(x, w):
        y = _layers(x, w, 120)
        return lax.scan(lambda h, _: (_layers(h, w, 3), None), y, None, length=2)[0]

    step = ta.jit(program, donate_argnums=0).lower(x.copy(), w).compile()
    assert "__chunk_1(" in str(step.module)
    np.testing.assert_allclose(step([x.copy(), w]), _layers_reference(x, w, 126), rtol=1e-12)
    gradient = ta.jit(ta.grad(lambda w, x: tnp.sum(program(x, w) ** 2))).lower(w, x).compile()
    assert "__chunk_5(" in str(gradient.module)
    _assert_directional_derivative(gradient([w, x]), x, w, 126, rng)


def test_host_code_compiled_apart_reads_the_kernels_globals():
    # The caller of 12 identical layers is host code (optnone), compiled in an engine of its own at -O0; a
    # constant the layers read is a global of the kernels' module, which the host code takes the address of.
    from tensorad.host_code import split_host_code
    rng = np.random.default_rng(3)
    weights, x = rng.standard_normal((8, 8)) / 4, rng.standard_normal((4, 8))

    compiled = ta.jit(lambda x: _layers(x, weights, 12)).lower(x).compile()
    host, kernels, imported = split_host_code(compiled.module)
    globals_ = {op.attributes["sym_name"].value for op in kernels.body.operations if op.name == "llvm.mlir.global"}
    assert any(name.startswith("__tad_kernel_") for name in imported) and globals_ & set(imported)
    assert compiled.executable.engine not in compiled.executable.kernel_engines
    np.testing.assert_allclose(compiled([x]), _layers_reference(x, weights, 12), rtol=1e-12)


def test_host_entry_with_many_results_is_inlined_into_its_c_interface():
    # A value and 40 gradients: the entry returns 41 descriptors as one struct, its C interface unpacks
    # every argument to call it. The host module holds the C interface alone, with the entry's body (its
    # long blocks split), and the results are those of the reference.
    from tensorad.host_code import C_INTERFACE_PREFIX, split_host_code
    rng = np.random.default_rng(4)
    weights = {f"w{i:02d}": rng.standard_normal((6, 6)) / 3 for i in range(40)}
    x = rng.standard_normal((3, 6))

    def loss(weights, x):
        for name in sorted(weights):
            x = tnp.tanh(x @ weights[name]) * 0.5 + x
        return tnp.sum(x ** 2)

    step = ta.jit(ta.value_and_grad(loss))
    compiled = step.lower(weights, x).compile()
    host, _, _ = split_host_code(compiled.module)
    defined = {op.attributes["sym_name"].value for op in host.body.operations if len(op.regions[0].blocks)}
    assert compiled.entry not in defined and C_INTERFACE_PREFIX + compiled.entry in defined
    value, grads = step(weights, x)
    activations = [x]
    for name in sorted(weights):
        activations.append(np.tanh(activations[-1] @ weights[name]) * 0.5 + activations[-1])
    np.testing.assert_allclose(value, np.sum(activations[-1] ** 2), rtol=1e-12)
    back = 2 * activations[-1]
    for i, name in reversed(list(enumerate(sorted(weights)))):
        inner = back * 0.5 * (1 - np.tanh(activations[i] @ weights[name]) ** 2)
        np.testing.assert_allclose(grads[name], activations[i].T @ inner, rtol=1e-10, atol=1e-12)
        back = back + inner @ weights[name].T


_CHILD = textwrap.dedent("""
    import sys, numpy as np, tensorad as ta, tensorad.numpy as tnp
    from tensorad import compiler
    if sys.argv[1] == "cached-only":
        def refuse(*args, **kwargs):
            raise AssertionError("compiled instead of reading the cache")
        compiler.run_stages = refuse
    f = ta.jit(lambda x: tnp.tanh(x @ x.T).sum(axis=0) * 3.0)
    print(repr(f(np.arange(12.0).reshape(3, 4) / 10).tolist()))
""")


def _child(mode: str, folder: str) -> str:
    env = dict(os.environ, TENSORAD_COMPILE_CACHE=folder)
    done = subprocess.run([sys.executable, "-c", _CHILD, mode], env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


def test_compile_cache_serves_a_second_process(tmp_path, monkeypatch):
    folder = str(tmp_path / "cache")
    first = _child("compile", folder)
    entries = [name for name in os.listdir(folder) if not name.startswith(".")]
    assert len(entries) == 1 and not [n for n in os.listdir(folder) if n.startswith(".writing-")]
    assert _child("cached-only", folder) == first  # no stage ran: the module came from disk
    # A damaged entry (flipped byte, truncated, foreign) is ignored: compiled again, and rewritten.
    path = os.path.join(folder, entries[0])
    good = open(path, "rb").read()
    assert good.startswith(b"tensorad-compile-cache")
    for damaged in (good[:-1] + bytes([good[-1] ^ 1]), good[:len(good) // 2], b"garbage"):
        with open(path, "wb") as out:
            out.write(damaged)
        assert _child("compile", folder) == first
        monkeypatch.setenv(compile_cache.CACHE_VARIABLE, folder)
        assert compile_cache.load(entries[0], make_context()) is not None  # rewritten whole


def test_compile_cache_is_off_unless_asked(monkeypatch, tmp_path):
    monkeypatch.delenv(compile_cache.CACHE_VARIABLE, raising=False)
    assert compile_cache.cache_dir() is None
    monkeypatch.setenv(compile_cache.CACHE_VARIABLE, "1")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert compile_cache.cache_dir() == os.path.join(str(tmp_path), "tensorad", "compile")
    # Settings that change the code change the key.
    assert compile_cache.cache_key("m", "llvm", 2) != compile_cache.cache_key("m", "llvm", 1)


def test_a_compile_never_imports_the_opdsl_linalg_module():
    # Importing mlir.dialects.linalg runs OpDSL over every named op (0.04-0.13 s), paid by the first
    # compile of a process (here, without isolation, the passes run in this process); they build linalg ops through tensorad.dialects.linalg_builder instead.
    script = textwrap.dedent("""
        import sys, numpy as np, tensorad as ta, tensorad.numpy as tnp
        x = np.linspace(-1.0, 1.0, 48).reshape(6, 8)
        loss = lambda w: (tnp.tanh(x @ w) * tnp.exp(-(x @ w) ** 2)).mean(axis=0).sum()
        g = ta.jit(ta.grad(loss))(np.eye(8))
        assert np.isfinite(np.asarray(g)).all()
        print(sorted(m for m in sys.modules if m.startswith("mlir.dialects.linalg")))
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, TENSORAD_COMPILE_CACHE="0", TENSORAD_ISOLATE="0"))
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]"


def test_compile_scaling_benchmark_runs(capsys):
    rows = compile_scaling.main(["--sizes", "2", "--peers", ""])
    assert rows[0][0] == 2 and rows[0][1]["tensorad"] > 0
    assert "tensorad s" in capsys.readouterr().out


def _parts_of_any_size(monkeypatch):
    """Let kernel groups of any size be parts of their own: how many ops a register tile unrolls to
    depends on the host's vector width (AVX2's 4-row tiles are half AVX-512's), not what is tested."""
    from tensorad.host_code import split_kernels
    monkeypatch.setattr(split_kernels, "__defaults__", (1,))


def test_kernels_compile_in_parts_at_once_and_bind_across_them(monkeypatch):
    # Two kinds of layers, each repeated (host code), large enough for thread loops. With two cores the kernels
    # compile in two parts at once, a part reading what it uses from the other (the thread pool's launch
    # protocol, the thread loops' work functions) from its import table: the gradient is the one the kernels
    # compiled whole give.
    import tensorad.runtime as runtime
    from tensorad.host_code import split_host_code, split_kernels
    rng = np.random.default_rng(5)
    w1, w2 = rng.standard_normal((256, 256)) / 16, rng.standard_normal((256, 256)) / 16
    x = rng.standard_normal((256, 256))

    def loss(w1, w2, x):
        for _ in range(3):
            x = tnp.tanh(x @ w1) + x
            x = tnp.sin(x @ w2) * 0.5 + x
        return tnp.sum(x ** 2)

    monkeypatch.setenv("TENSORAD_NUM_THREADS", "2")
    _parts_of_any_size(monkeypatch)
    grads = {}
    for cores in (1, 2):
        monkeypatch.setattr(runtime, "available_cores", lambda: cores)
        compiled = ta.jit(ta.grad(loss, argnums=(0, 1))).lower(w1, w2, x).compile()
        grads[cores] = compiled([w1, w2, x])
        engines = compiled.executable.kernel_engines
        assert len(engines) == cores
    host, kernels, imported = split_host_code(compiled.module)
    parts = split_kernels(kernels, imported, parts=2)
    assert len(parts) == len(engines) and any(part.imports for part in parts)
    defined = {}
    for part in parts:
        for name in part.exports:
            assert name not in defined
            defined[name] = part
        assert ("__tad_imports" in str(part.module)) == bool(part.imports)
    assert set(imported) <= set(defined)
    assert all(defined[name] is not part for part in parts for name in part.imports)
    for one, two in zip(grads[1], grads[2]):
        np.testing.assert_array_equal(one, two)
    eps, d = 1e-6, rng.standard_normal(w1.shape)

    def reference(w1, w2):
        y = x
        for _ in range(3):
            y = np.tanh(y @ w1) + y
            y = np.sin(y @ w2) * 0.5 + y
        return np.sum(y ** 2)
    np.testing.assert_allclose(np.sum(grads[2][0] * d), (reference(w1 + eps * d, w2) - reference(w1 - eps * d, w2))
                               / (2 * eps), rtol=1e-6)


def test_an_entry_without_host_code_compiles_beside_its_thread_loops(monkeypatch):
    # No repeated layers, so no host code: the entry is compiled at the kernels' level in a part of its own, at once
    # with the part that holds its thread loops' work functions (whose addresses it reads from its import table).
    import tensorad.runtime as runtime
    rng = np.random.default_rng(6)
    w1, w2 = rng.standard_normal((512, 512)) / 20, rng.standard_normal((512, 512)) / 20
    x = rng.standard_normal((256, 512))
    monkeypatch.setenv("TENSORAD_NUM_THREADS", "2")
    monkeypatch.setattr(runtime, "available_cores", lambda: 2)
    _parts_of_any_size(monkeypatch)
    loss = lambda w1, w2, x: tnp.sum(tnp.tanh(tnp.tanh(x @ w1) @ w2) ** 2)  # noqa: E731
    compiled = ta.jit(ta.grad(loss)).lower(w1, w2, x).compile()
    assert len(compiled.executable.kernel_engines) > 1
    assert compiled.executable.engine in compiled.executable.kernel_engines
    h = np.tanh(x @ w1)
    y = np.tanh(h @ w2)
    np.testing.assert_allclose(compiled([w1, w2, x]), x.T @ ((2 * y * (1 - y ** 2)) @ w2.T * (1 - h ** 2)),
                               rtol=1e-10, atol=1e-12)


def test_a_long_entry_compiles_in_chunks_on_every_core(monkeypatch):
    # Layers of distinct widths repeat nothing, so the entry holds every loop nest; tad-split-long-functions
    # cuts it into chunks, which compile in parts of their own, at once: each part holds some, and a chunk
    # in another part than its caller is called through the caller's import table.
    import tensorad.runtime as runtime
    from tensorad.host_code import split_host_code, split_kernels
    rng = np.random.default_rng(7)
    widths = [16, 24, 32, 40, 48, 56, 64]
    ws = [rng.standard_normal((a, b)) / np.sqrt(a) for a, b in zip(widths, widths[1:])]
    x = rng.standard_normal((8, widths[0]))

    def loss(ws, x, np=tnp):
        h = x
        for w in ws:
            h = np.sin(h @ w) + np.cos(h @ w) * 0.5
        return np.sum(h ** 2)

    monkeypatch.setenv("TENSORAD_NUM_THREADS", "2")
    monkeypatch.setattr(runtime, "available_cores", lambda: 2)
    compiled = ta.jit(ta.grad(loss)).lower(ws, x).compile()
    host, kernels, _ = split_host_code(compiled.module)
    assert host is None
    parts = split_kernels(kernels, ["grad_loss"], parts=2)
    chunks = [[name for name in part.exports + part.imports if "__chunk_" in name] for part in parts]
    assert len(parts) == 2 and all(chunks)
    grads = compiled([*ws, x])
    eps = 1e-6
    for w, g in zip(ws, grads):
        d = rng.standard_normal(w.shape)
        w += eps * d
        up = loss(ws, x, np)
        w -= 2 * eps * d
        down = loss(ws, x, np)
        w += eps * d
        np.testing.assert_allclose(np.sum(g * d), (up - down) / (2 * eps), rtol=1e-6)


def test_kernels_of_declarations_only_are_one_part():
    # Host code that calls only what libraries define (an all-reduce through MPI) leaves the kernels' module
    # with declarations: one part, whose address table is empty.
    from mlir import ir
    from tensorad.host_code import split_kernels
    kernels = ir.Module.parse("llvm.func @MPI_Allreduce(!llvm.ptr) -> i32", make_context())
    [part] = split_kernels(kernels, [], parts=2)
    assert part.exports == [] and part.imports == [] and "__tad_host_imports" in str(part.module)
