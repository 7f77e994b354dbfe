"""Run one fuzzed program under tensorad and judge it against numpy and finite differences.

Every check returns a result dict: ``{"status": ..., "check": ..., "message": ...}``
where ``status`` is ``"ok"``, ``"wrong"`` (a number that disagrees), ``"internal"``
(an exception that is a compiler bug, not a user-facing refusal) or ``"refusal"``
(tensorad's own error for input it documents as unsupported). Process deaths
are judged by the parent (:mod:`tensorad.fuzz.runner`), which sees the worker die.

Examples
--------
>>> from tensorad.fuzz.programs import generate
>>> run_program(generate(3))["status"] in ("ok", "wrong", "internal", "refusal")
True
"""

from __future__ import annotations

import re
import traceback
import warnings

import numpy as np

from .programs import NUMPY_LAX, NUMPY_NN, input_values, no_checkpoint, numpy_namespace, render

FD_STEP = 1e-5
# A message of one of these shapes is a compiler bug whatever the exception type.
INTERNAL_TEXT = re.compile(
    r"internal|crash|Traceback|AttributeError|IndexError|KeyError|AssertionError|NameError|"
    r"UnboundLocalError|RecursionError|ZeroDivisionError|has no attribute|not iterable|"
    r"not subscriptable|NoneType|unexpected keyword|positional argument|Attempted to vectorize|"
    r"failed to legalize|does not dominate|out-of-bounds|failed:|verif", re.IGNORECASE)
# CompileError text that refuses a program the compiler does not support (not a bug in itself).
REFUSAL_TEXT = re.compile(r"not supported|unsupported|no (reverse|forward)[- ]mode (\(\w+\) )?rule|no derivative|"
                          r"cannot differentiate|cannot be differentiated|not differentiable|has no lowering", re.IGNORECASE)


def classify_exception(err: BaseException) -> dict:
    """``internal`` or ``refusal`` for an exception raised by tensorad on a generated program."""
    from tensorad.errors import CompileError, TensoradError
    message = f"{type(err).__name__}: {err}"
    frames = traceback.extract_tb(err.__traceback__)
    raised_in_tensorad = bool(frames) and "tensorad" in frames[-1].filename.replace("\\", "/")
    if isinstance(err, CompileError):
        # The stage wrapper ("stage 'x' failed: Failure while executing pass pipeline") says nothing yet.
        text = re.sub(r"stage '[\w-]+' failed:|Failure while executing pass pipeline", "", str(err))
        refusal = REFUSAL_TEXT.search(text) and not INTERNAL_TEXT.search(text)
    elif isinstance(err, TensoradError) or (isinstance(err, (TypeError, ValueError)) and raised_in_tensorad):
        refusal = not INTERNAL_TEXT.search(str(err))
    else:
        refusal = False
    where = f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames and not refusal else ""
    return {"status": "refusal" if refusal else "internal", "message": message[:2000] + where}


def _tolerance(program: dict) -> tuple:
    """(forward tolerance, derivative tolerance): float32 anywhere loosens both."""
    f32 = any(d == "float32" for _, d in program["inputs"]) or any(
        s[0] == "astype" and s[2].get("dtype") == "float32" for s in program["stmts"])
    return (2e-3, 2e-2) if f32 else (1e-8, 1e-5)


def close(actual, expected, tol: float, equal_nan: bool = False) -> bool:
    """Elementwise ``|actual - expected| <= tol * (1 + max|expected|)``, shapes and NaNs included.

    With ``equal_nan``, elements equal in both (NaN and infinities too) agree
    and the scale is taken over the finite elements: two computations of the
    same thing, where the reference itself may overflow.
    """
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    if actual.shape != expected.shape:
        return False
    same = (actual == expected) | (np.isnan(actual) & np.isnan(expected)) if equal_nan else False
    scaled = expected[np.isfinite(expected)] if equal_nan else expected
    scale = 1.0 + (float(np.max(np.abs(scaled))) if scaled.size else 0.0)
    return bool(np.all(same | (np.abs(actual - expected) <= tol * scale)))


