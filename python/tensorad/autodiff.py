"""The differentiation API: ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, Jacobians, ``custom_vjp``.

Each transformation works on IR, not by tapes in Python: the function is traced
into its own ``func.func`` of the module being built, its derivative is
*declared* (``tad.vjp``/``tad.jvp``, see DESIGN.md) and called; the
``tad-differentiate`` pass gives the declaration its body when the module is
compiled. Transformations therefore compose (``grad(grad(f))``, ``jit(vjp)``)
and every derivative is visible as IR (``jit(...).lower(...).as_text("differentiated")``).

Called outside a trace, each transformed function compiles itself with
:func:`tensorad.jit` (cached per signature).

Examples
--------
>>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
>>> df = ta.grad(lambda x: tnp.sum(tnp.sin(x)))
>>> np.allclose(df(np.zeros(3)), 1.0)
True
"""

from __future__ import annotations

import functools
import weakref
from typing import Callable, Sequence

import numpy as np
from mlir import ir
from mlir.dialects import func

from . import numpy as tnp
from . import tree
from .compiler import Jitted
from .dtypes import is_complex, is_float, is_inexact, tensor_type
from .errors import TracingError
from .lax import stop_gradient
from .tracing import Tracer, current_module, function_name, trace_into, unique_symbol


def _call(name: str, operands: Sequence[Tracer], result_avals) -> list:
    op = func.CallOp([tensor_type(s, d) for s, d in result_avals], name, [x.value for x in operands])
    return [Tracer.of(r) for r in op.results]


def _declare(kind: str, of: str, wrt: Sequence[int], inputs, results) -> str:
    """Declare the ``kind`` derivative of ``@of`` (as ``@<of>_<kind>``) in the module being traced; return its name."""
    module = current_module()
    name = unique_symbol(module, f"{of}_{kind}")
    with ir.InsertionPoint(module.body):
        decl = func.FuncOp(name, ir.FunctionType.get([tensor_type(s, d) for s, d in inputs],
                                                     [tensor_type(s, d) for s, d in results]),
                           visibility="private")
        decl.attributes[f"tad.{kind}"] = ir.DictAttr.get({
            "of": ir.FlatSymbolRefAttr.get(of), "wrt": ir.DenseI64ArrayAttr.get(list(wrt))})
    return name


class _Traced:
    """A Python function traced into a private ``func.func`` of the current module."""

    def __init__(self, fun: Callable, args: tuple, name: str | None = None):
        leaves, self.in_tree = tree.flatten(args)
        self.inputs = [tnp.asarray(x) for x in leaves]
        self.name, self.out_tree, self.out_avals, captured = trace_into(
            current_module(), lambda *xs: fun(*tree.unflatten(self.in_tree, xs)),
            [(x.shape, x.dtype) for x in self.inputs], name=name or function_name(fun))
        # Only the explicit inputs are differentiated; closed-over values ride along.
        self.float_inputs = tuple(i for i, x in enumerate(self.inputs) if is_inexact(x.dtype))
        self.explicit = len(self.inputs)
        self.inputs += [Tracer.of(v) for v in captured]

    def call(self) -> list:
        return _call(self.name, self.inputs, self.out_avals)

    def pullback(self, seeds: Sequence[Tracer], prefix: tuple = ()) -> list:
        """Gradients (with batch ``prefix``) of every input; zeros for non-float inputs."""
        return self.value_and_pullback(seeds, prefix)[1]

    def value_and_pullback(self, seeds: Sequence[Tracer], prefix: tuple = ()) -> tuple:
        """``(results, gradients)``: the function's results as the vjp computes them, and :meth:`pullback`'s.

        Taking the results from the same call as the gradients lets a caller
        that needs both (``value_and_grad``) run the forward sweep once: a
        separate :meth:`call` would leave a second copy of every loop, which
        CSE cannot merge with the vjp's taping loop.
        """
        wrt = self.float_inputs
        batched = [(prefix + s, d) for s, d in self.out_avals]
        grads = [(prefix + self.inputs[i].shape, self.inputs[i].dtype) for i in wrt]
        name = _declare("vjp", self.name, wrt, [(x.shape, x.dtype) for x in self.inputs] + batched,
                        self.out_avals + grads)
        outs = _call(name, self.inputs + list(seeds), self.out_avals + grads)
        results, gradients = outs[:len(self.out_avals)], iter(outs[len(self.out_avals):])
        return results, [next(gradients) if i in wrt else tnp.zeros(prefix + x.shape, x.dtype)
                         for i, x in enumerate(self.inputs[:self.explicit])]

    def pushforward(self, tangents: dict, prefix: tuple = ()) -> list:
        """Output tangents for input tangents ``{input index: tangent}`` (with batch ``prefix``)."""
        wrt = tuple(sorted(tangents))
        inputs = [(x.shape, x.dtype) for x in self.inputs]
        batched_out = [(prefix + s, d) for s, d in self.out_avals]
        name = _declare("jvp", self.name, wrt,
                        inputs + [(prefix + self.inputs[i].shape, self.inputs[i].dtype) for i in wrt],
                        self.out_avals + batched_out)
        outs = _call(name, self.inputs + [tangents[i] for i in wrt], self.out_avals + batched_out)
        return outs[len(self.out_avals):]


