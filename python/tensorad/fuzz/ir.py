"""Random IR for ``autodiff-opt``: ``tad`` and upstream arith/math/tensor/scf ops on static tensors.

A module is plain data: its inputs' shapes and a list of ops (name, operand
variables, parameters), and optionally a ``mutation`` that breaks the text.
:func:`render_ir` writes ``func.func @f`` with ``tad.vjp`` and ``tad.jvp``
declarations of it, evaluating every op on numpy as it goes (to learn the
result types, and to reject an op that does not fit with :class:`Invalid`).
:func:`run_ir` checks a valid module numerically (``compile_mlir`` of ``f``,
``f_vjp`` and ``f_jvp`` against numpy and finite differences) and that
``autodiff-opt`` accepts it, and checks a mutated one for a clean failure:
no signal, no Python traceback, an ``error:`` diagnostic at a real location.

Examples
--------
>>> module = generate_ir(4)
>>> "tad.vjp" in render_ir(module)
True
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import warnings

import numpy as np

from .checks import REFUSAL_TEXT, close, directional_fd, inner

CLI_PIPELINE = ("builtin.module(tad-verify,tad-differentiate,tad-inline,symbol-dce,tad-simplify,"
                "tad-lower-to-linalg,tad-lower-to-llvm)")


# A diagnostic carrying one of these is Python's exception text, not the compiler's message.
PYTHON_ERROR_TEXT = re.compile(r"internal|crash|Traceback|\w+Error\b|has no attribute|not iterable|"
                               r"not subscriptable|NoneType|not supported between", re.IGNORECASE)


class Invalid(Exception):
    """An op does not fit its operands."""


def _type(shape) -> str:
    return "tensor<" + "".join(f"{d}x" for d in shape) + "f64>"


def _arr(values) -> str:
    return "array<i64" + (": " + ", ".join(str(v) for v in values) if len(values) else "") + ">"


UNARY = {"math.sin": np.sin, "math.cos": np.cos, "math.tanh": np.tanh, "math.exp": np.exp, "arith.negf": np.negative}
BINARY = {"arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
          "arith.maximumf": np.maximum}


def _op(op: str, names: list, values: list, p: dict, fresh) -> tuple:
    """(lines of MLIR defining the result as ``%out``, numpy value) of one op."""
    a = values[0]
    ta = _type(a.shape)
    if op in UNARY:
        return [f"%out = {op} {names[0]} : {ta}"], UNARY[op](a)
    if op in BINARY:
        b = values[1]
        if b.shape != a.shape:
            raise Invalid("elementwise ops need equal shapes")
        return [f"%out = {op} {names[0]}, {names[1]} : {ta}"], BINARY[op](a, b)
    if op == "select":
        b = values[1]
        if b.shape != a.shape:
            raise Invalid("select needs equal shapes")
        bools = ta.replace("f64>", "i1>")
        p_name = fresh()
        return [f"{p_name} = arith.cmpf ogt, {names[0]}, {names[1]} : {ta}",
                f"%out = arith.select {p_name}, {names[0]}, {names[1]} : {bools}, {ta}"], np.maximum(a, b)
    if op == "scale":
        c = fresh()
        return [f'{c} = "tad.constant"() {{value = {p["c"]:.3f} : f64}} : () -> {ta}',
                f"%out = arith.mulf {names[0]}, {c} : {ta}"], a * float(f"{p['c']:.3f}")
    if op in ("tad.reduce_sum", "tad.reduce_max"):
        dims = sorted({d % a.ndim for d in p["dims"]}) if a.ndim else []
        value = (np.sum if op == "tad.reduce_sum" else np.max)(a, axis=tuple(dims))
        return [f'%out = "{op}"({names[0]}) {{dimensions = {_arr(dims)}}} : ({ta}) -> {_type(value.shape)}'], value
    if op == "tad.transpose":
        perm = [d for d in p["perm"] if d < a.ndim]
        value = np.transpose(a, perm)
        return [f'%out = "tad.transpose"({names[0]}) {{permutation = {_arr(perm)}}} : ({ta}) -> '
                f"{_type(value.shape)}"], value
    if op == "tad.broadcast_in_dim":
        shape = (p["n"],) + a.shape
        dims = list(range(1, a.ndim + 1))
        return [f'%out = "tad.broadcast_in_dim"({names[0]}) {{broadcast_dimensions = {_arr(dims)}}} : '
                f"({ta}) -> {_type(shape)}"], np.broadcast_to(a, shape)
    if op == "tad.reshape":
        value = a.reshape(-1) if p["flat"] else a.reshape(a.shape[::-1])
        return [f'%out = "tad.reshape"({names[0]}) : ({ta}) -> {_type(value.shape)}'], value
    if op == "tad.dot_general":
        b = values[1]
        if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
            raise Invalid("dot_general needs (m, k) x (k, n)")
        value = a @ b
        return [f'%out = "tad.dot_general"({names[0]}, {names[1]}) {{lhs_batching_dimensions = array<i64>, '
                f"rhs_batching_dimensions = array<i64>, lhs_contracting_dimensions = array<i64: 1>, "
                f"rhs_contracting_dimensions = array<i64: 0>}} : ({ta}, {_type(b.shape)}) -> "
                f"{_type(value.shape)}"], value
    if op == "tensor.extract_slice":
        if a.ndim == 0:
            raise Invalid("slice of a scalar")
        offsets = [min(p["offset"], d - 1) for d in a.shape]
        sizes = [max(d - o - p["trim"], 1) for d, o in zip(a.shape, offsets)]
        value = a[tuple(slice(o, o + s) for o, s in zip(offsets, sizes))]
        return [f"%out = tensor.extract_slice {names[0]}[{', '.join(map(str, offsets))}] "
                f"[{', '.join(map(str, sizes))}] [{', '.join('1' for _ in sizes)}] : {ta} to "
                f"{_type(value.shape)}"], value
    if op == "scf.for":  # carry = carry * 0.75 + sin(carry) * 0.25, n times
        lo, hi, one, iv, c, s, k, m, q, r, y = (fresh() for _ in range(11))
        value = a
        for _ in range(p["n"]):
            value = value * 0.75 + np.sin(value) * 0.25
        return [f"{lo} = arith.constant 0 : index", f"{hi} = arith.constant {p['n']} : index",
                f"{one} = arith.constant 1 : index",
                f"%out = scf.for {iv} = {lo} to {hi} step {one} iter_args({c} = {names[0]}) -> ({ta}) {{",
                f"  {s} = math.sin {c} : {ta}",
                f'  {k} = "tad.constant"() {{value = 0.75 : f64}} : () -> {ta}',
                f"  {m} = arith.mulf {c}, {k} : {ta}",
                f'  {q} = "tad.constant"() {{value = 0.25 : f64}} : () -> {ta}',
                f"  {r} = arith.mulf {s}, {q} : {ta}",
                f"  {y} = arith.addf {m}, {r} : {ta}",
                f"  scf.yield {y} : {ta}", "}"], value
    if op == "scf.if":  # sin(a) if sum(a) > 0 else cos(a)
        total, scalar, zero, pred, x, y = (fresh() for _ in range(6))
        dims = _arr(range(a.ndim))
        return [f'{total} = "tad.reduce_sum"({names[0]}) {{dimensions = {dims}}} : ({ta}) -> tensor<f64>',
                f"{scalar} = tensor.extract {total}[] : tensor<f64>",
                f"{zero} = arith.constant 0.0 : f64",
                f"{pred} = arith.cmpf ogt, {scalar}, {zero} : f64",
                f"%out = scf.if {pred} -> ({ta}) {{",
                f"  {x} = math.sin {names[0]} : {ta}", f"  scf.yield {x} : {ta}",
                "} else {",
                f"  {y} = math.cos {names[0]} : {ta}", f"  scf.yield {y} : {ta}",
                "}"], np.sin(a) if np.sum(a) > 0 else np.cos(a)
    raise ValueError(f"unknown op {op!r}")


MENU = [(k, 3) for k in UNARY] + [(k, 3) for k in BINARY] + [
    ("select", 1), ("scale", 2), ("tad.reduce_sum", 3), ("tad.reduce_max", 1), ("tad.transpose", 2),
    ("tad.broadcast_in_dim", 2), ("tad.reshape", 1), ("tad.dot_general", 2), ("tensor.extract_slice", 2),
    ("scf.for", 2), ("scf.if", 1)]
ARITY = {**{k: 2 for k in BINARY}, "select": 2, "tad.dot_general": 2}


def _params(op: str, rng: random.Random) -> dict:
    return {"c": rng.uniform(-1.5, 1.5), "dims": rng.sample(range(3), rng.randint(1, 2)),
            "perm": rng.sample(range(3), 3), "n": rng.randint(1, 3), "flat": rng.random() < 0.5,
            "offset": rng.randint(0, 2), "trim": rng.randint(0, 1)}


def input_values(module: dict) -> list:
    rng = np.random.default_rng(module["seed"])
    return [rng.uniform(-1.0, 1.0, size=tuple(shape)) for shape in module["inputs"]]


def evaluate(module: dict, xs=None) -> tuple:
    """(lines of @f's body, numpy value of every variable) on inputs ``xs`` (the module's own by default)."""
    values = list(input_values(module) if xs is None else xs)
    lines, counter = [], [0]

    def fresh():
        counter[0] += 1
        return f"%t{counter[0]}"

    for k, (op, args, params) in enumerate(module["ops"]):
        if any(a >= len(values) for a in args):
            raise Invalid("reads an undefined variable")
        names = [f"%v{a}" for a in args]
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                body, value = _op(op, names, [values[a] for a in args], params, fresh)
            except (ValueError, IndexError, np.exceptions.AxisError) as err:
                raise Invalid(str(err)) from None
        value = np.asarray(value, np.float64)
        if not np.all(np.isfinite(value)) or (value.size and np.max(np.abs(value)) > 1e3) or value.size > 4096:
            raise Invalid("values out of range")
        out = f"%v{len(values)}"
        body = [ln.replace("%out", out) for ln in body]
        lines += body
        values.append(value)
    return lines, values


def render_ir(module: dict) -> str:
    """The module's text: ``@f``, ``@f_vjp`` and ``@f_jvp``, then the mutation if it has one."""
    lines, values = evaluate(module)
    n_in = len(module["inputs"])
    out_type = _type(values[-1].shape)
    in_types = [_type(s) for s in module["inputs"]]
    args = ", ".join(f"%v{i}: {t}" for i, t in enumerate(in_types))
    wrt = _arr(range(n_in))
    text = (f"func.func @f({args}) -> {out_type} {{\n" + "".join(f"  {ln}\n" for ln in lines)
            + f"  return %v{len(values) - 1} : {out_type}\n}}\n"
            f"func.func private @f_vjp({', '.join(in_types + [out_type])}) -> "
            f"({', '.join([out_type] + in_types)}) attributes {{tad.vjp = {{of = @f, wrt = {wrt}}}}}\n"
            f"func.func private @f_jvp({', '.join(in_types + in_types)}) -> ({out_type}, {out_type}) "
            f"attributes {{tad.jvp = {{of = @f, wrt = {wrt}}}}}\n")
    return mutate(text, module["mutation"]) if module.get("mutation") else text