def inner(xs, ys) -> tuple:
    """(Σ <x_i, y_i>, Σ |x_i|·|y_i|): the product and the scale its rounding error is measured against."""
    total = sum(float(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64))) for x, y in zip(xs, ys))
    scale = sum(float(np.sum(np.abs(np.asarray(x, np.float64) * np.asarray(y, np.float64))))
                for x, y in zip(xs, ys))
    return total, scale


def _same_scalar(a: float, b: float, scale: float, tol: float) -> bool:
    return bool(np.isfinite(a)) and abs(a - b) <= tol * (1.0 + scale)


def compile_function(source: str, xp, lax, nn, checkpoint=no_checkpoint):
    """The function ``f`` of ``source`` with ``xp``, ``lax``, ``nn`` and ``checkpoint`` as its globals."""
    env = {"xp": xp, "lax": lax, "nn": nn, "checkpoint": checkpoint}
    exec(compile(source, "<fuzzed program>", "exec"), env)  # noqa: S102 - our own generated text
    return env["f"]


def _central(fun, xs, vs, h: float) -> tuple:
    """Central differences of ``fun``'s outputs at ``xs`` along ``vs``, step ``h``: (a list, whether a tuple)."""
    plus = fun(*[x + h * v for x, v in zip(xs, vs)])
    minus = fun(*[x - h * v for x, v in zip(xs, vs)])
    pairs = zip(plus, minus) if isinstance(plus, tuple) else [(plus, minus)]
    return [(np.asarray(p, np.float64) - np.asarray(m, np.float64)) / (2 * h) for p, m in pairs], \
        isinstance(plus, tuple)


def directional_fd(fun, xs, vs, h: float = FD_STEP):
    """The derivative of ``fun`` at ``xs`` along ``vs`` (all float64): central differences, Richardson-extrapolated.

    Steps ``h`` and ``h / 2`` combined as ``(4 D(h/2) - D(h)) / 3`` cancel the
    ``h**2`` error term: a steep program (the sine of a norm in the thousands)
    no longer looks wrong by 1.5e-4 at ``h = 1e-5``.

    Examples
    --------
    >>> round(float(directional_fd(lambda x: np.sin(1000.0 * x), [np.zeros(())], [np.ones(())])), 3)
    1000.0
    """
    (coarse, several), (fine, _) = _central(fun, xs, vs, h), _central(fun, xs, vs, h / 2)
    extrapolated = [(4.0 * f - c) / 3.0 for f, c in zip(fine, coarse)]
    return tuple(extrapolated) if several else extrapolated[0]


def _wrong(check: str, message: str) -> dict:
    return {"status": "wrong", "check": check, "message": message}


def _quiet(fun, *args):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        return fun(*args)


def run_program(program: dict, stage=lambda name: None) -> dict:
    """Run ``program``'s checks in order; the first failing one decides the result.

    ``stage(name)`` is called before each check, so that a parent process
    watching the worker knows which check killed it.
    """
    import tensorad as ta
    import tensorad.numpy as tnp

    source = render(program)
    return check_function(compile_function(source, tnp, ta.lax, ta.nn, ta.checkpoint),
                          compile_function(source, numpy_namespace(), NUMPY_LAX, NUMPY_NN),
                          compile_function(source, numpy_namespace(np.float64), NUMPY_LAX, NUMPY_NN),
                          input_values(program), program["seed"], program["modes"], program["nested"],
                          _tolerance(program), stage, eager=program.get("eager", False),
                          vmap=program.get("vmap"), budget_fraction=program.get("budget_fraction"))