def _in_trace(leaves) -> bool:
    return any(isinstance(x, Tracer) for x in leaves)


# Compiled top-level transformations, per user function; dropped with the function.
_TOP_LEVEL: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _compiled(build: Callable, user_fun: Callable, kind: tuple) -> Jitted:
    """The cached ``Jitted(build)`` for transformation ``kind`` of ``user_fun``."""
    build.__name__ = f"{kind[0]}_{function_name(user_fun)}".replace("-", "_")  # e.g. @jvp_loss
    try:
        per_fun = _TOP_LEVEL.setdefault(user_fun, {})
    except TypeError:  # not weakly referenceable: compile without caching
        return Jitted(build)
    if kind not in per_fun:
        per_fun[kind] = Jitted(build)
    return per_fun[kind]


def _split_aux(out, has_aux: bool):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TracingError("a function with has_aux=True must return a pair (output, aux)")
    return out[0], out[1]


def _seed_leaves(cotangent, avals, prefix=()) -> list:
    leaves, _ = tree.flatten(cotangent)
    if len(leaves) != len(avals):
        raise TracingError(f"the cotangent has {len(leaves)} arrays, the output has {len(avals)}")
    seeds = []
    for leaf, (shape, dtype) in zip(leaves, avals):
        seed = tnp.astype(tnp.asarray(leaf), dtype)
        if seed.shape != prefix + tuple(shape):
            raise TracingError(f"cotangent of shape {seed.shape} for an output of shape {tuple(shape)}")
        seeds.append(seed)
    return seeds


def _vjp_traced(fun: Callable, primals: tuple, has_aux: bool):
    traced = _Traced(lambda *args: _main_and_stopped_aux(fun(*args), has_aux), primals, function_name(fun))
    outs = tree.unflatten(traced.out_tree, traced.call())
    out, aux = _split_aux(outs, has_aux)
    n_main = len(tree.flatten(out)[0])

    def vjp_fn(cotangent, prefix: tuple = (), with_value: bool = False):
        # with_value: ((out, aux), grads), the results read from the vjp's own call (see value_and_pullback).
        seeds = _seed_leaves(cotangent, traced.out_avals[:n_main], prefix)
        seeds += [tnp.zeros(prefix + s, d) for s, d in traced.out_avals[n_main:]]
        results, grads = traced.value_and_pullback(seeds, prefix)
        grads = tree.unflatten(traced.in_tree, grads)
        return (_split_aux(tree.unflatten(traced.out_tree, results), has_aux), grads) if with_value else grads

    return out, vjp_fn, aux


def _main_and_stopped_aux(out, has_aux: bool):
    main, aux = _split_aux(out, has_aux)
    return (main, stop_gradient(aux)) if has_aux else main


def vjp(fun: Callable, *primals, has_aux: bool = False):
    """Evaluate ``fun`` and return a function that pulls cotangents back to the primals.

    Returns ``(out, vjp_fn)``, or ``(out, vjp_fn, aux)`` with ``has_aux``, as
    in JAX and MindSpore. ``vjp_fn(cotangent)`` returns a tuple with one
    gradient pytree per primal.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> out, pullback = ta.vjp(lambda x: tnp.exp(x), np.zeros(2))
    >>> pullback(np.ones(2))
    (array([1., 1.]),)
    """
    leaves, _ = tree.flatten(primals)
    if _in_trace(leaves):
        out, vjp_fn, aux = _vjp_traced(fun, primals, has_aux)
        return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)

    def forward(*args):
        out, _, aux = _vjp_traced(fun, args, has_aux)
        return out, aux

    def backward(args, cotangent):
        return _vjp_traced(fun, args, has_aux)[1](cotangent)

    out, aux = _compiled(forward, fun, ("vjp-forward", has_aux))(*primals)
    pull = _compiled(backward, fun, ("vjp-backward", has_aux))
    vjp_fn = lambda cotangent: pull(primals, cotangent)  # noqa: E731
    return (out, vjp_fn, aux) if has_aux else (out, vjp_fn)


