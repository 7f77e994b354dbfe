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

from .programs import NUMPY_LAX, NUMPY_NN, input_values, numpy_namespace, render

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


def close(actual, expected, tol: float) -> bool:
    """Elementwise ``|actual - expected| <= tol * (1 + max|expected|)``, shapes and NaNs included."""
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    if actual.shape != expected.shape:
        return False
    scale = 1.0 + (float(np.max(np.abs(expected))) if expected.size else 0.0)
    return bool(np.all(np.abs(actual - expected) <= tol * scale))


def inner(xs, ys) -> tuple:
    """(Σ <x_i, y_i>, Σ |x_i|·|y_i|): the product and the scale its rounding error is measured against."""
    total = sum(float(np.sum(np.asarray(x, np.float64) * np.asarray(y, np.float64))) for x, y in zip(xs, ys))
    scale = sum(float(np.sum(np.abs(np.asarray(x, np.float64) * np.asarray(y, np.float64))))
                for x, y in zip(xs, ys))
    return total, scale


def _same_scalar(a: float, b: float, scale: float, tol: float) -> bool:
    return bool(np.isfinite(a)) and abs(a - b) <= tol * (1.0 + scale)


def compile_function(source: str, xp, lax, nn):
    """The function ``f`` of ``source`` with ``xp``, ``lax`` and ``nn`` as its globals."""
    env = {"xp": xp, "lax": lax, "nn": nn}
    exec(compile(source, "<fuzzed program>", "exec"), env)  # noqa: S102 - our own generated text
    return env["f"]


def directional_fd(fun, xs, vs, h: float = FD_STEP):
    """Central difference of ``fun`` at ``xs`` along ``vs`` (all float64)."""
    plus = fun(*[x + h * v for x, v in zip(xs, vs)])
    minus = fun(*[x - h * v for x, v in zip(xs, vs)])
    if isinstance(plus, tuple):
        return tuple((np.asarray(p, np.float64) - np.asarray(m, np.float64)) / (2 * h) for p, m in zip(plus, minus))
    return (np.asarray(plus, np.float64) - np.asarray(minus, np.float64)) / (2 * h)


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
    return check_function(compile_function(source, tnp, ta.lax, ta.nn),
                          compile_function(source, numpy_namespace(), NUMPY_LAX, NUMPY_NN),
                          compile_function(source, numpy_namespace(np.float64), NUMPY_LAX, NUMPY_NN),
                          input_values(program), program["seed"], program["modes"], program["nested"],
                          _tolerance(program), stage)


def check_function(f_ta, f_np, f64_np, xs: list, seed: int, modes=("rev", "fwd"), nested=None,
                   tolerances=(1e-8, 1e-5), stage=lambda name: None) -> dict:
    """Check ``f_ta`` (tensorad) against ``f_np`` (numpy) and ``f64_np`` (numpy, all float64) at ``xs``.

    ``modes`` picks reverse (``"rev"``: ``<vjp(u), v>`` against finite
    differences) and forward (``"fwd"``: ``jvp(v)`` against them) mode, and
    both together add the dot-product test; ``nested`` names a second-order
    check (:data:`tensorad.fuzz.programs.NESTED`).

    Examples
    --------
    >>> import numpy as np, tensorad.numpy as tnp
    >>> check_function(lambda x: tnp.sin(x) * x, lambda x: np.sin(x) * x, lambda x: np.sin(x) * x,
    ...                [np.linspace(-1, 1, 5)], seed=0)["status"]
    'ok'
    """
    import tensorad as ta

    xs64 = [x.astype(np.float64) for x in xs]
    rng = np.random.default_rng(seed + 1)
    vs = [rng.standard_normal(x.shape) for x in xs]
    fwd_tol, grad_tol = tolerances
    expected = np.asarray(_quiet(f_np, *xs))
    u = rng.standard_normal(expected.shape)
    check = "forward"
    try:
        stage(check)
        out = np.asarray(ta.jit(f_ta)(*xs))
        if out.dtype != expected.dtype or not close(out, expected, fwd_tol):
            return _wrong(check, f"jit gives {out.dtype}{list(out.shape)} {out.ravel()[:6]}, numpy "
                                 f"{expected.dtype}{list(expected.shape)} {expected.ravel()[:6]}")
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
    except Exception as err:  # noqa: BLE001 - every exception is judged, none escapes
        return dict(classify_exception(err), check=check)
    return {"status": "ok", "check": None, "message": ""}


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