def check_function(f_ta, f_np, f64_np, xs: list, seed: int, modes=("rev", "fwd"), nested=None,
                   tolerances=(1e-8, 1e-5), stage=lambda name: None, eager: bool = False,
                   vmap: dict | None = None, budget_fraction: float | None = None) -> dict:
    """Check ``f_ta`` (tensorad) against ``f_np`` (numpy) and ``f64_np`` (numpy, all float64) at ``xs``.

    ``modes`` picks reverse (``"rev"``: ``<vjp(u), v>`` against finite
    differences) and forward (``"fwd"``: ``jvp(v)`` against them) mode, and
    both together add the dot-product test; ``nested`` names a second-order
    check (:data:`tensorad.fuzz.programs.NESTED`). ``eager`` also calls
    ``f_ta`` on the arrays themselves (every op runs eagerly) against jit and
    numpy; ``vmap`` (:func:`tensorad.fuzz.programs.vmap_config`) maps it over
    a batch of inputs (``"vmap"``), and its gradient too when ``vmap["grad"]``
    (``"vmap_grad"``), against a loop of jit (of grad) over the rows.
    ``budget_fraction`` (with ``"rev"``) compiles the gradient again with a
    memory budget of that fraction of its store-all peak (``"remat"``):
    refused with the smallest feasible budget, or the same gradient with a
    measured peak within the budget and the prediction.

    Examples
    --------
    >>> import numpy as np, tensorad.numpy as tnp
    >>> check_function(lambda x: tnp.sin(x) * x, lambda x: np.sin(x) * x, lambda x: np.sin(x) * x,
    ...                [np.linspace(-1, 1, 5)], seed=0)["status"]
    'ok'
    """
    import tensorad as ta
    import tensorad.numpy as tnp

    xs64 = [x.astype(np.float64) for x in xs]
    rng = np.random.default_rng(seed + 1)
    vs = [rng.standard_normal(x.shape) for x in xs]
    fwd_tol, grad_tol = tolerances
    expected = np.asarray(_quiet(f_np, *xs))
    u = rng.standard_normal(expected.shape)
    check = "forward"
    try:
        stage(check)
        jitted = ta.jit(f_ta)
        out = np.asarray(jitted(*xs))
        if out.dtype != expected.dtype or not close(out, expected, fwd_tol):
            return _wrong(check, f"jit gives {out.dtype}{list(out.shape)} {out.ravel()[:6]}, numpy "
                                 f"{expected.dtype}{list(expected.shape)} {expected.ravel()[:6]}")
        if eager:
            check = "eager"
            stage(check)
            got = np.asarray(_quiet(f_ta, *xs))
            for what, want in (("numpy", expected), ("jit", out)):
                if got.dtype != want.dtype or not close(got, want, fwd_tol):
                    return _wrong(check, f"eager gives {got.dtype}{list(got.shape)} {got.ravel()[:6]}, {what} "
                                         f"{want.dtype}{list(want.shape)} {want.ravel()[:6]}")
        if vmap:
            check = "vmap"
            stage(check)
            problem = _vmap_problem(f_ta, jitted, xs, vmap, fwd_tol, rng)
            if problem:
                return _wrong(check, problem)
        fd = _quiet(directional_fd, f64_np, xs64, vs)
        rev = fwd = None
        if "rev" in modes:
            check = "rev"
            stage(check)
            _, pullback = ta.vjp(f_ta, *xs)
            rev = pullback(u.astype(expected.dtype))
            got, scale = inner(rev, vs)
            want, want_scale = inner([u], [fd])
            if not _same_scalar(got, want, scale + want_scale, grad_tol):
                return _wrong(check, f"<vjp(u), v> = {got!r}, finite differences <u, J v> = {want!r}")
        if "fwd" in modes:
            check = "fwd"
            stage(check)
            _, fwd = ta.jvp(f_ta, tuple(xs), tuple(v.astype(x.dtype) for x, v in zip(xs, vs)))
            if not close(fwd, fd, grad_tol):
                return _wrong(check, f"jvp gives {np.ravel(fwd)[:6]}, finite differences {np.ravel(fd)[:6]}")
        for jacobian in ("jacrev", "jacfwd"):
            if jacobian in modes:
                check = jacobian
                stage(check)
                jac = np.asarray(getattr(ta, jacobian)(f_ta)(xs[0]))
                jv = np.tensordot(jac, vs[0], axes=vs[0].ndim) if jac.size else np.zeros(expected.shape)
                if not close(jv, fd, grad_tol):
                    return _wrong(check, f"{jacobian} times v gives {np.ravel(jv)[:6]}, finite differences "
                                         f"{np.ravel(fd)[:6]}")
        if rev is not None and fwd is not None:
            check = "dot-product"
            got, scale = inner(rev, vs)
            want, want_scale = inner([u], [fwd])
            if not _same_scalar(got, want, scale + want_scale, grad_tol):
                return _wrong(check, f"<vjp(u), v> = {got!r} but <u, jvp(v)> = {want!r}")
        if nested:
            check = nested
            stage(check)
            problem = _nested(nested, f_ta, xs, vs, u, rng)
            if problem:
                return _wrong(check, problem)
        if vmap and vmap.get("grad"):
            check = "vmap_grad"
            stage(check)
            argnums = tuple(range(len(xs)))
            # A scalar program is its own loss; any other is weighted by the cotangent u, as in "rev".
            loss = f_ta if expected.ndim == 0 else lambda *a: tnp.sum(f_ta(*a) * u.astype(expected.dtype))
            problem = _vmap_problem(ta.grad(loss, argnums), None, xs, vmap, fwd_tol, rng)
            if problem:
                return _wrong(check, problem)
        if budget_fraction is not None and rev is not None:
            check = "remat"
            stage(check)
            problem = _remat_problem(f_ta, xs, u.astype(expected.dtype), rev, budget_fraction, fwd_tol)
            if problem:
                return _wrong(check, problem)
    except Exception as err:  # noqa: BLE001 - every exception is judged, none escapes
        return dict(classify_exception(err), check=check)
    return {"status": "ok", "check": None, "message": ""}