MUTATIONS = ("delete_token", "element_type", "attribute", "truncate", "duplicate_line", "dimension")
ODD_TYPES = ("f32", "i32", "index", "f80", "complex<f32>", "i1", "bf16")


def mutate(text: str, mutation: dict) -> str:
    """``text`` broken in the way ``mutation`` (``{"kind", "seed"}``) says."""
    rng = random.Random(mutation["seed"])
    kind = mutation["kind"]
    if kind == "delete_token":
        tokens = list(re.finditer(r"[%@\w.<>:\-]+|[(){}\[\],=]", text))
        t = rng.choice(tokens)
        return text[:t.start()] + text[t.end():]
    if kind == "element_type":
        hits = list(re.finditer(r"f64", text))
        t = rng.choice(hits)
        return text[:t.start()] + rng.choice(ODD_TYPES) + text[t.end():]
    if kind == "attribute":
        hits = list(re.finditer(r"array<i64: ([-\d, ]+)>|value = [-\d.e+]+", text)) or list(re.finditer(r"f64", text))
        t = rng.choice(hits)
        replacement = rng.choice(["array<i64: 7>", "array<i64: -1, 0>", "array<i64>", "array<i64: 0, 0>",
                                  "value = 1 : i64", "array<i32: 0>", "[0, 1]"])
        return text[:t.start()] + replacement + text[t.end():]
    if kind == "truncate":
        return text[:rng.randrange(len(text))]
    if kind == "duplicate_line":
        lines = text.splitlines(keepends=True)
        k = rng.randrange(len(lines))
        return "".join(lines[:k + 1] + [lines[k]] + lines[k + 1:])
    if kind == "dimension":
        hits = list(re.finditer(r"(?<=[<x])\d+(?=x)", text))
        if not hits:
            return text[:len(text) // 2]
        t = rng.choice(hits)
        return text[:t.start()] + str(rng.choice([0, 1, 7, 4611686018427387904])) + text[t.end():]
    raise ValueError(f"unknown mutation {kind!r}")


def _random_shape(rng: random.Random) -> list:
    return [rng.choice([1, 2, 3, 4]) for _ in range(rng.choice([0, 1, 2, 2, 3]))]


def generate_ir(seed: int, max_ops: int = 6) -> dict:
    """A random module; odd seeds carry a mutation (malformed input), even ones are valid."""
    rng = random.Random(seed * 7919 + 1)
    while True:
        module = {"seed": seed, "inputs": [_random_shape(rng) for _ in range(rng.choice([1, 2]))],
                  "ops": [], "mutation": None}
        ops, weights = zip(*MENU)
        for _ in range(40):
            if len(module["ops"]) >= max_ops:
                break
            op = rng.choices(ops, weights)[0]
            n = len(module["inputs"]) + len(module["ops"])
            args = [n - 1 if rng.random() < 0.7 else rng.randrange(n)] + \
                [rng.randrange(n) for _ in range(ARITY.get(op, 1) - 1)]
            candidate = dict(module, ops=module["ops"] + [[op, args, _params(op, rng)]])
            try:
                evaluate(candidate)
            except Invalid:
                continue
            module = candidate
        if module["ops"]:
            break
    if seed % 2:
        module["mutation"] = {"kind": rng.choice(MUTATIONS), "seed": seed}
    return module


def _without(module: dict, var: int, replacement: int | None) -> dict | None:
    """``module`` without variable ``var`` (an input or an op's result), its readers reading ``replacement``."""
    n_in = len(module["inputs"])
    fix = lambda a: (replacement if a == var else a) - ((replacement if a == var else a) > var)  # noqa: E731
    if replacement is None and any(var in args for _, args, _ in module["ops"]):
        return None
    ops = [[op, [fix(a) for a in args], p] for k, (op, args, p) in enumerate(module["ops"]) if n_in + k != var]
    inputs = [s for i, s in enumerate(module["inputs"]) if i != var]
    return dict(module, inputs=inputs, ops=ops) if inputs and ops else None


def shrink_candidates(module: dict) -> list:
    """Smaller modules: fewer ops (from the end, or one bypassed), fewer inputs, shapes toward 1."""
    n_in = len(module["inputs"])
    out = [dict(module, ops=module["ops"][:k]) for k in range(1, len(module["ops"]))]
    out += [_without(module, n_in + k, args[0]) for k, (_, args, _) in enumerate(module["ops"][:-1])]
    out += [_without(module, i, None) for i in range(n_in)]
    for i, shape in enumerate(module["inputs"]):
        for d, size in enumerate(shape):
            if size > 1:
                inputs = [list(s) for s in module["inputs"]]
                inputs[i][d] = 1
                out.append(dict(module, inputs=inputs))
    return [m for m in out if m is not None]


def _cli(text: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tensorad.tools.autodiff_opt", "--pass-pipeline", CLI_PIPELINE],
                          input=text, capture_output=True, text=True, timeout=120)


def check_cli_output(proc: subprocess.CompletedProcess, malformed: bool) -> dict | None:
    """The failure ``autodiff-opt``'s exit shows (a signal, a traceback, a diagnostic without a place), or None."""
    text = proc.stderr + proc.stdout[-2000:]
    if proc.returncode < 0:
        return {"status": "death", "check": "cli", "message": f"autodiff-opt killed by signal {-proc.returncode}: "
                + next((ln for ln in text.splitlines() if "Assertion" in ln or "UNREACHABLE" in ln), text[-300:])}
    if "Traceback" in text:
        return {"status": "internal", "check": "cli", "message": "Python traceback: " + text.strip().splitlines()[-1]}
    if proc.returncode == 0:
        return None
    errors = [ln for ln in proc.stderr.splitlines() if "error:" in ln]
    if not errors:
        return {"status": "internal", "check": "cli", "message": f"exit {proc.returncode} without an error: "
                + proc.stderr[-300:]}
    first = errors[0]
    if re.search(r":0:0: error|loc\(unknown\)|^error:", first) or PYTHON_ERROR_TEXT.search(first):
        return {"status": "internal", "check": "cli", "message": first[:400]}
    if not malformed:
        status = "refusal" if REFUSAL_TEXT.search(first) else "internal"
        return {"status": status, "check": "cli", "message": "a valid module was rejected: " + first[:400]}
    return None


def run_ir(module: dict, stage=lambda name: None) -> dict:
    """Check one module (see the module docstring)."""
    from tensorad import compile_mlir
    from tensorad.errors import TensoradError

    from .checks import classify_exception

    text = render_ir(module)
    malformed = bool(module.get("mutation"))
    stage("cli")
    problem = check_cli_output(_cli(text), malformed)
    if problem:
        return problem
    check = "compile"
    try:
        stage(check)
        if malformed:
            try:
                compile_mlir(text, "f_vjp")
            except TensoradError as err:  # a diagnostic is the right answer, unless it is Python's
                if PYTHON_ERROR_TEXT.search(str(err)):
                    return dict(classify_exception(err), check=check)
            return {"status": "ok", "check": None, "message": ""}
        xs = input_values(module)
        _, values = evaluate(module)
        expected = values[-1]
        rng = np.random.default_rng(module["seed"] + 1)
        vs = [rng.standard_normal(x.shape) for x in xs]
        u = rng.standard_normal(expected.shape)
        check = "forward"
        out = compile_mlir(text, "f")(*xs)
        if not close(out, expected, 1e-8):
            return {"status": "wrong", "check": check, "message": f"f gives {np.ravel(out)[:6]}, numpy {np.ravel(expected)[:6]}"}
        fd = directional_fd(lambda *a: evaluate(module, a)[1][-1], xs, vs)
        check = "rev"
        stage(check)
        rev = compile_mlir(text, "f_vjp")(*xs, u)
        if not close(rev[0], expected, 1e-8):
            return {"status": "wrong", "check": check, "message": "f_vjp's primal result differs from numpy"}
        got, scale = inner(rev[1:], vs)
        want, want_scale = inner([u], [fd])
        if abs(got - want) > 1e-5 * (1 + scale + want_scale):
            return {"status": "wrong", "check": check, "message": f"<vjp(u), v> = {got!r}, finite differences {want!r}"}
        check = "fwd"
        stage(check)
        fwd = compile_mlir(text, "f_jvp")(*xs, *vs)
        if not close(fwd[1], fd, 1e-5):
            return {"status": "wrong", "check": check, "message": f"f_jvp gives {np.ravel(fwd[1])[:6]}, finite differences {np.ravel(fd)[:6]}"}
    except Exception as err:  # noqa: BLE001 - every exception is judged
        return dict(classify_exception(err), check=check)
    return {"status": "ok", "check": None, "message": ""}
