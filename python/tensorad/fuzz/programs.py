"""Random Python programs over ``tensorad.numpy`` / ``lax`` / ``nn``, as source text.

A program is plain data (a JSON-able dict): its inputs (shape and dtype),
a list of statements (an op name, the variables it reads, its parameters),
the variable it returns and the checks to run. :func:`render` turns it into
the source of ``def f(x0, x1, ...)`` written against the names ``xp``,
``lax`` and ``nn``, so one text runs on numpy (with :data:`NUMPY_LAX` and
:data:`NUMPY_NN`, plain-Python references of the loops and layers) and on
tensorad. Rendering evaluates every statement on numpy to learn the shapes,
so a statement that does not fit its operands (after shrinking changed
them) raises :class:`Invalid` instead of producing a broken program.

Examples
--------
>>> program = generate(7)
>>> source = render(program)
>>> source.startswith("def f(")
True
>>> generate(7) == program
True
"""

from __future__ import annotations

import math
import random
import types
import warnings

import numpy as np


class Invalid(Exception):
    """A statement does not apply to its operands' shapes (or the numpy reference fails)."""


# ---------------------------------------------------------------------------------------------
# numpy references of the names tensorad adds to numpy's surface

def _fori_loop(lower, upper, body, init):
    for i in range(lower, upper):
        init = body(np.int64(i), init)
    return init


def _scan(f, init, xs, reverse=False):
    carry, ys = init, []
    rows = range(len(xs) - 1, -1, -1) if reverse else range(len(xs))
    for i in rows:
        carry, y = f(carry, xs[i])
        ys.append(np.asarray(y))
    if reverse:
        ys.reverse()
    return carry, np.stack(ys)


def _cond(pred, true_fun, false_fun, *operands):
    return true_fun(*operands) if pred else false_fun(*operands)


def _while_loop(cond_fun, body_fun, init):
    while cond_fun(init):
        init = body_fun(init)
    return init