# CompileError text of a memory budget that no schedule keeps, or that a program cannot be given
# (shapes known at run time only, as a while loop's tape).
BUDGET_REFUSAL = re.compile(r"the smallest feasible budget (found )?is|a memory budget needs static shapes")


def _remat_problem(f_ta, xs: list, u, want: list, fraction: float, tol: float) -> str | None:
    """The gradient of ``<f_ta(xs), u>`` under a budget of ``fraction`` of its store-all peak, against ``want``.

    The message of a broken promise (a wrong gradient, a measured peak above
    the budget or the prediction), or None; a refused budget is none.
    """
    import tensorad as ta
    import tensorad.numpy as tnp
    from tensorad.errors import CompileError

    loss = lambda *a: tnp.sum(f_ta(*a) * u)  # noqa: E731
    argnums = tuple(range(len(xs)))
    store_all = ta.memory_report(ta.grad(loss, argnums), *xs).functions[0]
    budget = max(1, int(store_all.store_all_peak_bytes * fraction))
    jitted = ta.jit(ta.grad(loss, argnums), memory_budget=budget)
    try:
        report = ta.memory_report(jitted, *xs)
    except CompileError as err:
        if BUDGET_REFUSAL.search(str(err)):
            return None
        raise
    got = jitted(*xs)
    schedule = report.functions[0]
    where = (f"budget {budget} bytes ({fraction:.0%} of store-all {store_all.store_all_peak_bytes}), "
             f"tier {schedule.tier}: measured {report.measured_peak_bytes}, predicted {schedule.predicted_peak_bytes}")
    if report.measured_peak_bytes > budget or report.measured_peak_bytes > schedule.predicted_peak_bytes:
        return f"peak live bytes above the promise: {where}"
    for k, (g, w) in enumerate(zip(got, want)):
        if not close(g, w, tol):
            return f"gradient {k} is {np.ravel(g)[:6]} under a {where}; without a budget {np.ravel(w)[:6]}"
    return None