def _normalize_argnums(argnums, nargs: int) -> tuple:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise TracingError(f"argnums {argnums} is out of range for {nargs} positional arguments")
    return tuple(n % nargs for n in nums)


def _with_args(fun: Callable, args: tuple, nums: tuple, kwargs: dict) -> Callable:
    def partial(*diff):
        merged = list(args)
        for n, value in zip(nums, diff):
            merged[n] = value
        return fun(*merged, **kwargs)

    partial.__name__ = function_name(fun)  # the IR names the user's function, not this wrapper
    return partial


def _check_float(args: tuple, nums: tuple, what: str, holomorphic: bool = False,
                 real_only: bool = False) -> None:
    """Refuse inputs that cannot be differentiated, as JAX does.

    With ``holomorphic`` every input must be complex; forward-mode Jacobians
    (``real_only``) take complex inputs only with ``holomorphic``.
    """
    for n in nums:
        for leaf in tree.flatten(args[n])[0]:
            dtype = np.dtype(leaf.dtype if hasattr(leaf, "dtype") else np.asarray(leaf).dtype)
            if holomorphic and not is_complex(dtype):
                raise TypeError(f"{what} with holomorphic=True requires inputs with complex dtype, but argument "
                                f"{n} has dtype {dtype.name}")
            if not is_inexact(dtype):
                raise TypeError(f"{what} requires floating-point or complex inputs, but argument {n} has dtype "
                                f"{dtype.name}; convert it with .astype(float) or leave it "
                                "out of argnums")
            if real_only and is_complex(dtype) and not holomorphic:
                raise TypeError(f"{what} requires real-valued inputs, but argument {n} has dtype {dtype.name}. "
                                "For holomorphic differentiation, pass holomorphic=True; for non-holomorphic "
                                "functions of complex inputs, use jvp directly.")


def _check_output(out, what: str, holomorphic: bool) -> None:
    """Refuse outputs that a reverse-mode derivative cannot seed, as JAX does."""
    if holomorphic and not is_complex(out.dtype):
        raise TypeError(f"{what} with holomorphic=True requires outputs with complex dtype, but got {out.dtype.name}")
    if not holomorphic and not is_float(out.dtype):
        raise TypeError(f"{what} requires real-valued outputs, but got {out.dtype.name}. For holomorphic "
                        "differentiation, pass holomorphic=True; for non-holomorphic functions with complex "
                        "outputs, use vjp directly.")


def value_and_grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
                   holomorphic: bool = False) -> Jitted:
    """Return a function computing ``fun``'s value and its gradient with respect to ``argnums``.

    ``fun`` must return a float scalar (with ``has_aux``, a pair
    ``(scalar, aux)``). Returns ``(value, grad)`` or ``((value, aux), grad)``;
    ``grad`` has the structure of the chosen argument (a tuple of them when
    ``argnums`` is a tuple).

    Complex inputs follow JAX's convention: the gradient of a real function
    of ``z = x + iy`` is ``∂f/∂x - i ∂f/∂y`` (for ``|z|**2``, ``2 conj(z)``).
    With ``holomorphic=True`` inputs and output are complex and the gradient
    is the complex derivative ``f'(z)``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.value_and_grad(lambda p: (p["w"] ** 2).sum())({"w": np.arange(3.0)})
    (array(5.), {'w': array([0., 2., 4.])})
    """

    def value_and_grad_fun(*args, **kwargs):
        nums = _normalize_argnums(argnums, len(args))
        _check_float(args, nums, "grad", holomorphic)
        out, vjp_fn, aux = _vjp_traced(_with_args(fun, args, nums, kwargs),
                                       tuple(args[n] for n in nums), has_aux)
        if not isinstance(out, Tracer) or out.shape != () or not is_inexact(out.dtype):
            raise TracingError("grad requires a function returning a float scalar, got "
                               f"{getattr(out, 'shape', type(out).__name__)}; use vjp or jacrev "
                               "for other outputs")
        _check_output(out, "grad", holomorphic)
        (out, aux), grads = vjp_fn(tnp.ones((), out.dtype), with_value=True)
        grads = grads[0] if isinstance(argnums, int) else grads
        return ((out, aux) if has_aux else out), grads

    value_and_grad_fun.__name__ = f"value_and_grad_{function_name(fun)}"
    return Jitted(value_and_grad_fun)