def _logsumexp(x, axis=None, keepdims=False):
    top = np.max(x, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


def _softmax(x, axis=-1):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _pool_output(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    """Output length of a pooling window along one dim, PyTorch's rule (a last window starts inside the input)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (span + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    if span < 0 or out < 1:
        raise ValueError("the window does not fit")
    return out


def _windows(x, kernel, stride, padding, dilation, ceil_mode, fill):
    """The windows ``(N, C, OH, OW, KH, KW)`` of an NCHW array, read from it padded with ``fill``."""
    (kh, kw), (sh, sw), (ph, pw), (dh, dw) = kernel, stride, padding, dilation
    oh = _pool_output(x.shape[2], kh, sh, ph, dh, ceil_mode)
    ow = _pool_output(x.shape[3], kw, sw, pw, dw, ceil_mode)
    # Enough padding after each dim for the last (possibly partial) window.
    high = max(0, (oh - 1) * sh + dh * (kh - 1) + 1 - x.shape[2] - ph)
    wide = max(0, (ow - 1) * sw + dw * (kw - 1) + 1 - x.shape[3] - pw)
    padded = np.pad(x, ((0, 0), (0, 0), (ph, high), (pw, wide)), constant_values=fill)
    rows = (np.arange(oh) * sh)[:, None] + np.arange(kh) * dh
    cols = (np.arange(ow) * sw)[:, None] + np.arange(kw) * dw
    return padded[:, :, rows[:, None, :, None], cols[None, :, None, :]]


def _pair(v):
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


def _conv2d(x, w, stride=1, padding=0, dilation=1, groups=1):
    windows = _windows(x, w.shape[2:], _pair(stride), _pair(padding), _pair(dilation), False, 0.0)
    n, c, oh, ow = windows.shape[:4]
    out_per_group = w.shape[0] // groups
    parts = [np.einsum("ncyxij,ocij->noyx", windows[:, g * (c // groups):(g + 1) * (c // groups)],
                       w[g * out_per_group:(g + 1) * out_per_group]) for g in range(groups)]
    return np.concatenate(parts, axis=1).astype(np.result_type(x, w))


def _pooled(x):
    """``x``, which pooling takes only with some rows and columns (windows of padding alone have no maximum)."""
    if 0 in x.shape[2:]:
        raise ValueError("pooling needs at least one row and one column")
    return x


def _max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    x, stride = _pooled(x), kernel_size if stride is None else stride
    windows = _windows(x, _pair(kernel_size), _pair(stride), _pair(padding), _pair(dilation), ceil_mode, -np.inf)
    return windows.max(axis=(4, 5))


def _avg_pool2d(x, kernel_size, stride=None, padding=0):
    x, stride = _pooled(x), kernel_size if stride is None else stride
    windows = _windows(x, _pair(kernel_size), _pair(stride), _pair(padding), (1, 1), False, 0.0)
    return windows.mean(axis=(4, 5)).astype(x.dtype)


def _same_dtypes(*arrays) -> None:
    """``jax.lax`` takes operands of one dtype only (its references refuse the others, as it does)."""
    if len({np.asarray(a).dtype for a in arrays}) > 1:
        raise TypeError("lax: operands of different dtypes")


def _lax_pad(x, value, config):
    """``lax.pad``: per dim ``(low, high, interior)``; negative low/high crop."""
    x = np.asarray(x)
    for axis, (low, high, interior) in enumerate(config):
        n = x.shape[axis]
        size = n + (n - 1) * interior if n else 0
        spread = np.full(x.shape[:axis] + (size,) + x.shape[axis + 1:], value, x.dtype)
        index = [slice(None)] * x.ndim
        index[axis] = slice(None, None, interior + 1)
        spread[tuple(index)] = x
        widths = [(0, 0)] * x.ndim
        widths[axis] = (max(low, 0), max(high, 0))
        padded = np.pad(spread, widths, constant_values=value)
        if padded.shape[axis] - max(-low, 0) - max(-high, 0) < 0:
            raise ValueError("lax.pad: a dim of negative size")
        index[axis] = slice(max(-low, 0), padded.shape[axis] - max(-high, 0))
        x = padded[tuple(index)]
    return x


def _lax_erf(x):
    x = np.asarray(x)
    return np.vectorize(math.erf, otypes=[np.float64])(x).astype(x.dtype)


def _lax_dot_general(lhs, rhs, dimension_numbers):
    """``lax.dot_general`` with contracting dims only (no batch dims): the free dims of lhs, then of rhs."""
    _same_dtypes(lhs, rhs)
    (lhs_contract, rhs_contract), _ = dimension_numbers
    return np.tensordot(lhs, rhs, axes=(list(lhs_contract), list(rhs_contract)))


def _lax_concatenate(operands, dimension):
    _same_dtypes(*operands)
    return np.concatenate(operands, axis=dimension)


def _lax_broadcast_in_dim(operand, shape, broadcast_dimensions):
    operand = np.asarray(operand)
    expanded = np.reshape(operand, [operand.shape[broadcast_dimensions.index(d)] if d in broadcast_dimensions else 1
                                    for d in range(len(shape))])
    return np.broadcast_to(expanded, shape)


def _lax_reduce(operand, init_value, computation, dimensions):
    return computation(np.asarray(init_value, np.asarray(operand).dtype),
                       np.add.reduce(operand, axis=tuple(dimensions)))


NUMPY_LAX = types.SimpleNamespace(fori_loop=_fori_loop, scan=_scan, cond=_cond,
                                  while_loop=_while_loop, pad=_lax_pad, rev=lambda x, dims: np.flip(x, dims),
                                  dot_general=_lax_dot_general, concatenate=_lax_concatenate,
                                  broadcast_in_dim=_lax_broadcast_in_dim, reduce=_lax_reduce, add=np.add,
                                  reduce_max=lambda x, axes: np.max(x, axis=tuple(axes)),
                                  rsqrt=lambda x: 1.0 / np.sqrt(x), logistic=lambda x: 1.0 / (1.0 + np.exp(-x)),
                                  erf=_lax_erf,
                                  integer_pow=lambda x, y: x ** y, expm1=np.expm1)


def no_checkpoint(fun, policy=None):
    """numpy's ``checkpoint``: the function itself (what to store is a derivative's concern)."""
    return fun
NUMPY_NN = types.SimpleNamespace(
    sigmoid=lambda x: 1.0 / (1.0 + np.exp(-x)),
    softplus=lambda x: np.logaddexp(x, 0.0),
    silu=lambda x: x / (1.0 + np.exp(-x)),
    elu=lambda x: np.where(x > 0, x, np.expm1(x)),
    mish=lambda x: x * np.tanh(np.logaddexp(x, 0.0)),
    log_sigmoid=lambda x: -np.logaddexp(-x, 0.0),
    squareplus=lambda x: (x + np.sqrt(x * x + 4.0)) / 2.0,
    logsumexp=_logsumexp,
    softmax=_softmax,
    log_softmax=lambda x, axis=-1: x - _logsumexp(x, axis=axis, keepdims=True),
    conv2d=_conv2d,
    max_pool2d=_max_pool2d,
    avg_pool2d=_avg_pool2d,
)


def numpy_namespace(float32=np.float32) -> types.SimpleNamespace:
    """numpy as ``xp``; ``float32=np.float64`` gives the all-float64 reference finite differences use."""
    names = {k: getattr(np, k) for k in dir(np) if not k.startswith("_")}
    names["float32"] = float32
    names["astype"] = lambda x, dtype: np.asarray(x).astype(dtype)
    return types.SimpleNamespace(**names)


# ---------------------------------------------------------------------------------------------
# statements: op name -> function (operand names, operand shapes, params) -> expression text

def _axis_text(axis):
    return "None" if axis is None else repr(tuple(axis)) if isinstance(axis, list) else repr(axis)


def _slice_text(ndim, axis, start, stop, step):
    parts = [":"] * ndim
    parts[axis] = f"{start}:{stop}" + (f":{step}" if step != 1 else "")
    return "[" + ", ".join(parts) + "]"


def _ramp(name, shape):
    """A tiny distinct offset per element, so max/min never see ties (their derivative is a choice)."""
    size = int(np.prod(shape, dtype=np.int64))
    return f"(0.001 * xp.reshape(xp.arange({size}), {tuple(shape)!r}))"


UNARY = {
    "sin": "xp.sin({a})",
    "cos": "xp.cos({a})",
    "tanh": "xp.tanh({a})",
    "exp_tanh": "xp.exp(xp.tanh({a}))",
    "log1p_square": "xp.log1p({a} * {a})",
    "sqrt_shifted": "xp.sqrt(1.0 + {a} * {a})",
    "square": "xp.square({a})",
    "div_cos": "{a} / (2.0 + xp.cos({a}))",
    "reciprocal": "xp.reciprocal(1.5 + xp.sin({a}))",
    "negative": "-{a}",
    "affine": "{a} * 0.5 + 0.25",
    "power": "xp.power(1.5 + xp.tanh({a}), 1.5)",
    "pow_int": "{a} ** 3",
    "clip": "xp.clip({a}, -0.7, 0.8)",
    "sigmoid": "nn.sigmoid({a})",
    "softplus": "nn.softplus({a})",
    "arctan2": "xp.arctan2({a}, 1.5 + xp.cos({a}))",
    "logaddexp": "xp.logaddexp({a}, 0.3 - {a})",
    "sinc": "xp.sinc({a})",
    "i0": "xp.i0({a})",
    "silu": "nn.silu({a})",
    "elu": "nn.elu({a})",
    "mish": "nn.mish({a})",
    "log_sigmoid": "nn.log_sigmoid({a})",
    "squareplus": "nn.squareplus({a})",
}
BINARY = {
    "add": "{a} + {b}",
    "subtract": "{a} - {b}",
    "multiply": "{a} * {b}",
    "divide": "{a} / (2.0 + xp.cos({b}))",
    "maximum": "xp.maximum({a}, {b} + 0.05)",
    "minimum": "xp.minimum({a}, {b} - 0.05)",
    "where": "xp.where({a} > 0.1, {a}, {b} * 2.0)",
    "matmul": "{a} @ {b}",
    "dot": "xp.dot({a}, {b})",
    "tensordot": "xp.tensordot({a}, {b}, axes={axes})",
    "outer": "xp.outer({a}, {b})",
    "inner": "xp.inner({a}, {b})",
    "concatenate": "xp.concatenate([{a}, {b}], axis={axis})",
    "stack": "xp.stack([{a}, {b} * 0.5], axis={axis})",
}


def _expr(op: str, names: list, shapes: list, p: dict) -> str:
    a = names[0]
    b = names[1] if len(names) > 1 else None
    nd = len(shapes[0])
    if op in UNARY:
        return UNARY[op].format(a=a)
    if op in BINARY:
        return BINARY[op].format(a=a, b=b, axis=p.get("axis", 0), axes=p.get("axes", 1))
    if op in ("sum", "mean", "var"):
        return f"xp.{op}({a}, axis={_axis_text(p['axis'])}, keepdims={p['keepdims']})"
    if op in ("max", "min"):
        return f"xp.{op}({a} + {_ramp(a, shapes[0])}, axis={_axis_text(p['axis'])}, keepdims={p['keepdims']})"
    if op == "logsumexp":
        return f"nn.logsumexp({a}, axis={_axis_text(p['axis'])}, keepdims={p['keepdims']})"
    if op in ("softmax", "log_softmax"):
        return f"nn.{op}({a}, axis={p['axis']})"
    if op == "transpose":
        perm = p["perm"][:nd] if len(p["perm"]) >= nd else None
        if perm is None or sorted(perm) != list(range(nd)):
            perm = list(range(nd))[::-1]
        return f"xp.transpose({a}, {tuple(perm)!r})"
    if op == "T":
        return f"{a}.T"
    if op == "ravel":
        return f"xp.reshape({a}, (-1,))"
    if op == "reshape_reversed":
        return f"xp.reshape({a}, {tuple(shapes[0][::-1])!r})"
    if op == "expand_dims":
        return f"xp.expand_dims({a}, {p['axis'] % (nd + 1)})"
    if op == "squeeze":
        axes = [i for i, d in enumerate(shapes[0]) if d == 1]
        if not axes:
            raise Invalid("squeeze needs a size-1 dim")
        return f"xp.squeeze({a}, axis={axes[p['axis'] % len(axes)]})"
    if op == "broadcast_to":
        return f"xp.broadcast_to({a}, {(p['n'],) + tuple(shapes[0])!r})"
    if op == "slice":
        if nd == 0:
            raise Invalid("slice of a scalar")
        return a + _slice_text(nd, p["axis"] % nd, p["start"], p["stop"], p["step"])
    if op == "index":
        if nd == 0 or shapes[0][0] == 0:
            raise Invalid("index of an empty axis")
        return f"{a}[{p['i'] % shapes[0][0]}]"
    if op == "astype":
        return f"xp.astype({a}, xp.{p['dtype']})"
    if op in ("conv2d", "max_pool2d", "avg_pool2d"):
        return _image_expr(op, a, b, shapes, p)
    if op in AXIS_OPS:
        if nd == 0:
            raise Invalid(f"{op} of a scalar")
        if op == "norm" and 0 in shapes[0]:  # the norm of no elements is 0, where it has no derivative (NaN, as in JAX)
            raise Invalid("norm of an empty array")
        return AXIS_OPS[op].format(a=a, axis=p["axis"] % nd, ramp=_ramp(a, shapes[0]), shift=p["shift"])
    if op in MATRIX_OPS:
        if nd < 2:
            raise Invalid(f"{op} needs a matrix")
        n = shapes[0][-1]
        if op.startswith("linalg") and shapes[0][-2] != n:
            raise Invalid(f"{op} needs square matrices")
        return MATRIX_OPS[op].format(a=a, b=b, n=n, k=p["shift"])
    if op == "take":
        if nd == 0 or shapes[0][p["axis"] % nd] == 0:
            raise Invalid("take from an empty axis")
        size = shapes[0][p["axis"] % nd]
        return f"xp.take({a}, {[i % size for i in p['indices']]!r}, axis={p['axis'] % nd})"
    if op == "einsum":
        return f"xp.einsum({_einsum_spec(shapes, p['keep'])!r}, {a}, {b})"
    if op == "fori_loop":
        return (f"lax.fori_loop(0, {p['n']}, lambda i, c: c * 0.8 + xp.sin(c + 0.1) * 0.3, {a})")
    if op == "scan":
        if nd == 0 or shapes[0][0] == 0:
            raise Invalid("scan over an empty leading axis")
        carry = f"xp.zeros({tuple(shapes[0][1:])!r}, {a}.dtype) + 0.1"
        body = ("lambda c, r: (c + r, c)" if p["returns_carry"] else
                "lambda c, r: (c * 0.8 + xp.sin(r), xp.cos(c) + r)")
        rev = ", reverse=True" if p["reverse"] else ""
        return f"lax.scan({body}, {carry}, {a}{rev})[{p['part']}]"
    if op in LAX_UNARY:
        return LAX_UNARY[op].format(a=a)
    if op.startswith("lax_") and nd == 0 and op not in ("lax_reduce",):
        raise Invalid(f"{op} of a scalar")
    if op == "lax_pad":
        config = [tuple(c) for c in p["config"][:nd]] + [(0, 0, 0)] * (nd - len(p["config"]))
        return f"lax.pad({a}, 0.5, {config!r})"
    if op == "lax_rev":
        return f"lax.rev({a}, ({p['axis'] % nd},))"
    if op == "lax_dot_general":
        if not shapes[1] or shapes[0][-1] != shapes[1][0]:
            raise Invalid("dot_general: the last dim of lhs is not the first of rhs")
        return f"lax.dot_general({a}, {b}, ((({nd - 1},), (0,)), ((), ())))"
    if op == "lax_concatenate":
        return f"lax.concatenate([{a}, {a} * 2.0], {p['axis'] % nd})"
    if op == "lax_broadcast_in_dim":
        return f"lax.broadcast_in_dim({a}, {(2,) + tuple(shapes[0])!r}, {tuple(range(1, nd + 1))!r})"
    if op == "lax_reduce_max":
        return f"lax.reduce_max({a} + {_ramp(a, shapes[0])}, ({p['axis'] % nd},))"
    if op == "lax_reduce":
        return f"lax.reduce({a}, 1.5, lax.add, {tuple(range(nd))!r})"
    if op == "checkpoint":
        return (f"checkpoint(lambda u: xp.sin(u) * xp.tanh(u) + u * u, policy={p['policy']!r})({a})")
    if op == "cond":
        return f"lax.cond(xp.sum({a}) > 0.0, lambda u: u * 2.0, lambda u: xp.sin(u), {a})"
    if op == "while_loop":
        return (f"lax.while_loop(lambda s: s[0] < {p['n']}, "
                f"lambda s: (s[0] + 1, s[1] * 0.9 + xp.sin(s[1]) * 0.2), (0, {a}))[1]")
    raise ValueError(f"unknown op {op!r}")


# jax.lax's elementwise functions (tensorad.lax_api), kept in their domains.
LAX_UNARY = {
    "lax_rsqrt": "lax.rsqrt(1.5 + {a} * {a})",
    "lax_logistic": "lax.logistic({a})",
    "lax_erf": "lax.erf({a})",
    "lax_integer_pow": "lax.integer_pow({a}, 3)",
    "lax_expm1": "lax.expm1({a})",
}
# jax.lax's structural functions and reductions.
LAX_OPS = ("lax_pad", "lax_rev", "lax_dot_general", "lax_concatenate", "lax_broadcast_in_dim", "lax_reduce_max",
           "lax_reduce")

# Ops along one axis of their operand ({axis}); {ramp} keeps sorted values apart (ties make the
# derivative a choice), 1 + 0.3 x keeps products away from zero.
AXIS_OPS = {
    "cumsum": "xp.cumsum({a}, axis={axis})",
    "cumprod": "xp.cumprod(1.0 + 0.3 * {a}, axis={axis})",
    "prod": "xp.prod(1.0 + 0.3 * {a}, axis={axis})",
    "flip": "xp.flip({a}, axis={axis})",
    "roll": "xp.roll({a}, {shift}, axis={axis})",
    "repeat": "xp.repeat({a}, 2, axis={axis})",
    "sort": "xp.sort({a} + {ramp}, axis={axis})",
    "swapaxes": "xp.swapaxes({a}, {axis}, -1)",
    "tile": "xp.tile({a}, 2)",
    "pad": "xp.pad({a}, 1)",
    "norm": "xp.linalg.norm({a} + 0.5)",
    "trapezoid": "xp.trapezoid({a}, axis={axis})",
    "ptp": "xp.ptp({a} + {ramp}, axis={axis})",
}
# Ops of the last two dims; the linear algebra on well-conditioned matrices ({a} in [-1, 1) plus 3 I).
MATRIX_OPS = {
    "triu": "xp.triu({a}, {k})",
    "tril": "xp.tril({a}, {k})",
    "trace": "xp.trace({a})",
    "diagonal": "xp.diagonal({a}, axis1=-2, axis2=-1)",
    "linalg_inv": "xp.linalg.inv({a} + 3.0 * xp.eye({n}))",
    "linalg_det": "xp.linalg.det({a} + 3.0 * xp.eye({n}))",
    "linalg_slogdet": "xp.linalg.slogdet({a} + 3.0 * xp.eye({n}))[1]",
    "linalg_solve": "xp.linalg.solve({a} + 3.0 * xp.eye({n}), {b})",
    "linalg_cholesky": "xp.linalg.cholesky({a} @ xp.swapaxes({a}, -1, -2) + 3.0 * xp.eye({n}))",
}


def _einsum_spec(shapes: list, keep: bool) -> str:
    """An einsum of two operands: their dims of equal size paired (summed unless ``keep``), the others kept."""
    a_letters = "abcd"[:len(shapes[0])]
    b_letters, unused = "", list(range(len(shapes[0])))
    for k, size in enumerate(shapes[1]):
        shared = next((i for i in unused if shapes[0][i] == size), None)
        if shared is None:
            b_letters += "wxyz"[k]
        else:
            unused.remove(shared)
            b_letters += a_letters[shared]
    out = [c for c in a_letters + b_letters if (a_letters + b_letters).count(c) == 1 or (keep and c in b_letters)]
    return f"{a_letters},{b_letters}->{''.join(dict.fromkeys(out))}"


def _image_expr(op: str, a: str, b: str | None, shapes: list, p: dict) -> str:
    """A convolution or pooling of ``a`` seen as NCHW images (its last two dims the image's)."""
    shape = shapes[0]
    if not 2 <= len(shape) <= 4:
        raise Invalid("an image has 2 to 4 dims")
    image = tuple([1] * (4 - len(shape)) + list(shape))
    x = f"xp.reshape({a}, {image!r})"
    k, stride, padding = p["kernel"], p["stride"], p["padding"]
    if op == "conv2d":
        channels = image[1]
        groups = channels if p["depthwise"] and channels else 1
        out = channels if p["depthwise"] else p["out"]
        filters = (out, channels // groups, k[0], k[1])
        size = int(np.prod(filters))
        # The filters depend on b through its mean: the filters' gradient is checked too.
        w = f"(xp.reshape(xp.cos(xp.arange({size}) * 0.7), {filters!r}) * (1.0 + xp.mean({b})))"
        return (f"nn.conv2d({x}, xp.astype({w}, {a}.dtype), stride={stride}, padding={padding}, "
                f"dilation={p['dilation']}, groups={groups})")
    if 2 * padding > min(k):
        raise Invalid("pooling pads at most half the window")
    if op == "max_pool2d":  # the ramp keeps maxima apart: the derivative at a tie is a choice
        return (f"nn.max_pool2d({x} + {_ramp(a, image)}, {k!r}, stride={stride}, padding={padding}, "
                f"dilation={p['dilation']}, ceil_mode={p['ceil_mode']})")
    return f"nn.avg_pool2d({x}, {k!r}, stride={stride}, padding={padding})"


ARITY = {**{k: 1 for k in UNARY}, **{k: 2 for k in BINARY}, "conv2d": 2, "linalg_solve": 2, "einsum": 2,
         "lax_dot_general": 2}

# The generator's menu: (op, weight).
MENU = ([(k, 2) for k in UNARY] + [(k, 3) for k in ("add", "subtract", "multiply")]
        + [(k, 1) for k in BINARY if k not in ("add", "subtract", "multiply")]
        + [("matmul", 2), ("sum", 4), ("mean", 2), ("var", 1), ("max", 1), ("min", 1), ("logsumexp", 1),
           ("softmax", 1), ("log_softmax", 1), ("transpose", 2), ("T", 1), ("ravel", 1),
           ("reshape_reversed", 1), ("expand_dims", 2), ("squeeze", 2), ("broadcast_to", 1),
           ("slice", 3), ("index", 1), ("astype", 2), ("fori_loop", 2), ("scan", 2), ("cond", 2),
           ("while_loop", 1), ("conv2d", 2), ("max_pool2d", 1), ("avg_pool2d", 1), ("take", 1), ("einsum", 1),
           ("checkpoint", 2)]
        + [(k, 1) for k in (*LAX_UNARY, *LAX_OPS)]
        + [(k, 1) for k in (*AXIS_OPS, *MATRIX_OPS)])


def _params(op: str, rng: random.Random) -> dict:
    if op in ("sum", "mean", "var", "max", "min", "logsumexp"):
        axis = rng.choice([None, 0, 1, -1, [0, 1], [0, -1]])
        return {"axis": axis, "keepdims": rng.random() < 0.4}
    if op in ("softmax", "log_softmax", "concatenate", "stack", "expand_dims", "squeeze"):
        return {"axis": rng.choice([0, 1, -1, 2])}
    if op == "tensordot":
        return {"axes": rng.choice([0, 1, 1, 2])}
    if op == "transpose":
        return {"perm": rng.sample(range(4), 4)}
    if op == "broadcast_to":
        return {"n": rng.choice([1, 2, 3])}
    if op == "slice":
        start = rng.choice([0, 0, 1, 2])
        stop = rng.choice([start, start + 1, start + 2, 4, None])
        return {"axis": rng.randrange(3), "start": start, "stop": stop if stop is not None else "",
                "step": rng.choice([1, 1, 1, 2])}
    if op == "index":
        return {"i": rng.randrange(4)}
    if op == "astype":
        return {"dtype": rng.choice(["float32", "float64"])}
    if op in ("fori_loop", "while_loop"):
        return {"n": rng.choice([0, 1, 2, 3])}
    if op in AXIS_OPS or op in MATRIX_OPS:
        return {"axis": rng.choice([0, 1, -1]), "shift": rng.choice([-1, 0, 1, 2])}
    if op == "take":
        return {"axis": rng.choice([0, 1, -1]), "indices": [rng.randrange(8) for _ in range(rng.choice([1, 2, 3]))]}
    if op == "einsum":
        return {"keep": rng.random() < 0.3}
    if op == "lax_pad":
        return {"config": [[rng.choice([-1, 0, 1, 2]), rng.choice([-1, 0, 1]), rng.choice([0, 0, 1])]
                           for _ in range(4)]}
    if op in ("lax_rev", "lax_concatenate", "lax_reduce_max"):
        return {"axis": rng.choice([0, 1, -1])}
    if op == "checkpoint":
        return {"policy": rng.choice([None, "nothing_saveable", "everything_saveable", "dots_saveable"])}
    if op in ("conv2d", "max_pool2d", "avg_pool2d"):
        return {"kernel": [rng.choice([1, 2, 2, 3]), rng.choice([1, 2, 2, 3])], "stride": rng.choice([1, 1, 2]),
                "padding": rng.choice([0, 0, 1]), "dilation": rng.choice([1, 1, 2]), "out": rng.choice([1, 2]),
                "depthwise": rng.random() < 0.25, "ceil_mode": rng.random() < 0.3}
    if op == "scan":
        return {"returns_carry": rng.random() < 0.15, "reverse": rng.random() < 0.3,
                "part": rng.choice([0, 1, 1])}
    return {}


def _random_shape(rng: random.Random) -> list:
    ndim = rng.choice([0, 1, 1, 2, 2, 2, 3])
    return [rng.choice([1, 1, 2, 3, 4, 5]) if rng.random() > 0.03 else 0 for _ in range(ndim)]


def _reference_env(xp=None):
    return {"xp": xp or numpy_namespace(), "lax": NUMPY_LAX, "nn": NUMPY_NN, "checkpoint": no_checkpoint}


def _evaluate(expr: str, env: dict, values: dict):
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            out = eval(expr, env, dict(values))  # noqa: S307 - our own generated text
        except Exception as err:  # noqa: BLE001 - any numpy failure means "does not fit"
            raise Invalid(f"{expr}: {type(err).__name__}: {err}") from None
    out = np.asarray(out)
    if out.dtype.kind != "f" or not np.all(np.isfinite(out)) or out.ndim > 4 or out.size > 4096:
        raise Invalid(f"{expr}: not a small finite float array")
    return out


def input_values(program: dict) -> list:
    """The program's inputs: values in [-1, 1) drawn from its seed, in its dtypes."""
    rng = np.random.default_rng(program["seed"])
    return [rng.uniform(-1.0, 1.0, size=tuple(shape)).astype(dtype) for shape, dtype in program["inputs"]]


def trace_shapes(program: dict) -> tuple:
    """Evaluate ``program`` on numpy statement by statement: (lines of source, value of every variable)."""
    env = _reference_env()
    values = {f"v{i}": x for i, x in enumerate(input_values(program))}
    lines = []
    for k, (op, args, params) in enumerate(program["stmts"]):
        name = f"v{len(program['inputs']) + k}"
        if any(f"v{a}" not in values for a in args):
            raise Invalid(f"{name} reads an undefined variable")
        expr = _expr(op, [f"v{a}" for a in args], [list(values[f"v{a}"].shape) for a in args], params)
        values[name] = _evaluate(expr, env, values)
        lines.append(f"    {name} = {expr}")
    return lines, values


def render(program: dict) -> str:
    """The source text of ``def f(v0, v1, ...)`` (raises :class:`Invalid` when a statement does not fit)."""
    lines, values = trace_shapes(program)
    ret = program["ret"] if program["ret"] is not None else len(program["inputs"]) + len(program["stmts"]) - 1
    if f"v{ret}" not in values:
        raise Invalid("returns an undefined variable")
    args = ", ".join(f"v{i}" for i in range(len(program["inputs"])))
    return f"def f({args}):\n" + "\n".join(lines) + f"\n    return v{ret}\n"


MODES = (["rev"], ["fwd"], ["rev", "fwd"], ["rev", "fwd"], ["jacrev"], ["jacfwd"])
NESTED = ("jvp_of_grad", "grad_of_grad", "grad_of_jvp", "jit_of_grad", "hessian")
ONE_INPUT_ONLY = ("jacrev", "jacfwd", "hessian")
REVERSE_TWICE = ("grad_of_grad", "grad_of_jvp")


def generate(seed: int, max_statements: int = 7) -> dict:
    """A random valid program, the same for the same ``seed``."""
    rng = random.Random(seed)
    while True:
        n_inputs = rng.choice([1, 1, 2, 2, 3])
        mixed = rng.random() < 0.25
        inputs = [[_random_shape(rng), "float32" if mixed and rng.random() < 0.6 else "float64"]
                  for _ in range(n_inputs)]
        program = {"seed": seed, "inputs": inputs, "stmts": [], "ret": None,
                   "modes": list(rng.choice(MODES)), "nested": None}
        ops, weights = zip(*MENU)
        target = rng.randint(1, max_statements)
        tries = 0
        while len(program["stmts"]) < target and tries < 60:
            tries += 1
            op = rng.choices(ops, weights)[0]
            n_vars = n_inputs + len(program["stmts"])
            # Recent variables are likelier operands: programs become chains, not piles.
            pick = lambda: max(rng.randrange(n_vars), rng.randrange(n_vars))  # noqa: E731
            args = [n_vars - 1 if rng.random() < 0.7 else pick()] + [pick() for _ in range(ARITY.get(op, 1) - 1)]
            candidate = dict(program, stmts=program["stmts"] + [[op, args, _params(op, rng)]])
            try:
                trace_shapes(candidate)
            except Invalid:
                continue
            program = candidate
        if not program["stmts"]:
            continue
        all_f64 = all(d == "float64" for _, d in inputs) and not any(s[0] == "astype" for s in program["stmts"])
        if all_f64 and rng.random() < 0.2:
            program["nested"] = rng.choice(NESTED)
        if any(st[0] == "while_loop" for st in program["stmts"]) and program["nested"] in REVERSE_TWICE:
            program["nested"] = "jvp_of_grad"  # reverse mode through a while loop's derivative is refused
        if n_inputs > 1:  # the Jacobian and Hessian checks differentiate one argument
            program["modes"] = [m for m in program["modes"] if m not in ONE_INPUT_ONLY] or ["rev"]
            program["nested"] = None if program["nested"] in ONE_INPUT_ONLY else program["nested"]
        try:
            render(program)
        except Invalid:
            continue
        program["eager"] = True
        program["vmap"] = vmap_config(seed, n_inputs)
        program["budget_fraction"] = budget_fraction(seed)
        return program


def budget_fraction(seed: int) -> float | None:
    """The memory budget the ``remat`` check gives a program's gradient, as a fraction of its store-all peak.

    None for half the programs (the check compiles the gradient twice more).
    Drawn from a generator of its own, as :func:`vmap_config`.

    Examples
    --------
    >>> [budget_fraction(seed) for seed in range(8)]
    [None, None, 0.9, None, 0.7, None, 0.5, 0.7]
    """
    rng = random.Random(f"budget{seed}")
    return rng.choice([0.9, 0.7, 0.5, 0.35]) if rng.random() < 0.5 else None


def vmap_config(seed: int, n_inputs: int) -> dict:
    """How the ``vmap`` checks map a program: batch size, in_axes per input, out_axes, and whether of its gradient.

    Drawn from a generator of its own, so that adding it left the programs
    of every seed as they were. An axis may exceed its input's rank: the
    check clamps it (:func:`tensorad.fuzz.checks.batch_axes`).

    Examples
    --------
    >>> config = vmap_config(5, 2)
    >>> sorted(config), len(config["in_axes"])
    (['grad', 'in_axes', 'out_axes', 'size'], 2)
    >>> config == vmap_config(5, 2)
    True
    """
    rng = random.Random(f"vmap{seed}")
    in_axes = [rng.choice([0, 0, None, 1, 2, -1]) for _ in range(n_inputs)]
    if all(a is None for a in in_axes):
        in_axes[rng.randrange(n_inputs)] = rng.choice([0, 1, -1])
    return {"size": rng.choice([2, 3]), "in_axes": in_axes, "out_axes": rng.choice([0, 0, 1, 2, -1]),
            "grad": rng.random() < 0.5}