def _nested(kind: str, f_ta, xs, vs, u, rng) -> str | None:
    """A second-order check of a float64 program; the message of a mismatch, or None."""
    import tensorad as ta
    import tensorad.numpy as tnp

    argnums = tuple(range(len(xs)))
    loss = lambda *a: tnp.sum(f_ta(*a) * u)  # noqa: E731
    grads = ta.grad(loss, argnums)
    tol = 1e-4
    if kind in ("jvp_of_grad", "hessian"):
        if kind == "hessian":  # one argument: H v from the full Hessian
            hessian = np.asarray(ta.hessian(loss)(xs[0]))
            hv = [np.tensordot(hessian, vs[0], axes=vs[0].ndim) if hessian.size else np.zeros(xs[0].shape)]
        else:
            _, hv = ta.jvp(grads, tuple(xs), tuple(vs))
        fd = directional_fd(grads, xs, vs)
        if not all(close(a, b, tol) for a, b in zip(hv, fd)):
            return f"jvp(grad) gives {[np.ravel(a)[:4] for a in hv]}, differences of grad {[np.ravel(b)[:4] for b in fd]}"
        return None
    ws = [rng.standard_normal(x.shape) for x in xs]
    if kind == "jit_of_grad":  # jit around grad: <grad, v> against differences of the loss
        got, scale = inner(ta.jit(grads)(*xs), vs)
        want = float(directional_fd(ta.jit(loss), xs, vs))
        if not _same_scalar(got, want, scale + abs(want), tol):
            return f"<jit(grad), v> = {got!r}, finite differences {want!r}"
        return None
    if kind == "grad_of_grad":
        scalar = lambda *a: sum(tnp.sum(g * w) for g, w in zip(grads(*a), ws))  # noqa: E731
    else:  # grad_of_jvp: reverse mode over forward mode
        scalar = lambda *a: tnp.sum(ta.jvp(f_ta, a, tuple(ws))[1] * u)  # noqa: E731
    second = ta.grad(scalar, argnums)(*xs)
    got, scale = inner(second, vs)
    want = float(directional_fd(ta.jit(scalar), xs, vs))
    if not _same_scalar(got, want, scale + abs(want), tol):
        return f"<{kind}, v> = {got!r}, finite differences {want!r}"
    return None


def batch_axes(vmap: dict, in_ranks: list) -> list:
    """The in_axes of ``vmap`` made valid for inputs of ranks ``in_ranks``.

    An axis past the end of its (batched) input becomes its last axis, so a
    program keeps its vmap while shrinking drops dimensions; at least one
    input is mapped.

    Examples
    --------
    >>> batch_axes({"in_axes": [2, None, -1]}, [1, 3, 0])
    [1, None, -1]
    >>> batch_axes({"in_axes": [None]}, [2])
    [0]
    """
    axes = [None if a is None else _clamp_axis(a, rank) for a, rank in zip(vmap["in_axes"], in_ranks)]
    return axes if any(a is not None for a in axes) else [0] + axes[1:]


def _clamp_axis(axis: int, rank: int) -> int:
    """``axis`` as a place for a new axis in a value of rank ``rank`` (``0..rank``, or ``-1``)."""
    return axis if axis < 0 else min(axis, rank)


def _vmap_problem(fun, jitted, xs: list, vmap: dict, tol: float, rng) -> str | None:
    """``vmap(fun)`` over a batch whose first row is ``xs`` against ``jitted`` (default ``fun``) row by row.

    The message of a mismatch, or None. ``fun`` returns one array or a tuple
    of them (a gradient per argument); every output gets the out_axes of
    ``vmap``, made valid for its rank.
    """
    import tensorad as ta

    size = vmap["size"]
    in_axes = batch_axes(vmap, [x.ndim for x in xs])
    rows = [xs] + [[rng.uniform(-1.0, 1.0, x.shape).astype(x.dtype) if a is not None else x
                    for x, a in zip(xs, in_axes)] for _ in range(size - 1)]
    batch = [x if a is None else np.stack([row[i] for row in rows], axis=a)
             for i, (x, a) in enumerate(zip(xs, in_axes))]
    per_row = [(fun if jitted is None else jitted)(*row) for row in rows]
    single = not isinstance(per_row[0], tuple)
    per_row = [(r,) if single else r for r in per_row]
    out_axes = tuple(_clamp_axis(vmap["out_axes"], np.ndim(r)) for r in per_row[0])
    want = [np.stack([np.asarray(r[k]) for r in per_row], axis=a) for k, a in enumerate(out_axes)]
    got = ta.vmap(fun, in_axes=tuple(in_axes), out_axes=out_axes[0] if single else out_axes)(*batch)
    got = [np.asarray(g) for g in ((got,) if single else got)]
    for k, (g, w) in enumerate(zip(got, want)):
        if g.dtype != w.dtype or not close(g, w, tol, equal_nan=True):
            return (f"vmap(in_axes={tuple(in_axes)}, out_axes={out_axes}) of {size} rows: output {k} is "
                    f"{g.dtype}{list(g.shape)} {g.ravel()[:6]}, the loop gives {w.dtype}{list(w.shape)} "
                    f"{w.ravel()[:6]}")
    return None