def grad(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False) -> Jitted:
    """Return a function computing the gradient of the scalar function ``fun``.

    Complex inputs and ``holomorphic`` as in :func:`value_and_grad`.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.grad(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
    array([ 3., 12.])
    >>> ta.grad(ta.grad(lambda x: x ** 3))(2.0)
    array(12.)
    """
    both = value_and_grad(fun, argnums, has_aux, holomorphic)

    def grad_fun(*args, **kwargs):
        value, grads = both.fun(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    grad_fun.__name__ = f"grad_{function_name(fun)}"
    return Jitted(grad_fun)


def _jvp_traced(fun: Callable, primals: tuple, tangents: tuple):
    traced = _Traced(fun, primals)
    tangent_leaves = tree.flatten(tangents)[0]
    if len(tangent_leaves) != traced.explicit:  # the closed-over inputs after them have no tangents
        raise TracingError("tangents must have the structure of the primals")
    chosen = {}
    for i in traced.float_inputs:
        t = tnp.astype(tnp.asarray(tangent_leaves[i]), traced.inputs[i].dtype)
        if t.shape != traced.inputs[i].shape:
            raise TracingError(f"tangent of shape {t.shape} for a primal of shape {traced.inputs[i].shape}")
        chosen[i] = t
    outs = traced.call()
    out_tangents = traced.pushforward(chosen) if chosen else \
        [tnp.zeros(s, d) for s, d in traced.out_avals]
    return tree.unflatten(traced.out_tree, outs), tree.unflatten(traced.out_tree, out_tangents)


def jvp(fun: Callable, primals: Sequence, tangents: Sequence):
    """Forward mode: return ``(fun(*primals), directional derivative along tangents)``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jvp(tnp.sin, (np.zeros(2),), (np.ones(2),))
    (array([0., 0.]), array([1., 1.]))
    """
    primals, tangents = tuple(primals), tuple(tangents)
    if _in_trace(tree.flatten((primals, tangents))[0]):
        return _jvp_traced(fun, primals, tangents)
    return _compiled(lambda p, t: _jvp_traced(fun, p, t), fun, ("jvp",))(primals, tangents)


def linearize(fun: Callable, *primals):
    """Return ``fun(*primals)`` and the linear function ``f_jvp(*tangents)`` of its derivative there.

    ``f_jvp`` is compiled once per signature; each call computes the tangent
    by forward mode at the fixed primals (the primal work that the tangents
    do not need is simplified away).

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> out, f_jvp = ta.linearize(tnp.sin, np.zeros(2))
    >>> f_jvp(np.array([1.0, 2.0]))
    array([1., 2.])
    """
    def tangent_of(primal_args, tangents):
        return _jvp_traced(fun, primal_args, tangents)[1]

    if _in_trace(tree.flatten(primals)[0]):
        out = _Traced(fun, primals)
        return tree.unflatten(out.out_tree, out.call()), lambda *tangents: tangent_of(primals, tangents)
    out = _compiled(lambda *args: fun(*args), fun, ("linearize-value",))(*primals)
    pushforward = _compiled(tangent_of, fun, ("linearize",))
    return out, lambda *tangents: pushforward(primals, tangents)


def linear_transpose(fun: Callable, *primals, check: bool = True) -> Callable:
    """Return the transpose of the linear function ``fun``: ``f_t(cotangent) -> tuple of input cotangents``.

    ``primals`` give the inputs' shapes and dtypes only (arrays or anything
    with ``shape`` and ``dtype``). The transpose is ``fun``'s pullback, which
    does not depend on the point for a linear function. With ``check``, the
    first call of each signature also pulls the cotangent back at a random
    point and raises ``ValueError`` if the results differ: ``fun`` is then not
    linear (a check inside a trace is not possible, and is skipped).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> f_t = ta.linear_transpose(lambda x: x[:2] * 2.0, np.zeros(3))
    >>> f_t(np.array([1.0, 2.0]))
    (array([2., 4., 0.]),)
    """
    leaves, in_tree = tree.flatten(primals)
    avals = [(tuple(np.shape(x)), np.dtype(getattr(x, "dtype", np.asarray(x).dtype))) for x in leaves]
    _check_float(tuple(tree.unflatten(in_tree, [np.zeros((), d) for _, d in avals])), tuple(range(len(primals))),
                 "linear_transpose")

    def pulled_back(points, cotangent):
        return _vjp_traced(fun, points, False)[1](cotangent)

    zeros = tree.unflatten(in_tree, [np.zeros(s, d) for s, d in avals])
    checked: set = set()

    def transpose(cotangent):
        if current_module() is not None or _in_trace(tree.flatten(cotangent)[0]):
            return pulled_back(zeros, cotangent)
        pull = _compiled(pulled_back, fun, ("linear_transpose",))
        result = pull(zeros, cotangent)
        signature = tuple((np.shape(c), np.asarray(c).dtype) for c in tree.flatten(cotangent)[0])
        if check and signature not in checked:
            _check_linear(fun, pull, zeros, avals, in_tree, cotangent, result)
            checked.add(signature)
        return result

    return transpose


def _check_linear(fun, pull, zeros, avals, in_tree, cotangent, at_zero) -> None:
    """Raise ``ValueError`` if the pullback of ``fun`` at a random point differs from ``at_zero`` (its value at zero)."""
    rng = np.random.default_rng(0)
    point = tree.unflatten(in_tree, [rng.standard_normal(s).astype(d) for s, d in avals])
    elsewhere = tree.flatten(pull(point, cotangent))[0]
    for a, b in zip(tree.flatten(at_zero)[0], elsewhere):
        scale = max(float(np.max(np.abs(a), initial=0.0)), 1.0)
        tolerance = 1e-4 if np.asarray(a).dtype.itemsize <= 4 else 1e-9
        if not np.allclose(a, b, rtol=tolerance, atol=tolerance * scale):
            raise ValueError(f"linear_transpose: {function_name(fun)} is not linear (its derivative depends on "
                             "the point); pass check=False only if rounding is the cause")


def _jacobian_tree(out, per_leaf: Callable):
    """The Jacobian pytree: ``out``'s structure, each leaf replaced by ``per_leaf(index of the leaf)``."""
    leaves, out_tree = tree.flatten(out)
    return tree.unflatten(out_tree, [per_leaf(j) for j in range(len(leaves))])


def jacrev(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Jitted:
    """Jacobian by reverse mode: one pullback of an identity cotangent per output leaf (TVM's ``head``).

    The identity cotangent has a batch prefix of the output's shape, so the
    pullback runs once for all its rows (a vmap of the pullback over the
    identity basis, done inside the derivative). For an output leaf of shape
    ``O`` and an input leaf of shape ``I``, the Jacobian has shape ``O + I``;
    pytrees nest as in JAX: the output's structure outside, the argument's
    inside (a tuple over the arguments when ``argnums`` is a tuple).

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.jacrev(lambda x: x * 2.0)(np.ones(2))
    array([[2., 0.],
           [0., 2.]])
    >>> ta.jacrev(lambda x, y: x * y, argnums=(0, 1))(np.ones(1), np.full(1, 3.0))
    (array([[3.]]), array([[1.]]))
    """

    def jacobian(*args, **kwargs):
        nums = _normalize_argnums(argnums, len(args))
        _check_float(args, nums, "jacrev", holomorphic)
        out, vjp_fn, aux = _vjp_traced(_with_args(fun, args, nums, kwargs), tuple(args[n] for n in nums), has_aux)
        outs = tree.flatten(out)[0]
        for leaf in outs:
            _check_output(leaf, "jacrev", holomorphic)

        def pulled_back(j: int):
            target = outs[j]
            seeds = [tnp.reshape(tnp.eye(o.size, dtype=o.dtype), o.shape + o.shape) if k == j else
                     tnp.zeros(target.shape + o.shape, o.dtype) for k, o in enumerate(outs)]
            grads = vjp_fn(tree.unflatten(tree.flatten(out)[1], seeds), prefix=target.shape)
            return grads[0] if isinstance(argnums, int) else grads

        jac = _jacobian_tree(out, pulled_back)
        return (jac, aux) if has_aux else jac

    jacobian.__name__ = f"jacrev_{function_name(fun)}"
    return Jitted(jacobian)


# JAX's name for the reverse-mode Jacobian.
jacobian = jacrev


def jacfwd(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Jitted:
    """Jacobian by forward mode: one pushforward of identity tangents per input leaf.

    Shapes and pytree nesting are those of :func:`jacrev`.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> ta.jacfwd(lambda x: tnp.sum(x ** 2))(np.arange(3.0))
    array([0., 2., 4.])
    >>> ta.jacfwd(lambda p: p["w"] * 2.0)({"w": np.ones(1)})
    {'w': array([[2.]])}
    """

    def jacobian(*args, **kwargs):
        nums = _normalize_argnums(argnums, len(args))
        _check_float(args, nums, "jacfwd", holomorphic, real_only=True)
        chosen = tuple(args[n] for n in nums)
        traced = _Traced(lambda *xs: _main_and_stopped_aux(_with_args(fun, args, nums, kwargs)(*xs), has_aux),
                         chosen)
        out, aux = _split_aux(tree.unflatten(traced.out_tree, traced.call()), has_aux)
        n_main = len(tree.flatten(out)[0])
        if holomorphic:  # a real output of complex inputs has no complex derivative
            for leaf in tree.flatten(out)[0]:
                _check_output(leaf, "jacfwd", holomorphic)
        columns = []  # per input leaf: the tangent of every output leaf, input dims last
        for i in range(traced.explicit):
            x = traced.inputs[i]
            if not is_inexact(x.dtype):
                columns.append([tnp.zeros(s + x.shape, x.dtype) for s, _ in traced.out_avals[:n_main]])
                continue
            identity = tnp.reshape(tnp.eye(x.size, dtype=x.dtype), x.shape + x.shape)
            tangents = traced.pushforward({i: identity}, prefix=x.shape)[:n_main]
            k = x.ndim  # move the batch prefix (input dims) behind the output dims
            columns.append([tnp.transpose(t, list(range(k, t.ndim)) + list(range(k))) for t in tangents])
        per_arg = tree.unflatten(traced.in_tree, list(range(traced.explicit)))

        def pushed_forward(j: int):
            grads = tree.tree_map(lambda i: columns[i][j], per_arg)
            return grads[0] if isinstance(argnums, int) else grads

        jac = _jacobian_tree(out, pushed_forward)
        return (jac, aux) if has_aux else jac

    jacobian.__name__ = f"jacfwd_{function_name(fun)}"
    return Jitted(jacobian)


def hessian(fun: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Jitted:
    """Hessian of a scalar function: ``jacfwd(jacrev(fun))``.

    With a tuple ``argnums`` the result nests as in JAX: ``h[i][j]`` is the
    block of the second derivatives with respect to arguments ``i`` and ``j``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta
    >>> ta.hessian(lambda x: (x ** 3).sum())(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    >>> ta.hessian(lambda x, y: x * x * y, argnums=(0, 1))(1.0, 2.0)
    ((array(4.), array(2.)), (array(2.), array(0.)))
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


class _CustomRule:
    """A function whose derivative comes from a rule the user supplies (the common part of the two kinds).

    Called, it traces the function into a private ``func.func``, traces the
    rule beside it (:meth:`_trace_rule`, once the rule is set), and marks the
    function with ``tad.<kind> = @rule`` for ``tad-differentiate``.
    """

    kind = ""  # "custom_vjp" or "custom_jvp"
    definer = ""  # the method that sets the rule, for the error when it is missing

    def __init__(self, fun: Callable):
        self.fun = fun
        self._rule_of: _Traced | None = None  # while the rule is traced: the traced function
        self.__name__ = getattr(fun, "__name__", self.kind)
        self.__doc__ = fun.__doc__

        def call(*args):
            return self._traced_call(*args)

        call.__name__ = function_name(fun)  # compiled on its own, the IR shows the user's name
        self._jitted = Jitted(call)

    def _has_rule(self) -> bool:
        raise NotImplementedError

    def _trace_rule(self, traced: _Traced) -> str:
        """Trace the rule for the traced function; return its symbol."""
        raise NotImplementedError

    def _traced_call(self, *args):
        if not self._has_rule():
            raise TracingError(f"{self.__name__}: call {self.definer} before using it")
        if self._rule_of is not None:  # the rule calls the function: call what is traced, or trace it plainly
            return self._call_from_rule(self._rule_of, args)
        traced = _Traced(self.fun, args)
        module = current_module()
        self._rule_of = traced
        try:
            rule_name, _, _, captured = trace_into(
                module, self._rule_body(traced),
                [(x.shape, x.dtype) for x in traced.inputs] + self._rule_extra(traced),
                name=f"{traced.name}_{self.kind.split('_')[1]}")
        finally:
            self._rule_of = None
        if captured:
            raise TracingError(f"{self.__name__}: its {self.kind} rule closes over values traced outside it; "
                               "pass them to the function as arguments")
        ir.SymbolTable(module.operation)[traced.name].attributes[f"tad.{self.kind}"] = \
            ir.FlatSymbolRefAttr.get(rule_name)
        return tree.unflatten(traced.out_tree, traced.call())

    def _call_from_rule(self, traced: _Traced, args: tuple):
        """The function called by its own rule: a call of ``traced`` (its rule included) when the arguments match."""
        leaves, in_tree = tree.flatten(args)
        inputs = [tnp.asarray(x) for x in leaves]
        if in_tree == traced.in_tree and traced.explicit == len(traced.inputs) and \
                [(x.shape, x.dtype) for x in inputs] == [(x.shape, x.dtype) for x in traced.inputs]:
            return tree.unflatten(traced.out_tree, _call(traced.name, inputs, traced.out_avals))
        return tree.unflatten(traced.out_tree, _Traced(self.fun, args).call())

    def _rule_extra(self, traced: _Traced) -> list:
        """The (shape, dtype) of the rule's arguments after the function's inputs."""
        raise NotImplementedError

    def _rule_body(self, traced: _Traced) -> Callable:
        """The function of flat arrays to trace as the rule."""
        raise NotImplementedError

    def __call__(self, *args):
        return self._jitted(*args)


class custom_vjp(_CustomRule):
    """A function with a user-supplied reverse-mode rule, as ``jax.custom_vjp``.

    ``fwd(*args) -> (out, residuals)`` and ``bwd(residuals, cotangent) ->
    tuple of one gradient per argument``. In IR the function carries
    ``tad.custom_vjp = @bwd`` where ``@bwd`` recomputes ``fwd``'s residuals.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> @ta.custom_vjp
    ... def clipped_identity(x):
    ...     return x
    >>> clipped_identity.defvjp(lambda x: (x, None), lambda res, g: (tnp.clip(g, -1.0, 1.0),))
    >>> ta.grad(lambda x: (clipped_identity(x) * 5.0).sum())(np.ones(2))
    array([1., 1.])
    """

    kind, definer = "custom_vjp", "defvjp(fwd, bwd)"

    def __init__(self, fun: Callable):
        self.fwd = self.bwd = None
        super().__init__(fun)

    def defvjp(self, fwd: Callable, bwd: Callable) -> None:
        """Set the forward (with residuals) and backward functions."""
        self.fwd, self.bwd = fwd, bwd

    def _has_rule(self) -> bool:
        return self.bwd is not None

    def _rule_extra(self, traced: _Traced) -> list:
        return list(traced.out_avals)

    def _rule_body(self, traced: _Traced) -> Callable:
        def backward(*inputs_and_cts):
            inputs = tree.unflatten(traced.in_tree, inputs_and_cts[:len(traced.inputs)])
            cotangent = tree.unflatten(traced.out_tree, inputs_and_cts[len(traced.inputs):])
            _, residuals = self.fwd(*inputs)
            grads = _cotangent_leaves(self.__name__, self.bwd(residuals, cotangent), inputs)
            for i, (g, x) in enumerate(zip(grads, traced.inputs)):
                if g is not None and tuple(np.shape(g)) != tuple(x.shape):
                    raise TracingError(f"{self.__name__}: bwd's cotangent {i} has shape {tuple(np.shape(g))}, "
                                       f"but its input has shape {tuple(x.shape)}")
            return [tnp.zeros(x.shape, x.dtype) if g is None else tnp.astype(tnp.asarray(g), x.dtype)
                    for g, x in zip(grads, traced.inputs)]

        return backward


def _cotangent_leaves(name: str, cotangents, args: tuple) -> list:
    """The leaves of ``bwd``'s result, one per leaf of the arguments (None: a zero cotangent)."""
    cotangents = tuple(cotangents) if isinstance(cotangents, (tuple, list)) else (cotangents,)
    if len(cotangents) != len(args):
        raise TracingError(f"{name}: bwd must return a tuple with one cotangent per argument "
                           f"({len(args)}), got {len(cotangents)}")
    leaves = []
    for i, (ct, arg) in enumerate(zip(cotangents, args)):
        n_leaves = len(tree.flatten(arg)[0])
        ct_leaves = [None] * n_leaves if ct is None else tree.flatten(ct)[0]
        if len(ct_leaves) != n_leaves:
            raise TracingError(f"{name}: bwd's cotangent for argument {i} has {len(ct_leaves)} "
                               f"arrays, but the argument has {n_leaves}")
        leaves += ct_leaves
    return leaves


class custom_jvp(_CustomRule):
    """A function with a user-supplied forward-mode rule, as ``jax.custom_jvp``; reverse mode transposes it.

    ``rule(primals, tangents) -> (out, tangent_out)``, set with ``defjvp``
    (usable as a decorator), takes the tuple of arguments and one tangent per
    argument (same structure) and returns the output and its tangent. The rule
    must be linear in the tangents: ``grad`` and ``vjp`` use its transpose. In
    IR the function carries ``tad.custom_jvp = @rule``.

    Examples
    --------
    >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
    >>> @ta.custom_jvp
    ... def log1pexp(x):
    ...     return tnp.log(1.0 + tnp.exp(x))
    >>> @log1pexp.defjvp
    ... def log1pexp_jvp(primals, tangents):
    ...     (x,), (t,) = primals, tangents
    ...     return log1pexp(x), t * (1.0 - 1.0 / (1.0 + tnp.exp(x)))
    >>> ta.grad(log1pexp)(100.0)  # the plain derivative would be inf / inf = nan
    array(1.)
    """

    kind, definer = "custom_jvp", "defjvp(rule)"

    def __init__(self, fun: Callable):
        self.jvp = None
        super().__init__(fun)

    def defjvp(self, jvp: Callable) -> Callable:
        """Set the rule ``jvp(primals, tangents) -> (out, tangent_out)``; returns it (a decorator)."""
        self.jvp = jvp
        return jvp

    def defjvps(self, *tangent_rules: Callable | None) -> None:
        """Set the rule from one function per argument, ``rule_i(t_i, out, *primals) -> tangent of out``.

        The output tangent is the sum over the arguments; ``None`` marks an
        argument with a zero derivative.

        Examples
        --------
        >>> import numpy as np, tensorad as ta, tensorad.numpy as tnp
        >>> f = ta.custom_jvp(lambda x, y: tnp.sin(x) * y)
        >>> f.defjvps(lambda tx, out, x, y: tnp.cos(x) * y * tx, lambda ty, out, x, y: tnp.sin(x) * ty)
        >>> ta.grad(f, argnums=(0, 1))(0.0, 2.0)
        (array(2.), array(0.))
        """
        def jvp(primals, tangents):
            out = self(*primals)
            terms = [rule(t, out, *primals) for rule, t in zip(tangent_rules, tangents) if rule is not None]
            if not terms:
                return out, tree.tree_map(tnp.zeros_like, out)
            return out, functools.reduce(lambda a, b: tree.tree_map(tnp.add, a, b), terms)

        self.jvp = jvp

    def _has_rule(self) -> bool:
        return self.jvp is not None

    def _rule_extra(self, traced: _Traced) -> list:
        return [(x.shape, x.dtype) for x in traced.inputs[:traced.explicit]]

    def _rule_body(self, traced: _Traced) -> Callable:
        n = len(traced.inputs)

        def rule(*flat):
            primals = tree.unflatten(traced.in_tree, flat[:traced.explicit])
            tangents = tree.unflatten(traced.in_tree, flat[n:])
            result = self.jvp(primals, tangents)
            if not (isinstance(result, (tuple, list)) and len(result) == 2):
                raise TracingError(f"{self.__name__}: the jvp rule must return a pair (out, tangent_out)")
            outs, out_tree = tree.flatten(result[0])
            tangent_outs, tangent_tree = tree.flatten(result[1])
            if out_tree != traced.out_tree or tangent_tree != traced.out_tree:
                raise TracingError(f"{self.__name__}: the jvp rule must return an output and a tangent "
                                   "with the structure of the function's output")
            checked = []
            for i, (leaf, (shape, dtype)) in enumerate(zip(outs + tangent_outs, traced.out_avals * 2)):
                leaf = tnp.asarray(leaf)
                if leaf.shape != tuple(shape):
                    what = "output" if i < len(outs) else "tangent"
                    raise TracingError(f"{self.__name__}: the jvp rule's {what} has shape {leaf.shape}, "
                                       f"but the function's output has shape {tuple(shape)}")
                checked.append(tnp.astype(leaf, dtype))
            return checked

        return rule
